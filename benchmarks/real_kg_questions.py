"""Questions about a real knowledge graph, with answers computed from its triples.

The questions live in ``benchmarks/real_kg_questions.json`` (ours; the KG is not copied
into the repo). Each has a text and a *structured* definition; this script computes the
answers from the KG's triples and writes STaRK-style queries (JSONL) and qrels (TREC).

A definition is a list of constraints that an answer must all meet (their intersection)::

    {"id": "spielberg-hanks", "text": "Which films directed by Steven Spielberg starred Tom Hanks?",
     "all": [{"from": "Steven Spielberg", "path": ["/film/director/film"]},
             {"from": "Tom Hanks", "path": ["/film/actor/film./film/performance/film"]}]}

Constraints:

- ``{"from": NAME, "path": [REL, ...]}``: nodes reached from the entity named ``NAME`` by
  following the relations in order (``REL`` head to tail; ``REL^-1`` tail to head). A name
  that several entities share is refused unless ``"mid"`` picks one.
- ``{"has": REL}``: nodes that are the head of some ``REL`` triple (``REL^-1``: the tail),
  a node type in all but name.
- ``{"name_has": [WORD, ...]}``: the node's name contains every word (case-insensitive),
  the textual part of a question.
- ``{"text_has": [WORD, ...]}``: the node's whole text (name column and description) holds
  every word or phrase as a whole word (case-insensitive): questions answered by a description.
- ``{"not": CONSTRAINT}``: nodes that do not meet it.

Every question must have between 1 and ``--max-answers`` answers, and none of its anchor
entities may be an answer (the script fails loudly otherwise, naming the question).

Usage::

    python benchmarks/real_kg_questions.py ../shared/data/fb15k237 /tmp/fbq
    python benchmarks/real_kg_questions.py ../shared/data/wn18rr /tmp/wnq \
        --questions benchmarks/real_kg_questions_wn18rr.json
    # -> /tmp/fbq/queries.jsonl, /tmp/fbq/qrels.trec, /tmp/fbq/summary.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_QUESTIONS = HERE / "real_kg_questions.json"
INV = "^-1"


class KG:
    """Triples indexed both ways, entity names and texts.

    Names come from ``entities.tsv`` (FB15k-237) or ``entity2text.txt`` (KG-BERT's layout;
    WN18RR's column holds ``lemma, gloss``: the part before the first ", " is also accepted as
    the name in ``from``); descriptions from ``entity2textlong.txt`` when present.
    """

    def __init__(self, root: Path) -> None:
        self.name = _read_column(root, ("entities.tsv", "entity2text.txt"))
        self.desc = _read_column(root, ("entity2textlong.txt",))
        self.out: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.heads: dict[str, set[str]] = defaultdict(set)
        self.tails: dict[str, set[str]] = defaultdict(set)
        for split in ("train", "dev", "valid", "test"):
            f = root / f"{split}.tsv"
            if not f.exists():
                continue
            for line in f.read_text(encoding="utf-8").splitlines():
                h, r, t = line.split("\t")
                self.out[(h, r)].add(t)
                self.out[(t, r + INV)].add(h)
                self.heads[r].add(h)
                self.tails[r].add(t)
        self.linked = {h for h, _ in self.out}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_head: dict[str, list[str]] = defaultdict(list)
        for mid, text in self.name.items():
            self.by_name[text.lower()].append(mid)
            self.by_head[text.split(", ", 1)[0].lower()].append(mid)

    def text(self, mid: str) -> str:
        """A node's whole text (name column + description), lower-cased."""
        return f"{self.name.get(mid, '')} {self.desc.get(mid, '')}".lower()

    def entity(self, qid: str, name: str, mid: str | None) -> str:
        """The one entity a question names."""
        if mid is not None:
            if mid not in self.name:
                raise SystemExit(f"{qid}: unknown mid {mid}")
            return mid
        found = [m for m in self.by_name.get(name.lower(), []) if m in self.linked]
        if not found:  # a name column of "lemma, gloss": the lemma names the node
            found = [m for m in self.by_head.get(name.lower(), []) if m in self.linked]
        if len(found) != 1:
            raise SystemExit(f"{qid}: {name!r} names {len(found)} entities {found}; give \"mid\"")
        return found[0]

    def follow(self, start: str, path: list[str]) -> set[str]:
        """Nodes reached from ``start`` along ``path``."""
        cur = {start}
        for rel in path:
            cur = set().union(*(self.out.get((n, rel), set()) for n in cur)) if cur else set()
        return cur


def _read_column(root: Path, files: tuple[str, ...]) -> dict[str, str]:
    """``id<TAB>text`` lines of the first of ``files`` that exists ({} if none)."""
    for name in files:
        f = root / name
        if f.exists():
            rows = (line.split("\t", 1) for line in f.read_text(encoding="utf-8").splitlines() if "\t" in line)
            return {mid: text for mid, text in rows}
    return {}


def _words(words: list[str]) -> list[re.Pattern[str]]:
    """Whole-word, case-insensitive patterns (a word may be a phrase)."""
    return [re.compile(rf"\b{re.escape(w.lower())}\b") for w in words]


def meets(kg: KG, qid: str, c: dict[str, Any], anchors: set[str]) -> set[str] | tuple[str, set[str]]:
    """The set of nodes meeting one constraint (``("not", set)`` for a negation)."""
    if "from" in c:
        start = kg.entity(qid, c["from"], c.get("mid"))
        anchors.add(start)
        return kg.follow(start, list(c["path"]))
    if "has" in c:
        rel = c["has"]
        return set(kg.tails[rel[: -len(INV)]] if rel.endswith(INV) else kg.heads[rel])
    if "name_has" in c:
        words = [w.lower() for w in c["name_has"]]
        return {m for m, n in kg.name.items() if all(w in n.lower() for w in words)}
    if "text_has" in c:
        pats = _words(c["text_has"])
        return {m for m in kg.name if all(p.search(kg.text(m)) for p in pats)}
    if "not" in c:
        got = meets(kg, qid, c["not"], anchors)
        return ("not", got if isinstance(got, set) else set())
    raise SystemExit(f"{qid}: unknown constraint {c}")


def answers(kg: KG, q: dict[str, Any]) -> tuple[list[str], set[str]]:
    """Answers (sorted mids) of one question and its anchor entities."""
    anchors: set[str] = set()
    pos: list[set[str]] = []
    neg: set[str] = set()
    for c in q["all"]:
        got = meets(kg, q["id"], c, anchors)
        if isinstance(got, tuple):
            neg |= got[1]
        else:
            pos.append(got)
    if not pos:
        raise SystemExit(f"{q['id']}: needs at least one positive constraint")
    ans = set.intersection(*pos) - neg
    return sorted(a for a in ans if a in kg.name and a in kg.linked), anchors


def _hops(constraints: list[dict[str, Any]]) -> int:
    """The longest relation chain a question's constraints follow."""
    return max((len(c.get("path", ())) if "not" not in c else 0 for c in constraints), default=0)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    """Compute the answers and write queries.jsonl, qrels.trec and summary.json."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kg", type=Path, help="KG directory (split .tsv files + entities.tsv or entity2text.txt)")
    p.add_argument("out", type=Path, help="output directory (never inside the repo)")
    p.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    p.add_argument("--max-answers", type=int, default=60)
    p.add_argument("--show", action="store_true", help="print every question with its answers' names")
    a = p.parse_args(argv)
    kg = KG(a.kg)
    qs = json.loads(a.questions.read_text(encoding="utf-8"))
    seen: set[str] = set()
    lines, qrels, sizes, kinds = [], [], [], defaultdict(int)
    for q in qs:
        if q["id"] in seen:
            raise SystemExit(f"{q['id']}: duplicate id")
        seen.add(q["id"])
        ans, anchors = answers(kg, q)
        if not 1 <= len(ans) <= a.max_answers:
            raise SystemExit(f"{q['id']}: {len(ans)} answers (want 1..{a.max_answers}): {q['text']}")
        if anchors & set(ans):
            raise SystemExit(f"{q['id']}: an anchor entity is one of its own answers")
        if a.show:
            print(f"{q['id']} ({len(ans)}): {q['text']}\n    " + "; ".join(kg.name[m] for m in ans[:12]))
        kinds[q.get("kind", "relational")] += 1
        sizes.append(len(ans))
        lines.append(json.dumps({"id": q["id"], "query": q["text"], "answer_ids": ans,
                                 "kind": q.get("kind", "relational"), "hops": _hops(q["all"])}))
        qrels += [f"{q['id']} 0 {m} 1" for m in ans]
    a.out.mkdir(parents=True, exist_ok=True)
    _write(a.out / "queries.jsonl", "\n".join(lines) + "\n")
    _write(a.out / "qrels.trec", "\n".join(qrels) + "\n")
    sizes.sort()
    summary = {"questions": len(qs), "kinds": dict(kinds), "answers_total": sum(sizes),
               "answers_median": sizes[len(sizes) // 2], "answers_max": sizes[-1]}
    _write(a.out / "summary.json", json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

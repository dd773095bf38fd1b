"""STaRK query sets and saved STaRK rankings: readers, no models (layer L1).

Folder layout of one dataset's QA files (as ``stark_qa`` downloads them, e.g.
``stark-queries/amazon/``)::

    DIR/stark_qa/stark_qa.csv                        id,query,answer_ids (all synthesized queries)
    DIR/stark_qa/stark_qa_human_generated_eval.csv   id,query,answer_ids,answer_ids_source
    DIR/split/{train,val,test}.index                 one query id a line (test-0.1.index too)

Splits: ``train``, ``val``, ``test`` (and ``test-0.1`` where present) are the ids in
``split/<name>.index`` in file order; ``human`` is every human-generated query in id
order (STaRK's ``human_generated_eval``). Node ids are STaRK node indices as strings.

Saved rankings (``eval_results_<split>.csv``, as STaRK's and AvaTaR's evaluation scripts
write them): ``query_id``, ``pred_rank`` (node ids, best first) and the per-query metrics
STaRK's evaluator computed; :func:`read_stark_eval_results` returns them as a Run
(score = length - position) and ``{qid: {metric: value}}``.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.datasets.queries import read_queries_and_answers

SPLITS = ("train", "val", "test", "test-0.1", "human")
#: STaRK's candidate node types per dataset (``SKB.candidate_types``; empty: every node).
CANDIDATE_TYPES: dict[str, tuple[str, ...]] = {"amazon": ("product",), "mag": ("paper",), "prime": ()}
HUMAN_CSV = "stark_qa_human_generated_eval.csv"


@dataclass
class StarkQA:
    """One split of a STaRK query set: queries, their answers, and where they came from."""

    dataset: str | None
    split: str
    queries: list[Query]
    qrels: Qrels
    csv_path: Path
    split_path: Path | None = None
    missing_answers: list[str] = field(default_factory=list)


def guess_dataset(path: str | Path) -> str | None:
    """``amazon``, ``mag`` or ``prime`` from a path's folder names (``primekg`` counts)."""
    for part in reversed(Path(path).absolute().parts):
        low = part.lower()
        if low in ("amazon", "mag"):
            return low
        if low.startswith("prime"):
            return "prime"
    return None


def find_qa_dir(path: str | Path) -> Path:
    """The dataset folder holding ``stark_qa/`` (``path`` itself, or its parent when ``path``
    is the ``stark_qa`` folder)."""
    p = Path(path)
    for cand in (p, p.parent):
        if (cand / "stark_qa").is_dir():
            return cand
    raise InputError("no STaRK query folder here: expected stark_qa/stark_qa.csv and "
                     "split/*.index under it (e.g. stark-queries/amazon)", file=p)


def read_stark_qa(path: str | Path, split: str = "test", *, limit: int | None = None) -> StarkQA:
    """Queries and answers of one split (see the module docstring).

    Args:
        path: the dataset folder (holding ``stark_qa/`` and ``split/``).
        split: one of :data:`SPLITS`.
        limit: only the first ``limit`` queries of the split.

    Raises:
        InputError: naming the file and line of a missing file or an unknown query id.
    """
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}", field="split")
    root = find_qa_dir(path)
    human = split == "human"
    csv_path = root / "stark_qa" / (HUMAN_CSV if human else "stark_qa.csv")
    queries, qrels = read_queries_and_answers(csv_path)
    split_path = None if human else root / "split" / f"{split}.index"
    if human:
        chosen = sorted(queries, key=lambda q: _int_key(q.id))
    else:
        assert split_path is not None
        by_id = {q.id: q for q in queries}
        chosen = [by_id[qid] for qid in _read_index(split_path, by_id)]
    if limit is not None:
        chosen = chosen[:limit]
    keep = {q.id for q in chosen}
    return StarkQA(
        dataset=guess_dataset(root), split=split, queries=chosen,
        qrels=Qrels({q: a for q, a in qrels.items() if q in keep}),
        csv_path=csv_path, split_path=split_path,
        missing_answers=[q.id for q in chosen if q.id not in qrels],
    )


def _int_key(qid: str) -> tuple[int, int | str]:
    return (0, int(qid)) if qid.lstrip("-").isdigit() else (1, qid)


def _read_index(path: Path, known: dict[str, Query]) -> list[str]:
    if not path.is_file():
        have = sorted(p.stem for p in path.parent.glob("*.index")) if path.parent.is_dir() else []
        raise InputError(f"split file not found (splits here: {', '.join(have) or 'none'})", file=path)
    ids: list[str] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        for n, raw in enumerate(fh, start=1):
            qid = raw.strip()
            if not qid:
                continue
            if qid not in known:
                raise InputError(f"query id {qid!r} is not in stark_qa.csv", file=path, line=n)
            if qid not in seen:
                seen.add(qid)
                ids.append(qid)
    return ids


@dataclass
class StarkEvalResults:
    """Saved STaRK rankings: the run and the per-query metrics STaRK computed for it."""

    run: Run
    metrics: dict[str, dict[str, float]]
    path: Path


def read_stark_eval_results(path: str | Path) -> StarkEvalResults:
    """Read an ``eval_results_*.csv`` (``query_id``, ``pred_rank`` and metric columns)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("STaRK eval results file not found", file=path)
    csv.field_size_limit(1 << 30)
    run: dict[str, dict[str, float]] = {}
    metrics: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        names = [c for c in (reader.fieldnames or []) if c not in ("", "idx", "query_id", "pred_rank")]
        for col in ("query_id", "pred_rank"):
            if col not in (reader.fieldnames or []):
                raise InputError(f"no {col} column", file=path, line=1, field=col)
        for row in reader:
            line = reader.line_num
            qid = str(row["query_id"]).strip()
            if qid in run:
                raise InputError(f"duplicate query_id {qid!r}", file=path, line=line, field="query_id")
            ranked = _id_list(row["pred_rank"], path, line)
            run[qid] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
            try:
                metrics[qid] = {m: float(row[m]) for m in names if row.get(m) not in (None, "")}
            except ValueError:
                raise InputError("a metric value is not a number", file=path, line=line) from None
    return StarkEvalResults(Run(run, name=path.stem), metrics, path)


def _id_list(text: str, path: Path, line: int) -> list[str]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise InputError("pred_rank is not a list of node ids", file=path, line=line,
                         field="pred_rank") from None
    if not isinstance(value, list):
        raise InputError("pred_rank is not a list of node ids", file=path, line=line, field="pred_rank")
    ids = [str(v) for v in value]
    if len(set(ids)) != len(ids):
        raise InputError("pred_rank repeats a node id", file=path, line=line, field="pred_rank")
    return ids

"""Write the first stage the re-ranking rows get, one ``qid<TAB>doc<TAB>repr(score)`` line a candidate.

Run it on two source trees to show that a change leaves the re-rankers' input alone, e.g. on
the code before the issue-22 defaults and on today's::

    git archive a80fe9e src | tar -x -C /tmp/before
    PYTHONPATH=/tmp/before/src python benchmarks/first_stage_dump.py impliret ../shared/data/impliret /tmp/a.tsv
    PYTHONPATH=src python benchmarks/first_stage_dump.py impliret ../shared/data/impliret /tmp/b.tsv
    cmp /tmp/a.tsv /tmp/b.tsv

``impliret``: ``bm25`` over every query's own pool (``load_rerank_data``, as the IMPLIRET
re-ranking rows); ``trecdl``: DL19's BM25 top-100 of the judged queries, as ``skb bench trecdl``
builds it. Only names both trees have are imported.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def impliret(data: str) -> Any:
    """IMPLIRET's ``bm25`` first stage over every query's own pool."""
    from skbsearch.benchmarks.impliret.rerank import load_rerank_data

    return load_rerank_data(data, "bm25").run


def trecdl(data: str) -> Any:
    """DL19's BM25 top-100 of the judged queries."""
    from skbsearch.datasets.trecdl import load_trecdl
    try:
        from skbsearch.core.types import Run
    except ImportError:  # the tree before skbsearch.core
        from skbsearch.types import Run  # type: ignore[no-redef]
    d = load_trecdl(data, "dl19")
    ids = {q.id for q in d.queries if q.id in d.qrels}
    return Run({q: x for q, x in d.run.items() if q in ids}, name="bm25").top(100)


def main(argv: list[str] | None = None) -> int:
    """``first_stage_dump.py impliret|trecdl DATA OUT``; prints the counts to stderr."""
    which, data, out = (argv if argv is not None else sys.argv[1:])[:3]
    run = {"impliret": impliret, "trecdl": trecdl}[which](data)
    lines = [f"{q}\t{doc}\t{s!r}\n" for q in sorted(run)
             for doc, s in sorted(run[q].items(), key=lambda x: (-x[1], x[0]))]
    Path(out).write_text("".join(lines))
    print(f"{len(run)} queries, {len(lines)} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

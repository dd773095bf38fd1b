"""skbsearch: retrieval and re-ranking over semi-structured knowledge bases (SKBs).

The front door::

    import skbsearch as skb
    kb = skb.SKB.load("my.skb")
    run = kb.pipeline("bm25(k=200) + dense(k=200) >> graph % 10").run(["red jacket"])
    skb.evaluate(run, qrels, ["hit@1", "mrr"])

(``skbsearch.pipeline`` is the module of the stage protocol and operators; a spec is built
with ``kb.pipeline(spec)`` or ``skbsearch.stages.pipeline(spec, kb)``.) Names beyond the
core types load lazily on first use, so ``import skbsearch`` stays
light (no index, model or server code at import time). The core (this package without
extras) needs only numpy, scipy, pyarrow, duckdb, typer, rich and bm25s.
"""

from __future__ import annotations

import importlib
from typing import Any

from skbsearch.errors import IndexError_, InputError, SkbError
from skbsearch.types import Qrels, Query, Run

__version__ = "0.1.0"

#: Lazily exported names -> "module:attribute".
_LAZY = {
    "SKB": "skbsearch.api:SKB",
    "stage": "skbsearch.stages:stage",
    "stages": "skbsearch.stages:available_stages",
    "evaluate": "skbsearch.eval.evaluate:evaluate",
    "Experiment": "skbsearch.eval.experiment:Experiment",
    "read_queries": "skbsearch.datasets.queries:read_queries",
}

__all__ = ["SkbError", "InputError", "IndexError_", "Query", "Run", "Qrels", "__version__",
           *_LAZY]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'skbsearch' has no attribute {name!r}")
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

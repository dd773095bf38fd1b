"""skbsearch: retrieval and re-ranking over semi-structured knowledge bases (SKBs).

The front door, a few names that shadow no module::

    import skbsearch as skb
    kb = skb.SKB.load("my.skb")
    p = skb.pipeline("bm25(k=200) + dense(k=200) >> graph % 10", kb)  # or kb.pipeline(spec)
    run = p.run(["red jacket"])
    skb.evaluate(run, qrels, ["hit@1", "mrr"])
    skb.fit(skb.pipeline("bm25 % 20 >> cross-encoder-ft", kb), queries, qrels)  # .fit_report
    skb.fuse(run_a, run_b, method="rrf")    # run_a + run_b: the spec's '+'

Names beyond the core types and errors load lazily on first use, so ``import skbsearch``
stays light (no index, model or server code at import time). The core (this package
without extras) needs only numpy, scipy, pyarrow, duckdb, typer, rich and bm25s.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from skbsearch.core.errors import (
    ArtefactError,
    DeadlineExceeded,
    InputError,
    MissingDependencyError,
    SkbError,
    UntrustedFileError,
)
from skbsearch.core.types import Qrels, Query, Run

__version__ = "0.1.0"

#: Lazily exported names -> "module:attribute". None of them is the name of a module of
#: this package (tests/core/test_front_door.py), so importing a submodule never rebinds one.
_LAZY = {
    "SKB": "skbsearch.api:SKB",
    "pipeline": "skbsearch.api:pipeline",
    "fuse": "skbsearch.api:fuse",
    "stage": "skbsearch.stages:stage",
    "fit": "skbsearch.stages:fit",
    "evaluate": "skbsearch.eval.evaluate:evaluate",
    "Experiment": "skbsearch.eval.experiment:Experiment",
    "read_queries": "skbsearch.datasets.queries:read_queries",
}

__all__ = ["SkbError", "InputError", "ArtefactError", "UntrustedFileError",
           "MissingDependencyError", "DeadlineExceeded", "Query", "Run", "Qrels", "__version__",
           *_LAZY]


def __getattr__(name: str) -> Any:
    """A front-door name on first use; any other name of a submodule is that submodule
    (``skb.stages`` is the module :mod:`skbsearch.stages` whether or not it was imported)."""
    target = _LAZY.get(name)
    if target is None:
        if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module 'skbsearch' has no attribute {name!r}")
        return importlib.import_module(f"{__name__}.{name}")
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

"""Where fusion lived until it became one class per stage; these names keep working.

The functions that fuse Runs live in :mod:`skbsearch.core.fusion`, the stages in
:mod:`skbsearch.stages.fusion`. ``RRF``, ``WeightedFusion`` and ``ScoreFusion`` were classes
beside those stages; they now build the stages themselves (``rrf``, ``minmax``/``zscore``,
``fuse``), which print as the spec that builds them (``rrf(a, b)``, not ``RRF(a, b, k=60)``).
"""

from __future__ import annotations

from collections.abc import Sequence

from skbsearch.core.errors import InputError
from skbsearch.core.fusion import (  # noqa: F401 - the old import path of the functions
    FUSE_METHODS,
    NORMS,
    confident_weights,
    fuse_runs,
    normalize_scores,
    rrf,
    score_fusion,
    weighted_fusion,
)
from skbsearch.core.operators import Stage
from skbsearch.stages.fusion import FuseStage, FusionStage, MinMaxStage, RRFStage, ZScoreStage


def RRF(*stages: Stage, k: int = 60, weights: Sequence[float] | None = None,  # noqa: N802
        depth: int | None = None) -> FusionStage:
    """The ``rrf`` stage over ``stages`` (:class:`~skbsearch.stages.fusion.RRFStage`)."""
    return RRFStage.of(*stages, k=k, weights=tuple(weights or ()), depth=depth)


def WeightedFusion(stages: Sequence[tuple[Stage, float] | Stage],  # noqa: N802
                   norm: str = "minmax") -> FusionStage:
    """The ``minmax`` or ``zscore`` stage over ``[(stage, weight), ...]`` or plain stages."""
    kinds = {"minmax": MinMaxStage, "zscore": ZScoreStage}
    if norm not in kinds:
        raise InputError(f"unknown normalisation {norm!r}; the weighted fusion stages are "
                         f"{', '.join(kinds)}", field="norm")
    pairs = [s if isinstance(s, tuple) else (s, 1.0) for s in stages]
    return kinds[norm].of(*(s for s, _ in pairs), weights=tuple(float(w) for _, w in pairs))


def ScoreFusion(*stages: Stage, weights: Sequence[float] | None = None,  # noqa: N802
                top: float = 2.0, depth: int = 100, k: int = 60) -> FusionStage:
    """The ``fuse`` stage (what ``a + b`` builds) over ``stages``."""
    return FuseStage.of(*stages, weights=tuple(weights or ()), top=top, depth=depth, k=k)

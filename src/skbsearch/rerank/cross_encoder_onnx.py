"""ONNX Runtime backend of the cross-encoder: export once, optionally quantise, score on CPU.

``load_scorer(model, backend="onnx", quantize="int8")`` (and the stage
``cross-encoder(model=..., backend=onnx, quantize=int8)``) goes through
:func:`ensure_onnx`: the model directory (one written by ``skb train cross-encoder`` or any
sentence-transformers ``CrossEncoder`` / Hugging Face sequence-classification directory with
one label) is exported with ``torch.onnx.export`` (dynamic batch and sequence axes) to
``cache_root()/onnx/<content hash>/model.onnx``, where the hash covers the directory's
files and the export settings, so a retrained model gets a new export and an unchanged one
is never exported twice. ``quantize="int8"`` adds ``model.int8.v<N>.onnx`` (dynamic int8
quantisation of the weights, ``onnxruntime.quantization.quantize_dynamic``). Files are
written to a temporary name and renamed, so concurrent processes never read half a file.

Scoring (:class:`OnnxCrossEncoder`) needs only ``onnxruntime`` and the model's tokenizer
(``transformers``); torch is needed for the export alone. Extra: ``[onnx]``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.devices import resolve
from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.core.lazy import optional_module
from skbsearch.core.paths import cache_root
from skbsearch.rerank.cross_encoder_model import (
    MARKER,
    CrossEncoderModel,
    encode_pairs,
    length_batches,
    pair_lengths,
    resolve_local,
)

#: Changes when the export (opset, inputs, outputs) changes: part of every cache key.
EXPORT_VERSION = 1
OPSET = 17
#: Changes when the quantisation recipe changes: part of the int8 file's name.
QUANT_VERSION = 2
QUANTIZE = ("none", "int8")
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _ort() -> Any:
    return optional_module("onnxruntime", "onnxruntime", "onnx", "The ONNX cross-encoder backend")


def check_quantize(quantize: str | None) -> str:
    """``None``/``"none"``/``"fp32"`` -> ``"none"``; ``"int8"`` as is; anything else refused."""
    q = "none" if quantize in (None, "", "fp32") else str(quantize).lower()
    if q not in QUANTIZE:
        raise InputError(f"unknown quantize {quantize!r}; use one of {QUANTIZE}", field="quantize")
    return q


def model_hash(directory: str | Path) -> str:
    """BLAKE2b-128 (hex) of a model directory's files (relative names and bytes) and the
    export settings; earlier ONNX exports inside it (``*.onnx``, ``onnx/``) are skipped."""
    d = Path(directory)
    h = hashlib.blake2b(digest_size=16)
    h.update(f"skb-onnx-export/{EXPORT_VERSION}/opset{OPSET}".encode())
    files = sorted(p for p in d.rglob("*") if p.is_file() and p.suffix != ".onnx"
                   and "onnx" not in p.relative_to(d).parts[:-1]
                   and not p.name.startswith("."))
    for p in files:
        h.update(p.relative_to(d).as_posix().encode() + b"\0")
        with open(p, "rb") as fh:
            for block in iter(functools.partial(fh.read, 1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _replace_atomically(write: Callable[[Path], None], target: Path) -> Path:
    """Call ``write(tmp)`` with a temporary path beside ``target``, then rename it over."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


def _load_for_export(directory: Path) -> tuple[Any, Any]:
    """``(torch model, tokenizer)`` of a native or sentence-transformers model directory."""
    if (directory / MARKER).is_file():
        m = CrossEncoderModel.load(directory)
        return m.model, m.tokenizer
    try:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError as e:
        raise MissingDependencyError("transformers", "dense", "Exporting a cross-encoder") from e
    try:
        model = AutoModelForSequenceClassification.from_pretrained(str(directory))
        tok = AutoTokenizer.from_pretrained(str(directory))
    except (OSError, ValueError) as e:
        raise InputError(f"could not load a cross-encoder from {directory}: {e}",
                         file=directory) from None
    if model.config.num_labels != 1:
        raise InputError(f"model has {model.config.num_labels} labels; a re-ranker needs 1",
                         file=directory / "config.json", field="num_labels")
    return model.eval(), tok


def export_onnx(model: Any, tokenizer: Any, out: str | Path) -> Path:
    """Export a sequence-classification model (one logit) to ONNX at ``out`` (atomically).

    Inputs are the tokenizer's (``input_ids``, ``attention_mask`` and, for BERT-style
    models, ``token_type_ids``), int64 with dynamic batch and sequence axes; the output is
    ``logits`` ``(batch, 1)``. The trace runs on two pairs of different lengths, so the
    attention mask is part of the graph.
    """
    try:
        import torch
    except ImportError as e:
        raise MissingDependencyError("torch", "dense", "Exporting a cross-encoder to ONNX") from e
    batch = tokenizer(["a query", "a longer query about cats"],
                      ["a passage", "a much longer passage about how long cats live"],
                      padding=True, return_tensors="pt")
    names = [n for n in _INPUTS if n in batch]
    axes = {n: {0: "batch", 1: "sequence"} for n in names} | {"logits": {0: "batch"}}
    model = model.eval()

    def write(tmp: Path) -> None:
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")  # tracer and legacy-exporter notices
            torch.onnx.export(model, tuple(batch[n] for n in names), str(tmp), input_names=names,
                              output_names=["logits"], dynamic_axes=axes, opset_version=OPSET,
                              dynamo=False)

    return _replace_atomically(write, Path(out))


def quantize_int8(src: str | Path, out: str | Path) -> Path:
    """Dynamic int8 quantisation of an ONNX model's weight matrices, per output channel
    (activations are quantised on the fly, per tensor).

    The feed-forward output projections (``.../output/dense`` after GELU, whose inputs have
    the large outliers of BERT-style models) and attention-score products stay float32:
    quantising them costs most of the ranking fidelity for little speed.
    """
    _ort()
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(src), load_external_data=False).graph
    keep = [n.name for n in graph.node if n.op_type == "MatMul" and "/output/dense/" in n.name
            and "/attention/" not in n.name]

    def write(tmp: Path) -> None:
        quantize_dynamic(str(src), str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_exclude=keep, extra_options={"MatMulConstBOnly": True})

    return _replace_atomically(write, Path(out))


def ensure_onnx(model: str | Path, quantize: str | None = "none",
                cache_dir: str | Path | None = None) -> Path:
    """The cached ONNX file of a model directory, exported (and quantised) on first use."""
    q = check_quantize(quantize)
    directory = Path(resolve_local(model))
    if not directory.is_dir():
        raise InputError(f"the ONNX backend exports a local model directory; {model!r} is not "
                         "one (download a hub model first, or train one with 'skb train "
                         "cross-encoder')", field="model")
    key = model_hash(directory)
    out_dir = Path(cache_dir) if cache_dir is not None else cache_root() / "onnx"
    out_dir = out_dir / key
    fp32 = out_dir / "model.onnx"
    if not fp32.is_file():
        torch_model, tok = _load_for_export(directory)
        export_onnx(torch_model, tok, fp32)
        info = {"source": str(directory), "hash": key, "opset": OPSET,
                "export_version": EXPORT_VERSION}
        (out_dir / "source.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    if q == "none":
        return fp32
    int8 = out_dir / f"model.int8.v{QUANT_VERSION}.onnx"
    if not int8.is_file():
        quantize_int8(fp32, int8)
    return int8


def onnx_providers(ort: Any, device: str | None) -> list[Any]:
    """onnxruntime execution providers for a device: CUDA first on a GPU when the
    installed onnxruntime has it (``onnxruntime-gpu``), else the CPU (warned on a GPU)."""
    spec = resolve(device)
    if not spec.is_cuda:
        return ["CPUExecutionProvider"]
    if "CUDAExecutionProvider" in ort.get_available_providers():
        index = int(spec.device.partition(":")[2] or 0)
        return [("CUDAExecutionProvider", {"device_id": index}), "CPUExecutionProvider"]
    warnings.warn(f"backend=onnx on {spec.device}: this onnxruntime has no CUDA execution "
                  "provider (pip install onnxruntime-gpu); scoring on the CPU", stacklevel=3)
    return ["CPUExecutionProvider"]


class OnnxCrossEncoder:
    """A cross-encoder scored with onnxruntime: ``score(queries, passages, contexts=None)``.

    Args:
        onnx_path: the exported model (see :func:`ensure_onnx`).
        tokenizer: the model's (fast) tokenizer.
        max_length: tokens per pair (longest segment truncated first).
        threads: onnxruntime intra-op threads.
        info: metadata (source directory, quantisation).
        device: on a GPU (:mod:`skbsearch.core.devices`) the session runs on onnxruntime's CUDA
            execution provider where ``onnxruntime-gpu`` is installed; without it on the
            CPU, with a warning.
    """

    def __init__(self, onnx_path: str | Path, tokenizer: Any, max_length: int = 256,
                 threads: int = 2, info: dict[str, Any] | None = None,
                 device: str | None = "cpu") -> None:
        ort = _ort()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # no busy-waiting between runs: in a pipeline the next stage (Python, numpy) needs the
        # cores (measured: graph % 20 >> cross-encoder int8, 1.55 s -> 1.22 s a query)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.providers = onnx_providers(ort, device)
        self.session = ort.InferenceSession(str(onnx_path), opts, providers=self.providers)
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self.path = Path(onnx_path)
        self.info = dict(info or {})

    @classmethod
    def from_dir(cls, model: str | Path, quantize: str | None = "none",
                 max_length: int | None = None, threads: int = 2,
                 cache_dir: str | Path | None = None,
                 device: str | None = "cpu") -> OnnxCrossEncoder:
        """Export (once) and open a model directory; ``max_length`` defaults to the saved one."""
        path = ensure_onnx(model, quantize, cache_dir)
        directory = Path(resolve_local(model))
        try:
            from transformers import AutoTokenizer
        except ImportError as e:
            raise MissingDependencyError("transformers", "dense", "The ONNX cross-encoder") from e
        tok = AutoTokenizer.from_pretrained(str(directory))
        saved = directory / MARKER
        if max_length is None:
            info = json.loads(saved.read_text(encoding="utf-8")) if saved.is_file() else {}
            max_length = int(info.get("max_length", 256))
        return cls(path, tok, max_length, threads,
                   {"source": str(directory), "quantize": check_quantize(quantize)}, device)

    def tokenize(self, queries: Sequence[str], passages: Sequence[str],
                 contexts: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """int64 input arrays for the session (only the inputs the model takes)."""
        enc = encode_pairs(self.tokenizer, queries, passages, contexts, self.max_length)
        return {n: enc[n] for n in self.input_names}

    def score(self, queries: Sequence[str], passages: Sequence[str],
              contexts: Sequence[str] | None = None, batch_size: int = 32,
              progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Relevance logits ``(n,)`` float32, scored in batches of similar length
        (:func:`length_batches`: little padding)."""
        n = len(queries)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        if len(passages) != n:
            raise InputError("queries and passages must have the same length", field="passages")
        lengths = pair_lengths(self.tokenizer, queries, passages, contexts, self.max_length)
        for idx in length_batches(lengths, batch_size):
            feed = self.tokenize([queries[i] for i in idx], [passages[i] for i in idx],
                                 [contexts[i] for i in idx] if contexts is not None else None)
            out[idx] = self.session.run(["logits"], feed)[0].reshape(-1)
            if progress is not None:
                progress(len(idx))
        return out

    def __repr__(self) -> str:
        return f"OnnxCrossEncoder({str(self.path)!r}, max_length={self.max_length})"

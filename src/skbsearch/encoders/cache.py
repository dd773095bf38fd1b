"""An on-disk embedding cache keyed by model id and text hash, and cached encoding.

The cache is one SQLite file (``embeddings.sqlite``) in a directory: a row per
``(model_id, blake2b-128(text))`` holding the vector as raw little-endian float32 bytes.
Nothing is pickled. Only texts missing from the cache are encoded, in batches, with a
progress bar.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from skbsearch.core.errors import ArtefactError
from skbsearch.core.paths import cache_root
from skbsearch.encoders.base import Encoder

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    key BLOB NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (model, key)
) WITHOUT ROWID
"""
_LOOKUP_BATCH = 500


def text_key(text: str) -> bytes:
    """The 16-byte BLAKE2b digest of a text (UTF-8), the cache key within a model."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def default_cache_dir() -> Path:
    """``$SKB_CACHE_DIR/embeddings`` or ``~/.cache/skbsearch/embeddings``."""
    return cache_root() / "embeddings"


class EmbeddingCache:
    """Vectors by ``(model_id, text)`` in ``<directory>/embeddings.sqlite``.

    Safe for several processes (SQLite WAL, busy timeout); thread-safe within one.
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "embeddings.sqlite"
        self._lock = threading.Lock()
        try:
            self._con = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute(_SCHEMA)
            self._con.commit()
        except sqlite3.DatabaseError as e:
            raise ArtefactError(
                f"{self.path}: not a usable embedding cache ({e}); delete it to start afresh"
            ) from None

    def get(self, model_id: str, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The cached vector of each text (``None`` where missing), in input order."""
        keys = [text_key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), _LOOKUP_BATCH):
                chunk = list(set(keys[start : start + _LOOKUP_BATCH]))
                marks = ",".join("?" * len(chunk))
                rows = self._con.execute(
                    f"SELECT key, dim, vec FROM embeddings WHERE model = ? AND key IN ({marks})",
                    [model_id, *chunk],
                ).fetchall()
                for key, dim, vec in rows:
                    arr = np.frombuffer(vec, dtype="<f4")
                    if arr.shape[0] == dim:  # a truncated row counts as missing
                        found[bytes(key)] = arr.astype(np.float32)
        return [found.get(k) for k in keys]

    def put(self, model_id: str, texts: Sequence[str], embeddings: np.ndarray) -> None:
        """Store one vector per text (replacing any old one)."""
        emb = np.asarray(embeddings, dtype="<f4")
        if emb.ndim != 2 or emb.shape[0] != len(texts):
            raise ValueError(f"need {len(texts)} embedding rows, got shape {emb.shape}")
        rows = [
            (model_id, text_key(t), int(emb.shape[1]), emb[i].tobytes())
            for i, t in enumerate(texts)
        ]
        with self._lock:
            self._con.executemany(
                "INSERT OR REPLACE INTO embeddings (model, key, dim, vec) VALUES (?, ?, ?, ?)", rows
            )
            self._con.commit()

    def count(self, model_id: str | None = None) -> int:
        """Number of cached vectors (of one model, or all)."""
        with self._lock:
            if model_id is None:
                return int(self._con.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])
            q = "SELECT COUNT(*) FROM embeddings WHERE model = ?"
            return int(self._con.execute(q, [model_id]).fetchone()[0])

    def models(self) -> dict[str, int]:
        """``{model_id: number of vectors}``."""
        with self._lock:
            rows = self._con.execute("SELECT model, COUNT(*) FROM embeddings GROUP BY model")
            return {m: int(n) for m, n in rows.fetchall()}

    def clear(self, model_id: str | None = None) -> None:
        """Drop the vectors of one model (or all)."""
        with self._lock:
            if model_id is None:
                self._con.execute("DELETE FROM embeddings")
            else:
                self._con.execute("DELETE FROM embeddings WHERE model = ?", [model_id])
            self._con.commit()

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._con.close()

    def __len__(self) -> int:
        return self.count()

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.directory)!r})"


def as_cache(cache: EmbeddingCache | str | Path | None) -> EmbeddingCache | None:
    """An :class:`EmbeddingCache` from a cache, a directory, or ``None`` (no caching)."""
    if cache is None or isinstance(cache, EmbeddingCache):
        return cache
    return EmbeddingCache(cache)


def encode_texts(
    encoder: Encoder,
    texts: Sequence[str],
    cache: EmbeddingCache | str | Path | None = None,
    *,
    batch_size: int = 64,
    progress: bool | Callable[[str, int, int], None] = False,
    description: str = "encoding",
) -> np.ndarray:
    """Embed ``texts`` with ``encoder``, encoding only distinct texts missing from ``cache``.

    Texts are encoded in steps of ``16 * batch_size`` (64 for an encoder that overlaps
    tokenisation with the model, on a GPU); each step is written to the cache
    at once, so an interrupted run keeps what it finished. ``progress`` is ``True`` for a
    rich progress bar (on stderr) or a ``progress(stage, done, total)`` callback. Returns
    ``(len(texts), dim)`` float32. An encoder that embeds faster than the cache answers
    (``encoder.cache_vectors`` false: a static one) skips the cache. A job expected to take
    over :data:`ANNOUNCE_SECONDS` says so after its first step: the progress stage becomes
    ``"embedding (N docs: expected ~T at R docs/s)"``.
    """
    cache = as_cache(cache) if getattr(encoder, "cache_vectors", True) else None
    texts = list(texts)
    unique: dict[str, int] = {}
    for t in texts:
        unique.setdefault(t, len(unique))
    distinct = list(unique)
    vecs: list[np.ndarray | None] = (
        cache.get(encoder.model_id, distinct) if cache is not None else [None] * len(distinct)
    )
    todo = [i for i, v in enumerate(vecs) if v is None]
    # an overlapped (GPU) encoder restarts its tokeniser pipeline every step: longer steps
    step = max(1, (64 if getattr(encoder, "overlap", False) else 16) * batch_size)
    callback = progress if callable(progress) else None
    bar = _progress(progress is True, len(todo))
    t0 = time.perf_counter()
    with bar if bar is not None else contextlib.nullcontext():
        task = bar.add_task(description, total=len(todo)) if bar is not None else None
        done = 0
        for start in range(0, len(todo), step):
            idx = todo[start : start + step]
            batch = [distinct[i] for i in idx]
            emb = encoder.encode(batch, batch_size=batch_size)
            if cache is not None:
                cache.put(encoder.model_id, batch, emb)
            for j, i in enumerate(idx):
                vecs[i] = emb[j]
            done += len(idx)
            if done == len(idx) and done < len(todo):  # after the first step: the expected time
                description = expected_time(description, len(todo), done, time.perf_counter() - t0)
                if bar is not None:
                    bar.update(task, description=description)
            if bar is not None:
                bar.advance(task, len(idx))
            if callback is not None:
                callback(description, done, len(todo))
    dim = encoder.dim
    if vecs and vecs[0] is not None:
        dim = int(vecs[0].shape[0])
    table = np.stack(vecs) if vecs else np.zeros((0, dim), np.float32)  # type: ignore[arg-type]  # every row is filled by now
    if len(distinct) == len(texts):  # no repeated text: the rows are in order (no second copy)
        return np.ascontiguousarray(table, dtype=np.float32)
    return np.ascontiguousarray(table[[unique[t] for t in texts]], dtype=np.float32)


#: A job expected to take longer than this announces its expected time.
ANNOUNCE_SECONDS = 30.0


def expected_time(description: str, total: int, done: int, seconds: float) -> str:
    """``description`` with the expected time of ``total`` texts at the rate of the first
    ``done`` (unchanged when the whole job is expected under :data:`ANNOUNCE_SECONDS`)."""
    rate = done / max(seconds, 1e-9)
    expected = total / rate
    if expected < ANNOUNCE_SECONDS:
        return description
    minutes, secs = divmod(round(expected), 60)
    when = f"{minutes} min {secs} s" if minutes else f"{secs} s"
    return f"{description} ({total:,} docs: expected ~{when} at {rate:,.0f} docs/s)"


class CachedEncoder(Encoder):
    """An encoder whose :meth:`encode` goes through an :class:`EmbeddingCache`."""

    def __init__(self, encoder: Encoder, cache: EmbeddingCache | str | Path) -> None:
        self.inner = encoder
        self.cache = as_cache(cache)
        self.name = encoder.name
        self.model_id = encoder.model_id
        self.dim = encoder.dim

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Embed ``texts``, reusing cached vectors."""
        return encode_texts(self.inner, texts, self.cache, batch_size=batch_size)


def _progress(enabled: bool, total: int) -> Any:
    if not enabled or total == 0:
        return None
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )

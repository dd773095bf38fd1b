"""The encoder protocol: texts in, L2-normalised float32 vectors out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Encoder:
    """Maps texts to L2-normalised float32 vectors.

    Subclasses set :attr:`name` (what the user asked for), :attr:`model_id` (a stable id
    of the weights and settings, used as the embedding-cache key) and :attr:`dim`, and
    implement :meth:`encode`. :attr:`cache_vectors` is false for an encoder that embeds
    faster than the on-disk embedding cache reads and writes (a static one): the cache is
    then skipped.
    """

    name: str = "encoder"
    model_id: str = "encoder"
    dim: int = 0
    cache_vectors: bool = True

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Embed ``texts`` as an ``(n, dim)`` float32 array of unit-length rows."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, dim={self.dim})"

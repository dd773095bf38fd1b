"""Which Ray Data builder builds an index kind (``skb index --engine ray``).

Kept apart from :mod:`skbsearch.index.distributed` (what the BM25 and dense Ray builds share)
so that the builders import the shared module and this dispatcher imports the builders,
never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skbsearch.core.errors import InputError

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


def ray_builder(kind: str, *, address: str | None = None, shard_rows: int = 50_000) -> Any:
    """The Ray builder of an index kind, with ``skb index``'s builder signature."""
    builder: Callable[..., Any]
    if kind == "bm25":
        from skbsearch.index.distributed_bm25 import build_bm25_ray as builder
    elif kind == "dense":
        from skbsearch.index.distributed_dense import build_dense_ray as builder
    else:
        raise InputError(f"--engine ray builds bm25 and dense indexes, not {kind}", field="engine")

    def build(skb: SKB, **options: Any) -> Any:
        return builder(skb, address=address, shard_rows=shard_rows, **options)

    return build

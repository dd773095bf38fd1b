"""The per-snapshot cache of built pipelines, bounded by an estimate of their memory.

A pipeline's stages build their working parts (retrievers, masks, models) on first use,
so an entry is measured when it is stored and again after its first run
(:meth:`PipelineCache.measure`); the least recently used entries go while the total
passes the budget. What the snapshot's context holds for every pipeline (the SKB, the
loaded indexes, shared name and enriched indexes) is not counted against an entry.
"""

from __future__ import annotations

import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

#: Bytes an entry counts at least (the pipeline objects themselves, the key).
MIN_ENTRY_BYTES = 4096
#: Elements of a large container measured; the rest are estimated from them.
SAMPLE = 64
_DEPTH = 8


def estimate_bytes(obj: Any, exclude: Iterable[Any] = ()) -> int:
    """An estimate of the memory ``obj`` holds (numpy arrays, containers, object attributes).

    Objects in ``exclude`` (and what only they hold) are not counted. Large containers
    are sampled (:data:`SAMPLE` elements), so this is fast on big retrievers.
    """
    seen = {id(x) for x in exclude}
    return _size(obj, seen, _DEPTH)


def _size(obj: Any, seen: set[int], depth: int) -> int:
    if obj is None or depth < 0 or id(obj) in seen or isinstance(obj, (type, types.ModuleType)):
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes) if obj.base is None or id(obj.base) not in seen else 0
    if isinstance(obj, (str, bytes, int, float, bool)):
        return sys.getsizeof(obj)
    if hasattr(obj, "indptr") and hasattr(obj, "data"):  # a scipy sparse matrix
        return sum(int(getattr(getattr(obj, a, None), "nbytes", 0))
                   for a in ("data", "indices", "indptr"))
    total = _safe_getsizeof(obj)
    if isinstance(obj, dict):
        sample = list(_head(obj.items(), SAMPLE))
        measured = sum(_size(k, seen, depth - 1) + _size(v, seen, depth - 1) for k, v in sample)
        return total + _scaled(measured, len(sample), len(obj))
    if isinstance(obj, (list, tuple, set, frozenset)):
        sample = list(_head(obj, SAMPLE))
        measured = sum(_size(x, seen, depth - 1) for x in sample)
        return total + _scaled(measured, len(sample), len(obj))
    if isinstance(obj, types.FunctionType):  # a closure keeps what its cells hold
        cells = obj.__closure__ or ()
        return total + sum(_size(c.cell_contents, seen, depth - 1) for c in cells
                           if _has_contents(c))
    if isinstance(obj, types.MethodType):
        return _size(obj.__self__, seen, depth - 1)
    attrs = getattr(obj, "__dict__", None)
    if isinstance(attrs, dict):
        total += sum(_size(v, seen, depth - 1) for v in attrs.values())
    for name in getattr(type(obj), "__slots__", ()):
        total += _size(getattr(obj, name, None), seen, depth - 1)
    return total


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _head(items: Iterable[Any], n: int) -> Iterable[Any]:
    for i, x in enumerate(items):
        if i >= n:
            return
        yield x


def _scaled(measured: int, sampled: int, length: int) -> int:
    """``measured`` over ``sampled`` elements, scaled to ``length`` elements."""
    return int(measured * length / sampled) if sampled else 0


def _safe_getsizeof(obj: Any) -> int:
    try:
        return sys.getsizeof(obj)
    except TypeError:
        return 64


class PipelineCache:
    """A LRU of built pipelines of one snapshot, bounded by their estimated memory.

    Args:
        max_bytes: the budget for all entries together (the newest entry always stays).
        sizeof: how an entry is measured (default :func:`estimate_bytes`).
    """

    def __init__(self, max_bytes: int = 256 * 2**20,
                 sizeof: Callable[[Any], int] | None = None) -> None:
        self.max_bytes = max_bytes
        self._sizeof = sizeof or estimate_bytes
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self._bytes: dict[tuple, int] = {}
        self._measured: set[tuple] = set()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple, build: Callable[[], Any]) -> Any:
        """The cached value for ``key``, else ``build()`` stored (least recent ones evicted)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.hits += 1
                return self._items[key]
            self.misses += 1
        value = build()  # outside the lock: building may parse and bind a long spec
        size = self._measure(value)
        with self._lock:
            self._items[key] = value
            self._bytes[key] = size
            self._items.move_to_end(key)
            self._evict()
        return value

    def measure(self, key: tuple) -> None:
        """Measure ``key``'s entry again after its first run (which built its parts); evict
        the least recent entries if the total is over budget. Later calls do nothing."""
        with self._lock:
            value = self._items.get(key)
            if value is None or key in self._measured:
                return
            self._measured.add(key)
        size = self._measure(value)
        with self._lock:
            if key in self._items:
                self._bytes[key] = size
                self._evict()

    @property
    def nbytes(self) -> int:
        """The estimated memory of all entries."""
        return sum(self._bytes.values())

    def _measure(self, value: Any) -> int:
        return max(MIN_ENTRY_BYTES, int(self._sizeof(value)))

    def _evict(self) -> None:
        while len(self._items) > 1 and sum(self._bytes.values()) > self.max_bytes:
            old, _ = self._items.popitem(last=False)
            self._bytes.pop(old, None)
            self._measured.discard(old)

    def __contains__(self, key: tuple) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

"""Indexes on disk, and the registry of index kinds behind ``skb index --kind``.

An index kind owns its life cycle in one :class:`IndexKind` registration, naming its parts
as ``"module:attribute"`` strings (so that heavy optional dependencies load only when that
kind is used):

- how it is built: ``options`` (the kind's default build options, resolved once on the SKB
  at hand) then ``builder`` (in this process) or ``ray_builder`` (on Ray Data), both
  ``build(skb, *, fields, field_weights, add_rel, progress, **params) -> index`` (an object
  with ``.save(path)``): the same options, so the same index either way;
- how it is opened: ``loader`` (``load(path) -> index``), then :func:`open_index` (recover a
  killed writer's directory, load, catch up, check it matches the SKB, share node ids);
- how it follows updates: ``catch_up`` (``fn(index, skb, root) -> index`` at the SKB's
  generation; none: the kind does not follow updates) and ``why_stale``
  (``fn(kind, source, directory) -> reason | None``: settings it cannot follow);
- how it is searched: ``stage``, a retriever stage class ``Retriever(index, k=..., filter=..., skb=...)``.

To add a kind, call :func:`register_kind` at the bottom of this module with the new entry;
``skb index``, pipelines, the server and ``skb kb update`` pick it up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from skbsearch.core.atomic import recover_dir
from skbsearch.core.errors import InputError
from skbsearch.index.base import Index, IndexRecord, Manifest, check_index_matches, read_manifest

#: where ``skb index --engine`` builds: this process, or Ray Data
ENGINES = ("local", "ray")


def _resolve(spec: str) -> Callable[..., Any]:
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj

if TYPE_CHECKING:
    from skbsearch.index.dense import DenseIndex
    from skbsearch.index.multivector import MultiVectorIndex
    from skbsearch.index.sparse import BM25Index
    from skbsearch.kb.store import SKB

    #: what mypy checks: each registered kind's index class is an :class:`Index`
    KIND_CLASSES: tuple[type[Index], ...] = (BM25Index, DenseIndex, MultiVectorIndex)

#: an index (or manifest) passed through the life cycle keeps its own type
IndexT = TypeVar("IndexT", bound=IndexRecord)


@dataclass(frozen=True)
class IndexKind:
    """One kind of index: how to build it (here or on Ray), open it, catch it up with an
    updated SKB, say why it cannot, and search it."""

    name: str
    builder: str
    loader: str
    stage: str
    description: str = ""
    default_dir: str = ""
    options: str = ""
    ray_builder: str = ""
    catch_up: str = ""
    why_stale: str = ""

    def build(self, skb: SKB, *, engine: str = "local", address: str | None = None,
              shard_rows: int = 50_000, **options: Any) -> Index:
        """Build this kind of index over ``skb`` (``engine``: ``local`` or ``ray``; ``address``
        and ``shard_rows``: the Ray cluster and node rows per shard). Both engines build from
        the options :attr:`options` resolves, so they build the same index."""
        self.check_engine(engine)
        extra: dict[str, Any] = {}
        if self.options:
            options, extra = _resolve(self.options)(skb, **options)
        if engine == "ray":
            index: Index = _resolve(self.ray_builder)(skb, address=address, shard_rows=shard_rows,
                                                      **options)
        else:
            index = _resolve(self.builder)(skb, **options)
        index.source.update(extra)
        return index

    def check_engine(self, engine: str) -> None:
        """Refuse an engine that cannot build this kind (:class:`InputError` on ``--engine``)."""
        if engine not in ENGINES:
            raise InputError(f"unknown engine {engine!r}; use local or ray", field="--engine")
        if engine == "ray" and not self.ray_builder:
            ray = " and ".join(k for k in available_kinds() if get_kind(k).ray_builder)
            raise InputError(f"--engine ray builds {ray} indexes, not {self.name}", field="--engine")

    def load(self, path: str | Path) -> Index:
        """Load a saved index of this kind (as saved: :func:`open_index` pairs it with an SKB)."""
        index: Index = _resolve(self.loader)(path)
        return index

    def retriever(self, index: Index | str | Path, **options: Any) -> Any:
        """A retrieval stage over a loaded index."""
        return _resolve(self.stage)(index, **options)

    @property
    def stage_name(self) -> str:
        """The name of this kind's retriever stage in the pipeline language."""
        return str(getattr(_resolve(self.stage), "name", self.name))

    @property
    def follows_updates(self) -> bool:
        """Whether an index of this kind can catch up with a later generation of its SKB."""
        return bool(self.catch_up)

    def caught_up(self, index: IndexT, skb: SKB | None, root: Path | None = None) -> IndexT:
        """``index`` brought to ``skb``'s generation (itself when current, not an ancestor,
        or of a kind that does not follow updates); ``root``: the SKB directory, when ``skb``
        is detached from it."""
        if not self.catch_up or skb is None:
            return index
        fresh: IndexT = _resolve(self.catch_up)(index, skb, root)
        return fresh

    def stale_reason(self, source: dict[str, Any], directory: Path) -> str | None:
        """Why an index of this kind built with ``source`` cannot follow updates (``None``: it can)."""
        if not self.catch_up:
            return f"{self.name} indexes do not follow updates yet"
        return _resolve(self.why_stale)(self.name, source, directory) if self.why_stale else None

    @property
    def index_dir_name(self) -> str:
        """Default directory name under ``SKB_DIR/indexes/``."""
        return self.default_dir or self.name


_REGISTRY: dict[str, IndexKind] = {}


def register_kind(kind: IndexKind) -> None:
    """Add (or replace) an index kind."""
    _REGISTRY[kind.name] = kind


def get_kind(name: str) -> IndexKind:
    """The registered kind called ``name``; unknown names raise :class:`InputError`."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown index kind {name!r}; available: {', '.join(available_kinds())}",
                         field="kind") from None


def available_kinds() -> list[str]:
    """Names of the registered index kinds."""
    return sorted(_REGISTRY)


def kind_of(index: IndexRecord) -> IndexKind | None:
    """The registered kind of a loaded index or a :class:`Manifest` (``None``: not a
    registered kind, e.g. the graph stage's ``linker`` tables)."""
    return _REGISTRY.get(str(getattr(index, "kind", "")))


def load_index(path: str | Path) -> Index:
    """Load any saved index, dispatching on its manifest's ``kind`` (as saved; to use it with
    an SKB, :func:`open_index`)."""
    m: Manifest = read_manifest(path)
    return get_kind(m.kind).load(path)


@overload
def open_index(where: str | Path, skb: SKB | None, *, kind: str | None = None,
               root: Path | None = None, follow: bool = True, warm: bool = True) -> Index: ...
@overload
def open_index(where: IndexT, skb: SKB | None, *, kind: str | None = None,
               root: Path | None = None, follow: bool = True, warm: bool = True) -> IndexT: ...
def open_index(where: str | Path | IndexT, skb: SKB | None, *, kind: str | None = None,
               root: Path | None = None, follow: bool = True, warm: bool = True) -> Index | IndexT:
    """The one way an index is opened for use with an SKB: recover a killed writer's
    directory, load it, catch it up with ``skb``'s generation, check that it was built from
    ``skb``, share the SKB's node id list, and load its query kernels.

    Args:
        where: an index directory, or an index (or a :class:`Manifest`) already loaded.
        skb: the SKB it is used with (``None``: nothing is caught up or checked).
        kind: the kind expected at a directory (default: the manifest's).
        root: the SKB directory when ``skb`` is detached from it (the server's snapshots).
        follow: catch up with ``skb``'s generation (``False``: only check).
        warm: load compiled query kernels now, not on the first query.

    Raises:
        ArtefactError: a damaged index, one of another kind, or one built from another SKB
            (:class:`~skbsearch.index.base.IndexMismatch`, with the command that rebuilds it).
    """
    if isinstance(where, (str, Path)):
        path = Path(where)
        recover_dir(path)  # a killed index writer: restore its previous version, drop its litter
        opened = get_kind(kind or read_manifest(path).kind)
        index: Index | IndexT = opened.load(path)
        spec: IndexKind | None = opened
    else:
        index = where
        spec = kind_of(where)
    if follow and spec is not None:
        index = spec.caught_up(index, skb, root)
    check_index_matches(index, skb)
    share = getattr(index, "share_node_ids", None)
    if share is not None and skb is not None:  # one id list for the SKB and its node-order indexes
        share(skb)
    warm_up = getattr(index, "warm", None)
    if warm and warm_up is not None:
        warm_up()
    return index


register_kind(
    IndexKind(
        name="bm25",
        builder="skbsearch.index.sparse:BM25Index.from_skb",
        options="skbsearch.index.sparse:BM25Index.default_options",
        ray_builder="skbsearch.index.distributed_bm25:build_bm25_ray",
        loader="skbsearch.index.sparse:BM25Index.load",
        catch_up="skbsearch.index.bm25_live:catch_up",
        why_stale="skbsearch.index.bm25_live:why_stale",
        stage="skbsearch.retrieve.sparse:BM25Retriever",
        description="BM25 (bm25s) over rendered node documents or weighted fields",
    )
)
register_kind(
    IndexKind(
        name="dense",
        builder="skbsearch.index.dense:DenseIndex.from_skb",
        ray_builder="skbsearch.index.distributed_dense:build_dense_ray",
        loader="skbsearch.index.dense:DenseIndex.load",
        catch_up="skbsearch.index.dense_live:catch_up",
        why_stale="skbsearch.index.dense_live:why_stale",
        stage="skbsearch.retrieve.dense:DenseRetriever",
        description="dense embeddings (MiniLM by default; numpy exact, FAISS flat or HNSW)",
    )
)
register_kind(
    IndexKind(
        name="multivector",
        builder="skbsearch.index.multivector:MultiVectorIndex.from_skb",
        loader="skbsearch.index.multivector:MultiVectorIndex.load",
        catch_up="skbsearch.index.dense_live:catch_up_multivector",
        why_stale="skbsearch.index.dense_live:why_stale",
        stage="skbsearch.retrieve.dense:MultiVectorRetriever",
        description="overlapping word chunks, one embedding each; doc score = max / mean-topN",
    )
)

"""What the index-backed retrievers (``bm25``, ``dense``, ``multivector``) share as stages.

Each is one registered stage class (:class:`~skbsearch.core.stage.SpecStage`) built two
ways: from a spec (``BM25Retriever(context, k=200)``: its index comes from the bound
context on first use) or over an index given directly (``BM25Retriever(index, k=200,
filter=NodeFilter(...))``: ready at once). Either way the hard filter is the ``types`` and
``where`` parameters, so the stage prints back as the spec that builds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from skbsearch.core.errors import InputError
from skbsearch.core.stage import Context, SpecStage, is_stage_context
from skbsearch.core.types import Query, Run
from skbsearch.retrieve.filters import NodeFilter

if TYPE_CHECKING:
    from skbsearch.index.base import Index
    from skbsearch.kb.store import SKB

#: the index class a retriever stage reads
KindT = TypeVar("KindT")


def loaded_index(index: Index | str | Path, cls: type[KindT], stage: str) -> KindT:
    """``index`` itself when it is a ``cls``, else the ``cls`` saved at that directory; an
    index of another kind is refused with an :class:`InputError` naming both kinds."""
    if isinstance(index, cls):
        return index
    if isinstance(index, (str, Path)):
        return cls.load(index)  # type: ignore[attr-defined]  # every index class has load()
    raise InputError(f"the {stage} stage reads a {getattr(cls, 'kind', cls.__name__)} index, "
                     f"not a {getattr(index, 'kind', type(index).__name__)} one", field="index")



@dataclass
class RetrieverParams:
    """The parameters of every first-stage retriever: how many, and hard filters."""

    k: int = field(default=100, metadata={"help": "candidates per query"})
    types: tuple[str, ...] = field(default=(), metadata={"help": "only nodes of these types"})
    where: str | None = field(default=None, metadata={"help": "attribute predicate"})
    index: str | None = field(default=None, metadata={
        "help": "index directory to read (one from 'skb index --out DIR'; default: "
                "SKB_DIR/indexes/KIND). A server refuses it in a client's spec"})

    def check(self) -> None:
        if self.k < 0:
            raise InputError("k must be >= 0", field="k")


class IndexRetriever(SpecStage):
    """An index-backed retriever stage: its index from a context (spec) or given directly.

    Subclasses set :attr:`index_kind` (the context's index they use) and implement
    :meth:`attach` (take an index: load it if a path, check it, reset derived state) and
    :meth:`_call` (``queries, run, k -> Run``).
    """

    index_kind: str = ""

    def __init__(self, source: Any = None, *, filter: NodeFilter | None = None,
                 skb: SKB | None = None, **params: Any) -> None:
        if filter is not None and not filter.is_empty:
            params = {"types": filter.types, "where": filter.where, **params}
        direct = source is not None and not is_stage_context(source)
        if direct and params.get("index") is not None:
            raise InputError("give an index object or the index parameter (a directory), not "
                             "both", field="index")
        super().__init__(None if direct else source, **params)
        self.skb = skb
        self._index: Any = None
        self._direct_source = source if direct else None
        self.owns_resources = direct

    def _ready_direct(self) -> None:
        """Attach a directly given index now (subclasses call it at the end of ``__init__``)."""
        if self._direct_source is not None:
            self.attach(self._direct_source, self.skb)
            self._direct_source = None
            self._built = self

    def build(self, context: Context) -> Any:
        """Attach the context's index (its ``SKB_DIR/indexes/KIND``, or the directory the
        ``index`` parameter names), checked against its SKB; the stage does its own work."""
        path = self.params.index
        index = (context.index(self.index_kind) if path is None
                 else context.index_at(self.index_kind, path))
        self.attach(index, context.kb)
        return self

    def evidence(self) -> tuple[str, ...]:
        """The context's index it reads (none when its index was given directly); an index
        named by the ``index`` parameter is other evidence than the context's own."""
        if not self.index_kind:
            return ()
        where = "" if self.params.index is None else f"@{self.params.index}"
        key = self.context_key(f"index:{self.index_kind}{where}")
        return (key,) if key is not None else ()

    def attach(self, index: Index | str | Path, skb: SKB | None) -> None:  # pragma: no cover - abstract
        """Use ``index`` (a loaded one or its directory), filters evaluated on ``skb``."""
        raise NotImplementedError

    @property
    def index(self) -> Any:
        """The index (the bound context's, loaded on first use)."""
        return self.inner._index

    @property
    def k(self) -> int:
        """Candidates per query."""
        return int(self.params.k)

    @property
    def filter(self) -> NodeFilter | None:
        """The hard filter of the ``types`` and ``where`` parameters (``None``: none)."""
        f = NodeFilter(self.params.types, self.params.where)
        return None if f.is_empty else f

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """Top-``k`` allowed documents per query, or the re-scored candidates of ``run``."""
        return self._call(list(queries), run, self.k)

    def search(self, text: str, k: int = 10) -> list[tuple[str, float]]:
        """Single-query helper: the top-``k`` ``(doc_id, score)`` pairs for ``text``."""
        return self._call([Query("q0", text)], None, k).ranked("q0")[:k]

    def _call(self, queries: list[Query], run: Run | None, k: int) -> Run:  # pragma: no cover
        raise NotImplementedError


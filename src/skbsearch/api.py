"""The front door's SKB (the store's class plus ``build`` and ``pipeline``) and
``pipeline(spec, kb)`` (layer L5).

``import skbsearch as skb`` exposes this module's names lazily (see ``skbsearch/__init__``)::

    kb = skb.SKB.build("nodes.jsonl", "my.skb", format="jsonl")   # or skb.SKB.load("my.skb")
    run = kb.pipeline("bm25 + dense >> cross-encoder(model='ce/') % 10").run(queries)
    run = skb.pipeline("bm25 % 10", kb).run(queries)                # the same, as a function
    skb.evaluate(run, qrels, ["hit@1", "mrr"])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import load as _load_source
from skbsearch.kb.store import SKB as _StoreSKB
from skbsearch.stages import StageContext
from skbsearch.stages import pipeline as _pipeline


class SKB(_StoreSKB):
    """A semi-structured knowledge base (see :class:`skbsearch.kb.store.SKB`) with the
    toolkit's conveniences: :meth:`build` from source files and :meth:`pipeline`."""

    @classmethod
    def build(cls, source: str | Path | None, out: str | Path | None = None, *,
              format: str | None = None, **options: Any) -> SKB:
        """Load ``source`` (JSONL/CSV nodes+edges, TSV triples, STaRK files) into an SKB.

        Args:
            source: the input file or directory.
            out: where to save the SKB directory (atomically); ``None`` keeps it in memory.
            format: ``jsonl``, ``csv``, ``triples`` or ``stark`` (detected when omitted).
            options: loader options (``nodes``, ``edges``, ``types``, ``trust_pickles``…).
        """
        kb = _load_source(source, format=format, **options)
        if out is None:
            return cls(kb.nodes, kb.edge_src, kb.edge_rel, kb.edge_dst, kb.schema, kb.meta)
        kb.save(out)
        return cls.load(out)

    def update(self, *, nodes: str | Path | None = None, edges: str | Path | None = None,
               delete_nodes: str | Path | None = None, delete_edges: str | Path | None = None,
               **options: Any) -> SKB:
        """Upsert and delete nodes and edges of this saved SKB by id (files in the formats of
        :meth:`build`; see ``docs/updates.md``) as one new generation, and return the SKB at
        that generation (this object keeps answering from its own)."""
        from skbsearch.kb.update import update

        update(self._saved_path(), nodes=nodes, edges=edges, delete_nodes=delete_nodes,
               delete_edges=delete_edges, **options)
        return type(self).load(self._saved_path())

    def compact(self) -> SKB:
        """Fold the pending segments into a new base (indexes rewritten); the SKB after it."""
        from skbsearch.index.live import compact_indexes
        from skbsearch.kb.update import compact

        compact(self._saved_path(), before_commit=compact_indexes)
        return type(self).load(self._saved_path())

    def _saved_path(self) -> Path:
        if self.path is None:
            raise InputError("this SKB is not saved; save it (or build it with out=...) to update it")
        return Path(self.path)

    def pipeline(self, spec: str | Any) -> Any:
        """A pipeline (spec string or stage objects) bound to this SKB and its indexes."""
        ctx = self.__dict__.get("_stage_context")
        if ctx is None:
            ctx = self.__dict__["_stage_context"] = StageContext(self)
        return _pipeline(spec, ctx)


def pipeline(spec: str | Any, kb: _StoreSKB | str | Path | StageContext | None = None) -> Any:
    """A pipeline from a spec string (or stage objects), bound to ``kb`` when given.

    Args:
        spec: a spec in the pipeline language (``"bm25(k=200) + dense >> graph % 10"``) or
            stage objects composed with ``>>``, ``+`` and ``%``.
        kb: the SKB (an object or its directory) the stages run on; ``None`` leaves the
            pipeline unbound (parsing never loads an index or a model).

    Returns:
        The pipeline; ``.run(queries)`` gives a :class:`skbsearch.core.types.Run`.
    """
    if isinstance(kb, SKB):
        return kb.pipeline(spec)  # shares the SKB's loaded indexes with kb.pipeline
    return _pipeline(spec, kb)

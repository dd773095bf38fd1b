"""The front door's SKB (the store's class plus ``build``, ``update``, ``index`` and
``pipeline``), ``pipeline(spec, kb)`` and ``fuse(run_a, run_b)`` (layer L5).

``import skbsearch as skb`` exposes this module's names lazily (see ``skbsearch/__init__``)::

    kb = skb.SKB.build("nodes.jsonl", "my.skb", format="jsonl")   # or skb.SKB.load("my.skb")
    run = kb.pipeline("bm25 + dense >> cross-encoder(model='ce/') % 10").run(queries)
    run = skb.pipeline("bm25 % 10", kb).run(queries)                # the same, as a function
    skb.evaluate(run, qrels, ["hit@1", "mrr"])
    kb = kb.update(nodes=[{"id": "p9", "type": "product", "name": "Trail jacket"}])
    kb.index("bm25", k1=1.2)                                        # as `skb index --kind bm25`
    skb.fuse(run_a, run_b, method="rrf")                            # or run_a + run_b
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.fusion import fuse_runs
from skbsearch.core.operators import StageBase
from skbsearch.core.progress import ProgressFn
from skbsearch.core.types import Run
from skbsearch.index import get_kind
from skbsearch.kb.loaders import load as _load_source
from skbsearch.kb.records import update_files
from skbsearch.kb.store import SKB as _StoreSKB
from skbsearch.stages import StageContext
from skbsearch.stages import pipeline as _pipeline

#: an update argument: a file path, records (dicts; edges also as (source, relation, target)
#: tuples; node ids for ``delete_nodes``) or a pandas DataFrame
UpdateInput = str | Path | Sequence[Any] | Any


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

    def update(self, *, nodes: UpdateInput | None = None, edges: UpdateInput | None = None,
               delete_nodes: UpdateInput | None = None, delete_edges: UpdateInput | None = None,
               **options: Any) -> SKB:
        """Upsert and delete nodes and edges of this saved SKB by id as one new generation,
        and return the SKB at that generation (this object keeps answering from its own).

        Each argument is a file in the formats of :meth:`build` (``skb kb update``'s), or the
        same records in Python: a list of dicts (``{"id", "type", "name", ...}`` nodes;
        ``{"source", "relation", "target"}`` edges, or ``(source, relation, target)``
        tuples), a pandas DataFrame of them, or for ``delete_nodes`` a list of ids. Records go
        through the file route's reader and checks (:mod:`skbsearch.kb.records`); an error
        names the argument and the record. See ``docs/updates.md``.
        """
        from skbsearch.kb.update import update

        with update_files(nodes=nodes, edges=edges, delete_nodes=delete_nodes,
                          delete_edges=delete_edges) as call:
            call(update, self._saved_path(), **options)
        self.__dict__.pop("_stage_context", None)
        return type(self).load(self._saved_path())

    def index(self, kind: str = "bm25", *, out: str | Path | None = None, force: bool = False,
              progress: ProgressFn | None = None, **options: Any) -> Any:
        """Build and save an index of this SKB, as ``skb index SKB --kind KIND`` does.

        Args:
            kind: ``bm25``, ``dense``, ``multivector`` (``skb index --kind``).
            out: the index directory (default ``SKB_DIR/indexes/<kind>``, where pipelines look).
            force: replace an existing index there (nothing else is ever replaced).
            progress: ``progress(stage, done, total)`` callback.
            options: the build options of ``skb index`` as keywords: ``fields``,
                ``field_weights`` (a dict), ``add_rel``, ``rel_weight``, ``k1``, ``b``,
                ``method``, ``stemmer``, ``combine``, ``field_b`` (a dict) for BM25;
                ``encoder``, ``backend``, ``device``, ``precision`` for dense kinds.

        Returns:
            The built index (saved; the next :meth:`pipeline` call uses it).
        """
        spec = get_kind(kind)
        ctx = StageContext(self)
        path = Path(out) if out is not None else ctx.index_dir(kind)
        if path is None:
            raise InputError("this SKB is not saved; give out=... or save it first", field="out")
        if path.exists() and not force:
            raise InputError(f"{path} exists; pass force=True to replace it", field="force")
        if kind in ("dense", "multivector"):
            from skbsearch.encoders import default_cache_dir

            options.setdefault("cache", default_cache_dir())
        if progress is not None:
            options["progress"] = progress
        try:
            index = spec.build(self, **options)
        except TypeError as e:
            if "unexpected keyword argument" not in str(e):
                raise
            raise InputError(f"index kind {kind!r}: {e}; its options are those of 'skb index --help'",
                             field="options") from None
        index.save(path, overwrite=True)
        self.__dict__.pop("_stage_context", None)  # pipelines made from now on open the new index
        return index

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

    def pipeline(self, spec: str | StageBase) -> StageBase:
        """A pipeline (spec string or stage objects) bound to this SKB and its indexes: a
        :class:`~skbsearch.core.stage.SpecStage` or a chain of them
        (:class:`~skbsearch.core.operators.Pipeline`); ``.run(queries)`` gives a Run,
        ``.transform(df)`` a DataFrame, ``.explain(query, doc_id)`` evidence lines."""
        ctx = self.__dict__.get("_stage_context")
        if ctx is None:
            ctx = self.__dict__["_stage_context"] = StageContext(self)
        stage: StageBase = _pipeline(spec, ctx)
        return stage


def pipeline(spec: str | StageBase, kb: _StoreSKB | str | Path | StageContext | None = None) -> StageBase:
    """A pipeline from a spec string (or stage objects), bound to ``kb`` when given.

    Args:
        spec: a spec in the pipeline language (``"bm25(k=200) + dense >> graph % 10"``) or
            stage objects composed with ``>>``, ``+`` and ``%``.
        kb: the SKB (an object or its directory) the stages run on; ``None`` leaves the
            pipeline unbound (parsing never loads an index or a model).

    Returns:
        The pipeline (a :class:`~skbsearch.core.stage.SpecStage` or a
        :class:`~skbsearch.core.operators.Pipeline`); ``.run(queries)`` gives a
        :class:`skbsearch.core.types.Run`, ``.transform(df)`` a DataFrame.
    """
    if isinstance(kb, SKB):
        return kb.pipeline(spec)  # shares the SKB's loaded indexes with kb.pipeline
    out: StageBase = _pipeline(spec, kb)
    return out


def fuse(*runs: Run, method: str = "fuse", weights: Sequence[float] | None = None,
         **params: float | int | None) -> Run:
    """Fuse saved Runs as a pipeline's fusion stages fuse their stages' Runs.

    ``skb.fuse(run_a, run_b)`` is ``run_a + run_b`` (score-aware fusion, a spec's ``+``);
    ``method="rrf"`` is reciprocal rank fusion, ``"zscore"``/``"minmax"`` weighted sums of
    normalised scores. ``weights``: one per run; ``params``: the method's own (``top``,
    ``depth``, ``k``). See :func:`skbsearch.core.fusion.fuse_runs`.
    """
    return fuse_runs(runs, method, weights, **params)


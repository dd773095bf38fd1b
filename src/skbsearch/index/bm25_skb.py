"""A BM25 index of an SKB's nodes: which texts make its fields, its defaults (the relation
lines as a second field, weighted as the SKB's own synthesised queries say), and what its
manifest records of the SKB. A mixin of :class:`~skbsearch.index.sparse.BM25Index`, whose
``build`` makes the index."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from skbsearch.index.base import ProgressFn, no_progress
from skbsearch.index.bm25_calibrate import RelWeightChoice, choose_rel_weight

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

#: weight of the relation field in the default index (the document field weighs 1):
#: neighbours' names count as much as the node's own words, so a name query still finds
#: the node named before a hub that lists it.
DEFAULT_REL_WEIGHT = 1.0
#: how the default index's two fields make one score (see :data:`bm25_build.COMBINES`).
#: ``sum`` keeps a node first for a query of its own name (its name's idf is its document
#: field's own); ``bm25f`` (``skb index --combine bm25f``) saturates a term once over both
#: fields, so a question naming a related entity no longer ranks that entity itself first, at
#: the cost of name look-ups, whose node then shares its name's idf with every neighbour that
#: lists it. Measured on seven development sets (benchmarks/NOTES.md, "BM25F"): none wins
#: them all, so the default stays ``sum`` and the choice is documented.
DEFAULT_COMBINE = "sum"
#: the relations field's length normalisation in a ``bm25f`` default index (a hub's long list
#: of names is normalised less than prose: 0.3 beat 0.75 and 0 on the three question sets)
DEFAULT_REL_B = 0.3
#: neighbour names listed per relation in the default index (hubs stay bounded)
DEFAULT_MAX_PER_RELATION = 10



class BM25FromSKB:
    """The SKB constructors of :class:`~skbsearch.index.sparse.BM25Index`."""

    source: dict[str, Any]

    @classmethod
    def build(cls, *args: Any, **kwargs: Any) -> Any:
        """The index over texts (:meth:`BM25Index.build <skbsearch.index.sparse.BM25Index.build>`)."""
        raise NotImplementedError

    @classmethod
    def from_skb(
        cls,
        skb: SKB,
        *,
        fields: Sequence[str] | None = None,
        field_weights: Mapping[str, float] | None = None,
        add_rel: bool = False,
        max_per_relation: int = 10,
        rel_weight: float | None = None,
        progress: ProgressFn = no_progress,
        **params: Any,
    ) -> Self:
        """Index every node of an SKB.

        Args:
            skb: the :class:`skbsearch.kb.SKB`.
            fields: node columns to index as separate weighted fields (``name`` allowed);
                ``None``: one field ``document``, the node rendered by ``DocumentRenderer``.
            field_weights: per-field weights (``relations`` names the relation field).
            add_rel: add the node's relations (names of related nodes): into the rendered
                document, or, with ``fields`` or ``rel_weight``, as an extra field ``relations``.
            max_per_relation: names listed per relation and node (a hub's thousands of
                neighbours never make a giant document).
            rel_weight: with ``add_rel`` and no ``fields``: index the rendered document
                (name, type, text fields) and its relation lines as two fields, the relations
                weighted ``rel_weight`` (the node's own words count more than its neighbours').
            params: BM25 parameters, as for :meth:`build`.
        """
        from skbsearch.index.bm25_docs import field_texts, skb_source

        n = skb.num_nodes
        progress("render", 0, n)
        split = fields is None and add_rel and rel_weight is not None
        if fields is not None:
            fields = [f.strip() for f in fields if f.strip()]
        parts = field_texts(skb, fields=fields, add_rel=add_rel, rel_weight=rel_weight,
                            max_per_relation=max_per_relation)
        if split and rel_weight is not None:
            field_weights = {"document": 1.0, "relations": float(rel_weight), **(field_weights or {})}
        progress("render", n, n)
        source = skb_source(skb, fields=fields, add_rel=add_rel, rel_weight=rel_weight,
                            max_per_relation=max_per_relation)
        return cls.build(parts, skb.ids, field_weights=field_weights, source=source,
                         progress=progress, **params)

    @classmethod
    def default_for_skb(cls, skb: SKB, *, fields: Sequence[str] | None = None,
                        add_rel: bool | None = None, rel_weight: float | None = None,
                        max_per_relation: int | None = None, **options: Any) -> Self:
        """The default BM25 index of an SKB (``skb index --kind bm25``; what stages build
        when none is saved): :meth:`from_skb` with :meth:`default_options`."""
        opts, extra = cls.default_options(skb, fields=fields, add_rel=add_rel, rel_weight=rel_weight,
                                          max_per_relation=max_per_relation, **options)
        index = cls.from_skb(skb, **opts)
        index.source.update(extra)
        return index

    @classmethod
    def default_options(cls, skb: SKB, *, fields: Sequence[str] | None = None,
                        add_rel: bool | None = None, rel_weight: float | None = None,
                        max_per_relation: int | None = None,
                        **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The build options of the default BM25 index of an SKB, and what its manifest's
        ``source`` records beside them: the node document as rendered, its relation lines with
        neighbour names as a second field weighted as the SKB's own synthesised queries say
        (:mod:`~skbsearch.index.bm25_calibrate`: at most 1, :data:`DEFAULT_REL_WEIGHT` when
        nodes are bare names; the choice goes to ``source``), at most
        :data:`DEFAULT_MAX_PER_RELATION` names per relation; the fields combined as
        :data:`DEFAULT_COMBINE` (with ``combine="bm25f"``, the relations' length normalised
        with ``b =`` :data:`DEFAULT_REL_B` unless ``field_b`` says otherwise). ``options``: as
        for :meth:`build` (``combine``, ``field_b``...). Every engine builds from these (the
        single-process :meth:`from_skb` and the Ray build), so both give the same index."""
        if add_rel is None:
            add_rel = True
        max_per_relation = max_per_relation or DEFAULT_MAX_PER_RELATION
        choice = None
        if add_rel and fields is None:
            options.setdefault("combine", DEFAULT_COMBINE)
            if options["combine"] == "bm25f" and options.get("field_b") is None:
                options["field_b"] = {"relations": DEFAULT_REL_B}
        if add_rel and fields is None and rel_weight is None:
            choice = cls._rel_weight(skb, max_per_relation, options)
            rel_weight = choice.weight
        opts = {"fields": fields, "add_rel": add_rel, "rel_weight": rel_weight,
                "max_per_relation": max_per_relation, **options}
        return opts, ({"rel_weight_choice": choice.as_source()} if choice is not None else {})

    @classmethod
    def _rel_weight(cls, skb: SKB, max_per_relation: int, options: dict[str, Any]) -> RelWeightChoice:
        """The default index's relation weight: calibrated on the SKB
        (:func:`~skbsearch.index.bm25_calibrate.choose_rel_weight`) for the ``sum`` layout,
        :data:`DEFAULT_REL_WEIGHT` for ``bm25f`` (whose fields share one saturation)."""
        if options.get("combine") != "sum":
            return RelWeightChoice(DEFAULT_REL_WEIGHT, f"not calibrated: combine={options.get('combine')}")
        from skbsearch.index.bm25_docs import field_texts

        same = {k: v for k, v in options.items() if k not in ("combine", "field_b", "field_weights", "progress")}
        return choose_rel_weight(
            skb, lambda: field_texts(skb, add_rel=True, rel_weight=1.0, max_per_relation=max_per_relation),
            lambda texts: cls.build(texts, skb.ids, source={"kind": "calibration"}, **same))

"""How a node becomes text: its fields, optionally its relations (STaRK's ``add_rel``).

``render(skb, i)`` gives e.g.::

    movie: Kismet
    plot: ...
    directed by: William Dieterle
    starred actors: Ronald Colman, Marlene Dietrich (+3 more)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from skbsearch.kb.arrays import take_rows
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.store import SKB


def relation_label(relation: str, labels: Mapping[str, str] | None = None) -> str:
    """Human label of a relation: ``also_bought`` -> ``also bought``; inverse -> ``... (reverse)``."""
    if labels and relation in labels:
        return labels[relation]
    if relation.endswith(INVERSE_SUFFIX):
        base = relation[: -len(INVERSE_SUFFIX)]
        return f"{relation_label(base, labels)} (reverse)"
    return relation.replace("_", " ")


@dataclass
class DocumentRenderer:
    """Renders nodes as documents.

    Attributes:
        fields: text fields to include (default: all of the schema's, in order).
        add_rel: append one line per relation with the names of related nodes.
        max_per_relation: cap on names listed per relation ("(+N more)" after).
        relations: relations to include (``r`` or ``r^-1``); default: all, both directions.
        include_type: start with ``type: name`` (else just the name).
        labels: optional relation -> label overrides.
        max_field_chars: truncate each field to this many characters (0 = no limit).
    """

    fields: Sequence[str] | None = None
    add_rel: bool = False
    max_per_relation: int = 10
    relations: Sequence[str] | None = None
    include_type: bool = True
    labels: Mapping[str, str] = field(default_factory=dict)
    max_field_chars: int = 0

    def _relations(self, skb: SKB) -> list[str]:
        if self.relations is not None:
            return list(self.relations)
        return [r for base in skb.schema.relations for r in (base, base + INVERSE_SUFFIX)]

    def render(self, skb: SKB, index: int) -> str:
        """One node's document."""
        return self.render_many(skb, [index])[0]

    def render_many(self, skb: SKB, indices: Iterable[int] | None = None) -> list[str]:
        """Documents for many nodes (all nodes when ``indices`` is None)."""
        idx = np.arange(skb.num_nodes) if indices is None else np.asarray(list(indices), dtype=np.int64)
        types = skb.type_names
        codes = skb.node_type_codes
        field_names = list(self.fields) if self.fields is not None else list(skb.schema.text_fields)
        rel_lines: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if self.add_rel and len(idx):
            for rel in self._relations(skb):
                rel_lines[rel] = skb.graph.neighbors(idx, [rel], "out")
        few = indices is not None and 8 * len(idx) < skb.num_nodes
        name_rows = np.concatenate([idx, *(_shown(off, nb, self.max_per_relation) for off, nb in rel_lines.values())
                                    ]) if few else idx
        names = _values(skb, "name", name_rows, few)
        ids = _values(skb, "id", name_rows, few) if few else skb.ids
        cols = {f: _values(skb, f, idx, few) for f in field_names}
        docs = []
        for pos, i in enumerate(idx):
            i = int(i)
            head = names[i] or ids[i] or ""
            lines = [f"{types[int(codes[i])]}: {head}" if self.include_type else head]
            for f in field_names:
                v = cols[f][i]
                if v:
                    if self.max_field_chars and len(v) > self.max_field_chars:
                        v = v[: self.max_field_chars] + "..."
                    lines.append(f"{f.replace('_', ' ')}: {v}")
            for rel, (offsets, nbrs) in rel_lines.items():
                nb = nbrs[offsets[pos] : offsets[pos + 1]]
                if len(nb) == 0:
                    continue
                shown = [names[int(j)] or ids[int(j)] or "" for j in nb[: self.max_per_relation]]
                more = len(nb) - len(shown)
                tail = f" (+{more} more)" if more > 0 else ""
                lines.append(f"{relation_label(rel, self.labels)}: {', '.join(shown)}{tail}")
            docs.append("\n".join(lines))
        return docs


def _values(skb: SKB, column: str, rows: np.ndarray, few: bool) -> Mapping[int, str | None] | list[str | None]:
    """``row -> value`` of ``column``: the cached whole column, or (``few``: a handful of rows
    of a large SKB) just those rows, taken from the Arrow table (no million-string list)."""
    if not few:
        return skb.column(column)
    if column not in skb.nodes.column_names:
        skb.column(column)  # raises the usual InputError naming the columns
    rows = np.unique(np.asarray(rows, dtype=np.int64))
    return dict(zip(rows.tolist(), take_rows(skb.nodes.column(column), rows).to_pylist(), strict=True))


def _shown(offsets: np.ndarray, nbrs: np.ndarray, cap: int) -> np.ndarray:
    """The neighbours a relation line names: the first ``cap`` of each seed's list (a hub's
    100,000 neighbours are counted, not named)."""
    starts = np.asarray(offsets[:-1], np.int64)
    counts = np.minimum(np.diff(offsets), cap)
    if not counts.sum():
        return np.zeros(0, np.int64)
    pos = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) + np.arange(counts.sum())
    return np.asarray(nbrs)[pos]

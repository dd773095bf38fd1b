"""Which text fields describe nodes one by one (descriptions), and which are shared labels."""

from __future__ import annotations

import weakref

import pyarrow as pa
import pyarrow.compute as pc

from skbsearch.kb.store import SKB

#: skb -> (its node table when measured, {min_distinct: fields}): counting the distinct
#: values of every text column is the costly part, asked for by several stages of one SKB.
_MEASURED: weakref.WeakKeyDictionary[SKB, tuple[pa.Table, dict[float, list[str]]]] = (
    weakref.WeakKeyDictionary())


def descriptive_fields(skb: SKB, min_distinct: float = 0.5) -> list[str]:
    """Text fields that describe nodes one by one: at least ``min_distinct`` of their values
    are distinct (a description, a plot), unlike labels many nodes share (an importer's
    categories, tags). Such labels are no document to retrieve or to draw properties from.
    Measured once per SKB and node table."""
    known = _MEASURED.get(skb)
    if known is not None and known[0] is skb.nodes and min_distinct in known[1]:
        return list(known[1][min_distinct])
    out = []
    for f in skb.schema.text_fields:
        if f not in skb.nodes.column_names:
            continue
        col = skb.nodes.column(f)
        valid = len(col) - col.null_count
        if valid and pc.count_distinct(col).as_py() >= min_distinct * valid:
            out.append(f)
    if known is None or known[0] is not skb.nodes:
        known = (skb.nodes, {})
        _MEASURED[skb] = known
    known[1][min_distinct] = out
    return list(out)


def carry_descriptive_fields(old: SKB, new: SKB) -> None:
    """Let ``new`` answer :func:`descriptive_fields` with what was measured on ``old``; only
    for a ``new`` whose text columns hold exactly ``old``'s values (a generation that changed
    attribute values only, ``server.reuse``)."""
    known = _MEASURED.get(old)
    if known is not None and known[0] is old.nodes and new.schema.text_fields == old.schema.text_fields:
        _MEASURED[new] = (new.nodes, dict(known[1]))

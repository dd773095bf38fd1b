"""Which text fields describe nodes one by one (descriptions), and which are shared labels."""

from __future__ import annotations

import pyarrow.compute as pc

from skbsearch.kb.store import SKB


def descriptive_fields(skb: SKB, min_distinct: float = 0.5) -> list[str]:
    """Text fields that describe nodes one by one: at least ``min_distinct`` of their values
    are distinct (a description, a plot), unlike labels many nodes share (an importer's
    categories, tags). Such labels are no document to retrieve or to draw properties from."""
    out = []
    for f in skb.schema.text_fields:
        if f not in skb.nodes.column_names:
            continue
        col = skb.nodes.column(f)
        valid = len(col) - col.null_count
        if valid and pc.count_distinct(col).as_py() >= min_distinct * valid:
            out.append(f)
    return out

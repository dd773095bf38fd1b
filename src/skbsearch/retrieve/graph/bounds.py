"""Numeric attribute bounds a query states ("under $20", "at least 4 stars").

The graph stage's attribute evidence: a candidate scores 1 when it meets every bound the
query states on an attribute the SKB has (a missing value fails), and 0 otherwise or when
the query states none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from skbsearch.enrich.constraints import parse_constraints

_RATING = re.compile(
    r"(?:at least|minimum of|min\.?)\s*(\d(?:\.\d)?)\s*stars?"
    r"|(\d(?:\.\d)?)\s*stars?\s*(?:or (?:more|higher|above|better)|and up|\+)"
    r"|rat(?:ing|ed)\s*(?:of\s*)?(\d(?:\.\d)?)\s*(?:stars?\s*)?(?:or (?:more|higher|above|better)|and up|\+)"
    r"|rat(?:ing|ed)\s*(?:of\s*)?(?:at least|above|over)\s*(\d(?:\.\d)?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class AttributeBounds:
    """Numeric bounds a query states on node attributes: ``{attribute: (low, high)}``."""

    bounds: dict[str, tuple[float | None, float | None]]

    def mask(self, values: Callable[[str], np.ndarray | None], rows: np.ndarray) -> np.ndarray:
        """1.0 where a node meets every bound, else 0.0 (all 0 when there are no bounds).

        Args:
            values: an attribute's values over all nodes as float64 (NaN: missing), or
                ``None`` when the SKB has no such attribute (its bound is then ignored).
            rows: the node indices to check.
        """
        ok = np.zeros(len(rows)) if not self.bounds else np.ones(len(rows))
        for attr, (lo, hi) in self.bounds.items():
            column = values(attr)
            if column is None:
                continue
            vals = column[rows]
            with np.errstate(invalid="ignore"):
                if lo is not None:
                    ok *= vals >= lo
                if hi is not None:
                    ok *= vals <= hi
        return ok

    def describe(self) -> str:
        """The bounds as text: ``price <= 20, rating >= 4``."""
        return ", ".join(" and ".join(x for x in (f"{a} >= {lo:g}" if lo is not None else "",
                                                  f"{a} <= {hi:g}" if hi is not None else "") if x)
                         for a, (lo, hi) in self.bounds.items())


def parse_attribute_bounds(
    query: str, *, price_attribute: str = "price", rating_attribute: str = "rating"
) -> AttributeBounds:
    """Price bounds ("under $20", "between $10 and $30") and rating bounds ("4 stars or more")."""
    bounds: dict[str, tuple[float | None, float | None]] = {}
    for c in parse_constraints(query):
        if c.kind == "price" and (c.low is not None or c.high is not None):
            bounds[price_attribute] = (c.low, c.high)
        elif c.kind == "price" and c.value is not None:
            v = float(c.value)
            bounds[price_attribute] = (v * 0.9, v * 1.1)
    m = _RATING.search(query)
    if m:
        v = float(next(g for g in m.groups() if g is not None))
        bounds[rating_attribute] = (v, None)
    return AttributeBounds(bounds)

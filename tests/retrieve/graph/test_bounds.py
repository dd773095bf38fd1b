"""Numeric attribute bounds a query states (``retrieve.graph.bounds``): price and rating bounds
parsed from the text, the mask of the nodes that meet every bound, and their description."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.retrieve.graph.bounds import AttributeBounds, parse_attribute_bounds


def test_parse_attribute_bounds():
    b = parse_attribute_bounds("a lamp under $25 with at least 4 stars").bounds
    assert b["price"][1] == pytest.approx(25.0) and b["rating"] == (4.0, None)
    assert parse_attribute_bounds("rated 4.5 or higher").bounds == {"rating": (4.5, None)}
    assert parse_attribute_bounds("a blue lamp").bounds == {}


def test_bounds_mask_and_describe():
    b = AttributeBounds({"price": (None, 20.0), "rating": (4.0, None), "weight": (1.0, None)})
    price, rating = np.array([12.0, 30.0, np.nan]), np.array([4.5, 4.5, 4.9])
    cols = {"price": price, "rating": rating}
    assert b.mask(cols.get, np.array([0, 1, 2])).tolist() == [1.0, 0.0, 0.0]  # NaN fails; no weight column
    assert AttributeBounds({}).mask(cols.get, np.array([0, 1])).tolist() == [0.0, 0.0]
    assert b.describe() == "price <= 20, rating >= 4, weight >= 1"


@pytest.mark.parametrize(("text", "bounds"), [
    ("between $10 and $30", {"price": (10.0, 30.0)}), ("over $100", {"price": (100.0, None)}),
    ("a mug for $20", {"price": (18.0, 22.0)}),  # one price: within 10 %
    ("minimum of 3 stars", {"rating": (3.0, None)}), ("rating of at least 4", {"rating": (4.0, None)}),
    ("4 stars and up", {"rating": (4.0, None)}), ("3 stars", {})])
def test_price_and_rating_phrases(text: str, bounds: dict) -> None:
    got = parse_attribute_bounds(text).bounds
    assert got.keys() == bounds.keys()
    for k, (lo, hi) in bounds.items():
        assert got[k] == (pytest.approx(lo) if lo is not None else None, pytest.approx(hi) if hi is not None else None)


def test_bounds_on_attributes_named_otherwise() -> None:
    got = parse_attribute_bounds("under $20 with 4 stars or more", price_attribute="cost", rating_attribute="stars")
    assert got.bounds == {"cost": (None, 20.0), "stars": (4.0, None)}
    assert AttributeBounds({"price": (10.0, 30.0)}).describe() == "price >= 10 and price <= 30"
    within = AttributeBounds({"price": (10.0, 30.0)}).mask({"price": np.array([9.0, 10.0, 30.0, 31.0])}.get,
                                                          np.array([3, 2, 1, 0]))
    assert within.tolist() == [0.0, 1.0, 1.0, 0.0]  # the bounds are inclusive; rows in the order asked

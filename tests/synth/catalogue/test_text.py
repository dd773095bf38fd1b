"""Vectorised text of the synthetic catalogue (``synth.catalogue.text``): templates filled
column-wise, articles, titles, descriptions that state exactly the features given, and
reviews (one a line) that praise or criticise exactly the aspects given."""

from __future__ import annotations

import numpy as np

from skbsearch.synth.catalogue.text import (
    ASPECT_KEYS,
    FEATURE_KEYS,
    article_phrase,
    product_descriptions,
    product_reviews,
    product_titles,
    vformat,
)
from skbsearch.synth.catalogue.vocab import ASPECTS, CATEGORIES, COLORS, FEATURES

OBJ = dict(dtype=object)


def test_vformat_fills_each_rows_template() -> None:
    got = vformat(("{a} and {b}", "only {b}!"), np.array([0, 1, 0]),
                  {"a": np.array(["x", "y", "z"], **OBJ), "b": np.array(["1", "2", "3"], **OBJ)})
    assert got.tolist() == ["x and 1", "only 2!", "z and 3"]
    assert vformat(("{a}",), np.zeros(0, np.int64), {"a": np.array([], **OBJ)}).tolist() == []


def test_articles() -> None:
    got = article_phrase(np.array(["orange tent", "red tent", "blue boots"], **OBJ), np.array([False, False, True]),
                         np.array([True, False, False]))
    assert got.tolist() == ["an orange tent", "a red tent", "a pair of blue boots"]


def test_titles() -> None:
    titles = product_titles(np.array(["Foxfield", "Norrow"], **OBJ), np.array(["Ridge", "Vale"], **OBJ),
                            np.array([0, 1]), np.array([0, 2]), np.array([FEATURE_KEYS.index("waterproof"), -1]))
    assert titles.tolist() == [f"Foxfield Ridge Waterproof {COLORS[0].capitalize()} {CATEGORIES[0].title}",
                               f"Norrow Vale {COLORS[2].capitalize()} {CATEGORIES[1].title}"]


def test_descriptions_state_exactly_the_features_given() -> None:
    rng = np.random.default_rng(0)
    n = 60
    feats = np.full((n, 2), -1)
    feats[:, 0] = np.arange(n) % len(FEATURE_KEYS)
    feats[::3, 1] = (np.arange(0, n, 3) + 5) % len(FEATURE_KEYS)
    desc = product_descriptions(rng, np.array(["Foxfield"] * n, **OBJ), np.array(["Ridge"] * n, **OBJ),
                                np.arange(n) % len(CATEGORIES), np.arange(n) % len(COLORS), feats)
    for i, d in enumerate(desc):
        stated = {k for k in FEATURE_KEYS if any(s in d for s in FEATURES[k].desc)}
        assert stated == {FEATURE_KEYS[f] for f in feats[i] if f >= 0}, d
        assert "  " not in d and d == d.strip()  # empty slots leave no gap


def test_reviews_one_a_line_with_their_stars() -> None:
    rng = np.random.default_rng(1)
    aspects = np.array([[0, 1], [2, -1], [-1, -1]])
    positive = np.array([[True, False], [False, False], [True, True]])
    stars = np.array([[5, 2], [1, 3], [4, 4]])
    reviews = product_reviews(rng, aspects, positive, stars)
    first = reviews[0].split("\n")
    assert len(first) == 2 and first[0].startswith("5/5: ") and first[1].startswith("2/5: ")
    assert any(s in first[0] for s in ASPECTS[ASPECT_KEYS[0]].praise)
    assert any(s in first[1] for s in ASPECTS[ASPECT_KEYS[1]].complaint)
    assert reviews[1].startswith("1/5: ") and "\n" not in reviews[1]
    assert any(s in reviews[1] for s in ASPECTS[ASPECT_KEYS[2]].complaint)
    assert reviews[2] == ""  # no review

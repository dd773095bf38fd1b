"""Vectorised text generation for the synthetic catalogue (titles, descriptions, reviews).

Strings are built column-wise with numpy object arrays (``a + " " + b``), so a million
products take seconds, not minutes. Which property a sentence states is decided by the
caller's arrays; this module only renders them.
"""

from __future__ import annotations

from string import Formatter

import numpy as np

from skbsearch.synth.catalogue.vocab import ASPECTS, CATEGORIES, COLORS, FEATURES

FEATURE_KEYS: tuple[str, ...] = tuple(FEATURES)
ASPECT_KEYS: tuple[str, ...] = tuple(ASPECTS)
MAX_SLOTS = max(len(c.features) for c in CATEGORIES)
MAX_ASPECTS = max(len(c.aspects) for c in CATEGORIES)

INTROS = (
    "The {brand} {model} is {a_color_noun} made for everyday use.",
    "Meet the {model} from {brand}: {a_color_noun} with practical details.",
    "{brand} designed the {model} {noun} for people who want gear that simply works.",
    "Here is {a_color_noun} from {brand} that pairs clean lines with thoughtful touches.",
    "The {model} is {brand}'s take on the classic {noun}, finished in {color}.",
)
MATERIALS = (
    "Made from {material}.",
    "The body is crafted from {material}.",
    "Constructed of {material}.",
    "Uses {material} throughout.",
)
CLOSERS = (
    "", "Backed by a two-year warranty.", "Ships in plastic-free packaging.",
    "Available in several sizes.", "Includes a storage pouch.", "",
)
FILLERS = (
    "", "Arrived quickly.", "Would buy again.", "Bought it as a gift.", "", "Packaging was minimal.",
    "Took a while to ship.", "",
)


def _table(rows: list[tuple[str, ...]]) -> np.ndarray:
    """A 2-D object array of strings, short rows padded by cycling their entries."""
    width = max(len(r) for r in rows)
    out = np.empty((len(rows), width), dtype=object)
    for i, r in enumerate(rows):
        for j in range(width):
            out[i, j] = r[j % len(r)]
    return out


FEATURE_DESC = _table([FEATURES[k].desc for k in FEATURE_KEYS])
ASPECT_PRAISE = _table([ASPECTS[k].praise for k in ASPECT_KEYS])
ASPECT_COMPLAINT = _table([ASPECTS[k].complaint for k in ASPECT_KEYS])
FEATURE_TITLE = np.array([FEATURES[k].title for k in FEATURE_KEYS], dtype=object)
COLOR_NAMES = np.array(COLORS, dtype=object)
COLOR_TITLES = np.array([c.capitalize() for c in COLORS], dtype=object)
CAT_TITLES = np.array([c.title for c in CATEGORIES], dtype=object)
CAT_NOUNS = np.array([c.nouns[0] for c in CATEGORIES], dtype=object)
CAT_PLURAL = np.array([c.nouns[0].endswith("s") for c in CATEGORIES], dtype=bool)
COLOR_VOWEL = np.array([c[0] in "aeiou" for c in COLORS], dtype=bool)
MATERIAL_TABLE = _table([c.materials for c in CATEGORIES])


def vformat(templates: tuple[str, ...], choice: np.ndarray, values: dict[str, np.ndarray]) -> np.ndarray:
    """Fill ``templates[choice[i]]`` with ``values[field][i]`` for every row, column-wise.

    Args:
        templates: ``str.format`` templates with named fields only.
        choice: per-row template index.
        values: per-row object arrays (one per field used).
    """
    out = np.empty(len(choice), dtype=object)
    for t, tpl in enumerate(templates):
        idx = np.flatnonzero(choice == t)
        if len(idx) == 0:
            continue
        acc = np.full(len(idx), "", dtype=object)
        for literal, field, _spec, _conv in Formatter().parse(tpl):
            if literal:
                acc = acc + literal
            if field:
                acc = acc + values[field][idx]
        out[idx] = acc
    return out


def _join(parts: list[np.ndarray], sep: str = " ") -> np.ndarray:
    """Join per-row string columns with ``sep``, skipping empty strings."""
    out = parts[0].copy()
    for p in parts[1:]:
        nonempty_left = out != ""
        nonempty_right = p != ""
        glue = np.where(nonempty_left & nonempty_right, sep, "").astype(object)
        out = out + glue + p
    return out


def article_phrase(phrases: np.ndarray, plural: np.ndarray, vowel: np.ndarray) -> np.ndarray:
    """Prefix ``a``/``an`` (by ``vowel``), or ``a pair of`` where ``plural``."""
    art = np.where(plural, "a pair of ", np.where(vowel, "an ", "a ")).astype(object)
    return art + phrases


def product_titles(
    brand_names: np.ndarray,
    models: np.ndarray,
    cat: np.ndarray,
    color: np.ndarray,
    title_feature: np.ndarray,
) -> np.ndarray:
    """``"{Brand} {Model} {Feature} {Colour} {Category}"``; ``title_feature`` -1 means none."""
    feat = np.where(title_feature >= 0, FEATURE_TITLE[np.maximum(title_feature, 0)] + " ", "").astype(object)
    return brand_names + " " + models + " " + feat + COLOR_TITLES[color] + " " + CAT_TITLES[cat]


def product_descriptions(
    rng: np.random.Generator,
    brand_names: np.ndarray,
    models: np.ndarray,
    cat: np.ndarray,
    color: np.ndarray,
    feature_ids: np.ndarray,
) -> np.ndarray:
    """Descriptions stating exactly the features in ``feature_ids`` (n x slots, -1 = none)."""
    n = len(cat)
    values = {"brand": brand_names, "model": models, "color": COLOR_NAMES[color], "noun": CAT_NOUNS[cat]}
    values["a_color_noun"] = article_phrase(
        values["color"] + " " + values["noun"], CAT_PLURAL[cat], COLOR_VOWEL[color]
    )
    parts = [vformat(INTROS, rng.integers(0, len(INTROS), n), values)]
    variants = rng.integers(0, FEATURE_DESC.shape[1], size=feature_ids.shape)
    for j in range(feature_ids.shape[1]):
        fid = feature_ids[:, j]
        sent = FEATURE_DESC[np.maximum(fid, 0), variants[:, j]]
        parts.append(np.where(fid >= 0, sent, "").astype(object))
    mat = MATERIAL_TABLE[cat, rng.integers(0, MATERIAL_TABLE.shape[1], n)]
    parts.append(vformat(MATERIALS, rng.integers(0, len(MATERIALS), n), {"material": mat}))
    parts.append(np.array(CLOSERS, dtype=object)[rng.integers(0, len(CLOSERS), n)])
    return _join(parts)


def product_reviews(
    rng: np.random.Generator,
    aspect_ids: np.ndarray,
    positive: np.ndarray,
    stars: np.ndarray,
) -> np.ndarray:
    """Reviews, one a line: ``"5/5: <sentence> <filler>"``; ``aspect_ids`` -1 = no review."""
    n = aspect_ids.shape[0]
    lines = []
    for j in range(aspect_ids.shape[1]):
        aid = np.maximum(aspect_ids[:, j], 0)
        var = rng.integers(0, ASPECT_PRAISE.shape[1], n)
        sent = np.where(positive[:, j], ASPECT_PRAISE[aid, var], ASPECT_COMPLAINT[aid, var]).astype(object)
        filler = np.array(FILLERS, dtype=object)[rng.integers(0, len(FILLERS), n)]
        text = stars[:, j].astype(str).astype(object) + "/5: " + _join([sent, filler])
        lines.append(np.where(aspect_ids[:, j] >= 0, text, "").astype(object))
    return _join(lines, sep="\n")

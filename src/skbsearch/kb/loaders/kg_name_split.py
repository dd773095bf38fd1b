"""A names column that holds a name *and* a text, split into the two.

Some KG releases put a node's name and its definition in one column (KG-BERT's WordNet
files: ``stool, solid excretory product evacuated from the bowels``). Taken whole, that
string becomes the node's name, and every neighbour's relation line repeats the neighbour's
whole definition. :func:`split_names` detects the layout from the values themselves, not
from the data set: a separator (``", "``, ``" - "``, ``": "``, ``"; "``) that in most values
(:data:`MIN_SHARE`) follows a short head (at most :data:`MAX_HEAD_WORDS` words) and precedes
a sentence (at least :data:`MIN_TAIL_WORDS` words, longer than the head). Names such as
``Paris, Texas`` or ``Smith, John`` never qualify (their tail is no sentence), so a names-only
KG keeps its names. Once the layout is known, every value with a head of at most twice that many words before
the separator is split (``genus calluna, one species``); the others keep their whole text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skbsearch.core.errors import InputError
from skbsearch.kb.store import arrow_numpy

#: separators tried, in this order (the first with the largest share wins)
SEPARATORS = (", ", " - ", " \u2013 ", ": ", "; ")
#: a name is at most this many words ...
MAX_HEAD_WORDS = 6
#: ... and the text after it at least this many
MIN_TAIL_WORDS = 3
#: the layout is detected when at least this share of the (sampled) names has it
MIN_SHARE = 0.5
#: names looked at to detect the layout (evenly spaced over the column)
SAMPLE = 20_000
#: ``--split-names`` values besides a literal separator
MODES = ("auto", "no")


@dataclass(frozen=True)
class NameSplit:
    """What :func:`split_names` did: the separator (``None``: nothing split), how many of
    how many names it split, and one example (the whole value, the name, the text)."""

    separator: str | None
    split: int
    total: int
    example: tuple[str, str, str] | None = None
    mode: str = "auto"

    def as_meta(self) -> dict[str, object]:
        """The SKB's ``meta["names_split"]`` record (``skb kb build`` / ``skb kb info`` print it)."""
        out: dict[str, object] = {"mode": self.mode, "separator": self.separator, "split": self.split,
                                  "names": self.total}
        if self.example is not None:
            out["example"] = {"value": self.example[0], "name": self.example[1],
                              "description": self.example[2]}
        return out


def _words(values: pa.Array) -> np.ndarray:
    """Word counts (runs of single spaces; the loader has collapsed whitespace)."""
    filled = pc.fill_null(values, "")
    n = arrow_numpy(pc.add(pc.count_substring(filled, " "), 1)).astype(np.int64)
    return np.where(arrow_numpy(pc.equal(pc.utf8_length(filled), 0)), 0, n)


def _shaped(names: pa.Array, sep: str) -> tuple[np.ndarray, np.ndarray, pa.Array, pa.Array]:
    """Which values are ``head SEP sentence`` (detection), which are ``head SEP text`` (split
    once the layout is known: ``genus calluna, one species``), and every value's head and
    tail at ``sep``."""
    parts = pc.split_pattern(pc.fill_null(names, ""), sep, max_splits=1)
    head = pc.list_element(parts, 0)
    has = arrow_numpy(pc.greater_equal(pc.list_value_length(parts), 2))
    tail = pc.binary_join(pc.list_slice(parts, 1, 2), "")
    hw, tw = _words(head), _words(tail)
    loose = has & (hw >= 1) & (hw <= 2 * MAX_HEAD_WORDS) & (tw >= 1)
    return loose & (hw <= MAX_HEAD_WORDS) & (tw >= MIN_TAIL_WORDS) & (tw > hw), loose, head, tail


def detect_separator(names: pa.Array) -> tuple[str | None, float]:
    """The separator most (sampled) names have the ``name SEP text`` shape at, and its share;
    ``(None, best share)`` when no separator reaches :data:`MIN_SHARE`."""
    present = pc.drop_null(names)
    if not len(present):
        return None, 0.0
    take = np.unique(np.linspace(0, len(present) - 1, min(SAMPLE, len(present))).astype(np.int64))
    sample = present.take(pa.array(take))
    best, share = None, 0.0
    for sep in SEPARATORS:
        s = float(_shaped(sample, sep)[0].mean())
        if s > share:
            best, share = sep, s
    return (best, share) if share >= MIN_SHARE else (None, share)


def split_names(names: pa.Array, mode: str = "auto") -> tuple[pa.Array, pa.Array | None, NameSplit]:
    """``(names, texts or None, what was done)``: with ``mode`` ``"auto"`` the separator is
    detected (:func:`detect_separator`), ``"no"`` splits nothing, any other value is the
    separator to split at (values without the shape keep their whole text as the name)."""
    total = len(names) - names.null_count
    if mode == "no":
        return names, None, NameSplit(None, 0, total, mode=mode)
    if not mode:
        raise InputError("--split-names wants 'auto', 'no' or a separator such as ', '", field="split_names")
    sep = detect_separator(names)[0] if mode == "auto" else mode
    if sep is None:
        return names, None, NameSplit(None, 0, total, mode=mode)
    _, ok, head, tail = _shaped(names, sep)
    ok &= ~arrow_numpy(pc.is_null(names))
    if not ok.any():
        return names, None, NameSplit(sep, 0, total, mode=mode)
    mask = pa.array(ok)
    new_names = pc.if_else(mask, pc.utf8_trim_whitespace(head), names)
    texts = pc.if_else(mask, pc.utf8_trim_whitespace(tail), pa.nulls(len(names), pa.string()))
    i = int(np.flatnonzero(ok)[0])
    example = (names[i].as_py(), new_names[i].as_py(), texts[i].as_py())
    return new_names, texts, NameSplit(sep, int(ok.sum()), total, example, mode)

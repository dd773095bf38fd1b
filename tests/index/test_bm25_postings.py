"""The term-major postings a BM25 index keeps to follow updates (index.bm25_postings): the
merge against a brute-force reference, term permutation, and the old layout refused with a
rebuild hint (their scores: tests/index/test_bm25_scoring.py)."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError
from skbsearch.index import bm25_postings as bp
from skbsearch.index.bm25_postings import Merge, Postings, merge


def _dense(p: Postings) -> np.ndarray:
    """(fields, terms, docs) term counts."""
    out = np.zeros((len(p.fields), p.n_terms, p.n_docs), np.int64)
    ip = np.asarray(p.indptr)
    for t in range(p.n_terms):
        for q in range(ip[t], ip[t + 1]):
            out[:, t, p.rows[q]] = p.tf[:, q]
    return out


def _random_tokens(rng: np.random.Generator, n_docs: int, n_vocab: int) -> list[list[int]]:
    return [rng.integers(0, n_vocab, rng.integers(0, 8)).tolist() for _ in range(n_docs)]


def test_from_tokens_counts_every_field() -> None:
    p = Postings.from_tokens({"a": [[0, 1, 1], [2]], "b": [[1], []]}, 3)
    d = _dense(p)
    assert d[0, 1, 0] == 2 and d[1, 1, 0] == 1 and d[0, 2, 1] == 1 and d.sum() == 5
    assert p.lengths.tolist() == [[3, 1], [1, 0]]
    ip = np.asarray(p.indptr)
    assert all(np.all(np.diff(np.asarray(p.rows)[ip[t]:ip[t + 1]]) > 0) for t in range(p.n_terms))


@pytest.mark.parametrize("seed", range(5))
def test_merge_equals_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    nb, nv = 12, 7
    base = Postings.from_tokens({"a": _random_tokens(rng, nb, nv - 2), "b": _random_tokens(rng, nb, nv - 2)}, nv - 2)
    alive = rng.random(nb) > 0.3
    row_map = np.where(alive, np.cumsum(alive) - 1, -1)
    n = int(alive.sum()) + 3  # three appended rows
    keep = rng.random((2, nb)) > 0.3
    rows = {f: np.sort(rng.choice(n, 4, replace=False)) for f in ("a", "b")}
    delta = Postings.from_tokens({f: _random_tokens(rng, 4, nv) for f in ("a", "b")}, nv, rows=rows, n_docs=n)
    got = _dense(merge(base, delta, row_map, keep))
    want = _dense(delta)
    b = _dense(base)
    for r in np.flatnonzero(alive):
        for f in range(2):
            if keep[f, r]:
                want[f, : base.n_terms, row_map[r]] += b[f, :, r]
    assert np.array_equal(got, want)


def test_merge_refuses_rows_out_of_order() -> None:
    base = Postings.from_tokens({"a": [[0], [0]]}, 1)
    with pytest.raises(ValueError):
        merge(base, Postings.from_tokens({"a": []}, 1, rows={"a": np.zeros(0, np.int64)}, n_docs=2),
              np.array([1, 0]), None)


def test_merge_writes_terms_in_the_order_given_with_their_frequencies() -> None:
    p = Postings.from_tokens({"a": [[0, 1], [1, 2], [2]], "b": [[2], [], []]}, 3)
    empty = Postings.from_tokens({"a": [], "b": []}, 3, rows={"a": np.zeros(0), "b": np.zeros(0)}, n_docs=3)
    empty.lengths = p.lengths
    m = Merge(p, empty, np.arange(3), None)
    assert [x.tolist() for x in m.first_occurrences()] == [[0, 0, 0], [0, 0, 1]]
    q, df = m.run(np.array([2, 0]))
    d, e = _dense(p), _dense(q)
    assert q.n_terms == 2 and np.array_equal(e[:, 0], d[:, 2]) and np.array_equal(e[:, 1], d[:, 0])
    assert df.tolist() == [[2, 1], [1, 0]]


def test_saved_postings_round_trip_and_old_layout_refused(tmp_path) -> None:
    p = Postings.from_tokens({"a": [[0, 1], [1]], "b": [[2], []]}, 3)
    bp.save(tmp_path / "live", p)
    assert bp.load(tmp_path / "live", "rebuild").equals(p)
    assert bp.load(tmp_path / "none", "rebuild") is None
    old = tmp_path / "old"
    old.mkdir()
    (old / "fields.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ArtefactError, match="older layout.*skb index"):
        bp.load(old, "rebuild with 'skb index SKB_DIR --kind bm25 --force'")
    (tmp_path / "live" / "tf.npy").write_bytes(b"")
    with pytest.raises(ArtefactError, match="damaged term statistics"):
        bp.load(tmp_path / "live", "rebuild")

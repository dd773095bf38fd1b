"""Judged training queries (train/judged.py): TREC DL candidates without qrels, teacher
scores as cosines, NQ with bi-encoder-mined negatives (fast: a fake encoder)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from judged_data import WordEncoder
from judged_data import write_trecdl as _write_trecdl

from skbsearch.core.errors import InputError
from skbsearch.train.judged import (
    add_teacher_scores,
    load_data_spec,
    load_nq_queries,
    load_trecdl_candidates,
)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


def test_trecdl_candidates_read_no_qrels(tmp_path: Path) -> None:
    _write_trecdl(tmp_path, qrels=False)
    (q,) = load_trecdl_candidates(tmp_path / "dl19")
    assert q.judged == [] and len(q.unjudged) == 4 and q.teacher is None
    assert q.source == "trecdl-candidates:dl19"
    assert load_data_spec(f"trecdl-candidates:{tmp_path}/dl19")[0].unjudged == q.unjudged
    assert load_trecdl_candidates(tmp_path / "dl19", query_ids={"2"}) == []
    with pytest.raises(InputError, match="dl20_bm25_top100.json"):
        load_trecdl_candidates(tmp_path / "dl20")


def test_teacher_scores_are_cosines(tmp_path: Path) -> None:
    _write_trecdl(tmp_path, qrels=False)
    queries = load_trecdl_candidates(tmp_path / "dl19")
    enc = WordEncoder()
    add_teacher_scores(queries, enc)
    t = queries[0].teacher
    assert t is not None and set(t) == set(queries[0].unjudged)
    q = enc.encode([queries[0].text])[0]
    for p, s in t.items():
        assert s == pytest.approx(float(enc.encode([p])[0] @ q), abs=1e-6)
    assert t["fleas live up to a year"] > t["bananas are yellow"]


def test_nq_dense_negatives(tmp_path: Path) -> None:
    rows = [("who wrote hamlet", ["shakespeare"], "hamlet is a play by shakespeare"),
            ("who wrote macbeth", ["shakespeare"], "macbeth is a play by shakespeare"),
            ("capital of france", ["paris"], "paris is the capital of france"),
            ("capital of spain", ["madrid"], "madrid is the capital of spain"),
            ("who wrote faust", ["goethe"], "faust is a play by goethe"),
            ("longest river", ["nile"], "the nile is the longest river")]
    path = tmp_path / "nq.jsonl.gz"
    with gzip.open(path, "wt") as f:
        for q, a, p in rows:
            f.write(json.dumps({"question": q, "answers": a,
                                "ctxs": [{"text": p, "title": ""}]}) + "\n")
    plain = load_nq_queries(path, hard_negatives=1)
    more = load_nq_queries(path, hard_negatives=1, dense_negatives=2, encoder=WordEncoder())
    assert len(plain) == len(more) == len(rows)
    by_q = {q.text: q for q in more}
    for q, a, p in rows:
        got = by_q[q]
        assert got.judged[0] == (p, 1)
        negs = [t for t, g in got.judged[1:]]
        assert all(g == 0 for _, g in got.judged[1:]) and len(negs) == len(set(negs)) <= 3
        assert p not in negs and not any(x in t for t in negs for x in a)  # no answer in a negative
    assert sum(len(q.judged) for q in more) > sum(len(q.judged) for q in plain)

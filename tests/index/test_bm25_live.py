"""BM25 that follows a changing SKB (``index.bm25_live``). The default BM25 index (relation
lines: a node's document lists its neighbours' names) follows updates incrementally (issue
25): only the changed nodes and the nodes whose neighbourhood changed are tokenised again, and
the scores equal a rebuild's. Also: which segments and ids are pending, why an index cannot
follow, an index that is current or of another SKB left as it is, one without term statistics
refused with the command that rebuilds it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from live_data import apply, build, write_jsonl

from skbsearch.core.errors import ArtefactError
from skbsearch.index import bm25_live
from skbsearch.index.live import catch_up
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.kb.generations import SEGMENTS_DIR, current
from skbsearch.kb.segments import Segment, read_segment
from skbsearch.kb.update import update

NODES = [
    {"id": "p1", "type": "product", "name": "Red shoe", "description": "a red running shoe", "price": 50},
    {"id": "p2", "type": "product", "name": "Blue shoe", "description": "a blue walking shoe", "price": 120},
    {"id": "p3", "type": "product", "name": "Green hat", "description": "a green sun hat", "price": 20},
    {"id": "p5", "type": "product", "name": "Grey sock", "description": "a warm wool sock", "price": 8},
    {"id": "p6", "type": "product", "name": "Tan belt", "description": "a leather belt", "price": 35},
    {"id": "b1", "type": "brand", "name": "Acme"},
    {"id": "b3", "type": "brand", "name": "Orbit"},
]
EDGES = [{"source": "p1", "relation": "brand", "target": "b1"},
         {"source": "p2", "relation": "brand", "target": "b1"},
         {"source": "p5", "relation": "brand", "target": "b3"},
         {"source": "p6", "relation": "brand", "target": "b3"},
         {"source": "p3", "relation": "also_bought", "target": "p1"},
         {"source": "p6", "relation": "also_bought", "target": "p5"}]
#: the brand renamed (its products' relation lines change), a neighbour of p1 deleted, one
#: edge removed and one added: every way a document can change without being upserted; p5
#: keeps its name, so its neighbours' documents (p6, b3) stay as they are
UPSERT = [{"id": "b1", "type": "brand", "name": "Apex"},
          {"id": "p5", "type": "product", "name": "Grey sock", "description": "a thick wool sock", "price": 9},
          {"id": "p4", "type": "product", "name": "Red hat", "description": "a red wool hat", "price": 30}]
ADD = [{"source": "p4", "relation": "brand", "target": "b1"},
       {"source": "p1", "relation": "similar", "target": "p4"}]
DELETE = ["p3"]
UNLINK = [{"source": "p2", "relation": "brand", "target": "b1"}]
QUERIES = ["acme", "acme shoe", "apex", "red hat", "green hat", "blue walking", "similar red", "also bought green",
           "orbit sock", "leather belt", "thick wool"]


def _all_scores(index: BM25Index, ids: list[str]) -> dict[str, dict[str, float]]:
    out = {}
    for q in QUERIES:
        rows, scores = index.top_rows(index.tokenize([q])[0], len(ids))
        out[q] = {ids[int(r)]: float(s) for r, s in zip(rows, scores, strict=True)}
    return out


def _update(tmp: Path, kb: Path) -> None:
    (tmp / "del.txt").write_text("".join(d + "\n" for d in DELETE), encoding="utf-8")
    update(kb, nodes=write_jsonl(tmp / "n.jsonl", UPSERT), edges=write_jsonl(tmp / "e.jsonl", ADD),
           delete_nodes=tmp / "del.txt", delete_edges=write_jsonl(tmp / "x.jsonl", UNLINK))


def _check_against_rebuild(tmp: Path, kb: Path, caught: BM25Index) -> None:
    nodes, edges = apply(NODES, EDGES, upsert=UPSERT, add_edges=ADD, delete_nodes=DELETE, delete_edges=UNLINK)
    ref = build(tmp / "final", nodes, edges, tmp / "ref")
    rebuilt = BM25Index.default_for_skb(ref)
    live = SKB.load(kb)
    assert caught.doc_ids == live.ids == ref.ids
    assert caught.tokenizer.get_vocab_dict() == rebuilt.tokenizer.get_vocab_dict()
    a, b = _all_scores(caught, live.ids), _all_scores(rebuilt, ref.ids)
    assert {q: sorted(d) for q, d in a.items()} == {q: sorted(d) for q, d in b.items()}
    assert all(abs(a[q][d] - b[q][d]) <= 1e-6 for q in b for d in b[q])
    assert a["apex"] and not a["acme"]
    assert caught.term_stats.equals(rebuilt.term_stats)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    build(tmp_path / "src", NODES, EDGES, tmp_path / "kb")
    BM25Index.default_for_skb(SKB.load(tmp_path / "kb")).save(tmp_path / "kb" / "indexes" / "bm25")
    return tmp_path / "kb"


def test_segment_records_the_nodes_whose_relation_lines_change(kb: Path, tmp_path: Path) -> None:
    _update(tmp_path, kb)
    s = current(kb).segments[-1]
    seg = read_segment(kb / SEGMENTS_DIR / s["name"], s["content_hash"])
    # b1's neighbours (p1, p2), p3's neighbour (p1), ends of the removed and added edges; not
    # p5's neighbours (p5 was replaced under the same name)
    assert set(seg.affected) == {"p1", "p2", "b1", "p4"}


def test_relation_line_index_catches_up_without_reindexing(kb: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _update(tmp_path, kb)
    tokenised: list[dict[str, int]] = []
    real = bm25_live._rebuilt

    def spy(index, skb, stats, pos, new_rows, src, now):  # noqa: ANN001, ANN202
        tokenised.append({f: len(r) for f, r in new_rows.items()})
        return real(index, skb, stats, pos, new_rows, src, now)

    monkeypatch.setattr(bm25_live, "_rebuilt", spy)
    monkeypatch.setattr(bm25_live, "reindex", lambda *a: pytest.fail("re-indexed every document"))
    caught = catch_up(BM25Index.load(kb / "indexes" / "bm25"), SKB.load(kb))
    # the documents of b1, p5 (replaced) and p4 (new); the relation lines of those and of
    # p1, p2 (their neighbours changed); nothing of p6 and b3
    assert tokenised == [{"document": 3, "relations": 5}]
    _check_against_rebuild(tmp_path, kb, caught)


def test_segment_without_affected_ids_falls_back_to_a_full_reindex(kb: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A segment written before affected ids were recorded (no ``affected`` in deletes.json)."""
    import skbsearch.kb.update as upd

    monkeypatch.setattr(upd, "_affected", lambda *a: None)
    _update(tmp_path, kb)
    caught = catch_up(BM25Index.load(kb / "indexes" / "bm25"), SKB.load(kb))
    _check_against_rebuild(tmp_path, kb, caught)


def _segment(upserted: list[str], deleted: list[str], affected: list[str] | None) -> Segment:
    nodes = pa.table({"id": pa.array(upserted, pa.string())})
    return Segment(nodes=nodes, edges=pa.table({"src": [], "relation": [], "dst": []}),
                   deleted_nodes=deleted, affected=affected)


def test_changed_and_affected_ids_of_segments() -> None:
    segs = [_segment(["p1", "p2"], [], ["b1"]), _segment(["p9"], ["p2", "p3"], ["p4"])]
    assert bm25_live.upserted_or_deleted(segs) == {"p1", "p2", "p3", "p9"}
    assert bm25_live.pending_affected(segs) == {"b1", "p4"}
    assert bm25_live.pending_affected([*segs, _segment([], ["p5"], None)]) is None  # an older segment
    assert bm25_live.upserted_or_deleted([]) == set() and bm25_live.pending_affected([]) == set()


def test_pending_segments_only_for_an_ancestor_generation(kb: Path, tmp_path: Path) -> None:
    base_hash = SKB.load(kb).meta["content_hash"]
    _update(tmp_path, kb)
    live = SKB.load(kb)
    segs = bm25_live.pending_segments(live, base_hash)
    assert [s.name for s in segs] == [current(kb).segments[-1]["name"]]
    assert bm25_live.pending_changes(live, base_hash) == {"b1", "p5", "p4", "p3"}
    assert bm25_live.pending_segments(live, live.meta["content_hash"]) == []  # current: nothing pending
    assert bm25_live.pending_segments(live, "not-a-generation-of-it") is None
    assert bm25_live.pending_segments(live, None) is None
    assert bm25_live.pending_changes(SKB.load(kb), "not-a-generation-of-it") is None


def test_index_that_is_current_or_of_another_skb_is_left_as_it_is(kb: Path, tmp_path: Path) -> None:
    index = BM25Index.load(kb / "indexes" / "bm25")
    assert bm25_live.catch_up(index, SKB.load(kb)) is index  # current
    _update(tmp_path, kb)
    other = build(tmp_path / "other", NODES[:3], [], tmp_path / "other-kb")
    foreign = BM25Index.default_for_skb(other)
    assert bm25_live.catch_up(foreign, SKB.load(kb)) is foreign  # not a generation of this SKB
    texts = BM25Index.build(["red shoe", "blue hat"], ["a", "b"])  # not an index of an SKB
    assert bm25_live.catch_up(texts, SKB.load(kb)) is texts


def test_index_without_term_statistics_is_refused_with_the_rebuild_command(kb: Path, tmp_path: Path) -> None:
    import shutil

    shutil.rmtree(kb / "indexes" / "bm25" / bm25_live.LIVE_DIR)
    _update(tmp_path, kb)
    with pytest.raises(ArtefactError, match="predates live updates.*skb index SKB_DIR --kind bm25 --force"):
        bm25_live.catch_up(BM25Index.load(kb / "indexes" / "bm25"), SKB.load(kb))


def test_why_an_index_cannot_follow(tmp_path: Path) -> None:
    live = tmp_path / bm25_live.LIVE_DIR
    assert "predates live updates" in bm25_live.why_stale("bm25", {}, tmp_path)
    assert "--engine ray" in bm25_live.why_stale("bm25", {"engine": "ray"}, tmp_path)
    live.mkdir()
    (live / "postings.json").write_text("{}", encoding="utf-8")
    assert bm25_live.why_stale("bm25", {"engine": "ray"}, tmp_path) is None
    (live / "fields.json").write_text("{}", encoding="utf-8")
    assert "older layout" in bm25_live.why_stale("bm25", {}, tmp_path)


def test_index_rows_match_ids_and_rows_only_keeps_the_schema(kb: Path, tmp_path: Path) -> None:
    index = BM25Index.load(kb / "indexes" / "bm25")
    _update(tmp_path, kb)
    live = SKB.load(kb)
    rows = bm25_live.index_rows(index, live)
    assert len(rows) == live.num_nodes
    for i, node in enumerate(live.ids):
        assert rows[i] == (index.doc_ids.index(node) if node in index.doc_ids else -1)
    assert rows[live.ids.index("p4")] == -1  # new
    small = bm25_live.rows_only(live, np.array([live.ids.index("p4"), 0]))
    assert small.ids == ["p4", live.ids[0]] and small.num_edges == 0 and small.schema == live.schema

"""BM25F field combination (``combine='bm25f'``, the default index's): per-field ``b``,
settings refused with clear errors, the default index's manifest, and why it is the default
(a query that names a related entity). Its scores against a direct formula:
tests/index/test_bm25_scoring.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.index.sparse import DEFAULT_REL_B, BM25Index
from skbsearch.kb import SKB
from skbsearch.kb.loaders import load


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_per_field_b_changes_the_sum_scores_too() -> None:
    docs = {"a": ["red shoe", "red red shoe shoe long text here"], "b": ["acme", "acme acme"]}
    plain = BM25Index.build(docs, ["x", "y"])
    normed = BM25Index.build(docs, ["x", "y"], field_b={"a": 0.0})
    assert normed.params["field_b"] == {"a": 0.0} and "field_b" not in plain.params
    q = plain.tokenize(["red"])[0]
    assert not np.allclose(plain.score_docs(q, np.array([0, 1])), normed.score_docs(q, np.array([0, 1])))


@pytest.mark.parametrize(("kw", "field"), [
    ({"combine": "max"}, "combine"),
    ({"combine": "bm25f", "method": "bm25l"}, "combine"),
    ({"field_b": {"a": 1.5}}, "field_b"),
    ({"field_b": {"nope": 0.5}}, "field_b"),
])
def test_bad_settings_are_refused(kw: dict, field: str) -> None:
    with pytest.raises(InputError) as e:
        BM25Index.build({"a": ["x y", "y z"]}, ["1", "2"], **kw)
    assert e.value.field == field


NODES = [
    {"id": "t1", "type": "product", "name": "Acme Trail Tent", "description": "a light tent for trail trips"},
    {"id": "t2", "type": "product", "name": "Acme Ridge Tent", "description": "a roomy tent"},
    {"id": "s1", "type": "product", "name": "Down Sleeping Bag", "description": "a warm sleeping bag"},
    {"id": "s2", "type": "product", "name": "Synthetic Sleeping Bag", "description": "a cheap sleeping bag"},
    {"id": "a", "type": "brand", "name": "Acme"},
]
EDGES = [{"source": "s1", "relation": "also_bought", "target": "t1"},
         {"source": "s2", "relation": "also_bought", "target": "t2"},
         {"source": "t1", "relation": "brand", "target": "a"},
         {"source": "t2", "relation": "brand", "target": "a"}]


@pytest.fixture
def skb(tmp_path: Path) -> SKB:
    write_jsonl(tmp_path / "nodes.jsonl", NODES)
    write_jsonl(tmp_path / "edges.jsonl", EDGES)
    load(tmp_path, "jsonl").save(tmp_path / "kb")
    return SKB.load(tmp_path / "kb")


def test_bm25f_finds_the_related_node_sum_the_named_one(skb: SKB) -> None:
    """Why both exist: a question naming a related entity (BM25F ranks the node that lists
    it first) and a name look-up (the sum, the default, ranks the named node first)."""
    idx = BM25Index.default_for_skb(skb, combine="bm25f")
    assert idx.params["combine"] == "bm25f" and idx.params["field_b"] == {"relations": DEFAULT_REL_B}
    query = "a sleeping bag bought with the Acme Trail Tent"
    rows, _ = idx.top_rows(idx.tokenize([query])[0], 3)
    assert skb.ids[int(rows[0])] == "s1"
    summed = BM25Index.default_for_skb(skb)
    assert "combine" not in summed.params and "field_b" not in summed.params
    rows, _ = summed.top_rows(summed.tokenize([query])[0], 3)
    assert skb.ids[int(rows[0])] == "t1"  # the named tent itself: its name counted in both fields
    rows, _ = summed.top_rows(summed.tokenize(["Acme Trail Tent"])[0], 3)
    assert skb.ids[int(rows[0])] == "t1"


def test_cli_index_combine_and_field_b(skb: SKB) -> None:
    kb = Path(skb.path)
    runner = CliRunner()
    r = runner.invoke(app, ["index", str(kb), "--kind", "bm25", "-q", "--combine", "sum",
                            "--field-b", "relations=0.5"])
    assert r.exit_code == 0, r.output
    params = BM25Index.load(kb / "indexes" / "bm25").params
    assert "combine" not in params and params["field_b"] == {"relations": 0.5}
    r = runner.invoke(app, ["index", str(kb), "--kind", "bm25", "-q", "--force", "--field-b", "relations=x"])
    assert r.exit_code != 0 and "--field-b" in r.output
    r = runner.invoke(app, ["index", str(kb), "--kind", "dense", "-q", "--combine", "bm25f"])
    assert r.exit_code != 0 and "--kind bm25" in r.output


def test_summed_fields_view_equals_a_sum_index(skb: SKB) -> None:
    """The graph stage's text evidence: a BM25F index rescored as the fields' BM25 added
    (the index's own b for every field) equals an index built so, and is cached."""
    f = BM25Index.default_for_skb(skb, combine="bm25f")
    view = f.summed_fields()
    ref = BM25Index.default_for_skb(skb, combine="sum")
    assert view is f.summed_fields() and ref.summed_fields() is ref
    assert "combine" not in view.params and "field_b" not in view.params
    rows = np.arange(skb.num_nodes)
    for q in ("acme tent", "sleeping bag", "trail trips bought"):
        toks = f.tokenize([q])[0]
        assert np.allclose(view.score_docs(toks, rows), ref.score_docs(toks, rows), atol=1e-6)
        assert not np.allclose(f.score_docs(toks, rows), ref.score_docs(toks, rows)) or q == "sleeping bag"


def test_graph_stage_reads_the_summed_view(skb: SKB) -> None:
    from skbsearch.core.types import Query
    from skbsearch.stages import pipeline
    from skbsearch.stages.context import StageContext

    BM25Index.default_for_skb(skb, combine="bm25f").save(Path(skb.path) / "indexes" / "bm25")
    ctx = StageContext(SKB.load(skb.path))
    stage = pipeline("graph", ctx)
    assert stage([Query("q", "a sleeping bag bought with the Acme Trail Tent")])["q"]
    index = ctx.index("bm25")
    assert index.params["combine"] == "bm25f"
    assert stage.inner.text_index is index.summed_fields()


def test_summed_view_of_a_saved_index_has_the_ids_and_rebuild_hint_keeps_settings(skb: SKB) -> None:
    from skbsearch.index.base import rebuild_command

    out = Path(skb.path) / "indexes" / "bm25"
    BM25Index.default_for_skb(skb, combine="bm25f", rel_weight=2.0).save(out)
    loaded = BM25Index.load(out)
    assert loaded.summed_fields().doc_ids == list(skb.ids)
    cmd = rebuild_command("bm25", skb.path, out, loaded.source, loaded.params)
    assert "--combine bm25f" in cmd and "--field-b relations=0.3" in cmd and "--rel-weight 2" in cmd
    runner = CliRunner()  # the hint's flags rebuild the same index
    args = cmd.split()[1:]  # after "skb"
    assert runner.invoke(app, [*args, "-q"]).exit_code == 0
    again = BM25Index.load(out)
    assert again.params == loaded.params and again.source["rel_weight"] == 2.0


def test_fuse_weighs_bm25_by_the_evidence_it_shares_with_the_graph_stage(skb: SKB) -> None:
    """On a sum index the graph stage's text score is the bm25 stage's (BM25 weighed 1/2 in
    ``bm25 + graph``); a BM25F index's own scores are other evidence (equal weights)."""
    from skbsearch.stages import pipeline
    from skbsearch.stages.context import StageContext

    out = Path(skb.path) / "indexes" / "bm25"
    BM25Index.default_for_skb(skb).save(out)
    assert BM25Index.load(out).scores_summed()
    assert pipeline("bm25 + graph", StageContext(SKB.load(skb.path))).list_weights() == (0.5, 1.0)
    BM25Index.default_for_skb(skb, combine="bm25f").save(out)
    assert not BM25Index.load(out).scores_summed()
    ctx = StageContext(SKB.load(skb.path))
    assert pipeline("bm25 + graph", ctx).list_weights() == (1.0, 1.0)
    assert "_summed" not in ctx.index("bm25").__dict__  # (the weights did not rescore the index)
    BM25Index.default_for_skb(skb, field_b={"relations": 0.3}).save(out)
    assert pipeline("bm25 + graph", StageContext(SKB.load(skb.path))).list_weights() == (1.0, 1.0)
    # a BM25F index without term counts (saved before live updates, built by Ray): the graph
    # stage reads its own scores then, so they are shared again
    import shutil

    from skbsearch.index import bm25_live

    BM25Index.default_for_skb(skb, combine="bm25f").save(out)
    shutil.rmtree(out / bm25_live.LIVE_DIR)
    ctx = StageContext(SKB.load(skb.path))
    assert ctx.index("bm25").scores_summed() and ctx.index("bm25").summed_fields() is ctx.index("bm25")
    assert pipeline("bm25 + graph", ctx).list_weights() == (0.5, 1.0)

"""The Python API as a PyTerrier or ranx user reaches for it (issue 33): a DataFrame of
topics in and out, a held-out subset evaluated, a fit inspected, an update from records, an
index built from Python, two runs fused and a fused result explained."""

from __future__ import annotations

import json
import logging
import typing
import warnings
from pathlib import Path

import pytest

import skbsearch as skb
from skbsearch.core.fusion import rrf, score_fusion
from skbsearch.core.operators import StageBase
from skbsearch.eval import SubsetWarning
from skbsearch.stages.base import FitReport
from skbsearch.synth.catalogue import generate_catalogue

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def cat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("py-api") / "cat"
    generate_catalogue(300, n_queries=40, seed=0).save(out)
    return out


@pytest.fixture(scope="module")
def kb(cat: Path) -> skb.SKB:
    return skb.SKB.load(cat / "skb")


@pytest.fixture(scope="module")
def topics(cat: Path) -> pd.DataFrame:
    qs = skb.read_queries(cat / "queries.jsonl")
    return pd.DataFrame({"qid": [q.id for q in qs], "query": [q.text for q in qs]})


@pytest.fixture(scope="module")
def qrels(cat: Path) -> skb.Qrels:
    return skb.Qrels.from_trec(cat / "qrels.trec")


# ------------------------------------------------------------------ queries in every shape
def test_a_dataframe_of_topics_in_and_a_dataframe_out(kb: skb.SKB, topics: pd.DataFrame) -> None:
    p = kb.pipeline("bm25 % 5")
    run = p.run(topics)
    assert sorted(run) == sorted(topics["qid"])       # not the column names 'qid', 'query'
    assert p(topics) == run                            # PyTerrier's __call__
    res = p.transform(topics)                          # PyTerrier's transform: a frame out
    assert list(res.columns) == ["qid", "query", "docno", "rank", "score"]
    first = res[res["qid"] == topics["qid"][0]]
    assert first["rank"].tolist() == list(range(len(first)))          # ranks from 0, as PyTerrier
    assert first["score"].is_monotonic_decreasing
    assert first["query"].iloc[0] == topics["query"][0]
    assert skb.Run.from_df(run.to_df()) == run         # Run <-> DataFrame round trip
    renamed = topics.rename(columns={"qid": "id", "query": "text"})
    assert p.run(renamed) == run
    cut = kb.pipeline("bm25").transform(res).groupby("qid").size()    # a results frame in:
    assert set(cut) == {5}                                             # re-scored, not searched again
    top2 = (p % 2).transform(res)
    assert top2.groupby("qid").size().max() == 2 and list(top2.columns) == list(res.columns)


def test_every_other_query_shape_gives_the_same_run(kb: skb.SKB, topics: pd.DataFrame, cat: Path) -> None:
    p = kb.pipeline("bm25 % 5")
    expected = p.run(topics)
    records = topics.to_dict("records")
    assert p.run(records) == expected
    assert p.run(dict(zip(topics["qid"], topics["query"], strict=True))) == expected
    assert p.run(cat / "queries.jsonl") == expected
    assert p.run(skb.read_queries(cat / "queries.jsonl")) == expected
    assert set(p.run(list(topics["query"][:2]))) == {"q0", "q1"}


@pytest.mark.parametrize(("bad", "says"), [
    (42, "cannot read queries from int"),
    ({"q1": 3}, "a dict whose values are int"),
    ([("q1", "text")], "item 1 is tuple"),
    (b"text", "cannot read queries from bytes"),
])
def test_queries_in_another_shape_name_the_accepted_ones(kb: skb.SKB, bad: object, says: str) -> None:
    with pytest.raises(skb.InputError, match=says) as e:
        kb.pipeline("bm25").run(bad)
    assert "pandas DataFrame with qid/query" in str(e.value) and e.value.field == "queries"


def test_a_frame_without_query_columns_names_them(kb: skb.SKB) -> None:
    with pytest.raises(skb.InputError, match="needs the columns qid/query or id/text or .*; it has a, b"):
        kb.pipeline("bm25").run(pd.DataFrame({"a": ["1"], "b": ["x"]}))
    with pytest.raises(skb.InputError, match="query id 'q1' appears twice") as e:
        kb.pipeline("bm25").run(pd.DataFrame({"qid": ["q1", "q1"], "query": ["a", "b"]}))
    assert e.value.line == 2


def test_runs_and_qrels_from_ranx_and_pyterrier_frames() -> None:
    ranx_like = pd.DataFrame({"q_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    assert skb.Run.from_df(ranx_like) == {"q1": {"a": 2.0, "b": 1.0}}
    qrels = skb.Qrels.from_df(pd.DataFrame({"qid": ["q1"], "docno": ["a"], "label": [2]}))
    assert qrels == {"q1": {"a": 2}}
    with pytest.raises(skb.InputError, match="appears twice"):
        skb.Run.from_df(pd.concat([ranx_like, ranx_like]))


# ------------------------------------------------------------------ honest evaluation
def test_a_held_out_subset_is_scored_on_its_own_queries(kb: skb.SKB, topics: pd.DataFrame,
                                                        qrels: skb.Qrels) -> None:
    test = topics[30:]
    run = kb.pipeline("bm25 % 10").run(test)
    with pytest.warns(SubsetWarning, match="30 of the 40 qrels queries"):
        subset = skb.evaluate(run, qrels, ["hit@1", "mrr"])
    assert subset.queries == 10 and len(subset.left_out) == 30
    full = skb.evaluate(run, qrels, ["hit@1", "mrr"], complete=True)    # trec_eval -c
    assert full["mrr"] == pytest.approx(subset["mrr"] * 10 / 40)
    named = skb.evaluate(run, qrels, ["mrr"], queries=test["qid"])
    assert named["mrr"] == pytest.approx(subset["mrr"])


def test_a_query_that_finds_nothing_still_counts(kb: skb.SKB, qrels: skb.Qrels) -> None:
    qid = next(iter(qrels))
    run = kb.pipeline("bm25").run({qid: "zzzzqx vvvvwq"})     # no term of the vocabulary
    assert run == {qid: {}}                                    # the row says it ran
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert skb.evaluate(run, qrels, ["mrr"], queries=[qid]) == {"mrr": 0.0}


# ------------------------------------------------------------------ fits that report
def test_a_fit_says_what_it_learned_and_kept(kb: skb.SKB, topics: pd.DataFrame, qrels: skb.Qrels,
                                             caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="skbsearch.fit"):
        p = skb.fit(kb.pipeline("bm25 + graph"), topics[:30], qrels)
    report = p.fit_report
    assert [r for r, _, _ in report.stages] == ["graph", repr(p)]
    graph, fuse = report.stages[0][1], report.stages[1][1]
    assert graph["kept"] in ("fitted", "untrained") and "blend" in graph
    held = graph["held_out"]                            # the inner folds' numbers it compared
    assert held["queries"] == 30 and {"mrr", "hit@10"} <= set(held["untrained"])
    assert fuse["kept"] in ("fitted", "spec") and fuse["training"]["queries"] == 30
    assert f"fitted={report.fitted}" in repr(report)
    assert "held-out MRR" in str(report) and str(report) in caplog.text


def test_a_fit_that_keeps_nothing_says_fitted_false() -> None:
    summary = {"kept": "untrained", "blend": 0.0, "weights": {"rel": 1.0},
               "held_out": {"queries": 20, "untrained": {"mrr": 0.5, "hit@10": 0.9},
                            "fitted": {"mrr": 0.5, "hit@10": 0.9}}}
    report = FitReport([("graph", summary, None)])
    assert repr(report) == "FitReport(graph: kept untrained (blend 0.0), fitted=False)"
    assert "held-out MRR 0.5 untrained, 0.5 kept" in str(report)
    saved = FitReport([("graph(model='m/')", {**summary, "kept": "fitted", "blend": 0.5}, "m/")])
    assert saved.fitted and "model='m/'" in repr(saved)


# ------------------------------------------------------------------ runs that compose
def test_two_runs_fused(kb: skb.SKB, topics: pd.DataFrame) -> None:
    a = kb.pipeline("bm25 % 20").run(topics)
    b = kb.pipeline("graph % 20").run(topics)
    assert a + b == score_fusion([a, b]) == skb.fuse(a, b)
    assert skb.fuse(a, b, method="rrf", k=10) == rrf([a, b], k=10)
    assert skb.fuse(a, b, method="minmax", weights=[1, 0]).ranked("q0")[0][0] == a.ranked("q0")[0][0]
    with pytest.raises(skb.InputError, match="unknown fusion method 'sum'"):
        skb.fuse(a, b, method="sum")
    with pytest.raises(skb.InputError, match="has no parameter 'top'"):
        skb.fuse(a, b, method="rrf", top=1.0)
    with pytest.raises(TypeError):
        a + {"q0": {"x": 1.0}}  # noqa: B018 - a plain dict is not a Run


def test_a_fused_result_explains_with_its_childrens_evidence(kb: skb.SKB, topics: pd.DataFrame) -> None:
    bm25, graph = kb.pipeline("bm25"), kb.pipeline("graph")
    fused = bm25 + graph
    q = skb.Query(topics["qid"][0], topics["query"][0])
    best = fused.run([q]).ranked(q.id)[0][0]
    lines = fused.explain(q, best)
    assert lines and set(bm25.explain(q, best)) | set(graph.explain(q, best)) == set(lines)
    chained = kb.pipeline("(bm25 + graph) % 5")
    assert chained.explain(q.text, best)                # a chain explains too, from a plain string


def test_the_front_door_is_typed() -> None:
    assert typing.get_type_hints(skb.SKB.pipeline)["return"] is StageBase
    assert typing.get_type_hints(skb.pipeline)["return"] is StageBase
    assert typing.get_type_hints(skb.fuse)["return"] is skb.Run


# ------------------------------------------------------------------ the SKB's life cycle
@pytest.fixture()
def shop(tmp_path: Path) -> skb.SKB:
    (tmp_path / "shop").mkdir()
    nodes = [{"id": "b1", "type": "brand", "name": "Acme"},
             {"id": "p1", "type": "product", "name": "Trail jacket", "price": 120},
             {"id": "p2", "type": "product", "name": "Rain jacket", "price": 80}]
    (tmp_path / "shop/nodes.jsonl").write_text("\n".join(json.dumps(n) for n in nodes))
    (tmp_path / "shop/edges.jsonl").write_text(json.dumps({"source": "p1", "relation": "has_brand",
                                                           "target": "b1"}))
    return skb.SKB.build(tmp_path / "shop", tmp_path / "shop.skb", format="jsonl")


def test_an_update_from_records_and_frames(shop: skb.SKB) -> None:
    kb = shop.update(nodes=[{"id": "p3", "type": "product", "name": "Glacier parka", "price": 300}],
                     edges=[("p3", "has_brand", "b1")])
    assert kb.has_node("p3") and kb.pipeline("bm25").search("glacier parka", k=1)[0][0] == "p3"
    frame = pd.DataFrame({"id": ["p4", "p5"], "type": ["product"] * 2, "name": ["Snow boot", "Sun hat"],
                          "price": [60.0, float("nan")]})           # a missing cell is no attribute
    kb = kb.update(nodes=frame, delete_nodes=["p2"])
    assert kb.has_node("p5") and not kb.has_node("p2")
    assert kb.node("p4").attributes["price"] == 60.0 and kb.node("p5").attributes.get("price") is None


def test_a_bad_record_fails_as_the_same_file_would(shop: skb.SKB, tmp_path: Path) -> None:
    edge = {"source": "p1", "relation": "has_brand", "target": "nope"}
    (tmp_path / "e.jsonl").write_text(json.dumps(edge) + "\n")
    with pytest.raises(skb.InputError) as by_file:
        shop.update(edges=tmp_path / "e.jsonl")
    with pytest.raises(skb.InputError) as by_record:
        shop.update(edges=[edge])
    assert by_record.value.reason.endswith(by_file.value.reason)
    assert str(by_record.value).startswith("field 'target': edges= record 1:")
    with pytest.raises(skb.InputError, match="delete_nodes= takes a file path, records"):
        shop.update(delete_nodes=7)
    with pytest.raises(skb.InputError, match="no node with id 'zz' to delete"):
        shop.update(delete_nodes=["zz"])


def test_an_index_built_from_python_is_the_one_pipelines_open(shop: skb.SKB) -> None:
    index = shop.index("bm25", k1=1.2, b=0.5)
    manifest = json.loads((Path(shop.path) / "indexes/bm25/manifest.json").read_text())
    assert manifest["params"]["k1"] == 1.2 and index.num_docs == shop.num_nodes
    with pytest.raises(skb.InputError, match="exists; pass force=True"):
        shop.index("bm25")
    with pytest.raises(skb.InputError, match="index kind 'bm25'.*colour"):
        shop.index("bm25", force=True, colour="red")
    with pytest.raises(skb.InputError, match="unknown index kind 'bm26'"):
        shop.index("bm26")
    assert shop.pipeline("bm25").search("trail", k=1)[0][0] == "p1"

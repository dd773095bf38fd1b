"""The server's pipeline policy: named pipelines, refused specs, the per-snapshot cache."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Pipeline
from skbsearch.server.pipelines import (
    PipelinePolicy,
    PipelineRefused,
    PipelineRequest,
    check_spec,
    default_pipelines,
    file_params,
    parse_named,
)
from skbsearch.stages import StageContext, get_stage, parse
from skbsearch.stages.fusion import FilterStage
from skbsearch.synth.catalogue import generate_catalogue


@pytest.fixture(scope="module")
def ctx() -> StageContext:
    return StageContext(generate_catalogue(60, seed=1, n_queries=2).skb, notify=lambda _m: None)


@pytest.mark.parametrize("spec", [
    "run('/etc/passwd')",
    "bm25 >> cross-encoder(model='/etc')",
    "bm25 >> gnn(model='/tmp/x')",
    "bm25 >> llm",  # its default model is a file too
    "bm25 >> llm(model='http://127.0.0.1:9/v1')",
    "dense(encoder='/root/.ssh')",
    "multivector(encoder='x')",
    "bm25(index='/etc')",  # an index directory (skb index --out DIR)
    "graph + dense(index='../x')",
    "bm25 + (graph >> cross-encoder(model='ce/')) % 5",  # nested in a fusion
])
def test_specs_that_name_files_are_refused(spec):
    with pytest.raises(PipelineRefused, match="file, model or URL") as e:
        check_spec(parse(spec), allow_files=False, max_stages=16)
    assert "bm25" in e.value.stages and "graph" in e.value.stages
    check_spec(parse(spec), allow_files=True, max_stages=16)  # the operator's choice


@pytest.mark.parametrize("spec", ["bm25", "dense", "graph(target=[product]) % 20",
                                  "bm25(where='price < 5') + enrich >> filter(types=[product])"])
def test_specs_without_files_pass(spec):
    check_spec(parse(spec), allow_files=False, max_stages=16)


def test_file_params_found_by_name_and_help():
    assert file_params(get_stage("run")) == ["path"]
    assert file_params(get_stage("cross-encoder")) == ["model"]
    assert "model" in file_params(get_stage("llm"))
    assert file_params(get_stage("dense")) == ["index", "encoder"]
    assert file_params(get_stage("bm25")) == ["index"]


@pytest.mark.parametrize(("spec", "match"), [
    ("bm25(k=1e9)", "at most"),
    ("rrf(" + ", ".join(["bm25"] * 20) + ")", "stages; the limit is 16"),
])
def test_unbounded_work_is_refused(spec, match):
    with pytest.raises(PipelineRefused, match=match):
        check_spec(parse(spec), allow_files=True, max_stages=16)


def test_numbers_beyond_a_float_are_refused_by_the_parser_and_inf_by_the_policy():
    with pytest.raises(InputError, match="out of range"):
        parse("graph(w_text=1e400)")
    with pytest.raises(PipelineRefused, match="finite"):
        check_spec(get_stage("graph")(None, w_text=float("inf")), allow_files=True, max_stages=16)


def test_named_pipelines_are_trusted_and_filters_pushed(ctx, tmp_path):
    run = tmp_path / "r.trec"
    run.write_text("q0 Q0 p1 1 3.0 t\nq0 Q0 p2 2 2.0 t\n")
    policy = PipelinePolicy({"saved": f"run('{run}')"})
    assert list(policy.pipelines(ctx.kb.num_edges)) == ["bm25", "graph", "bm25+graph", "saved"]
    stage = policy.build(PipelineRequest("saved"), ctx)
    assert stage.run(["x"]).ranked("q0")[0][0] == "p1"
    # The same spec sent back verbatim is the operator's pipeline; another path is not.
    policy.build(PipelineRequest(repr(parse(f"run('{run}')"))), ctx)
    with pytest.raises(PipelineRefused):
        policy.build(PipelineRequest("run('/etc/passwd')"), ctx)
    # A filter goes into the first retriever and after the pipeline.
    stage = policy.build(PipelineRequest("bm25 >> graph", types=("product",), where="price < 50"), ctx)
    assert isinstance(stage, Pipeline) and isinstance(stage.stages[-1], FilterStage)
    assert repr(stage).startswith("bm25(types=['product'], where='price < 50') >> graph >> filter")


def test_a_retriever_alone_applies_the_request_filter_once(ctx):
    """A pipeline that is one index retriever given the request's filter returns only nodes
    that pass it: no filter stage after it evaluates the ``where`` over every node again."""
    policy = PipelinePolicy()
    stage = policy.build(PipelineRequest("bm25", types=("product",), where="price < 50"), ctx)
    assert repr(stage) == "bm25(types=['product'], where='price < 50')"
    hits = stage.run(["red wool"]).ranked("q0")
    prices = dict(zip(ctx.kb.ids, ctx.kb.column("price"), strict=True))
    assert hits and all(prices[d] is not None and prices[d] < 50 for d, _ in hits)
    # a spec whose own filter differs keeps the request's filter after it
    stage = policy.build(PipelineRequest("bm25(where='price > 10')", where="price < 50"), ctx)
    assert repr(stage) == "bm25(where='price > 10') >> filter(where='price < 50')"


def test_retriever_alias_is_one_retriever(ctx):
    policy = PipelinePolicy()
    stage = policy.build(PipelineRequest(None, "bm25", ("product",), None, 7), ctx)
    assert repr(stage) == "bm25(k=7, types=['product'])"  # its own hard filter: none after it
    with pytest.raises(PipelineRefused, match="not a retriever"):
        policy.build(PipelineRequest(None, "rrf"), ctx)
    with pytest.raises(PipelineRefused, match="unknown stage") as e:
        policy.build(PipelineRequest(None, "nope"), ctx)
    assert e.value.field == "pipeline" and "bm25" in e.value.stages


def test_parse_named_checks_items():
    assert parse_named(["a=bm25", " fused = bm25 + graph % 20"]) == {
        "a": "bm25", "fused": "bm25 + graph % 20"}
    for bad in ["noequals", "=bm25", "a=", "bad name=bm25", "x=nope(1)"]:
        with pytest.raises(InputError):
            parse_named([bad])


def test_default_pipelines_need_edges_for_graph():
    assert list(default_pipelines(0)) == ["bm25"]
    assert "graph" in default_pipelines(3)

"""The stage registry and the pipeline language."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skbsearch as skb
from skbsearch.core.errors import InputError, SkbError
from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.stages import available_stages, describe, fit, get_stage, pipeline, stage
from skbsearch.synth.catalogue import generate_catalogue

# A value for every required parameter, so that each stage can be built from a spec.
REQUIRED = {"model": "m/", "path": "x.trec"}


def _sample_value(p: dict) -> object:
    t = p["type"]
    if "tuple" in t:
        return ["a", "b"] if "str" in t else [0.5, 0.5]
    if t.startswith("int"):
        return 7
    if t.startswith("float"):
        return 0.25
    if t.startswith("bool"):
        return not p["default"]
    return "it's"


@pytest.mark.parametrize("name", available_stages())
def test_every_stage_round_trips_between_repr_and_spec(name: str) -> None:
    info = describe(name)
    assert info["doc"], f"{name} has no one-line doc"
    args = {p["name"]: REQUIRED.get(p["name"], "x") for p in info["params"] if p["required"]}
    cls = get_stage(name)
    if cls.category == "fusion":
        s = cls.from_children([stage("bm25"), stage("dense", k=5)], **args)
    else:
        s = stage(name, **args)
    assert pipeline(repr(s)) == s
    assert repr(pipeline(repr(s))) == repr(s)
    # every parameter, set to a non-default value, survives the round trip
    for p in info["params"]:
        if p["required"] or (cls.category == "fusion" and p["name"] == "weights"):
            continue
        value = _sample_value(p)
        try:
            s2 = (cls.from_children([stage("bm25")], **args, **{p["name"]: value})
                  if cls.category == "fusion" else stage(name, **args, **{p["name"]: value}))
        except InputError:
            continue  # a value the parameter's own check refuses
        assert pipeline(repr(s2)) == s2, repr(s2)


def test_operators_and_specs_build_equal_pipelines() -> None:
    spec = "bm25(k=200) + dense(k=200) >> graph(n_anchor=20) % 100 >> cross-encoder(model='ce/') % 10"
    py = ((stage("bm25", k=200) + stage("dense", k=200)) >> stage("graph", n_anchor=20) % 100
          >> stage("cross-encoder", model="ce/") % 10)
    parsed = pipeline(spec)
    assert parsed == py
    assert repr(parsed) == repr(py) == spec
    assert isinstance(parsed, Pipeline) and isinstance(parsed.stages[2], Cutoff)
    assert pipeline("(bm25 + dense) % 10") == (stage("bm25") + stage("dense")) % 10
    assert repr(pipeline("(bm25 + dense) % 10")) == "(bm25 + dense) % 10"
    assert pipeline("fuse(bm25, dense)") == pipeline("bm25 + dense")
    assert pipeline("rrf(bm25, dense)") != pipeline("bm25 + dense")  # `+` is score-aware
    assert repr(pipeline("rrf(bm25, dense)")) == "rrf(bm25, dense)"
    assert pipeline("bm25 + dense") != pipeline("bm25 + dense(k=5)")
    assert pipeline("bi-encoder") == pipeline("dense")  # aliases


@pytest.mark.parametrize("spec, message", [
    ("bm26", "registered stages: bm25, "),
    ("bm25(kk=3)", "parameters: k, types, where"),
    ("bm25(k='x')", "takes int"),
    ("bm25 >>", "expected a stage name"),
    ("bm25 % x", "whole number"),
    ("cross-encoder", "needs parameter"),
    ("bm25(k=1, k=2)", "given twice"),
    ("bm25; import os", "unexpected character"),
    ("__import__('os').system('x')", "unexpected character"),
    ("__import__('os')", "unknown stage"),
    ("bm25(k=dense)", "takes int"),
    ("", "empty"),
    ("(" * 100 + "bm25" + ")" * 100, "nesting"),
])
def test_bad_specs_say_what_is_valid(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        pipeline(spec)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("bm25dense+>%()=,'[]k0123 rfgaphx-_.")), max_size=30))
def test_arbitrary_specs_parse_or_fail_cleanly(spec: str) -> None:
    try:
        p = pipeline(spec)
    except SkbError:
        return
    assert pipeline(repr(p)) == p


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Query], Qrels]:
    out = tmp_path_factory.mktemp("cat") / "cat"
    data = generate_catalogue(600, n_queries=60, seed=3)
    data.save(out)
    return out / "skb", data.queries, data.qrels


def test_pipelines_run_on_an_skb_from_python(catalogue, tmp_path: Path) -> None:
    kb_dir, queries, qrels = catalogue
    kb = skb.SKB.load(kb_dir)
    bm25 = kb.pipeline("bm25(types=[product])").run(queries)
    graph = kb.pipeline("graph(target=[product])").run(queries)
    fused = kb.pipeline("(bm25(types=[product]) + graph(target=[product])) % 20").run(queries)
    assert set(bm25) == {q.id for q in queries}
    assert all(len(d) <= 20 for d in fused.values())
    m_bm25 = skb.evaluate(bm25, qrels, ["mrr"])["mrr"]
    m_graph = skb.evaluate(graph, qrels, ["mrr"])["mrr"]
    assert m_graph > m_bm25  # relational evidence helps on relational queries
    bm25.to_trec(tmp_path / "b.trec")
    saved = kb.pipeline(f"run('{tmp_path / 'b.trec'}') >> filter(where='price < 50')").run(queries)
    prices = dict(zip(kb.ids, kb.column("price"), strict=True))
    assert all(prices[d] < 50 for d in saved[queries[0].id])
    filtered = kb.pipeline("bm25(types=[product], where='price < 50')").run(queries)
    assert all(prices[d] < 50 for d in filtered[queries[0].id])


def test_trainable_stages_fit_on_judged_queries(catalogue) -> None:
    kb_dir, queries, qrels = catalogue
    kb = skb.SKB.load(kb_dir)
    z = kb.pipeline("zscore(bm25(types=[product]), graph(target=[product]))")
    before = skb.evaluate(z.run(queries), qrels, ["mrr"])["mrr"]
    fit(z, queries, qrels)
    assert len(z.params.weights) == 2 and abs(sum(z.params.weights) - 1) < 1e-6
    after = skb.evaluate(z.run(queries), qrels, ["mrr"])["mrr"]
    assert after >= before - 1e-9
    assert pipeline(repr(z)) == z
    with pytest.raises(InputError, match="not trainable"):
        stage("bm25").fit(queries, qrels)


def test_an_unbound_stage_says_how_to_bind_it() -> None:
    with pytest.raises(InputError, match="not bound"):
        stage("bm25").run(["x"])


def test_params_are_typed_dataclasses() -> None:
    for name in available_stages():
        cls = get_stage(name)
        assert dataclasses.is_dataclass(cls.Params)
    assert stage("bm25", k=5.0).params.k == 5
    assert isinstance(Run(), dict)

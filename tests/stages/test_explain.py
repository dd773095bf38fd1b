"""Evidence lines for a pipeline's results (shared by ``skb search --pipeline`` and HTTP)."""

from __future__ import annotations

import json

import pytest

from skbsearch.core.types import Query
from skbsearch.stages import StageContext, pipeline
from skbsearch.stages.explain import explain, explainers
from skbsearch.synth.catalogue import generate_catalogue


@pytest.fixture(scope="module")
def ds():
    return generate_catalogue(150, seed=3, n_queries=5)


def test_explainers_walk_fusions_and_chains(ds):
    ctx = StageContext(ds.skb, notify=lambda _m: None)
    p = pipeline("(bm25 + graph) % 10 >> filter(types=[product])", ctx)
    p.run(["x"])
    assert [s.name for s in explainers(p)] == ["bm25", "graph"]


def test_explain_lines_from_each_stage_and_fallback(ds):
    ctx = StageContext(ds.skb, notify=lambda _m: None)
    q = Query("q0", ds.queries[0].text)
    p = pipeline("bm25 + graph", ctx)
    top = p([q]).ranked("q0")[0][0]
    lines = explain(p, q, top, max_lines=2)
    assert any(ln.startswith("path: ") for ln in lines)
    assert any(ln.startswith("text: ") for ln in lines)
    assert len(lines) == len(set(lines))
    assert explain(p, q, top, max_lines=0) == []
    # No explaining stage (a saved run): the document's best-matching lines instead.
    name = ds.skb.node(top).name
    lines = explain(pipeline("filter(types=[product])", ctx), Query("q0", name), top)
    assert lines and any(w in lines[0] for w in name.split())
    assert explain(pipeline("filter", ctx), q, top, fallback=False) == []


def test_cli_search_pipeline_prints_evidence(ds, tmp_path):
    from typer.testing import CliRunner

    from skbsearch.cli import app

    ds.skb.save(tmp_path / "skb")
    res = CliRunner().invoke(app, ["search", str(tmp_path / "skb"), ds.queries[0].text,
                                   "--pipeline", "graph", "-k", "3", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["results"]
    assert len(rows) == 3 and all(r["evidence"] for r in rows)
    assert any(ln.startswith("path: ") for r in rows for ln in r["evidence"])


def test_a_stage_without_evidence_falls_back_to_the_document(ds):
    """``enrich`` (one class that does its own work, no ``explain`` of its own) is no
    explainer: the node document's lines stand in (a stage built as itself must not ask
    itself for evidence)."""
    ctx = StageContext(ds.skb, notify=lambda _m: None)
    q = Query("q0", ds.queries[0].text)
    p = pipeline("enrich(k=5)", ctx)
    top = p([q]).ranked("q0")[0][0]
    assert explainers(p) == []
    lines = explain(p, q, top, max_lines=2)
    assert lines and all(not ln.startswith("path: ") for ln in lines)


@pytest.mark.parametrize("spec", ["bm25", "graph", "bm25 + graph"])
def test_a_stage_explains_a_plain_text_query(ds, spec):
    """``stage.explain(text, doc_id)`` (``StageBase``'s signature: a ``Query`` or its text)
    holds for every registered stage, not only for pipelines (a ``bm25`` stage read
    ``query.text`` off the string)."""
    ctx = StageContext(ds.skb, notify=lambda _m: None)
    text = ds.queries[0].text
    st = pipeline(spec, ctx)
    top = st.search(text, 1)[0][0]
    lines = st.explain(text, top)
    assert lines and lines == st.explain(Query("q0", text), top)

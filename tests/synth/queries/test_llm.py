"""Query synthesis with an LLM: STaRK's prompts and response parsing, and one tiny end-to-end
run against a REAL local llama.cpp server (packaged SmolLM2-135M) on 127.0.0.1.

SmolLM2-135M writes poor queries and near-random verdicts: the run checks the code path
(extraction, two-step fusion, per-candidate verification, the report), not quality."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.synth import generate_catalogue
from skbsearch.synth.queries import llm as L

runner = CliRunner()


def test_prompts_follow_stark_appendix_e():
    p = L.extract_prompt("doctor", "drug", "drug: X\nsummary: ...", 2, ["summary"])[0]["content"]
    assert "extract 2 properties from a given drug information that a doctor may be interested in" in p
    assert L.ROLE_INSTRUCTIONS["doctor"] in p and 'start with "the drug"' in p
    f = L.fuse_prompt("customer", "products", ["a product with brand Foxfield", "has mesh vents"], "Foxfield")
    text = f[0]["content"]
    assert "as if you were a customer" in text and '["a product with brand Foxfield", "has mesh vents"]' in text
    assert 'Keep the name "Foxfield" exactly as written' in text
    r = L.rewrite_prompt("researcher", "papers", "Find {x} papers")[0]["content"]
    assert 'Original query: "Find {x} papers"' in r  # braces in values are not template slots
    v = L.verify_prompt("product", "doc", "the product is red")[0]["content"]
    assert "return only a 'True' or 'False' value" in v and "the product is red" in v


def test_response_parsing():
    assert L.parse_properties('[["the product is red", "description"], ["the product is light", "x"]]',
                              "product", 2) == ["the product is red", "the product is light"]
    assert L.parse_properties("Sure! [['the paper uses GNNs', 'abstract']]", "paper", 3) == ["the paper uses GNNs"]
    assert L.parse_properties("1. the drug treats pain\n2. the drug is oral", "drug", 2) == [
        "the drug treats pain", "the drug is oral"]
    assert L.parse_properties("no idea", "drug", 2) == []
    assert L.clean_query('Query: "Find red shoes by Acme."\n\nThanks') == "Find red shoes by Acme."
    assert [L.parse_bool(t) for t in ("True", " false.", "Yes", "It is true", "maybe")] == [
        True, False, True, True, False]


@pytest.fixture(scope="module")
def server(llama_server):
    """The session's real llama.cpp server with SmolLM2 (tests/conftest.py)."""
    return llama_server


@pytest.mark.slow
def test_llm_end_to_end(server, tmp_path, monkeypatch):
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    generate_catalogue(200, n_queries=0, seed=2).save(tmp_path / "cat")
    tpl = tmp_path / "t.json"
    tpl.write_text(json.dumps([{"target": "product", "path": ["has_brand"]}]))
    out = tmp_path / "out"
    args = ["synth", "queries", str(tmp_path / "cat" / "skb"), str(out), "--n", "1", "--templates", str(tpl),
            "--max-answers", "3", "--max-properties", "1", "--llm", server, "--llm-model", "smollm2", "--json"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["settings"]["mode"] == "llm" and report["settings"]["llm"] == "smollm2"
    assert report["verification"]["method"] == "llm" and report["queries"] == 1
    assert report["verification"]["checks"] == 1  # one property, checked on the gold
    meta = [json.loads(x) for x in (out / "queries.jsonl").read_text().splitlines()]
    for m in meta:
        assert m["meta"]["gold"] in m["answer_ids"]
        assert set(m["answer_ids"]) <= set(m["meta"]["candidates"])
        assert m["meta"]["fusion"] in ("llm", "llm-draft", "template-fallback")
        if m["meta"]["fusion"] != "template-fallback":  # an LLM query names the anchor
            brand = m["meta"]["requirement"].removeprefix("with brand ")
            assert brand.lower() in m["text"].lower()
    # A second run answers from the response cache: same bytes.
    again = runner.invoke(app, args[:3] + [str(tmp_path / "again")] + args[4:])
    assert again.exit_code == 0, again.output
    assert (out / "stark_qa" / "stark_qa.csv").read_bytes() == \
        (tmp_path / "again" / "stark_qa" / "stark_qa.csv").read_bytes()

"""`skb stages` and one query through a spec (cli/stages.py): the registry as a table or JSON,
one stage in detail, and `search_with_pipeline`'s hits with evidence, narrowed by type and
predicate, or the note that nothing was found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke

from skbsearch.cli.stages import search_with_pipeline
from skbsearch.stages import available_stages


def test_the_registry_as_json_and_one_stage_in_detail() -> None:
    r = invoke("stages", "--json")
    assert r.exit_code == 0, r.output
    stages = json.loads(r.stdout)["stages"]
    assert [s["name"] for s in stages] == available_stages()
    (bm25,) = json.loads(invoke("stages", "bm25", "--json").stdout)["stages"]
    assert bm25["category"] == "retriever" and "k" in {p["name"] for p in bm25["params"]}
    table = invoke("stages", "cross-encoder-ft")
    assert table.exit_code == 0 and "reranker, trainable" in table.output and "alias ce-ft" in table.output
    assert "registered stages: compose with >>" in table.output
    assert_clean_error(invoke("stages", "bm26"), "bm26")


@pytest.fixture(scope="module")
def skb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from skbsearch.synth.catalogue import generate_catalogue

    d = tmp_path_factory.mktemp("stages") / "skb"
    generate_catalogue(60, seed=0, n_queries=1).skb.save(d)
    return d


def test_hits_with_evidence_narrowed_by_type_and_predicate(skb_dir: Path, capsys) -> None:  # noqa: ANN001
    search_with_pipeline(skb_dir, "waterproof jacket", "bm25 + graph", k=4, types=["product"],
                         where="price < 100", evidence=2, json_out=True)
    out = json.loads(capsys.readouterr().out)
    assert out["k"] == 4 and out["pipeline"].startswith("bm25 + graph >> filter(")
    from skbsearch.kb.store import SKB

    skb = SKB.load(skb_dir)
    hits = out["results"]
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1)) and 0 < len(hits) <= 4
    assert all(h["type"] == "product" and skb.node(h["id"]).attributes["price"] < 100 for h in hits)
    assert all(len(h["evidence"]) <= 2 * 2 for h in hits)  # two explaining stages, 2 lines each
    assert any(line.startswith("path: ") for h in hits for line in h["evidence"])


def test_a_table_or_the_note_that_nothing_was_found(skb_dir: Path, capsys) -> None:  # noqa: ANN001
    search_with_pipeline(skb_dir, "zzqx", "bm25", k=5, types=None, where=None, evidence=0,
                         json_out=False)
    assert "no results for 'zzqx'" in capsys.readouterr().out
    search_with_pipeline(skb_dir, "jacket", "bm25", k=2, types=None, where=None, evidence=1,
                         json_out=False)
    out = capsys.readouterr().out
    assert "bm25: 'jacket'" in out and "evidence" in out

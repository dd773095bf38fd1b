"""`skb synth` (cli/synth.py): a synthetic catalogue with its summary (counts per type,
relation and template, answers per query) as JSON or a table, the gazetteer SKB, and
`synth queries`' fractions; the summary of any dataset. (`synth queries` end to end:
tests/synth/queries/test_generate.py; --force over outputs: tests/kb/test_cli_force.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke

from skbsearch.cli.synth import _split, summarise
from skbsearch.core.errors import InputError
from skbsearch.synth.catalogue import generate_catalogue


def test_the_summary_counts_types_relations_templates_and_answers(tmp_path: Path) -> None:
    ds = generate_catalogue(40, seed=2, n_queries=12)
    info = summarise(ds, tmp_path / "cat", 1.234)
    assert info["synthetic"] is True and info["seconds"] == 1.23 and info["path"] == str(tmp_path / "cat")
    assert sum(info["nodes"].values()) == ds.skb.num_nodes and info["nodes"]["product"] == 40
    assert sum(info["edges"].values()) == ds.skb.num_edges
    assert info["queries"] == 12 and sum(info["templates"].values()) == 12
    sizes = [len(ds.qrels.get(q.id, {})) for q in ds.queries]
    assert info["answers_per_query"] == {"mean": sum(sizes) / 12, "min": min(sizes), "max": max(sizes)}


def test_split_fractions() -> None:
    assert _split("0.6,0.2,0.2") == (0.6, 0.2, 0.2)
    for bad in ("0.5,0.5", "a,b,c", "0.1,0.2,0.3,0.4"):
        with pytest.raises(InputError, match="three fractions TRAIN,VAL,TEST") as e:
            _split(bad)
        assert e.value.field == "split"


def test_a_catalogue_as_json_or_a_table(tmp_path: Path) -> None:
    r = invoke("synth", "catalogue", tmp_path / "a", "-n", "30", "--queries", "5", "--no-text", "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["nodes"]["product"] == 30 and info["queries"] == 5
    assert (tmp_path / "a" / "skb" / "meta.json").is_file() and (tmp_path / "a" / "qrels.trec").is_file()
    r = invoke("synth", "catalogue", tmp_path / "b", "-n", "30", "--queries", "5", "--max-answers", "3")
    assert r.exit_code == 0, r.output
    assert "Synthetic catalogue" in r.output and "nodes: product" in r.output
    assert "answers per query (mean / min / max)" in r.output
    assert invoke("synth", "catalogue", tmp_path / "c", "-n", "10", "--queries", "0", "-q").output == ""


def test_the_gazetteer_skb(tmp_path: Path) -> None:
    rows = [{"itemQ": "Q1", "itemLabel": "Soyu Stadium", "countryQ": "Q17", "countryLabel": "Japan",
             "adminEntityQ": "Q13", "adminEntityLabel": "Akita"},
            {"itemQ": "Q2", "itemLabel": "Akita Castle", "countryQ": "Q17", "countryLabel": "Japan",
             "adminEntityQ": "Q13", "adminEntityLabel": "Akita"}]
    src = tmp_path / "landmarks.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = invoke("synth", "gazetteer-skb", src, tmp_path / "gaz", "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["nodes"] == {"country": 1, "landmark": 2, "region": 1}
    assert info["edges"]["located_in"] == 2 and info["edges"]["in_country"] >= 1
    table = invoke("synth", "gazetteer-skb", src, tmp_path / "gaz", "--force")
    assert table.exit_code == 0 and "Gazetteer SKB" in table.output
    assert_clean_error(invoke("synth", "gazetteer-skb", tmp_path / "none.jsonl", tmp_path / "g2"), "none.jsonl")


def test_queries_refuse_bad_fractions_before_work(tmp_path: Path) -> None:
    generate_catalogue(20, seed=0, n_queries=1).skb.save(tmp_path / "skb")
    r = invoke("synth", "queries", tmp_path / "skb", tmp_path / "q", "--split", "1,0")
    assert_clean_error(r, "three fractions")
    assert not (tmp_path / "q").exists()

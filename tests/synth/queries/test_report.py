"""Synthesised queries in STaRK's QA layout and their report (``synth.queries.report``): the
distributions and checks (no timings: the same bytes twice), the relational and textual
words of a query, the files written (string ids as JSON lists), the printed rows, and an
output that would overwrite the SKB refused."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb import SKBBuilder
from skbsearch.synth.queries import synthesize_queries
from skbsearch.synth.queries.generate import SynthQueries, SynthQuery
from skbsearch.synth.queries.properties import Property
from skbsearch.synth.queries.report import build_report, report_rows, save, word_ratio


@pytest.fixture(scope="module")
def sq() -> SynthQueries:
    b = SKBBuilder()
    for i in range(1, 30):
        b.add_node(f"paper{i}", "paper", f"Paper {i}",
                   fields={"abstract": f"We study graph topic{i % 4} learning with method{i % 3} on data{i % 5}."})
    for a in range(5):
        b.add_node(f"a{a}", "author", f"Author {a}")
    for i in range(1, 30):
        b.add_edge(f"paper{i}", "written_by", f"a{i % 5}")
    return synthesize_queries(b.build(), 8, seed=1, spacy_model=None)


def test_the_report_adds_up(sq: SynthQueries) -> None:
    r = build_report(sq)
    assert r["synthetic"] is True and r["artefact"] == "synth-queries" and r["queries"] == 8
    for key in ("query_length_words", "answers_per_query", "candidates_per_query"):
        assert sum(r[key]["histogram"].values()) == 8
    assert r["answers_per_query"]["min"] >= 1 and sum(r["split"].values()) == 8
    assert sum(r["hops"].values()) == 8 and sum(t["queries"] for t in r["templates"]) == 8
    assert r["verification"]["method"] == "lexical" and r["verification"]["queries_checked"] == 8
    assert r["filtering"]["kept"] <= r["filtering"]["other_candidates"]
    assert json.dumps(build_report(sq)) == json.dumps(r)  # reproducible: no timings, no paths
    assert build_report(sq, {"entropy": 3.2, "ttr": 0.5})["stats"] == {"entropy": 3.2, "ttr": 0.5}


def test_relational_and_textual_words_of_a_query() -> None:
    props = [Property("mesh vents", "text", "description", ("mesh", "vents")),
             Property("with brand Foxfield", "relation", "has_brand", ("foxfield",), "has_brand", 3)]
    q = SynthQuery(0, "A jacket made by Norrow with brand Foxfield and mesh vents, please", [1], 1, 2, 0,
                   "made by Norrow", [1], props)
    # relational: norrow (the requirement; "made" is a stopword), brand, foxfield (the relation
    # property); textual: mesh, vents; "jacket", "please" are neither
    assert word_ratio(q) == (3, 2)


def test_the_files_in_starks_layout(sq: SynthQueries, tmp_path: Path) -> None:
    report = save(sq, tmp_path / "out")
    out = tmp_path / "out"
    assert json.loads((out / "report.json").read_text()) == report
    rows = list(csv.DictReader((out / "stark_qa" / "stark_qa.csv").open(encoding="utf-8")))
    assert [r["query"] for r in rows] == [q.text for q in sq.queries]
    ids = sq.skb.ids
    assert [json.loads(r["answer_ids"]) for r in rows] == [[ids[a] for a in q.answers] for q in sq.queries]
    split = {p.stem: (out / "split" / p.name).read_text().split() for p in (out / "split").iterdir()}
    assert sorted(int(x) for v in split.values() for x in v) == sorted(q.id for q in sq.queries)
    recs = [json.loads(ln) for ln in (out / "queries.jsonl").read_text().splitlines()]
    assert all(r["meta"]["synthetic"] and r["meta"]["gold"] in r["answer_ids"] for r in recs)
    assert [t["target"] for t in json.loads((out / "templates.json").read_text())]


def test_an_output_that_holds_the_skb_is_refused(sq: SynthQueries, tmp_path: Path) -> None:
    sq.skb.save(tmp_path / "kb")
    from skbsearch.kb.store import SKB

    saved = SynthQueries(SKB.load(tmp_path / "kb"), sq.queries, sq.templates, sq.settings, sq.splits)
    with pytest.raises(InputError):
        save(saved, tmp_path / "kb")
    with pytest.raises(InputError):
        save(saved, tmp_path)  # the folder that holds it


def test_report_rows(sq: SynthQueries) -> None:
    rows = {r["what"]: r["value"] for r in report_rows(build_report(sq, {"entropy": 3.21, "ttr": 0.51234}))}
    assert rows["queries (synthetic)"] == 8 and rows["mode / role"] == "lexical / researcher"
    assert rows["Shannon entropy (bits)"] == 3.21 and rows["type-token ratio"] == 0.5123
    assert "Shannon entropy (bits)" not in {r["what"] for r in report_rows(build_report(sq))}

"""STaRK-style query synthesis without an LLM (``synth.queries.generate``): end to end on a
generated catalogue, answers re-derived from the graph and the documents, determinism,
templates files, settings refused, STaRK's file layout read back by ``skb experiment``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.datasets.queries import read_queries_and_answers
from skbsearch.kb.builder import SKBBuilder
from skbsearch.kb.store import SKB
from skbsearch.synth import generate_catalogue
from skbsearch.synth.queries import synthesize_queries
from skbsearch.synth.queries.properties import PropertyExtractor, words
from skbsearch.synth.queries.report import build_report, save
from skbsearch.synth.queries.templates import (
    RelationTemplate,
    discover_templates,
    load_templates,
    requirement_phrase,
    step_phrase,
)

runner = CliRunner()


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cat")
    generate_catalogue(600, n_queries=10, seed=1).save(d)
    return d / "skb"


@pytest.fixture(scope="module")
def synthesised(catalogue, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("q") / "out"
    r = runner.invoke(app, ["synth", "queries", str(catalogue), str(out), "--n", "40", "--seed", "3"])
    assert r.exit_code == 0, r.output
    return out


def _walk(skb: SKB, anchor: str, path: list[str], target: str) -> set[str]:
    """Targets whose path leads to ``anchor``, from plain edge lists (independent of the CSR)."""
    rel_names = skb.schema.relations
    ids = skb.ids
    edges = [(ids[s], rel_names[r], ids[d]) for s, r, d in
             zip(skb.edge_src.tolist(), skb.edge_rel.tolist(), skb.edge_dst.tolist(), strict=True)]
    types = dict(zip(ids, skb.nodes.column("type").to_pylist(), strict=True))
    frontier = {anchor}
    for rel in reversed(path):  # walk back from the anchor
        base, inv = (rel[:-3], True) if rel.endswith("^-1") else (rel, False)
        nxt = set()
        for s, r, d in edges:
            if r != base:
                continue
            if not inv and d in frontier:
                nxt.add(s)
            if inv and s in frontier:
                nxt.add(d)
        frontier = nxt
    return {x for x in frontier if types[x] == target} - {anchor}


def test_end_to_end_files_and_answers(synthesised, catalogue):
    skb = SKB.load(catalogue)
    with (synthesised / "stark_qa" / "stark_qa.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["id"] for r in rows] == [str(i) for i in range(40)]
    assert list(rows[0]) == ["id", "query", "answer_ids"]
    splits = {s: (synthesised / "split" / f"{s}.index").read_text() for s in ("train", "val", "test")}
    ids = [int(x) for s in splits.values() for x in s.split()]
    assert sorted(ids) == list(range(40)) and not splits["test"].endswith("\n")
    assert [len(s.split()) for s in splits.values()] == [24, 8, 8]
    meta = [json.loads(line) for line in (synthesised / "queries.jsonl").read_text().splitlines()]
    ex = PropertyExtractor(skb, "product")
    n_multi = 0
    for row, m in zip(rows, meta, strict=True):
        answers = json.loads(row["answer_ids"])
        assert answers == m["answer_ids"] and m["meta"]["gold"] in answers
        info = m["meta"]
        cands = _walk(skb, info["anchor"], info["path"], "product")
        assert set(info["candidates"]) == cands
        assert 1 <= len(cands) <= 50
        name = skb.node(info["anchor"]).name
        assert name in row["query"] and info["requirement"] in row["query"]
        # The lexical filter: an answer's document holds every property's words; any other
        # candidate misses at least one.
        for c in cands:
            doc = set(words(ex.document(int(skb.index_of(c)))))
            doc |= {p for t in doc for p in t.replace("'", "-").split("-") if p}
            ok = all(set(words(p["text"])) - {"a", "the"} <= doc for p in info["properties"])
            assert ok == (c in answers), (row["query"], c)
        n_multi += len(answers) > 1
    assert n_multi >= 3  # filtering keeps other candidates, not only the gold
    report = json.loads((synthesised / "report.json").read_text())
    assert report["synthetic"] is True and report["queries"] == 40
    assert report["verification"]["gold_verified_rate"] == 1.0
    assert report["answers_per_query"]["max"] == max(len(json.loads(r["answer_ids"])) for r in rows)
    assert sum(report["query_length_words"]["histogram"].values()) == 40
    assert report["stats"]["entropy"] > 5 and 0 < report["stats"]["ttr"] < 1
    assert report["relational_textual_words"]["textual"] > 0


def test_deterministic_bytes(catalogue, synthesised, tmp_path):
    again = tmp_path / "again"
    other = tmp_path / "other"
    for out, seed in ((again, "3"), (other, "4")):
        r = runner.invoke(app, ["synth", "queries", str(catalogue), str(out), "--n", "40", "--seed", seed, "-q"])
        assert r.exit_code == 0, r.output
    files = sorted(p.relative_to(synthesised) for p in synthesised.rglob("*") if p.is_file())
    assert len(files) == 7
    for f in files:
        assert (synthesised / f).read_bytes() == (again / f).read_bytes(), f
    assert (other / "stark_qa" / "stark_qa.csv").read_bytes() != (again / "stark_qa" / "stark_qa.csv").read_bytes()


@pytest.mark.parametrize(("kw", "field"), [({"split": (0.5, 0.5)}, "split"), ({"split": (1, -1, 1)}, "split"),
                                           ({"targets": ["alien"]}, "type"), ({"role": "pirate"}, "role"),
                                           ({}, "templates")])
def test_settings_that_cannot_make_queries_are_refused(kw, field):
    """An SKB without edges grounds no relation template; bad settings are named."""
    b = SKBBuilder()
    for i in range(5):
        b.add_node(f"x{i}", "thing", f"X {i}")
    with pytest.raises(InputError) as e:
        synthesize_queries(b.build(), 3, spacy_model=None, **kw)
    assert e.value.field == field


def test_progress_is_reported_per_step(movies):
    steps = []
    sq = synthesize_queries(movies, 5, seed=2, max_answers=10, spacy_model=None,
                            progress=lambda what, done, total: steps.append(what))
    assert len(sq.queries) == 5 and {"grounding templates", "sampling requirements"} <= set(steps)
    assert sq.settings["role"] == "researcher" and sum(len(v) for v in sq.splits.values()) == 5


def test_templates_file_json_and_yaml(catalogue, tmp_path):
    spec = [{"target": "product", "path": ["has_brand"], "phrase": "made by {anchor}"},
            {"target": "product", "path": ["also_bought^-1"]}]
    jf = tmp_path / "t.json"
    jf.write_text(json.dumps(spec))
    out = tmp_path / "out"
    r = runner.invoke(app, ["synth", "queries", str(catalogue), str(out), "--n", "20",
                            "--templates", str(jf), "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert {t["template"] for t in report["templates"]} == {
        "product -has_brand-> brand", "product -also_bought^-1-> product"}
    meta = [json.loads(x)["meta"] for x in (out / "queries.jsonl").read_text().splitlines()]
    skb = SKB.load(catalogue)
    for m in meta:
        anchor = skb.node(m["anchor"])
        if m["template"].startswith("product -has_brand"):
            assert m["requirement"] == f"made by {anchor.name}" and anchor.type == "brand"
        else:
            assert m["requirement"] == f"bought together with {anchor.name}"
    yf = tmp_path / "t.yaml"
    yf.write_text("templates:\n  - target: product\n    path: [has_color]\n    anchor: color\n")
    assert [t.name for t in load_templates(yf, skb)] == ["product -has_color-> color"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"target": "product", "path": ["has_flavour"]}]))
    r = runner.invoke(app, ["synth", "queries", str(catalogue), str(tmp_path / "o2"), "--templates", str(bad)])
    assert r.exit_code == 2 and "has_flavour" in r.output and "bad.json" in r.output
    with pytest.raises(InputError, match="phrase"):
        bad.write_text(json.dumps([{"target": "product", "path": ["has_brand"], "phrase": "by X"}]))
        load_templates(bad, skb)


def test_refuses_foreign_output(catalogue, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    r = runner.invoke(app, ["synth", "queries", str(catalogue), str(out), "--n", "5", "--force"])
    assert r.exit_code == 2 and (out / "notes.txt").read_text() == "keep me"
    r = runner.invoke(app, ["synth", "queries", str(catalogue), str(catalogue.parent), "--n", "5"])
    assert r.exit_code == 2


def test_experiment_reads_the_output(synthesised, catalogue):
    qa = synthesised / "stark_qa" / "stark_qa.csv"
    queries, qrels = read_queries_and_answers(qa)
    assert len(queries) == 40 and all(qrels[q.id] for q in queries)
    r = runner.invoke(app, ["experiment", str(catalogue), "--queries", str(qa), "--qrels", str(qa),
                            "--pipeline", "bm25=bm25", "--pipeline", "graph=graph(target=[product])",
                            "-m", "hit@1,recall@20", "--json", "-q"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    text = json.dumps(out)
    assert "bm25" in text and "graph" in text and "recall@20" in text


@pytest.fixture(scope="module")
def movies() -> SKB:
    """A MetaQA-like SKB without text: movies, people, genres."""
    b = SKBBuilder()
    rng = np.random.default_rng(0)
    for p in range(12):
        b.add_node(f"P{p}", "person", f"Person {p}")
    for g in ("Drama", "Comedy", "Western"):
        b.add_node(g, "genre", g)
    for m in range(60):
        b.add_node(f"M{m}", "movie", f"Movie {m}")
        b.add_edge(f"M{m}", "directed_by", f"P{int(rng.integers(12))}")
        b.add_edge(f"M{m}", "has_genre", ("Drama", "Comedy", "Western")[int(rng.integers(3))])
        for a in rng.choice(12, 2, replace=False):
            b.add_edge(f"M{m}", "starred_actors", f"P{int(a)}")
    return b.build()


def test_relation_properties_without_text(movies):
    sq = synthesize_queries(movies, 30, seed=0, max_answers=10, spacy_model=None)
    assert sq.settings["property_extractor"] == {"movie": "relations"}
    g = movies.graph
    for q in sq.queries:
        assert q.properties and all(p.kind == "relation" for p in q.properties)
        for c in q.candidates:
            has_all = all(p.node in g.neighbor_set([c], [p.relation]).tolist() for p in q.properties)
            assert has_all == (c in q.answers)
        assert movies.column("name")[q.anchor] in q.text
    report = build_report(sq)
    assert report["relational_textual_words"]["textual"] == 0
    assert report["verification"]["gold_verified_rate"] == 1.0


def test_discovery_and_phrases(movies):
    found = discover_templates(movies, ["movie"], np.random.default_rng(0), max_answers=10)
    names = {g.template.name for g in found}
    assert "movie -directed_by-> person" in names
    assert "movie -directed_by-> person -directed_by^-1-> movie" in names
    assert not any(n.count("directed_by") == 3 for n in names)  # r, r^-1, r is pruned
    for g in found:
        assert 1 <= min(g.sizes) and max(g.sizes) <= 10
    assert step_phrase("has_brand", "X") == "with brand X"
    assert step_phrase("directed_by^-1", "X") == "that X is directed by"
    assert step_phrase("also_bought^-1", "X") == "bought together with X"
    two = RelationTemplate("movie", ("directed_by", "directed_by^-1"), ("person", "movie"))
    assert requirement_phrase(two, "Kismet") == "directed by the same person as Kismet"
    assert requirement_phrase(RelationTemplate("m", ("a",), (), "made by {anchor}"), "{x}") == "made by {x}"


def test_save_api_and_numeric_ids(tmp_path):
    b = SKBBuilder()
    for i in range(1, 30):
        b.add_node(str(100 + i), "paper", f"Paper {i}", fields={"abstract": f"We study graph topic{i % 4} learning."})
    for a in range(5):
        b.add_node(str(900 + a), "author", f"Author {a}")
    for i in range(1, 30):
        b.add_edge(str(100 + i), "written_by", str(900 + i % 5))
    skb = b.build()
    sq = synthesize_queries(skb, 8, seed=1, spacy_model=None)
    assert sq.settings["role"] == "researcher"
    save(sq, tmp_path / "o")
    rows = list(csv.DictReader((tmp_path / "o" / "stark_qa" / "stark_qa.csv").open()))
    assert all(isinstance(x, int) for r in rows for x in json.loads(r["answer_ids"]))  # STaRK: ints
    with pytest.raises(InputError):
        synthesize_queries(skb, 0)


def test_gazetteer_skb_command(tmp_path):
    src = tmp_path / "landmarks.jsonl"
    recs = [
        {"itemQ": "Q1", "itemLabel": "St Mary Cathedral", "countryQ": "Q16", "countryLabel": "Canada",
         "adminEntityQ": "Q5", "adminEntityLabel": "Quebec", "cityLabel": "Quebec City"},
        {"itemQ": "Q2", "itemLabel": "Old Mill", "countryQ": "Q16", "countryLabel": "Canada",
         "adminEntityQ": "Q5", "adminEntityLabel": "Quebec", "streetNameLabel": "Rue Principale"},
    ]
    src.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    out = tmp_path / "gaz"
    r = runner.invoke(app, ["synth", "gazetteer-skb", str(src), str(out), "--json"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert info["nodes"] == {"country": 1, "landmark": 2, "region": 1}
    skb = SKB.load(out)
    q1 = int(skb.index_of("Q1"))
    assert skb.id_of(skb.graph.follow([q1], ["located_in", "in_country"]).tolist()) == ["Q16"]
    assert skb.node("Q1").fields["cityLabel"] == "Quebec City"
    r = runner.invoke(app, ["synth", "gazetteer-skb", str(src), str(out)])
    assert r.exit_code == 2  # exists: --force needed

"""`skb kb build|info|show|sql` through typer's CliRunner, including atomic failure."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.kb import SKB

runner = CliRunner(env={"COLUMNS": "200"})  # no wrapping in human output

NODES = [
    {"id": "m1", "type": "movie", "name": "Kismet [1944]", "plot": "A beggar becomes a king.", "year": 1944},
    {"id": "m2", "type": "movie", "name": "Heat", "year": 1995},
    {"id": "p1", "type": "person", "name": "William Dieterle"},
    {"id": "p2", "type": "person", "name": "Ronald Colman"},
]
EDGES = [
    {"source": "m1", "relation": "directed_by", "target": "p1"},
    {"source": "m1", "relation": "starred_actors", "target": "p2"},
    {"source": "m2", "relation": "starred_actors", "target": "p2"},
]


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def src(tmp_path: Path) -> Path:
    d = tmp_path / "src"
    d.mkdir()
    write_jsonl(d / "nodes.jsonl", NODES)
    write_jsonl(d / "edges.jsonl", EDGES)
    return d


@pytest.fixture
def built(src: Path, tmp_path: Path) -> Path:
    out = tmp_path / "skb"
    res = runner.invoke(app, ["kb", "build", str(src), str(out), "--format", "jsonl", "--quiet"])
    assert res.exit_code == 0, res.output
    return out


def test_build_jsonl_json_summary(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = runner.invoke(app, ["kb", "build", str(src), str(out), "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["nodes"] == 4 and summary["edges"] == 3 and summary["format"] == "jsonl"
    assert summary["node_types"] == {"movie": 2, "person": 2}
    assert summary["relations"] == {"directed_by": 1, "starred_actors": 2}
    assert SKB.load(out).node("m1").attributes == {"year": 1944}


def test_build_with_nodes_and_edges_options(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["kb", "build", str(out), "--nodes", str(src / "nodes.jsonl"), "--edges", str(src / "edges.jsonl")]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "4 nodes, 3 edges" in res.stdout
    assert SKB.load(out).num_edges == 3


def test_build_csv_with_attributes(tmp_path: Path) -> None:
    (tmp_path / "nodes.csv").write_text("id,type,name,year\na,movie,A,2001\nb,person,B,\n", encoding="utf-8")
    (tmp_path / "edges.csv").write_text("source,relation,target\na,directed_by,b\n", encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(app, ["kb", "build", str(tmp_path), str(out), "--attributes", "year", "-q"])
    assert res.exit_code == 0, res.output
    assert SKB.load(out).node("a").attributes == {"year": 2001}


def test_build_triples_with_types(tmp_path: Path) -> None:
    f = tmp_path / "kb.tsv"
    f.write_text("Heat\tdirected_by\tMichael Mann\nHeat\trelease_year\t1995\n", encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(app, ["kb", "build", str(f), str(out), "--types", "metaqa", "--json", "-q"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["node_types"] == {"movie": 1, "person": 1, "year": 1}


def test_build_stark_needs_trust_flag(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    d = tmp_path / "processed"
    d.mkdir()
    with open(d / "node_info.pkl", "wb") as fh:
        pickle.dump({0: {"title": "Yoga mat"}, 1: {"brand_name": "Gaiam"}}, fh)
    for name, t in (("edge_index", [[0], [1]]), ("edge_types", [2]), ("node_types", [0, 1])):
        torch.save(torch.LongTensor(t), d / f"{name}.pt")
    with open(d / "node_type_dict.pkl", "wb") as fh:
        pickle.dump({0: "product", 1: "brand"}, fh)
    with open(d / "edge_type_dict.pkl", "wb") as fh:
        pickle.dump({0: "also_buy", 1: "also_view", 2: "has_brand"}, fh)
    out = tmp_path / "out"
    res = runner.invoke(app, ["kb", "build", str(tmp_path), str(out), "--format", "stark"])
    assert res.exit_code == 2
    assert "--trust-pickles" in res.stderr and not out.exists()
    res = runner.invoke(app, ["kb", "build", str(tmp_path), str(out), "--format", "stark", "--trust-pickles", "-q"])
    assert res.exit_code == 0, res.output
    skb = SKB.load(out)
    assert skb.node("0").name == "Yoga mat" and skb.schema.relations == ["also_buy", "also_view", "has_brand"]


def test_refuses_existing_out_without_force(src: Path, built: Path) -> None:
    res = runner.invoke(app, ["kb", "build", str(src), str(built)])
    assert res.exit_code == 2 and "--force" in res.stderr


def test_failed_build_keeps_old_skb(src: Path, built: Path, tmp_path: Path) -> None:
    before = sorted(p.name for p in tmp_path.iterdir())
    write_jsonl(src / "edges.jsonl", EDGES + [{"source": "m2", "relation": "directed_by", "target": "ghost"}])
    res = runner.invoke(app, ["kb", "build", str(src), str(built), "--force"])
    assert res.exit_code == 2
    assert "edges.jsonl:4" in res.stderr and "field 'target'" in res.stderr and "ghost" in res.stderr
    skb = SKB.load(built)
    assert skb.num_edges == 3 and skb.num_nodes == 4  # the old SKB is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no half-written directory


def test_force_replaces(src: Path, built: Path) -> None:
    write_jsonl(src / "nodes.jsonl", NODES + [{"id": "p3", "type": "person", "name": "Al Pacino"}])
    res = runner.invoke(app, ["kb", "build", str(src), str(built), "--force", "-q"])
    assert res.exit_code == 0, res.output
    assert SKB.load(built).num_nodes == 5


def test_bad_input_message(src: Path, tmp_path: Path) -> None:
    (src / "nodes.jsonl").write_text('{"id": "a", "type": "t"}\n{"id": "b" "type": "t"}\n', encoding="utf-8")
    res = runner.invoke(app, ["kb", "build", str(src), str(tmp_path / "o")])
    assert res.exit_code == 2 and "nodes.jsonl:2" in res.stderr and "malformed JSON" in res.stderr
    assert not (tmp_path / "o").exists()


def test_info(built: Path) -> None:
    res = runner.invoke(app, ["kb", "info", str(built), "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["nodes"] == 4 and info["node_types"] == {"movie": 2, "person": 2}
    rel = {r["relation"]: r for r in info["relations"]}
    assert rel["starred_actors"]["edges"] == 2 and rel["starred_actors"]["targets"] == 1
    assert rel["starred_actors"]["source type"] == "movie"
    assert info["degree"]["max"] == 2 and info["degree"]["zero"] == 0
    res = runner.invoke(app, ["kb", "info", str(built)])
    assert res.exit_code == 0 and "starred_actors" in res.stdout


def test_show(built: Path) -> None:
    res = runner.invoke(app, ["kb", "show", str(built), "p2", "--json"])
    assert res.exit_code == 0, res.output
    node = json.loads(res.stdout)
    assert node["name"] == "Ronald Colman"
    nb = node["neighbors"]["starred_actors^-1"]
    assert nb["count"] == 2 and {x["id"] for x in nb["nodes"]} == {"m1", "m2"}
    assert "starred actors (reverse)" in node["document"]
    res = runner.invoke(app, ["kb", "show", str(built), "m1"])
    assert res.exit_code == 0
    assert "Kismet [1944]" in res.stdout and "A beggar becomes a king." in res.stdout  # markup-safe


def test_show_unknown_node_suggests_ids(built: Path) -> None:
    res = runner.invoke(app, ["kb", "show", str(built), "Heat"])
    assert res.exit_code == 2 and "'m2'" in res.stderr


def test_sql(built: Path) -> None:
    q = "select id, name from nodes where type = 'movie' order by id"
    res = runner.invoke(app, ["kb", "sql", str(built), q, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["rows"] == [{"id": "m1", "name": "Kismet [1944]"}, {"id": "m2", "name": "Heat"}]
    res = runner.invoke(app, ["kb", "sql", str(built), "select * from edges", "--limit", "1", "--json"])
    out = json.loads(res.stdout)
    assert out["num_rows"] == 3 and len(out["rows"]) == 1 and out["truncated"]
    res = runner.invoke(app, ["kb", "sql", str(built), "select nope from nodes"])
    assert res.exit_code == 2 and "SQL error" in res.stderr


def test_not_an_skb(tmp_path: Path) -> None:
    res = runner.invoke(app, ["kb", "info", str(tmp_path)])
    assert res.exit_code == 2 and "not an SKB directory" in res.stderr


def test_info_relations_readable_at_80_columns(tmp_path: Path) -> None:
    """Issue 22: the relations table of a KG with long relation names keeps whole words and
    numbers at 80 columns (it used to wrap every column into 4-character slivers)."""
    import subprocess
    import sys

    d = tmp_path / "kg"
    d.mkdir()
    long_rel = "/film/film/release_date_s./film/film_regional_release_date/film_release_distribution_medium"
    lines = [f"/m/f{i}\t{long_rel}\t/m/d{i % 3}" for i in range(20)]
    lines += [f"/m/f{i}\t/film/film/country\t/m/c{i % 2}" for i in range(20)]
    (d / "train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "kg.skb"
    assert runner.invoke(app, ["kb", "build", str(d), str(out)]).exit_code == 0
    cmd = [sys.executable, "-c", "from skbsearch.cli import main; main()", "kb", "info", str(out)]
    text = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "COLUMNS": "80"}).stdout
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = [line for line in text.splitlines() if "release distribution medium" in line and "→" in line]
    assert rows and "20" in rows[0] and "film" in rows[0]  # name, count and types on one line
    assert "(raw ids: --ids)" in text and long_rel not in text
    wide = runner.invoke(app, ["kb", "info", str(out), "--ids"])
    assert long_rel in wide.output
    info = json.loads(runner.invoke(app, ["kb", "info", str(out), "--json"]).output)
    rel = {r["relation"]: r for r in info["relations"]}["release distribution medium"]
    assert rel["id"] == long_rel and rel["main source type"] == "film" and rel["main source share"] == 1.0


def test_info_and_build_limit_long_tables(tmp_path: Path) -> None:
    """A KG of many types and relations: the tables show the largest rows and say so."""
    d = tmp_path / "kg"
    d.mkdir()
    lines = [f"e{i}\trel_{k}\tt{k}_{i % (k + 1)}" for k in range(30) for i in range(k + 2)]
    (d / "train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "kg.skb"
    built = runner.invoke(app, ["kb", "build", str(d), str(out)])
    assert built.exit_code == 0, built.output
    res = runner.invoke(app, ["kb", "info", str(out), "--limit", "3"])
    assert "relations: the 3 largest of 30" in res.output
    assert "rel 29" in res.output and "rel 0 " not in res.output
    full = runner.invoke(app, ["kb", "info", str(out), "--limit", "0"])
    assert "rel 0 " in full.output and "largest" not in full.output

"""Any node format with any edge format (issue 32 item 7: JSONL nodes could not be combined
with CSV edges in ``skb kb build``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import load, load_csv, load_jsonl
from skbsearch.kb.store import SKB

NODES = [{"id": "m1", "type": "movie", "name": "Kismet"},
         {"id": "p1", "type": "person", "name": "William Dieterle"},
         {"id": 7, "type": "person", "name": "Seven"}]
EDGES = [("m1", "directed_by", "p1"), ("m1", "stars", "7")]


def _write_nodes(d: Path, fmt: str) -> Path:
    if fmt == "jsonl":
        p = d / "nodes.jsonl"
        p.write_text("\n".join(json.dumps(n) for n in NODES), encoding="utf-8")
    else:
        sep = "\t" if fmt == "tsv" else ","
        p = d / f"nodes.{fmt}"
        p.write_text("\n".join(sep.join(str(n[k]) for k in ("id", "type", "name"))
                               for n in [{"id": "id", "type": "type", "name": "name"}, *NODES]),
                     encoding="utf-8")
    return p


def _write_edges(d: Path, fmt: str) -> Path:
    p = d / f"edges.{fmt}"
    if fmt == "jsonl":
        p.write_text("\n".join(json.dumps({"source": s, "relation": r, "target": t})
                               for s, r, t in EDGES), encoding="utf-8")
    else:
        sep = "\t" if fmt == "tsv" else ","
        p.write_text("\n".join(sep.join(e) for e in [("source", "relation", "target"), *EDGES]),
                     encoding="utf-8")
    return p


def _check(skb: SKB) -> None:
    assert skb.num_nodes == 3 and skb.num_edges == 2
    assert skb.schema.relation_roles["directed_by"] == ["movie", "person"]
    assert skb.node("7").name == "Seven"


@pytest.mark.parametrize("nodes_fmt", ["jsonl", "csv", "tsv"])
@pytest.mark.parametrize("edges_fmt", ["jsonl", "csv", "tsv"])
def test_any_node_format_with_any_edge_format(tmp_path: Path, nodes_fmt: str, edges_fmt: str) -> None:
    nodes, edges = _write_nodes(tmp_path, nodes_fmt), _write_edges(tmp_path, edges_fmt)
    fmt = "jsonl" if nodes_fmt == "jsonl" else "csv"
    _check(load(None, format=None, nodes=nodes, edges=edges))  # explicit files
    _check(load(tmp_path, format=fmt))  # a directory: its edges file in any format


def test_same_format_edges_win_in_a_directory(tmp_path: Path) -> None:
    _write_nodes(tmp_path, "jsonl")
    _write_edges(tmp_path, "jsonl")
    (tmp_path / "edges.csv").write_text("source,relation,target\nm1,other,p1\n", encoding="utf-8")
    skb = load_jsonl(tmp_path)
    assert skb.schema.relations == ["directed_by", "stars"]


def test_errors_name_the_edges_file_line_and_field(tmp_path: Path) -> None:
    nodes = _write_nodes(tmp_path, "jsonl")
    bad = tmp_path / "edges.csv"
    bad.write_text("source,relation,target\nm1,directed_by,p1\nm1,,p1\n", encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_jsonl(nodes=nodes, edges=bad)
    assert (Path(ei.value.file).name, ei.value.line, ei.value.field) == ("edges.csv", 3, "relation")
    bad = tmp_path / "edges.jsonl"
    bad.write_text('{"source": "m1", "relation": 3, "target": "p1"}\n', encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_csv(nodes=_write_nodes(tmp_path, "csv"), edges=bad)
    assert (Path(ei.value.file).name, ei.value.line, ei.value.field) == ("edges.jsonl", 1, "relation")
    odd = tmp_path / "edges.xml"
    odd.write_text("<edges/>", encoding="utf-8")
    with pytest.raises(InputError, match=r"\.jsonl, \.ndjson, \.csv, \.tsv") as ei:
        load_jsonl(nodes=nodes, edges=odd)
    assert Path(ei.value.file).name == "edges.xml"


def test_cli_builds_jsonl_nodes_with_csv_edges(tmp_path: Path) -> None:
    nodes, edges = _write_nodes(tmp_path, "jsonl"), _write_edges(tmp_path, "csv")
    out = tmp_path / "kb.skb"
    res = CliRunner(env={"COLUMNS": "200"}).invoke(
        app, ["kb", "build", str(out), "--nodes", str(nodes), "--edges", str(edges), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["edges"] == 2
    _check(SKB.load(out))

"""`--force` replaces only skbsearch artefacts of the same kind, never the inputs or user files.

Also: an empty input is refused instead of building a 0-node SKB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB

runner = CliRunner(env={"COLUMNS": "200"})

NODES = [
    {"id": "m1", "type": "movie", "name": "Kismet", "plot": "A beggar becomes a king."},
    {"id": "p1", "type": "person", "name": "William Dieterle"},
]
EDGES = [{"source": "m1", "relation": "directed_by", "target": "p1"}]


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture
def src(tmp_path: Path) -> Path:
    d = tmp_path / "src"
    d.mkdir()
    (d / "nodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in NODES), encoding="utf-8")
    (d / "edges.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EDGES), encoding="utf-8")
    return d


@pytest.fixture
def skb_dir(src: Path, tmp_path: Path) -> Path:
    out = tmp_path / "skb"
    res = runner.invoke(app, ["kb", "build", str(src), str(out), "-q"])
    assert res.exit_code == 0, res.output
    return out


def test_index_out_skb_force_keeps_the_skb(skb_dir: Path) -> None:
    before = _files(skb_dir)
    res = runner.invoke(app, ["index", str(skb_dir), "--out", str(skb_dir), "--force"])
    assert res.exit_code == 2
    assert "is the input" in res.stderr and "Traceback" not in res.output
    assert _files(skb_dir) == before
    assert SKB.load(skb_dir).num_nodes == 2
    # ... while an index still replaces an index
    assert runner.invoke(app, ["index", str(skb_dir), "-q"]).exit_code == 0
    res = runner.invoke(app, ["index", str(skb_dir), "--force", "--k1", "1.2", "-q"])
    assert res.exit_code == 0, res.output
    assert BM25Index.load(skb_dir / "indexes" / "bm25").params["k1"] == 1.2


def test_index_out_parent_or_other_skb_refused(skb_dir: Path, tmp_path: Path, src: Path) -> None:
    res = runner.invoke(app, ["index", str(skb_dir), "--out", str(tmp_path), "--force"])
    assert res.exit_code == 2 and "contains the input" in res.stderr
    other = tmp_path / "other"
    assert runner.invoke(app, ["kb", "build", str(src), str(other), "-q"]).exit_code == 0
    res = runner.invoke(app, ["index", str(skb_dir), "--out", str(other), "--force"])
    assert res.exit_code == 2 and "holds an SKB directory" in res.stderr
    assert SKB.load(other).num_nodes == 2


def test_kb_build_into_its_source_keeps_the_source(src: Path) -> None:
    before = _files(src)
    res = runner.invoke(app, ["kb", "build", str(src), str(src), "--force"])
    assert res.exit_code == 2 and "is the input" in res.stderr
    assert _files(src) == before


def test_kb_build_into_a_parent_of_its_source_refused(src: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["kb", "build", str(src / "nodes.jsonl"), str(src), "--force"])
    assert res.exit_code == 2 and "contains the input" in res.stderr
    res = runner.invoke(app, ["kb", "build", str(tmp_path), "--nodes", str(src / "nodes.jsonl"), "--force"])
    assert res.exit_code == 2 and "contains the input" in res.stderr
    assert (src / "nodes.jsonl").is_file() and (src / "edges.jsonl").is_file()


def test_kb_build_force_over_user_directory_keeps_its_files(src: Path, tmp_path: Path) -> None:
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("four years", encoding="utf-8")
    res = runner.invoke(app, ["kb", "build", str(src), str(docs), "--force"])
    assert res.exit_code == 2
    assert "not a skbsearch artefact" in res.stderr and "Traceback" not in res.output
    assert (docs / "thesis.txt").read_text(encoding="utf-8") == "four years"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mydocs", "src"]
    # ... while an SKB or an empty directory is replaced
    assert runner.invoke(app, ["kb", "build", str(src), str(docs / "skb"), "-q"]).exit_code == 0
    res = runner.invoke(app, ["kb", "build", str(src), str(docs / "skb"), "--force", "-q"])
    assert res.exit_code == 0, res.output
    (tmp_path / "empty").mkdir()
    res = runner.invoke(app, ["kb", "build", str(src), str(tmp_path / "empty"), "--force", "-q"])
    assert res.exit_code == 0, res.output
    assert SKB.load(tmp_path / "empty").num_nodes == 2


def test_synth_force_over_user_directory_or_skb_refused(skb_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("four years", encoding="utf-8")
    args = ["--products", "20", "--queries", "2", "--force", "-q"]
    res = runner.invoke(app, ["synth", "catalogue", str(docs), *args])
    assert res.exit_code == 2 and "not a skbsearch artefact" in res.stderr
    assert (docs / "thesis.txt").read_text(encoding="utf-8") == "four years"
    res = runner.invoke(app, ["synth", "catalogue", str(skb_dir), *args])
    assert res.exit_code == 2 and "holds an SKB directory" in res.stderr
    assert SKB.load(skb_dir).num_nodes == 2
    out = tmp_path / "cat"
    assert runner.invoke(app, ["synth", "catalogue", str(out), *args]).exit_code == 0
    assert json.loads((out / "dataset.json").read_text())["artefact"] == "catalogue"
    assert runner.invoke(app, ["synth", "catalogue", str(out), *args]).exit_code == 0


def test_library_save_refuses_foreign_directory(src: Path, skb_dir: Path, tmp_path: Path) -> None:
    skb = SKB.load(skb_dir)
    with pytest.raises(InputError, match="not a skbsearch artefact"):
        skb.save(src)
    with pytest.raises(InputError, match="is the input"):
        skb.save(src.parent / "x", inputs=[src.parent / "x"])
    index = BM25Index.from_skb(skb)
    with pytest.raises(InputError, match="is the input"):
        index.save(skb_dir)  # the SKB it indexes
    assert sorted(p.name for p in src.iterdir()) == ["edges.jsonl", "nodes.jsonl"]
    assert SKB.load(skb_dir).num_nodes == 2


@pytest.mark.parametrize("args", [["--nodes", "{empty}"], ["{empty}", "--format", "jsonl"],
                                  ["{triples}", "--format", "triples"]])
def test_empty_input_refused(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "kb.txt").write_text("\n", encoding="utf-8")
    files = {"empty": str(tmp_path / "empty.jsonl"), "triples": str(tmp_path / "kb.txt")}
    out = tmp_path / "out"
    argv = [a.format(**files) for a in args]
    argv = [argv[0], str(out), *argv[1:]] if argv[0] != "--nodes" else [str(out), *argv]
    res = runner.invoke(app, ["kb", "build", *argv])
    assert res.exit_code == 2, res.output
    assert "no nodes" in res.stderr and ("empty.jsonl" in res.stderr or "kb.txt" in res.stderr)
    assert not out.exists()

"""Output files never clobber inputs: every option that writes a file refuses (exit 2, one
line naming the option) a path that is one of the command's inputs (same path, symlink or
hard link), a directory, or a file inside an SKB or index directory; and a plot's format
is checked before any work."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke

NODES = [{"id": f"p{i}", "type": "product", "name": f"jacket {i}", "description": f"warm coat {i}"}
         for i in range(6)]
QUERIES = [{"id": "q1", "text": "warm jacket"}, {"id": "q2", "text": "coat"}]
QRELS = "q1 0 p1 1\nq2 0 p2 1\n"




@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("outputs")
    (d / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NODES))
    assert invoke("kb", "build", d / "nodes.jsonl", d / "skb", "-q").exit_code == 0
    assert invoke("index", d / "skb", "-q").exit_code == 0
    return d


@pytest.fixture()
def data(built: Path, tmp_path: Path) -> Path:
    """Fresh query, qrels and run files beside the module's SKB."""
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (tmp_path / "qrels.trec").write_text(QRELS)
    (tmp_path / "run.trec").write_text("q1 Q0 p1 1 2.0 bm25\nq2 Q0 p2 1 1.0 bm25\n")
    (tmp_path / "skb").symlink_to(built / "skb")
    return tmp_path


def run_cmd(d: Path, save: Path, *extra: str | Path):
    return invoke("run", d / "skb", "--queries", d / "queries.jsonl", "--pipeline", "bm25",
                  "--save-run", save, *extra)


def test_save_run_over_the_qrels_is_refused(data):
    before = (data / "qrels.trec").read_bytes()
    r = run_cmd(data, data / "qrels.trec", "--qrels", data / "qrels.trec")
    assert_clean_error(r, "--save-run", "input")
    assert (data / "qrels.trec").read_bytes() == before


def test_save_run_over_the_queries_is_refused(data):
    before = (data / "queries.jsonl").read_bytes()
    assert_clean_error(run_cmd(data, data / "queries.jsonl"), "--save-run", "input")
    assert (data / "queries.jsonl").read_bytes() == before


def test_qrels_read_as_queries_and_saved_to_is_left_whole(data):
    # a TREC qrels file read as TREC topics ('id<TAB>text' fails) and named as the output:
    # it used to be truncated to 0 bytes
    before = (data / "qrels.trec").read_bytes()
    r = invoke("run", data / "skb", "--queries", data / "qrels.trec", "--pipeline", "bm25",
               "--save-run", data / "qrels.trec")
    assert_clean_error(r, "--save-run", "input")
    assert (data / "qrels.trec").read_bytes() == before


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_link_to_an_input_is_the_input(data, link):
    alias = data / "alias.trec"
    (os.symlink if link == "symlink" else os.link)(data / "qrels.trec", alias)
    before = (data / "qrels.trec").read_bytes()
    assert_clean_error(run_cmd(data, alias, "--qrels", data / "qrels.trec"), "--save-run", "input")
    assert (data / "qrels.trec").read_bytes() == before


def test_save_run_inside_the_skb_or_an_index_is_refused(data, built):
    meta = built / "skb" / "meta.json"
    before = meta.read_bytes()
    assert_clean_error(run_cmd(data, meta), "--save-run", "inside an SKB directory")
    assert meta.read_bytes() == before
    new = built / "skb" / "indexes" / "bm25" / "run.trec"
    assert_clean_error(run_cmd(data, new), "--save-run", "inside an index directory")
    assert not new.exists()
    assert invoke("search", built / "skb", "jacket").exit_code == 0


def test_save_run_naming_a_directory(data):
    (data / "runs").mkdir()
    assert_clean_error(run_cmd(data, data / "runs"), "--save-run", "is a directory")


def test_save_run_writes_and_replaces_a_previous_run(data):
    out = data / "out" / "bm25.trec"
    assert run_cmd(data, out, "-q").exit_code == 0
    first = out.read_text()
    assert first.startswith("q1 Q0 ")
    os.chmod(out, 0o640)
    assert run_cmd(data, out, "-q", "--k", "1").exit_code == 0
    assert out.read_text() != first and len(out.read_text().splitlines()) == 2
    assert oct(out.stat().st_mode & 0o777) == oct(0o640)  # the replaced file keeps its mode
    assert sorted(p.name for p in out.parent.iterdir()) == ["bm25.trec"]  # no temp left


def test_experiment_csv_over_the_qrels_is_refused(data):
    before = (data / "qrels.trec").read_bytes()
    r = invoke("experiment", "--run", f"bm25={data / 'run.trec'}", "--qrels", data / "qrels.trec",
               "--csv", data / "qrels.trec")
    assert_clean_error(r, "--csv", "input")
    assert (data / "qrels.trec").read_bytes() == before


def test_experiment_csv_over_a_named_run_is_refused(data):
    before = (data / "run.trec").read_bytes()
    r = invoke("experiment", "--run", f"bm25={data / 'run.trec'}", "--qrels", data / "qrels.trec",
               "--latex", data / "run.trec")
    assert_clean_error(r, "--latex", "input")
    assert (data / "run.trec").read_bytes() == before


def test_experiment_two_outputs_naming_one_file(data):
    r = invoke("experiment", "--run", data / "run.trec", "--qrels", data / "qrels.trec",
               "--csv", data / "t.txt", "--latex", data / "t.txt")
    assert_clean_error(r, "--latex", "same file as --csv")
    assert not (data / "t.txt").exists()


def test_eval_plot_with_a_format_matplotlib_cannot_write(data):
    pytest.importorskip("matplotlib")
    r = invoke("eval", data / "run.trec", data / "qrels.trec", "--plot", data / "out.trec")
    assert_clean_error(r, "--plot", ".png", ".svg")
    assert not (data / "out.trec").exists()
    r = invoke("eval", data / "run.trec", data / "qrels.trec", "--plot", data / "p.svg", "-q")
    assert r.exit_code == 0, r.output
    assert (data / "p.svg").read_text().lstrip().startswith("<?xml")
    assert sorted(p.name for p in data.iterdir() if p.name.startswith(".")) == []


def test_eval_plot_over_the_qrels_is_refused(data):
    pytest.importorskip("matplotlib")
    (data / "qrels.png").write_text(QRELS)
    r = invoke("eval", data / "run.trec", data / "qrels.png", "--plot", data / "qrels.png")
    assert_clean_error(r, "--plot", "input")
    assert (data / "qrels.png").read_text() == QRELS


def test_bench_json_into_an_skb_is_refused(data, built):
    r = invoke("bench", "stark", "--skb", built / "skb", "--qa", data, "--json",
               built / "skb" / "result.json")
    assert_clean_error(r, "--json", "inside an SKB directory")
    assert not (built / "skb" / "result.json").exists()


# ------------------------------------------------------------------ output directories
def test_output_directories_inside_an_skb_or_holding_an_input_are_refused(data, built):
    r = invoke("synth", "catalogue", built / "skb" / "cat", "--products", "5", "-q")
    assert_clean_error(r, "OUT", "inside an SKB directory")
    r = invoke("synth", "queries", built / "skb", built / "skb" / "indexes" / "q", "-q")
    assert_clean_error(r, "OUT", "inside an SKB directory")
    (data / "landmarks.jsonl").write_text("{}\n")
    r = invoke("synth", "gazetteer-skb", data / "landmarks.jsonl", data, "-q")
    assert_clean_error(r, "OUT", "contains the input")
    r = invoke("synth", "gazetteer-skb", data / "landmarks.jsonl", data / "queries.jsonl", "-q")
    assert_clean_error(r, "OUT", "is a file")
    assert sorted(p.name for p in (built / "skb").iterdir()) == [
        "edges.parquet", "graph", "indexes", "meta.json", "nodes.arrow", "nodes.parquet"]


def test_a_model_is_never_saved_over_an_skb(built, tmp_path):
    pytest.importorskip("transformers")
    from skbsearch.core.atomic import check_replaceable
    from skbsearch.core.errors import InputError

    with pytest.raises(InputError, match="SKB directory"):
        check_replaceable(built / "skb", "cross-encoder-model")

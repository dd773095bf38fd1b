"""The CLI with hostile data and damaged files: rich markup in names and queries is shown
literally, and damaged inputs give one-line errors naming the file (exit 2), never a
traceback."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest
import typer
from rich.text import Text
from typer.testing import CliRunner

from skbsearch.cli import app

runner = CliRunner(env={"COLUMNS": "250"})

NODES = [
    {"id": "w1", "type": "product", "name": "Widget [/b]", "description": "a warm jacket [blue]", "price": 10},
    {"id": "w2", "type": "product", "name": "[blue] jacket", "description": "jacket [pack of 2]",
     "price": float("nan")},
    {"id": "b1", "type": "brand", "name": "[bold]Acme"},
]
EDGES = [{"source": "w1", "relation": "has_brand", "target": "b1"},
         {"source": "w2", "relation": "has_brand", "target": "b1"}]


def invoke(*args: str | Path):
    return runner.invoke(app, [str(a) for a in args])


def assert_clean_error(r, *needles: str) -> str:
    """Exit code 2, an ``error:`` line naming ``needles``, no traceback."""
    out = r.output
    assert r.exit_code == 2, out
    assert isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in out and "error:" in out, out
    line = next(ln for ln in out.splitlines() if "error:" in ln)
    for n in needles:
        assert n in line, line
    return line


@pytest.fixture(scope="module")
def skb(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("robust")
    # json.dumps writes NaN, which the JSONL loader reads back as a NaN attribute
    (d / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NODES))
    (d / "edges.jsonl").write_text("".join(json.dumps(e) + "\n" for e in EDGES))
    r = invoke("kb", "build", d, d / "skb", "-q")
    assert r.exit_code == 0, r.output
    r = invoke("index", d / "skb", "-q")
    assert r.exit_code == 0, r.output
    return d / "skb"


def copy(skb: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(skb, tmp_path / "copy"))


# ------------------------------------------------------------------ rich markup
def test_search_shows_markup_in_queries_and_names_literally(skb):
    r = invoke("search", skb, "jacket [/bold]")
    assert r.exit_code == 0, r.output
    for text in ("jacket [/bold]", "Widget [/b]", "[blue] jacket", "[pack of 2]", "[blue]"):
        assert text in r.output, text
    r = invoke("search", skb, "zzz [/b] [red]")
    assert r.exit_code == 0 and "zzz [/b] [red]" in r.output, r.output


def test_kb_show_info_sql_show_markup_literally(skb):
    r = invoke("kb", "show", skb, "w1")
    assert r.exit_code == 0 and "Widget [/b]" in r.output and "[bold]Acme" in r.output, r.output
    r = invoke("kb", "sql", skb, "SELECT name FROM nodes ORDER BY id")
    assert r.exit_code == 0, r.output
    assert "[bold]Acme" in r.output and "[blue] jacket" in r.output and "\\[" not in r.output
    r = invoke("kb", "info", skb)
    assert r.exit_code == 0 and "has_brand" in r.output, r.output


def test_unknown_node_with_markup_is_a_clean_error(skb):
    assert_clean_error(invoke("kb", "show", skb, "[/x]"), "[/x]")
    assert_clean_error(invoke("kb", "show", skb, "[bold]nope"), "[bold]nope")


def test_sql_json_turns_nan_into_null(skb):
    r = invoke("kb", "sql", skb, "SELECT id, price FROM nodes ORDER BY id", "--json")
    assert r.exit_code == 0, r.output

    def refuse(const: str) -> None:
        raise AssertionError(f"invalid JSON constant {const}")

    rows = json.loads(r.output, parse_constant=refuse)["rows"]
    assert {x["id"]: x["price"] for x in rows} == {"b1": None, "w1": 10, "w2": None}


def test_eval_run_name_with_markup(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    run = tmp_path / "[blue]run.trec"
    run.write_text("q1 Q0 d1 1 2.0 t\n")
    r = invoke("eval", run, tmp_path / "qrels.txt")
    assert r.exit_code == 0 and "[blue]run" in r.output, r.output


def _commands(cmd, path):
    yield path, cmd
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        yield from _commands(sub, [*path, name])


def test_help_texts_survive_rich_markup():
    """Typer renders help as rich markup: '[server]' would vanish unless escaped."""
    for path, cmd in _commands(typer.main.get_command(app), ["skb"]):
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        for t in texts:
            assert Text.from_markup(t).plain == t.replace("\\[", "["), f"{' '.join(path)}: {t!r}"
    r = invoke("serve", "--help")
    assert "extra [server]" in r.output, r.output


# ------------------------------------------------------------------ damaged inputs
def test_binary_input_to_eval_and_stats(tmp_path):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe" * 10)
    good = tmp_path / "qrels.txt"
    good.write_text("q1 0 d1 1\n")
    assert_clean_error(invoke("eval", blob, good), str(blob), "not UTF-8")
    assert_clean_error(invoke("eval", good, blob), str(blob), "not UTF-8")
    assert_clean_error(invoke("stats", "queries", blob), str(blob), "not UTF-8")


def test_stats_queries_names_an_option_that_exists(tmp_path):
    f = tmp_path / "q.csv"
    f.write_text("id,question\n1,what is a jacket?\n2,red shoes\n")
    line = assert_clean_error(invoke("stats", "queries", f), str(f), "--query-column")
    assert "pass the query column name" not in line
    r = invoke("stats", "queries", f, "--query-column", "question", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["n_queries"] == 2, r.output


def test_where_errors_name_the_option(skb):
    assert_clean_error(invoke("search", skb, "jacket", "--where", "nope = 1"), "'--where'", "nope")


@pytest.mark.parametrize("name", ["nodes.parquet", "edges.parquet"])
def test_truncated_parquet(skb, tmp_path, name):
    d = copy(skb, tmp_path)
    data = (d / name).read_bytes()
    (d / name).write_bytes(data[: len(data) // 2])
    assert_clean_error(invoke("kb", "info", d), str(d / name))
    assert_clean_error(invoke("search", d, "jacket"), str(d / name))


@pytest.mark.parametrize("name", ["data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"])
def test_empty_bm25_arrays(skb, tmp_path, name):
    d = copy(skb, tmp_path)
    (d / "indexes" / "bm25" / name).write_bytes(b"")
    assert_clean_error(invoke("search", d, "jacket"), str(d / "indexes" / "bm25"), "rebuild")


def _edit_npy(file: Path, edit) -> None:
    a = np.load(file)
    edit(a)
    np.save(file, a)


def _postings_of(ix: Path, word: str) -> slice:
    """The positions of ``word``'s postings in the index's CSC arrays."""
    vocab = json.loads((ix / "vocab.tokenizer.json").read_text())
    sid = vocab["stem_to_sid"][vocab["word_to_stem"][word]]
    indptr = np.load(ix / "indptr.csc.index.npy")
    return slice(int(indptr[sid]), int(indptr[sid + 1]))


def test_bm25_indices_out_of_range_and_bad_indptr(skb, tmp_path):
    # an open reads no posting: a damaged term is refused by the first query that reads it,
    # and the queries that do not read it still answer
    d = copy(skb, tmp_path)
    ix = d / "indexes" / "bm25"
    jacket = _postings_of(ix, "jacket")
    _edit_npy(ix / "indices.csc.index.npy", lambda a: a.__setitem__(jacket.start, 10**6))
    r = invoke("search", d, "widget")
    assert r.exit_code == 0 and "w1" in r.output, r.output
    line = assert_clean_error(invoke("search", d, "jacket"), str(ix), "indices")
    assert "outside [0, 3)" in line
    # postings out of order (the kernels binary-search them): jacket is in all three documents
    assert jacket.stop - jacket.start == 3
    _edit_npy(ix / "indices.csc.index.npy", lambda a: a.__setitem__(jacket.start, 2))
    assert_clean_error(invoke("search", d, "jacket"), str(ix), "ascending order")
    d2 = Path(str(d) + "2")
    d2 = copy(skb, d2)
    ix = d2 / "indexes" / "bm25"

    def swap(a):
        a[1], a[-2] = a[-2], a[1]  # still starts at 0 and ends at len(indices), but decreases

    _edit_npy(ix / "indptr.csc.index.npy", swap)
    assert_clean_error(invoke("search", d2, "widget"), str(ix), "indptr")  # the pointers: at open


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_bm25_scores_that_are_not_numbers(skb, tmp_path, bad):
    # a NaN score never ranks: the damaged index used to answer "no results", exit 0
    d = copy(skb, tmp_path)
    ix = d / "indexes" / "bm25"
    jacket = _postings_of(ix, "jacket")
    _edit_npy(ix / "data.csc.index.npy", lambda a: a.__setitem__(jacket.stop - 1, bad))
    assert invoke("search", d, "widget").exit_code == 0
    line = assert_clean_error(invoke("search", d, "jacket"), str(ix), "NaN or infinite")
    assert "skb index" in line and "--force" in line


def test_graph_arrays_damaged(skb, tmp_path):
    d = copy(skb, tmp_path)
    (d / "graph" / "r0.indices.npy").write_bytes(b"")
    assert_clean_error(invoke("kb", "show", d, "w1"), str(d / "graph" / "r0.indices.npy"))
    for k, edit in enumerate([lambda a: a.__setitem__(0, 99), lambda a: a.__setitem__(-1, 0)]):
        d = copy(skb, tmp_path / f"g{k}")
        for f in sorted((d / "graph").glob("*.indices.npy" if k == 0 else "*.indptr.npy")):
            _edit_npy(f, edit)
        assert_clean_error(invoke("kb", "show", d, "w1"), str(d / "graph"), "corrupt")


def test_graph_indptr_that_decreases_is_refused(skb, tmp_path):
    from skbsearch.core.errors import ArtefactError
    from skbsearch.kb.graph import Graph

    d = copy(skb, tmp_path)
    meta = json.loads((d / "graph" / "graph.json").read_text())
    stem = meta["files"]["has_brand^-1"]  # b1 (row 0) has two in-edges: indptr [0, 2, 2, 2]
    f = d / "graph" / f"{stem}.indptr.npy"
    a = np.load(f)
    assert a[0] == 0 and a[-1] == 2
    a[1] = 2
    a[2] = 1  # non-monotone: rows would silently get wrong neighbours
    np.save(f, a)
    with pytest.raises(ArtefactError, match="indptr decreases"):
        Graph.load(d / "graph")


def test_serve_port_out_of_range(skb):
    r = invoke("serve", skb, "--port", "99999")
    assert r.exit_code != 0 and "Traceback" not in r.output and "--port" in r.output, r.output
    assert not isinstance(r.exception, OverflowError)
    r = invoke("serve", skb, "--port", "0")
    assert r.exit_code != 0 and "--port" in r.output, r.output


# ------------------------------------------------------------------ notes and hints
def test_dense_search_says_the_model_is_loading(skb, tmp_path):
    """A retriever over an encoder prints a one-line stderr note suggesting 'skb serve'
    (read from the index's manifest before the pipeline runs)."""
    r = invoke("index", skb, "--kind", "bm25", "--out", tmp_path / "ix", "--quiet")
    assert r.exit_code == 0, r.output
    manifest = json.loads((tmp_path / "ix" / "manifest.json").read_text())
    manifest["params"]["encoder"] = "minilm"  # as a dense index records its model
    (tmp_path / "ix" / "manifest.json").write_text(json.dumps(manifest))
    r = invoke("search", skb, "jacket", "--index", tmp_path / "ix")
    assert r.exit_code == 0, r.output
    note = [ln for ln in r.output.splitlines() if ln.startswith("note: loading")]
    assert note and "encoder" in note[0] and "skb serve" in note[0], r.output
    r = invoke("search", skb, "jacket")  # bm25: no model, no note
    assert "note:" not in r.output


def test_demo_out_prints_a_search_command_that_works(tmp_path):
    out = tmp_path / "demo"
    r = invoke("demo", "--out", out, "--products", "60", "--queries", "5", "--show", "0")
    assert r.exit_code == 0, r.output
    cmd = next(ln for ln in r.output.splitlines() if "skb search" in ln)
    args = shlex.split(cmd.split("skb search", 1)[1].split("(")[0])
    assert Path(args[0]) == out / "dataset" / "skb"
    r = invoke("search", *args, "-k", "3")
    assert r.exit_code == 0 and "product" in r.output, r.output
    rel = shlex.split(cmd.split("--index", 1)[1].split(";")[0])[0]
    r = invoke("search", args[0], "jacket", "--index", rel)
    assert r.exit_code == 0, r.output
    spec = shlex.split(cmd.split(" -p ", 1)[1].rstrip(")"))[0]
    r = invoke("search", args[0], "jacket", "-p", spec)
    assert r.exit_code == 0 and "product" in r.output, r.output

"""Any text in: bytes that are not UTF-8 in command-line arguments (Python hands them over
as lone surrogates) and unpaired surrogate escapes in input files give a one-line error
naming the option, or the file, line and field; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke

BAD_BYTE = "\udcff"  # how Python passes the command-line byte 0xff on POSIX
NODES = [{"id": "w1", "type": "product", "name": "warm jacket", "price": 10},
         {"id": "w2", "type": "product", "name": "blue mug", "price": 5}]




@pytest.fixture(scope="module")
def skb(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("text")
    (d / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NODES))
    assert invoke("kb", "build", d / "nodes.jsonl", d / "skb", "-q").exit_code == 0
    assert invoke("index", d / "skb", "-q").exit_code == 0
    return d / "skb"


def test_where_with_a_byte_that_is_not_utf8(skb):
    r = invoke("search", skb, "jacket", "--where", f"name = '{BAD_BYTE}'")
    assert_clean_error(r, "--where", "0xff", "UTF-8")


@pytest.mark.parametrize("query", [f"jacket {BAD_BYTE}", "\ud800 mug", "mug \udfff"])
def test_query_argument_that_is_not_text(skb, query):
    assert_clean_error(invoke("search", skb, query), "QUERY", "UTF-8")


def test_spec_and_ids_that_are_not_text(skb, tmp_path):
    assert_clean_error(invoke("search", skb, "mug", "--pipeline", f"bm25(k={BAD_BYTE})"),
                       "--pipeline")
    assert_clean_error(invoke("kb", "show", skb, f"w{BAD_BYTE}"), "0xff")
    assert_clean_error(invoke("search", skb, "mug", "--type", "\ud800"), "--type", "U+D800")


def test_query_file_with_an_unpaired_surrogate_escape(skb, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "q1", "text": "mug"}\n{"id": "q2", "text": "\\ud800 mug"}\n')
    r = invoke("run", skb, "--queries", q, "--pipeline", "bm25", "--save-run", tmp_path / "r.trec")
    assert_clean_error(r, f"{q}:2", "field 'text'", "surrogate")
    assert not (tmp_path / "r.trec").exists()


def test_nodes_file_with_an_unpaired_surrogate_escape(tmp_path):
    (tmp_path / "nodes.jsonl").write_text(
        '{"id": "a", "type": "t", "name": "ok"}\n{"id": "b", "type": "t", "name": "x\\udfff"}\n')
    r = invoke("kb", "build", tmp_path / "nodes.jsonl", tmp_path / "skb", "-q")
    assert_clean_error(r, "nodes.jsonl:2", "field 'name'", "surrogate")
    assert not (tmp_path / "skb").exists()


def test_qrels_json_with_an_unpaired_surrogate_escape(tmp_path):
    (tmp_path / "run.trec").write_text("q1 Q0 d1 1 1.0 x\n")
    (tmp_path / "qrels.json").write_text('{"q1": {"d1": 1, "\\ud800": 1}}')
    r = invoke("eval", tmp_path / "run.trec", tmp_path / "qrels.json")
    assert_clean_error(r, "qrels.json", "surrogate")


def test_valid_surrogate_pairs_and_non_ascii_text_still_work(skb, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "q1", "text": "mug \\ud83d\\ude00 caf\\u00e9"}\n')
    r = invoke("run", skb, "--queries", q, "--pipeline", "bm25", "--save-run", tmp_path / "r.trec",
               "-q")
    assert r.exit_code == 0, r.output
    r = invoke("search", skb, "mug café ☕")
    assert r.exit_code == 0 and "blue mug" in r.output, r.output


def test_real_command_line_bytes(skb):
    """Through the console entry point: argv bytes that are not UTF-8, as a shell passes them."""
    import os
    import subprocess
    import sys

    code = "from skbsearch.cli import main; main()"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable.encode(), b"-c", code.encode(), b"search", os.fsencode(skb),
                        b"jacket", b"--where", b"name = '\xff'"], capture_output=True, env=env)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 2 and "Traceback" not in err, err
    assert "--where" in err and "0xff" in err, err

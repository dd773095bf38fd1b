"""`skb bench metaqa` (cli/bench_metaqa.py): KGQA on MetaQA from the command line, its hops
and the retired pipeline names and flags (each says what to use instead)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke
from kgqa_fixtures import write_folder
from typer.testing import CliRunner

from skbsearch.cli.bench_metaqa import _parse_hops, _specs
from skbsearch.core.errors import InputError


def test_cli_bench_metaqa(tmp_path: Path) -> None:
    from skbsearch.cli import app

    data = write_folder(tmp_path / "metaqa")
    out = tmp_path / "res.json"
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(data), "--hops", "1", "--json", str(out),
                                 "--cache", str(tmp_path / "cache")])
    assert r.exit_code == 0, r.output
    assert "1-hop" in r.output and "protocol" in r.output
    assert json.loads(out.read_text())["benchmark"] == "metaqa"
    r = CliRunner().invoke(app, ["bench", "metaqa", "--data", str(tmp_path), "--hops", "x"])
    assert r.exit_code == 2




def test_hops_are_a_list_of_numbers() -> None:
    assert _parse_hops("1,2,3") == (1, 2, 3) and _parse_hops(" 2 , ") == (2,)
    for bad, match in (("x", "comma-separated list"), (",", "is empty")):
        with pytest.raises(InputError, match=match) as e:
            _parse_hops(bad)
        assert e.value.field == "hops"


def test_old_names_and_flags_say_what_to_use_instead(capsys: pytest.CaptureFixture[str]) -> None:
    assert _specs(None, None, None, None, None) == (["graph"], True)
    assert _specs(["kg", "text", "bm25 % 5"], None, None, None, None) == (["graph", "bm25", "bm25 % 5"], True)
    assert _specs(None, False, "ngram", None, None) == (["graph(backoff=0)"], False)
    err = capsys.readouterr().err
    assert "--pipeline kg is now --pipeline 'graph'" in " ".join(err.split())
    assert "--no-backoff is now --pipeline 'graph(backoff=0)'" in " ".join(err.split())
    assert "--link ngram is now --no-brackets" in " ".join(err.split())
    for args, match in (((["rerank"], None, None, None, None), "--pipeline rerank is retired"),
                        ((["bm25"], False, None, None, None), "--no-backoff is retired"),
                        ((None, None, "fuzzy", None, None), "--link must be brackets or ngram"),
                        ((None, None, None, 0.5, None), "--graph-weight and --model"),
                        (([" "], None, None, None, None), "--pipeline is empty")):
        with pytest.raises(InputError, match=match):
            _specs(*args)


def test_a_text_result_per_spec(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    r = invoke("bench", "metaqa", "--data", data, "--hops", "1", "--limit", "2", "--pipeline", "bm25",
               "--cache", tmp_path / "cache")
    assert r.exit_code == 0, r.output
    assert "MetaQA pipeline bm25" in r.output and "questions:" in r.output
    assert_clean_error(invoke("bench", "metaqa", "--data", data, "--split", "train",
                              "--cache", tmp_path / "cache"), "split")

"""The options every `skb bench` command shares: one name and help text each, one result a spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.main import get_command

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.cli import app
from skbsearch.cli.bench_options import PIPELINE_HELP, save_results, show_results, specs_or
from skbsearch.core.errors import InputError

SAME = ("--json", "--quiet", "--device", "--precision")
#: Options whose help starts alike, then says what they mean in that benchmark.
SAME_START = {"--pipeline": PIPELINE_HELP, "--limit": "Score only the first N queries"}
OWNED = ("trecdl", "impliret", "stark")  # metaqa is h23-graph's, for now


def _options(name: str) -> dict[str, Any]:
    bench = get_command(app).commands["bench"]  # type: ignore[attr-defined]
    return {o: p for p in bench.commands[name].params for o in getattr(p, "opts", [])}


def test_the_shared_options_have_one_name_and_one_help() -> None:
    for flag in SAME:
        assert len({_options(n)[flag].help for n in OWNED}) == 1, flag
    for flag, start in SAME_START.items():
        assert all(_options(n)[flag].help.startswith(start) for n in OWNED), flag
    assert _options("trecdl")["--pipeline"].multiple
    for flag in ("--cv-folds", "--fold-seed"):  # where pipelines train
        assert _options("trecdl")[flag].help == _options("impliret")[flag].help
    for old in ("--reranker", "--folds", "--limit-per-pool", "--year", "--gnn-epochs", "--ce-steps"):
        assert all(old not in _options(n) for n in OWNED)  # only the deprecation table reads them
    assert "--split" in _options("trecdl") and "--split" in _options("stark")
    for flag in SAME:  # metaqa's own --limit and --pipeline say questions per hop
        assert _options("metaqa")[flag].help == _options("trecdl")[flag].help, flag


def test_specs_or_the_default() -> None:
    assert specs_or(None, "enrich") == ["enrich"] and specs_or([], None) == [None]
    assert specs_or(["bm25", "dense"], "enrich") == ["bm25", "dense"]
    with pytest.raises(InputError, match="empty"):
        specs_or(["bm25", " "], None)


def test_one_result_an_object_several_a_list(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    a, b = BenchmarkResult("x", {"pipeline": "a"}), BenchmarkResult("x", {"pipeline": "b"})
    assert not save_results([a], tmp_path / "one.json") and not save_results([a], None)
    assert json.loads((tmp_path / "one.json").read_text())["config"] == {"pipeline": "a"}
    save_results([a, b], tmp_path / "two.json")
    assert [r["config"]["pipeline"] for r in json.loads((tmp_path / "two.json").read_text())] == ["a", "b"]
    assert save_results([a, b], Path("-"))  # stdout: nothing else is printed then
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_show_results_saves_then_prints_unless_quiet_or_stdout(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    a, b = BenchmarkResult("x", {"pipeline": "a"}), BenchmarkResult("x", {"pipeline": "b"})
    shown: list[str] = []
    show_results([a, b], tmp_path / "two.json", False, lambda r: shown.append(r.config["pipeline"]))
    assert shown == ["a", "b"] and (tmp_path / "two.json").exists()
    assert "wrote" in capsys.readouterr().out
    show_results([a], tmp_path / "one.json", True, lambda r: shown.append("quiet"))
    show_results([a], Path("-"), False, lambda r: shown.append("stdout"))
    assert shown == ["a", "b"]  # quiet, or JSON on stdout: nothing else is printed
    assert json.loads(capsys.readouterr().out)["config"] == {"pipeline": "a"}
    show_results([a], None, False, lambda r: shown.append("table"))
    assert shown[-1] == "table" and "wrote" not in capsys.readouterr().out


@pytest.mark.parametrize("args", [["trecdl", "--data", "d", "--reranker", "cross-encoder"],
                                  ["trecdl", "--data", "d", "--year", "dl20"],
                                  ["impliret", "--data", "d", "--folds", "2"],
                                  ["impliret", "--data", "d", "--gnn-epochs", "3"]])
def test_the_retired_old_bench_flags_are_unknown_options(args: list[str]) -> None:
    """The old ``skb bench`` flags (warned about for one release) are gone: click refuses
    them as any unknown option, before anything runs."""
    from cli_helpers import invoke

    r = invoke("bench", *args)
    assert r.exit_code == 2, r.output
    assert "No such option" in r.output and args[3] in r.output
    assert "Traceback" not in r.output

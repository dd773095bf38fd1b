"""Shared CLI output (cli/output.py): `device_options` (one declaration of --device/--precision,
applied before a command's body), `handle_errors` (one clean line, exit 2; out of memory: exit
1), JSON without NaN, literal text, progress lines into a pipe, and results saved or printed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer
from cli_helpers import assert_clean_error, invoke
from typer.main import get_command
from typer.testing import CliRunner

from skbsearch.cli.output import (
    device_options,
    handle_errors,
    json_safe,
    print_json,
    save_result,
    stage_progress,
    text,
)
from skbsearch.core.devices import DEVICE_ENV, PRECISION_ENV
from skbsearch.core.errors import InputError


def _app(seen: list[dict]) -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.command()
    @handle_errors
    @device_options
    def cmd(name: str = typer.Option("x", "--name"),
            quiet: bool = typer.Option(False, "--quiet", "-q")) -> None:
        seen.append({"name": name, "quiet": quiet})

    return app


@pytest.fixture
def restore_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The options set the process default: put it back after the test."""
    monkeypatch.setenv(DEVICE_ENV, "auto")
    monkeypatch.delenv(PRECISION_ENV, raising=False)


def test_listed_before_quiet_and_applied_before_the_body(restore_env: None) -> None:
    seen: list[dict] = []
    app = _app(seen)
    opts = [o for p in get_command(app).params for o in p.opts]
    assert opts == ["--name", "--device", "--precision", "--quiet", "-q"]
    r = CliRunner().invoke(app, ["--name", "y", "--device", "cpu", "--precision", "fp32"])
    assert r.exit_code == 0, r.output
    assert seen == [{"name": "y", "quiet": False}]  # the body does not see them
    assert (os.environ[DEVICE_ENV], os.environ[PRECISION_ENV]) == ("cpu", "fp32")


def test_an_unknown_device_is_refused_before_the_body(restore_env: None) -> None:
    seen: list[dict] = []
    r = CliRunner().invoke(_app(seen), ["--device", "nosuch"])
    assert_clean_error(r, "device", "nosuch")
    assert seen == []


def test_a_real_command_refuses_an_unknown_device(tmp_path: Path, restore_env: None) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "1", "text": "x"}\n', encoding="utf-8")
    r = invoke("run", tmp_path / "no-skb", "--queries", queries, "--pipeline", "bm25",
               "--save-run", tmp_path / "run.trec", "--device", "nosuch")
    assert_clean_error(r, "device", "nosuch")


def _raising(exc: BaseException) -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.command()
    @handle_errors
    def cmd(name: str = typer.Option("x", "--name")) -> None:
        raise exc

    return app


@pytest.mark.parametrize(("exc", "code", "needle"), [
    (InputError("bad [red]value[/]", file="f.jsonl", line=3, field="id"), 2, "bad [red]value[/]"),
    (FileNotFoundError("no such file: x.trec"), 2, "no such file: x.trec"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 2,
     "text that is not valid UTF-8 (invalid start byte)"),
    (MemoryError(), 1, "out of memory"),
])
def test_errors_are_one_line_without_a_traceback(exc: BaseException, code: int, needle: str) -> None:
    r = CliRunner().invoke(_raising(exc), [])
    assert r.exit_code == code and isinstance(r.exception, SystemExit), r.output
    assert "Traceback" not in r.output and needle in r.output
    assert len([ln for ln in r.output.splitlines() if "error:" in ln]) == 1


def test_other_exceptions_are_not_swallowed() -> None:
    r = CliRunner().invoke(_raising(RuntimeError("a bug")), [])
    assert r.exit_code == 1 and isinstance(r.exception, RuntimeError)


def test_json_never_holds_nan(capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import math

    import numpy as np

    data = {"a": [1.5, math.nan, {"b": -math.inf}], "c": (np.float32(2.5), 3), "d": Path("x")}
    assert json_safe(data) == {"a": [1.5, None, {"b": None}], "c": [2.5, 3], "d": Path("x")}
    print_json(data)
    assert json.loads(capsys.readouterr().out) == {"a": [1.5, None, {"b": None}], "c": [2.5, 3], "d": "x"}
    assert text("[bold]x[/]").plain == "[bold]x[/]"  # data is shown, never parsed as markup


def test_progress_into_a_pipe_is_throttled_lines(capsys: pytest.CaptureFixture[str]) -> None:
    with stage_progress(min_interval=60.0) as progress:
        for done in range(1, 6):
            progress("indexing (shard 1)", done, 5)
        progress("encoding", 0, 0)
    lines = capsys.readouterr().err.splitlines()
    assert [ln.split("] ", 1)[1] for ln in lines] == ["indexing (shard 1): 1/5",
                                                       "indexing (shard 1): 5/5", "encoding: 0"]
    with stage_progress(disable=True) as quiet:
        quiet("indexing", 1, 2)
    assert capsys.readouterr().err == ""


def test_a_result_goes_to_a_file_or_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from skbsearch.benchmarks.result import BenchmarkResult

    result = BenchmarkResult("demo", {"n": 1}, {"mrr": 0.5})
    assert save_result(result, None) is False and capsys.readouterr().out == ""
    assert save_result(result, tmp_path / "r.json") is False
    assert json.loads((tmp_path / "r.json").read_text())["metrics"] == {"mrr": 0.5}
    assert save_result(result, Path("-")) is True
    assert json.loads(capsys.readouterr().out)["benchmark"] == "demo"

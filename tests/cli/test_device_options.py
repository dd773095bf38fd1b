"""`device_options`: one declaration of --device/--precision, applied before a command's body."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer
from cli_helpers import assert_clean_error, invoke
from typer.main import get_command
from typer.testing import CliRunner

from skbsearch.cli.output import device_options, handle_errors
from skbsearch.core.devices import DEVICE_ENV, PRECISION_ENV


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

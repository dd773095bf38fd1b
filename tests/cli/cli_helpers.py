"""What the CLI tests share: one runner at a wide terminal, and the check of a clean refusal."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from skbsearch.cli import app

runner = CliRunner(env={"COLUMNS": "250"})


def invoke(*args: str | Path):
    """``skb ARGS`` in-process (paths given as ``Path`` are passed as strings)."""
    return runner.invoke(app, [str(a) for a in args])


def assert_clean_error(r, *needles: str) -> str:
    """Exit code 2, no traceback, and an ``error:`` line naming every one of ``needles``."""
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output, r.output
    line = next(ln for ln in r.output.splitlines() if "error:" in ln)
    for n in needles:
        assert n in line, line
    return line

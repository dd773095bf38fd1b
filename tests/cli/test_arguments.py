"""Checks on every command's arguments before its body runs (cli/arguments.py): text that is
not UTF-8 named by option, output files that would clobber an input, two outputs naming one
file, a plot format, and output directories by kind, all before any work."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from cli_helpers import assert_clean_error
from typer.testing import CliRunner

from skbsearch.cli.arguments import (
    artefact_dir_option,
    check_text,
    output_dir_option,
    output_option,
    plot_option,
)
from skbsearch.cli.output import handle_errors
from skbsearch.core.errors import InputError


def _app(ran: list[dict]) -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.command()
    @handle_errors
    def cmd(inputs: list[Path] = typer.Argument(None),
            out: Path | None = typer.Option(None, "--out", callback=output_option),
            log: Path | None = typer.Option(None, "--log-file", callback=output_option),
            plot: Path | None = typer.Option(None, "--plot", callback=plot_option),
            into: Path | None = typer.Option(None, "--into", callback=output_dir_option),
            fit_dir: Path | None = typer.Option(None, "--fit-dir", callback=artefact_dir_option("fit")),
            named: list[str] = typer.Option([], "--run"),
            where: str = typer.Option("", "--where"),
            force: bool = typer.Option(False, "--force")) -> None:
        ran.append({"out": out})

    return app


def _run(*args: str | Path):
    ran: list[dict] = []
    return CliRunner().invoke(_app(ran), [str(a) for a in args]), ran


def test_text_that_is_not_utf8_is_named_by_its_option() -> None:
    r, ran = _run("--where", "name = '\udcff'")
    assert_clean_error(r, "--where", "byte 0xff", "UTF-8")
    assert ran == []  # refused before the body
    r, ran = _run("--where", "a \ud800")
    assert_clean_error(r, "--where", "unpaired surrogate (U+D800)")
    r, ran = _run("--where", "café ☕ \U0001F600")
    assert r.exit_code == 0 and ran == [{"out": None}]
    with pytest.raises(InputError, match="at character 3") as e:
        check_text("ab\udc80", "QUERY")
    assert e.value.field == "QUERY"


def test_an_output_may_not_be_an_input(tmp_path: Path) -> None:
    inp = tmp_path / "queries.jsonl"
    inp.write_text("{}\n")
    r, ran = _run(inp, "--out", inp)
    assert_clean_error(r, "--out", "input")
    assert ran == []
    named = tmp_path / "a.trec"
    named.write_text("q Q0 d 1 1 x\n")
    r, _ = _run("--run", f"base={named}", "--out", named)  # NAME=FILE values are inputs too
    assert_clean_error(r, "--out")
    r, ran = _run(inp, "--out", tmp_path / "new.trec")
    assert r.exit_code == 0 and ran == [{"out": tmp_path / "new.trec"}]


def test_two_outputs_may_not_name_one_file_and_a_plot_needs_a_format(tmp_path: Path) -> None:
    r, _ = _run("--out", tmp_path / "x.txt", "--log-file", tmp_path / "x.txt")
    assert_clean_error(r, "--log-file", "names the same file as --out")
    r, _ = _run("--plot", tmp_path / "chart.docx")
    assert_clean_error(r, "--plot")
    r, ran = _run("--plot", tmp_path / "chart.png", "--out", "-")  # '-' is stdout: never a file
    assert r.exit_code == 0 and len(ran) == 1


def test_output_directories_are_checked_by_kind(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    r, _ = _run("--into", tmp_path / "a-file")
    assert_clean_error(r, "--into", "is a file")
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep")
    r, _ = _run("--fit-dir", mine)
    assert_clean_error(r, "--fit-dir")
    assert (mine / "todo.txt").read_text() == "keep"
    r, ran = _run("--fit-dir", tmp_path / "new-fit", "--into", mine)  # any directory for --into
    assert r.exit_code == 0 and len(ran) == 1

"""``--help`` (cli/help_format.py) wraps to the terminal and never cuts a word with '…'
(issue 32 item 7: option text was cut at 80 columns, e.g. ``skb index --kind``'s
``bm25|dense|multive…``)."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from skbsearch.cli import app


def _commands(cmd, path: tuple[str, ...] = ()):
    yield path, cmd
    if isinstance(getattr(cmd, "commands", None), dict):
        for name, sub in cmd.commands.items():
            if not getattr(sub, "hidden", False):
                yield from _commands(sub, (*path, name))


def _own_ellipses(cmd) -> int:
    """'…' characters the command's own texts hold (not cuts)."""
    texts = [cmd.help or "", cmd.short_help or ""]
    texts += [str(getattr(p, "help", None) or "") + str(p.default) for p in cmd.params]
    texts += [getattr(c, "help", None) or "" for c in (getattr(cmd, "commands", None) or {}).values()]
    return sum(t.count("…") for t in texts)


ROOT = typer.main.get_command(app)
COMMANDS = [(p, c) for p, c in _commands(ROOT)]


@pytest.mark.parametrize("columns", [50, 80])
def test_no_help_text_is_cut(columns):
    runner = CliRunner(env={"COLUMNS": str(columns), "TERMINAL_WIDTH": ""})
    cut = []
    for path, cmd in COMMANDS:
        res = runner.invoke(app, [*path, "--help"])
        assert res.exit_code == 0, (path, res.output)
        if res.output.count("…") > _own_ellipses(cmd):
            cut.append((" ".join(path), [ln for ln in res.output.splitlines() if "…" in ln][:3]))
    assert not cut, cut


def test_long_option_lists_fold_whole_and_help_uses_a_wide_terminal():
    narrow = CliRunner(env={"COLUMNS": "80"}).invoke(app, ["index", "--help"]).output
    # the column's cells, joined, still hold the whole list of kinds
    cells = "".join(re.sub(r"[│╭╮╰╯─]", "", ln).strip().split("  ")[-1].strip()
                    for ln in narrow.splitlines())
    assert "bm25|dense|multivector" in cells
    wide = CliRunner(env={"COLUMNS": "160"}).invoke(app, ["index", "--help"]).output
    assert max(len(ln) for ln in wide.splitlines()) > 100  # wraps to the terminal, not 80
    assert "bm25|dense|multivector" in wide


def test_fold_help_text_is_idempotent_and_folds_columns_of_texts() -> None:
    from rich.columns import Columns
    from rich.text import Text
    from typer import rich_utils

    from skbsearch.cli.help_format import HELP_OVERFLOW, _fold, fold_help_text

    fold_help_text()
    before = {n: getattr(rich_utils, n) for n in ("_make_rich_text", "_get_parameter_help", "highlighter")}
    fold_help_text()  # a second call wraps nothing twice
    assert {n: getattr(rich_utils, n) for n in before} == before
    assert all(getattr(f, "_skb_folds", False) for f in before.values())
    cols = _fold(Columns([Text("a"), Text("b", overflow="ellipsis")]))
    assert [t.overflow for t in cols.renderables] == [HELP_OVERFLOW, HELP_OVERFLOW]
    assert rich_utils.highlighter(Text("--pipeline-cache-mb")).overflow == HELP_OVERFLOW

"""The CLI reference as Markdown, rendered from the typer app itself (so it cannot drift).

The documentation site's hook (``docs/hooks.py``) puts :func:`render_reference` into
``docs/reference/cli.md`` at build time; ``python -m skbsearch.cli.reference`` prints it.
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import typer
from typer.main import get_command

# typer builds its commands on click (a vendored copy in newer typer releases): the code
# below uses only the click API that both share, never ``import click``.
Command = Any
Context = Any


def _plain(text: str) -> str:
    """One line, without rich's markup escapes (``\\[server]`` is ``[server]``)."""
    return " ".join(text.replace("\b", " ").replace("\\[", "[").split())


def _cell(text: str) -> str:
    """Table-cell text: one line, no HTML, ``|`` escaped."""
    return html.escape(_plain(text), quote=False).replace("|", "\\|")


def _code_cell(text: str) -> str:
    """A table cell in a code span (no HTML escapes there), ``|`` escaped."""
    return "`" + _plain(text).replace("|", "\\|") + "`"


def _paragraphs(text: str) -> str:
    """A command's help as Markdown paragraphs (click's ``\\b`` blocks stay as written)."""
    out = []
    for block in text.strip().split("\n\n"):
        if block.lstrip().startswith("\b"):
            lines = block.lstrip().removeprefix("\b").strip("\n")
            out.append("```text\n" + lines + "\n```")
        else:
            out.append(html.escape(_plain(block), quote=False))
    return "\n\n".join(out)


def _params(cmd: Command, ctx: Context) -> list[str]:
    rows = []
    for param in cmd.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        record = param.get_help_record(ctx)
        if record is None:  # an argument typer shows no help for
            name = param.human_readable_name
            record = (name, "")
        names, help_text = record
        rows.append(f"| {_code_cell(names)} | {_cell(help_text) or ' '} |")
    if not rows:
        return []
    return ["| option | description |", "|---|---|", *rows]


def walk(cmd: Command, ctx: Context) -> Iterator[tuple[list[str], Command,
                                                                  Context]]:
    """Every visible command under ``cmd`` (``cmd`` first), with its path of names."""
    yield ctx.command_path.split(), cmd, ctx
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            yield from walk(sub, sub.context_class(sub, info_name=name, parent=ctx))


def _section(path: list[str], cmd: Command, ctx: Context) -> list[str]:
    depth = min(len(path) + 1, 4)
    lines = [f"{'#' * depth} {' '.join(path)}", ""]
    if cmd.help:
        lines += [_paragraphs(cmd.help), ""]
    usage = " ".join([ctx.command_path, *cmd.collect_usage_pieces(ctx)])
    lines += ["```text", usage, "```", ""]
    params = _params(cmd, ctx)
    if params:
        lines += [*params, ""]
    if hasattr(cmd, "list_commands"):
        subs = [(n, cmd.get_command(ctx, n)) for n in cmd.list_commands(ctx)]
        items = [f"- `{' '.join(path)} {n}`: {_cell(s.get_short_help_str(120))}"
                 for n, s in subs if s is not None and not getattr(s, "hidden", False)]
        lines += [*items, ""]
    return lines


def render_reference(app: typer.Typer | None = None) -> str:
    """Markdown for every ``skb`` command: its help, usage and options (as ``--help`` has them)."""
    if app is None:
        from skbsearch.cli import app as skb_app

        app = skb_app
    root = get_command(app)
    ctx = root.context_class(root, info_name="skb")
    lines: list[str] = []
    for path, cmd, sub_ctx in walk(root, ctx):
        lines += _section(path, cmd, sub_ctx)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(render_reference(), end="")

"""Every command's --help names only options and commands that exist (issue 22: a help text
cited 'skb kb build ... --out DIR', which has no --out)."""

from __future__ import annotations

import re

import typer

from skbsearch.cli import app


def _commands(cmd, path: tuple[str, ...] = ()):
    yield path, cmd
    if isinstance(getattr(cmd, "commands", None), dict):  # a group (typer vendors click)
        for name, sub in cmd.commands.items():
            yield from _commands(sub, (*path, name))


def test_help_cites_only_real_kb_build_options():
    root = typer.main.get_command(app)
    build = root.commands["kb"].commands["build"]
    options = {o for p in build.params for o in getattr(p, "opts", [])}
    cited = []
    for path, cmd in _commands(root):
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        for text in texts:
            for m in re.finditer(r"kb build([^')\"]*)", text):
                cited += [(path, o) for o in re.findall(r"--[a-z][a-z-]*", m.group(1))]
    assert cited, "some help text cites 'skb kb build'"
    bad = [(p, o) for p, o in cited if o not in options]
    assert not bad, bad

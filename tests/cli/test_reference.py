"""The CLI reference page is rendered from the typer app: every command and option is in it."""

from __future__ import annotations

from typer.main import get_command

from skbsearch.cli import app
from skbsearch.cli.reference import render_reference, walk


def _commands() -> list[tuple[list[str], object, object]]:
    root = get_command(app)
    return list(walk(root, root.context_class(root, info_name="skb")))


def test_every_command_and_option_is_in_the_reference() -> None:
    text = render_reference()
    commands = _commands()
    assert len(commands) > 20  # the groups and their commands, not just the root
    headings = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}
    for path, cmd, ctx in commands:
        assert " ".join(path) in headings, path
        section = text.split(f" {' '.join(path)}\n", 1)[1].split("\n#", 1)[0]
        for param in cmd.get_params(ctx):
            if getattr(param, "hidden", False):
                continue
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert f"{opt}" in section, (path, opt)
    assert {"skb kb build", "skb bench trecdl", "skb serve", "skb experiment"} <= headings


def test_the_reference_says_what_help_says() -> None:
    """Help text, defaults and choices come from the app (one example of each)."""
    text = render_reference()
    kb_build = text.split("skb kb build\n", 1)[1].split("\n#", 1)[0]
    assert "Build an SKB directory at OUT from SOURCE" in kb_build
    assert "`-f, --format <str>`" in kb_build and "--trust-pickles" in kb_build
    index = text.split("### skb index\n", 1)[1].split("\n#", 1)[0]
    assert "[default: bm25]" in index and "bm25\\|dense\\|multivector" in index
    assert text == render_reference()  # deterministic

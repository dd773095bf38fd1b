"""docs/reference/api.md is readable in the repository: its table names every front-door
name, and every signature it writes is the code's (parameters, defaults, return type)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import skbsearch as skb

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "api.md"


def _rows() -> list[tuple[str, str, str]]:
    """(names cell, signature cell, source cell) of the table."""
    out = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0] != "name":
            out.append((cells[0], cells[1].replace("\\|", "|"), cells[3]))
    return out


def _object(name: str) -> Any:
    obj: Any = skb
    parts = name.removeprefix("skb.").removeprefix("kb.").split(".")
    if name.startswith("kb."):
        parts = ["SKB", *parts]
    for part in parts:
        obj = getattr(obj, part)
    return obj


def _written(fn: Any) -> str:
    """The signature as the table writes it: names, defaults, ``*``/``/``, the return type."""
    sig = inspect.signature(fn)
    parts: list[str] = []
    star = False
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    for i, p in enumerate(params):
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = {p.VAR_POSITIONAL: f"*{p.name}", p.VAR_KEYWORD: f"**{p.name}"}.get(p.kind, p.name)
        star = star or p.kind is p.VAR_POSITIONAL
        if p.default is not p.empty:
            text += f"={p.default!r}"
        parts.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            parts.append("/")
    ret = sig.return_annotation
    return f"({', '.join(parts)})" + (f" -> {ret}" if ret is not sig.empty else "")


def test_every_front_door_name_has_a_row() -> None:
    named = " ".join(cell for cell, _, _ in _rows())
    missing = [n for n in skb.__all__ if n != "__version__" and f"`skb.{n}" not in named]
    assert not missing, f"docs/reference/api.md has no row for {missing}"


def test_every_signature_in_the_table_is_the_codes() -> None:
    checked = 0
    for cell, sig, source in _rows():
        assert (PAGE.parents[2] / source.strip("`")).is_file(), source
        if "->" not in sig:
            continue
        name = cell.strip("`")
        real = _written(_object(name))
        want = sig.strip("`")
        if "..." in want:  # further keyword options elided: the written prefix must match
            assert real.startswith(want.split("...")[0]), (name, real)
        else:
            assert real == want, f"{name}: the table says {want}, the code is {real}"
        checked += 1
    assert checked >= 10

"""The API reference is readable in the repository: docs/reference/api.md's table names every
front-door name and every signature it writes is the code's (parameters, defaults, return
type); the other reference pages' tables (scripts/reference_tables.py) are current."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import skbsearch as skb

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "api.md"
_spec = importlib.util.spec_from_file_location("reference_tables", ROOT / "scripts" / "reference_tables.py")
tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tables)


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
        real = tables.written_signature(_object(name))
        want = sig.strip("`")
        if "..." in want:  # further keyword options elided: the written prefix must match
            assert real.startswith(want.split("...")[0]), (name, real)
        else:
            assert real == want, f"{name}: the table says {want}, the code is {real}"
        checked += 1
    assert checked >= 10


def test_the_reference_tables_are_current() -> None:
    stale = [p.name for p in tables.PAGES if tables.render(p.read_text(encoding="utf-8")) != p.read_text(encoding="utf-8")]
    assert not stale, f"run python scripts/reference_tables.py: {stale} out of date"
    assert "| `evaluate` | function | `(run, qrels, metrics, per_query=False, *," in (ROOT / "docs/reference/eval.md").read_text()

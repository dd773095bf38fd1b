"""Fixtures of the IMPLIRET synthesis tests: a made-up gazetteer (no real place names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

_SYL = ["ka", "lo", "ven", "dra", "mir", "tes", "bor", "un", "zel", "quo", "rin", "sha"]


def _word(i: int, parts: int) -> str:
    w = "".join(_SYL[(i // len(_SYL) ** k + 3 * k) % len(_SYL)] for k in range(parts))
    return w.capitalize()


@pytest.fixture(scope="session")
def gazetteer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A made-up gazetteer: 40 countries, two landmarks each, no real place names."""
    p = tmp_path_factory.mktemp("gaz") / "landmarks.jsonl"
    rows = []
    for c in range(40):
        country = _word(c, 3) + "ia"
        for k in range(2):
            rows.append({"itemQ": f"Q{c}_{k}", "itemLabel": f"{_word(c * 7 + k + 100, 2)}x {('Gallery', 'Arena')[k]}",
                         "countryQ": f"C{c}", "countryLabel": country, "adminEntityQ": f"R{c}",
                         "adminEntityLabel": _word(c + 500, 2) + " Province"})
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p

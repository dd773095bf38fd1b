"""The README's Python blocks run as written (on a generated catalogue in a temp dir)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skbsearch.synth.catalogue import generate_catalogue

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_quick_start_is_at_most_six_lines() -> None:
    first = [ln for ln in _blocks()[0].splitlines() if ln.strip()]
    assert len(first) <= 6, first


def test_readme_python_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    generate_catalogue(800, n_queries=80, seed=0).save(tmp_path / "cat")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = _blocks()
    assert len(blocks) >= 3
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - our own README
    out = capsys.readouterr().out
    assert "hit@1" in out and "mrr" in out
    assert "('p1'," in out  # the graph-aware search finds the Acme jacket

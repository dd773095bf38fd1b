"""Writing the small query and qrels files the dataset reader tests read."""

from __future__ import annotations

from pathlib import Path


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p

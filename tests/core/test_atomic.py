"""Atomic directory and file writes."""

from __future__ import annotations

import pytest

from skbsearch.atomic import atomic_dir, atomic_write_bytes


def test_atomic_dir_replaces_on_success(tmp_path):
    target = tmp_path / "idx"
    with atomic_dir(target) as tmp:
        (tmp / "a").write_text("1")
    assert (target / "a").read_text() == "1"
    with atomic_dir(target) as tmp:
        (tmp / "b").write_text("2")
    assert not (target / "a").exists() and (target / "b").read_text() == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_atomic_dir_failure_keeps_old_and_leaves_nothing(tmp_path):
    target = tmp_path / "idx"
    with atomic_dir(target) as tmp:
        (tmp / "old").write_text("keep")
    with pytest.raises(RuntimeError):
        with atomic_dir(target) as tmp:
            (tmp / "new").write_text("half")
            raise RuntimeError("crash mid-build")
    assert (target / "old").read_text() == "keep"
    assert not (target / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_atomic_dir_no_overwrite(tmp_path):
    (tmp_path / "x").mkdir()
    with pytest.raises(FileExistsError, match="overwrite"):
        with atomic_dir(tmp_path / "x", overwrite=False):
            pass


def test_atomic_write_bytes(tmp_path):
    atomic_write_bytes(tmp_path / "sub" / "f.bin", b"abc")
    assert (tmp_path / "sub" / "f.bin").read_bytes() == b"abc"
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["f.bin"]

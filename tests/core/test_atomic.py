"""Atomic directory and file writes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from skbsearch.core.atomic import (
    artefact_kind,
    atomic_dir,
    atomic_write_bytes,
    check_replaceable,
    foreign_entries,
    recover_dir,
    recover_parent,
)
from skbsearch.core.errors import InputError


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


# ---------------------------------------------------------------------- replace guard


def test_atomic_dir_with_kind_keeps_foreign_dir(tmp_path):
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("keep")
    with pytest.raises(InputError), atomic_dir(docs, kind="skb") as tmp:
        (tmp / "meta.json").write_text("{}")
    assert (docs / "thesis.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mydocs"]


# ---------------------------------------------------------------------- crash litter
def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_recover_dir_restores_previous_version_of_a_dead_writer(tmp_path):
    pid = _dead_pid()
    old = tmp_path / f".idx.old-{pid}-abcd1234"
    old.mkdir()
    (old / "a").write_text("previous")
    tmp = tmp_path / f".idx.tmp-{pid}-k2j3h4g5"
    tmp.mkdir()
    assert recover_dir(tmp_path / "idx") is True
    assert (tmp_path / "idx" / "a").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_recover_dir_leaves_live_writers_and_other_names_alone(tmp_path):
    live = tmp_path / f".idx.old-{os.getpid()}-abcd1234"
    live.mkdir()
    busy = tmp_path / f".idx.tmp-{os.getpid()}-k2j3h4g5"
    busy.mkdir()
    other = tmp_path / f".idx2.tmp-{_dead_pid()}-k2j3h4g5"
    other.mkdir()
    assert recover_dir(tmp_path / "idx") is False
    assert not (tmp_path / "idx").exists()
    assert live.is_dir() and busy.is_dir() and other.is_dir()


def test_atomic_dir_cleans_dead_writers_litter(tmp_path):
    pid = _dead_pid()
    with atomic_dir(tmp_path / "idx") as tmp:
        (tmp / "a").write_text("1")
    (tmp_path / f".idx.tmp-{pid}-k2j3h4g5").mkdir()
    (tmp_path / f".idx.old-{pid}-abcd1234").mkdir()
    with atomic_dir(tmp_path / "idx") as tmp:
        (tmp / "b").write_text("2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_atomic_dir_respects_umask(tmp_path):
    old = os.umask(0o027)
    try:
        with atomic_dir(tmp_path / "idx") as tmp:
            (tmp / "a").write_text("1")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "idx").stat().st_mode) == 0o750


# ---------------------------------------------------------------------- litter of other names
def test_recover_parent_cleans_every_dead_writers_litter_and_keeps_live_ones(tmp_path):
    dead, live = _dead_pid(), os.getpid()
    gone = [tmp_path / f".skb2.tmp-{dead}-k2j3h4g5", tmp_path / f".run.trec.tmp-{dead}-a1b2c3d4"]
    gone[0].mkdir()
    (gone[0] / "nodes.parquet").write_bytes(b"x" * 100)
    gone[1].write_text("half")
    restored = tmp_path / f".idx.old-{dead}-abcd1234"
    restored.mkdir()
    kept = [tmp_path / f".skb3.tmp-{live}-k2j3h4g5", tmp_path / ".notes.tmp",
            tmp_path / "x.tmp-1-a", tmp_path / f".cfg.tmp-{dead}", tmp_path / f".cfg.old-{dead}-a"]
    kept[0].mkdir()
    for p in kept[1:]:
        p.write_text("a user's file")
    assert recover_parent(tmp_path) == 4  # skb2, run.trec, idx and the live skb3
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["idx"] + [p.name for p in kept])


def test_atomic_dir_cleans_the_litter_of_other_names_in_its_directory(tmp_path):
    dead = _dead_pid()
    (tmp_path / f".crashed.tmp-{dead}-k2j3h4g5").mkdir()
    with atomic_dir(tmp_path / "other") as tmp:
        (tmp / "a").write_text("1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other"]


def test_opening_an_skb_or_index_cleans_dead_builds_beside_it(tmp_path):
    from skbsearch.index.sparse import BM25Index
    from skbsearch.kb.store import SKB
    from skbsearch.synth import generate_catalogue

    ds = generate_catalogue(20, seed=0, n_queries=0)
    skb_dir = tmp_path / "skb"
    ds.skb.save(skb_dir)
    index = BM25Index.from_skb(SKB.load(skb_dir))
    index.save(skb_dir / "indexes" / "bm25")
    dead, live = _dead_pid(), os.getpid()
    crashed = tmp_path / f".skb-new.tmp-{dead}-k2j3h4g5"
    crashed.mkdir()
    busy = tmp_path / f".skb-other.tmp-{live}-k2j3h4g5"
    busy.mkdir()
    SKB.load(skb_dir)
    assert not crashed.exists() and busy.is_dir()
    crashed_ix = skb_dir / "indexes" / f".dense.tmp-{dead}-k2j3h4g5"
    crashed_ix.mkdir()
    BM25Index.load(skb_dir / "indexes" / "bm25")
    assert not crashed_ix.exists()


def test_atomic_dir_keep_carries_entries_over_as_links(tmp_path):
    with atomic_dir(tmp_path / "skb") as tmp:
        (tmp / "meta.json").write_text("1")
        (tmp / "indexes" / "bm25").mkdir(parents=True)
        (tmp / "indexes" / "bm25" / "data.npy").write_text("scores")
    before = (tmp_path / "skb" / "indexes" / "bm25" / "data.npy").stat().st_ino
    with atomic_dir(tmp_path / "skb", keep=("indexes", "missing")) as tmp:
        (tmp / "meta.json").write_text("2")
    data = tmp_path / "skb" / "indexes" / "bm25" / "data.npy"
    assert data.read_text() == "scores" and data.stat().st_ino == before
    assert (tmp_path / "skb" / "meta.json").read_text() == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["skb"]


def test_a_fit_output_with_a_users_file_is_not_replaced(tmp_path):
    """'skb fit' replaces its output whole: a file the user added there (notes.md) would be
    deleted by the next fit, so the directory is refused; its own models (<stage>-<i>) are not
    foreign."""
    out = tmp_path / "fit-out"
    with atomic_dir(out, kind="fit") as tmp:
        (tmp / "fit.json").write_text(json.dumps(
            {"artefact": "fit", "metric": "mrr", "folds": 5, "untrained": {}, "fitted": {}, "keep": True}))
        (tmp / "pipeline.txt").write_text("graph\n")
        (tmp / "graph-0").mkdir()
    assert artefact_kind(out) == "fit"
    check_replaceable(out, "fit")
    (out / "notes.md").write_text("mine")
    with pytest.raises(InputError, match="notes.md"):
        check_replaceable(out, "fit")
    assert foreign_entries(out, "fit") == ["notes.md"]

"""Commit points of a changing SKB (``kb.generations``): manifests committed by rename and read
back, the newest one current, damaged or escaping manifests refused, one writer at a time,
garbage collection keeping the two newest generations and what they reference, fresh part
names, and the chained identity of a generation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skbsearch.core.errors import ArtefactError
from skbsearch.kb.generations import (
    BASES_DIR,
    GENERATIONS_DIR,
    KEEP,
    SEGMENTS_DIR,
    Generation,
    chain_hash,
    collect_garbage,
    commit,
    current,
    manifest_numbers,
    newest_generation,
    next_part_name,
    read_generation,
    writer_lock,
)


def _gen(n: int, segments: list[str], base: str = ".") -> Generation:
    return Generation(number=n, base=base, base_hash="b0", content_hash=f"h{n}",
                      segments=[{"name": s, "content_hash": f"c-{s}"} for s in segments],
                      lineage=["b0", *(f"h{i}" for i in range(1, n + 1))])


def _part(root: Path, sub: str, name: str) -> Path:
    (root / sub / name).mkdir(parents=True)
    return root / sub / name


def test_commit_then_read_back_the_newest(tmp_path: Path) -> None:
    assert current(tmp_path) is None and newest_generation(tmp_path) == 0 and manifest_numbers(tmp_path) == []
    (tmp_path / GENERATIONS_DIR).mkdir()
    g1, g2 = _gen(1, ["seg-00000001"]), _gen(2, ["seg-00000001", "seg-00000002"])
    commit(tmp_path, g1, "update", 1)
    commit(tmp_path, g2, "update", 1)
    (tmp_path / GENERATIONS_DIR / "gen-x.json").write_text("{}")  # not a manifest name: ignored
    assert manifest_numbers(tmp_path) == [1, 2] and newest_generation(tmp_path) == 2
    assert current(tmp_path) == g2 and read_generation(tmp_path, 1) == g1
    d = json.loads((tmp_path / GENERATIONS_DIR / "gen-00000002.json").read_text())
    assert d["artefact"] == "skb-generation" and d == g2.to_dict()
    with pytest.raises(ArtefactError, match="another writer committed generation 2"):
        commit(tmp_path, g2, "update", 1)


@pytest.mark.parametrize(("manifest", "says"), [
    ("{oops", "corrupt generation manifest"), ('{"number": 1}', "corrupt generation manifest"),
    (None, "names parts outside"), ("escape-base", "names parts outside"), ("escape-seg", "names parts outside")])
def test_damaged_or_escaping_manifests_are_refused(tmp_path: Path, manifest: str | None, says: str) -> None:
    (tmp_path / GENERATIONS_DIR).mkdir()
    d = _gen(1, ["seg-00000001"]).to_dict()
    if manifest is None:
        d["number"] = 7  # its file says generation 1
    elif manifest == "escape-base":
        d["base"] = "../elsewhere"
    elif manifest == "escape-seg":
        d["segments"][0]["name"] = "../../etc"
    text = manifest if manifest is not None and manifest.startswith("{") else json.dumps(d)
    (tmp_path / GENERATIONS_DIR / "gen-00000001.json").write_text(text)
    with pytest.raises(ArtefactError, match=says):
        read_generation(tmp_path, 1)


def test_chain_hash_is_the_identity_of_the_sequence() -> None:
    a = chain_hash("base", "s1")
    assert a == chain_hash("base", "s1") and len(a) == 32
    assert chain_hash(a, "s2") != chain_hash(chain_hash("base", "s2"), "s1")  # order counts
    assert chain_hash("base", "s1") != chain_hash("base", "s2")


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    with writer_lock(tmp_path) as got:
        assert got
        with writer_lock(tmp_path, blocking=False) as second:
            assert second is False  # held: a non-blocking writer is told, not blocked
    with writer_lock(tmp_path, blocking=False) as again:
        assert again
    assert list(tmp_path.iterdir()) == []  # locking creates nothing


def test_garbage_collection_keeps_the_newest_generations_and_their_parts(tmp_path: Path) -> None:
    assert collect_garbage(tmp_path) == []  # never updated: nothing to do
    (tmp_path / GENERATIONS_DIR).mkdir()
    (tmp_path / "nodes.parquet").write_bytes(b"base")
    for s in ("seg-00000001", "seg-00000002", "seg-00000003", "seg-00000009"):
        _part(tmp_path, SEGMENTS_DIR, s)
    _part(tmp_path, BASES_DIR, "base-00000003")
    litter = _part(tmp_path, SEGMENTS_DIR, ".tmp-dead-writer")
    commit(tmp_path, _gen(1, ["seg-00000001"]), "update", 1)
    commit(tmp_path, _gen(2, ["seg-00000001", "seg-00000002"]), "update", 1)
    commit(tmp_path, _gen(3, ["seg-00000003"], base=f"{BASES_DIR}/base-00000003"), "compact", 1)
    with writer_lock(tmp_path):  # a writer is busy: nothing is collected
        assert collect_garbage(tmp_path) == []
    removed = {p.relative_to(tmp_path).as_posix() for p in collect_garbage(tmp_path)}
    assert KEEP == 2 and manifest_numbers(tmp_path) == [2, 3]
    assert removed == {f"{GENERATIONS_DIR}/gen-00000001.json", f"{SEGMENTS_DIR}/seg-00000009",
                       f"{SEGMENTS_DIR}/.tmp-dead-writer"}
    assert not litter.exists() and (tmp_path / SEGMENTS_DIR / "seg-00000001").is_dir()
    assert (tmp_path / "nodes.parquet").exists()  # generation 2 still reads the base files
    commit(tmp_path, _gen(4, ["seg-00000003"], base=f"{BASES_DIR}/base-00000003"), "update", 1)
    removed = {p.name for p in collect_garbage(tmp_path)}
    assert {"nodes.parquet", "seg-00000001", "seg-00000002", "gen-00000002.json"} <= removed
    assert not (tmp_path / "nodes.parquet").exists()


def test_next_part_name_is_past_every_name_in_use(tmp_path: Path) -> None:
    assert next_part_name(tmp_path, "seg") == "seg-00000001"
    _part(tmp_path, SEGMENTS_DIR, "seg-00000004")
    (tmp_path / GENERATIONS_DIR).mkdir()
    commit(tmp_path, _gen(6, []), "update", 1)
    assert next_part_name(tmp_path, "seg") == "seg-00000007"  # past the generation numbers too
    _part(tmp_path, BASES_DIR, "base-00000011")
    assert next_part_name(tmp_path, "base") == "base-00000012"

"""Ids are data (issue 31, items 3 and 7): a file of ids to delete is split at ``\\n`` only and
nothing is trimmed (``" q1"`` is not ``q1``; ``"p5\\rp6"`` is one id), a ``\\r\\n`` file is
refused naming the line, and an id that does not exist is reported — through the CLI, the
Python API and ``POST /admin/update``'s ``delete_nodes``. A KG names file giving one id twice
is an error naming the line; a directory or FIFO given as an input file says what it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from live_data import build
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.kb import SKB
from skbsearch.kb.loaders import load_jsonl, load_kg
from skbsearch.kb.update import read_ids, update

NODES = [{"id": i, "type": "product", "name": f"item {i}"} for i in ("q1", " q1", "p5", "p6", "p5\rp6")]


@pytest.fixture
def skb_dir(tmp_path: Path) -> Path:
    out = tmp_path / "skb"
    build(tmp_path / "src", NODES, [], out)
    return out


def _ids(skb_dir: Path) -> list[str]:
    return sorted(SKB.load(skb_dir).ids)


def test_read_ids_splits_at_newline_only_and_trims_nothing(tmp_path: Path) -> None:
    f = tmp_path / "ids.txt"
    f.write_bytes(b" q1\np5\rp6\n\nq1 \nlast")
    assert read_ids(f) == [(" q1", 1), ("p5\rp6", 2), ("q1 ", 4), ("last", 5)]


def test_a_crlf_file_is_refused_naming_the_line(tmp_path: Path) -> None:
    f = tmp_path / "ids.txt"
    f.write_bytes(b"q1\np5\r\n")
    with pytest.raises(InputError) as err:
        read_ids(f)
    assert (err.value.file, err.value.line) == (str(f), 2) and "carriage return" in err.value.reason


def test_deleting_a_spaced_id_deletes_that_node_only(skb_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "del.txt"
    f.write_bytes(b" q1\np5\rp6\n")
    update(skb_dir, delete_nodes=f)
    assert _ids(skb_dir) == sorted(["q1", "p5", "p6"])


def test_an_id_that_does_not_exist_is_reported(skb_dir: Path, tmp_path: Path) -> None:
    f = tmp_path / "del.txt"
    f.write_bytes(b"q1\nq1 \n")
    r = CliRunner().invoke(app, ["kb", "update", str(skb_dir), "--delete-nodes", str(f)])
    assert r.exit_code == 2 and "no node with id 'q1 ' to delete" in r.output and f"{f}:2" in r.output
    assert _ids(skb_dir) == sorted(n["id"] for n in NODES)


def test_http_delete_nodes_are_exact(skb_dir: Path) -> None:
    pytest.importorskip("fastapi")
    from skbsearch.server.admin import apply_update

    with pytest.raises(InputError) as err:
        apply_update(skb_dir, {"delete_nodes": ["q1", "p6\r"]})
    assert "delete_nodes[1]" in str(err.value) and "carriage return" in str(err.value)
    with pytest.raises(InputError) as err:
        apply_update(skb_dir, {"delete_nodes": [""]})
    assert "delete_nodes[0]" in str(err.value)
    assert _ids(skb_dir) == sorted(n["id"] for n in NODES)
    apply_update(skb_dir, {"delete_nodes": [" q1", "p5\rp6"]})
    assert _ids(skb_dir) == sorted(["q1", "p5", "p6"])


# ------------------------------------------------------------------ item 7
def _kg(d: Path, names: str) -> Path:
    d.mkdir()
    (d / "train.tsv").write_text("/m/a\tr\t/m/b\n/m/b\tr\t/m/c\n")
    (d / "valid.tsv").write_text("")
    (d / "test.tsv").write_text("")
    (d / "entity2text.txt").write_text(names)
    return d


def test_a_duplicate_id_in_a_names_file_is_an_error(tmp_path: Path) -> None:
    src = _kg(tmp_path / "kg", "/m/a\tAda\n/m/b\tBob\n\n/m/a\tAlice\n")
    with pytest.raises(InputError) as err:
        load_kg(src)
    e = err.value
    assert (e.file, e.line, e.field) == (str(src / "entity2text.txt"), 4, "id")
    assert "'/m/a'" in e.reason and "first at line 1" in e.reason


def test_a_duplicate_id_in_a_json_names_file_is_an_error(tmp_path: Path) -> None:
    src = _kg(tmp_path / "kg", "")
    (src / "entity2text.txt").unlink()
    (src / "entities.json").write_text('{"/m/a": {"label": "Ada"}, "/m/b": "Bob", "/m/a": "Alice"}')
    with pytest.raises(InputError) as err:
        load_kg(src)
    assert (err.value.file, err.value.field) == (str(src / "entities.json"), "/m/a")


def test_unique_names_still_load(tmp_path: Path) -> None:
    skb = load_kg(_kg(tmp_path / "kg", "/m/a\tAda\n/m/b\tBob\n"))
    assert [skb.node(i).name for i in range(2)] == ["Ada", "Bob"]


def test_a_directory_or_fifo_is_not_reported_as_not_found(skb_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(InputError) as err:
        load_jsonl(nodes=tmp_path / "dir.jsonl")
    assert "is a directory" in err.value.reason and "not found" not in err.value.reason
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as err:  # never opened: that would block
        load_jsonl(nodes=fifo)
    assert "is a FIFO" in err.value.reason
    r = CliRunner().invoke(app, ["kb", "build", str(fifo), str(tmp_path / "out.skb")])
    assert r.exit_code == 2 and "is a FIFO" in r.output
    with pytest.raises(InputError) as err:
        load_jsonl(nodes=tmp_path / "missing.jsonl")
    assert "not found" in err.value.reason
    r = CliRunner().invoke(app, ["kb", "update", str(skb_dir), "--delete-nodes", str(tmp_path / "dir.jsonl")])
    assert r.exit_code == 2 and "is a directory" in r.output

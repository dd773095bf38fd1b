"""skbsearch.core.outfile: output files are checked (no input, no directory, nothing inside an
artefact) and written whole (temp + rename)."""

from __future__ import annotations

import json
import os

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.outfile import check_output_file, output_file, write_output
from skbsearch.core.types import Run


def test_a_failed_write_leaves_the_previous_file_and_no_temp(tmp_path):
    out = tmp_path / "run.trec"
    out.write_text("previous\n")
    with pytest.raises(RuntimeError), output_file(out) as tmp:
        tmp.write_text("half a ru")
        raise RuntimeError("killed mid-write")
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.trec"]


def test_a_failed_first_write_leaves_no_file(tmp_path):
    with pytest.raises(RuntimeError), output_file(tmp_path / "new.csv") as tmp:
        tmp.write_text("a,b")
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_write_output_through_a_symlink_keeps_the_link(tmp_path):
    (tmp_path / "runs").mkdir()
    target = tmp_path / "runs" / "v1.trec"
    target.write_text("old")
    link = tmp_path / "latest.trec"
    link.symlink_to(target)
    write_output(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_check_output_file_refusals(tmp_path):
    inp = tmp_path / "qrels.trec"
    inp.write_text("q 0 d 1\n")
    with pytest.raises(InputError, match="input"):
        check_output_file(tmp_path / "." / "qrels.trec", inputs=[None, inp])
    os.link(inp, tmp_path / "hard.trec")
    with pytest.raises(InputError, match="input"):
        check_output_file(tmp_path / "hard.trec", inputs=[inp])
    with pytest.raises(InputError, match="is a directory"):
        check_output_file(tmp_path)
    idx = tmp_path / "ix"
    idx.mkdir()
    (idx / "manifest.json").write_text(json.dumps({"artefact": "index"}))
    with pytest.raises(InputError, match="inside an index directory"):
        check_output_file(idx / "sub" / "out.csv")
    assert check_output_file(tmp_path / "other.trec", inputs=[inp]) == (tmp_path / "other.trec").resolve()


def test_library_writers_refuse_artefact_files(tmp_path):
    skb = tmp_path / "skb"
    skb.mkdir()
    meta = {"artefact": "skb", "format_version": 1, "schema": {}}
    (skb / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="inside an SKB directory"):
        Run({"q": {"d": 1.0}}).to_trec(skb / "meta.json")
    assert json.loads((skb / "meta.json").read_text()) == meta

"""One output check for every command that writes a directory (issue 31, item 6):
``fit``, ``kb build``, ``index --out``, ``synth`` and ``train`` refuse, with one line and
before any work, an output inside an SKB or index, equal to an input, a file, or a
non-empty directory that is not their own artefact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke

from skbsearch.core.errors import InputError
from skbsearch.core.outfile import check_output_dir

NODES = [{"id": f"p{i}", "type": "product", "name": f"jacket {i}", "description": f"warm coat {i}"}
         for i in range(8)]


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("dirs")
    (d / "nodes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in NODES))
    assert invoke("kb", "build", d / "nodes.jsonl", d / "shop.skb", "-q").exit_code == 0
    assert invoke("index", d / "shop.skb", "-q").exit_code == 0
    assert invoke("kb", "build", d / "nodes.jsonl", d / "other.skb", "-q").exit_code == 0
    (d / "queries.jsonl").write_text('{"id": "q1", "text": "jacket 1"}\n{"id": "q2", "text": "coat 2"}\n'
                                     '{"id": "q3", "text": "jacket 3"}\n{"id": "q4", "text": "coat 4"}\n')
    (d / "qrels.trec").write_text("q1 0 p1 1\nq2 0 p2 1\nq3 0 p3 1\nq4 0 p4 1\n")
    return d


def _snapshot(d: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in sorted(d.rglob("*"))}


def test_kb_build_into_an_index_of_another_skb_is_refused(shop: Path) -> None:
    before = _snapshot(shop / "shop.skb")
    r = invoke("kb", "build", shop / "nodes.jsonl", shop / "shop.skb" / "indexes" / "bm25" / "x", "-q")
    assert_clean_error(r, "OUT", "lies inside")
    assert _snapshot(shop / "shop.skb") == before
    r = invoke("kb", "build", shop / "nodes.jsonl", shop / "shop.skb" / "sub", "-q")
    assert_clean_error(r, "lies inside an SKB")


def test_index_out_inside_another_artefact_is_refused(shop: Path) -> None:
    r = invoke("index", shop / "shop.skb", "--out", shop / "other.skb" / "indexes" / "bm25" / "sub", "-q")
    assert_clean_error(r, "--out", "lies inside")
    r = invoke("index", shop / "shop.skb", "--out", shop / "other.skb" / "indexes" / "bm25", "-q")
    assert_clean_error(r, "--out", "lies inside an SKB")  # another SKB's slot: refused too
    assert not (shop / "other.skb" / "indexes" / "bm25").exists()


def test_index_into_its_own_skb_slot_is_allowed(shop: Path) -> None:
    r = invoke("index", shop / "shop.skb", "--out", shop / "shop.skb" / "indexes" / "bm25-b", "-q")
    assert r.exit_code == 0, r.output


def test_index_over_an_existing_index_needs_force(shop: Path) -> None:
    assert_clean_error(invoke("index", shop / "shop.skb", "-q"), "--force")


def test_fit_out_equal_to_the_skb_or_a_file_is_refused_before_work(shop: Path) -> None:
    before = _snapshot(shop / "shop.skb")
    base = ["fit", shop / "shop.skb", "-p", "bm25 + graph", "--queries", shop / "queries.jsonl",
            "--qrels", shop / "qrels.trec", "--folds", "2", "-q"]
    assert_clean_error(invoke(*base, "--out", shop / "shop.skb"), "--out", "input")
    assert _snapshot(shop / "shop.skb") == before
    (shop / "notes.txt").write_text("mine\n")
    assert_clean_error(invoke(*base, "--out", shop / "notes.txt"), "--out", "is a file")
    assert (shop / "notes.txt").read_text() == "mine\n"


def test_fit_into_a_user_directory_is_refused_and_its_own_output_replaced_whole(shop: Path, tmp_path: Path) -> None:
    user = tmp_path / "mine"
    user.mkdir()
    (user / "pipeline.txt").write_text("stale\n")
    base = ["fit", shop / "shop.skb", "-p", "bm25 + graph", "--queries", shop / "queries.jsonl",
            "--qrels", shop / "qrels.trec", "--folds", "2", "--json"]
    assert_clean_error(invoke(*base, "--out", user), "--out", "not a skbsearch artefact")
    assert (user / "pipeline.txt").read_text() == "stale\n"
    out = tmp_path / "fit"
    r = invoke(*base, "--out", out)
    assert r.exit_code == 0, r.output
    assert json.loads((out / "fit.json").read_text())["artefact"] == "fit"
    (out / "pipeline.txt").write_text("from an earlier fit\n")  # a kept fit's spec, then a new run
    r = invoke(*base, "--out", out)
    assert r.exit_code == 0, r.output
    kept = json.loads((out / "fit.json").read_text())["keep"]
    assert (out / "pipeline.txt").exists() == kept
    if kept:
        assert (out / "pipeline.txt").read_text() != "from an earlier fit\n"


def test_synth_catalogue_refuses_a_user_directory_and_an_artefact_inside(shop: Path, tmp_path: Path) -> None:
    user = tmp_path / "mine"
    user.mkdir()
    (user / "x.txt").write_text("x")
    assert_clean_error(invoke("synth", "catalogue", user, "-n", "20", "--queries", "2", "-q"), "not a skbsearch artefact")
    assert_clean_error(invoke("synth", "catalogue", shop / "shop.skb" / "cat", "-n", "20", "-q"), "lies inside")


def test_check_output_dir_is_the_one_rule(shop: Path, tmp_path: Path) -> None:
    skb = shop / "shop.skb"
    for path, kw, needle in [
        (skb, {"inputs": [skb], "kind": "skb"}, "is the input"),
        (shop, {"inputs": [skb], "kind": "skb"}, "contains the input"),
        (skb / "indexes" / "bm25" / "x", {"kind": "skb"}, "lies inside an index"),
        (skb / "indexes" / "bm25", {"inputs": [shop / "other.skb"], "kind": "index"}, "lies inside an SKB"),
        (skb, {"kind": "index"}, "holds an SKB"),
        (skb, {"kind": "skb", "force": False}, "pass --force"),
    ]:
        with pytest.raises(InputError) as err:
            check_output_dir(path, **kw)
        assert needle in str(err.value), (path, kw, str(err.value))
    check_output_dir(skb / "indexes" / "bm25", inputs=[skb], kind="index", force=True)
    check_output_dir(tmp_path / "new", kind="skb", force=False)
    (tmp_path / "empty").mkdir()
    check_output_dir(tmp_path / "empty", kind="fit", force=False)

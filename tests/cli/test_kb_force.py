"""`skb kb build --force` replaces only our own artefact: an SKB directory holding a user's
files is refused (naming them, nothing changed); its `indexes/` survive a rebuild, and an
index of the previous content is named with the command that rebuilds it."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import invoke


def write_nodes(path: Path, names: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": f"n{i}", "type": "item", "name": nm}) + "\n"
                            for i, nm in enumerate(names)))
    return path


def build(tmp_path: Path) -> tuple[Path, Path]:
    src = write_nodes(tmp_path / "nodes.jsonl", ["red jacket", "blue mug", "green tent"])
    out = tmp_path / "skb"
    assert invoke("kb", "build", src, out, "-q").exit_code == 0
    assert invoke("index", out, "-q").exit_code == 0
    return src, out


def test_force_refuses_an_skb_holding_user_files(tmp_path):
    src, out = build(tmp_path)
    (out / "notes.txt").write_text("mine")
    (out / "runs").mkdir()
    before = sorted(p.name for p in out.iterdir())
    r = invoke("kb", "build", src, out, "--force", "-q")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    line = next(ln for ln in r.output.splitlines() if "error:" in ln)
    assert "notes.txt" in line and "runs" in line and "nothing was changed" in r.output
    assert sorted(p.name for p in out.iterdir()) == before
    assert (out / "notes.txt").read_text() == "mine"


def test_force_keeps_the_indexes(tmp_path):
    src, out = build(tmp_path)
    r = invoke("kb", "build", src, out, "--force", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["indexes_kept"] == {"bm25": "current"}
    r = invoke("search", out, "jacket")
    assert r.exit_code == 0 and "red jacket" in r.output, r.output


def test_force_with_new_content_names_stale_indexes(tmp_path):
    src, out = build(tmp_path)
    write_nodes(src, ["red jacket", "blue mug", "green tent", "yellow kayak"])
    r = invoke("kb", "build", src, out, "--force")
    assert r.exit_code == 0, r.output
    assert "note: kept" in r.output and f"skb index {out} --kind bm25" in r.output, r.output
    assert (out / "indexes" / "bm25" / "manifest.json").is_file()
    r = invoke("search", out, "kayak")  # the stale index is refused, with the same command
    assert r.exit_code == 2 and "skb index" in r.output and "--force" in r.output, r.output
    assert invoke("index", out, "--force", "-q").exit_code == 0
    r = invoke("search", out, "kayak")
    assert r.exit_code == 0 and "yellow kayak" in r.output, r.output


def test_force_help_says_what_is_kept():
    r = invoke("kb", "build", "--help")
    text = " ".join(r.output.split())
    assert "indexes/ is kept" in text or "indexes/ is" in text, text

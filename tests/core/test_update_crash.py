"""``skb kb update`` and ``skb kb compact`` killed (SIGKILL) at every step (issue 25).

A subprocess runs the command with ``SKB_TEST_CRASH_STEP=OP:N`` (a step of the update or
compaction: before the segment/base is written, after it, before the commit, after it, after
the clean-up) or ``SKB_TEST_CRASH_AT`` (inside the atomic writes of a segment, a base or an
index). The last committed generation must then answer searches exactly (the one before the
command, or the new one when the kill came after the commit), the next open must leave no
temp files or unreferenced parts, and the next update must work.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.atomic import CRASH_ENV
from skbsearch.kb import SKB
from skbsearch.kb.generations import (
    CRASH_STEP_ENV,
    KEEP,
    current,
    manifest_numbers,
    read_generation,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kb"))
from live_data import apply, build, write_jsonl  # noqa: E402

runner = CliRunner(env={"COLUMNS": "200"})
CLI = "import sys; from skbsearch.cli import main; sys.argv[0] = 'skb'; main()"
NODES = [{"id": "m1", "type": "movie", "name": "Kismet", "plot": "A beggar becomes a king.", "year": 1944},
         {"id": "m2", "type": "movie", "name": "Juarez", "plot": "A king of Mexico.", "year": 1939},
         {"id": "p1", "type": "person", "name": "William Dieterle"}]
EDGES = [{"source": "m1", "relation": "directed_by", "target": "p1"},
         {"source": "m2", "relation": "directed_by", "target": "p1"}]
UPSERT = [{"id": "m1", "type": "movie", "name": "Kismet", "plot": "A poet becomes a king.", "year": 1955},
          {"id": "m3", "type": "movie", "name": "The King", "plot": "A king and his court.", "year": 2019}]
ADD = [{"source": "m3", "relation": "directed_by", "target": "p1"}]


def _ok(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def _killed(env_name: str, value: str, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in (CRASH_ENV, CRASH_STEP_ENV)} | {env_name: value}
    proc = subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _answers(skb_dir: Path) -> list[list]:
    out = []
    for spec in ("bm25", "bm25(where='year < 1950')"):
        res = json.loads(_ok("search", str(skb_dir), "a king", "-p", spec, "-k", "10", "--json"))
        out.append(sorted((r["id"], round(r["score"], 6)) for r in res["results"]))
    return out


def _litter(root: Path) -> list[str]:
    """Temp files anywhere, and parts that no kept generation (the newest two) references."""
    hidden = [str(p.relative_to(root)) for p in root.rglob(".*") if p.name != ".lock"]
    kept = [read_generation(root, n) for n in manifest_numbers(root)]
    assert len(kept) <= KEEP
    refs = {s["name"] for g in kept for s in g.segments} | {g.base.rpartition("/")[2] for g in kept}
    stray = [p.name for sub in ("segments", "bases") for p in (root / sub).glob("*-*") if p.name not in refs]
    return sorted(hidden + stray)


@pytest.fixture
def world(tmp_path: Path) -> dict:
    """An SKB with a bm25 index, the update's files, and the answers before and after."""
    skb_dir = tmp_path / "skb"
    build(tmp_path / "src", NODES, EDGES, skb_dir)
    _ok("index", str(skb_dir), "-q")
    files = {"--nodes": write_jsonl(tmp_path / "up.jsonl", UPSERT), "--edges": write_jsonl(tmp_path / "e.jsonl", ADD)}
    (tmp_path / "del.txt").write_text("m2\n", encoding="utf-8")
    files["--delete-nodes"] = tmp_path / "del.txt"
    nodes, edges = apply(NODES, EDGES, upsert=UPSERT, add_edges=ADD, delete_nodes=["m2"])
    ref = tmp_path / "ref"
    build(tmp_path / "final", nodes, edges, ref)
    _ok("index", str(ref), "-q")
    args = [x for k, v in files.items() for x in (k, str(v))]
    return {"dir": skb_dir, "args": args, "before": _answers(skb_dir), "after": _answers(ref)}


@pytest.mark.parametrize("crash", [(CRASH_STEP_ENV, f"update:{n}") for n in range(1, 6)]
                         + [(CRASH_ENV, "written:seg-00000001")])
def test_update_killed(world: dict, crash: tuple[str, str]) -> None:
    skb_dir = world["dir"]
    _killed(*crash, "kb", "update", str(skb_dir), *world["args"], "-q")
    committed = crash[1] in ("update:4", "update:5")
    assert _answers(skb_dir) == world["after" if committed else "before"]
    SKB.load(skb_dir)  # the next open cleans up
    assert _litter(skb_dir) == []
    if not committed:
        _ok("kb", "update", str(skb_dir), *world["args"], "-q")
        assert _answers(skb_dir) == world["after"] and _litter(skb_dir) == []


@pytest.mark.parametrize("crash", [(CRASH_STEP_ENV, f"compact:{n}") for n in range(1, 6)]
                         + [(CRASH_ENV, "written:base-00000002"), (CRASH_ENV, "between-renames:bm25"),
                            (CRASH_ENV, "written:bm25")])
def test_compact_killed(world: dict, crash: tuple[str, str]) -> None:
    skb_dir = world["dir"]
    _ok("kb", "update", str(skb_dir), *world["args"], "-q")
    _killed(*crash, "kb", "compact", str(skb_dir), "-q")
    assert _answers(skb_dir) == world["after"]  # the same data, whichever generation committed
    SKB.load(skb_dir)
    assert _litter(skb_dir) == []
    _ok("kb", "compact", str(skb_dir), "-q")
    assert current(skb_dir).segments == [] and _answers(skb_dir) == world["after"]
    assert _litter(skb_dir) == []

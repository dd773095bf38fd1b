"""Builds killed (SIGKILL) at every step of the directory swap leave a usable SKB and index.

A subprocess runs ``skb kb build`` or ``skb index`` with ``SKB_TEST_CRASH_AT`` set, so
:func:`skbsearch.core.atomic.atomic_dir` kills itself at that point; the previous version must
then open and search (restored from ``.NAME.old-*`` when the kill fell between the two
renames), and the next build must leave no ``.NAME.tmp-*``/``.NAME.old-*`` litter.
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
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB

runner = CliRunner(env={"COLUMNS": "200"})
CLI = "import sys; from skbsearch.cli import main; sys.argv[0] = 'skb'; main()"

NODES = [
    {"id": "m1", "type": "movie", "name": "Kismet", "plot": "A beggar becomes a king."},
    {"id": "p1", "type": "person", "name": "William Dieterle"},
]
EDGES = [{"source": "m1", "relation": "directed_by", "target": "p1"}]


def _write(src: Path, nodes: list[dict]) -> None:
    src.mkdir(exist_ok=True)
    (src / "nodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in nodes), encoding="utf-8")
    (src / "edges.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EDGES), encoding="utf-8")


def _ok(*args: str) -> None:
    res = runner.invoke(app, list(args))
    assert res.exit_code == 0, res.output


def _killed(crash: str, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != CRASH_ENV} | {CRASH_ENV: crash}
    proc = subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _litter(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*"))


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """(source dir, SKB dir with a bm25 index inside), 2 nodes."""
    src, skb_dir = tmp_path / "src", tmp_path / "skb"
    _write(src, NODES)
    _ok("kb", "build", str(src), str(skb_dir), "-q")
    _ok("index", str(skb_dir), "-q")
    _write(src, [*NODES, {"id": "p2", "type": "person", "name": "Ronald Colman"}])  # version 2
    return src, skb_dir


def _searches(skb_dir: Path) -> None:
    res = runner.invoke(app, ["search", str(skb_dir), "king", "--json"])
    assert res.exit_code == 0, res.output
    assert [r["id"] for r in json.loads(res.stdout)["results"]][:1] == ["m1"]


@pytest.mark.parametrize("point", ["written:graph", "written:skb", "between-renames:skb", "renamed:skb"])
def test_skb_build_killed(world: tuple[Path, Path], point: str) -> None:
    src, skb_dir = world
    _killed(point, "kb", "build", str(src), str(skb_dir), "--force", "-q")
    root = skb_dir.parent
    if point.startswith("between"):
        assert not skb_dir.exists() and any(n.startswith(".skb.old-") for n in _litter(root))
    assert _litter(root)  # the killed build left something behind
    if point.startswith("renamed"):
        assert SKB.load(skb_dir).num_nodes == 3  # the new version was already in place
    else:
        assert SKB.load(skb_dir).num_nodes == 2  # the previous version, with its index
        _searches(skb_dir)
    _ok("kb", "build", str(src), str(skb_dir), "--force", "-q")
    _ok("index", str(skb_dir), "--force", "-q")
    assert _litter(root) == []
    assert SKB.load(skb_dir).num_nodes == 3
    _searches(skb_dir)


@pytest.mark.parametrize("point", ["written:bm25", "between-renames:bm25", "renamed:bm25"])
def test_index_build_killed(world: tuple[Path, Path], point: str) -> None:
    _, skb_dir = world
    idx = skb_dir / "indexes" / "bm25"
    _killed(point, "index", str(skb_dir), "--force", "--k1", "1.2", "-q")
    if point.startswith("between"):
        assert not idx.exists()
    assert _litter(skb_dir)
    _searches(skb_dir)  # restores the previous index when the kill fell between the renames
    assert BM25Index.load(idx).params["k1"] == (1.2 if point.startswith("renamed") else 1.5)
    _ok("index", str(skb_dir), "--force", "-q")
    assert _litter(skb_dir.parent) == []

"""Two builds of the same input are byte-identical apart from the documented timestamps.

The only timestamp is ``created`` in index manifests (``skbsearch.index.base``); with
``$SOURCE_DATE_EPOCH`` set it is that instant, so the builds are identical byte for byte.
Builds run in subprocesses with different ``PYTHONHASHSEED`` so set/dict order shows up.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

CLI = "import sys; from skbsearch.cli import main; sys.argv[0] = 'skb'; main()"
WORDS = ("red blue green apple pear plum river stone cloud night sun moon quick slow old new "
         "bright dark small large sweet sour").split()


def _skb(args: list[str], seed: int, epoch: str | None = None) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("SOURCE_DATE_EPOCH", "SKB_TEST_CRASH_AT")}
    env["PYTHONHASHSEED"] = str(seed)
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = epoch
    proc = subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def _source(d: Path) -> Path:
    rng = random.Random(7)
    d.mkdir()
    nodes = [{"id": f"n{i}", "type": rng.choice(["fruit", "place", "thing"]),
              "name": " ".join(rng.sample(WORDS, 2)), "text": " ".join(rng.choices(WORDS, k=12)),
              "score": rng.randint(0, 9)} for i in range(40)]
    edges = [{"source": f"n{rng.randrange(40)}", "relation": rng.choice(["near", "likes", "has"]),
              "target": f"n{rng.randrange(40)}"} for _ in range(80)]
    (d / "nodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in nodes), encoding="utf-8")
    (d / "edges.jsonl").write_text("".join(json.dumps(r) + "\n" for r in edges), encoding="utf-8")
    return d


def _build(src: Path, out: Path, seed: int, epoch: str | None = None) -> dict[str, bytes]:
    """Build SKB + two bm25 indexes at ``out`` (replacing it) and return every file's bytes."""
    _skb(["kb", "build", str(src), str(out), "--force", "-q"], seed, epoch)
    _skb(["index", str(out), "-q"], seed + 10, epoch)
    _skb(["index", str(out), "--fields", "name,text", "--field-weights", "name=2", "--add-rel",
          "--out", str(out / "indexes" / "fields"), "-q"], seed + 20, epoch)
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    shutil.rmtree(out / "indexes")  # the next build starts from the same state
    return files


def _without_created(data: bytes) -> dict:
    d = json.loads(data)
    assert d.pop("created")
    return d


def test_two_builds_are_identical_but_for_documented_timestamps(tmp_path: Path) -> None:
    src, out = _source(tmp_path / "src"), tmp_path / "skb"
    first = _build(src, out, seed=1)
    second = _build(src, out, seed=2, epoch="1700000000")
    assert sorted(first) == sorted(second)
    assert "meta.json" in first and "indexes/fields/manifest.json" in first
    for name in first:
        if name.endswith("manifest.json"):
            assert _without_created(first[name]) == _without_created(second[name]), name
        else:
            assert first[name] == second[name], name
    # with $SOURCE_DATE_EPOCH the manifests' `created` is that instant: identical bytes
    assert json.loads(second["indexes/fields/manifest.json"])["created"] == "2023-11-14T22:13:20+00:00"
    assert _build(src, out, seed=3, epoch="1700000000") == second

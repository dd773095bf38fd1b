"""`skb index` reports progress on stderr when stderr is not a terminal (a log, a pipe)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from skbsearch.synth import generate_catalogue


def _skb() -> list[str]:
    script = Path(sys.executable).with_name("skb")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from skbsearch.cli import main; sys.exit(main())"]


def test_index_prints_progress_lines_into_a_pipe(tmp_path: Path) -> None:
    generate_catalogue(60, seed=0, n_queries=2).save(tmp_path / "cat")
    r = subprocess.run([*_skb(), "index", str(tmp_path / "cat" / "skb"), "--kind", "bm25"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "loading SKB: 1/1" in r.stderr and "saving: 1/1" in r.stderr  # (a transient bar printed nothing)
    assert "built bm25 index" in r.stdout
    # the relation field's weight, and why (a 60-product catalogue is too small to calibrate)
    assert "relation lines weigh 1: not calibrated" in r.stdout
    q = subprocess.run([*_skb(), "index", str(tmp_path / "cat" / "skb"), "--kind", "bm25", "--force", "-q"],
                       capture_output=True, text=True, timeout=300)
    assert q.returncode == 0 and "saving" not in q.stderr

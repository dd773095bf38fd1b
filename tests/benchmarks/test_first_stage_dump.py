"""benchmarks/first_stage_dump.py writes the DL19 BM25 top-100 the re-ranking rows get, in rank order."""

from __future__ import annotations

import json
from pathlib import Path


def test_trecdl_dump_is_the_judged_top_100(shared_data: Path, tmp_path: Path, bench_script) -> None:
    mod = bench_script("first_stage_dump")
    out = tmp_path / "dl19.tsv"
    assert mod.main(["trecdl", str(shared_data / "trec-dl"), str(out)]) == 0
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    judged = json.loads((shared_data / "trec-dl" / "dl19_qrels.json").read_text())
    assert {q for q, _, _ in rows} <= set(judged)
    by_q: dict[str, list[float]] = {}
    for q, _, s in rows:
        by_q.setdefault(q, []).append(float(s))
    assert all(len(v) <= 100 and v == sorted(v, reverse=True) for v in by_q.values())
    assert len(rows) == sum(len(v) for v in by_q.values()) > 0

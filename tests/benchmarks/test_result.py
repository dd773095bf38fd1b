"""BenchmarkResult files: a rerun keeps how the report shows the result."""

from __future__ import annotations

import json
from pathlib import Path

from skbsearch.benchmarks.result import BenchmarkResult


def test_rerun_keeps_presentation_keys_it_does_not_set(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    old = {"benchmark": "x", "config": {"title": "Old title", "order": 3, "summary": "S", "seed": 1,
                                        "note": "old note"},
           "metrics": {"m": 0.1}}
    path.write_text(json.dumps(old))
    BenchmarkResult("x", {"seed": 2, "note": "new note"}, {"m": 0.5}).to_json(path)
    cfg = json.loads(path.read_text())["config"]
    assert cfg == {"seed": 2, "note": "new note", "title": "Old title", "order": 3, "summary": "S"}
    assert json.loads(path.read_text())["metrics"] == {"m": 0.5}


def test_nothing_is_carried_from_another_benchmark_or_a_broken_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"benchmark": "other", "config": {"title": "T"}}))
    BenchmarkResult("x", {"a": 1}).to_json(path)
    assert json.loads(path.read_text())["config"] == {"a": 1}
    path.write_text("{not json")
    BenchmarkResult("x", {"a": 1}).to_json(path)
    assert json.loads(path.read_text())["config"] == {"a": 1}
    assert "title" not in json.loads(BenchmarkResult("x", {"a": 1}).to_json())["config"]

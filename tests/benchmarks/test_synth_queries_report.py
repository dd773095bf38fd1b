"""benchmarks/synth_queries_report.py lays out each query set's report.json as the row's groups."""

from __future__ import annotations

import json
from pathlib import Path


def _report() -> dict:
    """The fields of a ``skb synth queries`` report.json that the row reads."""
    return {
        "queries": 500,
        "settings": {"property_extractor": {"movie": "relations", "person": "relations"}},
        "templates": [{"template": "a", "queries": 3}, {"template": "b", "queries": 0},
                      {"template": "c", "queries": 497}],
        "hops": {"1": 235, "2": 165, "3": 100},
        "query_length_words": {"mean": 16.992, "max": 36},
        "answers_per_query": {"mean": 2.498, "max": 41, "histogram": {
            "1": 376, "2": 40, "3-5": 42, "6-10": 20, "11-20": 12, "21-50": 10, "51+": 0}},
        "filtering": {"kept_rate": 0.263},
        "stats": {"entropy": 6.99812, "ttr": 0.286612},
        "relational_textual_words": {"relational": 4009, "textual": 0},
        "verification": {"gold_verified_rate": 1.0},
    }


def test_groups_from_report_json(tmp_path: Path, bench_script) -> None:
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "report.json").write_text(json.dumps(_report()))
    out = tmp_path / "out.json"
    res = bench_script("synth_queries_report").main([f"MetaQA={tmp_path / 'q'}", "--json", str(out)])
    assert json.loads(out.read_text()) == res
    g = res["groups"]["MetaQA"]
    assert g["templates used / grounded"] == "2 / 3"
    assert g["hops 1/2/3"] == "235 / 165 / 100"
    assert (g["1 answer"], g["2-5"], g["6-20"], g[">20"]) == (376, 82, 32, 10)
    assert (g["entropy"], g["TTR"]) == (6.998, 0.2866)
    assert g["rel : text words"] == "4009 : 0" and g["extractor"] == "relations"
    assert res["benchmark"] == "synth_queries_report"
    assert res["config"]["command"].endswith(f"--json {out}")

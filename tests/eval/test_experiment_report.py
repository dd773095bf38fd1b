"""Experiment reports (eval.experiment_report): CSV, JSON, LaTeX, DataFrame and plot exports,
pairwise superscripts."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from experiment_runs import fixture

from skbsearch.core.errors import MissingDependencyError
from skbsearch.eval.experiment import Experiment


def test_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs, qrels = fixture(seed=5, n_queries=30)
    named = {"bm25_base": runs["sys0"], "a&b": runs["sys2"]}
    res = Experiment(named, None, qrels, ["ndcg@10", "mrr@10"], baseline="bm25_base",
                     per_query=True)
    rows = list(csv.DictReader(io.StringIO(res.to_csv(tmp_path / "t.csv"))))
    assert [r["system"] for r in rows] == ["bm25_base", "a&b"]
    assert float(rows[1]["ndcg@10"]) == pytest.approx(res.means["a&b"]["ndcg@10"])
    assert float(rows[1]["ndcg@10 p-value"]) == pytest.approx(res.p_value("a&b", "ndcg@10"))
    assert rows[1]["ndcg@10 sig"] == "▲" and rows[0]["ndcg@10 p-value"] == ""
    assert (tmp_path / "t.csv").is_file()
    per_q = list(csv.DictReader(io.StringIO(res.to_csv(per_query=True))))
    assert len(per_q) == 2 * 30 and set(per_q[0]) == {"system", "query", "ndcg@10", "mrr@10"}
    data = json.loads(res.to_json(tmp_path / "t.json"))
    assert data["baseline"] == "bm25_base" and data["queries"] == 30
    assert data["per_query"]["a&b"]["q0"]["mrr@10"] == res.scores["a&b"]["mrr@10"][0]
    assert len(data["comparisons"]) == 2
    tex = res.to_latex(tmp_path / "t.tex")
    assert "\\toprule" in tex and "bm25\\_base" in tex and "a\\&b" in tex
    assert "$^{\\blacktriangle}$" in tex and "\\textbf{" in tex
    df = res.to_dataframe()
    assert list(df["system"]) == ["bm25_base", "a&b"]
    png = res.plot(tmp_path / "t.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match="matplotlib"):
        res.plot(tmp_path / "u.png")


def test_pairwise_superscripts() -> None:
    runs, qrels = fixture(seed=6, strengths=(0.0, 1.5, 3.0))
    res = Experiment(runs, None, qrels, ["ndcg@10"])
    rows = res.table_rows()
    assert [r["#"] for r in rows] == ["a", "b", "c"]
    assert rows[2]["ndcg@10"].endswith("ᵃᵇ") and rows[1]["ndcg@10"].endswith("ᵃ")
    assert "$^{ab}$" in res.to_latex()

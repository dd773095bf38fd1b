"""Reports: rich table, bar chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from skbsearch.eval.report import plot_results, results_table

RESULTS = {"bm25": {"ndcg@10": 0.5058, "mrr@10": 0.82}, "dense": {"ndcg@10": 0.61}}


def test_table_marks_best() -> None:
    console = Console(record=True, width=100)
    console.print(results_table(RESULTS, title="dl19"))
    text = console.export_text()
    assert "bm25" in text and "0.5058" in text and "0.6100" in text
    table = results_table(RESULTS)
    assert [c.header for c in table.columns] == ["system", "ndcg@10", "mrr@10"]
    dense_cells = [c._cells[1] for c in table.columns[1:]]
    assert dense_cells == ["[bold]0.6100[/bold]", ""]


def test_plot_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = plot_results(RESULTS, tmp_path / "sub" / "bars.png", title="t")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

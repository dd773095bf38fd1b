"""`skb demo`: the tables printed and the result saved."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from skbsearch.cli import app


def test_demo_cli_prints_tables_and_saves_result(tmp_path):
    r = CliRunner().invoke(app, ["demo", "--products", "300", "--queries", "20", "--show", "1",
                                 "--save-result", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    assert "Recall@20" in r.output and "Implicit-fact retrieval" in r.output
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["benchmark"] == "demo" and "graph (fitted)" in saved["groups"]

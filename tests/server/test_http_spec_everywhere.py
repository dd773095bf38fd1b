"""One spec, three doors: Python, ``skb run`` and ``POST /search`` return the same ranking."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from typer.testing import CliRunner

import skbsearch as skb
from skbsearch.cli import app
from skbsearch.core.types import Run

SPECS = [
    "bm25(types=[product])",
    "(bm25(types=[product]) + graph(target=[product])) % 10",
    "graph(target=[product], w_rel=2.0) % 20 >> filter(where='price < 150')",
]


def test_the_same_spec_ranks_the_same_everywhere(served, tmp_path: Path) -> None:
    queries = served.ds.queries[:5]
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("".join(json.dumps({"id": q.id, "text": q.text}) + "\n" for q in queries),
                     encoding="utf-8")
    kb = skb.SKB.load(served.skb_dir)
    runner = CliRunner()
    for spec in SPECS:
        py = kb.pipeline(spec).run(queries)
        out = tmp_path / "cli.trec"
        r = runner.invoke(app, ["run", str(served.skb_dir), "--queries", str(qfile),
                                "--pipeline", spec, "--save-run", str(out), "--k", "10"])
        assert r.exit_code == 0, r.output
        cli = Run.from_trec(out)
        res = httpx.post(f"{served.base}/search", timeout=60,
                         json={"queries": [q.text for q in queries], "pipeline": spec, "k": 10})
        assert res.status_code == 200, res.text
        http = res.json()["results"]
        for j, q in enumerate(queries):
            want = [d for d, _ in py.ranked(q.id)[:10]]
            assert [d for d, _ in cli.ranked(q.id)] == want, spec
            assert [h["id"] for h in http[j]["hits"]] == want, spec

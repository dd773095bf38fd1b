"""A small catalogue SKB with its queries, qrels and a BM25 index, and saved runs over it,
for the tests of ``skb run`` and ``skb experiment``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.types import Run
from skbsearch.synth import generate_catalogue

runner = CliRunner()


def catalogue_data(root: Path) -> Path:
    """A 300-product catalogue with 30 queries (``root/cat``), a BM25 index and a STaRK-style
    CSV (``root/stark_qa.csv``) under ``root``."""
    ds = generate_catalogue(300, seed=0, n_queries=30)
    ds.save(root / "cat")
    r = runner.invoke(app, ["index", str(root / "cat" / "skb"), "-q"])
    assert r.exit_code == 0, r.output
    with (root / "stark_qa.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "query", "answer_ids"])
        for q in ds.queries:
            w.writerow([q.id, q.text, json.dumps(sorted(ds.qrels.get(q.id, {})))])
    return root


def flat(text: str) -> str:
    """Console output with rich's line wrapping undone."""
    return " ".join(text.split())


def skb(data: Path) -> str:
    """The SKB directory under ``data``."""
    return str(data / "cat" / "skb")


def run_bm25(data: Path, out: Path, *extra: str) -> dict:
    """``skb run`` of BM25 over the catalogue's queries, saved to ``out``; its --json output."""
    r = runner.invoke(app, [
        "run", skb(data), "--queries", str(data / "cat" / "queries.jsonl"),
        "--pipeline", "bm25(k=50)", "--save-run", str(out),
        "--qrels", str(data / "cat" / "qrels.trec"), "-m", "hit@1,recall@20,mrr", "--json", *extra,
    ])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def worse_run(data: Path, path: Path) -> Run:
    """BM25's candidates in reverse order: a clearly weaker saved run."""
    run_bm25(data, path.with_suffix(".bm25"))
    base = Run.from_trec(path.with_suffix(".bm25"))
    rev = Run({q: {d: -s for d, s in docs.items()} for q, docs in base.items()}, name="rev")
    rev.to_trec(path)
    return rev

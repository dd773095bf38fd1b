"""Guides that are notebooks run as written, as the README does (tests/core/test_readme.py):
every Python block of the page in order, in one namespace, on a generated catalogue in a
temp dir; each ``# -> TEXT`` comment must be what the lines before it printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from skbsearch.synth.catalogue import generate_catalogue

GUIDES = Path(__file__).resolve().parents[2] / "docs" / "guides"


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def _expected(block: str) -> list[str]:
    return [m.strip() for m in re.findall(r"^# -> (.*)$", block, flags=re.M)]


def _run_page(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict = {}
    for block in _blocks(page):
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - our own guide
        printed = [ln.strip() for ln in capsys.readouterr().out.splitlines()]
        for want in _expected(block):
            assert want in printed, f"{page.name}: expected the line {want!r}; printed {printed}"


def _write_kg(cat: Path, out: Path) -> None:
    """The catalogue as a user's files: nodes/edges JSONL, questions (qid, query), TREC answers."""
    from skbsearch.kb.store import SKB

    kb = SKB.load(cat / "skb")
    out.mkdir()
    with (out / "nodes.jsonl").open("w", encoding="utf-8") as fh:
        for rec in kb.nodes.to_pylist():
            fh.write(json.dumps({k: v for k, v in rec.items() if v is not None}) + "\n")
    ids, rels = kb.ids_array, kb.schema.relations
    with (out / "edges.jsonl").open("w", encoding="utf-8") as fh:
        for s, r, t in zip(kb.edge_src.tolist(), np.asarray(kb.edge_rel).tolist(), kb.edge_dst.tolist(),
                           strict=True):
            fh.write(json.dumps({"source": str(ids[s]), "relation": rels[r], "target": str(ids[t])}) + "\n")
    with (out / "questions.jsonl").open("w", encoding="utf-8") as fh, \
            (cat / "queries.jsonl").open(encoding="utf-8") as src:
        for line in src:
            q = json.loads(line)
            fh.write(json.dumps({"qid": q["id"], "query": q["text"]}) + "\n")
    (out / "answers.trec").write_bytes((cat / "qrels.trec").read_bytes())


def test_the_python_guide_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pandas")
    generate_catalogue(800, n_queries=80, seed=0).save(tmp_path / "cat")
    _write_kg(tmp_path / "cat", tmp_path / "kg")
    monkeypatch.chdir(tmp_path)
    _run_page(GUIDES / "python.md", capsys)


def test_the_fit_graph_guide_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    generate_catalogue(800, n_queries=80, seed=0).save(tmp_path / "cat")
    monkeypatch.chdir(tmp_path)
    _run_page(GUIDES / "fit-graph.md", capsys)

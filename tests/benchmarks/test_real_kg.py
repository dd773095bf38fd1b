"""benchmarks/real_kg_questions.py on KG-BERT's layout and real_kg.py's table on a tiny KG."""

from __future__ import annotations

import json
from pathlib import Path


def _wn(d: Path) -> Path:
    d.mkdir(parents=True)
    (d / "train.tsv").write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in [
        ("01", "_hypernym", "00"), ("02", "_hypernym", "00"), ("03", "_hypernym", "00"),
        ("04", "_hypernym", "05")]), encoding="utf-8")
    (d / "entity2text.txt").write_text(
        "00\tdog, a domestic animal kept by people\n01\tterrier, a small dog bred to hunt vermin\n"
        "02\thound, a dog used for hunting by scent\n03\tpoodle, a dog with a curly coat\n"
        "04\tdog, informal term for a man\n05\tman, an adult male person\n", encoding="utf-8")
    return d


def test_questions_on_entity2text_with_text_has(tmp_path: Path, bench_script) -> None:
    kg = _wn(tmp_path / "wn")
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps([
        {"id": "hunt", "text": "Which dogs hunt?", "all": [
            {"from": "dog", "mid": "00", "path": ["_hypernym^-1"]}, {"text_has": ["hunt"]}]},
        {"id": "curly", "text": "Which dog has a curly coat?", "kind": "textual",
         "all": [{"text_has": ["curly coat"]}]}]), encoding="utf-8")
    mod = bench_script("real_kg_questions")
    assert mod.main([str(kg), str(tmp_path / "out"), "--questions", str(qfile)]) == 0
    rows = [json.loads(x) for x in (tmp_path / "out" / "queries.jsonl").read_text().splitlines()]
    assert {r["id"]: r["answer_ids"] for r in rows} == {"hunt": ["01"], "curly": ["03"]}  # whole words only
    # "dog" names two synsets by its lemma: refused unless "mid" picks one
    qfile.write_text(json.dumps([{"id": "x", "text": "?", "all": [{"from": "dog", "path": ["_hypernym^-1"]}]}]))
    try:
        mod.main([str(kg), str(tmp_path / "out2"), "--questions", str(qfile)])
        raise AssertionError("an ambiguous lemma was accepted")
    except SystemExit as e:
        assert "names 2 entities" in str(e)


def test_table_rows_per_kg_and_pipeline(bench_script) -> None:
    mod = bench_script("real_kg")
    m = {"hit@1": 0.5, "mrr": 0.6, "queries": 2}
    res = mod.table({"a": {"threads": 2, "questions": {"bm25": m}}, "b": {"threads": 2, "questions": {"graph": m}}},
                    "python benchmarks/real_kg.py --all")
    assert set(res["groups"]) == {"a: bm25", "b: graph"} and "a 2, b 2" in res["config"]["note"]


def test_latency_reports_wall_and_cpu_percentiles(bench_script) -> None:
    mod = bench_script("real_kg")
    got = mod.latency([float(x) for x in range(1, 101)], [2.0] * 99 + [50.0])
    assert got == {"p50_ms": 50.5, "p95_ms": 95.0, "cpu_p50_ms": 2.0, "cpu_p95_ms": 2.0}


def test_first_answer_ranks_per_question(bench_script) -> None:
    from skbsearch.core.types import Run

    mod = bench_script("real_kg")
    run = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 1.0}})
    got = mod.first_answer_ranks(run, {"q1": {"c": 1, "b": 0}, "q2": {"z": 1}, "q3": {"a": 1}})
    assert got == {"q1": 3, "q2": None, "q3": None}  # b is judged not relevant; q3 not run

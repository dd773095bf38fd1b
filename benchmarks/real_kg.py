"""Real knowledge graphs end to end, as a new user meets them: FB15k-237, WN18RR, UMLS and the
generated catalogue (or any KG in the public layout).

Protocol:

1. **Import** ``skb kb build DATA SKB --format kg`` and **index** ``skb index SKB --kind bm25``
   (defaults), each in its own process: wall time and that process's peak RSS.
2. **Questions**: ``benchmarks/real_kg_questions.py`` computes the answers of our written
   questions (``real_kg_questions.json``) from the triples (queries JSONL + TREC qrels).
3. **Synthesised queries**: ``skb synth queries SKB OUT --n N`` with defaults (time, RSS);
   their answers are the synthesiser's.
4. **Pipelines** (untrained) on both sets: every query answered alone (after one warm-up
   query), Hit@1/5/10, MRR, p50/p95 ms a query; ``--json`` also keeps each question's rank of
   its first answer (``first_answer_ranks``: which questions a change moved).
5. **Fitted rows**: ``--folds`` folds over the questions, as ``skb fit`` decides: each
   fold's pipeline is fitted on the other folds (every trainable stage, a fusion's children
   first) and scored on the held-out fold; the untrained pipeline on the same queries beside
   it; whether the fitted one would be kept.

6. **Own-text baseline** (``--baseline``): BM25 over each node's own text (its document as
   rendered: name and description, no relation lines), built in process, answered as in 4.

Usage (one KG, every step)::

    python benchmarks/real_kg.py --data ../shared/data/fb15k237 --work /tmp/realkg --json real_kg.json

The four-KG table (``--all``: FB15k-237, WN18RR and UMLS from ``../shared/data`` with their
question sets ``real_kg_questions*.json``, and ``skb synth catalogue -n 2000 --queries 300
--seed 1`` with its own queries; ``--kg NAME=DATA[,QUESTIONS]`` adds any other, ``DATA``
``generated`` for the catalogue), written in the common result shape for BENCHMARKS.md::

    python benchmarks/real_kg.py --all --work /tmp/realkg4 --synth 0 --fit '' \
        --pipelines 'bm25|graph|bm25 + graph' --baseline --table benchmarks/results/real_kg.json

Numbers depend on the machine's load; ``--threads`` pins numba/BLAS threads (default 2).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data"
#: ``--all``: name -> (data directory or "generated", question file or None for the catalogue's own)
ALL_KGS: dict[str, tuple[str, Path | None]] = {
    "fb15k237": (str(DATA / "fb15k237"), HERE / "real_kg_questions.json"),
    "wn18rr": (str(DATA / "wn18rr"), HERE / "real_kg_questions_wn18rr.json"),
    "umls": (str(DATA / "umls"), HERE / "real_kg_questions_umls.json"),
    "catalogue": ("generated", None),
}
#: ``skb synth catalogue`` options of the generated catalogue (as benchmarks/bm25_layouts.py makes it)
CATALOGUE = ("-n", "2000", "--queries", "300", "--seed", "1")
BASELINE = "bm25 over own text (no relation lines)"
DEFAULT_PIPELINES = ("bm25", "graph", "bm25 + graph", "rrf(bm25, graph)")
METRICS = ("hit@1", "hit@5", "hit@10", "mrr")


def log(msg: str) -> None:
    """Progress to stderr (stdout carries the results)."""
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


#: runs a command and writes its exit code and peak RSS (KiB) to a file: a fresh process's
#: RUSAGE_CHILDREN is that command's alone
_WRAP = ("import json, resource, subprocess, sys; r = subprocess.run(sys.argv[2:]); "
         "open(sys.argv[1], 'w').write(json.dumps([r.returncode, "
         "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss])); sys.exit(r.returncode)")


def run_step(cmd: list[str], work: Path) -> dict[str, Any]:
    """Run a command: its wall seconds and peak RSS (MiB); fails loudly with its stderr."""
    probe = work / f".rusage-{os.getpid()}.json"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAP, str(probe), *cmd], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    _, rss_kib = json.loads(probe.read_text())
    probe.unlink()
    return {"seconds": round(seconds, 2), "peak_rss_mib": round(rss_kib / 1024, 1), "stdout": proc.stdout}


def evaluate_pipeline(kb: Any, spec: str, queries: list[Any], qrels: Any) -> dict[str, Any]:
    """Each query answered alone (after a warm-up query): metrics, wall latency and the
    process's CPU time a query (every thread's; unlike wall time, not stretched by other
    jobs on a shared machine)."""

    from skbsearch.core.types import Run
    from skbsearch.eval.evaluate import evaluate

    p = kb.pipeline(spec)
    p.run(queries[:1])
    run, ms, cpu = Run(), [], []
    for q in queries:
        t0, c0 = time.perf_counter(), time.process_time()
        run.update(p.run([q]))
        ms.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    m = aggregate(evaluate(run, qrels, list(METRICS)))
    return {**{k: round(float(v), 4) for k, v in m.items()}, **latency(ms, cpu), "queries": len(queries),
            "ranks": first_answer_ranks(run, qrels)}


def aggregate(scores: Any) -> dict[str, Any]:
    """The metrics averaged over the queries (:func:`~skbsearch.eval.evaluate.evaluate`'s
    ``aggregate``, or the scores themselves when they are a plain mapping)."""
    return dict(getattr(scores, "aggregate", scores))


def first_answer_ranks(run: Any, qrels: Any) -> dict[str, int | None]:
    """Each query's rank of its first answer (1-based; ``None``: none retrieved): the
    per-question view behind the metrics (which questions a change moved)."""
    out: dict[str, int | None] = {}
    for qid, rel in qrels.items():
        ranked = sorted(run.get(qid, {}).items(), key=lambda x: -x[1])
        out[qid] = next((i + 1 for i, (d, _) in enumerate(ranked) if rel.get(d, 0) > 0), None)
    return out


def latency(wall_ms: list[float], cpu_ms: list[float]) -> dict[str, float]:
    """p50 / p95 of the wall and CPU milliseconds a query."""
    import numpy as np

    return {"p50_ms": round(float(np.percentile(wall_ms, 50)), 1), "p95_ms": round(float(np.percentile(wall_ms, 95)), 1),
            "cpu_p50_ms": round(float(np.percentile(cpu_ms, 50)), 1),
            "cpu_p95_ms": round(float(np.percentile(cpu_ms, 95)), 1)}


def cross_validated(kb: Any, spec: str, queries: list[Any], qrels: Any, folds: int) -> dict[str, Any]:
    """Fitted vs untrained on held-out folds (pooled), as ``skb fit`` decides
    (:func:`skbsearch.train.select.choose_fit`: every trainable stage fitted, fusion
    children first)."""
    from skbsearch.train.select import choose_fit

    choice, _ = choose_fit(lambda: kb.pipeline(spec), queries, qrels, folds=folds)
    return {"untrained": choice.untrained, "fitted": choice.fitted, "kept": choice.keep,
            "fit_seconds_total": choice.fit_seconds}


def evaluate_own_text(kb: Any, queries: list[Any], qrels: Any) -> dict[str, Any]:
    """The plain baseline: BM25 over each node's own document (no relation lines), built in
    process; each query answered alone (top 100), as :func:`evaluate_pipeline` does."""
    import numpy as np

    from skbsearch.core.types import Run
    from skbsearch.eval.evaluate import evaluate
    from skbsearch.index.sparse import BM25Index

    t0 = time.perf_counter()
    index = BM25Index.default_for_skb(kb, add_rel=False)
    build_s = time.perf_counter() - t0
    run, ms = Run(), []
    for q in queries:
        t0 = time.perf_counter()
        rows, scores = index.top_rows(index.tokenize([q.text])[0], 100)
        run[q.id] = {index.doc_ids[int(r)]: float(v) for r, v in zip(rows, scores, strict=True)}
        ms.append((time.perf_counter() - t0) * 1000)
    m = aggregate(evaluate(run, qrels, list(METRICS)))
    return {**{k: round(float(v), 4) for k, v in m.items()},
            "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "queries": len(queries), "build_s": round(build_s, 2)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, help="one KG directory (public layout)")
    p.add_argument("--questions", type=Path, default=HERE / "real_kg_questions.json",
                   help="question file of --data")
    p.add_argument("--kg", action="append", default=[], metavar="NAME=DATA[,QUESTIONS]",
                   help="a KG to run (repeatable); DATA 'generated': the generated catalogue and its queries")
    p.add_argument("--all", action="store_true", help="FB15k-237, WN18RR, UMLS and the generated catalogue")
    p.add_argument("--work", type=Path, required=True, help="scratch directory (SKB, queries, synth)")
    p.add_argument("--pipelines", default="|".join(DEFAULT_PIPELINES), help="'|'-separated specs")
    p.add_argument("--baseline", action="store_true", help="add BM25 over each node's own text")
    p.add_argument("--fit", default="bm25 + graph", help="'|'-separated specs fitted with CV ('' for none)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--synth", type=int, default=50, help="synthesised queries (0: skip)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path, help="write the whole result here")
    p.add_argument("--table", type=Path, help="write a KG x pipeline table in the common result shape here")
    a = p.parse_args(argv)
    if not (a.data or a.kg or a.all):
        p.error("give --data, --kg or --all")
    return a


def kgs_to_run(a: argparse.Namespace) -> dict[str, tuple[str, Path | None]]:
    """name -> (data directory or "generated", question file) from the options."""
    kgs: dict[str, tuple[str, Path | None]] = dict(ALL_KGS) if a.all else {}
    if a.data:
        kgs[a.data.name] = (str(a.data), a.questions)
    for item in a.kg:
        name, _, rest = item.partition("=")
        data, _, questions = rest.partition(",")
        if not name or not data:
            raise SystemExit(f"--kg {item!r}: want NAME=DATA[,QUESTIONS]")
        kgs[name] = (data, Path(questions) if questions else (None if data == "generated" else a.questions))
    return kgs


def run_kg(data: str, questions: Path | None, work: Path, a: argparse.Namespace) -> dict[str, Any]:
    """Every step of the protocol on one KG: import (or generate), index, questions, synth,
    pipelines, baseline, fits."""
    skb_cli = [sys.executable, "-c", "from skbsearch.cli import main; main()"]
    work.mkdir(parents=True, exist_ok=True)
    skb_dir, qdir, sdir = work / "kg.skb", work / "questions", work / "synth"
    result: dict[str, Any] = {"data": data, "threads": a.threads, "steps": {}, "questions": {},
                              "synthesised": {}, "fitted": {}}
    if data == "generated":
        log("generate the catalogue")
        result["steps"]["import"] = run_step([*skb_cli, "synth", "catalogue", str(work / "cat"), *CATALOGUE,
                                              "--force", "-q"], work)
        skb_dir, qfile, qrels_file = work / "cat" / "skb", work / "cat" / "queries.jsonl", work / "cat" / "qrels.trec"
    else:
        log("import")
        result["steps"]["import"] = run_step([*skb_cli, "kb", "build", data, str(skb_dir), "--format", "kg",
                                              "--force", "-q"], work)
        log("questions")
        result["steps"]["questions"] = run_step([sys.executable, str(HERE / "real_kg_questions.py"), data,
                                                 str(qdir), "--questions", str(questions)], work)
        qfile, qrels_file = qdir / "queries.jsonl", qdir / "qrels.trec"
    log("index (defaults)")
    result["steps"]["index"] = run_step([*skb_cli, "index", str(skb_dir), "--kind", "bm25", "--force", "-q"], work)
    if a.synth:
        log(f"synthesise {a.synth} queries (defaults)")
        result["steps"]["synth"] = run_step([*skb_cli, "synth", "queries", str(skb_dir), str(sdir), "--n",
                                             str(a.synth), "--force", "--json"], work)
        result["synth_report"] = json.loads(result["steps"]["synth"]["stdout"])
    for step in result["steps"].values():
        step.pop("stdout", None)

    import skbsearch as skb
    from skbsearch.datasets.qrels import read_qrels
    from skbsearch.datasets.queries import read_queries, read_queries_and_answers

    kb = skb.SKB.load(skb_dir)
    queries = read_queries(qfile, text_field=None if data == "generated" else "query")
    qrels = read_qrels(qrels_file)
    sets = {"questions": (queries, qrels)}
    if a.synth:
        sets["synthesised"] = read_queries_and_answers(sdir / "stark_qa" / "stark_qa.csv")
    for spec in [s.strip() for s in a.pipelines.split("|") if s.strip()]:
        for name, (qs, qr) in sets.items():
            log(f"{name}: {spec}")
            result[name][spec] = evaluate_pipeline(kb, spec, qs, qr)
            # (ranks kept beside the metrics, out of the common-shape table)
            result.setdefault("first_answer_ranks", {}).setdefault(name, {})[spec] = result[name][spec].pop("ranks")
    if a.baseline:
        for name, (qs, qr) in sets.items():
            log(f"{name}: {BASELINE}")
            result[name][BASELINE] = evaluate_own_text(kb, qs, qr)
    for spec in [s.strip() for s in a.fit.split("|") if s.strip()]:
        log(f"fit with {a.folds}-fold CV: {spec}")
        result["fitted"][spec] = cross_validated(kb, spec, queries, qrels, a.folds)
    return result


def table(results: dict[str, dict[str, Any]], command: str) -> dict[str, Any]:
    """The common result shape: a row per KG and pipeline (our questions), metrics and latency."""
    groups = {f"{kg}: {spec}": m for kg, r in results.items() for spec, m in r["questions"].items()}
    sizes = ", ".join(f"{kg} {next(iter(r['questions'].values()))['queries']}"
                      for kg, r in results.items() if r["questions"])
    return {"benchmark": "real_kg",
            "config": {"command": command, "order": 57, "threads": next(iter(results.values()))["threads"],
                       "title": "Real KGs: our questions, the README's route, untrained (issue 32)",
                       "note": (f"Questions per KG: {sizes} (`benchmarks/real_kg_questions*.json`, answers "
                                "computed from the triples and texts; the catalogue's own generated queries). "
                                "Each query answered alone after one warm-up (p50/p95: wall ms a query; "
                                "cpu_: the process's CPU ms a query, all threads); "
                                f"`{BASELINE}`: BM25 over each node's document without relation lines.")},
            "metrics": {}, "groups": groups}


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    """Run the protocol on each KG and print (and optionally save) the result as JSON."""
    a = parse_args(argv)
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(a.threads)
    kgs = kgs_to_run(a)
    results = {}
    for name, (data, questions) in kgs.items():
        log(f"== {name} ({data})")
        results[name] = run_kg(data, questions, a.work if len(kgs) == 1 and a.data else a.work / name, a)
    out: Any = next(iter(results.values())) if len(kgs) == 1 and a.data else {"kgs": results}
    print(json.dumps(out, indent=1))
    if a.json:
        _write_json(a.json, out)
    if a.table:
        _write_json(a.table, table(results, shlex.join(["python", "benchmarks/real_kg.py", *(argv or sys.argv[1:])])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

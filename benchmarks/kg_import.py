"""Import a Wikidata5M-shaped knowledge graph with ``skb kb build --format kg``: wall time, peak RSS.

Wikidata5M (Wang et al. 2021) ships ``wikidata5m_transductive_{train,valid,test}.txt``
(``Q<TAB>P<TAB>Q``; 20.6M / 5K / 5K triples), ``wikidata5m_entity.txt`` (id and aliases,
4.8M lines), ``wikidata5m_relation.txt`` (822 relations with aliases) and
``wikidata5m_text.txt`` (one description a line). This script writes files of that shape
with a seeded generator: 4.6M entities and 21M triples at ``--scale 1``, entity degrees
drawn from a power law (hubs with 10^5 edges, as countries and genders have), relation
frequencies Zipf-like, an ``instance of`` relation giving every entity one of 2,300 classes
(as Wikidata's P31 does), a name and an alias an entity, and a short description for half
of them. Then it runs the real command in a subprocess and reports its wall time and
peak RSS (``ru_maxrss`` of that process alone), with the SKB's counts.

Usage::

    python benchmarks/kg_import.py --scale 1 --work /tmp/w5m --json benchmarks/results/kg_import.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

ENTITIES, TRIPLES, RELATIONS = 4_600_000, 21_000_000, 822
CHUNK = 2_000_000


def _ids(prefix: str, codes: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(codes + 1).cast(pa.string()), "")


def _write(path: Path, table: pa.Table, mode: str = "wb") -> None:
    opts = csv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    with open(path, mode) as fh:
        csv.write_csv(table, fh, write_options=opts)


def _power_law(rng: np.random.Generator, n: int, size: int, alpha: float) -> np.ndarray:
    """Codes in [0, n) with P(k) ~ (k+1)^-alpha (a few hubs, a long tail)."""
    u = rng.random(size)
    x = (1 - u * (1 - (n + 1) ** (1 - alpha))) ** (1 / (1 - alpha)) - 1
    return np.minimum(x.astype(np.int64), n - 1)


def generate(out: Path, n_ent: int, n_triples: int, n_rel: int, seed: int = 0) -> dict[str, int]:
    """Write the Wikidata5M-shaped files under ``out``; returns the counts written."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    perm = rng.permutation(n_ent)  # hubs spread over the id space
    splits = {"train": n_triples - 2 * min(5000, n_triples // 10)}
    splits["valid"] = splits["test"] = (n_triples - splits["train"]) // 2
    n_cls = max(10, n_ent // 2000)  # the last ids are classes
    for split, count in splits.items():
        path = out / f"wikidata5m_transductive_{split}.txt"
        path.write_bytes(b"")
        for start in range(0, count, CHUNK):
            k = min(CHUNK, count - start)
            heads = rng.integers(0, n_ent - n_cls, k)  # every entity heads a few triples
            tails = perm[_power_law(rng, n_ent, k, 1.6)]
            rels = 1 + _power_law(rng, n_rel - 1, k, 1.3)
            if split == "train":  # "instance of" (P1): one class an entity, Zipf over the classes
                first = np.arange(start, start + k)
                inst = first < n_ent - n_cls
                heads[inst], rels[inst] = first[inst], 0
                tails[inst] = n_ent - n_cls + _power_law(rng, n_cls, int(inst.sum()), 1.2)
            _write(path, pa.table({"h": _ids("Q", heads), "r": _ids("P", rels), "t": _ids("Q", tails)}), "ab")
    ent_path, text_path = out / "wikidata5m_entity.txt", out / "wikidata5m_text.txt"
    ent_path.write_bytes(b"")
    text_path.write_bytes(b"")
    for start in range(0, n_ent, CHUNK):
        codes = np.arange(start, min(n_ent, start + CHUNK))
        ids = _ids("Q", codes)
        name = pc.binary_join_element_wise("entity ", pa.array(codes).cast(pa.string()), "")
        alias = pc.binary_join_element_wise("alias of entity ", pa.array(codes).cast(pa.string()), "")
        _write(ent_path, pa.table({"id": ids, "name": name, "alias": alias}), "ab")
        half = codes % 2 == 0
        desc = pc.binary_join_element_wise(
            "a generated entity of kind ", pa.array(codes[half] % 97).cast(pa.string()),
            ", described in one short sentence", "")
        _write(text_path, pa.table({"id": _ids("Q", codes[half]), "text": desc}), "ab")
    rel = np.arange(n_rel)
    names = pc.binary_join_element_wise("relation ", pa.array(rel).cast(pa.string()), "").to_pylist()
    names[0] = "instance of"
    _write(out / "wikidata5m_relation.txt", pa.table({"id": _ids("P", rel), "name": pa.array(names)}))
    return {"entities_written": n_ent, "triples_written": n_triples, "relations_written": n_rel}


def run_import(src: Path, out: Path, limit_s: int) -> dict[str, float]:
    """``skb kb build SRC OUT --format kg`` in a subprocess: its wall time and peak RSS."""
    cmd = [sys.executable, "-c", "from skbsearch.cli import main; main()", "kb", "build", str(src), str(out),
           "--format", "kg", "--force", "--json", "--quiet"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit_s)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"import failed ({proc.returncode}): {proc.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 ** 2
    summary = json.loads(proc.stdout)
    return {"import_s": round(wall, 1), "peak_rss_gb": round(peak, 2), "nodes": summary["nodes"],
            "edges": summary["edges"], "node_types": len(summary["node_types"]),
            "relations": len(summary["relations"]), "typing_relation": summary.get("typing_relation")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="1 = Wikidata5M's size (4.6M entities, 21M triples)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kg_import"), help="where the files and the SKB go")
    ap.add_argument("--limit-s", type=int, default=3600, help="give up on the import after this long")
    ap.add_argument("--keep", action="store_true", help="keep the generated files and the SKB")
    ap.add_argument("--json", type=Path, default=None, help="write a BenchmarkResult JSON here")
    args = ap.parse_args()
    n_ent, n_tr = int(ENTITIES * args.scale), int(TRIPLES * args.scale)
    src, out = args.work / "source", args.work / "w5m.skb"
    t0 = time.perf_counter()
    counts = generate(src, n_ent, n_tr, RELATIONS)
    gen_s = round(time.perf_counter() - t0, 1)
    size_gb = sum(p.stat().st_size for p in src.iterdir()) / 1024 ** 3
    print(f"generated {n_tr:,} triples over {n_ent:,} entities ({size_gb:.2f} GB) in {gen_s} s", file=sys.stderr)
    res = run_import(src, out, args.limit_s)
    typing = res.pop("typing_relation")
    print(json.dumps({**res, "typing_relation": typing}))
    if not args.keep:
        import shutil

        shutil.rmtree(src, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    if args.json:
        from skbsearch.benchmarks.result import BenchmarkResult

        config = {**counts, "typing_relation": typing, "scale": args.scale, "source_gb": round(size_gb, 2), "generate_s": gen_s,
                  "cpus": os.cpu_count(), "python": platform.python_version(), "percent": False,
                  "command": f"python benchmarks/kg_import.py --scale {args.scale:g} --json {args.json}",
                  "title": "Importing a Wikidata5M-shaped KG (skb kb build --format kg)",
                  "note": "Generated files in Wikidata5M's layout; wall time and peak RSS of the import "
                          "subprocess (read, dedupe, type inference, Parquet + Arrow + CSR graph written)."}
        BenchmarkResult("kg_import", config=config, metrics=res).to_json(args.json)


if __name__ == "__main__":
    main()

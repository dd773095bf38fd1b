"""Dense indexing on a CPU: the static (model2vec) encoder beside MiniLM, and a whole-SKB build.

Protocol (issue 35, items 2 and 4):

1. ``generate``: the seeded synthetic catalogue of ``--products`` products
   (:func:`skbsearch.synth.catalogue.generate_catalogue`), saved as an SKB under ``--work``
   (kept and reused when it is there).
2. ``static build``: the static encoder distilled from the packaged MiniLM
   (``skb encoders build static``), timed when it is not built yet (else its recorded time).
3. ``rates``: the SKB's first ``--sample`` documents rendered as ``skb index --kind dense``
   renders them; encoded side by side in this process by ``static`` (all of them) and by
   ``minilm`` (the first ``--minilm-sample``: MiniLM runs ~100x slower), one warm-up batch
   each first: documents per second on this machine's cores.
4. ``end to end``: ``skb index SKB --kind dense --encoder static --force --json`` in a
   subprocess, timed from the outside (SKB load, rendering, encoding, saving); its peak RSS
   (``ru_maxrss`` of the child) and the load average before and after.

Usage::

    python benchmarks/dense_throughput.py --products 1000000 --work /tmp/dense-tp \\
        --json benchmarks/results/dense_throughput_1m.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.measure import log
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.devices import cpu_record
from skbsearch.encoders import load_encoder
from skbsearch.encoders.static import MARKER, default_static_dir
from skbsearch.index.docsource import DocSource, skb_renderer
from skbsearch.kb import SKB


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=1_000_000)
    p.add_argument("--work", type=Path, required=True, help="where the catalogue is kept")
    p.add_argument("--sample", type=int, default=20_000, help="documents for the static rate")
    p.add_argument("--minilm-sample", type=int, default=512, help="documents for MiniLM's rate")
    p.add_argument("--skip-minilm", action="store_true", help="no MiniLM rate (no [dense])")
    p.add_argument("--json", type=Path, default=None)
    return p.parse_args(argv)


def skb_command() -> list[str]:
    """The ``skb`` console script of this interpreter (or the module as a fallback)."""
    script = Path(sys.executable).with_name("skb")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from skbsearch.cli import main; sys.exit(main())"]


def catalogue(products: int, work: Path) -> tuple[Path, float | None]:
    """The catalogue SKB under ``work`` (generated when missing) and the seconds it took."""
    skb_dir = work / f"cat{products}" / "skb"
    if (skb_dir / "meta.json").is_file():
        return skb_dir, None
    from skbsearch.synth.catalogue import generate_catalogue

    t0 = time.perf_counter()
    generate_catalogue(products, n_queries=10, seed=0).save(skb_dir.parent)
    return skb_dir, round(time.perf_counter() - t0, 1)


def static_build() -> tuple[float, bool]:
    """Seconds of the static encoder's distillation, and whether it ran here."""
    marker = default_static_dir() / MARKER
    if marker.is_file():
        return float(json.loads(marker.read_text()).get("seconds", 0.0)), False
    t0 = time.perf_counter()
    subprocess.run([*skb_command(), "encoders", "build", "static", "--json"], check=True,
                   stdout=subprocess.DEVNULL)
    return round(time.perf_counter() - t0, 1), True


def rate(name: str, texts: list[str]) -> dict[str, float]:
    """Documents per second of encoder ``name`` over ``texts`` (after a warm-up batch)."""
    enc = load_encoder(name, device="cpu")
    enc.encode(texts[:64])
    t0 = time.perf_counter()
    enc.encode(texts, batch_size=64)
    seconds = time.perf_counter() - t0
    return {"docs": len(texts), "seconds": round(seconds, 2), "docs_per_s": round(len(texts) / seconds, 1),
            "dim": enc.dim}


def end_to_end(skb_dir: Path) -> dict[str, Any]:
    """``skb index --kind dense --encoder static`` timed in a subprocess."""
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    out = subprocess.run([*skb_command(), "index", str(skb_dir), "--kind", "dense", "--encoder",
                          "static", "--force", "--json"], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    summary = json.loads(out.stdout)
    return {"wall_s": round(wall, 1), "docs": summary["num_docs"],
            "docs_per_s": round(summary["num_docs"] / wall, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()]}


def main(argv: list[str] | None = None) -> None:
    """Run the protocol and print (and write) the result."""
    a = parse_args(argv)
    skb_dir, gen_s = catalogue(a.products, a.work)
    log(f"catalogue at {skb_dir}" + (f" (generated in {gen_s} s)" if gen_s else " (kept)"))
    build_s, built_here = static_build()
    log(f"static encoder: {build_s} s to distil ({'here' if built_here else 'recorded'})")
    skb = SKB.load(skb_dir)
    docs = DocSource.from_any(skb, renderer=skb_renderer(), indices=range(min(a.sample, skb.num_nodes)))
    groups = {"static": rate("static", docs.texts)}
    log(f"static: {groups['static']}")
    if not a.skip_minilm:
        groups["minilm"] = rate("minilm", docs.texts[: a.minilm_sample])
        log(f"minilm: {groups['minilm']}")
    log("end to end: skb index --kind dense --encoder static ...")
    e2e = end_to_end(skb_dir)
    log(f"end to end: {e2e}")
    n = skb.num_nodes
    rows = {"static encoder: rate": groups["static"],
            f"static encoder: all {n:,} nodes, end to end (skb index)": {
                "docs": e2e["docs"], "seconds": e2e["wall_s"], "docs_per_s": e2e["docs_per_s"],
                "peak_rss_mb": e2e["peak_rss_mb"]},
            "static encoder: distillation (once a machine)": {"seconds": build_s}}
    metrics: dict[str, Any] = {"nodes": n, "index_minutes": round(e2e["wall_s"] / 60, 2)}
    if "minilm" in groups:
        ratio = round(groups["static"]["docs_per_s"] / groups["minilm"]["docs_per_s"], 1)
        rows["static encoder: rate"]["x_minilm"] = ratio
        rows["MiniLM: rate"] = groups["minilm"]
        rows[f"MiniLM: all {n:,} nodes (extrapolated from its rate)"] = {
            "docs": n, "seconds": round(n / groups["minilm"]["docs_per_s"]),
            "docs_per_s": groups["minilm"]["docs_per_s"]}
        metrics["static_vs_minilm_x"] = ratio
    cmd = "python benchmarks/dense_throughput.py " + " ".join(argv if argv is not None else sys.argv[1:])
    result = BenchmarkResult(
        "dense_throughput",
        config={"command": cmd, "protocol": __doc__.split("Protocol (issue 35, items 2 and 4):")[1]
                .split("Usage::")[0].strip(),
                "title": f"Dense indexing on {os.cpu_count()} CPU cores: static encoder vs MiniLM "
                         f"(issue 35)", "order": 42, "percent": False, "cpus": os.cpu_count(),
                "load_before": e2e["load_before"], "load_after": e2e["load_after"],
                "note": "The machine was shared with other jobs (load averages in the config). "
                        "Rates: documents per second, in one process side by side; MiniLM's "
                        "full-size time is extrapolated from its rate (marked so).",
                "overall_row": False},
        metrics=metrics, groups=rows, device=cpu_record())
    text = result.to_json(a.json)
    print(text)


if __name__ == "__main__":
    main()

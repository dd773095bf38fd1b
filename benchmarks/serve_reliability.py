"""``serve_load.py``'s issue-31 mode: a plain ``bm25`` probe alone (the baseline), beside a
filter storm, and beside one update every ``--update-every`` seconds (the phases of
``serve_abuse.phase``), and how the probe's p95 beside updates compares with the baseline.

A p95 of one 40-s phase rests on the ~10 slowest of ~200 probes, so one run's ratio moves
by a third between runs. With ``--repeats N`` the baseline and the update phases alternate
N times (a change of the machine's load then touches both), and the result gives, besides
each phase, the probes of all baselines and of all update phases pooled: their p95 ratio,
a 90 % bootstrap interval of it (:data:`BOOTSTRAP` resamples of each pool, seeded), and the
ratio of each repeat.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from typing import Any

import httpx
import numpy as np
from serve_abuse import phase

#: Bootstrap resamples of the pooled p95 ratio.
BOOTSTRAP = 2000
BASELINE = "baseline"


def _name(kind: str, repeat: int, repeats: int) -> str:
    return kind if repeats == 1 else f"{kind} #{repeat + 1}"


def run_phases(base: str, texts: list[str], pid: int, *, seconds: float, storm_seconds: float,
               update_every: float, token: str, products: list[dict[str, Any]],
               repeats: int = 1) -> dict[str, Any]:
    """The baseline and update phases (those asked for) ``repeats`` times in turn, the
    filter storm once after the first baseline."""
    out: dict[str, Any] = {}
    for r in range(repeats):
        out[_name(BASELINE, r, repeats)] = asyncio.run(phase(base, texts, pid, seconds))
        if storm_seconds and r == 0:
            out["filter storm"] = asyncio.run(phase(base, texts, pid, storm_seconds, storm=True))
        if update_every:
            out[_name(f"updates every {update_every:g} s", r, repeats)] = asyncio.run(phase(
                base, texts, pid, seconds, update_every=update_every, token=token, products=products))
    return out


def p95_ratio(num: list[float], den: list[float], seed: int = 0) -> tuple[float, float, float]:
    """p95 of ``num`` over p95 of ``den``, and the 5th and 95th percentiles of that ratio
    over :data:`BOOTSTRAP` resamples of both (with replacement)."""
    a, b = np.asarray(num, float), np.asarray(den, float)
    ratio = float(np.percentile(a, 95) / np.percentile(b, 95))
    rng = np.random.default_rng(seed)
    ra = np.percentile(a[rng.integers(0, len(a), (BOOTSTRAP, len(a)))], 95, axis=1)
    rb = np.percentile(b[rng.integers(0, len(b), (BOOTSTRAP, len(b)))], 95, axis=1)
    lo, hi = np.percentile(ra / rb, [5, 95])
    return ratio, float(lo), float(hi)


def _probe_row(ph: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    pr = ph["bm25_probe"]
    return {"n": pr["n"], "errors_5xx": pr["errors_5xx"], "p50_ms": pr["p50_ms"], "p95_ms": pr["p95_ms"],
            "max_ms": pr["max_ms"], "p95_over_baseline": round(pr["p95_ms"] / base["bm25_probe"]["p95_ms"], 2),
            "rss_peak_mb": ph["rss_mb"]["peak"],
            "rss_over_baseline": round(ph["rss_mb"]["peak"] / base["rss_mb"]["peak"], 2),
            "server_cpu_per_s": ph.get("server_cpu_per_s"), "load_avg_1m": ph.get("load_avg_1m")}


def pooled_rows(phases: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    """Rows of the pooled probes of the baselines and of the phases named ``kind #i``."""
    bases = [ph for name, ph in phases.items() if name.startswith(f"{BASELINE} #")]
    pairs = [(phases[f"{BASELINE} #{i}"], phases[f"{kind} #{i}"]) for i in range(1, len(bases) + 1)]
    rows = {}
    for label, group in ((BASELINE, [b for b, _ in pairs]), (kind, [u for _, u in pairs])):
        ms = [x for ph in group for x in ph["bm25_probe"]["ms"]]
        rows[f"bm25 probe ({label}, {len(group)} runs pooled)"] = {
            "n": len(ms), "errors_5xx": sum(ph["bm25_probe"]["errors_5xx"] for ph in group),
            "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "max_ms": round(float(max(ms)), 1),
            "rss_peak_mb": max(ph["rss_mb"]["peak"] for ph in group),
            "server_cpu_per_s": round(float(np.mean([ph["server_cpu_per_s"] for ph in group])), 3),
            "load_avg_1m": round(float(np.mean([ph["load_avg_1m"] for ph in group])), 2)}
    base_ms = [x for b, _ in pairs for x in b["bm25_probe"]["ms"]]
    upd_ms = [x for _, u in pairs for x in u["bm25_probe"]["ms"]]
    ratio, lo, hi = p95_ratio(upd_ms, base_ms)
    row = rows[f"bm25 probe ({kind}, {len(pairs)} runs pooled)"]
    row.update(p95_over_baseline=round(ratio, 2), p95_ratio_ci90=f"{lo:.2f}-{hi:.2f}",
               p95_ratio_each=" ".join(f"{u['bm25_probe']['p95_ms'] / b['bm25_probe']['p95_ms']:.2f}"
                                       for b, u in pairs),
               rss_over_baseline=round(row["rss_peak_mb"] / max(b["rss_mb"]["peak"] for b, _ in pairs), 2))
    return rows


def phase_rows(phases: dict[str, Any], update_kind: str | None) -> dict[str, dict[str, Any]]:
    """Table rows: the probe of each phase against its baseline (the one before it), the
    storm, the updates, and with repeats the pooled probes (:func:`pooled_rows`)."""
    rows: dict[str, dict[str, Any]] = {}
    base = None
    for name, ph in phases.items():
        if name.startswith(BASELINE):
            base = ph
        assert base is not None
        rows[f"bm25 probe ({name})"] = _probe_row(ph, base)
        for key in ("filter_storm", "updates"):
            if key in ph:
                g = ph[key]
                rows[f"{key.replace('_', ' ')} requests ({name})"] = {
                    "n": g["n"], "errors_5xx": g["errors_5xx"], "p50_ms": g["p50_ms"],
                    "p95_ms": g["p95_ms"], "max_ms": g["max_ms"],
                    "statuses": " ".join(f"{k}:{v}" for k, v in sorted(g["statuses"].items()))}
    if update_kind is not None and f"{BASELINE} #1" in phases:
        rows.update(pooled_rows(phases, update_kind))
    return rows


def dump(result: dict[str, Any]) -> str:
    """``result`` as indented JSON, each phase's raw probe latencies on one line."""
    text = json.dumps(result, indent=2)
    return re.sub(r'"ms": \[[^\]]*\]', lambda m: '"ms": ' + json.dumps(json.loads(m.group(0)[6:])), text) + "\n"


def reliability(args: Any, proc: Any, base: str, texts: list[str], products: list[dict[str, Any]],
                log_path: Any, token: str) -> int:
    """Run the phases on the started server ``proc``, then print and write the result
    (``args.json``); exit status 1 on a 5xx."""
    try:
        httpx.post(base + "/search", json={"query": texts[0], "pipeline": "bm25"}, timeout=300).raise_for_status()
        phases = run_phases(base, texts, proc.pid, seconds=args.phase_seconds,
                            storm_seconds=args.filter_storm, update_every=args.update_every,
                            token=token, products=products, repeats=args.repeats)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    rows = phase_rows(phases, f"updates every {args.update_every:g} s" if args.update_every else None)
    tracebacks = log_path.read_text(errors="replace").count("Traceback")
    result = {"benchmark": "serve_reliability", "config": {
        "title": f"HTTP service: filter storm and live updates (issue 31), {args.products:,} products",
        "order": 61, "percent": False, "overall_row": False,
        "protocol": (f"real skb serve on 127.0.0.1 (default limits), demo catalogue of {args.products:,} "
                     "products + BM25 index; a plain bm25 probe every 0.2 s alone (baseline, "
                     f"{args.phase_seconds:g} s), beside 8 clients sending bm25 searches whose where "
                     "is a new 1,000-character description ILIKE '%a%b%...' chain "
                     f"({args.filter_storm:g} s, once), and beside one POST /admin/update of 20 products "
                     f"every {args.update_every:g} s ({args.phase_seconds:g} s); baseline and update "
                     f"phases alternating {args.repeats} times, their probes also pooled (p95 ratio with "
                     f"a 90% bootstrap interval of {BOOTSTRAP} resamples, and each repeat's ratio); "
                     "server RSS every 0.25 s; per phase the server's CPU seconds per wall second and "
                     "the machine's 1-minute load average at its end"),
        "note": ("Load generator and server share 2 cores with other jobs (load_avg_1m: how many "
                 "were runnable); ratios are against the baseline phase before them (pooled rows: "
                 "all baselines). Every reload reuses the served snapshot (server.reuse, "
                 "benchmarks/serve_reload.py)."),
        "command": (f"python benchmarks/serve_load.py --products {args.products} --filter-storm "
                    f"{args.filter_storm:g} --update-every {args.update_every:g} --phase-seconds "
                    f"{args.phase_seconds:g} --repeats {args.repeats}"
                    + (f" --skb-root {args.skb_root}" if args.skb_root else "")
                    + (f" --json {args.json}" if args.json else "")),
        "products": args.products, "repeats": args.repeats, "cpu_count": os.cpu_count(),
        "columns": ["n", "errors_5xx", "p50_ms", "p95_ms", "max_ms", "p95_over_baseline", "p95_ratio_ci90",
                    "p95_ratio_each", "rss_peak_mb", "rss_over_baseline", "server_cpu_per_s",
                    "load_avg_1m", "statuses"]},
        "metrics": {"tracebacks_in_server_log": tracebacks}, "groups": rows, "phases": phases}
    for name, row in rows.items():
        print(f"{name:48s} {row}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(dump(result))
        print(f"wrote {args.json}")
    return 0 if all(r["errors_5xx"] == 0 for r in rows.values()) else 1

"""Load on a real ``skb serve``: concurrent clients on 127.0.0.1, mixed valid and invalid requests.

Protocol:

1. Generate the synthetic catalogue (``generate_catalogue(--products, seed)``), save it and
   build its BM25 index with ``skb index SKB --kind bm25``; start ``skb serve`` on a free
   127.0.0.1 port (default limits) and wait for ``/health``.
2. ``--clients`` concurrent clients (asyncio + httpx, one connection each) send requests
   drawn (seeded) from a fixed mix until ``--duration`` seconds pass or ``--max-requests``
   have been sent, whichever comes first. Valid: searches (bm25, graph, a fused spec with
   a type filter and predicate, batches of 5), ``/explain``, node pages, ``/kb``,
   ``/pipelines``, the explorer page. Invalid: unknown stages, specs naming files, ``k``
   over the limit, unknown and path-like ids, bad predicates, over-long queries, bodies
   over the size limit, malformed JSON. Every kind has the status it must get.
3. Beside them (issue 21, ``serve_abuse.py``): ``--abusive`` requests of the 3.5 KB
   ``bm25(k=1000000) + graph(n_text=1000000, n_graph=1000000)`` batch from 10 clients,
   ``--abandoned`` ``enrich(k=N)`` requests whose client gives up after 2 s, a plain
   ``bm25`` probe every 0.5 s, and the server's RSS sampled every 0.25 s.
4. Reported: requests/s, latency p50/p95/p99 of the normal clients (client-side, request
   sent to body read), the count of 5xx answers (must be 0, abusive ones included), of
   answers whose status differs from the expected one, and of transport errors, per kind
   and overall (a body over the size limit may see the connection closed instead of its
   413: see ``ALSO_OK``); the abusive requests' statuses and latency (refused, or
   answered within the server's deadline), the probe's latency, and peak RSS over idle.

Usage::

    .venv/bin/python benchmarks/serve_load.py --products 2000 --clients 50 --duration 30 \
        --max-requests 5000 --json benchmarks/results/serve_load.json
    # the 300K-node measurement of issue 21 (the SKB is generated once under --skb-root)
    .venv/bin/python benchmarks/serve_load.py --products 300000 --skb-root /tmp/cat300k \
        --clients 50 --duration 60 --abusive 100 --abandoned 10
    # issue 31 instead of the mix: a plain bm25 probe alone, beside a filter storm, and
    # beside one update every 3 s, baseline and updates in turn 3 times and pooled
    # (serve_reliability.py); result: serve_reliability*.json
    .venv/bin/python benchmarks/serve_load.py --products 30000 --filter-storm 30 \
        --update-every 3 --phase-seconds 45 --repeats 3 --json benchmarks/results/serve_reliability.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from serve_abuse import (
    abandoned_clients,
    abusive_clients,
    bm25_probe,
    product_records,
    rss_mb,
    rss_sampler,
    summarise_abuse,
)
from serve_reliability import reliability

from skbsearch.benchmarks.measure import log
from skbsearch.datasets.queries import read_queries
from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue import generate_catalogue

#: (kind, weight, expected status). Weights are relative.
MIX: list[tuple[str, int, int]] = [
    ("search_bm25", 26, 200), ("search_graph", 14, 200), ("search_fused_filtered", 8, 200),
    ("search_batch5", 4, 200), ("explain", 5, 200), ("node_page", 10, 200), ("kb", 2, 200),
    ("pipelines", 2, 200), ("explorer_page", 2, 200),
    ("bad_stage", 4, 400), ("file_spec", 4, 400), ("k_too_large", 3, 422),
    ("unknown_id", 3, 404), ("path_id", 3, 404), ("bad_where", 3, 400),
    ("query_too_long", 3, 422), ("body_too_large", 1, 413), ("malformed_json", 3, 422),
]


#: Other outcomes that are right for a kind: the server answers 413 to a body declared too
#: large before reading it and closes the connection, so a client still sending the body
#: may see the connection reset instead of the 413 (-1: a transport error).
ALSO_OK: dict[str, set[int]] = {"body_too_large": {-1}}



def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=2000)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--duration", type=float, default=30.0, help="seconds (upper bound)")
    p.add_argument("--max-requests", type=int, default=5000, help="requests (upper bound)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, default=None, help="write the result here")
    p.add_argument("--skb-root", type=Path, default=None,
                   help="dataset directory (skb/ + queries.jsonl), generated there if missing "
                        "and kept (default: a temporary one)")
    p.add_argument("--abusive", type=int, default=100, help="abusive 3.5 KB requests (0: none)")
    p.add_argument("--abandoned", type=int, default=10, help="abandoned enrich requests (0: none)")
    p.add_argument("--request-timeout", type=float, default=30.0, help="the server's deadline")
    p.add_argument("--filter-storm", type=float, default=0.0,
                   help="seconds of the 8-client filter storm (issue 31 phases instead of the mix)")
    p.add_argument("--update-every", type=float, default=0.0,
                   help="seconds between updates in the update phase (issue 31 phases)")
    p.add_argument("--phase-seconds", type=float, default=45.0,
                   help="length of the baseline and update phases")
    p.add_argument("--repeats", type=int, default=1,
                   help="baseline and update phases in turn this many times, their probes also "
                        "pooled (issue 31 phases; serve_reliability.py)")
    args = p.parse_args(argv)
    if not (1 <= args.clients <= 200 and 0 < args.duration <= 300 and 1 <= args.max_requests <= 50_000
            and 0 <= args.abusive <= 1000 and 0 <= args.abandoned <= 100 and 1 <= args.repeats <= 20):
        p.error("bounded load only: 1-200 clients, at most 300 s, 50,000 requests, 1,000 "
                "abusive and 100 abandoned ones")
    return args


def skb_command() -> list[str]:
    """The ``skb`` entry point of this interpreter's environment."""
    script = Path(sys.executable).with_name("skb")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from skbsearch.cli import main; sys.exit(main())"]


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prepare(root: Path, products: int, seed: int) -> tuple[list[str], list[str]]:
    """The demo catalogue under ``root`` (generated and BM25-indexed unless there): texts, ids."""
    if not (root / "skb" / "indexes" / "bm25" / "manifest.json").is_file():
        ds = generate_catalogue(products, n_queries=50, seed=seed)
        ds.save(root)
        subprocess.run([*skb_command(), "index", str(root / "skb"), "--kind", "bm25"], check=True,
                       capture_output=True, timeout=1800)
    texts = [q.text for q in read_queries(root / "queries.jsonl")]
    return texts, list(SKB.load(root / "skb").ids)


#: The admin token the update phase's server is started with.
ADMIN_TOKEN = "serve-load-admin-token-0123456789"


def start_server(root: Path, timeout_s: float) -> tuple[subprocess.Popen, str, Path]:
    """Start ``skb serve`` on the SKB under ``root`` (``POST /admin/update`` on, with
    :data:`ADMIN_TOKEN`); returns it, its URL and its log."""
    port = free_port()
    log_path = root / f"server-{port}.log"
    with log_path.open("w") as fh:
        proc = subprocess.Popen([*skb_command(), "serve", str(root / "skb"), "--host", "127.0.0.1",
                                 "--port", str(port), "--request-timeout", str(timeout_s)],
                                stdout=fh, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1",
                                     "SKB_ADMIN_TOKEN": ADMIN_TOKEN})
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return proc, base, log_path
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("server did not come up in 600 s")


def make_request(kind: str, rng: random.Random, texts: list[str], ids: list[str]) -> dict[str, Any]:
    """``{"method", "path", "json" | "content"}`` for one request of ``kind``."""
    q = rng.choice(texts)
    node = rng.choice(ids)
    post = {"method": "POST", "path": "/search"}
    table: dict[str, dict[str, Any]] = {
        "search_bm25": {**post, "json": {"query": q, "k": 10, "pipeline": "bm25"}},
        "search_graph": {**post, "json": {"query": q, "k": 10, "pipeline": "graph"}},
        "search_fused_filtered": {**post, "json": {
            "query": q, "k": 10, "pipeline": "(bm25 + graph(target=[product])) % 50",
            "types": ["product"], "where": "price < 150"}},
        "search_batch5": {**post, "json": {"queries": rng.sample(texts, 5), "k": 10}},
        "explain": {"method": "POST", "path": "/explain",
                    "json": {"query": q, "id": node, "pipeline": "graph"}},
        "node_page": {"method": "GET", "path": f"/nodes/{node}?limit=20"},
        "kb": {"method": "GET", "path": "/kb"},
        "pipelines": {"method": "GET", "path": "/pipelines"},
        "explorer_page": {"method": "GET", "path": "/"},
        "bad_stage": {**post, "json": {"query": q, "pipeline": "bm25 >> nosuchstage(k=3)"}},
        "file_spec": {**post, "json": {"query": q, "pipeline": "run('/etc/passwd')"}},
        "k_too_large": {**post, "json": {"query": q, "k": 5000}},
        "unknown_id": {"method": "POST", "path": "/explain", "json": {"query": q, "id": "no-such-node"}},
        "path_id": {"method": "GET", "path": "/nodes/..%2F..%2Fmeta.json"},
        "bad_where": {**post, "json": {"query": q, "where": "price <<< ((("}},
        "query_too_long": {**post, "json": {"query": "x" * 1500}},
        "body_too_large": {**post, "content": b'{"query": "' + b"x" * 1_100_000 + b'"}'},
        "malformed_json": {**post, "content": b'{"query": "unterminated'},
    }
    return table[kind]


async def client(cid: int, base: str, plan: dict[str, Any], out: list[tuple[str, int, float]]) -> None:
    """One client: send requests back to back until the shared budget or time runs out."""
    rng = random.Random(plan["seed"] * 1000 + cid)
    kinds = [k for k, _, _ in MIX]
    weights = [w for _, w, _ in MIX]
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        while time.monotonic() < plan["deadline"] and plan["sent"] < plan["max_requests"]:
            plan["sent"] += 1
            kind = rng.choices(kinds, weights)[0]
            req = make_request(kind, rng, plan["texts"], plan["ids"])
            headers = {"content-type": "application/json"} if "content" in req else None
            t0 = time.perf_counter()
            try:
                r = await http.request(req["method"], req["path"], json=req.get("json"),
                                       content=req.get("content"), headers=headers)
                status = r.status_code
            except httpx.TransportError:
                status = -1
            out.append((kind, status, 1000 * (time.perf_counter() - t0)))


def summarise(samples: list[tuple[str, int, float]], wall: float) -> dict[str, Any]:
    """Overall and per-kind counts and latency percentiles."""
    expected = {k: s for k, _, s in MIX}
    lat = np.array([ms for _, _, ms in samples])
    groups: dict[str, dict[str, Any]] = {}
    by_kind: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for kind, status, ms in samples:
        by_kind[kind].append((status, ms))
    for kind, rows in sorted(by_kind.items()):
        ms = np.array([m for _, m in rows])
        groups[kind] = {"n": len(rows), "expected_status": expected[kind],
                        "unexpected": sum(s != expected[kind] and s not in ALSO_OK.get(kind, ())
                                          for s, _ in rows),
                        "errors_5xx": sum(s >= 500 for s, _ in rows),
                        "p50_ms": round(float(np.percentile(ms, 50)), 2),
                        "p95_ms": round(float(np.percentile(ms, 95)), 2)}
    statuses = Counter(s for _, s, _ in samples)
    metrics = {
        "requests": len(samples), "wall_s": round(wall, 2),
        "requests_per_s": round(len(samples) / wall, 1),
        "server_errors_5xx": sum(n for s, n in statuses.items() if s >= 500),
        "unexpected_status": sum(g["unexpected"] for g in groups.values()),
        "transport_errors": statuses.get(-1, 0),
        "valid_share": round(sum(1 for k, _, _ in samples if expected[k] == 200) / max(len(samples), 1), 3),
    }
    groups["all requests"] = {"n": len(samples), "unexpected": metrics["unexpected_status"],
                              "errors_5xx": metrics["server_errors_5xx"],
                              "p50_ms": round(float(np.percentile(lat, 50)), 2),
                              "p95_ms": round(float(np.percentile(lat, 95)), 2),
                              "requests_per_s": metrics["requests_per_s"]}
    latency = {"p50": round(float(np.percentile(lat, 50)), 2), "p95": round(float(np.percentile(lat, 95)), 2),
               "p99": round(float(np.percentile(lat, 99)), 2), "mean": round(float(lat.mean()), 2)}
    return {"metrics": metrics, "groups": groups, "latency_ms": latency,
            "statuses": {str(k): v for k, v in sorted(statuses.items())}}


def run_load(args: argparse.Namespace, proc: subprocess.Popen, base: str, texts: list[str],
             ids: list[str]) -> tuple[list[tuple[str, int, float]], float, dict[str, Any], tuple]:
    """Warm up; phase 1: the abusive clients and the bm25 probe alone (the issue's scenario);
    phase 2: the normal clients beside the abusive ones and the probe. RSS sampled throughout."""
    for body in ({"query": texts[0], "pipeline": "graph"},  # warm-up: load both pipelines
                 {"query": texts[0], "pipeline": "(bm25 + graph(target=[product])) % 50",
                  "types": ["product"], "where": "price < 150"}):
        httpx.post(base + "/search", json=body, timeout=300).raise_for_status()
    idle_rss = rss_mb(proc.pid)
    rss: list[float] = []
    abuse: dict[str, Any] = {}
    samples: list[tuple[str, int, float]] = []
    log(f"idle RSS {idle_rss:.0f} MB; phase 1: {args.abusive} abusive and {args.abandoned} "
        "abandoned requests with a bm25 probe")
    load_before = os.getloadavg()[0]

    async def phase(normal: bool) -> dict[str, Any]:
        abusive: list[tuple[int, float]] = []
        abandoned: list[str] = []
        probe: list[tuple[int, float]] = []
        stop = asyncio.Event()
        side = [asyncio.create_task(bm25_probe(base, texts, stop, probe)),
                asyncio.create_task(rss_sampler(proc.pid, stop, rss))]
        plan = {"seed": args.seed, "deadline": time.monotonic() + args.duration,
                "max_requests": args.max_requests, "sent": 0, "texts": texts, "ids": ids}
        await asyncio.gather(
            *(client(c, base, plan, samples) for c in range(args.clients if normal else 0)),
            abusive_clients(base, texts, args.abusive, abusive),
            abandoned_clients(base, texts, args.abandoned, args.seed, abandoned))
        stop.set()
        await asyncio.gather(*side)
        return summarise_abuse(abusive, abandoned, probe, rss, idle_rss, args.request_timeout)

    abuse["alone"] = asyncio.run(phase(normal=False))
    log(f"phase 2: {args.clients} normal clients for at most {args.duration:g} s / "
        f"{args.max_requests} requests, beside the abusive ones")
    t0 = time.perf_counter()
    abuse["with_normal_clients"] = asyncio.run(phase(normal=True))
    wall = time.perf_counter() - t0
    return samples, wall, abuse, (load_before, os.getloadavg()[0])


def abuse_rows(abuse: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Table rows for the abusive requests and the bm25 probe of each phase."""
    rows = {}
    for phase, ph in abuse.items():
        ab, pr = ph["abusive"], ph["bm25_probe"]
        rows[f"abusive 3.5 KB spec ({phase})"] = {
            "n": ab["n"], "expected_status": 400,
            "unexpected": ab["n"] - int(ab["statuses"].get("400", 0)),
            "errors_5xx": ab["errors_5xx"], "p50_ms": ab["p50_ms"], "p95_ms": ab["p95_ms"]}
        rows[f"bm25 probe ({phase})"] = {
            "n": pr["n"], "expected_status": 200,
            "unexpected": pr["n"] - int(pr["statuses"].get("200", 0)),
            "errors_5xx": pr["errors_5xx"], "p50_ms": pr["p50_ms"], "p95_ms": pr["p95_ms"]}
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the load and print (and optionally write) the result; exit 1 on any 5xx."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skb-load-") as tmp:
        root = args.skb_root or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        log(f"the demo SKB ({args.products} products) and its BM25 index under {root}")
        texts, ids = prepare(root, args.products, args.seed)
        proc, base, log_path = start_server(root, args.request_timeout)
        if args.filter_storm or args.update_every:
            return reliability(args, proc, base, texts, product_records(SKB.load(root / "skb")),
                               log_path, ADMIN_TOKEN)
        try:
            run = run_load(args, proc, base, texts, ids)
            alive = proc.poll() is None and httpx.get(base + "/health", timeout=10).status_code == 200
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        server_log = log_path.read_text(errors="replace")
    samples, wall, abuse, (load_before, load_after) = run
    summary = summarise(samples, wall)
    summary["metrics"]["server_alive_after"] = alive
    summary["metrics"]["tracebacks_in_server_log"] = server_log.count("Traceback")
    summary["groups"].update(abuse_rows(abuse))
    summary["metrics"]["rss_peak_over_idle"] = max(ph["rss_mb"]["peak_over_idle"] for ph in abuse.values())
    result = {
        "benchmark": "serve_load",
        "config": {
            "title": ("HTTP service under concurrent load (skb serve, issues 11, 14 and 21)"
                      + (f", {args.products:,} products" if args.products != 2000 else "")),
            "order": 60, "percent": False, "overall_row": False,
            "protocol": ("real skb serve on 127.0.0.1 (default limits and worker lanes), demo "
                         f"catalogue of {args.products} products + BM25 index; {args.clients} "
                         "concurrent asyncio/httpx clients, seeded mix of valid and invalid "
                         "requests; client-side latency; bounded by time and request count; "
                         f"beside them {args.abusive} abusive 3.5 KB requests (10 clients), "
                         f"{args.abandoned} abandoned enrich requests, a bm25 probe every 0.5 s, "
                         "server RSS sampled every 0.25 s against its idle RSS after warm-up"),
            "note": ("Every invalid kind must get its 4xx and no request a 5xx. Load generator "
                     "and server share the same 2 cores with other jobs (1-minute load average "
                     f"{load_before:.1f} before, {load_after:.1f} after), so requests/s and "
                     "latencies are a floor. Refusals and /kb, /pipelines answer on the event "
                     "loop; searches, explains and node pages queue on worker lanes by cost "
                     "(light: bm25 and node pages; normal: graph; heavy: enrich, re-rankers), "
                     "so their latency is mostly their lane's queue. Phase 'alone': the "
                     "abusive and abandoned requests with the bm25 probe only; phase "
                     "'with_normal_clients': beside the normal clients (the 'all requests' row)."),
            "load_average": [round(load_before, 2), round(load_after, 2)],
            "command": (f"python benchmarks/serve_load.py --products {args.products} --clients {args.clients} --duration "
                        f"{args.duration:g} --max-requests {args.max_requests} --abusive {args.abusive} "
                        f"--abandoned {args.abandoned}"
                        + (f" --skb-root {args.skb_root}" if args.skb_root else "")
                        + (f" --json {args.json}" if args.json else "")),
            "request_timeout_s": args.request_timeout,
            "products": args.products, "clients": args.clients, "duration_s": args.duration,
            "max_requests": args.max_requests, "seed": args.seed, "cpu_count": os.cpu_count(),
            "versions": {"python": platform.python_version(), "httpx": httpx.__version__},
            "columns": ["n", "expected_status", "unexpected", "errors_5xx", "p50_ms", "p95_ms",
                        "requests_per_s"],
        },
        "metrics": summary["metrics"], "groups": summary["groups"],
        "latency_ms": summary["latency_ms"], "statuses": summary["statuses"],
        "abuse": abuse,
    }
    m = summary["metrics"]
    print(f"requests {m['requests']} in {m['wall_s']} s: {m['requests_per_s']} req/s; "
          f"5xx {m['server_errors_5xx']}; unexpected status {m['unexpected_status']}; "
          f"transport errors {m['transport_errors']}; latency p50 {summary['latency_ms']['p50']} ms, "
          f"p95 {summary['latency_ms']['p95']} ms, p99 {summary['latency_ms']['p99']} ms")
    for kind, g in summary["groups"].items():
        if kind == "all requests" or kind.startswith(("abusive", "bm25 probe")):
            continue
        print(f"  {kind:24s} n={g['n']:5d} status {g['expected_status']} unexpected {g['unexpected']:3d} "
              f"5xx {g['errors_5xx']} p50 {g['p50_ms']:8.2f} ms p95 {g['p95_ms']:8.2f} ms")
    errors_5xx = 0
    for name, ph in abuse.items():
        ab, pr, rs = ph["abusive"], ph["bm25_probe"], ph["rss_mb"]
        errors_5xx += ab["errors_5xx"] + pr["errors_5xx"]
        print(f"[{name}] abusive {ab['n']}: statuses {ab['statuses']}, p95 {ab['p95_ms']} ms, "
              f"max {ab['max_ms']} ms, within the deadline {ab['within_deadline']}; abandoned "
              f"{ph['abandoned']['outcomes']}; bm25 probe {pr['n']}: statuses {pr['statuses']}, "
              f"p50 {pr['p50_ms']} ms, p95 {pr['p95_ms']} ms, max {pr['max_ms']} ms; RSS idle "
              f"{rs['idle']} MB, peak {rs['peak']} MB ({rs['peak_over_idle']}x), last {rs['last']} MB")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        log(f"wrote {args.json}")
    ok = m["server_errors_5xx"] == 0 and errors_5xx == 0
    return 0 if ok and alive else 1


if __name__ == "__main__":
    sys.exit(main())

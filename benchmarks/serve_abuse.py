"""Abusive clients for ``serve_load.py`` (issue 21): costly specs, abandoned requests, probes.

- ``abusive``: the 3.5 KB request ``bm25(k=1000000) + graph(n_text=1000000,
  n_graph=1000000)`` over a batch of queries, sent ``--abusive`` times by a few clients;
  each must be refused (4xx) or answered within the server's deadline, never a 5xx.
- ``abandoned``: ``enrich(k=N)`` requests (a new ``N`` each) whose client gives up after
  ``ABANDON_AFTER`` seconds and closes the connection.
- ``probe``: one plain ``bm25`` query every ``PROBE_EVERY`` seconds while all that runs
  (it must answer within 1 s).
- ``rss``: the server's resident memory, sampled every ``RSS_EVERY`` seconds (peak and
  last, against the idle value taken after warm-up).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import Any

import httpx
import numpy as np
import psutil

ABUSIVE_SPEC = "bm25(k=1000000) + graph(n_text=1000000, n_graph=1000000)"
ABUSIVE_BODY_BYTES = 3_500
ABUSIVE_CLIENTS = 10
ABANDON_AFTER = 2.0
PROBE_EVERY = 0.5
RSS_EVERY = 0.25


def abusive_body(texts: list[str]) -> dict[str, Any]:
    """The abusive search: the costly spec over as many queries as make a 3.5 KB body."""
    body: dict[str, Any] = {"queries": [], "k": 10, "pipeline": ABUSIVE_SPEC}
    i = 0
    while len(json.dumps(body)) < ABUSIVE_BODY_BYTES:
        body["queries"].append(texts[i % len(texts)])
        i += 1
    return body


async def abusive_clients(base: str, texts: list[str], total: int,
                          out: list[tuple[int, float]]) -> None:
    """``total`` abusive requests from :data:`ABUSIVE_CLIENTS` clients: ``(status, ms)``."""
    body = abusive_body(texts)
    left = [total]

    async def one_client() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=300) as http:
            while left[0] > 0:
                left[0] -= 1
                t0 = time.perf_counter()
                try:
                    status = (await http.post("/search", json=body)).status_code
                except httpx.TransportError:
                    status = -1
                out.append((status, 1000 * (time.perf_counter() - t0)))

    await asyncio.gather(*(one_client() for _ in range(min(ABUSIVE_CLIENTS, total))))


async def abandoned_clients(base: str, texts: list[str], total: int, seed: int,
                            out: list[str]) -> None:
    """``total`` enrich requests, one at a time, each abandoned after :data:`ABANDON_AFTER` s."""
    rng = random.Random(seed)
    for _ in range(total):
        body = {"query": rng.choice(texts), "pipeline": f"enrich(k={rng.randint(10, 1000)})"}
        try:
            async with httpx.AsyncClient(base_url=base, timeout=ABANDON_AFTER) as http:
                r = await http.post("/search", json=body)
                out.append(str(r.status_code))
        except httpx.TimeoutException:
            out.append("abandoned")
        except httpx.TransportError:
            out.append("transport error")


async def bm25_probe(base: str, texts: list[str], stop: asyncio.Event,
                     out: list[tuple[int, float]]) -> None:
    """A plain ``bm25`` search every :data:`PROBE_EVERY` seconds until ``stop``."""
    i = 0
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        while not stop.is_set():
            t0 = time.perf_counter()
            try:
                r = await http.post("/search", json={"query": texts[i % len(texts)], "k": 10,
                                                     "pipeline": "bm25"})
                status = r.status_code
            except httpx.TransportError:
                status = -1
            out.append((status, 1000 * (time.perf_counter() - t0)))
            i += 1
            try:
                await asyncio.wait_for(stop.wait(), PROBE_EVERY)
            except TimeoutError:
                pass


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB."""
    return psutil.Process(pid).memory_info().rss / 2**20


async def rss_sampler(pid: int, stop: asyncio.Event, out: list[float]) -> None:
    """The server's RSS every :data:`RSS_EVERY` seconds until ``stop``."""
    while not stop.is_set():
        out.append(rss_mb(pid))
        try:
            await asyncio.wait_for(stop.wait(), RSS_EVERY)
        except TimeoutError:
            pass


def latency(ms: list[float]) -> dict[str, float]:
    """p50 / p95 / max of latencies in ms."""
    if not ms:
        return {"p50_ms": float("nan"), "p95_ms": float("nan"), "max_ms": float("nan")}
    a = np.asarray(ms)
    return {"p50_ms": round(float(np.percentile(a, 50)), 1),
            "p95_ms": round(float(np.percentile(a, 95)), 1), "max_ms": round(float(a.max()), 1)}


def summarise_abuse(abusive: list[tuple[int, float]], abandoned: list[str],
                    probe: list[tuple[int, float]], rss: list[float], idle_rss: float,
                    timeout_s: float) -> dict[str, Any]:
    """The abusive clients' outcome, the probe's latency and the server's memory."""
    lat = [ms for _, ms in abusive]
    return {
        "abusive": {"n": len(abusive), "statuses": dict(Counter(str(s) for s, _ in abusive)),
                    "errors_5xx": sum(s >= 500 for s, _ in abusive),
                    "within_deadline": all(ms <= 1000 * (timeout_s + 1) for ms in lat),
                    **latency(lat)},
        "abandoned": {"n": len(abandoned), "outcomes": dict(Counter(abandoned))},
        "bm25_probe": {"n": len(probe), "statuses": dict(Counter(str(s) for s, _ in probe)),
                       "errors_5xx": sum(s >= 500 for s, _ in probe),
                       **latency([ms for _, ms in probe])},
        "rss_mb": {"idle": round(idle_rss, 1), "peak": round(max(rss, default=idle_rss), 1),
                   "last": round(rss[-1] if rss else idle_rss, 1),
                   "peak_over_idle": round(max(rss, default=idle_rss) / idle_rss, 3)},
    }

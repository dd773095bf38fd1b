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
- ``filter storm`` (issue 31): :data:`STORM_CLIENTS` clients sending ``bm25`` searches whose
  ``where`` is a 1,000-character ``description ILIKE '%a%b%…'`` chain (a new chain each, so
  no cached filter helps), while the probe times plain ``bm25`` queries.
- ``updates`` (issue 31): one ``POST /admin/update`` every ``--update-every`` seconds
  (:data:`UPDATE_NODES` products re-priced), while the probe times plain ``bm25`` queries.
- :func:`phase`: the probe (every :data:`PHASE_PROBE_EVERY` s) and the RSS sampler beside
  a storm, the updates, or nothing (the baseline), for a fixed time (the phases, their
  pooling over repeats and the result: ``serve_reliability.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
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
STORM_CLIENTS = 8
STORM_WHERE_CHARS = 1_000
UPDATE_NODES = 20
PHASE_PROBE_EVERY = 0.2


def abusive_body(texts: list[str]) -> dict[str, Any]:
    """The abusive search: the costly spec over as many queries as make a 3.5 KB body."""
    body: dict[str, Any] = {"queries": [], "k": 10, "pipeline": ABUSIVE_SPEC}
    i = 0
    while len(json.dumps(body)) < ABUSIVE_BODY_BYTES:
        body["queries"].append(texts[i % len(texts)])
        i += 1
    return body



async def timed_search(http: httpx.AsyncClient, body: dict) -> tuple[int, float]:
    """POST ``body`` to /search: (status, ms); a dropped connection is status -1."""
    t0 = time.perf_counter()
    try:
        status = (await http.post("/search", json=body)).status_code
    except httpx.TransportError:
        status = -1
    return status, 1000 * (time.perf_counter() - t0)

async def abusive_clients(base: str, texts: list[str], total: int,
                          out: list[tuple[int, float]]) -> None:
    """``total`` abusive requests from :data:`ABUSIVE_CLIENTS` clients: ``(status, ms)``."""
    body = abusive_body(texts)
    left = [total]

    async def one_client() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=300) as http:
            while left[0] > 0:
                left[0] -= 1
                out.append(await timed_search(http, body))

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
                     out: list[tuple[int, float]], every: float = PROBE_EVERY) -> None:
    """A plain ``bm25`` search every ``every`` seconds until ``stop``."""
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
                await asyncio.wait_for(stop.wait(), every)
            except TimeoutError:
                pass


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB."""
    return psutil.Process(pid).memory_info().rss / 2**20


def cpu_s(pid: int) -> float:
    """CPU seconds a process has used (user + system, all its threads)."""
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


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


def storm_where(seed: int, chars: int = STORM_WHERE_CHARS) -> str:
    """``description ILIKE '%a%b%…%'`` of ``chars`` characters (letters drawn with ``seed``)."""
    rng = random.Random(seed)
    head, tail = "description ILIKE '%", "'"
    parts = [rng.choice("abcdefghijklmnop") + "%" for _ in range((chars - len(head) - len(tail)) // 2)]
    return head + "".join(parts) + tail


async def filter_storm(base: str, texts: list[str], seconds: float,
                       out: list[tuple[int, float]]) -> None:
    """:data:`STORM_CLIENTS` clients sending storm-filtered ``bm25`` searches for ``seconds``."""
    end = time.monotonic() + seconds
    sent = [0]

    async def one_client() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=300) as http:
            while time.monotonic() < end:
                sent[0] += 1
                body = {"query": texts[sent[0] % len(texts)], "k": 10, "pipeline": "bm25",
                        "where": storm_where(sent[0])}
                out.append(await timed_search(http, body))

    await asyncio.gather(*(one_client() for _ in range(STORM_CLIENTS)))


async def updater(base: str, token: str, products: list[dict[str, Any]], every: float,
                  stop: asyncio.Event, out: list[tuple[int, float, int]]) -> None:
    """One ``POST /admin/update`` re-pricing :data:`UPDATE_NODES` products every ``every``
    seconds until ``stop``: ``(status, ms, generation)`` each."""
    rng = random.Random(0)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, timeout=600) as http:
        while not stop.is_set():
            t0 = time.perf_counter()
            nodes = [{**p, "price": round(rng.uniform(1, 500), 2)} for p in rng.sample(products, UPDATE_NODES)]
            try:
                r = await http.post("/admin/update", json={"nodes": nodes}, headers=headers)
                status, gen = r.status_code, int(r.json().get("generation", -1)) if r.status_code == 200 else -1
            except httpx.TransportError:
                status, gen = -1, -1
            took = time.perf_counter() - t0
            out.append((status, 1000 * took, gen))
            try:
                await asyncio.wait_for(stop.wait(), max(0.0, every - took))
            except TimeoutError:
                pass


async def phase(base: str, texts: list[str], pid: int, seconds: float, *, storm: bool = False,
                update_every: float = 0.0, token: str = "",
                products: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The bm25 probe and RSS for ``seconds`` beside a filter storm, updates, or nothing; the
    server's CPU seconds per wall second and the machine's 1-minute load average at the end."""
    cpu0, wall0 = cpu_s(pid), time.perf_counter()
    stop = asyncio.Event()
    probe: list[tuple[int, float]] = []
    rss: list[float] = []
    stormed: list[tuple[int, float]] = []
    updates: list[tuple[int, float, int]] = []
    side = [asyncio.create_task(bm25_probe(base, texts, stop, probe, PHASE_PROBE_EVERY)),
            asyncio.create_task(rss_sampler(pid, stop, rss))]
    if update_every:
        side.append(asyncio.create_task(updater(base, token, products or [], update_every, stop, updates)))
    if storm:
        await filter_storm(base, texts, seconds, stormed)
    else:
        await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*side)
    out: dict[str, Any] = {
        "bm25_probe": {"n": len(probe), "statuses": dict(Counter(str(s) for s, _ in probe)),
                       "errors_5xx": sum(s >= 500 for s, _ in probe), **latency([ms for _, ms in probe]),
                       "ms": [round(ms, 2) for _, ms in probe]},
        "rss_mb": {"peak": round(max(rss, default=0.0), 1),
                   "mean": round(float(np.mean(rss)) if rss else 0.0, 1)},
        "server_cpu_per_s": round((cpu_s(pid) - cpu0) / (time.perf_counter() - wall0), 3),
        "load_avg_1m": round(os.getloadavg()[0], 2)}
    if storm:
        out["filter_storm"] = {"n": len(stormed), "statuses": dict(Counter(str(s) for s, _ in stormed)),
                               "errors_5xx": sum(s >= 500 for s, _ in stormed),
                               **latency([ms for _, ms in stormed])}
    if update_every:
        out["updates"] = {"n": len(updates), "statuses": dict(Counter(str(s) for s, _, _ in updates)),
                          "errors_5xx": sum(s >= 500 for s, _, _ in updates),
                          "last_generation": max((g for _, _, g in updates), default=-1),
                          **latency([ms for _, ms, _ in updates])}
    return out


def product_records(skb: Any, n: int = 500) -> list[dict[str, Any]]:
    """``n`` product nodes as update records (id, type, name, text fields, attributes)."""
    out = []
    for i in skb.nodes_of_type("product")[:n]:
        node = skb.node(int(i))
        out.append({"id": node.id, "type": node.type, "name": node.name, **node.fields,
                    **{k: v for k, v in node.attributes.items() if isinstance(v, (int, float, str))}})
    return out

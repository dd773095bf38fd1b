"""Fixtures for the service tests: real servers on 127.0.0.1 (see ``serving.py``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

if not all(importlib.util.find_spec(m) for m in ("fastapi", "uvicorn", "httpx")):
    # Without the [server] extra there is nothing to serve: skip the real-HTTP tests.
    collect_ignore_glob = ["test_http_*.py"]
else:
    from serving import SAVED_RUN_IDS, Served, ThreadServer, build_skb, start_skb_serve, stop

from skbsearch.synth.catalogue import CatalogueDataset


@pytest.fixture(scope="session")
def served(tmp_path_factory) -> Iterator[Served]:
    """One ``skb serve`` subprocess with default limits, shared by the read-only tests.

    Named pipelines: ``saved`` (a TREC run file on the server: trusted, so it may name a
    file) and ``fused`` (``(bm25 + graph) % 20``).
    """
    root = tmp_path_factory.mktemp("served")
    skb_dir = root / "skb"
    ds = build_skb(skb_dir, 200, seed=0)
    cwd = root / "server-cwd"
    cwd.mkdir()
    run_file = root / "saved.trec"
    run_file.write_text("".join(f"q0 Q0 {d} {r} {10 - r} saved\n"
                                for r, d in enumerate(SAVED_RUN_IDS, start=1)))
    proc, base = start_skb_serve(skb_dir, cwd, "--pipeline", f"saved=run('{run_file}')",
                                 "--pipeline", "fused=(bm25 + graph) % 20")
    try:
        yield Served(base, skb_dir, ds, cwd)
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def small_skb(tmp_path_factory) -> tuple[Path, CatalogueDataset]:
    """A 200-product SKB with a BM25 index, for in-thread servers."""
    skb_dir = tmp_path_factory.mktemp("thread-srv") / "skb"
    return skb_dir, build_skb(skb_dir, 200, seed=0)


@pytest.fixture
def thread_server() -> type[ThreadServer]:
    """The :class:`ThreadServer` class (use as ``with thread_server(app) as srv``)."""
    return ThreadServer

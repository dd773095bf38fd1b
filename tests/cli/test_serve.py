"""`skb serve` (cli/serve.py): the limits from its options (--workers sets the light and normal
lanes and half as many heavy ones), a bad value as one line naming the option's limit, and
the app it serves built from the options (named pipelines, allowed hosts, the admin token).
The socket server itself (uvicorn) is started by tests/server's real-HTTP tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import assert_clean_error, invoke

from skbsearch.cli.serve import _limits
from skbsearch.core.errors import InputError

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
from fastapi.testclient import TestClient  # noqa: E402


def test_workers_set_both_search_lanes_and_half_as_many_heavy() -> None:
    six = _limits(workers=6, heavy_workers=0)
    assert (six.search_workers, six.heavy_workers) == (6, 3)
    assert _limits(workers=1, heavy_workers=0).heavy_workers == 1
    both = _limits(workers=4, heavy_workers=3, max_k=50)
    assert (both.search_workers, both.heavy_workers, both.max_k) == (4, 3, 50)
    default = _limits(workers=0, heavy_workers=0)
    from skbsearch.server.limits import Limits

    assert default == Limits()
    with pytest.raises(InputError, match=r"max_batch must be a positive integer.*'skb serve --help'"):
        _limits(workers=0, heavy_workers=0, max_batch=0)


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> dict:
    """What ``skb serve`` hands to uvicorn instead of serving it (the app, host and port)."""
    import uvicorn

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    return seen


@pytest.fixture(scope="module")
def skb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from skbsearch.synth.catalogue import generate_catalogue

    d = tmp_path_factory.mktemp("serve") / "skb"
    generate_catalogue(40, seed=0, n_queries=1).skb.save(d)
    return d


def test_the_served_app_follows_the_options(skb_dir: Path, captured: dict, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("s3cret-admin-token-0123456789\n")
    r = invoke("serve", skb_dir, "--host", "127.0.0.1", "--port", "8123", "--pipeline", "top=bm25 % 3",
               "--allowed-hosts", "search.example", "--admin-token-file", token)
    assert r.exit_code == 0, r.output
    assert (captured["host"], captured["port"]) == ("127.0.0.1", 8123)
    client = TestClient(captured["app"], base_url="http://search.example")
    names = [p["name"] for p in client.get("/pipelines").json()["pipelines"]]
    assert names[:2] == ["bm25", "graph"] and "top" in names
    assert TestClient(captured["app"], base_url="http://evil.example").get("/health").status_code == 400
    assert client.post("/admin/update", json={}).status_code == 401  # on, and guarded


def test_bad_options_are_refused_before_anything_is_served(skb_dir: Path, captured: dict,
                                                           tmp_path: Path) -> None:
    assert_clean_error(invoke("serve", skb_dir, "--max-batch", "0"), "max_batch")
    assert_clean_error(invoke("serve", skb_dir, "--pipeline", "=bm25"), "--pipeline")
    (tmp_path / "short").write_text("abc")
    assert_clean_error(invoke("serve", skb_dir, "--admin-token-file", tmp_path / "short"),
                       "at least 16 characters")
    assert captured == {}

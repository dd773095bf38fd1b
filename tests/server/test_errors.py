"""Engine errors and unexpected exceptions reach the log, never the HTTP client."""

from __future__ import annotations

import pyarrow as pa
import pytest

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.server import create_app
from skbsearch.server.errors import INTERNAL_ERROR, public_error

httpx = pytest.importorskip("httpx")

SECRET = "root:x:0:0:secret-internals"


def engine_input_error() -> InputError:
    """An InputError wrapping an engine error the way a library call site would."""
    try:
        pa.array([SECRET]).cast(pa.int64())
    except pa.ArrowInvalid as e:
        try:
            raise InputError(f"SQL error: {e}", field="query") from None
        except InputError as wrapped:
            return wrapped
    raise AssertionError("the cast should fail")


def test_public_error_hides_engine_text():
    status, message = public_error(engine_input_error())
    assert status == 400 and SECRET not in message and "where" in message


def test_public_error_keeps_our_own_messages():
    try:
        {}["x"]
    except KeyError:
        try:
            raise InputError("unknown node type 'gadget'; types are ['product']", field="type") from None
        except InputError as e:
            ours = e
    assert public_error(ours) == (400, str(ours))
    assert public_error(InputError("bad row", file="/srv/data/x.jsonl"))[1].count("/srv") == 0
    assert public_error(ArtefactError("/srv/skb/indexes/bm25: damaged"))[0] == 503
    assert public_error(RuntimeError(SECRET)) == (500, INTERNAL_ERROR)
    assert len(public_error(InputError("q" * 10_000, field="where"))[1]) < 400


@pytest.mark.parametrize("exc", [engine_input_error, lambda: RuntimeError(SECRET),
                                 lambda: OSError(2, "No such file", f"/etc/{SECRET}")])
def test_search_failures_are_safe_over_http(small_skb, monkeypatch, thread_server, exc):
    def broken(self, skb):
        raise exc()

    monkeypatch.setattr(NodeFilter, "node_indices", broken)
    skb_dir, _ = small_skb
    with thread_server(create_app(skb_dir)) as srv:
        r = httpx.post(srv.base + "/search", timeout=30,
                       json={"query": "blue", "types": ["product"], "where": "price < 5"})
        assert r.status_code in (400, 500)
        assert SECRET not in r.text and "Traceback" not in r.text
        if r.status_code == 500:
            assert r.json() == {"detail": INTERNAL_ERROR}
        assert httpx.get(srv.base + "/health", timeout=10).status_code == 200

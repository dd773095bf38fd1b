"""``skb serve``'s cost options are checked before the server starts (one-line errors)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.server.limits import Limits


@pytest.mark.parametrize("args,word", [
    (["--request-timeout", "0"], "request_timeout"), (["--request-timeout", "-5"], "request_timeout"),
    (["--max-candidates", "0"], "max_candidates"), (["--pipeline-cache-mb", "0"], "pipeline_cache_bytes"),
    (["--heavy-workers", "-1"], "heavy_workers")])
def test_bad_cost_options_are_one_line_errors(small_skb, args, word):
    skb_dir, _ = small_skb
    r = CliRunner().invoke(app, ["serve", str(skb_dir), *args])
    assert r.exit_code != 0 and "Traceback" not in r.output and word in r.output, r.output


def test_limits_validate_the_new_fields():
    assert Limits(request_timeout=0.5, max_candidates=5).request_timeout == 0.5
    for bad in ({"request_timeout": 0}, {"request_timeout": True}, {"max_candidates": 0},
                {"heavy_workers": 0}, {"pipeline_cache_bytes": -1}):
        with pytest.raises(ValueError):
            Limits(**bad)


def test_serve_freezes_the_loaded_heap_before_it_listens(small_skb, monkeypatch):
    """The first snapshot is loaded, then every object alive is out of the cyclic collector's
    sight (a full collection over a 100K-node SKB stalled every request for 0.16-0.34 s)
    before uvicorn starts; the objects made after it are still collected."""
    import gc
    import weakref

    uvicorn = pytest.importorskip("uvicorn")
    skb_dir, _ = small_skb
    seen: list[int] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.append(gc.get_freeze_count()))
    try:
        r = CliRunner().invoke(app, ["serve", str(skb_dir)])
        assert r.exit_code == 0, r.output
        assert seen and seen[0] > 1000  # the loaded snapshot among them
        cycle = _Cycle()
        cycle.me = cycle  # a cycle made after the freeze: still collected
        ref = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert ref() is None
    finally:
        gc.unfreeze()


class _Cycle:
    me: object = None


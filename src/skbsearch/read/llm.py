"""LLM reader: the question and k documents in one prompt, to any chat LLM client.

The prompt follows the IMPLIRET RAG prompt (Taghavi et al., 2025, Figures 16-17):
numbered documents, each line ``<date>, <speaker>: <message>``, then the question and
"Answer:"; the reply's text after the last "Answer:" is the answer. Documents are cut
to fit ``max_context_chars`` (shared equally), so small local models with short context
windows still get every document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from skbsearch.enrich.base import EnrichedDocument

SYSTEM = "You answer questions from the given documents. Reply with the answer only."
TEMPLATE = """Task: Answer the Question based on the context provided.

Input:
- The INPUT contains several documents (conversations or forum responses).
- Each document is introduced by "Document <number>:".
- Each line contains the date, speaker and the message: <date>, <speaker>: <message>

Output: return the final answer in a new line after "Answer:" without any prefix or suffix.

INPUT:
{context}

Answer the following question as precisely as possible, using the information provided in the documents. You may rely on the content, the time each message was sent, and who sent it.

Question: {question}

Answer:"""


def parse_answer(reply: str) -> str:
    """The answer in an LLM reply: the text after the last "Answer:", first non-empty line."""
    parts = re.split(r"answer\s*:", reply, flags=re.I)
    tail = parts[-1] if len(parts) > 1 else reply
    for line in tail.strip().splitlines():
        line = line.strip().strip("*").strip()
        if line:
            return line
    return ""


def build_prompt(question: str, docs: Sequence[EnrichedDocument], max_context_chars: int | None = None) -> str:
    """The reader prompt; each document cut to an equal share of ``max_context_chars``."""
    share = max(80, max_context_chars // max(1, len(docs))) if max_context_chars else None
    blocks = []
    for i, d in enumerate(docs, start=1):
        text = d.text if share is None or len(d.text) <= share else d.text[:share].rstrip() + " …"
        blocks.append(f"Document {i}:\n{text}")
    return TEMPLATE.format(context="\n\n".join(blocks), question=question)


class LLMReader:
    """Answers with a chat LLM (an :class:`~skbsearch.llm.LLMClient`).

    Args:
        client: e.g. ``get_client("smollm2", n_ctx=8192)`` or an OpenAI-compatible client.
        max_tokens: answer length limit.
        max_context_chars: documents are cut to fit this many characters in all
            (``None``: no cut; mind the model's context window).
    """

    def __init__(self, client: Any, *, max_tokens: int = 32, max_context_chars: int | None = 6000) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.max_context_chars = max_context_chars
        self.name = f"llm:{getattr(client, 'model', 'model')}"

    def messages(self, question: str, docs: Sequence[EnrichedDocument]) -> list[dict[str, str]]:
        """The chat messages sent for one question."""
        return [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": build_prompt(question, docs, self.max_context_chars)}]

    def answer(self, question: str, docs: Sequence[EnrichedDocument]) -> str:
        """One answer."""
        return self.answer_many([(question, docs)])[0]

    def answer_many(self, items: Sequence[tuple[str, Sequence[EnrichedDocument]]]) -> list[str]:
        """One answer per ``(question, docs)`` pair (the client batches the calls)."""
        convs = [self.messages(q, docs) for q, docs in items]
        replies = self.client.chat(convs, max_tokens=self.max_tokens, temperature=0.0)
        return [parse_answer(r) for r in replies]

    def __repr__(self) -> str:
        return f"LLMReader({self.name}, max_context_chars={self.max_context_chars})"

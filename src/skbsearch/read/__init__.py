"""Readers: answers to a question from a few (enriched) documents.

A reader is anything with ``answer(question, docs) -> str`` and the batch form
``answer_many([(question, docs), ...]) -> list[str]``; ``docs`` are
:class:`~skbsearch.enrich.EnrichedDocument` s (plain readers use ``.text`` only).

- :class:`ExtractiveReader`: rules over the documents' derived facts (no model).
- :class:`LLMReader`: a prompt with the k documents to an OpenAI-compatible server or a
  local llama.cpp model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from skbsearch.enrich.base import EnrichedDocument
from skbsearch.read.extractive import ExtractiveReader
from skbsearch.read.llm import LLMReader, parse_answer


@runtime_checkable
class Reader(Protocol):
    """Answers questions from documents."""

    def answer(self, question: str, docs: Sequence[EnrichedDocument]) -> str:
        """One answer string (empty when there is none)."""
        ...

    def answer_many(self, items: Sequence[tuple[str, Sequence[EnrichedDocument]]]) -> list[str]:
        """One answer per ``(question, docs)`` pair."""
        ...


__all__ = ["ExtractiveReader", "LLMReader", "Reader", "parse_answer"]

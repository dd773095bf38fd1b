"""Retrievers: stages that map queries (and optionally a Run to re-score) to a Run."""

from __future__ import annotations

from skbsearch.retrieve.filters import NodeFilter, parse_types
from skbsearch.retrieve.sparse import BM25Retriever, evidence_lines

__all__ = ["BM25Retriever", "NodeFilter", "evidence_lines", "parse_types"]

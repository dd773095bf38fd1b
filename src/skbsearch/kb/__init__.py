"""Semi-structured knowledge bases: typed nodes with text, typed directed edges."""

from skbsearch.kb.builder import SKBBuilder
from skbsearch.kb.schema import RESERVED_COLUMNS, Node, Schema
from skbsearch.kb.store import SKB

__all__ = ["SKB", "SKBBuilder", "Schema", "Node", "RESERVED_COLUMNS"]

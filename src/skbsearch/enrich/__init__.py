"""Document-side enrichment at index time: temporal, arithmetic and gazetteer facts.

Enrichers read one document at a time (never queries) and add structured facts plus
normalised tokens to its index text; :mod:`skbsearch.enrich.constraints` parses the
matching constraints from queries and scores facts against them.
"""

from skbsearch.enrich.arithmetic import ArithmeticEnricher
from skbsearch.enrich.base import (
    EnrichedDocument,
    Enricher,
    Enrichment,
    Fact,
    enrich_documents,
    enrich_one,
)
from skbsearch.enrich.constraints import (
    Constraint,
    combine_scores,
    constraint_score,
    parse_constraints,
    topic_text,
)
from skbsearch.enrich.gazetteer import Gazetteer, GazetteerEnricher, load_wikidata_landmarks
from skbsearch.enrich.numbers import normalize_numbers, parse_number
from skbsearch.enrich.temporal import TemporalEnricher

__all__ = [
    "ArithmeticEnricher",
    "Constraint",
    "EnrichedDocument",
    "Enricher",
    "Enrichment",
    "Fact",
    "Gazetteer",
    "GazetteerEnricher",
    "TemporalEnricher",
    "combine_scores",
    "constraint_score",
    "enrich_documents",
    "enrich_one",
    "load_wikidata_landmarks",
    "normalize_numbers",
    "parse_constraints",
    "parse_number",
    "topic_text",
]

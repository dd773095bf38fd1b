"""Forum posts enriched with dates and prices: the documents the reader tests answer from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skbsearch.enrich import (
    ArithmeticEnricher,
    EnrichedDocument,
    TemporalEnricher,
    enrich_documents,
)


def enriched_docs(texts: list[str], extra: Sequence[Any] = ()) -> list[EnrichedDocument]:
    """The texts as documents ``"0"``, ``"1"``, … with the temporal and arithmetic facts
    (and those of the ``extra`` enrichers)."""
    ens = [TemporalEnricher(), ArithmeticEnricher(), *extra]
    return enrich_documents([(str(i), t) for i, t in enumerate(texts)], ens, progress=False)


FORUM = [
    "2024-02-29 09:01, Henry: I actually dedicated some time to reading two days ago, a nice change.",
    "2024-02-29 10:15, Noor: I started reading a novel seven days ago and was hooked.",
    "2024-02-29 11:30, Omar: I was journaling yesterday evening.",
]


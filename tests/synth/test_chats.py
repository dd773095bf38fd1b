"""The synthetic chat generator: seeded, one positive per query."""

from __future__ import annotations

from skbsearch.synth.chats import generate_chats


def test_generate_chats_is_seeded_and_one_positive_per_query():
    a, b = generate_chats(seed=3), generate_chats(seed=3)
    assert a.documents == b.documents and [q.text for q in a.queries] == [q.text for q in b.queries]
    assert len(a.queries) == len(a.documents) == 18
    assert all(len(v) == 1 and next(iter(v)) in a.documents for v in a.qrels.values())
    assert generate_chats(seed=4).documents != a.documents

"""Entity linking: brackets, n-gram longest match, duplicate names."""

from __future__ import annotations

import numpy as np

from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.exact_linker import (
    MASK,
    EntityLinker,
    bracket_mentions,
    normalise,
    strip_brackets,
)


def dup_kb() -> SKB:
    """Two nodes named "Richard Brooks" (person, tag), one "Richard Brooks" movie duplicate id."""
    ids = ["p:rb", "t:rb", "m:x", "m:y", "m:z", "p:rb2", "m:cafe"]
    types = ["person", "tag", "movie", "movie", "movie", "person", "movie"]
    names = ["Richard Brooks", "richard brooks", "Blackboard Jungle", "In Cold Blood",
             "Different Story", "Richard Brooks", "Café Society"]
    src = np.array([2, 3, 4, 2, 3])
    dst = np.array([0, 0, 1, 5, 1])
    rel = np.array(["directed_by", "directed_by", "has_tags", "written_by", "has_tags"])
    return SKB.from_columns(ids, types, names, edges=(src, rel, dst))


def test_normalise_and_brackets() -> None:
    assert normalise("  Café  Society!! ") == "cafe society"
    assert bracket_mentions("who directed [Kismet] and [Café Society]") == ["Kismet", "Café Society"]
    assert strip_brackets("who directed [Kismet]") == "who directed Kismet"


def test_duplicate_names_return_all_candidates_ranked() -> None:
    skb = dup_kb()
    lk = EntityLinker(skb)
    cands = lk.lookup("Richard Brooks")
    assert [skb.ids[c.node] for c in cands] == ["p:rb", "p:rb2", "t:rb"]
    assert [c.exact for c in cands] == [True, True, False]
    # exact matches first; among them the higher-degree person (2 edges vs 1)
    assert cands[0].score > cands[1].score > 0 and abs(sum(c.score for c in cands) - 1) < 1e-9
    assert [skb.ids[c.node] for c in lk.lookup("richard brooks")][0] == "t:rb"
    assert lk.lookup("nobody") == []


def test_bracket_linking_masks_only_the_mention() -> None:
    lk = EntityLinker(dup_kb())
    res = lk.link("what different films did [Richard Brooks] direct")
    assert res.best is not None and res.best.text == "Richard Brooks"
    assert len(res.best.candidates) == 3
    assert res.masked == f"what different films did {MASK} direct"


def test_ngram_longest_match_without_brackets() -> None:
    skb = dup_kb()
    lk = EntityLinker(skb)
    res = lk.link("who directed [In Cold Blood]", mode="ngram")
    assert res.best is not None and res.best.text == "in cold blood"
    assert [skb.ids[c.node] for c in res.best.candidates] == ["m:y"]
    assert res.masked == f"who directed {MASK}"
    res = lk.link("which films are tagged cafe society")  # accents normalised away
    assert res.best is not None and skb.ids[res.best.candidates[0].node] == "m:cafe"
    assert lk.link("what are the films").mentions == ()


def test_background_questions_downweight_template_words() -> None:
    skb = dup_kb()
    lk = EntityLinker(skb)
    # "Different Story" is a name, but "different movie" is template wording here
    background = [f"name a different story like [{x}]" for x in "abcdefghij"]
    q = "name a different story like richard brooks"
    before = lk.link(q, mode="ngram")
    assert before.best is not None and before.best.text == "different story"
    lk.fit_background(background)
    after = lk.link(q, mode="ngram")
    assert after.best is not None and after.best.text == "richard brooks"

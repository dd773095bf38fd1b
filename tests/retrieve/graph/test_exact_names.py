"""Linking by whole names (the linker's exact-name part): brackets, n-gram longest match,
duplicate names; reached through the one linker, :class:`NameLinker`."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import skbsearch
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.exact_names import (
    MASK,
    ExactNames,
    bracket_mentions,
    normalise,
    strip_brackets,
)
from skbsearch.retrieve.graph.linking import NameLinker

SRC = Path(skbsearch.__file__).parent


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
    lk = NameLinker(skb)
    cands = lk.lookup("Richard Brooks")
    assert [skb.ids[c.node] for c in cands] == ["p:rb", "p:rb2", "t:rb"]
    assert [c.exact for c in cands] == [True, True, False]
    # exact matches first; among them the higher-degree person (2 edges vs 1)
    assert cands[0].score > cands[1].score > 0 and abs(sum(c.score for c in cands) - 1) < 1e-9
    assert [skb.ids[c.node] for c in lk.lookup("richard brooks")][0] == "t:rb"
    assert lk.lookup("nobody") == []


def test_bracket_linking_masks_only_the_mention() -> None:
    lk = NameLinker(dup_kb())
    res = lk.link_exact("what different films did [Richard Brooks] direct")
    assert res.best is not None and res.best.text == "Richard Brooks"
    assert len(res.best.candidates) == 3
    assert res.masked == f"what different films did {MASK} direct"


def test_ngram_longest_match_without_brackets() -> None:
    skb = dup_kb()
    lk = NameLinker(skb)
    res = lk.link_exact("who directed [In Cold Blood]", mode="ngram")
    assert res.best is not None and res.best.text == "in cold blood"
    assert [skb.ids[c.node] for c in res.best.candidates] == ["m:y"]
    assert res.masked == f"who directed {MASK}"
    res = lk.link_exact("which films are tagged cafe society")  # accents normalised away
    assert res.best is not None and skb.ids[res.best.candidates[0].node] == "m:cafe"
    assert lk.link_exact("what are the films").mentions == ()


def test_background_questions_downweight_template_words() -> None:
    skb = dup_kb()
    lk = NameLinker(skb)
    # "Different Story" is a name, but "different movie" is template wording here
    background = [f"name a different story like [{x}]" for x in "abcdefghij"]
    q = "name a different story like richard brooks"
    before = lk.link_exact(q, mode="ngram")
    assert before.best is not None and before.best.text == "different story"
    lk.fit_background(background)
    after = lk.link_exact(q, mode="ngram")
    assert after.best is not None and after.best.text == "richard brooks"


def test_the_linker_owns_its_exact_part_and_shares_it() -> None:
    skb = dup_kb()  # never saved: its name index and tables are built in memory
    lk = NameLinker(skb)
    assert isinstance(lk.exact, ExactNames)
    assert lk.lookup("Richard Brooks") == lk.exact.lookup("Richard Brooks")
    texts = ["who directed [In Cold Blood]", "which films are tagged cafe society"]
    assert lk.link_exact_many(texts, "ngram", 2) == [lk.link_exact(t, "ngram", 2) for t in texts]
    # the anchors of a bracketed mention are the candidates of its exact link
    anchors = [a for a in lk.link("what did [Richard Brooks] direct") if a.source == "bracket"]
    best = lk.link_exact("what did [Richard Brooks] direct").best
    assert best is not None and [a.node for a in anchors] == [c.node for c in best.candidates]
    # a second linker shares the name tables but learns its own template words
    other = NameLinker(skb, lk.names, exact=lk.exact)
    other.fit_background(["name a different story like [x]"] * 3)
    assert other.exact.background is not None and lk.exact.background is None


def test_one_linker_type_outside_the_graph_stage() -> None:
    """Only the linker (and the graph stage, which shares its tables between stages) builds
    the exact-name part; nothing in the package constructs another linker class."""
    builders = set()
    for f in SRC.rglob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ExactNames":
                builders.add(f.relative_to(SRC).as_posix())
            assert not (isinstance(n, ast.Name) and n.id == "EntityLinker"), f
    assert builders == {"retrieve/graph/linking.py", "retrieve/graph/retriever.py"}

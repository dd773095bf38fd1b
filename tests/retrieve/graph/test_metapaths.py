"""Metapaths: the type graph, following with no return, witnesses, mining from answers."""

from __future__ import annotations

import numpy as np
import pytest
from kg_fixtures import movies, shop

from skbsearch.retrieve.graph.metapaths import TypeGraph, mine_metapaths


@pytest.fixture(scope="module")
def kb():
    return movies()


@pytest.fixture(scope="module")
def tg(kb):
    return TypeGraph(kb)


def _idx(kb, *names):
    return [int(kb.index_of(n)) for n in names]


def test_type_graph_steps_and_enumeration(tg):
    steps = dict(tg.steps_from["person"])
    assert set(steps) == {"directed_by^-1", "starred_actors^-1"}
    assert steps["starred_actors^-1"] == frozenset({"movie"})
    two = tg.enumerate("person", 2, ["person"])
    assert ("person", "starred_actors^-1", "directed_by") in two
    assert all(len(p) <= 3 for p in two)
    assert tg.end_types(("person", "starred_actors^-1", "has_genre")) == frozenset({"genre"})
    assert tg.end_types(("person", "has_genre")) == frozenset()


def test_follow_never_returns_to_the_seed(kb, tg):
    colman = _idx(kb, "Ronald Colman")[0]
    co = tg.follow(colman, ("person", "starred_actors^-1", "starred_actors"))
    assert sorted(kb.ids[i] for i in co) == ["Greer Garson", "Marlene Dietrich"]
    with_self = tg.follow(colman, ("person", "starred_actors^-1", "starred_actors"), no_return=False)
    assert colman in with_self.tolist()
    assert len(tg.follow(colman, ("person", "starred_actors^-1"), max_frontier=1)) == 0


def test_witness_chain(kb, tg):
    colman, dieterle = _idx(kb, "Ronald Colman", "William Dieterle")
    chain = tg.witness(colman, ("person", "starred_actors^-1", "directed_by"), dieterle)
    assert [kb.ids[i] for i in chain] == ["Ronald Colman", "Kismet", "William Dieterle"]
    assert tg.witness(colman, ("person", "starred_actors^-1", "directed_by"), _idx(kb, "Paul Muni")[0]) is None


def test_mining_finds_the_path_that_reaches_the_answers(kb, tg):
    colman, muni, drama = _idx(kb, "Ronald Colman", "Paul Muni", "Drama")
    directors = np.array(_idx(kb, "William Dieterle", "Mervyn LeRoy"))
    costars = np.array(_idx(kb, "Marlene Dietrich", "Greer Garson"))
    mined = mine_metapaths(tg, [colman, colman, muni, drama], [directors, costars, directors, costars])
    assert mined[0].path == ("person", "starred_actors^-1", "directed_by") and mined[0].f1 == 1.0
    assert mined[1].path == ("person", "starred_actors^-1", "starred_actors")
    # Paul Muni's films reach Dieterle only: recall 1/2 and F1 2/3, still the best path
    assert mined[2].path == ("person", "starred_actors^-1", "directed_by") and mined[2].recall == 0.5
    # Drama's films have Dietrich but not Garson, and reaching all actors says nothing
    assert mined[3].path[0] == "genre"
    assert all(m.path[0] == kb.type_names[kb.node_type_codes[s]] for m, s in
               zip(mined, [colman, colman, muni, drama], strict=True))


def test_mining_gives_no_path_when_nothing_informative_reaches_the_answers(kb, tg):
    dieterle = _idx(kb, "William Dieterle")[0]
    genres = np.array(_idx(kb, "Drama", "Romance"))  # every genre: uninformative
    mined = mine_metapaths(tg, [dieterle], [genres])
    assert mined[0].path == ("person",) and mined[0].f1 == 0.0


def test_mining_prefers_the_shorter_of_equally_good_paths():
    kb = shop()
    tg = TypeGraph(kb)
    acme = int(kb.index_of("brand:acme"))
    acme_products = np.array([int(kb.index_of(p)) for p in ("p1", "p2", "p3", "p4")])
    mined = mine_metapaths(tg, [acme], [acme_products])
    assert mined[0].path == ("brand", "has_brand^-1") and mined[0].tied[0] == mined[0].path

"""Readable names for KG ids: relation paths and texts, nouns of relations, entity ids."""

from __future__ import annotations

import pytest

from skbsearch.kb.loaders.kg_names import (
    entity_name,
    head_noun_of,
    noun_of,
    path_type,
    relation_names,
)


def test_path_relations_read_as_their_property():
    ids = ["/film/film/directed_by", "/people/person/place_of_birth",
           "/film/film/release_date_s./film/film_regional_release_date/film_release_region",
           "/award/award_category/category_of",
           "/sports/sports_team/roster./american_football/football_historical_roster_position/position_s"]
    assert relation_names(ids, [None] * 5) == [
        "directed by", "place of birth", "release region", "category of", "position"]
    assert path_type("/base/popstra/celebrity/dated") == "celebrity"


def test_shared_names_are_qualified_never_duplicated():
    ids = ["/film/actor/film./film/performance/film", "/film/director/film",
           "/soccer/football_team/current_roster./sports/sports_team_roster/position",
           "/soccer/football_team/current_roster./soccer/football_roster_position/position",
           "/ice_hockey/hockey_team/current_roster./sports/sports_team_roster/position"]
    names = relation_names(ids, [None] * len(ids))
    assert len(set(names)) == len(names)
    assert names[:2] == ["film (actor)", "film (director)"]
    assert names[4] == "position (hockey team)"
    assert all("/" not in n for n in names)


def test_ids_with_texts_and_word_ids():
    assert relation_names(["P19", "_member_of_domain_usage", "isLocatedIn", "P9"],
                          ["place of  birth", None, None, "goes to^-1"]) == [
        "place of birth", "member of domain usage", "is located in", "goes to"]  # ^-1 is reserved
    # two ids with one text stay apart by their ids
    assert relation_names(["P1", "P2"], ["country", "country"]) == ["country (P1)", "country (P2)"]


@pytest.mark.parametrize("name,noun", [
    ("place of birth", "place"), ("has gender", "gender"), ("genre", "genre"),
    ("directed by", None), ("is located in", None), ("directed", None), ("created", None),
])
def test_noun_of(name, noun):
    assert noun_of(name) == noun


@pytest.mark.parametrize("name,noun", [
    ("is citizen of", "citizen"), ("is part of", "part"), ("was a member of", "member"),
    ("is located in", None), ("was born in", None), ("is married to", None), ("is similar to", None),
    ("has gender", None), ("place of birth", None), ("acted in", None), ("is", None),
])
def test_head_noun_of(name, noun):
    assert head_noun_of(name) == noun


@pytest.mark.parametrize("eid,name", [
    ("/m/06rf7", "/m/06rf7"), ("Q42", "Q42"), ("00260881", "00260881"),
    ("Barack_Obama", "Barack Obama"), ("2010_FIFA_World_Cup", "2010 FIFA World Cup"),
])
def test_entity_name(eid, name):
    assert entity_name(eid) == name

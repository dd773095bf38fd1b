"""Fusing a relational requirement and properties into a query without an LLM
(``synth.queries.text``): the role from the node types (and their counts), plurals with their
verbs, the properties clause, and one sentence per query with every slot filled once."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.synth.queries.properties import Property
from skbsearch.synth.queries.text import (
    SENTENCES,
    auto_role,
    check_role,
    fuse,
    plural,
    props_clause,
)


def test_the_role_follows_the_node_types() -> None:
    assert auto_role(["product", "brand", "category"]) == "customer"
    assert auto_role(["disease", "drug", "anatomy"]) == "doctor"
    assert auto_role(["movie", "person"]) == "researcher"
    # with counts: 39 diseases among 14,500 films and people do not make a doctor
    assert auto_role(["movie", "person", "disease"], [9000, 5500, 39]) == "researcher"
    assert auto_role(["product", "drug"], [300, 100]) == "customer" and auto_role(["product", "drug"], [100, 300]) == "doctor"
    assert check_role("auto", ["product"]) == "customer" and check_role("doctor", ["product"]) == "doctor"
    with pytest.raises(InputError, match="unknown role 'pirate'") as e:
        check_role("pirate", ["product"])
    assert e.value.field == "role"


@pytest.mark.parametrize(("noun", "plural_form"), [
    ("jacket", "jackets"), ("city", "cities"), ("day", "days"), ("box", "boxes"), ("church", "churches"),
    ("water bottle", "water bottles"), ("thing that plays for", "things that play for"),
    ("thing that is located in", "things that are located in"), ("thing with gender", "things with gender"),
    ("thing something acted in", "things something acted in")])
def test_plural(noun: str, plural_form: str) -> None:
    assert plural(noun) == plural_form


def test_the_properties_clause() -> None:
    rng = np.random.default_rng(0)
    text = Property("mesh vents", "text", "description", ("mesh", "vents"))
    rel = Property("with genre Western", "relation", "has_genre", ("western",), "has_genre", 4)
    llm = Property("the jacket has taped seams.", "llm", "description")
    clause = props_clause([text, rel, llm], rng)
    assert clause.startswith(", ") and clause.endswith(" and with genre Western and that has taped seams")
    assert any(clause == f", {c.format('mesh vents')} and with genre Western and that has taped seams"
               for c in ("with {}", "featuring {}", "that mentions {}", "described as having {}"))
    assert props_clause([], rng) == ""


def test_one_query_with_every_slot_filled_once() -> None:
    props = [Property("hiking jacket", "category", "name", ("hiking", "jacket")),
             Property("mesh vents", "text", "description", ("mesh", "vents"))]
    seen = set()
    for seed in range(30):
        q = fuse("customer", "hiking_jacket", "from brand {Foxfield}", props, np.random.default_rng(seed))
        assert "{Foxfield}" in q and "hiking jacket" in q and "mesh vents" in q  # a name's braces kept as they are
        assert not any(s in q for s in ("{a_subject}", "{subject}", "{subjects}", "{rel}", "{props}"))
        seen.add(q.split(" hiking")[0])
    assert len(seen) > 1  # several sentence templates
    cities = fuse("researcher", "city", "in Norway", [], np.random.default_rng(1))
    assert cities in {s.format(subjects="cities", rel="in Norway", props="") for s in SENTENCES["researcher"]}
    assert "headphones" in fuse("researcher", "headphones", "by Acme", [], np.random.default_rng(2))

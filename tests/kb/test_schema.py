"""The SKB schema: relation directions and the meta.json round trip of a Schema."""

from __future__ import annotations

import json

from skbsearch.kb.schema import INVERSE_SUFFIX, Node, Schema, inverse, split_direction


def test_inverse_is_its_own_inverse() -> None:
    assert inverse("starred_actors") == "starred_actors^-1"
    assert inverse("starred_actors^-1") == "starred_actors"
    assert inverse(inverse("r")) == "r"
    assert INVERSE_SUFFIX == "^-1"


def test_split_direction_names_the_relation_and_whether_it_walks_backwards() -> None:
    assert split_direction("directed_by") == ("directed_by", False)
    assert split_direction("directed_by^-1") == ("directed_by", True)
    assert split_direction("a^-1^-1") == ("a^-1", True)  # one suffix at a time


def test_a_schema_survives_json_and_old_meta_files_miss_keys() -> None:
    s = Schema(node_types=["movie", "person"], relations=["directed_by"], text_fields=["plot"],
               attributes={"year": "int64"}, relation_roles={"directed_by": ["movie", None]})
    assert Schema.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert Schema.from_dict({"node_types": ["movie"]}) == Schema(node_types=["movie"])


def test_nodes_get_their_own_field_dicts() -> None:
    a, b = Node("m1", "movie", "Heat"), Node("m2", "movie", "Kismet")
    a.fields["plot"] = "A heist."
    assert b.fields == {} and b.attributes == {}

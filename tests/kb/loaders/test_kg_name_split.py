"""A names column holding ``name, text`` values is detected and split; plain names are not."""

from __future__ import annotations

import pyarrow as pa
import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders.kg_name_split import detect_separator, split_names


def test_glosses_are_split_and_reported():
    col = pa.array(["stool, solid excretory product evacuated from the bowels",
                    "saxony, an area in Germany around the upper Elbe river",
                    "genus calluna, one species", None,
                    "chieftainship, the position of chieftain"])
    names, texts, done = split_names(col)
    assert names.to_pylist() == ["stool", "saxony", "genus calluna", None, "chieftainship"]
    assert texts.to_pylist()[0] == "solid excretory product evacuated from the bowels"
    assert texts.to_pylist()[3] is None
    assert (done.separator, done.split, done.total) == (", ", 4, 4)
    assert done.as_meta()["example"]["name"] == "stool"


@pytest.mark.parametrize("values", [
    ["Paris, Texas", "Washington, D.C.", "Tom Hanks", "Smith, John", "Steven Spielberg"],
    ["dog", "cat", "a b c d e f g h", "x"],
])
def test_plain_names_are_kept(values):
    col = pa.array(values)
    names, texts, done = split_names(col)
    assert texts is None and done.separator is None and names.to_pylist() == values


def test_a_minority_of_name_text_values_is_no_layout():
    col = pa.array(["Paris, the capital of France since long ago"] + [f"Name {i}" for i in range(9)])
    assert detect_separator(col)[0] is None
    assert split_names(col)[1] is None


def test_modes():
    col = pa.array(["dog - a domestic animal kept by people", "cat - a small feline pet"])
    assert detect_separator(col)[0] == " - "
    assert split_names(col, "no")[1] is None
    names, _, done = split_names(pa.array(["a | b c d", "e"]), " | ")
    assert names.to_pylist() == ["a", "e"] and done.split == 1
    with pytest.raises(InputError):
        split_names(col, "")

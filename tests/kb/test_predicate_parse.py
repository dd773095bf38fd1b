"""The ``--where`` language's parser: the expression tree it builds, the SQL text it prints
(identifiers and strings quoted), and errors that say where the text went wrong."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.predicate_parse import (
    Between,
    BoolOp,
    Column,
    Compare,
    InList,
    IsNull,
    Like,
    Literal,
    Not,
    parse_predicate,
    to_sql,
)


def test_the_tree_of_a_predicate() -> None:
    assert parse_predicate("name = 'it''s' AND price < 20") == BoolOp("AND", (
        Compare("equal", Column("name"), Literal("it's")), Compare("less", Column("price"), Literal(20))))
    assert parse_predicate('"my col" OR NOT price BETWEEN 1 AND 2') == BoolOp("OR", (
        Column("my col"), Not(Between(Column("price"), Literal(1), Literal(2), negated=False))))
    assert parse_predicate("stock NOT IN (1, 2)") == InList(Column("stock"), (Literal(1), Literal(2)),
                                                            negated=True)
    assert parse_predicate("name ILIKE 'W%'") == Like(Column("name"), "W%", negated=False,
                                                      ignore_case=True)
    assert parse_predicate("price IS NOT NULL") == IsNull(Column("price"), negated=True)


@pytest.mark.parametrize(("text", "sql"), [
    ("name = 'it''s' AND price < 20", "(\"name\" = 'it''s' AND \"price\" < 20)"),
    ("x <> 2 and y != 3 and z == 4", '("x" != 2 AND "y" != 3 AND "z" = 4)'),
    ('"we""ird" = 1', '"we""ird" = 1'),
    ("name NOT LIKE 'W%' OR price IS NULL", "(\"name\" NOT LIKE 'W%' OR \"price\" IS NULL)"),
    ("NOT (a OR b)", 'NOT (("a" OR "b"))'),
])
def test_the_sql_text_quotes_identifiers_and_strings(text: str, sql: str) -> None:
    assert to_sql(parse_predicate(text)) == sql
    assert parse_predicate(to_sql(parse_predicate(text))) == parse_predicate(text)  # reads back


@pytest.mark.parametrize(("text", "says"), [
    ("price <", "expected a column or a literal at the end in predicate 'price <'"),
    ("price < 1 OR OR", "expected a column or a literal at position 14 (OR)"),
    ("name = 'open", "unexpected character \"'\" at position 8"),
    ("a.b = 1", "unexpected character '.' at position 2"),
])
def test_errors_name_the_position_and_the_field(text: str, says: str) -> None:
    with pytest.raises(InputError) as e:
        parse_predicate(text)
    assert says in str(e.value) and e.value.field == "where"


def test_columns_are_checked_only_when_given() -> None:
    assert parse_predicate("colour = 'red'") == Compare("equal", Column("colour"), Literal("red"))
    with pytest.raises(InputError, match="unknown column 'colour'"):
        parse_predicate("colour = 'red'", {"price"})


@pytest.mark.parametrize("text, shown, at", [
    ("price < 1e999", "1e999", 9),
    ("price > -1E400", "1E400", 10),
    ("price IN (1, 2.5e309)", "2.5e309", 14),
    ("price < " + "9" * 400, "9" * 20 + "...", 9),  # an int no float holds
    ("price < " + "9" * 5000, "9" * 20 + "...", 9),  # more digits than Python reads
])
def test_numbers_beyond_a_float_are_refused_not_read_as_infinity(text: str, shown: str, at: int) -> None:
    with pytest.raises(InputError) as e:
        parse_predicate(text)
    assert f"the number {shown} at position {at} is beyond the range of a 64-bit float" in str(e.value)
    assert e.value.field == "where"
    # the largest and the smallest floats are numbers like any other
    assert parse_predicate("price < 1.7e308 AND price > 1e-999") == BoolOp("AND", (
        Compare("less", Column("price"), Literal(1.7e308)), Compare("greater", Column("price"), Literal(0.0))))

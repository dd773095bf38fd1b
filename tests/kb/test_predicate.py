"""The ``--where`` predicate language: parsed, allow-listed, never SQL."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from skbsearch.core.errors import InputError, SkbError
from skbsearch.kb.predicate import parse_predicate, select_mask, to_sql
from skbsearch.kb.store import SKB

ATTACKS = [
    "CAST((SELECT content FROM read_text('/etc/passwd')) AS INTEGER) = 1",
    "1=1); COPY (SELECT 'echo pwned' AS x) TO 'evil.sh' (HEADER false, QUOTE ''); "
    "SELECT id FROM nodes WHERE (1=1",
    "price < 20) OR (1=1",
    "price < 20; DROP TABLE nodes",
    "read_text('/etc/passwd') IS NOT NULL",
    "(SELECT 1) = 1",
    "price < 20 -- comment",
    "price < 20 /* c */",
    "name = 'x' || 'y'",
    "price + 1 < 20",
    "\"price\" < 20 AND getenv('HOME') = ''",
]


def _table() -> pa.Table:
    return pa.table({
        "id": ["a", "b", "c", "d", "e"],
        "type": pa.array(["product", "product", "brand", "product", "brand"]).dictionary_encode(),
        "name": ["Widget [/b]", "Gadget", "Acme", "it's", None],
        "price": [10.0, 25.5, None, 19.99, 3.0],
        "stock": [1, 0, 5, None, 2],
        "my col": [True, False, None, True, False],
    })


def _skb() -> SKB:
    t = _table()
    return SKB.from_columns(
        t.column("id").to_pylist(), t.column("type").cast(pa.string()).to_pylist(),
        [x or "" for x in t.column("name").to_pylist()],
        attributes={"price": t.column("price").to_pylist(), "stock": t.column("stock").to_pylist()},
    )


@pytest.mark.parametrize("text, expected", [
    ("price < 20", ["a", "d", "e"]),
    ("price < 20 AND type = 'product'", ["a", "d"]),
    ("NOT price < 20", ["b"]),  # NULL price is neither
    ("price IS NULL", ["c"]),
    ("price IS NOT NULL AND stock IS NULL", ["d"]),
    ("stock IN (0, 5)", ["b", "c"]),
    ("stock NOT IN (0, 5)", ["a", "e"]),
    ("price BETWEEN 10 AND 20", ["a", "d"]),
    ("price NOT BETWEEN 10 AND 20", ["b", "e"]),
    ("name LIKE '%adget%'", ["b"]),
    ("name ILIKE 'widget%'", ["a"]),
    ("name NOT LIKE 'W%'", ["b", "c", "d"]),
    ("name = 'it''s'", ["d"]),
    ('"my col"', ["a", "d"]),
    ('"my col" = FALSE OR price > 25', ["b", "e"]),
    ("price >= -1.5e1 and (stock > 1 or id == 'b')", ["b", "e"]),
    ("TRUE", ["a", "b", "c", "d", "e"]),
    ("price < 0", []),
])
def test_predicates_select_the_rows_sql_would(text: str, expected: list[str]) -> None:
    t = _table()
    mask = select_mask(text, t)
    assert [i for i, m in zip(t.column("id").to_pylist(), mask, strict=True) if m] == expected


@pytest.mark.parametrize("text", ATTACKS)
def test_anything_outside_the_language_is_refused(text: str) -> None:
    with pytest.raises(InputError) as e:
        parse_predicate(text, set(_table().column_names))
    assert e.value.field == "where"
    assert "root:" not in str(e.value)


def test_unknown_columns_are_refused_with_the_valid_ones() -> None:
    with pytest.raises(InputError, match="unknown column 'colour'.*price"):
        parse_predicate("colour = 'red'", {"price", "name"})


def test_type_mismatch_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="where"):
        select_mask("name < 3", _table())
    with pytest.raises(InputError, match="not a condition"):
        select_mask("price", _table())


def test_nesting_and_length_are_bounded() -> None:
    with pytest.raises(InputError, match="nesting"):
        parse_predicate("(" * 200 + "TRUE" + ")" * 200)
    with pytest.raises(InputError, match="longer"):
        parse_predicate("price < 1 OR " * 2000 + "TRUE")


def test_skb_select_combines_types_and_predicate() -> None:
    skb = _skb()
    got = skb.id_of(skb.select("price < 20", ["product"]))
    assert got == ["a", "d"]
    with pytest.raises(InputError):
        skb.select("price < 20) OR (1=1", ["product"])


def test_skb_sql_cannot_touch_files_unless_allowed(tmp_path: Path) -> None:
    skb = _skb()
    target = tmp_path / "evil.csv"
    for q in ("SELECT * FROM read_text('/etc/passwd')",
              f"COPY (SELECT 1 AS x) TO '{target}'",
              "SET enable_external_access = true"):
        with pytest.raises(InputError):
            skb.sql(q)
    assert not target.exists()
    assert skb.sql("SELECT count(*) AS n FROM nodes").column("n").to_pylist() == [5]
    skb.sql(f"COPY (SELECT 1 AS x) TO '{target}'", allow_files=True)
    assert target.exists()


def test_cli_where_and_sql_refuse_file_access(tmp_path: Path, monkeypatch) -> None:
    from skbsearch.cli import app

    skb_dir = tmp_path / "skb"
    _skb().save(skb_dir)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    r = runner.invoke(app, ["index", str(skb_dir), "--kind", "bm25", "--quiet"])
    assert r.exit_code == 0, r.output
    for attack in ATTACKS:
        r = runner.invoke(app, ["search", str(skb_dir), "widget", "--where", attack])
        assert r.exit_code != 0
        assert "root:" not in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["kb", "sql", str(skb_dir), "SELECT * FROM read_text('/etc/passwd')"])
    assert r.exit_code != 0 and "root:" not in r.output
    r = runner.invoke(app, ["kb", "sql", str(skb_dir), "COPY (SELECT 1 AS x) TO 'evil.sh'"])
    assert r.exit_code != 0
    assert not (tmp_path / "evil.sh").exists() and not Path("evil.sh").exists()
    assert not any(p.name == "evil.sh" for p in tmp_path.rglob("*"))
    r = runner.invoke(app, ["search", str(skb_dir), "widget", "--where", "price < 20",
                            "--json"])
    assert r.exit_code == 0, r.output
    assert os.path.exists(skb_dir / "meta.json")


# --------------------------------------------------------------- property-based checks
_COLS = {"price": "num", "stock": "num", "name": "str", "id": "str", '"my col"': "bool"}
_num = st.one_of(st.integers(-30, 30), st.floats(-30, 30, allow_nan=False).map(lambda x: round(x, 2)))
_str = st.sampled_from(["'Widget [/b]'", "'Gadget'", "'it''s'", "'a'", "'Acme'", "''"])


def _operand(kind: str):
    if kind == "num":
        return _num.map(repr)
    return _str


@st.composite
def _leaf(draw) -> str:
    col = draw(st.sampled_from(sorted(_COLS)))
    kind = _COLS[col]
    if kind == "bool":
        return draw(st.sampled_from([col, f"{col} = TRUE", f"{col} IS NULL", f"NOT {col}"]))
    form = draw(st.sampled_from(["cmp", "in", "between", "null", "like"]))
    if form == "cmp":
        op = draw(st.sampled_from(["=", "!=", "<>", "<", "<=", ">", ">="]))
        return f"{col} {op} {draw(_operand(kind))}"
    if form == "in":
        vals = draw(st.lists(_operand(kind), min_size=1, max_size=3))
        neg = draw(st.sampled_from(["", "NOT "]))
        return f"{col} {neg}IN ({', '.join(vals)})"
    if form == "between":
        neg = draw(st.sampled_from(["", "NOT "]))
        return f"{col} {neg}BETWEEN {draw(_operand(kind))} AND {draw(_operand(kind))}"
    if form == "null":
        return f"{col} IS {draw(st.sampled_from(['', 'NOT ']))}NULL"
    if kind != "str":
        return f"{col} IS NULL"
    pat = draw(st.sampled_from(["%a%", "W%", "_adget", "%", "it's", "%[%"]))
    kw = draw(st.sampled_from(["LIKE", "NOT LIKE", "ILIKE"]))
    return f"{col} {kw} '{pat.replace(chr(39), chr(39) * 2)}'"


_expr = st.recursive(
    _leaf(),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["AND", "OR"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"NOT ({e})"),
    ),
    max_leaves=6,
)


_TABLE = _table()
_CON = duckdb.connect(config={"enable_external_access": False, "lock_configuration": True})
_CON.register("t", _TABLE)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expr)
def test_evaluation_matches_duckdb_on_generated_predicates(text: str) -> None:
    """Differential test: our Arrow evaluation selects exactly the rows DuckDB selects."""
    t = _TABLE
    ours = select_mask(text, t)
    sql = to_sql(parse_predicate(text, set(t.column_names)))
    rows = _CON.sql(f"SELECT id FROM t WHERE {sql}").fetchall()
    theirs = np.isin(t.column("id").to_pylist(), [r[0] for r in rows])
    assert ours.tolist() == theirs.tolist(), (text, sql)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("pricename<>=!'\"()_,;%-.0123456789 ANDORTISLKEB")),
               max_size=40))
def test_arbitrary_text_is_parsed_or_refused_cleanly(text: str) -> None:
    try:
        select_mask(text, _table())
    except SkbError as e:
        assert "where" in str(e)

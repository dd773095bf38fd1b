"""The ``--where`` predicate language: parsed, allow-listed, never SQL."""

from __future__ import annotations

import json
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
    for infinite in ("price < 1e999", "price > -" + "9" * 400):  # never read as infinity
        r = runner.invoke(app, ["search", str(skb_dir), "widget", "--where", infinite])
        assert r.exit_code != 0 and "Traceback" not in r.output
        assert "numbers must be finite" in " ".join(r.output.split()), r.output
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


# ------------------------------------------------------- a generation with pending segments
PENDING_PREDICATES = [
    "description ILIKE '%a%e%r%'",
    "description LIKE '%the%' AND price < 100",
    "title ILIKE 'b%' OR description IS NULL",
    "description = 'changed text 3' OR name LIKE '%renamed%'",
    "price BETWEEN 20 AND 40 AND NOT description ILIKE '%o%o%'",
]


def _pending_generations(root: Path, n_updates: int) -> list[SKB]:
    """The demo catalogue saved at ``root``, then ``n_updates`` updates that rewrite scattered
    products' text, names and prices, add products and delete some: each generation opened
    from the one before (as a server does)."""
    from skbsearch.kb.update import update
    from skbsearch.synth.catalogue import generate_catalogue

    generate_catalogue(150, seed=3, n_queries=2).skb.save(root)
    served = [SKB.load(root)]
    rng = np.random.default_rng(0)
    products = [int(i) for i in served[0].nodes_of_type("product")]
    for k in range(n_updates):
        skb = served[-1]
        recs = []
        for i in rng.choice(products, 6, replace=False):
            node = skb.node(int(i))
            recs.append({"id": node.id, "type": node.type, "name": f"{node.name} renamed {k}",
                         **node.fields, "description": f"changed text {k}",
                         "price": float(rng.uniform(1, 200))})
        recs.append({"id": f"new{k}", "type": "product", "name": f"new {k}", "title": "brand new",
                     "description": f"added at {k}", "price": 30.0})
        (root.parent / "up.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
        files = {"nodes": root.parent / "up.jsonl"}
        if k % 3 == 2:
            (root.parent / "del.txt").write_text(skb.id_of(int(rng.choice(products[-20:]))) + "\n")
            files["delete_nodes"] = root.parent / "del.txt"
        update(root, previous=skb, **files)
        served.append(SKB.load(root, previous=skb))
    return served


def test_filters_over_pending_segments_select_what_a_fresh_build_selects(tmp_path: Path,
                                                                         monkeypatch) -> None:
    """A generation with many pending segments holds its text columns in hundreds of slices;
    the predicate is evaluated on each block of rows in one chunk (a regular expression is
    compiled once a block, not once a slice) and selects what the same data freshly built does."""
    import pyarrow.compute as pc

    served = _pending_generations(tmp_path / "skb", 8)[-1]
    whole = SKB.load(tmp_path / "skb")
    served.save(tmp_path / "fresh")
    fresh = SKB.load(tmp_path / "fresh")
    assert served.nodes.column("description").num_chunks > 30  # the case at hand
    assert fresh.nodes.column("description").num_chunks == 1
    seen: list[int] = []
    real = pc.match_like

    def counted(values, *args, **kwargs):
        seen.append(getattr(values, "num_chunks", 1))
        return real(values, *args, **kwargs)

    monkeypatch.setattr(pc, "match_like", counted)
    for text in PENDING_PREDICATES:
        want = fresh.id_of(fresh.select(text))
        assert want, text  # the predicates select something
        assert served.id_of(served.select(text)) == want, text
        assert whole.id_of(whole.select(text)) == want, text
    assert seen and max(seen) == 1

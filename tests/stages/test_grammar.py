"""Property test of the pipeline language: any spec string either fails with the project's
parse error (InputError) or builds a pipeline whose repr parses back to an equal pipeline;
never an exception of another kind (RecursionError, ValueError, OverflowError...)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skbsearch.core.errors import InputError
from skbsearch.stages import available_stages, describe
from skbsearch.stages.base import stages_equal
from skbsearch.stages.spec import parse

STAGES = available_stages()
PARAMS = sorted({p["name"] for n in STAGES for p in describe(n)["params"]})
SETTINGS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# Spec pieces: operators, literals at the edges of the number grammar, quotes and escapes,
# and non-ASCII text (letters, digits of other scripts, a lone surrogate, RTL, emoji).
PIECES = [">>", "+", "%", "(", ")", ",", "=", "[", "]", "'", '"', "\\", " ", "\n", "-", ".",
          "0", "1", "-1", "1.5", "1e999", "-1e999", "1e-999", "9" * 40, "1_0", "0x10", "nan",
          "inf", "true", "false", "none", "null", "é", "٣", "\u200f", "\ud800", "😀", "\x00",
          "k", "x", "a-b", "a.b", *STAGES, *PARAMS]


def check_spec(spec: str) -> None:
    """The property: an InputError, or a pipeline that round-trips through its repr."""
    try:
        p = parse(spec)
    except InputError:
        return
    text = repr(p)
    try:
        q = parse(text)
    except InputError as e:  # pragma: no cover - the failure message shows both
        raise AssertionError(f"repr {text!r} of {spec!r} does not parse: {e}") from None
    assert stages_equal(q, p), (spec, text, repr(q))
    assert repr(q) == text, (spec, text, repr(q))


# ---------------------------------------------------------------- grammar-shaped specs
def _value(depth: int) -> st.SearchStrategy[str]:
    leaf = st.one_of(
        st.integers(-10**20, 10**20).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.sampled_from(["1e999", "-0.0", ".5", "5.", "1e3", "true", "none", "x", "rrf"]),
        st.text(max_size=8).map(lambda s: "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"),
        st.text(max_size=8).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'),
    )
    if depth <= 0:
        return leaf
    inner = _value(depth - 1)
    return st.one_of(leaf, st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
                     _stage(depth - 1))


def _stage(depth: int) -> st.SearchStrategy[str]:
    name = st.one_of(st.sampled_from(STAGES), st.from_regex(r"[A-Za-z_][\w-]{0,6}", fullmatch=True))
    param = st.one_of(st.sampled_from(PARAMS), st.from_regex(r"[A-Za-z_][\w-]{0,6}", fullmatch=True))
    kw = st.tuples(param, _value(depth)).map(lambda kv: f"{kv[0]}={kv[1]}")
    args = st.lists(st.one_of(kw, _value(depth)) if depth > 0 else kw, max_size=3)

    def call(parts: tuple[str, list[str], bool]) -> str:
        n, a, paren = parts
        return f"{n}({', '.join(a)})" if paren or a else n

    return st.tuples(name, args, st.booleans()).map(call)


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _typed(kind: str) -> st.SearchStrategy[str]:
    """A value of a parameter's declared type (as `describe` names it), sometimes `none`."""
    base = kind.replace(" | None", "")
    by_type: dict[str, st.SearchStrategy[str]] = {
        "int": st.integers(-5, 10**12).map(str),
        "float": st.floats(-1e6, 1e6, allow_nan=False).map(repr),
        "bool": st.sampled_from(["true", "false", "True", "FALSE"]),
        "str": st.text(max_size=10).map(_quoted),
        "tuple[str, ...]": st.lists(st.text(max_size=6).map(_quoted), max_size=3).map(
            lambda xs: "[" + ", ".join(xs) + "]"),
        "tuple[float, ...]": st.lists(st.floats(0, 10, allow_nan=False).map(repr), max_size=3).map(
            lambda xs: "[" + ", ".join(xs) + "]"),
    }
    strat = by_type.get(base, st.text(max_size=6).map(_quoted))
    return st.one_of(strat, st.just("none")) if kind.endswith("| None") else strat


@st.composite
def _typed_stage(draw: Any) -> str:
    """A registered stage with parameters of their declared types (mostly valid)."""
    name = draw(st.sampled_from([n for n in STAGES if describe(n)["category"] != "fusion"]))
    params = [p for p in describe(name)["params"]]
    chosen = draw(st.lists(st.sampled_from(params), unique_by=lambda p: p["name"],
                           max_size=min(3, len(params)))) if params else []
    for p in params:
        if p.get("required") and p not in chosen:
            chosen.append(p)
    args = [f"{p['name']}={draw(_typed(str(p.get('type'))))}" for p in chosen]
    return f"{name}({', '.join(args)})" if args or draw(st.booleans()) else name


def _spec(depth: int) -> st.SearchStrategy[str]:
    base = st.one_of(_typed_stage(), _typed_stage(), _stage(min(depth, 2)))
    if depth <= 0:
        return base
    sub = _spec(depth - 1)
    fusions = [n for n in STAGES if describe(n)["category"] == "fusion"]
    return st.one_of(
        base,
        st.tuples(sub, st.sampled_from([" >> ", " + ", ">>", "+"]), sub).map("".join),
        st.tuples(sub, st.integers(-2, 10**6)).map(lambda t: f"{t[0]} % {t[1]}"),
        st.tuples(st.sampled_from(fusions), st.lists(sub, min_size=1, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"),
        sub.map(lambda s: f"({s})"),
    )


@SETTINGS
@given(_spec(3))
def test_grammar_shaped_specs(spec: str) -> None:
    check_spec(spec)


@SETTINGS
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=25).map("".join))
@example("[" * 3000 + "]" * 3000)
@example("bm25(k=" + "[" * 2000)
@example("bm25(k=1e999)")
@example("bm25(k=1e308) % 99999999999999999999999")
@example("rrf(bm25, weights=[1e999, 1])")
@example("bm25(types=[[['x']]])")
@example("graph(w_rel=nan)")
@example("bm25(where='\\\n')")
def test_token_soup(spec: str) -> None:
    check_spec(spec)


@SETTINGS
@given(st.text(max_size=60))
def test_any_text(spec: Any) -> None:
    check_spec(spec)

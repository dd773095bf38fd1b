"""The builder from a spec's syntax tree to stage objects (stages/spec.py): positional
values, values that are bare words or lists, the refusals by parameter (given twice, too
many, a stage where a value goes, an option that is no parameter), fusions and their
children, and the context every stage is bound to."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Cutoff, Pipeline
from skbsearch.stages import StageContext
from skbsearch.stages.grammar import Call, Word, parse_spec
from skbsearch.stages.spec import build, parse
from skbsearch.synth.catalogue import generate_catalogue


def test_spec_text_sets_declared_parameters_only(tmp_path) -> None:
    """A constructor option that is no parameter (an embedding cache directory, a thread count)
    cannot be set from spec text: found by the fuzz above as ``dense(cache=0)`` (a TypeError),
    and ``dense(cache='DIR')`` let a spec choose a directory to write."""
    for spec in ("dense(cache=0)", f"dense(cache={str(tmp_path)!r})", "bm25(n_threads=4)",
                 "bm25 >> dense(cache='x')"):
        with pytest.raises(InputError, match="has no parameter"):
            parse(spec)
    assert not any(tmp_path.iterdir())
    assert repr(parse("dense(k=5) + bm25")) == "dense(k=5) + bm25"


def test_positional_values_fill_the_parameters_in_order() -> None:
    assert repr(parse("bm25(50, [product])")) == "bm25(k=50, types=['product'])"
    assert repr(parse("gnn-row(mlp)")) == "gnn-row(row='mlp')"
    assert build(Call("bm25", [], {"types": [Word("a"), Word("b")]})).params.types == ("a", "b")


@pytest.mark.parametrize(("spec", "field", "match"), [
    ("bm25(1, 2, 3, 4, 5, 6, 7, 8, 9)", "pipeline", "takes at most 5 positional value"),
    ("bm25(50, k=3)", "k", "parameter k given twice"),
    ("bm25(k=dense(k=3))", "k", "parameter k takes a value, not a stage"),
    ("bm25(k=bm25 >> dense)", "k", "takes a value, not a stage"),
    ("bm25(types=[dense % 3])", "types", "takes a value, not a stage"),
])
def test_bad_values_are_refused_by_parameter(spec: str, field: str, match: str) -> None:
    with pytest.raises(InputError, match=match) as e:
        parse(spec)
    assert e.value.field == field


def test_chains_cuts_and_fusions_become_their_operators() -> None:
    p = parse("(bm25 + dense(k=5)) % 10 >> graph")
    assert isinstance(p, Pipeline) and isinstance(p.stages[1], Cutoff) and p.stages[1].k == 10
    fused = parse("rrf(bm25, dense, k=5)")
    assert [repr(c) for c in fused.children] == ["bm25", "dense"] and repr(fused) == "rrf(bm25, dense, k=5)"
    with pytest.raises(InputError, match="cannot build a stage from 42"):
        build(42)


def test_every_stage_is_bound_to_the_given_context() -> None:
    ctx = StageContext(generate_catalogue(20, seed=0, n_queries=1).skb, notify=lambda _m: None)
    p = parse("(bm25 + graph) % 5 >> bm25(k=3)", ctx)
    fusion = p.stages[0]
    assert all(c.context is ctx for c in fusion.children) and fusion.context is ctx
    assert p.stages[-1].context is ctx
    assert build(parse_spec("bm25"), ctx) == build(Word("bm25"), ctx) == parse("bm25")

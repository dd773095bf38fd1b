"""The fusion stages (``fuse``, ``rrf``, ``zscore``, ``minmax``): one class each, holding its
logic; ``a + b`` builds ``fuse`` through the registration in core; on a real KG the stages
give what the fusion functions give on their children's Runs. (The old
``skbsearch.retrieve.hybrid`` names that build them: tests/retrieve/test_hybrid.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.fusion import rrf, score_fusion, weighted_fusion
from skbsearch.core.operators import FunctionStage
from skbsearch.core.registry import get_stage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.stages.fusion import (
    FuseStage,
    FusionStage,
    MinMaxStage,
    RRFStage,
    ZScoreStage,
    child_evidence,
    shared_evidence_weights,
)

A = Run({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}, name="A")
B = Run({"q1": {"c": 0.9, "a": 0.5, "d": 0.1}}, name="B")


def _fixed(run: Run, name: str) -> FunctionStage:
    """A stage that answers from a precomputed Run (restricted to the candidates given)."""

    def fn(queries, prev):
        out = Run(name=name)
        for q in queries:
            docs = run.get(q.id, {})
            out[q.id] = {d: s for d, s in docs.items() if prev is None or d in prev.get(q.id, {})}
        return out

    return FunctionStage(fn, name)


def test_rrf_and_weighted_stages_fuse_their_stages():
    qs = [Query("q1", "anything"), Query("q3", "no results")]
    sa, sb = _fixed(A, "A"), _fixed(B, "B")
    fused = RRFStage.of(sa, sb)(qs)
    assert fused["q1"] == rrf([A, B])["q1"]
    assert fused["q3"] == {}
    top2 = (RRFStage.of(sa, sb, k=60) % 2)(qs)
    assert list(top2["q1"]) == ["a", "c"]
    w = MinMaxStage.of(sa, sb, weights=(0.7, 0.3))(qs)
    assert w["q1"] == weighted_fusion([A, B], [0.7, 0.3])["q1"]
    z = ZScoreStage.of(sa, sb)(qs)
    assert z["q1"] == weighted_fusion([A, B], norm="zscore")["q1"] and z.name == "zscore"
    assert repr(RRFStage.of(sa, sb)).startswith("rrf(")
    assert "weights=[0.7, 0.3]" in repr(MinMaxStage.of(sa, sb, weights=(0.7, 0.3)))


def test_fusion_stage_passes_the_run_on_for_rescoring():
    prev = Run({"q1": {"b": 1.0, "d": 1.0}})
    fused = RRFStage.of(_fixed(A, "A"), _fixed(B, "B"))([Query("q1", "x")], prev)
    assert set(fused["q1"]) == {"b", "d"}
    assert fused["q1"]["b"] == pytest.approx(1 / 61)  # rank 1 among A's re-scored candidates


def test_stage_arguments_are_checked():
    with pytest.raises(InputError):
        RRFStage.of()
    with pytest.raises(InputError):
        MinMaxStage.of()
    with pytest.raises(InputError, match="weights"):
        MinMaxStage.of(_fixed(A, "A"), weights=(1.0, 2.0))
    with pytest.raises(InputError):
        RRFStage.of(_fixed(A, "A"), k=-1)([Query("q1", "x")])


def test_fuse_stage_is_plus_and_fits_weights():
    from skbsearch.stages import pipeline

    sa, sb = _fixed(A, "A"), _fixed(B, "B")
    qs = [Query("q1", "x")]
    assert FuseStage.of(sa, sb)(qs)["q1"] == score_fusion([A, B])["q1"]
    assert repr(sa + sb) == repr(FuseStage.of(sa, sb)) == "FunctionStage(A) + FunctionStage(B)"
    p = pipeline("fuse(run(path='a'), run(path='b'), top=1)")
    assert repr(p) == "fuse(run(path='a'), run(path='b'), top=1.0)"


def test_fuse_fit_backs_off_to_its_parameters_unless_held_out_quarters_support_the_choice():
    """``fuse`` fitting picks weights and ``top`` on all its training queries only where
    picking them on three quarters beats the current ones on the fourth (pooled)."""
    import zlib

    import numpy as np

    from skbsearch.stages.fusion import _backed_off

    qids = [f"q{i}" for i in range(40)]
    part = np.array([zlib.crc32(q.encode()) % 4 for q in qids])
    assert set(part) == {0, 1, 2, 3}
    current = np.full(len(qids), 2)
    everywhere = np.ones(len(qids), np.int64)
    assert _backed_off(np.array([current, everywhere]), qids) == 1  # better on every quarter
    # each choice is best on one quarter only (and worst elsewhere): in-sample, one of them
    # wins; held out, the one picked on three quarters loses on the fourth
    local = [np.where(part == p, 1, 50) for p in range(4)]
    local[0] = np.where(part == 0, 1, 40)  # the in-sample winner
    assert int(np.argmax((1.0 / np.array(local)).mean(axis=1))) == 0
    assert _backed_off(np.array([current, *local]), qids) == 0
    # better by far on three quarters, worse on the fourth: no quarter may lose
    uneven = np.where(part == 3, 3, 1)
    assert _backed_off(np.array([current, uneven]), qids) == 0


def test_fuse_refit_backs_off_to_the_specs_parameters_not_the_last_fit():
    """Cross-validation refits one stage per fold: a fold whose queries support no choice
    keeps the spec's weights, not those the previous fold chose."""
    from skbsearch.stages.fusion import FuseStage

    qids = [f"q{i}" for i in range(40)]
    good = Run({q: {"gold": 2.0, "wrong": 1.9, "x": 1.0} for q in qids})
    bad = Run({q: {"wrong": 2.0, "y": 1.0} for q in qids})  # equal weights put wrong first
    qs = [Query(q, "x") for q in qids]
    qrels = Qrels({q: {"gold": 1} for q in qids})
    st = FuseStage.from_children([_fixed(good, "good"), _fixed(bad, "bad")])
    st.fit(qs, qrels)
    assert st.params.weights[0] > st.params.weights[1]  # the good list, on every quarter
    same = FuseStage.from_children([_fixed(good, "good"), _fixed(good, "good2")])
    same.params.weights, same.params.top = (0.3, 0.7), 1.0
    same.fit(qs, qrels)
    assert same.params.weights == (0.3, 0.7) and same.params.top == 1.0  # nothing to gain: kept
    st.children = [_fixed(good, "good"), _fixed(good, "good2")]
    st.fit(qs, qrels)  # a refit where nothing generalises: back to the spec's default weights
    assert st.params.weights == () and st.params.top == 2.0


@pytest.mark.parametrize("name", ["fuse", "rrf", "zscore", "minmax"])
def test_each_fusion_stage_is_one_class_that_does_its_own_work(name: str) -> None:
    """The registered class fuses by itself: no second object built beside it, and no
    context needed to fuse stages given directly."""
    cls = get_stage(name)
    assert cls.__module__ == "skbsearch.stages.fusion" and issubclass(cls, FusionStage)
    st = cls.of(_fixed(A, "A"), _fixed(B, "B"))
    assert st.inner is st and st.context is None
    assert set(st([Query("q1", "x")])["q1"]) == {"a", "b", "c", "d"}


def test_fusion_stages_on_a_real_kg_equal_the_functions_on_their_childrens_runs(
        shared_data: Path, tmp_path: Path) -> None:
    """UMLS (the shared data) with its BM25 index: each fusion stage's Run is, to the last
    digit, the fusion function applied to its children's Runs with the parameters the old
    fusion classes passed (``fuse``: shared-evidence weights and per-query confidence)."""
    import json

    import skbsearch as skb

    if not (shared_data / "umls").is_dir():
        pytest.skip("no UMLS in the shared data")
    questions = json.loads((Path(__file__).parents[2] / "benchmarks" /
                            "real_kg_questions_umls.json").read_text(encoding="utf-8"))[:12]
    queries = [Query(q["id"], q["text"]) for q in questions]
    kb = skb.SKB.build(shared_data / "umls", tmp_path / "umls", format="kg")
    kb.index("bm25")
    bm25, graph = kb.pipeline("bm25(k=30)"), kb.pipeline("graph")
    runs = [bm25(queries), graph(queries)]
    fused = kb.pipeline("bm25(k=30) + graph")
    assert fused(queries) == score_fusion(runs, shared_evidence_weights([bm25, graph]),
                                          evidence=child_evidence([bm25, graph]))
    assert child_evidence([bm25, graph])[1][1:] == child_evidence([bm25, graph])[0]  # shared
    assert kb.pipeline("rrf(bm25(k=30), graph, k=10)")(queries) == rrf(runs, k=10)
    assert (kb.pipeline("zscore(bm25(k=30), graph, weights=[0.3, 0.7])")(queries)
            == weighted_fusion(runs, [0.3, 0.7], "zscore"))
    assert kb.pipeline("minmax(bm25(k=30), graph)")(queries) == weighted_fusion(runs)
    assert runs[0] + runs[1] == score_fusion(runs)


def test_plus_reaches_fusion_through_registration_not_a_string_import() -> None:
    """Core holds no import path of the stage layer: ``Run + Run`` works with core alone,
    ``a + b`` on stages once the stage layer (which registers ``fuse``) is imported, and
    before that it says what to import."""
    import subprocess
    import sys
    import textwrap

    import skbsearch.core.operators as operators

    assert not hasattr(operators, "FUSION")
    code = textwrap.dedent("""
        import sys
        from skbsearch.core.errors import SkbError
        from skbsearch.core.operators import FunctionStage
        from skbsearch.core.types import Query, Run
        a, b = Run({"q": {"x": 2.0, "y": 1.0}}, name="a"), Run({"q": {"y": 3.0}}, name="b")
        assert (a + b).name == "a+b" and (a + b).ranked("q")[0][0] == "y"
        assert "skbsearch.stages" not in sys.modules
        sa = FunctionStage(lambda qs, run=None: a, "A")
        sb = FunctionStage(lambda qs, run=None: b, "B")
        try:
            sa + sb
        except SkbError as e:
            assert "import skbsearch.stages" in str(e)
        else:
            raise AssertionError("a + b without the stage layer should say what to import")
        import skbsearch.stages
        fused = sa + sb
        assert type(fused).__name__ == "FuseStage" and fused([Query("q", "x")]) == a + b
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"

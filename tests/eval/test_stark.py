"""STaRK evaluator semantics: parity with ``stark_qa.Evaluator`` on generated score vectors.

The reference is the Evaluator of ``stark-qa==1.1.0`` (loaded from its file: the package's
``__init__`` imports heavy optional models). Scores are kept above 1 so that its
``min(scores) - 1`` fill stays positive: torchmetrics >= 1.9 drops non-positive scores
from some metrics, which STaRK's published numbers predate (see ``skbsearch.eval.stark``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Run
from skbsearch.eval.stark import (
    STARK_METRICS,
    parse_stark_metrics,
    stark_evaluate,
    stark_metrics,
    stark_per_query,
)

METRICS = [*STARK_METRICS, "precision@5", "precision@20", "map@10", "hit@2000"]
TOL = 1e-6
# torchmetrics warns that stark_qa imports from a deprecated path
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def load_stark_evaluator() -> Any:
    """``stark_qa.evaluator.Evaluator`` loaded by file path (skips when not installed)."""
    pytest.importorskip("torch")
    pytest.importorskip("torchmetrics")
    spec = importlib.util.find_spec("stark_qa")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("stark-qa is not installed (pip install --no-deps stark-qa==1.1.0)")
    path = Path(next(iter(spec.submodule_search_locations))) / "evaluator.py"
    mod_spec = importlib.util.spec_from_file_location("_stark_qa_evaluator", path)
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(module)
    return module.Evaluator


def reference(evaluator_cls: Any, candidate_ids: list[int], pred: dict[int, float],
              answers: list[int]) -> dict[str, float]:
    import torch

    ev = evaluator_cls(candidate_ids)
    return ev(pred, torch.LongTensor(answers), metrics=METRICS)


def cases(seed: int, tied: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """(scores > 1, answer positions) for several candidate counts and answer-set sizes."""
    rng = np.random.default_rng(seed)
    out = []
    for n in (1, 3, 17, 64, 300, 2500):
        for n_ans in sorted({0, 1, 2, 5, 20, n // 2, n}):
            if n_ans > n:
                continue
            if tied:
                scores = 1.5 + rng.integers(0, max(2, n // 20), n).astype(np.float64)
            else:
                scores = 1.5 + rng.permutation(n).astype(np.float64) / n + rng.random(n) * 1e-4
            out.append((scores, rng.choice(n, n_ans, replace=False)))
    return out


def close(a: dict[str, float], b: dict[str, float]) -> bool:
    return all(abs(a[m] - b[m]) <= TOL for m in b)


@pytest.mark.parametrize("seed", [0, 1])
def test_parity_without_ties_every_mode(seed: int) -> None:
    Evaluator = load_stark_evaluator()
    for scores, ans in cases(seed, tied=False):
        assert len(np.unique(scores.astype(np.float32))) == len(scores)
        cand = sorted(np.random.default_rng(seed).choice(10 * len(scores), len(scores), replace=False).tolist())
        ref = reference(Evaluator, cand, dict(zip(cand, scores.tolist(), strict=True)),
                        [cand[i] for i in ans])
        for ties in ("stable", "optimistic", "pessimistic", "torch"):
            ours = stark_metrics(scores, ans, METRICS, ties=ties)
            assert close(ours, ref), (ties, len(scores), len(ans), ours, ref)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parity_with_ties(seed: int) -> None:
    """torch mode reproduces the Evaluator exactly; the others bound it."""
    Evaluator = load_stark_evaluator()
    n_differ = 0
    for scores, ans in cases(seed, tied=True):
        cand = list(range(len(scores)))
        ref = reference(Evaluator, cand, dict(enumerate(scores.tolist())), ans.tolist())
        assert close(stark_metrics(scores, ans, METRICS, ties="torch"), ref)
        lo = stark_metrics(scores, ans, METRICS, ties="pessimistic")
        hi = stark_metrics(scores, ans, METRICS, ties="optimistic")
        mid = stark_metrics(scores, ans, METRICS, ties="stable")
        for m in METRICS:
            assert lo[m] - TOL <= ref[m] <= hi[m] + TOL, (m, lo[m], ref[m], hi[m])
            assert lo[m] - TOL <= mid[m] <= hi[m] + TOL
        n_differ += not close(mid, ref)
    assert n_differ > 0  # the generated ties do matter (else this test proves nothing)


def test_run_parity_unranked_candidates() -> None:
    """A Run ranking a subset: unranked candidates fill in below (the Evaluator's min - 1);
    run entries outside the candidates are ignored; answers outside them do not count."""
    Evaluator = load_stark_evaluator()
    rng = np.random.default_rng(7)
    n_nodes = 400
    cand = sorted(rng.choice(n_nodes, 250, replace=False).tolist())
    others = sorted(set(range(n_nodes)) - set(cand))
    run, qrels, preds, answers = {}, {}, {}, {}
    for q in range(40):
        ranked = rng.choice(cand, int(rng.integers(1, 120)), replace=False).tolist()
        ranked += rng.choice(others, 5, replace=False).tolist()  # non-candidates in the run
        scores = 1.5 + rng.random(len(ranked)) * (1 + q % 3)
        if q % 4 == 0:
            scores = np.round(scores, 1)  # ties among ranked candidates
        ans = rng.choice(cand, int(rng.integers(1, 12)), replace=False).tolist()
        if q % 5 == 0:
            ans = [*ranked[:2], *ans]  # some answers ranked for sure
        preds[q] = dict(zip(ranked, scores.tolist(), strict=True))
        answers[q] = ans
        run[str(q)] = {str(d): s for d, s in preds[q].items()}
        qrels[str(q)] = {str(d): 1 for d in [*ans, others[q]]}  # others[q]: not a candidate
    per = stark_per_query(Run(run), Qrels(qrels), [str(c) for c in cand], METRICS, ties="torch")
    lo = stark_per_query(run, qrels, [str(c) for c in cand], METRICS, ties="pessimistic")
    hi = stark_per_query(run, qrels, [str(c) for c in cand], METRICS, ties="optimistic")
    stable = stark_per_query(run, qrels, [str(c) for c in cand], METRICS)
    for q in range(40):
        ref = reference(Evaluator, cand, preds[q], answers[q])
        assert close(per[str(q)], ref), q
        for m in METRICS:
            assert lo[str(q)][m] - TOL <= ref[m] <= hi[str(q)][m] + TOL
            assert lo[str(q)][m] - TOL <= stable[str(q)][m] <= hi[str(q)][m] + TOL
    means = stark_evaluate(run, qrels, [str(c) for c in cand], ["mrr", "hit@5"], ties="torch")
    assert means["mrr"] == pytest.approx(np.mean([per[str(q)]["mrr"] for q in range(40)]))


def test_stable_ties_follow_candidate_order() -> None:
    # candidates a..e; a, c, e tie at the top; answers c and e
    scores = [2.0, 1.0, 2.0, 1.0, 2.0]
    got = stark_metrics(scores, [2, 4], ["mrr", "hit@1", "recall@2", "map", "rprecision"])
    assert got == {"mrr": 0.5, "hit@1": 0.0, "recall@2": 0.5, "map": pytest.approx((1 / 2 + 2 / 3) / 2),
                   "rprecision": 0.5}
    assert stark_metrics(scores, [2, 4], ["mrr", "map"], ties="optimistic") == {"mrr": 1.0, "map": 1.0}
    pess = stark_metrics(scores, [2, 4], ["mrr", "map"], ties="pessimistic")
    assert pess == {"mrr": 0.5, "map": pytest.approx((1 / 2 + 2 / 3) / 2)}


def test_run_unranked_answers_stable_rank() -> None:
    # 6 candidates; run ranks c2 > c0; answer c4 is unranked: stable rank = 2 + 3 (c1, c3 before) = 5
    run = {"q": {"c2": 0.9, "c0": 0.5, "x": 5.0}}
    cands = [f"c{i}" for i in range(6)]
    out = stark_per_query(run, {"q": {"c4": 1}}, cands, ["mrr", "hit@5", "hit@4"])
    assert out["q"] == {"mrr": pytest.approx(1 / 5), "hit@5": 1.0, "hit@4": 0.0}
    pess = stark_per_query(run, {"q": {"c4": 1}}, cands, ["mrr"], ties="pessimistic")
    assert pess["q"]["mrr"] == pytest.approx(1 / 6)
    # a query the run lacks ranks nothing; an answer outside the candidates scores 0
    out = stark_per_query(run, {"q": {"zz": 1}, "missing": {"c0": 1}}, cands, ["mrr", "recall@5"])
    assert out["q"] == {"mrr": 0.0, "recall@5": 0.0}
    assert out["missing"] == {"mrr": 1.0, "recall@5": 1.0}  # c0 first in candidate order
    # -inf scores count as unranked
    same = stark_per_query({"q": {"c2": 0.9, "c0": 0.5, "c5": float("-inf")}}, {"q": {"c4": 1}},
                           cands, ["mrr"])
    assert same["q"]["mrr"] == pytest.approx(1 / 5)


def test_only_the_order_of_scores_matters() -> None:
    rng = np.random.default_rng(3)
    scores = rng.normal(size=200)
    ans = rng.choice(200, 7, replace=False)
    a = stark_metrics(scores, ans)
    assert stark_metrics(scores - 100.0, ans) == a
    assert stark_metrics(np.exp(scores), ans) == a


def test_float32_comparison() -> None:
    # distinct in float64, equal in float32 (as the Evaluator stores them): a tie
    scores = [1.0 + 1e-9, 1.0]
    assert stark_metrics(scores, [1], ["mrr"])["mrr"] == 0.5
    assert stark_metrics(scores, [1], ["mrr"], ties="optimistic")["mrr"] == 1.0


def test_errors() -> None:
    with pytest.raises(InputError, match="unknown STaRK metric"):
        parse_stark_metrics(["ndcg@10"])
    with pytest.raises(InputError, match="no cut-off"):
        parse_stark_metrics(["mrr@10"])
    with pytest.raises(InputError, match="unknown ties"):
        stark_metrics([1.0], [0], ties="random")
    with pytest.raises(InputError, match="NaN"):
        stark_metrics([1.0, float("nan")], [0])
    with pytest.raises(InputError, match="outside"):
        stark_metrics([1.0], [3])
    with pytest.raises(InputError, match="repeat"):
        stark_per_query({}, {"q": {"a": 1}}, ["a", "a"])
    assert [m.name for m in parse_stark_metrics(["Hits@5", "R-Precision", "map"])] == [
        "hit@5", "rprecision", "map"]

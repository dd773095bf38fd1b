"""evaluate(): metric names, averaging conventions, compare(), and TREC DL 2019 numbers."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Run
from skbsearch.eval import SubsetWarning, compare, evaluate, parse_metric, parse_metrics

RUN = Run({"q1": {"a": 3.0, "b": 2.0}, "q3": {"x": 1.0}}, name="sys")
QRELS = Qrels({"q1": {"b": 1}, "q2": {"c": 1}})


def test_parse_names_and_aliases() -> None:
    assert parse_metric("NDCG@10").family == "ndcg" and parse_metric("ndcg@10").k == 10
    assert parse_metric("hits@1").family == "hit"
    assert parse_metric("success@5").family == "hit"
    assert parse_metric("P@5").family == "precision"
    assert parse_metric("mrr").k is None
    assert [s.name for s in parse_metrics("ndcg@10, mrr@10,ndcg@10")] == ["ndcg@10", "mrr@10"]


@pytest.mark.parametrize(
    ("name", "msg"),
    [
        ("bleu@4", "unknown metric"),
        ("hit", "needs a cut-off"),
        ("mtrr@10", "takes no cut-off"),
        ("ndcg@0", ">= 1"),
        ("ndcg@ten", "cannot parse"),
    ],
)
def test_bad_names(name: str, msg: str) -> None:
    with pytest.raises(InputError, match=msg) as e:
        evaluate(RUN, QRELS, [name])
    assert e.value.field == "metrics"


def test_complete_counts_missing_queries_zero_and_ignores_unjudged() -> None:
    res = evaluate(RUN, QRELS, ["mrr", "recall@1", "hit@2"], complete=True)
    assert res == {"mrr": 0.25, "recall@1": 0.0, "hit@2": 0.5}
    assert (res.queries, res.left_out) == (2, ())
    per_q = evaluate(RUN, QRELS, "mrr,hit@2", per_query=True, complete=True)
    assert per_q == {"q1": {"mrr": 0.5, "hit@2": 1.0}, "q2": {"mrr": 0.0, "hit@2": 0.0}}


def test_default_scores_the_runs_queries_and_says_what_it_left_out() -> None:
    # a ranx / trec_eval user scoring a held-out subset against the full qrels
    with pytest.warns(SubsetWarning, match=r"1 of the 2 qrels queries are not in the run"):
        res = evaluate(RUN, QRELS, ["mrr", "hit@2"])
    assert res == {"mrr": 0.5, "hit@2": 1.0}
    assert (res.queries, res.left_out) == (1, ("q2",))
    # an explicit query set: its judged queries, one the run lacks scoring 0, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        named = evaluate(RUN, QRELS, ["mrr"], queries=["q1", "q2", "q9"])
        assert named == {"mrr": 0.25} and named.queries == 2
        assert evaluate(RUN, QRELS, ["mrr"], queries=["q1"]) == {"mrr": 0.5}


def test_per_query_as_a_dataframe() -> None:
    pytest.importorskip("pandas")
    frame = evaluate(RUN, QRELS, "mrr,hit@2", per_query=True, complete=True).to_df()
    assert list(frame.columns) == ["qid", "mrr", "hit@2"]
    assert frame.set_index("qid")["mrr"].to_dict() == {"q1": 0.5, "q2": 0.0}


def test_plain_dicts_and_min_grade() -> None:
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    assert evaluate(run, qrels, ["mrr"])["mrr"] == 1.0
    assert evaluate(run, qrels, ["mrr"], min_grade=2)["mrr"] == 0.5
    with pytest.raises(InputError, match="gains"):
        evaluate(run, qrels, ["ndcg@10"], gains="log")


def test_compare_names_systems() -> None:
    other = Run({"q1": {"b": 1.0}, "q2": {"c": 1.0}}, name="sys")
    res = compare([RUN, other], QRELS, ["mrr"])
    assert res == {"sys": {"mrr": 0.25}, "sys-2": {"mrr": 1.0}}
    assert compare({"x": RUN}, QRELS, "mrr") == {"x": {"mrr": 0.25}}


def dl19_run(path: Path) -> Run:
    """The BM25 order of ``dl19_bm25_top100.json`` (score = -rank, so no ties)."""
    run: dict[str, dict[str, float]] = {}
    for entry in json.loads(path.read_text(encoding="utf-8")):
        for hit in entry["hits"]:
            run.setdefault(str(hit["qid"]), {})[str(hit["docid"])] = -float(hit["rank"])
    return Run(run, name="bm25")


@pytest.mark.data
def test_trec_dl19_bm25_ndcg(shared_data: Path) -> None:
    run = dl19_run(shared_data / "trec-dl" / "dl19_bm25_top100.json")
    qrels = Qrels.from_json(shared_data / "trec-dl" / "dl19_qrels.json")
    assert len(qrels) == 43
    assert round(evaluate(run, qrels, ["ndcg@10"])["ndcg@10"], 4) == 0.5058
    assert round(evaluate(run, qrels, ["ndcg@10"], gains="exp")["ndcg@10"], 4) == 0.4364

"""The graph stage's metapath back-off: when a query's metapaths reach nothing (a KB lacking
the fact), follow what answered instead on the training queries, then the next metapaths."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skbsearch.core.types import Qrels, Query
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.backoff import back_off, learn_backoff
from skbsearch.retrieve.graph.fit import MIN_BLEND_QUERIES
from skbsearch.retrieve.graph.model import KGModel
from skbsearch.stages import StageContext, fit, pipeline

WROTE = ("movie", "written_by")
DIRECTED = ("movie", "directed_by")
GENRE = ("movie", "has_genre")


def auteur_kb() -> SKB:
    """Eight films M1..M8, each directed by its own person P1..P8, all of genre Drama;
    M1, M2, M7, M8 have writers W1, W2, W7, W8; the others lack the fact."""
    films = [f"M{i}" for i in range(1, 9)]
    ids = [*films, *(f"P{i}" for i in range(1, 9)), *(f"W{i}" for i in (1, 2, 7, 8)), "Drama"]
    types = ["movie"] * 8 + ["person"] * 12 + ["genre"]
    at = {n: i for i, n in enumerate(ids)}
    edges = [(f"M{i}", "directed_by", f"P{i}") for i in range(1, 9)]
    edges += [(f"M{i}", "has_genre", "Drama") for i in range(1, 9)]
    edges += [(f"M{i}", "written_by", f"W{i}") for i in (1, 2, 7, 8)]
    src, rel, dst = zip(*edges, strict=True)
    return SKB.from_columns(ids, types, ids, edges=(np.array([at[s] for s in src]), list(rel),
                                                    np.array([at[d] for d in dst])))


def training() -> tuple[list[Query], Qrels]:
    pairs = [(f"who wrote [M{i}]", f"W{i}") for i in (1, 2, 7, 8)]
    pairs += [(f"who wrote [M{i}]", f"P{i}") for i in (3, 4)]  # the writer is the director
    pairs += [(f"who directed [M{i}]", f"P{i}") for i in (1, 2, 3, 4)]
    pairs += [(f"what genre is [M{i}]", "Drama") for i in (1,)]
    assert len(pairs) < MIN_BLEND_QUERIES  # the fitted model alone (no blend): its back-off is tested
    queries = [Query(f"q{n}", text) for n, (text, _) in enumerate(pairs)]
    return queries, Qrels({f"q{n}": {answer: 1} for n, (_, answer) in enumerate(pairs)})


@pytest.fixture(scope="module")
def fitted():
    stage = pipeline("graph(top_paths=1)", StageContext(auteur_kb(), notify=lambda _: None))
    fit(stage, *training())
    return stage


def _paths(stage, text: str, doc: str) -> list[str]:
    return [ln for ln in stage.explain(Query("x", text), doc) if ln.startswith("path:")]


def test_fit_learns_what_answers_when_a_metapath_reaches_nothing(fitted) -> None:
    assert fitted.fitted.backoff == {WROTE: [DIRECTED]}  # the genre never answered
    assert fitted.fitted.info["backoff"]


def test_backoff_follows_the_learned_metapath_only_when_needed(fitted) -> None:
    # M5 has no writer: its planned metapath reaches nothing; the learned one reaches P5
    assert [d for d, _ in fitted.run([Query("a", "who wrote [M5]")]).ranked("a")][0] == "P5"
    assert _paths(fitted, "who wrote [M5]", "P5") and "directed_by" in _paths(fitted, "who wrote [M5]", "P5")[0]
    # where the planned metapath answers, nothing else is followed
    assert _paths(fitted, "who wrote [M7]", "P7") == []
    assert [d for d, _ in fitted.run([Query("b", "who wrote [M7]")]).ranked("b")][0] == "W7"


def test_no_backoff_follows_nothing_else() -> None:
    stage = pipeline("graph(top_paths=1, backoff=0)", StageContext(auteur_kb(), notify=lambda _: None))
    fit(stage, *training())
    assert _paths(stage, "who wrote [M5]", "P5") == []


def test_backoff_survives_save_and_load(fitted, tmp_path) -> None:
    fitted.fitted.save(tmp_path / "m")
    assert KGModel.load(tmp_path / "m").backoff == {WROTE: [DIRECTED]}
    # a model saved before the back-off existed (format /1) still loads, without one
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    meta["format"] = "skbsearch.kg/1"
    del meta["backoff"]
    (tmp_path / "m" / "model.json").write_text(json.dumps(meta))
    assert KGModel.load(tmp_path / "m").backoff == {}


def test_backoff_order_and_min_hits() -> None:
    planned = [(0, WROTE, 0.9), (1, GENRE, 0.2)]
    spare = [(0, GENRE, 0.05), (0, DIRECTED, 0.08)]
    learned = {WROTE: [GENRE, DIRECTED]}
    nodes = {(0, DIRECTED): np.array([5]), (0, GENRE): np.array([7]), (1, GENRE): np.array([7])}
    walk = lambda ai, path: nodes.get((ai, path), np.zeros(0, np.int64))  # noqa: E731
    genre = [(1, GENRE, 0.2, np.array([7]))]
    # the top path reached nothing: its first substitute that reaches something, with its probability
    assert [x[:3] for x in back_off(planned, spare, learned, genre, walk)] == [(0, GENRE, 0.9)]
    assert back_off(planned, spare, learned, [(0, WROTE, 0.9, np.array([3]))], walk) == []  # it did
    # the top path's anchor reached nothing, nothing learned: its most probable spare path that
    # reaches something (whatever other anchors reached)
    assert [x[:3] for x in back_off(planned, spare, {}, [], walk)] == [(0, DIRECTED, 0.9)]
    assert [x[:3] for x in back_off(planned, spare, {}, genre, walk)] == [(0, DIRECTED, 0.9)]
    assert back_off(planned, spare, {}, [(0, GENRE, 0.1, np.array([7]))], walk) == []  # it reached some
    assert [x[:3] for x in back_off([], spare, {}, [], walk)] == [(0, DIRECTED, 0.08)]  # nothing planned

    class Plan:
        def __init__(self, node: int) -> None:
            self.anchors = [type("A", (), {"node": node})()]
            self.paths = [(0, WROTE, 1.0)]

    reach = {(1, DIRECTED): np.array([11]), (1, GENRE): np.array([20]), (2, DIRECTED): np.array([12]),
             (2, GENRE): np.array([20])}
    follow = lambda node, path: reach.get((node, path), np.zeros(0, np.int64))  # noqa: E731
    pop = np.zeros(30)
    classes = [WROTE, DIRECTED, GENRE]
    answers = [np.array([11]), np.array([12])]
    assert learn_backoff([Plan(1), Plan(2)], answers, classes, follow, pop) == {WROTE: [DIRECTED]}
    assert learn_backoff([Plan(1)], answers[:1], classes, follow, pop) == {}  # one hit < min_hits

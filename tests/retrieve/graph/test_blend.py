"""A fitted graph stage cannot lose to the untrained one: its fit blends the two at a
strength chosen by cross-validation inside the training queries (``retrieve.graph.blend``)."""

from __future__ import annotations

from kg_fixtures import shop, shop_queries

from skbsearch.core.types import Qrels, Query, Run
from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph.blend import blend_runs, blend_summary, choose_blend, inner_fitted_run
from skbsearch.retrieve.graph.model import KGModel
from skbsearch.stages import StageContext, pipeline
from skbsearch.train.select import choose_fit

#: one kind of question per relation: nothing a fit learns from the others carries over
KINDS = [("book", "written"), ("song", "composed"), ("painting", "painted"), ("film", "directed"),
         ("building", "designed"), ("company", "founded"), ("bridge", "built"), ("play", "staged"),
         ("poem", "recited"), ("statue", "sculpted"), ("garden", "planted"), ("recipe", "cooked"),
         ("game", "invented"), ("album", "recorded"), ("map", "drawn"), ("law", "passed"),
         ("ship", "sailed"), ("engine", "repaired"), ("school", "opened"), ("shop", "owned"),
         ("team", "coached"), ("dance", "choreographed"), ("photo", "taken"), ("speech", "delivered")]
PEOPLE = ["Alice Smith", "Bruno Keller", "Chen Wei", "Dara Okafor", "Emil Novak", "Fatima Rahman"]


def one_of_a_kind():
    """24 relations, each asked about once: 'which book was written by Alice Smith'."""
    b = SKBBuilder()
    for i, name in enumerate(PEOPLE):
        b.add_node(f"person:{i}", "person", name)
    queries, qrels = [], {}
    for k, (kind, verb) in enumerate(KINDS):
        for j in range(4):  # four works of each kind, by different people
            b.add_node(f"{kind}:{j}", kind, f"{['Red', 'Blue', 'Green', 'Grey'][j]} {kind} number {k}{j}")
            b.add_edge(f"{kind}:{j}", f"{verb} by", f"person:{(k + j) % len(PEOPLE)}")
        qid = f"q{k}"
        queries.append(Query(qid, f"which {kind} was {verb} by {PEOPLE[k % len(PEOPLE)]}"))
        qrels[qid] = {f"{kind}:0": 1}
    return b.build(), queries, Qrels(qrels)


def test_fitted_stage_is_never_below_untrained_on_held_out_folds():
    kb, queries, qrels = one_of_a_kind()
    ctx = StageContext(kb)
    choice, _ = choose_fit(lambda: pipeline("graph", ctx), queries, qrels, folds=3)
    assert choice.untrained["hit@1"] >= 0.9  # the untrained stage reads the relation names
    assert choice.fitted["mrr"] >= choice.untrained["mrr"] and choice.fitted["hit@10"] >= choice.untrained["hit@10"]
    st = pipeline("graph", ctx)
    st.fit(queries, qrels)
    model = st.fitted
    assert model.blend == 0.0 and model.info["blend"]["chosen"] == 0.0  # backed off to untrained
    assert st(queries) == pipeline("graph", ctx)(queries)  # ... exactly


def test_fitted_stage_keeps_what_generalises():
    kb = shop()
    queries, qrels = shop_queries()
    st = pipeline("graph", StageContext(kb))
    st.fit(queries, qrels)
    assert st.fitted.blend > 0.0  # templated queries: the learned model helps on inner folds


def test_choose_blend_moves_off_untrained_only_when_held_out_queries_say_so():
    answers = {f"q{i}": {"a"} for i in range(8)}
    plain = Run({q: {"a": 2.0, "b": 1.0} for q in answers})
    worse = Run({q: {"b": 2.0, "c": 1.5, "a": 1.0} for q in answers})
    assert choose_blend(plain, worse, answers, 10)[0] == 0.0
    plain2 = Run({q: {"b": 2.0, "a": 1.0} for q in answers})
    better = Run({q: {"a": 2.0, "b": 1.0} for q in answers})
    b, info = choose_blend(plain2, better, answers, 10)
    assert b > 0.0 and info["blends"][str(b)]["mrr"] == 1.0
    # better on three inner folds, worse on the fourth: not chosen
    uneven = Run({q: ({"b": 2.0, "c": 1.5, "a": 1.0} if i >= 6 else {"a": 2.0, "b": 1.0})
                  for i, q in enumerate(answers)})
    plain3 = Run({q: {"c": 3.0, "a": 2.0, "b": 1.0} for q in answers})
    assert choose_blend(plain3, uneven, answers, 10)[0] > 0.0  # pooled, it wins
    assert choose_blend(plain3, uneven, answers, 10, parts=[0, 0, 1, 1, 2, 2, 3, 3])[0] == 0.0
    mixed = blend_runs(plain2, better, 0.25, 10)
    assert mixed["q0"] == {"b": 0.75, "a": 0.25}  # (1 - b) * plain + b * fitted, min-max normalised


def test_blend_is_saved_with_the_model(tmp_path):
    KGModel(blend=0.25).save(tmp_path / "m")
    assert KGModel.load(tmp_path / "m").blend == 0.25


def test_blend_runs_takes_every_query_and_node_of_either_run():
    plain = Run({"q1": {"a": 5.0, "b": 5.0}, "q2": {"x": 1.0}})
    fitted = Run({"q1": {"c": 3.0, "a": 1.0}, "q3": {"y": 2.0}})
    mixed = blend_runs(plain, fitted, 0.5, 2, name="blend")
    assert mixed.name == "blend" and set(mixed) == {"q1", "q2", "q3"}
    # plain's equal scores normalise to 1; c is fitted's best, a its worst: a 0.5, b 0.5, c 0.5
    assert mixed["q1"] == {"a": 0.5, "b": 0.5}  # top 2, ties to the lower id
    assert mixed["q2"] == {"x": 0.5} and mixed["q3"] == {"y": 0.5}
    assert blend_runs(plain, fitted, 0.0, 10)["q1"] == {"a": 1.0, "b": 1.0, "c": 0.0}


def test_inner_fitted_run_scores_each_part_by_a_model_fitted_without_it():
    queries = [Query(f"q{i}", "x") for i in range(5)]
    seen = []

    def fit_and_run(test):
        seen.append(test)
        return Run({queries[i].id: {"fitted-without": float(len(test))} for i in test})

    out = inner_fitted_run(queries, [0, 1, 0, 2, 1], fit_and_run)
    assert seen == [[0, 2], [1, 4], [3]] and set(out) == {f"q{i}" for i in range(5)}
    assert inner_fitted_run(queries, [0] * 5, fit_and_run) == Run()  # one part: nothing to fit on


def test_blend_summary_says_what_the_fit_kept():
    assert blend_summary(KGModel(blend=0.0))["kept"] == "untrained"
    alone = blend_summary(KGModel(blend=1.0))
    assert alone["kept"] == "fitted" and "too few judged queries" in alone["note"]
    answers = {f"q{i}": {"a"} for i in range(8)}
    b, info = choose_blend(Run({q: {"b": 2.0, "a": 1.0} for q in answers}),
                           Run({q: {"a": 2.0, "b": 1.0} for q in answers}), answers, 10)
    summary = blend_summary(KGModel(blend=b, info={"blend": info}, weights={"text": 1.0}))
    assert summary["kept"] == "fitted" and summary["blend"] == b and summary["weights"] == {"text": 1.0}
    held = summary["held_out"]
    assert held["queries"] == 8 and held["untrained"]["mrr"] == 0.5 and held["fitted"]["mrr"] == 1.0
    assert held["best_blend"]["mrr"] == 1.0

"""train.select: a fitted pipeline is kept only if it beats the untrained one on held-out
folds; the kept one is saved with the spec that reloads it (``skb fit``: tests/cli/test_fit.py)."""

from __future__ import annotations

import json

import pytest
from kg_fixtures import shop, shop_queries

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels
from skbsearch.stages import StageContext, pipeline
from skbsearch.train.select import FitChoice, choose_fit, save_fitted


def test_fitted_graph_is_kept_when_it_beats_untrained_on_held_out_folds(tmp_path):
    kb = shop()
    queries, qrels = shop_queries()
    ctx = StageContext(kb)
    choice, fitted = choose_fit(lambda: pipeline("bm25 + graph", ctx), queries, qrels, folds=3)
    assert set(choice.untrained) >= {"hit@1", "hit@10", "mrr"} and choice.queries == len(queries)
    # the shop's queries are templated: learned metapaths and aliases generalise across folds
    assert choice.keep and choice.fitted["mrr"] > choice.untrained["mrr"]
    saved = save_fitted(fitted, tmp_path / "fit", choice)
    spec = (tmp_path / "fit" / "pipeline.txt").read_text().strip()
    assert "graph(model=" in spec and saved.models and json.loads((tmp_path / "fit" / "fit.json").read_text())["keep"]
    again = pipeline(spec, ctx)  # the saved spec reloads the fitted models
    assert again(queries[:3]).keys() == fitted(queries[:3]).keys()


def test_untrainable_pipeline_is_refused(tmp_path):
    kb = shop()
    queries, qrels = shop_queries()
    ctx = StageContext(kb)
    try:
        choose_fit(lambda: pipeline("bm25", ctx), queries, qrels, folds=3)
    except Exception as e:  # InputError: nothing to fit
        assert "nothing to fit" in str(e)
    else:
        raise AssertionError("bm25 has nothing to fit")


def test_too_few_judged_queries_are_refused_and_unjudged_ones_do_not_count():
    queries, qrels = shop_queries()
    ctx = StageContext(shop())
    two = Qrels({q.id: qrels[q.id] for q in queries[:2]})
    with pytest.raises(InputError, match="at least 3 judged queries, got 2") as e:
        choose_fit(lambda: pipeline("graph", ctx), queries, two, folds=3)
    assert e.value.field == "queries"
    with pytest.raises(InputError, match="at least 2 judged queries, got 1"):
        choose_fit(lambda: pipeline("graph", ctx), queries, Qrels({queries[0].id: qrels[queries[0].id]}),
                   folds=1)


def _choice(keep: bool) -> FitChoice:
    return FitChoice("mrr", 3, 9, {"mrr": 0.5}, {"mrr": 0.6 if keep else 0.4}, keep, 1.0)


def test_a_choice_not_kept_leaves_no_spec_behind(tmp_path):
    out = tmp_path / "fit"
    kept = save_fitted(pipeline("bm25 % 5"), out, _choice(True))
    assert kept.spec == "bm25 % 5" and kept.models == []  # no model stage: nothing but the spec
    assert (out / "pipeline.txt").read_text() == "bm25 % 5\n"
    record = json.loads((out / "fit.json").read_text())
    assert record["artefact"] == "fit" and record["keep"] and record["fitted"] == {"mrr": 0.6}
    save_fitted(pipeline("bm25 % 5"), out, _choice(False))  # an earlier output is replaced whole
    assert sorted(p.name for p in out.iterdir()) == ["fit.json"]
    assert json.loads((out / "fit.json").read_text())["keep"] is False


def test_save_fitted_refuses_to_replace_a_folder_it_did_not_write(tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "todo.txt").write_text("mine")
    with pytest.raises(InputError, match="replaces only an .skb fit. output"):
        save_fitted(pipeline("bm25"), out, _choice(False))
    assert (out / "todo.txt").read_text() == "mine"

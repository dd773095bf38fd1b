"""`skb fit` / train.select: a fitted pipeline is kept only if it beats the untrained one
on held-out folds; the kept one is saved with the spec that reloads it."""

from __future__ import annotations

import json

from kg_fixtures import shop, shop_queries
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.stages import StageContext, pipeline
from skbsearch.train.select import choose_fit, save_fitted

runner = CliRunner()


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


def test_fit_command_says_whether_it_kept_the_model(tmp_path):
    kb_dir = tmp_path / "shop.skb"
    shop().save(kb_dir)
    queries, qrels = shop_queries()
    qfile, rfile = tmp_path / "q.jsonl", tmp_path / "qrels.trec"
    qfile.write_text("".join(json.dumps({"id": q.id, "text": q.text}) + "\n" for q in queries))
    qrels.to_trec(rfile)
    r = runner.invoke(app, ["fit", str(kb_dir), "-p", "graph", "--queries", str(qfile), "--qrels", str(rfile),
                            "--out", str(tmp_path / "out"), "--folds", "3"])
    assert r.exit_code == 0, r.output
    assert "untrained" in r.output and "fitted (3-fold held out)" in r.output
    assert ("kept:" in r.output) == (tmp_path / "out" / "pipeline.txt").exists()


def test_stages_fit_fits_a_fusions_children_then_its_weights():
    from skbsearch.stages import fit

    kb = shop()
    queries, qrels = shop_queries()
    p = pipeline("bm25 + graph", StageContext(kb))
    fit(p, queries, qrels)
    assert p.children[1].fitted is not None  # the graph inside the fusion is fitted
    # and the fusion's fit ran: it recorded the spec's parameters (default weights: per query
    # from the lists' confidence) and kept them or chose two weights
    assert p._given == (None, 2.0) and len(p.params.weights) in (0, 2)

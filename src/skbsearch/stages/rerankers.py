"""The registered G-RAG GNN re-ranker (``gnn``).

Unlike the cross-encoder and LLM re-rankers (their classes in :mod:`skbsearch.rerank` are
the stages), this one stays a registered class that builds
:class:`~skbsearch.rerank.gnn.GNNReranker` on first use: that module imports torch and
torch-geometric at load time (the ``[gnn]`` extra), and registering stages must not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skbsearch.core.registry import register_stage
from skbsearch.core.stage import SpecStage, check_device_params, device_param, precision_param
from skbsearch.stages.context import StageContext


@register_stage
class GNNStage(SpecStage):
    """G-RAG: a trained GNN over the graph of the incoming candidates (model from 'skb train gnn-reranker')."""

    name = "gnn"
    aliases = ("grag",)
    category = "reranker"

    @dataclass
    class Params:
        model: str = field(metadata={"help": "model directory from 'skb train gnn-reranker'"})
        top_k: int = 100
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            check_device_params(self)

    def build(self, context: StageContext) -> Any:
        from skbsearch.rerank.gnn import GNNReranker  # torch + torch-geometric ([gnn] extra)

        p = self.params
        return GNNReranker.load(p.model, context.doc_text, k=p.top_k, device=p.device,
                                precision=p.precision)

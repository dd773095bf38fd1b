"""Registered re-rankers: cross-encoder, LLM (STaRK's prompt), G-RAG GNN.

Each re-scores the incoming Run's top candidates using the nodes' rendered documents;
heavy dependencies (torch, llama.cpp) load only when the stage first runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.paths import cache_root
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import SpecStage, check_device_params, device_param, precision_param
from skbsearch.llm.cache import ResponseCache
from skbsearch.llm.client import get_client
from skbsearch.rerank.cross_encoder import BACKENDS, CrossEncoderReranker
from skbsearch.rerank.cross_encoder_onnx import check_quantize
from skbsearch.rerank.llm import LLMReranker
from skbsearch.stages.context import StageContext


@register_stage
class CrossEncoderStage(SpecStage):
    """Cross-encoder re-ranking of the incoming top candidates (a trained model directory)."""

    name = "cross-encoder"
    aliases = ("ce",)
    category = "reranker"

    @dataclass
    class Params:
        model: str = field(metadata={
            "help": "a directory from 'skb train cross-encoder' or any sentence-transformers "
                    "CrossEncoder name/path"})
        top_k: int = 100
        batch_size: int = 32
        max_length: int = 256
        backend: str = field(default="auto", metadata={
            "help": "auto | native | sentence-transformers | onnx"})
        quantize: str = field(default="none", metadata={
            "help": "none | int8 (dynamic int8 weights; backend=onnx)"})
        device: str | None = device_param()
        precision: str | None = precision_param()

        def check(self) -> None:
            check_device_params(self)
            if self.top_k < 1:
                raise InputError("top_k must be >= 1", field="top_k")
            if self.backend not in BACKENDS:
                raise InputError(f"unknown backend {self.backend!r}; use one of {BACKENDS}",
                                 field="backend")
            if check_quantize(self.quantize) != "none" and self.backend != "onnx":
                raise InputError(f"quantize={self.quantize} needs backend=onnx", field="quantize")

    def build(self, context: StageContext) -> Any:
        p = self.params
        return CrossEncoderReranker(p.model, context.doc_text, top_k=p.top_k,
                                    batch_size=p.batch_size, max_length=p.max_length,
                                    backend=p.backend, quantize=p.quantize,
                                    device=p.device, precision=p.precision)


@register_stage
class LLMStage(SpecStage):
    """STaRK's LLM re-ranker: a 0-1 satisfaction score per candidate (top 20 by default).

    On a GPU, serve the model with an OpenAI-compatible server and give its URL:
    ``vllm serve MODEL`` (``model='http://127.0.0.1:8000/v1'``, ``name='MODEL'``) or
    llama.cpp's ``llama-server -m MODEL.gguf -ngl 99`` (every layer offloaded to the GPU);
    the stage then runs no model itself, so it takes no ``device``.
    """

    name = "llm"
    category = "reranker"

    @dataclass
    class Params:
        model: str = field(default="smollm2", metadata={
            "help": "smollm2 (packaged GGUF), a .gguf path, or an http(s):// OpenAI-compatible URL"})
        name: str = field(default="default", metadata={"help": "model name sent to an HTTP endpoint"})
        top_k: int = 20
        kind: str = field(default="node", metadata={"help": "what a candidate is called in the prompt"})
        max_doc_chars: int = 2000
        max_tokens: int = field(default=16, metadata={
            "help": "answer length; small models restate the prompt before the number"})
        cache: bool = field(default=True, metadata={"help": "cache responses on disk"})

    def build(self, context: StageContext) -> Any:
        p = self.params
        cache = ResponseCache(cache_root() / "llm" / "responses.sqlite") if p.cache else None
        client = get_client(p.model, model=p.name, cache=cache)
        return LLMReranker(client, context.doc_text, top_k=p.top_k, kind=p.kind,
                           max_doc_chars=p.max_doc_chars, max_tokens=p.max_tokens,
                           tie_break="retriever")


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

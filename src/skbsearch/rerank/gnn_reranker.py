"""The G-RAG re-ranker (``gnn``): a trained GNN over the graph of the incoming candidates.

torch and torch-geometric (the ``[gnn]`` extra) load only when the stage is set up
(:mod:`skbsearch.rerank.gnn` holds the featurizer and the scoring loop), so registering it
needs neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.devices import resolve
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import (
    Context,
    SpecStage,
    device_param,
    is_stage_context,
    precision_param,
)
from skbsearch.core.types import Query, Run
from skbsearch.semgraph.concepts import ConceptGraph
from skbsearch.semgraph.depparse import DEFAULT_SPACY_MODEL, DependencyParser


@register_stage
class GNNReranker(SpecStage):
    """G-RAG: a trained GNN over the graph of the incoming candidates (model from 'skb train gnn-reranker').

    Re-scores each query's candidates with a trained G-RAG GNN: from a spec
    (``gnn(model='DIR')``) over the bound context's node documents, or given a model
    (:meth:`load` for a directory) and ``doc_text`` directly.

    Args:
        source: the trained ``GNNScorer`` (or the stage context, from a spec).
        doc_text: ``doc_id -> text`` (function or mapping) for the candidates.
        featurizer: builds the features (must match the model's training settings).
        k: re-rank only the top ``k`` candidates (``None``: all); the rest keep their order
            below them (from a spec: ``top_k``).
        params: ``model`` (the model directory), ``top_k``, ``device``, ``precision``.
    """

    name = "gnn"
    aliases = ("grag",)
    category = "reranker"

    @dataclass
    class Params:
        model: str = field(metadata={"help": "model directory from 'skb train gnn-reranker'"})
        top_k: int = 100
        device: str | None = device_param()
        precision: str | None = precision_param()

    def __init__(self, source: Any = None, doc_text: Any = None, featurizer: Any = None, *,
                 k: int | None = None, **params: Any) -> None:
        from_spec = source is None or is_stage_context(source)
        if not from_spec:
            params.setdefault("model", str(getattr(getattr(source, "config", None), "kind", "gnn")))
            if k is not None:
                params["top_k"] = k
        super().__init__(source if from_spec else None, **params)
        self.k = self.params.top_k if from_spec else k
        if not from_spec:
            self._use(source, doc_text, featurizer)

    def _use(self, model: Any, doc_text: Any, featurizer: Any) -> None:
        from skbsearch.rerank.gnn import GraphFeaturizer  # torch ([gnn] extra)

        self.spec = resolve(self.params.device, self.params.precision)
        self.model = model.to(self.spec.device).eval()
        self.doc_text = doc_text
        self.featurizer = featurizer or GraphFeaturizer()
        self._built = self

    @classmethod
    def load(
        cls,
        directory: str | Path,
        doc_text: Any,
        *,
        amr: Mapping[tuple[str, str], ConceptGraph] | None = None,
        embedding_cache: str | Path | None = None,
        parse_cache: str | Path | None = None,
        k: int | None = None,
        progress: bool = False,
        device: str | None = None,
        precision: str | None = None,
    ) -> GNNReranker:
        """A re-ranker from a model directory written by training (features as trained);
        ``device``/``precision`` place the GNN and the text encoder (:mod:`skbsearch.core.devices`)."""
        stage = cls(None, model=str(directory), device=device, precision=precision,
                    **({} if k is None else {"top_k": k}))
        stage.k = k
        stage._load(directory, doc_text, amr=amr, embedding_cache=embedding_cache,
                    parse_cache=parse_cache, progress=progress)
        return stage

    def _load(self, directory: str | Path, doc_text: Any, *,
              amr: Mapping[tuple[str, str], ConceptGraph] | None = None,
              embedding_cache: str | Path | None = None, parse_cache: str | Path | None = None,
              progress: bool = False) -> None:
        from skbsearch.rerank.gnn import GraphFeaturizer  # torch ([gnn] extra)
        from skbsearch.rerank.gnn_models import load_model

        model, extra = load_model(directory)
        parser = DependencyParser(
            extra.get("spacy_model", DEFAULT_SPACY_MODEL),
            cache_dir=parse_cache,
            per_text=bool(extra.get("per_text", False)),
        )
        featurizer = GraphFeaturizer(
            extra.get("encoder", "minilm"),
            parser,
            amr=amr,
            use_paths=bool(extra.get("use_paths", True)),
            labelled_edges=bool(extra.get("labelled_edges", True)),
            min_common_nodes=int(extra.get("min_common_nodes", 1)),
            first_stage_weight=float(extra.get("first_stage_weight", 0.0)),
            embedding_cache=embedding_cache,
            progress=progress,
            device=self.params.device,
        )
        self._use(model, doc_text, featurizer)

    def build(self, context: Context) -> Any:
        """The ``model`` directory's GNN over the context's node documents."""
        self._load(self.params.model, context.doc_text)
        return self

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """Re-score the candidates of ``run`` for ``queries``."""
        from skbsearch.rerank.gnn import graphs_to_run, score_graphs  # torch ([gnn] extra)

        if run is None:
            raise ValueError("GNNReranker needs a run of candidates from a previous stage")
        ready = self.inner
        queries = [q for q in queries if run.get(q.id)]
        graphs = ready.featurizer.featurize(queries, run, ready.doc_text, k=self.k)
        out = graphs_to_run(graphs, score_graphs(ready.model, graphs, ready.spec), name="gnn")
        if self.k is not None:  # keep candidates past k, in order, below the re-ranked ones
            for q in queries:
                scores = out[q.id]
                floor = min(scores.values(), default=0.0)
                for j, (d, _) in enumerate(run.ranked(q.id)[self.k :], start=1):
                    scores[d] = floor - j
        return out

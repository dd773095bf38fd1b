"""G-RAG re-ranking stage: features of a query's candidates and the GNN that scores them.

For each query the candidates of the Run become a document graph
(:mod:`skbsearch.rerank.docgraph`); node features are ``Encode(document ⊕ aᵢ)`` (Eq. 2),
aᵢ the concepts on the shortest paths from ``question`` in the pair's semantic graph
(:mod:`skbsearch.semgraph.paths`); the question is encoded alike (Eq. 10). Semantic graphs
come from user-supplied AMR (``amr={(qid, docid): ConceptGraph}``, see
:mod:`skbsearch.semgraph.penman_input`) or the built-in spaCy parser.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rich.progress import Progress
from torch import Tensor

from skbsearch.core.devices import DeviceSpec
from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.encoders import encode_texts, load_encoder
from skbsearch.rerank.docgraph import build_document_graph
from skbsearch.rerank.gnn_models import GNNScorer, torch_threads
from skbsearch.semgraph.concepts import ConceptGraph
from skbsearch.semgraph.depparse import DependencyParser
from skbsearch.semgraph.paths import path_text

DocText = Callable[[str], str] | Mapping[str, str]


def resolve_doc_text(doc_text: DocText) -> Callable[[str], str]:
    """A ``doc_id -> text`` function from a function or a mapping (InputError if missing)."""
    if isinstance(doc_text, Mapping):
        mapping = doc_text

        def lookup(doc_id: str) -> str:
            try:
                return str(mapping[doc_id])
            except KeyError:
                raise InputError(
                    f"no text for document {doc_id!r}; the doc_text mapping must cover every "
                    "candidate of the run",
                    field="doc_text",
                ) from None

        return lookup
    return doc_text


@dataclass
class QueryGraph:
    """The model input of one query: candidates, node features and document graph."""

    query_id: str
    doc_ids: list[str]
    x: Tensor  # (n, d) node features
    y: Tensor  # (d,) question embedding
    edge_index: Tensor  # (2, E) int64
    edge_attr: Tensor  # (E, 2) float32
    first_stage: Tensor  # (n,) first-stage scores
    labels: Tensor | None = None  # (n,) graded relevance, when qrels are given


class GraphFeaturizer:
    """Builds :class:`QueryGraph` inputs: semantic graphs, path texts, embeddings.

    Args:
        encoder: an encoder name for :func:`skbsearch.encoders.load_encoder` (default
            ``"minilm"``) or an ``Encoder``.
        parser: the built-in parser to use when no AMR is given for a pair.
        amr: user-supplied semantic graphs ``{(qid, docid): ConceptGraph}``; pairs found
            here are not parsed.
        use_paths: append the path text aᵢ to each document (Eq. 2); ``False`` gives
            Eq. 1 (document text only).
        labelled_edges: match edges with their relation when counting common edges.
        min_common_nodes: link two documents only when their concept graphs share at least
            this many concepts (1: the paper's rule; larger: sparser document graphs).
        first_stage_weight: when non-zero, append each candidate's z-scored first-stage
            score to its features and this weight to the question vector, so the score
            ``y·x`` includes ``weight * z`` (not in the paper).
        embedding_cache: directory of the embedding cache (``None``: no disk cache).
        progress: show progress bars.
        device: where the text encoder runs (:mod:`skbsearch.core.devices`; default: auto).
    """

    def __init__(
        self,
        encoder: Any = "minilm",
        parser: DependencyParser | None = None,
        *,
        amr: Mapping[tuple[str, str], ConceptGraph] | None = None,
        use_paths: bool = True,
        labelled_edges: bool = True,
        min_common_nodes: int = 1,
        first_stage_weight: float = 0.0,
        embedding_cache: str | Path | None = None,
        progress: bool = False,
        device: str | None = None,
    ) -> None:
        self.device = device
        self.min_common_nodes = int(min_common_nodes)
        self.first_stage_weight = float(first_stage_weight)
        self.encoder_name = encoder
        self._encoder: Any = None
        self.parser = parser or DependencyParser()
        self.amr = amr or {}
        self.use_paths = use_paths
        self.labelled_edges = labelled_edges
        self.embedding_cache = embedding_cache
        self.progress = progress

    @property
    def encoder(self) -> Any:
        """The text encoder (loaded on first use)."""
        if self._encoder is None:
            self._encoder = load_encoder(self.encoder_name, self.device)
        return self._encoder

    def settings(self) -> dict[str, Any]:
        """Feature settings saved with a model, so inference builds the same features."""
        name = self.encoder_name if isinstance(self.encoder_name, str) else self.encoder.name
        return {
            "encoder": name,
            "use_paths": self.use_paths,
            "labelled_edges": self.labelled_edges,
            "min_common_nodes": self.min_common_nodes,
            "first_stage_weight": self.first_stage_weight,
            "spacy_model": self.parser.model,
            "per_text": self.parser.per_text,
        }

    def _encode(self, texts: list[str], what: str) -> np.ndarray:
        return encode_texts(
            self.encoder,
            texts,
            self.embedding_cache,
            batch_size=32,
            progress=self.progress,
            description=what,
        )

    def semantic_graphs(self, pairs: Sequence[tuple[str, str, str, str]]) -> list[ConceptGraph]:
        """Concept graphs for ``(qid, docid, question, document)`` tuples (AMR first)."""
        out: list[ConceptGraph | None] = [self.amr.get((q, d)) for q, d, _, _ in pairs]
        todo = [i for i, g in enumerate(out) if g is None]
        if todo:
            texts = [(pairs[i][2], pairs[i][3]) for i in todo]
            if self.progress:
                with Progress(transient=True) as bar:
                    task = bar.add_task("parsing", total=len(texts))
                    parsed = self.parser.parse_many(texts, progress=lambda k: bar.advance(task, k))
            else:
                parsed = self.parser.parse_many(texts)
            for i, g in zip(todo, parsed, strict=True):
                out[i] = g
        return out  # type: ignore[return-value]  # every None was parsed above

    def featurize(
        self,
        queries: Sequence[Query],
        run: Run,
        doc_text: DocText,
        qrels: Qrels | None = None,
        k: int | None = None,
    ) -> list[QueryGraph]:
        """Features of every query's candidates (its top ``k``, or all, in run order)."""
        text_of = resolve_doc_text(doc_text)
        per_query: list[tuple[Query, list[tuple[str, float]]]] = []
        pairs: list[tuple[str, str, str, str]] = []
        for q in queries:
            ranked = run.ranked(q.id)
            ranked = ranked[:k] if k is not None else ranked
            per_query.append((q, ranked))
            pairs.extend((q.id, d, q.text, text_of(d)) for d, _ in ranked)
        graphs = self.semantic_graphs(pairs)
        docs = [p[3] for p in pairs]
        if self.use_paths:
            node_texts = [f"{d} {path_text(g)}".strip() for d, g in zip(docs, graphs, strict=True)]
        else:
            node_texts = docs
        x_all = self._encode(node_texts, "encoding documents")
        y_all = self._encode([q.text for q in queries], "encoding questions")
        out, start = [], 0
        for qi, (q, ranked) in enumerate(per_query):
            n = len(ranked)
            dg = build_document_graph(
                graphs[start : start + n],
                labelled_edges=self.labelled_edges,
                min_common_nodes=self.min_common_nodes,
            )
            x = torch.from_numpy(x_all[start : start + n].copy())
            y = torch.from_numpy(y_all[qi].copy())
            first_stage = torch.tensor([s for _, s in ranked], dtype=torch.float32)
            if self.first_stage_weight:
                sd = first_stage.std() if n > 1 else torch.tensor(0.0)
                z = (first_stage - first_stage.mean()) / (sd if sd > 0 else 1.0)
                x = torch.cat([x, z[:, None]], dim=1)
                y = torch.cat([y, y.new_tensor([self.first_stage_weight])])
            labels = None
            if qrels is not None:
                grades = qrels.get(q.id, {})
                labels = torch.tensor([grades.get(d, 0) for d, _ in ranked], dtype=torch.float32)
            out.append(
                QueryGraph(
                    query_id=q.id,
                    doc_ids=[d for d, _ in ranked],
                    x=x,
                    y=y,
                    edge_index=torch.from_numpy(dg.edge_index),
                    edge_attr=torch.from_numpy(dg.edge_attr),
                    first_stage=first_stage,
                    labels=labels,
                )
            )
            start += n
        return out


@torch.no_grad()
def score_graphs(model: GNNScorer, graphs: Sequence[QueryGraph],
                 spec: DeviceSpec | None = None) -> list[Tensor]:
    """Scores of each query's candidates with ``model`` in eval mode (no gradients), on the
    model's device (``spec``: its precision, under autocast); the scores come back on the CPU."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    amp = spec.autocast() if spec is not None else contextlib.nullcontext()
    try:
        with torch_threads(1), amp:
            if device.type == "cpu":
                return [model(g.x, g.edge_index, g.edge_attr, g.y).float() for g in graphs]
            return [model(*(t.to(device, non_blocking=True) for t in
                            (g.x, g.edge_index, g.edge_attr, g.y))).float().cpu() for g in graphs]
    finally:
        model.train(was_training)


def graphs_to_run(graphs: Sequence[QueryGraph], scores: Sequence[Tensor], name: str = "gnn") -> Run:
    """A Run from per-query candidate scores."""
    return Run(
        {
            g.query_id: dict(zip(g.doc_ids, s.tolist(), strict=True))
            for g, s in zip(graphs, scores, strict=True)
        },
        name=name,
    )

"""G-RAG node features and document graphs of a run's candidates, as a model was trained.

The rows of the G-RAG paper's Table 1 (:data:`GNN_ROWS`): ``mlp`` (no graph, CE loss),
``gcn`` (CE loss), ``grag`` = G-RAG (the paper's layer, CE loss) and ``grag-rl`` =
G-RAG-RL (pairwise loss); ``gnn`` and ``gnn-rl`` are the older names of the last two
(:func:`row_name`). G-RAG and G-RAG-RL encode document ⊕ AMR path text; MLP and GCN
encode the document only. :class:`GNNFeatures` are the feature settings saved with a
model; :func:`build_graphs` builds a run's :class:`~skbsearch.rerank.gnn.QueryGraph`
inputs with them (parses and embeddings cached under :func:`skbsearch.core.paths.cache_root`).
Training lives in :mod:`skbsearch.train.gnn_rows`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.paths import cache_root
from skbsearch.core.progress import ProgressFn
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.semgraph.depparse import DEFAULT_SPACY_MODEL, DependencyParser

# rerank.gnn imports torch at module level: imported inside the functions that need it,
# so this module loads without the [gnn] extra.

#: Harness row name -> (model kind, loss, path text in node features), as in the paper.
GNN_ROWS: dict[str, tuple[str, str, bool]] = {
    "mlp": ("mlp", "ce", False),
    "gcn": ("gcn", "ce", False),
    "gnn": ("grag", "ce", True),
    "gnn-rl": ("grag", "pairwise", True),
}


#: Newer row names (the paper's) -> the keys of :data:`GNN_ROWS`.
ROW_ALIASES: dict[str, str] = {"grag": "gnn", "grag-rl": "gnn-rl"}


def row_name(name: str) -> str:
    """The :data:`GNN_ROWS` key of a row name (``grag-rl`` and ``gnn-rl`` are one row)."""
    key = ROW_ALIASES.get(name, name)
    if key not in GNN_ROWS:
        names = sorted({*GNN_ROWS, *ROW_ALIASES})
        raise InputError(f"unknown GNN row {name!r}; use one of {', '.join(names)}",
                         field="row")
    return key


@dataclass
class GNNFeatures:
    """How node features and document graphs are built (saved with a trained model)."""

    encoder: str = "minilm"
    use_paths: bool = False
    labelled_edges: bool = True
    min_common_nodes: int = 1
    first_stage_weight: float = 0.0
    spacy_model: str = DEFAULT_SPACY_MODEL
    #: parse each question and document once and compose pair graphs (DependencyParser)
    per_text: bool = False

    @classmethod
    def from_settings(cls, extra: dict[str, Any]) -> GNNFeatures:
        """Settings saved with a model (``extra`` of :func:`load_model`) -> features."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in extra.items() if k in known})

    def settings(self) -> dict[str, Any]:
        """The dict saved beside the model weights."""
        return asdict(self)


def build_graphs(queries: Sequence[Query], run: Run, doc_text: dict[str, str] | Callable[[str], str],
                 features: GNNFeatures, *, qrels: Qrels | None = None,
                 cache_dir: str | Path | None = None, chunk: int = 5,
                 progress: ProgressFn | None = None,
                 timings: dict[str, float] | None = None) -> list[Any]:
    """:class:`~skbsearch.rerank.gnn.QueryGraph` inputs of ``queries`` (run order, all candidates).

    ``cache_dir`` is the cache root (default :func:`skbsearch.core.paths.cache_root`): parses go
    to ``semgraphs/``, embeddings to ``embeddings/``. ``timings`` receives the seconds spent
    per query id (its chunk's time split evenly).
    """
    from skbsearch.rerank.gnn import GraphFeaturizer, resolve_doc_text

    root = Path(cache_dir) if cache_dir is not None else cache_root()
    parser = DependencyParser(features.spacy_model, cache_dir=root / "semgraphs",
                              per_text=features.per_text)
    fz = GraphFeaturizer(features.encoder, parser, use_paths=features.use_paths,
                         labelled_edges=features.labelled_edges,
                         min_common_nodes=features.min_common_nodes,
                         first_stage_weight=features.first_stage_weight,
                         embedding_cache=root / "embeddings", progress=False)
    text_of = resolve_doc_text(doc_text)
    out: list[Any] = []
    queries = list(queries)
    if timings is not None:  # load the models first: one-off costs are not per-query latency
        _ = fz.encoder, parser.nlp
    for s in range(0, len(queries), chunk):
        part = queries[s:s + chunk]
        t = time.perf_counter()
        graphs = fz.featurize(part, run, text_of, qrels=qrels)
        if timings is not None:
            per = (time.perf_counter() - t) / max(1, len(part))
            timings.update({q.id: per for q in part})
        out.extend(graphs)
        if progress is not None:
            progress("gnn features", min(s + chunk, len(queries)), len(queries))
    return out


def with_first_stage_weight(graph: Any, weight: float) -> Any:
    """``graph`` with the question's first-stage entry (its last) set to ``weight``.

    Only for graphs built with a first-stage feature (``first_stage_weight != 0``).
    """
    y = graph.y.clone()
    y[-1] = weight
    return dataclasses.replace(graph, y=y)

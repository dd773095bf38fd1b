"""Stages over passage corpora: the context of a corpus SKB and the ``input`` stage.

A passage benchmark (TREC DL, IMPLIRET) turns its corpus into an SKB
(:func:`skbsearch.kb.corpus.corpus_skb`) and runs registered stages on it through a
:class:`CorpusContext`: documents are the passages verbatim (no ``type: name`` header),
and a missing index is built in memory on first use (dense embeddings are cached on
disk, so the second build is a read). A benchmark whose first stage is given as a run
(TREC DL's BM25 top-100) passes it as the pipeline's input; ``input`` is that run as a
stage, e.g. to fuse it: ``dense + input``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage
from skbsearch.core.types import Query, Run
from skbsearch.encoders import default_cache_dir
from skbsearch.index import get_kind
from skbsearch.index.base import MANIFEST_FILE, Index
from skbsearch.index.dense import DenseIndex
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.corpus import TEXT_FIELD, TextRenderer
from skbsearch.kb.store import SKB
from skbsearch.stages.context import StageContext


class CorpusContext(StageContext):
    """A :class:`StageContext` over a passage-corpus SKB (one text field, no edges).

    Args:
        kb: the corpus SKB (or its directory).
        field: the text field (``text``).
        embeddings: the embedding cache directory of dense indexes and of their stages'
            query vectors (default ``cache_root()/embeddings``).
        progress: reports index building (``progress(stage, done, total)``).
        index_dirs, notify: as for :class:`StageContext`.
    """

    def __init__(self, kb: SKB | str | Path, *, field: str = TEXT_FIELD,
                 embeddings: str | Path | None = None, progress: ProgressFn | None = None,
                 index_dirs: dict[str, str | Path] | None = None,
                 notify: Callable[[str], None] | None = None) -> None:
        super().__init__(kb, index_dirs=index_dirs, notify=notify)
        self.field = field
        self.renderer = TextRenderer(field)
        self.embeddings = Path(embeddings) if embeddings is not None else default_cache_dir()
        self.progress = progress
        self._texts = self.kb.column(field)

    def doc_text(self, doc_id: str) -> str:
        """The passage itself (``""`` for an unknown id)."""
        if not self.kb.has_node(doc_id):
            return ""
        return self._texts[int(self.kb.index_of(doc_id))] or ""

    def embedding_index(self, kind: str, encoder: str | None) -> Index:
        """A saved ``kind`` index, else one built in memory with ``encoder`` (default
        ``minilm``; one per encoder, so ``dense + dense(encoder='static')`` compares them)."""
        if kind != "dense" or encoder in (None, "minilm"):
            return self.index(kind)
        path = self.index_dir(kind)
        if path is not None and (path / MANIFEST_FILE).is_file():
            return self.index(kind)
        return self.shared(f"index:{kind}@{encoder}", lambda: self._build_dense(encoder))

    def _build_dense(self, encoder: str) -> DenseIndex:
        return DenseIndex.build(self.kb, encoder, renderer=self.renderer, cache=self.embeddings,
                                progress=self.progress or False)

    def _load_index(self, kind: str) -> Index:
        path = self.index_dir(kind)
        if path is not None and (path / MANIFEST_FILE).is_file():
            return super()._load_index(kind)
        source = {"kind": "skb", "num_nodes": self.kb.num_nodes,
                  "skb_hash": self.kb.meta.get("content_hash"), "fields": [self.field]}
        if kind == "bm25":
            return BM25Index.from_texts(zip(self.kb.ids, self.renderer.render_many(self.kb),
                                            strict=True), source=source)
        if kind == "dense":
            return self._build_dense("minilm")
        return get_kind(kind).build(self.kb, fields=[self.field])


@register_stage
class InputStage(SpecStage):
    """The incoming run unchanged (a benchmark's given first stage, e.g. TREC DL's BM25 top-100)."""

    name = "input"
    aliases = ("first-stage",)
    category = "input"

    @dataclass
    class Params:
        """No parameters."""

    def build(self, context: Context | None) -> Any:
        return _identity

    @property
    def inner(self) -> Any:
        return _identity


def _identity(queries: Sequence[Query], run: Run | None = None) -> Run:
    if run is None:
        raise InputError("'input' is the run given to the pipeline; this pipeline got none "
                         "(a benchmark with a first-stage run, e.g. TREC DL, gives one)",
                         field="pipeline")
    return Run({q.id: dict(run.get(q.id, {})) for q in queries}, name=run.name)

"""The BM25 retrieval stage (``bm25``): batch retrieval, hard filters, re-scoring a Run.

Only documents that *match* the query (a positive BM25 score from at least one query term)
and pass the filters are returned: never zero-scored fillers, for any ``k``. With numba,
one query or a batch goes through the index's compiled, disk-cached blocked kernel
(:meth:`BM25Index.top_rows`, :meth:`BM25Index.top_rows_many`; a batch's queries in
parallel), the filters as a mask read during the top-k selection; without it (or with
``backend="numpy"``), bm25s's numpy retrieval with the filters as its ``weight_mask`` (0 for
excluded documents). Both give bm25s's scores.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.run_lazy import LazyRun
from skbsearch.core.types import Query, Run, as_query
from skbsearch.index import kernels, open_index
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.filters import NodeFilter, filter_mask, index_skb
from skbsearch.retrieve.stage import IndexRetriever, RetrieverParams, loaded_index

if TYPE_CHECKING:
    from skbsearch.index.base import Index
    from skbsearch.kb.store import SKB

#: the compiled kernels (numba installed)
NUMBA_AVAILABLE = kernels.AVAILABLE
#: bm25s picks its backend from an attribute of the shared index: one numpy retrieval at a
#: time runs the switch + retrieve
_RETRIEVE_LOCK = threading.Lock()


@register_stage
class BM25Retriever(IndexRetriever):
    """BM25 over the SKB's node documents (index: SKB_DIR/indexes/bm25, built if missing).

    Retrieves (or re-scores) candidates with a :class:`BM25Index`: from a spec
    (``bm25(k=200)``, the index of the bound context) or over an index given directly.

    Args:
        source: a loaded index or its directory (or the stage context, from a spec).
        filter: a hard :class:`NodeFilter` (node types and/or SQL predicate): the ``types``
            and ``where`` parameters.
        skb: the SKB the filter is evaluated on (default: the SKB the index was built
            from, loaded from the path in its manifest).
        mask: an optional boolean mask over the index's documents (True = allowed).
        n_threads: threads for batch retrieval (-1: all cores, 0/1: one).
        params: ``k`` (candidates per query, fewer when fewer documents match), ``types``,
            ``where``, ``backend`` (``"numba"``: the compiled kernels, ``"numpy"``: bm25s's
            numpy retrieval, ``"auto"``: numba when installed; the kernels are cached on
            disk, so no process pays their compile time twice).
    """

    name = "bm25"
    cost = "light"
    index_kind = "bm25"

    @dataclass
    class Params(RetrieverParams):
        backend: str = field(default="auto", metadata={"help": "auto | numba | numpy"})

    def __init__(self, source: Any = None, *, filter: NodeFilter | None = None, skb: SKB | None = None,
                 mask: np.ndarray | None = None, n_threads: int = -1, **params: Any) -> None:
        super().__init__(source, filter=filter, skb=skb, **params)
        self._explicit_mask = mask
        self.n_threads = n_threads
        self._ready_direct()

    def attach(self, index: Index | str | Path, skb: SKB | None) -> None:
        """Use ``index`` (checked against ``skb`` when given); the backend is checked here."""
        backend = self.params.backend
        if backend not in ("auto", "numba", "numpy"):
            raise InputError(f"unknown backend {backend!r}; use auto, numba or numpy",
                             field="backend")
        if backend == "numba" and not NUMBA_AVAILABLE:
            raise InputError("backend 'numba' needs the numba package (pip install numba)",
                             field="backend")
        index = loaded_index(index, BM25Index, self.name)
        # paired with an SKB: opened for it (caught up; an index of another SKB build refused)
        self._index = open_index(index, skb, warm=False) if skb is not None else index
        self.skb = skb
        mask = self._explicit_mask
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            if mask.shape != (self._index.num_docs,):
                raise InputError(f"mask has shape {mask.shape}, index has "
                                 f"{self._index.num_docs} documents", field="mask")
        self._explicit_mask = mask
        self._mask: np.ndarray | None = None
        self._weight: np.ndarray | None = None
        self._mask_ready = False

    def evidence(self) -> tuple[str, ...]:
        """The context's BM25 index, as the graph stage's text evidence reads it when the
        index scores so (:meth:`BM25Index.scores_summed`); a BM25F or per-field-``b`` index's
        own scores are other evidence."""
        own = super().evidence()
        if own and not self.index.scores_summed():
            return (f"{own[0]}:as-built",)
        return own

    @property
    def backend(self) -> str:
        """``"auto"``, ``"numba"`` or ``"numpy"``."""
        return str(self.params.backend)

    # ------------------------------------------------------------------ filters
    def _resolve_skb(self) -> SKB:
        self.skb = index_skb(self.index, self.skb)
        return self.skb

    def allowed_mask(self) -> np.ndarray | None:
        """Boolean mask of documents that pass the filters (``None``: no filtering)."""
        _ = self.index  # (attached first: from the bound context on first use)
        if not self._mask_ready:
            skb = self._resolve_skb() if self.filter is not None else None
            mask = filter_mask(self.filter, skb, self.index.doc_ids, self._explicit_mask)
            self._mask = mask
            self._weight = None if mask is None else mask.astype(np.float32)
            self._mask_ready = True
        return self._mask

    # ------------------------------------------------------------------ stage
    def _call(self, queries: list[Query], run: Run | None, k: int) -> Run:
        tokens = self.index.tokenize([q.text for q in queries])
        if run is None:
            return self._retrieve(queries, tokens, k)
        out = Run(name=self.name)
        self._rescore(queries, tokens, run, k, out)
        return out

    def _retrieve(self, queries: list[Query], tokens: list[list[int]], k: int) -> Run:
        mask = self.allowed_mask()
        n_allowed = self.index.num_docs if mask is None else int(mask.sum())
        kk = min(k, n_allowed)
        todo = [i for i, t in enumerate(tokens) if t]
        if kk == 0 or not todo:
            out = Run(name=self.name)
            for q in queries:
                out[q.id] = {}
            return out
        if kernels.AVAILABLE and self.backend != "numpy":
            # the compiled, disk-cached blocked kernel (no compile stall in a new process, no
            # array over every document per query; a batch in parallel): bm25s's scores
            if len(todo) == 1:
                r, s = self.index.top_rows(tokens[todo[0]], kk, mask)
                return self._run(queries, tokens, todo, r[None], s[None], np.array([len(r)]), kk)
            rows, scores, counts = self.index.top_rows_many([tokens[i] for i in todo], kk, mask,
                                                            self.n_threads)
            return self._run(queries, tokens, todo, rows, scores, counts, kk)
        bm = self.index.bm25
        self.index.check_terms([tokens[i] for i in todo])  # a saved index's postings, on first use
        with _RETRIEVE_LOCK:  # without numba: bm25s's numpy backend
            bm.backend = "numpy"
            res = bm.retrieve([tokens[i] for i in todo], k=kk, sorted=True, show_progress=False,
                              n_threads=self.n_threads if len(todo) > 1 else 0,
                              weight_mask=self._weight, backend_selection="numpy")
        # Rows are sorted best first and every score is >= 0 (excluded documents score
        # exactly 0), so the matching documents of a row are a prefix of it.
        return self._run(queries, tokens, todo, res.documents, res.scores, (res.scores > 0).sum(axis=1), kk)

    def _run(self, queries: list[Query], tokens: list[list[int]], todo: list[int], rows: np.ndarray,
             scores_: np.ndarray, counts_: np.ndarray, kk: int) -> Run:
        """The Run of the ``(n, k)`` rows and scores of the queries ``todo`` (the first
        ``counts_[i]`` of row ``i`` matching; every other query empty): a :class:`LazyRun`,
        whose ``{doc id: score}`` dicts are filled when it is first read."""
        check_deadline()
        index = self.index

        def fill(out: Mapping[str, dict[str, float]]) -> None:
            names = index.ids_array[rows].tolist()
            scores = scores_.tolist()
            counts = counts_.tolist()
            has_constant = index.nonoccurrence is not None
            for row, i in enumerate(todo):
                n, sc, nm = counts[row], scores[row], names[row]
                if n < kk:  # (slicing only when needed: this loop is the stage's overhead)
                    sc, nm = sc[:n], nm[:n]
                if has_constant:
                    c = index.constant(tokens[i])
                    sc = [v + c for v in sc]
                docs = out[queries[i].id]
                if docs:  # a query id asked twice: the last one's documents, as a dict assignment
                    docs.clear()
                docs.update(zip(nm, sc, strict=True))

        return LazyRun([q.id for q in queries], fill, name=self.name)

    def _rescore(self, queries: list[Query], tokens: list[list[int]], run: Run, k: int,
                 out: Run) -> None:
        mask = self.allowed_mask()
        pos = self.index.position
        ids = self.index.ids_array
        for q, toks in zip(queries, tokens, strict=True):
            check_deadline()
            cands = run.get(q.id, {})
            rows = np.fromiter((pos.get(d, -1) for d in cands), dtype=np.int64, count=len(cands))
            rows = rows[rows >= 0]
            if mask is not None:
                rows = rows[mask[rows]]
            if not toks or not len(rows):
                out[q.id] = {}
                continue
            s = self.index.score_docs(toks, rows)
            keep = s > 0
            rows, s = rows[keep], s[keep]
            order = np.lexsort((rows, -s))[:k]
            c = self.index.constant(toks)
            out[q.id] = dict(zip(ids[rows[order]].tolist(), (s[order] + np.float32(c)).tolist(),
                                 strict=True))

    def warmup(self) -> None:
        """Load (or compile) the query kernels (one query's and a batch's) now instead of on
        the first query."""
        if self.backend != "numpy" and self.index.num_docs:
            self.allowed_mask()
            self.index.warm(batch=True)

    def explain(self, query: Query | str, doc_id: str) -> list[str]:
        """The node document's lines that share most terms with the query (index tokens)."""
        query = as_query(query)
        ctx = self.require_context()
        name = ctx.kb.node(doc_id).name if ctx.kb.has_node(doc_id) else ""
        # Drop the "type: name" header and lines that only repeat the name.
        lines = ctx.doc_text(doc_id).split("\n")[1:]
        body = "\n".join(ln for ln in lines if ln.partition(": ")[2] != name)
        return [f"text: {ln}" for ln in evidence_lines(
            query.text, body, getattr(self.index, "tokenize", None), max_lines=2)]


_WORD = re.compile(r"(?u)\b\w\w+\b")


def _words(texts: Sequence[str]) -> list[list[str]]:
    return [_WORD.findall(t.lower()) for t in texts]


def evidence_lines(
    query: str,
    document: str,
    tokenize: Callable[[Sequence[str]], Sequence[Sequence[Any]]] | None = None,
    max_lines: int = 2,
    width: int = 160,
) -> list[str]:
    """The lines of ``document`` that share most terms with ``query`` (at most ``max_lines``).

    Lines are ranked by the number of distinct query terms they contain, ties in document
    order, and cut to ``width`` characters. ``tokenize`` maps texts to term lists; pass
    :meth:`BM25Index.tokenize` to match with the index's own stemming and stopwords
    (default: lower-cased words). With no matching line, the document's first line.
    """
    tok = tokenize or _words
    qset = {t for toks in tok([query]) for t in toks}
    lines = [ln.strip() for ln in document.splitlines() if ln.strip()]
    if not lines:
        return []
    counts = [len(qset.intersection(t)) for t in tok(lines)] if qset else [0] * len(lines)
    ranked = sorted((i for i, c in enumerate(counts) if c > 0), key=lambda i: (-counts[i], i))
    chosen = sorted(ranked[:max_lines]) or [0]
    return [ln if len(ln) <= width else ln[: width - 1] + "…" for ln in (lines[i] for i in chosen)]

"""Graph-aware retrieval over an SKB: text evidence + relational evidence + attributes.

STaRK-style queries mix a textual requirement ("dishwasher-safe cup") with relational ones
("by Coralhaus", "often bought with the Ranger Pro mug") and attribute bounds ("under
$20", "at least 4 stars"). This stage scores every candidate node ``c`` of the target
types as::

    score(c) = w_text · text(c) / max_text
             + w_rel  · Σ_r max_{n ∈ N_r(c)} anchor(n)
             + w_attr · [c satisfies the query's attribute bounds]

where ``anchor(n)`` is how much of node ``n``'s *name* the query covers (idf-weighted
share of the name's tokens that occur in the query, in [0, 1]; names are first looked up
with BM25 over node names), and ``N_r(c)`` the
neighbours of ``c`` through relation ``r`` (each relation in both directions counts as its
own ``r``). Candidates are the text retriever's top ``n_text`` plus the target-type
neighbours of strong anchors (``anchor >= anchor_min``), so a product that is only
reachable through the graph can still be found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.core.deadline import check_deadline
from skbsearch.core.operators import StageBase
from skbsearch.core.types import Query, Run
from skbsearch.enrich.constraints import parse_constraints
from skbsearch.index.names import name_token_rows
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.store import SKB, positions
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever

_RATING = re.compile(
    r"(?:at least|minimum of|min\.?)\s*(\d(?:\.\d)?)\s*stars?"
    r"|(\d(?:\.\d)?)\s*stars?\s*(?:or (?:more|higher|above|better)|and up|\+)"
    r"|rat(?:ing|ed)\s*(?:of\s*)?(\d(?:\.\d)?)\s*(?:stars?\s*)?(?:or (?:more|higher|above|better)|and up|\+)"
    r"|rat(?:ing|ed)\s*(?:of\s*)?(?:at least|above|over)\s*(\d(?:\.\d)?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class AttributeBounds:
    """Numeric bounds a query states on node attributes: ``{attribute: (low, high)}``."""

    bounds: dict[str, tuple[float | None, float | None]]

    def mask(self, skb: SKB, rows: np.ndarray) -> np.ndarray:
        """True where a node satisfies every bound (a missing attribute value fails)."""
        ok = np.ones(len(rows), dtype=bool)
        for attr, (lo, hi) in self.bounds.items():
            if attr not in skb.schema.attributes:
                continue
            col = skb.column(attr)
            vals = np.array([np.nan if col[int(i)] is None else float(col[int(i)]) for i in rows])
            with np.errstate(invalid="ignore"):
                if lo is not None:
                    ok &= vals >= lo
                if hi is not None:
                    ok &= vals <= hi
        return ok


def parse_attribute_bounds(
    query: str, *, price_attribute: str = "price", rating_attribute: str = "rating"
) -> AttributeBounds:
    """Price bounds ("under $20", "between $10 and $30") and rating bounds ("4 stars or more")."""
    bounds: dict[str, tuple[float | None, float | None]] = {}
    for c in parse_constraints(query):
        if c.kind == "price" and (c.low is not None or c.high is not None):
            bounds[price_attribute] = (c.low, c.high)
        elif c.kind == "price" and c.value is not None:
            v = float(c.value)
            bounds[price_attribute] = (v * 0.9, v * 1.1)
    m = _RATING.search(query)
    if m:
        v = float(next(g for g in m.groups() if g is not None))
        bounds[rating_attribute] = (v, None)
    return AttributeBounds(bounds)


class _NameTokens:
    """Each node's distinct name-token ids, as CSR rows (``tokens[i]`` -> sorted int64 ids)."""

    def __init__(self, indptr: np.ndarray, ids: np.ndarray) -> None:
        self.indptr, self.ids = indptr, ids
        self.vocab = 1 + (int(ids.max()) if len(ids) else 0)

    @classmethod
    def of(cls, name_index: BM25Index, skb: SKB) -> _NameTokens:
        """Read off the name index's matrix when it can (no tokenising), else tokenise names."""
        rows = name_token_rows(name_index, skb)
        if rows is not None:
            return cls(*rows)
        toks = [np.unique(np.asarray(t, dtype=np.int64))
                for t in name_index.tokenize([nm or "" for nm in skb.column("name")])]
        indptr = np.zeros(len(toks) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in toks], out=indptr[1:])
        return cls(indptr, np.concatenate(toks + [np.zeros(0, np.int64)]))

    def __getitem__(self, i: int) -> np.ndarray:
        return self.ids[self.indptr[i] : self.indptr[i + 1]]


class GraphAwareRetriever(StageBase):
    """Text + relational (neighbour names) + attribute evidence over an SKB.

    Args:
        skb: the knowledge base.
        text_index: BM25 over the nodes' documents (ids = node ids).
        target_types: node types that can be answers (e.g. ``("product",)``).
        name_index: BM25 over node names (built from ``skb`` when omitted).
        k: answers per query.
        n_text: text candidates per query.
        n_anchor: name-matched nodes considered per query.
        anchor_min: anchors at least this strong also contribute their neighbours as candidates.
        rel_min: weaker anchors are ignored as relational evidence (partial name matches
            are mostly the candidate's own text again).
        w_text, w_rel, w_attr: weights of the three kinds of evidence.
        relations: relations to use (``r`` / ``r^-1``); default all, both directions.
    """

    def __init__(
        self,
        skb: SKB,
        text_index: BM25Index,
        *,
        target_types: Sequence[str] = (),
        name_index: BM25Index | None = None,
        k: int = 100,
        n_text: int = 200,
        n_anchor: int = 50,
        anchor_min: float = 0.6,
        rel_min: float = 0.9,
        w_text: float = 1.0,
        w_rel: float = 1.0,
        w_attr: float = 1.0,
        relations: Sequence[str] | None = None,
        name: str = "graph",
    ) -> None:
        self.skb = skb
        self.text_index = text_index
        self.k = k
        self.n_text = n_text
        self.anchor_min = anchor_min
        self.rel_min = rel_min
        self.w_text, self.w_rel, self.w_attr = w_text, w_rel, w_attr
        self.name = name
        self.target = NodeFilter(types=tuple(target_types))
        self.text = BM25Retriever(text_index, k=n_text, filter=self.target, skb=skb)
        if name_index is None:
            names = skb.column("name")
            name_index = BM25Index.from_texts(
                ((nid, nm or "") for nid, nm in zip(skb.ids, names, strict=True)), stopwords="en"
            )
        self.names = BM25Retriever(name_index, k=n_anchor)
        self.name_index = name_index
        self._name_tokens = _NameTokens.of(name_index, skb)
        df = np.bincount(self._name_tokens.ids, minlength=self._name_tokens.vocab)
        self._idf = np.log1p(skb.num_nodes / np.maximum(df, 1)).astype(np.float32)
        self.relations = list(relations) if relations is not None else [
            r for base in skb.schema.relations for r in (base, base + INVERSE_SUFFIX)
        ]
        self._target_mask = np.zeros(skb.num_nodes, dtype=bool)
        self._target_mask[self.target.node_indices(skb)] = True
        self._row_of_node = (np.arange(skb.num_nodes, dtype=np.int64) if text_index.in_node_order(skb)
                             else positions(skb.nodes.column("id"), text_index.doc_ids))

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        queries = list(queries)
        text_run = self.text(queries) if run is None else run
        name_run = self.names(queries)
        tokens = self.text_index.tokenize([q.text for q in queries])
        qname_tokens = self.name_index.tokenize([q.text for q in queries])
        out = Run(name=self.name)
        for q, toks, qn in zip(queries, tokens, qname_tokens, strict=True):
            check_deadline()
            anchor = self.anchors(name_run.get(q.id, {}), qn)
            out[q.id] = self._score_one(q, toks, text_run.get(q.id, {}), anchor)
        return out

    def anchors(self, names: dict[str, float], query_tokens: Sequence[int]) -> np.ndarray:
        """Per-node anchor strength: idf-weighted share of the node's name the query covers."""
        anchor = np.zeros(self.skb.num_nodes, dtype=np.float32)
        if not names:
            return anchor
        q = np.unique(np.asarray(query_tokens, dtype=np.int64))
        for i in self.skb.index_of(list(names)):
            t = self._name_tokens[int(i)]
            if len(t) == 0:
                continue
            w = self._idf[t]
            anchor[int(i)] = float(w[np.isin(t, q)].sum() / w.sum())
        return anchor

    def _score_one(self, q: Query, toks: list[int], text: dict[str, float], anchor: np.ndarray) -> dict[str, float]:
        skb = self.skb
        names = bool(anchor.any())
        strong = np.flatnonzero(anchor >= self.anchor_min)
        cand = set(skb.index_of(list(text)).tolist()) if text else set()
        if len(strong):
            nb = skb.graph.neighbor_set(strong, self.relations, "out")
            cand.update(nb[self._target_mask[nb]].tolist())
        if not cand:
            return {}
        rows = np.fromiter(sorted(cand), dtype=np.int64)
        # Text evidence for every candidate (graph-found ones are scored too).
        doc_rows = self._row_of_node[rows]
        tscore = np.zeros(len(rows), dtype=np.float32)
        ok = doc_rows >= 0
        if toks:
            tscore[ok] = self.text_index.score_docs(toks, doc_rows[ok])
        tmax = float(tscore.max()) if len(tscore) else 0.0
        score = self.w_text * (tscore / tmax if tmax > 0 else tscore)
        # Relational evidence: per relation, the best anchor among the candidate's neighbours.
        if names:
            for rel in self.relations:
                offsets, nbrs = skb.graph.neighbors(rows, [rel], "out")
                if len(nbrs) == 0:
                    continue
                vals = anchor[nbrs]
                vals = np.where(vals >= self.rel_min, vals, 0.0)
                owner = np.repeat(np.arange(len(rows)), np.diff(offsets))
                best = np.zeros(len(rows), dtype=np.float32)
                np.maximum.at(best, owner, vals)
                score += self.w_rel * best
        bounds = parse_attribute_bounds(q.text)
        if bounds.bounds:
            score += self.w_attr * bounds.mask(skb, rows)
        order = np.argsort(-score, kind="stable")[: self.k]
        ids = skb.ids
        return {ids[int(rows[i])]: float(score[i]) for i in order}

    def _anchor_cache(self, text: str) -> np.ndarray:
        """Anchor strengths of one query text (the last few kept: explain runs per hit)."""
        cache = self.__dict__.setdefault("_anchors", {})
        if text not in cache:
            if len(cache) >= 8:
                cache.pop(next(iter(cache), None), None)
            name_run = self.names([Query("q", text)])
            qn = self.name_index.tokenize([text])[0]
            cache[text] = self.anchors(name_run.get("q", {}), qn)
        return cache[text]

    def explain(self, query: Query, doc_id: str) -> list[str]:
        """Why ``doc_id`` scores for ``query``: the linked anchors it is related to (with the
        relation), the attribute bounds it meets, and whether its own text matched."""
        skb = self.skb
        if not skb.has_node(doc_id):
            return []
        i = int(skb.index_of(doc_id))
        anchor = self._anchor_cache(query.text)
        lines: list[str] = []
        names = skb.column("name")
        for rel in self.relations:
            _, nbrs = skb.graph.neighbors(np.array([i], dtype=np.int64), [rel], "out")
            for j in nbrs[anchor[nbrs] >= self.rel_min][:3]:
                lines.append(f"path: {names[i]} --{rel}--> {names[int(j)]} "
                             f"(linked from the query, {anchor[int(j)]:.2f})")
        bounds = parse_attribute_bounds(query.text)
        if bounds.bounds and bool(bounds.mask(skb, np.array([i]))[0]):
            shown = ", ".join(f"{a} {'>= ' + format(lo, 'g') if lo is not None else ''}"
                              f"{' and ' if lo is not None and hi is not None else ''}"
                              f"{'<= ' + format(hi, 'g') if hi is not None else ''}"
                              for a, (lo, hi) in bounds.bounds.items())
            lines.append(f"attribute: {shown}")
        toks = self.text_index.tokenize([query.text])[0]
        row = int(self._row_of_node[i])
        if toks and row >= 0:
            t = float(self.text_index.score_docs(toks, np.array([row]))[0])
            if t > 0:
                lines.append(f"text: BM25 {t:.2f} on its own document")
        return lines

    def __repr__(self) -> str:
        return f"GraphAwareRetriever(k={self.k}, w_text={self.w_text}, w_rel={self.w_rel}, w_attr={self.w_attr})"

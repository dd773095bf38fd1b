"""Constrained retrieval: BM25 on enriched text plus query constraints met by document facts.

For each query (no model at query time, rules only):

1. ``text``: BM25 over every document's *enriched* index text (original text + the
   derived tokens, e.g. absolute dates, computed prices, landmark countries);
2. ``constraints``: :func:`~skbsearch.enrich.parse_constraints` reads the date, time,
   price and place the query states (and a speaker of the documents' facts that it
   names), and :func:`~skbsearch.enrich.constraint_score`
   scores each document's stored facts against them (0..1);
3. combined (mode ``"full"``)::

       score(d) = text(d) / max_d' text(d') + weight * constraints(d)

   as :func:`~skbsearch.enrich.combine_scores`, where BM25 scores the query without its
   question words (:func:`~skbsearch.enrich.topic_text`), interpolated (share
   ``feedback_weight``) with a pseudo-relevance-feedback expansion
   (:class:`~skbsearch.retrieve.feedback.TermFeedback`: the top ``feedback_docs``
   documents for the query's topic words, without its dates, times and prices, give
   ``feedback_terms`` expansion terms). The text score decides among documents that meet
   the constraints equally. Mode ``"text"`` keeps the BM25 score of the whole query
   alone; mode ``"constraints"`` ranks by the constraint score, BM25 breaking ties.

Only documents with a positive score are returned. A :class:`FactIndex` finds the
documents that have a fact of the right kind and value, so constraint scoring touches
only those. A retriever saves to a directory (``bm25/``, ``enriched.jsonl``,
``constrained.json``) atomically.
"""

from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage, is_stage_context
from skbsearch.core.types import Query, Run
from skbsearch.enrich import (
    ArithmeticEnricher,
    Constraint,
    EnrichedDocument,
    Gazetteer,
    GazetteerEnricher,
    TemporalEnricher,
    constraint_score,
    enrich_documents,
    parse_constraints,
    topic_text,
)
from skbsearch.enrich.base import Enricher
from skbsearch.enrich.gazetteer import normalize_tokens
from skbsearch.enrich.store import load_enriched, save_enriched
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.feedback import TermFeedback

MODES = ("full", "text", "constraints")
_CONFIG = "constrained.json"
_SETTINGS = ("weight", "mode", "k", "feedback_docs", "feedback_terms", "feedback_weight")
# Feedback defaults: chosen by cross-validation over the IMPLIRET development tuple sets
# (benchmarks/impliret_feedback_cv.py).
FEEDBACK_DOCS, FEEDBACK_TERMS, FEEDBACK_WEIGHT = 30, 20, 0.5


def _key(s: Any) -> str:
    return " ".join(normalize_tokens(str(s))) if s else ""


class FactIndex:
    """Documents by the values of their facts, to find constraint candidates fast."""

    def __init__(self, docs: Sequence[EnrichedDocument]) -> None:
        self.facts = [list(d.facts) for d in docs]
        self.by_date: dict[str, set[int]] = {}
        self.by_place: dict[str, set[int]] = {}
        prices: list[tuple[float, int]] = []
        for row, facts in enumerate(self.facts):
            for f in facts:
                if f.kind == "date":
                    self.by_date.setdefault(str(f.value), set()).add(row)
                elif f.kind == "price":
                    try:
                        prices.append((float(f.value), row))
                    except (TypeError, ValueError):
                        continue
                elif f.kind == "place":
                    for v in (f.value, *(f.attrs.get(k) for k in ("country", "region", "city", "location"))):
                        if v:
                            self.by_place.setdefault(_key(v), set()).add(row)
        self.speakers = sorted({str(f.attrs["speaker"]) for fs in self.facts for f in fs if f.attrs.get("speaker")})
        self.dates = sorted(self.by_date)
        self.date_rows = {r for rows in self.by_date.values() for r in rows}
        self.price_values = np.array([p for p, _ in prices], dtype=np.float64)
        self.price_rows = np.array([r for _, r in prices], dtype=np.int64)

    def _date_rows(self, c: Constraint) -> set[int]:
        if c.value is not None:
            return set(self.by_date.get(str(c.value), ()))
        lo = bisect.bisect_left(self.dates, c.low) if c.low is not None else 0
        hi = bisect.bisect_right(self.dates, c.high) if c.high is not None else len(self.dates)
        return {r for d in self.dates[lo:hi] for r in self.by_date[d]}

    def _price_rows(self, c: Constraint) -> set[int]:
        v = self.price_values
        if c.value is not None:
            tol = max(abs(c.value) * max(c.tolerance, 0.001), 0.01) * 1.01
            mask = np.abs(v - c.value) <= tol
        else:
            mask = np.ones(len(v), dtype=bool)
            if c.low is not None:
                mask &= v >= c.low
            if c.high is not None:
                mask &= v <= c.high
        return set(self.price_rows[mask].tolist())

    def candidates(self, constraints: Sequence[Constraint]) -> list[int]:
        """Rows with at least one fact that may meet one of the constraints."""
        rows: set[int] = set()
        for c in constraints:
            if c.kind == "date":
                rows |= self._date_rows(c)
            elif c.kind == "time":
                rows |= self.date_rows
            elif c.kind == "price":
                rows |= self._price_rows(c)
            elif c.kind == "place":
                rows |= self.by_place.get(_key(c.value), set())
        return sorted(rows)

    def scores(self, constraints: Sequence[Constraint]) -> np.ndarray:
        """:func:`constraint_score` of every document (0 for non-candidates, exactly)."""
        out = np.zeros(len(self.facts), dtype=np.float64)
        if constraints:
            for r in self.candidates(constraints):
                out[r] = constraint_score(constraints, self.facts[r])
        return out


_RUN_NAMES = {"full": "enrich", "text": "bm25+enrich", "constraints": "constraints-only"}


@register_stage
class ConstrainedRetriever(SpecStage):
    """Constraint-aware retrieval over node documents enriched at index time (dates, prices).

    BM25 on enriched text combined with constraint scores (module docstring). From a spec
    (``enrich(k=20, mode='text')``) its documents are the bound context's node documents,
    enriched once per context and gazetteer and shared by every ``enrich`` stage of it
    (whatever ``k``, ``mode``, ``weight``); given documents directly, it is ready at once.

    Args:
        docs: the enriched documents (index order = ``index`` order when given), or the
            stage context (from a spec).
        index: a BM25 index over ``[d.index_text for d in docs]`` (built when omitted).
        places: place names for query constraints (a :class:`Gazetteer` or names).
        run_name: the name of the Runs it returns (default: by mode).
        feedback_docs, feedback_terms: pseudo-relevance feedback documents and terms.
        feedback_weight: lambda, the expansion's share of the text score (0: no feedback;
            modes ``"full"`` and ``"constraints"`` only).
        params: ``weight`` (of the constraint score in mode ``"full"``), ``mode``
            (``"full"``, ``"text"`` or ``"constraints"``), ``k`` (candidates per query),
            ``gazetteer`` (from a spec: a landmark JSONL file).
    """

    name = "enrich"
    aliases = ("constrained",)
    cost = "heavy"  # its enriched index is built in memory on first use

    @dataclass
    class Params:
        k: int = 100
        mode: str = field(default="full", metadata={"help": "full | text | constraints"})
        weight: float = 1.0
        gazetteer: str | None = field(default=None, metadata={
            "help": "landmark JSONL file: places linked in documents and query constraints"})

    def __init__(
        self,
        docs: Any = None,
        index: BM25Index | None = None,
        *,
        places: Gazetteer | Iterable[str] | None = None,
        run_name: str | None = None,
        feedback_docs: int = FEEDBACK_DOCS,
        feedback_terms: int = FEEDBACK_TERMS,
        feedback_weight: float = FEEDBACK_WEIGHT,
        **params: Any,
    ) -> None:
        direct = docs is not None and not is_stage_context(docs)
        super().__init__(None if direct else docs, **params)
        self._run_name = run_name
        if not direct:
            return
        self._check_settings()
        self.docs = list(docs)
        self.index = index if index is not None else BM25Index.from_texts(
            [(d.id, d.index_text) for d in self.docs], source={"kind": "enriched"})
        if self.index.doc_ids != [d.id for d in self.docs]:
            raise InputError("the BM25 index and the enriched documents list different ids; "
                             "rebuild the index", field="index")
        self.facts = FactIndex(self.docs)
        self.places = places
        self._all_rows = np.arange(len(self.docs), dtype=np.int64)
        if not 0 <= feedback_weight <= 1:
            raise InputError(f"feedback_weight must be in [0, 1], got {feedback_weight}", field="feedback_weight")
        self.feedback_docs, self.feedback_terms = int(feedback_docs), int(feedback_terms)
        self.feedback_weight = float(feedback_weight)
        self.feedback = (TermFeedback(self.index, self.feedback_docs, self.feedback_terms)
                         if self.feedback_weight > 0 and self.mode != "text" and len(self.docs) else None)
        self._built = self

    def _check_settings(self) -> None:
        if self.mode not in MODES:
            raise InputError(f"unknown mode {self.mode!r}; use one of {MODES}", field="mode")
        if self.k < 0:
            raise ValueError("k must be >= 0")

    def build(self, context: Context) -> Any:
        """Take the context's enriched documents, index, facts and feedback (built once)."""
        self._check_settings()
        p = self.params
        gaz = _gazetteer(context.resolve_path(p.gazetteer)) if p.gazetteer else None
        # The enriched documents, their BM25 index, fact index and feedback matrices depend
        # only on the SKB and the gazetteer: built once per context, whatever k, mode, weight.
        key = "enriched-index" + (f":{p.gazetteer}" if gaz is not None else "")
        base = context.shared(key, lambda: _enriched_retriever(context, gaz))
        for attr in _SHARED:
            setattr(self, attr, getattr(base, attr))
        return self

    @property
    def k(self) -> int:
        """Candidates per query."""
        return int(self.params.k)

    @property
    def mode(self) -> str:
        """``"full"``, ``"text"`` or ``"constraints"``."""
        return str(self.params.mode)

    @property
    def weight(self) -> float:
        """Weight of the constraint score in mode ``"full"``."""
        return float(self.params.weight)

    # ------------------------------------------------------------------ scoring
    def constraints(self, text: str) -> list[Constraint]:
        """The constraints parsed from a query text (speakers: those of the documents' facts)."""
        ready = self.inner
        return parse_constraints(text, places=ready.places, speakers=ready.facts.speakers)

    def _bm25(self, text: str) -> tuple[np.ndarray, list[int]]:
        toks = self.index.tokenize([text])[0]
        s = self.index.score_docs(toks, self._all_rows).astype(np.float64) if toks else np.zeros(len(self.docs))
        return s, toks

    def text_score(self, text: str, constraints: Sequence[Constraint] = ()) -> np.ndarray:
        """The text score of every document, scaled to a maximum of 1 (mode ``"text"``: raw BM25).

        With constraints (modes ``"full"``, ``"constraints"``) BM25 scores the query without
        its question words, interpolated with the feedback expansion of its topic words.
        """
        _ = self.inner  # (set up first: from the bound context on first use)
        if self.mode == "text":
            return self._bm25(text)[0]
        topic = topic_text(text)
        s, toks = self._bm25(topic)
        if self.feedback is not None and toks:
            seed_text = topic
            for c in constraints:  # the topic alone chooses the feedback documents
                if c.kind in ("date", "time", "price") and c.text:
                    seed_text = seed_text.replace(c.text, " ")
            seed, _ = self._bm25(seed_text)
            if seed.max() > 0:
                lam = self.feedback_weight
                s = (1 - lam) * s / len(toks) + lam * self.feedback.scores(seed, exclude=toks)
        return s / s.max() if len(s) and s.max() > 0 else s

    def score(self, text: str) -> np.ndarray:
        """The combined score of every document for one query text."""
        _ = self.inner  # (set up first: from the bound context on first use)
        if self.mode == "text":
            return self.text_score(text)
        cs = self.constraints(text)
        s = self.text_score(text, cs)
        c = self.facts.scores(cs)
        if self.mode == "constraints":
            return c + 1e-6 * s
        return s + self.weight * c

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """Top-``k`` documents per query (only ``run``'s candidates, when given)."""
        out = Run(name=self._run_name or _RUN_NAMES[self.mode])
        ids = self.inner.index.ids_array
        pos = self.index.position
        for q in queries:
            check_deadline()
            s = self.score(q.text)
            if run is not None:
                keep = np.zeros(len(s), dtype=bool)
                keep[[pos[d] for d in run.get(q.id, {}) if d in pos]] = True
                s = np.where(keep, s, 0.0)
            rows = np.flatnonzero(s > 0)
            order = rows[np.lexsort((rows, -s[rows]))][: self.k]
            out[q.id] = dict(zip(ids[order].tolist(), s[order].tolist(), strict=True))
        return out

    def document(self, doc_id: str) -> EnrichedDocument:
        """The enriched document with this id."""
        _ = self.inner
        return self.docs[self.index.position[doc_id]]

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write ``bm25/``, ``enriched.jsonl`` and ``constrained.json`` atomically."""
        path = Path(path)
        _ = self.inner
        with atomic_dir(path, overwrite=overwrite, kind="constrained") as tmp:
            self.index.save(tmp / "bm25")
            save_enriched(tmp, self.docs)
            cfg = {"artefact": "constrained", "kind": "constrained", "weight": self.weight,
                   "mode": self.mode, "k": self.k, "num_docs": len(self.docs),
                   "feedback_docs": self.feedback_docs, "feedback_terms": self.feedback_terms,
                   "feedback_weight": self.feedback_weight}
            (tmp / _CONFIG).write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path, *, places: Gazetteer | Iterable[str] | None = None,
             **overrides: Any) -> ConstrainedRetriever:
        """Open a saved retriever; ``overrides`` replace saved settings (``mode``, ``k``...)."""
        path = Path(path)
        cfg_file = path / _CONFIG
        if not cfg_file.is_file():
            raise ArtefactError(f"{path}: not a constrained-retrieval index (no {_CONFIG}); build it again")
        cfg = json.loads(cfg_file.read_text(encoding="utf-8"))
        # An index saved before feedback existed keeps ranking as it did (no feedback).
        settings = {"feedback_weight": 0.0} | {k: cfg[k] for k in _SETTINGS if k in cfg} | overrides
        return cls(load_enriched(path), BM25Index.load(path / "bm25"), places=places, **settings)


#: What a stage built from a context takes from the context's shared retriever.
_SHARED = ("docs", "index", "facts", "places", "_all_rows", "feedback_docs", "feedback_terms",
           "feedback_weight", "feedback")


def _enriched_retriever(context: Context, gaz: GazetteerEnricher | None) -> ConstrainedRetriever:
    """The constrained retriever over the context's enriched node documents (default settings)."""
    docs: dict[str, str] = {}
    for n, nid in enumerate(context.kb.ids):
        if n % 1024 == 0:
            check_deadline()
        docs[nid] = context.doc_text(nid)
    enrichers: list[Enricher] = [TemporalEnricher(), ArithmeticEnricher(), *([gaz] if gaz is not None else [])]
    enriched = enrich_documents(docs, enrichers, progress=False)
    return ConstrainedRetriever(list(enriched), places=gaz.gazetteer if gaz is not None else None)


@functools.lru_cache(maxsize=4)
def _gazetteer(path: Path) -> GazetteerEnricher:
    """A gazetteer enricher, loaded once per file (shared by the contexts of a benchmark)."""
    if not path.is_file():
        raise InputError(f"gazetteer file not found: {path}", field="gazetteer")
    return GazetteerEnricher.from_jsonl(path)

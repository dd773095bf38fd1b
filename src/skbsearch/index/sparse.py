"""BM25 index (bm25s): tokenised with stopwords and optional stemming, memory-mapped on load.

**Multi-field documents.** A document may have several fields (title, description, ...)
with weights. Each field gets its *own* BM25 statistics (document frequencies and average
length per field, over one shared vocabulary), and the score of a document is the weighted
sum of its per-field BM25 scores::

    score(q, d) = sum_f w_f * BM25_f(q, d) = sum_{t in q} sum_f w_f * S_f[d, t]

Because the sum is linear, the per-field score matrices are summed once at build time into
one sparse matrix ``M = sum_f w_f S_f``: querying costs the same as a single-field index
and bm25s's own retrieval code (numba or numpy) runs on it unchanged. Repeating a field's
text ``w`` times instead would distort its length normalisation and document frequencies,
and only allows integer weights. With no fields given, a node's whole rendered document
(:class:`skbsearch.documents.DocumentRenderer`) is the single field ``document``.

The directory is a valid bm25s index too (``bm25s.BM25.load(path)`` opens it), plus
``manifest.json``, ``doc_ids.json`` and the tokenizer's vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bm25s
import numpy as np
from bm25s.tokenization import Tokenizer

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index import base, bm25_live, bm25_postings, bm25_scoring
from skbsearch.index.base import Manifest, ProgressFn, no_progress
from skbsearch.index.bm25_build import (
    METHODS,  # noqa: F401 - re-exported (the BM25 variants)
    bm25_over,
    bm25_params,
    check_bm25_settings,
    check_field_weights,
    make_tokenizer,
    tokenize_fields,
)
from skbsearch.index.bm25_checks import PostingChecks, check_open
from skbsearch.index.bm25_postings import Postings
from skbsearch.index.bm25_query import BM25Query, top_k  # noqa: F401 - top_k re-exported
from skbsearch.index.bm25_skb import (  # noqa: F401 - the defaults re-exported
    DEFAULT_COMBINE,
    DEFAULT_MAX_PER_RELATION,
    DEFAULT_REL_B,
    DEFAULT_REL_WEIGHT,
    BM25FromSKB,
)

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

KIND = "bm25"
FORMAT_VERSION = 1
_STOPWORDS_FILE = "stopwords.tokenizer.json"
def _check_build(parts: Mapping[str, Sequence[Any]], doc_ids: Sequence[str], k1: float, b: float,
                 method: str, combine: str = "sum", field_b: Mapping[str, float] | None = None) -> None:
    """Refuse BM25 settings out of range, repeated ids, or a field without one text a document."""
    check_bm25_settings(method, k1, b, combine, field_b)
    unknown = sorted(set(field_b or ()) - set(parts))
    if unknown:
        raise InputError(f"b given for unknown field {unknown[0]!r}; fields are {list(parts)}", field="field_b")
    n = len(doc_ids)
    if len(set(doc_ids)) != n:
        raise InputError("document ids are not unique", field="doc_id")
    for f, texts in parts.items():
        if len(texts) != n:
            raise InputError(f"{len(texts)} texts for {n} documents", field=f)


class BM25Index(BM25Query, BM25FromSKB):
    """A BM25 index over documents with external string ids.

    Build with :meth:`build`, :meth:`from_texts` or :meth:`from_skb`; :meth:`save` to a
    directory and :meth:`load` it back (arrays memory-mapped).
    """

    kind = KIND

    def __init__(
        self,
        bm25: bm25s.BM25,
        tokenizer: Tokenizer,
        doc_ids: Sequence[str] | int,
        params: dict[str, Any],
        source: dict[str, Any] | None = None,
        path: Path | None = None,
        checks: PostingChecks | None = None,
    ) -> None:
        self.bm25 = bm25
        self._checks = checks
        self.tokenizer = tokenizer
        self._doc_ids: list[str] | None = None
        self._num_docs = 0
        if isinstance(doc_ids, int):  # a saved index of every node: ids read on first use
            self._num_docs = doc_ids
        else:
            self.doc_ids = list(doc_ids)
        self.params = dict(params)
        self.source = dict(source or {})
        self.path = path
        # bm25l / bm25+ add a per-term constant to every document; keep it aside so that
        # "matches the query" stays "has a positive sparse score" and add it back after.
        self.nonoccurrence = bm25.nonoccurrence_array
        bm25.nonoccurrence_array = None
        self._term_stats: bm25_live.TermStats | None = None

    # ------------------------------------------------------------------ building
    @classmethod
    def build(
        cls,
        fields: Mapping[str, Sequence[str]] | Sequence[str],
        doc_ids: Sequence[str],
        *,
        field_weights: Mapping[str, float] | None = None,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        delta: float = 0.5,
        stemmer: str | None = "english",
        stopwords: str | Sequence[str] | None = "en",
        combine: str = "sum",
        field_b: Mapping[str, float] | None = None,
        source: dict[str, Any] | None = None,
        progress: ProgressFn = no_progress,
    ) -> BM25Index:
        """Index documents given as one text per doc, or as ``{field: texts}`` (one per doc).

        Args:
            fields: the texts; with a mapping, every field must have ``len(doc_ids)`` texts
                (``None`` or ``""`` where a document lacks the field).
            doc_ids: unique external ids, one per document.
            field_weights: weight per field (default 1.0 each; must be >= 0).
            k1, b, method, delta: BM25 parameters (``method`` in :data:`METHODS`).
            stemmer: PyStemmer language or ``None``; stopwords: ``"en"``, a list or ``None``.
            combine: how fields make one score (``sum`` of per-field BM25, or ``bm25f``:
                :data:`~skbsearch.index.bm25_build.COMBINES`).
            field_b: ``b`` per field where not ``b`` (``bm25f`` normalises each field's length
                with its own ``b``; with ``sum`` each field's BM25 uses it).
            source: where the documents came from (recorded in the manifest).
            progress: ``progress(stage, done, total)`` callback.
        """
        parts = {"document": fields} if not isinstance(fields, Mapping) else dict(fields)
        weights = check_field_weights(list(parts), field_weights)
        _check_build(parts, doc_ids, k1, b, method, combine, field_b)
        n = len(doc_ids)
        tokenizer = make_tokenizer(stemmer, stopwords)
        tokens = tokenize_fields(parts, tokenizer, n, progress)
        vocab = tokenizer.get_vocab_dict()
        n_vocab = max(len(vocab), 1)
        params = bm25_params(k1, b, method, delta, stemmer, stopwords, weights, combine, field_b)
        progress("score", 0, 1)
        # per-field term counts, term-major (what lets the index follow SKB updates:
        # index.bm25_live), scored in one compiled pass: the values of bm25s's own build
        post = Postings.from_tokens(tokens, n_vocab)
        index = cls.from_postings(post, tokenizer, [str(d) for d in doc_ids], params, source)
        progress("score", 1, 1)
        bm25_scoring.warm()  # and the passes a catch-up runs on the saved postings (cached on disk)
        return index

    @classmethod
    def from_postings(cls, post: Postings, tokenizer: Tokenizer, doc_ids: Sequence[str],
                      params: dict[str, Any], source: dict[str, Any] | None,
                      df: np.ndarray | None = None) -> BM25Index:
        """An index over documents given by their per-field term counts and lengths (the same
        scores as bm25s over those documents' texts; see :mod:`index.bm25_scoring`); ``df``:
        the per-field document frequencies if known."""
        csc, nonocc = bm25_scoring.score(post, params, df)
        bm = bm25_over(csc, len(doc_ids), nonocc, tokenizer.get_vocab_dict(), params)
        index = cls(bm, tokenizer, list(doc_ids), params, source)
        index.term_stats = post
        index.warm(batch=True)  # (at build: both kernels, both array variants, cached on disk)
        return index

    @classmethod
    def from_texts(cls, docs: Iterable[tuple[str, str]], **params: Any) -> BM25Index:
        """Index ``(doc_id, text)`` pairs; ``params`` as for :meth:`build`."""
        pairs = list(docs)
        return cls.build([t for _, t in pairs], [d for d, _ in pairs],
                         source=params.pop("source", {"kind": "texts"}), **params)

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write the index directory atomically; returns its path."""
        path = Path(path)
        skb_dir = self.source.get("path")  # never replace the SKB it indexes
        with atomic_dir(path, overwrite=overwrite, kind="index", inputs=[skb_dir]) as tmp:
            self.bm25.nonoccurrence_array = self.nonoccurrence
            try:
                self.bm25.save(tmp, show_progress=False)
            finally:
                self.bm25.nonoccurrence_array = None
            self.tokenizer.save_vocab(tmp)
            self.tokenizer.save_stopwords(tmp, _STOPWORDS_FILE)
            if self.term_stats is not None:
                bm25_postings.save(tmp / bm25_live.LIVE_DIR, self.term_stats)
            base.write_doc_ids(tmp, self.doc_ids)
            base.write_manifest(tmp, Manifest(KIND, FORMAT_VERSION, self.num_docs,
                                              self.params, self.source))
        self.path = path
        return path

    @classmethod
    def load(cls, path: str | Path, *, mmap: bool = True) -> BM25Index:
        """Open a saved index; score arrays are memory-mapped unless ``mmap=False``. Reads no
        posting: a term's postings are checked when a query first reads them
        (:mod:`~skbsearch.index.bm25_checks`)."""
        path = Path(path)
        m = base.read_manifest(path, kind=KIND, version=FORMAT_VERSION)
        # An index of every node in node order (as from_skb builds it) reads its ids only
        # when asked: the SKB has the same list (see share_node_ids).
        doc_ids: list[str] | int = (m.num_docs if m.source.get("node_order")
                                    else base.read_doc_ids(path, m.num_docs, KIND))
        try:
            bm = bm25s.BM25.load(path, mmap=mmap, load_corpus=False, show_progress=False,
                                 backend="numpy")
            tokenizer = make_tokenizer(m.params.get("stemmer"), None)
            tokenizer.load_vocab(path)
            tokenizer.load_stopwords(path, _STOPWORDS_FILE)
        except EOFError:  # np.load of a 0-byte or truncated .npy
            raise ArtefactError(f"{path}: damaged bm25 index (an empty or truncated .npy array file); "
                              f"{base.rebuild_hint(KIND)}") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise ArtefactError(f"{path}: damaged bm25 index ({e}); {base.rebuild_hint(KIND)}") from None
        if bm.scores.get("num_docs") != m.num_docs:
            raise ArtefactError(f"{path}: bm25s params say {bm.scores.get('num_docs')} documents, "
                              f"manifest says {m.num_docs}; {base.rebuild_hint(KIND)}")
        # reads no posting: each term's postings are checked by the first query that reads them
        checks = check_open(path, bm, tokenizer, m.num_docs, base.rebuild_hint(KIND))
        return cls(bm, tokenizer, doc_ids, m.params, m.source, path, checks)

    def scores_summed(self) -> bool:
        """Whether :meth:`summed_fields` is this index itself (one field; the fields' BM25 added
        with one ``b``; or no term counts to rescore from), so that a graph stage's text
        evidence is this index's own score. Reads nothing and rescores nothing."""
        p = self.params
        if len(p.get("field_weights") or {}) < 2 or (p.get("combine", "sum") == "sum" and not p.get("field_b")):
            return True
        return self._term_stats is None and (self.path is None or not (self.path / bm25_live.LIVE_DIR).exists())

    def summed_fields(self) -> BM25Index:
        """This index scored as each field's own BM25 (the index's ``b`` for every field)
        added up, ``combine='sum'``: the text evidence the graph stage's weights and fits were
        tuned on. Rescored once from the kept term counts and cached; ``self`` when it already
        scores so, has one field, or has no term counts (saved before live updates, or built
        by Ray)."""
        p = self.params
        if self.scores_summed():
            return self
        if "_summed" not in self.__dict__:
            post = self.term_stats
            if post is None:
                return self
            params = {k: v for k, v in p.items() if k not in ("combine", "field_b")}
            csc, nonocc = bm25_scoring.score(post, params)
            bm = bm25_over(csc, self.num_docs, nonocc, self.tokenizer.get_vocab_dict(), params)
            # the ids are the parent's (read from its directory on first use, as the parent's are)
            view = type(self)(bm, self.tokenizer, self._doc_ids if self._doc_ids is not None else self._num_docs,
                              params, self.source, self.path)
            view.warm(batch=True)
            self.__dict__["_summed"] = view
        return self.__dict__["_summed"]

    # ------------------------------------------------------------------ accessors
    @property
    def term_stats(self) -> bm25_live.TermStats | None:
        """Per-field term counts and lengths (read from ``live/`` on first use; ``None`` for an
        index saved before live updates)."""
        if self._term_stats is None and self.path is not None:
            self._term_stats = bm25_postings.load(self.path / bm25_live.LIVE_DIR, base.rebuild_hint(KIND))
        return self._term_stats

    @term_stats.setter
    def term_stats(self, stats: bm25_live.TermStats | None) -> None:
        self._term_stats = stats

    @property
    def doc_ids(self) -> list[str]:
        """External id of every document, in index order."""
        if self._doc_ids is None:
            assert self.path is not None
            self._doc_ids = base.read_doc_ids(self.path, self._num_docs, KIND)
        return self._doc_ids

    @doc_ids.setter
    def doc_ids(self, ids: list[str]) -> None:
        self._doc_ids = ids
        self._num_docs = len(ids)
        self.__dict__.pop("ids_array", None)
        self.__dict__.pop("position", None)

    @property
    def num_docs(self) -> int:
        """Number of indexed documents."""
        return self._num_docs

    def in_node_order(self, skb: SKB) -> bool:
        """Whether row ``i`` of this index is node ``i`` of ``skb``: an index of every node
        built by :meth:`from_skb` from this very SKB build (same node count and content hash)."""
        s = self.source
        h = (getattr(skb, "meta", None) or {}).get("content_hash")
        return (bool(s.get("node_order")) and s.get("kind") == "skb" and bool(h)
                and s.get("skb_hash") == h and self.num_docs == int(skb.num_nodes)
                and int(s.get("num_nodes", -1)) == int(skb.num_nodes))

    def share_node_ids(self, skb: SKB) -> bool:
        """Use ``skb``'s id list as this index's doc ids when :meth:`in_node_order` (one list
        of 1M ids in memory instead of two, and no ``doc_ids.json`` to read)."""
        if not self.in_node_order(skb):
            return False
        if self._doc_ids is not skb.ids:
            self.doc_ids = skb.ids
        return True

    @cached_property
    def ids_array(self) -> np.ndarray:
        """Doc ids as a numpy object array (for fancy indexing)."""
        return np.array(self.doc_ids, dtype=object)

    @cached_property
    def position(self) -> dict[str, int]:
        """Doc id -> row in the index."""
        return {d: i for i, d in enumerate(self.doc_ids)}

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of query texts (unknown words and stopwords dropped; may be empty)."""
        return list(self.tokenizer.streaming_tokenize(texts, update_vocab=False, allow_empty=False))

    def constant(self, token_ids: Sequence[int]) -> float:
        """The score every document gets for these tokens (non-zero only for bm25l/bm25+)."""
        if self.nonoccurrence is None or not len(token_ids):
            return 0.0
        return float(self.nonoccurrence[np.asarray(token_ids, dtype=np.int64)].sum())

    def __repr__(self) -> str:
        p = self.params
        return (f"BM25Index({self.num_docs} docs, method={p.get('method')}, k1={p.get('k1')}, "
                f"b={p.get('b')}, fields={p.get('field_weights')})")


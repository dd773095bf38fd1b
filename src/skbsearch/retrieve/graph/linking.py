"""Mention linking over the names of every node type, for the general graph stage.

Kinds of evidence, merged per node (a node keeps its strongest link):

- ``bracket``: a ``[bracketed]`` mention names the node exactly or after normalising
  (a strong hint when present, never required);
- ``exact``: an n-gram of the normalised query is a node's whole name
  (:class:`~skbsearch.retrieve.graph.exact_names.ExactNames`; template words weigh little once
  :meth:`NameLinker.fit_background` has seen training queries);
- ``fuzzy``: BM25 over node names finds partial mentions ("the Ranger Pro mug" for
  "Coralhaus Ranger Pro Insulated Mug"); the link's confidence is the squared idf-weighted
  share of the name's words the query contains. Query words unknown to the names and to the
  nodes' text are first corrected to the closest name word by character trigrams (typos; a
  word of the KG's text, "genera", is not a misspelt name, "general").

A word no node is named by whole may name one by another name the KG itself shows: an
acronym in capitals ("NATO"), or a proper noun the nodes' own text uses around one node
("France" for *french republic*; :mod:`~skbsearch.retrieve.graph.other_names`).

Trained, the linker also knows *aliases* (:func:`learn_aliases`): words of training
queries that reliably name a node without saying its name ("cup" for the category Mugs).

Exact and fuzzy links are weighted by how much their words look like names rather than
query template ("what", "movies": see :meth:`NameLinker.informativeness`), and words of a
bracketed mention that names a node are not linked again.

Ambiguous names keep every candidate, with confidences that share the mention.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.index.names import load_or_build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.store import SKB, positions
from skbsearch.retrieve.graph.commonness import NameShare
from skbsearch.retrieve.graph.exact_names import (
    Candidate,
    ExactNames,
    LinkResult,
    bracket_mentions,
    normalise,
    strip_brackets,
)
from skbsearch.retrieve.graph.other_names import OtherNames

_WORD = re.compile(r"^\w\w+$")
#: sources of links whose mention is the node's whole name
_NAMED = ("bracket", "exact")


@dataclass(frozen=True)
class Anchor:
    """A node the query mentions: confidence in [0, 1], matched word positions, source;
    ``whole``: the query says all of the node's name (an exact or bracketed link, or a fuzzy
    one that matched every name word: "lie-in" for "lie", "painter" for "painters")."""

    node: int
    conf: float
    mention: str
    words: tuple[int, ...]
    source: str
    whole: bool = False


def _trigrams(word: str) -> set[str]:
    w = f"#{word}#"
    return {w[i : i + 3] for i in range(len(w) - 2)}


class NameLinker:
    """Links query mentions to SKB nodes by name (see the module docstring): the one linker.

    :meth:`link` gives a query's anchors from every kind of evidence; :meth:`link_exact`
    gives its mentions by whole names only (brackets or n-grams, as MetaQA's relation-path
    retriever and the triple re-ranker find a question's topic) and :meth:`lookup` the nodes
    of one name, both from the exact-name part ``exact``
    (:class:`~skbsearch.retrieve.graph.exact_names.ExactNames`).

    Args:
        skb: the knowledge base.
        name_index: BM25 over node names, row ``i`` = node ``i`` (as the stages build it;
            default: the SKB's saved name index, built when missing).
        n_fuzzy: name hits looked at per query.
        fuzzy_min: a fuzzy link needs at least this share of its name in the query.
        max_anchors: keep at most this many anchors per query (strongest first; every
            bracketed mention's candidates are kept).
        min_conf: drop weaker links.
        typo_min: trigram Jaccard similarity for correcting an unknown word.
        exact: the :class:`ExactNames` of ``skb`` to share (its name tables are big on
            large SKBs); built when omitted.
        text_index: the SKB's BM25 index of node documents: a one-word link's confidence
            is weighed by how often that word is a name in the nodes' own text
            (:class:`~skbsearch.retrieve.graph.commonness.NameShare`; ``None``: not weighed).
    """

    def __init__(self, skb: SKB, name_index: BM25Index | None = None, *, n_fuzzy: int = 30, fuzzy_min: float = 0.5,
                 max_anchors: int = 8, min_conf: float = 0.05, typo_min: float = 0.6,
                 exact: ExactNames | None = None, text_index: BM25Index | None = None) -> None:
        self.skb = skb
        name_index = name_index if name_index is not None else load_or_build_name_index(skb)
        self.names = name_index
        self.n_fuzzy = n_fuzzy
        self.fuzzy_min = fuzzy_min
        self.max_anchors = max_anchors
        self.min_conf = min_conf
        self.typo_min = typo_min
        # a shallow copy shares the name dictionaries but keeps its own template words
        self.exact = copy.copy(exact) if exact is not None else ExactNames(skb)
        tok = name_index.tokenizer
        self._stop = set(tok.stopwords or ())
        self._stem = tok.stemmer
        self._vocab: dict[str, int] = tok.stem_to_sid if self._stem is not None else tok.word_to_id
        #: the words of the nodes' documents: a query word among them is a word of the KG, not a typo
        self._text_vocab = _vocabulary(text_index)
        indptr = np.asarray(name_index.bm25.scores["indptr"])
        df = np.diff(indptr).astype(np.float64)
        self.idf = np.log1p(max(name_index.num_docs, 1) / np.maximum(df, 1.0))
        self._grams: dict[str, list[int]] | None = None
        self._words_by_id: list[str] | None = None
        self._name_cache: dict[int, frozenset[int]] = {}
        #: name-index row -> node (``None``: the index lists the nodes in order, as built)
        self._node_of_row: np.ndarray | None = None
        if not name_index.in_node_order(skb) and name_index.doc_ids != skb.ids:
            self._node_of_row = positions(name_index.doc_ids, skb.nodes.column("id"))
        #: how much a one-word mention is a name on this SKB (common words need more evidence)
        self.name_share = NameShare(skb, name_index, text_index)
        #: names the KG does not list: acronyms, proper nouns its text uses for a node
        self.other_names = OtherNames(skb, self.name_share)
        #: learned aliases: a query word or bigram -> [(node, strength)] (see :func:`learn_aliases`)
        self.aliases: dict[str, list[tuple[int, float]]] = {}

    def fit_background(self, texts: Sequence[str]) -> NameLinker:
        """Learn template words from training queries (they then weigh little as mentions)."""
        self.exact.fit_background(texts)
        return self

    def lookup(self, name: str) -> list[Candidate]:
        """Every node named ``name`` (exactly or after normalising), best first; the
        candidates' scores sum to 1."""
        return self.exact.lookup(name)

    def link_exact(self, text: str, mode: str = "auto", max_mentions: int = 3) -> LinkResult:
        """Mentions of one question by whole names only, best first, and the question with
        the best one masked. ``mode``: ``brackets`` (the ``[bracketed]`` mentions),
        ``ngram`` (the longest n-grams that are names, template words weighing little),
        ``auto`` (brackets when there are any)."""
        return self.exact.link(text, mode, max_mentions)

    def link_exact_many(self, texts: Sequence[str], mode: str = "auto",
                        max_mentions: int = 3) -> list[LinkResult]:
        """:meth:`link_exact` for many questions."""
        return [self.exact.link(t, mode, max_mentions) for t in texts]

    # ------------------------------------------------------------------ words
    def word_id(self, word: str, *, correct: bool = True) -> int | None:
        """The name-vocabulary id of one normalised word (typos corrected), or ``None``."""
        if not _WORD.match(word) or word in self._stop:
            return None
        key = self._stem(word) if self._stem is not None else word
        sid = self._vocab.get(key)
        if sid is None and correct and len(word) >= 5 and not self.known_word(word):
            sid = self._closest(key)
        return sid

    def known_word(self, word: str) -> bool:
        """Whether a normalised word is a word of the nodes' documents (the text index's
        vocabulary): such a word is not a typo of a name word ("genera" is not "general")."""
        if self._text_vocab is None:
            return False
        vocab, stem = self._text_vocab
        return (stem(word) if stem is not None else word) in vocab

    def prepare(self) -> NameLinker:
        """Build the typo-correction table (the name vocabulary's trigrams) and the other
        names' acronym table now, at the stage's set-up, not on the first query that needs
        them."""
        if self._grams is None:
            grams: dict[str, list[int]] = {}
            for w, i in self._vocab.items():
                for g in _trigrams(w):
                    grams.setdefault(g, []).append(i)
            self._words_by_id = [""] * (max(self._vocab.values(), default=-1) + 1)
            for w, i in self._vocab.items():
                self._words_by_id[i] = w
            self._grams = grams
        self.other_names.prepare()
        return self

    def _closest(self, key: str) -> int | None:
        grams = self.prepare()._grams or {}
        mine = _trigrams(key)
        counts: dict[int, int] = {}
        for g in mine:
            for i in grams.get(g, ()):
                counts[i] = counts.get(i, 0) + 1
        best, best_sim = None, self.typo_min
        words = self._words_by_id or []
        for i, c in counts.items():
            sim = c / (len(mine) + len(_trigrams(words[i])) - c)
            if sim > best_sim:
                best, best_sim = i, sim
        return best

    def name_ids(self, node: int) -> frozenset[int]:
        """Vocabulary ids of a node's name words."""
        got = self._name_cache.get(node)
        if got is None:
            name = self.skb.cell("name", node) or ""
            got = frozenset(i for w in normalise(name).split() if (i := self.word_id(w, correct=False)) is not None)
            if len(self._name_cache) < 200_000:
                self._name_cache[node] = got
        return got

    # ------------------------------------------------------------------ linking
    def link_many(self, texts: Sequence[str]) -> list[list[Anchor]]:
        """Anchors of many queries (strongest first, at most ``max_anchors`` each)."""
        words = [normalise(strip_brackets(t)).split() for t in texts]
        ids = [[self.word_id(w) for w in ws] for ws in words]
        hits = self._name_hits(ids)
        return [self._link_one(t, ws, wid, h) for t, ws, wid, h in zip(texts, words, ids, hits, strict=True)]

    def link(self, text: str) -> list[Anchor]:
        """Anchors of one query."""
        return self.link_many([text])[0]

    def _name_hits(self, ids: list[list[int | None]]) -> list[np.ndarray]:
        out = []
        for q in ids:
            rows, _ = bm25_top_k(self.names, sorted({i for i in q if i is not None}), self.n_fuzzy)
            out.append(rows if self._node_of_row is None else self._node_of_row[rows])
        return out

    def informativeness(self, words: Sequence[str]) -> float:
        """Mean weight of mention words: ~0 for template words ("what", "movies"), 1 for names."""
        if not words:
            return 0.0
        return float(np.mean([self.exact.token_weight(w) for w in words]))

    def _one_word(self, words: Sequence[str], proper: frozenset[str] = frozenset()) -> float:
        """A one-word mention's name-share factor (:meth:`NameShare.weight`; ``proper``: the
        query's proper nouns); 1 for longer ones."""
        return self.name_share.weight(words[0], proper=words[0] in proper) if len(words) == 1 else 1.0

    def _link_one(self, text: str, words: list[str], ids: list[int | None], hits: np.ndarray) -> list[Anchor]:
        found: dict[int, Anchor] = {}
        proper = proper_nouns(strip_brackets(text))

        def add(a: Anchor) -> None:
            old = found.get(a.node)
            if a.conf >= self.min_conf and (old is None or a.conf > old.conf):
                if old is not None and old.source in _NAMED and a.source not in _NAMED:
                    # stronger evidence for a node the query names whole: still named there
                    a = Anchor(a.node, a.conf, old.mention, old.words, old.source, True)
                found[a.node] = a

        resolved: set[int] = set()  # words of bracketed mentions that name a node
        for phrase in bracket_mentions(text):
            pos = _find(words, normalise(phrase).split())
            cands = self.exact.lookup(phrase)
            if cands:
                resolved.update(pos)
            for c in cands:
                add(Anchor(c.node, float(c.score), phrase, pos, "bracket", True))

        def inside(pos: Sequence[int]) -> bool:
            return bool(pos) and all(p in resolved for p in pos)

        for m in self.exact.link(strip_brackets(text), "ngram", self.max_anchors).mentions:
            span = tuple(range(m.start, m.end))
            if inside(span):
                continue
            quality = self.informativeness(words[m.start : m.end]) * self._one_word(words[m.start : m.end], proper)
            for c in m.candidates:
                add(Anchor(c.node, float(c.score) * quality, m.text, span, "exact", True))
        qset = {i for i in ids if i is not None}
        for node in hits.tolist():
            name = self.name_ids(node)
            if not name:
                continue
            w = self.idf[list(name)]
            share = float(w[[i in qset for i in name]].sum() / w.sum())
            if share < self.fuzzy_min:
                continue
            pos = tuple(k for k, i in enumerate(ids) if i is not None and i in name)
            if inside(pos):
                continue
            # a one-word name is weighed by its name share however often the query repeats it
            quality = self.informativeness([words[k] for k in pos]) * (
                self._one_word([words[pos[0]]], proper) if len(name) == 1 else 1.0)
            add(Anchor(node, share * share * quality, " ".join(words[k] for k in pos), pos, "fuzzy",
                       whole=share >= 1.0 - 1e-9))
        if self.aliases:
            for gram, pos in _grams(words):
                if inside(pos):
                    continue
                for node, strength in self.aliases.get(gram, ()):
                    add(Anchor(node, strength, gram, pos, "alias"))
        # other names of the words no node is named by whole (a stem's link is not the word
        # said: "france" stems to the currency "franc")
        named = {i for a in found.values() if a.source in _NAMED for i in a.words} | resolved
        for node, conf, at, source in self.other_names.links(strip_brackets(text), words, proper, named):
            add(Anchor(node, conf, words[at], (at,), source, True))
        ranked = sorted(found.values(), key=lambda a: (a.source != "bracket", -a.conf, a.node))
        return ranked[: max(self.max_anchors, sum(a.source == "bracket" for a in ranked))]


def proper_nouns(text: str) -> frozenset[str]:
    """The normalised words a question writes as proper nouns: capitalised, not its first word
    ("Which rivers flow through Africa?": africa); none when most words are capitalised (a
    title-case or shouted question says nothing by its capitals)."""
    raw = text.split()
    if sum(w[:1].isupper() for w in raw) > max(2, len(raw) // 2):
        return frozenset()
    return frozenset(normalise(w) for w in raw[1:] if w[:1].isupper() and normalise(w).isalpha())


def _vocabulary(index: BM25Index | None) -> tuple[dict[str, int], Callable[[str], str] | None] | None:
    """The vocabulary of a BM25 index's tokenizer (stems when it stems) and its stemmer."""
    if index is None:
        return None
    tok = index.tokenizer
    stem = tok.stemmer
    return (tok.stem_to_sid if stem is not None else tok.word_to_id), stem


def bm25_top_k(index: BM25Index, token_ids: Sequence[int], k: int,
               mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best matching rows of a BM25 index for one query (best first) and their
    scores; ``mask``: allowed rows (:meth:`BM25Index.top_rows`, exact with MaxScore pruning)."""
    return index.top_rows(token_ids, k, mask)


def _grams(words: Sequence[str]) -> list[tuple[str, tuple[int, ...]]]:
    """Unigrams and bigrams of normalised words with their positions."""
    out: list[tuple[str, tuple[int, ...]]] = [(w, (i,)) for i, w in enumerate(words)]
    out += [(f"{a} {b}", (i, i + 1)) for i, (a, b) in enumerate(zip(words[:-1], words[1:], strict=True))]
    return out


def learn_aliases(linker: NameLinker, texts: Sequence[str], answers: Sequence[np.ndarray],
                  anchors: Sequence[Sequence[Anchor]], *, min_count: int = 3, min_share: float = 0.6,
                  max_common: int = 10, max_answers: int = 50) -> dict[str, list[tuple[int, float]]]:
    """Words and bigrams that name a node without saying its name, learned from judged queries.

    For each query, the nodes adjacent to *every* answer (its shared brand, category,
    colour...) that the name linker did not find are candidates; a word or bigram
    becomes an alias of such a node when it occurs in at least ``min_count`` queries and
    at least ``min_share`` of the queries containing it share that node ("cup" -> the
    category *Mugs*, "sneakers" -> *Running Shoes*). Template words (informativeness below
    0.3: :meth:`NameLinker.informativeness`) and stop words never count.
    """
    graph = linker.skb.graph
    df: dict[str, int] = {}
    co: dict[tuple[str, int], int] = {}
    for text, ans, anc in zip(texts, answers, anchors, strict=True):
        if not 0 < len(ans) <= max_answers:
            continue
        offsets, nbrs = graph.neighbors(ans, None, "both")
        common = unique_sorted(nbrs)
        counts = np.zeros(len(common), np.int64)
        for k in range(len(ans)):
            counts += np.isin(common, nbrs[offsets[k] : offsets[k + 1]])
        named = {a.node for a in anc if a.conf >= 0.5}
        shared = [int(n) for n in common[counts == len(ans)] if int(n) not in named]
        if len(shared) > max_common:
            continue
        words = normalise(strip_brackets(text)).split()
        mentioned = {i for a in anc if a.conf >= 0.5 for i in a.words}
        grams = {g for g, pos in _grams(words) if linker.informativeness([words[i] for i in pos]) >= 0.3
                 and not mentioned.intersection(pos)}
        for g in grams:
            df[g] = df.get(g, 0) + 1
            for n in shared:
                co[(g, n)] = co.get((g, n), 0) + 1
    out: dict[str, list[tuple[int, float]]] = {}
    for (g, n), c in co.items():
        if c >= min_count and c / df[g] >= min_share:
            out.setdefault(g, []).append((n, c / df[g]))
    return {g: sorted(v, key=lambda x: -x[1])[:3] for g, v in out.items()}


def _find(words: list[str], needle: list[str]) -> tuple[int, ...]:
    """Positions of the first occurrence of ``needle`` in ``words`` (empty if absent)."""
    n = len(needle)
    for i in range(len(words) - n + 1):
        if n and words[i : i + n] == needle:
            return tuple(range(i, i + n))
    return ()

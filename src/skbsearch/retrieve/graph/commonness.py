"""How much a one-word mention looks like a name on this SKB: measured on its own text.

A node named "make", "study", "Tool" or "Malware" is linked by an exact match as surely as
"Saxony", yet most questions that say "make" or "tool" do not mean that node: the word is
common in the KG's own text (its glosses, descriptions, type labels). The evidence, measured
on the SKB itself, is the word's **name share**::

    share(w) = df_name(w) / max(df_name(w), df_text(w), |type named w|)

``df_name``: nodes whose name contains ``w`` (the linker's name index); ``df_text``: nodes
whose own text contains it (every field of the BM25 index but the neighbours' relation
lines); a type named ``w`` counts as many uses as it has nodes. On a KG of bare names every
word is a name word (share 1: nothing changes); a lemma that also appears in a thousand
glosses has share ~0.03.

A proper noun is common in the text for another reason: its uses *refer to* the node it names
("a region of northern Italy" is the gloss of a part of Italy). So the uses of a word the
question writes as a proper noun (capitalised inside the sentence:
:func:`~skbsearch.retrieve.graph.linking.proper_nouns`) are also measured against the graph:
its **neighbour share** is the share of the nodes whose own text has it that are the named
nodes or their direct neighbours (WN18RR: "italy" 0.57, "germany" 0.62, against "make" 0.06,
"dog" 0.33, "lie" 0.23), and its evidence is the larger of the two::

    evidence(w) = max(share(w), neighbour_share(w))     (proper nouns; share(w) otherwise)

A one-word link's confidence is multiplied by ``evidence ** NAME_SHARE_POWER``: it needs more
than an exact match to count fully, unless the text around the node says the word means it.
(Topic words are near their node too — "biology" in its domain's glosses, 0.62 — so a
lower-case word keeps its name share alone.)
"""

from __future__ import annotations

import numpy as np

from skbsearch.index.base import IndexRecord
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.arrays import positions
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.name_table import normalise

#: the exponent of the name share in a one-word link's confidence (0.5: a word that is a
#: name in a quarter of its uses keeps half its confidence)
NAME_SHARE_POWER = 0.5
#: a word that names more nodes than this is no one node's proper noun: its neighbour share is
#: not measured (and a query's capitalised words cannot buy walks over a large part of the graph)
MAX_PROPER_NAMED = 1000
#: the field of relation lines (neighbours' names: not a node's own text)
RELATION_FIELD = "relations"
#: a proper noun that is no node's name refers to the node its uses are near when that
#: node's association with them (:meth:`NameShare.text_alias`) is at least this ...
ALIAS_MIN = 0.3
#: ... and this many times the next node's
ALIAS_MARGIN = 2.0


class NameShare:
    """The name share of words on one SKB (see the module docstring).

    Args:
        skb: the knowledge base.
        name_index: BM25 over node names (the linker's), row ``i`` = node ``i``.
        text_index: the SKB's BM25 index of node documents; ``None``, or an index whose
            relation lines are not a field of their own, or one without term counts:
            every share is 1 (no evidence).
    """

    def __init__(self, skb: SKB, name_index: BM25Index, text_index: BM25Index | None) -> None:
        self.skb = skb
        self.names = name_index
        self.text = text_index
        self._name_rows = np.asarray(name_index.bm25.scores["indices"])
        self._name_node: np.ndarray | None = None  # name-index row -> node (None: in node order)
        if not name_index.in_node_order(skb) and name_index.doc_ids != skb.ids:
            self._name_node = positions(name_index.doc_ids, skb.nodes.column("id"))
        self._text_node: np.ndarray | None = None  # text-index row -> node, made when first needed
        tok = name_index.tokenizer
        self._stem = tok.stemmer
        self._name_vocab: dict[str, int] = tok.stem_to_sid if self._stem is not None else tok.word_to_id
        self._name_df = np.diff(np.asarray(name_index.bm25.scores["indptr"]))
        self._own = _own_text_fields(text_index)
        if self._own is not None and text_index is not None:
            _ = text_index.term_stats  # read at set-up, not by the first query that needs a share
        counts = np.bincount(np.asarray(skb.node_type_codes, np.int64), minlength=len(skb.type_names))
        self._type_size: dict[str, int] = {}
        for name, n in zip(skb.type_names, counts.tolist(), strict=True):
            words = normalise(name).split()
            if len(words) == 1:
                key = self._key(words[0])
                self._type_size[key] = max(self._type_size.get(key, 0), int(n))
        self._cache: dict[tuple[str, bool], float] = {}
        self._alias_cache: dict[str, tuple[int, float] | None] = {}
        self._degree: np.ndarray | None = None  # every node's degree, when an alias is first measured

    def _key(self, word: str) -> str:
        return self._stem(word) if self._stem is not None else word

    def share(self, word: str, *, proper: bool = False) -> float:
        """The name share of one normalised word in [0, 1] (1: no evidence against it);
        ``proper`` (the query writes it as a proper noun): at least its neighbour share."""
        got = self._cache.get((word, proper))
        if got is None:
            got = self._measure(word, proper)
            if len(self._cache) < 100_000:
                self._cache[(word, proper)] = got
        return got

    def weight(self, word: str, *, proper: bool = False) -> float:
        """A one-word link's confidence factor: ``share ** NAME_SHARE_POWER`` (for a proper
        noun, the larger of the name share and the neighbour share: see the module docstring)."""
        return float(self.share(word, proper=proper) ** NAME_SHARE_POWER)

    def _measure(self, word: str, proper: bool) -> float:
        key = self._key(word)
        sid = self._name_vocab.get(key)
        df_name = int(self._name_df[sid]) if sid is not None else 0
        if sid is None or df_name == 0:
            return 1.0
        users = self._text_users(word)
        uses = max(df_name, len(users), self._type_size.get(key, 0))
        share = df_name / uses
        if not proper or share >= 1.0 or not len(users) or df_name > MAX_PROPER_NAMED:
            return share
        return max(share, self._neighbour_share(sid, users))

    def text_alias(self, word: str) -> tuple[int, float] | None:
        """The node a proper noun that names no node refers to, read off the KG's own text:
        ``(node, confidence)``, or ``None``.

        The nodes whose own text uses the word (its *users*: "a port city in southern
        France") cluster around the node it is another name of (WN18RR's *french republic*,
        which they are parts of). For each node ``N`` next to a user, with ``c`` the users
        next to it: ``precision = c / |users|``, ``coverage = c / degree(N)``; the node of
        the largest ``sqrt(precision * coverage)`` (a hub such as a class of thousands of
        members covers little of its neighbourhood) is the alias's when that is at least
        :data:`ALIAS_MIN` and :data:`ALIAS_MARGIN` times the next node's. Its confidence is
        ``precision ** NAME_SHARE_POWER``, as a proper noun's exact link is weighed by the
        share of its uses near the node (:meth:`weight`). A word used by more than
        :data:`MAX_PROPER_NAMED` nodes, or by fewer than two, names nothing here."""
        if word in self._alias_cache:
            return self._alias_cache[word]
        got = self._measure_alias(word)
        if len(self._alias_cache) < 100_000:
            self._alias_cache[word] = got
        return got

    def _measure_alias(self, word: str) -> tuple[int, float] | None:
        users = self._text_users(word)
        if not 2 <= len(users) <= MAX_PROPER_NAMED:
            return None
        n = self.skb.num_nodes
        offsets, nbrs = self.skb.graph.neighbors(users, None, "both")
        owner = np.repeat(np.arange(len(users), dtype=np.int64), np.diff(offsets))
        pairs = np.unique(owner * n + nbrs.astype(np.int64))  # each user counts once per neighbour
        nodes, c = np.unique(pairs % n, return_counts=True)
        if not len(nodes):
            return None
        if self._degree is None:
            self._degree = self.skb.graph.degree(direction="both")
        precision = c / len(users)
        assoc = np.sqrt(precision * c / np.maximum(self._degree[nodes], 1))
        order = np.argsort(-assoc, kind="stable")
        best = int(order[0])
        runner_up = float(assoc[order[1]]) if len(order) > 1 else 0.0
        if assoc[best] < ALIAS_MIN or assoc[best] < ALIAS_MARGIN * runner_up:
            return None
        return int(nodes[best]), float(precision[best] ** NAME_SHARE_POWER)

    def _neighbour_share(self, sid: int, users: np.ndarray) -> float:
        """Share of ``users`` (nodes whose own text has the word) that are the named nodes
        (those whose name has the word: name-index term ``sid``) or their direct neighbours."""
        indptr = np.asarray(self.names.bm25.scores["indptr"])
        self.names.check_terms([[sid]])  # a saved index's postings are checked on first use
        named = self._name_rows[int(indptr[sid]) : int(indptr[sid + 1])].astype(np.int64)
        if self._name_node is not None:
            named = self._name_node[named]
            named = named[named >= 0]
        if not len(named):
            return 0.0
        _, nbrs = self.skb.graph.neighbors(named, None, "both")
        near = np.union1d(named, nbrs)
        return float(np.isin(users, near).mean())

    def _text_users(self, word: str) -> np.ndarray:
        """Nodes whose own text (the index's fields but the relation lines) has ``word``."""
        none = np.zeros(0, np.int64)
        if self._own is None or self.text is None:
            return none
        stats = self.text.term_stats
        if stats is None:
            return none
        ids = next(iter(self.text.tokenize([word])), [])
        if len(ids) != 1:
            return none
        t = int(ids[0])
        if t >= stats.n_terms:
            return none
        a, b = int(stats.indptr[t]), int(stats.indptr[t + 1])
        own = [stats.fields.index(f) for f in self._own if f in stats.fields]
        if not own or a == b:
            return none
        rows = np.asarray(stats.rows[a:b])[np.asarray(stats.tf[own, a:b]).sum(axis=0) > 0].astype(np.int64)
        return self._nodes_of_text_rows(rows)

    def _nodes_of_text_rows(self, rows: np.ndarray) -> np.ndarray:
        """The nodes of text-index rows (rows of no node dropped)."""
        text = self.text
        if text is None or text.in_node_order(self.skb) or text.doc_ids == self.skb.ids:
            return rows
        if self._text_node is None:
            self._text_node = positions(text.doc_ids, self.skb.nodes.column("id"))
        nodes = self._text_node[rows]
        return nodes[nodes >= 0]


def _own_text_fields(index: IndexRecord | None) -> list[str] | None:
    """The fields of ``index`` that hold nodes' own text, or ``None`` when a field mixes in
    the neighbours' relation lines (one rendered document with relations)."""
    if index is None:
        return None
    source = getattr(index, "source", None) or {}
    fields = list((getattr(index, "params", None) or {}).get("field_weights") or {}) or ["document"]
    if source.get("add_rel") and RELATION_FIELD not in fields:
        return None
    return [f for f in fields if f != RELATION_FIELD]

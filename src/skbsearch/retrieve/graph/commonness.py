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
glosses has share ~0.03. A one-word link's confidence is multiplied by
``share ** NAME_SHARE_POWER``: it needs more than an exact match to count fully.
"""

from __future__ import annotations

import numpy as np

from skbsearch.index.base import IndexRecord
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.name_table import normalise

#: the exponent of the name share in a one-word link's confidence (0.5: a word that is a
#: name in a quarter of its uses keeps half its confidence)
NAME_SHARE_POWER = 0.5
#: the field of relation lines (neighbours' names: not a node's own text)
RELATION_FIELD = "relations"


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
        self.names = name_index
        self.text = text_index
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
        self._cache: dict[str, float] = {}

    def _key(self, word: str) -> str:
        return self._stem(word) if self._stem is not None else word

    def share(self, word: str) -> float:
        """The name share of one normalised word in [0, 1] (1: no evidence against it)."""
        got = self._cache.get(word)
        if got is None:
            got = self._measure(word)
            if len(self._cache) < 100_000:
                self._cache[word] = got
        return got

    def weight(self, word: str) -> float:
        """A one-word link's confidence factor: ``share ** NAME_SHARE_POWER``."""
        return float(self.share(word) ** NAME_SHARE_POWER)

    def _measure(self, word: str) -> float:
        key = self._key(word)
        sid = self._name_vocab.get(key)
        df_name = int(self._name_df[sid]) if sid is not None else 0
        if df_name == 0:
            return 1.0
        uses = max(df_name, self._text_df(word), self._type_size.get(key, 0))
        return df_name / uses

    def _text_df(self, word: str) -> int:
        """Nodes whose own text (the index's fields but the relation lines) has ``word``."""
        if self._own is None or self.text is None:
            return 0
        stats = self.text.term_stats
        if stats is None:
            return 0
        ids = next(iter(self.text.tokenize([word])), [])
        if len(ids) != 1:
            return 0
        t = int(ids[0])
        if t >= stats.n_terms:
            return 0
        a, b = int(stats.indptr[t]), int(stats.indptr[t + 1])
        own = [stats.fields.index(f) for f in self._own if f in stats.fields]
        if not own or a == b:
            return 0
        return int((np.asarray(stats.tf[own, a:b]).sum(axis=0) > 0).sum())


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

"""World-knowledge enricher: link place mentions to a gazetteer SKB, add region and country.

The gazetteer is an SKB: ``landmark -located_in-> region -in_country-> country``
(:func:`load_wikidata_landmarks` builds one from the Wikidata landmark JSONL). Mentions
are found with a token-trie multi-pattern matcher over normalised names ("St"/"Saint",
accents, apostrophes and punctuation ignored; "Church of X, Aldershot" also matches
"Church of X"). A name shared by several places is resolved by the document's other
words (region, city, country names); a tie keeps every reading at lower confidence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.enrich.base import Enrichment, Fact
from skbsearch.kb.builder import SKBBuilder
from skbsearch.kb.store import SKB

_ALIASES = {"saint": "st", "sainte": "ste", "mount": "mt", "fort": "ft"}
_TOKEN = re.compile(r"[a-z0-9]+")
_WORDISH = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|&")


def normalize_tokens(text: str) -> list[str]:
    """Lower-case ASCII tokens with "saint" -> "st"; apostrophes join ("Michael's" -> "michaels")."""
    s = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    s = re.sub(r"['’`]", "", s).replace("&", " and ")
    return [_ALIASES.get(t, t) for t in _TOKEN.findall(s)]


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """Normalised tokens of ``text`` with their character spans in the original."""
    out: list[tuple[str, int, int]] = []
    for m in _WORDISH.finditer(text):
        w = m.group(0).replace("’", "").replace("'", "")
        if w.isascii() and w.isalnum():  # fast path: a plain ASCII word
            lw = w.lower()
            out.append((_ALIASES.get(lw, lw), m.start(), m.end()))
            continue
        for t in normalize_tokens(m.group(0)):
            out.append((t, m.start(), m.end()))
    return out


def load_wikidata_landmarks(path: str | Path) -> SKB:
    """Build the gazetteer SKB from the Wikidata landmark JSONL.

    One object a line with ``itemQ``, ``itemLabel``, ``countryQ``, ``countryLabel``,
    ``adminEntityQ``, ``adminEntityLabel`` and optional ``cityLabel``, ``locationLabel``,
    ``streetNameLabel``, ``instanceOf``. Nodes: ``landmark``, ``region``, ``country``;
    edges ``located_in`` (landmark -> region) and ``in_country`` (region -> country).
    """
    path = Path(path)
    b = SKBBuilder(on_duplicate="first")
    required = ("itemQ", "itemLabel", "countryQ", "countryLabel")
    for n, rec in iter_jsonl(path):
        for k in required:
            if not rec.get(k):
                raise InputError(f"missing '{k}'", file=path, line=n, field=k)
        fields = {k: rec.get(k) for k in ("cityLabel", "locationLabel", "streetNameLabel", "instanceOf")}
        b.add_node(rec["itemQ"], "landmark", rec["itemLabel"], fields=fields, file=str(path), line=n)
        b.add_node(rec["countryQ"], "country", rec["countryLabel"], file=str(path), line=n)
        if rec.get("adminEntityQ"):
            b.add_node(rec["adminEntityQ"], "region", rec.get("adminEntityLabel") or rec["adminEntityQ"], file=str(path), line=n)
            b.add_edge(rec["itemQ"], "located_in", rec["adminEntityQ"], file=str(path), line=n)
            b.add_edge(rec["adminEntityQ"], "in_country", rec["countryQ"], file=str(path), line=n)
        else:
            b.add_edge(rec["itemQ"], "in_country", rec["countryQ"], file=str(path), line=n)
    return b.build(meta={"source": str(path), "kind": "gazetteer"})


@dataclass
class _Entry:
    index: int
    label: str
    region: str | None
    country: str | None
    city: str | None
    location: str | None
    context: list[tuple[str, ...]]


class Gazetteer:
    """Landmark names of a gazetteer SKB, matched in text with a token trie.

    Args:
        skb: an SKB with ``landmark``, ``region``, ``country`` nodes (see
            :func:`load_wikidata_landmarks`).
        strip_suffix: also match a name without its trailing ", City" part.
    """

    def __init__(self, skb: SKB, strip_suffix: bool = True) -> None:
        self.skb = skb
        lm = skb.nodes_of_type("landmark")
        names = skb.column("name")
        cols = {c: skb.column(c) if c in skb.nodes.column_names else [None] * skb.num_nodes for c in ("cityLabel", "locationLabel")}
        rels = set(skb.schema.relations)  # a gazetteer without region ids has no located_in

        def walk(path: list[str]) -> list[np.ndarray]:
            if not set(path) <= rels:
                return [np.zeros(0, np.int64)] * len(lm)
            return skb.graph.follow_each([[int(i)] for i in lm], path)

        regions, countries, direct = walk(["located_in"]), walk(["located_in", "in_country"]), walk(["in_country"])
        self.entries: list[_Entry] = []
        self._patterns: dict[str, list[tuple[tuple[str, ...], int, bool]]] = {}
        self.max_len = 1
        for k, i in enumerate(lm):
            i = int(i)
            reg = names[int(regions[k][0])] if len(regions[k]) else None
            cs = countries[k] if len(countries[k]) else direct[k]
            country = names[int(cs[0])] if len(cs) else None
            city, loc = cols["cityLabel"][i], cols["locationLabel"][i]
            ctx = [tuple(normalize_tokens(x)) for x in (reg, city, loc, country) if x]
            e = _Entry(i, names[i], reg, country, city, loc, [c for c in ctx if c])
            self.entries.append(e)
            label = names[i] or ""
            self._add(normalize_tokens(label), len(self.entries) - 1, False)
            if strip_suffix and "," in label:
                head, tail = label.rsplit(",", 1)
                if len(normalize_tokens(head)) >= 2:
                    self._add(normalize_tokens(head), len(self.entries) - 1, True)
                    if normalize_tokens(tail):
                        e.context.append(tuple(normalize_tokens(tail)))
        self.place_names = sorted({x for e in self.entries for x in (e.region, e.country, e.city, e.location) if x})

    def _add(self, toks: list[str], entry: int, stripped: bool) -> None:
        if not toks or (len(toks) == 1 and len(toks[0]) < 4):
            return
        if toks[0] == "the" and len(toks) > 1:
            self._add(toks[1:], entry, stripped)
        self._patterns.setdefault(toks[0], []).append((tuple(toks), entry, stripped))
        self.max_len = max(self.max_len, len(toks))

    def find(self, text: str) -> list[tuple[int, int, list[_Entry], bool]]:
        """Mentions as (start, end, candidate entries, matched only without the ", City" suffix)."""
        spans = token_spans(text)
        toks = [t for t, _, _ in spans]
        out = []
        i = 0
        while i < len(toks):
            best = None
            for pat, entry, stripped in self._patterns.get(toks[i], ()):
                n = len(pat)
                if tuple(toks[i : i + n]) == pat and (best is None or n > best[0]):
                    best = (n, [(entry, stripped)])
                elif best is not None and n == best[0] and tuple(toks[i : i + n]) == pat:
                    best[1].append((entry, stripped))
            if best is None:
                i += 1
                continue
            n, hits = best
            s, e = spans[i][1], spans[i + n - 1][2]
            if not any(c.isupper() for c in text[s:e]):  # "hope", "corpus domini" in prose
                i += 1
                continue
            ents = list({h[0]: self.entries[h[0]] for h in hits}.values())
            out.append((s, e, ents, all(h[1] for h in hits)))
            i += n
        return out


def _contains(phrase: tuple[str, ...], joined: str) -> bool:
    return (" " + " ".join(phrase) + " ") in joined


@dataclass
class GazetteerEnricher:
    """Add the region, city and country of every linked landmark.

    Attributes:
        gazetteer: the matcher (see :class:`Gazetteer`).
        name: the enricher's name (``Fact.source``).
    """

    gazetteer: Gazetteer
    name: str = "gazetteer"

    @classmethod
    def from_jsonl(cls, path: str | Path) -> GazetteerEnricher:
        """An enricher over :func:`load_wikidata_landmarks` of ``path``."""
        return cls(Gazetteer(load_wikidata_landmarks(path)))

    def enrich(self, doc_id: str, text: str, meta: Mapping[str, Any] | None = None) -> Enrichment:
        """Place facts (value: landmark label; attrs: region, country, city) and tokens."""
        out = Enrichment()
        mentions = self.gazetteer.find(text)
        if not mentions:
            return out
        doc = normalize_tokens(text)
        joined = " " + " ".join(doc) + " "
        added: set[str] = set()
        for s, e, ents, stripped in mentions:
            scores = np.array([sum(_contains(c, joined) for c in x.context) for x in ents], dtype=float)
            top = scores.max()
            if stripped and top == 0 and len(ents) > 1:
                continue  # a shortened, shared name with nothing around it to tell which
            chosen = [x for x, sc in zip(ents, scores, strict=True) if sc == top]
            conf = 1.0 / len({(x.country, x.region) for x in chosen})
            for x in chosen:
                attrs = {
                    "landmark_id": self.gazetteer.skb.ids[x.index], "country": x.country,
                    "region": x.region, "city": x.city, "location": x.location, "mention": text[s:e],
                }  # fmt: skip
                out.facts.append(Fact("place", x.label, attrs, text[max(0, s - 80) : e + 80], self.name, conf))
                for t in (x.country, x.region, x.city, x.location):
                    if t and t not in added:
                        added.add(t)
                        out.tokens.append(t)
        return out

"""Landmark-country pairs for world-knowledge tuple sets (IMPLIRET Appendix A.2).

From a gazetteer (Wikidata landmark JSONL: ``itemQ``, ``itemLabel``, ``countryQ``,
``countryLabel``, ``adminEntityLabel``, ``cityLabel``, ``locationLabel``,
``streetNameLabel``) we keep the landmarks that are

(i) globally unique: no other gazetteer entry has the same normalised name;
(ii) free of country cues: no ", Town" suffix, no name token overlaps the place's own location strings
     (region, city, location, street, country) or names any country of the gazetteer or
     its demonym ("Japanese", "Irish", ...);
(iii) specific: at least one token that is not a generic place word ("Central Library"
     and "Town Hall" go).

:func:`linkable` keeps those the gazetteer linker finds on their own. The paper's further
LLM / web-search filters are not reproduced; the verification step (the linker must recover
the country from the generated text) stands in for them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.enrich.gazetteer import normalize_tokens

#: Words that say nothing about where a place is (never a country cue, never specific).
GENERIC = frozenset(
    "the of and a an at on in de la le les du des del della di da do dos das von van der den het "
    "st ste mt ft saint church chapel cathedral basilica abbey temple mosque synagogue shrine "
    "museum gallery art arts history historical science university college school academy "
    "institute theatre theater hall arena stadium park garden gardens centre center house "
    "palace castle tower bridge library opera concert club ground field court square "
    "national city town county royal old new north south east west upper lower great little "
    "memorial monument site building centre community public main central first grand "
    "united states kingdom republic democratic federation people peoples islands".split()
)
#: Demonyms that do not share a prefix with their country's name.
DEMONYMS = {
    "france": ("french",), "united kingdom": ("british", "english", "scottish", "welsh", "england", "scotland", "wales"),
    "ireland": ("irish",), "netherlands": ("dutch", "holland"), "switzerland": ("swiss",),
    "spain": ("spanish",), "denmark": ("danish",), "sweden": ("swedish",), "finland": ("finnish",),
    "norway": ("norwegian",), "poland": ("polish",), "greece": ("greek",), "turkey": ("turkish",),
    "china": ("chinese",), "thailand": ("thai",), "philippines": ("filipino",), "iceland": ("icelandic",),
    "portugal": ("portuguese",), "united states": ("american", "america"), "hungary": ("hungarian",),
    "czech republic": ("czech",), "new zealand": ("kiwi",), "belgium": ("belgian",),
}  # fmt: skip


@dataclass(frozen=True)
class Landmark:
    """One gazetteer place: Wikidata id, label, country and the other location strings."""

    id: str
    name: str
    country: str
    region: str | None = None


_SUFFIXES = ("", "s", "n", "ns", "an", "ans", "ian", "ians", "ese", "ish", "i", "e", "ean")


def _shares_stem(token: str, cue: str) -> bool:
    """``token`` is ``cue`` or a demonym-like form of it ("japanese", "italian", "german")."""
    if token == cue:
        return True
    if len(cue) < 4:
        return False
    stems = (cue, cue[:-1]) if len(cue) >= 5 and cue[-1] in "aeoy" else (cue,)
    return any(token == stem + suf for stem in stems for suf in _SUFFIXES)


class CueDetector:
    """Finds country cues (country names, demonyms) in text."""

    def __init__(self, countries: list[str]) -> None:
        self.cues: set[str] = set()
        self.exact: set[str] = set()
        self.phrases: set[tuple[str, ...]] = set()
        for c in countries:
            toks = tuple(normalize_tokens(c))
            if toks:
                self.phrases.add(toks)
            self.cues |= {t for t in toks if t not in GENERIC}
            self.exact.update(DEMONYMS.get(" ".join(toks), ()))

    def has_cue(self, text: str) -> bool:
        """Whether ``text`` names a country or a demonym."""
        toks = normalize_tokens(text)
        joined = " " + " ".join(toks) + " "
        if any(" " + " ".join(p) + " " in joined for p in self.phrases):
            return True
        if self.exact.intersection(toks):
            return True
        return any(_shares_stem(t, c) for t in toks for c in self.cues if t[:3] == c[:3])


def _name_ok(name: str, own: list[str], cues: CueDetector) -> bool:
    toks = [t for t in normalize_tokens(name) if t]
    content = [t for t in toks if t not in GENERIC and not t.isdigit()]
    if not content or (len(toks) == 1 and len(toks[0]) < 6):
        return False
    own_toks = {t for s in own for t in normalize_tokens(s) if t not in GENERIC}
    if own_toks & set(content):
        return False
    return not cues.has_cue(name)


def eligible_landmarks(path: str | Path) -> tuple[dict[str, list[Landmark]], CueDetector]:
    """Cue-free, unique, specific landmarks by country, and the cue detector of the gazetteer."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"gazetteer file not found: {path}", field="gazetteer")
    recs = []
    for n, rec in iter_jsonl(path):
        for k in ("itemQ", "itemLabel", "countryLabel"):
            if not isinstance(rec.get(k), str) or not rec[k].strip():
                raise InputError(f"missing '{k}'", file=path, line=n, field=k)
        recs.append(rec)
    cues = CueDetector(sorted({r["countryLabel"] for r in recs}))
    count: dict[tuple[str, ...], int] = defaultdict(int)
    for r in recs:  # a linker also matches "Church of X" for "Church of X, Town"
        label = r["itemLabel"]
        count[tuple(normalize_tokens(label))] += 1
        if "," in label:
            count[tuple(normalize_tokens(label.rsplit(",", 1)[0]))] += 1
    by_country: dict[str, list[Landmark]] = defaultdict(list)
    seen: set[str] = set()
    for r in recs:
        name = r["itemLabel"].strip()
        if "," in name or count[tuple(normalize_tokens(name))] != 1 or r["itemQ"] in seen:
            continue
        own = [r.get(k) or "" for k in ("countryLabel", "adminEntityLabel", "cityLabel", "locationLabel",
                                         "streetNameLabel")]
        if _name_ok(name, own, cues):
            seen.add(r["itemQ"])
            by_country[r["countryLabel"]].append(Landmark(r["itemQ"], name, r["countryLabel"],
                                                          r.get("adminEntityLabel")))
    return {c: sorted(v, key=lambda x: x.id) for c, v in sorted(by_country.items())}, cues



def linkable(by_country: dict[str, list[Landmark]], gazetteer: Any) -> dict[str, list[Landmark]]:
    """Only landmarks the gazetteer's matcher finds, alone, in a plain sentence (names whose
    spelling the tokenizer splits differently, e.g. with combining marks, go)."""
    out: dict[str, list[Landmark]] = {}
    for c, lms in by_country.items():
        keep = []
        for lm in lms:
            hits = gazetteer.find(f"I was at {lm.name} last week.")
            if len(hits) == 1 and [e.label for e in hits[0][2]] == [lm.name]:
                keep.append(lm)
        if keep:
            out[c] = keep
    return out

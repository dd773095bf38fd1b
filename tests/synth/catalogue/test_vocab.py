"""The synthetic catalogue's vocabulary (``synth.catalogue.vocab``): every sentence names one
property, queries paraphrase product text, and the categories refer only to known features,
aspects and categories."""

from __future__ import annotations

import itertools

from skbsearch.synth.catalogue.vocab import (
    ASPECTS,
    BRAND_PREFIXES,
    BRAND_SUFFIXES,
    CATEGORIES,
    COLORS,
    FEATURES,
)


def test_vocabulary_sentences_identify_one_property() -> None:
    # The qrels test of test_generate.py relies on every description/review sentence naming one property.
    sents = [(k, s) for k, f in FEATURES.items() for s in f.desc]
    sents += [(k, s) for k, a in ASPECTS.items() for s in a.praise + a.complaint]
    for (k1, s1), (k2, s2) in itertools.permutations(sents, 2):
        assert s1 not in s2, (k1, s1, k2, s2)


#: query clauses that copy a description's words (the module promises paraphrases; one does
#: not, kept as it is so that the catalogues generated so far stay the same)
COPIED = {("wide_fit", "with a roomy toe box")}


def test_query_clauses_paraphrase_the_product_text() -> None:
    """A query's clause for a feature never appears verbatim in product text (but ``COPIED``)."""
    text = " ".join(s for f in FEATURES.values() for s in f.desc)
    text += " " + " ".join(s for a in ASPECTS.values() for s in a.praise + a.complaint)
    text = text.lower()
    copied = {(k, phrase) for k, f in FEATURES.items() for phrase in f.rel if phrase.lower() in text}
    assert copied == COPIED
    for k, a in ASPECTS.items():
        assert a.praise and a.complaint and a.query, k


def test_categories_refer_to_known_properties() -> None:
    keys = {c.key for c in CATEGORIES}
    assert len(keys) == len(CATEGORIES)
    for c in CATEGORIES:
        assert c.nouns and c.materials and c.price > 0, c.key
        assert set(c.features) <= set(FEATURES) and set(c.aspects) <= set(ASPECTS), c.key
        assert set(c.related) <= keys and c.key not in c.related, c.key
    assert len(set(COLORS)) == len(COLORS) and all(c == c.lower() for c in COLORS)
    assert len(set(BRAND_PREFIXES)) == len(BRAND_PREFIXES) and BRAND_SUFFIXES

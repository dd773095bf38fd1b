"""The static model's word cache (skbsearch.encoders.word_cache): which tokenizers split on
whitespace first, sums and token counts per text from words tokenised once, texts over the
model's length left to its own ``encode``, and the cache's bound."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("model2vec", reason="the static encoder needs model2vec (extra [static])")

from static_models import VECTORS, VOCAB, expected, model2vec_vectors, tiny_model  # noqa: E402

from skbsearch.encoders import load_encoder  # noqa: E402
from skbsearch.encoders import word_cache as wc  # noqa: E402
from skbsearch.encoders.word_cache import WordCache, splits_on_whitespace  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_encoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Encoders are loaded once per process by name: each test loads its own."""
    from skbsearch.encoders import registry

    monkeypatch.setattr(registry, "_LOADED", {})


def test_word_cache_gives_model2vec_own_vectors(tmp_path):
    texts = ["red kettle", "red  kettle\tsteel", "kettle, red!", "blue blue knife zzz", "",
             "red " * 6 + "knife", "steel knife red kettle"]
    enc = load_encoder(str(tiny_model(tmp_path / "m2v", max_length=5)))
    assert enc.words is not None  # a whitespace-splitting tokenizer: words tokenised once
    for _ in range(2):  # cold, then every word cached
        np.testing.assert_allclose(enc.encode(texts), model2vec_vectors(enc, texts), atol=1e-3)
    assert set(enc.words.words) == {w for t in texts for w in t.split()}
    assert enc.encode(["red " * 6 + "knife"])[0] @ expected(["red"]) > 0.99  # cut at 5 tokens


def test_a_tokenizer_that_does_not_split_on_whitespace_uses_model2vec_encode(tmp_path):
    enc = load_encoder(str(tiny_model(tmp_path / "m2v", pre_tokenizer="Metaspace")))
    assert enc.words is None
    texts = ["red kettle", "steel knife"]
    np.testing.assert_allclose(enc.encode(texts), model2vec_vectors(enc, texts), atol=1e-3)


def _tokenizer(pre: str | None, *normalizers: str):  # noqa: ANN202
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers import normalizers as norms
    from tokenizers.models import WordLevel

    tok = Tokenizer(WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    if pre is not None:
        tok.pre_tokenizer = getattr(pre_tokenizers, pre)()
    if len(normalizers) == 1:
        tok.normalizer = getattr(norms, normalizers[0])()
    elif normalizers:
        tok.normalizer = norms.Sequence([getattr(norms, n)() for n in normalizers])
    return tok


@pytest.mark.parametrize(("pre", "normalizers", "safe"), [
    ("Whitespace", (), True), ("BertPreTokenizer", ("Lowercase", "NFKC"), True),
    ("WhitespaceSplit", ("BertNormalizer",), True), ("Metaspace", (), False), (None, (), False),
    ("Whitespace", ("Lowercase", "Prepend"), False),
])
def test_a_tokenizer_splits_on_whitespace_only_with_word_safe_steps(pre, normalizers, safe) -> None:  # noqa: ANN001
    if "Prepend" in normalizers:
        from tokenizers import normalizers as norms

        tok = _tokenizer(pre)
        tok.normalizer = norms.Sequence([norms.Lowercase(), norms.Prepend("_")])
    else:
        tok = _tokenizer(pre, *normalizers)
    assert splits_on_whitespace(tok) is safe
    assert splits_on_whitespace(object()) is False  # not a tokenizers.Tokenizer


def test_sums_and_counts_per_text_from_words_tokenised_once(tmp_path) -> None:  # noqa: ANN001
    from model2vec import StaticModel

    cache = WordCache(StaticModel.from_pretrained(str(tiny_model(tmp_path / "m2v"))))
    sums, counts = cache.sum_vectors(["red kettle red", "zzz", "", "blue"])
    table = {w: VECTORS[i] for i, w in enumerate(VOCAB)}
    np.testing.assert_allclose(sums[0], table["red"] * 2 + table["kettle"], atol=1e-5)
    np.testing.assert_allclose(sums[3], table["blue"], atol=1e-5)
    assert not sums[1:3].any() and counts.tolist() == [3, 0, 0, 1]  # unknown words: no token
    assert list(cache.words) == ["red", "kettle", "zzz", "blue"] and len(cache.counts) == 4
    cache.sum_vectors(["kettle red"])  # nothing new to tokenise
    assert len(cache.words) == 4 and cache.sums.shape == (4, 4)


def test_the_cache_starts_afresh_past_its_bound(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from model2vec import StaticModel

    monkeypatch.setattr(wc, "MAX_WORDS", 2)
    cache = WordCache(StaticModel.from_pretrained(str(tiny_model(tmp_path / "m2v"))))
    cache.sum_vectors(["red kettle steel"])
    assert len(cache.words) == 3  # over the bound only after this batch
    sums, counts = cache.sum_vectors(["blue"])
    assert list(cache.words) == ["blue"] and counts.tolist() == [1]
    np.testing.assert_allclose(sums[0], VECTORS[VOCAB.index("blue")], atol=1e-5)

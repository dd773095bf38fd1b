"""Padding-aware batching of cross-encoder pairs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skbsearch.rerank.cross_encoder_model import length_batches


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 512), max_size=80), st.integers(1, 40))
def test_length_batches_cover_every_pair_once(lengths: list[int], max_batch: int) -> None:
    batches = length_batches(lengths, max_batch)
    got = np.concatenate(batches) if batches else np.zeros(0, np.int64)
    assert sorted(got.tolist()) == list(range(len(lengths)))
    assert all(0 < len(b) <= max_batch for b in batches)
    flat = [lengths[i] for i in got]
    assert flat == sorted(flat)  # shortest first


def test_length_batches_cut_padding() -> None:
    lengths = list(range(60, 160, 5))  # 20 pairs of 60..155 tokens
    batches = length_batches(lengths, 32)
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    assert len(batches) > 1
    assert padded <= 1.15 * sum(lengths) < 20 * max(lengths)
    assert length_batches([100] * 20, 32)[0].tolist() == list(range(20))  # equal lengths: one batch

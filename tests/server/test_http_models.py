"""A named pipeline whose model directory holds a pickle: a clear refusal, never a 500."""

from __future__ import annotations

import json
import pickle

import pytest

from skbsearch.server import create_app

httpx = pytest.importorskip("httpx")
torch = pytest.importorskip("torch")


class Payload:
    """Anything but tensors: ``torch.load(weights_only=True)`` refuses to unpickle it."""

    def __reduce__(self):
        return (print, ("unpickled!",))


def pickled_gnn_dir(root):
    d = root / "gnn-model"
    d.mkdir()
    from skbsearch.rerank.gnn_models import CONFIG_FILE, FORMAT, WEIGHTS_FILE

    (d / CONFIG_FILE).write_text(json.dumps({"format": FORMAT, "model": {"kind": "grag"}}))
    with (d / WEIGHTS_FILE).open("wb") as fh:
        pickle.dump({"w": Payload()}, fh)
    return d


def pickled_cross_encoder_dir(root):
    d = root / "ce-model"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"architectures": ["BertForSequenceClassification"],
                                               "model_type": "bert", "num_labels": 1}))
    with (d / "pytorch_model.bin").open("wb") as fh:
        pickle.dump({"w": Payload()}, fh)
    return d


def test_pickled_models_in_named_pipelines_are_refused_with_a_message(small_skb, thread_server,
                                                                      tmp_path, capfd):
    skb_dir, _ = small_skb
    named = {"gnn": f"bm25 >> gnn(model='{pickled_gnn_dir(tmp_path)}')",
             "ce": f"bm25 >> cross-encoder(model='{pickled_cross_encoder_dir(tmp_path)}')"}
    with thread_server(create_app(skb_dir, pipelines=named)) as srv:
        for name in named:
            r = httpx.post(srv.base + "/search", json={"query": "blue mug", "pipeline": name},
                           timeout=120)
            assert 400 <= r.status_code < 500, (name, r.status_code, r.text)
            detail = r.json()["detail"]
            assert "model" in detail and str(tmp_path) not in detail, detail
    assert "unpickled!" not in capfd.readouterr().out

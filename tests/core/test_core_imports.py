"""The core imports and the CLI starts without the heavy extras (torch, faiss, ...), and the
front door's names hold in any import order."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

BLOCKED = ["torch", "sentence_transformers", "transformers", "faiss", "torch_geometric", "spacy",
           "fastapi", "matplotlib", "llama_cpp", "ranx"]


def _run_without_extras(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter where importing an extra fails."""
    prelude = textwrap.dedent(
        f"""
        import importlib.abc, sys
        BLOCKED = {BLOCKED!r}
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split('.')[0] in BLOCKED:
                    raise ImportError('blocked extra: ' + name)
        sys.meta_path.insert(0, Block())
        """
    )
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=180)


def test_core_without_extras():
    out = _run_without_extras(
        """
        import skbsearch, skbsearch.kb, skbsearch.core.operators, skbsearch.documents
        import skbsearch.cli
        from typer.testing import CliRunner
        r = CliRunner().invoke(skbsearch.cli.app, ['--help'])
        assert r.exit_code == 0, r.output
        loaded = [m for m in sys.modules if m.split('.')[0] in BLOCKED]
        assert not loaded, loaded
        print('ok')
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


#: What each front-door function must be, checked after the import order under test.
CHECK = textwrap.dedent(
    """
    import importlib
    import skbsearch.api, skbsearch.stages, skbsearch.core.operators, skbsearch.core.types
    import skbsearch.eval.experiment, skbsearch.datasets.queries
    evaluate_module = importlib.import_module("skbsearch.eval.evaluate")
    assert skb.pipeline is skbsearch.api.pipeline, skb.pipeline
    assert skb.fit is skbsearch.stages.fit and skb.stage is skbsearch.stages.stage
    assert skb.SKB is skbsearch.api.SKB and skb.Run is skbsearch.core.types.Run
    assert skb.evaluate is evaluate_module.evaluate
    assert skb.Experiment is skbsearch.eval.experiment.Experiment
    assert skb.read_queries is skbsearch.datasets.queries.read_queries
    assert skb.stages is skbsearch.stages  # a submodule stays the submodule
    p = skb.pipeline("bm25 % 10 >> cross-encoder-ft(steps=1)")
    assert repr(p) == "bm25 % 10 >> cross-encoder-ft(steps=1)", repr(p)
    assert repr(skb.stage("bm25") + skb.stage("dense")) == "bm25 + dense"
    loaded = [m for m in sys.modules if m.split('.')[0] in BLOCKED]
    assert not loaded, loaded
    print('ok')
    """
)

#: Import orders: the front door first, the submodules first, ``from`` imports.
ORDERS = {
    "front-door-first": "import skbsearch as skb\nskb.pipeline, skb.fit, skb.stage, skb.stages\n",
    "submodules-first": ("import skbsearch.core.operators, skbsearch.stages, skbsearch.api\n"
                         "import skbsearch.train.fitters, skbsearch.eval.cv\n"
                         "import skbsearch as skb\n"),
    "from-imports": ("from skbsearch import pipeline, fit, stage, SKB\n"
                     "import skbsearch.stages, skbsearch.core.operators\n"
                     "import skbsearch as skb\n"
                     "assert pipeline is skb.pipeline and fit is skb.fit and stage is skb.stage\n"),
    "stages-attribute-first": ("import skbsearch as skb\nassert skb.stages.pipeline\n"
                               "from skbsearch.stages import pipeline as spec_pipeline\n"),
}


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_front_door_names_hold_in_any_import_order_without_extras(order: str) -> None:
    out = _run_without_extras(ORDERS[order] + CHECK)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")

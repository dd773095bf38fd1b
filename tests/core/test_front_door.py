"""The front door: ``import skbsearch as skb`` gives a few names that shadow no module, and
``skb.fit`` trains any pipeline with no other import (import orders without extras:
tests/core/test_core_imports.py)."""

from __future__ import annotations

import builtins
import inspect
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import skbsearch as skb
from skbsearch.stages import available_stages, get_stage

FRONT_DOOR = ["SKB", "pipeline", "stage", "fit", "fuse", "evaluate", "Experiment", "read_queries",
              "Run", "Qrels", "Query", "SkbError", "InputError", "ArtefactError",
              "UntrustedFileError", "MissingDependencyError", "DeadlineExceeded"]


def test_the_front_door_exports_these_names() -> None:
    """Exactly the names above (and ``__version__``), each reachable from the package, and
    every error class one of the ``skbsearch.core.errors`` hierarchy."""
    from skbsearch.core import errors

    assert set(skb.__all__) == {*FRONT_DOOR, "__version__"}
    assert all(getattr(skb, name) is not None for name in skb.__all__)
    classes = {n for n, v in vars(errors).items()
               if inspect.isclass(v) and issubclass(v, errors.SkbError)}
    assert classes <= set(skb.__all__), classes - set(skb.__all__)
    # no name is a builtin's, nor one with an underscore to dodge it (ArtefactError's old name was)
    assert not [n for n in skb.__all__ if n != "__version__" and hasattr(builtins, n.rstrip("_"))]


def test_no_front_door_name_is_a_module() -> None:
    """Importing ``skbsearch.X`` binds ``X`` on the package: no front-door name may be an X."""
    modules = {m.name for m in pkgutil.iter_modules(skb.__path__)}
    assert set(FRONT_DOOR) <= set(skb.__all__)
    assert {"core", "stages", "api"} <= modules
    assert not modules & set(skb.__all__), modules & set(skb.__all__)
    assert "stages" not in skb.__all__ and "pipeline" not in modules
    assert inspect.isfunction(skb.pipeline) and inspect.isfunction(skb.fit)


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        skb.nope  # noqa: B018
    assert not hasattr(skb, "_private")


def test_every_trainable_stage_names_a_training_loop() -> None:
    """Each trainable re-ranker's ``fitter`` import path names a function of layer L3."""
    from skbsearch.core.operators import load_object

    named = {name: get_stage(name).fitter for name in available_stages()
             if getattr(get_stage(name), "fitter", None)}
    assert {"gnn-row", "cross-encoder-ft"} <= set(named)
    for name, path in named.items():
        assert path.startswith("skbsearch.train."), (name, path)
        assert callable(load_object(path)), (name, path)


@pytest.mark.slow
def test_fit_through_the_front_door_with_no_other_import(tmp_path: Path) -> None:
    """``skb.fit`` of a pipeline with a fine-tuned cross-encoder, in a fresh interpreter that
    imports nothing but ``skbsearch`` (it failed with "import skbsearch.train first")."""
    pytest.importorskip("transformers")
    code = textwrap.dedent(
        f"""
        import skbsearch as skb
        from skbsearch.synth.catalogue import generate_catalogue
        data = generate_catalogue(200, n_queries=12, seed=5)
        data.save({str(tmp_path)!r})
        p = skb.pipeline("bm25(types=[product]) % 4 >> cross-encoder-ft(steps=1, max_length=32)",
                         {str(tmp_path / "skb")!r})
        assert skb.fit(p, data.queries, data.qrels) is p
        ce = p.stages[-1]
        assert ce.fits == 1 and ce.last_fit["steps"] == 1, ce.last_fit
        run = p.run(data.queries[:3])
        assert all(len(run[q.id]) == 4 for q in data.queries[:3]), run
        print('ok')
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")

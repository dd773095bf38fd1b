"""The core imports and the CLI starts without the heavy extras (torch, faiss, ...)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKED = ["torch", "sentence_transformers", "faiss", "torch_geometric", "spacy", "fastapi", "matplotlib", "llama_cpp", "ranx"]


def test_core_without_extras():
    code = textwrap.dedent(
        f"""
        import importlib.abc, sys
        BLOCKED = {BLOCKED!r}
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split('.')[0] in BLOCKED:
                    raise ImportError('blocked extra: ' + name)
        sys.meta_path.insert(0, Block())
        import skbsearch, skbsearch.kb, skbsearch.operators, skbsearch.documents
        import skbsearch.cli
        from typer.testing import CliRunner
        r = CliRunner().invoke(skbsearch.cli.app, ['--help'])
        assert r.exit_code == 0, r.output
        loaded = [m for m in sys.modules if m.split('.')[0] in BLOCKED]
        assert not loaded, loaded
        print('ok')
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")

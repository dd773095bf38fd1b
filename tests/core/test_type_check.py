"""The type check's set-up (issue 34, item 4): ``make test`` and ``make lint`` run ruff and
mypy before pytest; ``[tool.mypy]`` covers layers L0-L2 and silences nothing of ours.

(mypy itself runs in ``make test``, not here: a whole check takes a minute or more.)
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: L0, L1 (synth excepted, for now) and L2 (docs/architecture.md, "Layers")
CHECKED = {"skbsearch.core", "skbsearch.kb", "skbsearch.enrich", "skbsearch.semgraph", "skbsearch.encoders",
           "skbsearch.llm", "skbsearch.datasets", "skbsearch.documents", "skbsearch.verbalise",
           "skbsearch.stages", "skbsearch.read", "skbsearch.rerank", "skbsearch.retrieve", "skbsearch.index"}


def _recipe(makefile: str, target: str) -> list[str]:
    """The command lines of one Makefile target."""
    m = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert m, f"no '{target}' target in the Makefile"
    return [ln.strip() for ln in m.group(1).splitlines()]


def test_make_test_and_lint_run_ruff_and_mypy_before_pytest() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in ("test", "lint"):
        lines = _recipe(makefile, target)
        assert any(ln.endswith("ruff check src tests benchmarks") for ln in lines), target
        mypy = [i for i, ln in enumerate(lines) if re.search(r"/mypy$", ln)]
        assert mypy, f"make {target} does not run mypy"
        pytest_at = [i for i, ln in enumerate(lines) if "pytest" in ln]
        assert all(mypy[0] < i for i in pytest_at)


def test_mypy_config_checks_the_lower_layers_and_ignores_nothing_of_ours() -> None:
    conf = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    mypy = conf["tool"]["mypy"]
    assert CHECKED <= set(mypy["packages"]) | set(mypy.get("modules", []))
    assert mypy.get("warn_unused_ignores") is True
    assert not mypy.get("ignore_errors") and not mypy.get("ignore_missing_imports")
    for override in mypy.get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else [override["module"]]
        assert not any(m.split(".")[0] == "skbsearch" for m in modules), override
        assert not override.get("ignore_errors"), override
    assert any(d.startswith("mypy") for d in conf["project"]["optional-dependencies"]["test"])


def test_every_type_ignore_says_why() -> None:
    """A ``# type: ignore[code]`` names its code and carries a reason in a comment after it."""
    bare = []
    for f in sorted((REPO / "src").rglob("*.py")):
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            m = re.search(r"#\s*type:\s*ignore(\[[^\]]+\])?(.*)$", line)
            if m and (m.group(1) is None or "#" not in m.group(2)) and _checked(f):
                bare.append(f"{f.relative_to(REPO)}:{n}")
    assert not bare, f"type: ignore without a code or a reason: {bare}"


def _checked(path: Path) -> bool:
    rel = path.relative_to(REPO / "src").with_suffix("").parts
    return ".".join(rel[:2]) in CHECKED


def test_no_skb_or_retriever_typed_any() -> None:
    """An SKB and the graph stage's retriever travel with their types (``SKB``, a Protocol or
    ``GraphWork``), never as ``Any``, in every package (issue 34, item 4)."""
    loose = [f"{f.relative_to(REPO)}:{n}"
             for f in sorted((REPO / "src").rglob("*.py"))
             for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\b(skb|retriever): Any\b", line)]
    assert not loose, f"typed Any: {loose}"

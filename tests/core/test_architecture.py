"""Layers point one way: the import-linter contracts hold and no modules import each other in a loop.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``; docs/architecture.md,
"Layers"). The cycle check reads every ``import`` with ``ast`` at any depth (imports
inside functions count: a lazy import hides a loop, it does not remove it).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
PACKAGE = "skbsearch"
#: Modules that are not benchmarks but code the benchmarks share.
SHARED_BENCHMARK_MODULES = {"result", "common", "measure", "bm25_corpus"}
#: The interfaces (L5) may use the front door ``skbsearch/__init__``; nothing else may.
FRONT_DOOR_USERS = ("cli", "server", "api", "demo", "demo_implicit")


def _modules(src: Path, package: str) -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for f in (src / package).rglob("*.py"):
        parts = list(f.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


def _imported(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` reads from (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(src: Path, package: str) -> dict[str, set[str]]:
    """``module -> modules it imports`` within ``package``, from imports at any depth.

    A module importing one of its own ancestor packages, or a package importing its own
    children (``__init__`` re-exports), is not an edge: Python initialises the parent first.
    """
    mods = _modules(src, package)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        is_pkg = f.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _imported(m, is_pkg, node)
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m and not m.startswith(t + ".") and not t.startswith(m + "."):
                    edges[m].add(t)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_finder_sees_function_level_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg.a import f\n")  # re-export: not a loop
    (pkg / "a.py").write_text("import pkg\n\ndef f():\n    from pkg.sub import b\n    return b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from pkg.c import g\n")
    (pkg / "c.py").write_text("def g():\n    from .sub.b import g\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg"] == set() and graph["pkg.a"] == {"pkg.sub", "pkg.sub.b"}
    assert graph["pkg.c"] == {"pkg.sub.b"}  # relative, resolved
    assert cycles(graph) == [["pkg.c", "pkg.sub.b"]]  # one side imports inside a function
    (pkg / "c.py").write_text("X = 1\n")
    assert cycles(import_graph(tmp_path, "pkg")) == []


def test_no_import_cycles_between_modules() -> None:
    found = cycles(import_graph(SRC, PACKAGE))
    assert not found, "import cycles (move the shared code down a layer):\n" + "\n".join(
        " <-> ".join(c) for c in found)


def test_only_interfaces_use_the_front_door() -> None:
    """Below L5, code imports the module that defines a name, not ``skbsearch`` itself."""
    bad = []
    for m, f in _modules(SRC, PACKAGE).items():
        top = m.split(".")[1] if "." in m else ""
        if not top or top in FRONT_DOOR_USERS:
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            if PACKAGE in names:
                bad.append(f"{m}:{node.lineno}")
    assert not bad, f"import the defining module instead of the package front door: {bad}"


def _contracts() -> list[dict]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def test_every_benchmark_is_in_the_independence_contract() -> None:
    (contract,) = [c for c in _contracts() if c["id"] == "benchmarks-independent"]
    listed = {m.rpartition(".")[2] for m in contract["modules"]}
    present = {p.stem if p.is_file() else p.name
               for p in (SRC / PACKAGE / "benchmarks").iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert present - SHARED_BENCHMARK_MODULES == listed


def test_core_is_the_lowest_layer_and_imports_only_itself() -> None:
    """L0 is one package, ``skbsearch.core``: the ``layers`` contract's last layer, and its
    modules import no other part of skbsearch (an import inside a function counts too)."""
    (layers,) = [c for c in _contracts() if c["id"] == "layers"]
    assert layers["layers"][-1] == "core", layers["layers"]
    graph = import_graph(SRC, PACKAGE)
    core = {m for m in graph if m == f"{PACKAGE}.core" or m.startswith(f"{PACKAGE}.core.")}
    assert {f"{PACKAGE}.core.types", f"{PACKAGE}.core.errors", f"{PACKAGE}.core.operators"} <= core
    outside = sorted((m, t) for m in core for t in graph[m] if t not in core)
    assert not outside, f"skbsearch.core imports outside itself: {outside}"


def test_import_linter_contracts_hold() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.is_file():
        found = shutil.which("lint-imports")
        if found is None:
            pytest.skip("import-linter is not installed (pip install -e '.[test]')")
        exe = Path(found)
    out = subprocess.run([str(exe), "--no-cache"], cwd=REPO, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]

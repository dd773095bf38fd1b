"""No module reaches into another module's private attributes (issue 34, item 4).

``obj._name`` (or ``getattr(obj, "_name")``) where ``obj`` is not ``self``, ``cls`` or
``super()`` is a reach into private state: allowed only when ``_name`` is defined in the
same module (another instance of the module's own class, as in ``__eq__``). A name counts as
defined in a module where a class body assigns it or defines it as a method, where
``self._name``/``cls._name`` is assigned, or at the module's top level. The check goes by
name (``ast``, no types): a reach is seen when the module does not define that name itself.

:data:`PRIVATE_REACHES_LEFT` names what still waits for its owner; it may only shrink
(remove an entry when its owner fixes it).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"

#: ``(file relative to src, accessed expression)`` allowed to reach into another module's
#: private state: none (the graph stage's typed parts removed the last two, issue 34 item 3).
PRIVATE_REACHES_LEFT: set[tuple[str, str]] = set()

_ATTR_FUNCS = ("getattr", "setattr", "hasattr", "delattr")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own_target(node: ast.expr) -> str | None:
    """``_name`` of a ``self._name`` / ``cls._name`` assignment target."""
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls") and _private(node.attr)):
        return node.attr
    return None


def _named(targets: list[ast.expr]) -> set[str]:
    return {t.id for t in targets if isinstance(t, ast.Name) and _private(t.id)}


def _body_names(body: list[ast.stmt]) -> set[str]:
    """Private names a class body or a module's top level defines."""
    out: set[str] = set()
    for st in body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _private(st.name):
            out.add(st.name)
        elif isinstance(st, ast.Assign):
            out |= _named(st.targets)
        elif isinstance(st, ast.AnnAssign):
            out |= _named([st.target])
    return out


def defined_names(tree: ast.Module) -> set[str]:
    """Every private name ``tree`` defines (see the module docstring)."""
    out = _body_names(tree.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            out |= _body_names(node.body)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                out |= {n for x in ast.walk(t) if isinstance(x, ast.expr) and (n := _own_target(x))}
    return out


def _is_own(obj: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``."""
    if isinstance(obj, ast.Name):
        return obj.id in ("self", "cls")
    return isinstance(obj, ast.Call) and isinstance(obj.func, ast.Name) and obj.func.id == "super"


def _accesses(tree: ast.Module) -> list[tuple[ast.expr, str, str]]:
    """``(object, private name, expression)`` of every attribute access on an object."""
    out: list[tuple[ast.expr, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            out.append((node.value, node.attr, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ATTR_FUNCS
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and _private(node.args[1].value)):
            out.append((node.args[0], node.args[1].value, ast.unparse(node)))
    return out


def private_reaches(src: Path) -> set[tuple[str, str]]:
    """``(file relative to src, expression)`` for each access of a private attribute on an
    object other than ``self``/``cls``/``super()`` whose name the file does not define but
    another module of ``src`` does."""
    trees = {f.relative_to(src).as_posix(): ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
             for f in sorted(src.rglob("*.py"))}
    defined = {f: defined_names(t) for f, t in trees.items()}
    anywhere = set().union(*defined.values()) if defined else set()
    out: set[tuple[str, str]] = set()
    for f, tree in trees.items():
        for obj, name, expr in _accesses(tree):
            if not _is_own(obj) and name not in defined[f] and name in anywhere:
                out.add((f, expr))
    return out


def test_the_check_sees_a_reach_into_another_modules_private_attribute(tmp_path: Path) -> None:
    pkg = tmp_path / "skbsearch"
    pkg.mkdir()
    (pkg / "a.py").write_text(
        "class A:\n"
        "    _limit = 3\n"
        "    def __init__(self):\n"
        "        self._state = 1\n"
        "    def _step(self):\n"
        "        return self._state\n"
        "    def __eq__(self, other):\n"
        "        return self._state == other._state\n", encoding="utf-8")
    (pkg / "b.py").write_text(
        "from skbsearch.a import A\n"
        "class B(A):\n"
        "    def run(self, a):\n"
        "        return self._state, super()._step(), a._step(), getattr(a, '_limit'), a._other\n",
        encoding="utf-8")
    assert private_reaches(tmp_path) == {("skbsearch/b.py", "a._step"),
                                         ("skbsearch/b.py", "getattr(a, '_limit')")}


def test_no_new_reach_into_another_modules_private_attributes() -> None:
    new = private_reaches(SRC) - PRIVATE_REACHES_LEFT
    assert not new, ("private attributes of another module's objects (add a public method or "
                     f"property there, or move the code to its owner): {sorted(new)}")


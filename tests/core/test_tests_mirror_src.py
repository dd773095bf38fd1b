"""Tests mirror ``src/`` (issue 34, item 5): the tests of ``src/skbsearch/<path>/<module>.py``
live in ``tests/<path>/test_<module>.py``.

Every module with a top-level ``def`` or ``class`` (``__init__.py`` aside) has that file, or
is named in :data:`NOT_MIRRORED_YET`, which may only shrink: a new module without its mirror
fails, and so does a listed module that now has one (remove it from the list) or that no
longer exists. Test folders are packages, so the same ``test_<module>.py`` name can live in
several folders (``tests/index/test_base.py``, ``tests/stages/test_base.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "skbsearch"
TESTS = REPO / "tests"

#: Modules with logic whose ``tests/<path>/test_<module>.py`` does not exist yet (many are
#: tested from a file named otherwise). Empty since session 15: every module has its mirror.
NOT_MIRRORED_YET: frozenset[str] = frozenset()


def modules_with_logic(src: Path) -> list[str]:
    """Paths (relative to ``src``, posix) of the modules with a top-level function or class,
    ``__init__.py`` excepted."""
    out = []
    for f in sorted(src.rglob("*.py")):
        if f.name == "__init__.py":
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        if any(isinstance(node, defs) for node in tree.body):
            out.append(f.relative_to(src).as_posix())
    return out


def mirror_of(module: str, tests: Path = TESTS) -> Path:
    """The test file of ``module`` (``kb/loaders/kg.py`` -> ``tests/kb/loaders/test_kg.py``)."""
    path = Path(module)
    return tests / path.parent / f"test_{path.stem}.py"


def unmirrored(src: Path, tests: Path) -> set[str]:
    """The modules with logic under ``src`` that have no mirror under ``tests``."""
    return {m for m in modules_with_logic(src) if not mirror_of(m, tests).is_file()}


def test_the_check_sees_modules_without_their_mirror(tmp_path: Path) -> None:
    src, tests = tmp_path / "src", tmp_path / "tests"
    (src / "kb" / "loaders").mkdir(parents=True)
    (src / "kb" / "loaders" / "kg.py").write_text("def load():\n    pass\n", encoding="utf-8")
    (src / "kb" / "store.py").write_text("class SKB:\n    pass\n", encoding="utf-8")
    (src / "kb" / "constants.py").write_text("LIMIT = 3\n", encoding="utf-8")
    (src / "kb" / "__init__.py").write_text("def load():\n    pass\n", encoding="utf-8")
    (tests / "kb").mkdir(parents=True)
    (tests / "kb" / "test_store.py").write_text("", encoding="utf-8")
    assert modules_with_logic(src) == ["kb/loaders/kg.py", "kb/store.py"]
    assert unmirrored(src, tests) == {"kb/loaders/kg.py"}
    (tests / "kb" / "loaders").mkdir()
    (tests / "kb" / "loaders" / "test_kg.py").write_text("", encoding="utf-8")
    assert unmirrored(src, tests) == set()


def test_every_module_with_logic_has_its_mirror() -> None:
    new = sorted(unmirrored(SRC, TESTS) - NOT_MIRRORED_YET)
    assert not new, ("modules without tests/<path>/test_<module>.py (write it, or move the "
                     f"tests that exercise the module there): {new}")


def test_the_list_of_modules_not_mirrored_yet_stays_exact() -> None:
    done = sorted(m for m in NOT_MIRRORED_YET if mirror_of(m).is_file())
    assert not done, f"these modules have their mirror now; remove them from NOT_MIRRORED_YET: {done}"
    gone = sorted(NOT_MIRRORED_YET - set(modules_with_logic(SRC)))
    assert not gone, f"no such module with logic; remove it from NOT_MIRRORED_YET: {gone}"


def test_test_folders_are_packages() -> None:
    """Without ``__init__.py`` two ``test_base.py`` in two folders clash on import."""
    folders = {f.parent for f in TESTS.rglob("test_*.py")} | {TESTS}
    bare = sorted(str(d.relative_to(REPO)) for d in folders if not (d / "__init__.py").is_file())
    assert not bare, f"test folders without __init__.py: {bare}"

"""The documentation site: it builds with ``mkdocs build --strict`` (a broken link, page or
API reference fails), and the Python examples of its pages run as written, on a generated
catalogue (``cat/``, and the same catalogue as a user's files in ``kg/``: nodes and edges
JSONL, questions, TREC answers); a ``# -> TEXT`` comment in a block must be a line the block
printed (the guides' numbers are what their code gives)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue import generate_catalogue

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Pages whose ```python blocks run, in order, in one namespace a page.
EXAMPLE_PAGES = sorted([DOCS / "index.md", *(DOCS / "concepts").glob("*.md"),
                        *(DOCS / "guides").glob("*.md")])


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


def _expected(block: str) -> list[str]:
    return [m.strip() for m in re.findall(r"^# -> (.*)$", block, flags=re.M)]


def write_kg_files(cat: Path, out: Path) -> None:
    """A catalogue as a user's files: ``nodes.jsonl``, ``edges.jsonl``, ``questions.jsonl``
    (``qid``, ``query``) and ``answers.trec``."""
    kb = SKB.load(cat / "skb")
    out.mkdir()
    with (out / "nodes.jsonl").open("w", encoding="utf-8") as fh:
        for rec in kb.nodes.to_pylist():
            fh.write(json.dumps({k: v for k, v in rec.items() if v is not None}) + "\n")
    ids, rels = kb.ids_array, kb.schema.relations
    with (out / "edges.jsonl").open("w", encoding="utf-8") as fh:
        for s, r, t in zip(kb.edge_src.tolist(), kb.edge_rel.tolist(), kb.edge_dst.tolist(), strict=True):
            fh.write(json.dumps({"source": str(ids[s]), "relation": rels[r], "target": str(ids[t])}) + "\n")
    with (out / "questions.jsonl").open("w", encoding="utf-8") as fh:
        for line in (cat / "queries.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            fh.write(json.dumps({"qid": q["id"], "query": q["text"]}) + "\n")
    (out / "answers.trec").write_bytes((cat / "qrels.trec").read_bytes())


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("docs-examples")
    generate_catalogue(800, n_queries=80, seed=0).save(work / "cat")
    write_kg_files(work / "cat", work / "kg")
    return work


@pytest.mark.parametrize("page", [p for p in EXAMPLE_PAGES if _blocks(p)],
                         ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page: Path, catalogue: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(catalogue)
    namespace: dict = {}
    printed_any = False
    for block in _blocks(page):
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - our own docs
        printed = [ln.strip() for ln in capsys.readouterr().out.splitlines()]
        printed_any = printed_any or any(printed)
        for want in _expected(block):
            assert want in printed, f"{page.name}: '# -> {want}' is not what it printed: {printed}"
    assert printed_any, "an example prints what it shows"


def test_site_builds_strict(tmp_path: Path) -> None:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{module} is not installed (pip install -e '.[docs]')")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-5000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "skb kb build" in cli and "--trust-pickles" in cli  # the hook rendered the CLI
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "skbsearch.api.pipeline" in api  # mkdocstrings rendered the front door
    assert "autorefs-internal" in api  # Sphinx roles link to the objects they name
    scaling = (tmp_path / "site" / "scaling" / "index.html").read_text(encoding="utf-8")
    assert "../BENCHMARKS.md" not in scaling  # repository links point at site pages


def test_sphinx_roles_become_optional_cross_references() -> None:
    pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("griffe_roles", DOCS / "griffe_roles.py")
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    text = "see :class:`skbsearch.kb.store.SKB` and :func:`~skbsearch.stages.fit`, not `x`"
    assert roles.roles_to_refs(text) == (
        'see <autoref identifier="skbsearch.kb.store.SKB" optional>'
        "<code>skbsearch.kb.store.SKB</code></autoref> and "
        '<autoref identifier="skbsearch.stages.fit" optional><code>fit</code></autoref>, not `x`')

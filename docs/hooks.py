"""mkdocs hooks (``hooks:`` in mkdocs.yml) for the documentation site.

* ``<!-- skb-cli-reference -->`` in a page becomes the reference of every ``skb`` command,
  rendered from the typer app of this checkout (:mod:`skbsearch.cli.reference`), so the
  page cannot drift from ``skb --help``.
* ``<!-- include: FILE -->`` becomes the text of a repository file (``BENCHMARKS.md``),
  without its first heading.
* A link from a page to a repository file that the site shows as a page
  (``../BENCHMARKS.md``, right on GitHub) points at that page on the site.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLI_MARKER = "<!-- skb-cli-reference -->"
INCLUDE = re.compile(r"<!-- include: ([\w.-]+) -->")
#: Repository files shown as site pages: file (from the repository root) -> page (docs/).
SITE_PAGES = {"BENCHMARKS.md": "benchmarks.md"}
LINK = re.compile(r"\]\(([^)\s#]+\.md)(#[^)\s]*)?\)")


def _include(match: re.Match[str]) -> str:
    text = (ROOT / match.group(1)).read_text(encoding="utf-8")
    return re.sub(r"\A# .*\n", "", text, count=1)


def _site_link(src_uri: str, match: re.Match[str]) -> str:
    target, anchor = match.group(1), match.group(2) or ""
    page_dir = posixpath.dirname(src_uri)
    in_repo = posixpath.normpath(posixpath.join("docs", page_dir, target))
    page = SITE_PAGES.get(in_repo)
    if page is None:
        return match.group(0)
    return f"]({posixpath.relpath(page, page_dir or '.')}{anchor})"


def cli_reference() -> str:
    """The ``skb`` reference of this checkout (its ``src/`` first on the path)."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))
    from skbsearch.cli.reference import render_reference

    return render_reference()


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Fill the markers and point repository-file links at their site pages."""
    if CLI_MARKER in markdown:
        markdown = markdown.replace(CLI_MARKER, cli_reference())
    markdown = INCLUDE.sub(_include, markdown)
    src_uri = page.file.src_uri
    return LINK.sub(lambda m: _site_link(src_uri, m), markdown)

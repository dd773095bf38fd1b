"""A griffe extension for the API reference (mkdocs.yml, ``extensions:``).

The docstrings use Sphinx's roles (``:class:`skbsearch.kb.store.SKB```, ``:func:`fit```);
this turns each into code that links to the object's entry when the reference shows it
(an *optional* mkdocs-autorefs cross-reference: unresolved ones stay plain code, never a
broken link).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|mod|meth|data|attr|exc|obj):`(~?)([\w.]+)(?:\(\))?`")


def _autoref(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    title = target.rsplit(".", 1)[-1] if short else target
    return f'<autoref identifier="{target}" optional><code>{title}</code></autoref>'


def roles_to_refs(text: str) -> str:
    """Sphinx roles in ``text`` as optional cross-references."""
    return ROLE.sub(_autoref, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = roles_to_refs(obj.docstring.value)

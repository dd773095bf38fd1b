"""Artefact kinds and the guard on replacing a directory: what an skbsearch output
directory is (:func:`artefact_kind`, from its marker file), what it may hold
(:data:`ARTEFACT_CONTENTS`), and :func:`check_replaceable`, which refuses to write over
anything else. :func:`skbsearch.core.atomic.atomic_dir` calls it before every replace;
:mod:`skbsearch.core.atomic` re-exports these names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError

#: The field of a marker file naming the artefact kind, e.g. ``{"artefact": "skb", ...}``.
ARTEFACT_FIELD = "artefact"

#: A writer's entry of any name, as this version names them: ``.NAME.(old|tmp)-PID-XXXXXXXX``
#: (8 random characters). Stricter than :mod:`skbsearch.core.atomic`'s per-name pattern, which also knows
#: older forms: a sweep of a whole directory must never take a user's ``.notes.tmp-2024``.
LITTER = re.compile(r"^\.(?P<name>.+)\.(?:old|tmp)-\d+-[a-z0-9_]{8}$")


def _has(*keys: str) -> Callable[[dict[str, Any]], bool]:
    return lambda d: all(k in d for k in keys)


def _format_prefix(prefix: str) -> Callable[[dict[str, Any]], bool]:
    return lambda d: str(d.get("format", "")).startswith(prefix)


#: kind -> (marker file, test recognising directories written before the artefact field).
ARTEFACT_MARKERS: dict[str, tuple[str, Callable[[dict[str, Any]], bool]]] = {
    "skb": ("meta.json", _has("format_version", "schema")),
    "index": ("manifest.json", _has("kind", "version", "num_docs")),
    "catalogue": ("dataset.json", lambda d: str(d.get("generator", "")).startswith("skbsearch.synth")),
    "constrained": ("constrained.json", lambda d: d.get("kind") == "constrained"),
    "graph": ("graph.json", _has("n_nodes", "relations", "files")),
    "relpath-model": ("model.json", _format_prefix("skbsearch.relpath")),
    "gnn-model": ("config.json", _format_prefix("skbsearch-gnn")),
    "kg-model": ("model.json", _format_prefix("skbsearch.kg")),
    "cross-encoder-model": ("skb_cross_encoder.json", _has("format", "max_length")),
    "fit": ("fit.json", _has("metric", "folds", "untrained", "fitted", "keep")),
    "synth-queries": ("report.json", lambda d: False),
    "static-encoder": ("skb_static.json", _format_prefix("skbsearch.static")),
}

#: kind -> the entries a directory of that kind may hold: anything else is a user's file,
#: and replacing the directory would delete it (:func:`check_replaceable` refuses).
ARTEFACT_CONTENTS: dict[str, frozenset[str]] = {
    "skb": frozenset({"meta.json", "nodes.parquet", "nodes.arrow", "edges.parquet", "graph",
                      "indexes"}),
    "catalogue": frozenset({"skb", "queries.jsonl", "qrels.trec", "dataset.json"}),
    "fit": frozenset({"fit.json", "pipeline.txt"}),
    "synth-queries": frozenset({"stark_qa", "split", "queries.jsonl", "templates.json",
                                "report.json"}),
}

#: kind -> names a directory of that kind may hold besides :data:`ARTEFACT_CONTENTS`
#: (``skb fit``'s kept models: one directory per model stage, ``<stage>-<i>``).
ARTEFACT_NAME_PATTERNS: dict[str, re.Pattern[str]] = {"fit": re.compile(r"^[a-z][a-z0-9_-]*-\d+$")}

_WHAT = {"skb": "an SKB directory ('skb kb build')", "index": "an index directory ('skb index')",
         "catalogue": "a synthetic catalogue ('skb synth catalogue')",
         "fit": "an 'skb fit' output", "synth-queries": "an 'skb synth queries' output"}


def artefact_kind(path: str | Path) -> str | None:
    """The kind of skbsearch artefact the directory ``path`` is, or ``None``."""
    path = Path(path)
    if not path.is_dir():
        return None
    for kind, (marker, legacy) in ARTEFACT_MARKERS.items():
        try:
            d = json.loads((path / marker).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(d, dict) and (d.get(ARTEFACT_FIELD) == kind or legacy(d)):
            return kind
    return None


def check_replaceable(path: str | Path, kind: str, *,
                      inputs: Iterable[str | Path | None] = ()) -> None:
    """Refuse (InputError) to write ``path`` when that could destroy what is not ours.

    ``path`` may be written when it does not exist, is an empty directory, or is a
    skbsearch artefact of ``kind`` (so nothing inside an input but our own output is
    ever replaced), and never when it is one of ``inputs`` or a parent of one.
    """
    final = Path(path)
    real = final.resolve()
    inside = None
    for inp in inputs:
        if inp is None:
            continue
        ri = Path(inp).resolve()
        if real == ri or real in ri.parents:
            what = "is" if real == ri else "contains"
            raise InputError(f"the output {what} the input {inp}; writing it would delete the "
                             "input. Choose another output directory", file=final)
        if ri in real.parents:
            inside = inp
    if not (final.exists() or final.is_symlink()):
        return
    where = f" (inside the input {inside})" if inside is not None else ""
    if not final.is_dir():
        raise InputError(f"exists{where} and is not a directory; skbsearch replaces only "
                         f"{_WHAT.get(kind, kind + ' directories')}. Choose another output",
                         file=final)
    found = artefact_kind(final)
    if found == kind:
        _refuse_foreign(final, kind)
        return
    if found is None and not any(final.iterdir()):
        return
    what = f"holds {_WHAT.get(found, 'a ' + found)}" if found else "is not a skbsearch artefact"
    raise InputError(f"exists{where} and {what}; skbsearch replaces only "
                     f"{_WHAT.get(kind, kind)}. Choose another output directory (nothing was "
                     "changed)", file=final)


def foreign_entries(path: str | Path, kind: str) -> list[str]:
    """Names in the artefact directory ``path`` that a ``kind`` artefact never holds
    (files a user put there); empty for kinds without a known layout."""
    known = ARTEFACT_CONTENTS.get(kind)
    if known is None:
        return []
    pattern = ARTEFACT_NAME_PATTERNS.get(kind)
    return sorted(p.name for p in Path(path).iterdir()
                  if p.name not in known and not LITTER.match(p.name)
                  and not (pattern is not None and p.is_dir() and pattern.match(p.name)))


def _refuse_foreign(final: Path, kind: str) -> None:
    extra = foreign_entries(final, kind)
    if extra:
        shown = ", ".join(extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        raise InputError(f"holds files that are not part of {_WHAT.get(kind, kind)}: {shown}; "
                         "replacing it would delete them. Move them out of the directory or "
                         "choose another output (nothing was changed)", file=final)

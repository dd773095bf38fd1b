"""Indexes that follow their SKB's generations: catch up on load, rewrite on compaction.

An index records the generation it covers (``source.skb_hash``, the generation's identity).
When its SKB has moved on (``skb kb update``), :func:`catch_up` applies the pending segments
to the loaded index instead of refusing it as stale; an index that cannot follow (another
SKB build, or a kind without live support) is returned unchanged and
:func:`skbsearch.index.open_index` refuses it as before. What each kind does is in its
registration (:class:`skbsearch.index.IndexKind`: ``catch_up``, ``why_stale``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from skbsearch.core.errors import ArtefactError
from skbsearch.index import kind_of
from skbsearch.index.base import MANIFEST_FILE, IndexRecord, read_manifest, rebuild_command

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

#: the index type catch-up keeps
IndexT = TypeVar("IndexT", bound=IndexRecord)


def catch_up(index: IndexT, skb: SKB | None, root: Path | None = None) -> IndexT:
    """``index`` brought to ``skb``'s generation when its kind can follow updates (``root``:
    the SKB directory, when ``skb`` is detached from it); its kind's registration
    (:attr:`skbsearch.index.IndexKind.catch_up`) does the work."""
    spec = kind_of(index)
    return index if spec is None else spec.caught_up(index, skb, root)


def compact_indexes(skb: SKB) -> list[Path]:
    """Rewrite every index under ``SKB_DIR/indexes`` that can follow updates at ``skb``'s
    generation (run by ``skb kb compact`` before it commits, so that no index needs the
    segments the compaction removes); returns the directories rewritten."""
    if skb.path is None:  # an SKB in memory has no indexes
        return []
    root = Path(skb.path) / "indexes"
    done: list[Path] = []
    if not root.is_dir():
        return done
    for d in sorted(p for p in root.iterdir() if (p / MANIFEST_FILE).is_file()):
        m = read_manifest(d)
        spec = kind_of(m)  # (the linker's tables are no registered kind)
        # an index that cannot follow (reported stale by the update) stays as it is
        if spec is None or not spec.follows_updates or spec.stale_reason(dict(m.source or {}), d):
            continue
        index = spec.load(d)
        fresh = spec.caught_up(index, skb)
        if fresh is not index:
            fresh.save(d)
            done.append(d)
    return done


def stale_indexes(skb_dir: str | Path, lineage: list[str], content_hash: str) -> list[dict[str, str]]:
    """The indexes under ``SKB_DIR/indexes`` that an update left behind: built at an earlier
    generation of this lineage (``lineage``, ending at ``content_hash``) by a kind or with
    settings that cannot catch up. Each as ``{"path", "kind", "why", "rebuild"}`` (the
    command that rebuilds it); what ``skb kb update`` reports, so no index goes stale silently."""
    root = Path(skb_dir) / "indexes"
    out: list[dict[str, str]] = []
    if not root.is_dir():
        return out
    for d in sorted(p for p in root.iterdir() if (p / MANIFEST_FILE).is_file()):
        try:
            m = read_manifest(d)
        except ArtefactError:
            continue
        src = dict(m.source or {})
        h = src.get("skb_hash")
        # (the linker's and name tables, src["role"], are rebuilt on first use: no command)
        if src.get("kind") != "skb" or src.get("role") or not h or h == content_hash or h not in lineage:
            continue
        spec = kind_of(m)
        why = spec.stale_reason(src, d) if spec is not None else f"{m.kind} indexes do not follow updates yet"
        if why is None:
            continue
        out.append({"path": str(d), "kind": m.kind, "why": why,
                    "rebuild": rebuild_command(m.kind, skb_dir, d, src, dict(m.params or {}))})
    return out

"""What ``skb kb build`` / ``skb kb info`` say the data showed: names split from a text,
description coverage, and which node types inform (:mod:`skbsearch.kb.profile`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skbsearch.cli.output import console

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


def inferred(skb: SKB) -> dict[str, Any]:
    """The SKB's profile as the JSON ``inferred`` record."""
    from skbsearch.kb.profile import profile

    return profile(skb).as_dict()


def print_inferred(d: dict[str, Any]) -> None:
    """Lines for humans: names split (count, example), description coverage, types used."""
    split = d.get("names_split") or {}
    if split.get("split"):
        ex = split.get("example") or {}
        console.print(f"names: split {split['split']:,} of {split['names']:,} at {split['separator']!r} "
                      f"into name + description (e.g. {ex.get('value', '')!r} -> name {ex.get('name', '')!r}); "
                      "'--split-names no' keeps them whole", markup=False, highlight=False, soft_wrap=True)
    fields = ", ".join(d.get("description_fields") or []) or "none"
    console.print(f"descriptions: {d.get('description_coverage', 0.0):.0%} of nodes ({fields})",
                  markup=False, highlight=False)
    used = d.get("types_informative") or []
    shown = ", ".join(used[:8]) + (f" (+{len(used) - 8})" if len(used) > 8 else "")
    console.print(f"types used to restrict answers: {shown or 'none'}", markup=False, highlight=False,
                  soft_wrap=True)
    for name, why in list((d.get("types_not_informative") or {}).items())[:8]:
        console.print(f"  not used: {name!r} ({why})", markup=False, highlight=False, soft_wrap=True)

"""Relational requirements for synthesised queries (STaRK §2.4, step 1).

A :class:`RelationTemplate` is a metapath from a *target* node type to an *anchor* type,
e.g. ``product -has_brand-> brand``. Grounding it with an anchor node (the brand
"Radio Flyer") walks the CSR graph backwards from the anchor and gives the candidate
set (the products of that brand). Templates come from a user's JSON/YAML file
(:func:`load_templates`) or are discovered from the SKB's edges (:func:`discover_templates`:
metapaths of 1-3 hops whose grounded candidate sets are neither empty nor huge).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.kb.descriptive import descriptive_fields
from skbsearch.kb.schema import INVERSE_SUFFIX, inverse, split_direction
from skbsearch.kb.store import SKB

_PREPOSITIONS = ("by", "in", "of", "with", "to", "from", "at", "on", "for")


@dataclass(frozen=True)
class RelationTemplate:
    """A metapath from the target type to the anchor type.

    Attributes:
        target: the node type queries ask for.
        path: relations walked from a target node to the anchor (``r`` or ``r^-1``).
        types: node type after each step (the last is the anchor type); ``None`` where
            unknown (not filtered).
        phrase: how the requirement reads, with ``{anchor}`` for the anchor's name; the
            default is verbalised from the relation names.
    """

    target: str
    path: tuple[str, ...]
    types: tuple[str | None, ...] = ()
    phrase: str | None = None

    @property
    def anchor(self) -> str | None:
        """The anchor node type (``None``: any)."""
        return self.types[-1] if self.types else None

    @property
    def name(self) -> str:
        """A readable id: ``product -has_brand-> brand``."""
        parts = [self.target]
        for k, rel in enumerate(self.path):
            t = self.types[k] if k < len(self.types) else None
            parts.append(f"-{rel}-> {t or '*'}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the templates-file format)."""
        d: dict[str, Any] = {"target": self.target, "path": list(self.path)}
        if self.anchor:
            d["anchor"] = self.anchor
        if self.phrase:
            d["phrase"] = self.phrase
        return d


# ---------------------------------------------------------------------- schema walks
def type_steps(skb: SKB, min_share: float = 0.1) -> dict[str, list[tuple[str, str, int]]]:
    """Per node type: the steps ``(relation, reached type, edges)`` its nodes have.

    Both directions (``r`` and ``r^-1``); type pairs with fewer than ``min_share`` of a
    relation's edges (stray typing errors) are left out. Ordered for determinism.
    """
    codes = skb.node_type_codes.astype(np.int64)
    names = skb.type_names
    n_types = len(names)
    out: dict[str, list[tuple[str, str, int]]] = {t: [] for t in names}
    for r, rel in enumerate(skb.schema.relations):
        mask = skb.edge_rel == r
        total = int(mask.sum())
        if not total:
            continue
        key = codes[skb.edge_src[mask]] * n_types + codes[skb.edge_dst[mask]]
        pairs, counts = np.unique(key, return_counts=True)
        for pair, c in zip(pairs.tolist(), counts.tolist(), strict=True):
            if c < max(1.0, min_share * total):
                continue
            st, dt = names[pair // n_types], names[pair % n_types]
            out[st].append((rel, dt, c))
            out[dt].append((rel + INVERSE_SUFFIX, st, c))
    return {t: sorted(v) for t, v in out.items()}


def infer_types(skb: SKB, target: str, path: Sequence[str],
                steps: dict[str, list[tuple[str, str, int]]] | None = None) -> tuple[str | None, ...]:
    """The node type after each step of ``path`` when one type dominates, else ``None``."""
    steps = type_steps(skb) if steps is None else steps
    out: list[str | None] = []
    cur: str | None = target
    for rel in path:
        seen = sorted({t for r, t, _ in steps.get(cur, []) if r == rel}) if cur else []
        cur = seen[0] if len(seen) == 1 else None
        out.append(cur)
    return tuple(out)


def candidates(skb: SKB, template: RelationTemplate, anchors: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """Per anchor: target nodes whose ``template.path`` leads to it (sorted; anchor left out)."""
    graph = skb.graph
    codes = skb.node_type_codes
    names = skb.type_names
    back = [inverse(r) for r in reversed(template.path)]
    # Types reached walking back from the anchor: the intermediate ones, then the target.
    inner = list(template.types[:-1]) if template.types else [None] * (len(template.path) - 1)
    back_types = list(reversed(inner)) + [template.target]
    anchors = np.asarray(anchors, dtype=np.int64)
    groups: list[np.ndarray] = [np.array([a], dtype=np.int64) for a in anchors]
    for rel, t in zip(back, back_types, strict=True):
        groups = graph.follow_each(groups, [rel])
        if t is not None:
            code = names.index(t)
            groups = [g[codes[g] == code] for g in groups]
    return [g[g != a].astype(np.int32) for g, a in zip(groups, anchors, strict=True)]


def anchor_pool(skb: SKB, template: RelationTemplate) -> np.ndarray:
    """Nodes that can anchor ``template``: of its anchor type, with an edge of the last step."""
    last = template.path[-1]
    deg = skb.graph.degree(inverse(last), "out")
    pool = np.flatnonzero(deg > 0)
    if template.anchor is not None:
        pool = pool[skb.node_type_codes[pool] == skb.type_names.index(template.anchor)]
    return pool.astype(np.int32)


@dataclass
class GroundedTemplate:
    """A template with the anchors whose candidate sets have 1..max_answers nodes."""

    template: RelationTemplate
    anchors: np.ndarray
    probed: int
    sizes: list[int] = field(default_factory=list)

    @property
    def hops(self) -> int:
        """Number of relations walked."""
        return len(self.template.path)


def ground(skb: SKB, template: RelationTemplate, rng: np.random.Generator, *,
           max_answers: int = 20, probe: int = 300) -> GroundedTemplate:
    """Sample up to ``probe`` anchors and keep those with 1..``max_answers`` candidates."""
    pool = anchor_pool(skb, template)
    if len(pool) > probe:
        pool = np.sort(rng.choice(pool, probe, replace=False))
    if not len(pool):
        return GroundedTemplate(template, np.zeros(0, np.int32), 0)
    sizes = np.array([len(c) for c in candidates(skb, template, pool)])
    ok = (sizes >= 1) & (sizes <= max_answers)
    return GroundedTemplate(template, pool[ok], len(pool), sizes[ok].tolist())


def candidate_paths(steps: dict[str, list[tuple[str, str, int]]], targets: Sequence[str], max_hops: int,
                    max_paths: int, rng: np.random.Generator) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Metapaths from the target types, shortest first, at most ``max_paths``.

    Every one-hop path is listed (up to the bound); longer ones are sampled by extending
    random shorter ones, so a schema of hundreds of relations (10^5 three-hop paths a type)
    costs a bounded, seeded number of candidates. Back-and-forth steps (``r``, ``r^-1``,
    ``r``) are never proposed.
    """
    level: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
        (t, (rel,), (reached,)) for t in targets for rel, reached, _ in steps.get(t, [])]
    if len(level) > max_paths:
        level = [level[i] for i in sorted(rng.choice(len(level), max_paths, replace=False).tolist())]
    out = list(level)
    for hops in range(2, max_hops + 1):
        room = (max_paths - len(out)) // (max_hops - hops + 1)
        if room <= 0 or not level:
            break
        seen: set[tuple[str, tuple[str, ...]]] = set()
        nxt: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
        for _ in range(room * 4):  # bounded tries
            if len(nxt) >= room:
                break
            target, path, types = level[int(rng.integers(len(level)))]
            opts = [(r, t) for r, t, _ in steps.get(types[-1], [])
                    if not (len(path) >= 1 and r == inverse(path[-1]) and len(path) >= 2 and path[-2] == r)]
            if not opts:
                continue
            rel, reached = opts[int(rng.integers(len(opts)))]
            key = (target, (*path, rel))
            if key not in seen:
                seen.add(key)
                nxt.append((target, (*path, rel), (*types, reached)))
        out += nxt
        level = nxt
    return out


def discover_templates(skb: SKB, targets: Sequence[str], rng: np.random.Generator, *,
                       max_hops: int = 3, max_answers: int = 20, probe: int = 300,
                       min_valid: int = 3, max_paths: int = 300, time_budget: float | None = None,
                       progress: Callable[[str, int, int], None] | None = None,
                       ) -> list[GroundedTemplate]:
    """Metapaths of 1..``max_hops`` steps from each target type whose grounding works.

    A metapath is kept when at least ``min_valid`` probed anchors give 1..``max_answers``
    candidates (fewer when the anchor type has fewer nodes). At most ``max_paths``
    candidates are tried (:func:`candidate_paths`), shortest first, and grounding stops
    after ``time_budget`` seconds with the templates found so far.
    """
    steps = type_steps(skb)
    paths = candidate_paths(steps, targets, max_hops, max_paths, rng)
    out: list[GroundedTemplate] = []
    start = time.perf_counter()
    for k, (target, path, types) in enumerate(paths):
        if time_budget is not None and out and time.perf_counter() - start > time_budget:
            break
        g = ground(skb, RelationTemplate(target, path, types), rng, max_answers=max_answers, probe=probe)
        if len(g.anchors) >= min(min_valid, max(1, g.probed)):
            out.append(g)
        if progress:
            progress("grounding metapaths", k + 1, len(paths))
    return out


def default_targets(skb: SKB, cover: float = 0.5, most: int = 3) -> list[str]:
    """Target types when none are given: types whose nodes carry descriptive text (a
    description, not a label many nodes share), else the SKB's dominant types (the largest,
    until they hold ``cover`` of the nodes, at most ``most``)."""
    codes = skb.node_type_codes
    with_text: set[int] = set()
    for f in descriptive_fields(skb):  # shared labels (categories, tags) describe no node
        col = skb.nodes.column(f)
        valid = np.asarray(col.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        with_text.update(int(c) for c in np.unique(codes[valid]))
    if with_text:
        return [skb.type_names[c] for c in sorted(with_text)]
    counts = np.bincount(codes, minlength=len(skb.type_names))
    out: list[str] = []
    held = 0
    for c in np.argsort(-counts, kind="stable").tolist():
        if counts[c] == 0 or len(out) >= most or held >= cover * counts.sum():
            break
        out.append(skb.type_names[c])
        held += int(counts[c])
    return out


# ---------------------------------------------------------------------- templates file
def load_templates(path: str | Path, skb: SKB) -> list[RelationTemplate]:
    """Read templates from JSON or YAML: a list (or ``{"templates": [...]}``) of objects
    ``{"target": TYPE, "path": [REL, ...], "anchor": TYPE?, "phrase": "... {anchor}"?}``.

    ``path`` walks from a target node to the anchor; ``r^-1`` walks ``r`` backwards.
    """
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read the templates file: {e.strerror}", file=path) from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise MissingDependencyError("pyyaml", "llm", "YAML templates files") from None
        try:
            data = yaml.safe_load(raw)
        except yaml.YAMLError as e:
            raise InputError(f"not valid YAML ({e})", file=path) from None
    else:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InputError(f"not valid JSON ({e.msg})", file=path, line=e.lineno) from None
    if isinstance(data, dict):
        data = data.get("templates")
    if not isinstance(data, list) or not data:
        raise InputError('expected a non-empty list of templates (or {"templates": [...]})', file=path)
    steps = type_steps(skb)
    return [_template(entry, k, path, skb, steps) for k, entry in enumerate(data)]


def _template(entry: Any, k: int, path: Path, skb: SKB,
              steps: dict[str, list[tuple[str, str, int]]]) -> RelationTemplate:
    where = f"templates[{k}]"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object with 'target' and 'path'", file=path)
    target, rels = entry.get("target"), entry.get("path")
    if isinstance(rels, str):
        rels = [rels]
    if target not in skb.type_names:
        raise InputError(f"{where}: unknown target type {target!r}; types are {skb.type_names}",
                         file=path, field="target")
    if not isinstance(rels, list) or not rels or not all(isinstance(r, str) for r in rels):
        raise InputError(f"{where}: 'path' must be a non-empty list of relation names",
                         file=path, field="path")
    for r in rels:
        if split_direction(r)[0] not in skb.schema.relations:
            raise InputError(f"{where}: unknown relation {r!r}; relations are "
                             f"{skb.schema.relations} (add ^-1 to walk one backwards)",
                             file=path, field="path")
    types = list(infer_types(skb, target, rels, steps))
    anchor = entry.get("anchor")
    if anchor is not None:
        if anchor not in skb.type_names:
            raise InputError(f"{where}: unknown anchor type {anchor!r}; types are {skb.type_names}",
                             file=path, field="anchor")
        types[-1] = anchor
    phrase = entry.get("phrase")
    if phrase is not None and (not isinstance(phrase, str) or "{anchor}" not in phrase):
        raise InputError(f"{where}: 'phrase' must be a string containing {{anchor}}",
                         file=path, field="phrase")
    return RelationTemplate(str(target), tuple(rels), tuple(types), phrase)


# ---------------------------------------------------------------------- verbalising
_QUALIFIER = re.compile(r"\s*\([^()]*\)")
_RAW = re.compile(r"\S*[/.]\S*")


def relation_words(relation: str) -> str:
    """A relation name as words for a query: underscores to spaces, no parenthesised
    qualifier ("film (actor)" -> "film") and never a raw id ("/film/film/genre")."""
    label = _QUALIFIER.sub("", relation.replace("_", " "))
    label = _RAW.sub(lambda m: m.group(0).strip("/.").rsplit("/", 1)[-1].replace(".", " "), label)
    return " ".join(label.split()) or "related to"


def step_phrase(relation: str, obj: str) -> str:
    """One step in words: ``has_brand``, "Foxfield" -> "with brand Foxfield";
    ``directed_by^-1``, "Kismet" -> "that Kismet is directed by"."""
    base, inv = split_direction(relation)
    label = relation_words(base)
    words = label.split()
    if words and words[0] == "also" and len(words) > 1:  # also_bought: symmetric
        return f"{' '.join(words[1:])} together with {obj}"
    if not inv:
        if words and words[-1] in _PREPOSITIONS:
            return f"{label} {obj}"
        if words and words[0] == "in":
            return f"{label} {obj}"
        rest = " ".join(words[1:]) if words and words[0] in ("has", "have", "is") and len(words) > 1 else label
        return f"with {rest} {obj}"
    if words and words[-1] in _PREPOSITIONS:
        return f"that {obj} is {label}"
    rest = " ".join(words[1:]) if words and words[0] in ("has", "have", "is", "in") and len(words) > 1 else label
    return f"listed as {rest} of {obj}"


def shared_phrase(relation: str, shared_type: str | None, obj: str) -> str:
    """Two steps there and back (``r`` then ``r^-1``) in words: "directed by the same
    person as Kismet", "in the same country as Texas", "sharing genre with Alien"."""
    label = relation_words(split_direction(relation)[0])
    words = label.split()
    t = (shared_type or "node").replace("_", " ")
    if words and words[0] == "in" and len(words) > 1:
        return f"in the same {' '.join(words[1:])} as {obj}"
    direct = step_phrase(relation, "X")
    if direct.startswith("with "):
        return f"sharing {direct[5:-2]} with {obj}"
    return step_phrase(relation, f"the same {t} as {obj}")


def requirement_phrase(template: RelationTemplate, anchor_name: str) -> str:
    """The relational requirement in words, e.g. "with brand Foxfield" or, two hops,
    "directed by the same person as Kismet"."""
    if template.phrase:
        return template.phrase.replace("{anchor}", anchor_name)
    path, types = template.path, template.types
    obj = anchor_name
    k = len(path) - 1
    while k >= 0:
        fwd = not split_direction(path[k - 1])[1] if k >= 1 else False
        if k >= 1 and fwd and path[k] == inverse(path[k - 1]):
            obj = shared_phrase(path[k - 1], types[k - 1] if len(types) >= k else None, obj)
            k -= 2
        else:
            obj = step_phrase(path[k], obj)
            k -= 1
        if k >= 0:
            t = (types[k] if len(types) > k else None) or "node"
            obj = f"{article(t)} {t.replace('_', ' ')} {obj}"
    return obj


def article(word: str) -> str:
    """"a" or "an" for ``word``."""
    return "an" if word[:1].lower() in "aeiou" else "a"

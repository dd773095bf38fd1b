"""Node types for a KG that ships none, from the relations' domain and range signatures.

1. **Bases.** Every (relation, direction) position is a base type: the heads of a path
   relation (``/domain/type/property``) belong to the type its path names (all
   ``/x/film/*`` heads form one base, ``film``); any other position is a base of its own,
   named after its relation (a tail position by the noun its text names: ``place of
   birth`` -> ``place``).
2. **Generic bases** (``/common/topic``-like: many entities, each with far more triples
   elsewhere) are those that are the main position of under 5 % of their entities; they
   never absorb other bases and type an entity only when it has nothing else.
3. **Merge, most specific into most general.** Smallest first, a base whose entities lie
   (80 % or more) inside a larger non-generic base joins it; chains settle on the
   largest container (``actor`` -> ``award nominee`` -> ``person``). A cluster is named
   after its largest path-named member, else its largest tail member with a noun name,
   else its root.
4. **Per entity**, positions as a head count before positions as a tail (a node that
   heads ``/film/film/directed_by`` is a film), non-generic before generic; among those,
   the cluster holding most of the entity's triples wins (ties: the larger cluster).

5. **Names** of types no path names are read off the relation texts
   (:mod:`~skbsearch.kb.loaders.kg_type_names`: role nouns, else the most distinctive
   relation position: ``citizen``, ``thing with gender``).

The finer path-named bases an entity belongs to are kept as its ``categories`` (``person;
actor; award winner``), so a search for "an actor" still sees them. Nothing here names a
particular KG's types or relations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.loaders.kg_names import noun_of, path_type
from skbsearch.kb.loaders.kg_type_names import readable_type_names

CONTAINMENT = 0.8
GENERIC_SHARE = 0.05


def _unique_counts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique values and their counts by sort + mask (``np.unique`` on numpy >= 2.3
    takes a hash path that is several times slower on tens of millions of ints)."""
    s = np.sort(a)
    if not len(s):
        return s, np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    return s[starts], np.diff(np.r_[starts, len(s)])


@dataclass
class _Bases:
    names: list[str]
    labelled: np.ndarray  # named by a path
    head: np.ndarray  # a head position (else a tail position)
    of_head: np.ndarray  # relation -> base of its heads
    of_tail: np.ndarray  # relation -> base of its tails


def _bases(rel_ids: Sequence[str], rel_names: Sequence[str]) -> _Bases:
    names: list[str] = []
    labelled: list[bool] = []
    head: list[bool] = []
    by_label: dict[str, int] = {}
    of_head = np.zeros(len(rel_ids), np.int64)
    of_tail = np.zeros(len(rel_ids), np.int64)

    def new(name: str, is_labelled: bool, is_head: bool) -> int:
        names.append(name)
        labelled.append(is_labelled)
        head.append(is_head)
        return len(names) - 1

    for i, (rid, rname) in enumerate(zip(rel_ids, rel_names, strict=True)):
        label = path_type(rid)
        if label:
            if label not in by_label:
                by_label[label] = new(label, True, True)
            of_head[i] = by_label[label]
        else:
            of_head[i] = new(f"{rname} (subject)", False, True)
    for i, rname in enumerate(rel_names):
        plain = rname.split(" (")[0]  # without the qualifier that keeps relation names unique
        noun = noun_of(plain)
        of_tail[i] = new(noun if noun else f"{plain} (object)", False, False)
    return _Bases(names, np.array(labelled, bool), np.array(head, bool), of_head, of_tail)


def _root(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        x = int(parent[x])
    return x


def _merge(size: np.ndarray, inter: np.ndarray, generic: np.ndarray) -> np.ndarray:
    """Root base of every base after merging specific bases into general ones."""
    n = len(size)
    parent = np.arange(n)
    for a in np.argsort(size, kind="stable"):
        if size[a] == 0:
            continue
        ok = (~generic) & (inter[a] >= CONTAINMENT * size[a]) & (
            (size > size[a]) | ((size == size[a]) & (np.arange(n) > a)))
        ok[a] = False
        if ok.any():
            cand = np.flatnonzero(ok)
            parent[a] = cand[np.argmax(size[cand])]
    return np.array([_root(parent, i) for i in range(n)], dtype=np.int64)  # int64 when n == 0 too


def _cluster_names(b: _Bases, root: np.ndarray, size: np.ndarray) -> list[str]:
    names = list(b.names)
    for r in np.unique(root):
        members = np.flatnonzero(root == r)
        lab = members[b.labelled[members]]
        if len(lab):
            names[r] = b.names[lab[np.argmax(size[lab])]]
    return names


def _first_per_entity(e: np.ndarray, keys: list[np.ndarray]) -> np.ndarray:
    """Positions (into e) of the first row per entity after sorting by ``keys`` (last primary)."""
    order = np.lexsort([*keys, e])
    es = e[order]
    first = np.r_[True, es[1:] != es[:-1]] if len(es) else np.zeros(0, bool)
    return order[first]


def _head_types(b: _Bases, h: np.ndarray, r: np.ndarray, n_ent: int):
    """Clusters of head bases and, per entity that heads a triple, its cluster (-1: none)."""
    nb = len(b.names)
    pairs, counts = _unique_counts(h.astype(np.int64) * nb + b.of_head[r])
    pe, pb = pairs // nb, pairs % nb
    del pairs
    size = np.bincount(pb, minlength=nb)
    m = sp.csr_matrix((np.ones(len(pe), np.float32), (pb, pe)), shape=(nb, n_ent))
    inter = (m @ m.T).toarray()
    del m
    main = _first_per_entity(pe, [size[pb], -counts])
    share = np.bincount(pb[main], minlength=nb) / np.maximum(size, 1)
    generic = (share < GENERIC_SHARE) & (size > 0)
    root = _merge(size, inter, generic)
    tier = np.where(generic[pb], 0, 1)
    best_tier = np.full(n_ent, -1)
    np.maximum.at(best_tier, pe, tier)
    keep = tier == best_tier[pe]
    agg, inv = np.unique(pe[keep] * nb + root[pb[keep]], return_inverse=True)
    score = np.bincount(inv, weights=counts[keep])
    ae, ar = agg // nb, agg % nb
    clsize = np.bincount(root, weights=size, minlength=nb)
    pick = _first_per_entity(ae, [-clsize[ar], -score])
    cluster = np.full(n_ent, -1, np.int64)
    cluster[ae[pick]] = ar[pick]
    return cluster, root, size, generic, pe, pb


def _range_types(b: _Bases, r: np.ndarray, t: np.ndarray, cluster: np.ndarray, n_rel: int) -> np.ndarray:
    """Per relation, the cluster most of its typed tails belong to (-1 where none is typed)."""
    nb = len(b.names)
    ct = cluster[t]
    typed = ct >= 0
    pairs, counts = _unique_counts(r[typed].astype(np.int64) * nb + ct[typed])
    pr, pc = pairs // nb, pairs % nb
    out = np.full(n_rel, -1, np.int64)
    pick = _first_per_entity(pr, [-counts])
    out[pr[pick]] = pc[pick]
    return out


def infer_types(h: np.ndarray, r: np.ndarray, t: np.ndarray, n_ent: int, rel_ids: Sequence[str],
                rel_names: Sequence[str]) -> tuple[list[str], np.ndarray, list[str | None] | None]:
    """``(type names, per-entity type code, per-entity categories or None)``; see the module
    docstring."""
    b = _bases(rel_ids, rel_names)
    nb, n_rel = len(b.names), len(rel_ids)
    cluster, root, size, generic, pe, pb = _head_types(b, h, r, n_ent)
    names = _cluster_names(b, root, size)
    rng = _range_types(b, r, t, cluster, n_rel)
    # tail-only entities: the range type of the relations they are tails of (by count)
    tail_only = cluster[t] < 0
    label = np.where(rng[r[tail_only]] >= 0, rng[r[tail_only]], nb + b.of_tail[r[tail_only]])
    te = t[tail_only].astype(np.int64)
    width = 2 * nb + 1
    pairs, counts = _unique_counts(te * width + label)
    ee, ll = pairs // width, pairs % width
    pick = _first_per_entity(ee, [-counts])
    cluster[ee[pick]] = ll[pick]
    all_names = names + [b.names[i] for i in range(nb)]
    type_names = sorted({all_names[c] for c in unique_sorted(cluster).tolist() if c >= 0})
    code_of = {nm: i for i, nm in enumerate(type_names)}
    lookup = np.array([code_of.get(nm, -1) for nm in all_names], np.int64)
    node_type = np.where(cluster >= 0, lookup[np.maximum(cluster, 0)], -1)
    if (node_type < 0).any():
        type_names.append("entity")
        node_type[node_type < 0] = len(type_names) - 1
    keep = {b.names[i] for i in np.flatnonzero(b.labelled)} | {"entity"}
    if any(nm not in keep for nm in type_names):
        type_names = readable_type_names(type_names, node_type, h, r, t, rel_names, keep)
    return type_names, node_type, _categories(b, pe, pb, generic, size, n_ent)


def _categories(b: _Bases, pe: np.ndarray, pb: np.ndarray, generic: np.ndarray, size: np.ndarray,
                n_ent: int) -> list[str | None] | None:
    """Per entity, its non-generic path-named bases, largest first ('; '-joined)."""
    sel = b.labelled[pb] & ~generic[pb]
    if not sel.any():
        return None
    e, x = pe[sel], pb[sel]
    order = np.lexsort((-size[x], e))
    e, x = e[order], x[order]
    out: list[str | None] = [None] * n_ent
    bounds = np.flatnonzero(np.r_[True, e[1:] != e[:-1], True])
    for s, f in zip(bounds[:-1], bounds[1:], strict=True):
        out[int(e[s])] = "; ".join(b.names[int(k)] for k in x[s:f])
    return out


def typing_relation(h: np.ndarray, r: np.ndarray, t: np.ndarray, n_ent: int, n_rel: int) -> int | None:
    """The relation that states what kind of thing its heads are (Wikidata's ``instance of``),
    found by its shape alone, or None: it covers at least half of the entities as heads, has
    at least 10 distinct tails (unlike a gender), each head has at most 2 tails on average,
    and its tails are few next to its heads (at most 5 %): classes, not peers."""
    if not len(h):
        return None
    pairs = unique_sorted(r.astype(np.int64) * n_ent + h)
    heads = np.bincount(pairs // n_ent, minlength=n_rel)
    pairs = unique_sorted(r.astype(np.int64) * n_ent + t)
    tails = np.bincount(pairs // n_ent, minlength=n_rel)
    triples = np.bincount(r, minlength=n_rel)
    ok = ((heads >= 0.5 * n_ent) & (tails >= 10) & (triples <= 2 * np.maximum(heads, 1))
          & (tails <= 0.05 * heads))
    return int(np.argmax(np.where(ok, heads, -1))) if ok.any() else None


def class_types(h: np.ndarray, r: np.ndarray, t: np.ndarray, rel: int, n_ent: int) -> np.ndarray:
    """Per entity, its class under the typing relation ``rel`` (the most common of its
    classes over the whole KG), or -1."""
    sel = r == rel
    hh, tt = h[sel].astype(np.int64), t[sel].astype(np.int64)
    freq = np.bincount(tt, minlength=n_ent)
    out = np.full(n_ent, -1, np.int64)
    if len(hh):
        pick = _first_per_entity(hh, [-freq[tt]])
        out[hh[pick]] = tt[pick]
    return out

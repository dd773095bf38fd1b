"""Triples (``head<TAB>relation<TAB>tail`` a line) -> SKB, with node types inferred.

Every distinct entity string becomes a node (id = name = the string) and every triple an
edge ``head -relation-> tail``. Exact duplicate triples are dropped (counted in
``meta["duplicates_dropped"]``).

Node types come from the (relation, role) positions an entity occupies:

1. Each position gets a type. With a ``types`` mapping (relation -> ``[head_type,
   tail_type]``, e.g. :data:`METAQA_TYPES`) it is the mapped type. Otherwise, and for
   relations the mapping lacks, relations of one role whose entity sets overlap (in at
   least half of the smaller set, and in at least 3 entities) form a group; a head
   group is named ``"<relation>.head"`` and a tail group ``"<relation>"`` after its
   relation with the most triples (so tails of ``directed_by`` get type ``directed_by``).
2. An entity that is the head of any triple takes its most frequent head type; an
   entity that is only ever a tail takes its most frequent tail type. Positions of
   mapped relations count before the others (a mapped head type beats an inferred
   one). Ties go to the type met first (mapping order, then relation order in the
   file). Entities whose positions disagree are counted in ``meta["type_conflicts"]``
   (50 in MetaQA's kb.tsv with :data:`METAQA_TYPES`: films titled "1981", "Western"...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.lines import iter_lines
from skbsearch.kb.loaders.kg_read import read_json
from skbsearch.kb.store import SKB

#: Node types for MetaQA's WikiMovies KB (``kb.tsv``): relation -> (head type, tail type).
METAQA_TYPES: dict[str, tuple[str, str]] = {
    "directed_by": ("movie", "person"),
    "written_by": ("movie", "person"),
    "starred_actors": ("movie", "person"),
    "release_year": ("movie", "year"),
    "in_language": ("movie", "language"),
    "has_tags": ("movie", "tag"),
    "has_genre": ("movie", "genre"),
    "has_imdb_votes": ("movie", "votes"),
    "has_imdb_rating": ("movie", "rating"),
}

#: Named built-in type mappings (CLI: ``--types metaqa``).
BUILTIN_TYPES: dict[str, dict[str, tuple[str, str]]] = {"metaqa": METAQA_TYPES}

_COLUMNS = ("head", "relation", "tail")


def read_types(spec: str | Path | Mapping[str, Sequence[str]]) -> dict[str, tuple[str, str]]:
    """A relation -> (head type, tail type) mapping from a dict, a built-in name or a JSON file."""
    file: str | None = None
    if isinstance(spec, Mapping):
        raw: object = spec
    elif str(spec) in BUILTIN_TYPES:
        return dict(BUILTIN_TYPES[str(spec)])
    else:
        file = str(spec)
        path = Path(spec)
        if not path.is_file():
            raise InputError(
                f"types mapping not found; give a JSON file or one of {sorted(BUILTIN_TYPES)}",
                file=file,
            )
        raw = read_json(path)
    if not isinstance(raw, Mapping):
        raise InputError('types must be a JSON object {"relation": ["head_type", "tail_type"]}', file=file)
    out: dict[str, tuple[str, str]] = {}
    for rel, pair in raw.items():
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, str) and x for x in pair)
        if not ok:
            raise InputError(
                f'expected ["head_type", "tail_type"], got {pair!r}', file=file, field=str(rel)
            )
        out[str(rel)] = (pair[0], pair[1])
    return out


def _read(path: Path, delimiter: str) -> tuple[list[str], list[str], list[str], list[int]]:
    file = str(path)
    heads: list[str] = []
    rels: list[str] = []
    tails: list[str] = []
    lines: list[int] = []
    for ln, raw in iter_lines(path):
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason})", file=file, line=ln) from None
        if not line.strip():
            continue
        parts = line.split(delimiter)
        if len(parts) != 3:
            field = _COLUMNS[len(parts)] if len(parts) < 3 else "tail"
            raise InputError(
                f"expected 3 {'tab' if delimiter == chr(9) else repr(delimiter)}-separated "
                f"columns (head, relation, tail), found {len(parts)}",
                file=file,
                line=ln,
                field=field,
            )
        for col, val in zip(_COLUMNS, parts, strict=True):
            if not val.strip():
                raise InputError(f"empty {col}", file=file, line=ln, field=col)
        if parts[1].endswith("^-1"):
            raise InputError(
                "'^-1' is reserved for walking a relation backwards", file=file, line=ln, field="relation"
            )
        heads.append(parts[0])
        rels.append(parts[1])
        tails.append(parts[2])
        lines.append(ln)
    return heads, rels, tails, lines


def _factorize(values: Sequence[str], index: dict[str, int]) -> np.ndarray:
    return np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values))


def _group_names(ent: np.ndarray, rel: np.ndarray, n_rel: int, rel_names: list[str], suffix: str) -> list[str]:
    """Per relation, the type name of its group (relations with overlapping entity sets)."""
    sets = [set(np.unique(ent[rel == r]).tolist()) for r in range(n_rel)]
    sizes = np.bincount(rel, minlength=n_rel)
    parent = list(range(n_rel))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a in range(n_rel):
        for b in range(a + 1, n_rel):
            small = min(len(sets[a]), len(sets[b]))
            shared = len(sets[a] & sets[b])
            if shared >= 3 and shared * 2 >= small:
                parent[find(a)] = find(b)
    best: dict[int, int] = {}
    for r in range(n_rel):
        g = find(r)
        if g not in best or sizes[r] > sizes[best[g]]:
            best[g] = r
    return [rel_names[best[find(r)]] + suffix for r in range(n_rel)]


def _top_type(ent: np.ndarray, code: np.ndarray, n_ent: int, n_types: int) -> tuple[np.ndarray, np.ndarray]:
    """Most frequent code per entity (ties: lowest code; -1 where absent) and #codes seen."""
    key = ent * n_types + code
    uk, cnt = np.unique(key, return_counts=True)
    e, c = uk // n_types, uk % n_types
    order = np.lexsort((c, -cnt, e))
    e, c = e[order], c[order]
    first = np.r_[True, e[1:] != e[:-1]] if len(e) else np.zeros(0, bool)
    out = np.full(n_ent, -1, np.int64)
    out[e[first]] = c[first]
    return out, np.bincount(e, minlength=n_ent)


def load_triples(
    path: str | Path,
    *,
    types: str | Path | Mapping[str, Sequence[str]] | None = None,
    delimiter: str = "\t",
    dedupe: bool = True,
) -> SKB:
    """Load a triples file (``head<TAB>relation<TAB>tail``) into an SKB.

    Args:
        path: the triples file (e.g. MetaQA's ``kb.tsv``).
        types: relation -> ``[head_type, tail_type]`` (a dict, a JSON file, or a built-in
            name such as ``"metaqa"``); see the module docstring for the rule without it.
        delimiter: column separator.
        dedupe: drop exact duplicate triples.

    Raises:
        InputError: naming file, line and column for a line without three columns, an
            empty column, or a bad types mapping.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("triples file not found", file=path)
    mapping = read_types(types) if types is not None else {}
    heads, rels, tails, lines = _read(path, delimiter)
    ent_index: dict[str, int] = {}
    rel_index: dict[str, int] = {}
    h = _factorize(heads, ent_index)
    t = _factorize(tails, ent_index)
    r = _factorize(rels, rel_index)
    n_ent, n_rel = len(ent_index), len(rel_index)
    rel_names = list(rel_index)
    n_dup = 0
    if dedupe and len(h):
        key = (h * max(n_rel, 1) + r) * max(n_ent, 1) + t
        _, first = np.unique(key, return_index=True)
        keep = np.sort(first)
        n_dup = len(h) - len(keep)
        h, r, t = h[keep], r[keep], t[keep]
    mapped = np.array([rel in mapping for rel in rel_names], dtype=bool)
    free = ~mapped[r] if n_rel else np.zeros(0, bool)
    head_names = _group_names(h[free], r[free], n_rel, rel_names, ".head")
    tail_names = _group_names(t[free], r[free], n_rel, rel_names, "")
    for i, rel in enumerate(rel_names):
        if rel in mapping:
            head_names[i], tail_names[i] = mapping[rel]
    type_list: list[str] = []
    for pair in list(mapping.values()) + list(zip(head_names, tail_names, strict=True)):
        for name in pair:
            if name not in type_list:
                type_list.append(name)
    code = {name: i for i, name in enumerate(type_list)}
    hc = np.array([code[x] for x in head_names], np.int64)[r] if n_rel else np.zeros(0, np.int64)
    tc = np.array([code[x] for x in tail_names], np.int64)[r] if n_rel else np.zeros(0, np.int64)
    n_types = max(len(type_list), 1)
    node_type = np.full(n_ent, -1, np.int64)
    # priority: mapped head, other head, mapped tail, other tail positions
    for ent, codes, sel in ((h, hc, ~free), (h, hc, free), (t, tc, ~free), (t, tc, free)):
        best, _ = _top_type(ent[sel], codes[sel], n_ent, n_types)
        node_type = np.where(node_type >= 0, node_type, best)
    _, n_seen = _top_type(np.concatenate([h, t]), np.concatenate([hc, tc]), n_ent, n_types)
    ids = list(ent_index)
    types_arr = np.array(type_list, dtype=object)[node_type]
    unused = [rel for rel in mapping if rel not in rel_index]
    meta = {
        "source": {"format": "triples", "path": str(path), "types": str(types) if isinstance(types, (str, Path)) else None},
        "lines": len(lines),
        "duplicates_dropped": int(n_dup),
        "type_conflicts": int(np.count_nonzero(n_seen > 1)),
        "untyped_relations": [rel for rel in rel_names if mapping and rel not in mapping],
        "unused_type_mappings": unused,
    }
    return SKB.from_columns(
        ids,
        types_arr.tolist(),
        ids,
        edges=(h, r, t),
        relations=rel_names,
        meta=meta,
    )

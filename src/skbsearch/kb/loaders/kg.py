"""The public KG layout (split triple files + entity and relation texts) -> SKB.

All split files together form the KB (``train`` + ``valid``/``dev`` + ``test``; exact
duplicate triples dropped). Every entity in a triple becomes a node: its name from the
names file (else from its id, see :func:`kg_names.entity_name`), its description (a
``description`` text field) and aliases when the files have them; a names column whose
values are ``name, definition`` is split into the two (:mod:`kg_name_split`). A relation shaped like
Wikidata's ``instance of`` (:func:`kg_types.typing_relation`) types its heads by their
class's name. Relations get readable
names (:mod:`kg_names`); the raw ids and texts are kept in ``meta["relation_ids"]`` and
``meta["relation_texts"]``. Node types come from a ``types`` file (``id<TAB>type``) where
it has the node, else are inferred (:mod:`kg_types`).

Triples are read a block at a time into int32 code arrays (:mod:`kg_read`), so a
Wikidata5M-sized graph (4.6M entities, 21M triples) loads in a few GB.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders.kg_files import KGFiles, find_kg_files
from skbsearch.kb.loaders.kg_name_split import split_names as _split_names
from skbsearch.kb.loaders.kg_names import clean_text, entity_name, relation_names
from skbsearch.kb.loaders.kg_read import (
    Codes,
    read_columns,
    read_json_texts,
    read_json_values,
    read_triples,
)
from skbsearch.kb.loaders.kg_texts import entity_columns
from skbsearch.kb.loaders.kg_types import class_types, infer_types, typing_relation
from skbsearch.kb.store import SKB

MAX_RELATIONS = 32767  # relation codes are int16


def _dedupe(h: np.ndarray, r: np.ndarray, t: np.ndarray, n_ent: int, n_rel: int):
    key = (h.astype(np.int64) * max(n_rel, 1) + r) * max(n_ent, 1) + t
    _, first = np.unique(key, return_index=True)
    del key
    keep = np.sort(first)
    return h[keep], r[keep], t[keep], int(len(h) - len(keep))


def _relation_texts(path: Path | None, ids: list[str]) -> list[str | None]:
    if path is None:
        return [None] * len(ids)
    found: dict[str, str] = {}
    if path.suffix.lower() == ".json":
        found = {k: v["label"] for k, v in read_json_texts(path).items() if "label" in v}
    else:
        for _, parts in read_columns(path):
            found.setdefault(parts[0], clean_text(parts[1]))
    return [found.get(i) or None for i in ids]


def _listed_types(files: KGFiles, index: dict[str, int]) -> dict[int, str]:
    """Types from CoDEx-style ``entity2types.json`` + ``types.json``: per entity, the label of
    its type with the most entities (so an entity's several types give one consistent type)."""
    if files.entity_types is None:
        return {}
    raw = read_json_values(files.entity_types)
    labels = {k: v.get("label", k) for k, v in read_json_texts(files.type_labels).items()} \
        if files.type_labels is not None else {}
    size: dict[str, int] = {}
    for tps in raw.values():
        for tp in tps:
            size[tp] = size.get(tp, 0) + 1
    out: dict[int, str] = {}
    for eid, tps in raw.items():
        i = index.get(eid)
        if i is not None and tps:
            best = max(tps, key=lambda x: size[x])
            out[i] = labels.get(best, best)
    return out


def read_type_file(path: str | Path) -> dict[str, str]:
    """``id<TAB>type`` lines -> ``{id: type}`` (the ``--types`` file of the kg format)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("types file not found; give a file of id<TAB>type lines", file=path)
    out: dict[str, str] = {}
    for ln, parts in read_columns(path):
        if len(parts) != 2 or not parts[1].strip():
            raise InputError(f"expected 2 tab-separated columns (id, type), found {len(parts)}",
                             file=path, line=ln, field="type")
        out.setdefault(parts[0], parts[1].strip())
    return out


def _split_name_column(cols: dict[str, Any], mode: str) -> dict[str, Any]:
    """Split a names column of ``name SEP text`` values (:mod:`kg_name_split`) in place: the
    text becomes the description where the node has none. Returns ``meta["names_split"]``."""
    if "name" not in cols:
        return {"mode": mode, "separator": None, "split": 0, "names": 0}
    names, texts, done = _split_names(cols["name"], mode)
    if texts is not None:
        cols["name"] = names
        cols["description"] = pc.coalesce(cols["description"], texts) if "description" in cols else texts
    return done.as_meta()


def load_kg(path: str | Path, *, types: str | Path | None = None, dedupe: bool = True,
            split_names: str = "auto", progress: Callable[[int], Any] | None = None) -> SKB:
    """Load a KG directory in the public layout (see the module docstring).

    Args:
        path: the directory (``train.tsv``/``valid.txt``/... beside name and text files).
        types: a file of ``id<TAB>type`` lines; listed nodes take that type.
        dedupe: drop exact duplicate triples.
        split_names: a names column of ``name, text`` values: ``"auto"`` detects and splits
            it (:mod:`kg_name_split`), ``"no"`` keeps whole values as names, any other value
            is the separator to split at.
        progress: called with the number of triples of each block read.

    Raises:
        InputError: naming file, line and field for a bad line of any file.
    """
    d = Path(path)
    if not d.is_dir():
        raise InputError("the kg format reads a directory of split triple files", file=d)
    files = find_kg_files(d)
    if not files.splits:
        raise InputError("no triple files here (train/valid/dev/test/triples .tsv or .txt)", file=d)
    given = read_type_file(types) if types is not None else {}
    ents, rels = Codes(), Codes()
    h, r, t, n_lines = read_triples(files.splits, ents, rels, progress)
    rel_ids, n = rels.ids(), len(ents.index)
    if len(rel_ids) > MAX_RELATIONS:
        raise InputError(f"{len(rel_ids)} relations; at most {MAX_RELATIONS} are supported", file=d)
    n_dup = 0
    if dedupe and len(h):
        h, r, t, n_dup = _dedupe(h, r, t, n, len(rel_ids))
    texts = _relation_texts(files.relations, rel_ids)
    names = relation_names(rel_ids, texts)
    ids = ents.ids()
    cols, n_unused = entity_columns(files, ids)
    names_split = _split_name_column(cols, split_names)
    type_names, codes, categories = infer_types(h, r, t, n, rel_ids, names)
    node_types = np.array(type_names, dtype=object)[codes]
    display = cols.pop("name").to_pylist() if "name" in cols else [None] * n
    node_names = [v if v is not None else entity_name(i) for i, v in zip(ids, display, strict=True)]
    del display
    typing = typing_relation(h, r, t, n, len(rel_ids))
    if typing is not None:  # "instance of": a node's class names its type
        cls = class_types(h, r, t, typing, n)
        for i in np.flatnonzero(cls >= 0).tolist():
            node_types[i] = node_names[cls[i]]
    listed = _listed_types(files, ents.index)
    for i, tp in listed.items():
        node_types[i] = tp
    n_given = 0
    for eid, tp in given.items():
        row = ents.index.get(eid)
        if row is not None:
            node_types[row] = tp
            n_given += 1
    del ents
    fields = dict(cols)
    if categories is not None:
        fields["categories"] = categories
    meta = {
        "source": {"format": "kg", "path": str(d), "files": [str(p) for p in files.all()],
                   "types": str(types) if types is not None else None},
        "lines": n_lines,
        "duplicates_dropped": n_dup,
        "relation_ids": dict(zip(names, rel_ids, strict=True)),
        "relation_texts": {nm: tx for nm, tx in zip(names, texts, strict=True) if tx},
        "named_entities_without_triples": n_unused,
        "names_split": names_split,
        "types_given": n_given,
        "typing_relation": names[typing] if typing is not None else None,
        "types_from_type_files": len(listed),
        "types_file_unknown_ids": len(given) - n_given,
    }
    return SKB.from_columns(ids, node_types.tolist(), node_names, fields=fields,
                            edges=(h, r.astype(np.int16), t), relations=names, meta=meta)

"""Which files of a directory make a knowledge graph in the layout public KGs ship in.

FB15k-237, WN18RR, CoDEx, YAGO3-10 and Wikidata5M all ship split triple files
(``head<TAB>relation<TAB>tail``) with, beside them, entity names and descriptions by id
and relation texts by id. The file names vary; these are recognised (case-insensitive):

==============  ==========================================================================
role            names
==============  ==========================================================================
splits          ``train`` / ``valid`` / ``dev`` / ``test`` / ``triples`` (``.tsv``,
                ``.txt``), also with a prefix (``wikidata5m_transductive_train.txt``)
names           ``entities.tsv`` (id, name[, description]), ``entity2text.txt``,
                ``entity2label.txt``, ``entity2name.txt``, ``*_entity.txt`` (id, aliases…:
                the first is the name, the others become the ``aliases`` field),
                ``entities.json`` (CoDEx: ``{id: {"label", "description"}}``)
descriptions    ``entity2textlong.txt``, ``entity2description.txt``, ``*_text.txt``
relation texts  ``relations.tsv``, ``relation2text.txt``, ``*_relation.txt``,
                ``relations.json``
entity types    ``entity2types.json`` (CoDEx: ``{id: [type id, …]}``) with ``types.json``
                (``{type id: {"label": …}}``)
==============  ==========================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_SPLIT = re.compile(r"^(?:.*[_\-.])?(train|valid|validation|dev|test|triples)\.(tsv|txt)$", re.I)
_SPLIT_ORDER = {"train": 0, "triples": 0, "valid": 1, "validation": 1, "dev": 1, "test": 2}
_NAMES = ("entities.tsv", "entity2text.txt", "entity2label.txt", "entity2name.txt",
          "entity_names.txt", "entities.txt", "entities.json")
_DESCRIPTIONS = ("entity2textlong.txt", "entity2description.txt", "entity_descriptions.txt")
_RELATIONS = ("relations.tsv", "relation2text.txt", "relation2label.txt", "relations.txt",
              "relations.json")


@dataclass
class KGFiles:
    """The files of one KG directory, by role (``None`` where the directory has none)."""

    directory: Path
    splits: list[Path] = field(default_factory=list)
    names: Path | None = None
    descriptions: Path | None = None
    relations: Path | None = None
    entity_types: Path | None = None
    type_labels: Path | None = None

    def all(self) -> list[Path]:
        """Every file read (for provenance and the 'never overwrite an input' check)."""
        return [p for p in (*self.splits, self.names, self.descriptions, self.relations,
                            self.entity_types, self.type_labels) if p]


def _pick(files: dict[str, Path], exact: tuple[str, ...], suffix: str | None) -> Path | None:
    for name in exact:
        if name in files:
            return files[name]
    if suffix:
        hits = sorted(n for n in files if n.endswith(suffix))
        if hits:
            return files[hits[0]]
    return None


def split_files(directory: Path) -> list[Path]:
    """The triple files of ``directory``, train first, then valid/dev, then test."""
    found = []
    for p in directory.iterdir():
        m = _SPLIT.match(p.name)
        if m and p.is_file():
            found.append((_SPLIT_ORDER[m.group(1).lower()], p.name, p))
    return [p for _, _, p in sorted(found)]


def looks_like_kg(directory: str | Path) -> bool:
    """Whether ``directory`` holds split triple files (the public KG layout)."""
    d = Path(directory)
    return d.is_dir() and bool(split_files(d))


def find_kg_files(directory: str | Path) -> KGFiles:
    """The files of the KG in ``directory`` (see the module docstring)."""
    d = Path(directory)
    files = {p.name.lower(): p for p in d.iterdir() if p.is_file()}
    return KGFiles(
        directory=d,
        splits=split_files(d),
        names=_pick(files, _NAMES, "_entity.txt"),
        descriptions=_pick(files, _DESCRIPTIONS, "_text.txt"),
        relations=_pick(files, _RELATIONS, "_relation.txt"),
        entity_types=_pick(files, ("entity2types.json",), None),
        type_labels=_pick(files, ("types.json",), None),
    )

"""The SKB schema: node types, relations (directed, traversable backwards), fields."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Columns every ``nodes.parquet`` has; text fields and attributes may not use these names.
RESERVED_COLUMNS = ("id", "type", "name")

#: Suffix that names the inverse direction of a relation: ``starred_actors^-1``.
INVERSE_SUFFIX = "^-1"


def inverse(relation: str) -> str:
    """The name of the opposite direction of ``relation`` (``r`` <-> ``r^-1``)."""
    if relation.endswith(INVERSE_SUFFIX):
        return relation[: -len(INVERSE_SUFFIX)]
    return relation + INVERSE_SUFFIX


def split_direction(relation: str) -> tuple[str, bool]:
    """``("r", False)`` for ``r`` and ``("r", True)`` for ``r^-1``."""
    if relation.endswith(INVERSE_SUFFIX):
        return relation[: -len(INVERSE_SUFFIX)], True
    return relation, False


@dataclass
class Schema:
    """What kinds of things an SKB holds.

    Attributes:
        node_types: the node type names.
        relations: the relation names (each directed; ``r^-1`` walks it backwards).
        text_fields: node columns holding text (title, description, reviews, ...).
        attributes: scalar node columns and their Arrow type names (price: double, ...).
        relation_roles: for each relation, the (source type, target type) seen, if unique.
    """

    node_types: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    text_fields: list[str] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)
    relation_roles: dict[str, list[str | None]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stored in ``meta.json``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Schema:
        """Inverse of :meth:`to_dict`."""
        return cls(
            node_types=list(d.get("node_types", [])),
            relations=list(d.get("relations", [])),
            text_fields=list(d.get("text_fields", [])),
            attributes=dict(d.get("attributes", {})),
            relation_roles={k: list(v) for k, v in d.get("relation_roles", {}).items()},
        )


@dataclass
class Node:
    """One node as the API shows it: string id, type, name, text fields, attributes."""

    id: str
    type: str
    name: str
    fields: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)

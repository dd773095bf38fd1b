"""Row-wise SKB construction with validation that names file, line and field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.kb.schema import RESERVED_COLUMNS
from skbsearch.kb.store import SKB

Location = tuple[str | None, int | None]

#: The range of integer attributes (stored as Arrow int64).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class SKBBuilder:
    """Collect nodes and edges one at a time, then :meth:`build` an :class:`SKB`.

    Duplicate node ids fail at once; edges may name nodes defined later and are checked
    in :meth:`build`, where an unknown endpoint fails with the edge's own file and line.

    Args:
        on_duplicate: ``"error"`` (default), or ``"first"`` to keep the first definition.
    """

    def __init__(self, on_duplicate: str = "error") -> None:
        if on_duplicate not in ("error", "first"):
            raise ValueError("on_duplicate must be 'error' or 'first'")
        self.on_duplicate = on_duplicate
        self._index: dict[str, int] = {}
        self._where: list[Location] = []
        self.ids: list[str] = []
        self.types: list[str] = []
        self.names: list[str] = []
        self.fields: dict[str, dict[int, str]] = {}
        self.attrs: dict[str, dict[int, Any]] = {}
        self._edges: list[tuple[str, str, str]] = []
        self._edge_where: list[Location] = []

    def __len__(self) -> int:
        return len(self.ids)

    def has_node(self, node_id: str) -> bool:
        """Whether a node with this id was added."""
        return node_id in self._index

    def add_node(
        self,
        node_id: Any,
        type: str,
        name: str | int | float | None = None,
        fields: Mapping[str, Any] | None = None,
        attributes: Mapping[str, Any] | None = None,
        *,
        file: str | None = None,
        line: int | None = None,
    ) -> int:
        """Add a node; returns its internal index. ``file``/``line`` locate it for errors."""
        if node_id is None or (isinstance(node_id, str) and not node_id.strip()):
            raise InputError("node has no id", file=file, line=line, field="id")
        nid = str(node_id)
        if not type or not isinstance(type, str):
            raise InputError(f"node {nid!r} has no type", file=file, line=line, field="type")
        if nid in self._index:
            if self.on_duplicate == "first":
                return self._index[nid]
            f0, l0 = self._where[self._index[nid]]
            first = f"{f0}:{l0}" if f0 else f"record {l0}"
            raise InputError(
                f"duplicate node id {nid!r} (first defined at {first}); ids must be unique",
                file=file,
                line=line,
                field="id",
            )
        # Validate everything before registering the node, so a rejected node leaves no trace.
        texts: dict[str, str] = {}
        for k, v in (fields or {}).items():
            if k in RESERVED_COLUMNS:
                raise InputError(f"text field '{k}' clashes with a reserved column", file=file, line=line, field=k)
            if v is not None:
                texts[k] = v if isinstance(v, str) else str(v)
        attrs: dict[str, Any] = {}
        for k, v in (attributes or {}).items():
            if k in RESERVED_COLUMNS:
                raise InputError(f"attribute '{k}' clashes with a reserved column", file=file, line=line, field=k)
            if v is None:
                continue
            if not isinstance(v, (int, float, str, bool)):
                raise InputError(
                    f"attribute values must be scalars (number, string, bool), got {type_name(v)}",
                    file=file,
                    line=line,
                    field=k,
                )
            if isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX:
                raise InputError(
                    "integer does not fit in 64 bits; give it as a string (or a decimal number)",
                    file=file,
                    line=line,
                    field=k,
                )
            attrs[k] = v
        i = len(self.ids)
        self._index[nid] = i
        self._where.append((file, line))
        self.ids.append(nid)
        self.types.append(type)
        self.names.append("" if name is None else str(name))
        for k, v in texts.items():
            self.fields.setdefault(k, {})[i] = v
        for k, v in attrs.items():
            self.attrs.setdefault(k, {})[i] = v
        return i

    def add_edge(
        self,
        source: Any,
        relation: str,
        target: Any,
        *,
        file: str | None = None,
        line: int | None = None,
    ) -> None:
        """Add a directed edge ``source -relation-> target`` (endpoints checked in build)."""
        if not relation or not isinstance(relation, str):
            raise InputError("edge has no relation", file=file, line=line, field="relation")
        if relation.endswith("^-1"):
            raise InputError(
                f"relation {relation!r}: '^-1' is reserved for walking a relation backwards",
                file=file,
                line=line,
                field="relation",
            )
        for fld, v in (("source", source), ("target", target)):
            if v is None or (isinstance(v, str) and not v.strip()):
                raise InputError(f"edge has no {fld}", file=file, line=line, field=fld)
        self._edges.append((str(source), relation, str(target)))
        self._edge_where.append((file, line))

    def build(self, meta: dict[str, Any] | None = None) -> SKB:
        """Validate the edges and return the SKB."""
        n = len(self.ids)
        src = np.empty(len(self._edges), dtype=np.int32)
        dst = np.empty(len(self._edges), dtype=np.int32)
        rels: list[str] = []
        for k, (s, r, t) in enumerate(self._edges):
            for fld, nid, arr in (("source", s, src), ("target", t, dst)):
                j = self._index.get(nid)
                if j is None:
                    f, ln = self._edge_where[k]
                    raise InputError(
                        f"edge {s!r} -{r}-> {t!r} points to unknown node {nid!r}; "
                        "define the node first or fix the id",
                        file=f,
                        line=ln,
                        field=fld,
                    )
                arr[k] = j
            rels.append(r)
        fields = {k: [d.get(i) for i in range(n)] for k, d in self.fields.items()}
        attrs: dict[str, list[Any]] = {}
        for key, d in self.attrs.items():
            kinds = {type_name(v) for v in d.values()}
            if len(kinds) > 1 and kinds != {"int", "float"}:
                raise InputError(f"attribute has mixed types {sorted(kinds)}", field=key)
            attrs[key] = [d.get(i) for i in range(n)]
        edges = (src, np.array(rels, dtype=object), dst) if self._edges else None
        return SKB.from_columns(
            self.ids, self.types, self.names, fields=fields, attributes=attrs, edges=edges, meta=meta
        )


def type_name(v: Any) -> str:
    """Short type name for error messages."""
    return type(v).__name__

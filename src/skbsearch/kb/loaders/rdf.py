"""RDF (N-Triples, Turtle, N-Quads, TriG, RDF/XML) -> SKB, parsed by pyoxigraph (extra ``rdf``).

Every subject, and every IRI or blank node that is the object of a triple, becomes a node
(id: the IRI, or ``_:label`` for a blank node). Per triple:

=====================================================  ===================================
predicate                                              becomes
=====================================================  ===================================
``rdfs:label``, ``skos:prefLabel``, ``schema:name``,   the node's name (English or untagged
``foaf:name``                                          first, else the first one seen)
``schema:description``, ``rdfs:comment``,              the ``description`` text field
``dcterms:description``, ``skos:definition``
``rdf:type``                                           the node type: of several classes, those
                                                       no other of its classes is a subclass of
                                                       (``rdfs:subClassOf``, transitively), then
                                                       the most frequent
``rdfs:subClassOf``                                    the class hierarchy (no edge)
any other, object an IRI or blank node                 an edge named by the predicate's local
                                                       name (``directedBy`` -> ``directed by``)
any other, object a literal                            an attribute (``birthDate`` ->
                                                       ``birth_date``; xsd numbers and
                                                       booleans typed, the rest strings)
=====================================================  ===================================

Nodes without ``rdf:type`` get types inferred from their relations (:mod:`kg_types`).
Predicate IRIs are kept in ``meta["relation_ids"]``. A syntax error is an ``InputError``
naming the file and line; so is a literal or IRI over 16 MiB (the parser's token cap) and,
in RDF/XML, a DTD whose entities would expand beyond a small budget (:mod:`rdf_guard`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError, MissingDependencyError
from skbsearch.core.lines import require_file
from skbsearch.kb.loaders.kg_names import entity_name, relation_names, type_label, words
from skbsearch.kb.loaders.kg_types import infer_types
from skbsearch.kb.loaders.rdf_guard import check_xml_entities, token_too_long
from skbsearch.kb.schema import RESERVED_COLUMNS
from skbsearch.kb.store import SKB

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
LABELS = ("http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel",
          "http://schema.org/name", "https://schema.org/name", "http://xmlns.com/foaf/0.1/name")
DESCRIPTIONS = ("http://schema.org/description", "https://schema.org/description",
                "http://www.w3.org/2000/01/rdf-schema#comment", "http://purl.org/dc/terms/description",
                "http://www.w3.org/2004/02/skos/core#definition")
_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTS = {f"{_XSD}{t}" for t in ("integer", "int", "long", "short", "byte", "nonNegativeInteger",
                                "positiveInteger", "negativeInteger", "nonPositiveInteger",
                                "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte")}
_FLOATS = {f"{_XSD}{t}" for t in ("decimal", "double", "float")}
SUFFIXES = {".nt": "N_TRIPLES", ".ntriples": "N_TRIPLES", ".ttl": "TURTLE", ".turtle": "TURTLE",
            ".nq": "N_QUADS", ".trig": "TRIG", ".rdf": "RDF_XML", ".owl": "RDF_XML", ".xml": "RDF_XML"}


def local_name(iri: str) -> str:
    """The part of an IRI after its last ``#``, ``/`` or ``:`` (the whole IRI if none)."""
    tail = re.split(r"[#/:]", iri.rstrip("/#"))[-1]
    return tail or iri


def _term(t: Any) -> str:
    return t.value if type(t).__name__ == "NamedNode" else f"_:{t.value}"


def _literal(lit: Any) -> Any:
    dt = lit.datatype.value if lit.datatype is not None else ""
    try:
        if dt in _INTS:
            v = int(lit.value)
            return v if -(2**63) <= v < 2**63 else lit.value
        if dt in _FLOATS:
            return float(lit.value)
    except ValueError:
        return lit.value
    if dt == f"{_XSD}boolean":
        return lit.value in ("true", "1")
    return lit.value


def _better(lang: str | None, current: tuple[int, str] | None, lang_pref: str) -> int:
    rank = 0 if (lang or "").split("-")[0] == lang_pref else 1 if not lang else 2
    return rank if current is None or rank < current[0] else -1


class _Collect:
    """What one pass over the triples gathers: node codes, edges, texts, types, attributes."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.nodes: dict[str, int] = {}
        self.rels: dict[str, int] = {}
        self.edges: list[tuple[int, int, int]] = []
        self.names: dict[int, tuple[int, str]] = {}
        self.descs: dict[int, tuple[int, str]] = {}
        self.classes: dict[int, list[str]] = defaultdict(list)
        self.attrs: dict[str, dict[int, Any]] = defaultdict(dict)
        self.parents: dict[str, set[str]] = defaultdict(set)

    def node(self, key: str) -> int:
        return self.nodes.setdefault(key, len(self.nodes))

    def add(self, s: str, p: str, o: Any) -> None:
        kind = type(o).__name__
        if p == SUBCLASS and kind == "NamedNode":
            self.parents[s].add(o.value)
            return
        i = self.node(s)
        if kind == "Literal":
            for table, preds in ((self.names, LABELS), (self.descs, DESCRIPTIONS)):
                if p in preds:
                    rank = _better(o.language, table.get(i), self.lang)
                    if rank >= 0:
                        table[i] = (rank, o.value)
                    return
            self.attrs[p].setdefault(i, _literal(o))
        elif p == RDF_TYPE and kind == "NamedNode":
            self.classes[i].append(o.value)
        else:
            self.edges.append((i, self.rels.setdefault(p, len(self.rels)), self.node(_term(o))))


def _parse(path: Path, fmt: str | None, base_iri: str | None, lang: str) -> _Collect:
    try:
        import pyoxigraph as ox
    except ImportError:
        raise MissingDependencyError("pyoxigraph", "rdf", "reading RDF") from None
    name = fmt.upper().replace("-", "_") if fmt else SUFFIXES.get(path.suffix.lower())
    if name is None or not hasattr(ox.RdfFormat, name):
        raise InputError(f"cannot tell the RDF syntax; name the file .nt/.ttl/.nq/.trig/.rdf "
                         f"(or pass rdf_format), got {fmt or path.suffix!r}", file=path)
    if name == "RDF_XML":
        check_xml_entities(path)
    out = _Collect(lang)
    try:
        for q in ox.parse(path=str(path), format=getattr(ox.RdfFormat, name), base_iri=base_iri):
            out.add(_term(q.subject), q.predicate.value, q.object)
    except MemoryError:  # pyoxigraph's token buffer cap (16 MiB), not this process's memory
        raise token_too_long(path, ox, getattr(ox.RdfFormat, name), base_iri) from None
    except SyntaxError as e:
        msg = str(e.msg if hasattr(e, "msg") else e)
        raise InputError(f"RDF syntax error: {msg[:200]}", file=path, line=e.lineno) from None
    except (OSError, ValueError) as e:
        raise InputError(f"unreadable RDF ({str(e)[:200]})", file=path) from None
    return out


def _attribute_columns(attrs: dict[str, dict[int, Any]], n: int) -> tuple[dict[str, list], dict[str, str]]:
    cols: dict[str, list] = {}
    source: dict[str, str] = {}
    for pred, values in attrs.items():
        col = "_".join(words(local_name(pred))) or "value"
        if col in RESERVED_COLUMNS or col in ("description",):
            col += "_value"
        while col in cols:
            col += "_"
        kinds = {type(v) for v in values.values()}
        mixed = len(kinds) > 1 and not kinds <= {int, float}
        column: list[Any] = [None] * n
        for i, v in values.items():
            column[i] = str(v) if mixed else (float(v) if kinds == {int, float} else v)
        cols[col], source[col] = column, pred
    return cols, source


def _ancestors(parents: dict[str, set[str]], cls: str) -> set[str]:
    """Every class ``cls`` is a subclass of (transitively, cycles tolerated)."""
    seen: set[str] = set()
    todo = list(parents.get(cls, ()))
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(parents.get(x, ()))
    return seen


def _node_types(c: _Collect, n: int, rel_ids: list[str], rel_names: list[str]) -> list[str]:
    sizes = Counter(cls for classes in c.classes.values() for cls in set(classes))
    types: list[str | None] = [None] * n
    for i, classes in c.classes.items():
        own = list(dict.fromkeys(classes))
        above = set().union(*(_ancestors(c.parents, x) for x in own))
        best = max([x for x in own if x not in above] or own, key=lambda x: sizes[x])
        types[i] = type_label(local_name(best))
    if c.edges and any(t is None for t in types):  # (no edges: nothing to infer from)
        e = np.array(c.edges, np.int32).reshape(-1, 3)
        names, codes, _ = infer_types(e[:, 0], e[:, 1], e[:, 2], n, rel_ids, rel_names)
        types = [t if t is not None else names[codes[i]] for i, t in enumerate(types)]
    return [t or "entity" for t in types]


def load_rdf(path: str | Path, *, rdf_format: str | None = None, base_iri: str | None = None,
             lang: str = "en") -> SKB:
    """Load an RDF file into an SKB (see the module docstring).

    Args:
        path: the file (``.nt``, ``.ttl``, ``.nq``, ``.trig``, ``.rdf``/``.owl``/``.xml``).
        rdf_format: the syntax when the suffix does not say (``turtle``, ``n-triples``, ...).
        base_iri: base for relative IRIs.
        lang: preferred language of labels and descriptions.
    """
    path = require_file(path, "RDF file")
    c = _parse(path, rdf_format, base_iri, lang)
    n = len(c.nodes)
    ids = list(c.nodes)
    rel_ids = list(c.rels)
    rel_names = relation_names(rel_ids, [" ".join(words(local_name(r))) for r in rel_ids])
    names = [c.names[i][1] if i in c.names else entity_name(local_name(x)) for i, x in enumerate(ids)]
    fields = {"description": [c.descs[i][1] if i in c.descs else None for i in range(n)]} if c.descs else {}
    attrs, attr_source = _attribute_columns(c.attrs, n)
    types = _node_types(c, n, rel_ids, rel_names)
    e = np.array(c.edges, np.int64).reshape(-1, 3)
    meta = {"source": {"format": "rdf", "path": str(path)},
            "relation_ids": dict(zip(rel_names, rel_ids, strict=True)),
            "attribute_ids": attr_source}
    return SKB.from_columns(ids, types, names, fields=fields, attributes=attrs,
                            edges=(e[:, 0], e[:, 1].astype(np.int16), e[:, 2]), relations=rel_names, meta=meta)

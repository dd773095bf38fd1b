"""Attack RDF/XML files of issue 31 (entity expansion), generated small, for the bounds tests."""

from __future__ import annotations

RDF_HEAD = ('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n{dtd}]>\n'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"\n'
            '         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">\n'
            '  <rdf:Description rdf:about="http://example.org/a">\n'
            '    <rdfs:label>{body}</rdfs:label>\n  </rdf:Description>\n</rdf:RDF>\n')


def laughs(levels: int) -> str:
    """A "billion laughs" file: entity k is ten references to entity k-1."""
    dtd = ['<!ENTITY lol0 "lol">\n']
    dtd += [f'<!ENTITY lol{k} "{f"&lol{k - 1};" * 10}">\n' for k in range(1, levels + 1)]
    return RDF_HEAD.format(dtd="".join(dtd), body=f"&lol{levels};")


def quadratic(size: int = 40_000, refs: int = 20_000) -> str:
    return RDF_HEAD.format(dtd=f'<!ENTITY a "{"a" * size}">\n', body="&a;" * refs)

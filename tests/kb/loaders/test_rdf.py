"""RDF input (N-Triples, Turtle) through pyoxigraph: labels, descriptions, types, edges, literals."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import detect_format, load

pytest.importorskip("pyoxigraph")

TTL = """\
@prefix ex: <http://example.org/film/> .
@prefix schema: <http://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:Jaws a schema:Movie, schema:CreativeWork ;
    rdfs:label "Les Dents de la mer"@fr, "Jaws"@en ;
    schema:description "A 1975 thriller about a great white shark."@en ;
    schema:director ex:Spielberg ;
    schema:actor ex:Scheider, ex:Shaw ;
    schema:datePublished "1975-06-20"^^xsd:date ;
    schema:duration 124 ;
    ex:budget "9.0"^^xsd:decimal .

ex:Duel a schema:Movie ; rdfs:label "Duel" ; schema:director ex:Spielberg .
ex:Spielberg a schema:Person ; rdfs:label "Steven Spielberg" ;
    rdfs:comment "American filmmaker." ; schema:birthPlace ex:Cincinnati .
ex:Scheider a schema:Person ; schema:name "Roy Scheider" .
ex:Shaw rdfs:label "Robert Shaw" .
ex:Cincinnati rdfs:label "Cincinnati" .
schema:Movie rdfs:subClassOf schema:CreativeWork .
"""

NT = """\
<http://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Museum> .
<http://example.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "Louvre" .
<http://example.org/a> <http://example.org/locatedIn> <http://example.org/paris> .
<http://example.org/paris> <http://www.w3.org/2000/01/rdf-schema#label> "Paris"@en .
<http://example.org/paris> <http://example.org/population> "2100000"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/a> <http://example.org/open> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
_:b1 <http://example.org/locatedIn> <http://example.org/paris> .
"""


def test_turtle_sample(tmp_path):
    f = tmp_path / "films.ttl"
    f.write_text(TTL, encoding="utf-8")
    assert detect_format(f) == "rdf"
    skb = load(f)
    jaws = skb.node("http://example.org/film/Jaws")
    assert jaws.name == "Jaws"  # English label preferred
    assert jaws.type == "movie"  # CreativeWork is Movie's superclass: the subclass wins
    assert jaws.fields["description"].startswith("A 1975 thriller")
    assert jaws.attributes["duration"] == 124
    assert jaws.attributes["budget"] == 9.0
    assert jaws.attributes["date_published"] == "1975-06-20"
    assert skb.node("http://example.org/film/Spielberg").fields["description"] == "American filmmaker."
    assert skb.node("http://example.org/film/Scheider").name == "Roy Scheider"
    assert {"director", "actor", "birth place"} == set(skb.schema.relations)
    assert not skb.has_node("http://schema.org/Movie")  # the hierarchy makes no nodes
    assert skb.meta["relation_ids"]["director"] == "http://schema.org/director"
    out = skb.graph.neighbor_set([skb.index_of("http://example.org/film/Spielberg")], ["director^-1"])
    assert sorted(skb.id_of(out)) == ["http://example.org/film/Duel", "http://example.org/film/Jaws"]
    # nodes without rdf:type get an inferred type, never none
    assert skb.node("http://example.org/film/Shaw").type


def test_ntriples_sample_and_cli_build(tmp_path):
    from typer.testing import CliRunner

    from skbsearch.cli import app

    f = tmp_path / "places.nt"
    f.write_text(NT, encoding="utf-8")
    res = CliRunner().invoke(app, ["kb", "build", str(f), str(tmp_path / "out.skb"), "--json"])
    assert res.exit_code == 0, res.output
    from skbsearch.kb import SKB

    skb = SKB.load(tmp_path / "out.skb")
    louvre = skb.node("http://example.org/a")
    assert louvre.name == "Louvre" and louvre.type == "museum" and louvre.attributes["open"] is True
    paris = skb.node("http://example.org/paris")
    assert paris.name == "Paris" and paris.attributes["population"] == 2100000
    assert skb.has_node("_:b1") or any(i.startswith("_:") for i in skb.ids)
    assert skb.schema.relations == ["located in"]


def test_syntax_error_names_file_and_line(tmp_path):
    f = tmp_path / "bad.ttl"
    f.write_text(TTL + 'ex:x ex:y "unterminated\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        load(f)
    assert e.value.file == str(f) and e.value.line == TTL.count("\n") + 1

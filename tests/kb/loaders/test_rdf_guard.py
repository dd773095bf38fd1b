"""The entity guard of RDF/XML files (issue 31): entity-expansion attacks refused before
parsing, naming the file and line; IRI abbreviations still load."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError

pytest.importorskip("pyoxigraph")

from rdf_attacks import RDF_HEAD, laughs, quadratic  # noqa: E402

from skbsearch.kb.loaders import load_rdf  # noqa: E402
from skbsearch.kb.loaders.rdf_guard import check_xml_entities  # noqa: E402


def test_owl_style_entities_still_load(tmp_path: Path) -> None:
    """Entities that abbreviate IRIs (what OWL files use them for) are within the budget."""
    dtd = '<!ENTITY ex "http://example.org/">\n<!ENTITY name "Ada &amp; co">\n'
    f = tmp_path / "owl.rdf"
    f.write_text(RDF_HEAD.format(dtd=dtd, body="&name;").replace('rdf:about="http://example.org/a"',
                                                                 'rdf:about="&ex;a"'))
    skb = load_rdf(f)
    assert skb.ids == ["http://example.org/a"] and skb.node(0).name == "Ada & co"


@pytest.mark.parametrize("text,needle", [
    (laughs(9), "expands to more than"),
    (laughs(8), "expands to more than"),  # the 10^8 variant: 300 MB from a 1 KB file
    (quadratic(), "references add more than"),
    (RDF_HEAD.format(dtd='<!ENTITY a "&b;">\n<!ENTITY b "&a;">\n', body="&a;"), "refers to itself"),
    (RDF_HEAD.format(dtd='<!ENTITY % p "x">\n', body="x"), "parameter entities"),
])
def test_entity_attacks_are_refused_before_parsing(tmp_path: Path, text: str, needle: str) -> None:
    f = tmp_path / "attack.rdf"
    f.write_text(text)
    t0 = time.perf_counter()
    with pytest.raises(InputError) as err:
        check_xml_entities(f)
    assert time.perf_counter() - t0 < 2.0
    assert needle in err.value.reason and err.value.file == str(f) and err.value.line is not None


def test_quadratic_blowup_names_the_line_that_crosses_the_budget(tmp_path: Path) -> None:
    body = "\n".join(["&a;" * 100] * 400)  # 40,000 references of 50 KB, 100 a line
    f = tmp_path / "q.rdf"
    f.write_text(RDF_HEAD.format(dtd=f'<!ENTITY a "{"a" * 50_000}">\n', body=body))
    with pytest.raises(InputError) as err:
        check_xml_entities(f)
    head_lines = 8  # the DTD's lines, the root element's and the label's first line
    # 16 MiB / 50,000 bytes = 335 references: crossed on the 4th line of references
    assert err.value.line == head_lines + 3


@pytest.mark.parametrize("text,needle", [
    ("<!-- " + "<a>" * 400_000 + " -->\n" + laughs(9).split("\n", 1)[1], "expands to more than"),  # DTD after 1.2 MB
    (laughs(9).replace("<!DOCTYPE", "<!doctype"), "expands to more than"),
    (RDF_HEAD.format(dtd='<!ENTITY a "x">\n', body="a").replace("<rdf:RDF", "<!DOCTYPE x [\n]>\n<rdf:RDF"),
     "more than one"),
    (RDF_HEAD.format(dtd='<!ENTITY z "zzzzzzzzzz">\n' + "".join(
        f'<!ENTITY y{k} "{f"&#38;y{k - 1};" * 10 if k else "&z;"}">\n' for k in range(9)),
        body="&y8;"), "expands to more than"),  # references hidden as &#38;
])
def test_entity_checks_cannot_be_sidestepped(tmp_path: Path, text: str, needle: str) -> None:
    f = tmp_path / "attack.rdf"
    f.write_text(text)
    with pytest.raises(InputError) as err:
        check_xml_entities(f)
    assert needle in err.value.reason

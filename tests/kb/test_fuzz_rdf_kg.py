"""Property-based fuzzing of the RDF loaders (RDF/XML, Turtle, N-Triples) and the public KG
layout (split triple files + entity texts); JSONL, CSV and TSV triples are fuzzed in
``test_fuzz_loaders.py``.

Mostly well-formed documents, built from pieces, are cut, spliced with junk bytes and given
DTD entities (small or explosive). The only allowed outcomes: an SKB that round-trips, or an
:class:`InputError` naming the input file — quickly: no example may take 5 seconds (they take milliseconds).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import load_kg
from skbsearch.kb.store import SKB

pytest.importorskip("pyoxigraph")

from skbsearch.kb.loaders import load_rdf  # noqa: E402

FUZZ = settings(max_examples=120 * int(os.environ.get("SKB_FUZZ_SCALE", "1")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

IRIS = st.sampled_from(["http://e.org/a", "http://e.org/b", "http://e.org/c#x", "urn:x", "e:y",
                        "http://e.org/é", "rel/ative", "http://e.org/a b", ""])
PREDICATES = st.sampled_from(["http://www.w3.org/2000/01/rdf-schema#label",
                              "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                              "http://www.w3.org/2000/01/rdf-schema#subClassOf",
                              "http://schema.org/description", "http://e.org/likes",
                              "http://e.org/year"])
LITERALS = st.sampled_from(['"Ada"', '"Ada"@en', '"12"^^<http://www.w3.org/2001/XMLSchema#integer>',
                            '"x"^^<http://www.w3.org/2001/XMLSchema#double>', '"true"^^<http://www.w3.org/2001/XMLSchema#boolean>',
                            '"""multi\nline"""', '"\\u00e9\\n"', '"unterminated']) | st.text(max_size=6).map(
                                lambda t: '"' + t.replace("\\", "").replace('"', "") + '"')
JUNK = st.sampled_from([b"\xff\xfe", b"<", b"\"", b"@prefix", b"]", b"&lol;", b"\x00", b".", b"<!ENTITY",
                        b"]]>", b"<!DOCTYPE x [", b"\r"]) | st.binary(max_size=8)


@st.composite
def _mutate(draw: st.DrawFn, text: str) -> bytes:
    data = text.encode("utf-8")
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        how = draw(st.integers(0, 2))
        if how == 0:
            data = data[:at] + draw(JUNK) + data[at:]
        elif how == 1:
            data = data[:at]
        else:
            data = data[:at] + data[at + draw(st.integers(1, 20)):]
    return data


@st.composite
def _ntriples(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        s, p = draw(IRIS), draw(PREDICATES)
        o = f"<{draw(IRIS)}>" if draw(st.booleans()) else draw(LITERALS)
        subj = f"_:b{draw(st.integers(0, 3))}" if not draw(st.integers(0, 4)) else f"<{s}>"
        lines.append(f"{subj} <{p}> {o} .")
    return "\n".join(lines) + "\n"


@st.composite
def _turtle(draw: st.DrawFn) -> str:
    head = "@prefix ex: <http://e.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    body = []
    for _ in range(draw(st.integers(0, 6))):
        s = draw(st.sampled_from(["ex:a", "ex:b", "[]", "_:x", "<http://e.org/c>", "ex:"]))
        objs = ", ".join(draw(st.lists(st.sampled_from(["ex:b", '"B"', "ex:c", "( ex:a ex:b )", "[ ex:p ex:a ]"])
                                       | LITERALS, min_size=1, max_size=3)))
        body.append(f"{s} {draw(st.sampled_from(['rdfs:label', 'a', 'ex:likes', 'ex:year']))} {objs} .")
    return head + "\n".join(body) + "\n"


@st.composite
def _rdfxml(draw: st.DrawFn) -> str:
    ents = draw(st.lists(st.sampled_from(['<!ENTITY ex "http://e.org/">', '<!ENTITY n "Ada">',
                                          '<!ENTITY l2 "&n;&n;&n;&n;&n;&n;&n;&n;&n;&n;">',
                                          '<!ENTITY big "' + "z" * 2000 + '">',
                                          '<!ENTITY self "&self;">', '<!ENTITY ext SYSTEM "file:///etc/passwd">',
                                          '<!-- c -->', '<!ELEMENT x ANY>']), max_size=4))
    dtd = f"<!DOCTYPE rdf:RDF [\n{chr(10).join(ents)}\n]>\n" if ents or draw(st.booleans()) else ""
    descs = []
    for _ in range(draw(st.integers(0, 4))):
        about = draw(st.sampled_from(["http://e.org/a", "&ex;b", "c", ""]))
        label = draw(st.sampled_from(["Ada", "&n;", "&l2;" * 3, "&big;" * 50, "&ext;", "&undefined;", "a &amp; b"]))
        rel = draw(st.sampled_from(['<ex:likes rdf:resource="http://e.org/b"/>', "<ex:year>1999</ex:year>", ""]))
        descs.append(f'<rdf:Description rdf:about="{about}"><rdfs:label>{label}</rdfs:label>{rel}</rdf:Description>')
    return ('<?xml version="1.0"?>\n' + dtd +
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:ex="http://e.org/">\n'
            + "\n".join(descs) + "\n</rdf:RDF>\n")


def _outcome(load: Callable[[], SKB], files: list[Path], tmp: Path) -> None:
    t0 = time.perf_counter()
    try:
        skb = load()
    except InputError as e:
        event(f"InputError: {e.reason[:25]}")
        assert e.file is not None and e.file.startswith(str(tmp)), f"error names no input file: {e}"
        assert time.perf_counter() - t0 < 5.0
        return
    event("loaded")
    assert time.perf_counter() - t0 < 5.0
    assert len(set(skb.ids)) == skb.num_nodes
    back = SKB.load(skb.save(tmp / "skb"))
    assert back.ids == skb.ids and back.num_edges == skb.num_edges


def _with_tmp(fn: Callable[[Path], None]) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="skb-fuzz-"))
    try:
        fn(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@FUZZ
@given(data=_ntriples().flatmap(_mutate))
def test_fuzz_ntriples(data: bytes) -> None:
    def run(tmp: Path) -> None:
        (tmp / "g.nt").write_bytes(data)
        _outcome(lambda: load_rdf(tmp / "g.nt"), [tmp / "g.nt"], tmp)

    _with_tmp(run)


@FUZZ
@given(data=_turtle().flatmap(_mutate))
def test_fuzz_turtle(data: bytes) -> None:
    def run(tmp: Path) -> None:
        (tmp / "g.ttl").write_bytes(data)
        _outcome(lambda: load_rdf(tmp / "g.ttl"), [tmp / "g.ttl"], tmp)

    _with_tmp(run)


@FUZZ
@given(data=_rdfxml().flatmap(_mutate))
def test_fuzz_rdfxml(data: bytes) -> None:
    def run(tmp: Path) -> None:
        (tmp / "g.rdf").write_bytes(data)
        _outcome(lambda: load_rdf(tmp / "g.rdf"), [tmp / "g.rdf"], tmp)

    _with_tmp(run)


KG_IDS = st.sampled_from(["/m/01", "/m/02", "Q1", "a b", "é", "x^-1", " ", ""])


@st.composite
def _kg_lines(draw: st.DrawFn, columns: int) -> str:
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        cols = [draw(KG_IDS) for _ in range(columns)]
        if columns == 2:
            cols[1] = draw(st.sampled_from(["Ada", "Ada\tLovelace", "", "  "]))
        rows.append("\t".join(cols))
    return "\n".join(rows) + draw(st.sampled_from(["", "\n", "\r\n"]))


@FUZZ
@given(train=_kg_lines(3).flatmap(_mutate), valid=_kg_lines(3).flatmap(_mutate),
       names=st.none() | _kg_lines(2).flatmap(_mutate), rels=st.none() | _kg_lines(2).flatmap(_mutate))
def test_fuzz_kg_layout(train: bytes, valid: bytes, names: bytes | None, rels: bytes | None) -> None:
    def run(tmp: Path) -> None:
        src = tmp / "kg"
        src.mkdir()
        files = [src / "train.tsv", src / "valid.tsv", src / "test.tsv"]
        files[0].write_bytes(train)
        files[1].write_bytes(valid)
        files[2].write_bytes(b"")
        for name, data in (("entity2text.txt", names), ("relation2text.txt", rels)):
            if data is not None:
                (src / name).write_bytes(data)
                files.append(src / name)
        _outcome(lambda: load_kg(src), files, tmp)

    _with_tmp(run)

"""Enriched documents on disk: a JSONL round trip (facts with their attributes), written
atomically, and damaged files named by file, line and field; an IMPLIRET pool's enriched
documents with the constrained retriever saved and loaded beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from impliret_pools import TEMPORAL

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.enrich import ArithmeticEnricher, TemporalEnricher, enrich_documents
from skbsearch.enrich.store import ENRICHED_FILE, document_from_dict, load_enriched, save_enriched
from skbsearch.retrieve.constrained import ConstrainedRetriever

TEXTS = [("d1", "2024-02-29 09:01, Henry: I bought a lamp for $460 two days ago."),
         ("d2", "Nothing to derive here.")]


def _docs() -> list:
    return enrich_documents(TEXTS, [TemporalEnricher(), ArithmeticEnricher()], progress=False)


def test_documents_come_back_as_they_were_saved(tmp_path: Path) -> None:
    docs = _docs()
    assert docs[0].facts  # the date and the price were derived
    (tmp_path / "index").mkdir()
    out = save_enriched(tmp_path / "index", docs)
    assert out == tmp_path / "index" / ENRICHED_FILE
    back = load_enriched(tmp_path / "index")
    assert [d.to_dict() for d in back] == [d.to_dict() for d in docs]
    assert back[0].facts[0].attrs == docs[0].facts[0].attrs  # not part of a Fact's equality
    assert back[0].index_text == docs[0].index_text


def test_a_jsonl_path_is_the_file_itself_and_no_temp_file_is_left(tmp_path: Path) -> None:
    f = save_enriched(tmp_path / "e.jsonl", _docs()[1:])
    assert f == tmp_path / "e.jsonl" and [d.id for d in load_enriched(f)] == ["d2"]
    save_enriched(f, [])  # replaced whole
    assert f.read_text() == "" and load_enriched(f) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.jsonl"]


def test_a_missing_file_says_to_build_with_enrichment(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="build the index with enrichment first"):
        load_enriched(tmp_path)


def test_damaged_records_name_file_line_and_field(tmp_path: Path) -> None:
    f = tmp_path / "e.jsonl"
    good = json.dumps(_docs()[1].to_dict())
    f.write_text(good + "\n" + json.dumps({"id": "x"}) + "\n")
    with pytest.raises(InputError) as e:
        load_enriched(f)
    assert (e.value.file, e.value.line, e.value.field) == (str(f), 2, "text")
    f.write_text(good + "\n" + good + "\n" + json.dumps({"id": "x", "text": "t",
                                                          "facts": [{"value": 1}]}) + "\n")
    with pytest.raises(InputError, match=r"e.jsonl:3, field 'facts': malformed fact"):
        load_enriched(f)
    with pytest.raises(InputError, match=r"^field 'id': enriched document has no 'id'"):
        document_from_dict({"text": "t"})


def test_store_and_retriever_roundtrip(tmp_path: Path) -> None:
    docs = enrich_documents([(str(r["id"]), r["document"]) for r in TEMPORAL], [TemporalEnricher()],
                            progress=False)
    (tmp_path / "idx").mkdir()
    f = save_enriched(tmp_path / "idx", docs)
    assert f.name == "enriched.jsonl"
    back = load_enriched(f)
    assert [d.to_dict() for d in back] == [d.to_dict() for d in docs]
    ret = ConstrainedRetriever(docs)
    ret.save(tmp_path / "cr")
    again = ConstrainedRetriever.load(tmp_path / "cr")
    q = [Query("q", "Who went kayaking on March 8, 2024?")]
    assert again(q).ranked("q")[0][0] == "1" == ret(q).ranked("q")[0][0]
    (tmp_path / "broken.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="text"):
        load_enriched(tmp_path / "broken.jsonl")

"""Read a user's query files into :class:`Query` lists (and answer columns into Qrels).

Formats (``fmt``; detected from the suffix and the first line when not given):

``jsonl``  one object a line: an id (``id``, ``qid``, ``query_id``, ``_id``) and a text
           (``text``, ``query``, ``question``, ``query_text``); a ``meta`` object and any
           other fields become ``Query.meta``. ``.json`` files may also hold a list of such
           objects or one ``{id: text}`` object.
``csv``    a header row, then one query a row (STaRK's ``stark_qa.csv``: ``id,query,answer_ids``).
``tsv``    the same with tabs (detected when the first row names an id and a text column).
``trec``   TREC topics / MS MARCO queries without a header: ``id<TAB>text``.
``text``   one query a line; the id is the line number (blank lines skipped).

Answers (``answer_ids``, ``answers``, ``answer``, ``relevant_ids``) are JSON lists
(``"[1, 2]"``) or ids separated by commas, semicolons or spaces; each becomes grade 1.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import check_json_text, iter_jsonl
from skbsearch.core.lines import bounded
from skbsearch.core.types import Qrels, Query

FORMATS = ("jsonl", "csv", "tsv", "trec", "text")
ID_FIELDS = ("id", "qid", "query_id", "_id", "topic_id")
TEXT_FIELDS = ("text", "query", "question", "query_text")
ANSWER_FIELDS = ("answer_ids", "answers", "answer", "relevant_ids")

#: A record before it becomes a Query: line number and field -> value.
Record = tuple[int, dict[str, Any]]


def read_queries(
    path: str | Path,
    *,
    id_field: str | None = None,
    text_field: str | None = None,
    fmt: str | None = None,
) -> list[Query]:
    """Read queries from a JSONL, CSV, TSV, TREC-topics or plain-text file.

    Args:
        path: the query file.
        id_field: the id column / key (default: the first of ``ID_FIELDS`` present).
        text_field: the text column / key (default: the first of ``TEXT_FIELDS`` present).
        fmt: one of ``FORMATS``; detected when ``None``.

    Raises:
        InputError: naming the file, line and field of a missing, empty or duplicate value.
    """
    queries, _ = _read(path, id_field, text_field, None, fmt, want_answers=False)
    return queries


def read_queries_and_answers(
    path: str | Path,
    *,
    id_field: str | None = None,
    text_field: str | None = None,
    answers_field: str | None = None,
    fmt: str | None = None,
) -> tuple[list[Query], Qrels]:
    """Queries and their answers as Qrels (grade 1) from a file with an answers column.

    Queries with an empty answer list have no qrels entry (they are not evaluated).
    """
    queries, qrels = _read(path, id_field, text_field, answers_field, fmt, want_answers=True)
    assert qrels is not None
    return queries, qrels


def read_qrels_from_answers(
    path: str | Path, *, id_field: str | None = None, answers_field: str | None = None
) -> Qrels:
    """Only the Qrels of :func:`read_queries_and_answers` (query text may be missing)."""
    _, qrels = _read(path, id_field, None, answers_field, None, want_answers=True, need_text=False)
    assert qrels is not None
    return qrels


def detect_format(path: str | Path) -> str:
    """The format of a query file (see the module docstring) from its suffix and first line."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    first = _first_line(path)
    if first.lstrip().startswith("{"):
        return "jsonl"
    if "\t" in first:
        cells = {c.strip().lower() for c in first.split("\t")}
        named = set(TEXT_FIELDS) | set(ANSWER_FIELDS)
        has_header = bool(cells & set(ID_FIELDS)) and bool(cells & named)
        return "tsv" if has_header else "trec"
    if suffix == ".tsv":
        return "trec"
    return "text"


# ---------------------------------------------------------------------- internals
def _first_line(path: Path) -> str:
    try:
        with path.open(encoding="utf-8-sig") as fh:
            for line in bounded(fh, path):
                if line.strip():
                    return line.rstrip("\r\n")
    except OSError as e:
        raise InputError(f"cannot read the query file: {e.strerror}", file=path) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", file=path) from None
    return ""

def _read(path: str | Path, *args: Any, **kwargs: Any) -> tuple[list[Query], Qrels | None]:
    """:func:`_read_file`, with undecodable bytes reported as an :class:`InputError`."""
    try:
        return _read_file(path, *args, **kwargs)
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start}); save the query "
                         "file as UTF-8", file=path) from None


def _read_file(
    path: str | Path,
    id_field: str | None,
    text_field: str | None,
    answers_field: str | None,
    fmt: str | None,
    *,
    want_answers: bool,
    need_text: bool = True,
) -> tuple[list[Query], Qrels | None]:
    path = Path(path)
    if not path.is_file():
        raise InputError("query file not found", file=path)
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InputError(f"unknown query format {fmt!r}; use one of {', '.join(FORMATS)}",
                         field="format")
    if fmt in ("trec", "text"):
        if want_answers:
            raise InputError(f"a {fmt} query file has no answers column; give a CSV, TSV with "
                             "a header or JSONL with answer_ids", file=path)
        return _check_unique(path, list(_simple(path, fmt))), None
    records = _jsonl_records(path) if fmt == "jsonl" else _table_records(path, fmt)
    queries: list[Query] = []
    qrels: dict[str, dict[str, int]] = {}
    seen: dict[str, int] = {}
    first: Record | None = None
    any_answers = False
    for line, rec in records:
        first = first or (line, rec)
        # fields are chosen per record: JSON Lines records need not share their keys
        idk, textk = _choose_fields(path, line, rec, id_field, text_field, need_text)
        ansk = _pick(rec, answers_field, ANSWER_FIELDS) if want_answers else None
        any_answers = any_answers or ansk is not None
        qid = _id_value(path, line, rec, idk)
        if qid in seen:
            raise InputError(f"duplicate query id {qid!r} (first on line {seen[qid]})",
                             file=path, line=line, field=idk)
        seen[qid] = line
        text = _text_value(path, line, rec, textk) if textk is not None else ""
        used = {idk, textk, ansk, "meta"}
        meta = dict(rec["meta"]) if isinstance(rec.get("meta"), Mapping) else {}
        meta.update({k: v for k, v in rec.items() if k not in used})
        queries.append(Query(qid, text, meta))
        if ansk is not None:
            answers = _answers(path, line, rec.get(ansk), ansk)
            if answers:
                qrels[qid] = answers
    if first is None:
        raise InputError("the query file has no queries", file=path)
    if want_answers and not any_answers:
        want = answers_field or " / ".join(ANSWER_FIELDS)
        fields = ", ".join(map(str, first[1]))
        raise InputError(f"no answers field ({want}); fields here: {fields}",
                         file=path, line=first[0], field=answers_field or "answer_ids")
    return queries, (Qrels(qrels) if want_answers else None)


def _simple(path: Path, fmt: str) -> Iterator[Query]:
    with path.open(encoding="utf-8-sig") as fh:
        for n, raw in enumerate(bounded(fh, path), start=1):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            if fmt == "text":
                yield Query(str(n), line.strip())
                continue
            parts = line.split("\t")
            if len(parts) < 2:
                raise InputError("expected 'id<TAB>text' (TREC topics); no tab on this line",
                                 file=path, line=n)
            qid, text = parts[0].strip(), parts[1].strip()
            if not qid:
                raise InputError("empty query id", file=path, line=n, field="id")
            if not text:
                raise InputError("empty query text", file=path, line=n, field="text")
            yield Query(qid, text, {"columns": parts[2:]} if len(parts) > 2 else {})


def _check_unique(path: Path, queries: list[Query]) -> list[Query]:
    seen: set[str] = set()
    for i, q in enumerate(queries, start=1):
        if q.id in seen:
            raise InputError(f"duplicate query id {q.id!r} (query {i})", file=path, field="id")
        seen.add(q.id)
    return queries


def _jsonl_records(path: Path) -> Iterator[Record]:
    text = path.read_text(encoding="utf-8-sig").lstrip()
    if path.suffix.lower() == ".json" and text[:1] in ("[", "{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # not one JSON document: read it as JSON Lines below
        check_json_text(text, data, file=path)
        if isinstance(data, list):
            for i, rec in enumerate(data, start=1):
                if not isinstance(rec, dict):
                    raise InputError("expected a list of query objects", file=path, line=i)
                yield i, rec
            return
        if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
            for i, (qid, qtext) in enumerate(data.items(), start=1):
                yield i, {"id": qid, "text": qtext}
            return
    yield from iter_jsonl(path, what="one query object a line, e.g. {\"id\": \"q1\", \"text\": ...}")


def _table_records(path: Path, fmt: str) -> Iterator[Record]:
    delimiter = "," if fmt == "csv" else "\t"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(bounded(fh, path), delimiter=delimiter,
                                quoting=csv.QUOTE_MINIMAL if fmt == "csv" else csv.QUOTE_NONE)
        if not reader.fieldnames:
            return
        reader.fieldnames = [f.strip() for f in reader.fieldnames]
        try:
            for row in reader:
                if None in row:
                    raise InputError(f"more cells than the {len(reader.fieldnames)} header "
                                     "columns", file=path, line=reader.line_num)
                yield reader.line_num, row
        except csv.Error as e:
            raise InputError(f"malformed {fmt.upper()}: {e}", file=path,
                             line=reader.line_num) from None


def _pick(rec: Mapping[str, Any], given: str | None, candidates: tuple[str, ...]) -> str | None:
    lower = {k.lower(): k for k in rec}
    if given is not None:
        return given if given in rec else lower.get(given.lower())
    return next((lower[c] for c in candidates if c in lower), None)


def _choose_fields(
    path: Path, line: int, rec: Mapping[str, Any], id_field: str | None, text_field: str | None,
    need_text: bool,
) -> tuple[str, str | None]:
    fields = ", ".join(map(str, rec)) or "none"
    idk = _pick(rec, id_field, ID_FIELDS)
    if idk is None:
        want = id_field or " / ".join(ID_FIELDS)
        raise InputError(f"no query id field ({want}); fields here: {fields}. "
                         "Name it with id_field (--id-field)", file=path, line=line,
                         field=id_field or "id")
    textk = _pick(rec, text_field, TEXT_FIELDS) if need_text else None
    if need_text and textk is None:
        want = text_field or " / ".join(TEXT_FIELDS)
        raise InputError(f"no query text field ({want}); fields here: {fields}. "
                         "Name it with text_field (--text-field)", file=path, line=line,
                         field=text_field or "text")
    return idk, textk


def _id_value(path: Path, line: int, rec: Mapping[str, Any], key: str) -> str:
    value = rec.get(key)
    if value is None:
        raise InputError("missing query id", file=path, line=line, field=key)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"the query id must be a string or an integer, got {value!r}",
                         file=path, line=line, field=key)
    qid = str(value).strip()
    if not qid:
        raise InputError("empty query id", file=path, line=line, field=key)
    return qid


def _text_value(path: Path, line: int, rec: Mapping[str, Any], key: str) -> str:
    value = rec.get(key)
    if value is None:
        raise InputError("missing query text", file=path, line=line, field=key)
    if not isinstance(value, str):
        raise InputError(f"the query text must be a string, got {value!r}",
                         file=path, line=line, field=key)
    if not value.strip():
        raise InputError("empty query text", file=path, line=line, field=key)
    return value.strip()


_SEP = re.compile(r"[,;\s]+")


def _answers(path: Path, line: int, value: Any, key: str) -> dict[str, int]:
    """``{doc_id: grade}`` from a list, a ``{doc: grade}`` object or a string of ids."""
    if value is None:
        return {}
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("[") or s.startswith("{"):
            try:
                value = json.loads(s)
            except json.JSONDecodeError:
                value = [v.strip("'\" ") for v in _SEP.split(s.strip("[]")) if v.strip("'\" ")]
        else:
            value = [v for v in _SEP.split(s) if v]
    if isinstance(value, Mapping):
        try:
            return {str(d): int(g) for d, g in value.items()}
        except (TypeError, ValueError):
            raise InputError("answer grades must be integers", file=path, line=line,
                             field=key) from None
    if not isinstance(value, list) or any(isinstance(v, (list, dict)) for v in value):
        raise InputError(f"expected a list of answer ids, got {str(value)[:60]!r}",
                         file=path, line=line, field=key)
    return {str(v): 1 for v in value if str(v).strip()}

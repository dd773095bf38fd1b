"""Core data types: Query, Run and Qrels.

``Run`` and ``Qrels`` are plain ``{query_id: {doc_id: value}}`` mappings (the shape ranx
and ir-measures use), with helpers for cut-offs and TREC files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import check_json_text
from skbsearch.core.lazy import load_object
from skbsearch.core.lines import iter_lines, require_file
from skbsearch.core.outfile import write_output

_N = TypeVar("_N", int, float)


@dataclass(frozen=True)
class Query:
    """A query: an id, its text and free-form metadata (e.g. a topic entity)."""

    id: str
    text: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


#: What :func:`as_queries` accepts, for its error message.
QUERY_SHAPES = ("a list of Query", "a list of strings", "a list of {'qid'/'id': ..., 'query'/'text': ...} "
                "records", "a dict {id: text}", "a pandas DataFrame with qid/query (or id/text) columns",
                "a pathlib.Path of a query file (JSONL, CSV/TSV, TREC topics, text lines)", "one string")


def _shapes_error(got: Any, where: str = "") -> InputError:
    return InputError(f"cannot read queries from {type(got).__name__}{where}; give "
                      + "; ".join(QUERY_SHAPES), field="queries")


def _record_query(rec: Mapping[str, Any], i: int) -> Query:
    from skbsearch.core.frames import QUERY_COLUMNS

    for id_key, text_key in QUERY_COLUMNS:
        if id_key in rec and text_key in rec:
            meta = {k: v for k, v in rec.items() if k not in (id_key, text_key)}
            return Query(str(rec[id_key]), str(rec[text_key]), meta)
    raise InputError(f"query record {i + 1} needs an id and a text key (qid/query or id/text); "
                     f"it has {', '.join(map(str, rec)) or 'none'}", line=i + 1, field="queries")


def as_query(query: Query | str) -> Query:
    """One query: a :class:`Query` as it is, a text as ``Query("q0", text)``."""
    return query if isinstance(query, Query) else Query("q0", str(query))


def as_queries(queries: Any) -> list[Query]:
    """Queries in any shape a user holds them (:data:`QUERY_SHAPES`): ``Query`` objects, plain
    strings (ids ``q0``, ``q1``…), records, ``{id: text}``, a pandas DataFrame (PyTerrier's
    ``qid``/``query`` or ``id``/``text``), a :class:`~pathlib.Path` of a query file, or one
    string. Anything else is an :class:`InputError` naming the accepted shapes."""
    from skbsearch.core.frames import is_frame, query_rows

    if isinstance(queries, str):
        return [Query("q0", queries)]
    if isinstance(queries, Query):
        return [queries]
    if isinstance(queries, Path):
        read: Callable[[Path], list[Query]] = load_object("skbsearch.datasets.queries:read_queries")
        return read(queries)
    if is_frame(queries):
        return [Query(qid, text, meta) for qid, text, meta in query_rows(queries)]
    if isinstance(queries, Mapping):
        bad = next((v for v in queries.values() if not isinstance(v, str)), None)
        if bad is not None:
            raise _shapes_error(queries, f" (a dict whose values are {type(bad).__name__}, not text)")
        return [Query(str(k), v) for k, v in queries.items()]
    if isinstance(queries, (bytes, bytearray)) or not isinstance(queries, Iterable):
        raise _shapes_error(queries)
    out: list[Query] = []
    for i, q in enumerate(queries):
        if isinstance(q, Query):
            out.append(q)
        elif isinstance(q, str):
            out.append(Query(f"q{i}", q))
        elif isinstance(q, Mapping):
            out.append(_record_query(q, i))
        elif isinstance(getattr(q, "id", None), str) and isinstance(getattr(q, "text", None), str):
            out.append(q)  # a query-like object (a benchmark's question): used as it is
        else:
            raise _shapes_error(queries, f" (item {i + 1} is {type(q).__name__})")
    return out


def _trec_rows(path: Path, columns: str) -> Iterator[tuple[int, list[str]]]:
    """``(line_number, fields)`` of a whitespace-separated TREC file with ``columns``.

    Raises:
        InputError: naming the file (missing, a directory…) and line, for text that is not
            UTF-8, a line over 16 MiB or a line with the wrong number of columns.
    """
    want = len(columns.split())
    for n, raw in iter_lines(require_file(path, "TREC file")):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start}); expected a TREC file "
                             f"with columns '{columns}'", file=path, line=n) from None
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != want:
            raise InputError(f"expected {want} columns '{columns}', got {len(parts)}", file=path, line=n)
        yield n, parts


def _trec_number(text: str, parse: Callable[[str], _N], what: str, path: Path, line: int, field: str) -> _N:
    """``parse(text)`` for a TREC file's column ``field``, or an InputError naming file and line."""
    try:
        return parse(text)
    except ValueError:
        raise InputError(f"{field} {text!r} is not {what}", file=path, line=line, field=field) from None


def _sorted_items(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    # Descending score, ties broken by doc id descending: trec_eval's order, so a cut-off
    # with ``top(k)`` keeps exactly the documents trec_eval would rank first.
    return sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)


class Run(dict[str, dict[str, float]]):
    """Ranked candidates per query: ``{query_id: {doc_id: score}}``. Higher is better."""

    name: str = "run"
    #: per query, how sure the stage that made this Run is of its list, in [0, 1] (a query
    #: not in it: no statement, taken as 1); ``fuse`` with default weights weighs lists by it
    confidence: dict[str, float]
    #: What ``run_a + run_b`` calls: :func:`skbsearch.core.fusion.fuse_runs`, which registers
    #: itself here when imported (``skbsearch.core`` imports it first, so it is always set).
    fusion: ClassVar[Callable[[Sequence[Run]], Run]]

    def __init__(self, data: Mapping[str, Mapping[str, float]] | None = None, name: str = "run"):
        super().__init__()
        self.name = name
        self.confidence = {}
        for qid, docs in (data or {}).items():
            self[str(qid)] = {str(d): float(s) for d, s in docs.items()}

    def ranked(self, query_id: str) -> list[tuple[str, float]]:
        """The candidates of one query, best first (ties by doc id, descending, as trec_eval)."""
        return _sorted_items(self.get(query_id, {}))

    def top(self, k: int) -> Run:
        """A new Run with at most ``k`` candidates per query."""
        if k < 0:
            raise ValueError("k must be >= 0")
        out = Run({q: dict(_sorted_items(d)[:k]) for q, d in self.items()}, name=self.name)
        out.confidence = dict(self.confidence)
        return out

    def to_trec(self, path: str | Path, tag: str | None = None) -> None:
        """Write a TREC run file: ``qid Q0 docid rank score tag``."""
        tag = tag or self.name
        lines = []
        for qid, docs in self.items():
            for rank, (doc, score) in enumerate(_sorted_items(docs), start=1):
                lines.append(f"{qid} Q0 {doc} {rank} {score!r} {tag}")
        write_output(path, "\n".join(lines) + ("\n" if lines else ""))

    @classmethod
    def from_trec(cls, path: str | Path, name: str | None = None) -> Run:
        """Read a TREC run file (6 whitespace-separated columns a line)."""
        run: dict[str, dict[str, float]] = {}
        path = Path(path)
        for n, parts in _trec_rows(path, "qid Q0 docid rank score tag"):
            score = _trec_number(parts[4], float, "a number", path, n, "score")
            if math.isnan(score):
                raise InputError("score is NaN; every candidate needs a comparable score",
                                 file=path, line=n, field="score")
            docs = run.setdefault(parts[0], {})
            if parts[2] in docs:
                raise InputError(f"duplicate document {parts[2]!r} for query {parts[0]!r} "
                                 "(trec_eval refuses duplicate docs in a run)", file=path, line=n, field="docid")
            docs[parts[2]] = score
        return cls(run, name=name or path.stem)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """A plain dict (ranx's ``Run.from_dict`` / ir-measures input)."""
        return {q: dict(d) for q, d in self.items()}

    def __add__(self, other: object) -> Run:
        """``run_a + run_b``: the score-aware fusion a spec's ``+`` applies to two stages
        (``skbsearch.fuse(a, b, method=...)`` for RRF or weighted fusion)."""
        if not isinstance(other, Run):
            return NotImplemented
        return Run.fusion([self, other])

    def to_df(self) -> Any:
        """A pandas DataFrame ``qid, docno, rank, score`` (PyTerrier's result columns; ``rank``
        from 0 as PyTerrier numbers it), best first per query."""
        from skbsearch.core.frames import run_to_frame

        return run_to_frame(self, self.ranked)

    @classmethod
    def from_df(cls, frame: Any, name: str = "run") -> Run:
        """A Run from a DataFrame with ``qid, docno, score`` (PyTerrier) or ``q_id, doc_id,
        score`` (ranx) columns (any ``rank`` column is ignored: the scores order the list)."""
        from skbsearch.core.frames import triples_from_frame

        data = triples_from_frame(frame, "run")
        for qid, docs in data.items():
            for doc, score in docs.items():
                try:
                    docs[doc] = float(score)
                except (TypeError, ValueError):
                    raise InputError(f"score {score!r} of document {doc!r} for query {qid!r} is not a number",
                                     field="score") from None
        return cls(data, name=name)

    def to_ranx(self) -> Any:
        """A ``ranx.Run`` (needs ranx installed)."""
        from ranx import Run as RanxRun

        return RanxRun.from_dict(self.to_dict(), name=self.name)


def _json_grade(value: Any, path: Path, qid: str, doc: str) -> int:
    """A JSON qrels grade as an int: integers, or strings of one (as TREC DL dumps have)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise InputError(f"grade of document {doc!r} must be an integer, got {value!r}", file=path, field=qid)


class Qrels(dict[str, dict[str, int]]):
    """Relevance judgements: ``{query_id: {doc_id: grade}}``; grade > 0 is relevant."""

    def __init__(self, data: Mapping[str, Mapping[str, int]] | None = None):
        super().__init__()
        for qid, docs in (data or {}).items():
            self[str(qid)] = {str(d): int(g) for d, g in docs.items()}

    def relevant(self, query_id: str, min_grade: int = 1) -> set[str]:
        """Doc ids judged at least ``min_grade`` for a query."""
        return {d for d, g in self.get(query_id, {}).items() if g >= min_grade}

    def to_trec(self, path: str | Path) -> None:
        """Write a TREC qrels file: ``qid 0 docid grade``."""
        lines = [f"{q} 0 {d} {g}" for q, docs in self.items() for d, g in docs.items()]
        write_output(path, "\n".join(lines) + ("\n" if lines else ""))

    @classmethod
    def from_trec(cls, path: str | Path) -> Qrels:
        """Read a TREC qrels file (``qid iter docid grade``)."""
        qrels: dict[str, dict[str, int]] = {}
        path = Path(path)
        for n, parts in _trec_rows(path, "qid iter docid grade"):
            grade = _trec_number(parts[3], int, "an integer", path, n, "grade")
            qrels.setdefault(parts[0], {})[parts[2]] = grade
        if not qrels:
            raise InputError("no judgements: the qrels file is empty (expected lines 'qid iter docid grade')",
                             file=path)
        return cls(qrels)

    @classmethod
    def from_json(cls, path: str | Path) -> Qrels:
        """Read ``{qid: {docid: grade}}`` JSON (grades may be strings, as in TREC DL dumps)."""
        path = Path(path)
        try:
            text = path.read_bytes().decode("utf-8")
            data = json.loads(text)
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=path) from None
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON: {e.msg}", file=path, line=e.lineno) from None
        except (ValueError, RecursionError) as e:  # e.g. a number too long, nesting too deep
            raise InputError(f"malformed JSON ({type(e).__name__}: {str(e)[:100]})", file=path) from None
        check_json_text(text, data, file=path)
        shape = "expected a JSON object {qid: {docid: grade}}"
        if not isinstance(data, dict):
            raise InputError(f"{shape}, got {type(data).__name__}", file=path)
        if not data:
            raise InputError(f"no judgements: {shape}", file=path)
        qrels: dict[str, dict[str, int]] = {}
        for qid, docs in data.items():
            if not isinstance(docs, dict):
                raise InputError(f"{shape}; query {qid!r} maps to {type(docs).__name__}", file=path, field=qid)
            qrels[qid] = {d: _json_grade(g, path, qid, d) for d, g in docs.items()}
        return cls(qrels)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """A plain dict (ranx's ``Qrels.from_dict`` / ir-measures input)."""
        return {q: dict(d) for q, d in self.items()}

    @classmethod
    def from_df(cls, frame: Any) -> Qrels:
        """Qrels from a DataFrame with ``qid, docno, label`` (PyTerrier) or ``q_id, doc_id,
        score`` (ranx) columns; grades must be integers."""
        from skbsearch.core.frames import triples_from_frame

        data = triples_from_frame(frame, "qrels")
        for qid, docs in data.items():
            for doc, grade in docs.items():
                if isinstance(grade, float) and grade.is_integer():
                    grade = int(grade)
                if isinstance(grade, bool) or not isinstance(grade, int) and not hasattr(grade, "__index__"):
                    raise InputError(f"grade {grade!r} of document {doc!r} for query {qid!r} is not an "
                                     "integer", field="label")
                docs[doc] = int(grade)
        return cls(data)

    def to_ranx(self) -> Any:
        """A ``ranx.Qrels`` (needs ranx installed)."""
        from ranx import Qrels as RanxQrels

        return RanxQrels.from_dict(self.to_dict())

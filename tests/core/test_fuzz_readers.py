"""Property-based fuzzing of the run / qrels / query readers.

Generated text and bytes go to files; reading them must give a Run / Qrels / records, or
the library's own :class:`~skbsearch.core.errors.SkbError` naming the file (and the line where
there is one). Plus the trec_eval rules: duplicate docs and NaN scores in a run, and an
empty qrels file, are errors.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skbsearch.core.errors import InputError, SkbError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.core.types import Qrels, Run
from skbsearch.eval.query_stats import read_query_csv

# SKB_FUZZ_SCALE=10 fuzzes ten times longer (e.g. before a release).
FUZZ = settings(max_examples=400 * int(os.environ.get("SKB_FUZZ_SCALE", "1")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

TOKENS = st.sampled_from(["q1", "q2", "Q0", "0", "1", "2", "-1", "d1", "d2", "d3", "1.5", "nan", "NaN", "inf",
                          "-inf", "1e309", "0x10", "run", "tag", "é", "[/b]", "1_0", "", "\x00", "\x0b", "\u2028"])
JUNK = st.sampled_from([b"\xff\xfe", b"\x80", b"\xc3", b"\x00", b"\r", b"\t", b"\x1c"]) | st.binary(max_size=8)


COLUMN = {
    "qid": st.sampled_from(["q1", "q2", "1037798", "é"]),
    "Q0": st.sampled_from(["Q0", "0", "iter"]),
    "docid": st.sampled_from(["d1", "d2", "d3", "D4", "[/b]"]),
    "rank": st.integers(0, 1000).map(str),
    "score": st.floats(allow_nan=False).map(repr) | st.integers().map(str),
    "grade": st.integers(-1, 4).map(str),
    "tag": st.sampled_from(["run", "bm25"]),
}


@st.composite
def _columns_file(draw: st.DrawFn, columns: tuple[str, ...]) -> bytes:
    """Lines of whitespace-separated ``columns``; sometimes junk bytes, odd tokens or a wrong count."""
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        if not draw(st.integers(0, 14)):
            lines.append(draw(JUNK))
            continue
        cells = [draw(COLUMN[c] if draw(st.integers(0, 14)) else TOKENS) for c in columns]
        if not draw(st.integers(0, 14)):
            cells = cells[: draw(st.integers(0, len(cells)))] if draw(st.booleans()) else [*cells, "x"]
        sep = draw(st.sampled_from([" ", " ", "\t", "  "]))
        lines.append(sep.join(cells).encode())
    return b"\n".join(lines) + draw(st.sampled_from([b"", b"\n", b"\r\n"]))


def _read(data: bytes, name: str, read: Callable[[Path], Any]) -> tuple[Path, Any, SkbError | None]:
    """Write ``data`` to a temp file and read it: ``(path, result, error)``."""
    tmp = Path(tempfile.mkdtemp(prefix="skb-fuzz-"))
    path = tmp / name
    path.write_bytes(data)
    try:
        return path, read(path), None
    except SkbError as e:
        event(f"{type(e).__name__}: {str(e).split(': ', 1)[-1][:25]}")
        return path, None, e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _names_file(e: SkbError, path: Path) -> None:
    assert str(e).startswith(str(path)), f"error does not start with the file name: {e}"
    if isinstance(e, InputError):
        assert e.file == str(path)


@FUZZ
@given(data=_columns_file(("qid", "Q0", "docid", "rank", "score", "tag")))
def test_fuzz_run_reader(data: bytes) -> None:
    path, run, err = _read(data, "run.trec", Run.from_trec)
    if err is not None:
        _names_file(err, path)
        return
    event("read")
    assert isinstance(run, Run)
    for docs in run.values():
        assert all(isinstance(s, float) and not math.isnan(s) for s in docs.values())
    n_lines = sum(1 for ln in data.decode().splitlines() if ln.strip()) if data.strip() else 0
    assert sum(len(d) for d in run.values()) <= n_lines


@FUZZ
@given(data=_columns_file(("qid", "Q0", "docid", "grade")))
def test_fuzz_qrels_reader(data: bytes) -> None:
    path, qrels, err = _read(data, "qrels.txt", Qrels.from_trec)
    if err is not None:
        _names_file(err, path)
        return
    event("read")
    assert qrels and all(isinstance(g, int) for d in qrels.values() for g in d.values())


GRADES = st.one_of(st.integers(-3, 3), st.sampled_from(["1", " 2", "x", "", "1.5", "9" * 5000]),
                   st.floats(allow_nan=True), st.booleans(), st.none(), st.lists(st.integers(), max_size=2))
QRELS_JSON = st.one_of(
    st.dictionaries(st.sampled_from(["q1", "q2", ""]),
                    st.dictionaries(st.sampled_from(["d1", "d2"]), GRADES, max_size=3) | GRADES, max_size=3)
    .map(lambda d: json.dumps(d).encode()),
    st.sampled_from([b"[]", b"{", b"null", b"[" * 5000 + b"]" * 5000, b'{"q": {"d": ' + b"9" * 5000 + b"}}",
                     b"\xff{}", b""]),
    st.binary(max_size=16),
)


@FUZZ
@given(data=QRELS_JSON)
def test_fuzz_qrels_json_reader(data: bytes) -> None:
    path, qrels, err = _read(data, "qrels.json", Qrels.from_json)
    if err is not None:
        _names_file(err, path)
        return
    event("read")
    assert qrels and all(type(g) is int for d in qrels.values() for g in d.values())


@FUZZ
@given(data=st.lists(st.one_of(*[st.dictionaries(st.sampled_from(["id", "text"]), st.text(max_size=5), max_size=2)
                                 .map(lambda d: json.dumps(d).encode())] * 6, JUNK,
                               st.sampled_from([b"[1]", b"{", b"[" * 5000, b"9" * 5000])),
                     max_size=5).map(b"\n".join))
def test_fuzz_iter_jsonl(data: bytes) -> None:
    path, recs, err = _read(data, "q.jsonl", lambda p: list(iter_jsonl(p)))
    if err is not None:
        _names_file(err, path)
        assert isinstance(err, InputError) and err.line is not None
        return
    assert all(isinstance(r, dict) for _, r in recs)


CSV_CELL = st.sampled_from(["q", "what is x?", "[1, 2]", "[", "[[[[[", "9" * 5000, "", '"', "a,b", "\x00",
                            "[" * 3000 + "]" * 3000]) | st.text(max_size=6)


@FUZZ
@given(header=st.lists(st.sampled_from(["id", "query", "query", "answer_ids", "answer_ids", "x", ""]), max_size=4),
       rows=st.lists(st.lists(CSV_CELL, max_size=4), max_size=4),
       tail=st.sampled_from([b"", b"", b"", b"\n\"unterminated", b"\x00,x"]) | JUNK)
def test_fuzz_query_csv_reader(header: list[str], rows: list[list[str]], tail: bytes) -> None:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(rows)
    path, res, err = _read(buf.getvalue().encode() + tail, "queries.csv", read_query_csv)
    if err is not None:
        _names_file(err, path)
        return
    queries, answers = res
    assert all(isinstance(q, str) for q in queries)
    assert answers is None or all(isinstance(a, list) for a in answers)


# ------------------------------------------------------------------ trec_eval's rules
def test_run_duplicate_doc_is_an_error(tmp_path):
    p = tmp_path / "run"
    p.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d1 3 0.5 t\n")
    with pytest.raises(InputError) as e:
        Run.from_trec(p)
    assert (e.value.file, e.value.line, e.value.field) == (str(p), 3, "docid")
    p.write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d1 1 2.0 t\n")  # the same doc for two queries is fine
    assert set(Run.from_trec(p)) == {"q1", "q2"}


def test_run_nan_score_is_an_error(tmp_path):
    p = tmp_path / "run"
    p.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 nan t\n")
    with pytest.raises(InputError) as e:
        Run.from_trec(p)
    assert (e.value.file, e.value.line, e.value.field) == (str(p), 2, "score")


def test_empty_qrels_is_an_error(tmp_path):
    for name, text in (("qrels.txt", ""), ("blank.txt", "\n  \n"), ("qrels.json", "{}")):
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(InputError, match="empty|no judgements") as e:
            Qrels.from_json(p) if name.endswith(".json") else Qrels.from_trec(p)
        assert e.value.file == str(p)


def test_binary_run_and_qrels_name_file_and_line(tmp_path):
    p = tmp_path / "run"
    p.write_bytes(b"q1 Q0 d1 1 2.0 t\n\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(InputError, match="not UTF-8") as e:
        Run.from_trec(p)
    assert (e.value.file, e.value.line) == (str(p), 2)
    p.write_bytes(b"q1 0 d1 1\n\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(InputError, match="not UTF-8") as e:
        Qrels.from_trec(p)
    assert (e.value.file, e.value.line) == (str(p), 2)
    with pytest.raises(InputError, match="not UTF-8"):
        Qrels.from_json(p)

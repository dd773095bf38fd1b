"""Line reading bounded per line, and ``require_file``'s one message per kind of path."""

from __future__ import annotations

import io
import os
import socket
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.lines import (
    bounded,
    iter_lines,
    iter_raw_lines,
    iter_text_lines,
    line_too_long,
    require_file,
)


def test_lines_are_numbered_and_keep_their_breaks(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_bytes(b"one\r\ntwo\n\nlast")
    assert list(iter_lines(f)) == [(1, b"one\r\n"), (2, b"two\n"), (3, b"\n"), (4, b"last")]
    assert [n for n, _ in iter_raw_lines(io.BytesIO(b"a\nb\n"), "x", start=10)] == [10, 11]


def test_a_line_over_the_limit_names_file_and_line_after_reading_at_most_the_limit(
        tmp_path: Path) -> None:
    f = tmp_path / "big.jsonl"
    f.write_bytes(b"ok\n" + b"x" * 10 + b"\nnever read\n")
    lines = iter_lines(f, limit=8)
    assert next(lines) == (1, b"ok\n")
    with pytest.raises(InputError) as e:
        next(lines)
    assert (e.value.file, e.value.line) == (str(f), 2)
    assert list(iter_lines(f, limit=11))[1] == (2, b"x" * 10 + b"\n")  # the break counts
    fh = io.BytesIO(b"y" * 100)
    with pytest.raises(InputError):
        next(iter_raw_lines(fh, "stream", limit=8))
    assert fh.tell() == 9  # limit + 1 bytes read, not the whole line


def test_the_limit_message_says_what_to_do() -> None:
    err = line_too_long("f.csv", 3, limit=16 * 1024 * 1024)
    assert str(err) == ("f.csv:3: line longer than 16 MiB (16,777,216 bytes); split the record "
                        "or shorten its text")


def test_bounded_text_lines_keep_csv_newlines_and_stop_long_ones() -> None:
    assert list(bounded(io.StringIO("a,b\r\nc,d\n", newline=""), "t.csv")) == ["a,b\r\n", "c,d\n"]
    with pytest.raises(InputError, match=r"t.csv:2: line longer"):
        list(bounded(io.StringIO("a\n" + "z" * 20 + "\n"), "t.csv", limit=5))


def test_text_lines_that_are_not_utf8_name_their_line(tmp_path: Path) -> None:
    f = tmp_path / "q.tsv"
    f.write_bytes("é\n".encode() + b"\xff\xfe\n")
    lines = iter_text_lines(f)
    assert next(lines) == "é\n"
    with pytest.raises(InputError, match=r"q.tsv:2: not UTF-8 text \(invalid start byte at byte 0\)"):
        next(lines)


def test_a_file_that_cannot_be_opened_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read: No such file or directory"):
        list(iter_lines(tmp_path / "missing.txt"))


def test_require_file_tells_missing_from_the_other_kinds(tmp_path: Path) -> None:
    f = tmp_path / "nodes.jsonl"
    f.write_text("{}\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(f)
    assert require_file(f) == f and require_file(str(link)) == link
    with pytest.raises(InputError, match="nodes file not found; see --help"):
        require_file(tmp_path / "none", "nodes file", "; see --help")
    with pytest.raises(InputError, match="is a directory, not a file"):
        require_file(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"is a FIFO \(named pipe\), not a queries file"):
        require_file(fifo, "queries file")
    with pytest.raises(InputError, match="is a device"):
        require_file("/dev/null")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(tmp_path / "sock"))
        with pytest.raises(InputError, match="is a socket"):
            require_file(tmp_path / "sock")

"""Reading text files a line at a time with a bound on a line's size.

Every line-based reader of user files (JSONL, CSV/TSV, KG triple and by-id files, query and
id lists) reads through :func:`iter_lines` (or :func:`bounded`, over an open text file), so one line never costs more than
:data:`MAX_LINE_BYTES` of memory: a longer line (a file with no line break at all, a JSON
record of gigabytes) is an :class:`InputError` naming the file and line, found after reading
at most that many bytes of it — never a ``MemoryError``.
"""

from __future__ import annotations

import functools
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

from skbsearch.core.errors import InputError

#: The longest line (bytes, line break included) a reader accepts: 16 MiB, the size of the
#: largest token the RDF parser takes, and far above any record of the data we know.
MAX_LINE_BYTES = 16 * 1024 * 1024


def line_too_long(file: str | Path, line: int, limit: int = MAX_LINE_BYTES) -> InputError:
    """The error for line ``line`` of ``file`` longer than ``limit`` bytes."""
    return InputError(f"line longer than {limit // (1024 * 1024)} MiB ({limit:,} bytes); split "
                      "the record or shorten its text", file=file, line=line)


def iter_raw_lines(fh: BinaryIO, file: str | Path, *, limit: int = MAX_LINE_BYTES,
                   start: int = 1) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes with the line break)`` of an open binary file, each read with
    at most ``limit + 1`` bytes in memory.

    Raises:
        InputError: a line longer than ``limit`` bytes, naming ``file`` and the line.
    """
    for ln, raw in enumerate(iter(functools.partial(fh.readline, limit + 1), b""), start):
        if len(raw) > limit:
            raise line_too_long(file, ln, limit)
        yield ln, raw


def bounded(fh: TextIO, file: str | Path, *, limit: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of an open *text* file (its own newline handling kept, so it can feed
    :mod:`csv`), each read with at most ``limit + 1`` characters in memory.

    Raises:
        InputError: a line longer than ``limit`` characters, naming ``file`` and the line.
    """
    for ln, raw in enumerate(iter(functools.partial(fh.readline, limit + 1), ""), 1):
        if len(raw) > limit:
            raise line_too_long(file, ln, limit)
        yield raw


def iter_lines(path: str | Path, *, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """:func:`iter_raw_lines` of the file at ``path`` (opened and closed here).

    Raises:
        InputError: the file cannot be opened, or a line is too long.
    """
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=path) from None
    with fh:
        yield from iter_raw_lines(fh, path, limit=limit)


def iter_text_lines(path: str | Path, *, limit: int = MAX_LINE_BYTES,
                    encoding: str = "utf-8") -> Iterator[str]:
    """The lines of a text file as strings (line breaks kept, for :mod:`csv`), each
    bounded as in :func:`iter_lines`; bytes that are not ``encoding`` name the line."""
    for ln, raw in iter_lines(path, limit=limit):
        try:
            yield raw.decode(encoding)
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=path,
                             line=ln) from None


def require_file(path: str | Path, what: str = "file", hint: str = "") -> Path:
    """``path`` as a :class:`Path` when it is a regular file (or a link to one).

    Raises:
        InputError: naming ``path``: ``WHAT not found`` only when nothing is there; a
            directory, a FIFO, a socket or a device each get their own message.
    """
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"{what} not found{hint}", file=p) from None
    except OSError as e:
        raise InputError(f"cannot read the {what}: {e.strerror}", file=p) from None
    if stat.S_ISREG(mode):
        return p
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a special file")
    raise InputError(f"is {kind}, not a {what}; give a regular file{hint}", file=p)

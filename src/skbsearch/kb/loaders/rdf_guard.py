"""Bounds on RDF input before the parser sees it: XML entity expansion and token size.

RDF/XML may declare entities in a DTD (``<!ENTITY rdf "http://www.w3.org/...">``, common in
OWL files to shorten IRIs), and the parser expands every reference. Unchecked, a 1 KB file
of nested entities ("billion laughs") expands to gigabytes, and a 160 KB file referencing one
large entity many times ("quadratic blowup") does too. :func:`check_xml_entities` reads the
file once, before parsing, and refuses it (:class:`InputError` naming the file and line) when

- the DTD's internal subset is over :data:`MAX_DTD_BYTES`, declares a parameter entity
  (``<!ENTITY % ...>``) or an entity that refers to itself, or cannot be read;
- one entity expands to more than the budget, or all references in the document together
  add more than the budget: the larger of :data:`ENTITY_BUDGET_BYTES` and the file's size.

External entities (``SYSTEM``/``PUBLIC``) are never fetched by the parser; they count as empty.
A file without a DTD costs one read of its first bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from skbsearch.core.errors import InputError

#: What entity references may add to a document in all: 16 MiB (or the file's size, if larger).
ENTITY_BUDGET_BYTES = 16 * 1024 * 1024
#: The largest literal or IRI the RDF parser (pyoxigraph) takes; a longer one is an error.
MAX_TOKEN_BYTES = 16 * 1024 * 1024
#: The largest DTD internal subset read.
MAX_DTD_BYTES = 1024 * 1024
_CHUNK = 1 << 20
_NAME = r"[A-Za-z_:][-A-Za-z0-9._:]*"
_QUOTED = r"\"[^\"]*\"|'[^']*'"
_DTD_TOKEN = re.compile(
    rf"(?P<space>\s+)|(?P<comment><!--.*?-->)|(?P<pi><\?.*?\?>)"
    rf"|<!ENTITY\s+(?P<pe>%\s+)?(?P<name>{_NAME})\s+"
    rf"(?:(?P<value>{_QUOTED})|(?P<external>(?:SYSTEM|PUBLIC)(?:\s+(?:{_QUOTED}))+(?:\s+NDATA\s+{_NAME})?))\s*>"
    rf"|(?P<decl><!(?:ELEMENT|ATTLIST|NOTATION)(?:[^>\"']|{_QUOTED})*>)|(?P<peref>%{_NAME};)"
    rf"|(?P<end>\]\s*>)", re.S)
_REF = re.compile(rf"&({_NAME});")
_DOCTYPE = re.compile(rb"<!DOCTYPE\s[^[>]*\[", re.S)
_ELEMENT_START = re.compile(rb"<[A-Za-z_]")


def _refuse(msg: str, file: Path, text_before: bytes | str = b"", start_line: int = 1) -> InputError:
    nl = "\n" if isinstance(text_before, str) else b"\n"
    line = start_line + text_before.count(nl)  # type: ignore[arg-type]
    return InputError(f"{msg} (entity expansion is capped so that a small file cannot "
                      "exhaust memory)", file=file, line=line)


def _internal_subset(path: Path) -> tuple[str, int, int] | None:
    """``(internal subset text, its first line, byte offset after it)``, or None without one."""
    with open(path, "rb") as fh:
        head = fh.read(_CHUNK)
        first = _ELEMENT_START.search(head)
        m = _DOCTYPE.search(head, 0, first.start() if first else len(head))
        if m is None:
            return None
        data = head[m.end():]
        while len(data) <= MAX_DTD_BYTES + 2:
            more = fh.read(_CHUNK)
            if not more:
                break
            data += more
    line = head[: m.end()].count(b"\n") + 1
    return data[: MAX_DTD_BYTES + 2].decode("utf-8", "replace"), line, m.end()


def _entities(subset: str, path: Path, line: int) -> tuple[dict[str, str | None], dict[str, int], int]:
    """Declared general entities (value, or None when external), the line of each
    declaration, and the subset's length."""
    ents: dict[str, str | None] = {}
    lines: dict[str, int] = {}
    pos = 0
    while True:
        m = _DTD_TOKEN.match(subset, pos)
        if m is None:
            if pos >= MAX_DTD_BYTES:
                raise _refuse(f"a DTD over {MAX_DTD_BYTES // 1024} KiB", path, "", line)
            raise _refuse("cannot read this DTD declaration", path, subset[:pos], line)
        if m.group("end"):
            return ents, lines, m.end()
        if m.group("pe") or m.group("peref"):
            raise _refuse("parameter entities (<!ENTITY % ...>) are not supported", path,
                          subset[:pos], line)
        if m.group("name"):
            value = m.group("value")
            if m.group("name") not in ents:
                ents[m.group("name")] = value[1:-1] if value else None
                lines[m.group("name")] = line + subset.count("\n", 0, pos)
        pos = m.end()


def _sizes(ents: dict[str, str | None], budget: int, path: Path, lines: dict[str, int]) -> dict[str, int]:
    """The expanded length of every entity, each computed at most up to ``budget + 1``."""
    sizes: dict[str, int] = {}
    active: set[str] = set()

    def size(name: str) -> int:
        if name in sizes:
            return sizes[name]
        if name in active:
            raise _refuse(f"entity '{name}' refers to itself", path, "", lines[name])
        value = ents[name] or ""
        active.add(name)
        total = len(value.encode("utf-8"))
        for ref in _REF.finditer(value):
            if ref.group(1) in ents:
                total += size(ref.group(1)) - len(ref.group(0))
                if total > budget:
                    break
        active.discard(name)
        sizes[name] = min(total, budget + 1)
        if total > budget:
            raise _refuse(f"entity '{name}' expands to more than {budget:,} bytes", path, "", lines[name])
        return sizes[name]

    for name in ents:
        size(name)
    return sizes


def check_xml_entities(path: str | Path, *, budget: int | None = None) -> None:
    """Refuse an XML file whose entity references would expand beyond the budget (see the
    module docstring); a file without a DTD passes after one read of its first MiB.

    Raises:
        InputError: naming the file and line.
    """
    path = Path(path)
    found = _internal_subset(path)
    if found is None:
        return
    subset, line, offset = found
    limit = budget if budget is not None else max(ENTITY_BUDGET_BYTES, path.stat().st_size)
    ents, lines, length = _entities(subset, path, line)
    sizes = _sizes(ents, limit, path, lines)
    grow = {name: size - len(name) - 2 for name, size in sizes.items()}
    if not any(g > 0 for g in grow.values()):
        return
    start = offset + len(subset[:length].encode("utf-8"))
    added = 0
    ln = line + subset[:length].count("\n")
    with open(path, "rb") as fh:
        fh.seek(start)
        tail = b""
        while chunk := fh.read(_CHUNK):
            text = (tail + chunk).decode("utf-8", "replace")
            cut = text.rfind("&")
            body, tail_text = (text[:cut], text[cut:]) if cut >= 0 and ";" not in text[cut:] else (text, "")
            for ref in _REF.finditer(body):
                added += max(grow.get(ref.group(1), 0), 0)
                if added > limit:
                    raise _refuse(f"entity references add more than {limit:,} bytes", path,
                                  body[: ref.start()], ln)
            ln += body.count("\n")
            tail = tail_text.encode("utf-8")[-256:]


class _Counting:
    """A binary file that counts the bytes read from it (to place a parser's failure)."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.read_bytes = 0

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        self.read_bytes += len(data)
        return data

    def readinto(self, buf: Any) -> int:
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)


def token_too_long(path: Path, ox: Any, fmt: Any, base_iri: str | None) -> InputError:
    """The error for a file whose parse hit the parser's token cap (a literal or IRI over
    :data:`MAX_TOKEN_BYTES`), naming the line where the parser stopped: the file is parsed
    again, reading through a counter."""
    line: int | None = None
    try:
        with open(path, "rb") as fh:
            counted = _Counting(fh)
            try:
                for _ in ox.parse(input=counted, format=fmt, base_iri=base_iri):
                    pass
            except MemoryError:
                pass
            except (SyntaxError, OSError, ValueError):
                return InputError("unreadable RDF", file=path)
            fh.seek(0)
            line = 1 + sum(chunk.count(b"\n") for chunk in _chunks(fh, counted.read_bytes))
    except OSError:
        pass
    return InputError(f"a literal or IRI longer than {MAX_TOKEN_BYTES // (1024 * 1024)} MiB "
                      "ends at or before this line; the RDF parser takes tokens up to that size",
                      file=path, line=line)


def _chunks(fh: BinaryIO, total: int) -> Iterator[bytes]:
    while total > 0:
        data = fh.read(min(_CHUNK, total))
        if not data:
            return
        total -= len(data)
        yield data

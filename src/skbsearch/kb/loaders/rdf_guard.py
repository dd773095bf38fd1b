"""Bounds on RDF input before the parser sees it: XML entity expansion and token size.

RDF/XML may declare entities in a DTD (``<!ENTITY rdf "http://www.w3.org/...">``, common in
OWL files to shorten IRIs), and the parser expands every reference. Unchecked, a 1 KB file
of nested entities ("billion laughs") expands to gigabytes, and a 160 KB file referencing one
large entity many times ("quadratic blowup") does too. :func:`check_xml_entities` reads the
file once, before parsing, and refuses it (:class:`InputError` naming the file and line) when

- it holds more than one ``<!DOCTYPE`` (looked for everywhere and in any case, so that no
  comment or junk before the DTD hides it from this check);
- the DTD's internal subset is over :data:`MAX_DTD_BYTES`, declares a parameter entity
  (``<!ENTITY % ...>``) or an entity that refers to itself, or cannot be read;
- one entity expands to more than the budget, or all references in the document together
  add more than the budget: the larger of :data:`ENTITY_BUDGET_BYTES` and the file's size.
  An ``&#38;`` in an entity value counts as the ``&`` of a reference (it becomes one).

External entities (``SYSTEM``/``PUBLIC``) are never fetched by the parser; they count as empty.
The check reads the file once more (a fast byte search; ~1 GB/s); references are counted
only when the DTD declares an entity that grows.
"""

from __future__ import annotations

import re
from collections import Counter
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
_REF_BYTES = re.compile(rf"&({_NAME});".encode())
#: a DOCTYPE's opening (the parser reads the keyword in any case) up to its internal subset's ``[``
_DOCTYPE = re.compile(rb"<!doctype\s(?:[^\[>\"']|\"[^\"]*\"|'[^']*')*\[", re.I | re.S)
_DOCTYPE_START = re.compile(rb"<!doctype", re.I)
#: ``&#38;`` / ``&#x26;`` in an entity value: an ``&`` once the value is read, so a reference
_AMP_CHARREF = re.compile(r"&#(?:0*38|x0*26);", re.I)


def _refuse(msg: str, file: Path, text_before: bytes | str = b"", start_line: int = 1) -> InputError:
    nl = text_before.count("\n") if isinstance(text_before, str) else text_before.count(b"\n")
    line = start_line + nl
    return InputError(f"{msg} (entity expansion is capped so that a small file cannot "
                      "exhaust memory)", file=file, line=line)


def _doctypes(path: Path) -> list[tuple[int, int]]:
    """``(byte offset, line)`` of every ``<!DOCTYPE`` in the file (one read, in chunks): a
    DOCTYPE is looked for everywhere, not only where the prolog should end, so no comment
    or junk before it hides it."""
    found: list[tuple[int, int]] = []
    keep = len(b"<!doctype") - 1
    with open(path, "rb") as fh:
        tail, base, lines_before = b"", 0, 0
        while chunk := fh.read(_CHUNK):
            data = tail + chunk
            for m in _DOCTYPE_START.finditer(data):
                found.append((base + m.start(), 1 + lines_before + data.count(b"\n", 0, m.start())))
            cut = max(len(data) - keep, 0)
            lines_before += data.count(b"\n", 0, cut)
            base += cut
            tail = data[cut:]
    return found


def _internal_subset(path: Path) -> tuple[str, int, int] | None:
    """``(internal subset text, its first line, byte offset where it starts)``, or None when
    the file has no DOCTYPE with an internal subset; more than one DOCTYPE is refused."""
    doctypes = _doctypes(path)
    if not doctypes:
        return None
    if len(doctypes) > 1:
        raise _refuse("more than one <!DOCTYPE> in one file", path, "", doctypes[1][1])
    offset, line = doctypes[0]
    with open(path, "rb") as fh:
        fh.seek(offset)
        data = fh.read(MAX_DTD_BYTES + 64 * 1024)
    m = _DOCTYPE.match(data)
    if m is None:
        return None
    subset = data[m.end(): m.end() + MAX_DTD_BYTES + 2]
    return subset.decode("utf-8", "replace"), line + data.count(b"\n", 0, m.end()), offset + m.end()


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
                ents[m.group("name")] = _AMP_CHARREF.sub("&", value[1:-1]) if value else None
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
    grow = {name.encode(): size - len(name) - 2 for name, size in sizes.items()}
    grow = {name: g for name, g in grow.items() if g > 0}
    if grow:
        start = offset + len(subset[:length].encode("utf-8"))
        _count_references(path, start, line + subset[:length].count("\n"), grow, limit)


def _count_references(path: Path, start: int, line: int, grow: dict[bytes, int], limit: int) -> None:
    """Add up what the references after byte ``start`` (line ``line``) to the entities in
    ``grow`` (name -> bytes added per reference) add; refuse past ``limit``, naming the line
    of the reference that crosses it. Counted a chunk at a time in C (``findall``)."""
    added = 0
    with open(path, "rb") as fh:
        fh.seek(start)
        tail = b""
        while chunk := fh.read(_CHUNK):
            data = tail + chunk
            cut = data.rfind(b"&")
            if cut >= 0 and b";" not in data[cut:]:  # a reference may go on in the next chunk
                data, tail = data[:cut], data[cut:][:256]
            else:
                tail = b""
            counts = Counter(_REF_BYTES.findall(data))
            more = sum(grow.get(name, 0) * n for name, n in counts.items())
            if added + more > limit:
                for ref in _REF_BYTES.finditer(data):
                    added += grow.get(ref.group(1), 0)
                    if added > limit:
                        raise _refuse(f"entity references add more than {limit:,} bytes", path,
                                      data[: ref.start()], line)
            added += more
            line += data.count(b"\n")


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

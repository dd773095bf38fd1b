"""The pipeline language: a spec string parsed (never ``eval``-ed) into stage objects.

::

    bm25(k=200) + dense(k=200) >> graph % 100 >> cross-encoder(model='ce/') % 10

Grammar (precedence as in Python: ``%`` binds tighter than ``+``, which binds tighter
than ``>>``)::

    chain    := fusion (">>" fusion)*          run left to right, each gets the last Run
    fusion   := cut ("+" cut)*                 a + b  ==  fuse(a, b)
    cut      := primary ("%" INT)*             keep the top INT of every query
    primary  := NAME ["(" args ")"] | "(" chain ")"
    args     := arg ("," arg)*
    arg      := value | NAME "=" value         positional values: stages (fusions) or the
                                               stage's first parameter (run('x.trec'))
    value    := NUMBER | 'string' | "string" | true | false | none | NAME-word
              | "[" value ("," value)* "]" | chain

Stage names may contain ``-`` (``cross-encoder``). Every name must be registered
(:func:`skbsearch.stages.available_stages`); unknown names and parameters fail with the
valid choices. The Python operators (``>>``, ``%``, ``+``) build the same objects.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from skbsearch.core.errors import InputError

MAX_SPEC_CHARS = 4000
MAX_DEPTH = 32

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*(?:\.[A-Za-z0-9_]+)*)
    | (?P<op>>>|[%+(),=\[\]])
    )""",
    re.VERBOSE,
)


@dataclass
class Call:
    """``name(args…)`` in a spec."""

    name: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Chain:
    """``a >> b >> …``."""

    parts: list[Any]


@dataclass
class Fuse:
    """``a + b + …`` (RRF by default)."""

    parts: list[Any]


@dataclass
class Cut:
    """``a % k``."""

    inner: Any
    k: int


@dataclass
class Word:
    """A bare word used as a value (``method=rrf``): a string unless it names a stage."""

    text: str


@dataclass
class _Tok:
    kind: str
    value: Any
    pos: int


def _unquote(raw: str) -> str:
    body = raw[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def _number(raw: str, spec: str, pos: int) -> int | float:
    """A number token's value; infinite (``1e999``) or unreadable numbers are refused."""
    try:
        value = float(raw) if any(c in raw for c in ".eE") else int(raw)
    except ValueError:  # more digits than Python converts
        value = math.inf
    if not math.isfinite(value):
        raise InputError(f"number {raw[:20]}{'...' if len(raw) > 20 else ''} at position "
                         f"{pos + 1} of pipeline {spec!r} is out of range", field="pipeline")
    return value


def tokenize(spec: str) -> list[_Tok]:
    """Split a spec into tokens (raises :class:`InputError` at the first bad character)."""
    toks: list[_Tok] = []
    pos, n = 0, len(spec)
    while True:
        while pos < n and spec[pos].isspace():
            pos += 1
        if pos >= n:
            break
        m = _TOKEN.match(spec, pos)
        if m is None or m.end() == pos:
            raise InputError(f"unexpected character {spec[pos]!r} at position {pos + 1} of "
                             f"pipeline {spec!r}", field="pipeline")
        kind = m.lastgroup or ""
        raw = m.group(kind)
        value: Any = raw
        if kind == "num":
            value = _number(raw, spec, m.start(kind))
        elif kind == "str":
            value = _unquote(raw)
        toks.append(_Tok(kind, value, m.start(kind)))
        pos = m.end()
    toks.append(_Tok("end", None, n))
    return toks


class _Parser:
    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.toks = tokenize(spec)
        self.i = 0
        self.depth = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def at(self, op: str) -> bool:
        t = self.peek()
        return t.kind == "op" and t.value == op

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, op: str) -> None:
        if not self.at(op):
            self.fail(f"expected '{op}'")
        self.take()

    def fail(self, what: str) -> None:
        t = self.peek()
        where = "at the end" if t.kind == "end" else f"at position {t.pos + 1} ({t.value!r})"
        raise InputError(f"{what} {where} of pipeline {self.spec!r}", field="pipeline")

    def parse(self) -> Any:
        node = self.chain()
        if self.peek().kind != "end":
            self.fail("unexpected input")
        return node

    def chain(self) -> Any:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(f"nesting deeper than {MAX_DEPTH}")
        parts = [self.fusion()]
        while self.at(">>"):
            self.take()
            parts.append(self.fusion())
        self.depth -= 1
        return parts[0] if len(parts) == 1 else Chain(parts)

    def fusion(self) -> Any:
        parts = [self.cut()]
        while self.at("+"):
            self.take()
            parts.append(self.cut())
        return parts[0] if len(parts) == 1 else Fuse(parts)

    def cut(self) -> Any:
        node = self.primary()
        while self.at("%"):
            self.take()
            t = self.peek()
            if t.kind != "num" or not isinstance(t.value, int) or t.value < 0:
                self.fail("expected a whole number >= 0 after '%'")
            self.take()
            node = Cut(node, t.value)
        return node

    def primary(self) -> Any:
        t = self.peek()
        if self.at("("):
            self.take()
            inner = self.chain()
            self.expect(")")
            return inner
        if t.kind != "name":
            self.fail("expected a stage name")
        self.take()
        call = Call(t.value)
        if self.at("("):
            self.take()
            if not self.at(")"):
                self.args(call)
            self.expect(")")
        return call

    def args(self, call: Call) -> None:
        while True:
            t, nxt = self.peek(), self.toks[min(self.i + 1, len(self.toks) - 1)]
            if t.kind == "name" and nxt.kind == "op" and nxt.value == "=":
                self.take()
                self.take()
                if t.value in call.kwargs:
                    self.fail(f"parameter {t.value!r} given twice")
                call.kwargs[t.value] = self.value()
            else:
                if call.kwargs:
                    self.fail("positional argument after keyword arguments")
                call.args.append(self.value())
            if not self.at(","):
                return
            self.take()

    def value(self) -> Any:
        t = self.peek()
        if t.kind in ("num", "str"):
            self.take()
            return t.value
        if self.at("["):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                self.fail(f"nesting deeper than {MAX_DEPTH}")
            self.take()
            items: list[Any] = []
            if not self.at("]"):
                items.append(self.value())
                while self.at(","):
                    self.take()
                    items.append(self.value())
            self.expect("]")
            self.depth -= 1
            return items
        if t.kind == "name" and t.value.lower() in ("true", "false", "none", "null"):
            self.take()
            return {"true": True, "false": False}.get(t.value.lower())
        node = self.chain()
        if isinstance(node, Call) and not node.args and not node.kwargs:
            return Word(node.name)
        return node


def parse_spec(spec: str) -> Any:
    """Parse a pipeline spec into its syntax tree (:class:`Call`, :class:`Chain`, …)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError("empty pipeline spec", field="pipeline")
    if len(spec) > MAX_SPEC_CHARS:
        raise InputError(f"pipeline spec longer than {MAX_SPEC_CHARS} characters", field="pipeline")
    return _Parser(spec).parse()

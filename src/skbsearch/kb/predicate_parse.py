"""The ``--where`` predicate language: tokens, the expression tree, the parser and the
rendering back to SQL text (the grammar is in :mod:`skbsearch.kb.predicate`, which
evaluates a tree and re-exports these names)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from skbsearch.core.errors import InputError

#: Longest predicate accepted (characters); longer text is refused before parsing.
MAX_PREDICATE_CHARS = 10_000
#: Deepest nesting of parentheses / NOT accepted.
MAX_DEPTH = 64
_FIELD = "where"
_CMP = {"=": "equal", "==": "equal", "!=": "not_equal", "<>": "not_equal", "<": "less",
        "<=": "less_equal", ">": "greater", ">=": "greater_equal"}
_KEYWORDS = {"AND", "OR", "NOT", "IN", "BETWEEN", "LIKE", "ILIKE", "IS", "NULL", "TRUE", "FALSE"}
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    | (?P<str>'(?:[^']|'')*')
    | (?P<qid>"(?:[^"]|"")*")
    | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op><=|>=|<>|!=|==|=|<|>)
    | (?P<punct>[(),])
    | (?P<minus>-)
    )""",
    re.VERBOSE,
)


# ---------------------------------------------------------------------------- the tree
@dataclass(frozen=True)
class Column:
    """A reference to a node column."""

    name: str


@dataclass(frozen=True)
class Literal:
    """A constant: number, string, boolean or ``None`` (SQL NULL)."""

    value: Any


@dataclass(frozen=True)
class Compare:
    """``left OP right`` with OP one of ``= != < <= > >=``."""

    op: str
    left: Column | Literal
    right: Column | Literal


@dataclass(frozen=True)
class InList:
    """``operand [NOT] IN (v1, v2, ...)``."""

    operand: Column | Literal
    values: tuple[Literal, ...]
    negated: bool = False


@dataclass(frozen=True)
class Between:
    """``operand [NOT] BETWEEN low AND high`` (inclusive)."""

    operand: Column | Literal
    low: Column | Literal
    high: Column | Literal
    negated: bool = False


@dataclass(frozen=True)
class Like:
    """``operand [NOT] LIKE|ILIKE 'pattern'`` (``%`` any run, ``_`` one character)."""

    operand: Column | Literal
    pattern: str
    negated: bool = False
    ignore_case: bool = False


@dataclass(frozen=True)
class IsNull:
    """``operand IS [NOT] NULL``."""

    operand: Column | Literal
    negated: bool = False


@dataclass(frozen=True)
class BoolOp:
    """``AND`` / ``OR`` over two or more operands."""

    op: str  # "AND" | "OR"
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Not:
    """``NOT operand``."""

    arg: Expr


Expr = Compare | InList | Between | Like | IsNull | BoolOp | Not | Column | Literal


# ---------------------------------------------------------------------------- parsing
@dataclass(frozen=True)
class _Tok:
    kind: str  # num | str | ident | kw | op | punct | minus | end
    value: Any
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    n = len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise InputError(f"unexpected character {text[pos]!r} at position {pos + 1}; "
                             "a predicate uses columns, literals, comparisons, AND/OR/NOT, "
                             "IN, BETWEEN, LIKE and IS [NOT] NULL", field=_FIELD)
        kind = m.lastgroup or ""
        raw = m.group(kind)
        start = m.start(kind)
        if kind == "num":
            value: Any = _number(raw, start)
        elif kind == "str":
            value = raw[1:-1].replace("''", "'")
        elif kind == "qid":
            kind, value = "qident", raw[1:-1].replace('""', '"')
        elif kind == "ident" and raw.upper() in _KEYWORDS:
            kind, value = "kw", raw.upper()
        else:
            value = raw
        toks.append(_Tok(kind, value, start))
        pos = m.end()
    toks.append(_Tok("end", None, n))
    return toks


def _number(raw: str, start: int) -> int | float:
    """The value of a number token: an int, or a float (a fraction, an exponent, or an int
    beyond 64 bits); a number no 64-bit float holds (``1e999``, 400 digits) is refused, never
    read as infinity."""
    try:
        value: int | float = float(raw) if any(c in raw for c in ".eE") else int(raw)
        if isinstance(value, int) and abs(value) >= 2**63:
            value = float(value)
    except (OverflowError, ValueError):  # beyond a float, or too many digits to read
        value = math.inf
    if not math.isfinite(value):
        shown = raw if len(raw) <= 24 else raw[:20] + "..."
        raise InputError(f"the number {shown} at position {start + 1} is beyond the range of a "
                         "64-bit float (about 1.8e308): numbers must be finite", field=_FIELD)
    return value


class _Parser:
    def __init__(self, text: str, columns: frozenset[str] | None) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.columns = columns
        self.depth = 0

    # -- helpers
    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def is_kw(self, *words: str) -> bool:
        t = self.peek()
        return t.kind == "kw" and t.value in words

    def expect_kw(self, word: str) -> None:
        if not self.is_kw(word):
            self.fail(f"expected {word}")
        self.take()

    def expect_punct(self, p: str) -> None:
        t = self.peek()
        if t.kind != "punct" or t.value != p:
            self.fail(f"expected '{p}'")
        self.take()

    def fail(self, what: str) -> None:
        t = self.peek()
        where = "at the end" if t.kind == "end" else f"at position {t.pos + 1} ({self._show(t)})"
        raise InputError(f"{what} {where} in predicate {self.text!r}", field=_FIELD)

    @staticmethod
    def _show(t: _Tok) -> str:
        return repr(t.value) if t.kind in ("str", "qident") else str(t.value)

    # -- grammar
    def parse(self) -> Expr:
        expr = self.or_()
        if self.peek().kind != "end":
            self.fail("unexpected input")
        return expr

    def or_(self) -> Expr:
        args = [self.and_()]
        while self.is_kw("OR"):
            self.take()
            args.append(self.and_())
        return args[0] if len(args) == 1 else BoolOp("OR", tuple(args))

    def and_(self) -> Expr:
        args = [self.not_()]
        while self.is_kw("AND"):
            self.take()
            args.append(self.not_())
        return args[0] if len(args) == 1 else BoolOp("AND", tuple(args))

    def not_(self) -> Expr:
        if self.is_kw("NOT"):
            self.take()
            self._enter()
            arg = self.not_()
            self.depth -= 1
            return Not(arg)
        return self.atom()

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail(f"nesting deeper than {MAX_DEPTH}")

    def atom(self) -> Expr:
        t = self.peek()
        if t.kind == "punct" and t.value == "(":
            self.take()
            self._enter()
            inner = self.or_()
            self.depth -= 1
            self.expect_punct(")")
            return inner
        left = self.operand()
        return self.tail(left)

    def tail(self, left: Column | Literal) -> Expr:
        t = self.peek()
        if t.kind == "op":
            self.take()
            return Compare(_CMP[t.value], left, self.operand())
        negated = False
        if self.is_kw("NOT"):
            self.take()
            negated = True
            if not self.is_kw("IN", "BETWEEN", "LIKE", "ILIKE"):
                self.fail("expected IN, BETWEEN or LIKE after NOT")
        if self.is_kw("IN"):
            self.take()
            self.expect_punct("(")
            values = [self.literal()]
            while self.peek().kind == "punct" and self.peek().value == ",":
                self.take()
                values.append(self.literal())
            self.expect_punct(")")
            return InList(left, tuple(values), negated)
        if self.is_kw("BETWEEN"):
            self.take()
            low = self.operand()
            self.expect_kw("AND")
            return Between(left, low, self.operand(), negated)
        if self.is_kw("LIKE", "ILIKE"):
            ignore_case = self.take().value == "ILIKE"
            pat = self.peek()
            if pat.kind != "str":
                self.fail("LIKE needs a quoted pattern")
            self.take()
            return Like(left, pat.value, negated, ignore_case)
        if self.is_kw("IS"):
            self.take()
            neg = False
            if self.is_kw("NOT"):
                self.take()
                neg = True
            self.expect_kw("NULL")
            return IsNull(left, neg)
        return left  # a bare boolean column or literal

    def operand(self) -> Column | Literal:
        t = self.peek()
        if t.kind in ("ident", "qident"):
            self.take()
            if self.columns is not None and t.value not in self.columns:
                cols = ", ".join(sorted(self.columns))
                raise InputError(f"unknown column {t.value!r} in predicate {self.text!r}; "
                                 f"columns are: {cols}", field=_FIELD)
            return Column(t.value)
        return self.literal()

    def literal(self) -> Literal:
        t = self.peek()
        if t.kind == "minus":
            self.take()
            num = self.peek()
            if num.kind != "num":
                self.fail("expected a number after '-'")
            self.take()
            return Literal(-num.value)
        if t.kind in ("num", "str"):
            self.take()
            return Literal(t.value)
        if self.is_kw("TRUE", "FALSE", "NULL"):
            self.take()
            return Literal({"TRUE": True, "FALSE": False, "NULL": None}[t.value])
        self.fail("expected a column or a literal")
        raise AssertionError  # unreachable


def parse_predicate(text: str, columns: set[str] | frozenset[str] | None = None) -> Expr:
    """Parse a ``--where`` predicate into an expression tree.

    Args:
        text: the predicate (see the module docstring for the grammar).
        columns: the allowed column names; ``None`` accepts any identifier.

    Raises:
        InputError: (field ``where``) on anything outside the grammar or an unknown column.
    """
    if not isinstance(text, str):
        raise InputError(f"a predicate must be text, got {type(text).__name__}", field=_FIELD)
    if len(text) > MAX_PREDICATE_CHARS:
        raise InputError(f"predicate longer than {MAX_PREDICATE_CHARS} characters", field=_FIELD)
    if not text.strip():
        raise InputError("empty predicate", field=_FIELD)
    return _Parser(text, frozenset(columns) if columns is not None else None).parse()


# ---------------------------------------------------------------------------- rendering
def to_sql(expr: Expr) -> str:
    """Render a parsed tree back as a (normalised, safely quoted) SQL boolean expression."""
    if isinstance(expr, Column):
        return '"' + expr.name.replace('"', '""') + '"'
    if isinstance(expr, Literal):
        v = expr.value
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, (int, float)):
            return repr(v)
        return "'" + str(v).replace("'", "''") + "'"
    if isinstance(expr, Compare):
        op = {v: k for k, v in _CMP.items() if k not in ("==", "<>")}[expr.op]
        return f"{to_sql(expr.left)} {op} {to_sql(expr.right)}"
    neg = "NOT " if getattr(expr, "negated", False) else ""
    if isinstance(expr, InList):
        return f"{to_sql(expr.operand)} {neg}IN ({', '.join(to_sql(v) for v in expr.values)})"
    if isinstance(expr, Between):
        return f"{to_sql(expr.operand)} {neg}BETWEEN {to_sql(expr.low)} AND {to_sql(expr.high)}"
    if isinstance(expr, Like):
        kw = "ILIKE" if expr.ignore_case else "LIKE"
        return f"{to_sql(expr.operand)} {neg}{kw} {to_sql(Literal(expr.pattern))}"
    if isinstance(expr, IsNull):
        return f"{to_sql(expr.operand)} IS {'NOT ' if expr.negated else ''}NULL"
    if isinstance(expr, Not):
        return f"NOT ({to_sql(expr.arg)})"
    if isinstance(expr, BoolOp):
        return "(" + f" {expr.op} ".join(to_sql(a) for a in expr.args) + ")"
    raise TypeError(f"not a predicate node: {expr!r}")

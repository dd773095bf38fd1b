"""Attribute predicates (``--where``): parsed, allow-listed, evaluated without SQL.

A predicate is a small boolean language over node columns::

    price < 20 AND brand IN ('Acme', 'Zenith') AND NOT (colour = 'red' OR rating IS NULL)
    name LIKE 'Widget%'   year BETWEEN 1990 AND 1999   "my column" >= -1.5e3

Grammar (keywords are case-insensitive)::

    expr      := or
    or        := and ("OR" and)*
    and       := not ("AND" not)*
    not       := "NOT" not | atom
    atom      := "(" expr ")" | operand [tail]
    tail      := CMP operand                       CMP: = == != <> < <= > >=
               | ["NOT"] "IN" "(" literal ("," literal)* ")"
               | ["NOT"] "BETWEEN" operand "AND" operand
               | ["NOT"] ("LIKE" | "ILIKE") string
               | "IS" ["NOT"] "NULL"
    operand   := column | literal
    column    := identifier | "double-quoted identifier"   (must be a node column)
    literal   := number | 'single-quoted string' | TRUE | FALSE | NULL

Nothing else is accepted: no functions, sub-queries, casts, arithmetic or ``;``. The parsed
tree is evaluated with Arrow compute kernels over the node table, so user text never
reaches an SQL engine. SQL's three-valued logic holds: a comparison with NULL is unknown,
and only rows where the whole predicate is true are selected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError

#: Longest predicate accepted (characters); longer text is refused before parsing.
MAX_PREDICATE_CHARS = 10_000
#: Deepest nesting of parentheses / NOT accepted.
MAX_DEPTH = 64
#: Rows evaluated between two looks at the deadline (an expensive LIKE stops in time).
EVAL_CHUNK_ROWS = 16_384

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
            value: Any = float(raw) if any(c in raw for c in ".eE") else int(raw)
            if isinstance(value, int) and abs(value) >= 2**63:
                value = float(value)
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


# ---------------------------------------------------------------------------- evaluation
def evaluate(expr: Expr, table: pa.Table) -> np.ndarray:
    """Boolean mask over ``table``'s rows where ``expr`` is TRUE (NULL counts as false).

    Raises:
        InputError: an unknown column, or values that cannot be compared (e.g. a text
            column with a number).
    """
    out = _eval(expr, table)
    if isinstance(out, pa.Scalar):
        value = out.as_py()
        if value is not None and not isinstance(value, bool):
            raise InputError(f"the predicate is a value ({value!r}), not a condition",
                             field=_FIELD)
        return np.full(table.num_rows, bool(value), dtype=bool)
    if not pa.types.is_boolean(out.type):
        raise InputError(f"the predicate's result is {out.type}, not a condition; "
                         "compare the column with a value", field=_FIELD)
    return pc.fill_null(out, False).to_numpy(zero_copy_only=False).astype(bool)


def _value(node: Column | Literal, table: pa.Table) -> Any:
    if isinstance(node, Column):
        if node.name not in table.column_names:
            raise InputError(f"unknown column {node.name!r}; columns are: "
                             f"{', '.join(table.column_names)}", field=_FIELD)
        col = table.column(node.name)
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        return col
    return pa.scalar(node.value)


def _align(a: Any, b: Any) -> tuple[Any, Any]:
    """Cast a literal to the type of the column it is compared with (SQL's implicit cast)."""
    ta, tb = a.type, b.type
    if ta == tb or pa.types.is_null(ta) or pa.types.is_null(tb):
        return a, b
    num = pa.types.is_integer(ta) or pa.types.is_floating(ta)
    numb = pa.types.is_integer(tb) or pa.types.is_floating(tb)
    if num and numb:
        return a, b
    if (num and _is_text(tb)) or (numb and _is_text(ta)):
        raise InputError(f"cannot compare {ta} with {tb}: quote text values ('...') and "
                         "compare numbers with numeric columns", field=_FIELD)
    if isinstance(b, pa.Scalar) and not isinstance(a, pa.Scalar):
        try:
            return a, b.cast(ta)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    elif isinstance(a, pa.Scalar) and not isinstance(b, pa.Scalar):
        try:
            return a.cast(tb), b
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    raise InputError(f"cannot compare {ta} with {tb}", field=_FIELD)


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _eval(expr: Expr, table: pa.Table) -> Any:
    try:
        return _eval_inner(expr, table)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"cannot evaluate {to_sql(expr)}: {first}", field=_FIELD) from None


def _eval_inner(expr: Expr, table: pa.Table) -> Any:
    if isinstance(expr, (Column, Literal)):
        return _value(expr, table)
    if isinstance(expr, Compare):
        left, right = _align(_value(expr.left, table), _value(expr.right, table))
        return getattr(pc, expr.op)(left, right)
    if isinstance(expr, InList):
        parts = [Compare("equal", expr.operand, v) for v in expr.values]
        hit = _eval(BoolOp("OR", tuple(parts)), table) if len(parts) > 1 else _eval(parts[0], table)
        return pc.invert(hit) if expr.negated else hit
    if isinstance(expr, Between):
        both = BoolOp("AND", (Compare("greater_equal", expr.operand, expr.low),
                              Compare("less_equal", expr.operand, expr.high)))
        hit = _eval(both, table)
        return pc.invert(hit) if expr.negated else hit
    if isinstance(expr, Like):
        operand = _value(expr.operand, table)
        if not (pa.types.is_string(operand.type) or pa.types.is_large_string(operand.type)):
            raise InputError(f"LIKE needs a text column, {to_sql(expr.operand)} is {operand.type}",
                             field=_FIELD)
        if isinstance(operand, pa.Scalar):
            operand = pa.array([operand.as_py()], type=operand.type)
            hit = pc.match_like(operand, expr.pattern, ignore_case=expr.ignore_case)[0]
        else:
            hit = pc.match_like(operand, expr.pattern, ignore_case=expr.ignore_case)
        return pc.invert(hit) if expr.negated else hit
    if isinstance(expr, IsNull):
        operand = _value(expr.operand, table)
        if isinstance(operand, pa.Scalar):
            return pa.scalar(operand.is_valid == expr.negated)
        return pc.is_valid(operand) if expr.negated else pc.is_null(operand)
    if isinstance(expr, Not):
        return pc.invert(_as_bool(_eval(expr.arg, table), expr.arg))
    if isinstance(expr, BoolOp):
        fn = pc.and_kleene if expr.op == "AND" else pc.or_kleene
        acc = _as_bool(_eval(expr.args[0], table), expr.args[0])
        for arg in expr.args[1:]:
            acc = fn(acc, _as_bool(_eval(arg, table), arg))
        return acc
    raise TypeError(f"not a predicate node: {expr!r}")


def _as_bool(value: Any, expr: Expr) -> Any:
    t = value.type
    if pa.types.is_boolean(t) or pa.types.is_null(t):
        return value.cast(pa.bool_()) if pa.types.is_null(t) else value
    raise InputError(f"{to_sql(expr)} is {t}, not a condition", field=_FIELD)


def select_mask(text: str, table: pa.Table) -> np.ndarray:
    """Parse ``text`` against ``table``'s columns and return the boolean row mask, evaluated
    :data:`EVAL_CHUNK_ROWS` rows at a time with a look at the current deadline between."""
    expr = parse_predicate(text, set(table.column_names))
    if table.num_rows <= EVAL_CHUNK_ROWS:
        return evaluate(expr, table)
    parts = []
    for start in range(0, table.num_rows, EVAL_CHUNK_ROWS):
        check_deadline()
        parts.append(evaluate(expr, table.slice(start, EVAL_CHUNK_ROWS)))
    return np.concatenate(parts)

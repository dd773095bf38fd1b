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
                 (a number must fit a 64-bit float: ``1e999`` is refused, not infinity)

Nothing else is accepted: no functions, sub-queries, casts, arithmetic or ``;``. The parsed
tree is evaluated with Arrow compute kernels over the node table, so user text never
reaches an SQL engine. SQL's three-valued logic holds: a comparison with NULL is unknown,
and only rows where the whole predicate is true are selected.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.kb.predicate_parse import (  # noqa: F401 - the language's names re-exported
    MAX_DEPTH,
    MAX_PREDICATE_CHARS,
    Between,
    BoolOp,
    Column,
    Compare,
    Expr,
    InList,
    IsNull,
    Like,
    Literal,
    Not,
    parse_predicate,
    to_sql,
)

_FIELD = "where"  # the field an InputError names

#: Rows evaluated between two looks at the deadline (an expensive LIKE stops in time).
EVAL_CHUNK_ROWS = 16_384


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


def columns_of(expr: Expr) -> set[str]:
    """The node columns a parsed predicate reads."""
    if isinstance(expr, Column):
        return {expr.name}
    if isinstance(expr, Literal):
        return set()
    if isinstance(expr, Compare):
        return columns_of(expr.left) | columns_of(expr.right)
    if isinstance(expr, Between):
        return columns_of(expr.operand) | columns_of(expr.low) | columns_of(expr.high)
    if isinstance(expr, (InList, Like, IsNull)):
        return columns_of(expr.operand)
    if isinstance(expr, Not):
        return columns_of(expr.arg)
    if isinstance(expr, BoolOp):
        return set().union(*(columns_of(a) for a in expr.args))
    raise TypeError(f"not a predicate node: {expr!r}")


def one_chunk(table: pa.Table, names: set[str]) -> pa.Table:
    """``table`` with each column of ``names`` held in one chunk.

    A generation with segments keeps its text columns as zero-copy slices of the base and the
    segments (``kb.live.merge``): hundreds of chunks after a dozen updates. Arrow runs a kernel
    once per chunk, and a ``LIKE`` that is a regular expression is compiled again for every
    chunk (a 1,000-character ``ILIKE`` pattern costs ~2 ms to compile): over 336 chunks a
    filter took 15x its time on the same rows in one chunk. The caller passes a block of
    :data:`EVAL_CHUNK_ROWS` rows, so the copy is bounded and freed after the block."""
    for name in names & set(table.column_names):
        col = table.column(name)
        if col.num_chunks > 1 and not pa.types.is_dictionary(col.type):
            table = table.set_column(table.column_names.index(name), name, col.combine_chunks())
    return table


def select_mask(text: str, table: pa.Table) -> np.ndarray:
    """Parse ``text`` against ``table``'s columns and return the boolean row mask, evaluated
    :data:`EVAL_CHUNK_ROWS` rows at a time, each block's columns in one chunk
    (:func:`one_chunk`), with a look at the current deadline between blocks."""
    expr = parse_predicate(text, set(table.column_names))
    names = columns_of(expr)
    if table.num_rows <= EVAL_CHUNK_ROWS:
        return evaluate(expr, one_chunk(table, names))
    parts = []
    for start in range(0, table.num_rows, EVAL_CHUNK_ROWS):
        check_deadline()
        parts.append(evaluate(expr, one_chunk(table.slice(start, EVAL_CHUNK_ROWS), names)))
    return np.concatenate(parts)

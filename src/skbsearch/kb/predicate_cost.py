"""The estimated cost of evaluating a ``where`` predicate over a node table, before running it.

A predicate (:mod:`skbsearch.kb.predicate`) is evaluated with Arrow kernels, one pass over a
column per comparison. Its cost is the sum over its comparisons of *what the pass reads*
(the column's rows, plus its text bytes for a text column) times *the comparison's weight*:

- ``=``, ``<``, ``IS NULL``...: 1; ``IN (v1, ..., vn)``: n (one pass a value);
  ``BETWEEN``: 2.
- ``LIKE`` with a pattern Arrow matches without a regular expression (case-sensitive
  ``abc``, ``abc%``, ``%abc``, ``%abc%``): :data:`LIKE_SIMPLE`. Any other pattern
  (``ILIKE``, ``_``, or wildcards inside) runs as an RE2 regular expression:
  :data:`LIKE_REGEX` while RE2's automaton stays small, which it does for any number of
  ``%`` (a 1,000-character ``'%a%b%…'`` chain reads a byte about as fast as ``'%wool%'``);
  a run of at least :data:`UNDERSCORE_RUN` ``_`` after a wildcard blows the automaton up and
  RE2 falls back to simulating it, whose work per byte grows with the pattern:
  :data:`LIKE_PER_CHAR` per pattern character.

The unit is what one comparison of a number costs a row, so a cost reads as "rows of simple
scanning". The weights are measured by ``benchmarks/filter_cost.py`` (each shape's time over
the demo catalogue's node table against ``price < 50``; ``benchmarks/results/filter_cost.json``)
and set at or above what it measured. The server uses the estimate to pick a request's lane
and to refuse a predicate over its budget (``server.budget``).
"""

from __future__ import annotations

import re

import pyarrow as pa

from skbsearch.kb.predicate import (
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
)

#: Weight per byte of a LIKE pattern Arrow matches without a regular expression.
LIKE_SIMPLE = 2.0
#: Weight per byte of a LIKE pattern that runs as a (small) regular expression.
LIKE_REGEX = 2.5
#: Shortest run of ``_`` (after a wildcard) that blows RE2's automaton up.
UNDERSCORE_RUN = 20
#: Weight per byte and pattern character of a pattern RE2 must simulate.
LIKE_PER_CHAR = 8.0
_SIMPLE_LIKE = re.compile(r"%?[^%_\\]*%?", re.S)
_LONG_RUN = re.compile(f"_{{{UNDERSCORE_RUN},}}")


def like_weight(pattern: str, ignore_case: bool) -> float:
    """The weight of ``LIKE pattern`` per byte read (module docstring)."""
    if not ignore_case and _SIMPLE_LIKE.fullmatch(pattern):
        return LIKE_SIMPLE
    if _LONG_RUN.search(pattern) and "%" in pattern:
        return LIKE_PER_CHAR * len(pattern)
    return LIKE_REGEX


def column_read(table: pa.Table, name: str) -> float:
    """What one pass over column ``name`` reads: its rows, plus its bytes if it is text."""
    if name not in table.column_names:
        return float(table.num_rows)  # evaluation refuses an unknown column at once
    col = table.column(name)
    t = col.type
    if pa.types.is_dictionary(t):  # decoded before comparing: its values are read per row
        t = t.value_type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            values = sum(c.dictionary.nbytes for c in col.chunks)
            entries = max(1, sum(len(c.dictionary) for c in col.chunks))
            return table.num_rows * (1.0 + values / entries)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return float(table.num_rows + col.nbytes)
    return float(table.num_rows)


def _read(node: Column | Literal, table: pa.Table) -> float:
    return column_read(table, node.name) if isinstance(node, Column) else 1.0


def expr_cost(expr: Expr, table: pa.Table) -> float:
    """The estimated cost of evaluating a parsed predicate over ``table`` (module docstring)."""
    if isinstance(expr, (Column, Literal)):
        return _read(expr, table)
    if isinstance(expr, Compare):
        return max(_read(expr.left, table), _read(expr.right, table))
    if isinstance(expr, InList):
        return _read(expr.operand, table) * max(1, len(expr.values))
    if isinstance(expr, Between):
        return 2 * _read(expr.operand, table)
    if isinstance(expr, IsNull):
        return float(table.num_rows)
    if isinstance(expr, Like):
        return _read(expr.operand, table) * like_weight(expr.pattern, expr.ignore_case)
    if isinstance(expr, Not):
        return expr_cost(expr.arg, table) + table.num_rows
    if isinstance(expr, BoolOp):
        return sum(expr_cost(a, table) for a in expr.args) + table.num_rows * (len(expr.args) - 1)
    raise TypeError(f"not a predicate node: {expr!r}")


def predicate_cost(text: str, table: pa.Table) -> float:
    """The estimated cost of the predicate ``text`` over ``table`` (parsed, never run).

    Raises:
        InputError: (field ``where``) the predicate does not parse or names an unknown column.
    """
    return expr_cost(parse_predicate(text, set(table.column_names)), table)

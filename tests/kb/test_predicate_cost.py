"""The cost estimate of ``where`` predicates (issue 31, item 2) and their evaluation in
chunks that look at the deadline."""

from __future__ import annotations

import pyarrow as pa
import pytest

from skbsearch.core.deadline import deadline
from skbsearch.core.errors import DeadlineExceeded, InputError
from skbsearch.kb.predicate import EVAL_CHUNK_ROWS, select_mask
from skbsearch.kb.predicate_cost import LIKE_SIMPLE, like_weight, predicate_cost


@pytest.fixture
def table() -> pa.Table:
    n = 1000
    return pa.table({"price": list(range(n)), "description": ["a warm red wool hat " * 5] * n})


def chain(n: int) -> str:
    return "%" + "%".join("ab"[i % 2] for i in range(n)) + "%"


def test_cost_grows_with_rows_read_and_pattern_shape(table: pa.Table) -> None:
    text_bytes = table.column("description").nbytes
    assert predicate_cost("price < 10", table) == table.num_rows
    assert predicate_cost("price IN (1, 2, 3)", table) == 3 * table.num_rows
    assert predicate_cost("description LIKE '%wool%'", table) == LIKE_SIMPLE * (table.num_rows + text_bytes)
    # ILIKE, '_' and inner wildcards run as a regular expression: dearer than a substring
    assert like_weight("%wool%", ignore_case=True) > LIKE_SIMPLE and like_weight("w_ol", ignore_case=False) > LIKE_SIMPLE
    # ... but RE2's automaton stays small for any number of '%': a long chain costs the same
    chains = {predicate_cost(f"description ILIKE '{chain(n)}'", table) for n in (1, 10, 100, 400)}
    assert len(chains) == 1
    # a long run of '_' after a wildcard makes RE2 simulate the pattern: dearer with its length
    blowups = [predicate_cost(f"description LIKE '%a{'_' * n}b%'", table) for n in (30, 60, 120)]
    assert blowups == sorted(blowups) and blowups[0] > 50 * chains.pop()
    both = predicate_cost("price < 10 AND description LIKE 'a%'", table)
    # two passes and the AND of their masks
    assert both == table.num_rows * 2 + LIKE_SIMPLE * (table.num_rows + text_bytes)


def test_cost_of_a_bad_predicate_is_the_parser_error(table: pa.Table) -> None:
    with pytest.raises(InputError):
        predicate_cost("price <<< (", table)
    with pytest.raises(InputError):
        predicate_cost("nosuch = 1", table)


def test_evaluation_stops_at_the_deadline_between_chunks() -> None:
    t = pa.table({"x": list(range(3 * EVAL_CHUNK_ROWS))})
    assert select_mask("x >= 10", t).sum() == t.num_rows - 10  # chunks join in order
    with deadline(60) as d:
        d.cancel()
        with pytest.raises(DeadlineExceeded):
            select_mask("x >= 10", t)

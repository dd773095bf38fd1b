"""The cost budget of one request: size parameters capped, and a cost class for its lane.

Every integer parameter of a registered stage is a size (a candidate count such as ``k``,
``n_text``, ``n_graph``, ``top_k``; a batch size; a number of tokens or characters), so a
client's spec may set one at most to the **size cap**: the server's ``--max-candidates``,
lowered to the SKB's node count when that is smaller (never below ``max_k``, the largest
``k`` a request may ask for), or to the parameter's own default when that is larger. The
parameters are found from the stages' typed ``Params`` (no list of names to keep up to
date), so a new stage is covered when it is registered.

The **cost class** of a request picks the worker lane it runs on, so expensive requests
queue behind each other and never in front of cheap ones (``server.app``): ``light``
when every stage is marked light (BM25, fusion, filters, saved runs) and no size
parameter exceeds ``max_k``, ``heavy`` when a stage is (``SpecStage.cost``), a size
parameter is larger than ``max_k`` or the batch holds more than :data:`LIGHT_BATCH`
queries, ``normal`` otherwise.

A ``where`` predicate (the request's, or a stage's ``where`` parameter) adds its **filter
cost**, estimated before it runs (:mod:`skbsearch.kb.predicate_cost`: its comparisons'
shapes times what they read): a request whose filters cost more than ``light_filter_cost``
runs on the heavy lane, under the same deadline as other heavy work, and one whose filters
cost more than ``max_filter_cost`` is refused (400) before it queues. Plain searches keep
their lane whatever mix of filters arrives.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.server.errors import FilterTooCostly, PipelineRefused

#: Cost classes, cheapest first (one worker lane each).
COST_CLASSES = ("light", "normal", "heavy")
#: Most queries a batch of the light class may hold.
LIGHT_BATCH = 10


def size_fields(stage_cls: type) -> list[dataclasses.Field]:
    """The integer parameters of a registered stage (``int`` or ``int | None``, never bool)."""
    hints = typing.get_type_hints(stage_cls.Params)
    out = []
    for f in stage_cls.param_fields():
        hint = hints.get(f.name)
        args = set(typing.get_args(hint)) - {type(None)}
        if hint is int or args == {int}:
            out.append(f)
    return out


def _default(f: dataclasses.Field) -> int:
    if isinstance(f.default, int) and not isinstance(f.default, bool):
        return f.default
    return 0


def size_cap(max_candidates: int, num_nodes: int, max_k: int) -> int:
    """The largest value a size parameter may take on this SKB (module docstring)."""
    return min(max_candidates, max(num_nodes, max_k))


def check_sizes(stages: Iterable[Any], *, max_candidates: int, num_nodes: int,
                max_k: int) -> None:
    """Refuse registered ``stages`` with a size parameter above its cap (named in the message).

    Raises:
        PipelineRefused: the first parameter over its cap (field: the parameter).
    """
    cap = size_cap(max_candidates, num_nodes, max_k)
    for st in stages:
        for f in size_fields(type(st)):
            value = getattr(st.params, f.name)
            limit = max(cap, _default(f))
            if isinstance(value, int) and value > limit:
                why = (f"the server's --max-candidates of {max_candidates:,}"
                       if limit == max_candidates else
                       f"this SKB's {num_nodes:,} nodes" if limit == num_nodes else
                       f"the largest k, {max_k:,}" if limit == max_k else "its default")
                raise PipelineRefused(
                    f"stage {st.name!r}: {f.name}={value:,} exceeds the cap of {limit:,} "
                    f"({why}); ask for at most {limit:,}", field=f.name)


def stage_cost(stage: Any) -> str:
    """A stage's cost class: its own ``cost``, else by category (re-rankers heavy)."""
    cost = getattr(stage, "cost", None)
    if cost in COST_CLASSES:
        return cost
    category = getattr(stage, "category", "")
    return {"fusion": "light", "filter": "light", "input": "light",
            "reranker": "heavy"}.get(category, "normal")


def _largest_size(stages: Iterable[Any]) -> int:
    sizes = [getattr(st.params, f.name) for st in stages for f in size_fields(type(st))]
    return max((v for v in sizes if isinstance(v, int)), default=0)


def cost_class(stages: Iterable[Any], n_queries: int, *, max_k: int) -> str:
    """``light``, ``normal`` or ``heavy`` for running registered ``stages`` on ``n_queries``."""
    stages = list(stages)
    rank = max((COST_CLASSES.index(stage_cost(st)) for st in stages), default=0)
    if _largest_size(stages) > max_k:
        rank = 2
    if n_queries > LIGHT_BATCH:
        rank = max(rank, 1)
    return COST_CLASSES[rank]


def filter_cost(stages: Iterable[Any], table: Any, where: str | None = None) -> float:
    """The estimated cost of every ``where`` the request evaluates: each stage's ``where``
    parameter (a retriever's, a ``filter`` stage's) and ``where`` (the request's, when no
    stage carries it). A predicate that does not parse costs nothing here: the worker
    refuses it at once with its own message."""
    from skbsearch.kb.predicate_cost import predicate_cost

    texts = [w for st in stages if isinstance(w := getattr(st.params, "where", None), str) and w.strip()]
    if where and where.strip() and where not in texts:
        texts.append(where)
    total = 0.0
    for text in texts:
        try:
            total += predicate_cost(text, table)
        except InputError:
            pass
    return total


def filter_lane(lane: str, cost: float, *, light_cost: int, max_cost: int) -> str:
    """``lane`` moved to ``heavy`` when the filters cost more than ``light_cost``.

    Raises:
        FilterTooCostly: the filters cost more than ``max_cost``.
    """
    if cost > max_cost:
        raise FilterTooCostly(cost, max_cost)
    return "heavy" if cost > light_cost else lane

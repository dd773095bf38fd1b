"""IMPLIRET implicit-tuple sets (Taghavi et al., 2025, Appendix A.1-A.3), seeded.

- :func:`arithmetic_tuple_set` - Algorithm 1: ``((p1, r, e), p2)``.
- :func:`temporal_multi_tuple_set` - Algorithm 2: ``((message_date, r), work_date)``.
- :func:`temporal_uni_tuple_set` - Algorithm 3: a 28-day schedule of one-time, repeating
  non-sequential and repeating sequential activities, one message time each.
- :func:`wknow_tuple_set` - Appendix A.2: ``(landmark, country)``, one per distinct country.

Every function takes a ``numpy.random.Generator``; the same generator state gives the same
set. Constraints that cannot be met raise :class:`~skbsearch.core.errors.InputError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.synth.impliret.places import Landmark

#: Algorithm 1's price ranges (B_L, B_U) per style.
PRICE_RANGES = {"multi": (50, 2050), "uni": (50, 3050)}
MAX_RESTARTS = 200


@dataclass(frozen=True)
class PriceTuple:
    """``((p1, r, e), p2)``: base price, multiplier (>1, at most 2 decimals), direction, queried price."""

    p1: int
    r: float
    e: str  # "Lower" (p2 < p1) or "Higher"
    p2: int


def _ratio_ok(a: int, b: int) -> bool:
    """``max/min`` is below 3, above 1, with at most two decimals (exact integer test)."""
    hi, lo = max(a, b), min(a, b)
    return hi != lo and hi < 3 * lo and (100 * hi) % lo == 0


def arithmetic_tuple_set(m: int, style: str, rng: np.random.Generator) -> list[PriceTuple]:
    """Algorithm 1. ``p2_i`` starts at ``B_L + i*Delta`` (its own bucket: evenly spread) and
    moves up in steps of 10 while no ``p1`` fits; a bucket that runs out restarts the set.

    Two details the pseudo-code leaves open are fixed so that constraint (ii) holds:
    ``Delta`` is rounded down to a multiple of 10, and ``p2`` steps by 10 (not 1).
    ``p1`` is drawn uniformly among the multiples of 10 in ``[B_L, B_U]`` that pass
    (= rejection sampling until a pass).
    """
    if style not in PRICE_RANGES:
        raise InputError(f"unknown style {style!r}; use uni or multi", field="style")
    lo, hi = PRICE_RANGES[style]
    delta = ((hi - lo) // m) // 10 * 10 if m > 0 else 0
    if m < 1 or delta < 10:
        raise InputError(f"cannot spread {m} arithmetic tuples over ${lo}-${hi} in steps of $10",
                         field="tuples")
    grid = np.arange(lo, hi + 1, 10)
    for _ in range(MAX_RESTARTS):
        out: list[PriceTuple] = []
        used: set[int] = set()
        for i in range(m):
            p2, top = lo + i * delta, lo + (i + 1) * delta
            while p2 < top:
                ok = [int(p) for p in grid if p not in used and p2 not in used and _ratio_ok(int(p), p2)]
                if ok:
                    p1 = ok[int(rng.integers(len(ok)))]
                    r = round(max(p1, p2) / min(p1, p2), 2)
                    out.append(PriceTuple(p1, r, "Lower" if p2 < p1 else "Higher", p2))
                    used |= {p1, p2}
                    break
                p2 += 10
            else:
                break  # bucket i exhausted: restart the entire generation
        if len(out) == m:
            return out
    raise InputError(f"no arithmetic tuple set of {m} found after {MAX_RESTARTS} restarts", field="tuples")


@dataclass(frozen=True)
class DateTuple:
    """``((message_date, r), work_date)``: the message is sent ``r`` days after the work."""

    message_date: date
    offset: int
    work_date: date


def temporal_multi_tuple_set(
    m: int,
    rng: np.random.Generator,
    window: tuple[date, date] = (date(2024, 1, 1), date(2024, 12, 31)),
    gap: tuple[int, int] = (2, 7),
    tail_days: int = 14,
    last_offset: tuple[int, int] = (1, 7),
) -> list[DateTuple]:
    """Algorithm 2: ``m`` work dates ``gap`` days apart (inclusive), the last at least
    ``tail_days`` before the window's end; message ``i`` is sent on work date ``i+1`` (the
    last one ``last_offset`` days after its work date)."""
    start, end = window
    last_allowed = end - timedelta(days=tail_days)
    latest_first = last_allowed - timedelta(days=(m - 1) * gap[0])
    if m < 1 or latest_first < start:
        raise InputError(f"{m} work dates {gap[0]}+ days apart do not fit in {start}..{last_allowed}",
                         field="tuples")
    span = (latest_first - start).days
    for _ in range(MAX_RESTARTS * 10):
        work = [start + timedelta(days=int(rng.integers(span + 1)))]
        for _ in range(m - 1):
            work.append(work[-1] + timedelta(days=int(rng.integers(gap[0], gap[1] + 1))))
        if work[-1] <= last_allowed:
            break
    else:
        raise InputError(f"no date chain of {m} found in {start}..{last_allowed}", field="tuples")
    msgs = work[1:] + [work[-1] + timedelta(days=int(rng.integers(last_offset[0], last_offset[1] + 1)))]
    return [DateTuple(md, (md - wd).days, wd) for wd, md in zip(work, msgs, strict=True)]


@dataclass(frozen=True)
class ScheduleTuple:
    """One activity of a 28-day schedule: ``((message_time, R), (days, start, end))``.

    ``offsets[i] = (days[i] - message_date).days``; the query asks what was scheduled at
    ``question_time`` (a day of the activity, an hour strictly inside the slot).
    """

    kind: str  # "once", "nonseq" or "seq"
    days: tuple[date, ...]
    start_hour: int
    end_hour: int
    question_time: tuple[date, int]
    message_time: tuple[date, int]
    offsets: tuple[int, ...]


#: Algorithm 3's schedule per 14-day period: sequential and non-sequential repeats, one-time.
SEQ_LENGTHS = (3, 3, 4)
NONSEQ_LENGTHS = (2, 2, 3)
N_ONCE = 9


def period_plan(m: int, periods: int = 2) -> list[list[tuple[str, int]]]:
    """Activities per period: Algorithm 3's 3 seq + 3 non-seq + 9 one-time for ``m = 30``;
    other ``m`` keep the repeats (dropped from the end when a period is too small) and
    change the number of one-time activities."""
    if m < periods:
        raise InputError(f"a schedule needs at least {periods} activities, got {m}", field="tuples")
    repeats = [("seq", n) for n in SEQ_LENGTHS] + [("nonseq", n) for n in NONSEQ_LENGTHS]
    plans = []
    for p in range(periods):
        k = m // periods + (1 if p < m % periods else 0)
        rep = repeats[: max(0, min(len(repeats), k - 1))] if k < len(repeats) + 1 else repeats
        plans.append(rep + [("once", 1)] * (k - len(rep)))
    return plans


def _day_sets(kind: str, n: int, period_days: int, rng: np.random.Generator) -> list[int]:
    if kind == "seq":
        s = int(rng.integers(1, period_days - n + 2))
        return list(range(s, s + n))
    while True:  # once: n = 1; nonseq: no two days adjacent
        days = sorted(int(d) for d in rng.choice(np.arange(1, period_days + 1), size=n, replace=False))
        if all(b - a > 1 for a, b in zip(days, days[1:], strict=False)):
            return days


def _place(kind: str, n: int, free: dict[int, np.ndarray], day_start: int, slot: tuple[int, int],
           period_days: int, rng: np.random.Generator, attempts: int = 100) -> tuple[list[int], int, int] | None:
    """PLACESCHEDULE: a ``slot``-hour block free on every chosen day; marks it busy."""
    for _ in range(attempts):
        days = _day_sets(kind, n, period_days, rng)
        common = np.logical_and.reduce([free[d] for d in days])
        dur = int(rng.integers(slot[0], slot[1] + 1))
        starts = [h for h in range(len(common) - dur + 1) if common[h : h + dur].all()]
        if not starts:
            continue
        h = starts[int(rng.integers(len(starts)))]
        for d in days:
            free[d][h : h + dur] = False
        return days, day_start + h, day_start + h + dur
    return None


def _derangement(n: int, rng: np.random.Generator) -> list[int]:
    if n < 2:
        raise InputError("message times need at least 2 activities (each takes another's time)", field="tuples")
    while True:
        p = [int(x) for x in rng.permutation(n)]
        if all(p[i] != i for i in range(n)):
            return p


def temporal_uni_tuple_set(
    m: int,
    rng: np.random.Generator,
    first_day: date,
    period_days: int = 14,
    periods: int = 2,
    day_span: tuple[int, int] = (7, 19),
    slot_hours: tuple[int, int] = (2, 4),
) -> list[ScheduleTuple]:
    """Algorithm 3: schedule ``m`` non-overlapping activities over ``periods`` blocks of
    ``period_days`` days starting on ``first_day``; pick one question time per activity
    (a day of it, an hour strictly inside its slot) and give every activity another
    activity's question time as its message time (a derangement)."""
    placed: list[tuple[str, list[date], int, int]] = []
    for p, plan in enumerate(period_plan(m, periods)):
        for _ in range(MAX_RESTARTS):
            free = {d: np.ones(day_span[1] - day_span[0], dtype=bool) for d in range(1, period_days + 1)}
            got = []
            for kind, n in plan:
                slot = _place(kind, n, free, day_span[0], slot_hours, period_days, rng)
                if slot is None:
                    break
                got.append((kind, slot))
            if len(got) == len(plan):
                break
        else:
            raise InputError(f"cannot place {len(plan)} activities in {period_days} days", field="tuples")
        shift = first_day + timedelta(days=p * period_days - 1)  # SHIFTDATES
        for kind, (days, s, e) in got:
            placed.append((kind, [shift + timedelta(days=d) for d in days], s, e))
    q_times = []
    for _kind, days, s, e in placed:  # SELECTQTIMES
        q_times.append((days[int(rng.integers(len(days)))], int(rng.integers(s + 1, e))))
    perm = _derangement(len(placed), rng)
    out = []
    for i, (kind, days, s, e) in enumerate(placed):
        msg = q_times[perm[i]]
        out.append(ScheduleTuple(kind, tuple(days), s, e, q_times[i], msg,
                                 tuple((d - msg[0]).days for d in days)))
    return out


def segment_first_day(k: int, n: int, rng: np.random.Generator,
                      window: tuple[date, date] = (date(2020, 1, 1), date(2024, 12, 31)),
                      span_days: int = 28) -> date:
    """The first day of tuple set ``k`` of ``n``: uniform inside the ``k``-th of ``n`` equal
    segments of ``window`` (so sets spread evenly over the window)."""
    total = (window[1] - window[0]).days + 1
    seg = total // max(n, 1)
    if seg < span_days:
        raise InputError(f"{n} schedules of {span_days} days do not fit in {window[0]}..{window[1]}",
                         field="sets")
    return window[0] + timedelta(days=k * seg + int(rng.integers(seg - span_days + 1)))


@dataclass(frozen=True)
class PlaceTuple:
    """``(landmark, country)``."""

    landmark: str
    country: str
    landmark_id: str


def wknow_tuple_set(m: int, rng: np.random.Generator, by_country: Mapping[str, Sequence[Landmark]]) -> list[PlaceTuple]:
    """Appendix A.2: ``m`` distinct countries, one landmark drawn uniformly from each."""
    countries = sorted(c for c, v in by_country.items() if v)
    if m > len(countries):
        raise InputError(f"{m} tuples need {m} countries; the gazetteer has eligible landmarks in "
                         f"{len(countries)}", field="tuples")
    chosen = [countries[int(i)] for i in rng.choice(len(countries), size=m, replace=False)]
    out = []
    for c in chosen:
        lm = by_country[c][int(rng.integers(len(by_country[c])))]
        out.append(PlaceTuple(lm.name, c, lm.id))
    return out

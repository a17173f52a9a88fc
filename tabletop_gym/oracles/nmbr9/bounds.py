"""Grid-free bounds on Nmbr9 scores: which card on which level, each level's area and tile count
limited by the level under it (known and free draft), with pair-cover cuts."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from ortools.sat.python import cp_model

from tabletop_gym.core import check_int
from tabletop_gym.envs.nmbr9.rules import (
    MAX_VALUE,
    Cells,
    Variant,
    check_levels,
    distinct_rotations,
    tile_area,
    tile_rotations,
)
from tabletop_gym.oracles.nmbr9.common import (
    TERMS_PER_SECOND,
    _cp_solve,
    _OverBudget,
    _Work,
    check_time_limit,
)

# ---------------------------------------------------------------------------------------------------
# Grid-free bounds


# PAIR_COVER[a][b]: the most area that tiles on level L can cover when level L-1 holds exactly the
# two tiles a and b (computed by ``pair_cover_table``; tests recompute it and check it against
# the engine). The pair's own area is the sum of the two tile areas.
PAIR_COVER: tuple[tuple[int, ...], ...] = (
    (14, 14, 12, 14, 15, 15, 15, 10, 10, 15),
    (14, 10, 10, 10, 10, 13, 10, 9, 10, 14),
    (12, 10, 16, 12, 15, 15, 12, 10, 16, 16),
    (14, 10, 12, 14, 10, 15, 13, 10, 12, 14),
    (15, 10, 15, 10, 10, 15, 15, 10, 10, 15),
    (15, 13, 15, 15, 15, 16, 15, 10, 10, 15),
    (15, 10, 12, 13, 15, 15, 15, 10, 10, 15),
    (10, 9, 10, 10, 10, 10, 10, 10, 10, 15),
    (10, 10, 16, 12, 10, 10, 10, 10, 16, 16),
    (15, 14, 16, 14, 15, 15, 15, 15, 16, 20),
)


def pair_cover(a: int, b: int) -> int:
    """The most area level L can hold on a level L-1 of exactly the tiles ``a`` and ``b``.

    Exhaustive: ``a`` unturned (turning the whole stack turns every tile, and every turn of a tile
    is allowed), ``b`` in every distinct turn and every position that touches ``a`` along an edge
    without overlap (the second tile of a level must touch the first); then the largest total area
    of non-overlapping tiles of any values and turns that lie inside the union of ``a`` and ``b``
    and cover cells of both (a tile on level L covers only cells of level L-1 tiles and rests on
    at least two; here there are only two). The order of the tiles on level L and their
    adjacency are ignored, and every value is allowed any number of times, so the result is an
    upper bound on what any play can put there.
    """
    size = 12  # a window holding a at (4, 4) and every b touching it
    unit = [1 << i for i in range(size * size)]

    def bits(cells: Cells, dr: int, dc: int) -> int | None:
        out = 0
        for r, c in cells:
            if not (0 <= r + dr < size and 0 <= c + dc < size):
                return None
            out |= unit[(r + dr) * size + c + dc]
        return out

    def edge_neighbours(mask: int) -> int:
        out = 0
        for i in range(size * size):
            if mask >> i & 1:
                r, c = divmod(i, size)
                for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= rr < size and 0 <= cc < size:
                        out |= unit[rr * size + cc]
        return out & ~mask

    tiles = _window_placements(size)
    first = bits(tile_rotations(a)[0], 4, 4)
    around = edge_neighbours(first)
    best = 0
    for rotation in distinct_rotations(b):
        for dr in range(size):
            for dc in range(size):
                second = bits(tile_rotations(b)[rotation], dr, dc)
                if second is None or second & first or not second & around:
                    continue
                union = first | second
                fits = [(m, area) for m, area in tiles if not m & ~union and m & first and m & second]
                best = max(best, _best_packing(fits))
    return best


@functools.cache
def _window_placements(size: int) -> tuple[tuple[int, int], ...]:
    out = []
    for v in range(10):
        for rotation in distinct_rotations(v):
            cells = tile_rotations(v)[rotation]
            height = max(r for r, _ in cells) + 1
            width = max(c for _, c in cells) + 1
            for dr in range(size - height + 1):
                for dc in range(size - width + 1):
                    mask = 0
                    for r, c in cells:
                        mask |= 1 << ((r + dr) * size + c + dc)
                    out.append((mask, tile_area(v)))
    return tuple(out)


def _best_packing(fits: list[tuple[int, int]]) -> int:
    """Largest total area of pairwise disjoint masks (depth-first; a few dozen masks at most)."""
    best = 0

    def grow(start: int, used: int, area: int) -> None:
        nonlocal best
        best = max(best, area)
        for j in range(start, len(fits)):
            mask, a = fits[j]
            if not mask & used:
                grow(j + 1, used | mask, area + a)

    grow(0, 0, 0)
    return best


def pair_cover_table() -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(pair_cover(a, b) for b in range(10)) for a in range(10))


def _add_pair_cuts(m: cp_model.CpModel, on_level: list[list[tuple[int, object]]]) -> None:
    """If level L-1 ends with at most two tiles, level L's area is at most ``PAIR_COVER`` of them.

    ``on_level[L]`` lists (value, Boolean "this card is on level L"). With one tile on L-1, L is
    empty anyway (two tiles needed below); with two, the cut is ``pair_cover``'s argument.
    """
    for lv in range(1, len(on_level)):
        below = on_level[lv - 1]
        if len(below) < 2 or not on_level[lv]:
            continue
        few = m.new_bool_var(f"few{lv - 1}")
        count = sum(var for _, var in below)
        m.add(count <= 2).only_enforce_if(few)
        m.add(count >= 3).only_enforce_if(few.Not())
        area = sum(tile_area(v) * var for v, var in on_level[lv])
        for i, (a, x) in enumerate(below):
            for b, y in below[i + 1 :]:
                if PAIR_COVER[a][b] < tile_area(a) + tile_area(b):
                    m.add(area <= PAIR_COVER[a][b]).only_enforce_if([x, y, few])


def _add_timed_pair_cuts(m: cp_model.CpModel, values: Sequence[int], y: list[list], count=None) -> None:
    """Pair-cover cuts in draw order: when card s goes on level L while level L-1 holds at most two
    tiles, those are the first two cards of level L-1, and every level-L tile so far, s included,
    lies on them (``pair_cover``), so the level-L area up to s is at most ``PAIR_COVER`` of them.

    ``cap[L-1]`` is at most ``PAIR_COVER`` of the first two cards of level L-1 (a pair constraint
    enforced when both are among the first two); the solver may only lower it. ``count(n)`` is told
    the terms written (it may raise ``_OverBudget``).
    """
    k = len(values)
    top = len(y[0]) if k else 0
    for d in range(top - 1):
        if count is not None:
            count(3 * k * k)
        above = d + 1
        if not any(y[s][above] is not None for s in range(k)):
            continue
        cap = m.new_int_var(0, 20, f"cap{d}")
        early = []
        for t in range(k):
            if y[t][d] is None:
                continue
            before = [y[u][d] for u in range(t) if y[u][d] is not None]
            first_two = m.new_bool_var(f"first{t}_{d}")
            m.add_implication(first_two, y[t][d])
            if before:
                m.add(sum(before) <= 1).only_enforce_if(first_two)
                # Among the first two exactly when on the level with at most one card before it.
                late = m.new_bool_var(f"late{t}_{d}")
                m.add(sum(before) >= 2).only_enforce_if(late)
                m.add(sum(before) <= 1).only_enforce_if(late.Not())
                m.add_bool_or([first_two, late, y[t][d].Not()])
            else:
                m.add(first_two == y[t][d])
            early.append((values[t], first_two))
        for i, (a, x) in enumerate(early):
            for b, z in early[i + 1 :]:
                if PAIR_COVER[a][b] < 20:
                    m.add(cap <= PAIR_COVER[a][b]).only_enforce_if([x, z])
        for s in range(k):
            if y[s][above] is None:
                continue
            before = [y[u][d] for u in range(s) if y[u][d] is not None]
            few = m.new_bool_var(f"few{s}_{d}")
            m.add(sum(before) <= 2).only_enforce_if(few)
            m.add(sum(before) >= 3).only_enforce_if(few.Not())
            area = sum(tile_area(values[t]) * y[t][above] for t in range(s + 1) if y[t][above] is not None)
            m.add(area <= cap).only_enforce_if([few, y[s][above]])


def relaxation_bound(
    values: Sequence[int], levels: int | None = None, time_limit: float = 10.0, pair_cuts: bool = True
) -> int:
    """An upper bound for a known card order, valid on every grid.

    Each card goes on one level; up to every card, the area placed on level L cannot exceed the
    area on level L-1 placed strictly before it (every cell of a level-L tile lies on a level L-1
    tile placed earlier), and a card on level L >= 1 needs two earlier cards on L-1. With
    ``pair_cuts``, while level L-1 holds at most two tiles, level L holds at most ``PAIR_COVER``
    of them (``_add_timed_pair_cuts``). Every play satisfies all of this (a card the rules discard
    counts as a table tile, which only loosens the constraints: more table area, more table tiles,
    and a level holding at most two tiles in the model holds no discarded card), so the optimum of
    this small model, and the solver's proven bound on it, bound every play.

    ``time_limit``: seconds of work (see the module's notes); the same call gives the same bound
    everywhere.
    """
    values = [check_int("a card value", v, 0, MAX_VALUE) for v in values]
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    return _relaxation_bound(values, levels, _Work(time_limit), pair_cuts)


def _relaxation_bound(values: list[int], levels: int | None, work: _Work, pair_cuts: bool) -> int:
    k = len(values)
    top = _level_cap(k, levels)
    # Trivial bound: every card on the highest level it could reach (also the answer when the
    # model, O(k^2) terms, cannot even be built within the work limit: long decks).
    fallback = sum(values[s] * min(top - 1, s // 2) for s in range(k))
    written = [0]
    max_terms = work.left * TERMS_PER_SECOND

    def count(n: int) -> None:
        written[0] += n
        if written[0] > max_terms:
            raise _OverBudget

    try:
        m = cp_model.CpModel()
        count(k * top)
        y = [[m.new_bool_var(f"y{s}_{lv}") if lv <= s // 2 else None for lv in range(top)] for s in range(k)]
        for s in range(k):
            m.add_exactly_one(v for v in y[s] if v is not None)
        for s in range(k):
            count(3 * top * (s + 1))
            for lv in range(1, top):
                if y[s][lv] is None:
                    continue
                upto = [tile_area(values[t]) * y[t][lv] for t in range(s + 1) if y[t][lv] is not None]
                before = [tile_area(values[t]) * y[t][lv - 1] for t in range(s) if y[t][lv - 1] is not None]
                m.add(sum(upto) <= sum(before))
                m.add(sum(y[t][lv - 1] for t in range(s) if y[t][lv - 1] is not None) >= 2 * y[s][lv])
        if pair_cuts:
            _add_timed_pair_cuts(m, values, y, count)
    except _OverBudget:
        work.spend(written[0] / TERMS_PER_SECOND)
        return fallback
    work.spend(written[0] / TERMS_PER_SECOND)
    for s in range(k):
        m.add_hint(y[s][0], True)  # everything on the table: a play, so the solver has one at once
        for var in y[s][1:]:
            if var is not None:
                m.add_hint(var, False)
    m.maximize(
        sum(values[s] * lv * y[s][lv] for s in range(k) for lv in range(1, top) if y[s][lv] is not None)
    )
    return fallback if work.out else _solve_bound(m, work, fallback)


def free_relaxation_bound(
    variant: Variant, levels: int | None = None, time_limit: float = 10.0, pair_cuts: bool = True
) -> int:
    """An upper bound for the free draft of ``variant``, valid on every grid: choose at most ``k``
    cards and a level for each; each level's area is at most the level under it, a level in use
    stands on at least two tiles, and (``pair_cuts``) a level of at most two tiles holds at most
    ``PAIR_COVER`` of them on the level above (``_add_pair_cuts``'s argument). Every play of the
    free draft satisfies this, its discarded cards left out (a play places at most ``k`` tiles),
    so the model's proven bound bounds every play.

    Equal cards are interchangeable, so the model counts the cards of each value on each level
    (0..copies) instead of placing cards one by one: the same optimum, without the symmetry.
    ``time_limit``: seconds of work (see the module's notes).
    """
    variant = Variant.parse(variant) if isinstance(variant, str) else variant
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    return _free_relaxation_bound(variant, levels, _Work(time_limit), pair_cuts)


def _free_relaxation_bound(variant: Variant, levels: int | None, work: _Work, pair_cuts: bool = True) -> int:
    values = range(variant.max_value + 1)
    top = _level_cap(variant.cards, levels)
    m = cp_model.CpModel()
    x = [[m.new_int_var(0, variant.copies, f"x{v}_{lv}") for lv in range(top)] for v in values]
    for v in values:
        m.add(sum(x[v]) <= variant.copies)
    # At most k tiles: the rules discard a card that fits nowhere.
    m.add(sum(x[v][lv] for v in values for lv in range(top)) <= variant.cards)
    count = [sum(x[v][lv] for v in values) for lv in range(top)]
    area = [sum(tile_area(v) * x[v][lv] for v in values) for lv in range(top)]
    for lv in range(1, top):
        m.add(area[lv] <= area[lv - 1])
        used = m.new_bool_var(f"used{lv}")
        m.add(count[lv] == 0).only_enforce_if(used.Not())
        m.add(count[lv - 1] >= 2).only_enforce_if(used)
    if pair_cuts:
        for lv in range(1, top):
            few = m.new_bool_var(f"few{lv - 1}")
            m.add(count[lv - 1] <= 2).only_enforce_if(few)
            m.add(count[lv - 1] >= 3).only_enforce_if(few.Not())
            present = []
            for v in values:
                some = m.new_bool_var(f"some{v}_{lv - 1}")
                m.add(x[v][lv - 1] >= 1).only_enforce_if(some)
                m.add(x[v][lv - 1] == 0).only_enforce_if(some.Not())
                present.append(some)
                if variant.copies >= 2 and PAIR_COVER[v][v] < 2 * tile_area(v):
                    two = m.new_bool_var(f"two{v}_{lv - 1}")
                    m.add(x[v][lv - 1] >= 2).only_enforce_if(two)
                    m.add(x[v][lv - 1] <= 1).only_enforce_if(two.Not())
                    m.add(area[lv] <= PAIR_COVER[v][v]).only_enforce_if([two, few])
            for a in values:
                for b in values:
                    if a < b and PAIR_COVER[a][b] < tile_area(a) + tile_area(b):
                        m.add(area[lv] <= PAIR_COVER[a][b]).only_enforce_if([present[a], present[b], few])
    m.maximize(sum(v * lv * x[v][lv] for v in values for lv in range(1, top)))
    deck = sorted(variant.full_deck, reverse=True)[: variant.cards]
    fallback = sum(deck) * (top - 1)
    return _solve_bound(m, work, fallback)


def _level_cap(k: int, levels: int | None) -> int:
    """Levels any play of ``k`` cards can use: level L needs two tiles on every level below it
    (2L + 1 <= k placed tiles, and a play places at most k), and at most ``levels``."""
    cap = (k - 1) // 2 + 1
    return cap if levels is None else min(levels, cap)


def _solve_bound(m: cp_model.CpModel, work: _Work, fallback: int) -> int:
    """The solver's proven bound on the relaxation, or ``fallback`` (a trivial bound) when it
    stopped before finding a first solution (CP-SAT then reports a bound of 0, not a bound)."""
    solver, status = _cp_solve(m, work, 2)
    if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise RuntimeError(f"the bound model ended with status {solver.status_name(status)}")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return fallback  # stopped before a first solution: the reported bound then means nothing
    return min(fallback, math.floor(solver.best_objective_bound + 1e-6))

"""CP-SAT oracles for Nmbr9: the best score of a known card order, and of a freely chosen deck.

**The placement model.** The game is a sequence of slots (one per card). Slot ``s`` gets exactly one
Boolean ``x[s, value, action, level]`` (a value is fixed by the deal in the known draft, chosen in the
free draft). With ``occ(s, L, c)`` the sum of slot ``s``'s variables covering cell ``c`` on level ``L``
and ``below(s, L, c)`` a Boolean "a slot before ``s`` covers ``c`` on level ``L``" (a running sum):

- no two tiles share a cell of a level: ``sum_s occ(s, L, c) <= 1``;
- full support by earlier tiles: ``occ(s, L, c) <= below(s, L-1, c)`` for L >= 1;
- at least two tiles below: ``x + sum(earlier tiles on L-1 whose cells contain x's cells) <= 1``
  (a fully supported footprint rests on one tile exactly when one tile contains it);
- adjacency: ``x AND level L already started before s  =>  OR(below(s, L, c) for c around x)``;
- a slot can only be on level <= s // 2 (each level needs two tiles under it), and below a level limit.

Symmetry breaking, both valid on a square grid because the rules are invariant under turns and
shifts: the first tile is unturned (turn the whole board), and the layout touches row 0 and column 0
(shift it up and left). Hints come from the greedy player; CP-SAT runs several workers.

**Bounds.** A grid-free relaxation (which card on which level, with each level's area and tile
count limited by the level under it, in draw order) gives an upper bound valid on every grid, in a
fraction of a second. The placement model gives the exact optimum on the grid it is built for; on a
smaller "model grid" (to find good plans fast on a big board) its bound is not used, only its plan.

**Certificates.** Every plan is replayed through the engine (``tabletop_gym.envs.nmbr9.rules``) on
the requested grid before it is reported; a model bug shows up as an error, never as a wrong number.
The rules discard a card that fits nowhere (small grids only). Known-draft bounds cover such plays:
the relaxation counts a discarded card as a table tile (only loosening it), and the known-draft
placement model may leave out any card but the first (a relaxation of the forced discard); its
plan is used only when the engine discards exactly the cards it left out. The free-draft models
place every card: their bounds are over plays that place every card, which on the default 20x20
grid is every play of a 20-card game in practice.

**Plans for big boards.** The placement model on a 20x20 board is far too big to help, so plans
come from a portfolio of beam searches over the engine's own legal placements (``beam_plan``).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from tabletop_gym.core import OracleCache, OracleResult, TabletopError, check_float, check_int
from tabletop_gym.envs.nmbr9.rules import (
    DEFAULT_GRID,
    MAX_VALUE,
    Cells,
    Deal,
    Nmbr9State,
    Variant,
    _tables,
    check_grid,
    check_levels,
    decode_action,
    distinct_rotations,
    footprint,
    parse_deal,
    replay,
    tile_area,
    tile_rotations,
    translate_plan,
)

GAME = "nmbr9"
MAX_TIME_LIMIT = 86_400.0  # a day: a longer search is a typo, not a request
MAX_WORKERS = 64


class NoPlanError(TabletopError, RuntimeError):
    """The oracle found no play that its model covers: the free draft on a grid too small to hold
    every card, or no plan within the time limit."""


class _OutOfTime(Exception):
    """A model's construction passed its deadline (the caller goes on without it)."""


def check_time_limit(time_limit: float, name: str = "time_limit") -> float:
    """``time_limit`` as a float: finite seconds, above 0 and at most a day (NaN would mean no limit
    at all to CP-SAT)."""
    return check_float(f"{name} (seconds)", time_limit, 0, MAX_TIME_LIMIT, low_open=True)


def _check_model_grid(model_grid: int | None, grid: int) -> int:
    """The model's board: ``grid`` when None, else a grid size no larger than ``grid``."""
    if model_grid is None:
        return grid
    model_grid = check_grid(model_grid, "model_grid")
    if model_grid > grid:
        raise ValueError(f"model_grid ({model_grid}) must be at most grid ({grid})")
    return model_grid


# ---------------------------------------------------------------------------------------------------
# Geometry of the model: every in-grid placement of every tile.


@dataclass(frozen=True)
class _Shape:
    action: int
    rotation: int
    cells: tuple[int, ...]  # flat cell indices
    border: tuple[int, ...]  # flat indices of in-grid edge neighbours


@functools.cache
def _shapes(value: int, grid: int) -> tuple[_Shape, ...]:
    out = []
    for a in range(4 * grid * grid):
        rotation = decode_action(a, grid)[0]
        if rotation not in distinct_rotations(value):
            continue
        cells = footprint(value, a, grid)
        if any(not (0 <= r < grid and 0 <= c < grid) for r, c in cells):
            continue
        own = set(cells)
        ring = {(r + dr, c + dc) for r, c in cells for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))} - own
        border = tuple(sorted(r * grid + c for r, c in ring if 0 <= r < grid and 0 <= c < grid))
        out.append(_Shape(a, rotation, tuple(sorted(r * grid + c for r, c in cells)), border))
    return tuple(out)


@functools.cache
def _containers(value: int, grid: int, values: tuple[int, ...]) -> dict[tuple[int, int], tuple]:
    """For each shape of ``value``: the (value', index) of shapes of ``values`` containing all its cells."""
    by_cell: dict[tuple[int, int], set[int]] = {}
    for v in values:
        for i, sh in enumerate(_shapes(v, grid)):
            for c in sh.cells:
                by_cell.setdefault((v, c), set()).add(i)
    out = {}
    for i, sh in enumerate(_shapes(value, grid)):
        found = []
        for v in values:
            if tile_area(v) < len(sh.cells):
                continue
            common = set.intersection(*(by_cell.get((v, c), set()) for c in sh.cells))
            found.extend((v, j) for j in sorted(common))
        out[(value, i)] = tuple(found)
    return out


# ---------------------------------------------------------------------------------------------------
# The placement model


class _PlacementModel:
    """CP-SAT model of a game with ``len(slot_values)`` cards; slot s takes one of ``slot_values[s]``."""

    def __init__(
        self,
        slot_values: Sequence[Sequence[int]],
        grid: int,
        levels: int,
        copies: int | None = None,
        level_major: bool = False,
        slot_levels: Sequence[int] | None = None,
        allow_skip: bool = False,
        deadline: float | None = None,
    ) -> None:
        def on_time() -> None:
            # Building a big model takes seconds of Python: the time limit covers that too.
            if deadline is not None and time.perf_counter() > deadline:
                raise _OutOfTime

        self.grid = grid
        self.levels = levels
        self.slot_values = [tuple(v) for v in slot_values]
        k = len(slot_values)
        m = cp_model.CpModel()
        self.model = m
        cells = grid * grid
        all_values = tuple(sorted({v for vs in self.slot_values for v in vs}))
        # x[s] : list of (value, shape index, level, var)
        self.x: list[list[tuple[int, int, int, cp_model.IntVar]]] = []
        self.skips: list = []
        occ: dict[tuple[int, int, int], list] = {}  # (slot, level, cell) -> vars
        at_level: dict[tuple[int, int], list] = {}  # (slot, level) -> vars
        objective = []
        for s, values in enumerate(self.slot_values):
            on_time()
            top = min(levels - 1, s // 2)
            row = []
            for v in values:
                for i, sh in enumerate(_shapes(v, grid)):
                    if s == 0 and sh.rotation != 0:
                        continue  # turn the whole board so that the first tile is unturned
                    for lv in range(top + 1):
                        if slot_levels is not None and lv != slot_levels[s]:
                            continue
                        var = m.new_bool_var(f"x{s}_{v}_{sh.action}_{lv}")
                        row.append((v, i, lv, var))
                        at_level.setdefault((s, lv), []).append(var)
                        for c in sh.cells:
                            occ.setdefault((s, lv, c), []).append(var)
                        if v and lv:
                            objective.append(v * lv * var)
            if allow_skip and s > 0:
                # The card may be left out. The rules discard a card only when it fits nowhere;
                # leaving cards out freely only adds plays, so the model stays a relaxation of
                # the game and its bound holds for plays with forced discards too. (The first
                # card always fits on an empty grid.)
                skip = m.new_bool_var(f"skip{s}")
                self.skips.append(skip)
                m.add_exactly_one([var for *_, var in row] + [skip])
            else:
                self.skips.append(None)
                m.add_exactly_one(var for *_, var in row)
            self.x.append(row)
        # No overlap on any level.
        for lv in range(levels):
            on_time()
            for c in range(cells):
                terms = [var for s in range(k) for var in occ.get((s, lv, c), ())]
                if len(terms) > 1:
                    m.add_at_most_one(terms)
        # below[s][lv][c]: a slot before s covers c on level lv (a running sum, 0/1 by no-overlap).
        need_below = levels if levels > 1 else 1
        below: dict[tuple[int, int, int], object] = {}
        for lv in range(need_below):
            on_time()
            for c in range(cells):
                prev = 0
                for s in range(1, k):
                    terms = occ.get((s - 1, lv, c), ())
                    if not terms and isinstance(prev, int):
                        below[(s, lv, c)] = 0
                        continue
                    b = m.new_bool_var(f"b{s}_{lv}_{c}")
                    m.add(b == prev + sum(terms))
                    below[(s, lv, c)] = b
                    prev = b
        # started[s][lv]: some slot before s is on level lv.
        started: dict[tuple[int, int], object] = {}
        for lv in range(levels):
            prev = 0
            for s in range(1, k):
                terms = at_level.get((s - 1, lv), ())
                if not terms and isinstance(prev, int):
                    started[(s, lv)] = 0
                    continue
                e = m.new_bool_var(f"e{s}_{lv}")
                m.add(e <= prev + sum(terms))
                if not isinstance(prev, int):
                    m.add(e >= prev)
                for t in terms:
                    m.add(e >= t)
                started[(s, lv)] = e
                prev = e
        containers = {}
        for v in all_values:
            on_time()
            containers[v] = _containers(v, grid, all_values)
        for s, row in enumerate(self.x):
            on_time()
            # Full support, aggregated per cell.
            for lv in range(1, levels):
                for c in range(cells):
                    terms = occ.get((s, lv, c))
                    if terms:
                        b = below.get((s, lv - 1, c), 0)
                        m.add(sum(terms) <= b)
            # Index of earlier slots' variables by (value, shape, level), for the two-tiles rule.
            earlier: dict[tuple[int, int, int], list] = {}
            for t in range(s):
                for v, i, lv, var in self.x[t]:
                    earlier.setdefault((v, i, lv), []).append(var)
            for v, i, lv, var in row:
                sh = _shapes(v, grid)[i]
                if lv >= 1:
                    single = [w for key in containers[v][(v, i)] for w in earlier.get((*key, lv - 1), ())]
                    if single:
                        m.add(var + sum(single) <= 1)
                if s >= 1:
                    e = started[(s, lv)]
                    if isinstance(e, int):
                        continue  # first tile of its level: no neighbour needed
                    ring = [below[(s, lv, c)] for c in sh.border if not isinstance(below[(s, lv, c)], int)]
                    if ring:
                        m.add_bool_or(ring).only_enforce_if([var, e])
                    else:
                        m.add_implication(var, e.Not())
        # Shift the layout up and left: something covers row 0 and something covers column 0.
        top_row = [
            var
            for row in self.x
            for v, i, lv, var in row
            if lv == 0 and min(_shapes(v, grid)[i].cells) < grid
        ]
        left_col = [
            var
            for row in self.x
            for v, i, lv, var in row
            if lv == 0 and any(c % grid == 0 for c in _shapes(v, grid)[i].cells)
        ]
        m.add_bool_or(top_row)
        m.add_bool_or(left_col)
        if copies is not None:
            for v in all_values:
                m.add(sum(var for row in self.x for vv, _, _, var in row if vv == v) <= copies)
        if level_major:
            level_of = [sum(lv * var for _, _, lv, var in row if lv) for row in self.x]
            for s in range(1, k):
                m.add(level_of[s - 1] <= level_of[s])
        # With skips: the score times (k + 1), less one per card left out, so that among plays of
        # equal score the solver prefers those that place every card (see ``score_bound``).
        self.scale = k + 1 if allow_skip else 1
        skips = [b for b in self.skips if b is not None]
        m.maximize(self.scale * sum(objective) - sum(skips))
        self.num_vars = sum(len(row) for row in self.x)

    def score_bound(self, solver: cp_model.CpSolver) -> int:
        """A proven bound on the score: objective = scale * score - skips with skips < scale."""
        return math.floor((solver.best_objective_bound + self.scale - 1) / self.scale + 1e-6)

    def score(self, solver: cp_model.CpSolver) -> int:
        skipped = sum(solver.value(b) for b in self.skips if b is not None)
        return round((solver.objective_value + skipped) / self.scale)

    def hint(self, values: Sequence[int], actions: Sequence[int], levels: Sequence[int]) -> None:
        for s, row in enumerate(self.x):
            for v, i, lv, var in row:
                sh = _shapes(v, self.grid)[i]
                self.model.add_hint(var, v == values[s] and sh.action == actions[s] and lv == levels[s])

    def solve(self, time_limit: float, workers: int) -> tuple[cp_model.CpSolver, int]:
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = float(time_limit)
        solver.parameters.num_workers = int(workers)
        status = solver.solve(self.model)
        return solver, status

    def plan(self, solver: cp_model.CpSolver) -> list[tuple[int, int] | None]:
        """(value, action) per slot from the solver's best solution; None for a card left out."""
        out = []
        for row in self.x:
            chosen = [(v, _shapes(v, self.grid)[i].action) for v, i, _, var in row if solver.value(var)]
            out.append(chosen[0] if chosen else None)
        return out


def _normalise_plan(values: Sequence[int], actions: Sequence[int], grid: int) -> tuple[list[int], list[int]]:
    """Shift a plan up-left (so its layout touches row 0 and column 0) and turn it so that its first
    tile is unturned: the canonical form the model's symmetry breaking asks for."""
    deal = Deal(tuple(values))
    plan = list(actions)
    for _ in range(4):
        if decode_action(plan[0], grid)[0] == 0:
            break
        plan = _turn_plan(values, plan, grid)
    cells = [rc for v, a in zip(values, plan, strict=True) for rc in footprint(v, a, grid)]
    dr = min(r for r, _ in cells)
    dc = min(c for _, c in cells)
    out = []
    for a in plan:
        rot, r, c = decode_action(a, grid)
        out.append(rot * grid * grid + (r - dr) * grid + (c - dc))
    state = replay(deal, out, grid)
    return out, [p.level for p in state.placements]


def _turn_plan(values: Sequence[int], plan: Sequence[int], grid: int) -> list[int]:
    """The same layout turned a quarter clockwise on the board: cell (r, c) -> (c, grid-1-r)."""
    out = []
    for v, a in zip(values, plan, strict=True):
        cells = [(c, grid - 1 - r) for r, c in footprint(v, a, grid)]
        rows = min(r for r, _ in cells)
        cols = min(c for _, c in cells)
        shape = tuple(sorted((r - rows, c - cols) for r, c in cells))
        rotation = next(q for q in distinct_rotations(v) if _rot_cells(v, q) == shape)
        out.append(rotation * grid * grid + rows * grid + cols)
    return out


def _rot_cells(value: int, rotation: int) -> tuple[tuple[int, int], ...]:
    from tabletop_gym.envs.nmbr9.rules import tile_rotations

    return tile_rotations(value)[rotation]


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


def _add_timed_pair_cuts(
    m: cp_model.CpModel, values: Sequence[int], y: list[list], deadline: float | None = None
) -> None:
    """Pair-cover cuts in draw order: when card s goes on level L while level L-1 holds at most two
    tiles, those are the first two cards of level L-1, and every level-L tile so far, s included,
    lies on them (``pair_cover``), so the level-L area up to s is at most ``PAIR_COVER`` of them.

    ``cap[L-1]`` is at most ``PAIR_COVER`` of the first two cards of level L-1 (a pair constraint
    enforced when both are among the first two); the solver may only lower it.
    """
    k = len(values)
    top = len(y[0]) if k else 0
    for d in range(top - 1):
        if deadline is not None and time.perf_counter() > deadline:
            raise _OutOfTime
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
    counts as a table tile, which only loosens the constraints), so the optimum of this small
    model, and the solver's proven bound on it, bound every play.
    """
    start = time.perf_counter()
    values = [check_int("a card value", v, 0, MAX_VALUE) for v in values]
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    deadline = start + time_limit
    k = len(values)
    top = _level_cap(k, levels)
    # Trivial bound: every card on the highest level it could reach (also the answer when the
    # model, O(k^2) terms, cannot even be built within the time limit: long decks).
    fallback = sum(values[s] * min(top - 1, s // 2) for s in range(k))
    m = cp_model.CpModel()
    y = [[m.new_bool_var(f"y{s}_{lv}") if lv <= s // 2 else None for lv in range(top)] for s in range(k)]
    for s in range(k):
        m.add_exactly_one(v for v in y[s] if v is not None)
    for s in range(k):
        if time.perf_counter() > deadline:
            return fallback
        for lv in range(1, top):
            if y[s][lv] is None:
                continue
            upto = [tile_area(values[t]) * y[t][lv] for t in range(s + 1) if y[t][lv] is not None]
            before = [tile_area(values[t]) * y[t][lv - 1] for t in range(s) if y[t][lv - 1] is not None]
            m.add(sum(upto) <= sum(before))
            m.add(sum(y[t][lv - 1] for t in range(s) if y[t][lv - 1] is not None) >= 2 * y[s][lv])
    if pair_cuts:
        try:
            _add_timed_pair_cuts(m, values, y, deadline)
        except _OutOfTime:
            return fallback
    for s in range(k):
        m.add_hint(y[s][0], True)  # everything on the table: a play, so the solver has one at once
        for var in y[s][1:]:
            if var is not None:
                m.add_hint(var, False)
    m.maximize(
        sum(values[s] * lv * y[s][lv] for s in range(k) for lv in range(1, top) if y[s][lv] is not None)
    )
    left = deadline - time.perf_counter()
    return fallback if left <= 0 else _solve_bound(m, left, fallback)


def free_relaxation_bound(
    variant: Variant, levels: int | None = None, time_limit: float = 10.0, pair_cuts: bool = True
) -> int:
    """An upper bound for the free draft of ``variant``, valid on every grid: choose ``k`` cards and a
    level for each; each level's area is at most the level under it, a level in use stands on at
    least two tiles, and (``pair_cuts``) a level of at most two tiles holds at most ``PAIR_COVER``
    of them on the level above (``_add_pair_cuts``'s argument). Every play of the free draft
    satisfies this, so the model's proven bound bounds every play.

    Equal cards are interchangeable, so the model counts the cards of each value on each level
    (0..copies) instead of placing cards one by one: the same optimum, without the symmetry.
    """
    variant = Variant.parse(variant) if isinstance(variant, str) else variant
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    values = range(variant.max_value + 1)
    top = _level_cap(variant.cards, levels)
    m = cp_model.CpModel()
    x = [[m.new_int_var(0, variant.copies, f"x{v}_{lv}") for lv in range(top)] for v in values]
    for v in values:
        m.add(sum(x[v]) <= variant.copies)
    m.add(sum(x[v][lv] for v in values for lv in range(top)) == variant.cards)
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
    return _solve_bound(m, time_limit, fallback)


def _level_cap(k: int, levels: int | None) -> int:
    cap = (k - 1) // 2 + 1  # level L needs two tiles on every level below it: 2L + 1 <= k
    return cap if levels is None else min(levels, cap)


def _solve_bound(m: cp_model.CpModel, time_limit: float, fallback: int) -> int:
    """The solver's proven bound on the relaxation, or ``fallback`` (a trivial bound) when it
    stopped before finding a first solution (CP-SAT then reports a bound of 0, not a bound)."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 2
    status = solver.solve(m)
    if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise RuntimeError(f"the bound model ended with status {solver.status_name(status)}")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return fallback  # stopped before a first solution: the reported bound then means nothing
    return min(fallback, math.floor(solver.best_objective_bound + 1e-6))



# ---------------------------------------------------------------------------------------------------
# Beam search over the engine's legal placements (plans for big boards)

# (rho, vmin, table candidates, candidates per upper level, width, children per position): the
# portfolio the oracle runs in turn until its time is up. Measured on seeded standard deals, no
# single setting wins them all (the spread between settings on one deal is large), so the best
# of several is kept.
BEAM_PORTFOLIO: tuple[tuple[float, int, int, int, int, int | None], ...] = (
    (0.8, 3, 10, 8, 16, None),
    (0.8, 2, 6, 4, 24, None),
    (0.7, 3, 6, 4, 24, None),
    (0.9, 4, 6, 4, 24, None),
    (0.8, 4, 4, 12, 16, None),
    (0.7, 4, 10, 8, 24, None),
    (0.9, 3, 10, 8, 32, None),
    (0.8, 3, 8, 8, 48, None),
    (0.7, 3, 6, 4, 24, 4),
    (0.8, 3, 10, 8, 16, 4),
    (0.8, 4, 4, 12, 16, 4),
    (0.9, 3, 10, 8, 32, 4),
)


def _portfolio_rounds(rounds: int = 6, diverse_first: bool = False):
    """The portfolio, then again with the beams twice as wide, and so on, for ``rounds`` rounds
    (the callers stop at their deadline): wider beams find better plans on some deals.
    ``diverse_first`` runs the settings with a cap on children per position first (better on
    the free draft's sorted orders in the benchmark)."""
    order = sorted(BEAM_PORTFOLIO, key=lambda c: c[5] is None) if diverse_first else BEAM_PORTFOLIO
    for r in range(rounds):
        for rho, vmin, per_table, per_level, width, per_parent in order:
            yield rho, vmin, per_table, per_level, width << r, per_parent


def _beam_candidates(state: Nmbr9State, per_table: int, per_level: int) -> list[int]:
    """A few legal placements of the current tile per level: on each level the ones touching the
    most same-level edges, then growing the occupied bounding box least (compact levels leave big
    flat areas to build on). Vectorised over every placement."""
    value = state.card
    grid = state.grid
    table = _tables(grid)[value]
    actions, level = state.placement_levels(value)
    legal = np.flatnonzero(level >= 0)
    lv = level[legal]
    h = state._hflat
    if table.border.shape[0]:
        contacts = (h[table.border[:, legal]] > lv).sum(axis=0)
    else:
        contacts = np.zeros(len(legal), dtype=np.intp)
    cells = table.cells[:, legal]
    rows, cols = cells // grid, cells % grid
    occupied = np.flatnonzero(h[:-1] > 0)
    if occupied.size:
        r0, r1 = (occupied // grid).min(), (occupied // grid).max()
        c0, c1 = (occupied % grid).min(), (occupied % grid).max()
        box = (np.maximum(r1, rows.max(0)) - np.minimum(r0, rows.min(0)) + 1) * (
            np.maximum(c1, cols.max(0)) - np.minimum(c0, cols.min(0)) + 1
        )
    else:  # the first tile: central
        mid = (grid - 1) / 2
        box = np.abs(rows.mean(0) - mid) + np.abs(cols.mean(0) - mid)
    out = []
    for lvl in np.unique(lv):
        sel = np.flatnonzero(lv == lvl)
        order = np.lexsort((box[sel], -contacts[sel]))
        keep = per_table if lvl == 0 else per_level
        out.extend(int(actions[legal[i]]) for i in sel[order[:keep]])
    return out


def _beam_potential(state: Nmbr9State, rho: float, vmin: int) -> float:
    """What the cards still to come might add: a quick simulation in draw order on surface areas
    alone. A card of value >= ``vmin`` goes on the highest level with enough free area (cells of
    that height, times ``rho`` for the waste geometry forces), and adds ``rho`` times its area to
    the level above; lower cards go on the table. A heuristic, not a bound."""
    rest = state.deal.cards[state.turn :]
    if not rest:
        return 0.0
    n = len(rest) + 3
    cap = np.bincount(state._hflat[:-1], minlength=n)[:n].astype(float) * rho
    cap = cap.tolist()
    total = 0.0
    for v in rest:
        area = _AREA[v]
        if v >= vmin:
            for lvl in range(n - 2, 0, -1):
                if cap[lvl] >= area:
                    cap[lvl] -= area
                    cap[lvl + 1] += area * rho
                    total += v * lvl
                    break
            else:
                cap[1] += area * rho
        else:
            cap[1] += area * rho
    return total


_AREA = tuple(tile_area(v) for v in range(10))


def beam_plan(
    deal: Deal,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    rho: float = 0.8,
    vmin: int = 3,
    per_table: int = 10,
    per_level: int = 8,
    width: int = 16,
    deadline: float | None = None,
    per_parent: int | None = None,
) -> tuple[list[int], int] | None:
    """Beam search over the engine's legal placements: keep the ``width`` positions with the best
    score + potential (see ``_beam_potential``) after each card; children are a few candidate
    placements per level (``_beam_candidates``); equal boards are merged. Returns the best final
    plan that places every card and its score, or None (no such plan, or ``deadline`` passed,
    a ``time.perf_counter()`` value). ``per_parent`` keeps at most that many children of each
    position, so that the beam does not fill with near-copies of one line of play."""
    rho = check_float("rho", rho, 0, 1, low_open=True)
    vmin = check_int("vmin", vmin, 0, MAX_VALUE + 1)
    per_table = check_int("per_table", per_table, 1)
    per_level = check_int("per_level", per_level, 1)
    width = check_int("width", width, 1, 1 << 20)
    per_parent = check_int("per_parent", per_parent, 1, optional=True)
    deadline = check_float("deadline", deadline, optional=True)
    beam: list[tuple[Nmbr9State, list[int]]] = [(Nmbr9State(deal, grid, levels), [])]
    while not beam[0][0].done:
        children: dict[bytes, tuple[float, Nmbr9State, list[int]]] = {}
        for parent, (state, plan) in enumerate(beam):
            if state.done:
                continue
            for action in _beam_candidates(state, per_table, per_level):
                child = state.copy()
                child.place(action)
                if child.discarded:
                    continue
                key = child._hflat.tobytes() + child._tflat.tobytes()
                if key not in children:
                    value = child.score + _beam_potential(child, rho, vmin)
                    children[key] = (value, parent, child, plan + [action])
            if deadline is not None and time.perf_counter() > deadline:
                return None
        if not children:
            return None
        ranked = sorted(children.values(), key=lambda item: -item[0])
        if per_parent is not None:  # diversity: a few children of each position at most
            taken: dict[int, int] = {}
            kept = []
            for item in ranked:
                if taken.get(item[1], 0) < per_parent:
                    taken[item[1]] = taken.get(item[1], 0) + 1
                    kept.append(item)
            ranked = kept
        beam = [(child, plan) for _, _, child, plan in ranked[:width]]
    state, plan = max(beam, key=lambda item: item[0].score)
    return plan, state.score


# ---------------------------------------------------------------------------------------------------
# Public oracles


def greedy_plan(deal: Deal, grid: int, levels: int | None = None) -> list[int]:
    """The greedy player's plan (see ``tabletop_gym.agents.nmbr9.GreedyAgent``)."""
    from tabletop_gym.agents.nmbr9 import greedy_action

    state = Nmbr9State(deal, grid, levels)
    plan = []
    while not state.done:
        action = greedy_action(state)
        plan.append(action)
        state.place(action)
    return plan


def solve(
    deal: Deal | str,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    time_limit: float = 60.0,
    model_grid: int | None = None,
    workers: int = 2,
    variant: Variant | None = None,
    model_levels: int | None = None,
    placement_model: bool | None = None,
) -> OracleResult:
    """Known draft: the best score for this exact card order, with a plan and a proven bound.

    Plans come from the greedy player and a portfolio of beam searches over the engine's legal
    placements (``beam_plan``, run in turn until their share of ``time_limit`` is used), then,
    if ``placement_model`` (default: only on grids of at most 10 cells a side, or when
    ``model_grid`` is given), from the CP-SAT placement model, hinted with the best plan so far.
    ``model_grid`` builds that model on a smaller board and ``model_levels`` limits its levels;
    its plan is moved to the middle of ``grid`` and its bound is then not used.

    ``bound`` is the least of the grid-free relaxation bound and, when the placement model covers
    the whole game, the model's proven bound: a valid upper bound on every play of the deal on
    ``grid``, even when a solver stops at its time limit. Plays where the rules discard a card that
    fits nowhere (small grids) are covered: the relaxation counts a discarded card as a table tile
    (which only loosens it), and the placement model on the full grid may leave any card but the
    first out. Plans may contain such forced discards; the engine replays them.

    ``time_limit`` (seconds, finite, above 0) covers the whole call, the models' construction
    included; every parameter is checked first (a ValueError names the one that is wrong).
    """
    start = time.perf_counter()
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    model_given = model_grid is not None
    model_grid = _check_model_grid(model_grid, grid)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    model_levels = check_int("model_levels", model_levels, 1, optional=True)
    if placement_model is not None and not isinstance(placement_model, bool):
        raise TypeError(f"placement_model must be True, False or None, got {placement_model!r}")
    deadline = start + time_limit
    deal = _as_deal(deal, variant)
    values = list(deal.cards)
    if placement_model is None:
        placement_model = model_given or grid <= 10
    lv_cap = _level_cap(len(values), levels)
    model_cap = lv_cap if model_levels is None else min(lv_cap, model_levels)
    # The plain relaxation is solved in a blink; the one with pair cuts is tighter but slower, and
    # if stopped early its proven bound can be the looser of the two. Both bound every play, and
    # one stopped before its first solution gives a trivial bound, so their shares of the time
    # limit need no floor.
    relax = min(
        relaxation_bound(values, levels, time_limit=min(10.0, time_limit / 10), pair_cuts=False),
        relaxation_bound(values, levels, time_limit=min(30.0, time_limit / 4)),
    )
    bound = relax
    best: Nmbr9State | None = None
    best_plan: list[int] = []

    def offer(plan: list[int], source: str) -> None:
        nonlocal best, best_plan
        state = replay(deal, plan, grid, levels)
        if state.done and (best is None or state.score > best.score):
            best, best_plan = state, list(plan)
            stats["source"] = source

    stats: dict = {"relaxation_bound": relax}
    greedy = greedy_plan(deal, grid, levels)
    offer(greedy, "greedy")
    stats["greedy"] = None if best is None else best.score
    # The beam portfolio: all the time on big boards, a third when the placement model follows.
    share = 1 / 3 if placement_model else 1.0
    beam_deadline = start + share * time_limit
    beam_scores = []
    for rho, vmin, per_table, per_level, width, per_parent in _portfolio_rounds():
        if time.perf_counter() >= beam_deadline or (best is not None and best.score >= bound):
            break
        found = beam_plan(
            deal, grid, levels, rho, vmin, per_table, per_level, width, beam_deadline, per_parent
        )
        if found is not None:
            beam_scores.append(found[1])
            offer(found[0], "beam")
    stats["beam_runs"] = beam_scores
    model: _PlacementModel | None = None
    whole = model_grid == grid and model_cap == lv_cap  # else the model solves a restricted game
    if placement_model and (best is None or best.score < bound) and deadline - time.perf_counter() > 0.1:
        try:
            model = _PlacementModel(
                [[v] for v in values], model_grid, model_cap, allow_skip=whole, deadline=deadline
            )
        except _OutOfTime:
            stats["model"] = "not built within the time limit"
    if model is not None:
        hint = None
        if best is not None and not best.discarded:
            hint = _fit_plan(values, best_plan, grid, model_grid)
        if hint is None and model_grid < grid:
            small = greedy_plan(deal, model_grid, levels)
            hint = small if len(small) == len(values) else None
        if hint is not None:
            hint_actions, hint_levels = _normalise_plan(values, hint, model_grid)
            if max(hint_levels) < model_cap:
                model.hint(values, hint_actions, hint_levels)
        solver, status = model.solve(max(deadline - time.perf_counter(), 0.01), workers)
        stats.update(
            status=solver.status_name(status),
            variables=model.num_vars,
            model_grid=model_grid,
            model_levels=model_cap,
        )
        if status == cp_model.INFEASIBLE and whole:
            raise RuntimeError(f"the placement model of {deal} on a {model_grid}-grid is infeasible")
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            chosen = model.plan(solver)
            placed = [p[1] for p in chosen if p is not None]
            plan = translate_plan(deal, placed, model_grid, grid)
            try:
                state = replay(deal, plan, grid, levels)
            except ValueError:
                state = None  # the model left out a card that fits: not a play of the game
            if state is not None and [p is None for p in state.placements] == [p is None for p in chosen]:
                if state.score != model.score(solver):
                    raise AssertionError(
                        f"model claims {model.score(solver)} but its plan replays to {state.score} on {deal}"
                    )
                offer(plan, "placement model")
            else:
                stats["model_plan"] = "leaves out a card that fits; not used"
        if whole and status != cp_model.UNKNOWN:
            stats["model_bound"] = model.score_bound(solver)
            bound = min(bound, stats["model_bound"])
    if best is None:  # the greedy player always finishes: only a bug gets here
        raise NoPlanError(f"no play of deal {deal} found within {time_limit:g} s")
    return OracleResult(
        score=best.score,
        bound=max(bound, best.score),
        plan=tuple(best_plan),
        seconds=time.perf_counter() - start,
        stats=stats,
    )


def _fit_plan(values: Sequence[int], plan: Sequence[int], grid: int, small: int) -> list[int] | None:
    """The plan moved onto a ``small`` board (layout shifted to the top-left), or None if it does
    not fit there."""
    cells = [rc for v, a in zip(values, plan, strict=True) for rc in footprint(v, a, grid)]
    dr = min(r for r, _ in cells)
    dc = min(c for _, c in cells)
    if max(r for r, _ in cells) - dr >= small or max(c for _, c in cells) - dc >= small:
        return None
    out = []
    for a in plan:
        rot, r, c = decode_action(a, grid)
        out.append(rot * small * small + (r - dr) * small + (c - dc))
    return out


def solve_free(
    variant: Variant | str,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    time_limit: float = 60.0,
    workers: int = 2,
    model_grid: int | None = None,
    max_candidates: int = 5000,
) -> OracleResult:
    """Free draft: the best score over every choice of ``k`` cards and their order for variant m-c-k.

    The plan is ``((value, action), ...)`` in play order; the engine replays it on ``grid``.

    Only level-major orders need searching: any finished layout can be rebuilt level by level, each
    level in an order where every tile touches an earlier one (each level of a finished game is
    connected). So the oracle enumerates *candidates*: a level for each card in level-major order
    and the values of the cards above the table (which fix the score), pruned by areas, best score
    first. Each candidate is a small satisfiability model (the table's cards are left to the
    solver); the first feasible one is optimal, and every better one was proven infeasible. When
    there are more than ``max_candidates`` (big variants), the one-model search runs instead and
    the bound is the grid-free relaxation's; where that model would be too big to build
    (``_ONE_MODEL_LIMIT``), ``solve_free_beam`` runs instead.

    ``time_limit`` (seconds, finite, above 0) covers the whole call. Free-draft plays place every
    card: on a grid too small for that, ``NoPlanError`` says so (proven when the candidates ran
    out, else "none found in time").
    """
    start = time.perf_counter()
    variant = Variant.parse(variant) if isinstance(variant, str) else variant
    if not isinstance(variant, Variant):
        raise TypeError(f"variant must be a Variant or a string m-c-k, got {type(variant).__name__}")
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    model_grid = _check_model_grid(model_grid, grid)
    max_candidates = check_int("max_candidates", max_candidates, 0, 10**6)  # 0: the one-model search
    deadline = start + time_limit
    k = variant.cards
    cap = _level_cap(k, levels)
    candidates = _free_candidates(variant, cap, max_candidates, deadline)
    if candidates is None and k * model_grid**2 * (variant.max_value + 1) > _ONE_MODEL_LIMIT:
        # The one model would hold millions of variables (F-9-2-20 on 20x20): beam plans instead.
        return solve_free_beam(variant, grid, max(deadline - time.perf_counter(), 0.01), levels=levels)
    relax = free_relaxation_bound(variant, levels, time_limit=min(120.0, time_limit / 10))
    stats: dict = {"relaxation_bound": relax, "model_grid": model_grid}
    if candidates is not None and model_grid == grid:
        stats["candidates"] = len(candidates)
        proven_infeasible = 0
        for score, profile, upper in candidates:
            if score > relax:
                continue  # beyond the relaxation: impossible anyway
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            slot_values = [list(range(variant.max_value + 1)) if v is None else [v] for v in upper]
            try:
                model = _PlacementModel(
                    slot_values, grid, cap, copies=variant.copies, slot_levels=profile, deadline=deadline
                )
            except _OutOfTime:
                break
            # These small satisfiability models run fastest on one worker (measured on F-6-2-5).
            solver, status = model.solve(max(deadline - time.perf_counter(), 0.01), 1)
            if status == cp_model.INFEASIBLE:
                proven_infeasible += 1
                continue
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                break  # out of time: the bound stays at this candidate's score
            stats.update(status="OPTIMAL", infeasible_candidates=proven_infeasible)
            return _free_result(model, solver, variant, grid, levels, score, start, stats)
        else:
            # Every candidate, down to all cards on the table, was proven infeasible.
            raise NoPlanError(
                f"no free-draft play of F-{variant} places all {k} cards on a {grid}x{grid} grid"
                f"{'' if levels is None else f' with {levels} levels'}: use a larger grid"
            )
        bound = score  # every candidate scoring more was proven infeasible
        stats.update(status="TIME_LIMIT", infeasible_candidates=proven_infeasible)
    else:
        bound = relax
    try:
        model = _PlacementModel(
            [list(range(variant.max_value + 1))] * k,
            model_grid,
            cap,
            copies=variant.copies,
            level_major=True,
            deadline=deadline,
        )
    except _OutOfTime:
        stats.update(one_model_status="not built within the time limit")
        return _free_fallback(variant, grid, levels, bound, start, stats, time_limit)
    solver, status = model.solve(max(deadline - time.perf_counter(), 0.01), workers)
    stats.update(one_model_status=solver.status_name(status), variables=model.num_vars)
    if model_grid == grid and status == cp_model.OPTIMAL:
        bound = min(bound, int(solver.best_objective_bound + 1e-6))
    if status == cp_model.INFEASIBLE and model_grid == grid:
        raise NoPlanError(
            f"no free-draft play of F-{variant} places all {k} cards on a {grid}x{grid} grid: "
            "use a larger grid"
        )
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return _free_fallback(variant, grid, levels, bound, start, stats, time_limit)
    return _free_result(model, solver, variant, grid, levels, bound, start, stats)


def _free_fallback(
    variant: Variant, grid: int, levels: int | None, bound: int, start: float, stats: dict, time_limit: float
) -> OracleResult:
    """When the models found no plan in time: the greedy player on the ``k`` highest cards in
    ascending order (milliseconds), if it places every card; else ``NoPlanError``."""
    deal = Deal(tuple(sorted(sorted(variant.full_deck, reverse=True)[: variant.cards])))
    plan = greedy_plan(deal, grid, levels)
    state = replay(deal, plan, grid, levels)
    if state.discarded:
        raise NoPlanError(
            f"no free-draft play of F-{variant} placing every card on a {grid}x{grid} grid found within "
            f"{time_limit:.3g} s: allow more time or use a larger grid"
        )
    stats["source"] = "greedy (the models found no plan in time)"
    return _free_plan_result(deal, plan, state.score, bound, start, stats)


_ONE_MODEL_LIMIT = 60_000  # cards x cells x values: beyond it the one-model free search is hopeless


def solve_free_beam(
    variant: Variant | str,
    grid: int = DEFAULT_GRID,
    time_limit: float = 30.0,
    orders: int = 6,
    levels: int | None = None,
) -> OracleResult:
    """Free draft for big variants, where the placement model is out of reach: a plan from the beam
    searches (``beam_plan``) over a few card orders of the ``k`` highest cards (the table first
    gets the low ones), and the grid-free relaxation's bound (``free_relaxation_bound``), which is
    valid on every grid. The plan is ``((value, action), ...)``; the engine replays it.
    ``time_limit`` covers the whole call."""
    start = time.perf_counter()
    variant = Variant.parse(variant) if isinstance(variant, str) else variant
    if not isinstance(variant, Variant):
        raise TypeError(f"variant must be a Variant or a string m-c-k, got {type(variant).__name__}")
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    orders = check_int("orders", orders, 1, 1000)
    cards = sorted(variant.full_deck, reverse=True)[: variant.cards]
    relax = free_relaxation_bound(variant, levels, time_limit=min(120.0, time_limit / 2))
    rng = np.random.default_rng(0)
    ascending = sorted(cards)
    candidates = [ascending, ascending[::2] + ascending[1::2]][:orders]
    while len(candidates) < orders and len(ascending) > 1:
        # Low cards early (they build the table), with random swaps between neighbours.
        order = list(ascending)
        for i in rng.integers(0, len(order) - 1, size=len(order)):
            order[i], order[i + 1] = order[i + 1], order[i]
        candidates.append(order)
    deadline = start + time_limit
    best: tuple[int, Deal, list[int]] | None = None
    tried = []
    for config in _portfolio_rounds(rounds=3, diverse_first=True):
        for order in candidates:
            if time.perf_counter() >= deadline:
                break
            deal = Deal(tuple(order))
            rho, vmin, per_table, per_level, width, per_parent = config
            found = beam_plan(
                deal, grid, levels, rho, vmin, per_table, per_level, width, deadline, per_parent
            )
            if found is not None:
                tried.append(found[1])
                if best is None or found[1] > best[0]:
                    best = (found[1], deal, found[0])
    if best is None:  # out of time before any beam finished: the greedy player on the first order
        deal = Deal(tuple(candidates[0]))
        plan = greedy_plan(deal, grid, levels)
        best = (replay(deal, plan, grid, levels).score, deal, plan)
    score, deal, plan = best
    state = replay(deal, plan, grid, levels)
    if state.discarded:  # only the greedy fallback can discard (the beams skip such plays)
        raise NoPlanError(
            f"no free-draft play of F-{variant} placing every card on a {grid}x{grid} grid found within "
            f"{time_limit:.3g} s: allow more time or use a larger grid"
        )
    if state.score != score:
        raise AssertionError(f"beam plan claims {score} but replays to {state.score}")
    return OracleResult(
        score=score,
        bound=max(relax, score),
        plan=tuple(zip(deal.cards, plan, strict=True)),
        seconds=time.perf_counter() - start,
        stats={"relaxation_bound": relax, "beam_runs": len(tried), "deal": str(deal)},
    )


def _free_plan_result(
    deal: Deal, plan: Sequence[int], score: int, bound: int, start: float, stats: dict
) -> OracleResult:
    """A free-draft answer: the dealt cards with their placements, the replayed score."""
    return OracleResult(
        score=score,
        bound=max(bound, score),
        plan=tuple(zip(deal.cards, plan, strict=True)),
        seconds=time.perf_counter() - start,
        stats=stats,
    )


def _free_result(model, solver, variant, grid, levels, bound, start, stats) -> OracleResult:
    pairs = model.plan(solver)
    deal = Deal(tuple(v for v, _ in pairs))
    plan = translate_plan(deal, [a for _, a in pairs], model.grid, grid)
    state = replay(deal, plan, grid, levels)
    claimed = round(solver.objective_value)
    if state.discarded or (state.score != claimed and claimed != 0):
        raise AssertionError(f"model claims {solver.objective_value} but its plan replays to {state.score}")
    return _free_plan_result(deal, plan, state.score, bound, start, stats)


def _free_candidates(variant: Variant, cap: int, limit: int, deadline: float | None = None) -> list | None:
    """(score, level per slot, value per slot or None on the table), best score first; None if more
    than ``limit``. Levels in level-major order; a used level stands on two tiles of the level
    under it; each level's area fits on the level under it (the table's area at most 10 per tile).
    Also None when ``deadline`` (a ``time.perf_counter()`` value) passes first."""
    import itertools

    k, m, c = variant.cards, variant.max_value, variant.copies
    out: list = []

    def profiles(prefix: list[int]):
        if len(prefix) == k:
            yield list(prefix)
            return
        last = prefix[-1]
        for lv in (last, last + 1):
            if lv >= cap or (lv > last and prefix.count(last) < 2):
                continue
            yield from profiles(prefix + [lv])

    for profile in profiles([0]):
        if deadline is not None and time.perf_counter() > deadline:
            return None
        counts = [profile.count(lv) for lv in range(max(profile) + 1)]
        per_level = [list(itertools.combinations_with_replacement(range(m + 1), n)) for n in counts[1:]]
        for tried, combo in enumerate(itertools.product(*per_level)):
            if deadline is not None and tried % 1024 == 1023 and time.perf_counter() > deadline:
                return None
            used = [v for group in combo for v in group]
            if any(used.count(v) > c for v in set(used)):
                continue
            areas = [10 * counts[0]] + [sum(tile_area(v) for v in g) for g in combo]
            if any(areas[i] > areas[i - 1] for i in range(1, len(areas))):
                continue
            orders = [sorted(set(itertools.permutations(g))) if len(g) >= 3 else [g] for g in combo]
            score = sum((i + 1) * sum(g) for i, g in enumerate(combo))
            for chosen in itertools.product(*orders):
                upper = [None] * counts[0] + [v for g in chosen for v in g]
                out.append((score, profile, upper))
                if len(out) > limit:
                    return None
    out.sort(key=lambda item: -item[0])
    return out


def _as_deal(deal: Deal | str, variant: Variant | None) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if variant is None:
        variant = Variant(9, 2, len(deal.strip())) if len(deal.strip()) <= 20 else Variant()
    return parse_deal(deal, variant)


def check(
    deal: Deal | str, result: OracleResult, grid: int = DEFAULT_GRID, levels: int | None = None
) -> bool:
    """True if ``result``'s plan replays through the engine to its score (the engine discards a card
    that fits nowhere, as the rules do; the plan then has no action for it)."""
    try:
        state = replay(_as_deal(deal, None), result.plan, grid, levels)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state.done and state.score == result.score <= result.bound


def check_free(
    variant: Variant, result: OracleResult, grid: int = DEFAULT_GRID, levels: int | None = None
) -> bool:
    try:
        deal = Deal(tuple(int(v) for v, _ in result.plan))
        parse_deal(str(deal), variant)
        state = replay(deal, [a for _, a in result.plan], grid, levels)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state.done and not state.discarded and state.score == result.score <= result.bound


def solve_cached(
    deal: Deal | str,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    time_limit: float = 60.0,
    model_grid: int | None = None,
    cache: OracleCache | None = None,
) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    deal = _as_deal(deal, None)
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    board = _check_model_grid(model_grid, grid)  # model_grid itself stays None when not given
    cache = cache if cache is not None else OracleCache()
    # v2: bounds cover forced discards and use pair-cover cuts; older entries are not reused.
    # "l0" is no level limit (a limit is at least 1).
    key = f"K2-g{grid}-l{0 if levels is None else levels}-t{time_limit:g}-m{board}"
    return cache.solve(
        GAME,
        key,
        str(deal),
        lambda: solve(deal, grid, levels, time_limit, model_grid),
        lambda r: check(deal, r, grid, levels),
    )

"""CP-SAT oracles for Nmbr9: the best score of a known card order, and of a freely chosen deck.

**The placement model.** The game is a sequence of slots (one per card). Slot ``s`` gets at most one
Boolean ``x[s, value, action, level]`` (a value is fixed by the deal in the known draft, chosen in the
free draft); a slot with none is a card left out. With ``occ(s, L, c)`` the sum of slot ``s``'s
variables covering cell ``c`` on level ``L`` and ``below(s, L, c)`` a Boolean "a slot before ``s``
covers ``c`` on level ``L``" (a running sum):

- no two tiles share a cell of a level: ``sum_s occ(s, L, c) <= 1``;
- full support by earlier tiles: ``occ(s, L, c) <= below(s, L-1, c)`` for L >= 1;
- at least two tiles below: ``x + sum(earlier tiles on L-1 whose cells contain x's cells) <= 1``
  (a fully supported footprint rests on one tile exactly when one tile contains it);
- adjacency: ``x AND level L already started before s  =>  OR(below(s, L, c) for c around x)``;
- a slot can only be on level <= s // 2 (each level needs two tiles under it), and below a level limit.

**Discards.** The rules discard a card that fits nowhere (small grids, level limits), and only such
a card. In the known draft the model says so exactly (``exact_skips``): a card may be left out only
if every one of its placements is unavailable given the tiles before it (a cell not at the right
height, a single tile under it, or no neighbour on a level already started), so its feasible set is
the legal games and its optimum the true one. In the free draft a card left out is a card not
chosen: the best play is the best sequence of *at most* k legal placements, the missing cards then
dealt last (placed if they fit, which only adds points, else discarded), so free-draft models let
table slots go unused.

Symmetry breaking: the first tile is unturned (turning the whole square board maps legal games onto
legal games, discards included), and, in a game without discards, the layout touches row 0 and
column 0 (a shift keeps every placement legal; it is not used with discards, because a shift
changes what fits near the edges and so which cards are discarded). Hints come from the best plan
found so far.

**Bounds.** A grid-free relaxation (which card on which level, with each level's area and tile
count limited by the level under it, in draw order) gives an upper bound valid on every grid, in a
fraction of a second; a discarded card counts as a table tile in the known draft's (which only
loosens it) and is left out of the free draft's (at most k tiles). The placement model gives the
exact optimum on the grid it is built for; on a smaller "model grid" (to find good plans fast on a
big board) its bound is not used, only its plan.

**Certificates.** Every plan is replayed through the engine (``tabletop_gym.envs.nmbr9.rules``) on
the requested grid before it is reported, slot by slot: a model plan is used only when the engine
discards exactly the cards it left out, and a model whose plan does not replay (a bug) gives neither
plan nor bound. Free-draft plans mark a discarded card's action ``None``.

**Limits are work, not clocks.** Where a proof does not finish, the bound and plan depend on how
much search was done, so every limit counts work: CP-SAT runs on deterministic time with its search
interleaved (``WORK_PER_SECOND``), beam searches count positions (``POSITIONS_PER_SECOND``), model
construction counts terms (``TERMS_PER_SECOND``), the free draft's candidate enumeration counts
combinations. ``time_limit`` is seconds of such work on a 2-core machine: the same call gives the
same bound and plan on every run and machine (with the same OR-Tools); a faster one only finishes
sooner.

**Plans for big boards.** The placement model on a 20x20 board is far too big to help, so plans
come from a portfolio of beam searches over the engine's own legal placements (``beam_plan``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Sequence
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
from tabletop_gym.oracles import nmbr9_search

GAME = "nmbr9"
# Part of the cache key: raise it when a change alters what ``solve`` returns (2: bounds covering
# forced discards and pair-cover cuts; 3: exact discards in the placement model, beams that keep
# plays with discards, limits counted as work instead of clocks), so that results cached by an older
# version are computed again rather than served.
ORACLE_REVISION = 3
MAX_TIME_LIMIT = 86_400.0  # a day: a longer search is a typo, not a request
MAX_WORKERS = 64

# Work per second of a 2-core machine (measured on this project's shared 2-core machine, see
# ``_Work``). CP-SAT: deterministic time, its search interleaved one task at a time (placement
# models of 6-8 cards on 6x6-8x8 boards and the relaxations: 0.9 units a wall second with the
# machine under a load of 3.5, 1.5-2.5 when it was quiet; CP-SAT means a unit to be about a second).
WORK_PER_SECOND = 1.0
# Beam searches: child positions evaluated (the standard game on 20x20: 7,000-8,500 a second).
POSITIONS_PER_SECOND = 8_000
# Model construction: variables and constraint terms written (Python: 470,000-640,000 a second).
TERMS_PER_SECOND = 500_000
# The free draft's candidate enumeration: level profiles and value combinations looked at.
COMBINATIONS_PER_SECOND = 500_000


class NoPlanError(TabletopError, RuntimeError):
    """The oracle found no play that its model covers (kept for callers that catch it: since every
    model admits plays with discards, a play, if only of one tile, is always found)."""


class _OverBudget(Exception):
    """A model's construction would pass its share of the work (the caller goes on without it)."""


EXACT_SEARCH_CARDS = 12
"""Deals (and free-draft variants) of at most this many cards go first to the exact depth-first
search (``oracles.nmbr9_search``): it proves 6-8 cards on 8x8 with 3 levels in milliseconds, where
CP-SAT takes minutes. Beyond, it rarely finishes and its work goes to the other methods."""
EXACT_SEARCH_SHARE = 0.5
"""The share of a call's work the exact search may use before the other methods take over."""
NODES_PER_SECOND = 500_000
"""The exact search's placements counted as one second of work of a 2-core machine (it does
0.7-0.9 million a second on one core there): a node limit, not a clock."""


def _exact_first(
    wanted: bool, search: Callable[[int], OracleResult], work: _Work, stats: dict
) -> OracleResult | None:
    """The exact search's result within its share of ``work`` (None unless ``wanted``); its score,
    bound and nodes go to ``stats``. Stopped early, its plan is still a replayed play and its bound
    still valid (it covers every subtree left)."""
    if not wanted:
        return None
    nodes = max(1, int(work.left * EXACT_SEARCH_SHARE * NODES_PER_SECOND))
    result = search(nodes)
    used = result.stats.get("nodes", nodes)
    work.spend(used / NODES_PER_SECOND)
    stats["exact_search"] = {"score": result.score, "bound": result.bound, "nodes": used}
    return result


def _proven_by_search(exact: OracleResult, start: float) -> OracleResult:
    """The exact search's proven answer as the call's, timed from the call's start."""
    stats = {**exact.stats, "source": "exact search", "method": "exact search"}
    return dataclasses.replace(exact, seconds=time.perf_counter() - start, stats=stats)


class _Work:
    """Seconds of work of a 2-core machine left to a call.

    Each part spends what it counted (CP-SAT's deterministic time, beam positions, model terms),
    never what a clock says, so that a call's bound and plan do not depend on the machine or on
    what else runs on it. ``part`` hands a share to a sub-search; the caller then ``settle``s it.
    """

    def __init__(self, seconds: float) -> None:
        self.budget = max(0.0, float(seconds))
        self.left = self.budget

    @property
    def out(self) -> bool:
        return self.left <= 0

    @property
    def used(self) -> float:
        return self.budget - self.left

    def spend(self, seconds: float) -> None:
        self.left -= seconds

    def part(self, seconds: float) -> _Work:
        return _Work(min(seconds, self.left))

    def settle(self, sub: _Work) -> None:
        self.spend(sub.used)


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


def _cp_solve(
    m: cp_model.CpModel, work: _Work, workers: int, floor: float = 0.01, quick_presolve: bool = False
) -> tuple[cp_model.CpSolver, int]:
    """CP-SAT on ``m`` for the work left (at least ``floor`` seconds of it): deterministic time with
    the search interleaved on ``workers`` workers, so the same model and budget give the same
    answer on every run and machine. The deterministic time used is spent from ``work``.
    ``quick_presolve``: one round of presolve (for the placement models, see below)."""
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = max(floor, work.left) * WORK_PER_SECOND
    solver.parameters.num_workers = int(workers)
    solver.parameters.interleave_search = True
    # One task per batch: the deterministic limit is then met exactly (batches of several tasks
    # overshot it by up to a few units, which starved the searches that follow).
    solver.parameters.interleave_batch_size = 1
    if quick_presolve:
        # On the placement models each round of probing and clique merging costs about two units
        # of deterministic time, and the default rounds used up short budgets before the search
        # (and the hinted play) was even reached. (The relaxations need the full presolve: with
        # one round F-9-2-20's stopped at 500 where it proves 380 with the same work.)
        solver.parameters.max_presolve_iterations = 1
    status = solver.solve(m)
    work.spend(solver.ResponseProto().deterministic_time / WORK_PER_SECOND)
    return solver, status


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
    """CP-SAT model of a game with ``len(slot_values)`` cards; slot s takes one of ``slot_values[s]``.

    ``skippable[s]``: slot s may hold no tile. With ``exact_skips`` (known draft: one value per
    slot) only when the rules discard its card, i.e. no placement of it is available; without, the
    slot is simply unused (free draft: a card not chosen). ``slot_levels`` fixes each slot's level.
    ``max_terms`` bounds the variables and terms written (``_OverBudget`` past it); ``terms`` counts them.
    """

    def __init__(
        self,
        slot_values: Sequence[Sequence[int]],
        grid: int,
        levels: int,
        copies: int | None = None,
        level_major: bool = False,
        slot_levels: Sequence[int] | None = None,
        skippable: Sequence[bool] | None = None,
        exact_skips: bool = False,
        max_terms: float | None = None,
    ) -> None:
        self.terms = 0

        def count(n: int) -> None:
            # Building a big model takes seconds of Python: the work limit covers that too, counted
            # in terms written so that where it stops does not depend on the machine.
            self.terms += n
            if max_terms is not None and self.terms > max_terms:
                raise _OverBudget

        self.grid = grid
        self.levels = levels
        self.slot_values = [tuple(v) for v in slot_values]
        k = len(slot_values)
        skippable = [False] * k if skippable is None else [bool(b) and s > 0 for s, b in enumerate(skippable)]
        if exact_skips and any(len(self.slot_values[s]) != 1 for s in range(k) if skippable[s]):
            raise ValueError("exact skips need one value per skippable slot (the known draft)")
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
            top = min(levels - 1, s // 2)
            row = []
            for v in values:
                shapes = _shapes(v, grid)
                count(len(shapes) * (top + 1) * (tile_area(v) + 1))
                for i, sh in enumerate(shapes):
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
            if skippable[s]:
                skip = m.new_bool_var(f"skip{s}")
                self.skips.append(skip)
                m.add_exactly_one([var for *_, var in row] + [skip])
            else:
                self.skips.append(None)
                m.add_exactly_one(var for *_, var in row)
            self.x.append(row)
        # No overlap on any level.
        for lv in range(levels):
            count(len(occ))
            for c in range(cells):
                terms = [var for s in range(k) for var in occ.get((s, lv, c), ())]
                if len(terms) > 1:
                    m.add_at_most_one(terms)
        # below[s][lv][c]: a slot before s covers c on level lv (a running sum, 0/1 by no-overlap).
        below: dict[tuple[int, int, int], object] = {}
        for lv in range(levels):
            count(k * cells)
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
            containers[v] = _containers(v, grid, all_values)
        for s, row in enumerate(self.x):
            # Full support, aggregated per cell.
            count(levels * cells)
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
                    count(len(single) + 1)
                    if single:
                        m.add(var + sum(single) <= 1)
                if s >= 1:
                    e = started[(s, lv)]
                    if isinstance(e, int):
                        continue  # first tile of its level: no neighbour needed
                    ring = [below[(s, lv, c)] for c in sh.border if not isinstance(below[(s, lv, c)], int)]
                    count(len(ring) + 2)
                    if ring:
                        m.add_bool_or(ring).only_enforce_if([var, e])
                    else:
                        m.add_implication(var, e.Not())
            if exact_skips and self.skips[s] is not None:
                self._forbid_needless_skip(s, below, started, earlier, containers, count)
        # Shift the layout up and left: something covers row 0 and something covers column 0. A shift
        # keeps a game without discards legal; with discards it may change what fits (near the
        # edges), so where the model says which cards are discarded it applies to games without.
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
        skips = [b for b in self.skips if b is not None]
        if exact_skips and skips:
            whole = m.new_bool_var("no_discard")
            m.add_bool_or([whole, *skips])
            m.add_bool_or(top_row).only_enforce_if(whole)
            m.add_bool_or(left_col).only_enforce_if(whole)
        else:
            m.add_bool_or(top_row)
            m.add_bool_or(left_col)
        if not exact_skips:
            # Unused slots (cards not chosen) form one block just before the upper levels (or at the
            # end): which slots stay unused is otherwise a symmetry.
            for s in range(k - 1):
                if self.skips[s] is not None:
                    m.add(sum(at_level.get((s + 1, 0), ())) + self.skips[s] <= 1)
        if copies is not None:
            for v in all_values:
                m.add(sum(var for row in self.x for vv, _, _, var in row if vv == v) <= copies)
        if level_major:
            level_of = [sum(lv * var for _, _, lv, var in row if lv) for row in self.x]
            for s in range(1, k):
                m.add(level_of[s - 1] <= level_of[s])
        m.maximize(sum(objective))
        self.num_vars = sum(len(row) for row in self.x)

    def _forbid_needless_skip(self, s, below, started, earlier, containers, count) -> None:
        """Slot s may be skipped only if the rules discard its card: for every placement of it on
        every level it could reach, some condition of legality fails given the tiles before s."""
        m = self.model
        skip = self.skips[s]
        v = self.slot_values[s][0]
        shapes = _shapes(v, self.grid)
        for lv in range(min(self.levels - 1, s // 2) + 1):
            count(len(shapes) * 24)
            for i, sh in enumerate(shapes):
                reasons = []  # literals: one true means this placement is unavailable
                for c in sh.cells:
                    if lv >= 1:
                        under = below[(s, lv - 1, c)]
                        if isinstance(under, int):
                            break  # nothing can be under this cell yet: never available
                        reasons.append(under.Not())  # a gap under the cell
                    taken = below[(s, lv, c)]
                    if not isinstance(taken, int):
                        reasons.append(taken)  # the cell is taken on this level
                else:
                    if lv >= 1:  # one tile under it contains its cells
                        reasons.extend(
                            w for key in containers[v][(v, i)] for w in earlier.get((*key, lv - 1), ())
                        )
                    e = started[(s, lv)]
                    if not isinstance(e, int):
                        # The level has a tile and none touches this placement's border.
                        alone = m.new_bool_var("")
                        m.add_implication(alone, e)
                        for c in sh.border:
                            if not isinstance(below[(s, lv, c)], int):
                                m.add_implication(alone, below[(s, lv, c)].Not())
                        reasons.append(alone)
                    m.add_bool_or([skip.Not(), *reasons])

    def score_bound(self, solver: cp_model.CpSolver) -> int:
        """A proven bound on the score of the plays the model covers."""
        return math.floor(solver.best_objective_bound + 1e-6)

    def score(self, solver: cp_model.CpSolver) -> int:
        return round(solver.objective_value)

    def hint(self, entries: Sequence[tuple[int, int, int] | None]) -> None:
        """Hint a play: (value, action, level) per slot, None for a slot left out."""
        for s, row in enumerate(self.x):
            want = entries[s]
            for v, i, lv, var in row:
                sh = _shapes(v, self.grid)[i]
                self.model.add_hint(var, want is not None and want == (v, sh.action, lv))
            if self.skips[s] is not None:
                self.model.add_hint(self.skips[s], want is None)

    def solve(self, work: _Work, workers: int) -> tuple[cp_model.CpSolver, int]:
        return _cp_solve(self.model, work, workers, quick_presolve=True)

    def plan(self, solver: cp_model.CpSolver) -> list[tuple[int, int] | None]:
        """(value, action) per slot from the solver's best solution; None for a card left out."""
        out = []
        for row in self.x:
            chosen = [(v, _shapes(v, self.grid)[i].action) for v, i, _, var in row if solver.value(var)]
            out.append(chosen[0] if chosen else None)
        return out


def _replay_slots(
    deal: Deal, actions: Sequence[int | None], grid: int, levels: int | None
) -> Nmbr9State | None:
    """The engine's replay of one action per card (None: the card is discarded), or None when the
    plan is out of step with the rules: it places a card the engine discards, leaves out a card
    that fits, or makes an illegal move."""
    state = Nmbr9State(deal, grid, levels)
    for turn, action in enumerate(actions):
        if state.turn > turn:  # the engine discarded this card
            if action is not None:
                return None
            continue
        if action is None:
            return None  # the card fits somewhere: the rules do not let it be discarded
        try:
            state.place(action)
        except (ValueError, RuntimeError):
            return None
    return state if state.done else None


def _canonical_hint(deal: Deal, plan: Sequence[int], grid: int, levels: int | None) -> list | None:
    """A play in the model's canonical form, as (value, action, level) per card (None: discarded):
    turned so that its first tile is unturned and, without discards, shifted up-left. None if the
    plan does not replay."""
    try:
        state = replay(deal, plan, grid, levels)
    except (ValueError, RuntimeError):
        return None
    if not state.done:
        return None
    placed = [p for p in state.placements if p is not None]
    values = [p.value for p in placed]
    actions = [p.action for p in placed]
    for _ in range(4):
        if decode_action(actions[0], grid)[0] == 0:
            break
        actions = _turn_plan(values, actions, grid)
    if not state.discarded:
        cells = [rc for v, a in zip(values, actions, strict=True) for rc in footprint(v, a, grid)]
        dr = min(r for r, _ in cells)
        dc = min(c for _, c in cells)
        shifted = []
        for a in actions:
            rot, r, c = decode_action(a, grid)
            shifted.append(rot * grid * grid + (r - dr) * grid + (c - dc))
        actions = shifted
    # The same game turned (and shifted): the engine discards the same cards.
    moved = iter(actions)
    turned = _replay_slots(deal, [None if p is None else next(moved) for p in state.placements], grid, levels)
    if turned is None:
        return None
    return [None if p is None else (p.value, p.action, p.level) for p in turned.placements]


def _turn_plan(values: Sequence[int], plan: Sequence[int], grid: int) -> list[int]:
    """The same layout turned a quarter clockwise on the board: cell (r, c) -> (c, grid-1-r)."""
    out = []
    for v, a in zip(values, plan, strict=True):
        cells = [(c, grid - 1 - r) for r, c in footprint(v, a, grid)]
        rows = min(r for r, _ in cells)
        cols = min(c for _, c in cells)
        shape = tuple(sorted((r - rows, c - cols) for r, c in cells))
        rotation = next(q for q in distinct_rotations(v) if tile_rotations(v)[q] == shape)
        out.append(rotation * grid * grid + rows * grid + cols)
    return out


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
    (the callers stop when their work runs out): wider beams find better plans on some deals.
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
    *,
    work: _Work | None = None,
) -> tuple[list[int], int] | None:
    """Beam search over the engine's legal placements: keep the ``width`` positions with the best
    score + potential (see ``_beam_potential``) after each card; children are a few candidate
    placements per level (``_beam_candidates``); equal boards are merged. Returns the best final
    plan (one action per placed card; the engine discards a card that fits nowhere) and its score,
    or None (the work ran out first: each position costs ``1 / POSITIONS_PER_SECOND`` of ``work``).
    ``per_parent`` keeps at most that many children of each position, so that the beam does not
    fill with near-copies of one line of play. ``deadline`` (a ``time.perf_counter()`` value) is a
    caller's own clock cut-off; the oracles never pass one, their limits count work."""
    rho = check_float("rho", rho, 0, 1, low_open=True)
    vmin = check_int("vmin", vmin, 0, MAX_VALUE + 1)
    per_table = check_int("per_table", per_table, 1)
    per_level = check_int("per_level", per_level, 1)
    width = check_int("width", width, 1, 1 << 20)
    per_parent = check_int("per_parent", per_parent, 1, optional=True)
    deadline = check_float("deadline", deadline, optional=True)
    cost = 1 / POSITIONS_PER_SECOND
    beam: list[tuple[Nmbr9State, list[int]]] = [(Nmbr9State(deal, grid, levels), [])]
    while not all(state.done for state, _ in beam):
        children: dict[bytes, tuple[float, int, Nmbr9State, list[int]]] = {}
        for parent, (state, plan) in enumerate(beam):
            if state.done:  # it discarded its last cards: a finished play, kept as it is
                key = state._hflat.tobytes() + state._tflat.tobytes() + state.turn.to_bytes(2, "little")
                children.setdefault(key, (float(state.score), parent, state, plan))
                continue
            actions = _beam_candidates(state, per_table, per_level)
            if work is not None:
                work.spend((len(actions) + 1) * cost)  # the candidates' ranking costs about one child
            for action in actions:
                child = state.copy()
                child.place(action)
                # A child whose next cards the engine discarded is still a play of the game (small
                # grids): such plays are sometimes the best ones.
                key = child._hflat.tobytes() + child._tflat.tobytes() + child.turn.to_bytes(2, "little")
                if key not in children:
                    value = child.score + _beam_potential(child, rho, vmin)
                    children[key] = (value, parent, child, plan + [action])
            if work is not None and work.out:
                return None
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
    exact_search: bool = True,
) -> OracleResult:
    """Known draft: the best score for this exact card order, with a plan and a proven bound.

    With ``exact_search`` (the default), a deal of at most ``EXACT_SEARCH_CARDS`` cards first goes
    to the exact depth-first search (``oracles.nmbr9_search``) for up to half the work: what it
    proves is the answer; else its play and its valid bound join what follows.

    Plans come from the greedy player and a portfolio of beam searches over the engine's legal
    placements (``beam_plan``, run in turn until their share of the work is used), then, if
    ``placement_model`` (default: only on grids of at most 10 cells a side, or when ``model_grid``
    is given), from the CP-SAT placement model, hinted with the best plan so far. ``model_grid``
    builds that model on a smaller board and ``model_levels`` limits its levels; its plan is moved
    to the middle of ``grid`` and its bound is then not used.

    ``bound`` is the least of the grid-free relaxation bound and, when the placement model covers
    the whole game, the model's proven bound: a valid upper bound on every play of the deal on
    ``grid``, even when a solver stops at its limit. Plays where the rules discard a card that fits
    nowhere (small grids, level limits) are covered: the relaxation counts a discarded card as a
    table tile (which only loosens it), and the placement model on the full grid leaves a card out
    exactly when no placement of it is available, as the rules do; such plays are also found.
    Plans hold one action per placed card; the engine replays them, discards included.

    ``time_limit`` is seconds of work of a 2-core machine, counted as work (CP-SAT's
    deterministic time, beam positions, model terms; see the module's notes), so the same call
    gives the same result everywhere; it covers the models' construction. Every parameter is
    checked first (a ValueError names the one that is wrong).
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
    work = _Work(time_limit)
    deal = _as_deal(deal, variant)
    values = list(deal.cards)
    k = len(values)
    exact_stats: dict = {}
    exact = _exact_first(
        exact_search and k <= EXACT_SEARCH_CARDS,
        lambda nodes: nmbr9_search.solve_known(deal, grid, levels, node_limit=nodes),
        work,
        exact_stats,
    )
    if exact is not None and exact.optimal:
        return _proven_by_search(exact, start)
    if placement_model is None:
        placement_model = model_given or grid <= 10
    lv_cap = _level_cap(k, levels)
    model_cap = lv_cap if model_levels is None else min(lv_cap, model_levels)
    # The plain relaxation is solved in a blink; the one with pair cuts is tighter but slower, and
    # if stopped early its proven bound can be the looser of the two. Both bound every play, and
    # one stopped before its first solution gives a trivial bound, so their shares need no floor.
    relax = None
    for share, cuts in ((min(10.0, time_limit / 10), False), (min(30.0, time_limit / 4), True)):
        part = work.part(share)
        found = _relaxation_bound(values, levels, part, cuts)
        work.settle(part)
        relax = found if relax is None else min(relax, found)
    bound = relax
    best: Nmbr9State | None = None
    best_plan: list[int] = []
    stats: dict = {"relaxation_bound": relax, **exact_stats}
    if exact is not None:
        bound = min(bound, exact.bound)

    def offer(state: Nmbr9State, source: str) -> None:
        nonlocal best, best_plan
        if state.done and (best is None or state.score > best.score):
            best = state
            best_plan = [p.action for p in state.placements if p is not None]
            stats["source"] = source

    offer(replay(deal, greedy_plan(deal, grid, levels), grid, levels), "greedy")
    stats["greedy"] = None if best is None else best.score
    if exact is not None:
        offer(replay(deal, list(exact.plan), grid, levels), "exact search (stopped)")
    # The beam portfolio: all the work on big boards, a third when the placement model follows.
    beam_work = work.part((1 / 3 if placement_model else 1.0) * work.left)
    beam_scores = []
    for rho, vmin, per_table, per_level, width, per_parent in _portfolio_rounds():
        if beam_work.out or (best is not None and best.score >= bound):
            break
        found = beam_plan(
            deal, grid, levels, rho, vmin, per_table, per_level, width, None, per_parent, work=beam_work
        )
        if found is not None:
            beam_scores.append(found[1])
            offer(replay(deal, found[0], grid, levels), "beam")
    work.settle(beam_work)
    stats["beam_runs"] = beam_scores
    whole = model_grid == grid and model_cap == lv_cap  # else the model solves a restricted game
    if placement_model and (best is None or best.score < bound) and work.left > 0.05:
        found = _solve_placement(
            deal, grid, levels, best_plan, model_grid, model_cap, whole, work, workers, stats
        )
        if found is not None:
            state, model_bound = found
            offer(state, "placement model")
            if model_bound is not None:
                stats["model_bound"] = model_bound
                bound = min(bound, model_bound)
    if best is None:  # the greedy player always finishes: only a bug gets here
        raise NoPlanError(f"no play of deal {deal} found within {time_limit:g} s of work")
    return OracleResult(
        score=best.score,
        bound=max(bound, best.score),
        plan=tuple(best_plan),
        seconds=time.perf_counter() - start,
        stats=stats,
    )


def _solve_placement(
    deal: Deal,
    grid: int,
    levels: int | None,
    best_plan: list[int],
    model_grid: int,
    model_cap: int,
    whole: bool,
    work: _Work,
    workers: int,
    stats: dict,
) -> tuple[Nmbr9State, int | None] | None:
    """The placement model's replayed play and, when it covers the whole game, its proven bound;
    None when it found no play (or was not built within the work). With ``whole`` the model
    leaves a card out exactly when the rules discard it; else (a smaller board or fewer levels) it
    places every card, so that its plan is a play on ``grid`` too."""
    values = list(deal.cards)
    k = len(values)
    try:
        model = _PlacementModel(
            [[v] for v in values],
            model_grid,
            model_cap,
            skippable=[whole] * k,
            exact_skips=whole,
            max_terms=work.left * TERMS_PER_SECOND,
        )
    except _OverBudget:
        work.spend(work.left)
        stats["model"] = "not built within the work limit"
        return None
    work.spend(model.terms / TERMS_PER_SECOND)
    hint = None
    if model_grid == grid:
        hint = _canonical_hint(deal, best_plan, grid, levels) if best_plan else None
        if hint is not None and not whole and any(h is None for h in hint):
            hint = None  # a play with discards: not one the restricted model covers
    else:
        small = _fit_plan(values, best_plan, grid, model_grid) if len(best_plan) == k else None
        if small is None:
            small = greedy_plan(deal, model_grid, levels)
        if len(small) == k:
            hint = _canonical_hint(deal, small, model_grid, levels)
    if hint is not None and all(h is None or h[2] < model_cap for h in hint):
        model.hint(hint)
    solver, status = model.solve(work, workers)
    stats.update(
        status=solver.status_name(status),
        variables=model.num_vars,
        model_grid=model_grid,
        model_levels=model_cap,
    )
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if status == cp_model.INFEASIBLE and whole:  # every game is one of its solutions: a bug
            stats["model"] = "infeasible although every game is a solution (a model bug): not used"
        return None
    actions = [None if p is None else p[1] for p in model.plan(solver)]
    if model_grid < grid:
        actions = translate_plan(deal, actions, model_grid, grid)  # every card placed (not whole)
    state = _replay_slots(deal, actions, grid, levels)
    if state is None or state.score != model.score(solver):
        # Out of step with the rules: a model bug. Neither its plan nor its bound is trusted.
        stats["model_plan"] = "does not replay through the engine: plan and bound not used"
        return None
    return state, model.score_bound(solver) if whole else None


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
    exact_search: bool = True,
) -> OracleResult:
    """Free draft: the best score over every choice of ``k`` cards and their order for variant m-c-k.

    With ``exact_search`` (the default), variants of at most ``EXACT_SEARCH_CARDS`` cards first go
    to the exact layout search (``oracles.nmbr9_search.solve_free``) for up to half the work.

    The plan is ``((value, action), ...)`` for the ``k`` cards in play order; a card the rules
    discard (it fits nowhere: small grids, level limits) has action ``None``. The engine replays
    it on ``grid``.

    Adding a card never lowers a score (a placed tile scores value x level >= 0), so the best play
    is the best sequence of *at most* ``k`` legal placements, the cards it leaves out dealt last
    (placed where they fit, else discarded). Only level-major orders need searching: any finished
    layout can be rebuilt level by level, each level in an order where every tile touches an
    earlier one (each level of a finished game is connected). So the oracle enumerates
    *candidates*: a level for each of ``k`` slots in level-major order and the values of the cards
    above the table (which fix the score), pruned by areas, best score first. Each candidate is a
    small satisfiability model (the table's cards are left to the solver, and table slots beyond
    the two that hold the first upper level may stay unused); the first feasible one is optimal,
    and every better one was proven infeasible. An incumbent play from the greedy player and beam
    searches (a tenth of the work) ends the search as soon as no candidate left scores more, and
    is the answer when the work runs out (the bound is then the score of the first candidate not
    proven infeasible). When there are more than ``max_candidates`` (big variants), the one-model
    search runs instead, hinted with the incumbent, and the bound is the grid-free relaxation's
    (or the model's own); where that model would be too big to build (``_ONE_MODEL_LIMIT``),
    ``solve_free_beam`` runs instead.

    ``time_limit`` is seconds of work of a 2-core machine (see the module's notes): the same call
    gives the same result everywhere.
    """
    start = time.perf_counter()
    variant = Variant.of(variant)
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    model_grid = _check_model_grid(model_grid, grid)
    max_candidates = check_int("max_candidates", max_candidates, 0, 10**6)  # 0: the one-model search
    work = _Work(time_limit)
    k = variant.cards
    exact_stats: dict = {}
    exact = _exact_first(
        exact_search and k <= EXACT_SEARCH_CARDS,
        lambda nodes: nmbr9_search.solve_free(variant, grid, levels, node_limit=nodes),
        work,
        exact_stats,
    )
    if exact is not None and exact.optimal:
        return _proven_by_search(exact, start)
    cap = _level_cap(k, levels)
    part = work.part(time_limit / 4)
    candidates = _free_candidates(variant, cap, max_candidates, part)
    work.settle(part)
    if candidates is None and k * model_grid**2 * (variant.max_value + 1) > _ONE_MODEL_LIMIT:
        # The one model would hold millions of variables (F-9-2-20 on 20x20): beam plans instead.
        return _solve_free_beam(variant, grid, levels, work, 6, start)
    part = work.part(min(120.0, time_limit / 10))
    relax = _free_relaxation_bound(variant, levels, part)
    work.settle(part)
    # An incumbent from the greedy player and beams (a tenth of the work left): the answer when the
    # models run out of work, and the one-model search's hint (without one it often finds nothing).
    part = work.part(work.left / 10)
    incumbent, runs = _free_beam_best(variant, grid, levels, part, 2, fewer=True)
    work.settle(part)
    stats: dict = {"relaxation_bound": relax, "model_grid": model_grid, "beam_runs": runs, "source": "beam"}
    stats.update(exact_stats)
    bound = relax if exact is None else min(relax, exact.bound)

    def answer(bound: int) -> OracleResult:
        return _free_plan_result(_free_pairs(incumbent), incumbent.score, bound, start, stats)

    if candidates is not None and model_grid == grid:
        stats["candidates"] = len(candidates)
        proven_infeasible = 0
        for score, profile, upper in candidates:
            if score > relax:
                continue  # beyond the relaxation: impossible anyway
            bound = score  # every candidate scoring more was proven infeasible (or beyond the bound)
            if score <= incumbent.score:
                stats.update(status="OPTIMAL", infeasible_candidates=proven_infeasible)
                return answer(bound)  # nothing better is left: the incumbent is optimal
            if work.out:
                break
            slot_values = [list(range(variant.max_value + 1)) if v is None else [v] for v in upper]
            # Table slots beyond those the upper levels need may stay unused (fewer cards placed).
            needed = 2 if max(profile) > 0 else 1
            skippable = [lv == 0 and s >= needed for s, lv in enumerate(profile)]
            try:
                model = _PlacementModel(
                    slot_values,
                    grid,
                    cap,
                    copies=variant.copies,
                    slot_levels=profile,
                    skippable=skippable,
                    max_terms=work.left * TERMS_PER_SECOND,
                )
            except _OverBudget:
                work.spend(work.left)
                break
            work.spend(model.terms / TERMS_PER_SECOND)
            # These small satisfiability models run fastest on one worker (measured on F-6-2-5).
            solver, status = model.solve(work, 1)
            if status == cp_model.INFEASIBLE:
                proven_infeasible += 1
                continue
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                break  # out of work: the bound stays at this candidate's score
            stats.update(status="OPTIMAL", infeasible_candidates=proven_infeasible, source="candidate model")
            result = _free_result(model, solver, variant, grid, levels, score, start, stats)
            if result is not None:
                return result
            stats.update(status="NOT_PROVEN", model_plan="does not replay through the engine: not used")
            return answer(relax)  # a model bug: its proofs are not trusted either
        stats.update(status="NOT_PROVEN", infeasible_candidates=proven_infeasible)
        return answer(bound)
    try:
        model = _PlacementModel(
            [list(range(variant.max_value + 1))] * k,
            model_grid,
            cap,
            copies=variant.copies,
            level_major=True,
            skippable=[True] * k,
            max_terms=work.left * TERMS_PER_SECOND,
        )
    except _OverBudget:
        work.spend(work.left)
        stats.update(one_model_status="not built within the work limit")
        return answer(bound)
    work.spend(model.terms / TERMS_PER_SECOND)
    if model_grid == grid:
        hint = _level_major_hint(incumbent, k)
        if hint is not None and all(h is None or h[2] < cap for h in hint):
            model.hint(hint)
    solver, status = model.solve(work, workers)
    stats.update(one_model_status=solver.status_name(status), variables=model.num_vars)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        result = _free_result(model, solver, variant, grid, levels, bound, start, stats)
        if result is None:
            stats["model_plan"] = "does not replay through the engine: not used"
        else:
            if model_grid == grid:
                # Every play's placed tiles, rebuilt level-major, are one of its solutions: a bound.
                bound = min(bound, model.score_bound(solver))
            if result.score > incumbent.score:
                stats["source"] = "one model"
                return dataclasses.replace(result, bound=max(bound, result.score))
    return answer(bound)
    work.spend(model.terms / TERMS_PER_SECOND)
    if model_grid == grid:
        hint = _level_major_hint(incumbent, k)
        if hint is not None and all(h is None or h[2] < cap for h in hint):
            model.hint(hint)
    solver, status = model.solve(work, workers)
    stats.update(one_model_status=solver.status_name(status), variables=model.num_vars)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        stats["source"] = "one model"
        result = _free_result(model, solver, variant, grid, levels, bound, start, stats)
        if result is None:
            stats["model_plan"] = "does not replay through the engine: not used"
        else:
            if model_grid == grid:
                # Every play's placed tiles, rebuilt level-major, are one of its solutions: a bound.
                bound = min(bound, model.score_bound(solver))
            if result.score >= incumbent.score:
                return dataclasses.replace(result, bound=max(bound, result.score))
    stats["source"] = "beam"
    return _free_plan_result(_free_pairs(incumbent), incumbent.score, bound, start, stats)


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
    valid on every grid. The plan is ``((value, action or None), ...)``; the engine replays it.
    ``time_limit`` is seconds of work for the whole call (see the module's notes)."""
    start = time.perf_counter()
    variant = Variant.of(variant)
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    orders = check_int("orders", orders, 1, 1000)
    return _solve_free_beam(variant, grid, levels, _Work(time_limit), orders, start)


def _solve_free_beam(
    variant: Variant, grid: int, levels: int | None, work: _Work, orders: int, start: float
) -> OracleResult:
    part = work.part(min(120.0, work.left / 2))
    relax = _free_relaxation_bound(variant, levels, part)
    work.settle(part)
    state, runs = _free_beam_best(variant, grid, levels, work, orders)
    stats = {"relaxation_bound": relax, "beam_runs": runs, "deal": str(state.deal)}
    return _free_plan_result(_free_pairs(state), state.score, max(relax, state.score), start, stats)


def _free_beam_best(
    variant: Variant, grid: int, levels: int | None, work: _Work, orders: int, fewer: bool = False
) -> tuple[Nmbr9State, int]:
    """The best play found by the greedy player and the beam portfolio on a few orders of the ``k``
    highest cards (low cards first: they build the table), and the number of beams that finished.
    With ``fewer`` (small grids, where the best plays often discard), also the ``j`` highest cards
    for each ``j < k`` first, in ascending order, the others dealt last."""
    ascending = sorted(sorted(variant.full_deck, reverse=True)[: variant.cards])
    candidates = [ascending, ascending[::2] + ascending[1::2]][:orders]
    if fewer:
        rest = sorted(variant.full_deck)
        for j in range(variant.cards - 1, 1, -1):
            top = sorted(rest[-j:])
            low = rest[: len(rest) - j][::-1][: variant.cards - j]
            candidates.append(top + low)
        orders += variant.cards - 2
    rng = np.random.default_rng(0)
    while len(candidates) < orders and len(ascending) > 1:
        # Low cards early, with random swaps between neighbours.
        order = list(ascending)
        for i in rng.integers(0, len(order) - 1, size=len(order)):
            order[i], order[i + 1] = order[i + 1], order[i]
        candidates.append(order)
    first = Deal(tuple(candidates[0]))
    best = replay(first, greedy_plan(first, grid, levels), grid, levels)
    runs = 0
    for config in _portfolio_rounds(rounds=3, diverse_first=True):
        for order in candidates:
            if work.out:
                break
            deal = Deal(tuple(order))
            rho, vmin, per_table, per_level, width, per_parent = config
            found = beam_plan(
                deal, grid, levels, rho, vmin, per_table, per_level, width, None, per_parent, work=work
            )
            if found is not None:
                runs += 1
                if found[1] > best.score:
                    best = replay(deal, found[0], grid, levels)
    return best, runs


def _level_major_hint(state: Nmbr9State, slots: int) -> list | None:
    """A finished play rebuilt for the free draft's one-model search: its tiles level by level, each
    level in an order where every tile touches an earlier one, turned so that the first tile is
    unturned and shifted up-left; the unused slots just before the upper levels. As (value, action,
    level) per slot, None for an unused one; None if it does not replay (or has too many tiles)."""
    grid = state.grid
    placed = [p for p in state.placements if p is not None]
    if not placed or len(placed) > slots:
        return None
    order: list = []
    for lv in range(max(p.level for p in placed) + 1):
        level = [p for p in placed if p.level == lv]
        cells = [set(footprint(p.value, p.action, grid)) for p in level]
        ring = [
            {(r + dr, c + dc) for r, c in own for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))}
            for own in cells
        ]
        done = [0]
        while len(done) < len(level):  # each level of a finished game is connected
            nxt = next(
                (i for i in range(len(level)) if i not in done and any(ring[i] & cells[j] for j in done)),
                None,
            )
            if nxt is None:
                return None
            done.append(nxt)
        order.extend(level[i] for i in done)
    values = [p.value for p in order]
    actions = [p.action for p in order]
    hint = _canonical_hint(Deal(tuple(values)), actions, grid, state.levels)
    if hint is None or any(h is None for h in hint):
        return None
    table = sum(1 for h in hint if h[2] == 0)
    return hint[:table] + [None] * (slots - len(hint)) + hint[table:]


def _free_pairs(state: Nmbr9State) -> list[tuple[int, int | None]]:
    """A finished game as a free-draft plan: (value, action) per card, None for a discarded one."""
    return [
        (value, None if p is None else p.action)
        for value, p in zip(state.deal.cards, state.placements, strict=True)
    ]


def _free_plan_result(
    plan: Sequence[tuple[int, int | None]], score: int, bound: int, start: float, stats: dict
) -> OracleResult:
    """A free-draft answer: the dealt cards with their placements, the replayed score."""
    return OracleResult(
        score=score,
        bound=max(bound, score),
        plan=tuple(plan),
        seconds=time.perf_counter() - start,
        stats=stats,
    )


def _free_result(model, solver, variant, grid, levels, bound, start, stats) -> OracleResult | None:
    """The model's play, its missing cards dealt last, replayed; None if it does not replay to at
    least the model's score (a model bug)."""
    placed = [p for p in model.plan(solver) if p is not None]
    values = [v for v, _ in placed]
    actions = translate_plan(Deal(tuple(values)), [a for _, a in placed], model.grid, grid)
    plan = _complete_free_plan(variant, list(zip(values, actions, strict=True)), grid, levels)
    state = _replay_free(plan, grid, levels)
    if state is None or state.score < model.score(solver):
        return None
    return _free_plan_result(plan, state.score, bound, start, stats)


def _complete_free_plan(
    variant: Variant, placed: list[tuple[int, int]], grid: int, levels: int | None
) -> list[tuple[int, int | None]]:
    """A play of at most ``k`` placements completed to ``k`` cards: each missing card, highest
    value first among those that fit, is placed where it scores most; once nothing left fits (the
    board no longer changes, so nothing will), the rest are dealt and discarded."""
    from tabletop_gym.agents.nmbr9 import greedy_action

    plan: list[tuple[int, int | None]] = list(placed)
    left = list(variant.full_deck)
    for value, _ in placed:
        left.remove(value)
    while len(plan) < variant.cards:
        choice: tuple[int, int | None] = (max(left), None)
        for value in sorted(set(left), reverse=True):
            deal = Deal(tuple(v for v, _ in plan) + (value,))
            state = replay(deal, [a for _, a in plan if a is not None], grid, levels)
            if not state.done:  # the engine did not discard it: it fits
                choice = (value, greedy_action(state))
                break
        left.remove(choice[0])
        plan.append(choice)
    return plan


def _replay_free(plan: Sequence[tuple[int, int | None]], grid: int, levels: int | None) -> Nmbr9State | None:
    """The engine's replay of a free-draft plan, or None when it is out of step with the rules."""
    deal = Deal(tuple(int(v) for v, _ in plan))
    return _replay_slots(deal, [a for _, a in plan], grid, levels)


def _free_candidates(variant: Variant, cap: int, limit: int, work: _Work | None = None) -> list | None:
    """(score, level per slot, value per slot or None on the table), best score first; None if more
    than ``limit``. Levels in level-major order; a used level stands on two tiles of the level
    under it; each level's area fits on the level under it (the table's area at most 10 per tile).
    Also None when ``work`` runs out first (each profile and combination looked at costs
    ``1 / COMBINATIONS_PER_SECOND``)."""
    import itertools

    k, m, c = variant.cards, variant.max_value, variant.copies
    out: list = []
    cost = 1 / COMBINATIONS_PER_SECOND

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
        if work is not None:
            work.spend(cost)
            if work.out:
                return None
        counts = [profile.count(lv) for lv in range(max(profile) + 1)]
        per_level = [list(itertools.combinations_with_replacement(range(m + 1), n)) for n in counts[1:]]
        for tried, combo in enumerate(itertools.product(*per_level)):
            if work is not None and tried % 1024 == 1023:
                work.spend(1024 * cost)
                if work.out:
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
    """True if a free-draft result deals ``k`` cards of ``variant`` and its plan replays through the
    engine to its score, the engine discarding exactly the cards whose action is ``None``."""
    try:
        parse_deal("".join(str(int(v)) for v, _ in result.plan), variant)
        state = _replay_free(result.plan, grid, levels)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state is not None and state.score == result.score <= result.bound


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
    # The revision, so that older entries are not reused; "l0" is no level limit (a limit is at
    # least 1). Results depend on these arguments only (limits count work), so entries are reusable.
    key = f"K{ORACLE_REVISION}-g{grid}-l{0 if levels is None else levels}-t{time_limit:g}-m{board}"
    return cache.solve(
        GAME,
        key,
        str(deal),
        lambda: solve(deal, grid, levels, time_limit, model_grid),
        lambda r: check(deal, r, grid, levels),
    )

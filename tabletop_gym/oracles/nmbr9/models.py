"""The CP-SAT placement model of Nmbr9 (see the package notes): exact on the grid it is built for,
discards included."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from tabletop_gym.envs.nmbr9.rules import (
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    decode_action,
    distinct_rotations,
    footprint,
    replay,
    tile_area,
    tile_rotations,
)
from tabletop_gym.oracles.nmbr9.common import _cp_solve, _OverBudget, _Work

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
        self._max_terms = max_terms
        self.grid = grid
        self.levels = levels
        self.slot_values = [tuple(v) for v in slot_values]
        k = len(slot_values)
        skippable = [False] * k if skippable is None else [bool(b) and s > 0 for s, b in enumerate(skippable)]
        if exact_skips and any(len(self.slot_values[s]) != 1 for s in range(k) if skippable[s]):
            raise ValueError("exact skips need one value per skippable slot (the known draft)")
        self.model = cp_model.CpModel()
        all_values = tuple(sorted({v for vs in self.slot_values for v in vs}))
        # The order of the steps below is the order in which variables and constraints enter the
        # model: CP-SAT is deterministic for a given model, so keeping it keeps its answers.
        occ, at_level, objective = self._placements(slot_levels, skippable)
        self._no_overlap(occ)
        below = self._covered_below(occ)
        started = self._levels_started(at_level)
        containers = {v: _containers(v, grid, all_values) for v in all_values}
        for s in range(k):
            earlier = self._support_and_neighbours(s, occ, below, started, containers)
            if exact_skips and self.skips[s] is not None:
                self._forbid_needless_skip(s, below, started, earlier, containers, self._count)
        self._shift_up_left(exact_skips)
        if not exact_skips:
            self._unused_slots_together(at_level)
        if copies is not None:
            self._limit_copies(all_values, copies)
        if level_major:
            self._levels_in_order()
        self.model.maximize(sum(objective))
        self.num_vars = sum(len(row) for row in self.x)

    def _count(self, n: int) -> None:
        """Count ``n`` terms written. Building a big model takes seconds of Python: the work limit
        covers that too, counted in terms written so that where it stops does not depend on the machine."""
        self.terms += n
        if self._max_terms is not None and self.terms > self._max_terms:
            raise _OverBudget

    def _placements(self, slot_levels, skippable) -> tuple[dict, dict, list]:
        """One variable per placement a slot may take (value, shape, level), exactly one per slot (or
        its skip). Fills ``self.x`` and ``self.skips``; returns the variables covering each
        (slot, level, cell), those on each (slot, level), and the objective's terms."""
        m = self.model
        # x[s] : list of (value, shape index, level, var)
        self.x: list[list[tuple[int, int, int, cp_model.IntVar]]] = []
        self.skips: list = []
        occ: dict[tuple[int, int, int], list] = {}  # (slot, level, cell) -> vars
        at_level: dict[tuple[int, int], list] = {}  # (slot, level) -> vars
        objective = []
        for s, values in enumerate(self.slot_values):
            top = min(self.levels - 1, s // 2)
            row = []
            for v in values:
                shapes = _shapes(v, self.grid)
                self._count(len(shapes) * (top + 1) * (tile_area(v) + 1))
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
        return occ, at_level, objective

    def _no_overlap(self, occ: dict) -> None:
        """No two tiles cover the same cell of the same level."""
        k = len(self.slot_values)
        for lv in range(self.levels):
            self._count(len(occ))
            for c in range(self.grid * self.grid):
                terms = [var for s in range(k) for var in occ.get((s, lv, c), ())]
                if len(terms) > 1:
                    self.model.add_at_most_one(terms)

    def _covered_below(self, occ: dict) -> dict[tuple[int, int, int], object]:
        """below[(s, lv, c)]: a slot before s covers cell c on level lv — a running sum, 0/1 by the
        no-overlap rule; the constant 0 while no slot so far can cover it (no variable needed)."""
        m = self.model
        k = len(self.slot_values)
        cells = self.grid * self.grid
        below: dict[tuple[int, int, int], object] = {}
        for lv in range(self.levels):
            self._count(k * cells)
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
        return below

    def _levels_started(self, at_level: dict) -> dict[tuple[int, int], object]:
        """started[(s, lv)]: some slot before s is on level lv (the first tile of a level needs no
        neighbour); the constant 0 while no slot so far can be there."""
        m = self.model
        started: dict[tuple[int, int], object] = {}
        for lv in range(self.levels):
            prev = 0
            for s in range(1, len(self.slot_values)):
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
        return started

    def _support_and_neighbours(self, s: int, occ, below, started, containers) -> dict:
        """The placement rules of slot s against the slots before it: full support under every
        cell, never on one single tile, and a neighbour on its level unless it is the level's first
        tile. Returns the earlier slots' variables by (value, shape, level), for the discard rule."""
        m = self.model
        grid = self.grid
        cells = grid * grid
        row = self.x[s]
        # Full support, aggregated per cell.
        self._count(self.levels * cells)
        for lv in range(1, self.levels):
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
                self._count(len(single) + 1)
                if single:
                    m.add(var + sum(single) <= 1)
            if s >= 1:
                e = started[(s, lv)]
                if isinstance(e, int):
                    continue  # first tile of its level: no neighbour needed
                ring = [below[(s, lv, c)] for c in sh.border if not isinstance(below[(s, lv, c)], int)]
                self._count(len(ring) + 2)
                if ring:
                    m.add_bool_or(ring).only_enforce_if([var, e])
                else:
                    m.add_implication(var, e.Not())
        return earlier

    def _shift_up_left(self, exact_skips: bool) -> None:
        """Shift the layout up and left: something covers row 0 and something covers column 0. A
        shift keeps a game without discards legal; with discards it may change what fits (near the
        edges), so where the model says which cards are discarded it applies to games without."""
        m = self.model
        grid = self.grid
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

    def _unused_slots_together(self, at_level: dict) -> None:
        """Unused slots (cards not chosen) form one block just before the upper levels (or at the
        end): which slots stay unused is otherwise a symmetry."""
        for s in range(len(self.slot_values) - 1):
            if self.skips[s] is not None:
                self.model.add(sum(at_level.get((s + 1, 0), ())) + self.skips[s] <= 1)

    def _limit_copies(self, all_values: tuple[int, ...], copies: int) -> None:
        """At most ``copies`` tiles of each value: the box holds no more (the free draft may choose any)."""
        for v in all_values:
            self.model.add(sum(var for row in self.x for vv, _, _, var in row if vv == v) <= copies)

    def _levels_in_order(self) -> None:
        """Slots fill the levels in order (ground first): the order of tiles within a level is
        otherwise a symmetry."""
        level_of = [sum(lv * var for _, _, lv, var in row if lv) for row in self.x]
        for s in range(1, len(self.slot_values)):
            self.model.add(level_of[s - 1] <= level_of[s])

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
    try:
        state = replay(Nmbr9Rules(grid=grid, levels=levels), deal, [a for a in actions if a is not None])
    except (ValueError, RuntimeError):
        return None
    # The engine discards a card exactly when it fits nowhere: the plan must say None there and only there.
    if not state.done or [p is None for p in state.placements] != [a is None for a in actions]:
        return None
    return state


def _canonical_hint(deal: Deal, plan: Sequence[int], grid: int, levels: int | None) -> list | None:
    """A play in the model's canonical form, as (value, action, level) per card (None: discarded):
    turned so that its first tile is unturned and, without discards, shifted up-left. None if the
    plan does not replay."""
    try:
        state = replay(Nmbr9Rules(grid=grid, levels=levels), deal, plan)
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

"""Plans for big Nmbr9 boards: beam searches over the engine's own legal placements, and the greedy
player's plan."""

from __future__ import annotations

import time

import numpy as np

from tabletop_gym.core import check_float, check_int
from tabletop_gym.envs.nmbr9.rules import (
    DEFAULT_GRID,
    MAX_VALUE,
    Deal,
    Nmbr9State,
    _tables,
    tile_area,
)
from tabletop_gym.oracles.nmbr9.common import POSITIONS_PER_SECOND, _Work

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
                child.apply(action)
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


def greedy_plan(deal: Deal, grid: int, levels: int | None = None) -> list[int]:
    """The greedy player's plan (see ``tabletop_gym.agents.nmbr9.GreedyAgent``)."""
    from tabletop_gym.agents.nmbr9 import greedy_action

    state = Nmbr9State(deal, grid, levels)
    plan = []
    while not state.done:
        action = greedy_action(state)
        plan.append(action)
        state.apply(action)
    return plan

"""Free-draft layouts built from the top down (plans for big boards such as F-9-2-20 on 20x20).

In the free draft the order of the cards is ours, so a play is a *layout*: tiles stacked on levels,
each level edge-connected, each tile on level ``L >= 1`` lying flat on cells of level ``L - 1`` and
on at least two tiles there. Any such layout is played level by level, each level in an order where
every tile touches an earlier one, so searching layouts loses no play (``oracles.nmbr9.free``).

Built from the bottom, a layout keeps only part of each level's area for the next, and the beams
over card orders lose the high levels that score most. Built from the top, every level is fixed
first where it scores most, and the level under it only has to carry it: one tile of the highest
value on top, then, level after level, a small CP-SAT model *covers* the footprint ``U`` of the
level above with tiles of the cards left:

- every cell of ``U`` covered exactly once, no two tiles on a cell;
- no tile of the level above lies on a single tile (a placement containing one is left out), so
  each rests on two or more;
- every tile meets ``U``, so the level is connected (two tiles covering neighbouring cells of the
  connected ``U`` share an edge);
- as many tiles as the *profile* (tiles per level) says, values within the cards left;
- the most points ``L * value``, less a price ``lam * L`` for each cell outside ``U`` (area the
  ``L`` levels below must carry as well); the table (level 0) takes the fewest tiles.

Profiles, the price and the top tile's rotation are drawn from a seeded generator and the best
layout kept, until the work runs out. Each model runs on CP-SAT's deterministic time with one
worker, so the same call gives the same layout everywhere. A heuristic: it proves nothing, and its
plans are replayed by the engine before they are used (``free._layout_result``).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator

import numpy as np
from ortools.sat.python import cp_model

from tabletop_gym.core import cp_solve
from tabletop_gym.envs.nmbr9.rules import Variant, distinct_rotations, encode_action, tile_rotations
from tabletop_gym.oracles.nmbr9.common import TERMS_PER_SECOND, WORK_PER_SECOND, _Work

Cell = tuple[int, int]
_SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
Tile = tuple[int, int, int, int, frozenset]  # value, rotation, row, column, cells
LEVEL_WORK = 2.0
"""Deterministic time for one level's cover model (about a second of work): enough for the
standard game's levels, whose models have a few thousand placements."""
PRICES = (0.5, 1.0, 2.0, 3.0)
MAX_DEPTH = 7  # levels of a layout at most (the record F-9-2-20 play has seven; deeper ones never built)


@functools.cache
def _shapes(value: int) -> tuple[tuple[int, tuple[Cell, ...]], ...]:
    return tuple((rot, tile_rotations(value)[rot]) for rot in distinct_rotations(value))


def _placements(area: frozenset, values: list[int]) -> list[Tile]:
    """Every placement of the given values that meets ``area`` (tiles are at most 4 cells long)."""
    rows = [r for r, _ in area]
    cols = [c for _, c in area]
    out = []
    for v in values:
        for rot, cells in _shapes(v):
            for r in range(min(rows) - 3, max(rows) + 1):
                for c in range(min(cols) - 3, max(cols) + 1):
                    tile = frozenset((r + a, c + b) for a, b in cells)
                    if tile & area:
                        out.append((v, rot, r, c, tile))
    return out


def cover(
    area: frozenset,
    above: list[frozenset],
    cards: Counter,
    level: int,
    price: float,
    count: int,
    work: _Work,
) -> list[Tile] | None:
    """Tiles for ``level`` that carry the level above (footprint ``area``, tiles ``above``), or None
    if the model finds none within its work (see the module's notes)."""
    values = [v for v in sorted(cards) if cards[v] > 0]
    if not values:
        return None
    tiles = [t for t in _placements(area, values) if not any(up <= t[4] for up in above)]
    work.spend(len(tiles) * 12 / TERMS_PER_SECOND)
    m = cp_model.CpModel()
    x = [m.new_bool_var(f"x{i}") for i in range(len(tiles))]
    on: dict[Cell, list[int]] = {}
    for i, t in enumerate(tiles):
        for cell in t[4]:
            on.setdefault(cell, []).append(i)
    for cell in area:
        if cell not in on:
            return None
        m.add_exactly_one(x[i] for i in on[cell])
    for cell, ids in on.items():
        if cell not in area:
            m.add_at_most_one(x[i] for i in ids)
    for v in values:
        m.add(sum(x[i] for i, t in enumerate(tiles) if t[0] == v) <= cards[v])
    m.add(sum(x) <= count)
    if level == 0:
        m.minimize(sum(x))
    else:
        outside = sum(len(t[4] - area) * x[i] for i, t in enumerate(tiles))
        points = sum(level * t[0] * x[i] for i, t in enumerate(tiles))
        m.maximize(100 * points - round(100 * price * level) * outside)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_deterministic_time = max(0.01, min(LEVEL_WORK, work.left) * WORK_PER_SECOND)
    status = cp_solve(solver, m)
    work.spend(solver.ResponseProto().deterministic_time / WORK_PER_SECOND)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return [t for i, t in enumerate(tiles) if solver.value(x[i])]


def profiles(tiles: int, depth: int) -> list[tuple[int, ...]]:
    """Tiles per level from the top: one on top, at least two under it (a tile rests on two),
    never fewer below than above, at most two more each level down, ``tiles`` at most in all."""
    out = []

    def grow(prefix: tuple[int, ...], used: int) -> None:
        if len(prefix) == depth:
            out.append(prefix)
            return
        low = max(prefix[-1], 2)
        for n in range(low, low + 3):
            if used + n <= tiles:
                grow(prefix + (n,), used + n)

    if depth == 1:
        return [(1,)]
    grow((1,), 1)
    return out


def build(
    variant: Variant, profile: tuple[int, ...], prices: list[float], rotation: int, work: _Work
) -> list[list[Tile]] | None:
    """The layout of one profile, top level first, or None if a level cannot be covered."""
    cards = Counter(variant.full_deck)
    top_value = variant.max_value
    rot, cells = _shapes(top_value)[rotation % len(_shapes(top_value))]
    layers = [[(top_value, rot, 0, 0, frozenset(cells))]]
    cards[top_value] -= 1
    depth = len(profile)
    for i, level in enumerate(range(depth - 2, -1, -1)):
        upper = [t[4] for t in layers[-1]]
        tiles = cover(frozenset().union(*upper), upper, cards, level, prices[i], profile[i + 1], work)
        if tiles is None:
            return None
        for t in tiles:
            cards[t[0]] -= 1
        layers.append(tiles)
    return layers


def layout_score(layers: list[list[Tile]]) -> int:
    depth = len(layers)
    return sum((depth - 1 - i) * t[0] for i, layer in enumerate(layers) for t in layer)


def layout_plan(layers: list[list[Tile]], grid: int) -> list[tuple[int, int]] | None:
    """The layout as a play on ``grid`` (centred), level by level from the table, each level in an
    order where every tile touches an earlier one; None if it does not fit on the grid."""
    cells = [cell for layer in layers for t in layer for cell in t[4]]
    r0, r1 = min(r for r, _ in cells), max(r for r, _ in cells)
    c0, c1 = min(c for _, c in cells), max(c for _, c in cells)
    if r1 - r0 >= grid or c1 - c0 >= grid:
        return None
    dr = (grid - (r1 - r0 + 1)) // 2 - r0
    dc = (grid - (c1 - c0 + 1)) // 2 - c0
    plan = []
    for layer in reversed(layers):
        order, rest = [layer[0]], list(layer[1:])
        while rest:
            near = {(r + a, c + b) for t in order for r, c in t[4] for a, b in _SIDES}
            nxt = next((t for t in rest if t[4] & near), None)
            if nxt is None:
                return None  # not connected (cannot happen for covers, see the notes)
            order.append(nxt)
            rest.remove(nxt)
        plan.extend((v, encode_action(rot, r + dr, c + dc, grid)) for v, rot, r, c, _ in order)
    return plan


def layouts(variant: Variant, grid: int, levels: int | None, work: _Work, seed: int = 0) -> Iterator[list]:
    """Layouts of ever better score (as plays on ``grid``), drawn until ``work`` runs out."""
    top = min(variant.cards, MAX_DEPTH if levels is None else levels)
    options = [found for d in range(3, top + 1) if (found := profiles(variant.cards, d))]
    if not options:
        return
    rng = np.random.default_rng(seed)
    best = -1
    while not work.out:
        # A depth first, then a profile of it: deep layouts score most when they can be built.
        depth = options[int(rng.integers(len(options)))]
        profile = depth[int(rng.integers(len(depth)))]
        prices = [float(rng.choice(PRICES)) for _ in profile]
        layers = build(variant, profile, prices, int(rng.integers(4)), work)
        score = -1 if layers is None else layout_score(layers)
        if score <= best:
            continue
        plan = layout_plan(layers, grid)
        if plan is not None:
            best = score
            yield plan

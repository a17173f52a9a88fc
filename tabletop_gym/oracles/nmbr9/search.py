"""Exact depth-first branch-and-bound search for Nmbr9 on small boards (known and free draft).

Written independently of the CP-SAT models in ``oracles/nmbr9/models.py``: it shares only the engine
(``tabletop_gym.envs.nmbr9.rules``), whose tiles and action encoding it uses and whose ``replay``
certifies every plan before it is returned. The search itself runs on its own compact board model
(numba): a height and a top tile per cell, a bitboard of the cells covered on each level, tiles and
areas counted per level.

**Known draft** (``solve_known``). Cards come in the given order; each card takes one of its legal
placements, or is discarded when it has none (the rules leave no choice either way). The search tries
higher levels first and prunes a placement when the score so far, plus its points, plus a bound on the
cards still to come cannot beat the best play found. Two bounds, the cheap one first: the *level caps*
(a level ``L >= 1`` needs two tiles on level ``L - 1`` before its first tile, so lifting every later
card as high as the tile counts allow gives each card the highest level it could ever reach), then,
where the caps do not prune, an *area relaxation*: levels for the later cards such that a tile on
level ``L >= 1`` lies on cells of level ``L - 1`` not yet covered and a table tile on free table cells
(a small search of its own, stopped as soon as it finds a choice good enough not to prune).

**Free draft** (``solve_free``). Adding a card never lowers a score (a placed tile scores value x
level >= 0, a discarded one nothing), so the best free-draft play is the best sequence of *at most*
``k`` legal placements, its missing cards then dealt at the end (placed or discarded by the engine).
Any finished layout can be rebuilt level by level, each level in an order where every tile touches an
earlier one (each level of a finished layout is connected), so only level-major sequences are
searched; orders of the same layout meet in a transposition table (two independent 64-bit Zobrist
keys per layout: a false match, the only way it could skip a layout, has odds near 2**-128). Its
bound is the level caps with the highest values left on the highest caps.

**Symmetry.** Only the four turns of the whole board map the problem onto itself (tiles are never
mirrored, and on a bounded grid a shift changes what fits near the edges), so the first tile is tried
in one placement of each orbit under those turns.

**Limits are work, not clocks**: ``node_limit`` counts placements tried, so a call gives the same plan
and bound on every machine. Stopped early, the bound is the best of the open subtrees' bounds.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from tabletop_gym.core import OracleResult, check_int, compile_kernel, run_interruptibly
from tabletop_gym.envs.nmbr9.rules import (
    MAX_VALUE,
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    check_grid,
    check_levels,
    distinct_rotations,
    encode_action,
    parse_deal,
    random_deal,
    replay,
    tile_rotations,
)

DEFAULT_NODE_LIMIT = 20_000_000  # placements tried: about 20-40 CPU-seconds at most on an 8x8 board
_VALUES = MAX_VALUE + 1
_MAX_AREA = 10  # the largest tile covers 10 cells


# ---------------------------------------------------------------------------------------------------
# The board model: every placement of every tile on a grid, as arrays for the numba search.


@dataclass(frozen=True)
class _Geometry:
    grid: int
    cells: np.ndarray  # (10, P, 10) flat cells of placement p of tile v (first area[v] used)
    area: np.ndarray  # (10,)
    bits: np.ndarray  # (10, P, W) uint64: the cells as a bitboard of W words
    ring: np.ndarray  # (10, P, W) uint64: in-grid cells sharing an edge with the tile, outside it
    nplace: np.ndarray  # (10,) placements of tile v on the grid
    actions: np.ndarray  # (10, P) the engine's action index of each placement
    canonical: np.ndarray  # (10, P) bool: the first placement of its orbit under the board's turns


def _bitboard(flat: Iterable[int], words: int) -> list[int]:
    out = [0] * words
    for f in flat:
        out[f // 64] |= 1 << (f % 64)
    return out


@functools.cache
def _geometry(grid: int) -> _Geometry:
    per_value: list[list[tuple[int, tuple[int, ...], tuple[int, ...]]]] = []
    for value in range(_VALUES):
        placements = []
        for rotation in distinct_rotations(value):
            shape = tile_rotations(value)[rotation]
            height = max(r for r, _ in shape) + 1
            width = max(c for _, c in shape) + 1
            for row in range(grid - height + 1):
                for col in range(grid - width + 1):
                    own = {(row + r, col + c) for r, c in shape}
                    ring = {
                        (r + dr, c + dc)
                        for r, c in own
                        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                        if 0 <= r + dr < grid and 0 <= c + dc < grid
                    } - own
                    placements.append(
                        (
                            encode_action(rotation, row, col, grid),
                            tuple(sorted(r * grid + c for r, c in own)),
                            tuple(sorted(r * grid + c for r, c in ring)),
                        )
                    )
        per_value.append(placements)
    most = max(len(p) for p in per_value)
    words = (grid * grid + 63) // 64
    cells = np.zeros((_VALUES, most, _MAX_AREA), dtype=np.int32)
    bits = np.zeros((_VALUES, most, words), dtype=np.uint64)
    ring_bits = np.zeros((_VALUES, most, words), dtype=np.uint64)
    actions = np.full((_VALUES, most), -1, dtype=np.int32)
    canonical = np.zeros((_VALUES, most), dtype=np.bool_)
    area = np.array([len(tile_rotations(v)[0]) for v in range(_VALUES)], dtype=np.int32)
    nplace = np.array([len(p) for p in per_value], dtype=np.int32)

    def turned(flat: tuple[int, ...]) -> tuple[int, ...]:
        # A quarter turn of the whole board: (r, c) -> (c, grid - 1 - r).
        return tuple(sorted((f % grid) * grid + grid - 1 - f // grid for f in flat))

    for value, placements in enumerate(per_value):
        index = {own: p for p, (_, own, _) in enumerate(placements)}
        for p, (action, own, ring) in enumerate(placements):
            cells[value, p, : len(own)] = own
            bits[value, p] = _bitboard(own, words)
            ring_bits[value, p] = _bitboard(ring, words)
            actions[value, p] = action
            orbit, image = [p], own
            for _ in range(3):
                image = turned(image)
                orbit.append(index[image])  # a turned tile is a placement of the same tile
            canonical[value, p] = p == min(orbit)
    return _Geometry(grid, cells, area, bits, ring_bits, nplace, actions, canonical)


# ---------------------------------------------------------------------------------------------------
# The numba core. A board is ``height`` (tiles stacked per cell), ``top`` (the tile on top of each
# cell, -1 none), ``cover[L + 1]`` (bitboard of the cells covered on level L; ``cover[0]`` is every
# cell, the "level" under the table) and ``tile_bits[t]`` (the cells of placed tile t); ``stacked``
# is the number of levels holding tiles.


@numba.njit(cache=True, nogil=True, inline="always")
def _level_of(v, p, height, top, cover, tile_bits, stacked, levels, cells, bits, ring):
    """The level tile ``v`` lands on under placement ``p``, or -1 if the rules forbid it.

    Branch-free on purpose: the outcomes vary from one placement to the next, and mispredicted
    branches cost more than evaluating every rule."""
    first = cells[v, p, 0]
    level = height[first]  # a flat footprint lands on the height of any of its cells
    under = max(top[first], 0)  # the tile below the first cell (level >= 1 only)
    uneven = np.uint64(0)
    off_under = np.uint64(0)
    touch = np.uint64(0)
    for w in range(bits.shape[2]):
        b = bits[v, p, w]
        # A cell lower than the first (not covered on the level below) or higher (covered on it).
        uneven |= (b & ~cover[level, w]) | (b & cover[level + 1, w])
        off_under |= b & ~tile_bits[under, w]
        touch |= ring[v, p, w] & cover[level + 1, w]
    ok = (
        (uneven == 0)
        & (level < levels)
        & ((level == 0) | (off_under != 0))  # above the table: on two tiles at least
        & ((level >= stacked) | (touch != 0))  # a level holding tiles: touch one of them
    )
    return level if ok else -1


@numba.njit(cache=True, nogil=True, inline="always")
def _top_of(stacked, count):
    """The top level holding tiles and its tile count; on an empty board -1 and 2 (the table, like a
    level on two tiles, takes a tile)."""
    top_level = stacked - 1
    return top_level, count[top_level] if stacked > 0 else 2


@numba.njit(cache=True, nogil=True, inline="always")
def _play(
    d, code, v, p, lv, stacked, score, height, top, cover, tile_bits, saved_top, count, cells, area, bits,
    chosen, chosen_level
):
    """Make candidate ``code`` the one on the board at depth ``d`` (tile ``d``): tile ``v`` in placement
    ``p`` on level ``lv`` (``p`` -1: a discard, nothing placed), its cells' old tops kept in
    ``saved_top[d]``. Returns the levels holding tiles and the score after it."""
    chosen[d] = code
    chosen_level[d] = lv
    if p < 0:
        return stacked, score
    count[lv] += 1
    for i in range(area[v]):
        cell = cells[v, p, i]
        saved_top[d, i] = top[cell]
        top[cell] = d
        height[cell] += 1
    for w in range(bits.shape[2]):
        cover[lv + 1, w] |= bits[v, p, w]
        tile_bits[d, w] = bits[v, p, w]
    return max(stacked, lv + 1), score + v * lv


@numba.njit(cache=True, nogil=True, inline="always")
def _take_back(
    d, v, p, stacked, score, height, top, cover, saved_top, count, cells, area, bits, chosen, chosen_level
):
    """Lift tile ``d`` (tile ``v`` in placement ``p``) off the board, the reverse of ``_play``; returns
    the levels holding tiles (only the top level can empty) and the score after it."""
    lv = chosen_level[d]
    chosen[d] = -1
    for i in range(area[v]):
        cell = cells[v, p, i]
        top[cell] = saved_top[d, i]
        height[cell] -= 1
    for w in range(bits.shape[2]):
        cover[lv + 1, w] &= ~bits[v, p, w]
    count[lv] -= 1
    return (lv if count[lv] == 0 else stacked), score - v * lv


@numba.njit(cache=True, nogil=True, inline="always")
def _by_level(codes, code_levels, found, high, low, cand, cand_level, d):
    """Row ``d`` of ``cand`` and ``cand_level``: the ``found`` candidates (``codes`` on
    ``code_levels``) from level ``high`` down to ``low`` (good plays early); returns their number."""
    m = 0
    for lv in range(high, low - 1, -1):
        for i in range(found):
            if code_levels[i] == lv:
                cand[d, m] = codes[i]
                cand_level[d, m] = lv
                m += 1
    return m


@numba.njit(cache=True, nogil=True)
def _next_cap(top_level, top_count, levels):
    """The highest level the next tile can reach given the top level and its tile count (capped at
    2: two tiles are all a new level needs), and the top level and count after it goes there."""
    if top_count >= 2 and top_level + 1 < levels:
        return top_level + 1, top_level + 1, 1
    return top_level, top_level, top_count + 1


@numba.njit(cache=True, nogil=True)
def _child_top(level, top_level, top_count):
    """Top level and its tile count after a tile lands on ``level`` (-1: a discard, no tile)."""
    if level < 0 or level < top_level:
        return top_level, top_count
    if level > top_level:
        return level, 1
    return top_level, top_count + 1


@numba.njit(cache=True, nogil=True)
def _known_rest(values, start, top_level, top_count, levels):
    """Upper bound on the points of cards ``start..``: each at the highest level the tile counts
    allow (a level needs two tiles on the level below before its first tile). Lifting a card as high
    as it can go keeps every later cap as high as any play could make it."""
    total = 0
    for t in range(start, values.shape[0]):
        cap, top_level, top_count = _next_cap(top_level, top_count, levels)
        total += values[t] * cap
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _account(level, tile_area, sign, count, exposed, table_free):
    """Count a tile of ``tile_area`` cells onto ``level`` (``sign`` 1) or off it (-1): tiles per level,
    cells of each level not covered from above, free table cells (returned). Level -1 (a discarded
    card) changes nothing."""
    if level >= 0:
        count[level] += sign
    return _account_area(level, tile_area, sign, exposed, table_free)


@numba.njit(cache=True, nogil=True, inline="always")
def _account_area(level, tile_area, sign, exposed, table_free):
    """``_account`` without the tile counts (``_play`` and ``_take_back`` keep those)."""
    if level < 0:
        return table_free
    exposed[level] += sign * tile_area
    if level >= 1:
        exposed[level - 1] -= sign * tile_area
    else:
        table_free -= sign * tile_area
    return table_free


@numba.njit(cache=True, nogil=True)
def _area_relaxation(values, area, start, count, exposed, table_free, levels, threshold, chosen, option):
    """Is there a choice of levels for cards ``start..`` worth more than ``threshold`` points under
    the tile counts and the areas? Returns the value of the first such choice found, or
    ``threshold`` when there is none.

    Every play satisfies these constraints, so the answer bounds every play: a tile on level
    ``L >= 1`` needs two tiles on level ``L - 1`` and covers ``area`` of its cells not yet covered
    (``exposed[L - 1]``); a tile on the table needs that many free cells (``table_free``); a card may
    also be discarded. ``count`` and ``exposed`` (per level) are work space, restored on return;
    ``chosen`` and ``option`` are work space of at least ``len(values) - start`` entries."""
    r = values.shape[0] - start
    if r <= 0:
        return 0
    points = 0
    t = 0
    option[0] = levels - 1
    while True:
        if t == r:  # only reached with more than the threshold (see the pruning below)
            for s in range(r - 1, -1, -1):
                table_free = _account(chosen[s], area[values[start + s]], -1, count, exposed, table_free)
            return points
        lv = option[t]
        if lv < -1:  # every choice for this card tried: back to the previous card
            if t == 0:
                return threshold
            t -= 1
            lv = chosen[t]
            table_free = _account(lv, area[values[start + t]], -1, count, exposed, table_free)
            points -= values[start + t] * max(lv, 0)
            continue
        option[t] = lv - 1
        v = values[start + t]
        a = area[v]
        if lv >= 1 and (count[lv - 1] < 2 or exposed[lv - 1] < a):
            continue
        if lv == 0 and table_free < a:
            continue
        # Prune: this choice plus every later card at its count cap cannot pass the threshold.
        top_level, top_count = -1, 2
        for q in range(levels - 1, -1, -1):
            if count[q] > 0:
                top_level, top_count = q, count[q]
                break
        tl, tc = _child_top(lv, top_level, top_count)
        if points + v * max(lv, 0) + _known_rest(values, start + t + 1, tl, tc, levels) <= threshold:
            continue
        table_free = _account(lv, a, 1, count, exposed, table_free)
        points += v * max(lv, 0)
        chosen[t] = lv
        t += 1
        if t < r:
            option[t] = levels - 1


@intrinsic
def _stop_requested(typingctx, stop):
    """``stop[0] != 0``, read as an atomic load: another thread sets it (Ctrl-C), and a plain load
    could be kept in a register for the whole search."""
    if not (isinstance(stop, types.Array) and stop.dtype == types.int64 and stop.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [context.get_constant(types.intp, 0)])
        value = builder.load_atomic(ptr, "monotonic", 8)
        return builder.icmp_signed("!=", value, context.get_constant(types.int64, 0))

    return types.boolean(stop), codegen


def _interruptible(kernel: Any, *args: Any) -> Any:
    """``kernel(*args, stop)`` so that Ctrl-C ends it promptly with ``KeyboardInterrupt``: the search
    (``nogil``) runs in a worker thread and, on an interrupt, ``stop[0]`` makes it return at its next
    node; what it returned is thrown away."""
    stop = np.zeros(1, dtype=np.int64)
    compile_kernel(kernel, *args, stop)  # here, where a Ctrl-C stops the compiling too

    def request_stop() -> None:
        stop[0] = 1

    return run_interruptibly(lambda: kernel(*args, stop), request_stop)


# ---------------------------------------------------------------------------------------------------
# The skeleton both searches share: an explicit stack of depths (a depth is a tile about to be placed),
# each with its candidates best first (``cand`` codes, ``cand_level`` levels), how many (``ncand``),
# the next to try (``nxt``) and the one on the board (``chosen``, -1 none, on ``chosen_level``).
# A kernel loops: entering a depth it lists the candidates; at a depth it lifts the tile it placed
# there, then places the next candidate whose bound beats the best play (charging one node of work)
# and goes deeper, or, none left, goes back up. Stopped early, its bound is the best of the bounds of
# the candidates left untried on the stack.


@numba.njit(cache=True, nogil=True, inline="always")
def _new_board(tiles, levels, words):
    """An empty board for up to ``tiles`` tiles: height, top, cover, tile_bits, saved_top, count.

    Inlined on purpose: the same arrays returned by a call made the known-draft search 7-10% slower
    (and the free one 7% in an earlier measure)."""
    ncell = words * 64
    height = np.zeros(ncell, np.int32)
    top = np.full(ncell, -1, np.int32)
    cover = np.zeros((levels + 2, words), np.uint64)
    cover[0, :] = ~np.uint64(0)
    tile_bits = np.zeros((tiles, words), np.uint64)
    saved_top = np.zeros((tiles, _MAX_AREA), np.int32)
    count = np.zeros(levels + 1, np.int32)  # tiles per level
    return height, top, cover, tile_bits, saved_top, count


@numba.njit(cache=True, nogil=True, inline="always")
def _new_stack(depths, width):
    """An empty stack of ``depths`` depths of up to ``width`` candidates: cand, cand_level, ncand,
    nxt, chosen, chosen_level."""
    cand = np.empty((depths, width), np.int32)
    cand_level = np.empty((depths, width), np.int32)
    ncand = np.zeros(depths, np.int32)
    nxt = np.zeros(depths, np.int32)
    chosen = np.full(depths, -1, np.int32)
    chosen_level = np.zeros(depths, np.int32)
    return cand, cand_level, ncand, nxt, chosen, chosen_level


_STOPPED = -2  # what a kernel's next-candidate helper returns when no more work may be charged


@numba.njit(cache=True, nogil=True, inline="always")
def _out_of_work(nodes, node_limit, stop):
    """No node may be charged: the limit is spent or Ctrl-C asked to stop."""
    return nodes >= node_limit or _stop_requested(stop)


@numba.njit(cache=True, nogil=True, inline="always")
def _record(score, best, best_len, d, chosen, plan_out):
    """Keep the play on the stack (its first ``d`` tiles) when it beats the best; returns the best score
    and its tile count after it."""
    if score > best:
        for t in range(d):
            plan_out[t] = chosen[t]
        return score, d
    return best, best_len


# ---------------------------------------------------------------------------------------------------
# Known draft: depth d is card d; its candidates are its placements, or, when it fits nowhere, one
# discard (code -1, level -1). Bounds come by the level the card lands on, computed on entering.


@numba.njit(cache=True, nogil=True, inline="always")
def _known_child_bounds(
    values, d, highest, top_level, top_count, score, best, area, count, exposed, table_free, levels,
    work_level, work_option, child_bound
):
    """``child_bound[d, lv + 1]``: bounds on the plays below card ``d`` by the level its tile lands on
    (``highest`` down to 0, or -1 alone when it fits nowhere and is discarded): the count caps first
    (cheap), then, where they do not prune, the counts and areas together."""
    n = values.shape[0]
    v = values[d]
    lowest = 0 if highest >= 0 else -1
    for lv in range(highest, lowest - 1, -1):
        tl, tc = _child_top(lv, top_level, top_count)
        gain = v * max(lv, 0)
        b = score + gain + _known_rest(values, d + 1, tl, tc, levels)
        if b > best and d + 1 < n:
            free = _account(lv, area[v], 1, count, exposed, table_free)
            need = best - score - gain  # the rest must score more than this
            found = _area_relaxation(
                values, area, d + 1, count, exposed, free, levels, need, work_level, work_option
            )
            if found <= need:
                b = best  # nothing in this subtree beats the best play
            _account(lv, area[v], -1, count, exposed, free)
        child_bound[d, lv + 1] = b


@numba.njit(cache=True, nogil=True, inline="always")
def _known_candidates(
    d, values, levels, height, top, cover, tile_bits, stacked, count, cells, bits, ring, nplace, canonical,
    placements, scratch, cand, cand_level, forced
):
    """List card ``d``'s candidates, highest level first (the first card in one placement per orbit);
    returns their number and the highest level (-1: it fits nowhere, the one candidate a discard).
    A card of the ``forced`` prefix has one candidate, its placement there (-1: a discard); none when
    that placement is illegal on this board (the search then finds no play)."""
    v = values[d]
    if d < forced.shape[0]:
        p = forced[d]
        lv = -1
        if p >= 0:
            lv = _level_of(v, p, height, top, cover, tile_bits, stacked, levels, cells, bits, ring)
            if lv < 0:
                return 0, -1
        cand[d, 0] = p
        cand_level[d, 0] = lv
        return 1, lv
    highest = -1
    for p in range(nplace[v]):
        lv = -1
        if d > 0 or canonical[v, p]:
            lv = _level_of(v, p, height, top, cover, tile_bits, stacked, levels, cells, bits, ring)
        scratch[p] = lv
        if lv > highest:
            highest = lv
    if highest < 0:
        cand[d, 0] = -1
        cand_level[d, 0] = -1
        return 1, highest
    return _by_level(placements, scratch, nplace[v], highest, 0, cand, cand_level, d), highest


@numba.njit(cache=True, nogil=True, inline="always")
def _known_next(d, cand_level, ncand, nxt, child_bound, best, nodes, node_limit, stop):
    """The next candidate of card ``d`` whose bound beats ``best``, charged a node; returns it (-1: none
    left, ``_STOPPED``: out of work, though never before the first play is finished) and the nodes."""
    while nxt[d] < ncand[d]:
        i = nxt[d]
        if child_bound[d, cand_level[d, i] + 1] > best:
            if best >= 0 and _out_of_work(nodes, node_limit, stop):
                return _STOPPED, nodes
            nxt[d] += 1
            return i, nodes + 1
        nxt[d] += 1
    return -1, nodes


@numba.njit(cache=True, nogil=True)
def _known_open_bound(d, cand_level, ncand, nxt, child_bound):
    """The best bound of the candidates left untried at depths ``0..d``."""
    open_bound = -1
    for t in range(d + 1):
        for i in range(nxt[t], ncand[t]):
            open_bound = max(open_bound, child_bound[t, cand_level[t, i] + 1])
    return open_bound


@numba.njit(cache=True, nogil=True)
def _known_dfs(
    values, levels, grid_cells, cells, area, bits, ring, nplace, canonical, node_limit, forced, plan_out, stop
):
    """Branch and bound over the plays of a known card order whose first ``len(forced)`` cards take
    the placements ``forced`` gives (-1: discarded), a position reached in play (none: the deal's
    start, where the first card is tried in one placement per orbit of the board's turns).

    Returns (best score, nodes, open bound): the open bound is -1 when the search finished, else
    the best bound among the subtrees not yet explored. ``plan_out`` gets the placement index per
    card of the best play (-1: discarded). Tile ids are card indices. The first play is always
    finished, whatever the node limit, so there is a plan to return."""
    n = values.shape[0]
    most = cells.shape[1]
    height, top, cover, tile_bits, saved_top, count = _new_board(n, levels, bits.shape[2])
    cand, cand_level, ncand, nxt, chosen, chosen_level = _new_stack(n, most)
    child_bound = np.zeros((n, levels + 2), np.int64)  # by the level the card's tile lands on, + 1
    placements = np.arange(most).astype(np.int32)  # the candidates' codes: placement indices
    scratch = np.empty(most, np.int32)
    exposed = np.zeros(levels + 1, np.int64)  # cells of each level's tiles not covered from above
    table_free = grid_cells  # table cells not under a tile
    work_level = np.empty(n, np.int64)
    work_option = np.empty(n, np.int64)
    stacked = score = nodes = 0  # stacked: levels holding tiles
    best = -1
    d = 0
    fresh = True  # depth d was just entered: list its candidates
    while True:
        if d == n:  # every card dealt: a finished play
            best, _ = _record(score, best, 0, d, chosen, plan_out)
            d -= 1
        elif fresh:
            top_level, top_count = _top_of(stacked, count)
            found, highest = _known_candidates(
                d, values, levels, height, top, cover, tile_bits, stacked, count, cells, bits, ring, nplace,
                canonical, placements, scratch, cand, cand_level, forced
            )
            _known_child_bounds(
                values, d, highest, top_level, top_count, score, best, area, count, exposed, table_free,
                levels, work_level, work_option, child_bound
            )
            ncand[d] = found
            nxt[d] = 0
        fresh = False
        v = values[d]
        p = chosen[d]
        if p >= 0:  # back at depth d: lift its tile before its next alternative
            table_free = _account_area(chosen_level[d], area[v], -1, exposed, table_free)
            stacked, score = _take_back(
                d, v, p, stacked, score, height, top, cover, saved_top, count, cells, area, bits, chosen,
                chosen_level
            )
        i, nodes = _known_next(d, cand_level, ncand, nxt, child_bound, best, nodes, node_limit, stop)
        if i == _STOPPED:
            return best, nodes, _known_open_bound(d, cand_level, ncand, nxt, child_bound)
        if i >= 0:
            p = cand[d, i]
            lv = cand_level[d, i]
            stacked, score = _play(
                d, p, v, p, lv, stacked, score, height, top, cover, tile_bits, saved_top, count, cells,
                area, bits, chosen, chosen_level
            )
            table_free = _account_area(lv, area[v], 1, exposed, table_free)
            d += 1
            fresh = True
        else:
            d -= 1
            if d < 0:
                return best, nodes, -1


# ---------------------------------------------------------------------------------------------------
# Free draft: depth d is the d-th tile placed, any value still available; a candidate's code is
# value * P + placement. Bounds come by value and level, computed when first needed; layouts already
# explored in another order are cut by a transposition table.


@numba.njit(cache=True, nogil=True)
def _free_rest(avail, remaining, top_level, top_count, levels):
    """Upper bound on the points of ``remaining`` more cards drawn from ``avail`` (count per value):
    the level caps of their turns, the highest values on the highest caps."""
    caps = np.empty(remaining, np.int64)
    for t in range(remaining):
        cap, top_level, top_count = _next_cap(top_level, top_count, levels)
        caps[t] = cap
    # Caps never decrease: pair them from the last with the values from the highest.
    total = 0
    t = remaining - 1
    for value in range(avail.shape[0] - 1, -1, -1):
        for _ in range(avail[value]):
            if t < 0:
                return total
            total += caps[t] * value
            t -= 1
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _free_candidates(
    d, avail, levels, height, top, cover, tile_bits, stacked, lowest, cells, bits, ring, nplace, canonical,
    child_bound, scratch, scratch_level, cand, cand_level
):
    """List depth ``d``'s candidates, level-major (on the top level ``lowest``, touching it, or
    starting the next), highest level first, high values first; clears their bounds."""
    most = cells.shape[1]
    found = 0
    for v in range(avail.shape[0] - 1, -1, -1):  # high values first where they score
        if avail[v] == 0:
            continue
        for lv in range(lowest, levels):
            child_bound[d, v, lv] = -1
        for p in range(nplace[v]):
            if d == 0 and not canonical[v, p]:
                continue
            lv = _level_of(v, p, height, top, cover, tile_bits, stacked, levels, cells, bits, ring)
            if lv >= lowest:
                scratch[found] = v * most + p
                scratch_level[found] = lv
                found += 1
    high = min(stacked, levels - 1)
    return _by_level(scratch, scratch_level, found, high, lowest, cand, cand_level, d)


@numba.njit(cache=True, nogil=True, inline="always")
def _seen_before(k1, k2, seen1, seen2, mask):
    """Is the layout of keys ``k1``, ``k2`` in the table? Stores it when not (in its first empty slot
    of eight, else over the first)."""
    slot = np.int64(k1 & np.uint64(mask))
    for probe in range(8):
        s = (slot + probe) & mask
        if seen1[s] == k1 and seen2[s] == k2:
            return True
        if seen2[s] == 0:
            seen1[s] = k1
            seen2[s] = k2
            return False
    seen1[slot] = k1  # a full run of slots: the newest key replaces the first
    seen2[slot] = k2
    return False


@numba.njit(cache=True, nogil=True, inline="always")
def _free_next(
    d, k, score, best, avail, top_level, top_count, levels, cand, cand_level, ncand, nxt, child_bound,
    nodes, node_limit, stop, key1, key2, zob1, zob2, seen1, seen2, mask
):
    """The next candidate of depth ``d`` whose bound beats ``best`` and whose layout is new, charged a
    node (so is each known layout passed); returns it (-1: none left, ``_STOPPED``: out of work), the
    nodes and the known layouts passed. Bounds by value and level are computed on first need."""
    most = zob1.shape[1]
    cuts = 0
    while nxt[d] < ncand[d]:
        i = nxt[d]
        v = cand[d, i] // most
        p = cand[d, i] % most
        lv = cand_level[d, i]
        b = child_bound[d, v, lv]
        if b < 0:
            tl, tc = _child_top(lv, top_level, top_count)
            avail[v] -= 1
            b = score + v * lv + _free_rest(avail, k - d - 1, tl, tc, levels)
            avail[v] += 1
            child_bound[d, v, lv] = b
        if b <= best:
            nxt[d] += 1
            continue
        if _out_of_work(nodes, node_limit, stop):
            return _STOPPED, nodes, cuts
        nodes += 1
        nxt[d] += 1
        if not _seen_before(key1 ^ zob1[v, p], key2 ^ zob2[v, p], seen1, seen2, mask):
            return i, nodes, cuts
        cuts += 1  # the same layout in another order: explored already (or on the path)
    return -1, nodes, cuts


@numba.njit(cache=True, nogil=True)
def _free_open_bound(d, most, cand, cand_level, ncand, nxt, child_bound, node_bound):
    """The best bound of the candidates left untried at depths ``0..d`` (a bound not computed yet is
    covered by its depth's own)."""
    open_bound = -1
    for t in range(d + 1):
        for i in range(nxt[t], ncand[t]):
            b = child_bound[t, cand[t, i] // most, cand_level[t, i]]
            open_bound = max(open_bound, b if b >= 0 else node_bound[t])
    return open_bound


@numba.njit(cache=True, nogil=True)
def _free_dfs(
    avail0, k, levels, cells, area, bits, ring, nplace, canonical, zob1, zob2, table_bits, node_limit,
    plan_out, stop
):
    """Branch and bound over level-major sequences of at most ``k`` placements, values drawn from
    ``avail0``. Returns (best score, tiles in the best play, nodes, open bound (-1 when finished),
    transpositions cut). ``plan_out[t]`` = value * P + placement of the best play's tile t."""
    most = cells.shape[1]
    nv = avail0.shape[0]
    avail = avail0.copy()
    height, top, cover, tile_bits, saved_top, count = _new_board(k, levels, bits.shape[2])
    cand, cand_level, ncand, nxt, chosen, chosen_level = _new_stack(k, nv * most)
    child_bound = np.full((k, nv, levels + 1), -1, np.int64)  # by value and level, when needed
    node_bound = np.zeros(k, np.int64)
    scratch = np.empty(nv * most, np.int32)
    scratch_level = np.empty(nv * most, np.int32)
    mask = (1 << table_bits) - 1
    seen1 = np.zeros(mask + 1, np.uint64)
    seen2 = np.zeros(mask + 1, np.uint64)  # 0 marks an empty slot (a key of 0 is simply never stored)
    key1 = key2 = np.uint64(0)
    stacked = score = best = best_len = nodes = cuts = 0
    d = 0  # tiles placed
    fresh = True
    while True:
        if fresh:  # every node is a play: the cards it leaves out are dealt at the end
            fresh = False
            best, best_len = _record(score, best, best_len, d, chosen, plan_out)
            if d == k:
                d -= 1
            else:
                top_level, top_count = _top_of(stacked, count)
                node_bound[d] = score + _free_rest(avail, k - d, top_level, top_count, levels)
                ncand[d] = _free_candidates(
                    d, avail, levels, height, top, cover, tile_bits, stacked, max(top_level, 0), cells, bits,
                    ring, nplace, canonical, child_bound, scratch, scratch_level, cand, cand_level
                )
                nxt[d] = 0
        code = chosen[d]
        if code >= 0:  # back at depth d: lift its tile before its next alternative
            v = code // most
            p = code % most
            stacked, score = _take_back(
                d, v, p, stacked, score, height, top, cover, saved_top, count, cells, area, bits, chosen,
                chosen_level
            )
            avail[v] += 1
            key1 ^= zob1[v, p]
            key2 ^= zob2[v, p]
        top_level, top_count = _top_of(stacked, count)
        i, nodes, passed = _free_next(
            d, k, score, best, avail, top_level, top_count, levels, cand, cand_level, ncand, nxt, child_bound,
            nodes, node_limit, stop, key1, key2, zob1, zob2, seen1, seen2, mask
        )
        cuts += passed
        if i == _STOPPED:
            open_bound = _free_open_bound(d, most, cand, cand_level, ncand, nxt, child_bound, node_bound)
            return best, best_len, nodes, open_bound, cuts
        if i >= 0:
            code = cand[d, i]
            v = code // most
            p = code % most
            stacked, score = _play(
                d, code, v, p, cand_level[d, i], stacked, score, height, top, cover, tile_bits, saved_top,
                count, cells, area, bits, chosen, chosen_level
            )
            avail[v] -= 1
            key1 ^= zob1[v, p]
            key2 ^= zob2[v, p]
            d += 1
            fresh = True
        else:
            d -= 1
            if d < 0:
                return best, best_len, nodes, -1, cuts


# ---------------------------------------------------------------------------------------------------
# Public API


def placements_tested(values: Iterable[int], grid: int) -> int:
    """The placements of ``values`` (each value once per time it is listed) on a ``grid`` board: what
    a node of the search tests for where a tile would land, when it may place any of them next."""
    nplace = _geometry(check_grid(grid)).nplace
    return int(sum(int(nplace[int(v)]) for v in values))


def _check_node_limit(node_limit: int) -> int:
    return check_int("node_limit (placements tried)", node_limit, 1)


def _level_limit(levels: int | None, cards: int) -> int:
    # Without a limit no play uses more levels than it has cards.
    return cards + 1 if levels is None else min(levels, cards + 1)


def solve_known(
    deal: Deal | str,
    grid: int,
    levels: int | None = None,
    node_limit: int = DEFAULT_NODE_LIMIT,
) -> OracleResult:
    """Known draft: the best score for this card order, by exact branch and bound.

    ``deal``: a ``Deal`` or a deal string (read as variant 9-2-k, like ``oracles.nmbr9``);
    ``levels``: the number of levels, the table included (None: no limit). ``plan`` holds one engine
    action per placed card (a discarded card has none), as ``oracles.nmbr9.solve`` returns it; it is
    replayed through the engine before it is returned. ``bound`` is the score itself when the search
    finished (``optimal``), else the best bound over the subtrees left when ``node_limit`` placements
    had been tried (the first complete play is always finished, so there is always a plan).
    ``stats``: nodes (placements tried), node_limit, proven.
    """
    start_wall = time.perf_counter()
    grid = check_grid(grid)
    levels = check_levels(levels)
    node_limit = _check_node_limit(node_limit)
    if isinstance(deal, str):
        text = deal.strip()
        deal = parse_deal(text, Variant(MAX_VALUE, 2, len(text)) if 0 < len(text) <= 20 else Variant())
    if not isinstance(deal, Deal):
        raise TypeError(f"deal must be a Deal or a deal string, got {type(deal).__name__}")
    if not deal.cards:
        stats = {"method": "dfs", "nodes": 0, "node_limit": node_limit, "proven": True}
        return OracleResult(0, 0, (), time.perf_counter() - start_wall, stats)
    best, plan, nodes, proven, open_bound = _run_known(deal, grid, levels, node_limit, _NOTHING_FORCED)
    state = replay(Nmbr9Rules(grid=grid, levels=levels), deal, plan)
    if not state.done or state.score != best:
        raise AssertionError(f"search claims {best} on {deal} but its plan replays to {state.score}")
    return OracleResult(
        score=int(best),
        bound=int(best) if proven else int(max(best, open_bound)),
        plan=plan,
        seconds=time.perf_counter() - start_wall,
        stats={"method": "dfs", "nodes": int(nodes), "node_limit": node_limit, "proven": proven},
    )


_NOTHING_FORCED = np.empty(0, dtype=np.int32)


def _run_known(
    deal: Deal, grid: int, levels: int | None, node_limit: int, forced: np.ndarray
) -> tuple[int, tuple[int, ...], int, bool, int]:
    """The known-draft kernel on ``deal``, its first cards placed as ``forced`` says (placement
    indices, -1 a discard): (best score of the whole game, one action per placed card of its play,
    nodes, whether it finished, the open bound of a stopped search)."""
    geo = _geometry(grid)
    values = np.array(deal.cards, dtype=np.int64)
    plan_index = np.full(len(values), -1, dtype=np.int32)
    best, nodes, open_bound = _interruptible(
        _known_dfs,
        values,
        _level_limit(levels, len(values)),
        grid * grid,
        geo.cells,
        geo.area,
        geo.bits,
        geo.ring,
        geo.nplace,
        geo.canonical,
        node_limit,
        forced,
        plan_index,
    )
    plan = tuple(
        int(geo.actions[v, p]) for v, p in zip(deal.cards, plan_index.tolist(), strict=True) if p >= 0
    )
    return int(best), plan, int(nodes), bool(open_bound < 0), int(open_bound)


def _placement_indices(state: Nmbr9State) -> np.ndarray:
    """The search's placement index of each card ``state`` has dealt (-1: discarded)."""
    geo = _geometry(state.grid)
    forced = np.full(state.turn, -1, dtype=np.int32)
    for t, placed in enumerate(state.placements):
        if placed is not None:
            actions = geo.actions[placed.value, : geo.nplace[placed.value]]  # ascending, as built
            p = int(np.searchsorted(actions, placed.action))
            if p >= len(actions) or actions[p] != placed.action:
                raise AssertionError(f"action {placed.action} of tile {placed.value} is no placement")
            forced[t] = p
    return forced


def solve_from(state: Nmbr9State, node_limit: int = DEFAULT_NODE_LIMIT) -> OracleResult:
    """Known draft from a position reached in play: the most points still to gain from ``state``
    (the cards dealt so far where they lie, the rest of its deal in order), by the same branch and
    bound as ``solve_known`` with the cards already dealt held where they are.

    ``score`` counts only the points still to come (not ``state.score``); ``plan`` holds one action
    per card still to place (the engine discards the others), replayed through the engine from a
    copy of ``state`` before it is returned; ``bound`` and ``stats`` are as ``solve_known``'s."""
    start_wall = time.perf_counter()
    if not isinstance(state, Nmbr9State):
        raise TypeError(f"state must be an Nmbr9State, got {type(state).__name__}")
    node_limit = _check_node_limit(node_limit)
    if state.done:
        stats = {"method": "dfs", "nodes": 0, "node_limit": node_limit, "proven": True}
        return OracleResult(0, 0, (), time.perf_counter() - start_wall, stats)
    forced = _placement_indices(state)
    best, plan, nodes, proven, open_bound = _run_known(
        state.deal, state.grid, state.levels, node_limit, forced
    )
    placed = sum(p is not None for p in state.placements)
    if best < 0 or plan[:placed] != tuple(p.action for p in state.placements if p is not None):
        raise AssertionError(f"the search did not keep the position's {placed} tiles of {state.deal}")
    rest = plan[placed:]
    after = state.copy()
    for action in rest:
        after.apply(action)
    if not after.done or after.score != best:
        raise AssertionError(
            f"search claims {best} from card {state.turn + 1} of {state.deal} but its plan replays to "
            f"{after.score}"
        )
    gained = best - state.score
    return OracleResult(
        score=gained,
        bound=gained if proven else max(best, open_bound) - state.score,
        plan=rest,
        seconds=time.perf_counter() - start_wall,
        stats={"method": "dfs", "nodes": nodes, "node_limit": node_limit, "proven": proven},
    )


def solve_free(
    variant: Variant | str,
    grid: int,
    levels: int | None = None,
    node_limit: int = DEFAULT_NODE_LIMIT,
    table_bits: int = 20,
) -> OracleResult:
    """Free draft: the best score over every choice of ``k`` cards of variant m-c-k and their order.

    ``plan`` is ``((value, action), ...)`` for the ``k`` cards in play order, as
    ``oracles.nmbr9.solve_free`` returns it; a card the engine discards (it fits nowhere) has action
    ``None`` (``replay_free`` replays both kinds). Discarded cards come last: dropping a discarded card
    from the middle changes nothing, and dealing it at the end never lowers the score. The plan
    places every card whenever the best layout leaves room for the missing ones.
    ``table_bits``: log2 of the transposition table's slots (16 bytes each).
    """
    start_wall = time.perf_counter()
    variant = Variant.of(variant)
    grid = check_grid(grid)
    levels = check_levels(levels)
    node_limit = _check_node_limit(node_limit)
    table_bits = check_int("table_bits", table_bits, 8, 30)
    geo = _geometry(grid)
    k = variant.cards
    avail = np.zeros(variant.max_value + 1, dtype=np.int64)
    avail[:] = variant.copies
    rng = np.random.default_rng(20_251_124)  # fixed keys: the same call explores the same nodes
    zob1 = rng.integers(1, 2**63, size=geo.cells.shape[:2], dtype=np.int64).astype(np.uint64)
    zob2 = rng.integers(1, 2**63, size=geo.cells.shape[:2], dtype=np.int64).astype(np.uint64)
    plan_code = np.full(k, -1, dtype=np.int32)
    best, length, nodes, open_bound, cuts = _interruptible(
        _free_dfs,
        avail,
        k,
        _level_limit(levels, k),
        geo.cells,
        geo.area,
        geo.bits,
        geo.ring,
        geo.nplace,
        geo.canonical,
        zob1,
        zob2,
        table_bits,
        node_limit,
        plan_code,
    )
    most = geo.cells.shape[1]
    placed = [(int(c) // most, int(geo.actions[int(c) // most, int(c) % most])) for c in plan_code[:length]]
    plan = _complete_free_plan(variant, placed, grid, levels)
    state = replay_free(plan, grid, levels)
    proven = open_bound < 0
    if state.score < best or (proven and state.score != best):
        raise AssertionError(f"search claims {best} on F-{variant} but its plan replays to {state.score}")
    score = int(state.score)
    return OracleResult(
        score=score,
        bound=score if proven else int(max(score, open_bound)),
        plan=tuple(plan),
        seconds=time.perf_counter() - start_wall,
        stats={
            "method": "dfs",
            "nodes": int(nodes),
            "node_limit": node_limit,
            "proven": proven,
            "transpositions": int(cuts),
            "discarded": int(state.discarded),
        },
    )


def _complete_free_plan(
    variant: Variant, placed: list[tuple[int, int]], grid: int, levels: int | None
) -> list[tuple[int, int | None]]:
    """The search's placements, then the ``k`` cards' missing ones: a card that fits somewhere is
    placed (so the plan discards only when nothing left fits), else it is dealt and discarded."""
    plan: list[tuple[int, int | None]] = list(placed)
    left = list(variant.full_deck)
    for value, _ in placed:
        left.remove(value)
    while len(plan) < variant.cards:
        choice: tuple[int, int | None] | None = None
        for value in sorted(set(left), reverse=True):
            state = replay_free(plan + [(value, None)], grid, levels, last_open=True)
            if not state.done:
                # Its highest spot: after a finished search no spot scores, after a stopped one
                # the points are welcome.
                choice = (value, max(state.legal_actions(), key=state.level_of))
                break
        if choice is None:
            choice = (max(left), None)
        left.remove(choice[0])
        plan.append(choice)
    return plan


def replay_free(
    plan: Iterable[tuple[int, int | None]], grid: int, levels: int | None = None, last_open: bool = False
) -> Nmbr9State:
    """Replay a free-draft plan ``((value, action or None), ...)`` through the engine. ``None`` marks
    a card the engine must discard (it fits nowhere); raises ``ValueError`` when it would not, or on
    an illegal action. ``last_open`` leaves the last card undecided (the state waits for it)."""
    pairs = list(plan)
    deal = Deal(tuple(int(v) for v, _ in pairs))
    state = Nmbr9State(deal, grid, levels)
    for turn, (_, action) in enumerate(pairs):
        if state.turn > turn:
            if action is not None:
                raise ValueError(f"card {turn} fits nowhere: the engine discards it, yet the plan places it")
            continue  # discarded by the engine, as the plan says
        if last_open and turn == len(pairs) - 1:
            break
        if action is None:
            raise ValueError(f"card {turn} fits somewhere: the rules do not allow discarding it")
        state.apply(action)
    return state


def check_free_plan(variant: Variant, result: OracleResult, grid: int, levels: int | None = None) -> bool:
    """True if a free-draft result's plan deals ``k`` cards of the variant and replays (discards
    included) to its score."""
    try:
        parse_deal("".join(str(int(v)) for v, _ in result.plan), variant)
        state = replay_free(result.plan, grid, levels)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state.done and state.score == result.score <= result.bound


# ---------------------------------------------------------------------------------------------------
# Benchmark


def _timed(call) -> tuple[OracleResult, float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = call()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def bench_exact(
    deals: int = 20,
    cards: Sequence[int] = (6, 7, 8),
    grid: int = 8,
    levels: int = 3,
    seed: int = 0,
    free_variant: str = "6-2-5",
    free_grid: int = 6,
    free_levels: int = 3,
    node_limit: int = DEFAULT_NODE_LIMIT,
) -> dict:
    """Proof times of the exact search, as a JSON-ready dict.

    ``known[str(n)]``: ``deals`` seeded random known-draft deals of ``n`` cards (the first ``n``
    cards of a shuffled standard deck, drawn from ``numpy.random.default_rng([seed, n])``) on
    ``grid`` with ``levels``: median and max CPU seconds (``time.process_time``, this process only)
    and wall seconds, median and max nodes, the share proven optimal, and each deal's score.
    ``free``: the free draft ``free_variant`` on ``free_grid`` with ``free_levels``. The numba code
    is compiled (or loaded from its cache) before anything is timed."""
    deals = check_int("deals", deals, 1)
    solve_known(Deal((1, 2, 3)), 4, 2)
    solve_free(Variant(2, 1, 2), 4, 2)
    out: dict = {"grid": grid, "levels": levels, "seed": seed, "node_limit": node_limit, "known": {}}
    for n in cards:
        rng = np.random.default_rng([seed, n])
        rows = []
        for _ in range(deals):
            deal = random_deal(rng, Variant(MAX_VALUE, 2, n))
            result, cpu, wall = _timed(lambda deal=deal: solve_known(deal, grid, levels, node_limit))
            rows.append((str(deal), result, cpu, wall))
        out["known"][str(n)] = {
            "median_cpu_s": statistics.median(r[2] for r in rows),
            "max_cpu_s": max(r[2] for r in rows),
            "median_wall_s": statistics.median(r[3] for r in rows),
            "max_wall_s": max(r[3] for r in rows),
            "median_nodes": statistics.median(r[1].stats["nodes"] for r in rows),
            "max_nodes": max(r[1].stats["nodes"] for r in rows),
            "proven": sum(r[1].stats["proven"] for r in rows) / len(rows),
            "scores": {r[0]: r[1].score for r in rows},
        }
    result, cpu, wall = _timed(lambda: solve_free(free_variant, free_grid, free_levels, node_limit))
    out["free"] = {
        "variant": f"F-{free_variant}",
        "grid": free_grid,
        "levels": free_levels,
        "score": result.score,
        "bound": result.bound,
        "proven": result.stats["proven"],
        "cpu_s": cpu,
        "wall_s": wall,
        "nodes": result.stats["nodes"],
    }
    return out

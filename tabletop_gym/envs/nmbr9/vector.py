"""A native vector environment for Nmbr9: N games stepped in one compiled numba call.

``gym.make_vec("tabletop/Nmbr9-v0", num_envs=N)`` returns it (the id's ``vector_entry_point``).
Sub-environment i behaves as ``gym.make("tabletop/Nmbr9-v0")`` would inside Gymnasium's
``SyncVectorEnv``: the same observations, rewards, terminations and infos, with next-step autoreset.

The rules are stepped by a separate kernel (``_step``), not by the engine (``rules.py``): the engine's
mask costs a numpy gather over every placement of the tile (tens of microseconds a move), which a
batch of one through the kernel would not remove from the engine's other users (the oracles, the
agents, replays). Tests check the kernel against the engine move by move.

The mask is the costly part of a move, so the kernel keeps the board as bitboards, one per level:
row r of level L has bit c set where cell (r, c) holds at least L tiles. For a tile's rotation and an
anchor row, one AND of shifted rows gives every anchor column where the tile would lie flat on level
L, one OR whether it touches a tile of that level, and one OR over seam bitboards (bit c: the cells
on either side of an edge have different top tiles) whether it rests on two different tiles: a few
hundred word operations a level instead of a pass over every cell of every placement.

The deals are the single environment's: sub-environment i has its own generator, seeded as the single
environment seeds its own (``reset(seed=s)`` seeds sub-environment i with ``s + i``), and its deals are
drawn from it by the same shuffle, many at a time (``Generator.permuted`` on a block of decks gives the
same decks, and leaves the generator in the same state, as that many ``shuffle`` calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from tabletop_gym.core import (
    MAX_NUM_ENVS,
    IllegalActionError,
    NativeVectorEnv,
    ReturnedArrays,
    call_kernel,
    check_int,
    compile_kernel,
    sigint_deferred,
    vector_actions,
)
from tabletop_gym.envs.nmbr9.env import Nmbr9Env
from tabletop_gym.envs.nmbr9.rules import (
    MAX_VALUE,
    NUM_ROTATIONS,
    Deal,
    Nmbr9Rules,
    Variant,
    distinct_rotations,
    parse_deal,
    tile_rotations,
    why_illegal,
)

DEALS_AHEAD = 64  # deals drawn at a time per sub-environment: one numpy call per 64 games
MAX_CELLS = 10  # the 0 covers ten cells, the most of any tile
# A row of a tile's bounding box is a pattern of columns 0-3, written as bits (``"#.#"`` is 0b101);
# pattern 0, the missing rows below a box 2 or 3 rows high, lies flat everywhere and touches nothing,
# so every rotation is read as four rows. The tile's own edges are patterns too: per row, the
# columns whose cell joins the one on its right, and those whose cell joins the one below.
PATTERNS = 16
# Kernel status codes for a bad action (the first sub-environment at fault is reported).
NOT_AN_ACTION, NOT_LEGAL = 1, 2

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_NONE = np.uint64(0)
# The lowest set bit's index of a 64-bit word: a de Bruijn sequence multiplied by that bit has a
# different top six bits for each of the 64 bits (numba has no count-trailing-zeros of its own).
_DE_BRUIJN = 0x03F79D71B4CB0A89
_LOWEST_BIT = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _LOWEST_BIT[((_DE_BRUIJN << _bit) & 0xFFFFFFFFFFFFFFFF) >> 58] = _bit


def _shapes() -> tuple[np.ndarray, ...]:
    """The engine's tiles as kernel tables, per value and rotation: the patterns of each row of the
    bounding box (0 below a box of 2 or 3 rows): its cells, its cells that join the one on their
    right, its cells that join the one below; the box's height and width, the cells ``(row, col)``
    from the box's top-left corner, and whether the rotation is an action (the 0's and the 8's
    half-turned footprints are not)."""
    row_pattern = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS, 4), dtype=np.int64)
    right_pattern = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS, 4), dtype=np.int64)
    below_pattern = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS, 4), dtype=np.int64)
    box = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS, 2), dtype=np.int64)
    cells = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS, MAX_CELLS, 2), dtype=np.int64)
    num_cells = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS), dtype=np.int64)
    distinct = np.zeros((MAX_VALUE + 1, NUM_ROTATIONS), dtype=np.bool_)
    for value in range(MAX_VALUE + 1):
        for rotation, shape in enumerate(tile_rotations(value)):
            box[value, rotation] = (max(r for r, _ in shape) + 1, max(c for _, c in shape) + 1)
            cells[value, rotation, : len(shape)] = shape
            num_cells[value, rotation] = len(shape)
            distinct[value, rotation] = rotation in distinct_rotations(value)
            for r, c in shape:
                row_pattern[value, rotation, r] |= 1 << c
                if (r, c + 1) in shape:
                    right_pattern[value, rotation, r] |= 1 << c
                if (r + 1, c) in shape:
                    below_pattern[value, rotation, r] |= 1 << c
    return row_pattern, right_pattern, below_pattern, box, cells, num_cells, distinct


# Pattern p's lowest column: each pattern's row of a table is the one of p without it, and one more
# shifted row (see ``_fill_patterns``).
_LOWEST_COLUMN = np.array([0] + [(p & -p).bit_length() - 1 for p in range(1, PATTERNS)], dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _fill_patterns(table, s, x, lowest_column, join_all):
    """Row s of a pattern table for the board row ``x``: ``table[s, p]`` joins ``x >> c`` over the
    columns c of pattern p, by AND (``join_all``: the anchor columns where p lies wholly on x's cells)
    or by OR (where p covers one of them). ``table[s, 0]`` is left as it is."""
    for p in range(1, PATTERNS):
        rest = p & (p - 1)
        shifted = x >> np.uint64(lowest_column[p])
        if rest == 0:
            table[s, p] = shifted
        elif join_all:
            table[s, p] = table[s, rest] & shifted
        else:
            table[s, p] = table[s, rest] | shifted


@numba.njit(cache=True, nogil=True)
def _mark_seams(i, row, col, grid, top_tile, seam_right, seam_below):
    """Redraw the seams around cell (row, col): bit c of ``seam_right[i, r + 1]`` says cells (r, c)
    and (r, c + 1) have different top tiles, bit c of ``seam_below[i, r + 1]`` the same of (r, c) and
    (r + 1, c)."""
    for r, c in ((row, col - 1), (row, col)):
        if 0 <= c < grid - 1:
            bit = _ONE << np.uint64(c)
            if top_tile[i, r, c] != top_tile[i, r, c + 1]:
                seam_right[i, r + 1] |= bit
            else:
                seam_right[i, r + 1] &= ~bit
    for r, c in ((row - 1, col), (row, col)):
        if 0 <= r < grid - 1:
            bit = _ONE << np.uint64(c)
            if top_tile[i, r, c] != top_tile[i, r + 1, c]:
                seam_below[i, r + 1] |= bit
            else:
                seam_below[i, r + 1] &= ~bit


@numba.njit(cache=True, nogil=True, inline="always")
def _legal(i, value, grid, levels, top_level, at_least, seams, shapes, lowest_bit, mask, scratch):
    """Mark in ``mask[i]`` every legal placement of tile ``value`` on sub-environment i's board (as
    ``Nmbr9State.placement_levels``); returns how many there are.

    For each level L: ``flat`` rows (cells of height exactly L), ``near`` rows (cells beside a cell
    higher than L: a tile lying flat on L touches a tile of level L exactly where it covers one of
    them). For every pattern of columns and board row, the anchor columns where the pattern lies
    wholly on ``flat`` cells (``on_flat``) and where it covers a ``near`` cell (``on_near``); a
    rotation at anchor row r is then one AND (and one OR) of its rows' patterns. Only the anchor rows
    that can hold a legal placement are searched: those whose rows all have flat cells and, where the
    tile must touch, that reach a ``near`` row. Above the table a tile rests on two different tiles
    exactly where one of its own edges lies on a seam between two: ``on_right`` and ``on_below`` are
    the pattern tables of the seam rows, read with the patterns of the tile's edges.
    """
    row_pattern, right_pattern, below_pattern, box, cells, num_cells, distinct = shapes
    seam_right, seam_below = seams
    flat, near, on_flat, on_near, on_right, on_below, lowest_column = scratch
    mask[i, :] = 0
    area = grid * grid
    full = _ALL >> np.uint64(64 - grid)
    highest = top_level[i]
    if levels > 0 and highest > levels - 1:
        highest = levels - 1
    count = 0
    for level in range(highest + 1):
        # Row s holds grid row s - 1: rows 0 and grid + 1 are the empty rows beside the grid.
        first, last = grid + 1, 0
        for s in range(1, grid + 1):
            low = full if level == 0 else at_least[i, level, s]
            flat[s] = low & ~at_least[i, level + 1, s]
            if flat[s] != 0:
                if s < first:
                    first = s
                last = s
        if last == 0:
            continue
        # Unless it is the first tile of its level, a tile must touch a tile of that level.
        touch = level < top_level[i]
        near_first, near_last = 1, grid
        if touch:
            # Only the rows with flat cells are read: a placement lies wholly on them.
            near_first, near_last = grid + 1, 0
            for s in range(first, last + 1):
                above = at_least[i, level + 1, s]
                beside = (above << _ONE) | (above >> _ONE) | at_least[i, level + 1, s - 1]
                near[s] = (beside | at_least[i, level + 1, s + 1]) & full
                if near[s] != 0:
                    if s < near_first:
                        near_first = s
                    near_last = s
            if near_last == 0:
                continue
        # The board rows any placement searched below reads (a box is at most 4 rows high).
        top = max(first, near_first - 3)
        bottom = min(last, near_last + 3)
        for s in range(top, bottom + 1):
            _fill_patterns(on_flat, s, flat[s], lowest_column, True)
            if touch:
                _fill_patterns(on_near, s, near[s], lowest_column, False)
            if level > 0:
                _fill_patterns(on_right, s, seam_right[i, s], lowest_column, False)
                _fill_patterns(on_below, s, seam_below[i, s], lowest_column, False)
        for rotation in range(NUM_ROTATIONS):
            if not distinct[value, rotation]:
                continue
            height = box[value, rotation, 0]
            anchors = full >> np.uint64(box[value, rotation, 1] - 1)  # columns 0 .. grid - width
            # Anchor row r covers rows s = r + 1 .. r + height: all within top .. bottom, and one
            # of them a near row where the tile must touch.
            r_first = top - 1
            r_last = min(bottom - height, grid - height)
            if touch:
                r_first = max(r_first, near_first - height)
                r_last = min(r_last, near_last - 1)
            p0, p1, p2, p3 = row_pattern[value, rotation]
            for r in range(r_first, r_last + 1):
                legal = (
                    anchors
                    & on_flat[r + 1, p0]
                    & on_flat[r + 2, p1]
                    & on_flat[r + 3, p2]
                    & on_flat[r + 4, p3]
                )
                if legal == 0:
                    continue
                if touch:
                    legal &= on_near[r + 1, p0] | on_near[r + 2, p1] | on_near[r + 3, p2] | on_near[r + 4, p3]
                if level > 0 and legal != 0:
                    h0, h1, h2, h3 = right_pattern[value, rotation]
                    v0, v1, v2, v3 = below_pattern[value, rotation]
                    legal &= (
                        on_right[r + 1, h0]
                        | on_right[r + 2, h1]
                        | on_right[r + 3, h2]
                        | on_right[r + 4, h3]
                        | on_below[r + 1, v0]
                        | on_below[r + 2, v1]
                        | on_below[r + 3, v2]
                        | on_below[r + 4, v3]
                    )
                while legal != 0:
                    bit = legal & (~legal + _ONE)
                    legal ^= bit
                    c = lowest_bit[(bit * np.uint64(_DE_BRUIJN)) >> np.uint64(58)]
                    mask[i, rotation * area + r * grid + c] = 1
                    count += 1
    return count


@numba.njit(cache=True, nogil=True, inline="always")
def _advance(i, grid, levels, game, board, shapes, lowest_bit, mask, scratch):
    """Sub-environment i's current card: its legal placements, after discarding every card in turn
    that fits nowhere (as ``Nmbr9State._skip_unplaceable``); the observation's card, unseen counts
    and cards left follow. A game with no card left is over."""
    cards, turn, score, discarded, top_level, over = game
    at_least, height, top_value, top_tile, card, unseen, cards_left, seam_right, seam_below = board
    num_cards = cards.shape[1]
    while turn[i] < num_cards:
        seams = (seam_right, seam_below)
        if _legal(i, cards[i, turn[i]], grid, levels, top_level, at_least, seams, shapes, lowest_bit, mask,
                  scratch) > 0:  # fmt: skip
            break
        discarded[i] += 1
        turn[i] += 1
        if turn[i] < num_cards:
            unseen[i, cards[i, turn[i]]] -= 1
    if turn[i] >= num_cards:
        over[i] = True
        mask[i, :] = 0
        card[i, 0] = -1
        cards_left[i, 0] = 0
    else:
        card[i, 0] = cards[i, turn[i]]
        cards_left[i, 0] = num_cards - turn[i] - 1


@numba.njit(cache=True, nogil=True)
def _start(i, deck, copies, game, board):
    """Sub-environment i starts the deal ``deck`` (the card values in draw order) on an empty board
    (``_advance`` then finds its first card's placements)."""
    cards, turn, score, discarded, top_level, over = game
    at_least, height, top_value, top_tile, card, unseen, cards_left, seam_right, seam_below = board
    cards[i, :] = deck
    height[i] = 0
    top_value[i] = -1
    top_tile[i] = -1
    at_least[i] = 0
    seam_right[i] = 0
    seam_below[i] = 0
    unseen[i, :] = copies
    unseen[i, cards[i, 0]] -= 1
    turn[i] = 0
    score[i] = 0
    discarded[i] = 0
    top_level[i] = 0
    over[i] = False


@numba.njit(cache=True, nogil=True)
def _start_all(slots, deals, next_deal, grid, levels, copies, game, board, shapes, lowest_bit, mask,
               scratch):  # fmt: skip
    for i in range(mask.shape[0]):
        _start(i, deals[i, slots[i]], copies, game, board)
        _advance(i, grid, levels, game, board, shapes, lowest_bit, mask, scratch)


@numba.njit(cache=True, nogil=True)
def _step(actions, deals, next_deal, grid, levels, copies, game, board, shapes, lowest_bit, mask,
          scratch, rewards, terminated, restarted, fault):  # fmt: skip
    """One placement in every sub-environment (next-step autoreset: a finished one starts its next deal
    and ignores its action). Returns -1, or the first sub-environment whose action is illegal, before
    any sub-environment has moved (``fault[0]`` then says why)."""
    cards, turn, score, discarded, top_level, over = game
    at_least, height, top_value, top_tile, card, unseen, cards_left, seam_right, seam_below = board
    cells, num_cells = shapes[4], shapes[5]
    n = mask.shape[0]
    area = grid * grid
    for i in range(n):
        if over[i]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_ROTATIONS * area:
            fault[0] = NOT_AN_ACTION
            return i
        if mask[i, a] == 0:
            fault[0] = NOT_LEGAL
            return i
    for i in range(n):
        restarted[i] = over[i]
        if over[i]:
            _start(i, deals[i, next_deal[i]], copies, game, board)
            next_deal[i] += 1
            rewards[i] = 0.0
        else:
            a = actions[i]
            rotation = a // area
            row = (a % area) // grid
            col = a % grid
            value = cards[i, turn[i]]
            level = height[i, row + cells[value, rotation, 0, 0], col + cells[value, rotation, 0, 1]]
            for k in range(num_cells[value, rotation]):
                r = row + cells[value, rotation, k, 0]
                c = col + cells[value, rotation, k, 1]
                height[i, r, c] = level + 1
                top_value[i, r, c] = value
                top_tile[i, r, c] = turn[i]
                at_least[i, level + 1, r + 1] |= _ONE << np.uint64(c)
            for k in range(num_cells[value, rotation]):
                r = row + cells[value, rotation, k, 0]
                c = col + cells[value, rotation, k, 1]
                _mark_seams(i, r, c, grid, top_tile, seam_right, seam_below)
            if level + 1 > top_level[i]:
                top_level[i] = level + 1
            points = value * level
            score[i] += points
            rewards[i] = points
            turn[i] += 1
            if turn[i] < cards.shape[1]:
                unseen[i, cards[i, turn[i]]] -= 1
        # One copy of _advance (inlined: the mask search) after either branch.
        _advance(i, grid, levels, game, board, shapes, lowest_bit, mask, scratch)
        # The step that starts the next deal ends nothing (reset never returns a finished game).
        terminated[i] = over[i] and not restarted[i]
    return -1


@numba.njit(cache=True, nogil=True)
def _choices(mask, over, out):
    """``action_masks()`` in ``out``: the legal placements as bools, every action where a finished game
    waits for its autoreset (one pass here: numpy's cast and boolean assignment cost more than the
    copy)."""
    for i in range(mask.shape[0]):
        if over[i]:
            out[i, :] = True
        else:
            for a in range(mask.shape[1]):
                out[i, a] = mask[i, a] != 0


class Nmbr9VectorEnv(NativeVectorEnv):
    """``num_envs`` games of Nmbr9 stepped together in one compiled call.

    Sub-environment i is ``Nmbr9Env`` (same observation, action, reward and info) under next-step
    autoreset: the step after a game's last card starts sub-environment i's next deal, ignores its
    action and returns reward 0. ``reset(seed=s)`` gives sub-environment i the deals of ``Nmbr9Env``
    reset with seed ``s + i`` (a list of seeds gives one to each); ``reset(options={"deal": ...})``
    starts one deal string in every sub-environment, or a list of them one each.

    Observations are the single environment's ``Dict``, batched: ``height``, ``top_value`` and
    ``top_tile`` ``(num_envs, grid, grid)``, ``card`` and ``cards_left`` ``(num_envs, 1)``, ``unseen``
    ``(num_envs, m + 1)``, all int16. ``infos`` hold, as ``SyncVectorEnv`` stacks them: ``action_mask``
    (``(num_envs, 4 * grid**2)`` int8, all zeros for a finished game), ``score``, ``turn``,
    ``discarded`` and ``deal`` (the deal string on a game's last step, ``""`` before, unless made with
    ``reveal_deal=True``), each with its ``_key`` array. ``action_masks()`` gives the bool mask, where
    a sub-environment waiting for its autoreset has every action legal (its action is ignored), so a
    loop choosing among the legal actions always has a choice. An illegal action raises
    ``IllegalActionError`` naming the sub-environment, before any sub-environment moves.

    Arguments: ``num_envs``; ``max_value``, ``copies``, ``cards``, ``grid``, ``levels`` and
    ``reveal_deal`` (as ``Nmbr9Env``, checked alike); ``render_mode`` (None only); ``copy`` (default
    True: the observations, masks and infos returned are arrays nothing else holds, never written
    again while the caller keeps them: ``core.ReturnedArrays`` reuses those the caller has dropped;
    False returns the environment's own observation arrays, overwritten by the next step).
    """

    def __init__(
        self,
        num_envs: int = 1,
        max_value: int = Variant.max_value,
        copies: int = Variant.copies,
        cards: int = Variant.cards,
        grid: int = Nmbr9Rules.grid,
        levels: int | None = Nmbr9Rules.levels,
        render_mode: str | None = None,
        reveal_deal: bool = False,
        copy: bool = True,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1, MAX_NUM_ENVS)
        # The single environment checks the arguments, naming each, as it does for gym.make.
        single = Nmbr9Env(
            max_value=max_value, copies=copies, cards=cards, grid=grid, levels=levels, reveal_deal=reveal_deal
        )
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector environment, got {render_mode!r}")
        self.render_mode = None
        self.variant, self.grid, self.levels = single.variant, single.grid, single.levels
        self.reveal_deal = single.reveal_deal
        self.copy = bool(copy)
        self.single_observation_space = single.observation_space
        self.single_action_space = spaces.Discrete(NUM_ROTATIONS * self.grid * self.grid)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n, g, k = self.num_envs, self.grid, self.variant.cards
        self._shapes = _shapes()
        self._cards = np.zeros((n, k), dtype=np.int8)
        self._turn = np.zeros(n, dtype=np.int64)
        self._score = np.zeros(n, dtype=np.int64)
        self._discarded = np.zeros(n, dtype=np.int64)
        self._top_level = np.zeros(n, dtype=np.int64)
        self._over = np.zeros(n, dtype=np.bool_)
        # Level L's bitboard (L = 1 .. k; a level a card, and one above the highest to read as empty).
        self._at_least = np.zeros((n, k + 2, g + 2), dtype=np.uint64)
        self._obs = {
            "height": np.zeros((n, g, g), dtype=np.int16),
            "top_value": np.zeros((n, g, g), dtype=np.int16),
            "top_tile": np.zeros((n, g, g), dtype=np.int16),
            "card": np.zeros((n, 1), dtype=np.int16),
            "unseen": np.zeros((n, self.variant.max_value + 1), dtype=np.int16),
            "cards_left": np.zeros((n, 1), dtype=np.int16),
        }
        self._mask = np.zeros((n, NUM_ROTATIONS * g * g), dtype=np.int8)
        # Where two edge-adjacent cells have different top tiles (see ``_mark_seams``).
        self._seam_right = np.zeros((n, g + 2), dtype=np.uint64)
        self._seam_below = np.zeros((n, g + 2), dtype=np.uint64)
        # The kernel's working rows for one level's search (see ``_legal``): the flat and near rows, and
        # the pattern tables, down to row grid + 3 (the fourth row of a box two rows high on the
        # grid's last two), where pattern 0 (a missing row of a box) lies flat everywhere and touches
        # nothing.
        on_flat = np.zeros((g + 4, PATTERNS), dtype=np.uint64)
        on_flat[:, 0] = _ALL
        self._scratch = (
            np.zeros(g + 2, dtype=np.uint64),
            np.zeros(g + 2, dtype=np.uint64),
            on_flat,
            np.zeros((g + 4, PATTERNS), dtype=np.uint64),
            np.zeros((g + 4, PATTERNS), dtype=np.uint64),
            np.zeros((g + 4, PATTERNS), dtype=np.uint64),
            _LOWEST_COLUMN,
        )
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._restarted = np.zeros(n, dtype=np.bool_)
        self._fault = np.zeros(1, dtype=np.int64)
        self._deals = np.zeros((n, DEALS_AHEAD + 1, k), dtype=np.int8)
        self._texts = np.full((n, DEALS_AHEAD + 1), "", dtype=object)
        self._next_deal = np.full(n, DEALS_AHEAD, dtype=np.int64)
        self._deal_text = np.full(n, "", dtype=object)
        self._hidden = np.full(n, "", dtype=object)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._started = False
        self._all = np.ones(n, dtype=np.bool_)
        self._returned = ReturnedArrays()

    # -- Gymnasium API -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        n = self.num_envs
        self._seed_generators(seed, DEALS_AHEAD)
        given = self._given_deals(options)
        slots = self._start_slots(given, DEALS_AHEAD)
        if given is not None:
            for i, deal in enumerate(given):
                self._deals[i, DEALS_AHEAD] = deal.cards
                self._texts[i, DEALS_AHEAD] = str(deal)
        self._deal_text[:] = self._texts[np.arange(n), slots]
        call_kernel(_start_all, slots, *self._kernel_state())
        if not self._started:
            compile_kernel(_choices, self._mask, self._over, self._mask.astype(np.bool_))
            compile_kernel(
                _step,
                slots,
                *self._kernel_state(),
                self._rewards,
                self._terminated,
                self._restarted,
                self._fault,
            )
        self._refill()
        self._started = True
        return self._observation(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_started("step()")
        actions = vector_actions(actions, self.num_envs, "placement indices")
        with sigint_deferred():  # compiled at the first reset: call_kernel's typing per step would cost more
            bad = _step(
                actions, *self._kernel_state(), self._rewards, self._terminated, self._restarted, self._fault
            )
        if bad >= 0:
            self._raise_illegal(bad, actions[bad])
        restarted = np.flatnonzero(self._restarted)
        if restarted.size:
            self._deal_text[restarted] = self._texts[restarted, self._next_deal[restarted] - 1]
            self._refill()
        return self._step_result(self._observation(), self._infos())

    # -- helpers -------------------------------------------------------------------------------

    def _legal_actions(self) -> np.ndarray:
        out = self._returned.take("action_masks", self._mask.shape, np.bool_)
        _choices(self._mask, self._over, out)
        return out

    def _kernel_state(self) -> tuple[Any, ...]:
        obs = self._obs
        game = (self._cards, self._turn, self._score, self._discarded, self._top_level, self._over)
        board = (
            self._at_least, obs["height"], obs["top_value"], obs["top_tile"], obs["card"], obs["unseen"],
            obs["cards_left"], self._seam_right, self._seam_below,
        )  # fmt: skip
        return (
            self._deals, self._next_deal, self.grid, 0 if self.levels is None else self.levels,
            self.variant.copies, game, board, self._shapes, _LOWEST_BIT, self._mask, self._scratch,
        )  # fmt: skip

    def _observation(self) -> dict[str, np.ndarray]:
        if not self.copy:
            return self._obs
        return {key: self._returned.copy_of(key, array) for key, array in self._obs.items()}

    def _infos(self) -> dict[str, Any]:
        if self.reveal_deal:
            deal = self._deal_text.copy()
        else:
            # As the single environment: the draw order only once the game is over.
            deal = self._hidden.copy()
            shown = np.flatnonzero(self._over)
            deal[shown] = self._deal_text[shown]
        return {
            "action_mask": self._returned.copy_of("action_mask", self._mask),
            "_action_mask": self._all.copy(),
            "score": self._score.copy(),
            "_score": self._all.copy(),
            "turn": self._turn.copy(),
            "_turn": self._all.copy(),
            "discarded": self._discarded.copy(),
            "_discarded": self._all.copy(),
            "deal": deal,
            "_deal": self._all.copy(),
        }

    def _given_deals(self, options: dict[str, Any] | None) -> list[Deal] | None:
        deals = Nmbr9Env._deal_option(options)
        if deals is None:
            return None
        deals = self._deal_each(deals, (str, Deal))
        # A Deal object is checked like a deal string: it must be a deal of this variant.
        return [parse_deal(str(d) if isinstance(d, Deal) else d, self.variant) for d in deals]

    def _draw(self, which: np.ndarray) -> None:
        """The next ``DEALS_AHEAD`` deals of each sub-environment in ``which``, drawn as the single
        environment draws its deals one reset after the other (``rules.random_deal``)."""
        block = np.tile(np.array(self.variant.full_deck, dtype=np.int8), (DEALS_AHEAD, 1))
        k = self.variant.cards
        for i in which:
            shuffled = self._rngs[i].permuted(block, axis=1)[:, :k]
            self._deals[i, :DEALS_AHEAD] = shuffled
            # The deal strings, the whole block at once: card values are the digits 0-9.
            text = (shuffled + ord("0")).astype(np.uint8).view(f"S{k}")
            self._texts[i, :DEALS_AHEAD] = text[:, 0].astype(str)
        self._next_deal[which] = 0

    def _refill(self) -> None:
        """Keep a drawn deal ready for every sub-environment's next start."""
        empty = np.flatnonzero(self._next_deal >= DEALS_AHEAD)
        if empty.size:
            self._draw(empty)

    def _raise_illegal(self, i: int, action: int) -> None:
        legal = np.flatnonzero(self._mask[i]).tolist()
        if self._fault[0] == NOT_AN_ACTION:
            why = f"not an action index 0..{self._mask.shape[1] - 1}"
        else:
            value = int(self._cards[i, self._turn[i]])
            board = self._obs
            why = why_illegal(value, int(action), board["height"][i], board["top_tile"][i], self.levels)
        raise IllegalActionError(int(action), legal, f"in sub-environment {i}: {why}")

"""Exact oracle for solitaire Cribbage: the best possible score of a deal, with a plan.

Where one stack ends the past stops mattering: a position with an empty stack is fully described by
how many cards each pile has given (at most 14**4 = 38,416 positions). The dynamic program works
stack by stack:

    V(h) = max over every complete stack S playable from h of points(S) + V(h after S)

where a complete stack is a sequence of legal moves that ends exactly when no top card fits (the
forced-play rule). Positions are solved from the end of the game backwards, each by an exhaustive
depth-first walk over its stacks; the walk and the scoring are compiled with numba. The kernel has
its own compact model of the scoring rules; every plan it returns is replayed through the engine
(``tabletop_gym.envs.cribbage.rules``) before it is reported, so a kernel bug shows up as an error,
never as a wrong number.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.envs.cribbage.rules import NUM_PILES, Deal, parse_deal, replay, value_of

GAME = "cribbage"
_BASE = 14  # positions per pile: 0..13 cards played
_MAX_DEPTH = 16  # a stack holds at most 13 cards (four each of A, 2, 3 and one 4 is already 28)
_STRIDE = np.array([1, _BASE, _BASE**2, _BASE**3], dtype=np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _points(stack: np.ndarray, n: int, total: int) -> int:
    """The kernel's own scoring of the card ``stack[n - 1]`` (the engine's ``score_card``)."""
    card = stack[n - 1]
    if n == 1:
        return 2 if card == 11 else 0  # one card totals at most 10: neither 15 nor 31
    points = 2 if total == 15 or total == 31 else 0
    if stack[n - 2] == card:
        # A pair ends every run, so only the length of the set matters.
        same = 2
        while same < n and stack[n - 1 - same] == card:
            same += 1
        return points + (6 if same == 3 else (12 if same == 4 else 2))
    seen = (1 << card) | (1 << stack[n - 2])
    low = min(card, stack[n - 2])
    high = max(card, stack[n - 2])
    run = 0
    for k in range(3, n + 1):
        rank = stack[n - k]
        bit = 1 << rank
        if seen & bit:
            break
        seen |= bit
        if rank < low:
            low = rank
        elif rank > high:
            high = rank
        if high - low > 6:
            break  # a run spans at most 7 ranks (A..8 would total 36)
        if high - low == k - 1:
            run = k
    return points + run


@numba.njit(cache=True, nogil=True)
def _solve_position(root, ranks, values, sizes, value, stack_moves, stack_len):
    """Solve one empty-stack position from the values of the positions after it.

    ``ranks[p, i]`` / ``values[p, i]`` describe the i-th card of pile p (top first; past the end the
    value is 99, so it never fits). Writes ``value[root]``, ``stack_moves[root]`` (pile indices of
    the best stack, 2 bits each, first move lowest) and ``stack_len[root]``; returns the number of
    stack prefixes walked.
    """
    h = np.empty(4, dtype=np.int64)
    top = np.empty(4, dtype=np.int64)  # value of each pile's top card (99 when empty)
    x = root
    for p in range(4):
        h[p] = x % _BASE
        top[p] = values[p, h[p]]
        x //= _BASE
    stack = np.empty(_MAX_DEPTH, dtype=np.int64)
    moves = np.empty(_MAX_DEPTH, dtype=np.int64)
    totals = np.empty(_MAX_DEPTH + 1, dtype=np.int64)
    gained = np.empty(_MAX_DEPTH + 1, dtype=np.int64)
    todo = np.empty(_MAX_DEPTH + 1, dtype=np.int64)  # piles still to try at each depth (bitmask)
    idx = root
    best = -1
    best_moves = 0
    best_len = 0
    visited = 0
    d = 0
    totals[0] = 0
    gained[0] = 0
    todo[0] = 0
    for p in range(4):
        if top[p] <= 31:
            todo[0] |= 1 << p
    if todo[0] == 0:
        value[root] = 0  # every card has been played
        return 0
    while True:
        mask = todo[d]
        if mask != 0:
            p = 0
            while not (mask >> p) & 1:
                p += 1
            todo[d] = mask & (mask - 1)
            t = totals[d] + top[p]
            moves[d] = p
            stack[d] = ranks[p, h[p]]
            h[p] += 1
            top[p] = values[p, h[p]]
            idx += _STRIDE[p]
            totals[d + 1] = t
            gained[d + 1] = gained[d] + _points(stack, d + 1, t)
            d += 1
            visited += 1
            room = 31 - t
            nxt = 0
            for q in range(4):
                if top[q] <= room:
                    nxt |= 1 << q
            if nxt == 0:
                # No top card fits: the stack ends and a new one starts here.
                total_value = gained[d] + value[idx]
                if total_value > best:
                    best = total_value
                    best_len = d
                    best_moves = 0
                    for i in range(d):
                        best_moves |= moves[i] << (2 * i)
            else:
                todo[d] = nxt
                continue
        else:
            if d == 0:
                break
        d -= 1
        p = moves[d]
        h[p] -= 1
        top[p] = values[p, h[p]]
        idx -= _STRIDE[p]
    value[root] = best
    stack_moves[root] = best_moves
    stack_len[root] = best_len
    return visited


@numba.njit(cache=True, parallel=True)
def _solve_tables(ranks, values, sizes, layers, layer_starts, lanes):
    """Every empty-stack position, layer by layer from the end of the game backwards.

    A layer holds the positions with the same number of cards played; a position only depends on
    later layers, so each layer is solved in parallel.
    """
    n_states = _BASE**4
    value = np.full(n_states, -1, dtype=np.int32)
    stack_moves = np.zeros(n_states, dtype=np.int64)
    stack_len = np.zeros(n_states, dtype=np.int8)
    n_layers = layer_starts.shape[0] - 1
    visited = 0
    for layer in range(n_layers - 1, -1, -1):
        lo = layer_starts[layer]
        hi = layer_starts[layer + 1]
        # Interleaved lanes, one per thread: neighbouring positions cost alike, contiguous halves do not.
        count = np.zeros(lanes, dtype=np.int64)
        for lane in numba.prange(lanes):
            for j in range(lo + lane, hi, lanes):
                count[lane] += _solve_position(layers[j], ranks, values, sizes, value, stack_moves, stack_len)
        visited += count.sum()
    return value, stack_moves, stack_len, visited


def _layers(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position indices grouped by cards played (CSR layout: ``layers[starts[n]:starts[n+1]]``)."""
    grids = np.meshgrid(*[np.arange(int(s) + 1) for s in sizes], indexing="ij")
    heights = np.stack([g.ravel() for g in grids], axis=1)
    index = heights @ _STRIDE
    played = heights.sum(axis=1)
    order = np.argsort(played, kind="stable")
    starts = np.searchsorted(played[order], np.arange(int(sizes.sum()) + 2))
    return index[order].astype(np.int64), starts.astype(np.int64)


def _deal_arrays(deal: Deal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ranks = np.zeros((NUM_PILES, 14), dtype=np.int64)
    values = np.full((NUM_PILES, 14), 99, dtype=np.int64)  # past a pile's end nothing fits
    sizes = np.zeros(NUM_PILES, dtype=np.int64)
    for p, pile in enumerate(deal.piles):
        ranks[p, : len(pile)] = pile
        values[p, : len(pile)] = [value_of(r) for r in pile]
        sizes[p] = len(pile)
    return ranks, values, sizes


def solve(deal: Deal | str, pile_size: int | None = None) -> OracleResult:
    """The optimal score of ``deal`` and an optimal plan (pile index per move).

    ``deal`` is a :class:`Deal` or a deal string; for a reduced deal string pass ``pile_size``
    (it is inferred from the string when omitted). The result is always proven optimal.
    """
    deal = _as_deal(deal, pile_size)
    start = time.perf_counter()
    ranks, values, sizes = _deal_arrays(deal)
    lanes = numba.get_num_threads()
    value, stack_moves, stack_len, visited = _solve_tables(ranks, values, sizes, *_layers(sizes), lanes)
    plan: list[int] = []
    h = [0, 0, 0, 0]
    while len(plan) < deal.num_cards:
        idx = h[0] + _BASE * h[1] + _BASE**2 * h[2] + _BASE**3 * h[3]
        moves = int(stack_moves[idx])
        for i in range(int(stack_len[idx])):
            pile = (moves >> (2 * i)) & 3
            plan.append(pile)
            h[pile] += 1
    seconds = time.perf_counter() - start
    optimum = int(value[0])
    final = replay(deal, plan)
    if final.score != optimum:
        raise AssertionError(
            f"oracle kernel claims {optimum} but its plan replays to {final.score} on {deal}"
        )
    return OracleResult(
        score=optimum,
        bound=optimum,
        plan=tuple(plan),
        seconds=seconds,
        stats={"stack_nodes": int(visited)},
    )


def _as_deal(deal: Deal | str, pile_size: int | None) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if pile_size is None and isinstance(deal, str):
        pile_size = len(deal.split("/")[0])
    return parse_deal(deal, pile_size if pile_size is not None else 13)


def check(deal: Deal | str, result: OracleResult) -> bool:
    """True if ``result``'s plan replays through the engine to its score and claims optimality."""
    try:
        state = replay(_as_deal(deal, None), result.plan)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state.done and state.score == result.score and result.optimal


def solve_cached(deal: Deal | str, cache: OracleCache | None = None) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    deal = _as_deal(deal, None)
    cache = cache if cache is not None else OracleCache()
    variant = f"piles4x{deal.pile_size}"
    text = str(deal)
    return cache.solve(GAME, variant, text, lambda: solve(deal), lambda r: check(deal, r))

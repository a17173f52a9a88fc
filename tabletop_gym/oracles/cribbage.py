"""Exact oracle for solitaire Cribbage: the best possible score of a deal, with a plan.

Where one stack ends the past stops mattering: a position with an empty stack is fully described by
how many cards each pile has given (at most 14**4 = 38,416 positions). The dynamic program works
stack by stack:

    V(h) = max over every complete stack S playable from h of points(S) + V(h after S)

where a complete stack is a sequence of legal moves that ends exactly when no top card fits (the
forced-play rule). A solve has three steps, all compiled with numba:

1. ``_stack_ends``: which empty-stack positions the game can reach from the start and where each
   one's stacks can end. Whether a card fits depends only on the stack total, so the ends follow
   from how many cards a stack takes from each pile, not from the order it plays them in.
   Positions play never reaches are skipped (on seeds 1-20: 16-43% of the positions, holding
   21-74% of the stacks, about half at the median).
2. ``_walk_roots``: for every reachable position, an exhaustive depth-first walk over its complete
   stacks keeps the most points a stack can score on its way to each end. Positions do not depend
   on each other here, so this is one parallel region whose threads take positions from a shared
   counter (no barrier per layer, and a thread slowed by other work takes less). Each thread
   allocates its scratch once: allocating per position inside the parallel region cost the two
   threads about a fifth of their speed.
3. ``_values``: V from the end of the game backwards over those (position, end, points) edges.

The kernel has its own compact model of the scoring rules; every plan it returns is replayed
through the engine (``tabletop_gym.envs.cribbage.rules``) before it is reported, so a kernel bug
shows up as an error, never as a wrong number.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from tabletop_gym.core import (
    GameOverError,
    IllegalActionError,
    MoveValues,
    OracleCache,
    OracleResult,
    call_kernel,
)
from tabletop_gym.envs.cribbage.rules import (
    NUM_PILES,
    CribbageRules,
    CribbageState,
    Deal,
    parse_deal,
    replay,
    value_of,
)

GAME = "cribbage"
_BASE = 14  # positions per pile: 0..13 cards played
_MAX_DEPTH = 16  # a stack holds at most 13 cards (four each of A, 2, 3 and one 4 is already 28)
_STRIDE = np.array([1, _BASE, _BASE**2, _BASE**3], dtype=np.int64)
_CHUNK = 8  # roots a thread takes at a time: the shared counter is touched a few thousand times a solve


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of an integer (LLVM's ``ctpop``: one instruction on current CPUs)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


_SET_POINTS = np.array([0, 0, 2, 6, 12], dtype=np.int64)  # by cards of one rank on top of the stack


@numba.njit(cache=True, nogil=True, inline="always")
def _place(card, n, total, on, same, seen):
    """The kernel's own scoring (the engine's ``score_card``) of placing ``card`` as card ``n`` of
    the stack (1 for the first), which brings it to ``total``.

    It keeps what scoring needs card by card, so a card costs the same few steps wherever it
    lands: no loops back over the stack and no branches, which the walk would mispredict. ``on[i]``
    is the rank of card ``i`` (``on[0] = 0``), ``same[i]`` how many cards of that rank end the stack
    there (a pair, three or four of a kind), and ``seen[8 * i + j]`` the ranks (as bits) of its last
    ``j`` cards (all of them when fewer); this updates the three for card ``n``. The last ``k``
    cards are a run when they hold ``k`` distinct ranks (``k`` bits set, so there are ``k`` cards)
    with no gap between the lowest and the highest; only the longest run counts, and none is
    longer than 7 (A..8 would total 36).
    """
    bit = 1 << card
    row = 8 * n
    prior = row - 8
    on[n] = card
    count = same[n - 1] * (on[n - 1] == card) + 1
    same[n] = count
    seen[row + 1] = bit
    seen[row + 2] = seen[prior + 1] | bit
    run = 0
    for k in range(3, 8):
        ranks = seen[prior + k - 1] | bit
        if k < 7:
            seen[row + k] = ranks
        solid = (((ranks | (ranks - 1)) + 1) & ranks) == 0
        run = max(run, k * ((_popcount(ranks) == k) & solid))
    return run + _SET_POINTS[count] + 2 * ((total == 15) | (total == 31)) + 2 * ((n == 1) & (card == 11))


@numba.njit(cache=True, nogil=True)
def _stack_ends(values, order):
    """The empty-stack positions reachable from the start, each with the positions where its stacks end.

    From a root, a stack may take any number of cards from each pile as long as their values sum to
    at most 31 (every order of them is legal, values being positive), and it ends where no pile's
    next card fits. So the ends are found by counting cards per pile, not by walking orders of
    play: for each count from piles 0-2 the count from pile 3 is the most that still fits (a table
    lookup), and that is an end when no pile's next card fits the room left. ``order`` lists every
    position with fewer cards played first, so every root is known reachable (or not) before its
    turn. Returns the reachable roots in that order, ``end_ptr`` (CSR offsets per root) and ``ends``.
    """
    n_states = _BASE**4
    cum = np.zeros((4, _BASE + 1), dtype=np.int64)  # values of a pile's first k cards (99 past its end)
    for p in range(4):
        for k in range(_BASE):
            cum[p, k + 1] = cum[p, k] + values[p, k]
    most = np.zeros((_BASE, 32), dtype=np.int64)  # cards pile 3 gives from height h into room r
    for h3 in range(_BASE):
        for room in range(32):
            j = 0
            while cum[3, h3 + j + 1] - cum[3, h3] <= room:
                j += 1
            most[h3, room] = j
    reach = np.zeros(n_states, dtype=np.bool_)
    reach[0] = True
    roots = np.empty(n_states, dtype=np.int32)
    end_ptr = np.zeros(n_states + 1, dtype=np.int64)
    ends = np.empty(16 * n_states, dtype=np.int32)  # full deals need 300,000-500,000
    n_ends = 0
    n_roots = 0
    for i in range(order.shape[0]):
        root = order[i]
        if not reach[root]:
            continue
        roots[n_roots] = root
        h0 = root % _BASE
        h1 = root // _BASE % _BASE
        h2 = root // _BASE**2 % _BASE
        h3 = root // _BASE**3
        j0 = 0
        while cum[0, h0 + j0] - cum[0, h0] <= 31:
            used0 = cum[0, h0 + j0] - cum[0, h0]
            j1 = 0
            while used0 + cum[1, h1 + j1] - cum[1, h1] <= 31:
                used1 = used0 + cum[1, h1 + j1] - cum[1, h1]
                j2 = 0
                while used1 + cum[2, h2 + j2] - cum[2, h2] <= 31:
                    room = 31 - (used1 + cum[2, h2 + j2] - cum[2, h2])
                    j3 = most[h3, room]
                    left = room - (cum[3, h3 + j3] - cum[3, h3])
                    if (
                        values[0, h0 + j0] > left
                        and values[1, h1 + j1] > left
                        and values[2, h2 + j2] > left
                        and j0 + j1 + j2 + j3 > 0
                    ):
                        if n_ends == ends.shape[0]:
                            grown = np.empty(2 * n_ends, dtype=np.int32)
                            grown[:n_ends] = ends
                            ends = grown
                        end = root + j0 + _BASE * j1 + _BASE**2 * j2 + _BASE**3 * j3
                        ends[n_ends] = end
                        n_ends += 1
                        reach[end] = True
                    j2 += 1
                j1 += 1
            j0 += 1
        n_roots += 1
        end_ptr[n_roots] = n_ends
    return roots[:n_roots], end_ptr[: n_roots + 1], ends[:n_ends]


@numba.njit(cache=True, nogil=True)
def _walk_root(root, ranks, values, slot, points, stack_moves, work):
    """Every complete stack from ``root``: the most points a stack can score on its way to each end.

    ``slot[e]`` is the index in ``points`` / ``stack_moves`` of the end position ``e`` (set by the
    caller for this root's ends; every complete stack ends at one of them). For each end keeps the
    best points and that stack's pile indices (2 bits each, first move lowest). Returns the number of
    stack prefixes walked.
    """
    h = work[0]
    top = work[1]  # value of each pile's top card (99 when empty)
    x = root
    for p in range(4):
        h[p] = x % _BASE
        top[p] = values[p, h[p]]
        x //= _BASE
    on = work[2]
    same = work[3]
    seen = work[4]
    moves = work[5]
    totals = work[6]
    gained = work[7]
    packed = work[8]
    todo = work[9]  # piles still to try at each depth (bitmask)
    on[0] = 0
    same[0] = 0
    seen[:8] = 0
    idx = root
    visited = 0
    d = 0
    totals[0] = 0
    gained[0] = 0
    packed[0] = 0
    todo[0] = 0
    for p in range(4):
        if top[p] <= 31:
            todo[0] |= 1 << p
    if todo[0] == 0:
        return 0  # every card has been played
    while True:
        mask = todo[d]
        if mask != 0:
            p = 0
            while not (mask >> p) & 1:
                p += 1
            todo[d] = mask & (mask - 1)
            t = totals[d] + top[p]
            moves[d] = p
            card = ranks[p, h[p]]
            h[p] += 1
            top[p] = values[p, h[p]]
            idx += _STRIDE[p]
            totals[d + 1] = t
            gained[d + 1] = gained[d] + _place(card, d + 1, t, on, same, seen)
            packed[d + 1] = packed[d] | (p << (2 * d))
            d += 1
            visited += 1
            room = 31 - t
            nxt = 0
            for q in range(4):
                if top[q] <= room:
                    nxt |= 1 << q
            if nxt == 0:
                # No top card fits: the stack ends here.
                s = slot[idx]
                if gained[d] > points[s]:
                    points[s] = gained[d]
                    stack_moves[s] = packed[d]
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
    return visited


@intrinsic
def _take_ticket(typingctx, counter):
    """``counter[0] += 1`` as one atomic step, returning the old value (numba has no atomics of its own)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [context.get_constant(types.intp, 0)])
        return builder.atomic_rmw("add", ptr, context.get_constant(types.int64, 1), "seq_cst")

    return types.int64(counter), codegen


@numba.njit(cache=True, nogil=True)
def _work():
    """One thread's rows of per-depth scratch for ``_walk_root`` (allocated once, not per root)."""
    return np.zeros((10, 8 * (_MAX_DEPTH + 1)), dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _walk_range(ranks, values, roots, end_ptr, ends, lo, hi, slot, points, stack_moves, work):
    """``_walk_root`` for roots ``lo`` to ``hi - 1``; ``slot`` is the caller's scratch (one per thread:
    only the current root's ends are ever read, so it needs no clearing)."""
    visited = 0
    for k in range(lo, hi):
        for e in range(end_ptr[k], end_ptr[k + 1]):
            slot[ends[e]] = e
        visited += _walk_root(roots[k], ranks, values, slot, points, stack_moves, work)
    return visited


@numba.njit(cache=True, nogil=True)
def _walk_roots_serial(ranks, values, roots, end_ptr, ends):
    """``_walk_roots`` on the calling thread alone: no thread pool is started or woken, so many
    one-thread solves side by side (a batch of deals) do not each bring their own pool."""
    points = np.full(ends.shape[0], -1, dtype=np.int32)
    stack_moves = np.zeros(ends.shape[0], dtype=np.int64)
    slot = np.empty(_BASE**4, dtype=np.int32)
    count = np.zeros(1, dtype=np.int64)
    count[0] = _walk_range(
        ranks, values, roots, end_ptr, ends, 0, roots.shape[0], slot, points, stack_moves, _work()
    )
    return points, stack_moves, count


@numba.njit(cache=True, parallel=True)
def _walk_roots(ranks, values, roots, end_ptr, ends, workers):
    """``_walk_root`` for every reachable root: one parallel region over independent roots.

    No root needs another's result here (the values come afterwards), so a solve has one parallel
    region and one barrier, not one per layer. The ``workers`` (one per thread) take chunks of roots
    from a shared atomic counter until none is left: a thread that the machine's other work slows
    down takes fewer chunks instead of holding the others up at the barrier. Roots come with fewer
    cards played first, the costliest first, so the last chunks are short.
    """
    n_roots = roots.shape[0]
    points = np.full(ends.shape[0], -1, dtype=np.int32)
    stack_moves = np.zeros(ends.shape[0], dtype=np.int64)
    n_chunks = (n_roots + _CHUNK - 1) // _CHUNK
    counter = np.zeros(1, dtype=np.int64)
    count = np.zeros(workers, dtype=np.int64)
    for w in numba.prange(workers):
        slot = np.empty(_BASE**4, dtype=np.int32)
        work = _work()
        while True:
            c = _take_ticket(counter)
            if c >= n_chunks:
                break
            lo = c * _CHUNK
            hi = min(n_roots, lo + _CHUNK)
            count[w] += _walk_range(
                ranks, values, roots, end_ptr, ends, lo, hi, slot, points, stack_moves, work
            )
    return points, stack_moves, count


@numba.njit(cache=True, nogil=True)
def _values(roots, end_ptr, ends, points, edge_moves, played):
    """V(root) = max over its ends of (stack points to that end + V(end)), from the last root back.

    ``roots`` come with fewer cards played first and every end has more cards played than its root,
    so walking them backwards finds every end's value ready.
    """
    n_states = _BASE**4
    value = np.full(n_states, -1, dtype=np.int32)
    stack_moves = np.zeros(n_states, dtype=np.int64)
    stack_len = np.zeros(n_states, dtype=np.int8)
    for k in range(roots.shape[0] - 1, -1, -1):
        root = roots[k]
        best = 0  # a root without ends is the end of the game
        best_e = -1
        for e in range(end_ptr[k], end_ptr[k + 1]):
            v = points[e] + value[ends[e]]
            if best_e < 0 or v > best:
                best = v
                best_e = e
        value[root] = best
        if best_e >= 0:
            stack_moves[root] = edge_moves[best_e]
            stack_len[root] = played[ends[best_e]] - played[root]
    return value, stack_moves, stack_len


@numba.njit(cache=True, nogil=True)
def _finish_stack(ranks, values, table_value, heights, stack, work):
    """The value of each move at a position reached in play: the rest of the current stack walked
    exhaustively, each of its ends valued by the dynamic program's table.

    ``heights`` are the cards played per pile and ``stack`` the ranks of the current stack (empty
    at a stack's start). Returns ``(moves, path, length, missing)``: ``moves[p]`` the points pile
    ``p``'s card and the best play after it gain to the end of the game (-1 where it does not fit);
    ``path`` the optimal piles to the stack's end (2 bits each, first move lowest), ``length`` how
    many, and ``missing`` whether an end lacked a table value (a bug, reported by the caller). The
    walk visits the piles in pile order and keeps a path only when it gains strictly more, so
    ``path`` is the first optimal play in pile order: at every card, the lowest optimal pile.
    """
    h = work[0]
    top = work[1]
    on = work[2]
    same = work[3]
    seen = work[4]
    first = work[5]  # the pile each walk began with
    totals = work[6]
    gained = work[7]
    packed = work[8]
    todo = work[9]
    idx = 0
    for p in range(4):
        h[p] = heights[p]
        top[p] = values[p, h[p]]
        idx += h[p] * _STRIDE[p]
    on[0] = 0
    same[0] = 0
    seen[:8] = 0
    # The stack so far, through the kernel's scoring, only for what it leaves for the cards to come.
    total = 0
    for i in range(stack.shape[0]):
        total += min(stack[i], 10)
        _place(stack[i], i + 1, total, on, same, seen)
    base = stack.shape[0]
    moves = np.full(4, -1, dtype=np.int64)
    best = -1
    path = 0
    length = 0
    missing = False
    d = 0
    totals[0] = total
    gained[0] = 0
    packed[0] = 0
    todo[0] = 0
    for p in range(4):
        if total + top[p] <= 31:
            todo[0] |= 1 << p
    while True:
        mask = todo[d]
        if mask != 0:
            p = 0
            while not (mask >> p) & 1:
                p += 1
            todo[d] = mask & (mask - 1)
            if d == 0:
                first[0] = p
            t = totals[d] + top[p]
            card = ranks[p, h[p]]
            h[p] += 1
            top[p] = values[p, h[p]]
            idx += _STRIDE[p]
            totals[d + 1] = t
            gained[d + 1] = gained[d] + _place(card, base + d + 1, t, on, same, seen)
            packed[d + 1] = packed[d] | (p << (2 * d))
            d += 1
            room = 31 - t
            nxt = 0
            for q in range(4):
                if top[q] <= room:
                    nxt |= 1 << q
            if nxt == 0:
                # No top card fits: the stack ends here, and the table knows the rest.
                rest = table_value[idx]
                if rest < 0:
                    missing = True
                v = gained[d] + rest
                if v > moves[first[0]]:
                    moves[first[0]] = v
                if v > best:
                    best = v
                    path = packed[d]
                    length = d
            else:
                todo[d] = nxt
                continue
        else:
            if d == 0:
                break
        d -= 1
        p = (packed[d + 1] >> (2 * d)) & 3
        h[p] -= 1
        top[p] = values[p, h[p]]
        idx -= _STRIDE[p]
    return moves, path, length, missing


def _order(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position index, fewer cards played first, and the cards played at every index."""
    grids = np.meshgrid(*[np.arange(int(s) + 1) for s in sizes], indexing="ij")
    heights = np.stack([g.ravel() for g in grids], axis=1)
    index = heights @ _STRIDE
    played = heights.sum(axis=1)
    order = np.argsort(played, kind="stable")
    by_index = np.zeros(_BASE**4, dtype=np.int32)
    by_index[index] = played
    return index[order].astype(np.int32), by_index


def _deal_arrays(deal: Deal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ranks = np.zeros((NUM_PILES, 14), dtype=np.int64)
    values = np.full((NUM_PILES, 14), 99, dtype=np.int64)  # past a pile's end nothing fits
    sizes = np.zeros(NUM_PILES, dtype=np.int64)
    for p, pile in enumerate(deal.piles):
        ranks[p, : len(pile)] = pile
        values[p, : len(pile)] = [value_of(r) for r in pile]
        sizes[p] = len(pile)
    return ranks, values, sizes


def solve(deal: Deal | str, pile_size: int | None = None, threads: int | None = None) -> OracleResult:
    """The optimal score of ``deal`` and an optimal plan (pile index per move).

    ``deal`` is a :class:`Deal` or a deal string; for a reduced deal string pass ``pile_size``
    (it is inferred from the string when omitted). The result is always proven optimal.

    ``threads`` is how many threads walk the stacks (numba's parallel loop). ``None`` takes numba's
    thread count for the calling thread (``numba.set_num_threads``, e.g. set per task by a batch
    runner) but no more than the CPUs this process may run on (``os.sched_getaffinity``); a number
    is used as given, capped at numba's pool size (``NUMBA_NUM_THREADS``). Solving many deals at
    once, one thread per deal is the better split; the result never depends on it.
    """
    deal = _as_deal(deal, pile_size)
    n_threads = resolve_threads(threads)
    start = time.perf_counter()
    table = _solve_table(deal, n_threads)
    plan = table.plan((0, 0, 0, 0))
    seconds = time.perf_counter() - start
    optimum = int(table.value[0])
    final = replay(CribbageRules(), deal, plan)
    if final.score != optimum:
        raise AssertionError(
            f"oracle kernel claims {optimum} but its plan replays to {final.score} on {deal}"
        )
    return OracleResult(
        score=optimum,
        bound=optimum,
        plan=tuple(plan),
        seconds=seconds,
        stats={**table.stats, "threads": n_threads},
    )


@dataclass(frozen=True)
class StackTable:
    """The dynamic program's table of one deal: ``value[i]`` is the most points still to score from
    the empty-stack position of index ``i`` (``heights @ _STRIDE``; -1 where play never gets), and
    ``stack_moves`` / ``stack_len`` the best stack from it (2 bits a pile index, first move lowest)."""

    deal: Deal
    value: np.ndarray
    stack_moves: np.ndarray
    stack_len: np.ndarray
    stats: dict[str, int]

    def index(self, heights: Sequence[int]) -> int:
        return int(np.dot(heights, _STRIDE))

    def plan(self, heights: Sequence[int]) -> list[int]:
        """An optimal play from the empty-stack position where each pile has given ``heights`` cards
        to the end of the game, stack by stack from the table."""
        h = list(heights)
        if self.value[self.index(h)] < 0:
            raise ValueError(f"no play of {self.deal} reaches an empty stack with {h} cards played per pile")
        plan: list[int] = []
        while sum(h) < self.deal.num_cards:
            idx = self.index(h)
            moves = int(self.stack_moves[idx])
            for i in range(int(self.stack_len[idx])):
                pile = (moves >> (2 * i)) & 3
                plan.append(pile)
                h[pile] += 1
        return plan


def _solve_table(deal: Deal, n_threads: int) -> StackTable:
    """The three kernels of a solve (see the module's docstring): the value of every empty-stack
    position play can reach, and the best stack from each."""
    ranks, values, sizes = _deal_arrays(deal)
    order, played = _order(sizes)
    # A Ctrl-C inside a kernel broke it (a SystemError, once a crash): it waits for the running
    # kernel (under a second a deal) and is raised when it returns, so an interrupted solve returns
    # nothing.
    roots, end_ptr, ends = call_kernel(_stack_ends, values, order)
    if n_threads == 1:
        points, edge_moves, visited = call_kernel(_walk_roots_serial, ranks, values, roots, end_ptr, ends)
    else:
        previous_threads = numba.get_num_threads()
        numba.set_num_threads(n_threads)  # numba's count is per calling thread: restored below
        try:
            points, edge_moves, visited = call_kernel(
                _walk_roots, ranks, values, roots, end_ptr, ends, n_threads
            )
        finally:
            numba.set_num_threads(previous_threads)
    if (points < 0).any():  # every end was found by some stack: a root was left unwalked
        raise AssertionError(f"oracle kernel left stack ends unscored on {deal}")
    value, stack_moves, stack_len = call_kernel(_values, roots, end_ptr, ends, points, edge_moves, played)
    stats = {"stack_nodes": int(visited.sum()), "positions": len(roots), "stack_ends": len(ends)}
    return StackTable(deal, value, stack_moves, stack_len, stats)


def stack_table(deal: Deal | str, threads: int | None = None) -> StackTable:
    """The oracle's table of ``deal`` (a :class:`Deal` or a deal string): the optimum from every
    empty-stack position play can reach, what :class:`CribbageMoves` values moves by.
    ``threads`` as in :func:`solve`."""
    return _solve_table(_as_deal(deal, None), resolve_threads(threads))


def resolve_threads(threads: int | None = None) -> int:
    """The thread count ``solve(..., threads=threads)`` runs with (see :func:`solve`)."""
    pool = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        try:
            available = len(os.sched_getaffinity(0))
        except AttributeError:  # no affinity masks (macOS, Windows)
            available = os.cpu_count() or 1
        return max(1, min(numba.get_num_threads(), available))
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    return min(threads, pool)


def _as_deal(deal: Deal | str, pile_size: int | None) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if pile_size is None and isinstance(deal, str):
        pile_size = len(deal.split("/")[0])
    return parse_deal(deal, pile_size if pile_size is not None else 13)


def check(deal: Deal | str, result: OracleResult) -> bool:
    """True if ``result``'s plan replays through the engine to its score and claims optimality."""
    try:
        state = replay(CribbageRules(), _as_deal(deal, None), result.plan)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state.done and state.score == result.score and result.optimal


def solve_cached(
    deal: Deal | str, cache: OracleCache | None = None, threads: int | None = None
) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted.
    ``threads`` as in :func:`solve` (a cached answer takes none)."""
    deal = _as_deal(deal, None)
    cache = cache if cache is not None else OracleCache()
    variant = f"piles4x{deal.pile_size}"
    text = str(deal)
    return cache.solve(GAME, variant, text, lambda: solve(deal, threads=threads), lambda r: check(deal, r))


class CribbageMoves:
    """The move oracle of one deal (``tabletop_gym.core.MoveOracle``): the optimum and every legal
    move's value at any position reached in play.

    Where the stack is empty the dynamic program's table holds the optimum. Mid-stack, the past
    still matters: every way to finish the current stack is walked (``_finish_stack``, the table's
    own walk and scoring, compiled), and each of its ends, an empty-stack position of the table (the
    stack began at one that play reached, so its ends are reached too), is valued by the table. A
    position costs one such walk, the one the table's solve already made from that stack's start or
    a part of it, so valuing every position of a game adds about a seventh to the solve (0.92 CPU s
    a full deal in all, against 0.81 for the table alone).
    """

    def __init__(self, deal: Deal | str, threads: int | None = None) -> None:
        self.table = stack_table(deal, threads)
        self.deal = str(self.table.deal)
        self._ranks, self._values, _ = _deal_arrays(self.table.deal)
        self._work = _work()
        self._last = CribbageState(self.table.deal)  # the position ``at`` reached last

    def at(self, history: Sequence[int]) -> MoveValues:
        """The values after ``history`` (pile indices from the deal's start)."""
        history = list(history)
        last = self._last
        # A game asks position after position: the next one is the last one and a move or two more.
        state = last.copy() if history[: last.played] == last.history else CribbageState(self.table.deal)
        try:
            for pile in history[state.played :]:
                state.apply(pile)
        except (IllegalActionError, GameOverError) as error:
            raise ValueError(f"not a play of {self.deal}: {error}") from None
        self._last = state
        return self.at_state(state)

    def at_state(self, state: CribbageState) -> MoveValues:
        """The values at an engine position of this deal (``env.unwrapped.state``)."""
        if state.deal != self.table.deal:
            raise ValueError(f"the position is of deal {state.deal}, not of {self.deal}")
        if state.done:
            raise ValueError("the game is over: no move is left to value")
        moves, path, length, missing = call_kernel(
            _finish_stack, self._ranks, self._values, self.table.value,
            np.asarray(state.heights, dtype=np.int64), np.asarray(state.stack, dtype=np.int64), self._work,
        )
        if missing:  # the table holds every empty-stack position play reaches: a bug, never a number
            raise AssertionError(f"the table of {self.deal} lacks a position reached from {state.history}")
        values = {p: int(moves[p]) for p in state.legal_actions()}
        if any(v < 0 for v in values.values()) or len(values) != int((moves >= 0).sum()):
            raise AssertionError(f"move oracle and engine disagree on the legal moves after {state.history}")
        optimum = max(values.values())
        plan = self._plan(state, int(path), int(length))
        gained = replay_from(state, plan)
        if gained != optimum:
            raise AssertionError(
                f"move oracle claims {optimum} from {state.history} of {self.deal}, its plan gains {gained}"
            )
        return MoveValues(float(optimum), {p: float(v) for p, v in values.items()}, tuple(plan))

    def _plan(self, state: CribbageState, path: int, length: int) -> list[int]:
        """An optimal play from ``state`` to the end: at a stack's start the table's stacks; mid-stack
        the walk's first optimal way to finish the stack (``path``, ``length`` piles), then the
        table's stacks."""
        if not state.stack:
            return self.table.plan(state.heights)
        plan = [(path >> (2 * i)) & 3 for i in range(length)]
        heights = list(state.heights)
        for pile in plan:
            heights[pile] += 1
        if sum(heights) < self.table.deal.num_cards:
            plan += self.table.plan(heights)
        return plan


def replay_from(state: CribbageState, plan: Sequence[int]) -> int:
    """The points ``plan`` gains from ``state`` (left as it is), played by the engine to the game's end;
    raises if it is illegal or stops short."""
    state = state.copy()
    start = state.score
    for pile in plan:
        state.apply(pile)
    if not state.done:
        raise ValueError(f"the plan stops with {state.num_cards - state.played} cards still to play")
    return state.score - start

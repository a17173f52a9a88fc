"""A native vector environment for War: N games stepped in one compiled numba call.

``gym.make_vec("tabletop/War-v0", num_envs=N)`` returns it (the id's ``vector_entry_point``).
Sub-environment i behaves as ``gym.make("tabletop/War-v0")`` with the same settings would inside
Gymnasium's ``SyncVectorEnv``: the same observations, rewards, terminations, truncations and infos,
with next-step autoreset. Player 1 follows its fixed pickup convention inside the kernel.

The rules are stepped by a separate kernel (``_step``), not by the engine (``rules.py``), because the
engine's Python objects cost microseconds a trick; tests check the kernel against the engine step by
step. The deals are the single environment's, drawn inside the kernel: each sub-environment keeps the
state of its own PCG64 generator (seeded as the single environment seeds its own, ``reset(seed=s)``
seeding sub-environment i with ``s + i``) and draws from it exactly what numpy's ``Generator.shuffle``
and ``Generator.integers(2**63)`` draw (``random_deal`` and the pickup seed of ``WarTable.candidates``),
skipping the deals where player 0 never chooses as the single environment does. Drawing in the kernel
keeps the autoresets of short episodes (a ``horizon``) off Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space

from tabletop_gym.core import (
    MAX_NUM_ENVS,
    IllegalActionError,
    NativeVectorEnv,
    call_kernel,
    check_int,
    compile_kernel,
    sigint_deferred,
    vector_actions,
    vector_seeds,
)
from tabletop_gym.envs.war.env import WarEnv
from tabletop_gym.envs.war.rules import (
    DETERMINISTIC_PICKUPS,
    PICKUPS,
    RANK_CHARS,
    Deal,
    WarRules,
    parse_deal,
)
from tabletop_gym.envs.war.table import MAX_DRAWS, OBSERVATIONS, rules_text

# The integer state of a game, one row per sub-environment (``_game``'s columns).
HEAD = 0  # HEAD + p: where player p's pile starts in its ring buffer
SIZE = 2  # SIZE + p: cards in player p's pile
POT = 4  # POT + p: cards player p has put on the table this trick
TURNED = 6  # TURNED + p: cards player p has put on the table this game
TAKER = 8  # the player picking up the pot, -1 between tricks
TRICKS = 9
WINNER = 10  # 0 or 1, -1 a draw, NO_WINNER while the game goes on
REASON = 11  # why the game ended: END_* below
DEALT = 12  # cards dealt to player 0 (the hidden observation's unseen cards are counted from it)
LEFT = 13  # pot cards still to place
KINDS = 14  # distinct ranks among them
CARDS = 15  # info["cards"] at the last observation: the base of the horizon reward
FIELDS = 16
NO_WINNER = -2
END_NONE, END_ALL_CARDS, END_BOTH_OUT, END_MAX_TRICKS = 0, 1, 2, 3

# The rule parameters the kernel reads (``_rules``'s entries).
R_RANKS, R_SUITS, R_FACE_DOWN, R_PICKUP, R_LIMIT, R_HORIZON, R_FULL, R_CARDS, R_RING = range(9)
WINNER_FIRST, LOSER_FIRST, HIGH_FIRST = (PICKUPS.index(p) for p in DETERMINISTIC_PICKUPS)

# numpy's PCG64 (the generator ``seeding.np_random`` makes): a 128-bit LCG with an XSL-RR output.
# Its state per sub-environment: the state and increment as (high, low) 64-bit halves, then the
# buffered half of a 64-bit draw that ``next_uint32`` keeps (a flag and the value).
S_HI, S_LO, INC_HI, INC_LO, HAS_HALF, HALF = range(6)
MULT_HI = np.uint64(2549297995355413924)
MULT_LO = np.uint64(4865540595714422341)
LOW32 = np.uint64(0xFFFFFFFF)
U0, U1, U2, U32, U58, U63, U64 = (np.uint64(k) for k in (0, 1, 2, 32, 58, 63, 64))

# A rank's byte (``_deals``) to its letter in a deal string.
_LETTERS = bytes.maketrans(bytes(range(len(RANK_CHARS))), RANK_CHARS.encode())

# Kernel status codes (the first sub-environment at fault is reported).
NOT_A_RANK, NOT_IN_POT, NO_DECISION = 1, 2, 3


@numba.njit(cache=True, nogil=True, inline="always")
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product of two unsigned 64-bit numbers."""
    a_lo, a_hi = a & LOW32, a >> U32
    b_lo, b_hi = b & LOW32, b >> U32
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    mid = (p0 >> U32) + (p1 & LOW32) + (p2 & LOW32)
    return p3 + (p1 >> U32) + (p2 >> U32) + (mid >> U32)


@numba.njit(cache=True, nogil=True, inline="always")
def _next64(rng, i):
    """numpy's ``pcg64_next64``: step the LCG, then the output of the new state."""
    s_hi, s_lo = rng[i, S_HI], rng[i, S_LO]
    lo = s_lo * MULT_LO
    hi = _mulhi(s_lo, MULT_LO) + s_hi * MULT_LO + s_lo * MULT_HI
    new_lo = lo + rng[i, INC_LO]
    new_hi = hi + rng[i, INC_HI] + (U1 if new_lo < lo else U0)
    rng[i, S_HI], rng[i, S_LO] = new_hi, new_lo
    x = new_hi ^ new_lo
    rot = new_hi >> U58
    return (x >> rot) | (x << ((U64 - rot) & U63))


@numba.njit(cache=True, nogil=True, inline="always")
def _next32(rng, i):
    """numpy's ``pcg64_next32``: the low half of a 64-bit draw, its high half kept for the next call."""
    if rng[i, HAS_HALF] != U0:
        rng[i, HAS_HALF] = U0
        return rng[i, HALF]
    value = _next64(rng, i)
    rng[i, HAS_HALF] = U1
    rng[i, HALF] = value >> U32
    return value & LOW32


@numba.njit(cache=True, nogil=True, inline="always")
def _interval(rng, i, most):
    """numpy's ``random_interval`` (below 2**32): a uniform integer 0..most by masked rejection."""
    if most == 0:
        return 0
    top = np.uint64(most)
    mask = top
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    value = _next32(rng, i) & mask
    while value > top:
        value = _next32(rng, i) & mask
    return np.int64(value)


@numba.njit(cache=True, nogil=True)
def _draw(i, rules, rng, deals, game, deck):
    """``rules.random_deal`` from sub-environment i's generator, then the pickup seed that
    ``WarTable.candidates`` draws after it (``integers(2**63)`` is one 64-bit draw shifted right once):
    the deal goes to ``deals[i]``, player 0's pile first."""
    n = rules[R_CARDS]
    suits = rules[R_SUITS]
    for k in range(n):
        deck[i, k] = k // suits
    for k in range(n - 1, 0, -1):  # Generator.shuffle: Fisher-Yates from the end
        j = _interval(rng, i, k)
        deck[i, k], deck[i, j] = deck[i, j], deck[i, k]
    first = (n + 1) // 2
    for k in range(first):
        deals[i, k] = deck[i, 2 * k]
    for k in range(n - first):
        deals[i, first + k] = deck[i, 2 * k + 1]
    game[i, DEALT] = first
    _next64(rng, i)


@numba.njit(cache=True, nogil=True, inline="always")
def _put(ring, i, p, head, size, wrap, rank):
    """A card of ``rank`` goes under player p's pile (written twice, ``wrap + 1`` apart); the pile's
    new size."""
    tail = (head + size) & wrap
    ring[i, p, tail] = rank
    ring[i, p, tail + wrap + 1] = rank
    return size + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _advance(i, rules, game, ring, pots, to_place, choice):
    """``WarGame.advance`` with player 0 controlled, after player 0 puts the pot card of rank ``choice``
    under the pile (-1: none): play on until player 0 orders a pot of two ranks or more while player 1
    still holds cards, or the game ends.

    The game's fields are read into locals once and written back at the end: the compiler cannot keep
    them in registers across the card writes otherwise (any array may alias any other to it). Rows are
    indexed in full rather than taken as views: each view costs two atomic reference counts."""
    wrap = rules[R_RING] - 1
    ranks = rules[R_RANKS]
    pickup = rules[R_PICKUP]
    face_down = rules[R_FACE_DOWN]
    limit = rules[R_LIMIT]
    head0, head1, size0, size1 = game[i, HEAD], game[i, HEAD + 1], game[i, SIZE], game[i, SIZE + 1]
    put0, put1 = game[i, POT], game[i, POT + 1]
    turned0, turned1 = game[i, TURNED], game[i, TURNED + 1]
    taker, tricks, winner, reason = game[i, TAKER], game[i, TRICKS], game[i, WINNER], game[i, REASON]
    left, kinds = game[i, LEFT], game[i, KINDS]
    if choice >= 0:  # WarState.place: the chosen card under player 0's pile
        size0 = _put(ring, i, 0, head0, size0, wrap, choice)
        to_place[i, choice] -= 1
        if to_place[i, choice] == 0:
            kinds -= 1
        left -= 1
        if left == 0:
            taker = -1
    while winner == NO_WINNER:
        if taker < 0:
            if size0 > 0 and size1 > 0 and tricks >= limit:
                winner = -1
                reason = END_MAX_TRICKS
                break
            # WarState.play_trick: cards turned until one player takes the pot, or the game ends.
            put0 = 0
            put1 = 0
            while True:
                if size0 == 0 or size1 == 0:
                    # A player who must turn a card face up and has none loses; both: a draw.
                    if size0 == 0 and size1 == 0:
                        winner = -1
                        reason = END_BOTH_OUT
                    else:
                        winner = 1 if size0 == 0 else 0
                        reason = END_ALL_CARDS
                    break
                up0 = ring[i, 0, head0]
                head0 = (head0 + 1) & wrap
                pots[i, 0, put0] = up0
                put0 += 1
                up1 = ring[i, 1, head1]
                head1 = (head1 + 1) & wrap
                pots[i, 1, put1] = up1
                put1 += 1
                size0 -= 1
                size1 -= 1
                if up0 != up1:
                    taker = 0 if up0 > up1 else 1
                    break
                # A war: face-down cards, each player keeping one to turn face up.
                for _ in range(max(0, min(face_down, size0 - 1))):
                    pots[i, 0, put0] = ring[i, 0, head0]
                    head0 = (head0 + 1) & wrap
                    put0 += 1
                    size0 -= 1
                for _ in range(max(0, min(face_down, size1 - 1))):
                    pots[i, 1, put1] = ring[i, 1, head1]
                    head1 = (head1 + 1) & wrap
                    put1 += 1
                    size1 -= 1
            turned0 += put0
            turned1 += put1
            if winner != NO_WINNER:
                break
            kinds = 0
            for c in range(put0):
                rank = pots[i, 0, c]
                if to_place[i, rank] == 0:
                    kinds += 1
                to_place[i, rank] += 1
            for c in range(put1):
                rank = pots[i, 1, c]
                if to_place[i, rank] == 0:
                    kinds += 1
                to_place[i, rank] += 1
            left = put0 + put1
            tricks += 1
        else:
            if taker == 0:
                if kinds > 1 and size1 > 0:
                    break
                for rank in range(ranks):  # no choice left: lowest rank first, as the engine
                    for _ in range(to_place[i, rank]):
                        size0 = _put(ring, i, 0, head0, size0, wrap, rank)
            elif pickup == HIGH_FIRST:
                for rank in range(ranks - 1, -1, -1):
                    for _ in range(to_place[i, rank]):
                        size1 = _put(ring, i, 1, head1, size1, wrap, rank)
            elif pickup == WINNER_FIRST:  # the taker's own cards first
                for c in range(put1):
                    size1 = _put(ring, i, 1, head1, size1, wrap, pots[i, 1, c])
                for c in range(put0):
                    size1 = _put(ring, i, 1, head1, size1, wrap, pots[i, 0, c])
            else:  # the loser's cards first
                for c in range(put0):
                    size1 = _put(ring, i, 1, head1, size1, wrap, pots[i, 0, c])
                for c in range(put1):
                    size1 = _put(ring, i, 1, head1, size1, wrap, pots[i, 1, c])
            # The whole pot is placed: nothing left to place.
            for rank in range(ranks):
                to_place[i, rank] = 0
            kinds = 0
            left = 0
            taker = -1
    game[i, HEAD], game[i, HEAD + 1], game[i, SIZE], game[i, SIZE + 1] = head0, head1, size0, size1
    game[i, POT], game[i, POT + 1] = put0, put1
    game[i, TURNED], game[i, TURNED + 1] = turned0, turned1
    game[i, TAKER], game[i, TRICKS], game[i, WINNER], game[i, REASON] = taker, tricks, winner, reason
    game[i, LEFT], game[i, KINDS] = left, kinds


@numba.njit(cache=True, nogil=True)
def _start(i, rules, game, ring, pots, to_place, deals):
    """Sub-environment i starts the deal ``deals[i]``, played up to player 0's first decision; True
    if there is one."""
    n = rules[R_CARDS]
    first = game[i, DEALT]
    for f in range(FIELDS):
        if f != DEALT:
            game[i, f] = 0
    half = rules[R_RING]
    for k in range(first):
        ring[i, 0, k] = deals[i, k]
        ring[i, 0, k + half] = deals[i, k]
    for k in range(n - first):
        ring[i, 1, k] = deals[i, first + k]
        ring[i, 1, k + half] = deals[i, first + k]
    game[i, SIZE] = first
    game[i, SIZE + 1] = n - first
    game[i, TAKER] = -1
    game[i, WINNER] = NO_WINNER
    for r in range(rules[R_RANKS]):
        to_place[i, r] = 0
    _advance(i, rules, game, ring, pots, to_place, -1)
    return game[i, WINNER] == NO_WINNER


@numba.njit(cache=True, nogil=True)
def _new_game(i, rules, rng, game, ring, pots, to_place, deals, deck):
    """Draw deals until one gives player 0 a decision (``WarEnv.reset``); False after ``MAX_DRAWS``."""
    for _ in range(MAX_DRAWS):
        _draw(i, rules, rng, deals, game, deck)
        if _start(i, rules, game, ring, pots, to_place, deals):
            return True
    return False


@numba.njit(cache=True, nogil=True, inline="always")
def _cards(i, rules, game):
    """``WarState.horizon_cards(0)``: every card once player 0 has won, else the cards held."""
    if game[i, WINNER] == 0:
        return rules[R_CARDS]
    held = game[i, SIZE]
    if game[i, TAKER] == 0:
        held += game[i, LEFT]
    return held


@numba.njit(cache=True, nogil=True, inline="always")
def _observe(i, rules, game, ring, pots, to_place, obs, mask, legal, table, score, tricks, cards, result,
             over):
    """Sub-environment i's observation, mask, pots and the other infos, as ``WarTable`` gives seat 0's,
    and its row of ``action_masks()`` (``legal``). Every entry of its rows is written, zeros and the -1
    of empty pot places included, each row once while it is in cache: the arrays come uninitialised.

    ``ring``, ``obs`` and ``table`` come flattened (``.reshape(-1)``) and are indexed by unsigned
    offsets: numba then leaves out its negative-index wrap-around, whose branch per entry kept the long
    copies and fills from being vectorised (they were most of a step's time)."""
    row_i = np.uint64(i)
    n = np.uint64(rules[R_CARDS])
    ranks = np.uint64(rules[R_RANKS])
    pile = np.uint64(2 * rules[R_RING])  # one player's doubled ring buffer
    winner = game[i, WINNER]
    finished = winner != NO_WINNER
    awaiting = game[i, TAKER] == 0 and not finished
    size0 = np.uint64(game[i, SIZE])
    pile0 = row_i * U2 * pile + np.uint64(game[i, HEAD])
    if rules[R_FULL]:
        width = U2 * n + ranks
        row = row_i * width
        for c in range(size0):
            obs[row + c] = ring[pile0 + c] + 1
        for c in range(size0, n):
            obs[row + c] = 0
        size1 = np.uint64(game[i, SIZE + 1])
        pile1 = (row_i * U2 + U1) * pile + np.uint64(game[i, HEAD + 1])
        for c in range(size1):
            obs[row + n + c] = ring[pile1 + c] + 1
        for c in range(n + size1, U2 * n):
            obs[row + c] = 0
        base = row + U2 * n
    else:
        width = n + U1 + ranks
        row = row_i * width
        # Dealt cards are never put back, so the ones not yet turned are the top of the pile.
        unseen = np.uint64(max(0, game[i, DEALT] - game[i, TURNED]))
        for c in range(unseen):
            obs[row + c] = 1
        for c in range(unseen, size0):
            obs[row + c] = ring[pile0 + c] + 2
        for c in range(max(unseen, size0), n):
            obs[row + c] = 0
        obs[row + n] = game[i, SIZE + 1]
        base = row + n + U1
    for r in range(ranks):
        left = to_place[i, r] if awaiting else 0
        obs[base + r] = left
        mask[i, r] = left > 0
        legal[i, r] = finished or left > 0
    for p in range(2):
        put = np.uint64(game[i, POT + p] if awaiting else 0)
        start = (row_i * U2 + np.uint64(p)) * n
        for c in range(put):
            table[start + c] = pots[i, p, c]
        for c in range(put, n):
            table[start + c] = -1
    held = _cards(i, rules, game)
    outcome = 0 if winner < 0 else (1 if winner == 0 else -1)
    score[i] = held if rules[R_HORIZON] else outcome
    tricks[i] = game[i, TRICKS]
    cards[i] = held
    result[i] = outcome
    over[i] = finished


@numba.njit(cache=True, nogil=True)
def _reset_all(given, rules, rng, game, ring, pots, to_place, deals, deck, obs, mask, legal, table, score,
               tricks, cards, result, over):
    """Every sub-environment starts a game: its given deal (``given[i]``, already in ``deals[i]``; the
    generator still draws the pickup seed, as ``WarTable.candidates`` does for a given deal) or a drawn
    one. Returns -1, or the first sub-environment where none of ``MAX_DRAWS`` deals gives player 0 a
    decision."""
    flat_ring, flat_obs, flat_table = ring.reshape(-1), obs.reshape(-1), table.reshape(-1)
    for i in range(game.shape[0]):
        if given[i]:
            _next64(rng, i)
            _start(i, rules, game, ring, pots, to_place, deals)
        elif not _new_game(i, rules, rng, game, ring, pots, to_place, deals, deck):
            return i
        game[i, CARDS] = _cards(i, rules, game)
        _observe(i, rules, game, flat_ring, pots, to_place, flat_obs, mask, legal, flat_table, score, tricks,
                 cards, result, over)
    return -1


@numba.njit(cache=True, nogil=True)
def _illegal(actions, rules, game, to_place, fault):
    """-1, or the first sub-environment whose game goes on with an action that is not a rank in its pot
    (``fault[0]`` then says why): checked for all before any sub-environment moves."""
    ranks = rules[R_RANKS]
    for i in range(game.shape[0]):
        if game[i, WINNER] != NO_WINNER:
            continue
        a = actions[i]
        if a < 0 or a >= ranks:
            fault[0] = NOT_A_RANK
            return i
        if to_place[i, a] == 0:
            fault[0] = NOT_IN_POT
            return i
    return -1


@numba.njit(cache=True, nogil=True, inline="always")
def _play(i, actions, rules, rng, game, ring, pots, to_place, deals, deck, flat_ring, flat_obs, mask, legal,
          flat_table, score, tricks, cards, result, over, rewards, terminated, truncated, restarted):
    """Sub-environment i's step (next-step autoreset: a finished game starts its next one instead);
    False where none of ``MAX_DRAWS`` deals gives player 0 a decision."""
    if game[i, WINNER] != NO_WINNER:
        if not _new_game(i, rules, rng, game, ring, pots, to_place, deals, deck):
            return False
        game[i, CARDS] = _cards(i, rules, game)
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        restarted[i] = True
    else:
        restarted[i] = False
        _advance(i, rules, game, ring, pots, to_place, actions[i])
        winner = game[i, WINNER]
        done = winner != NO_WINNER
        stopped = game[i, REASON] == END_MAX_TRICKS
        terminated[i] = done and not stopped
        truncated[i] = done and stopped
        if rules[R_HORIZON]:
            # The score with a horizon is the cards held: each step pays their change.
            held = _cards(i, rules, game)
            rewards[i] = held - game[i, CARDS]
            game[i, CARDS] = held
        elif done:
            rewards[i] = 0.0 if winner < 0 else (1.0 if winner == 0 else -1.0)
        else:
            rewards[i] = 0.0
    _observe(i, rules, game, flat_ring, pots, to_place, flat_obs, mask, legal, flat_table, score, tricks,
             cards, result, over)
    return True


@numba.njit(cache=True, nogil=True)
def _step(actions, rules, rng, game, ring, pots, to_place, deals, deck, obs, mask, legal, table, score,
          tricks, cards, result, over, rewards, terminated, truncated, restarted, fault):
    """One pickup decision in every sub-environment. Returns -1, or the first sub-environment with an
    illegal action (no sub-environment has moved then; ``fault[0]`` says why) or without a decision
    in ``MAX_DRAWS`` deals (the ones after it have not moved)."""
    bad = _illegal(actions, rules, game, to_place, fault)
    if bad >= 0:
        return bad
    flat_ring, flat_obs, flat_table = ring.reshape(-1), obs.reshape(-1), table.reshape(-1)
    for i in range(game.shape[0]):
        if not _play(i, actions, rules, rng, game, ring, pots, to_place, deals, deck, flat_ring, flat_obs,
                     mask, legal, flat_table, score, tricks, cards, result, over, rewards, terminated,
                     truncated, restarted):
            fault[0] = NO_DECISION
            return i
    return -1


@numba.njit(cache=True, nogil=True, parallel=True)
def _step_parallel(actions, rules, rng, game, ring, pots, to_place, deals, deck, obs, mask, legal, table,
                   score, tricks, cards, result, over, rewards, terminated, truncated, restarted, fault):
    """``_step`` with the sub-environments shared among numba's threads (each game's state is its own
    rows, its deals' generator included). A sub-environment without a decision stops only itself:
    the lowest such is returned."""
    bad = _illegal(actions, rules, game, to_place, fault)
    if bad >= 0:
        return bad
    num_envs = game.shape[0]
    flat_ring, flat_obs, flat_table = ring.reshape(-1), obs.reshape(-1), table.reshape(-1)
    first = num_envs
    for i in numba.prange(num_envs):
        if not _play(i, actions, rules, rng, game, ring, pots, to_place, deals, deck, flat_ring, flat_obs,
                     mask, legal, flat_table, score, tricks, cards, result, over, rewards, terminated,
                     truncated, restarted):
            first = min(first, i)
    if first < num_envs:
        fault[0] = NO_DECISION
        return first
    return -1


class WarVectorEnv(NativeVectorEnv):
    """``num_envs`` games of War stepped together in one compiled call, player 1 on its convention.

    Sub-environment i is ``WarEnv`` with the same settings (same observation, action, reward and info)
    under next-step autoreset: the step after a game's end starts sub-environment i's next deal,
    ignores its action and returns reward 0. ``reset(seed=s)`` gives sub-environment i the deals of
    ``WarEnv`` reset with seed ``s + i`` (a list of seeds gives one to each);
    ``reset(options={"deal": ...})`` starts one deal string in every sub-environment, or a list of
    them one each.

    ``infos`` hold, as ``SyncVectorEnv`` stacks them: ``action_mask`` (``(num_envs, ranks)`` int8, all
    zeros for a finished game), ``score``, ``tricks``, ``cards``, ``result``, ``game_over``, ``pots``
    (``(num_envs, 2, ranks * suits)`` int64) and ``deal``, each with its ``_key`` array.
    ``action_masks()`` gives the ``(num_envs, ranks)`` bool mask, where a sub-environment waiting for
    its autoreset has every action legal (its action is ignored), so a loop choosing among the legal
    actions always has a choice. An illegal action raises ``IllegalActionError`` naming the
    sub-environment, before any sub-environment moves.

    Arguments: ``num_envs``; ``ranks``, ``suits``, ``face_down``, ``pickup``, ``max_tricks``,
    ``observation``, ``horizon``, ``reveal_deal`` (as ``WarEnv``, checked by it); ``pickup`` one of
    the fixed conventions (``random`` draws player 1's pickups from Python's generator, which the
    kernel does not replay) and no ``opponent`` agent (an agent is Python, called every pot): for
    those, ``vectorization_mode="sync"``; ``render_mode`` (None only); ``copy`` (default True: the
    observations returned are new arrays; False returns the environment's own observation array,
    overwritten by the next step); ``threads`` (default 1): numba threads a step shares the games
    among, at most numba's pool (``NUMBA_NUM_THREADS``). Every result is the same with any number.
    More than one pays where cores are free; on a busy machine threads wait on each other, and
    OpenMP's threads (numba's layer without TBB) spin between steps unless ``OMP_WAIT_POLICY=passive``.
    """

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        ranks: int = WarRules.ranks,
        suits: int = WarRules.suits,
        face_down: int = WarRules.face_down,
        pickup: str = WarRules.pickup,
        max_tricks: int = WarRules.max_tricks,
        observation: str = OBSERVATIONS[0],
        horizon: int | None = None,
        reveal_deal: bool = False,
        opponent: Any = None,
        copy: bool = True,
        threads: int = 1,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1, MAX_NUM_ENVS)
        self.threads = check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)
        if opponent is not None:
            raise ValueError(
                f"opponent={opponent!r}: the native vector environment plays player 1 by its pickup "
                f"convention ({', '.join(DETERMINISTIC_PICKUPS)}) inside its compiled kernel, not by an "
                "agent; for an opponent agent use gym.make_vec(..., vectorization_mode='sync')"
            )
        # The single environment checks every setting, with its own messages.
        single = WarEnv(ranks=ranks, suits=suits, face_down=face_down, pickup=pickup, max_tricks=max_tricks,
                        observation=observation, horizon=horizon, reveal_deal=reveal_deal)
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector environment, got {render_mode!r}")
        if single.rules.pickup not in DETERMINISTIC_PICKUPS:
            raise ValueError(
                f"pickup={single.rules.pickup!r}: the native vector environment plays the fixed "
                f"conventions {DETERMINISTIC_PICKUPS}; the random convention draws player 1's pickups "
                "from Python's generator, which its kernel does not replay: use "
                "gym.make_vec(..., vectorization_mode='sync')"
            )
        self._single = single  # checks the deals given to reset, with the single environment's messages
        self.render_mode = None
        self.rules = single.rules
        self.horizon = single.horizon
        self.observation_mode = single.observation_mode
        self.reveal_deal = single.reveal_deal
        self.copy = bool(copy)
        self.single_observation_space = single.observation_space
        self.single_action_space = spaces.Discrete(self.rules.ranks)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n, cards = self.num_envs, self.rules.num_cards
        ring = 1 << (cards - 1).bit_length()  # a power of two: a pile's ring buffer wraps with a mask
        engine_limit = single.table.engine_rules.max_tricks
        self._rules = np.array(
            [self.rules.ranks, self.rules.suits, self.rules.face_down, PICKUPS.index(self.rules.pickup),
             engine_limit, self.horizon is not None, self.observation_mode == "full", cards, ring],
            dtype=np.int64,
        )
        self._game = np.zeros((n, FIELDS), dtype=np.int64)
        # Each card is written twice, ``ring`` apart, so that a pile is always one contiguous slice.
        self._ring = np.zeros((n, 2, 2 * ring), dtype=np.int8)
        self._pots = np.zeros((n, 2, cards), dtype=np.int8)
        self._to_place = np.zeros((n, self.rules.ranks), dtype=np.int64)
        self._deals = np.zeros((n, cards), dtype=np.int8)
        self._rng = np.zeros((n, 6), dtype=np.uint64)
        self._deck = np.zeros((n, cards), dtype=np.int8)  # a row each: games may be drawn in parallel
        self._obs = np.zeros((n, self.single_observation_space.shape[0]), dtype=np.int64)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._restarted = np.zeros(n, dtype=np.bool_)
        self._fault = np.zeros(1, dtype=np.int64)
        self._deal_text = np.full(n, "", dtype=object)
        self._seeded = np.zeros(n, dtype=np.bool_)
        self._started = False
        self._all = np.ones(n, dtype=np.bool_)
        self._legal = np.zeros((n, self.rules.ranks), dtype=np.bool_)  # action_masks(), as the kernel left it

    # -- Gymnasium API -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seeds = vector_seeds(seed, self.num_envs)
        given = self._given_deals(options)
        for i, s in enumerate(seeds):
            if s is not None or not self._seeded[i]:
                self._seed(i, s)
        is_given = np.zeros(self.num_envs, dtype=np.bool_)
        if given is not None:
            for i, deal in enumerate(given):
                self._deals[i, : deal.num_cards] = deal.piles[0] + deal.piles[1]
                self._game[i, DEALT] = len(deal.piles[0])
            is_given[:] = True
        out = self._new_outputs()
        bad = call_kernel(_reset_all, is_given, *self._state(), *out)
        if bad >= 0:
            self._no_decision(bad)
        if given is not None:
            self._deal_text[:] = [str(deal) for deal in given]
        else:
            self._deal_text[:] = self._texts(np.arange(self.num_envs))
        if not self._started:
            no_actions = np.zeros(self.num_envs, dtype=np.int64)
            compile_kernel(self._kernel(), no_actions, *self._step_arguments(out))
            self._started = True
        return out[0], self._infos(out)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_started("step()")
        actions = vector_actions(actions, self.num_envs, "ranks")
        out = self._new_outputs()
        with sigint_deferred():  # compiled at the first reset: call_kernel's typing per step would cost more
            if self.threads == 1:
                bad = _step(actions, *self._step_arguments(out))
            else:
                previous = numba.get_num_threads()
                numba.set_num_threads(self.threads)  # numba's count is per calling thread: restored below
                try:
                    bad = _step_parallel(actions, *self._step_arguments(out))
                finally:
                    numba.set_num_threads(previous)
        if bad >= 0:
            if self._fault[0] == NO_DECISION:
                self._no_decision(bad)
            self._raise_illegal(bad, actions[bad])
        restarted = np.flatnonzero(self._restarted)
        if restarted.size:
            self._deal_text[restarted] = self._texts(restarted)
        return self._step_result(out[0], self._infos(out))

    # -- helpers -------------------------------------------------------------------------------

    def _legal_actions(self) -> np.ndarray:
        # Written by the kernel with each observation, so asking costs a copy.
        return self._legal.copy()

    def _sub_masks(self) -> np.ndarray:
        masks = self.action_masks()
        masks[self._game[:, WINNER] != NO_WINNER] = False
        return masks

    def _kernel(self) -> Any:
        return _step if self.threads == 1 else _step_parallel

    def _state(self) -> tuple[np.ndarray, ...]:
        return (self._rules, self._rng, self._game, self._ring, self._pots, self._to_place, self._deals,
                self._deck)

    def _step_arguments(self, out: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        # Flat, not nested: numba types a tuple argument in Python at every call.
        return (
            *self._state(), *out, self._rewards, self._terminated, self._truncated, self._restarted,
            self._fault,
        )  # fmt: skip

    def _new_outputs(self) -> tuple[np.ndarray, ...]:
        """Arrays the kernel fills for the observations and infos of one step (and ``_legal`` beside
        them, the environment's own): new ones each time, so nothing returned is overwritten later,
        without a copy. Uninitialised: the kernel writes every entry."""
        n, cards, ranks = self.num_envs, self.rules.num_cards, self.rules.ranks
        obs = np.empty_like(self._obs) if self.copy else self._obs
        return (
            obs,
            np.empty((n, ranks), dtype=np.int8),
            self._legal,
            np.empty((n, 2, cards), dtype=np.int64),
            np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.bool_),
        )

    def _infos(self, out: tuple[np.ndarray, ...]) -> dict[str, Any]:
        _, mask, _, table, score, tricks, cards, result, over = out
        if self.observation_mode == "full" or self.reveal_deal:
            deal = self._deal_text.copy()
        else:
            # The hidden observation's deal is shown on the last step only: it orders unseen cards.
            deal = np.full(self.num_envs, "", dtype=object)
            deal[over] = self._deal_text[over]
        infos: dict[str, Any] = {}
        for key, value in (("action_mask", mask), ("score", score), ("tricks", tricks), ("cards", cards),
                           ("result", result), ("game_over", over), ("pots", table), ("deal", deal)):
            infos[key] = value
            infos[f"_{key}"] = self._all.copy()
        return infos

    def _texts(self, which: np.ndarray) -> list[str]:
        """The deal strings of the drawn deals of the sub-environments ``which`` (player 0's pile is
        the larger half of the deck: ``random_deal`` deals it the first card). Bytes translated to
        letters and cut in Python: a few autoresets a step make numpy's calls cost more than the work."""
        cards = self.rules.num_cards
        first = (cards + 1) // 2
        letters = self._deals[which].tobytes().translate(_LETTERS).decode()
        return [
            f"{letters[start : start + first]}/{letters[start + first : start + cards]}"
            for start in range(0, len(letters), cards)
        ]

    def _seed(self, i: int, seed: int | None) -> None:
        """Sub-environment i's generator state: the PCG64 that ``WarEnv.reset(seed=seed)`` makes."""
        state = seeding.np_random(seed)[0].bit_generator.state
        lcg = state["state"]
        mask = (1 << 64) - 1
        self._rng[i] = [
            lcg["state"] >> 64, lcg["state"] & mask, lcg["inc"] >> 64, lcg["inc"] & mask,
            state["has_uint32"], state["uinteger"],
        ]  # fmt: skip
        self._seeded[i] = True

    def _given_deals(self, options: dict[str, Any] | None) -> list[Deal] | None:
        deals = WarEnv._deal_option(options)
        if deals is None:
            return None
        deals = self._deal_each(deals, (str, Deal))
        checked: dict[str, Deal] = {}
        parsed = []
        for i, deal in enumerate(deals):
            try:
                text = str(parse_deal(deal, self.rules))
                if text not in checked:
                    # A deal where player 0 never chooses is refused with the single environment's message.
                    self._single.reset(options={"deal": text})
                    checked[text] = parse_deal(text, self.rules)
            except ValueError as error:
                raise type(error)(f"sub-environment {i}: {error}") from None
            parsed.append(checked[text])
        return parsed

    def _no_decision(self, i: int) -> None:
        # The kernel stopped part way: the masks of the sub-environments it did not reach are made
        # from their state, as the kernel makes them (every action where a game has ended).
        self._legal[:] = (self._to_place > 0) | (self._game[:, WINNER:WINNER + 1] != NO_WINNER)
        raise ValueError(
            f"sub-environment {i}: none of {MAX_DRAWS} deals drawn gives player 0 a pickup decision under "
            f"these rules ({rules_text(self.rules, self.horizon)}): use a longer horizon or a larger deck"
        )

    def _raise_illegal(self, i: int, action: int) -> None:
        legal = np.flatnonzero(self._to_place[i]).tolist()
        why = {
            NOT_A_RANK: f"not a rank 0-{self.rules.ranks - 1}",
            NOT_IN_POT: "that rank is not in the pot",
        }[int(self._fault[0])]
        raise IllegalActionError(int(action), legal, f"in sub-environment {i}: {why}")

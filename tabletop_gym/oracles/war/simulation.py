"""Exact, fast simulation of War under a fixed pickup convention (numba).

The kernel keeps each pile as a ring buffer and follows the engine's rules
(``tabletop_gym.envs.war.rules``) trick by trick; tests compare it with the engine's own
``play_game`` on many deals, every convention and war setting. A repeated position is found with
Brent's cycle detection (no table of past positions, so a game costs the same memory however long it
runs); the first repetition and the period are then located exactly by a second pass.
"""

from __future__ import annotations

import numba
import numpy as np

from tabletop_gym.core import call_kernel
from tabletop_gym.envs.war.rules import (
    ALL_CARDS,
    BOTH_OUT,
    CYCLE,
    DEFAULT_RULES,
    MAX_TRICKS,
    Deal,
    GameRecord,
    WarRules,
    parse_deal,
    play_game,
)

PICKUP_CODES = {"winner_first": 0, "loser_first": 1, "high_first": 2}
REASONS = (ALL_CARDS, BOTH_OUT, MAX_TRICKS, CYCLE)
_OUT0, _OUT1, _BOTH = 2, 3, 4  # _trick's codes after 0/1 (the taker)
_CHUNK_GAMES = 4096  # games per kernel call of simulate_many (a fraction of a second)


# The compiled kernel's answer is the engine's record of the same game (the tests compare them).
Simulation = GameRecord


@numba.njit(cache=True, nogil=True)
def _trick(buf, head, size, mask, face_down, pickup, pot, counts, wars):
    """Play one trick in place; return the taker (0/1) or _OUT0/_OUT1/_BOTH if the game ended."""
    k0 = 0
    k1 = 0
    while True:
        if size[0] == 0 or size[1] == 0:
            if size[0] == 0 and size[1] == 0:
                return _BOTH
            return _OUT0 if size[0] == 0 else _OUT1
        c0 = buf[0, head[0]]
        head[0] = (head[0] + 1) & mask
        size[0] -= 1
        pot[0, k0] = c0
        k0 += 1
        c1 = buf[1, head[1]]
        head[1] = (head[1] + 1) & mask
        size[1] -= 1
        pot[1, k1] = c1
        k1 += 1
        if c0 != c1:
            taker = 0 if c0 > c1 else 1
            break
        wars[0] += 1
        d = min(face_down, size[0] - 1)
        for _ in range(d):
            pot[0, k0] = buf[0, head[0]]
            head[0] = (head[0] + 1) & mask
            size[0] -= 1
            k0 += 1
        d = min(face_down, size[1] - 1)
        for _ in range(d):
            pot[1, k1] = buf[1, head[1]]
            head[1] = (head[1] + 1) & mask
            size[1] -= 1
            k1 += 1
    tail = (head[taker] + size[taker]) & mask
    if pickup == 2:
        counts[:] = 0
        for i in range(k0):
            counts[pot[0, i]] += 1
        for i in range(k1):
            counts[pot[1, i]] += 1
        for r in range(counts.shape[0] - 1, -1, -1):
            for _ in range(counts[r]):
                buf[taker, tail] = r
                tail = (tail + 1) & mask
    else:
        first = taker if pickup == 0 else 1 - taker
        for part in range(2):
            p = first if part == 0 else 1 - first
            k = k0 if p == 0 else k1
            for i in range(k):
                buf[taker, tail] = pot[p, i]
                tail = (tail + 1) & mask
    size[taker] += k0 + k1
    return taker


@numba.njit(cache=True, nogil=True, inline="always")
def _same(buf, head, size, sbuf, shead, ssize, mask):
    if size[0] != ssize[0] or size[1] != ssize[1]:
        return False
    for p in range(2):
        a = head[p]
        b = shead[p]
        for _ in range(size[p]):
            if buf[p, a] != sbuf[p, b]:
                return False
            a = (a + 1) & mask
            b = (b + 1) & mask
    return True


@numba.njit(cache=True, nogil=True)
def _load(pile0, n0, pile1, n1, cap):
    buf = np.zeros((2, cap), dtype=np.int8)
    buf[0, :n0] = pile0[:n0]
    buf[1, :n1] = pile1[:n1]
    head = np.zeros(2, dtype=np.int64)
    size = np.array([n0, n1], dtype=np.int64)
    return buf, head, size


@numba.njit(cache=True, nogil=True)
def _first_repeat(pile0, n0, pile1, n1, cap, face_down, pickup, ranks, period):
    """Index of the first position that comes back ``period`` tricks later."""
    mask = cap - 1
    buf, head, size = _load(pile0, n0, pile1, n1, cap)
    hbuf, hhead, hsize = _load(pile0, n0, pile1, n1, cap)
    pot = np.zeros((2, cap), dtype=np.int8)
    counts = np.zeros(ranks, dtype=np.int64)
    wars = np.zeros(1, dtype=np.int64)
    for _ in range(period):
        _trick(hbuf, hhead, hsize, mask, face_down, pickup, pot, counts, wars)
    mu = 0
    while not _same(buf, head, size, hbuf, hhead, hsize, mask):
        _trick(buf, head, size, mask, face_down, pickup, pot, counts, wars)
        _trick(hbuf, hhead, hsize, mask, face_down, pickup, pot, counts, wars)
        mu += 1
    return mu


@numba.njit(cache=True, nogil=True)
def _wars_until(pile0, n0, pile1, n1, cap, face_down, pickup, ranks, tricks):
    mask = cap - 1
    buf, head, size = _load(pile0, n0, pile1, n1, cap)
    pot = np.zeros((2, cap), dtype=np.int8)
    counts = np.zeros(ranks, dtype=np.int64)
    wars = np.zeros(1, dtype=np.int64)
    for _ in range(tricks):
        _trick(buf, head, size, mask, face_down, pickup, pot, counts, wars)
    return wars[0]


@numba.njit(cache=True, nogil=True)
def _simulate(pile0, n0, pile1, n1, cap, face_down, pickup, ranks, max_tricks):
    """(winner, tricks, reason index, wars, cycle_start, cycle_period); -1 where not a cycle."""
    mask = cap - 1
    buf, head, size = _load(pile0, n0, pile1, n1, cap)
    sbuf, shead, ssize = _load(pile0, n0, pile1, n1, cap)  # Brent's saved position
    pot = np.zeros((2, cap), dtype=np.int8)
    counts = np.zeros(ranks, dtype=np.int64)
    wars = np.zeros(1, dtype=np.int64)
    power = 1
    lam = 1
    t = 0
    # Past max_tricks the game is a draw anyway, but a repetition before it may not have been
    # caught yet: Brent finds any cycle with start + period <= m by trick 3m, so look that far.
    limit = 4 * max_tricks + 4
    while True:
        if size[0] == 0 or size[1] == 0:
            if t > max_tricks:
                break  # the game ended after the limit: no cycle, a max_tricks draw
            return (1 if size[0] == 0 else 0), t, 0, wars[0], -1, -1
        if t > 0:
            if _same(buf, head, size, sbuf, shead, ssize, mask):
                mu = _first_repeat(pile0, n0, pile1, n1, cap, face_down, pickup, ranks, lam)
                if mu + lam <= max_tricks:
                    w = _wars_until(pile0, n0, pile1, n1, cap, face_down, pickup, ranks, mu + lam)
                    return -1, mu + lam, 3, w, mu, lam
                break
            if power == lam:
                sbuf[:, :] = buf
                shead[:] = head
                ssize[:] = size
                power *= 2
                lam = 0
            lam += 1
        if t >= limit:
            break
        code = _trick(buf, head, size, mask, face_down, pickup, pot, counts, wars)
        if code >= 2:
            # A player ran out during a war.
            if t >= max_tricks:
                break
            if code == _BOTH:
                return -1, t, 1, wars[0], -1, -1
            return (1 if code == _OUT0 else 0), t, 0, wars[0], -1, -1
        t += 1
    w = _wars_until(pile0, n0, pile1, n1, cap, face_down, pickup, ranks, max_tricks)
    return -1, max_tricks, 2, w, -1, -1


@numba.njit(cache=True, nogil=True)
def _simulate_many(piles0, n0, piles1, n1, cap, face_down, pickup, ranks, max_tricks, out):
    for g in range(piles0.shape[0]):
        res = _simulate(piles0[g], n0[g], piles1[g], n1[g], cap, face_down, pickup, ranks, max_tricks)
        for j in range(6):
            out[g, j] = res[j]


def _capacity(num_cards: int) -> int:
    cap = 1
    while cap < num_cards:
        cap *= 2
    return cap


def _pickup_code(rules: WarRules) -> int:
    if rules.pickup not in PICKUP_CODES:
        raise ValueError(
            f"fast simulation needs a fixed convention {tuple(PICKUP_CODES)}, got {rules.pickup!r}"
        )
    return PICKUP_CODES[rules.pickup]


def simulate(deal: Deal | str, rules: WarRules = DEFAULT_RULES, seed: int | None = None) -> Simulation:
    """The exact outcome and length of the game on ``deal`` with both players on ``rules.pickup``.

    Fixed conventions run in the compiled kernel (with cycle detection); ``random`` runs in the
    engine with the given ``seed`` (no cycles: the game is not deterministic).
    """
    deal = parse_deal(deal, rules)
    if rules.pickup == "random":
        return play_game(deal, rules, seed=seed)  # no cycles: the engine looks for none under random
    n = rules.num_cards
    piles = np.zeros((2, n), dtype=np.int8)
    for p in range(2):
        piles[p, : len(deal.piles[p])] = deal.piles[p]
    # call_kernel: a SIGINT inside a numba kernel broke it; it is raised once the kernel returns.
    res = call_kernel(
        _simulate, piles[0], len(deal.piles[0]), piles[1], len(deal.piles[1]), _capacity(n),
        rules.face_down, _pickup_code(rules), rules.ranks, rules.max_tricks,
    )  # fmt: skip
    winner, tricks, reason, wars, start, period = (int(x) for x in res)
    cycle = reason == 3
    return Simulation(
        winner, tricks, REASONS[reason], wars, start if cycle else None, period if cycle else None
    )


def random_decks(
    games: int, seed: int | np.random.Generator | None, rules: WarRules = DEFAULT_RULES
) -> np.ndarray:
    """``games`` shuffled decks (rows of ranks), dealt by ``simulate_many`` alternately."""
    rng = np.random.default_rng(seed)
    base = np.repeat(np.arange(rules.ranks, dtype=np.int8), rules.suits)
    return rng.permuted(np.tile(base, (games, 1)), axis=1)


def simulate_many(decks: np.ndarray, rules: WarRules = DEFAULT_RULES) -> np.ndarray:
    """Simulate one game per shuffled deck (dealt alternately, player 0 first).

    Returns an int64 array with one row per game: winner, tricks, reason index (into ``REASONS``),
    wars, cycle start, cycle period (-1 when not a cycle).
    """
    decks = np.ascontiguousarray(decks, dtype=np.int8)
    n = rules.num_cards
    if decks.ndim != 2 or decks.shape[1] != n:
        raise ValueError(f"decks must have shape (games, {n}), got {decks.shape}")
    p0 = np.ascontiguousarray(decks[:, 0::2])
    p1 = np.ascontiguousarray(decks[:, 1::2])
    games = decks.shape[0]
    n0 = np.full(games, p0.shape[1], dtype=np.int64)
    n1 = np.full(games, p1.shape[1], dtype=np.int64)
    pad0 = np.zeros((games, n), dtype=np.int8)
    pad1 = np.zeros((games, n), dtype=np.int8)
    pad0[:, : p0.shape[1]] = p0
    pad1[:, : p1.shape[1]] = p1
    out = np.zeros((games, 6), dtype=np.int64)
    # In chunks, each with Ctrl-C held back (a SIGINT inside a numba kernel breaks it): an
    # interrupt waits for one chunk, not for every game asked for.
    for lo in range(0, games, _CHUNK_GAMES):
        hi = min(games, lo + _CHUNK_GAMES)
        call_kernel(
            _simulate_many, pad0[lo:hi], n0[lo:hi], pad1[lo:hi], n1[lo:hi], _capacity(n),
            rules.face_down, _pickup_code(rules), rules.ranks, rules.max_tricks, out[lo:hi],
        )  # fmt: skip
    return out

"""The game model's turns (order from the starter, the order of a round's draws) and symbols."""

from __future__ import annotations

from typing import Any

from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    DOUBLE,
    DRAW,
    HIDDEN,
    NUM_SYMBOLS,
    SIMULTANEOUS,
    symbol_of,
)
from tabletop_gym.oracles.modern_art.model_base import _Game


def _turn_counts(g: _Game) -> None:
    """Turns: one turn card a turn, in order from the starter; only an empty hand is skipped."""
    m, V, n, R, total_hand, turn, st, empty = g.m, g.V, g.n, g.R, g.total_hand, g.turn, g.st, g.empty
    T = [[V(0, total_hand, f"T{r}_{p}") for p in range(n)] for r in range(R)]
    for r in range(R):
        for p in range(n):
            m.Add(T[r][p] == sum(turn[r][p]))
        for p in range(n):
            for q in range(n):
                if p == q:
                    continue
                # p comes before q in this round's order iff the starter is one of q+1, ..., p
                before = sum(st[r][(q + 1 + i) % n] for i in range((p - q) % n))
                m.Add(T[r][p] >= T[r][q] - 1 + before).OnlyEnforceIf(empty[r][p].Not())
    g.T = T


def _draw_order(g: _Game) -> None:
    """Cards and deals (fixed deal): the order of a round's draws (see ``build_model``)."""
    draw_lap: list[list] = [[] for _ in range(g.R)]  # per round, the lap of each draw index (fixed deal)
    if g.tab is not None and g.draw_order:
        # The order of a round's draws. A player's turns are the first T of the round's laps (an
        # emptied hand stays empty), so its turn in lap c comes at time n c + its place from the
        # starter. Draw index d (the d-th card drawn in the game, a known deck position for each
        # round) is drawn in round r when it lies between the draws before the round and after it,
        # by one player in one of its turns, later than index d - 1 if that was drawn in the round
        # too; the drawers take exactly the kinds at their indices. A turn card of a kind a player
        # holds fewer of at the round's start was drawn in that round, at an earlier turn.
        for r in range(g.R):
            indices = _draw_indices(g, r, draw_lap[r])
            for p in range(g.n):
                _first_draw_in_time(g, r, p, indices)
                _draws_spend_draw_cards(g, r, p, indices)
                _kinds_drawn(g, r, p, indices)
    g.draw_lap = draw_lap


def _draw_indices(g: _Game, r: int, laps: list) -> list[tuple[int, list, Any]]:
    """The draw indices round ``r`` may draw, in order, as (kind, owner flags, lap): who draws each,
    at which lap, after the index before it; each index's lap is appended to ``laps``."""
    m, V, B, n, N, dmax, tab = g.m, g.V, g.B, g.n, g.N, g.dmax, g.tab
    st, dle, T, total_hand, cards = g.st, g.dle, g.T, g.total_hand, g.cards
    off = [sum(st[r][s] * ((p - s) % n) for s in range(n)) for p in range(n)]
    before = dle[r - 1] if r else 0
    indices: list[tuple[int, list, Any]] = []
    last = None
    for d in range(dmax):
        at = tab["first_draw"][r] + d
        if at >= N:
            break
        drawn_by_end, drawn_before = B(f"De{r}_{d}"), B(f"Db{r}_{d}")
        m.Add(dle[r] >= d + 1).OnlyEnforceIf(drawn_by_end)
        m.Add(dle[r] <= d).OnlyEnforceIf(drawn_by_end.Not())
        m.Add(before >= d + 1).OnlyEnforceIf(drawn_before)
        m.Add(before <= d).OnlyEnforceIf(drawn_before.Not())
        owner = [B(f"Do{r}_{d}_{p}") for p in range(n)]
        m.Add(sum(owner) == drawn_by_end - drawn_before)
        lap = V(0, total_hand, f"Dl{r}_{d}")
        laps.append(lap)
        time_ = V(0, n * (total_hand + 1), f"Dt{r}_{d}")
        for p in range(n):
            m.Add(time_ == n * lap + off[p]).OnlyEnforceIf(owner[p])
            m.Add(lap <= T[r][p] - 1).OnlyEnforceIf(owner[p])
        if last is not None:  # both this index and the one before drawn in round r
            m.Add(time_ >= last[1] + 1).OnlyEnforceIf([drawn_by_end, last[0].Not()])
        last = (drawn_before, time_)
        indices.append((cards[at], owner, lap))
    return indices


def _first_draw_in_time(g: _Game, r: int, p: int, indices: list[tuple[int, list, Any]]) -> None:
    """Before its first draw a player's turn cards come from its hand at the round's start, none of
    them a draw card: it draws first at a lap no later than its other cards there."""
    m, B = g.m, g.B
    others = sum(g.held_at_start(r, p, k) for k in range(g.K) if symbol_of(k) != DRAW)
    soon = []
    for _, owner, lap in indices:
        flag = B(f"Df{r}_{p}_{len(soon)}")
        m.AddImplication(flag, owner[p])
        m.Add(lap <= others).OnlyEnforceIf(flag)
        soon.append(flag)
    drew = B(f"Dd{r}_{p}")
    m.Add(g.dr[r][p] >= 1).OnlyEnforceIf(drew)
    m.Add(g.dr[r][p] == 0).OnlyEnforceIf(drew.Not())
    m.AddBoolOr(soon).OnlyEnforceIf(drew)


def _draws_spend_draw_cards(g: _Game, r: int, p: int, indices: list[tuple[int, list, Any]]) -> None:
    """Each draw spends a draw card in the drawer's hand: one it held at the round's start or one it
    drew itself at an earlier index (the card drawn at an index is not in hand before it). So its
    draws up to an index are at most those two counts."""
    held_draws = sum(g.held_at_start(r, p, k) for k in g.draw_kinds)
    so_far, drawn_draws = [], []
    for kind, owner, _ in indices:
        so_far.append(owner[p])
        g.m.Add(sum(so_far) <= held_draws + sum(drawn_draws)).OnlyEnforceIf(owner[p])
        if symbol_of(kind) == DRAW:
            drawn_draws.append(owner[p])


def _kinds_drawn(g: _Game, r: int, p: int, indices: list[tuple[int, list, Any]]) -> None:
    """The player takes exactly the kinds at the indices it draws, and a turn card of a kind it held
    fewer of at the round's start was drawn in the round, at an earlier turn of its own."""
    m, B, took, turn, T = g.m, g.B, g.took, g.turn, g.T
    for k in range(g.K):
        at_k = [(owner, lap) for kind, owner, lap in indices if kind == k]
        mine = [owner[p] for owner, _ in at_k]
        if not mine:
            if not isinstance(took[r][p][k], int):
                m.Add(took[r][p][k] == 0)
            continue
        m.Add(took[r][p][k] == sum(mine))
        held = g.held_at_start(r, p, k)
        needs = B(f"Dn{r}_{p}_{k}")
        m.Add(turn[r][p][k] >= held + 1).OnlyEnforceIf(needs)
        m.Add(turn[r][p][k] <= held).OnlyEnforceIf(needs.Not())
        early = []
        for owner, lap in at_k:
            flag = B(f"Dx{r}_{p}_{k}_{len(early)}")
            m.AddImplication(flag, owner[p])
            m.Add(lap <= T[r][p] - 2).OnlyEnforceIf(flag)
            early.append(flag)
        m.AddBoolOr(early).OnlyEnforceIf(needs)


def _symbols(g: _Game) -> None:
    """Symbols: award tokens need award turn cards, a hidden card brings one face-down card, a
    simultaneous card one answer from every other player, a double a second card of its artist."""
    m, V, n, R, A, tokens, total_hand, rules = g.m, g.V, g.n, g.R, g.A, g.tokens, g.total_hand, g.rules
    kinds_of, turn, sec, down = g.kinds_of, g.turn, g.sec, g.down
    aw = [[V(0, tokens, f"aw{r}_{a}") for a in range(A)] for r in range(R)]
    award_turns: list = []
    answered: list[list] = [[] for _ in range(R)]  # per round and player: its answers per artist
    m.Add(sum(aw[r][a] for r in range(R) for a in range(A)) <= tokens)
    for r in range(R):
        award_turns.append(sum(turn[r][p][a * NUM_SYMBOLS + AWARD] for p in range(n) for a in range(A)))
        m.Add(sum(aw[r]) <= award_turns[r])
        sims = [sum(turn[r][p][a * NUM_SYMBOLS + SIMULTANEOUS] for a in range(A)) for p in range(n)]
        for p in range(n):
            m.Add(sum(down[r][p]) <= sum(turn[r][p][a * NUM_SYMBOLS + HIDDEN] for a in range(A)))
            simp = [V(0, total_hand, f"sp{r}_{p}_{a}") for a in range(A)]
            answered[r].append(simp)
            m.Add(sum(simp) <= sum(sims[q] for q in range(n) if q != p))
            for a in range(A):
                double = turn[r][p][a * NUM_SYMBOLS + DOUBLE]
                if rules.simultaneous_same_artist:
                    m.Add(
                        simp[a] <= sum(turn[r][q][a * NUM_SYMBOLS + SIMULTANEOUS] for q in range(n) if q != p)
                    )
                # end-of-round plays: one more card of each artist (displayed face up this round)
                end_play = 1 if rules.end_of_round_plays else 0
                m.Add(sum(sec[r][p][k] for k in kinds_of(a)) <= double + simp[a] + end_play)
    g.aw = aw
    g.award_turns = award_turns
    g.answered = answered

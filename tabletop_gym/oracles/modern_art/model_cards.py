"""The game model's cards and deals: what is played, the starters and draws, the extra cards,
what each player receives and holds, and the first draws of a round."""

from __future__ import annotations

from tabletop_gym.envs.modern_art.rules import (
    DRAW,
    NUM_SYMBOLS,
)
from tabletop_gym.oracles.modern_art.model_base import _Game


def _cards_played(g: _Game) -> None:
    """Cards and deals: the turn cards, face-up second cards and face-down cards per round, player
    and kind, no more of a kind than the deck holds."""
    m, V, n, R, K, count = g.m, g.V, g.n, g.R, g.K, g.count
    turn = [[[V(0, count[k], f"t{r}_{p}_{k}") for k in range(K)] for p in range(n)] for r in range(R)]
    sec = [[[V(0, count[k], f"s{r}_{p}_{k}") for k in range(K)] for p in range(n)] for r in range(R)]
    down = [[[V(0, count[k], f"h{r}_{p}_{k}") for k in range(K)] for p in range(n)] for r in range(R)]
    for k in range(K):
        m.Add(
            sum(turn[r][p][k] + sec[r][p][k] + down[r][p][k] for r in range(R) for p in range(n)) <= count[k]
        )
    g.turn = turn
    g.sec = sec
    g.down = down


def _starters_and_draws(g: _Game) -> None:
    """Cards and deals: one starter a round (seat 0 first) and the draws, each needing a draw turn
    card; where the deck cannot run out every draw card played draws but the one that ends the round."""
    m, V, B, n, R, A, N, ex_each, dmax = g.m, g.V, g.B, g.n, g.R, g.A, g.N, g.ex_each, g.dmax
    rules, turn = g.rules, g.turn
    st = [[B(f"st{r}_{p}") for p in range(n)] for r in range(R)]
    for r in range(R):
        m.AddExactlyOne(st[r])
    m.Add(st[0][0] == 1)
    dr = [[V(0, dmax, f"d{r}_{p}") for p in range(n)] for r in range(R)]
    dle = [V(0, dmax, f"D{r}") for r in range(R)]  # draws made by the end of round r
    never_short = n * sum(rules.deals) + (R if ex_each else 1) + dmax <= N
    unresolved_draw: list[list | None] = [None] * R
    for r in range(R):
        m.Add(dle[r] == sum(dr[q][p] for q in range(r + 1) for p in range(n)))
        for p in range(n):
            m.Add(dr[r][p] <= sum(turn[r][p][a * NUM_SYMBOLS + DRAW] for a in range(A)))
        if never_short:
            # Every draw card played draws, but for the one that ends the round (its symbol is not
            # resolved): the deck cannot run out.
            unresolved = [B(f"ud{r}_{p}") for p in range(n)]
            m.AddAtMostOne(unresolved)
            unresolved_draw[r] = unresolved
            for p in range(n):
                # (exactly: the unresolved card draws nothing)
                m.Add(dr[r][p] == sum(turn[r][p][a * NUM_SYMBOLS + DRAW] for a in range(A)) - unresolved[p])
    g.st = st
    g.dr = dr
    g.dle = dle
    g.never_short = never_short
    g.unresolved_draw = unresolved_draw


def _extra_cards(g: _Game) -> None:
    """Cards and deals: the extra card(s), from the deal (by the draws before the round) or free."""
    m, V, B, R, A, ex_each, tab, dle = g.m, g.V, g.B, g.R, g.A, g.ex_each, g.tab, g.dle
    extra = [[0] * A for _ in range(R)]
    if tab is not None:
        extra[0] = tab["extra"][0]
        for r in range(1, R):
            if ex_each:
                for a in range(A):
                    e = V(0, 1, f"x{r}_{a}")
                    m.AddElement(dle[r - 1], tab["extra"][r][a], e)
                    extra[r][a] = e
    else:
        for r in range(R if ex_each else 1):
            xs = [B(f"x{r}_{a}") for a in range(A)]
            m.AddExactlyOne(xs)
            extra[r] = xs
    g.extra = extra


def _cards_received(g: _Game) -> None:
    """Cards and deals: what each player has received by the end of each round, exactly by deck
    position on a fixed deal (``_deck_tables``), within the deck's counts on a free one."""
    m, V, n, R, A, K, count, N, ex_each = g.m, g.V, g.n, g.R, g.A, g.K, g.count, g.N, g.ex_each
    dmax, tab, rules, kinds_of, st, dr, dle = g.dmax, g.tab, g.rules, g.kinds_of, g.st, g.dr, g.dle
    extra = g.extra
    recv = [[[None] * K for _ in range(n)] for _ in range(R)]
    took = [[[0] * K for _ in range(n)] for _ in range(R)]  # cards drawn, per round, player and kind
    if tab is not None:
        for r in range(R):
            off = [sum(st[r][s] * ((p - s) % n) for s in range(n)) for p in range(n)]
            for k in range(K):
                win = None
                lo = tab["draws"][r][k]
                if max(lo) > 0:
                    win = V(0, count[k], f"w{r}_{k}")
                    end = V(0, count[k], f"we{r}_{k}")
                    m.AddElement(dle[r], lo, end)
                    if r == 0:
                        m.Add(win == end - lo[0])
                    else:
                        beg = V(0, count[k], f"wb{r}_{k}")
                        m.AddElement(dle[r - 1], lo, beg)
                        m.Add(win == end - beg)
                drawn = [V(0, count[k], f"g{r}_{p}_{k}") if win is not None else 0 for p in range(n)]
                for p in range(n):
                    took[r][p][k] = drawn[p]
                if win is not None:
                    m.Add(sum(drawn) == win)
                for p in range(n):
                    prev = tab["hand1"][p][k] if r == 0 else recv[r - 1][p][k]
                    got = 0
                    if r > 0 and max(tab["deal"][r][k]) > 0:
                        idx = V(0, (dmax + 1) * n - 1, f"i{r}_{p}_{k}")
                        m.Add(idx == dle[r - 1] * n + off[p])
                        got = V(0, count[k], f"dl{r}_{p}_{k}")
                        m.AddElement(idx, tab["deal"][r][k], got)
                    recv[r][p][k] = prev + got + drawn[p]
            for p in range(n):
                m.Add(sum(recv[r][p][k] - (tab["hand1"][p][k] if r == 0 else recv[r - 1][p][k])
                          for k in range(K)) <= rules.deals[r] * (r > 0) + dr[r][p])  # fmt: skip
    else:
        dealt = n * sum(rules.deals) + (R if ex_each else 1)
        lasts = dealt <= N  # otherwise later deals may fall short: counts become upper bounds
        m.Add(dle[R - 1] <= max(0, N - dealt))
        for r in range(R):
            for p in range(n):
                got = [V(0, count[k], f"g{r}_{p}_{k}") for k in range(K)]
                drawn = V(0, dmax, f"gd{r}_{p}")
                m.Add(drawn <= dr[r][p])
                if lasts:
                    m.Add(sum(got) == rules.deals[r] + drawn)
                else:
                    m.Add(sum(got) <= rules.deals[r] + drawn)
                for k in range(K):
                    recv[r][p][k] = got[k] + (recv[r - 1][p][k] if r else 0)
        for k in range(K):
            m.Add(sum(recv[R - 1][p][k] for p in range(n)) <= count[k])
        # each extra card is a card of the deck too: per artist
        for a in range(A):
            m.Add(
                sum(recv[R - 1][p][k] for p in range(n) for k in kinds_of(a))
                + sum(extra[r][a] for r in range(R))
                <= sum(rules.deck[a])
            )
    g.recv = recv
    g.took = took


def _cards_held(g: _Game) -> None:
    """Cards and deals: a player plays only cards it received; a hand is empty at a round's end
    exactly when all its cards were played."""
    m, B, n, R, K, turn, sec, down, recv = g.m, g.B, g.n, g.R, g.K, g.turn, g.sec, g.down, g.recv
    played = [[[None] * K for _ in range(n)] for _ in range(R)]
    empty = [[B(f"e{r}_{p}") for p in range(n)] for r in range(R)]
    for r in range(R):
        for p in range(n):
            for k in range(K):
                played[r][p][k] = (
                    turn[r][p][k] + sec[r][p][k] + down[r][p][k] + (played[r - 1][p][k] if r else 0)
                )
                m.Add(played[r][p][k] <= recv[r][p][k])
            left = sum(recv[r][p][k] - played[r][p][k] for k in range(K))
            m.Add(left == 0).OnlyEnforceIf(empty[r][p])
            m.Add(left >= 1).OnlyEnforceIf(empty[r][p].Not())

    g.played = played
    g.empty = empty


def _first_draws(g: _Game) -> None:
    """Cards and deals (fixed deal): the first draw card a player plays in a round was in its hand
    at the round's start, and the round's last card drawn is not a turn card that draws again."""
    m, B, n, R, A, dmax, tab, held_at_start = g.m, g.B, g.n, g.R, g.A, g.dmax, g.tab, g.held_at_start
    turn, dr, dle, never_short, unresolved_draw = g.turn, g.dr, g.dle, g.never_short, g.unresolved_draw
    recv, took, played = g.recv, g.took, g.played
    if tab is not None:
        # A hand grows during a round only by its own draws, and a draw needs a draw card: the first
        # draw card a player plays in a round was in its hand at the round's start. Cards of one kind
        # are alike, so some kind it plays as a draw turn card was held at the start.
        draw_kinds = [a * NUM_SYMBOLS + DRAW for a in range(A)]
        for r in range(R):
            for p in range(n):
                starters = []
                for k in draw_kinds:
                    held = held_at_start(r, p, k)
                    first = B(f"df{r}_{p}_{k}")
                    m.Add(turn[r][p][k] >= 1).OnlyEnforceIf(first)
                    m.Add(held >= 1).OnlyEnforceIf(first)
                    starters.append(first)
                m.Add(sum(turn[r][p][k] for k in draw_kinds) <= dmax * sum(starters))
        if never_short:
            # The round's last card drawn is not played as a turn card that draws: that would draw
            # once more. So if it is a draw card, its drawer plays one fewer of its kind as a turn
            # card than it has (unless that card ends the round with its symbol unresolved).
            for r in range(R):
                drew = B(f"dw{r}")
                m.Add(dle[r] - (dle[r - 1] if r else 0) >= 1).OnlyEnforceIf(drew)
                m.Add(dle[r] - (dle[r - 1] if r else 0) == 0).OnlyEnforceIf(drew.Not())
                last_drawer = [B(f"ld{r}_{p}") for p in range(n)]
                m.Add(sum(last_drawer) == drew)
                for p in range(n):
                    m.Add(dr[r][p] >= 1).OnlyEnforceIf(last_drawer[p])
                for k in draw_kinds:
                    at = tab["draws"][r][k]  # kind k's cards before each draw count, from this round on
                    lasts = [0] + [at[d] - at[d - 1] for d in range(1, dmax + 1)]
                    if max(lasts) == 0:
                        continue
                    last_is = B(f"lk{r}_{k}")
                    m.AddElement(dle[r], lasts, last_is)
                    for p in range(n):
                        m.Add(took[r][p][k] >= 1).OnlyEnforceIf([last_drawer[p], drew, last_is])
                        m.Add(
                            turn[r][p][k]
                            <= recv[r][p][k] - (played[r - 1][p][k] if r else 0) - 1 + unresolved_draw[r][p]
                        ).OnlyEnforceIf([last_drawer[p], drew, last_is])

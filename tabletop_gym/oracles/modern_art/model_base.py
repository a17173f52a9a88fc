"""What the game model is built on: the deal's tables (where each card can go), what the seat can
hold by each round, and ``_Game``, the model under construction with the variables its rule families
share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ortools.sat.python import cp_model

from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    DRAW,
    HIDDEN,
    NUM_ARTISTS,
    NUM_KINDS,
    NUM_SYMBOLS,
    ModernArtRules,
    artist_of,
    symbol_of,
)


def _deck_tables(rules: ModernArtRules, cards: Sequence[int]) -> dict[str, Any]:
    """Where each card of a fixed deal can go, as tables indexed by the number of draws made so far."""
    n, N, R = rules.players, len(cards), rules.rounds
    ex = 1 if rules.extra_card_each_round else 0
    first = rules.deals[0] * n
    hand1 = [[0] * NUM_KINDS for _ in range(n)]
    for t in range(first):
        hand1[t % n][cards[t]] += 1
    dmax = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    # F[r]: where round r's draws start when no card has been drawn before (extra card(s) and deals).
    F = [first + 1]
    for r in range(1, R):
        F.append(F[-1] + n * rules.deals[r] + ex)
    cum = [[0] * (N + 1) for _ in range(NUM_KINDS)]
    for x in range(N):
        for k in range(NUM_KINDS):
            cum[k][x + 1] = cum[k][x] + (cards[x] == k)

    def cum_at(k: int, x: int) -> int:
        return cum[k][min(x, N)]

    draws = [[[cum_at(k, F[r] + d) for d in range(dmax + 1)] for k in range(NUM_KINDS)] for r in range(R)]
    deal = [None]  # deal[r][k][d * n + offset]: kind k dealt to the player `offset` after the starter
    extra = [[int(artist_of(cards[first]) == a) for a in range(NUM_ARTISTS)]]
    for r in range(1, R):
        start = F[r - 1]
        table = [[0] * ((dmax + 1) * n) for _ in range(NUM_KINDS)]
        for d in range(dmax + 1):
            for t in range(n * rules.deals[r]):
                pos = start + d + t
                if pos < N:
                    table[cards[pos]][d * n + t % n] += 1
        deal.append(table)
        pos_extra = [start + d + n * rules.deals[r] for d in range(dmax + 1)]
        extra.append(
            [[int(ex and p < N and artist_of(cards[p]) == a) for p in pos_extra] for a in range(NUM_ARTISTS)]
        )
    return {"hand1": hand1, "draws": draws, "deal": deal, "extra": extra, "dmax": dmax, "first_draw": F}


class _Game:
    """The game model under construction: the CP-SAT model, the rules' sizes, and the variables each
    rule family adds for the later ones (``turn``, ``sec``, ``down``, ``st``, ``recv``, ``T``, ...).

    The families run in a fixed order (``build_model``): CP-SAT's search depends on the order of
    variables and constraints, so the order is part of what the model is."""

    def __init__(self, rules: ModernArtRules, cards: Sequence[int] | None, draw_order: bool) -> None:
        self.rules, self.cards, self.draw_order = rules, cards, draw_order
        n, R, A, K = rules.players, rules.rounds, NUM_ARTISTS, NUM_KINDS
        self.n, self.R, self.A, self.K = n, R, A, K
        self.L = rules.round_limit
        self.P = len(rules.value_tokens)
        self.count = [rules.deck[artist_of(k)][symbol_of(k)] for k in range(K)]
        self.N = rules.num_cards
        self.ex_each = 1 if rules.extra_card_each_round else 0
        self.dmax = sum(rules.deck[a][DRAW] for a in range(A))
        self.tab = _deck_tables(rules, cards) if cards is not None else None
        self.tokens = min(rules.award_tokens, sum(rules.deck[a][AWARD] for a in range(A)))
        self.total_hand = rules.deals[0] + sum(rules.deals[1:]) + self.dmax
        self.draw_kinds = [a * NUM_SYMBOLS + DRAW for a in range(A)]
        # the last display (a double with its second card, or a simultaneous card with every other
        # player's card) adds at most this many cards above ``limit - 1`` in all
        self.excess_max = max(2, n)
        self.m = cp_model.CpModel()
        self.V = self.m.NewIntVar
        self.B = self.m.NewBoolVar

    @staticmethod
    def kinds_of(a: int) -> range:
        return range(a * NUM_SYMBOLS, (a + 1) * NUM_SYMBOLS)

    def held_at_start(self, r: int, p: int, k: int) -> Any:
        """Player p's cards of kind k as round r starts (its deal in, nothing drawn yet)."""
        return self.recv[r][p][k] - self.took[r][p][k] - (self.played[r - 1][p][k] if r else 0)

    def carries(self, mine: cp_model.IntVar, r: int, p: int, a: int, symbol: int) -> cp_model.IntVar:
        """A flag: the last turn card (``mine``: player p's, of artist a) carries ``symbol``; then p
        played such a turn card in round r."""
        flag = self.B(f"l{symbol}_{r}_{p}_{a}")
        self.m.AddImplication(flag, mine)
        self.m.Add(self.turn[r][p][a * NUM_SYMBOLS + symbol] >= 1).OnlyEnforceIf(flag)
        return flag


def _received_by(rules: ModernArtRules) -> list[int]:
    """Per round, the deck position before which lie all the cards anyone can have received by its
    end (hands, extra cards, later deals, and every draw card of the deck drawn)."""
    n, ex_each = rules.players, 1 if rules.extra_card_each_round else 0
    dmax = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    first = rules.deals[0] * n + 1
    return [first + sum(n * rules.deals[q] + ex_each for q in range(1, r + 1)) + dmax
            for r in range(rules.rounds)]  # fmt: skip


def _seat_reach(rules: ModernArtRules, cards: Sequence[int] | None, seat: int) -> dict[str, list]:
    """What the seat can have by the end of each round, whatever the starters and draws: per artist
    the most cards of it received ("artist"), the most cards in all ("total": dealt, plus one draw
    per draw card it can have received), the award cards any hand can have played ("awards", at most
    the tokens) and the hidden cards the seat can hold ("hidden"). With ``cards=None`` (any deal) the
    deck's own counts."""
    n, R, A = rules.players, rules.rounds, NUM_ARTISTS
    dmax = sum(rules.deck[a][DRAW] for a in range(A))
    tokens = min(rules.award_tokens, sum(rules.deck[a][AWARD] for a in range(A)))
    dealt = [rules.deals[0] + sum(rules.deals[1 : r + 1]) for r in range(R)]
    if cards is None:
        hidden = sum(rules.deck[a][HIDDEN] for a in range(A))
        return {
            "artist": [[sum(rules.deck[a])] * R for a in range(A)], "total": [d + dmax for d in dealt],
            "awards": [tokens] * R, "hidden": [hidden] * R,
        }  # fmt: skip
    tab = _deck_tables(rules, cards)
    first = rules.deals[0] * n
    hidden, awards = [], []
    for end in _received_by(rules):
        held = sum(tab["hand1"][seat][a * NUM_SYMBOLS + HIDDEN] for a in range(A))
        hidden.append(held + sum(1 for k in cards[first:end] if symbol_of(k) == HIDDEN))
        awards.append(min(tokens, sum(1 for k in cards[:end] if symbol_of(k) == AWARD)))

    def most(kinds: Sequence[int]) -> list[int]:
        """Per round, the most cards of ``kinds`` the seat can have received by its end."""
        # best[d]: the most when d cards have been drawn so far. Round r deals to the seat (from any
        # starter) after the draws so far, then its draws are the next positions: the seat may take
        # every card of ``kinds`` among them.
        best = {0: sum(tab["hand1"][seat][k] for k in kinds)}
        row = []
        for r in range(R):
            nxt: dict[int, int] = {}
            for d0, held in best.items():
                if r:
                    held += max(sum(tab["deal"][r][k][d0 * n + off] for k in kinds) for off in range(n))
                for d1 in range(d0, dmax + 1):
                    got = held + sum(tab["draws"][r][k][d1] - tab["draws"][r][k][d0] for k in kinds)
                    nxt[d1] = max(nxt.get(d1, 0), got)
            row.append(max(nxt.values()))
            best = nxt
        return row

    artist = [most(range(a * NUM_SYMBOLS, (a + 1) * NUM_SYMBOLS)) for a in range(A)]
    # each draw needs a draw card of the seat's own, played as a turn card
    draw_cards = most([a * NUM_SYMBOLS + DRAW for a in range(A)])
    total = [dealt[r] + min(dmax, draw_cards[r]) for r in range(R)]
    return {"artist": artist, "total": total, "awards": awards, "hidden": hidden}

"""The most cards player 0 can hold after the first T tricks of a deal: exact search.

Works for the full 52-card deck because the order of a won pot is decided lazily: a pot goes under
player 0's pile as an unordered block, and only when one of its cards is turned (face up or face
down) does the search branch on which rank it is. Cards that are never turned within the horizon
never cause a branch, so the search only ever explores choices that can change the outcome. A table
of positions (piles, blocks, trick number) avoids solving the same sub-problem twice.

The value is exact (the search is exhaustive), so the result's bound equals its score. The plan
(player 0's decisions, as the environment takes them) is replayed through the engine with
``max_tricks = T`` before it is reported.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from tabletop_gym.core import OracleCache, OracleResult, check_int
from tabletop_gym.envs.war.rules import (
    DEFAULT_RULES,
    Deal,
    WarGame,
    WarRules,
    convention_order,
    parse_deal,
    replay,
)
from tabletop_gym.oracles.war.limits import MAX_SEARCH_HORIZON
from tabletop_gym.oracles.war.search import GAME, plan_for_orders

# A block is (pot id or -1 for a dealt card, sorted ranks still in it); pile 0 is a tuple of blocks.
Block = tuple[int, tuple[int, ...]]


class SearchBudgetError(ValueError):
    """The search passed its budget of positions (``max_nodes``) without an answer."""


def _size(blocks: tuple[Block, ...]) -> int:
    return sum(len(b[1]) for b in blocks)


def _take(blocks: tuple[Block, ...], k: int):
    """Every distinct way to turn player 0's next k cards: (ranks, events, blocks left)."""
    if k == 0:
        yield (), (), blocks
        return
    pot_id, ranks = blocks[0]
    for rank in sorted(set(ranks)):
        rest = list(ranks)
        rest.remove(rank)
        left = ((pot_id, tuple(rest)),) + blocks[1:] if rest else blocks[1:]
        event = ((pot_id, rank),) if pot_id >= 0 else ()
        for more, events, final in _take(left, k - 1):
            yield (rank,) + more, event + events, final


class _Search:
    def __init__(self, rules: WarRules, horizon: int, max_nodes: int) -> None:
        self.max_nodes = max_nodes
        self.rules = rules
        self.horizon = horizon
        self.n = rules.num_cards
        self.memo: dict = {}
        self.nodes = 0

    def best(self, blocks: tuple[Block, ...], pile1: tuple[int, ...], t: int, pots: int):
        """(most cards at the horizon, events) from the start of trick t."""
        if t == self.horizon:
            return _size(blocks), ()
        key = (blocks, pile1, t, pots)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        best: tuple[int, tuple] = (-1, ())
        for outcome in self._trick(blocks, pile1, (), (), ()):
            # The budget counts every way a trick is played out (each a position reached), not only
            # the positions expanded: one position with a war over large pots can have millions.
            self.nodes += 1
            if self.nodes > self.max_nodes:
                raise SearchBudgetError(
                    f"horizon search passed {self.max_nodes} positions; use a shorter horizon or raise "
                    "max_nodes"
                )
            if outcome[0] == "end":
                value, events = outcome[1], outcome[2]
            else:
                _, taker, pot0, pot1, left0, left1, events = outcome
                if taker == 0:
                    cards = tuple(sorted(pot0 + pot1))
                    nxt = self.best(left0 + ((pots, cards),), left1, t + 1, pots + 1)
                    value, events = nxt[0], events + (("pot", pots, cards),) + nxt[1]
                else:
                    order = tuple(convention_order((pot0, pot1), 1, self.rules.pickup, None))
                    nxt = self.best(left0, left1 + order, t + 1, pots)
                    value, events = nxt[0], events + nxt[1]
            if value > best[0]:
                best = (value, events)
                if value == self.n:
                    break  # nothing beats holding every card
        self.memo[key] = best
        return best

    def _trick(self, blocks, pile1, pot0, pot1, events):
        n0, n1 = _size(blocks), len(pile1)
        if n0 == 0 or n1 == 0:
            yield ("end", 0 if n0 == 0 else self.n, events)
            return
        for up, ev, left0 in _take(blocks, 1):
            c1 = pile1[0]
            p0, p1, evs = pot0 + up, pot1 + (c1,), events + ev
            if up[0] != c1:
                yield ("take", 0 if up[0] > c1 else 1, p0, p1, left0, pile1[1:], evs)
                continue
            d0 = max(0, min(self.rules.face_down, _size(left0) - 1))
            d1 = max(0, min(self.rules.face_down, n1 - 2))
            down1 = pile1[1 : 1 + d1]
            for down0, ev2, left00 in _take(left0, d0):
                yield from self._trick(left00, pile1[1 + d1 :], p0 + down0, p1 + down1, evs + ev2)


def solve_horizon(
    deal: Deal | str, tricks: int, rules: WarRules = DEFAULT_RULES, max_nodes: int = 1_000_000
) -> OracleResult:
    """The most cards player 0 can hold after ``tricks`` tricks (all of them after a win, none after
    a loss), proven by exhaustive search, with a plan the engine replays to exactly that."""
    if rules.pickup == "random":
        raise ValueError("the horizon search needs a fixed pickup convention for player 1, not 'random'")
    tricks = check_int("tricks", tricks, 1)
    max_nodes = check_int("max_nodes", max_nodes, 1)
    deal = parse_deal(deal, rules)
    horizon = min(tricks, rules.max_tricks)
    if horizon > MAX_SEARCH_HORIZON:
        raise ValueError(
            f"the horizon search covers horizons of 1 to {MAX_SEARCH_HORIZON} tricks, got {horizon}"
        )
    start = time.perf_counter()
    search = _Search(rules, horizon, max_nodes)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20 * horizon + 1000))
    try:
        value, events = search.best(tuple((-1, (r,)) for r in deal.piles[0]), deal.piles[1], 0, 0)
    finally:
        sys.setrecursionlimit(old)
    plan = plan_for_orders(deal, rules.replace(max_tricks=horizon), orders_from_events(events))
    game = replay(rules.replace(max_tricks=horizon), deal, plan)
    seconds = time.perf_counter() - start
    held = game.state.horizon_cards(0)
    if not game.done or held != value:
        raise AssertionError(f"horizon search claims {value} cards but its plan replays to {held} on {deal}")
    return OracleResult(
        score=value,
        bound=value,
        plan=tuple(plan),
        seconds=seconds,
        stats={"tricks": game.state.tricks, "horizon": horizon, "nodes": search.nodes, "method": "search"},
    )


class HorizonSearch:
    """The horizon search asked from positions reached in play (``tabletop_gym.oracles.war.moves``):
    one table of positions for every question of a deal, since each position's key holds its trick.
    ``horizon``: the trick the game stops at (the engine's ``max_tricks`` for the episode)."""

    def __init__(self, rules: WarRules, horizon: int, max_nodes: int) -> None:
        self._search = _Search(rules, horizon, max_nodes)

    def best_from(self, game: WarGame) -> tuple[int, list[tuple[int, ...]]]:
        """(the most cards player 0 can hold at the horizon from ``game``'s position, player 0 to
        choose or between tricks; the orders of the pots it takes that get them, the first being the
        rest of the pot it is picking up). ``SearchBudgetError`` past ``max_nodes`` positions."""
        state = game.state
        pot = tuple(sorted(state.to_place.elements())) if state.taker == 0 else ()
        # The pot being picked up is pot 0, an unordered block like any pot the search gives.
        blocks = tuple((-1, (r,)) for r in state.piles[0]) + (((0, pot),) if pot else ())
        search = self._search
        search.nodes = 0  # the budget is per question
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 20 * search.horizon + 1000))
        try:
            value, events = search.best(blocks, tuple(state.piles[1]), state.tricks, 1)
        finally:
            sys.setrecursionlimit(old)
        return value, orders_from_events(events, pot)


def orders_from_events(events, pot: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """Each pot's order from the search's events: its turned cards in turn, then the rest (never
    turned within the horizon, so irrelevant) in ascending order. ``pot``: the cards still to place
    of the pot being picked up where the search began (its pot 0), if any."""
    pots: dict[int, tuple[int, ...]] = {0: pot} if pot else {}
    picked: dict[int, list[int]] = {}
    for event in events:
        if event[0] == "pot":
            pots[event[1]] = event[2]
        else:
            picked.setdefault(event[0], []).append(event[1])
    orders = []
    for pot_id in sorted(pots):
        first = picked.get(pot_id, [])
        rest = Counter(pots[pot_id])
        rest.subtract(first)
        orders.append(tuple(first) + tuple(sorted(rest.elements())))
    return orders


def check_horizon(deal: Deal | str, tricks: int, rules: WarRules, result: OracleResult) -> bool:
    try:
        game = replay(rules.replace(max_tricks=min(tricks, rules.max_tricks)), deal, result.plan)
    except (ValueError, RuntimeError, TypeError):
        return False
    held = game.state.horizon_cards(0)
    return game.done and held == result.score and result.score <= result.bound


def solve_horizon_cached(
    deal: Deal | str, tricks: int, rules: WarRules = DEFAULT_RULES, cache: OracleCache | None = None
) -> OracleResult:
    deal = parse_deal(deal, rules)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(
        GAME,
        f"horizon{tricks}-{rules.variant}",
        str(deal),
        lambda: solve_horizon(deal, tricks, rules),
        lambda r: check_horizon(deal, tricks, rules, r),
    )

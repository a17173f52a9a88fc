"""The treasure-and-victory game's search (no kingdom cards): one decision a turn, which card to buy.

Positions are taken at the start of a turn's buy: (draw pile in order, discard pile, hand, shuffles
made) as counts of the seven base cards. Its lower bound and its depth-first iteration are described in
the package's docstring.
"""

from __future__ import annotations

import functools
import time

from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles.dominion.common import COPPER_COINS, GOLD_COINS, PROVINCE_COINS, SILVER_COINS

_BASE = len(R.BASE_CARDS)  # Copper, Silver, Gold, Estate, Duchy, Province, Curse: the supply here
_VALUE = R.COINS[:_BASE]
_STARTING = R.STARTING_DECK[:_BASE]  # the starting deck (not from the supply)
# The order buys are tried in: the usual good ones first, so solutions are met early.
_BUY_ORDER = (R.PROVINCE, R.GOLD, R.SILVER, R.PASS, R.COPPER, R.DUCHY, R.ESTATE, R.CURSE)


def _coins(hand: tuple[int, ...]) -> int:
    """The coins a hand makes (counts by card id: Copper, Silver and Gold are ids 0, 1, 2)."""
    return COPPER_COINS * hand[0] + SILVER_COINS * hand[1] + GOLD_COINS * hand[2]


class _Search:
    """The treasure game's search: its model of a turn, its lower bound and its tables."""

    def __init__(self, seed: int, target: int, deadline: float, work_limit: float = float("inf")) -> None:
        self.seed = seed
        self.target = target
        self.deadline = deadline
        self.work_limit = work_limit
        self.failed: dict[tuple, int] = {}  # position -> most turns proven not enough from it
        self.nodes = 0
        self.timed_out = False
        self.path: list[int] = []
        self.plan: list[int] | None = None
        self.start_supply = R.supply_sizes(1, ())[:_BASE]
        self._shuffles: dict[tuple, tuple[int, ...]] = {}

    # --- the model ---------------------------------------------------------------------------------
    def start(self) -> tuple:
        state = R.DominionState(1, (), self.seed, self.target)
        hand = tuple(state.hand[0][c] + state.in_play[0][c] for c in range(_BASE))
        return (tuple(state.draw[0]), (0,) * _BASE, hand, state.shuffles[0])

    def _shuffle(self, k: int, discard: list[int]) -> tuple[int, ...]:
        key = (k, tuple(discard))
        order = self._shuffles.get(key)
        if order is None:
            order = tuple(R.shuffle_cards(self.seed, 0, k, list(discard) + [0] * (R.NUM_CARDS - _BASE)))
            self._shuffles[key] = order
        return order

    def next_position(self, pos: tuple, buy: int) -> tuple:
        """Clean-up after buying ``buy`` (or passing): the engine's clean-up on the compact position."""
        draw, discard, hand, k = pos
        new_discard = [discard[c] + hand[c] for c in range(_BASE)]
        if buy != R.PASS:
            new_discard[buy] += 1
        if len(draw) >= R.HAND_SIZE:
            new_hand = [0] * _BASE
            for c in draw[-R.HAND_SIZE:]:
                new_hand[c] += 1
            return (draw[: -R.HAND_SIZE], tuple(new_discard), tuple(new_hand), k)
        new_hand = [0] * _BASE
        for c in draw:
            new_hand[c] += 1
        order = self._shuffle(k, new_discard)
        need = R.HAND_SIZE - len(draw)
        for c in order[len(order) - need :]:
            new_hand[c] += 1
        return (order[: len(order) - need], (0,) * _BASE, tuple(new_hand), k + 1)

    # --- the lower bound --------------------------------------------------------------------------
    def lower_bound(self, pos: tuple, needed: int) -> int:
        """Turns (this one included) that any play needs to buy ``needed`` more Provinces."""
        draw, discard, hand, _ = pos
        capable = 1 if _coins(hand) >= PROVINCE_COINS else 0
        if capable >= needed:
            return 1
        known = 1 + len(draw) // R.HAND_SIZE
        turn = 1
        end = len(draw)
        while end >= R.HAND_SIZE:
            turn += 1
            coins = 0
            for c in draw[end - R.HAND_SIZE : end]:
                coins += _VALUE[c]
            end -= R.HAND_SIZE
            if coins >= PROVINCE_COINS:
                capable += 1
                if capable >= needed:
                    return turn
        # After the known hands: one Province a turn at most, and only once the best five Treasures
        # owned reach $8. Cards bought from now on enter hands only after the next shuffle, i.e.
        # after the known turns; before they do, at most one card a turn can be added.
        extra = _turns_to_afford(*(draw.count(c) + discard[c] + hand[c]
                                   for c in (R.GOLD, R.SILVER, R.COPPER)))
        return max(known, extra) + (needed - capable)


@functools.cache  # a few thousand (gold, silver, copper) at most
def _turns_to_afford(gold: int, silver: int, copper: int) -> int:
    """Fewest cards to add (Golds, the best case) before 5 owned Treasures can make $8."""
    added = 0
    while True:
        best, left = 0, R.HAND_SIZE
        for value, count in ((GOLD_COINS, gold + added), (SILVER_COINS, silver), (COPPER_COINS, copper)):
            take = min(left, count)
            best += value * take
            left -= take
        if best >= PROVINCE_COINS:
            return added
        added += 1


def _iteration(search: _Search, pos: tuple, provinces: int, turns_left: int) -> bool:
    """Is there a play from ``pos`` owning the target within ``turns_left`` turns (this one included)?"""
    search.nodes += 1
    if search.nodes > search.work_limit or (search.nodes & 0xFFF == 0
                                            and time.perf_counter() > search.deadline):
        search.timed_out = True
    if search.timed_out:
        return False
    if search.failed.get(pos, -1) >= turns_left:
        return False
    needed = search.target - provinces
    if search.lower_bound(pos, needed) > turns_left:
        return False
    draw, discard, hand, _ = pos
    coins = _coins(hand)
    for buy in _BUY_ORDER:
        if buy != R.PASS:
            if R.COST[buy] > coins or (draw.count(buy) + discard[buy] + hand[buy] - _STARTING[buy]
                                       >= search.start_supply[buy]):
                continue  # unaffordable, or its supply pile is empty
            if buy == R.PROVINCE and needed == 1:
                search.path.append(buy)
                search.plan = list(search.path)
                search.path.pop()
                return True
        if turns_left == 1:
            continue
        search.path.append(buy)
        found = _iteration(search, search.next_position(pos, buy),
                           provinces + (buy == R.PROVINCE), turns_left - 1)
        search.path.pop()
        if found:
            return True
        if search.timed_out:
            return False
    search.failed[pos] = turns_left
    return False

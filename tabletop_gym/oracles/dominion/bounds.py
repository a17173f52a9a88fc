"""The kingdom search's lower bound on the turns still needed, valid whatever is played.

What a card can do for the bound (its coins, its draws) is read from the engine's tables
(``rules.COINS``, ``rules.PLUS_CARDS``, ``rules.PLUS_ACTIONS``, ``rules.PLUS_COINS``, ...); the bound
itself is described in ``_KingdomSearch``'s docstring.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles.dominion.common import PROVINCE_COINS

if TYPE_CHECKING:
    from tabletop_gym.oracles.dominion.kingdom import _KingdomSearch


def _coin_ceiling(card: int) -> int:
    """The most coins ``card`` can add to the turn it is drawn in: a Treasure's value, an Action's +$,
    Merchant's +$ on the first Silver (each Merchant adds it once), and Mine's: a Treasure trashed from
    the hand for one costing a little more, gained to the hand (Copper to Silver or Silver to Gold, one
    coin more)."""
    ceiling = R.COINS[card] + R.PLUS_COINS[card]
    if card == R.MERCHANT:
        ceiling += R.MERCHANT_COINS
    elif card == R.MINE:
        ceiling += max(R.COINS[better] - R.COINS[trashed] for trashed in R.TREASURES for better in R.TREASURES
                       if R.COST[better] <= R.COST[trashed] + R.MINE_EXTRA_COST)
    return ceiling


COIN_CEILING = tuple(_coin_ceiling(c) for c in range(R.NUM_CARDS))
_MOST_COINS = max(COIN_CEILING)  # no card adds more to a turn, nor a gain to a deck
# Cards that gain a card besides the buys (Mine replaces a Treasure, which adds at most $1).
GAINERS = (R.MINE, R.REMODEL, R.WORKSHOP)

# Kinds of cards for the draw bound, by what playing them gives (+Cards, +Actions) in the engine's
# tables: no draw, a cantrip (+1 Card +1 Action: Market, Merchant), a Village (+1 Card +2 Actions), a
# Smithy (+3 Cards, terminal), a Moat (+2 Cards, terminal), a Cellar (+1 Action, draws as many as it
# discards). ``_draws`` is written for these kinds; a card that fits none stops the import.
_OTHER, _CANTRIP, _VILLAGE, _SMITHY, _MOAT, _CELLAR = range(_KINDS := 6)
_CANTRIP_GIVES, _VILLAGE_GIVES, _SMITHY_GIVES, _MOAT_GIVES = (1, 1), (1, 2), (3, 0), (2, 0)
_SMITHY_DRAWS, _MOAT_DRAWS = _SMITHY_GIVES[0], _MOAT_GIVES[0]
_DRAWERS = {_CANTRIP_GIVES: _CANTRIP, _VILLAGE_GIVES: _VILLAGE, _SMITHY_GIVES: _SMITHY, _MOAT_GIVES: _MOAT}


def _kind(card: int) -> int:
    if card == R.CELLAR:
        return _CELLAR
    gives = (R.PLUS_CARDS[card], R.PLUS_ACTIONS[card])
    if gives in _DRAWERS:
        return _DRAWERS[gives]
    if gives[0] or gives[1] > 1:  # it draws or leaves Actions to spare, and the bound would miss it
        raise AssertionError(f"the draw bound has no kind for {R.CARD_NAMES[card]} "
                             f"(+Cards, +Actions {gives})")
    return _OTHER


KIND = tuple(_kind(c) for c in range(R.NUM_CARDS))


def _draws(seen: list[int]) -> int:
    """The most cards the Actions among ``seen`` (counts by kind) can draw in one turn: every cantrip
    and Village, and the best terminal drawers for which there are Actions (1 + one per Village;
    the other terminal Actions are left out, which only allows more). A Cellar draws as many cards as
    it discards, at most the hand, which the other cards keep at 5 + their draws or less."""
    slots = 1 + seen[_VILLAGE]
    smithies = min(seen[_SMITHY], slots)
    base = (seen[_CANTRIP] + seen[_VILLAGE] + _SMITHY_DRAWS * smithies
            + _MOAT_DRAWS * min(seen[_MOAT], slots - smithies))
    return base + seen[_CELLAR] * (R.HAND_SIZE + base)


def _best_coins(values: list[int], seen: list[int]) -> int:
    """The most coins a turn that has seen cards with these coin ceilings (counts by ceiling) and a
    Cellar can make: a Cellar discards cards and draws as many, so the cards that stay to be played
    number at most 5 + the other Actions' draws, and only the best ones count."""
    keep = R.HAND_SIZE + _draws(seen[:_CELLAR] + [0])
    coins = 0
    for v in range(_MOST_COINS, 0, -1):
        take = min(keep, values[v])
        coins += v * take
        keep -= take
    return coins


class _DeckCeiling:
    """What the deck can hold at a turn beyond the known draw pile: the coin ceilings of every card
    owned now and $3 (``_MOST_COINS``) per card gained since; the Markets, Remodels, Mines, Golds and
    gaining cards owned now and those that could have been gained since (within their piles)."""

    __slots__ = ("money", "markets", "market_cap", "market_buys", "remodel", "remodels", "remodel_cap",
                 "mines", "mine_cap", "golds", "gold_cap", "gainers", "gainer_cap")

    def __init__(self, search: _KingdomSearch, owned: list[int], gained: tuple[int, ...]) -> None:
        self.money = sum(map(operator.mul, owned, search.value))
        start_supply = search.start_supply
        market, remodel, mine, gold = search.market, search.remodel, search.mine, search.gold
        self.market_buys = R.PLUS_BUYS[R.MARKET]
        self.markets = self.market_cap = 0
        if market is not None:
            self.markets = owned[market]
            self.market_cap = self.markets + start_supply[market] - gained[market]
        self.remodel = remodel
        self.remodels = self.remodel_cap = self.mines = self.mine_cap = self.golds = self.gold_cap = 0
        self.gainers = self.gainer_cap = 0
        if search.gainers:
            self.gainers = sum(owned[i] for i in search.gainers)
            self.gainer_cap = self.gainers + sum(start_supply[i] - gained[i] for i in search.gainers)
        if remodel is not None:
            self.remodels, self.golds = owned[remodel], owned[gold]
            self.remodel_cap = self.remodels + start_supply[remodel] - gained[remodel]
            self.gold_cap = self.golds + start_supply[gold] - gained[gold]
            if mine is not None:
                self.mines = owned[mine]
                self.mine_cap = self.mines + start_supply[mine] - gained[mine]

    def buys(self) -> int:
        return 1 + self.market_buys * self.markets

    def provinces(self) -> int:
        """The most Provinces one turn gets: min(Buys, coins // $8), and one more per Remodel that
        has a Gold to trash (a Gold, or one a Mine made in the hand)."""
        cap = min(self.buys(), self.money // PROVINCE_COINS)
        if self.remodel is not None:
            cap += min(self.remodels, self.golds + self.mines)
        return cap

    def next_turn(self) -> None:
        """A turn later: at most its Buys in cards bought and one gained per Mine, Remodel and Workshop
        owned; each adds at most $3 of coin ceiling, and may be a Market, a Remodel, a Mine or a Gold
        at best."""
        gains = self.buys() + self.gainers
        self.money += _MOST_COINS * gains
        if self.markets < self.market_cap:
            self.markets = min(self.markets + gains, self.market_cap)
        if self.remodel is not None:
            self.remodels = min(self.remodels + gains, self.remodel_cap)
            self.mines = min(self.mines + gains, self.mine_cap)
            self.golds = min(self.golds + gains, self.gold_cap)
        if self.gainers < self.gainer_cap:
            self.gainers = min(self.gainers + gains, self.gainer_cap)


def _hand_counts(search: _KingdomSearch, hand: tuple[int, ...]) -> tuple:
    """What the current turn's hand counts for the bound: its cards by kind and by coin ceiling, its
    +Buys, its coins, its Remodels and its Golds (a Mine counts as one: it can make one in the hand)."""
    value, kind, plus_buys = search.value, search.kind, search.plus_buys
    remodel, mine, gold = search.remodel, search.mine, search.gold
    seen = [0] * _KINDS
    values = [0] * (_MOST_COINS + 1)  # the hand's cards by coin ceiling
    buys = coins = 0
    for c in search.range_n:
        h = hand[c]
        if h:
            seen[kind[c]] += h
            values[value[c]] += h
            buys += h * plus_buys[c]
            coins += h * value[c]
    remodels = hand[remodel] if remodel is not None else 0
    golds = hand[gold] + (hand[mine] if mine is not None else 0)
    return seen, values, buys, coins, remodels, golds


def lower_bound(search: _KingdomSearch, pos: tuple, needed: int) -> int:
    """Turns (this one included) that any play needs to own ``needed`` more Provinces."""
    if needed <= 0:
        return 0
    draw, discard, hand, _, gained = pos
    value, kind, plus_buys = search.value, search.kind, search.plus_buys
    owned = list(map(operator.add, discard, hand))
    for c in draw:
        owned[c] += 1
    deck = _DeckCeiling(search, owned, gained)
    remodel, mine, gold = search.remodel, search.mine, search.gold
    # Coins by ceiling (for Cellar) and Remodels and Golds seen (for Remodel) only where they count.
    tracked = search.tracked
    stream = draw[::-1]  # the order cards will be drawn in
    size = len(stream)
    states = {0: 0}  # cards taken from the stream -> most Provinces so far
    exited = -1  # most Provinces of a play that has left the window (-1: none)
    hand_seen, hand_values, hand_buys, hand_coins, hand_remodels, hand_golds = _hand_counts(search, hand)
    turn = 0
    while True:
        turn += 1
        cap = deck.provinces()
        new_exited = exited + cap if exited >= 0 else -1
        new: dict[int, int] = {}
        for at, got in states.items():
            if turn == 1:
                extra_buys, start, coins = hand_buys, 0, hand_coins
                values = list(hand_values)
                seen = list(hand_seen)
                rem, gol = hand_remodels, hand_golds
            else:
                if size - at < R.HAND_SIZE:
                    if new_exited < got + cap:
                        new_exited = got + cap
                    continue
                extra_buys = rem = gol = coins = 0
                values = [0] * (_MOST_COINS + 1)
                seen = [0] * _KINDS
                start = at + R.HAND_SIZE
                for c in stream[at:start]:
                    coins += value[c]
                    seen[kind[c]] += 1
                    extra_buys += plus_buys[c]
                    if tracked:
                        values[value[c]] += 1
                        rem += c == remodel
                        gol += c == gold or c == mine
            taken = 0
            draws = _draws(seen)
            while True:
                # With a Cellar seen, only the best of the cards seen can stay to be played.
                gain = (_best_coins(values, seen) if seen[_CELLAR] else coins) // PROVINCE_COINS
                if gain > 1 + extra_buys:
                    gain = 1 + extra_buys
                if remodel is not None:
                    gain += min(rem, gol, 1 + seen[_VILLAGE])
                if gain > cap:
                    gain = cap
                gain += got
                if new.get(start + taken, -1) < gain:
                    new[start + taken] = gain
                if taken >= draws:
                    break
                if start + taken >= size:  # this draw needs a shuffle: beyond the window
                    if new_exited < got + cap:
                        new_exited = got + cap
                    break
                c = stream[start + taken]
                coins += value[c]
                extra_buys += plus_buys[c]
                if kind[c]:
                    seen[kind[c]] += 1
                    draws = _draws(seen)
                if tracked:
                    values[value[c]] += 1
                    rem += c == remodel
                    gol += c == gold or c == mine
                taken += 1
        best = max(new.values(), default=-1)
        if best >= needed or new_exited >= needed:
            return turn
        states, exited = new, new_exited
        deck.next_turn()

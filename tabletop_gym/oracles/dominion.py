"""Exact oracle for solitaire Dominion: the fewest turns in which any play of a seed owns the target.

Clairvoyant optimum. The seed fixes every shuffle through the project's randomness model
(``rules.shuffle_cards``: a function of seed, player, shuffle count and the multiset shuffled), so the
game is deterministic once the decisions are; the oracle finds the fewest turns over *all* decision
sequences, a bound that no policy can beat on that seed.

The treasure-and-victory game (no kingdom cards) has one decision a turn: which card to buy, if any
(Treasures are played automatically; one Buy). Every affordable card is a real option here, even a
Curse: a card changes the multiset of the next shuffle and so the order of every later draw.

The search works on the position at the start of a turn's buy: (draw pile in order, discard pile,
hand, shuffles made) as counts of the seven base cards; everything else follows from it. It is an
iterative deepening on the turn count T (T = lower bound, lower bound + 1, ...), each a depth-first
search with
- a proven lower bound on the turns still needed: the hands drawn from the current draw pile are
  already fixed (bought cards go to the discard pile), so the turns in which a Province is
  affordable are known until the next shuffle; after that, one Province a turn at most. And a
  Province needs $8 in a 5-card hand: the best 5 Treasures owned after the buys so far (at most one
  card a turn, and a card bought this pass through the draw pile is seen only after the next
  shuffle) must reach $8;
- transpositions: a table of positions proven unable to finish within a number of turns (valid
  across iterations).
An iteration that fails proves the optimum exceeds T, so an interrupted search still returns a
proven lower bound on the turns. Every plan is replayed through the engine
(``tabletop_gym.envs.dominion.rules.replay``) to the claimed turn count before it is reported.

With kingdom cards (``solve(..., kingdom="smithy,village")``) a second search, ``_KingdomSearch``,
expands each turn into every distinct outcome (every order of playing Actions, every multiset of
buys) and proves its own lower bound, valid whatever is played (see its docstring: a dynamic
programme over the known draw pile in which each turn may draw what its Actions can, then a cap on
Provinces per turn from the deck's coins and Buys). It supports the kingdom cards that ask nothing
but "play it or not" in solitaire: Market, Merchant, Militia (+$2 with no one to attack), Moat (+2
Cards), Smithy and Village, in any combination. Cellar, Mine, Remodel and Workshop are refused with
a ``ValueError`` (their discards, trashing and gains multiply the choices inside a turn). It is
cross-checked against a breadth-first search through the engine itself, and on the empty kingdom
against the treasure search. Tractability (2 busy cores): Smithy to 4 Provinces takes seconds
per seed; the other cards make the bound looser, 4 Provinces often runs past a 30 s limit (a
bound, not an optimum, is then reported), while 1-2 Provinces take about a second.

Scores follow the package convention (higher is better, ``bound`` an upper bound on any play):
``score = -turns of the plan``, ``bound = -proven lower bound on turns``; ``optimal`` when they meet.
"""

from __future__ import annotations

import time
from typing import Any

from tabletop_gym.agents.dominion import BOTS, play_game
from tabletop_gym.core import OracleCache, OracleResult, check_float, check_int
from tabletop_gym.envs.dominion import rules as R

GAME = "dominion"
_BASE = 7  # Copper, Silver, Gold, Estate, Duchy, Province, Curse: the treasure-and-victory supply
_VALUE = (1, 2, 3, 0, 0, 0, 0)
_PROVINCE_COINS = R.COST[R.PROVINCE]
_STARTING = (7, 0, 0, 3, 0, 0, 0)  # the starting deck (not from the supply)
# The order buys are tried in: the usual good ones first, so solutions are met early.
_BUY_ORDER = (R.PROVINCE, R.GOLD, R.SILVER, R.PASS, R.COPPER, R.DUCHY, R.ESTATE, R.CURSE)


def _coins(hand: tuple[int, ...]) -> int:
    return hand[0] + 2 * hand[1] + 3 * hand[2]


class _Search:
    def __init__(self, seed: int, target: int, deadline: float) -> None:
        self.seed = seed
        self.target = target
        self.deadline = deadline
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
        capable = 1 if _coins(hand) >= _PROVINCE_COINS else 0
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
            if coins >= _PROVINCE_COINS:
                capable += 1
                if capable >= needed:
                    return turn
        # After the known hands: one Province a turn at most, and only once the best five Treasures
        # owned reach $8. Cards bought from now on enter hands only after the next shuffle, i.e.
        # after the known turns; before they do, at most one card a turn can be added.
        owned = [draw.count(c) + discard[c] + hand[c] for c in (R.GOLD, R.SILVER, R.COPPER)]
        extra = _turns_to_afford(owned)
        return max(known, extra) + (needed - capable)


def _turns_to_afford(owned: list[int]) -> int:
    """Fewest cards to add (Golds, the best case) before 5 owned Treasures can make $8."""
    added = 0
    gold, silver, copper = owned
    while True:
        best, left = 0, R.HAND_SIZE
        for value, count in ((3, gold + added), (2, silver), (1, copper)):
            take = min(left, count)
            best += value * take
            left -= take
        if best >= _PROVINCE_COINS:
            return added
        added += 1


def _iteration(search: _Search, pos: tuple, provinces: int, turns_left: int) -> bool:
    """Is there a play from ``pos`` owning the target within ``turns_left`` turns (this one included)?"""
    search.nodes += 1
    if search.nodes & 0xFFF == 0 and time.perf_counter() > search.deadline:
        search.timed_out = True
    if search.timed_out:
        return False
    needed = search.target - provinces
    if search.lower_bound(pos, needed) > turns_left:
        return False
    if search.failed.get(pos, -1) >= turns_left:
        return False
    draw, discard, hand, _ = pos
    coins = _coins(hand)
    owned = [draw.count(c) + discard[c] + hand[c] for c in range(_BASE)]
    for buy in _BUY_ORDER:
        if buy != R.PASS:
            if R.COST[buy] > coins or owned[buy] - _STARTING[buy] >= search.start_supply[buy]:
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


# --- kingdom cards ---------------------------------------------------------------------------------
# Kingdom cards the exact search supports in solitaire: those that ask no question beyond "play it or
# not" (no opponent, so Militia is +$2 and Moat is +2 Cards). Cellar's discards, Mine's, Remodel's and
# Workshop's trashing and gaining multiply the choices inside a turn beyond an exact search.
SUPPORTED_KINGDOM = (R.MARKET, R.MERCHANT, R.MILITIA, R.MOAT, R.SMITHY, R.VILLAGE)
_PLUS_CARDS = {R.MARKET: 1, R.MERCHANT: 1, R.MOAT: 2, R.SMITHY: 3, R.VILLAGE: 1}
_PLUS_ACTIONS = {R.MARKET: 1, R.MERCHANT: 1, R.VILLAGE: 2}
# The most coins a card can add to the turn it is drawn in: a Treasure's value, Market's +$1,
# Militia's +$2, and Merchant's +$1 (each Merchant adds $1 once, on the first Silver).
_COIN_CEILING = {R.COPPER: 1, R.SILVER: 2, R.GOLD: 3, R.MARKET: 1, R.MERCHANT: 1, R.MILITIA: 2}
# Buys are tried in this order (then pass): good ones first, so solutions are met early.
_PRIORITY = {R.PROVINCE: 100, R.GOLD: 50, R.MARKET: 45, R.SMITHY: 40, R.MILITIA: 35, R.SILVER: 30,
             R.VILLAGE: 20, R.MERCHANT: 18, R.MOAT: 15, R.COPPER: 5, R.DUCHY: 3, R.ESTATE: 2, R.CURSE: 1}
_PASS_PRIORITY = 10
_TABLE_LIMIT = 1_000_000  # positions kept in the search's tables (about 300 bytes each)


def oracle_kingdom(kingdom: Any) -> tuple[int, ...]:
    """The kingdom as card ids, or a clear error where the exact oracle does not support it."""
    cards = R.parse_kingdom(kingdom)
    refused = [c for c in cards if c not in SUPPORTED_KINGDOM]
    if refused:
        raise ValueError(
            f"the exact solitaire oracle does not support {', '.join(R.CARD_NAMES[c] for c in refused)}: "
            f"it solves the treasure-and-victory supply plus any of "
            f"{', '.join(R.CARD_NAMES[c] for c in SUPPORTED_KINGDOM)} (cards without choices inside "
            f"them); Cellar's discards and the trashing and gaining of Mine, Remodel and Workshop make "
            f"the search intractable")
    return cards


class _KingdomSearch:
    """The search with kingdom cards: one node per turn start, its children every distinct outcome
    of the turn (every order of playing Actions, every multiset of buys within coins and Buys).

    Position at the start of a turn (after clean-up's draw): (draw pile in order, discard pile,
    hand, shuffles made), counts over this game's cards (the base seven, then the kingdom). It fixes
    everything else: owned = draw + discard + hand (nothing is ever trashed with these cards), supply =
    starting supply - gains.

    The lower bound on the turns still needed (``lower_bound``) holds whatever is played:
    - a turn's coins come only from the cards it draws (the hand it starts with and the cards its
      Actions draw): at most a Treasure's value, $1 per Market, $2 per Militia, $1 per Merchant
      (each Merchant pays once, on the first Silver); its Buys are 1 + the Markets among them; so it
      gets at most min(Buys, coins // 8) Provinces;
    - until the draw pile runs out (the "window"), the cards come in a known order and cards bought
      meanwhile lie in the discard pile. A turn takes the next 5 (the current turn: its hand) and
      then as many more as the Actions among the cards seen so far can draw (``_draws``: each
      Market, Merchant and Village 1, and Smithy 3 / Moat 2 for at most 1 + Villages of them, since
      each is terminal; a relaxation: the order of play and Militia's Action are ignored). A
      dynamic programme over the number of cards taken gives the most Provinces t turns can get
      inside the window;
    - a turn that needs a card beyond the window (its hand or a draw needs a shuffle) and every later
      turn gets at most min(B_j, M_j // 8) Provinces, where M_j bounds the coins the deck holds at
      turn j (the coin ceilings of all cards owned now, +3 for every card bought since: no card adds
      more) and B_j its Buys (1 + Markets owned now + Markets that could have been bought since).
    """

    def __init__(self, seed: int, target: int, kingdom: tuple[int, ...], deadline: float) -> None:
        self.seed = seed
        self.target = target
        self.deadline = deadline
        self.cards = R.BASE_CARDS + kingdom  # local index -> card id (increasing, like the shuffle)
        n = self.n = len(self.cards)
        self.local = {c: i for i, c in enumerate(self.cards)}
        self.cost = [R.COST[c] for c in self.cards]
        self.value = [_COIN_CEILING.get(c, 0) for c in self.cards]
        self.plus_cards = [_PLUS_CARDS.get(c, 0) for c in self.cards]
        self.plus_buys = [1 if c == R.MARKET else 0 for c in self.cards]
        self.kind = [_KIND.get(c, _OTHER) for c in self.cards]
        self.actions = [i for i, c in enumerate(self.cards) if c in kingdom]
        self.market = self.local.get(R.MARKET)
        self.merchant = self.local.get(R.MERCHANT)
        sizes = R.supply_sizes(1, kingdom)
        self.start_supply = [sizes[c] for c in self.cards]
        self.starting = [7 if c == R.COPPER else 3 if c == R.ESTATE else 0 for c in self.cards]
        self.province = self.local[R.PROVINCE]
        self.buy_order = sorted(range(n), key=lambda i: -_PRIORITY[self.cards[i]])
        self.failed: dict[tuple, int] = {}
        self.bounds: dict[tuple, int] = {}  # position -> its lower bound (kept across iterations)
        self.nodes = 0
        self.timed_out = False
        self.path: list[list[int]] = []
        self.plan: list[int] | None = None
        self._shuffles: dict[tuple, tuple[int, ...]] = {}

    # --- the model (the engine's rules on compact positions) ------------------------------------
    def start(self) -> tuple:
        state = R.DominionState(1, (), self.seed, self.target)
        local = self.local
        hand = [0] * self.n
        for c in R.BASE_CARDS:
            hand[local[c]] = state.hand[0][c] + state.in_play[0][c]
        return (tuple(local[c] for c in state.draw[0]), (0,) * self.n, tuple(hand), state.shuffles[0])

    def _shuffle(self, k: int, discard: tuple[int, ...]) -> tuple[int, ...]:
        key = (k, discard)
        order = self._shuffles.get(key)
        if order is None:
            counts = [0] * R.NUM_CARDS
            for i, c in enumerate(self.cards):
                counts[c] = discard[i]
            order = tuple(self.local[c] for c in R.shuffle_cards(self.seed, 0, k, counts))
            self._shuffles[key] = order
        return order

    def _draw(self, draw: tuple, discard: tuple, hand: list[int], k: int, count: int) -> tuple:
        """The engine's draw: shuffle the discard pile into a new draw pile when it runs out."""
        end = len(draw)
        while count:
            if not end:
                if not any(discard):
                    break
                draw = self._shuffle(k, discard)
                end = len(draw)
                k += 1
                discard = (0,) * self.n
            end -= 1
            hand[draw[end]] += 1
            count -= 1
        return draw[:end], discard, k

    def children(self, pos: tuple) -> list[tuple[tuple, list[int]]]:
        """Every distinct position at the start of the next turn with the turn's decisions, the
        likely best first (most Provinces, then the dearest useful buys)."""
        out: dict[tuple, tuple[int, list[int]]] = {}
        seen: set[tuple] = set()
        draw, discard, hand, k = pos
        self._act(draw, discard, list(hand), [0] * self.n, k, 1, 0, 1, 0, [], out, seen)
        ranked = sorted(out.items(), key=lambda item: -item[1][0])
        return [(child, plan) for child, (_, plan) in ranked]

    def _act(self, draw, discard, hand, in_play, k, actions, coins, buys, merchants, plan, out, seen):
        key = (draw, discard, tuple(hand), tuple(in_play), k, actions, coins, buys, merchants)
        if key in seen:
            return
        seen.add(key)
        playable = [a for a in self.actions if hand[a]] if actions else []
        if not playable:  # the engine skips the action phase
            self._buy_phase(draw, discard, hand, in_play, k, coins, buys, merchants, plan, out)
            return
        for a in playable:
            h, p = list(hand), list(in_play)
            h[a] -= 1
            p[a] += 1
            card = self.cards[a]
            d, disc, kk = draw, discard, k
            if self.plus_cards[a]:
                d, disc, kk = self._draw(draw, discard, h, k, self.plus_cards[a])
            self._act(d, disc, h, p, kk, actions - 1 + _PLUS_ACTIONS.get(card, 0),
                      coins + (card == R.MARKET) + 2 * (card == R.MILITIA), buys + (card == R.MARKET),
                      merchants + (card == R.MERCHANT), plan + [card], out, seen)
        self._buy_phase(draw, discard, hand, in_play, k, coins, buys, merchants, plan + [R.PASS], out)

    def _buy_phase(self, draw, discard, hand, in_play, k, coins, buys, merchants, plan, out):
        hand, in_play = list(hand), list(in_play)
        silver = hand[1]
        coins += hand[0] + 2 * silver + 3 * hand[2]
        if silver and merchants:
            coins += merchants
        for t in (0, 1, 2):
            in_play[t] += hand[t]
            hand[t] = 0
        base = [h + p + d for h, p, d in zip(hand, in_play, discard, strict=True)]
        owned = list(base)
        for c in draw:
            owned[c] += 1
        supply = [s - (o - st) for s, o, st in zip(self.start_supply, owned, self.starting, strict=True)]
        for bought in self._buys(coins, buys, supply):
            new_discard = list(base)
            for c in bought:
                new_discard[c] += 1
            new_hand = [0] * self.n
            d, disc, kk = self._draw(draw, tuple(new_discard), new_hand, k, R.HAND_SIZE)
            child = (d, disc, tuple(new_hand), kk)
            if child not in out:
                steps = [self.cards[c] for c in bought]
                if len(bought) < buys:
                    steps.append(R.PASS)
                rank = sum(_PRIORITY[c] for c in steps if c != R.PASS) if bought else _PASS_PRIORITY
                out[child] = (rank, plan + steps)

    def _buys(self, coins: int, buys: int, supply: list[int]) -> list[tuple[int, ...]]:
        """Every multiset of at most ``buys`` cards costing at most ``coins`` in all, best first."""
        result: list[tuple[int, ...]] = []
        order = self.buy_order

        def extend(start: int, left: int, buys_left: int, chosen: list[int]) -> None:
            result.append(tuple(chosen))
            if not buys_left:
                return
            for j in range(start, len(order)):
                c = order[j]
                if self.cost[c] <= left and supply[c] > 0:
                    supply[c] -= 1
                    chosen.append(c)
                    extend(j, left - self.cost[c], buys_left - 1, chosen)
                    chosen.pop()
                    supply[c] += 1

        extend(0, coins, buys, [])
        return result

    def provinces(self, pos: tuple) -> int:
        draw, discard, hand, _ = pos
        p = self.province
        return discard[p] + hand[p] + draw.count(p)

    # --- the lower bound --------------------------------------------------------------------------
    def lower_bound(self, pos: tuple, needed: int) -> int:
        """Turns (this one included) that any play needs to buy ``needed`` more Provinces."""
        if needed <= 0:
            return 0
        draw, discard, hand, _ = pos
        value, kind, plus_buys = self.value, self.kind, self.plus_buys
        owned = [d + h for d, h in zip(discard, hand, strict=True)]
        for c in draw:
            owned[c] += 1
        money = sum(o * v for o, v in zip(owned, value, strict=True))
        markets = owned[self.market] if self.market is not None else 0
        market_supply = self.start_supply[self.market] if self.market is not None else 0
        stream = draw[::-1]  # the order cards will be drawn in
        size = len(stream)
        states = {0: 0}  # cards taken from the stream -> most Provinces so far
        exited = -1  # most Provinces of a play that has left the window (-1: none)
        hand_seen = [0] * 5
        for c, h in enumerate(hand):
            hand_seen[kind[c]] += h
        hand_coins = sum(h * v for h, v in zip(hand, value, strict=True))
        hand_buys = sum(h * v for h, v in zip(hand, plus_buys, strict=True))
        turn = 0
        while True:
            turn += 1
            buys = 1 + markets
            cap = min(buys, money // _PROVINCE_COINS)
            new_exited = exited + cap if exited >= 0 else -1
            new: dict[int, int] = {}
            for at, got in states.items():
                if turn == 1:
                    coins, extra_buys, start = hand_coins, hand_buys, 0
                    seen = list(hand_seen)
                else:
                    if size - at < R.HAND_SIZE:
                        new_exited = max(new_exited, got + cap)
                        continue
                    coins = extra_buys = 0
                    seen = [0] * 5
                    for c in stream[at : at + R.HAND_SIZE]:
                        coins += value[c]
                        seen[kind[c]] += 1
                        extra_buys += plus_buys[c]
                    start = at + R.HAND_SIZE
                taken = 0
                while True:
                    gain = min(1 + extra_buys, coins // _PROVINCE_COINS, cap)
                    if new.get(start + taken, -1) < got + gain:
                        new[start + taken] = got + gain
                    if taken >= _draws(seen):
                        break
                    if start + taken >= size:  # this draw needs a shuffle: beyond the window
                        new_exited = max(new_exited, got + cap)
                        break
                    c = stream[start + taken]
                    coins += value[c]
                    seen[kind[c]] += 1
                    extra_buys += plus_buys[c]
                    taken += 1
            best = max(max(new.values(), default=-1), new_exited)
            if best >= needed:
                return turn
            states, exited = new, new_exited
            # Bounds for the next turn: every card bought adds at most $3 of coin ceiling, and at
            # most ``buys`` cards are bought, all of them Markets at best.
            money += 3 * buys
            if self.market is not None:
                markets = min(markets + buys, market_supply)


# Kinds of cards for the draw bound: no draw, a cantrip (Market, Merchant: +1 Card +1 Action), a
# Village (+1 Card +2 Actions), a Smithy (+3 Cards, terminal), a Moat (+2 Cards, terminal).
_OTHER, _CANTRIP, _VILLAGE, _SMITHY, _MOAT = range(5)
_KIND = {R.MARKET: _CANTRIP, R.MERCHANT: _CANTRIP, R.VILLAGE: _VILLAGE, R.SMITHY: _SMITHY, R.MOAT: _MOAT}


def _draws(seen: list[int]) -> int:
    """The most cards the Actions among ``seen`` (counts by kind) can draw in one turn: every cantrip
    and Village, and the best terminal drawers for which there are Actions (1 + one per Village;
    Militia, also terminal, is left out, which only allows more)."""
    slots = 1 + seen[_VILLAGE]
    smithies = min(seen[_SMITHY], slots)
    return seen[_CANTRIP] + seen[_VILLAGE] + 3 * smithies + 2 * min(seen[_MOAT], slots - smithies)


def _kingdom_iteration(search: _KingdomSearch, pos: tuple, turns_left: int) -> bool:
    """Is there a play from ``pos`` owning the target within ``turns_left`` turns (this one included)?"""
    search.nodes += 1
    if search.nodes & 0xFF == 0 and time.perf_counter() > search.deadline:
        search.timed_out = True
    if search.timed_out:
        return False
    if search.failed.get(pos, -1) >= turns_left:
        return False
    if len(search.bounds) > _TABLE_LIMIT:  # both tables only save work: forgetting is safe
        search.bounds.clear()
        search.failed.clear()
        search._shuffles.clear()
    bound = search.bounds.get(pos)
    if bound is None:
        bound = search.bounds[pos] = search.lower_bound(pos, search.target - search.provinces(pos))
    if bound > turns_left:
        return False
    for child, steps in search.children(pos):
        if search.provinces(child) >= search.target:
            search.plan = [a for turn in search.path for a in turn] + steps
            return True
        if turns_left == 1:
            continue
        search.path.append(steps)
        found = _kingdom_iteration(search, child, turns_left - 1)
        search.path.pop()
        if found:
            return True
        if search.timed_out:
            return False
    search.failed[pos] = turns_left
    return False


def _bot_plan(seed: int, target: int, kingdom: tuple[int, ...] = ()) -> tuple[int, list[int]]:
    """The best of the money bots on this seed: an upper bound and its plan."""
    best: tuple[int, list[int]] | None = None
    names = ["big-money", "big-money-ultimate", "buy-money-and-duchy"]
    if R.SMITHY in kingdom:
        names.append("smithy-big-money")
    for name in names:
        state = play_game([BOTS[name]()], seed, kingdom, target=target, turn_limit=100)
        if state.done and not state.truncated and state.owned[0][R.PROVINCE] >= target:
            turns = state.turns[0]
            if best is None or turns < best[0]:
                best = (turns, [a for _, a in state.history])
    assert best is not None
    return best


def replay_turns(seed: int | str, plan: Any, target: int = R.DEFAULT_TARGET, kingdom: Any = ()) -> int:
    """Replay a plan through the engine; the turns it takes to own the target (raises if it fails)."""
    state = R.replay(plan, seed, 1, R.parse_kingdom(kingdom), target=target)
    if not state.done or state.owned[0][R.PROVINCE] < target:
        raise AssertionError(f"the plan does not reach {target} Provinces on seed {seed}")
    return state.turns[0]


def _deepen(search: Any, iterate: Any, upper: int, plan: list[int], lower: int) -> tuple[int, int, list, int]:
    """Iterative deepening from a proven lower bound up to a known plan: (upper, lower, plan, iterations)."""
    iterations = 0
    while lower < upper:
        iterations += 1
        if iterate(lower):
            upper, plan = lower, search.plan
            break
        if search.timed_out:
            break
        lower += 1  # no play owns the target within ``lower`` turns
    return upper, min(lower, upper), plan, iterations


def solve(deal: int | str, target: int = R.DEFAULT_TARGET, time_limit: float = 600.0,
          kingdom: Any = "") -> OracleResult:
    """The fewest turns to own ``target`` Provinces on seed ``deal``.

    ``kingdom``: "" (default) is the treasure-and-victory supply; otherwise kingdom cards among
    ``SUPPORTED_KINGDOM`` (Market, Merchant, Militia, Moat, Smithy, Village), as for the engine
    (e.g. "smithy,village"); other cards raise ``ValueError``. Returns ``score = -turns`` of the
    best plan found and ``bound = -(proven lower bound)``; with enough time they meet (``optimal``).
    ``time_limit`` seconds (finite, above 0) caps the search; a search cut off reports its bound, not
    an optimum. ``target`` is 1..8 Provinces.
    """
    seed, target, time_limit = _checked(deal, target, time_limit)
    cards = oracle_kingdom(kingdom)
    if cards:
        return _solve_kingdom(seed, target, cards, time_limit)
    start = time.perf_counter()
    search = _Search(seed, target, start + time_limit)
    upper, plan = _bot_plan(seed, target)
    root = search.start()
    upper, lower, plan, iterations = _deepen(
        search, lambda turns: _iteration(search, root, 0, turns), upper, plan,
        search.lower_bound(root, target))
    return _result(seed, target, (), upper, lower, plan, start, search, iterations,
                   {"positions_refuted": len(search.failed)})


def _checked(deal: int | str, target: Any, time_limit: Any) -> tuple[int, int, float]:
    """The seed, target and time limit, or a ValueError naming the bad one (a NaN or infinite
    limit would never stop the search)."""
    return (R.parse_seed(deal), check_int("target", target, 1, R.MAX_TARGET),
            check_float("time_limit", time_limit, 0, low_open=True))


def _solve_kingdom(seed: int, target: int, kingdom: tuple[int, ...], time_limit: float) -> OracleResult:
    """The search with kingdom cards (also runs on the empty kingdom, for cross-checks)."""
    start = time.perf_counter()
    search = _KingdomSearch(seed, target, kingdom, start + time_limit)
    upper, plan = _bot_plan(seed, target, kingdom)
    root = search.start()
    upper, lower, plan, iterations = _deepen(
        search, lambda turns: _kingdom_iteration(search, root, turns), upper, plan,
        search.lower_bound(root, target))
    return _result(seed, target, kingdom, upper, lower, plan, start, search, iterations,
                   {"positions_refuted": len(search.failed), "shuffles_cached": len(search._shuffles)})


def _result(seed: int, target: int, kingdom: tuple[int, ...], upper: int, lower: int, plan: list[int],
            start: float, search: Any, iterations: int, stats: dict[str, Any]) -> OracleResult:
    turns = replay_turns(seed, plan, target, kingdom)
    if turns != upper:
        raise AssertionError(f"oracle claims {upper} turns but its plan replays to {turns} on seed {seed}")
    return OracleResult(
        score=-upper,
        bound=-lower,
        plan=tuple(int(a) for a in plan),
        seconds=time.perf_counter() - start,
        stats={"nodes": search.nodes, "iterations": iterations, "timed_out": search.timed_out,
               "turns": upper, "lower_bound_turns": lower,
               "kingdom": [R.CARD_NAMES[c] for c in kingdom], **stats},
    )


def check(deal: int | str, result: OracleResult, target: int = R.DEFAULT_TARGET, kingdom: Any = "") -> bool:
    """True if the plan replays through the engine to the claimed turns and the result is proven."""
    try:
        turns = replay_turns(R.parse_seed(deal), result.plan, target, kingdom)
    except (ValueError, RuntimeError, TypeError, AssertionError):
        return False
    return -turns == result.score and result.optimal


def cache_variant(target: int, kingdom: Any = "") -> str:
    """The cache's name for a solitaire variant (the treasure game keeps its original name)."""
    cards = oracle_kingdom(kingdom)
    supply = "treasure" if not cards else "treasure+" + "+".join(R.CARD_NAMES[c].lower() for c in cards)
    return f"solitaire-{supply}-target{target}"


def solve_cached(deal: int | str, target: int = R.DEFAULT_TARGET, cache: OracleCache | None = None,
                 time_limit: float = 600.0, kingdom: Any = "") -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    seed, target, time_limit = _checked(deal, target, time_limit)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(GAME, cache_variant(target, kingdom), str(seed),
                       lambda: solve(seed, target, time_limit, kingdom),
                       lambda r: check(seed, r, target, kingdom))

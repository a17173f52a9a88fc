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

With kingdom cards (``solve(..., kingdom="smithy,village")``, any of the ten First Game cards, all
ten together included) a second search, ``_KingdomSearch``, expands each turn into every distinct
outcome: every order of playing Actions, every answer to the choices inside them (the multiset
Cellar discards, the Treasure Mine trashes and the one it gains, the card Remodel trashes and the
one it gains, Workshop's gain) and every multiset of buys; identical cards are one choice and
outcomes that lead to the same turn start are merged. It proves its own lower bound, valid whatever
is played (see its docstring: a dynamic programme over the known draw pile in which each turn may
draw what its Actions can, then a cap on Provinces per turn from the deck's coins, Buys and
Remodels). The best of several plans bounds it from above: the money bots'; and, when a first
share of the work does not settle it, beam searches over whole turns and the plans of sub-kingdoms
solved exactly (a kingdom's optimum is never worse than a sub-kingdom's: the treasure game and, with
two cards or more, each card alone, every one stopped as soon as it cannot beat the best plan so
far); then the search goes on with the rest of the work. It is cross-checked against a
breadth-first search through the engine itself (every legal answer to every decision, Cellar, Mine,
Remodel and Workshop included), and on the empty kingdom against the treasure search.

Every limit is work, not seconds: ``work_limit`` counts the positions the searches generate, shared
by the seed plans and the exact search, so the same call gives the same answer on every machine (a
wall-clock ``time_limit`` is available, off by default). Tractability, measured by ``tabletop-gym
bench dominion`` (README): the treasure game and Smithy to 4 Provinces are proven in seconds; the
First Game kingdom to 4 Provinces is not proven within the default work (its lower bound stays far
below the plans found: its cheap relaxation lets every card gained be a Gold, a Market and a Remodel
at once, and each deeper iteration costs 10-20 times the one before), while 1 Province usually is.

Scores follow the package convention (higher is better, ``bound`` an upper bound on any play):
``score = -turns of the plan``, ``bound = -proven lower bound on turns``; ``optimal`` when they meet.
"""

from __future__ import annotations

import functools
import itertools
import operator
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
        extra = _turns_to_afford(*(draw.count(c) + discard[c] + hand[c]
                                   for c in (R.GOLD, R.SILVER, R.COPPER)))
        return max(known, extra) + (needed - capable)


@functools.cache  # a few thousand (gold, silver, copper) at most
def _turns_to_afford(gold: int, silver: int, copper: int) -> int:
    """Fewest cards to add (Golds, the best case) before 5 owned Treasures can make $8."""
    added = 0
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


# --- kingdom cards ---------------------------------------------------------------------------------
# Every kingdom card of the First Game is supported. In solitaire Militia is +$2 (no one to attack)
# and Moat +2 Cards; the choices inside Cellar (which cards to discard), Mine (which Treasure to trash,
# which to gain), Remodel (which card to trash, which to gain) and Workshop (which card to gain) are
# part of the search like the buys.
SUPPORTED_KINGDOM = R.KINGDOM_CARDS
_PLUS_CARDS = {R.MARKET: 1, R.MERCHANT: 1, R.MOAT: 2, R.SMITHY: 3, R.VILLAGE: 1}
_PLUS_ACTIONS = {R.CELLAR: 1, R.MARKET: 1, R.MERCHANT: 1, R.VILLAGE: 2}
# The most coins a card can add to the turn it is drawn in: a Treasure's value, Market's +$1,
# Militia's +$2, Merchant's +$1 (each Merchant adds $1 once, on the first Silver) and Mine's +$1 (a
# Treasure trashed from the hand for one costing up to $3 more, gained to the hand: Copper to Silver
# or Silver to Gold, one coin more).
_COIN_CEILING = {R.COPPER: 1, R.SILVER: 2, R.GOLD: 3, R.MARKET: 1, R.MERCHANT: 1, R.MILITIA: 2, R.MINE: 1}
# Cards that gain a card besides the buys (Mine replaces a Treasure, which adds at most $1).
_GAINERS = (R.MINE, R.REMODEL, R.WORKSHOP)
# Buys and gains are tried in this order (then pass): good ones first, so solutions are met early.
_PRIORITY = {R.PROVINCE: 100, R.GOLD: 50, R.MARKET: 45, R.SMITHY: 40, R.MILITIA: 35, R.SILVER: 30,
             R.REMODEL: 28, R.MINE: 26, R.WORKSHOP: 24, R.VILLAGE: 20, R.MERCHANT: 18, R.CELLAR: 16,
             R.MOAT: 15, R.COPPER: 5, R.DUCHY: 3, R.ESTATE: 2, R.CURSE: 1}
_PASS_PRIORITY = 10
_TABLE_LIMIT = 1_000_000  # positions kept in the search's tables (about 300 bytes each)
# Work: one unit per turn outcome generated (a child) and per position inside a turn expanded (the
# treasure search: per four nodes); about 50,000-75,000 a second on one core of the development
# machine, so the default is about a minute. Counting work instead of seconds gives the same answer on
# every machine.
DEFAULT_WORK_LIMIT = 3_000_000


def oracle_kingdom(kingdom: Any) -> tuple[int, ...]:
    """The kingdom as card ids (every kingdom card of the set is supported); a clear error for an
    unknown card."""
    return R.parse_kingdom(kingdom)


# Kinds of cards for the draw bound: no draw, a cantrip (Market, Merchant: +1 Card +1 Action), a
# Village (+1 Card +2 Actions), a Smithy (+3 Cards, terminal), a Moat (+2 Cards, terminal), a Cellar
# (+1 Action, draws as many as it discards).
_OTHER, _CANTRIP, _VILLAGE, _SMITHY, _MOAT, _CELLAR = range(_KINDS := 6)
_KIND = {R.MARKET: _CANTRIP, R.MERCHANT: _CANTRIP, R.VILLAGE: _VILLAGE, R.SMITHY: _SMITHY, R.MOAT: _MOAT,
         R.CELLAR: _CELLAR}


def _draws(seen: list[int]) -> int:
    """The most cards the Actions among ``seen`` (counts by kind) can draw in one turn: every cantrip
    and Village, and the best terminal drawers for which there are Actions (1 + one per Village;
    the other terminal Actions are left out, which only allows more). A Cellar draws as many cards as
    it discards, at most the hand, which the other cards keep at 5 + their draws or less."""
    slots = 1 + seen[_VILLAGE]
    smithies = min(seen[_SMITHY], slots)
    base = seen[_CANTRIP] + seen[_VILLAGE] + 3 * smithies + 2 * min(seen[_MOAT], slots - smithies)
    return base + seen[_CELLAR] * (R.HAND_SIZE + base)


def _best_coins(values: list[int], seen: list[int]) -> int:
    """The most coins a turn that has seen cards with these coin ceilings (counts of 0..3) and a
    Cellar can make: a Cellar discards cards and draws as many, so the cards that stay to be played
    number at most 5 + the other Actions' draws, and only the best ones count."""
    keep = R.HAND_SIZE + _draws(seen[:_CELLAR] + [0])
    coins = 0
    for v in (3, 2, 1):
        take = min(keep, values[v])
        coins += v * take
        keep -= take
    return coins


class _KingdomSearch:
    """The search with kingdom cards: one node per turn start, its children every distinct outcome
    of the turn (every order of playing Actions, every answer to the choices inside them, every
    multiset of buys within coins and Buys).

    Position at the start of a turn (after clean-up's draw): (draw pile in order, discard pile,
    hand, shuffles made, cards gained so far), counts over this game's cards (the base seven, then the
    kingdom). It fixes everything else: owned = draw + discard + hand, supply = starting supply -
    gained (trashed cards are owned no more, and never come back to the supply).

    The lower bound on the turns still needed (``lower_bound``) holds whatever is played:
    - a turn's coins come only from the cards it draws (the hand it starts with and the cards its
      Actions draw): at most ``_COIN_CEILING`` each; its Buys are 1 + the Markets among them; so it
      buys at most min(Buys, coins // 8) Provinces, and gains at most one more per Remodel that has
      a Gold to trash (a Gold drawn, or one a Mine made in the hand), within the Actions it has;
    - until the draw pile runs out (the "window"), the cards come in a known order and cards gained
      meanwhile lie in the discard pile (Mine's in the hand, counted by Mine's ceiling). A turn takes
      the next 5 (the current turn: its hand) and then as many more as the Actions among the cards
      seen so far can draw (``_draws``; a relaxation: the order of play and the Actions of the
      other terminal cards are ignored). A dynamic programme over the number of cards taken gives the
      most Provinces t turns can get inside the window;
    - a turn that needs a card beyond the window (its hand or a draw needs a shuffle) and every later
      turn gets at most min(B_j, M_j // 8) + min(Remodels_j, Golds_j + Mines_j) Provinces, where M_j
      bounds the coins the deck holds at turn j (the coin ceilings of all cards owned now, +3 for every
      card gained since: no card adds more, and a Remodel or Mine replaces a card by one worth at most
      3 more) and B_j its Buys (1 + Markets owned now + Markets that could have been gained since);
      every count grows by at most the turn's gains (Buys + Mines + Remodels + Workshops).
    """

    def __init__(self, seed: int, target: int, kingdom: tuple[int, ...], deadline: float = float("inf"),
                 work_limit: int | None = None) -> None:
        self.seed = seed
        self.target = target
        self.deadline = deadline
        self.work_limit = work_limit if work_limit is not None else float("inf")
        self.cards = R.BASE_CARDS + tuple(kingdom)  # local index -> card id (increasing, like the shuffle)
        n = self.n = len(self.cards)
        self.local = {c: i for i, c in enumerate(self.cards)}
        self.cost = [R.COST[c] for c in self.cards]
        self.value = [_COIN_CEILING.get(c, 0) for c in self.cards]
        self.plus_cards = [_PLUS_CARDS.get(c, 0) for c in self.cards]
        self.plus_buys = [1 if c == R.MARKET else 0 for c in self.cards]
        self.kind = [_KIND.get(c, _OTHER) for c in self.cards]
        self.actions = [i for i, c in enumerate(self.cards) if c in kingdom]
        self.treasures = [self.local[c] for c in R.TREASURES]
        self.market = self.local.get(R.MARKET)
        self.remodel = self.local.get(R.REMODEL)
        self.mine = self.local.get(R.MINE)
        self.gold = self.local[R.GOLD]
        self.gainers = [self.local[c] for c in _GAINERS if c in self.local]
        self.tracked = self.remodel is not None or R.CELLAR in self.cards
        self.range_n = range(n)
        sizes = R.supply_sizes(1, kingdom)
        self.start_supply = [sizes[c] for c in self.cards]
        self.starting = [7 if c == R.COPPER else 3 if c == R.ESTATE else 0 for c in self.cards]
        self.province = self.local[R.PROVINCE]
        self.buy_order = sorted(range(n), key=lambda i: -_PRIORITY[self.cards[i]])
        self.failed: dict[tuple, int] = {}
        self.bounds: dict[tuple, int] = {}  # position -> its lower bound (kept across iterations)
        self.nodes = 0
        self.work = 0
        self.timed_out = False  # stopped at its work (or time) limit
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
        return (tuple(local[c] for c in state.draw[0]), (0,) * self.n, tuple(hand), state.shuffles[0],
                (0,) * self.n)

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
        if end >= count:
            for c in draw[end - count:]:
                hand[c] += 1
            return draw[: end - count], discard, k
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
        likely best first (most Provinces, then the dearest useful buys). A turn after which the
        target can no longer be reached (Provinces trashed) ends the game unsuccessfully: left out."""
        out: dict[tuple, tuple[int, list[int]]] = {}
        seen: set[tuple] = set()
        draw, discard, hand, k, gained = pos
        self._act((draw, discard, hand, (0,) * self.n, k, 1, 0, 1, 0, gained), [], out, seen)
        ranked = sorted(out.items(), key=lambda item: -item[1][0])
        return [(child, plan) for child, (_, plan) in ranked]

    def _gainable(self, gained: tuple, max_cost: int, cards: Any = None) -> list[int]:
        """Cards (local) that can be gained: within ``max_cost``, pile not empty; best first."""
        cards = self.buy_order if cards is None else cards
        return [c for c in cards if self.cost[c] <= max_cost and gained[c] < self.start_supply[c]]

    def _act(self, t: tuple, plan: list[int], out: dict, seen: set) -> None:
        """The action phase from in-turn state ``t`` = (draw, discard, hand, in play, shuffles,
        actions, coins, buys, Merchants played, gained)."""
        if t in seen:
            return
        seen.add(t)
        self.work += 1
        hand, actions = t[2], t[5]
        playable = [a for a in self.actions if hand[a]] if actions else []
        if not playable:  # the engine skips the action phase
            self._buy_phase(t, plan, out)
            return
        for a in playable:
            self._play(t, a, plan + [self.cards[a]], out, seen)
        self._buy_phase(t, plan + [R.PASS], out)

    def _play(self, t: tuple, a: int, plan: list[int], out: dict, seen: set) -> None:
        draw, discard, hand, in_play, k, actions, coins, buys, merchants, gained = t
        h, p = list(hand), list(in_play)
        h[a] -= 1
        p[a] += 1
        in_play = tuple(p)
        card = self.cards[a]
        actions += _PLUS_ACTIONS.get(card, 0) - 1
        if self.plus_cards[a]:
            draw, discard, k = self._draw(draw, discard, h, k, self.plus_cards[a])
        if card == R.MARKET:
            coins += 1
            buys += 1
        elif card == R.MERCHANT:
            merchants += 1
        elif card == R.MILITIA:
            coins += 2
        elif card == R.CELLAR and any(h):
            self._cellar(draw, discard, h, in_play, k, actions, coins, buys, merchants, gained, plan,
                         out, seen)
            return
        elif card == R.MINE and any(h[c] for c in self.treasures):
            self._mine(draw, discard, h, in_play, k, actions, coins, buys, merchants, gained, plan, out,
                       seen)
            return
        elif card == R.REMODEL and any(h):
            for x in range(self.n):
                if h[x]:
                    h2 = list(h)
                    h2[x] -= 1
                    self._gain(draw, discard, tuple(h2), in_play, k, actions, coins, buys, merchants, gained,
                               plan + [self.cards[x]], self.cost[x] + 2, None, out, seen)
            return
        elif card == R.WORKSHOP:
            self._gain(draw, discard, tuple(h), in_play, k, actions, coins, buys, merchants, gained, plan,
                       4, None, out, seen)
            return
        self._act((draw, discard, tuple(h), in_play, k, actions, coins, buys, merchants, gained), plan,
                  out, seen)

    def _gain(self, draw, discard, hand, in_play, k, actions, coins, buys, merchants, gained, plan,
              max_cost, cards, out, seen, to_hand=False) -> None:
        """A gain of Remodel, Workshop (to the discard pile) or Mine (to the hand): mandatory when
        something is affordable, skipped by the engine when nothing is."""
        options = self._gainable(gained, max_cost, cards)
        if not options:
            self._act((draw, discard, hand, in_play, k, actions, coins, buys, merchants, gained), plan,
                      out, seen)
            return
        for g in options:
            g_gained = list(gained)
            g_gained[g] += 1
            if to_hand:
                h = list(hand)
                h[g] += 1
                t = (draw, discard, tuple(h), in_play, k, actions, coins, buys, merchants, tuple(g_gained))
            else:
                d = list(discard)
                d[g] += 1
                t = (draw, tuple(d), hand, in_play, k, actions, coins, buys, merchants, tuple(g_gained))
            self._act(t, plan + [self.cards[g]], out, seen)

    def _mine(self, draw, discard, h, in_play, k, actions, coins, buys, merchants, gained, plan, out,
              seen) -> None:
        self._act((draw, discard, tuple(h), in_play, k, actions, coins, buys, merchants, gained),
                  plan + [R.PASS], out, seen)
        for x in self.treasures:
            if h[x]:
                h2 = list(h)
                h2[x] -= 1
                self._gain(draw, discard, tuple(h2), in_play, k, actions, coins, buys, merchants, gained,
                           plan + [self.cards[x]], self.cost[x] + 3, self.treasures, out, seen, to_hand=True)

    def _cellar(self, draw, discard, h, in_play, k, actions, coins, buys, merchants, gained, plan, out,
                seen) -> None:
        """Every multiset of the hand discarded to Cellar, then as many cards drawn."""
        kinds = [c for c in range(self.n) if h[c]]
        total = sum(h)
        for counts in itertools.product(*(range(h[c] + 1) for c in kinds)):
            hand, disc = list(h), list(discard)
            steps: list[int] = []
            for c, m in zip(kinds, counts, strict=True):
                hand[c] -= m
                disc[c] += m
                steps.extend([self.cards[c]] * m)
            m = len(steps)
            if m < total:
                steps.append(R.PASS)  # the engine draws by itself once the hand is empty
            d, disc2, kk = self._draw(draw, tuple(disc), hand, k, m)
            self._act((d, disc2, tuple(hand), in_play, kk, actions, coins, buys, merchants, gained),
                      plan + steps, out, seen)

    def _buy_phase(self, t: tuple, plan: list[int], out: dict) -> None:
        draw, discard, hand, in_play, k, _, coins, buys, merchants, gained = t
        silver = hand[1]
        coins += hand[0] + 2 * silver + 3 * hand[2]
        if silver and merchants:
            coins += merchants
        # Treasures go into play; the hand, the cards in play and the discard pile are discarded.
        base = list(map(operator.add, hand, in_play))
        for i, d in enumerate(discard):
            if d:
                base[i] += d
        province = self.province
        supply = list(map(operator.sub, self.start_supply, gained))
        # Only Remodel can trash a Province: without it the target stays reachable.
        check_reach = self.remodel is not None
        if check_reach:
            owned_provinces = base[province] + draw.count(province)
        cards, draw_fn, n, target = self.cards, self._draw, self.n, self.target
        for bought in self._buys(coins, buys, supply):
            if bought:
                new_discard = list(base)
                new_gained = list(gained)
                for c in bought:
                    new_discard[c] += 1
                    new_gained[c] += 1
                new_gained = tuple(new_gained)
                if check_reach:
                    got = bought.count(province)
                    if owned_provinces + got < target and owned_provinces + supply[province] < target:
                        continue  # the engine ends the game here: the target cannot be reached any more
            else:
                new_discard, new_gained = base, gained
                if check_reach and owned_provinces < target and owned_provinces + supply[province] < target:
                    continue
            self.work += 1
            new_hand = [0] * n
            d, disc, kk = draw_fn(draw, tuple(new_discard), new_hand, k, R.HAND_SIZE)
            child = (d, disc, tuple(new_hand), kk, new_gained)
            if child not in out:
                steps = [cards[c] for c in bought]
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
        draw, discard, hand = pos[0], pos[1], pos[2]
        p = self.province
        return discard[p] + hand[p] + draw.count(p)

    def reachable(self, pos: tuple) -> bool:
        """The target can still be owned: Provinces owned plus those left in the supply."""
        p = self.province
        return self.provinces(pos) + self.start_supply[p] - pos[4][p] >= self.target

    # --- the lower bound --------------------------------------------------------------------------
    def lower_bound(self, pos: tuple, needed: int) -> int:
        """Turns (this one included) that any play needs to own ``needed`` more Provinces."""
        if needed <= 0:
            return 0
        draw, discard, hand, _, gained = pos
        value, kind, plus_buys = self.value, self.kind, self.plus_buys
        owned = list(map(operator.add, discard, hand))
        for c in draw:
            owned[c] += 1
        money = sum(map(operator.mul, owned, value))
        start_supply = self.start_supply
        market, remodel, mine, gold = self.market, self.remodel, self.mine, self.gold
        markets = market_cap = 0
        if market is not None:
            markets = owned[market]
            market_cap = markets + start_supply[market] - gained[market]
        remodels = remodel_cap = mines = mine_cap = golds = gold_cap = gainers = gainer_cap = 0
        if self.gainers:
            gainers = sum(owned[i] for i in self.gainers)
            gainer_cap = gainers + sum(start_supply[i] - gained[i] for i in self.gainers)
        if remodel is not None:
            remodels, golds = owned[remodel], owned[gold]
            remodel_cap = remodels + start_supply[remodel] - gained[remodel]
            gold_cap = golds + start_supply[gold] - gained[gold]
            if mine is not None:
                mines = owned[mine]
                mine_cap = mines + start_supply[mine] - gained[mine]
        # Coins by ceiling (for Cellar) and Remodels and Golds seen (for Remodel) only where they count.
        tracked = self.tracked
        stream = draw[::-1]  # the order cards will be drawn in
        size = len(stream)
        states = {0: 0}  # cards taken from the stream -> most Provinces so far
        exited = -1  # most Provinces of a play that has left the window (-1: none)
        hand_seen = [0] * _KINDS
        hand_values = [0] * 4  # the hand's cards by coin ceiling 0..3
        hand_buys = hand_coins = 0
        for c in self.range_n:
            h = hand[c]
            if h:
                hand_seen[kind[c]] += h
                hand_values[value[c]] += h
                hand_buys += h * plus_buys[c]
                hand_coins += h * value[c]
        hand_remodels = hand[remodel] if remodel is not None else 0
        hand_golds = hand[gold] + (hand[mine] if mine is not None else 0)
        turn = 0
        while True:
            turn += 1
            buys = 1 + markets
            cap = min(buys, money // _PROVINCE_COINS)
            if remodel is not None:
                cap += min(remodels, golds + mines)
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
                    values = [0] * 4
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
                    gain = (_best_coins(values, seen) if seen[_CELLAR] else coins) // _PROVINCE_COINS
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
            # Bounds for the next turn: at most ``buys`` cards bought and one gained per Mine, Remodel
            # and Workshop owned; each adds at most $3 of coin ceiling, and may be a Market, a Remodel,
            # a Mine or a Gold at best.
            gains = buys + gainers
            money += 3 * gains
            if markets < market_cap:
                markets = min(markets + gains, market_cap)
            if remodel is not None:
                remodels = min(remodels + gains, remodel_cap)
                mines = min(mines + gains, mine_cap)
                golds = min(golds + gains, gold_cap)
            if gainers < gainer_cap:
                gainers = min(gainers + gains, gainer_cap)

def _kingdom_iteration(search: _KingdomSearch, pos: tuple, turns_left: int) -> bool:
    """Is there a play from ``pos`` owning the target within ``turns_left`` turns (this one included)?"""
    search.nodes += 1
    if search.work > search.work_limit or (search.nodes & 0xFF == 0
                                           and time.perf_counter() > search.deadline):
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


# --- plans that seed the search: bots, sub-kingdoms, a beam search ---------------------------------
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


def _beam_score(search: _KingdomSearch, pos: tuple) -> float:
    """How promising a turn start is for the beam: Provinces owned first, then the coins a hand of
    this deck is worth (its cards drawing more hands), then Golds."""
    draw, discard, hand = pos[0], pos[1], pos[2]
    owned = [d + h for d, h in zip(discard, hand, strict=True)]
    for c in draw:
        owned[c] += 1
    cards = sum(owned)
    money = sum(o * v for o, v in zip(owned, search.value, strict=True))
    draws = sum(o * p for o, p in zip(owned, search.plus_cards, strict=True))
    drawn = R.HAND_SIZE + R.HAND_SIZE * draws / cards
    return 20 * search.provinces(pos) + money * min(drawn, cards) / cards + 0.2 * owned[search.gold]


def beam_plan(seed: int, target: int, kingdom: tuple[int, ...], width: int = 40,
              work_limit: int | None = None, max_turns: int = 40) -> tuple[int, list[int]] | None:
    """A plan by beam search over whole turns (every outcome of each kept turn start, the ``width``
    most promising kept): fast and usually near the optimum, but no proof. None if none found."""
    return _beam(_KingdomSearch(seed, target, kingdom, work_limit=work_limit), width, max_turns)


def _beam(search: _KingdomSearch, width: int, max_turns: int = 40) -> tuple[int, list[int]] | None:
    level: list[tuple[tuple, list[int]]] = [(search.start(), [])]
    for turn in range(1, max_turns + 1):
        candidates: dict[tuple, list[int]] = {}
        for pos, plan in level:
            for child, steps in search.children(pos):
                if search.provinces(child) >= search.target:
                    return turn, plan + steps
                candidates.setdefault(child, plan + steps)
            if search.work > search.work_limit:
                return None
        ranked = sorted(candidates, key=lambda child: -_beam_score(search, child))
        level = [(child, candidates[child]) for child in ranked[:width]]
    return None


# Shares of the work the seed plans may take: the exact search first runs alone on 1/_FIRST_SHARE of the
# work limit (enough for most one-card kingdoms and small targets); if it is not done, the plans below
# take at most their shares of the work left and the exact search goes on with the rest.
_FIRST_SHARE = 8
_BEAM_SHARE = 8  # each beam
_BEAM_WIDTHS = (20, 60)
_TREASURE_SHARE = 8  # the treasure game, solved exactly
_SINGLES_SHARE = 4  # all one-card sub-kingdoms together, solved exactly in turn, each with what is left
# The one-card sub-kingdoms in the order they are solved: the best alone first (measured: Smithy
# alone is optimal in 12 turns on most deals, Mine in 13, the others in 13-15). Each stops as soon as it
# cannot beat the best plan so far, so most take little of the share.
_SINGLE_ORDER = (R.SMITHY, R.MINE, R.MARKET, R.REMODEL, R.WORKSHOP, R.MILITIA, R.CELLAR, R.MOAT, R.MERCHANT,
                 R.VILLAGE)
# The treasure search's nodes are about four times cheaper than the kingdom search's work units.
_TREASURE_NODES_PER_WORK = 4

Plan = tuple[int, list[int]]  # turns, actions


def _seed_plans(seed: int, target: int, kingdom: tuple[int, ...], work_limit: int,
                best: int) -> tuple[dict[str, Plan], int]:
    """Upper bounds with their plans, by source, and the work they took, each within a share of
    ``work_limit``: for two kingdom cards or more, beam searches over whole turns; then the
    sub-kingdoms solved exactly (a plan with fewer kingdom cards is a legal play of a larger kingdom:
    the same decisions come up; each is replayed in the larger kingdom to make sure): the treasure
    game and, for two kingdom cards or more, each card alone (seeded by the treasure game's plan). A
    sub-kingdom's search stops once its lower bound reaches the best plan so far (``best`` turns at
    first): it cannot improve on it (its entry is then the best plan it had, its bots' or the treasure
    game's)."""
    plans: dict[str, Plan] = {}
    used = 0
    if len(kingdom) >= 2:
        for width in _BEAM_WIDTHS:
            search = _KingdomSearch(seed, target, kingdom, work_limit=work_limit // _BEAM_SHARE)
            found = _beam(search, width)
            used += search.work
            if found is not None:
                plans[f"beam {width}"] = found
                best = min(best, found[0])
    treasure = _solve_treasure(seed, target, None, max(1, work_limit // _TREASURE_SHARE), cutoff=best)
    plans["treasure"] = (-int(treasure.score), list(treasure.plan))
    best = min(best, plans["treasure"][0])
    used += treasure.stats["work"]
    if len(kingdom) >= 2:
        pool = work_limit // _SINGLES_SHARE
        for card in sorted(kingdom, key=_SINGLE_ORDER.index):
            if pool < 1:
                break
            sub = _solve_kingdom(seed, target, (card,), None, pool, seeded=False,
                                 plans={"treasure": plans["treasure"]}, cutoff=best)
            plans[R.CARD_NAMES[card]] = (-int(sub.score), list(sub.plan))
            best = min(best, plans[R.CARD_NAMES[card]][0])
            pool -= sub.stats["work"]
            used += sub.stats["work"]
    for name, (turns, plan) in plans.items():
        if replay_turns(seed, plan, target, kingdom) != turns:  # never: a sub-kingdom's play is a play here
            raise AssertionError(f"the {name} plan does not replay to {turns} turns in the kingdom")
    return plans, used


def replay_turns(seed: int | str, plan: Any, target: int = R.DEFAULT_TARGET, kingdom: Any = ()) -> int:
    """Replay a plan through the engine; the turns it takes to own the target (raises if it fails)."""
    state = R.replay(plan, seed, 1, R.parse_kingdom(kingdom), target=target)
    if not state.done or state.unreachable or state.owned[0][R.PROVINCE] < target:
        raise AssertionError(f"the plan does not reach {target} Provinces on seed {seed}")
    return state.turns[0]


def _deepen(search: Any, iterate: Any, upper: int, plan: list[int], lower: int,
            cutoff: int | None = None) -> tuple[int, int, list, int]:
    """Iterative deepening from a proven lower bound up to a known plan: (upper, lower, plan, iterations).
    With ``cutoff``, it stops once the lower bound reaches it (only plans shorter than ``cutoff`` are
    wanted)."""
    iterations = 0
    stop = upper if cutoff is None else min(upper, cutoff)
    while lower < stop:
        iterations += 1
        if iterate(lower):
            upper, plan = lower, search.plan
            break
        if search.timed_out:
            break
        lower += 1  # no play owns the target within ``lower`` turns
    return upper, min(lower, upper), plan, iterations


def solve(deal: int | str, target: int = R.DEFAULT_TARGET, time_limit: float | None = None,
          kingdom: Any = "", work_limit: int = DEFAULT_WORK_LIMIT) -> OracleResult:
    """The fewest turns to own ``target`` Provinces on seed ``deal``.

    ``kingdom``: "" (default) is the treasure-and-victory supply; otherwise any kingdom cards of the
    First Game, as for the engine (e.g. "smithy,village" or "first-game"). Returns ``score = -turns``
    of the best plan found and ``bound = -(proven lower bound)``; with enough work they meet
    (``optimal``). ``work_limit`` (search nodes, positions and turn outcomes generated: about 50,000
    a second on one core) caps the search, so the same call gives the same answer on every machine;
    ``time_limit`` (seconds, finite, above 0; default none) adds a wall-clock cap on the exact search,
    whose answer then depends on the machine. A search cut off reports its bound, not an optimum.
    ``target`` is 1..8.
    """
    seed, target, time_limit, work_limit = _checked(deal, target, time_limit, work_limit)
    cards = oracle_kingdom(kingdom)
    if cards:
        return _solve_kingdom(seed, target, cards, time_limit, work_limit)
    return _solve_treasure(seed, target, time_limit, work_limit)


def _solve_treasure(seed: int, target: int, time_limit: float | None, work_limit: int,
                    cutoff: int | None = None) -> OracleResult:
    start = time.perf_counter()
    deadline = start + (time_limit or float("inf"))
    search = _Search(seed, target, deadline, _TREASURE_NODES_PER_WORK * work_limit)
    upper, plan = _bot_plan(seed, target)
    root = search.start()
    upper, lower, plan, iterations = _deepen(
        search, lambda turns: _iteration(search, root, 0, turns), upper, plan,
        search.lower_bound(root, target), cutoff)
    return _result(seed, target, (), upper, lower, plan, start, search, iterations,
                   {"positions_refuted": len(search.failed),
                    "work": -(-search.nodes // _TREASURE_NODES_PER_WORK)})


def _checked(deal: int | str, target: Any, time_limit: Any,
             work_limit: Any) -> tuple[int, int, float | None, int]:
    """The seed, target and limits, or a ValueError naming the bad one (a NaN or infinite time
    limit would never stop the search)."""
    limit = None if time_limit is None else check_float("time_limit", time_limit, 0, low_open=True)
    return (R.parse_seed(deal), check_int("target", target, 1, R.MAX_TARGET), limit,
            check_int("work_limit", work_limit, 1))


def _solve_kingdom(seed: int, target: int, kingdom: tuple[int, ...], time_limit: float | None = None,
                   work_limit: int = DEFAULT_WORK_LIMIT, seeded: bool = True,
                   plans: dict[str, Plan] | None = None, cutoff: int | None = None) -> OracleResult:
    """The search with kingdom cards (also runs on the empty kingdom, for cross-checks), from the
    bots' plans and ``plans`` (plans of this kingdom, by source). With ``seeded``, the exact search
    first runs on a share of the work; if that does not settle it, the sub-kingdoms' and beams'
    plans (``_seed_plans``) are made from the work left, and the search goes on (its tables stay valid:
    they hold positions refuted within a number of turns, whatever the plan to beat) with the rest.
    With ``cutoff`` it stops once its lower bound reaches ``cutoff`` turns."""
    start = time.perf_counter()
    deadline = start + (time_limit or float("inf"))
    plans = {"bots": _bot_plan(seed, target, kingdom), **(plans or {})}
    upper, plan = min(plans.values(), key=lambda p: p[0])
    search = _KingdomSearch(seed, target, kingdom, deadline,
                            max(1, work_limit // _FIRST_SHARE) if seeded else work_limit)
    root = search.start()
    iterate = lambda turns: _kingdom_iteration(search, root, turns)  # noqa: E731
    upper, lower, plan, iterations = _deepen(search, iterate, upper, plan, search.lower_bound(root, target),
                                             cutoff)
    used = 0
    if seeded and lower < upper and time.perf_counter() <= deadline:
        more, used = _seed_plans(seed, target, kingdom, work_limit - search.work, upper)
        plans.update(more)
        best, best_plan = min(more.values(), key=lambda p: p[0])
        if best < upper:
            upper, plan = best, best_plan
        search.work_limit = max(1, work_limit - used)
        search.timed_out = False
        upper, lower, plan, more_iterations = _deepen(search, iterate, upper, plan, lower, cutoff)
        iterations += more_iterations
    return _result(seed, target, kingdom, upper, lower, plan, start, search, iterations,
                   {"positions_refuted": len(search.failed), "shuffles_cached": len(search._shuffles),
                    "work": used + search.work, "seed_work": used,
                    "seed_plan_turns": {name: p[0] for name, p in plans.items()}})


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
                 time_limit: float | None = None, kingdom: Any = "",
                 work_limit: int = DEFAULT_WORK_LIMIT) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    seed, target, time_limit, work_limit = _checked(deal, target, time_limit, work_limit)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(GAME, cache_variant(target, kingdom), str(seed),
                       lambda: solve(seed, target, time_limit, kingdom, work_limit),
                       lambda r: check(seed, r, target, kingdom))

"""The search with kingdom cards: one node per turn start, its children every distinct outcome of the
turn (the engine's rules on compact positions), and the iterative deepening over it."""

from __future__ import annotations

import itertools
import operator
import time
from typing import Any

from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles.dominion.bounds import COIN_CEILING, GAINERS, KIND, lower_bound
from tabletop_gym.oracles.dominion.common import COPPER_COINS, GOLD_COINS, SILVER_COINS

# Buys and gains are tried in this order (then pass): good ones first, so solutions are met early.
_PRIORITY = {R.PROVINCE: 100, R.GOLD: 50, R.MARKET: 45, R.SMITHY: 40, R.MILITIA: 35, R.SILVER: 30,
             R.REMODEL: 28, R.MINE: 26, R.WORKSHOP: 24, R.VILLAGE: 20, R.MERCHANT: 18, R.CELLAR: 16,
             R.MOAT: 15, R.COPPER: 5, R.DUCHY: 3, R.ESTATE: 2, R.CURSE: 1}
_PASS_PRIORITY = 10
_TABLE_LIMIT = 1_000_000  # positions kept in the search's tables (about 300 bytes each)


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
      Actions draw): at most ``bounds.COIN_CEILING`` each; its Buys are 1 + the Markets among them; so it
      buys at most min(Buys, coins // 8) Provinces, and gains at most one more per Remodel that has
      a Gold to trash (a Gold drawn, or one a Mine made in the hand), within the Actions it has;
    - until the draw pile runs out (the "window"), the cards come in a known order and cards gained
      meanwhile lie in the discard pile (Mine's in the hand, counted by Mine's ceiling). A turn takes
      the next 5 (the current turn: its hand) and then as many more as the Actions among the cards
      seen so far can draw (``bounds._draws``; a relaxation: the order of play and the Actions of the
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
        # What each card does, from the engine's tables (and, for the bound, what it can do).
        self.plus_cards = [R.PLUS_CARDS[c] for c in self.cards]
        self.plus_actions = [R.PLUS_ACTIONS[c] for c in self.cards]
        self.plus_buys = [R.PLUS_BUYS[c] for c in self.cards]
        self.plus_coins = [R.PLUS_COINS[c] for c in self.cards]
        self.value = [COIN_CEILING[c] for c in self.cards]
        self.kind = [KIND[c] for c in self.cards]
        self.actions = [i for i, c in enumerate(self.cards) if c in R.ACTION_CARDS]
        self.treasures = [self.local[c] for c in R.TREASURES]
        self.market = self.local.get(R.MARKET)
        self.remodel = self.local.get(R.REMODEL)
        self.mine = self.local.get(R.MINE)
        self.gold = self.local[R.GOLD]
        self.gainers = [self.local[c] for c in GAINERS if c in self.local]
        self.tracked = self.remodel is not None or R.CELLAR in self.cards
        self.range_n = range(n)
        sizes = R.supply_sizes(1, kingdom)
        self.start_supply = [sizes[c] for c in self.cards]
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
        actions += self.plus_actions[a] - 1
        coins += self.plus_coins[a]
        buys += self.plus_buys[a]
        if self.plus_cards[a]:
            draw, discard, k = self._draw(draw, discard, h, k, self.plus_cards[a])
        if card == R.MERCHANT:
            merchants += 1
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
                               plan + [self.cards[x]], self.cost[x] + R.REMODEL_EXTRA_COST, None, out, seen)
            return
        elif card == R.WORKSHOP:
            self._gain(draw, discard, tuple(h), in_play, k, actions, coins, buys, merchants, gained, plan,
                       R.WORKSHOP_MAX_COST, None, out, seen)
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
                           plan + [self.cards[x]], self.cost[x] + R.MINE_EXTRA_COST, self.treasures, out,
                           seen, to_hand=True)

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
        # Copper, Silver and Gold are the first three cards here, as in the engine's ids.
        coins += COPPER_COINS * hand[0] + SILVER_COINS * silver + GOLD_COINS * hand[2]
        if silver and merchants:
            coins += R.MERCHANT_COINS * merchants
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
    # --- the lower bound --------------------------------------------------------------------------
    def lower_bound(self, pos: tuple, needed: int) -> int:
        """Turns (this one included) that any play needs to own ``needed`` more Provinces."""
        return lower_bound(self, pos, needed)


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

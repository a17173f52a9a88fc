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

Scores follow the package convention (higher is better, ``bound`` an upper bound on any play):
``score = -turns of the plan``, ``bound = -proven lower bound on turns``; ``optimal`` when they meet.
"""

from __future__ import annotations

import time
from typing import Any

from tabletop_gym.agents.dominion import BOTS, play_game
from tabletop_gym.core import OracleCache, OracleResult
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


def _bot_plan(seed: int, target: int) -> tuple[int, list[int]]:
    """The best of the treasure bots on this seed: an upper bound and its plan."""
    best: tuple[int, list[int]] | None = None
    for name in ("big-money", "big-money-ultimate", "buy-money-and-duchy"):
        state = play_game([BOTS[name]()], seed, (), target=target, turn_limit=100)
        if state.done and not state.truncated and state.owned[0][R.PROVINCE] >= target:
            turns = state.turns[0]
            if best is None or turns < best[0]:
                best = (turns, [a for _, a in state.history])
    assert best is not None
    return best


def replay_turns(seed: int | str, plan: Any, target: int = R.DEFAULT_TARGET) -> int:
    """Replay a plan through the engine; the turns it takes to own the target (raises if it fails)."""
    state = R.replay(plan, seed, 1, (), target=target)
    if not state.done or state.owned[0][R.PROVINCE] < target:
        raise AssertionError(f"the plan does not reach {target} Provinces on seed {seed}")
    return state.turns[0]


def solve(deal: int | str, target: int = R.DEFAULT_TARGET, time_limit: float = 600.0) -> OracleResult:
    """The fewest turns to own ``target`` Provinces on seed ``deal``, treasure-and-victory supply.

    Returns ``score = -turns`` of the best plan found and ``bound = -(proven lower bound)``; with
    enough time they meet (``optimal``). ``time_limit`` seconds caps the search.
    """
    seed = R.parse_seed(deal)
    if not isinstance(target, int) or not 1 <= target <= 8:
        raise ValueError(f"target must be a number of Provinces 1..8, got {target!r}")
    start = time.perf_counter()
    search = _Search(seed, target, start + time_limit)
    upper, plan = _bot_plan(seed, target)
    root = search.start()
    lower = search.lower_bound(root, target)
    iterations = 0
    while lower < upper:
        iterations += 1
        if _iteration(search, root, 0, lower):
            upper, plan = lower, search.plan
            break
        if search.timed_out:
            break
        lower += 1  # no play owns the target within ``lower`` turns
    lower = min(lower, upper)
    turns = replay_turns(seed, plan, target)
    if turns != upper:
        raise AssertionError(f"oracle claims {upper} turns but its plan replays to {turns} on seed {seed}")
    return OracleResult(
        score=-upper,
        bound=-lower,
        plan=tuple(int(a) for a in plan),
        seconds=time.perf_counter() - start,
        stats={"nodes": search.nodes, "positions_refuted": len(search.failed), "iterations": iterations,
               "timed_out": search.timed_out, "turns": upper, "lower_bound_turns": lower},
    )


def check(deal: int | str, result: OracleResult, target: int = R.DEFAULT_TARGET) -> bool:
    """True if the plan replays through the engine to the claimed turns and the result is proven."""
    try:
        turns = replay_turns(R.parse_seed(deal), result.plan, target)
    except (ValueError, RuntimeError, TypeError, AssertionError):
        return False
    return -turns == result.score and result.optimal


def solve_cached(deal: int | str, target: int = R.DEFAULT_TARGET, cache: OracleCache | None = None,
                 time_limit: float = 600.0) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    seed = R.parse_seed(deal)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(GAME, f"solitaire-treasure-target{target}", str(seed),
                       lambda: solve(seed, target, time_limit), lambda r: check(seed, r, target))

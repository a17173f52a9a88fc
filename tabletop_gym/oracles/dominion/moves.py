"""The move oracle of solitaire Dominion (``tabletop_gym.core.MoveOracle``): the fewest turns still
needed from any position reached in play, and every legal decision's value there.

A position's optimum is minus the turns still to play: the fewest turns (this one included) in which
any play from it owns the target, or the turns left to the episode's turn limit where no play makes
it in time (the episode is cut off there, and its score is minus the limit). A decision's value is its
reward (-1 when it ends a turn, 0 inside a turn) plus the optimum after it, so a game's losses add up
to the deal's optimum minus the turns taken.

At the start of a turn the oracle's own searches answer (the treasure game's ``_Search``, Smithy's
``_KingdomSearch``, one per deal, whose tables of refuted positions serve every later question),
deepened from their proven lower bounds up to the turns left. Inside a turn (Smithy played or not,
then the buy) the engine itself plays out the rest of the turn. Only the settings where these searches
prove the fewest turns have move values: the treasure game and Smithy alone; a search cut off by its
work limit is an error, never a number. Every value comes with a plan the engine replays from the
position to exactly that value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabletop_gym.core import GameOverError, IllegalActionError, MoveValues, NoMoveOracleError
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import SOLITAIRE_TURN_LIMIT
from tabletop_gym.oracles.dominion.common import DEFAULT_WORK_LIMIT, oracle_kingdom
from tabletop_gym.oracles.dominion.kingdom import _kingdom_iteration, _KingdomSearch
from tabletop_gym.oracles.dominion.oracle import _TREASURE_NODES_PER_WORK
from tabletop_gym.oracles.dominion.treasure import _BASE, _iteration, _Search

# The kingdoms whose searches prove the fewest turns within seconds (tabletop-gym bench dominion).
MOVE_KINGDOMS = ((), (R.SMITHY,))


class DominionMoves:
    """The move oracle of one solitaire deal (the seed): optimum, values and a plan at any position.

    ``kingdom``: "" (the treasure game) or "smithy"; any other kingdom raises ``NoMoveOracleError``
    (its search only bounds the fewest turns within the work a deal is given). ``turn_limit``: the
    environment's (an episode cut off there scores minus the limit). ``work_limit``: the work each
    search from a turn start may take (as ``solve`` counts it); one that needs more raises
    ``NoMoveOracleError`` rather than give a value it has not proven.
    """

    def __init__(self, deal: int | str, target: int = R.DEFAULT_TARGET, kingdom: Any = "",
                 turn_limit: int = SOLITAIRE_TURN_LIMIT, work_limit: int = DEFAULT_WORK_LIMIT) -> None:
        cards = oracle_kingdom(kingdom)
        if cards not in MOVE_KINGDOMS:
            raise NoMoveOracleError(
                f"Dominion has move values for the treasure game and Smithy alone, not the kingdom "
                f"{','.join(R.CARD_NAMES[c] for c in cards)}: its search only bounds the fewest turns"
            )
        self.rules = R.DominionRules(1, cards, target, turn_limit)
        self.seed = R.parse_seed(deal)
        self.deal = str(self.seed)
        self.target = self.rules.target
        self.turn_limit = self.rules.turn_limit
        self.work_limit = work_limit
        self.kingdom = cards
        if cards:
            self._search: Any = _KingdomSearch(self.seed, self.target, cards)
        else:
            self._search = _Search(self.seed, self.target, float("inf"))
        self._fewest: dict[tuple, int] = {}  # turn start -> the fewest turns, proven
        self._plans: dict[tuple, list[int]] = {}  # turn start -> a plan that takes them
        self._more: dict[tuple, int] = {}  # turn start -> turns proven not enough

    def at(self, history: Sequence[int]) -> MoveValues:
        """The values after ``history`` (the actions from the deal's start)."""
        try:
            state = R.replay(self.rules, self.seed, history)
        except (IllegalActionError, GameOverError) as error:
            raise ValueError(f"not a play of deal {self.deal}: {error}") from None
        return self.at_state(state)

    def at_state(self, state: R.DominionState) -> MoveValues:
        """The values at an engine position of this deal (``env.unwrapped.state``)."""
        if state.seed != self.seed or state.rules != self.rules:
            raise ValueError(f"the position is of deal {state.seed} ({state.rules}), not of {self.deal} "
                             f"({self.rules})")
        if state.done:
            raise ValueError("the game is over: no move is left to value")
        values = {a: self._value_after(state, a) for a in state.legal_actions()}
        optimum = max(values.values())
        plan = self._plan(state, values)
        gained = replay_from(state, plan)
        if gained != optimum:
            raise AssertionError(f"move oracle claims {optimum} after {len(state.history)} decisions of "
                                 f"deal {self.deal}, its plan gains {gained}")
        return MoveValues(float(optimum), {a: float(v) for a, v in values.items()}, tuple(plan))

    # --- values ----------------------------------------------------------------------------------
    def _value_after(self, state: R.DominionState, action: int) -> int:
        after = state.copy()
        after.apply(action)
        reward = state.turns[0] - after.turns[0]  # -1 where the decision ends the turn
        if after.done:
            return reward
        if reward:
            return reward - self._turns_to_play(after)[0]
        return reward + max(self._value_after(after, a) for a in after.legal_actions())

    def _turns_to_play(self, state: R.DominionState) -> tuple[int, list[int] | None]:
        """At a turn start: the turns the best play still takes (to the target, or to the turn limit
        where no play reaches the target in time), and its plan (None: any play to the limit)."""
        pos = self._position(state)
        left = self.turn_limit - state.turns[0]
        known = self._fewest.get(pos)
        if known is not None:
            return (known, self._plans[pos]) if known <= left else (left, None)
        if self._more.get(pos, 0) >= left:
            return left, None
        search = self._search
        provinces = state.owned[0][R.PROVINCE]
        turns = max(search.lower_bound(pos, self.target - provinces), self._more.get(pos, 0) + 1)
        search.timed_out = False
        search.nodes = search.work = 0
        search.work_limit = self.work_limit * (1 if self.kingdom else _TREASURE_NODES_PER_WORK)
        search.path = []
        while turns <= left:
            if self.kingdom:
                found = _kingdom_iteration(search, pos, turns)
            else:
                found = _iteration(search, pos, provinces, turns)
            if search.timed_out:
                raise NoMoveOracleError(
                    f"the search from turn {state.turns[0] + 1} of deal {self.deal} needs more than its "
                    f"work limit ({self.work_limit}) to prove the fewest turns: no proven value"
                )
            if found:
                self._fewest[pos], self._plans[pos] = turns, list(search.plan)
                return turns, self._plans[pos]
            self._more[pos] = turns
            turns += 1
        return left, None

    def _position(self, state: R.DominionState) -> tuple:
        """The search's position at a turn start (the hand drawn: in hand, or its Treasures already
        played where the engine went straight to the buy)."""
        draw, discard = state.draw[0], state.discard[0]
        hand = [h + p for h, p in zip(state.hand[0], state.in_play[0], strict=True)]
        if not self.kingdom:
            return (tuple(draw), tuple(discard[:_BASE]), tuple(hand[:_BASE]), state.shuffles[0])
        search = self._search
        cards = search.cards
        return (tuple(search.local[c] for c in draw), tuple(discard[c] for c in cards),
                tuple(hand[c] for c in cards), state.shuffles[0],
                tuple(search.start_supply[i] - state.supply[c] for i, c in enumerate(cards)))

    # --- plans -----------------------------------------------------------------------------------
    def _plan(self, state: R.DominionState, values: dict[int, int]) -> list[int]:
        """An optimal play from ``state`` to the end: the best decisions to the end of this turn (by
        the values), then the search's plan from the next turn start (or passing to the turn limit
        where no play reaches the target in time)."""
        best = max(values, key=values.__getitem__)
        after = state.copy()
        after.apply(best)
        if after.done:
            return [best]
        if after.turns[0] == state.turns[0]:
            return [best] + self._plan(after, {a: self._value_after(after, a) for a in after.legal_actions()})
        _, plan = self._turns_to_play(after)
        if plan is None:  # every play takes the turns left: passing to the limit is one of them
            plan = []
            passing = after.copy()
            while not passing.done:
                plan.append(R.PASS)
                passing.apply(R.PASS)
        return [best] + plan


def replay_from(state: R.DominionState, plan: Sequence[int]) -> int:
    """Minus the turns ``plan`` takes from ``state`` (left as it is), played by the engine to the
    episode's end; raises if it is illegal or stops short."""
    state = state.copy()
    start = state.turns[0]
    for action in plan:
        state.apply(action)
    if not state.done:
        raise ValueError(f"the plan stops after turn {state.turns[0]}, before the episode ends")
    if state.unreachable:
        raise ValueError("the plan makes the target unreachable")
    return start - state.turns[0]

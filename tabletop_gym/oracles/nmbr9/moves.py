"""Nmbr9's move oracle (``tabletop_gym.core.MoveOracle``): the most points still to be had from any
position reached in play, and every legal placement's value there, for the settings where the exact
search proves the optimum (small variants: ``9-2-5`` on a 7x7 grid with 2 levels, as suite
``nmbr9-small-v0``, and smaller).

The values are the known-draft oracle's, and that oracle plays in hindsight: the deal fixes the
order of the cards, and the optimum is over every play of that very order, including plays that
depend on cards the player has not drawn yet (the observation shows only the card to place and the
counts of those unseen). A move's loss is measured against that hindsight optimum, as ``evaluate``'s
optimum already is, so no policy avoids every loss: leaving room for a 9 is a loss where the 9 never
comes. The expected value of the best policy that does not see the cards to come
(``solve --unknown``, ``evaluate --expected-value``) is the other yardstick.

How they are computed: the exact branch and bound of the known draft (``search``), started from the
position with the tiles already on the board held where they lie (``search.solve_from``), once for
the position after each legal placement; its bounds prune as they do from a deal's start. A position's
answers are kept, so the next decision of the same game, and every agent's game of the deal, reuse
them. Each search may try as many placements as the oracle's work limit buys (``time_limit``,
seconds of work, priced as ``solve`` prices the exact search's nodes); one that does not finish is
an error, never a number. Every value's plan is replayed by the engine from its position.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.core import GameOverError, IllegalActionError, MoveValues, NoMoveOracleError
from tabletop_gym.envs.nmbr9.rules import Nmbr9Rules, Nmbr9State, parse_deal, replay
from tabletop_gym.oracles.nmbr9 import search
from tabletop_gym.oracles.nmbr9.common import (
    EXACT_SEARCH_CARDS,
    NODES_PER_SECOND,
    check_time_limit,
    node_price,
)

DEFAULT_TIME_LIMIT = 30.0
"""Seconds of work each search may use by default (``Nmbr9Limits.time_limit``'s default too)."""


class Nmbr9Moves:
    """The move oracle of one known-draft deal: optimum, values and a plan at any position.

    ``rules``: the variant, grid and level limit the deal is played under; a variant of more than
    ``EXACT_SEARCH_CARDS`` cards raises ``NoMoveOracleError`` (the exact search does not prove such
    deals), and so does a deal whose optimum the search does not prove within ``time_limit`` (seconds
    of work a search may use, counted in placements tried, so the same on every machine).
    """

    def __init__(self, deal: str, rules: Nmbr9Rules, time_limit: float = DEFAULT_TIME_LIMIT) -> None:
        if not isinstance(rules, Nmbr9Rules):
            raise TypeError(f"rules must be Nmbr9Rules, got {type(rules).__name__}")
        refuse_unproven(rules)
        self.rules = rules
        self.time_limit = check_time_limit(time_limit)
        self._deal = parse_deal(deal, rules.variant)
        self.deal = str(self._deal)
        # A node of the search tests the placements of one card, as ``solve`` prices it.
        placements = search.placements_tested(self._deal.cards, rules.grid) / len(self._deal)
        self.node_limit = max(1, int(self.time_limit * NODES_PER_SECOND / node_price(placements)))
        self._best: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}  # placements -> optimum, plan
        start = replay(rules, self._deal, ())
        self.optimum = self._best_from(start)[0]  # proven now: a deal beyond the work is refused at once

    def at(self, history: Sequence[int]) -> MoveValues:
        """The values after ``history`` (the actions from the deal's start, one per placed card)."""
        try:
            state = replay(self.rules, self._deal, [int(a) for a in history])
        except (IllegalActionError, GameOverError) as error:
            raise ValueError(f"not a play of deal {self.deal}: {error}") from None
        return self.at_state(state)

    def at_state(self, state: Nmbr9State) -> MoveValues:
        """The values at an engine position of this deal (``env.unwrapped.state``)."""
        if not isinstance(state, Nmbr9State):
            raise TypeError(f"state must be an Nmbr9State, got {type(state).__name__}")
        if (str(state.deal), state.grid, state.levels) != (self.deal, self.rules.grid, self.rules.levels):
            raise ValueError(
                f"the position is of deal {state.deal} on a {state.grid}x{state.grid} grid with levels "
                f"{state.levels}, not of {self.deal} on {self.rules.grid}x{self.rules.grid} with levels "
                f"{self.rules.levels}"
            )
        if state.done:
            raise ValueError("the game is over: no move is left to value")
        values: dict[int, int] = {}
        plans: dict[int, tuple[int, ...]] = {}
        for action in state.legal_actions():
            after = state.copy()
            points = after.apply(action)
            rest, plans[action] = self._best_from(after)
            values[action] = points + rest
        optimum = max(values.values())
        best = next(a for a, v in values.items() if v == optimum)
        plan = (best, *plans[best])
        gained = replay_from(state, plan)
        if gained != optimum:
            raise AssertionError(
                f"move oracle claims {optimum} after {state.turn} cards of deal {self.deal}, its plan gains "
                f"{gained}"
            )
        return MoveValues(float(optimum), {a: float(v) for a, v in values.items()}, plan)

    def _best_from(self, state: Nmbr9State) -> tuple[int, tuple[int, ...]]:
        """The most points still to gain from ``state`` and a plan that gains them, proven."""
        key = tuple(-1 if p is None else p.action for p in state.placements)
        known = self._best.get(key)
        if known is None:
            result = search.solve_from(state, self.node_limit)
            if not result.optimal:
                raise NoMoveOracleError(
                    f"the exact search does not prove the best play from card {state.turn + 1} of deal "
                    f"{self.deal} within {self.time_limit:g} s of work (it bounds it by {result.bound} "
                    "points): no move values here; a larger --time-limit may prove it"
                )
            known = self._best[key] = result.score, result.plan
        return known


def refuse_unproven(rules: Nmbr9Rules) -> None:
    """``NoMoveOracleError`` where the variant is beyond the exact search (too many cards)."""
    cards = rules.variant.cards
    if cards > EXACT_SEARCH_CARDS:
        raise NoMoveOracleError(
            f"Nmbr9 has move values where the exact search proves the optimum, deals of at most "
            f"{EXACT_SEARCH_CARDS} cards (e.g. --variant 9-2-5 --grid 7 --levels 2), not variant "
            f"{rules.variant} ({cards} cards): there the oracle only bounds the best score"
        )


def replay_from(state: Nmbr9State, plan: Sequence[int]) -> int:
    """The points the engine scores playing ``plan`` from ``state`` to the end of the game (a copy is
    played); raises if the plan is illegal there or leaves the game unfinished."""
    after = state.copy()
    for action in plan:
        after.apply(action)
    if not after.done:
        raise ValueError(f"the plan of {len(plan)} placements stops before the end of deal {state.deal}")
    return after.score - state.score

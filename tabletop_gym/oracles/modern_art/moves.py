"""Modern Art's move oracle (``tabletop_gym.core.MoveOracle``): the most the seat can still score
from any position reached in play of a one-round game (``--rounds 1``), and every legal decision's
value there.

What the values are relative to. The environment plays one seat (``seat``, 0 on the command line)
against fixed greedy bots in the other seats (``bots.GreedyAgent``, the environment's default
opponents), and the deal fixes every hand and every card to be drawn. A greedy bot's decision is a
function of what its seat sees, so once the deal is fixed the seat's score is a function of the seat's
own decisions alone: the optimum here is the most the seat scores over every play of its own
decisions, the bots answering each as they do in the environment. It is a hindsight optimum (the seat
does not see the other hands, the deck or which card a bot will choose; the values do), and it is not
``solve``'s: ``solve`` gives the most the seat scores when every player plays to help it, an upper
bound on this optimum. A decision's value is what the seat scores from the position once it has taken
it (the bots answering) and played on as well as possible; every decision the seat takes is one, its
choices of an artist for an award and its passes on an optional card included. Values count from the
position: in a one-round game nothing is scored before the round ends, so they are the seat's final
score.

How they are computed: ``brute``'s exhaustive search with memory of positions (the oracle's exact
search for tiny decks), with the bots' decisions taken by the bots instead of searched. An upper
bound on the seat's points (the cards it can still add by the round's end rule, at the best tokens
and awards still possible) was tried to cut branches: on one-round deals of the default deck it cut
none (the round ends on one artist's limit, which no bound of the seat's own cards foresees), so the
search is exhaustive over the seat's decisions. One search per deal: its memory serves every later
position of every agent's game of that deal. Each question may expand at most ``max_positions``
positions not seen before (a work limit, the same on every machine: the command line's
``--time-limit`` at the oracle's ``POSITIONS_PER_SECOND``); one that needs more raises
``NoMoveOracleError``, never gives a number. Every answer's plan (the seat's decisions) is replayed
by the engine, the bots answering, from its position to its value before it is returned.

Only one-round games have move values: over more rounds the search would span every later round's
deal and play, far beyond the work a question may take, as ``solve`` leaves those games open too.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.core import GameOverError, IllegalActionError, MoveValues, NoMoveOracleError, check_int
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.rules import (
    ModernArtRules,
    State,
    parse_deal,
)
from tabletop_gym.envs.modern_art.table import ModernArtTable
from tabletop_gym.oracles.modern_art.beam import _key
from tabletop_gym.oracles.modern_art.common import POSITIONS_PER_SECOND, _check_seat, _require_modelled

DEFAULT_MAX_POSITIONS = 10 * POSITIONS_PER_SECOND
"""New positions one question may expand by default: ``ModernArtLimits``'s default ``time_limit``
(10) at ``POSITIONS_PER_SECOND``."""


class ModernArtMoves:
    """The move oracle of one deal of a one-round game, for ``seat`` against greedy bots in every
    other seat (the environment's default opponents): optimum, values and a plan at any position of
    the seat's decisions (see the module's docstring for what the values are relative to).

    ``rules``: a one-round game (``ModernArtRules(deals=(13,))``, ``--rounds 1``); more rounds raise
    ``NoMoveOracleError``, and so does a position whose values need more than ``max_positions`` new
    positions searched (the deal's optimum is proven when the oracle is made, so a deal beyond the
    work is refused at once).
    """

    def __init__(
        self,
        deal: str,
        rules: ModernArtRules,
        seat: int = 0,
        max_positions: int = DEFAULT_MAX_POSITIONS,
    ) -> None:
        if not isinstance(rules, ModernArtRules):
            raise TypeError(f"rules must be ModernArtRules, got {type(rules).__name__}")
        refuse_unproven(rules)
        _require_modelled(rules)
        if not isinstance(deal, str):
            raise TypeError(f"a deal must be a string of two-character cards, got {type(deal).__name__}")
        self.rules = rules
        self.seat = _check_seat(rules, seat)
        self.max_positions = check_int("max_positions", max_positions, 1)
        self._cards = parse_deal(deal, rules)
        self.deal = deal.strip()
        self._table = ModernArtTable(rules)
        self._bots = {p: GreedyAgent(rules) for p in range(rules.players) if p != self.seat}
        # Position (the seat to decide) -> (the seat's final money with the best play, its best
        # decision), for every position searched: the memory that serves the deal's later questions.
        self._best: dict[tuple, tuple[int, int]] = {}
        self._expanded = 0
        self._asked = ""  # the question being answered, for the work limit's message
        start = self._start()
        self._asked = "the deal's start"
        self.optimum = self._search(start) - start.money[self.seat]

    # --- the MoveOracle API --------------------------------------------------------------------
    def at(self, history: Sequence[int]) -> MoveValues:
        """The values after ``history`` (the seat's decisions from the deal's start, as the
        environment takes them; the bots' answers are played in between)."""
        state = self._start()
        try:
            for action in history:
                state.apply(int(action))
                self._answer(state)
        except (IllegalActionError, GameOverError) as error:
            raise ValueError(f"not a play of deal {self.deal}: {error}") from None
        return self.at_state(state)

    def at_state(self, state: State) -> MoveValues:
        """The values at an engine position of this deal with the seat to decide
        (``env.unwrapped.state``)."""
        if not isinstance(state, State):
            raise TypeError(f"state must be a Modern Art State, got {type(state).__name__}")
        if state.rules != self.rules or tuple(state.deck) != self._cards:
            raise ValueError(f"the position is of another deal or other rules than {self.deal} under "
                             f"{self.rules.variant()}")
        if state.done:
            raise ValueError("the game is over: no move is left to value")
        if state.to_move != self.seat:
            raise ValueError(f"player {state.to_move} decides here, not the seat ({self.seat}): a bot's "
                             "decision has no value to give")
        question = f"decision {len(state.history)} of the game"
        self._expanded, self._asked = 0, question
        values: dict[int, int] = {}
        after_of: dict[int, State] = {}
        for action in state.legal_actions():
            after = after_of[action] = state.copy()
            after.apply(action)
            self._answer(after)
            values[action] = self._search(after) - state.money[self.seat]
        optimum = max(values.values())
        best = next(a for a, v in values.items() if v == optimum)
        plan = (best, *self._plan(after_of[best]))
        gained = self.replay_from(state, plan)
        if gained != optimum:
            raise AssertionError(f"move oracle claims {optimum} at {question} of deal {self.deal}, its "
                                 f"plan scores {gained}")
        return MoveValues(float(optimum), {a: float(v) for a, v in values.items()}, plan)

    def replay_from(self, state: State, plan: Sequence[int]) -> int:
        """The points the seat scores when the engine plays ``plan`` (the seat's decisions) from
        ``state`` (a copy), the bots answering, to the end of the game; raises if the plan is
        illegal there or stops before the game ends."""
        after = state.copy()
        for action in plan:
            after.apply(action)
            self._answer(after)
        if not after.done:
            raise ValueError(f"the plan of {len(plan)} decisions stops before the end of deal {self.deal}")
        return after.money[self.seat] - state.money[self.seat]

    # --- the search ----------------------------------------------------------------------------
    def _start(self) -> State:
        state = State(self.rules, self._cards)
        self._answer(state)
        return state

    def _answer(self, state: State) -> None:
        """The bots' decisions, as the environment takes them, until the seat decides or the game
        ends (``state`` is played on in place)."""
        table = self._table
        table.state = state
        table.play_others(self.seat, self._bots)

    def _plan(self, state: State) -> tuple[int, ...]:
        """The seat's decisions of a best play from ``state`` (whose value is proven), from the
        search's memory."""
        plan: list[int] = []
        state = state.copy()
        while not state.done:
            known = self._best[_key(state)]  # searched: every position below a searched one is
            plan.append(known[1])
            state.apply(known[1])
            self._answer(state)
        return tuple(plan)

    def _search(self, state: State) -> int:
        """The seat's final money from ``state`` (the seat to decide) with the best play, proven."""
        if state.done:
            return state.money[self.seat]
        key = _key(state)
        known = self._best.get(key)
        if known is not None:
            return known[0]
        self._expanded += 1
        if self._expanded > self.max_positions:
            raise NoMoveOracleError(
                f"the search of {self._asked} of deal {self.deal} needs more than {self.max_positions} "
                "new positions (its work limit) to prove the best play: no move values here; a larger "
                "--time-limit may prove it"
            )
        best, best_action = -1, -1
        for action in state.legal_actions():
            child = state.copy()
            child.apply(action)
            self._answer(child)
            value = self._search(child)
            if value > best:
                best, best_action = value, action
        self._best[key] = best, best_action
        return best


def refuse_unproven(rules: ModernArtRules) -> None:
    """``NoMoveOracleError`` for a game of more than one round (no search here proves its moves)."""
    if rules.rounds != 1:
        raise NoMoveOracleError(
            f"Modern Art has move values for one-round games (--rounds 1), not {rules.rounds} rounds: "
            "over more rounds neither the move search nor solve proves the best play within its work"
        )

"""The value of every move: what the exact oracles say about one position reached in play.

One contract for every game whose oracle proves optima. A game's *move oracle* is made for one deal
(the deal string, as ``info["deal"]`` gives it) and answers, for the position that a sequence of
actions from the deal's start reaches (the environment's actions, in the order they were taken),
a :class:`MoveValues`:

- ``optimum``: the most the seat can still gain from the position to the end of the game (the
  points still to come, not counting those already scored);
- ``values``: for each legal action, what it is worth: the reward it gives plus the optimum from the
  position it leads to. ``optimum - values[a]`` is what action ``a`` gives away (its *loss*); an
  optimal action loses nothing;
- ``plan``: an optimal continuation (actions from the position to the end of the game), which the
  engine has replayed from that position to gain exactly ``optimum``.

Because the optimum after an action is the optimum of the next position, the losses of a game's
decisions add up to exactly the deal's optimum minus the score played (``evaluate --moves`` reports
both and tests that they agree). Values are exact, never bounds: a setting whose oracle only bounds
the optimum has no move oracle (:class:`NoMoveOracleError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from tabletop_gym.core import TabletopError


class NoMoveOracleError(TabletopError, ValueError):
    """The game or its settings have no oracle that proves each move's value."""


@dataclass(frozen=True)
class MoveValues:
    """The oracle's values at one position (see the module's docstring)."""

    optimum: float
    values: Mapping[int, float]
    plan: tuple[int, ...]

    @property
    def best(self) -> int:
        """The optimal action the plan starts with."""
        return self.plan[0]

    def loss(self, action: int) -> float:
        """What ``action`` gives away against the best move (0 for an optimal one)."""
        try:
            return self.optimum - self.values[int(action)]
        except KeyError:
            raise ValueError(
                f"action {action} is not legal here; the legal actions are {sorted(self.values)}"
            ) from None


class MoveOracle(Protocol):
    """A game's move oracle for one deal (what ``GameSpec.moves`` makes)."""

    deal: str

    def at(self, history: Sequence[int]) -> MoveValues:
        """The values at the position that ``history`` (the actions from the deal's start) reaches;
        raises ``ValueError`` for a history that is not a legal play of the deal, or one that has
        ended the game (no decision is left to value)."""
        ...

"""The best policy of Nmbr9 with the draw order unknown, as an Agent.

An agent built on the oracle's expectimax solver (``unknown``), so it lives in the oracle layer: the
agents below it (``tabletop_gym.agents``) import no oracle.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from tabletop_gym.envs.nmbr9.rules import Nmbr9State, Variant
from tabletop_gym.oracles.nmbr9.unknown import MAX_POSITIONS, UnknownSolver, solve_unknown

__all__ = ["Nmbr9OptimalPolicyAgent"]


class Nmbr9OptimalPolicyAgent:
    """The best policy of the game with the draw order unknown (the expectimax policy of
    ``oracles.nmbr9.unknown``): it places each card where the points now plus the expected points
    to come are highest, or, with ``guaranteed``, the points it can be sure of. It sees only what
    the observation shows (the board, the card, the cards not yet seen), so its mean score tends to
    the variant's expected value: the score a trained agent can hope for, below the hindsight
    optimum. The values are solved once, when the agent is made; small variants only (a
    ``UnknownTooBigError`` says when a variant is beyond reach).
    """

    name = "optimal-policy"

    def __init__(
        self,
        variant: Variant | str,
        grid: int,
        levels: int | None = None,
        max_positions: int | None = None,
        guaranteed: bool = False,
    ) -> None:
        self.variant = Variant.of(variant)
        self.solver = UnknownSolver(grid, levels, MAX_POSITIONS if max_positions is None else max_positions)
        self.value = solve_unknown(self.variant, grid, levels, solver=self.solver)
        self.guaranteed = guaranteed
        self.state = self.solver.empty()

    @property
    def expected(self) -> Fraction:
        """The variant's expected value: the best policy's mean score over random draw orders."""
        return self.value.expected

    def reset(self, seed: int | None = None) -> None:
        self.state = self.solver.empty()

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        drawn = self._drawn(observation, info)
        unseen = tuple(int(n) for n in observation["unseen"])
        action = self.solver.choose(drawn, unseen, int(observation["cards_left"][0]), self.guaranteed)
        drawn.apply(action)
        self.state = drawn
        return action

    def move_values(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> dict[int, Fraction]:
        """Each legal placement of the card to place now, valued as :meth:`act` values it: its points
        plus the expected points still to come under the best policy (the guaranteed ones with
        ``guaranteed``). The best moves are those of the highest value (``act`` plays the first of
        them); the values are exact fractions, so ties are exact. The agent's position does not
        change: :meth:`follow` tells it the move played."""
        drawn = self._drawn(observation, info)
        unseen = tuple(int(n) for n in observation["unseen"])
        draws = int(observation["cards_left"][0])
        values: dict[int, Fraction] = {}
        for action in np.flatnonzero(drawn.action_mask()):
            child = drawn.copy()
            points = child.apply(int(action))
            expected, guaranteed = self.solver.value(child, unseen, draws)
            values[int(action)] = points + (guaranteed if self.guaranteed else expected)
        return values

    def follow(self, observation: dict[str, np.ndarray], info: dict[str, Any], action: int) -> None:
        """Take ``action`` as the move played at this position (another player's, e.g. a learner's
        whose moves the agent values), so the agent's board stays the environment's."""
        drawn = self._drawn(observation, info)
        if not drawn.action_mask()[int(action)]:
            raise ValueError(f"optimal-policy: action {action} is not a legal placement here")
        drawn.apply(int(action))
        self.state = drawn

    def _drawn(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> Nmbr9State:
        """The agent's board with the card of the observation drawn, checked against the observation."""
        card = int(observation["card"][0])
        if card < 0:
            raise RuntimeError("optimal-policy: no card to place, the episode has ended")
        drawn = self.state.with_next(card)
        # Only the placements it played or followed change the board (a card the rules discard does
        # not), so its position must be the environment's; anything else is an episode it did not start.
        if not np.array_equal(drawn.height, observation["height"]) or not np.array_equal(
            drawn.action_mask(), np.asarray(info["action_mask"], dtype=bool)
        ):
            raise RuntimeError(
                "optimal-policy: the board is not the one it built; call reset() at the start of each "
                "episode and let it play (or follow) every move"
            )
        return drawn

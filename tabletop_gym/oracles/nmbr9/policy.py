"""The best policy of Nmbr9 with the draw order unknown, as an Agent.

An agent built on the oracle's expectimax solver (``unknown``), so it lives in the oracle layer: the
agents below it (``tabletop_gym.agents``) import no oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.envs.nmbr9.rules import Variant
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

    def reset(self, seed: int | None = None) -> None:
        self.state = self.solver.empty()

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        card = int(observation["card"][0])
        if card < 0:
            raise RuntimeError("optimal-policy: no card to place, the episode has ended")
        drawn = self.state.with_next(card)
        # Only its own placements change the board (a card the rules discard does not), so its
        # position must be the environment's; anything else is an episode it did not start.
        if not np.array_equal(drawn.height, observation["height"]) or not np.array_equal(
            drawn.action_mask(), np.asarray(info["action_mask"], dtype=bool)
        ):
            raise RuntimeError(
                "optimal-policy: the board is not the one it built; call reset() at the start of each "
                "episode and let it play every move"
            )
        unseen = tuple(int(n) for n in observation["unseen"])
        action = self.solver.choose(drawn, unseen, int(observation["cards_left"][0]), self.guaranteed)
        drawn.apply(action)
        self.state = drawn
        return action

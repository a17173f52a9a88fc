"""Cribbage players beyond random: the greedy player."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.envs.cribbage.env import POINTS
from tabletop_gym.envs.cribbage.rules import NUM_PILES, PILE_SIZE, value_of


class CribbageGreedyAgent:
    """Plays the card that scores the most points now.

    Tie-break: the card of lowest value (it leaves the most room on the stack for later points),
    then the lowest pile index. Reads the points from the observation, which the engine computes.
    """

    name = "greedy"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: np.ndarray, info: dict[str, Any]) -> int:
        mask = info["action_mask"]
        best, best_key = -1, None
        for pile in range(NUM_PILES):
            if not mask[pile]:
                continue
            key = (
                int(observation[POINTS.start + pile]),
                -value_of(int(observation[pile * PILE_SIZE])),
                -pile,
            )
            if best_key is None or key > best_key:
                best, best_key = pile, key
        if best < 0:
            raise ValueError("no legal action in info['action_mask']")
        return best

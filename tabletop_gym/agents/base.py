"""The Agent protocol every player follows (defined in ``core``, where the environments that seat
agents as opponents read it too), and the random agent."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.core import Agent

__all__ = ["Agent", "RandomAgent"]


class RandomAgent:
    """Picks uniformly among the legal actions; seeded by ``reset(seed)`` for reproducible play."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        legal = np.flatnonzero(info["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in info['action_mask']")
        return int(legal[self._rng.integers(legal.size)])

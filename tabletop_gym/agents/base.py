"""The Agent protocol every player follows, and the random agent."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """A player: ``reset`` before each episode, then ``act`` once per decision.

    ``act`` gets the environment's observation and info (``info["action_mask"]`` lists the legal
    actions) and returns an action index. Random players, heuristics, rule bots and trained policies
    all follow this, so any of them can be the evaluated agent or an opponent.
    """

    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: Any, info: dict[str, Any]) -> int: ...


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

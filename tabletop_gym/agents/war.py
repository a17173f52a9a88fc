"""War players: each pickup convention as an agent, and a simple look-ahead heuristic."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from tabletop_gym.envs.war.rules import DETERMINISTIC_PICKUPS, convention_order


class ConventionAgent:
    """Orders every pot by a fixed convention (``winner_first``, ``loser_first``, ``high_first``).

    Uses ``info["pots"]`` (each player's cards on the table, in played order, padded with -1) and the
    mask.
    """

    def __init__(self, pickup: str) -> None:
        if pickup not in DETERMINISTIC_PICKUPS:
            raise ValueError(f"pickup must be one of {DETERMINISTIC_PICKUPS}, got {pickup!r}")
        self.pickup = pickup
        self.name = pickup

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        pots = [[int(card) for card in row if card >= 0] for row in info["pots"]]  # padded with -1
        order = convention_order(pots, 0, self.pickup, None)
        # The cards of ``order`` already placed are the ones no longer in the pot.
        left = Counter({r: int(n) for r, n in enumerate(_pot_counts(observation, info)) if n})
        placed = Counter(order)
        placed.subtract(left)
        for rank in order:
            if placed[rank] > 0:
                placed[rank] -= 1
                continue
            return int(rank)
        raise ValueError("no pot card left to place")


class GreedyAgent:
    """Puts under the pile the lowest card that beats the opponent's card it is likely to meet.

    With the full observation the card placed now will meet player 1's card at the same depth if
    no war intervenes; the agent places the lowest rank that beats it, or its lowest card when none
    does (a trick it would lose anyway should cost as little as possible). Without that knowledge
    (hidden observation) it places the highest rank first.
    """

    name = "greedy"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        legal = np.flatnonzero(info["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in info['action_mask']")
        obs = np.asarray(observation)
        ranks = info["action_mask"].shape[0]
        n = (obs.size - ranks) // 2
        if obs.size != 2 * n + ranks:
            return int(legal[-1])  # hidden observation: highest first
        depth = int(np.count_nonzero(obs[:n]))  # where the next card goes in our pile
        theirs = int(obs[n + depth]) - 1 if depth < n else -1
        if theirs < 0:
            return int(legal[-1])
        beating = legal[legal > theirs]
        return int(beating[0]) if beating.size else int(legal[0])


def _pot_counts(observation: Any, info: dict[str, Any]) -> np.ndarray:
    ranks = info["action_mask"].shape[0]
    return np.asarray(observation)[-ranks:]

"""Nmbr9 players beyond random: the greedy player. (The best policy with the order unknown needs the
oracle's solver: it is ``tabletop_gym.oracles.nmbr9.policy.Nmbr9OptimalPolicyAgent``.)"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.envs.nmbr9.rules import Nmbr9State, decode_action, footprint


def greedy_choice(height: np.ndarray, card: int, mask: np.ndarray) -> int:
    """The greedy placement of tile ``card`` among the legal actions in ``mask``.

    First the most points now (value x level; the level of a legal placement is the height of any
    cell it covers). Ties, e.g. every placement on the table, go to the placement that keeps the
    layout compact: the fewest cells added to the bounding box of the occupied cells, then the most
    edges shared with tiles of the same level, then the lowest action index. A compact bottom level
    leaves room for large flat areas to build on later.
    """
    grid = height.shape[0]
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("no legal action in the mask")
    occupied = np.argwhere(height > 0)
    if occupied.size:
        r0, c0 = occupied.min(axis=0)
        r1, c1 = occupied.max(axis=0)
    best, best_key = -1, None
    for action in legal:
        cells = footprint(card, int(action), grid)
        level = int(height[cells[0]])
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        if occupied.size:
            box = (max(r1, max(rows)) - min(r0, min(rows)) + 1) * (
                max(c1, max(cols)) - min(c0, min(cols)) + 1
            )
        else:
            # First tile: keep it central so that the layout can grow any way.
            box = abs(2 * min(rows) + max(rows) - min(rows) - grid + 1) + abs(
                2 * min(cols) + max(cols) - min(cols) - grid + 1
            )
        own = set(cells)
        contacts = 0
        for r, c in cells:
            for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if (rr, cc) not in own and 0 <= rr < grid and 0 <= cc < grid and height[rr, cc] > level:
                    contacts += 1
        key = (card * level, -box, contacts, -int(action))
        if best_key is None or key > best_key:
            best, best_key = int(action), key
    return best


def greedy_action(state: Nmbr9State) -> int:
    """The greedy player's action in an engine position."""
    return greedy_choice(state.height, int(state.card), state.action_mask())


class Nmbr9GreedyAgent:
    """Places each tile where it scores the most now; ties keep the layout compact (see
    :func:`greedy_choice`). Reads the board and the card from the observation and the legal
    placements from ``info["action_mask"]``."""

    name = "greedy"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        return greedy_choice(
            np.asarray(observation["height"]), int(observation["card"][0]), info["action_mask"]
        )


__all__ = ["Nmbr9GreedyAgent", "greedy_action", "greedy_choice", "decode_action"]

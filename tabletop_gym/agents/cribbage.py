"""Cribbage players beyond random: the greedy player, and the probe search's view of the game."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.agents.probe import DEFAULT_PROBES, DEFAULT_WEIGHT, ProbeAgent, ProbeRules
from tabletop_gym.envs.cribbage.env import POINTS
from tabletop_gym.envs.cribbage.rules import NUM_PILES, PILE_SIZE, CribbageState, parse_deal, value_of


def greedy_key(points: int, top: int, pile: int) -> tuple[int, int, int]:
    """How the greedy player ranks playing ``pile`` (top card rank ``top``, scoring ``points`` now):
    higher is better. Shared by the agent and the probe search, so both rank moves alike."""
    return (points, -value_of(top), -pile)


def _best_pile(mask: np.ndarray, key_of: Any) -> int:
    best, best_key = -1, None
    for pile in range(NUM_PILES):
        if not mask[pile]:
            continue
        key = key_of(pile)
        if best_key is None or key > best_key:
            best, best_key = pile, key
    if best < 0:
        raise ValueError("no legal action in info['action_mask']")
    return best


class CribbageGreedyAgent:
    """Plays the card that scores the most points now.

    Tie-break: the card of lowest value (it leaves the most room on the stack for later points),
    then the lowest pile index. Reads the points from the observation, which the engine computes.
    """

    name = "greedy"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: np.ndarray, info: dict[str, Any]) -> int:
        return _best_pile(
            info["action_mask"],
            lambda pile: greedy_key(
                int(observation[POINTS.start + pile]), int(observation[pile * PILE_SIZE]), pile
            ),
        )


def greedy_pile(state: CribbageState, mask: np.ndarray) -> int:
    """The greedy player's pile among those in ``mask``, from an engine position."""
    return _best_pile(mask, lambda pile: greedy_key(state.points_if_played(pile), state.top(pile), pile))


def _start(deal: str) -> CribbageState:
    # Reduced deals (fewer cards a pile) are valid too: the pile size is read from the deal itself.
    return CribbageState(parse_deal(deal, pile_size=len(deal.split("/")[0])))


PROBE_RULES: ProbeRules[CribbageState] = ProbeRules(
    start=_start,
    legal=lambda state: state.action_mask(),  # a fresh array each call: the walk may clear moves in it
    best=greedy_pile,
    play=lambda state, pile: state.apply(pile),
    done=lambda state: state.done,
    score=lambda state: state.score,
)


def cribbage_probe_agent(
    weight: float = DEFAULT_WEIGHT, probes: int = DEFAULT_PROBES, seed: int = 0
) -> ProbeAgent:
    """The seed's randomized probe search over Cribbage deals (see :mod:`tabletop_gym.agents.probe`)."""
    return ProbeAgent(PROBE_RULES, weight, probes, seed)

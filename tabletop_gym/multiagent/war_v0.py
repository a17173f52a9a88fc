"""War between two learners: a PettingZoo AEC environment on the engine ``tabletop/War-v0`` plays.

``env(**settings)`` (wrapped in PettingZoo's order and bounds checks) or ``raw_env(**settings)``;
the settings are ``tabletop/War-v0``'s rule arguments (``ranks``, ``suits``, ``face_down``,
``pickup``, ``max_tricks``, ``observation``, ``horizon``, ``reveal_deal``) and ``render_mode``
(None, ``"ansi"``, ``"human"`` or ``"rgb_array"``: the agent to act's view). Rules: docs/rules/war.md.

## Agents
``player_0`` and ``player_1``: the taker of a pot orders it card by card, so the agent to move is
the one whose pickup is pending (``agent_selection``), not a fixed turn order. A seat is asked only
where the order can still matter, by the same rule ``tabletop/War-v0`` applies to its player 0:
the pot holds two ranks or more and the other player still has cards. The rest (the last cards of
one rank, the pot that takes the other's last card) go under the pile lowest rank first, by the
engine. So every step of either seat is a real decision, and a policy trained in ``War-v0``'s seat
sees the same kind of decisions from either seat here.

## Spaces
Action: ``Discrete(ranks)``, the rank of the pot card that goes under your pile next. Observation:
``{"observation": ..., "action_mask": ...}`` where ``observation`` is exactly ``War-v0``'s
(``full`` or ``hidden``) seen from that seat ("your pile" being the seat's own), and
``action_mask`` (``np.int8``) marks the ranks still in the seat's pot (none when it is not to move).

## Rewards
Without a ``horizon``: +1 to the winner and -1 to the loser when the game ends, 0 to both for a
draw (both out of cards at once, or the ``max_tricks`` limit); 0 at every other step. With a
``horizon``: each seat's change of the cards it holds (``info["cards"]``), so a seat's rewards sum
to its cards at the end minus its cards at ``reset``, as ``War-v0``'s do for player 0.

## Starting state
``reset(seed=s)`` plays the deal ``War-v0`` with the same rules plays for seed ``s`` (player 1 on
the ``pickup`` convention there; deals where player 0 would not choose are drawn past, from the same
seeded stream): ``pickup`` only picks the deal here, both seats order their own pots. The first
agent to move is the first taker with a decision, which may be ``player_1``.
``reset(options={"deal": "P0/P1"})`` plays a given deal; a deal where no seat ever has a decision
raises ``InvalidDealError``.

## Episode end
Every agent is terminated when a player cannot turn a card (a win) or both run out (a draw);
truncated at ``max_tricks`` tricks, or at ``horizon`` tricks when one is set. Each agent is then
stepped with ``None`` once, as PettingZoo's convention has it.

## Info
Each agent's info is ``War-v0``'s from its seat: ``action_mask``, ``score``, ``tricks``, ``cards``,
``result`` (+1/0/-1), ``game_over``, ``pots`` (row 0 the seat's own cards on the table, only while
it picks them up) and ``deal``: the deal string in every agent's info once the game is over, and
before only under ``observation="full"`` (which shows both piles) or with ``reveal_deal=True``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.core import quote_input
from tabletop_gym.envs.war.rules import WarRules
from tabletop_gym.envs.war.table import OBSERVATIONS, WarTable
from tabletop_gym.multiagent.aec import TableEnv, make_env

__all__ = ["WarAECEnv", "env", "raw_env"]


class WarAECEnv(TableEnv):
    """War between ``player_0`` and ``player_1`` (the module docstring says everything)."""

    metadata: dict[str, Any] = {**TableEnv.metadata, "name": "war_v0"}

    def __init__(
        self,
        render_mode: str | None = None,
        ranks: int = WarRules.ranks,
        suits: int = WarRules.suits,
        face_down: int = WarRules.face_down,
        pickup: str = WarRules.pickup,
        max_tricks: int = WarRules.max_tricks,
        observation: str = OBSERVATIONS[0],
        horizon: int | None = None,
        reveal_deal: bool = False,
    ) -> None:
        if not isinstance(reveal_deal, (bool, np.bool_)):
            raise ValueError(f"reveal_deal must be True or False, got {quote_input(reveal_deal)}")
        rules = WarRules(ranks, suits, face_down, pickup, max_tricks)  # checks and converts each
        table = WarTable(rules, horizon, observation, seats=(0, 1), reveal_deal=bool(reveal_deal))
        super().__init__(table, render_mode)


raw_env = WarAECEnv
env = make_env(raw_env)

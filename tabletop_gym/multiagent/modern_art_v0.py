"""Modern Art: Masters Gallery, 2-5 players, as a PettingZoo AEC environment: every seat a learner.

``env(**settings)`` (in PettingZoo's order-enforcing and bounds-checking wrappers) or
``raw_env(**settings)``; the game is ``tabletop_gym.envs.modern_art.table.ModernArtTable``, the same
engine and views as the single-agent ``tabletop/ModernArt-v0``.

## Agents
``player_0`` .. ``player_{n-1}`` in seat order (``players``, 2-5, default 2). Play goes in turn
order; every decision is one seat's, the one ``agent_selection`` names (a turn card, a double's or a
hidden card's second card, an award's artist, and each other player's plea on a simultaneous card,
asked one after another from the player's left as the rules say). There are no auctions in Masters
Gallery, so no decision is simultaneous and no parallel environment is offered (see the docs).

## Action space
``Discrete(36)`` for every agent, as in the single-agent environment: ``0..29`` display (or put face
down) a card of kind ``artist * 6 + symbol``, ``30..34`` put the award on artist ``action - 30``,
``35`` pass. The legal ones are the observation's ``action_mask`` (all zero for an agent not to move).

## Observation space
``Dict(observation=Box(0, high, (97,), int64), action_mask=Box(0, 1, (36,), int8))``; the
observation is the single-agent environment's from that agent's seat (seats relative to it), so a
policy trained in one seat plays in any; it shows only what that seat may know (its own hand and
face-down cards, the others' hand sizes and face-down counts, everything face up).

## Rewards
Each agent's reward is the points its seat scores at a round's scoring (0 on other steps): the
single-agent environment's reward, for every seat; an agent's return is its final score. The winner
(highest score, ties shared) is not a reward: read it from ``info["scores"]`` at the end.

## Episode end
Every agent is terminated when the last round is scored (round 4 in a full game, N with
``rounds=N``); never truncated. Then, PettingZoo's convention, each agent is stepped once with None.

## Info
Per agent, the single-agent environment's info from its seat: ``action_mask``, ``score``, ``scores``
(int64, by absolute seat), ``seat``, ``round``, ``decision`` and ``deal``: the deal string (the whole
deck in order) in every agent's info once the game is over, ``""`` before (it names every hand).

## Starting state
``reset(seed=s)`` deals what ``tabletop/ModernArt-v0`` deals with ``reset(seed=s)`` and the same
rules; ``reset(options={"deal": ...})`` plays a given deal.

## Arguments
``players``, ``rounds`` and the rule parameters of ``ModernArtRules`` (``deck``, ``deals``,
``round_limit``, ...), as ``ModernArtEnv`` takes them; ``render_mode`` (None, ``"ansi"``: the
table as an onlooker sees it, every hand shown, ``"human"``: that text printed, or ``"rgb_array"``:
a frame of the view of the agent to act, its own hand only); ``reveal_deal`` (default False; True
puts the deal in every info from reset on, for an oracle's plan played as agents, never for agents
being evaluated). An unknown keyword is a TypeError naming the accepted ones; a number out of range
a ValueError naming the argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.core import quote_input
from tabletop_gym.envs.modern_art.env import RULE_PARAMS, _rules
from tabletop_gym.envs.modern_art.rules import ModernArtRules
from tabletop_gym.envs.modern_art.table import ModernArtTable
from tabletop_gym.multiagent.aec import TableEnv, make_env


class raw_env(TableEnv):  # noqa: N801  (PettingZoo's name for a module's unwrapped environment)
    """Modern Art: Masters Gallery for 2-5 learners (see the module's docstring)."""

    metadata: dict[str, Any] = {**TableEnv.metadata, "name": "modern_art_v0"}

    def __init__(
        self,
        players: int = ModernArtRules.players,
        rounds: int | None = None,
        render_mode: str | None = None,
        reveal_deal: bool = False,
        **rule_params: Any,
    ) -> None:
        unknown = [name for name in rule_params if name not in RULE_PARAMS]
        if unknown:
            raise TypeError(
                f"modern_art_v0 got an unexpected keyword argument {unknown[0]!r}; it takes players, "
                "rounds, render_mode, reveal_deal and the rule parameters " + ", ".join(RULE_PARAMS)
            )
        if not isinstance(reveal_deal, (bool, np.bool_)):
            raise ValueError(f"reveal_deal must be True or False, got {quote_input(reveal_deal)}")
        table = ModernArtTable(_rules(players, rounds, rule_params), reveal_deal=bool(reveal_deal))
        super().__init__(table, render_mode)


env = make_env(raw_env)

__all__ = ["env", "raw_env"]

"""Dominion (base game, 2nd edition) for 2-4 learners: a PettingZoo AEC environment on the game
``tabletop/Dominion-v0`` plays.

``env(**settings)`` (wrapped in PettingZoo's order and bounds checks) or ``raw_env(**settings)``;
the settings are ``tabletop/Dominion-v0``'s rule arguments: ``num_players`` (2-4, default 2; the
single-agent environment counts its ``opponents`` instead), ``kingdom`` (default the first-game
set; "" for treasures and victory cards only), ``turn_limit`` (turns per player, default 100),
and ``vp_shaping`` (default 0), ``reveal_deal`` (default False) and ``render_mode`` (None,
``"ansi"``, ``"human"`` or ``"rgb_array"``: the agent to act's view); and ``ask_hidden_choices``
(default True; see Agents). Rules: docs/rules/dominion.md.

## Agents
``player_0`` .. ``player_{n-1}`` in turn order (``player_0`` takes the first turn). The agent to
move (``agent_selection``) is whoever the engine asks, which is not always the player whose turn it
is: an opponent's Militia asks each other player with more than three cards (in turn order)
whether to reveal Moat, then to discard down to three unless it did. Every player so attacked is
asked about Moat, with only pass legal when it holds none; every player of a Mine is asked what
to trash, with only pass legal when it holds no Treasure; and a player with Actions left is asked
which Action to play (at the start of its turn and after each Action resolves) with only pass legal
when it holds no Action card, its Treasures still in hand as at any action question: so the order
of agents and what each seat sees say nothing of those hands (the engine alone asks only the hands
that have the card; the forced pass changes nothing in the game). The action question stays
unasked where what is public rules an Action out: no Action left, an empty hand, or no Action card
owned outside play (the first turns). ``ask_hidden_choices=False`` asks only the engine's
questions, as ``Dominion-v0`` does. Every seat has a decision in every game (at least the buy of its
first turn).

## Spaces
Action: ``Discrete(18)``, as in ``Dominion-v0``: 0..16 a card id, 17 done / pass, read by the
current decision. Observation: ``{"observation": ..., "action_mask": ...}``, where ``observation``
is exactly ``Dominion-v0``'s ``Box(-100, 250, (205,), float32)`` seen from that seat (its own hand,
draw pile as a multiset and discard pile; then the player blocks with the seat first and the others
in turn order), so one policy plays any seat, and ``action_mask`` (``np.int8``, 18) marks the legal
answers (none when the seat is not to move). Read a seat's observation at its own turn (``last()``),
as PettingZoo's loop does: while another player answers a Militia, the pending question is on every
seat's observation, as it is said aloud at the table.

## Rewards
+1 to a sole winner, 0 to each of those sharing a win (most VP, then fewest turns, then shared),
-1 to everyone else, when the game ends by the rules; 0 at every other step, and 0 to all when the
turn limit cuts the game off. With ``vp_shaping=c``, every step also gives each seat c times the
change of (own VP - best other VP), which starts at 0, so a seat's rewards sum to its result plus c
times its final margin. ``Dominion-v0`` gives its agent the same rewards, except that it has no
step before the agent's first decision: a change of margin before it (a bot in an earlier seat
buying an Estate) is not paid there.

## Starting state
``reset(seed=s)`` plays the deal ``Dominion-v0`` plays for seed ``s`` (``deal_of_seed(s)``);
``reset(options={"deal": "<seed>"})`` plays a given deal. ``player_0`` moves first.

## Episode end
Every agent is terminated at the end of the turn in which the Provinces or any three supply piles
run out; truncated once every player has had ``turn_limit`` turns. Each agent is then stepped with
``None`` once, as PettingZoo's convention has it.

## Info
Each agent's info is ``Dominion-v0``'s from its seat: ``action_mask``, ``decision``, ``turns``,
``vp``, ``score`` (own VP), ``result`` (+1/0/-1 once over, 0 before), ``level_on_vp`` and
``deal``: the deal string in every agent's info once the game is over, ``""`` before (the seed fixes
every shuffle to come, so the others' hands), unless made with ``reveal_deal=True``.

## Playing against the rule bots
The rule bots (``tabletop_gym.agents.dominion``) choose from the engine's view of their seat, as in
``Dominion-v0``: ``raw_env.act(agent, bot)`` gives the action a bot (or any Agent, from the seat's
observation and info) takes for the agent to move; step it::

    env = dominion_v0.env(num_players=2)
    bot = make_bot("big-money")
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        elif agent == "player_1":
            action = env.unwrapped.act(agent, bot)
        else:
            action = my_policy(observation)
        env.step(action)

A bot that draws at random is seeded by its ``reset(seed)``; ``Dominion-v0`` seeds its i-th
opponent (0-based, in seat order) with ``game_seed(int(deal), i + 1)``.

No parallel environment: one player decides at a time. With ``ask_hidden_choices`` (the default)
a seat takes the forced pass steps ``Dominion-v0`` does not show its agent (random play: about 11%
more steps a game for 2 players, 14% for 3, 16% for 4, nearly all of them action questions); without
it, the learner's steps are ``Dominion-v0``'s one for one.
"""

from __future__ import annotations

from typing import Any

from tabletop_gym.core import Agent, GameOverError
from tabletop_gym.envs.dominion.table import VERSUS_TURN_LIMIT, DominionTable
from tabletop_gym.multiagent.aec import TableEnv, make_env

__all__ = ["DominionAECEnv", "env", "raw_env"]


class DominionAECEnv(TableEnv):
    """Dominion between ``player_0`` .. ``player_{n-1}`` (the module docstring says everything)."""

    metadata: dict[str, Any] = {**TableEnv.metadata, "name": "dominion_v0"}

    def __init__(
        self,
        num_players: int = 2,
        kingdom: Any = None,
        turn_limit: int = VERSUS_TURN_LIMIT,
        vp_shaping: float = 0.0,
        reveal_deal: bool = False,
        render_mode: str | None = None,
        ask_hidden_choices: bool = True,
    ) -> None:
        table = DominionTable(num_players, kingdom, turn_limit, vp_shaping, reveal_deal, ask_hidden_choices)
        super().__init__(table, render_mode)

    def act(self, agent: str, player: Agent) -> int:
        """The action ``player`` takes for ``agent``, which must be the agent to move: a rule bot
        (``DominionBot``) chooses from the engine's view of that seat (``PlayerView``: its own hand,
        what is public), as the bots do in ``Dominion-v0``; any other Agent from the seat's
        observation and info. Pass the result to ``step``."""
        if agent not in self.possible_agents:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        if not self._started:
            raise GameOverError("call reset() before act()")
        if self.table.done:
            raise GameOverError("the game is over; no agent is to move")
        if agent != self.agent_selection:
            raise ValueError(f"{agent} is not to move; {self.agent_selection} is")
        return self.table.act(self._seat[agent], player)


raw_env = DominionAECEnv
env = make_env(raw_env)

"""One PettingZoo AEC environment over any ``Table``: each game's module only names its table."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tabletop_gym.core import GameOverError, IllegalActionError, Table, check_int, legal_actions


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class TableEnv(AECEnv):
    """A ``Table`` as a PettingZoo AEC environment (turn by turn, the seat to move acts).

    ``reset(seed=s)`` draws the same deal as the single-agent environment's ``reset(seed=s)``;
    ``reset(options={"deal": ...})`` plays a given deal. Rewards: each seat's change of
    ``Table.returns()`` at every step (the result at the end). When the game ends every agent is
    terminated (truncated where a limit cut it off) and its info holds the deal string. An
    illegal action raises ``IllegalActionError`` naming the legal ones (``env()`` wraps this raw
    environment in PettingZoo's order-enforcing and bounds-checking wrappers).

    Rendering: ``"ansi"`` is an onlooker's text of every card, and ``"human"`` prints that text.
    ``"rgb_array"`` (and ``svg()``, under any mode) draws the view of the agent to act
    (``agent_selection``): the seat's own picture, ``table.picture(seat)``, so a frame never shows
    what that seat may not know, and a video of a game shows each decision as it was made from.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array", "human"], "name": "table", "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, table: Table, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi', 'rgb_array' or 'human', got {render_mode!r}")
        self.render_mode = render_mode
        self.table = table
        self.possible_agents = [agent_name(seat) for seat in range(table.num_seats)]
        mask_space = spaces.Box(0, 1, (table.num_actions,), np.int8)
        # One space object per agent, kept: PettingZoo's test asks for the same object every call.
        self.observation_spaces = {
            agent: spaces.Dict({"observation": table.observation_space, "action_mask": mask_space})
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(table.num_actions) for agent in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._started = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(check_int("seed", seed, 0, optional=True))
        deal = None
        if options is not None:
            if not isinstance(options, dict):
                raise ValueError(f"options must be None or {{'deal': ...}}, got {options!r}")
            unknown = sorted(str(key) for key in options if key != "deal")
            if unknown:
                # PettingZoo's api_test resets with options={"options": 1} and expects no error: say
                # that they are not used rather than refuse them.
                warnings.warn(f"reset options {unknown} are not used; the only option is 'deal'",
                              UserWarning, stacklevel=2)
            deal = options.get("deal")
        self.table.reset(self._np_random, deal)
        self._started = True
        self.agents = self.possible_agents[:]
        self._returns = list(self.table.returns())
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._update()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        return {
            "observation": self.table.observe(seat),
            "action_mask": self.table.action_mask(seat).astype(np.int8),
        }

    def step(self, action: Any) -> None:
        if not self._started:
            raise GameOverError("call reset() before step()")
        if not self.agents:
            # Every agent has been stepped out of the finished game (PettingZoo's wrapper only warns).
            raise GameOverError("the game is over and every agent has left it; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        value = action[()] if isinstance(action, np.ndarray) and action.shape == () else action
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise IllegalActionError(action, legal_actions(self.table.action_mask(seat)),
                                     "an action is an integer index")
        self._cumulative_rewards[agent] = 0.0
        self.table.apply(int(value))
        returns = list(self.table.returns())
        self.rewards = {a: float(returns[self._seat[a]] - self._returns[self._seat[a]]) for a in self.agents}
        self._returns = returns
        self._update()
        self._accumulate_rewards()

    def _update(self) -> None:
        """Infos, ends and the next agent, read from the table."""
        table = self.table
        self.infos = {agent: table.info(self._seat[agent]) for agent in self.agents}
        if table.done:
            ended = self.truncations if table.truncated else self.terminations
            for agent in self.agents:
                ended[agent] = True
            # Every agent is stepped once more with None (PettingZoo's convention), first to last.
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = agent_name(table.to_move)

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the onlooker's text; ``"rgb_array"``: an ``(H, W, 3)`` uint8 frame of the
        agent to act's view (``svg()``'s picture); ``"human"``: prints the text, returns None."""
        if self.render_mode == "rgb_array":
            return self.picture().rgb_array()
        if self.render_mode == "ansi":
            return self.table.render(None)
        if self.render_mode == "human":
            print(self.table.render(None))
        return None

    def picture(self) -> Any:
        """The view of the agent to act (``agent_selection``) as a ``tabletop_gym.render.Picture``:
        that seat's own, so nothing another seat holds is drawn. Raises ``GameOverError`` before
        ``reset``."""
        if not self._started:
            raise GameOverError("call reset() before drawing the game")
        return self.table.picture(self._seat[self.agent_selection])

    def svg(self) -> str:
        """The agent to act's view as an SVG document (under any render mode; no extra needed)."""
        return self.picture().svg()

    def _repr_svg_(self) -> str | None:
        # A notebook shows the game; before the first reset there is none to show.
        return self.svg() if self._started else None

    def close(self) -> None:
        return None


def make_env(raw: Callable[..., TableEnv]) -> Callable[..., Any]:
    """``env(**settings)`` of a game's module: the raw environment in PettingZoo's usual wrappers."""

    def env(**settings: Any) -> Any:
        wrapped = raw(**settings)
        wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
        return wrappers.OrderEnforcingWrapper(wrapped)

    env.__doc__ = f"{raw.__doc__ or ''}\n\nWrapped in PettingZoo's bounds and order checks."
    return env

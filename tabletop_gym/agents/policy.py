"""Trained policies as Agents, and the oracle's plan as an Agent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_gym.core import read_regular


class PolicyAgent:
    """Wraps a trained sb3-contrib MaskablePPO model: acts on the observation, within the mask."""

    def __init__(
        self,
        model: Any,
        name: str = "policy",
        deterministic: bool = True,
        config: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.name = name
        self.deterministic = deterministic
        self.config = config  # the run's config.json (what it was trained on), where there is one

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        mask = np.asarray(info["action_mask"], dtype=bool)
        action, _ = self.model.predict(observation, action_masks=mask, deterministic=self.deterministic)
        return int(action)


def load_policy(path: str | Path, deterministic: bool = True) -> PolicyAgent:
    """Load a MaskablePPO model saved by ``tabletop-gym train`` (its folder or its ``model.zip``)."""
    path = Path(path)
    if path.is_dir():
        path = path / "model.zip"
    if not path.is_file():
        raise FileNotFoundError(f"no trained model at {path} (expected a train output folder or a .zip)")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "loading a trained policy needs the training extra: pip install 'tabletop-gym[train]'"
        ) from exc
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    except Exception as error:  # zipfile, pickle, torch and KeyError failures all mean the same here
        raise ValueError(
            f"{path} is not a model saved by 'tabletop-gym train' ({type(error).__name__}: {error})"
        ) from None
    config_path = path.parent / "config.json"
    config = None  # a model without a config.json (copied on its own) is checked by its shapes only
    if config_path.exists():
        # One that is there but unreadable is refused: loading on would skip the settings check.
        try:
            config = json.loads(read_regular(config_path))
        except (OSError, ValueError) as error:
            config = error
        if not isinstance(config, dict) or "env_kwargs" not in config:
            why = f"{type(config).__name__}: {config}" if isinstance(config, Exception) else "no env_kwargs"
            raise ValueError(
                f"{config_path} beside {path.name} is not a config.json written by 'tabletop-gym train' "
                f"({why}), so the settings the model was trained on are unknown: restore it or remove it"
            )
    return PolicyAgent(
        model,
        name=path.parent.name if path.name == "model.zip" else path.stem,
        deterministic=deterministic,
        config=config,
    )


class PlanAgent:
    """Plays the oracle's plan for the deal in ``info["deal"]``: the optimum, move by move.

    ``solve(deal)`` returns the OracleResult of a deal (or any result with a ``plan``); its plan must
    be the agent's action sequence, and the last one is kept in ``result``. The plan is chosen
    knowing the whole deal, which the environments put in info during play only when made with
    ``reveal_deal=True`` (where the player does not see every card): ``reads_deal`` tells
    ``evaluate`` to give this agent such an environment of its own. ``what`` names the planner in
    errors.
    """

    name = "oracle"
    reads_deal = True

    def __init__(self, solve: Callable[[str], Any], what: str = "the oracle") -> None:
        self._solve = solve
        self._what = what
        self.result: Any = None
        self._deal: str | None = None
        self._step = 0

    def reset(self, seed: int | None = None) -> None:
        self._deal = None
        self.result = None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        if not info.get("deal"):  # "" where the environment hides it
            raise ValueError(
                f"{self._what} plays from the deal, but info holds no 'deal': this environment hides "
                "it during play; make it with reveal_deal=True"
            )
        if info["deal"] != self._deal:
            result = self._solve(info["deal"])
            if result is None:  # a game's oracle answers None where it does not serve the settings
                raise ValueError(f"{self._what} does not solve this game with these settings, so it "
                                 "cannot play as an agent here")
            self.result = result
            self._deal = info["deal"]
            self._step = 0
        plan = self.result.plan
        if self._step >= len(plan):
            raise ValueError(f"{self._what}'s game is over, but the environment asks for another move")
        action = plan[self._step]
        mask = info.get("action_mask")
        if mask is not None and not mask[action]:
            # The environment and the engine the plan was made with disagree: say so, never play on.
            raise ValueError(f"{self._what}'s move {action} is not legal here "
                             f"(legal: {np.flatnonzero(mask).tolist()})")
        self._step += 1
        return int(action)

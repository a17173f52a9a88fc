"""Trained policies as Agents, and the oracle's plan as an Agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_gym.core import OracleResult


class PolicyAgent:
    """Wraps a trained sb3-contrib MaskablePPO model: acts on the observation, within the mask."""

    def __init__(self, model: Any, name: str = "policy", deterministic: bool = True) -> None:
        self.model = model
        self.name = name
        self.deterministic = deterministic

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
    return PolicyAgent(
        model, name=path.parent.name if path.name == "model.zip" else path.stem, deterministic=deterministic
    )


class PlanAgent:
    """Plays the oracle's plan for the deal in ``info["deal"]``: the optimum, move by move.

    ``solve(deal)`` returns the OracleResult of a deal; its plan must be the agent's action sequence.
    The plan is chosen knowing the whole deal, which the environments put in info during play only
    when made with ``reveal_deal=True`` (where the player does not see every card): ``reads_deal``
    tells ``evaluate`` to give this agent such an environment of its own.
    """

    name = "oracle"
    reads_deal = True

    def __init__(self, solve: Callable[[str], OracleResult | None]) -> None:
        self._solve = solve
        self._deal: str | None = None
        self._plan: tuple[Any, ...] = ()
        self._step = 0

    def reset(self, seed: int | None = None) -> None:
        self._deal = None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        if "deal" not in info:
            raise ValueError(
                "the oracle's plan needs the deal from the first step, but info holds no 'deal': this "
                "environment hides it during play; make it with reveal_deal=True"
            )
        if info["deal"] != self._deal:
            result = self._solve(info["deal"])
            if result is None:  # a game's oracle answers None where it does not serve the settings
                raise ValueError("the oracle does not solve this game with these settings, so it cannot "
                                 "play as an agent here")
            self._deal = info["deal"]
            self._plan = result.plan
            self._step = 0
        action = self._plan[self._step]
        self._step += 1
        return int(action)

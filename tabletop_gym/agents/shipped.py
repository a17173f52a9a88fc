"""The pretrained agents shipped with the package: one small trained policy per environment id, at the
id's default settings.

``data/index.json`` lists them, by environment id: the settings each was trained for, its file and
that file's sha256, the command that trained it and the score it reaches. A file holds the policy's
actor only (the weights that choose a move: no value network, no optimizer state), saved as plain
tensors, so it loads with ``torch.load(weights_only=True)``, which runs no code from the file.
``tabletop-gym pretrained export`` (``tabletop_gym.training.pretrained``) writes them.

Loading needs the training extra (torch and sb3-contrib, whose masked policy acts).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

from tabletop_gym.agents.policy import PolicyAgent
from tabletop_gym.core import TabletopEnv, read_regular

__all__ = [
    "PretrainedError", "pretrained", "index", "index_entry", "index_path", "load_entry",
    "settings_difference",
]

INDEX = "index.json"
# The policies sb3-contrib offers for masked actions, by the names ``train`` records.
POLICIES = ("MlpPolicy", "MultiInputPolicy")
# Weights a shipped file leaves out: the value network and its own features, which only training reads.
CRITIC_PREFIXES = ("mlp_extractor.value_net.", "value_net.", "vf_features_extractor.")


class PretrainedError(ValueError):
    """A shipped agent that cannot be used: none for the id, another table, a missing or altered file."""


def data_dir() -> Path:
    return Path(str(resources.files("tabletop_gym.agents").joinpath("data")))


def index_path(folder: Path | None = None) -> Path:
    return (data_dir() if folder is None else Path(folder)) / INDEX


def index(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """The index of the shipped agents by environment id (``folder``: another copy of the data, as
    ``export`` writes one)."""
    path = index_path(folder)
    if not path.exists():
        return {}
    try:
        entries = json.loads(read_regular(path))
    except (OSError, ValueError) as error:
        raise PretrainedError(f"the index of pretrained agents, {path}, cannot be read ({error}): "
                              "reinstall tabletop-gym") from None
    if not isinstance(entries, dict) or not all(isinstance(e, dict) for e in entries.values()):
        raise PretrainedError(f"the index of pretrained agents, {path}, is not an index: "
                              "reinstall tabletop-gym")
    return entries


def index_entry(env_id: str, folder: Path | None = None) -> dict[str, Any]:
    """The index entry of ``env_id``'s agent, refused in one line where none ships."""
    entries = index(folder)
    if env_id not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise PretrainedError(f"no pretrained agent for {env_id!r}; pretrained agents: {known}")
    return entries[env_id]


def _plain(value: Any) -> Any:
    """A value as JSON gives it back, objects by their repr: settings compare across a file."""
    return json.loads(json.dumps(value, default=repr))


def _not_the_game(env_class: Any) -> frozenset[str]:
    """The arguments of an environment that leave the game as it is: who sits where, what is shown,
    how training is rewarded (its ``SEATING_OPTIONS`` and ``PRESENTATION_OPTIONS``)."""
    seating = getattr(env_class, "SEATING_OPTIONS", TabletopEnv.SEATING_OPTIONS)
    return seating | getattr(env_class, "PRESENTATION_OPTIONS", TabletopEnv.PRESENTATION_OPTIONS)


def table_of(env_id: str, env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """What decides the game that ``gym.make(env_id, **env_kwargs)`` plays, as the environment itself
    reads its arguments: its rules (``env.rules``, where it has them), the number of players, and every
    other argument, as the environment holds it where it keeps it under the argument's name (a
    kingdom by card ids, whichever way it was named), else as given or defaulted. Who sits where and
    what is only shown or rewarded in training are left out (``SEATING_OPTIONS``,
    ``PRESENTATION_OPTIONS``)."""
    env_class = load_env_creator(gym.spec(env_id).entry_point)
    env = gym.make(env_id, **env_kwargs).unwrapped
    try:
        table: dict[str, Any] = {}
        rules = getattr(env, "rules", None)
        if dataclasses.is_dataclass(rules):
            fields = _plain(dataclasses.asdict(rules))
            table.update({k: v for k, v in fields.items() if not k.startswith("_")})  # not its caches
        if hasattr(env, "num_players"):  # where the other seats' count is the game's players
            table.setdefault("num_players", int(env.num_players))
        skip = _not_the_game(env_class)
        for name, parameter in inspect.signature(env_class).parameters.items():
            if name in skip or name in table or parameter.kind is parameter.VAR_KEYWORD:
                continue
            default = None if parameter.default is parameter.empty else parameter.default
            table[name] = _plain(getattr(env, name, env_kwargs.get(name, default)))
        return table
    finally:
        env.close()


def settings_difference(env_id: str, trained: Mapping[str, Any], here: Mapping[str, Any]) -> list[str]:
    """``key=value there, value here`` for each setting of the game that differs between an
    environment made with ``trained`` and one made with ``here`` (empty where they play one game)."""
    there, now = table_of(env_id, trained), table_of(env_id, here)
    return [f"{k}={there.get(k)!r} there, {now.get(k)!r} here"
            for k in sorted(there.keys() | now.keys()) if there.get(k) != now.get(k)]


def pretrained(env_id: str, *, deterministic: bool = True, **env_kwargs: Any) -> PolicyAgent:
    """The pretrained agent of environment ``env_id`` for ``gym.make(env_id, **env_kwargs)``.

    Refused (``PretrainedError``, one line) where no agent ships for the id, where these settings
    are another game than the one it was trained for (which it names), and where its file is missing
    or altered. Who sits in the other seats does not matter: an agent may play against anyone, in
    any seat the environment offers.
    """
    entry = index_entry(env_id)
    differ = settings_difference(env_id, entry["env_kwargs"], env_kwargs)
    if differ:
        raise PretrainedError(f"the pretrained agent of {env_id} was trained for other settings "
                              f"({'; '.join(differ)}): make the environment with its settings "
                              "(tabletop-gym pretrained list)")
    agent = load_entry(env_id, entry, deterministic=deterministic)
    env = gym.make(env_id, **env_kwargs)
    try:
        seen, moves = env.observation_space, env.action_space
    finally:
        env.close()
    if agent.model.observation_space != seen or agent.model.action_space != moves:
        raise PretrainedError(f"the pretrained agent of {env_id} sees observations "
                              f"{agent.model.observation_space}, but these settings show {seen}: make the "
                              "environment with its settings (tabletop-gym pretrained list)")
    return agent


def load_entry(
    env_id: str, entry: Mapping[str, Any], folder: Path | None = None, deterministic: bool = True
) -> PolicyAgent:
    """The agent an index entry describes, its file checked against the entry's sha256 and its
    weights against the environment's spaces (without checking the settings: ``pretrained`` does)."""
    path = (data_dir() if folder is None else Path(folder)) / entry["file"]
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PretrainedError(f"the pretrained agent of {env_id} is missing ({path}: {error.strerror}): "
                              "reinstall tabletop-gym") from None
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise PretrainedError(f"the pretrained agent of {env_id} ({path}) is not the file its index names "
                              "(its sha256 differs): reinstall tabletop-gym")
    policy = _policy(env_id, entry, path)
    config = {"game": entry["game"], "env_id": env_id, "env_kwargs": entry["env_kwargs"], "pretrained": True}
    return PolicyAgent(policy, name="pretrained", deterministic=deterministic, config=config)


def _policy(env_id: str, entry: Mapping[str, Any], path: Path) -> Any:
    """The masked actor-critic policy of the entry, built for the environment's spaces, with the
    file's actor weights (the critic stays as built: acting never reads it)."""
    try:
        import torch
        from sb3_contrib.common.maskable.policies import (
            MaskableActorCriticPolicy,
            MaskableMultiInputActorCriticPolicy,
        )
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "a pretrained agent needs the training extra: pip install 'tabletop-gym[train]'"
        ) from exc
    if entry.get("policy") not in POLICIES:
        raise PretrainedError(f"the pretrained agent of {env_id} names an unknown policy "
                              f"{entry.get('policy')!r}")
    policy_class = MaskableMultiInputActorCriticPolicy if entry["policy"] == "MultiInputPolicy" else (
        MaskableActorCriticPolicy)
    env = gym.make(env_id, **entry["env_kwargs"])  # the spaces it was trained on
    try:
        policy = policy_class(env.observation_space, env.action_space, lambda _: 0.0,
                              net_arch=list(entry["net_arch"]))
    finally:
        env.close()
    try:
        weights = torch.load(path, map_location="cpu", weights_only=True)
        outcome = policy.load_state_dict(weights, strict=False)
    except Exception as error:  # a truncated file fails in zipfile or pickle, a wrong shape in torch
        raise PretrainedError(f"the pretrained agent of {env_id} ({path}) cannot be read "
                              f"({type(error).__name__}): reinstall tabletop-gym") from None
    missing = [k for k in outcome.missing_keys if not k.startswith(CRITIC_PREFIXES)]
    if missing or outcome.unexpected_keys:
        raise PretrainedError(f"the pretrained agent of {env_id} ({path}) does not hold this policy's "
                              f"weights (missing {missing[:3]}, unexpected {outcome.unexpected_keys[:3]})")
    policy.set_training_mode(False)
    return policy


def actor_weights(policy: Any) -> dict[str, Any]:
    """What a shipped file keeps of a trained policy: the weights that choose a move."""
    weights = policy.state_dict()
    return {k: v.detach().clone() for k, v in weights.items() if not k.startswith(CRITIC_PREFIXES)}

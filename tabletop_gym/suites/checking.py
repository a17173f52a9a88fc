"""What makes a suite trustworthy: every plan replayed through the game's engine to the score it
states, every deal accepted by the environment, and the oracle's revision on every entry."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import load_env_creator

import tabletop_gym
from tabletop_gym.core import OracleResult, TabletopEnv
from tabletop_gym.suites.definitions import SuiteError
from tabletop_gym.suites.storage import SuiteEntry, as_tuple, normal


def presentation_options(env_id: str | None = None) -> frozenset[str]:
    """The arguments of environment ``env_id`` that change what the agent sees or how training is
    rewarded, never the deals or the scores (its class's ``PRESENTATION_OPTIONS``): a suite made
    with one value serves every value. Without ``env_id``: those of every environment the package
    registers."""
    if env_id is None:
        ids = [i for i, spec in gym.registry.items() if str(spec.entry_point).startswith("tabletop_gym.")]
        return frozenset().union(*(presentation_options(i) for i in ids))
    entry_point = gym.spec(env_id).entry_point
    env_class = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    return getattr(env_class, "PRESENTATION_OPTIONS", TabletopEnv.PRESENTATION_OPTIONS)


def rules_kwargs(env_id: str | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments of environment ``env_id`` as JSON gives them back, without those that change only
    what is shown or how training is rewarded (``presentation_options``): what decides the deals
    and scores."""
    shown = presentation_options(env_id)
    return {k: v for k, v in normal(dict(kwargs)).items() if k not in shown}


def oracle_revision(game: str) -> str:
    """The oracle's revision (its ``ORACLE_REVISION`` where it has one) and the package version."""
    module = importlib.import_module(f"tabletop_gym.oracles.{game}")
    revision = getattr(module, "ORACLE_REVISION", None)
    text = f"tabletop-gym {tabletop_gym.__version__}"
    return f"{text}, {game} oracle revision {revision}" if revision is not None else text


def replay_score(game: str, kwargs: Mapping[str, Any], deal: str, plan: Sequence[Any]) -> float:
    """The score the game's environment, made with ``kwargs``, gives ``plan`` on ``deal``: the
    ``score_plan`` of ``envs/<game>/env.py``, which plays the plan through the engine's one ``replay``.
    Raises (ValueError and the engine's errors) where the plan is illegal or stops early."""
    module = importlib.import_module(f"tabletop_gym.envs.{game}.env")
    return float(module.score_plan(deal, plan, **dict(kwargs)))


def deal_of_seed(env: gym.Env, seed: int) -> str:
    """The deal string that ``env.reset(seed=seed)`` plays. ``env`` must be made with
    ``reveal_deal=True``: hidden-information games show the deal at reset only then."""
    return env.reset(seed=seed)[1]["deal"]


def confirm_plan(game: str, kwargs: dict[str, Any], deal: str, result: OracleResult, where: str) -> None:
    """Replay an oracle result's plan through the game's engine (environment keyword arguments
    ``kwargs``); an AssertionError naming ``where`` unless it reaches the score the result states.
    Suites and batch solving store nothing the engine does not confirm."""
    score = replay_score(game, kwargs, deal, result.plan)
    if score != result.score:
        raise AssertionError(f"oracle plan of {where} replays to {score}, not {result.score}")


def check_entries(
    suite_id: str, game: str, env_id: str, kwargs: dict[str, Any], entries: Sequence[SuiteEntry]
) -> None:
    """Every deal through the environment's own parser, every plan through the engine."""
    env = gym.make(env_id, **{k: as_tuple(v) if k == "deals" else v for k, v in kwargs.items()})
    try:
        for i, entry in enumerate(entries):
            where = f"suite {suite_id}: entry {i} (seed {entry.seed})"
            try:
                env.reset(seed=entry.seed, options={"deal": entry.deal})
            except (ValueError, TypeError) as error:
                raise SuiteError(f"{where}: the environment refuses its deal: {error}") from None
            try:
                score = replay_score(game, kwargs, entry.deal, entry.plan)
            except (ValueError, TypeError, RuntimeError, IndexError, KeyError) as error:
                raise SuiteError(f"{where}: its plan no longer replays through the engine: {error}") from None
            if score != entry.score:
                raise SuiteError(
                    f"{where}: its plan replays to {score:g}, not the stated {entry.score:g}: the engine "
                    "changed or the file was edited; rebuild the suite as a new version"
                )
    finally:
        env.close()

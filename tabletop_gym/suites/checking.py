"""What makes a suite trustworthy: every plan replayed through the game's engine to the score it
states, every deal accepted by the environment, and the oracle's revision on every entry."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym

import tabletop_gym
from tabletop_gym.core import OracleResult
from tabletop_gym.suites.definitions import SuiteError
from tabletop_gym.suites.storage import SuiteEntry, as_tuple, normal

# Environment arguments that change what the agent sees or how training is shaped, never the deals
# or the scores: a suite made with one value serves every value.
PRESENTATION_KEYS = frozenset({"observation", "province_reward", "money_reward", "render_mode"})


def rules_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Environment arguments as JSON gives them back, without those that change only what is
    shown or how training is rewarded (``PRESENTATION_KEYS``): what decides the deals and scores."""
    return {k: v for k, v in normal(dict(kwargs)).items() if k not in PRESENTATION_KEYS}


def oracle_revision(game: str) -> str:
    """The oracle's revision (its ``ORACLE_REVISION`` where it has one) and the package version."""
    module = importlib.import_module(f"tabletop_gym.oracles.{game}")
    revision = getattr(module, "ORACLE_REVISION", None)
    text = f"tabletop-gym {tabletop_gym.__version__}"
    return f"{text}, {game} oracle revision {revision}" if revision is not None else text


def _replay_war(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.envs.war.rules import WarGame, WarRules, parse_deal

    rules = WarRules(
        kwargs["ranks"], kwargs["suits"], kwargs["face_down"], kwargs["pickup"], kwargs["max_tricks"]
    )
    horizon = kwargs.get("horizon")
    limit = rules.max_tricks if horizon is None else min(horizon, rules.max_tricks)
    game = WarGame(parse_deal(deal, rules), rules.replace(max_tricks=limit), controlled=0)
    for rank in plan:
        game.choose(rank)
    if not game.over:
        raise ValueError("the plan stops before the episode ends")
    if horizon is None:
        return float(game.outcome(0))
    return float(game.state.horizon_cards(0))


def _replay_dominion(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.oracles.dominion import replay_turns

    try:
        return float(-replay_turns(deal, plan, kwargs["target"], kwargs.get("kingdom", "")))
    except AssertionError as error:  # replay_turns says so when the plan falls short of the target
        raise ValueError(str(error)) from None


def _replay_modern_art(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.envs.modern_art.rules import Rules, replay

    fields = {f.name for f in dataclasses.fields(Rules)}
    rules = Rules(**{k: as_tuple(v) for k, v in kwargs.items() if k in fields})
    state = replay(rules, deal, plan)
    if not state.done:
        raise ValueError("the plan stops before the game ends")
    return float(state.scores[0])  # the oracle plans for seat 0, the seat the environment gives the agent


REPLAY: dict[str, Callable[[dict[str, Any], str, Sequence[Any]], float]] = {
    "cribbage": lambda kwargs, deal, plan: importlib.import_module(
        "tabletop_gym.envs.cribbage.env"
    ).score_plan(deal, plan, **kwargs),
    "war": _replay_war,
    "dominion": _replay_dominion,
    "nmbr9": lambda kwargs, deal, plan: importlib.import_module(
        "tabletop_gym.envs.nmbr9.env"
    ).score_plan(deal, plan, **kwargs),
    "modern_art": _replay_modern_art,
}


def deal_of_seed(env: gym.Env, seed: int) -> str:
    """The deal string that ``env.reset(seed=seed)`` plays. ``env`` must be made with
    ``reveal_deal=True``: hidden-information games show the deal at reset only then."""
    return env.reset(seed=seed)[1]["deal"]


def confirm_plan(game: str, kwargs: dict[str, Any], deal: str, result: OracleResult, where: str) -> None:
    """Replay an oracle result's plan through the game's engine (environment keyword arguments
    ``kwargs``); an AssertionError naming ``where`` unless it reaches the score the result states.
    Suites and batch solving store nothing the engine does not confirm."""
    score = float(REPLAY[game](kwargs, deal, result.plan))
    if score != result.score:
        raise AssertionError(f"oracle plan of {where} replays to {score}, not {result.score}")


def check_entries(
    suite_id: str, game: str, env_id: str, kwargs: dict[str, Any], entries: Sequence[SuiteEntry]
) -> None:
    """Every deal through the environment's own parser, every plan through the engine."""
    env = gym.make(env_id, **{k: as_tuple(v) if k == "deals" else v for k, v in kwargs.items()})
    replay = REPLAY[game]
    try:
        for i, entry in enumerate(entries):
            where = f"suite {suite_id}: entry {i} (seed {entry.seed})"
            try:
                env.reset(seed=entry.seed, options={"deal": entry.deal})
            except (ValueError, TypeError) as error:
                raise SuiteError(f"{where}: the environment refuses its deal: {error}") from None
            try:
                score = replay(kwargs, entry.deal, entry.plan)
            except (ValueError, TypeError, RuntimeError, IndexError, KeyError) as error:
                raise SuiteError(f"{where}: its plan no longer replays through the engine: {error}") from None
            if score != entry.score:
                raise SuiteError(
                    f"{where}: its plan replays to {score:g}, not the stated {entry.score:g}: the engine "
                    "changed or the file was edited; rebuild the suite as a new version"
                )
    finally:
        env.close()

"""The user's path, for every game at once: what a new user does first must work everywhere.

- the plain stable-baselines3 loop ``model.predict -> env.step`` on every environment id through
  ``gym.make``, plain and under ``SubprocVecEnv``;
- every command of every game at tiny sizes: ``solve``, ``play`` (a typo, then end of input, and
  ``quit``), ``demo`` (train a few hundred steps, then evaluate the trained model against the oracle);
- every numeric option of every command refuses bad values with a one-line message naming it.
"""

from __future__ import annotations

import argparse
import io
import json

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.training.cli import build_parser, main
from tabletop_gym.training.games import game_names, get_game

ENV_IDS = sorted(i for i in gym.registry if i.startswith("tabletop/"))
GAMES = game_names()
STEPS_PER_ENV = 400  # enough to finish or nearly finish an episode of every game


def _model(env: gym.Env | object):
    from sb3_contrib import MaskablePPO

    from tabletop_gym.training.train import choose_policy

    return MaskablePPO(
        choose_policy(_spec_for(env), env.observation_space), env, n_steps=64, batch_size=64, seed=0
    )


def _spec_for(env) -> object:
    class _Any:
        policy = None

    return _Any()


def test_every_game_registers_an_environment() -> None:
    assert {"tabletop/Cribbage-v0", "tabletop/Nmbr9-v0", "tabletop/War-v0"} <= set(ENV_IDS)
    assert len(ENV_IDS) >= len(GAMES)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_help_describes_every_environment(env_id: str) -> None:
    # What help(EnvClass) shows a user, in the order of Gymnasium's own environments.
    doc = type(gym.make(env_id).unwrapped).__doc__ or ""
    sections = ["Description", "Action space", "Observation space", "Rewards", "Starting state"]
    sections += ["Episode end", "Arguments"]
    places = [doc.find(f"## {section}\n") for section in sections]
    assert -1 not in places and places == sorted(places), (env_id, places)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_model_predict_goes_straight_into_step(env_id: str) -> None:
    """What ``model.predict`` returns (a 0-d numpy array) is a valid action for ``env.step``."""
    env = gym.make(env_id)
    model = _model(env)
    obs, info = env.reset(seed=3)
    episodes, steps = 0, 0
    while steps < STEPS_PER_ENV:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
        assert isinstance(action, np.ndarray) and action.shape == ()
        obs, reward, terminated, truncated, info = env.step(action)
        assert np.isfinite(reward)
        steps += 1
        if terminated or truncated:
            assert "deal" in info and "score" in info
            episodes += 1
            obs, info = env.reset()
            # A new episode always has a decision to make.
            assert env.unwrapped.action_masks().any()
    env.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_form_of_an_integer_action_is_one_action(env_id: str) -> None:
    """Python int, numpy scalar and 0-d array select the same move; floats and out-of-range refuse."""
    from tabletop_gym.core import IllegalActionError

    results = []
    for form in (int, np.int64, np.int32, lambda a: np.array(a)):
        env = gym.make(env_id)
        _, info = env.reset(seed=11)
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, *_ = env.step(form(action))
        results.append(
            (np.asarray(obs if not isinstance(obs, dict) else obs[next(iter(obs))]).tolist(), reward)
        )
    assert all(r == results[0] for r in results)
    env = gym.make(env_id)
    _, info = env.reset(seed=11)
    for bad in (0.0, "0", np.array([0]), env.action_space.n, -1):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    with pytest.raises(TypeError, match="options must be None or a dict"):
        env.reset(options="x")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_predict_and_step_under_subprocvecenv(env_id: str) -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # Worker processes start fresh: the id names its module so that each one registers the
    # environments (Gymnasium has no plugin discovery), as the README says.
    vec_env = make_vec_env(
        f"tabletop_gym:{env_id}",
        n_envs=2,
        seed=0,
        vec_env_cls=SubprocVecEnv,
        env_kwargs={"render_mode": None},
    )
    try:
        model = _model(vec_env)
        obs = vec_env.reset()
        for _ in range(30):
            masks = get_action_masks(vec_env)
            assert masks.shape == (2, vec_env.action_space.n) and masks.any(axis=1).all()
            actions, _ = model.predict(obs, action_masks=masks)
            obs, _, _, _ = vec_env.step(actions)
    finally:
        vec_env.close()


# -- every command at tiny sizes ---------------------------------------------------------------------


def _subparser(command: str, game: str) -> argparse.ArgumentParser:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    games = next(a for a in commands.choices[command]._actions if isinstance(a, argparse._SubParsersAction))
    return games.choices[game]


def _demo_flags(game: str, command: str) -> list[str]:
    """The game's demo settings (ones its oracle serves quickly) as flags of ``command``."""
    parser = _subparser(command, game)
    by_dest = {a.dest: a for a in parser._actions if a.option_strings}
    flags: list[str] = []
    for dest, value in get_game(game).demo.items():
        if dest in ("steps", "episodes", "n_envs", "checkpoint_every") or dest not in by_dest:
            continue
        action = by_dest[dest]
        if isinstance(action, argparse._StoreTrueAction):
            flags += [action.option_strings[0]] if value else []
        elif value is not None:
            flags += [
                action.option_strings[0],
                ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value),
            ]
    return flags


@pytest.mark.parametrize("game", GAMES)
def test_demo_trains_then_scores_the_model_against_the_oracle(game, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "demo"
    args = ["demo", game, "--steps", "200", "--episodes", "2", "--n-envs", "2", "--no-progress"]
    assert main(args + ["--out", str(out)]) == 0, capsys.readouterr().err
    report = json.loads((out / "evaluation" / "evaluation.json").read_text())
    model_row = str(out / "agent")
    assert model_row in report["agents"]
    entry = report["agents"][model_row]
    assert len(entry["scores"]) == 2
    # The oracle served every deal the model played: a ratio against its bound for each.
    assert len(entry["ratios"]) == 2 and all(r <= 1.0 + 1e-9 for r in entry["ratios"])
    config = json.loads((out / "agent" / "config.json").read_text())
    assert config["steps_done"] >= 200 and config["interrupted"] is False


@pytest.mark.parametrize("game", GAMES)
def test_solve_at_tiny_size(game, capsys) -> None:
    assert main(["solve", game, "--seed", "1", *_demo_flags(game, "solve")]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("script", ["²\n", "²\nquit\n", "\n\n  \nexit\n"])
def test_play_survives_typos_and_ends_on_eof_or_quit(game, script, monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", game, "--seed", "2", *_demo_flags(game, "play")]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert captured.out.strip()


# -- every numeric option refuses bad values -----------------------------------------------------------


def _numeric_options() -> list[tuple[str, str, str, object]]:
    found = []
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, command_parser in commands.choices.items():
        games = next((a for a in command_parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        # A command of every game (baselines) has its options itself: "" stands for the game.
        parsers = games.choices.items() if games is not None else [("", command_parser)]
        for game, game_parser in parsers:
            for action in game_parser._actions:
                if action.option_strings and action.type is not None and action.nargs in (None, "?"):
                    found.append((command, game, action.option_strings[-1], action.type))
    return found


NUMERIC = [o for o in _numeric_options() if o[3] in (int, float) or hasattr(o[3], "bounds")]


def test_every_numeric_option_has_a_checked_type() -> None:
    """A plain ``type=int`` or ``type=float`` lets through negatives, NaN and infinities."""
    unchecked = [f"{c} {g} {o}" for c, g, o, t in NUMERIC if t in (int, float)]
    assert not unchecked, f"options without a range check: {unchecked}"
    assert len(NUMERIC) > 30


def _bad_values(kind: object) -> list[str]:
    low, high = kind.bounds
    bad = ["x", "nan", "inf", "1e999"]
    if low is not None:
        bad.append(str(low - 1))
    if high is not None:
        bad.append(str(high + 1))
    return bad


@pytest.mark.parametrize(
    ("command", "game", "option", "kind"), [o for o in NUMERIC if o[3] not in (int, float)]
)
def test_bad_numbers_exit_with_one_line_naming_the_option(command, game, option, kind, capsys) -> None:
    for value in _bad_values(kind):
        with pytest.raises(SystemExit) as stop:
            main([command, *([game] if game else []), f"{option}={value}"])
        assert stop.value.code == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and option in err and "Traceback" not in err, (value, err)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_numpy_seeds_are_seeds_and_negative_ones_are_named(env_id: str) -> None:
    env = gym.make(env_id, reveal_deal=True)  # the deal at reset, so that the two seeds compare by it
    _, with_numpy = env.reset(seed=np.int64(7))
    first = env.unwrapped.action_masks().tolist()
    _, with_int = env.reset(seed=7)
    assert env.unwrapped.action_masks().tolist() == first
    assert with_numpy["deal"] == with_int["deal"]
    with pytest.raises(ValueError, match="seed must be at least 0"):
        env.reset(seed=-1)


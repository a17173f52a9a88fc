"""Nmbr9 on the user's path: train (a Dict observation: MultiInputPolicy), evaluate the trained
model against the oracle, and the demo at its own settings."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.envs.nmbr9.rules import Variant
from tabletop_gym.training.cli import build_parser, main
from tabletop_gym.training.games import get_game

pytest.importorskip("sb3_contrib")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def test_train_then_evaluate_the_model_against_the_oracle(tmp_path, capsys) -> None:
    # train used to hard-code MlpPolicy, which cannot take Nmbr9's Dict observation.
    small = ["--variant", "9-2-3", "--grid", "6"]
    out = tmp_path / "agent"
    assert (
        main(
            ["train", "nmbr9", *small, "--steps", "300", "--n-envs", "2", "--no-progress", "--out", str(out)]
        )
        == 0
    )
    config = json.loads((out / "config.json").read_text())
    assert config["policy"] == "MultiInputPolicy" and config["env_kwargs"]["grid"] == 6
    report = tmp_path / "evaluation"
    args = ["evaluate", "nmbr9", *small, "--agent", str(out), "--episodes", "2", "--time-limit", "5"]
    assert main([*args, "--out", str(report), "--no-progress"]) == 0
    agents = json.loads((report / "evaluation.json").read_text())["agents"]
    (scores,) = agents.values()
    assert len(scores["deals"]) == 2 and all(0 <= r <= 1 for r in scores["ratios"])


def test_the_demo_runs_at_its_own_settings_which_the_oracle_serves(tmp_path, capsys) -> None:
    args = build_parser().parse_args(["demo", "nmbr9"])
    assert (args.variant, args.grid, args.levels) == (Variant(9, 2, 5), 7, 2)
    assert args.time_limit <= 10 and args.steps <= 100_000 and args.episodes <= 50
    # The first demo deal is proven optimal at once (its best plan meets the relaxation bound).
    spec = get_game("nmbr9")
    env_id, kwargs = spec.environment(spec.read(args))
    _, info = gym.make(env_id, **kwargs, reveal_deal=True).reset(seed=0)  # the draw order, on request
    assert spec.oracle(info["deal"], spec.read(args)).optimal
    out = tmp_path / "demo"
    tiny = ["--steps", "300", "--n-envs", "2", "--episodes", "2", "--seed", "0", "--no-progress"]
    assert main(["demo", "nmbr9", *tiny, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "[0/2] checking that the oracle serves" in printed and "greedy" in printed
    assert (out / "evaluation" / "evaluation.json").exists() and (out / "agent" / "model.zip").exists()

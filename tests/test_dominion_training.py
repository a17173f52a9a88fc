"""Dominion through the training pipeline: a short MaskablePPO run, its saved model evaluated against
the oracle, the shaping rewards of the solitaire environment, and the versus game's win rate."""

from __future__ import annotations

import argparse
import json

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.dominion import BigMoney
from tabletop_gym.envs.dominion.env import DominionSolitaireEnv
from tabletop_gym.training.evaluate import evaluate, play_episode
from tabletop_gym.training.games import get_game


def test_train_a_few_hundred_steps_then_evaluate_the_saved_model(tmp_path):
    pytest.importorskip("sb3_contrib")
    from tabletop_gym.training.train import train

    spec = get_game("dominion")
    args = argparse.Namespace(target=2, kingdom="", province_reward=1.0, money_reward=3.0,
                              cache=str(tmp_path / "cache"), oracle_time_limit=60.0)
    path = train(spec, 256, 0, tmp_path / "agent", args, n_envs=2, progress=False,
                 overrides={"n_steps": 64, "batch_size": 64, "n_epochs": 1})
    assert path.is_file()
    config = json.loads((tmp_path / "agent" / "config.json").read_text())
    assert config["steps_done"] >= 256 and config["env_kwargs"]["target"] == 2
    report = evaluate(spec, ["greedy", str(tmp_path / "agent")], 2, 5, args, out=tmp_path / "eval",
                      progress=False)
    for entry in report["agents"].values():
        assert len(entry["scores"]) == 2 and entry["all_bounds_optimal"]
        bounds = [spec.oracle(deal, spec.read(args)).bound for deal in entry["deals"]]
        # Minus turns: no play beats the oracle's fewest turns on its seed.
        assert all(s <= b for s, b in zip(entry["scores"], bounds, strict=True))
        assert 0 < entry["mean_ratio"] <= 1 and entry["mean_turns"] >= entry["mean_fewest_turns"]
    assert (tmp_path / "eval" / "evaluation.json").is_file()


def test_shaping_rewards_keep_the_score_and_sum_as_documented():
    plain = DominionSolitaireEnv(target=2)
    shaped = DominionSolitaireEnv(target=2, province_reward=1.0, money_reward=3.0)
    bot = BigMoney()
    totals = []
    for env in (plain, shaped):
        obs, info = env.reset(seed=4)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(bot.act(obs, info))
            total += reward
            done = terminated or truncated
        assert terminated and info["provinces"] == 2
        totals.append((total, info["score"]))
    (plain_return, plain_score), (shaped_return, shaped_score) = totals
    assert plain_score == shaped_score == plain_return  # the score is minus the turns either way
    # Province reward 2 * 1; the density potential starts at 7/10 and ends at 0.
    assert shaped_return == pytest.approx(plain_return + 2.0 - 3.0 * 0.7)
    with pytest.raises(ValueError, match="money_reward"):
        DominionSolitaireEnv(money_reward=-1)


def test_versus_win_rate_from_final_infos():
    spec = get_game("dominion")
    env = gym.make("tabletop/Dominion-v0", opponents="big-money", kingdom="")
    episodes = [play_episode(env, BigMoney(), seed) for seed in range(6)]
    infos = [e.info for e in episodes]
    figures = spec.figures([e.score for e in episodes], [None] * len(episodes), infos)
    results = [info["result"] for info in infos]
    assert figures["share_win"] == pytest.approx(results.count(1) / 6)
    assert figures["share_loss"] == pytest.approx(results.count(-1) / 6)
    assert figures["share_win"] + figures["share_shared"] + figures["share_loss"] == pytest.approx(1.0)
    assert figures["win_ci95_low"] <= figures["share_win"] <= figures["win_ci95_high"]
    assert figures["mean_vp"] == pytest.approx(np.mean([e.score for e in episodes]))
    assert all(info["vp"] == e.score for info, e in zip(infos, episodes, strict=True))

"""The randomized probe search (the Cribbage seed's method): seeding, the anytime property, replay in
the engine, weight 1 as the greedy bot, the walk's rule past the last move, refused arguments, and the
agent on the command line."""

import argparse
import json
import math
import random
from collections import Counter
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.agents.cribbage import PROBE_RULES, CribbageGreedyAgent, cribbage_probe_agent
from tabletop_gym.agents.nmbr9 import Nmbr9GreedyAgent
from tabletop_gym.agents.probe import (
    ProbeAgent,
    ProbeRules,
    check_probes,
    check_weight,
    choose_move,
    probe_search,
)
from tabletop_gym.envs.cribbage.rules import CribbageRules, parse_deal, random_deal, replay
from tabletop_gym.training.cli import main
from tabletop_gym.training.evaluate import play_episode
from tabletop_gym.training.games import get_game

DEALS = [str(random_deal(seed)) for seed in range(3)]


def _greedy_game(env_id: str, agent, seed: int, **kwargs) -> tuple[list[int], float, str]:
    """The greedy agent's actions and score in the environment, on the deal of ``seed``."""
    env = gym.make(env_id, reveal_deal=True, **kwargs)
    observation, info = env.reset(seed=seed)
    deal, actions, done = info["deal"], [], False
    while not done:
        action = agent.act(observation, info)
        actions.append(action)
        observation, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return actions, float(info["score"]), deal


def test_the_same_seed_plays_the_same_game() -> None:
    for deal in DEALS:
        first = probe_search(PROBE_RULES, deal, 0.6, 30, seed=4)
        again = probe_search(PROBE_RULES, deal, 0.6, 30, seed=4)
        assert (first.plan, first.score, first.found_at) == (again.plan, again.score, again.found_at)


def test_other_seeds_flip_other_coins() -> None:
    # Not a property of every deal and seed, but of these: the seed reaches the coins at all.
    plans = {probe_search(PROBE_RULES, DEALS[0], 0.5, 1, seed=s).plan for s in range(5)}
    assert len(plans) > 1


def test_more_probes_are_never_worse_and_a_short_run_is_the_start_of_a_long_one() -> None:
    for deal in DEALS:
        long = probe_search(PROBE_RULES, deal, 0.5, 200, seed=1)
        previous = -math.inf
        for k in (1, 2, 5, 20, 50, 200):
            short = probe_search(PROBE_RULES, deal, 0.5, k, seed=1)
            assert short.score == long.best_within(k) >= previous
            previous = short.score
        assert long.score == previous


def test_the_played_game_replays_in_the_engine_to_its_score() -> None:
    for deal in DEALS:
        result = probe_search(PROBE_RULES, deal, 0.7, 40, seed=2)
        state = replay(CribbageRules(), parse_deal(deal), result.plan)
        assert state.done and state.score == result.score


def test_the_agent_scores_in_the_environment_what_its_search_reported() -> None:
    env = gym.make("tabletop/Cribbage-v0", reveal_deal=True)
    agent = cribbage_probe_agent(weight=0.7, probes=25)
    for seed in range(3):
        episode = play_episode(env, agent, seed)
        assert agent.result is not None and episode.score == agent.result.score
        plan = agent.result.plan
        # The same seed gives the same game through the agent too.
        again = play_episode(env, agent, seed)
        assert (again.deal, again.score, agent.result.plan) == (episode.deal, episode.score, plan)


def test_weight_one_is_the_greedy_bot_move_for_move() -> None:
    for seed in range(4):
        actions, score, deal = _greedy_game("tabletop/Cribbage-v0", CribbageGreedyAgent(), seed)
        result = probe_search(PROBE_RULES, deal, 1.0, 50, seed=seed)
        assert list(result.plan) == actions and result.score == score


def test_a_coin_that_never_comes_up_heads_takes_the_best_move_as_the_seed_does() -> None:
    # Every walk passes the last move, and then takes the best one: the greedy game again.
    for seed in range(2):
        actions, score, deal = _greedy_game("tabletop/Cribbage-v0", CribbageGreedyAgent(), seed)
        result = probe_search(PROBE_RULES, deal, 1e-300, 3, seed=seed)
        assert list(result.plan) == actions and result.score == score


def _ranked_choice_rules(moves: int) -> ProbeRules[list[int]]:
    """One decision among ``moves`` moves, move 0 the best: the walk's distribution in isolation."""
    return ProbeRules(
        start=lambda deal: [],
        legal=lambda state: np.ones(moves, dtype=bool),
        best=lambda state, mask: int(np.flatnonzero(mask)[0]),
        play=lambda state, move: state.append(move),
        done=lambda state: len(state) == 1,
        score=lambda state: float(state[0]),
    )


def test_the_walk_commits_on_heads_best_first_and_falls_back_to_the_best() -> None:
    rules, weight, trials = _ranked_choice_rules(3), 0.5, 20_000
    rng = random.Random(0)
    counts = Counter(choose_move(rules, [], weight, rng) for _ in range(trials))
    # Heads at move i after i tails: w(1-w)^i; tails on all three goes back to move 0.
    expected = {0: weight + (1 - weight) ** 3, 1: weight * (1 - weight), 2: weight * (1 - weight) ** 2}
    for move, share in expected.items():
        assert abs(counts[move] / trials - share) < 0.02, (move, counts)


@pytest.mark.parametrize("weight", [0, 0.0, -0.1, 1.0001, 2, math.nan, math.inf, True, "0.5", None])
def test_bad_weights_are_refused(weight) -> None:
    with pytest.raises(ValueError, match="weight must be"):
        check_weight(weight)
    with pytest.raises(ValueError, match="weight must be"):
        ProbeAgent(PROBE_RULES, weight=weight)


@pytest.mark.parametrize("probes", [0, -3, 1.5, "10", True])
def test_bad_probe_counts_are_refused(probes) -> None:
    with pytest.raises((ValueError, TypeError), match="probes"):
        check_probes(probes)
    with pytest.raises((ValueError, TypeError), match="probes"):
        probe_search(PROBE_RULES, DEALS[0], 0.5, probes)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--probe-weight", "0", "must be above 0 and at most 1, got 0"),
        ("--probe-weight", "1.5", "must be above 0 and at most 1, got 1.5"),
        ("--probe-weight", "nan", "must be a finite number"),
        ("--probes", "0", "must be from 1 to"),
        ("--probes", "ten", "expected an integer"),
    ],
)
def test_bad_options_stop_the_command_with_one_line(option, value, message, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["evaluate", "cribbage", "--agent", "probe", option, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and option in err and message in err, err


def test_the_agent_asks_for_the_deal_when_info_hides_it() -> None:
    agent = cribbage_probe_agent(probes=1)
    agent.reset(seed=0)
    with pytest.raises(ValueError, match="reveal_deal=True"):
        agent.act(np.zeros(1), {"action_mask": np.ones(4, dtype=np.int8)})


def test_evaluate_cribbage_with_the_probe_agent(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "eval"
    args = ["evaluate", "cribbage", "--agent", "greedy,probe", "--probes", "20", "--probe-weight", "0.6"]
    assert main(args + ["--episodes", "2", "--seed", "3", "--out", str(out), "--no-progress"]) == 0
    assert "probe" in capsys.readouterr().out
    report = json.loads((out / "evaluation.json").read_text())["agents"]
    probe, greedy = report["probe"], report["greedy"]
    assert probe["deals"] == greedy["deals"] and all(r <= 1.0 for r in probe["ratios"])
    for i, (deal, score) in enumerate(zip(probe["deals"], probe["scores"], strict=True)):
        assert probe_search(PROBE_RULES, deal, 0.6, 20, seed=3 + i).score == score  # coins: the deal's seed


def test_the_registered_factory_reads_the_options_and_defaults_without_them() -> None:
    spec = get_game("cribbage")
    agent = spec.agents["probe"](spec.read(argparse.Namespace(probe_weight=0.25, probes=7)))
    assert (agent.weight, agent.probes) == (0.25, 7)
    default = spec.agents["probe"](spec.read(argparse.Namespace()))  # demo has no probe options
    assert 0 < default.weight <= 1 and default.probes >= 1


def test_cribbage_settings_are_read_by_field_name() -> None:
    from tabletop_gym.training.games.cribbage import CribbageSettings

    spec = get_game("cribbage")
    settings = spec.read({"cache": Path("c"), "probes": 3, "horizon": 26})  # others' names are ignored
    assert settings == CribbageSettings(cache=Path("c"), probes=3)
    assert spec.read({}) == CribbageSettings() and CribbageSettings().cache is None


def test_bench_reports_the_probe_curve_next_to_greedy(tmp_path, monkeypatch) -> None:
    # The curve's figures at 1, 10... probes are read from one run of the most probes.
    monkeypatch.setattr("tabletop_gym.training.games.cribbage.PROBE_COUNTS", (1, 10, 30))
    args = ["bench", "cribbage", "--deals", "1", "--env-steps", "100", "--probe-deals", "3", "--probes", "30"]
    assert main(args + ["--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "cribbage.json").read_text())
    assert report["probe_deals"] == 1  # the oracle's deals, no more
    optimum = report["oracle_mean_optimum"]
    best = probe_search(PROBE_RULES, str(random_deal(1)), report["probe_weight"], 30, seed=0).score
    assert report["probe_30_mean_ratio"] == best / optimum
    assert report["probe_30_share_reaching_61"] == float(best >= 61)
    ratios = [report[f"probe_{k}_mean_ratio"] for k in (1, 10, 30)]
    assert ratios == sorted(ratios) and 0 < ratios[-1] <= 1
    assert 0 < report["greedy_mean_ratio"] <= 1
    assert report["probe_1_median_cpu_seconds"] <= report["probe_30_median_cpu_seconds"]


def test_nmbr9_weight_one_is_its_greedy_bot_and_the_game_replays() -> None:
    spec = get_game("nmbr9")
    args = argparse.Namespace(variant="9-2-5", grid=7, levels=2, probe_weight=1.0, probes=3)
    kwargs = spec.env_kwargs(spec.read(args))
    for seed in range(3):
        actions, score, deal = _greedy_game(spec.env_id, Nmbr9GreedyAgent(), seed, **kwargs)
        agent = spec.agents["probe"](spec.read(args))
        env = gym.make(spec.env_id, reveal_deal=True, **kwargs)
        episode = play_episode(env, agent, seed)
        assert list(agent.result.plan) == actions and episode.score == agent.result.score == score
        # With a real coin the best game still replays in the environment to the score it reports.
        agent = spec.agents["probe"](spec.read(argparse.Namespace(**{**vars(args), "probe_weight": 0.5})))
        assert play_episode(env, agent, seed).score == agent.result.score

"""Modern Art environment and bots: Gymnasium contract, seeding, hidden information, errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.modern_art import GreedyAgent
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.envs.modern_art.env import HAND, HAND_SIZES, OBS_SIZE, TURN, ModernArtEnv


def play_out(env: ModernArtEnv, seed: int, agent=None) -> tuple[list[int], float, dict]:
    agent = agent or RandomAgent(seed)
    obs, info = env.reset(seed=seed)
    actions, total, done = [], 0.0, False
    while not done:
        assert env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = agent.act(obs, info)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        actions.append(action)
        total += reward
    return actions, total, info


@pytest.mark.parametrize("players", [2, 4])
def test_check_env(players: int) -> None:
    check_env(ModernArtEnv(players=players), skip_render_check=True)


def test_make_without_import_and_render() -> None:
    env = gym.make("tabletop_gym:tabletop/ModernArt-v0", players=3, render_mode="ansi")
    _, info = env.reset(seed=0)
    assert len(info["deal"]) == 2 * 95
    text = env.render()
    assert "P1 hand (13): (hidden)" in text and "P0 hand (13): " in text and "your options" in text


def test_same_seed_same_deal_and_trajectory() -> None:
    a = play_out(ModernArtEnv(), 5)
    b = play_out(ModernArtEnv(), 5)
    c = play_out(ModernArtEnv(), 6)
    assert a[0] == b[0] and a[2]["deal"] == b[2]["deal"] and a[2]["scores"] == b[2]["scores"]
    assert a[2]["deal"] != c[2]["deal"]


@pytest.mark.parametrize("players, seat", [(2, 0), (2, 1), (3, 2), (5, 3)])
def test_return_is_the_seats_score_and_replays(players: int, seat: int) -> None:
    env = ModernArtEnv(players=players, seat=seat)
    _, total, info = play_out(env, 11)
    assert total == info["score"] == info["scores"][seat]
    again = R.replay(env.rules, info["deal"], env.state.history)
    assert again.done and again.scores == info["scores"]


def test_given_deal_is_played_and_bad_deals_rejected() -> None:
    rules = R.Rules(players=2)
    deal = R.random_deal(rules, 3)
    env = ModernArtEnv()
    obs, info = env.reset(options={"deal": deal})
    assert info["deal"] == deal
    hand = R.State(rules, deal).hands[0]
    assert obs[HAND].tolist() == hand
    with pytest.raises(InvalidDealError):
        env.reset(options={"deal": deal[:-2]})


def test_observation_hides_other_hands() -> None:
    rules = R.Rules(players=2)
    cards = list(R.parse_deal(R.random_deal(rules, 9), rules))
    # seat 1's first card sits at position 1; swap it with a card deep in the deck
    other = next(i for i in range(60, 95) if cards[i] != cards[1])
    swapped = cards.copy()
    swapped[1], swapped[other] = swapped[other], swapped[1]
    env = ModernArtEnv()
    obs_a, _ = env.reset(options={"deal": R.deal_string(cards)})
    obs_b, _ = env.reset(options={"deal": R.deal_string(swapped)})
    assert np.array_equal(obs_a, obs_b)
    assert obs_a.shape == (OBS_SIZE,) and obs_a[HAND_SIZES][:2].tolist() == [13, 13]


def test_seat_argument_waits_for_opponents() -> None:
    env = ModernArtEnv(players=3, seat=2)
    obs, info = env.reset(seed=1)
    assert env.state.to_move == 2 and obs[TURN] == 0
    assert sum(env.state.hand_sizes) < 39  # two opponents have played first


def test_errors() -> None:
    env = ModernArtEnv()
    with pytest.raises(GameOverError):
        env.step(0)
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(illegal)
    with pytest.raises(IllegalActionError):
        env.step("a card")  # type: ignore[arg-type]
    play_out(env, 2)
    with pytest.raises(GameOverError):
        env.step(0)
    with pytest.raises(ValueError, match="seat"):
        ModernArtEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="opponents"):
        ModernArtEnv(players=3, opponents=[RandomAgent()])
    with pytest.raises(ValueError, match="round_limit"):
        ModernArtEnv(round_limit=0)


def test_rule_parameters_reach_the_engine() -> None:
    env = ModernArtEnv(players=3, round_limit=4, end_of_round_plays=True)
    assert env.rules.round_limit == 4 and env.rules.end_of_round_plays
    play_out(env, 4)


@pytest.mark.parametrize("players", [2, 3])
def test_symbol_rule_parameters_reach_the_engine(players: int) -> None:
    env = ModernArtEnv(players=players, second_card_symbols=True, resolve_ending_card=True)
    assert env.rules.second_card_symbols and env.rules.resolve_ending_card
    assert not ModernArtEnv().rules.second_card_symbols and not ModernArtEnv().rules.resolve_ending_card
    for seed in range(3):
        _, total, info = play_out(env, seed)
        assert total == info["score"]
        again = R.replay(env.rules, info["deal"], env.state.history)
        assert again.scores == info["scores"]


def test_greedy_beats_random_and_self_play_works() -> None:
    wins = 0
    for seed in range(12):
        env = ModernArtEnv(players=2, opponents=[RandomAgent(seed)])
        _, _, info = play_out(env, seed, GreedyAgent())
        wins += info["scores"][0] > info["scores"][1]
    assert wins >= 9
    env = ModernArtEnv(players=4, opponents=[GreedyAgent(), RandomAgent(1), GreedyAgent()])
    play_out(env, 1, GreedyAgent())

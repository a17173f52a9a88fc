"""Dominion environments: Gymnasium API, masks, rewards, replay by deal, errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401
from tabletop_gym.agents.dominion import BigMoney, SmithyBigMoney, play_game, solitaire_turns
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import DECISION, HAND, SUPPLY, DominionEnv, DominionSolitaireEnv


@pytest.mark.parametrize("make", [
    lambda: DominionEnv(),
    lambda: DominionSolitaireEnv(),
    lambda: DominionEnv(["random", "big-money-ultimate"], seat=2, vp_shaping=0.1),
])
def test_check_env(make):
    check_env(make(), skip_render_check=True)


def test_make_both_ids_without_import():
    for env_id in ("tabletop_gym:tabletop/Dominion-v0", "tabletop_gym:tabletop/DominionSolitaire-v0"):
        env = gym.make(env_id, reveal_deal=True)  # the seed is hidden information: shown on request
        _, info = env.reset(seed=0)
        assert R.parse_seed(info["deal"]) >= 0


def test_solitaire_return_is_minus_turns_and_matches_the_engine():
    env = DominionSolitaireEnv(render_mode="ansi")
    bot = BigMoney()
    obs, info = env.reset(options={"deal": "12345"})
    assert "Copper" in env.render()
    total, done = 0.0, False
    while not done:
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        obs, reward, terminated, truncated, info = env.step(bot.act(obs, info))
        total += reward
        done = terminated or truncated
    assert terminated and info["provinces"] == 4
    assert total == info["score"] == -solitaire_turns("big-money", 12345)
    with pytest.raises(GameOverError):
        env.step(R.PASS)


def test_bot_acting_from_observation_equals_bot_on_engine():
    # The rule bot decoding the observation plays exactly as on the engine's view: the observation
    # holds what the bot needs (hand, coins, supply, own cards).
    env = DominionEnv(opponents="big-money", kingdom=None)
    bot = SmithyBigMoney()
    obs, info = env.reset(options={"deal": "99"})
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(bot.act(obs, info))
        done = terminated or truncated
    final = play_game([SmithyBigMoney(), BigMoney()], seed=99, kingdom=None, turn_limit=100)
    assert info["score"] == final.vp(0) and info["result"] == final.results()[0] == reward


def test_same_seed_same_game_and_observation_contents():
    env = DominionEnv(reveal_deal=True)
    obs1, info1 = env.reset(seed=7)
    obs2, info2 = env.reset(seed=7)
    assert info1["deal"] == info2["deal"] and np.array_equal(obs1, obs2)
    assert obs1[DECISION.start + R.BUY] == 1 and obs1[SUPPLY.start + R.PROVINCE] == 8
    assert obs1[HAND].sum() == 5 - env.state.in_play[0][R.COPPER]  # Coppers are already in play
    assert env.observation_space.contains(obs1)


def test_agent_answers_militia_on_the_opponents_turn():
    # Random play against a Militia-heavy opponent: whenever the agent must discard, it is asked.
    class MilitiaBot(BigMoney):
        name = "militia"
        action_priority = (R.MILITIA,)

        def buy(self, view):
            return R.MILITIA if 4 <= view.coins <= 5 else super().buy(view)

    env = DominionEnv(opponents=MilitiaBot())
    rng = np.random.default_rng(0)
    asked = 0
    for episode in range(3):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            asked += info["decision"] == "militia_discard"
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert asked > 0


def test_illegal_and_bad_arguments():
    env = DominionSolitaireEnv()
    _, info = env.reset(seed=1)
    with pytest.raises(IllegalActionError) as err:
        env.step(R.PROVINCE)
    assert R.PASS in err.value.legal
    with pytest.raises(IllegalActionError):
        env.step(1.5)
    with pytest.raises(InvalidDealError):
        env.reset(options={"deal": "not a seed"})
    with pytest.raises(ValueError, match="unknown Dominion bot"):
        DominionEnv(opponents="nobody")
    with pytest.raises(ValueError, match="seat"):
        DominionEnv(seat=3)
    with pytest.raises(ValueError, match="opponents"):
        DominionEnv(opponents=["big-money"] * 4)
    with pytest.raises(ValueError, match="target"):
        DominionSolitaireEnv(target=0)
    with pytest.raises(ValueError, match="render_mode"):
        DominionSolitaireEnv(render_mode="human")
    with pytest.raises(GameOverError):
        DominionEnv().step(0)


def test_turn_limit_truncates():
    env = DominionSolitaireEnv(turn_limit=3)
    _, info = env.reset(seed=0)
    steps = 0
    truncated = terminated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(R.PASS)
        steps += 1
    assert truncated and not terminated and steps == 3 and info["score"] == -3


def test_versus_render_shows_what_the_agent_may_see():
    env = DominionEnv(opponents="big-money", render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    me = next(line for line in text.splitlines() if line.startswith("player 0:"))
    bot = next(line for line in text.splitlines() if line.startswith("player 1:"))
    assert "hand [" in me and "hand [" not in bot and "5 cards in hand" in bot

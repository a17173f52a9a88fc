"""Nmbr9 Gymnasium environment: API, spaces, seeding, deals, errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.nmbr9.env import Nmbr9Env
from tabletop_gym.envs.nmbr9.rules import Nmbr9Rules, Variant, parse_deal, replay


def test_check_env() -> None:
    check_env(Nmbr9Env(), skip_render_check=True)
    check_env(Nmbr9Env(max_value=6, copies=2, cards=5, grid=8, levels=3), skip_render_check=True)


def test_make_and_defaults() -> None:
    env = gym.make("tabletop/Nmbr9-v0", reveal_deal=True)  # the draw order, shown on request
    assert env.action_space.n == 4 * 20 * 20
    obs, info = env.reset(seed=0)
    assert obs["height"].shape == (20, 20)
    assert len(info["deal"]) == 20 and sorted(info["deal"]) == sorted("01234567890123456789")
    env.close()
    env = gym.make("tabletop_gym:tabletop/Nmbr9-v0", grid=12, max_value=4, copies=1, cards=5)
    assert env.action_space.n == 4 * 12 * 12


def test_episode_rewards_sum_to_score_and_replay() -> None:
    env = Nmbr9Env(grid=14, reveal_deal=True)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=7)
    total, plan = 0.0, []
    assert obs["card"][0] == int(info["deal"][0])
    assert int(obs["unseen"].sum()) == 19 and obs["cards_left"][0] == 19
    done = False
    while not done:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and np.array_equal(mask.astype(bool), env.action_masks())
        action = int(rng.choice(np.flatnonzero(mask)))
        plan.append(action)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        total += reward
    assert total == info["score"]
    assert obs["card"][0] == -1 and not info["action_mask"].any()
    # The episode replays through the engine from its deal string alone.
    state = replay(Nmbr9Rules(grid=14), parse_deal(info["deal"]), plan)
    assert state.score == info["score"]
    # The observation is the engine's board.
    assert np.array_equal(obs["height"], state.height)
    assert int((obs["top_value"] >= 0).sum()) == int((state.height > 0).sum())
    with pytest.raises(GameOverError):
        env.step(plan[-1])


def test_seeding_and_given_deal() -> None:
    env = Nmbr9Env(reveal_deal=True)
    _, a = env.reset(seed=3)
    _, b = env.reset(seed=3)
    _, c = env.reset(seed=4)
    assert a["deal"] == b["deal"] and a["deal"] != c["deal"]
    obs, info = env.reset(options={"deal": "90817263549081726354"})
    assert info["deal"] == "90817263549081726354" and obs["card"][0] == 9
    with pytest.raises(InvalidDealError):
        env.reset(options={"deal": "9081726354"})


def test_illegal_actions_raise_and_name_the_legal_ones() -> None:
    env = Nmbr9Env(grid=8)
    env.reset(seed=0)
    env.step(0)
    legal = set(np.flatnonzero(env.action_masks()).tolist())
    bad = next(a for a in range(env.action_space.n) if a not in legal)
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    assert err.value.action == bad and set(err.value.legal) == legal
    with pytest.raises(IllegalActionError):
        env.step("0")
    with pytest.raises(GameOverError):
        Nmbr9Env().step(0)


def test_render_and_bad_arguments() -> None:
    env = Nmbr9Env(render_mode="ansi", grid=8)
    env.reset(seed=0)
    env.step(0)
    text = env.render()
    assert "score 0" in text and " 7 " in text and "01234567" in text  # rows and columns numbered
    with pytest.raises(ValueError):
        Nmbr9Env(render_mode="human")
    with pytest.raises(InvalidDealError, match=r"cards \(k\) must be from 1 to 14"):
        Nmbr9Env(max_value=6, copies=2, cards=15)
    with pytest.raises(ValueError, match="grid"):
        Nmbr9Env(grid=3)
    assert Variant(6, 2, 14).cards == 14


def test_action_space_samples_legal_placements_and_pickles() -> None:
    import pickle

    env = Nmbr9Env(grid=10)
    env.reset(seed=2)
    for _ in range(6):
        action = env.action_space.sample()
        assert env.action_masks()[action]
        env.step(int(action))
    clone = pickle.loads(pickle.dumps(env.action_space))
    assert clone == env.action_space and clone.n == 400


def test_numeric_arguments_accept_numpy_integers_and_name_the_bad_one() -> None:
    env = Nmbr9Env(
        max_value=np.int64(6), copies=np.int32(2), cards=np.int64(5), grid=np.int64(8), levels=np.int8(3)
    )
    assert (env.variant, env.grid, env.levels) == (Variant(6, 2, 5), 8, 3)
    assert type(env.grid) is int and type(env.levels) is int
    check_env(env, skip_render_check=True)
    for kwargs, name in [
        ({"grid": 3}, "grid"),
        ({"grid": 8.0}, "grid"),
        ({"levels": 0}, "levels"),
        ({"levels": np.float64(2)}, "levels"),
        ({"max_value": 10}, "max_value"),
        ({"copies": 10**9}, "copies"),
        ({"copies": True}, "copies"),
        ({"cards": 0}, "cards"),
    ]:
        with pytest.raises(ValueError, match=name):
            Nmbr9Env(**kwargs)


def test_reset_options_are_checked() -> None:
    env = Nmbr9Env(max_value=4, copies=1, cards=5, grid=8, reveal_deal=True)
    with pytest.raises(TypeError, match="options"):
        env.reset(options="x")
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"deel": "01234"})
    # A Deal object is checked against the variant like a deal string.
    with pytest.raises(InvalidDealError):
        env.reset(options={"deal": parse_deal("9081726354", Variant(9, 1, 10))})
    _, info = env.reset(options={"deal": parse_deal("43210", Variant(4, 1, 5))})
    assert info["deal"] == "43210"


def test_the_action_model_predict_returns_is_accepted() -> None:
    env = Nmbr9Env(grid=8)
    _, info = env.reset(seed=0)
    action = np.array(int(np.flatnonzero(info["action_mask"])[0]))  # a 0-d array, as predict gives
    _, _, _, _, info = env.step(action)
    assert info["turn"] == 1



def test_score_plan_is_the_episode_score_of_the_environment_with_those_arguments() -> None:
    from tabletop_gym.envs.nmbr9.env import score_plan

    kwargs = {"max_value": 6, "copies": 2, "cards": 6, "grid": 6, "levels": 2}
    env = Nmbr9Env(**kwargs, reveal_deal=True)
    rng = np.random.default_rng(3)
    _, info = env.reset(seed=3)
    deal, plan, total, done = info["deal"], [], 0.0, False
    while not done:
        plan.append(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        _, reward, done, _, info = env.step(plan[-1])
        total += reward
    assert score_plan(deal, plan, **kwargs) == total == info["score"]
    assert score_plan(deal, plan, **kwargs, render_mode="ansi", reveal_deal=True) == total
    with pytest.raises(ValueError, match="stops before every card is placed"):
        score_plan(deal, plan[:-1], **kwargs)
    with pytest.raises(InvalidDealError):  # the deal is read as one of the environment's variant
        score_plan(deal, plan, **{**kwargs, "cards": 5})

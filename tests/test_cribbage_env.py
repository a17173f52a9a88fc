"""The Cribbage environment: Gymnasium API, masks, seeding, errors, rendering."""

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tabletop_gym  # noqa: F401
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.cribbage.env import NEW_STACK, PILES, POINTS, STACK, TOTAL, CribbageEnv
from tabletop_gym.envs.cribbage.rules import parse_deal

KNOWN = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"


def test_make_without_import() -> None:
    env = gym.make("tabletop_gym:tabletop/Cribbage-v0")
    _, info = env.reset(seed=0)
    assert len(info["deal"]) == 55


def test_observation_encodes_the_position() -> None:
    env = CribbageEnv()
    obs, info = env.reset(options={"deal": KNOWN})
    assert info["deal"] == KNOWN and info["score"] == 0
    deal = parse_deal(KNOWN)
    assert list(obs[PILES][:13]) == list(deal.piles[0])
    assert obs[TOTAL] == 0 and obs[NEW_STACK] == 0
    obs, reward, *_ = env.step(0)  # the 4
    assert list(obs[PILES][:13]) == list(deal.piles[0][1:]) + [0]
    assert obs[TOTAL] == 4 and obs[STACK][0] == 4 and reward == 0
    # Playing pile 3's Jack would make 14: no points; pile 2's 6 makes 10: no points either.
    assert list(obs[POINTS]) == [env.state.points_if_played(p) for p in range(4)]


def test_new_stack_flag() -> None:
    env = CribbageEnv(pile_size=2)
    env.reset(options={"deal": "KA/Q9/J8/77"})
    for pile in (0, 1, 2):
        obs, *_ = env.step(pile)
    obs, reward, *_ = env.step(0)
    assert reward == 2 and obs[NEW_STACK] == 1 and obs[TOTAL] == 0
    obs, *_ = env.step(3)
    assert obs[NEW_STACK] == 0


def test_illegal_actions_and_finished_episodes_raise() -> None:
    env = CribbageEnv(pile_size=1)
    env.reset(options={"deal": "T/T/T/A"})
    env.step(0), env.step(1), env.step(2)
    assert list(env.action_masks()) == [False, False, False, True]
    with pytest.raises(IllegalActionError, match=r"illegal action 0 .*legal actions: \[3\]"):
        env.step(0)
    with pytest.raises(IllegalActionError):
        env.step(7)
    _, reward, terminated, truncated, info = env.step(3)
    assert reward == 2 and terminated and not truncated and info["score"] == 2 + 6 + 2  # pair, three, 31
    with pytest.raises(GameOverError):
        env.step(3)


def test_bad_arguments() -> None:
    with pytest.raises(InvalidDealError):
        CribbageEnv().reset(options={"deal": "not a deal"})
    with pytest.raises(InvalidDealError, match="pile_size"):
        CribbageEnv(pile_size=0)
    with pytest.raises(ValueError, match="render_mode"):
        CribbageEnv(render_mode="human")


def test_render_shows_what_a_person_needs() -> None:
    env = CribbageEnv(render_mode="ansi")
    env.reset(options={"deal": KNOWN})
    env.step(0)
    text = env.render()
    assert "stack total  4: 4" in text
    assert "pile 0: 6 Q K 2 5 J 4 K 7 T A K" in text
    assert "playable" in text


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 3), min_size=52, max_size=52))
def test_rewards_add_up_to_the_score(seed: int, picks: list[int]) -> None:
    env = CribbageEnv()
    obs, info = env.reset(seed=seed)
    total = 0.0
    steps = 0
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, done, _, info = env.step(int(legal[picks[steps] % len(legal)]))
        total += reward
        steps += 1
    assert steps == 52 and total == info["score"]


def test_maskable_ppo_reads_masks_from_subprocesses() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # make_vec_env asks for render_mode="rgb_array" unless told otherwise; these envs render text.
    vec = make_vec_env(
        "tabletop_gym:tabletop/Cribbage-v0",
        n_envs=2,
        seed=0,
        vec_env_cls=SubprocVecEnv,
        env_kwargs={"render_mode": None},
    )
    try:
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, 4) and masks.dtype == bool and masks.any(axis=1).all()
    finally:
        vec.close()


def test_score_plan_is_the_episode_score_of_the_environment_with_those_arguments() -> None:
    from tabletop_gym.envs.cribbage.env import score_plan

    env = CribbageEnv(pile_size=3)
    rng = np.random.default_rng(5)
    _, info = env.reset(seed=5)
    deal, plan, total, done = info["deal"], [], 0.0, False
    while not done:
        plan.append(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        _, reward, done, _, info = env.step(plan[-1])
        total += reward
    assert score_plan(deal, plan, pile_size=3) == total == info["score"]
    with pytest.raises(ValueError, match="stops before the game ends"):
        score_plan(deal, plan[:-1], pile_size=3)
    with pytest.raises(InvalidDealError):  # a deal of 3 cards a pile is not one of 13
        score_plan(deal, plan)
    with pytest.raises(IllegalActionError):
        score_plan(deal, [plan[0]] * 4, pile_size=3)

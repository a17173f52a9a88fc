"""The native vector environment of Cribbage (``envs/cribbage/vector.py``) against the engine.

Its kernel is a second implementation of the rules, so it is checked move by move against
``SyncVectorEnv`` of the single environment (which steps the engine): observations, rewards,
terminations, truncations and every info, autoresets included. The test runs 22,000
sub-environment steps; ``python tests/test_cribbage_vector.py 100000`` runs the same check on 100,000.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import IllegalActionError
from tabletop_gym.envs.cribbage.env import CribbageEnv
from tabletop_gym.envs.cribbage.vector import DEALS_AHEAD, CribbageVectorEnv
from tabletop_gym.testing import (
    check_vector_action_masks,
    check_vector_bench,
    check_vector_pickle,
    random_legal_batch,
    vector_steps_against_sync,
)

ENV_ID = "tabletop/Cribbage-v0"
SUITES = sorted((Path(tabletop_gym.__file__).parent / "suites" / "data").glob("cribbage-*.json"))


def check_against_engine(steps: int, num_envs: int, pile_size: int, seed: int) -> int:
    """Step the native vector environment and ``SyncVectorEnv`` of the single environment with the
    same random legal actions for ``steps`` sub-environment steps; returns the games finished."""
    finished = 0
    for *_, result, _ in vector_steps_against_sync(ENV_ID, num_envs, steps, seed, pile_size=pile_size):
        finished += int(result[2].sum())
    return finished


@pytest.mark.parametrize("pile_size, num_envs, steps", [(13, 8, 8_000), (3, 5, 6_000), (1, 4, 8_000)])
def test_steps_equal_the_single_environment_move_by_move(pile_size: int, num_envs: int, steps: int) -> None:
    finished = check_against_engine(steps, num_envs, pile_size, seed=pile_size)
    # Every sub-environment crossed autoresets; with one card a pile, past its block of drawn deals too.
    assert finished >= num_envs * 2
    if pile_size == 1:
        assert finished > num_envs * DEALS_AHEAD


def test_make_vec_returns_the_native_environment_with_the_ids_settings() -> None:
    envs = gym.make_vec(
        ENV_ID, num_envs=3, pile_size=4
    )  # the default mode for an id with a vector entry point
    assert isinstance(envs, CribbageVectorEnv) and envs.num_envs == 3 and envs.pile_size == 4
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, 65) and envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, 4) and info["action_mask"].dtype == np.int8
    assert np.array_equal(envs.action_masks(), info["action_mask"].astype(bool))


def test_seed_s_gives_sub_environment_i_the_deals_of_the_single_environment_with_seed_s_plus_i() -> None:
    envs = CribbageVectorEnv(num_envs=4, pile_size=2)
    _, info = envs.reset(seed=10)
    deals = [list(info["deal"])]
    for _ in range(3):  # three more games each: 8 moves and the autoreset step
        for _ in range(9):
            *_, info = envs.step(random_legal_batch(envs.action_masks(), np.random.default_rng(0)))
        deals.append(list(info["deal"]))
    for i in range(4):
        single = CribbageEnv(pile_size=2)
        expected = [single.reset(seed=10 + i)[1]["deal"]] + [single.reset()[1]["deal"] for _ in range(3)]
        assert [game[i] for game in deals] == expected
    # A list of seeds gives one to each; reset without a seed goes on with each generator's next deal.
    _, info = envs.reset(seed=[5, 6, 7, 8])
    _, again = envs.reset()
    single = CribbageEnv(pile_size=2)
    assert list(info["deal"])[1] == single.reset(seed=6)[1]["deal"]
    assert list(again["deal"])[1] == single.reset()[1]["deal"]


def test_a_given_deal_leaves_the_generators_deals_untouched() -> None:
    deal = "A2/34/56/78"
    envs = CribbageVectorEnv(num_envs=2, pile_size=2)
    envs.reset(seed=3)
    _, info = envs.reset(options={"deal": deal})
    assert list(info["deal"]) == [deal, deal]
    _, info = envs.reset()
    single = CribbageEnv(pile_size=2)
    single.reset(seed=4)
    assert info["deal"][1] == single.reset()[1]["deal"]


@pytest.mark.parametrize("suite", SUITES, ids=[p.stem for p in SUITES])
def test_the_suites_plans_score_their_recorded_optimum(suite: Path) -> None:
    entries = json.loads(suite.read_text())["entries"]
    seeds = [e["seed"] for e in entries]
    envs = CribbageVectorEnv(num_envs=len(entries))
    _, info = envs.reset(seed=seeds)
    assert list(info["deal"]) == [e["deal"] for e in entries]  # the suite's deals are reset(seed=s)'s
    plans = np.array([e["plan"] for e in entries])
    returns = np.zeros(len(entries))
    for t in range(plans.shape[1]):
        _, rewards, terminated, _, info = envs.step(plans[:, t])
        returns += rewards
    assert terminated.all()
    assert np.array_equal(returns, [e["score"] for e in entries])
    assert np.array_equal(info["score"], returns)


def test_autoreset_starts_the_next_deal_on_the_step_after_the_last_card() -> None:
    envs = CribbageVectorEnv(num_envs=2, pile_size=1)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(4):
        obs, rewards, terminated, _, info = envs.step(random_legal_batch(envs.action_masks(), rng))
    assert terminated.all() and not info["action_mask"].any() and (info["cards_played"] == 4).all()
    assert envs.action_masks().all()  # the next step ignores the action: any one will do
    obs, rewards, terminated, _, info = envs.step(np.array([3, 3]))
    assert not terminated.any() and not rewards.any()
    assert (
        (info["cards_played"] == 0).all()
        and (info["score"] == 0).all()
        and info["action_mask"].any(axis=1).all()
    )


def test_vector_action_masks_wraps_it_as_it_wraps_gymnasiums_own() -> None:
    # 12 steps: two games and more, autoresets included.
    check_vector_action_masks(CribbageVectorEnv(num_envs=3, pile_size=1), ENV_ID, 12, pile_size=1)


def test_bad_input_is_refused_naming_the_sub_environment() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        CribbageVectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="pile_size"):
        gym.make_vec(ENV_ID, num_envs=2, pile_size=14)
    envs = CribbageVectorEnv(num_envs=3, pile_size=2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(3, dtype=int))
    envs.reset(options={"deal": "KQ/JT/99/AA"})
    for pile in (0, 0, 1):  # K, Q, J: the stack is at 30, only an ace fits
        envs.step(np.full(3, pile))
    before = envs.action_masks()
    assert before.tolist() == [[False, False, False, True]] * 3
    with pytest.raises(
        IllegalActionError, match=r"illegal action 0 \(in sub-environment 1: the pile is empty\)"
    ):
        envs.step(np.array([3, 0, 3]))
    with pytest.raises(
        IllegalActionError, match=r"action 1 \(in sub-environment 0: the stack total would exceed 31"
    ):
        envs.step(np.array([1, 3, 3]))
    with pytest.raises(
        IllegalActionError, match=r"illegal action 4 \(in sub-environment 2: not a pile index"
    ):
        envs.step(np.array([3, 3, 4]))
    with pytest.raises(IllegalActionError, match="integers"):
        envs.step(np.array([3.0, 3.0, 3.0]))
    with pytest.raises(ValueError, match="3 actions"):
        envs.step(np.array([3, 3]))
    assert np.array_equal(envs.action_masks(), before)  # a refused batch moved no sub-environment
    _, rewards, _, _, info = envs.step(np.array([3, 3, 3]))
    assert rewards.tolist() == [2.0] * 3 and (info["cards_played"] == 4).all()  # 31 for two
    with pytest.raises(ValueError, match="expected 3 deals"):
        envs.reset(options={"deal": ["A/2/3/4"]})
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"deals": "A/2/3/4"})
    with pytest.raises(ValueError, match="expected 3 seeds"):
        envs.reset(seed=[1, 2])


def test_a_pickled_environment_goes_on_as_the_original() -> None:
    check_vector_pickle(CribbageVectorEnv(num_envs=3), before=60, after=60)


def test_bench_vector_reports_the_vector_rate_beside_the_single_environment_and_cartpole(tmp_path) -> None:
    report = check_vector_bench("cribbage", tmp_path, 64, 1000, 100)
    assert report["vector_steps_per_run"] == 960


if __name__ == "__main__":
    import time

    total = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    start = time.perf_counter()
    games = sum(check_against_engine(total // 2, 16, 13, seed=s) for s in (0, 1))
    games += check_against_engine(total // 4, 8, 2, seed=2)
    print(
        f"{total // 2 // 16 * 16 * 2 + total // 4 // 8 * 8:,} sub-environment steps equal, {games} games, "
        f"{time.perf_counter() - start:.1f} s"
    )

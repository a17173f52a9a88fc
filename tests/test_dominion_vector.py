"""The native vector environment of solitaire Dominion (``envs/dominion/vector.py``) against the engine.

Its kernel is a second implementation of the rules, so it is checked decision by decision against
``SyncVectorEnv`` of the single environment (which steps the engine): observations, rewards,
terminations, truncations and every info, autoresets included, and the whole position the kernel
keeps (the draw pile's order too, which the observation hides) against the engine's. The test runs
about 13,600 sub-environment steps over the treasure game, Smithy and the other kingdom cards;
``python tests/test_dominion_vector.py 100000`` runs the same check on 100,000.
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
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import DominionSolitaireEnv
from tabletop_gym.envs.dominion.vector import DEALS_AHEAD, DominionSolitaireVectorEnv
from tabletop_gym.testing import (
    check_vector_action_masks,
    check_vector_bench,
    check_vector_pickle,
    random_legal_batch,
    vector_steps_against_sync,
)

ENV_ID = "tabletop/DominionSolitaire-v0"
SUITES = sorted((Path(tabletop_gym.__file__).parent / "suites" / "data").glob("dominion-*.json"))
# What the engine's state holds that the kernel keeps too (the history and the gains it does not).
POSITION = ("hand", "draw", "discard", "in_play", "owned", "supply", "trash", "shuffles", "turns",
            "decision", "actions", "buys", "coins", "merchants", "cellar_discarded", "unreachable",
            "truncated", "seed")  # fmt: skip


def _assert_same_position(
    native: DominionSolitaireVectorEnv, sync: gym.vector.SyncVectorEnv, where: str
) -> None:
    for i in range(native.num_envs):
        got, expected = native.position(i), sync.envs[i].unwrapped.state
        for name in POSITION:
            assert getattr(got, name) == getattr(expected, name), f"{name} of game {i} differs {where}"


def check_against_engine(steps: int, num_envs: int, seed: int, prefer: np.ndarray | None = None,
                         **settings) -> tuple[int, int]:  # fmt: skip
    """Step the native vector environment and ``SyncVectorEnv`` of the single environment with the
    same random legal actions (weighted by ``prefer``) for ``steps`` sub-environment steps; returns
    the games finished and those ended by an unreachable target."""
    finished = unreachable = 0
    for native, sync, result, where in vector_steps_against_sync(ENV_ID, num_envs, steps, seed, prefer,
                                                                 **settings):  # fmt: skip
        _assert_same_position(native, sync, where)
        ended = result[2] | result[3]
        finished += int(ended.sum())
        unreachable += int((result[2] & (result[4]["score"] == -native.turn_limit)).sum())
    return finished, unreachable


# Buy Provinces and Remodels, play Remodel, trash a Province with it: with a target of 8, one Province
# trashed ends the game (the target is out of reach).
TRASH_PROVINCES = np.zeros(R.NUM_ACTIONS)
TRASH_PROVINCES[[R.PROVINCE, R.REMODEL, R.GOLD, R.SILVER]] = [4.0, 3.0, 2.0, 1.0]


@pytest.mark.parametrize(
    "settings, num_envs, steps",
    [
        ({}, 8, 4_000),
        ({"kingdom": "smithy", "turn_limit": 25}, 5, 3_000),
        ({"turn_limit": 1}, 3, 600),  # one step a game: past each generator's block of drawn deals
        ({"kingdom": "first-game", "turn_limit": 12, "province_reward": 0.5, "money_reward": 0.25}, 4, 3_000),
        ({"kingdom": "remodel,market,cellar", "target": 8, "turn_limit": 40, "reveal_deal": True}, 4, 3_000),
    ],
    ids=["treasure", "smithy", "one-turn", "first-game-shaped", "remodel"],
)
def test_steps_equal_the_single_environment_decision_by_decision(settings: dict, num_envs: int,
                                                                  steps: int) -> None:  # fmt: skip
    prefer = TRASH_PROVINCES if "remodel" in settings.get("kingdom", "") else None
    finished, unreachable = check_against_engine(steps, num_envs, seed=num_envs, prefer=prefer, **settings)
    assert finished >= num_envs * 2  # every sub-environment crossed autoresets
    if settings.get("turn_limit") == 1:
        assert finished > num_envs * DEALS_AHEAD
    if prefer is not None:
        assert unreachable > 0


def test_make_vec_returns_the_native_environment_with_the_ids_settings() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=3, kingdom="smithy", target=2)  # the default mode for this id
    assert isinstance(envs, DominionSolitaireVectorEnv) and envs.num_envs == 3
    assert envs.kingdom == (R.SMITHY,) and envs.target == 2 and envs.turn_limit == 60
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, 205) and obs.dtype == np.float32 and envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, 18) and info["action_mask"].dtype == np.int8
    assert np.array_equal(envs.action_masks(), info["action_mask"].astype(bool))
    assert list(info["decision"]) == ["buy"] * 3  # no starting hand holds a Smithy
    assert list(info["deal"]) == ["", "", ""]  # hidden until the game ends


def test_seed_s_gives_sub_environment_i_the_deals_of_the_single_environment_with_seed_s_plus_i() -> None:
    envs = DominionSolitaireVectorEnv(num_envs=4, turn_limit=1, reveal_deal=True)
    _, info = envs.reset(seed=10)
    deals = [list(info["deal"])]
    rng = np.random.default_rng(0)
    for _ in range(3):  # three more games each: one turn and the autoreset step
        for _ in range(2):
            *_, info = envs.step(random_legal_batch(envs.action_masks(), rng))
        deals.append(list(info["deal"]))
    for i in range(4):
        single = DominionSolitaireEnv(reveal_deal=True)
        expected = [single.reset(seed=10 + i)[1]["deal"]] + [single.reset()[1]["deal"] for _ in range(3)]
        assert [game[i] for game in deals] == expected
    # A list of seeds gives one to each; reset without a seed goes on with each generator's next deal.
    _, info = envs.reset(seed=[5, 6, 7, 8])
    _, again = envs.reset()
    single = DominionSolitaireEnv(reveal_deal=True)
    assert list(info["deal"])[1] == single.reset(seed=6)[1]["deal"]
    assert list(again["deal"])[1] == single.reset()[1]["deal"]


def test_a_given_deal_leaves_the_generators_deals_untouched() -> None:
    envs = DominionSolitaireVectorEnv(num_envs=2, reveal_deal=True)
    envs.reset(seed=3)
    _, info = envs.reset(options={"deal": "18446744073709551615"})  # the largest seed
    assert list(info["deal"]) == ["18446744073709551615"] * 2
    single = DominionSolitaireEnv()
    single.reset(options={"deal": 2**64 - 1})
    assert envs.position(1).draw == single.state.draw and envs.position(1).hand == single.state.hand
    _, info = envs.reset(options={"deal": [7, "8"]})
    assert list(info["deal"]) == ["7", "8"]
    _, info = envs.reset()
    single = DominionSolitaireEnv(reveal_deal=True)
    single.reset(seed=4)
    assert info["deal"][1] == single.reset()[1]["deal"]


@pytest.mark.parametrize("suite", SUITES, ids=[p.stem for p in SUITES])
def test_the_suites_plans_score_their_recorded_result(suite: Path) -> None:
    data = json.loads(suite.read_text())
    entries = data["entries"]
    envs = DominionSolitaireVectorEnv(num_envs=len(entries), **data["meta"]["env_kwargs"])
    _, info = envs.reset(seed=[e["seed"] for e in entries])
    assert [envs.position(i).seed for i in range(len(entries))] == [int(e["deal"]) for e in entries]
    returns = np.zeros(len(entries))
    scores = np.zeros(len(entries))
    steps = max(len(e["plan"]) for e in entries)
    for t in range(steps):
        # A finished game's next steps start and play another deal: any legal action will do there.
        actions = envs.action_masks().argmax(axis=1)
        playing = [i for i, e in enumerate(entries) if t < len(e["plan"])]
        actions[playing] = [entries[i]["plan"][t] for i in playing]
        _, rewards, terminated, truncated, info = envs.step(actions)
        returns[playing] += rewards[playing]
        last = [i for i in playing if t == len(entries[i]["plan"]) - 1]
        assert terminated[last].all() and not truncated[last].any()
        assert list(info["deal"][last]) == [entries[i]["deal"] for i in last]
        scores[last] = info["score"][last]
    assert np.array_equal(returns, [e["score"] for e in entries])
    assert np.array_equal(scores, returns)


def test_autoreset_starts_the_next_deal_on_the_step_after_the_end() -> None:
    envs = DominionSolitaireVectorEnv(num_envs=2, turn_limit=2)
    envs.reset(seed=0)
    for _ in range(2):
        obs, rewards, terminated, truncated, info = envs.step(np.full(2, R.PASS))
    assert truncated.all() and not terminated.any() and rewards.tolist() == [-1.0, -1.0]
    assert not info["action_mask"].any() and list(info["decision"]) == ["game_over"] * 2
    assert (info["score"] == -2).all() and all(info["deal"])  # the deal is shown at the end
    assert envs.action_masks().all()  # the next step ignores the action: any one will do
    obs, rewards, terminated, truncated, info = envs.step(np.array([R.PROVINCE, 0]))
    assert not (terminated | truncated).any() and not rewards.any()
    assert (info["turns"] == 0).all() and list(info["deal"]) == ["", ""]
    assert info["action_mask"][:, R.PASS].all()


def test_vector_action_masks_wraps_it_as_it_wraps_gymnasiums_own() -> None:
    # 12 steps: several games, autoresets included.
    check_vector_action_masks(DominionSolitaireVectorEnv(num_envs=3, turn_limit=2), ENV_ID, 12, turn_limit=2)


def test_bad_input_is_refused_naming_the_sub_environment() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        DominionSolitaireVectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="unknown card .chapel"):
        gym.make_vec(ENV_ID, num_envs=2, kingdom="chapel")
    with pytest.raises(ValueError, match="target"):
        gym.make_vec(ENV_ID, num_envs=2, target=9)
    with pytest.raises(ValueError, match="money_reward"):
        gym.make_vec(ENV_ID, num_envs=2, money_reward=-1.0)
    with pytest.raises(ValueError, match="render_mode"):
        DominionSolitaireVectorEnv(num_envs=2, render_mode="ansi")
    envs = DominionSolitaireVectorEnv(num_envs=3)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(3, dtype=int))
    envs.reset(seed=0)
    before = envs.action_masks()
    assert before[:, R.PROVINCE].sum() == 0  # no starting hand has $8
    with pytest.raises(IllegalActionError, match=r"action 5 \(in sub-environment 1: Province costs \$8 and"):
        envs.step(np.array([R.PASS, R.PROVINCE, R.PASS]))
    with pytest.raises(
        IllegalActionError, match=r"action 12 \(in sub-environment 0: Moat is not in this game"
    ):
        envs.step(np.array([R.MOAT, R.PASS, R.PASS]))
    with pytest.raises(
        IllegalActionError, match=r"illegal action 18 \(in sub-environment 2: actions are card"
    ):
        envs.step(np.array([R.PASS, R.PASS, 18]))
    with pytest.raises(IllegalActionError, match="integers"):
        envs.step(np.array([17.0, 17.0, 17.0]))
    with pytest.raises(ValueError, match="3 actions"):
        envs.step(np.array([R.PASS, R.PASS]))
    assert np.array_equal(envs.action_masks(), before)  # a refused batch moved no sub-environment
    _, rewards, _, _, info = envs.step(np.full(3, R.PASS))
    assert rewards.tolist() == [-1.0] * 3 and (info["turns"] == 1).all()
    with pytest.raises(ValueError, match="expected 3 deals"):
        envs.reset(options={"deal": [1]})
    with pytest.raises(ValueError, match="decimal integer"):
        envs.reset(options={"deal": "x"})
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"deals": 1})
    with pytest.raises(ValueError, match="expected 3 seeds"):
        envs.reset(seed=[1, 2])


def test_a_pickled_environment_goes_on_as_the_original() -> None:
    envs = DominionSolitaireVectorEnv(num_envs=3, kingdom="smithy", turn_limit=10)
    check_vector_pickle(envs, before=40, after=60)


def test_bench_vector_reports_the_vector_rate_beside_the_single_environment_and_cartpole(tmp_path) -> None:
    report = check_vector_bench("dominion", tmp_path, 64, 1000, 100, "--target", "2")
    assert report["vector_num_envs"] == 64 and report["vector_steps_per_run"] == 960
    assert report["vector_runs"] == 3 and report["target"] == 2


if __name__ == "__main__":
    import time

    total = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    start = time.perf_counter()
    runs = [
        ({}, 16, total * 4 // 10),
        ({"kingdom": "smithy"}, 16, total * 3 // 10),
        (
            {"kingdom": "first-game", "turn_limit": 30, "province_reward": 1.0, "money_reward": 0.5},
            8,
            total // 5,
        ),
        ({"kingdom": "remodel,mine,workshop,cellar", "target": 8, "turn_limit": 40}, 8, total // 10),
    ]
    steps = games = ended = 0
    for seed, (settings, num_envs, count) in enumerate(runs):
        prefer = TRASH_PROVINCES if "remodel" in settings.get("kingdom", "") else None
        finished, unreachable = check_against_engine(count, num_envs, seed, prefer, **settings)
        steps += count // num_envs * num_envs
        games += finished
        ended += unreachable
    print(
        f"{steps:,} sub-environment steps equal, {games:,} games ({ended} ended by an unreachable "
        f"target), {time.perf_counter() - start:.1f} s"
    )

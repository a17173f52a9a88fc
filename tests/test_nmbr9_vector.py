"""The native vector environment of Nmbr9 (``envs/nmbr9/vector.py``) against the engine.

Its kernel is a second implementation of the rules, so it is checked move by move against
``SyncVectorEnv`` of the single environment (which steps the engine): observations, rewards,
terminations, truncations and every info, autoresets included. The test runs about 7,000
sub-environment steps over five settings (the standard game, small boards where cards are discarded,
a level limit, the largest grid, one-card games past the block of drawn deals);
``python tests/test_nmbr9_vector.py 100000`` runs the same check on 100,000.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import IllegalActionError, InvalidDealError
from tabletop_gym.envs.nmbr9.env import Nmbr9Env
from tabletop_gym.envs.nmbr9.rules import encode_action
from tabletop_gym.envs.nmbr9.vector import DEALS_AHEAD, Nmbr9VectorEnv
from tabletop_gym.testing import (
    check_vector_action_masks,
    check_vector_bench,
    check_vector_pickle,
    random_legal_batch,
    vector_steps_against_sync,
)

ENV_ID = "tabletop/Nmbr9-v0"
SUITES = sorted((Path(tabletop_gym.__file__).parent / "suites" / "data").glob("nmbr9-*.json"))
# (settings, sub-environments, sub-environment steps): the standard game; 8 cards on 6x6 with 3 levels
# and 15 cards of 0-4 on 5x5 (cards discarded, stacks several levels high); the 64-cell rows of the
# largest grid; one-card games, which use up a block of drawn deals.
SETTINGS = [
    ({}, 4, 1_600),
    ({"cards": 8, "grid": 6, "levels": 3}, 4, 1_600),
    ({"max_value": 4, "copies": 3, "cards": 15, "grid": 5}, 4, 1_600),
    ({"cards": 4, "grid": 64}, 2, 80),
    ({"max_value": 2, "copies": 1, "cards": 1, "grid": 4}, 3, 2 * 3 * (DEALS_AHEAD + 6)),
]


def check_against_engine(steps: int, num_envs: int, seed: int, **settings) -> tuple[int, int]:
    """Step the native vector environment and ``SyncVectorEnv`` of the single environment with the
    same random legal actions for ``steps`` sub-environment steps; returns (games finished, cards
    discarded in them)."""
    finished = discarded = 0
    for *_, result, _ in vector_steps_against_sync(ENV_ID, num_envs, steps, seed, **settings):
        finished += int(result[2].sum())
        discarded += int(result[4]["discarded"][result[2]].sum())
    return finished, discarded


@pytest.mark.parametrize("settings, num_envs, steps", SETTINGS, ids=lambda x: str(x))
def test_steps_equal_the_single_environment_move_by_move(settings: dict, num_envs: int, steps: int) -> None:
    finished, discarded = check_against_engine(steps, num_envs, seed=len(settings), **settings)
    assert finished >= num_envs * 2  # every sub-environment crossed autoresets
    if settings.get("grid", 20) <= 6 and settings.get("cards", 20) > 1:
        assert discarded > 0  # the rule that discards a card that fits nowhere was exercised
    if settings.get("cards") == 1:
        assert finished > num_envs * DEALS_AHEAD


def test_make_vec_returns_the_native_environment_with_the_ids_settings() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=3, cards=5, grid=7, levels=2)  # the default mode for this id
    assert isinstance(envs, Nmbr9VectorEnv) and envs.num_envs == 3
    assert (str(envs.variant), envs.grid, envs.levels) == ("9-2-5", 7, 2)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    assert obs["height"].shape == (3, 7, 7) and envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, 4 * 49) and info["action_mask"].dtype == np.int8
    assert np.array_equal(envs.action_masks(), info["action_mask"].astype(bool))
    assert envs.single_action_space == gym.spaces.Discrete(4 * 49)


def test_seed_s_gives_sub_environment_i_the_deals_of_the_single_environment_with_seed_s_plus_i() -> None:
    envs = Nmbr9VectorEnv(num_envs=4, cards=2, grid=6, reveal_deal=True)
    _, info = envs.reset(seed=10)
    deals = [list(info["deal"])]
    rng = np.random.default_rng(0)
    for _ in range(3):  # three more games each: 2 placements and the autoreset step
        for _ in range(3):
            *_, info = envs.step(random_legal_batch(envs.action_masks(), rng))
        deals.append(list(info["deal"]))
    for i in range(4):
        single = Nmbr9Env(cards=2, grid=6, reveal_deal=True)
        expected = [single.reset(seed=10 + i)[1]["deal"]] + [single.reset()[1]["deal"] for _ in range(3)]
        assert [game[i] for game in deals] == expected
    # A list of seeds gives one to each; reset without a seed goes on with each generator's next deal.
    _, info = envs.reset(seed=[5, 6, 7, 8])
    _, again = envs.reset()
    single = Nmbr9Env(cards=2, grid=6, reveal_deal=True)
    assert list(info["deal"])[1] == single.reset(seed=6)[1]["deal"]
    assert list(again["deal"])[1] == single.reset()[1]["deal"]


def test_the_deal_is_shown_only_once_the_game_is_over_unless_revealed() -> None:
    envs = Nmbr9VectorEnv(num_envs=2, cards=3, grid=10)
    _, info = envs.reset(options={"deal": ["123", "456"]})
    assert list(info["deal"]) == ["", ""]
    for _ in range(3):
        *_, terminated, _, info = envs.step(random_legal_batch(envs.action_masks(), np.random.default_rng(1)))
    assert terminated.all() and list(info["deal"]) == ["123", "456"]


def test_a_given_deal_leaves_the_generators_deals_untouched() -> None:
    envs = Nmbr9VectorEnv(num_envs=2, reveal_deal=True)
    envs.reset(seed=3)
    deal = "90817263540918273645"
    _, info = envs.reset(options={"deal": deal})
    assert list(info["deal"]) == [deal, deal] and (info["turn"] == 0).all()
    _, info = envs.reset()
    single = Nmbr9Env(reveal_deal=True)
    single.reset(seed=4)
    assert info["deal"][1] == single.reset()[1]["deal"]


@pytest.mark.parametrize("suite", SUITES, ids=[p.stem for p in SUITES])
def test_the_suites_plans_score_their_recorded_scores(suite: Path) -> None:
    data = json.loads(suite.read_text())
    entries = data["entries"]
    envs = Nmbr9VectorEnv(num_envs=len(entries), reveal_deal=True, **data["meta"]["env_kwargs"])
    _, info = envs.reset(seed=[e["seed"] for e in entries])
    assert list(info["deal"]) == [e["deal"] for e in entries]  # the suite's deals are reset(seed=s)'s
    plans = [e["plan"] for e in entries]
    returns = np.zeros(len(entries))
    over = np.zeros(len(entries), dtype=bool)
    for t in range(max(map(len, plans))):
        # A plan shorter than the deal (cards discarded) has ended: its game waits for its autoreset.
        actions = [plan[t] if t < len(plan) else 0 for plan in plans]
        _, rewards, terminated, _, info = envs.step(np.array(actions))
        returns += np.where(over, 0.0, rewards)
        over |= terminated
        if over.all():
            break
    assert over.all()
    assert np.array_equal(returns, [e["score"] for e in entries])


def test_autoreset_starts_the_next_deal_on_the_step_after_the_last_card() -> None:
    envs = Nmbr9VectorEnv(num_envs=2, cards=2, grid=10)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(2):
        obs, rewards, terminated, _, info = envs.step(random_legal_batch(envs.action_masks(), rng))
    assert terminated.all() and not info["action_mask"].any() and (info["turn"] == 2).all()
    assert (obs["card"] == -1).all() and (obs["cards_left"] == 0).all()
    assert envs.action_masks().all()  # the next step ignores the action: any one will do
    obs, rewards, terminated, _, info = envs.step(np.array([399, 399]))
    assert not terminated.any() and not rewards.any()
    assert (info["turn"] == 0).all() and (info["score"] == 0).all() and info["action_mask"].any(axis=1).all()
    assert not obs["height"].any() and (obs["top_tile"] == -1).all() and (obs["cards_left"] == 1).all()


def test_what_a_caller_keeps_is_never_overwritten_by_later_steps() -> None:
    """The returned arrays are reused once dropped (``core.ReturnedArrays``): kept ones, or views of
    them, must stay as they were returned, across autoresets."""
    envs = Nmbr9VectorEnv(num_envs=3, cards=3, grid=6)
    rng = np.random.default_rng(2)
    obs, info = envs.reset(seed=2)
    kept = [(obs, info["action_mask"], None)]
    for t in range(12):
        masks = envs.action_masks()
        obs, _, _, _, info = envs.step(random_legal_batch(masks, rng))
        if t % 2:  # every other step is dropped, so its arrays are reused
            kept.append((obs, info["action_mask"][1:], masks))
    copies = [copy.deepcopy(k) for k in kept]
    for _ in range(12):
        envs.step(random_legal_batch(envs.action_masks(), rng))
    for (obs, mask, masks), (obs_then, mask_then, masks_then) in zip(kept, copies, strict=True):
        assert all(np.array_equal(obs[key], obs_then[key]) for key in obs)
        assert np.array_equal(mask, mask_then) and (masks is None or np.array_equal(masks, masks_then))


def test_vector_action_masks_wraps_it_as_it_wraps_gymnasiums_own() -> None:
    settings = {"cards": 2, "grid": 5}
    # 9 steps: three games and more, autoresets included.
    check_vector_action_masks(Nmbr9VectorEnv(num_envs=3, **settings), ENV_ID, 9, **settings)


def test_bad_input_is_refused_naming_the_sub_environment() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        Nmbr9VectorEnv(num_envs=0)
    with pytest.raises(ValueError, match="grid"):
        gym.make_vec(ENV_ID, num_envs=2, grid=3)
    with pytest.raises(ValueError, match="cards"):
        gym.make_vec(ENV_ID, num_envs=2, cards=21)
    with pytest.raises(ValueError, match="render_mode must be None"):
        Nmbr9VectorEnv(num_envs=2, render_mode="ansi")
    envs = Nmbr9VectorEnv(num_envs=3, cards=3, grid=6)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(3, dtype=int))
    envs.reset(options={"deal": "110"})
    one = encode_action(0, 0, 0, 6)  # the 1 upright in the top-left corner
    envs.step(np.full(3, one))
    before = envs.action_masks()
    beside = encode_action(0, 0, 2, 6)  # the second 1 beside the first, on the table
    assert before[:, beside].all()
    # On the first 1 exactly: level 1, but resting on one tile only.
    with pytest.raises(
        IllegalActionError, match=r"illegal action 0 \(in sub-environment 1: a tile on level 1"
    ):
        envs.step(np.array([beside, 0, beside]))
    far = encode_action(0, 2, 4, 6)  # on the table, touching nothing
    with pytest.raises(
        IllegalActionError, match=rf"action {far} \(in sub-environment 2: the tile must share"
    ):
        envs.step(np.array([beside, beside, far]))
    with pytest.raises(IllegalActionError, match=r"action 144 \(in sub-environment 0: not an action index"):
        envs.step(np.array([144, beside, beside]))
    with pytest.raises(IllegalActionError, match="integers"):
        envs.step(np.array([1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="3 actions"):
        envs.step(np.array([beside, beside]))
    assert np.array_equal(envs.action_masks(), before)  # a refused batch moved no sub-environment
    _, rewards, terminated, _, info = envs.step(np.full(3, beside))
    # The 0 fits nowhere beside the two 1s on this board: it is discarded and the game is over.
    assert terminated.all() and (info["discarded"] == 1).all() and not rewards.any()
    with pytest.raises(ValueError, match="expected 3 deals"):
        envs.reset(options={"deal": ["110"]})
    with pytest.raises(InvalidDealError, match="2 cards"):
        envs.reset(options={"deal": "11"})
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"deals": "110"})
    with pytest.raises(ValueError, match="expected 3 seeds"):
        envs.reset(seed=[1, 2])


def test_a_pickled_environment_goes_on_as_the_original() -> None:
    envs = Nmbr9VectorEnv(num_envs=3)
    check_vector_pickle(envs, before=30, after=30)


def test_bench_vector_reports_the_vector_rate_beside_the_single_environment_and_cartpole(tmp_path) -> None:
    report = check_vector_bench("nmbr9", tmp_path, 16, 200, 20)
    assert report["vector_steps_per_run"] == 192


def test_random_legal_actions_draws_every_legal_action_and_only_them() -> None:
    from tabletop_gym.training.random_actions import random_legal_actions

    masks = np.zeros((2, 1600), dtype=bool)
    masks[0, [3, 700, 1599]] = True
    masks[1, 42] = True
    rng = np.random.default_rng(0)
    drawn = np.array([random_legal_actions(masks, rng) for _ in range(300)])
    assert set(drawn[:, 0]) == {3, 700, 1599} and set(drawn[:, 1]) == {42}


def test_random_legal_actions_draw_the_nth_legal_action_for_one_uniform_a_row() -> None:
    """Rows counted eight actions a word (widths that are multiples of 8) and byte by byte (the
    others) draw alike: the n-th legal action, n = the uniform times the legal count."""
    from tabletop_gym.training.random_actions import random_legal_actions

    rng = np.random.default_rng(5)
    for width in (8, 64, 72, 1600, 6400, 13, 1601):
        for density in (0.0, 0.01, 0.2, 1.0):
            masks = rng.random((40, width)) < density
            masks[::9] = False
            drawn = random_legal_actions(masks, np.random.default_rng(width))
            uniforms = np.random.default_rng(width).random(40)
            for row, action, u in zip(masks, drawn, uniforms, strict=True):
                legal = np.flatnonzero(row)
                expected = legal[min(int(u * legal.size), legal.size - 1)] if legal.size else 0
                assert action == expected, (width, density)


if __name__ == "__main__":
    import time

    total = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    start = time.perf_counter()
    shares = [(s, n, steps / sum(x[2] for x in SETTINGS)) for s, n, steps in SETTINGS]
    games = discards = done = 0
    for seed, (settings, num_envs, share) in enumerate(shares):
        steps = int(total * share) // num_envs * num_envs
        finished, discarded = check_against_engine(steps, num_envs, seed, **settings)
        games, discards, done = games + finished, discards + discarded, done + steps
    print(
        f"{done:,} sub-environment steps equal, {games:,} games, {discards:,} cards discarded, "
        f"{time.perf_counter() - start:.1f} s"
    )

"""The War environment: Gymnasium API, masks, observations, seeding, errors, rendering."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.war.env import WarEnv
from tabletop_gym.envs.war.rules import WarGame, parse_deal, random_deal, replay


@pytest.mark.parametrize("observation", ["full", "hidden"])
def test_check_env_two_ranks(observation: str) -> None:
    # check_env steps with actions sampled before a reset; with two ranks every pickup decision
    # allows both ranks, so the checker's unmasked samples are legal and the check is complete.
    check_env(WarEnv(ranks=2, suits=13, observation=observation, render_mode="ansi"))


@pytest.mark.parametrize("observation", ["full", "hidden"])
def test_check_env_full_deck(observation: str) -> None:
    # The shared LegalActionSpace samples a legal rank, also for the checker's seeded sample.
    check_env(WarEnv(observation=observation, render_mode="ansi"))


def test_make_without_import_and_same_seed_same_episode() -> None:
    def run(seed: int) -> tuple[str, list[int], float]:
        env = gym.make("tabletop_gym:tabletop/War-v0", pickup="random")
        agent = RandomAgent(seed)
        obs, info = env.reset(seed=seed)
        actions = []
        done = False
        while not done:
            action = agent.act(obs, info)
            actions.append(action)
            obs, reward, term, trunc, info = env.step(action)
            done = term or trunc
        return info["deal"], actions, reward

    assert run(4) == run(4)
    assert run(4)[0] != run(5)[0]


def test_episode_matches_engine_replay() -> None:
    env = WarEnv(ranks=6, suits=2, face_down=1)
    agent = RandomAgent(1)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        actions, total = [], 0.0
        done = info["game_over"]
        while not done:
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            assert info["action_mask"].dtype == np.int8 and info["action_mask"].sum() >= 2
            assert env.observation_space.contains(obs)
            action = agent.act(obs, info)
            actions.append(action)
            obs, reward, term, trunc, info = env.step(action)
            total += reward
            done = term or trunc
        game = replay(env.rules, parse_deal(info["deal"], env.rules), actions)
        assert game.done and game.outcome(0) == total == info["score"] == info["result"]
        assert game.state.tricks == info["tricks"]


def test_full_observation_shows_piles_and_pot() -> None:
    env = WarEnv()
    obs, info = env.reset(seed=1)
    state = env.game.state
    n = 52
    assert list(obs[: len(state.piles[0])] - 1) == list(state.piles[0])
    assert obs[len(state.piles[0])] == 0
    assert list(obs[n : n + len(state.piles[1])] - 1) == list(state.piles[1])
    pot = obs[2 * n :]
    assert pot.sum() == sum(state.to_place.values()) == info["cards"] - len(state.piles[0])
    assert np.array_equal(pot > 0, info["action_mask"] > 0)


def test_hidden_observation_marks_only_placed_cards() -> None:
    env = WarEnv(ranks=4, suits=3, face_down=1, observation="hidden")
    obs, info = env.reset(seed=2)
    agent = RandomAgent(0)
    for _ in range(15):
        if info["game_over"]:
            break
        state = env.game.state
        pile = list(state.piles[0])
        dealt_left = max(0, 6 - state.turned[0])
        assert list(obs[:dealt_left]) == [1] * dealt_left
        assert list(obs[dealt_left : len(pile)] - 2) == pile[dealt_left:]
        assert obs[12] == len(state.piles[1])
        obs, _, term, trunc, info = env.step(agent.act(obs, info))
        if term or trunc:
            break


def test_horizon_scores_cards_held() -> None:
    env = WarEnv(horizon=10)
    _, info = env.reset(seed=0)
    agent = RandomAgent(0)
    done = False
    while not done:
        _, reward, term, trunc, info = env.step(agent.act(None, info))
        done = term or trunc
    assert info["tricks"] <= 10
    if trunc:
        assert info["tricks"] == 10
        assert info["score"] == info["cards"] == len(env.game.state.piles[0])
    else:
        assert info["score"] in (0, 52)


def test_illegal_action_and_finished_episode_raise() -> None:
    env = WarEnv()
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError) as err:
        env.step(illegal)
    assert err.value.action == illegal
    assert err.value.legal == [int(a) for a in np.flatnonzero(info["action_mask"])]
    with pytest.raises(IllegalActionError):
        env.step("two")
    small = WarEnv(ranks=3, suits=1)
    _, info = small.reset(options={"deal": "4/23"})  # 4 takes 2; player 1 still holds a 3
    assert list(info["action_mask"]) == [1, 0, 1]
    _, reward, term, trunc, info = small.step(2)  # the 4 comes up next and takes the 3
    assert (reward, term, trunc, info["result"], info["tricks"], info["score"]) == (
        1.0,
        True,
        False,
        1,
        2,
        1.0,
    )
    with pytest.raises(GameOverError):
        small.step(0)
    # Player 0 never has a choice on this deal: an episode that starts finished is refused.
    with pytest.raises(InvalidDealError, match="no pickup decision"):
        small.reset(options={"deal": "2/34"})


def test_deal_option_and_bad_input() -> None:
    env = WarEnv(ranks=3, suits=2)
    _, info = env.reset(options={"deal": "432/234"})
    assert info["deal"] == "432/234"
    with pytest.raises(InvalidDealError, match="holds rank"):
        env.reset(options={"deal": "444/223"})
    with pytest.raises(ValueError, match="observation"):
        WarEnv(observation="partial")
    with pytest.raises(InvalidDealError, match="pickup"):
        WarEnv(pickup="sorted")


def test_render_ansi() -> None:
    env = WarEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "your pile" in text and "pot still to place" in text
    assert WarEnv().render() is None


def _first_deal_has_no_decision(env: WarEnv, seed: int) -> bool:
    """True when the plain first deal of ``seed`` would give player 0 no decision."""
    return not WarGame(random_deal(seed, env.rules), env._engine_rules, controlled=0).awaiting


@pytest.mark.parametrize(
    "kwargs",
    [{"horizon": 3}, {"ranks": 6, "suits": 2}, {"horizon": 1}, {"ranks": 6, "suits": 2, "pickup": "random"}],
    ids=str,
)
def test_reset_always_starts_with_a_decision(kwargs: dict) -> None:
    # Before: 25 of 200 seeds with horizon 3 and 18 of 200 on the 12-card deck started finished
    # (all-zero mask), which crashed evaluate, train and vector environments.
    env = WarEnv(**kwargs)
    skipped = 0
    for seed in range(200):
        obs, info = env.reset(seed=seed)
        assert not info["game_over"] and env.has_position()
        assert info["action_mask"].sum() >= 2  # a real choice between ranks
        assert env.observation_space.contains(obs)
        assert info["action_mask"][int(env.action_space.sample())] == 1
        skipped += _first_deal_has_no_decision(env, seed)
    assert skipped > 0  # the redeal was exercised


def test_redeal_is_reproducible_from_the_seed() -> None:
    env = WarEnv(horizon=3)
    seed = next(s for s in range(200) if _first_deal_has_no_decision(env, s))
    deal = env.reset(seed=seed)[1]["deal"]
    assert deal != str(random_deal(seed, env.rules))
    assert WarEnv(horizon=3).reset(seed=seed)[1]["deal"] == deal
    # The deal reported is the deal played: given back as an option it plays the same episode.
    assert env.reset(options={"deal": deal})[1]["deal"] == deal
    assert "drawn again from the same seeded stream" in " ".join((WarEnv.__doc__ or "").split())


def test_rules_without_any_decision_raise_clearly() -> None:
    with pytest.raises(ValueError, match="never has a pickup decision"):
        WarEnv(ranks=2, suits=1)  # two cards: the first trick ends the game
    with pytest.raises(ValueError, match="never has a pickup decision"):
        WarEnv(ranks=1, suits=4)  # one rank: every pot holds one rank
    env = WarEnv(ranks=3, suits=1, horizon=1)  # player 1 holds one card: taking it wins at once
    with pytest.raises(ValueError, match=r"none of 1000 deals.*horizon=1"):
        env.reset(seed=0)


@pytest.mark.parametrize("kwargs", [{"horizon": 3}, {"ranks": 6, "suits": 2}], ids=str)
def test_vector_env_autoresets_into_decisions(kwargs: dict) -> None:
    envs = gym.vector.SyncVectorEnv([lambda: WarEnv(**kwargs) for _ in range(2)])
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    done = np.zeros(2, dtype=bool)
    resets = 0
    for _ in range(300):
        masks = info["action_mask"]
        # Every episode, the first included, starts at a decision; only a finished one has none.
        assert (masks[~done].sum(axis=1) >= 2).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        resets += int(done.sum())
        _, _, terminated, truncated, info = envs.step(actions)
        done = terminated | truncated
    assert resets > 10
    envs.close()


def test_numeric_arguments_accept_numpy_and_name_the_bad_one() -> None:
    env = WarEnv(ranks=np.int32(6), suits=np.int64(2), face_down=np.int8(1), horizon=np.int64(5))
    assert (env.rules.ranks, env.horizon) == (6, 5) and type(env.rules.ranks) is int
    assert env.reset(seed=0)[1]["action_mask"].sum() >= 2
    check_env(WarEnv(ranks=6, suits=2))
    for kwargs, name in [
        ({"horizon": 0}, "horizon"),
        ({"horizon": True}, "horizon"),
        ({"horizon": 2.0}, "horizon"),
        ({"horizon": float("nan")}, "horizon"),
        ({"ranks": 14}, "ranks"),
        ({"ranks": 6.0}, "ranks"),
        ({"suits": 0}, "suits"),
        ({"face_down": -1}, "face_down"),
        ({"max_tricks": 0}, "max_tricks"),
        ({"max_tricks": 10**7}, "max_tricks"),
    ]:
        with pytest.raises(ValueError, match=name):
            WarEnv(**kwargs)


def test_long_deal_errors_quote_a_bounded_prefix() -> None:
    env = WarEnv(ranks=3, suits=2)
    for deal in ("2" * 100_000 + "/3", "234/" + "x" * 100_000, "/".join(["2"] * 50_000)):
        with pytest.raises(InvalidDealError) as err:
            env.reset(options={"deal": deal})
        assert len(str(err.value)) < 400


def _random_episode(env: gym.Env, seed: int) -> tuple[dict, list[float], list[dict], bool]:
    """One episode of random legal actions: the reset info, each step's reward and info, and
    whether it ended by truncation."""
    obs, first = env.reset(seed=seed)
    agent = RandomAgent(seed)
    info, rewards, infos = first, [], []
    done = truncated = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        rewards.append(reward)
        infos.append(info)
        done = terminated or truncated
    return first, rewards, infos, truncated


@pytest.mark.parametrize(
    "kwargs",
    [
        {"horizon": 26},
        {"horizon": 26, "observation": "hidden"},
        {"ranks": 6, "suits": 2, "horizon": 10},
        # Long enough for games to end before the horizon (won or lost: every card or none).
        {"ranks": 6, "suits": 2, "face_down": 1, "horizon": 60},
        # The trick limit below the horizon: truncated at max_tricks, still scored by cards held.
        {"ranks": 6, "suits": 2, "horizon": 50, "max_tricks": 7},
    ],
    ids=str,
)
def test_horizon_rewards_sum_to_score_minus_cards_at_reset(kwargs: dict) -> None:
    # Before: with a horizon the reward was the game's result, 0 on every step of a truncated
    # episode, while the score evaluated is the cards held: training saw no signal at all.
    env = gym.make("tabletop/War-v0", **kwargs)
    nonzero = steps = 0
    ends = set()
    for seed in range(12):
        first, rewards, infos, truncated = _random_episode(env, seed)
        final = infos[-1]
        assert sum(rewards) == final["score"] - first["cards"]
        # Step by step: the change in the cards held, as info reports them, read from the engine.
        cards = [first["cards"]] + [i["cards"] for i in infos]
        assert rewards == [float(b - a) for a, b in zip(cards[:-1], cards[1:], strict=True)]
        assert all(isinstance(r, float) for r in rewards)
        assert final["score"] == final["cards"]
        nonzero += sum(r != 0 for r in rewards)
        steps += len(rewards)
        ends.add("truncated" if truncated else final["result"])
    assert nonzero > steps // 4  # a signal on most steps, not only at the end
    if kwargs["horizon"] == 60:
        assert ends & {1, -1}  # games won or lost before the horizon were covered


def test_horizon_reward_on_a_scripted_deal() -> None:
    # A game won before the horizon: the last reward takes the cards held to every card.
    env = WarEnv(ranks=3, suits=1, horizon=5)
    _, info = env.reset(options={"deal": "4/23"})  # 4 takes 2; player 1 still holds a 3
    assert info["cards"] == 2
    _, reward, term, trunc, info = env.step(2)  # the 4 comes up next and takes the 3: a win
    assert (reward, term, trunc, info["result"], info["score"]) == (1.0, True, False, 1, 3.0)
    _, info = env.reset(options={"deal": "4/23"})
    # The 2 first: it loses to the 3, then the 4 takes the 3 back: two cards before and after.
    _, reward, term, trunc, info = env.step(0)
    assert (reward, term, trunc, info["cards"], info["tricks"]) == (0.0, False, False, 2, 3)
    _, reward, term, trunc, info = env.step(1)  # the 3 on top takes player 1's last card, the 2
    assert (reward, term, trunc, info["result"], info["score"]) == (1.0, True, False, 1, 3.0)
    # A game lost before the horizon: the last step takes every card held away, not just 1.
    deal = "3344/2552"  # the 3 takes the 2: player 0 holds 5 cards at the first decision
    rewards = {}
    for horizon in (40, None):
        env = WarEnv(ranks=4, suits=2, face_down=1, horizon=horizon)
        _, info = env.reset(options={"deal": deal})
        assert info["cards"] == 5
        rewards[horizon] = [env.step(0)[1], env.step(0)[1]]
        assert env.game.done and env.game.outcome(0) == -1
    assert rewards == {40: [-1.0, -4.0], None: [0.0, -1.0]}


def test_whole_game_reward_is_the_result_only_at_the_end() -> None:
    # Without a horizon: 0 on every step but the last, which is the result (+1/-1/0), and 0 when the
    # episode is truncated at max_tricks however the cards moved.
    for kwargs in ({"ranks": 6, "suits": 2}, {"ranks": 6, "suits": 2, "face_down": 1}):
        env = gym.make("tabletop/War-v0", **kwargs)
        results = set()
        for seed in range(10):
            _, rewards, infos, truncated = _random_episode(env, seed)
            assert all(r == 0.0 for r in rewards[:-1])
            assert rewards[-1] == infos[-1]["result"] == infos[-1]["score"]
            results.add(infos[-1]["result"])
        assert results & {1, -1}
    env = gym.make("tabletop/War-v0", ranks=6, suits=2, max_tricks=7)
    moved = False
    for seed in range(10):
        first, rewards, infos, truncated = _random_episode(env, seed)
        if truncated:
            assert rewards == [0.0] * len(rewards) and infos[-1]["score"] == 0.0
            moved |= infos[-1]["cards"] != first["cards"]
    assert moved  # cards changed hands in a truncated episode, and no reward followed them


def test_a_step_after_the_end_says_how_the_episode_ended() -> None:
    env = gym.make("tabletop/War-v0", ranks=6, suits=2, horizon=5).unwrapped
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    with pytest.raises(GameOverError, match="stopped at the horizon of 5 tricks"):
        env.step(0)
    small = WarEnv(ranks=3, suits=1)
    small.reset(options={"deal": "4/23"})
    small.step(2)
    with pytest.raises(GameOverError, match="you won"):
        small.step(0)

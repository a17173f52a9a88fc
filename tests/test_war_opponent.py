"""War-v0 with an Agent as player 1: it orders the pots it wins from its own observation, in place of
the rules' pickup convention."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym import testing
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.policy import PolicyAgent
from tabletop_gym.agents.war import ConventionAgent
from tabletop_gym.core import IllegalActionError
from tabletop_gym.envs.war.env import WarEnv

SMALL = {"ranks": 6, "suits": 2, "face_down": 1, "max_tricks": 300}


class HighestRank:
    """Puts the highest rank of the pot under its pile first: the ``high_first`` convention."""

    name = "highest"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return int(np.flatnonzero(info["action_mask"])[-1])


class Recording:
    """An agent that keeps every observation and mask it is given, and checks its own moves."""

    name = "recording"

    def __init__(self, agent: Any) -> None:
        self.agent, self.seen = agent, []

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        action = self.agent.act(observation, info)
        assert info["action_mask"].dtype == np.int8 and info["action_mask"][action] == 1
        self.seen.append((observation.copy(), info["action_mask"].copy()))
        return action


def _episode(env: WarEnv, seed: int, mode: str = "first") -> list[tuple[Any, ...]]:
    """Every step's observation, reward, ends and info (the deal aside) of one episode where player 0
    plays the lowest (``first``) or a seeded random legal rank."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps: list[tuple[Any, ...]] = [(obs, None, False, False, info)]
    while not info["game_over"]:
        legal = np.flatnonzero(info["action_mask"])
        action = legal[0] if mode == "first" else rng.choice(legal)
        obs, reward, terminated, truncated, info = env.step(int(action))
        steps.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            break
    return steps


def _same(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> bool:
    def key(step: tuple[Any, ...]) -> tuple[Any, ...]:
        obs, reward, terminated, truncated, info = step
        return (obs.tolist(), reward, terminated, truncated,
                {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items() if k != "deal"})

    return [key(s) for s in a] == [key(s) for s in b]


@pytest.mark.parametrize("observation", ["full", "hidden"])
def test_an_agent_on_the_highest_rank_plays_exactly_high_first(observation: str) -> None:
    # The rules' pickup is set to another convention: only the agent can make player 1 play high_first.
    for seed in range(8):
        convention = WarEnv(**SMALL, pickup="high_first", observation=observation)
        agent = WarEnv(**SMALL, pickup="winner_first", observation=observation, opponent=HighestRank())
        mode = "first" if seed % 2 else "random"
        assert _same(_episode(convention, seed, mode), _episode(agent, seed, mode)), seed


@pytest.mark.parametrize("pickup", ["winner_first", "loser_first", "high_first"])
def test_the_convention_agent_from_seat_1_plays_its_convention(pickup: str) -> None:
    # ConventionAgent reads its own cards in row 0 of info["pots"]: seat 1 gets the pots from its side.
    other = "loser_first" if pickup == "winner_first" else "winner_first"
    for seed in range(6):
        convention = WarEnv(**SMALL, pickup=pickup)
        agent = WarEnv(**SMALL, pickup=other, opponent=ConventionAgent(pickup))
        assert _same(_episode(convention, seed, "random"), _episode(agent, seed, "random")), seed
    # And without the agent the other convention plays otherwise: the agent made the difference.
    assert not all(
        _same(_episode(WarEnv(**SMALL, pickup=pickup), s), _episode(WarEnv(**SMALL, pickup=other), s))
        for s in range(6)
    )


@pytest.mark.parametrize("observation", ["full", "hidden"])
def test_a_random_opponent_plays_legal_moves_to_the_end_and_the_seed_decides_all(observation: str) -> None:
    opponent = Recording(RandomAgent())
    env = WarEnv(**SMALL, observation=observation, opponent=opponent)
    plain = WarEnv(**SMALL, observation=observation, reveal_deal=True)
    for seed in range(10):
        steps = _episode(env, seed, "random")
        assert steps[-1][4]["game_over"] and (steps[-1][2] or steps[-1][3])
        assert _same(steps, _episode(env, seed, "random"))  # the same seed, the same episode
        # The same deal as without an opponent (deals where player 0 never chooses are skipped, and
        # with another player 1 another deal may be skipped: the first draw is the same).
        if steps[0][4]["tricks"] == 0:
            assert WarEnv(**SMALL, reveal_deal=True, opponent=RandomAgent()).reset(seed=seed)[1]["deal"] == (
                plain.reset(seed=seed)[1]["deal"]
            )
    assert len(opponent.seen) > 50
    assert all(env.observation_space.contains(obs) for obs, _ in opponent.seen)
    assert len({mask.tobytes() for _, mask in opponent.seen}) > 1


def test_the_opponent_sees_only_what_seat_1_may_see() -> None:
    # Hidden twins shuffle the cards nobody has turned yet among both piles: seat 1 sees none of them,
    # so its observation is the same in every twin, as player 0's is.
    env = WarEnv(**SMALL, observation="hidden", opponent=RandomAgent())
    rng = np.random.default_rng(0)
    compared = 0
    for seed in range(10):
        env.reset(seed=seed)
        while not env.game.done:
            for twin, _, _ in env.hidden_twins(rng):
                assert np.array_equal(twin._observation(seat=1), env._observation(seat=1))
                compared += 1
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert compared > 10
    # Under the full observation seat 1 sees both piles, its own first.
    env = WarEnv(**SMALL, opponent=RandomAgent())
    env.reset(seed=1)
    n = env.num_cards
    mine, theirs = env._observation(seat=1), env._observation()
    assert np.array_equal(mine[:n], theirs[n : 2 * n]) and np.array_equal(mine[n : 2 * n], theirs[:n])


class _HighestModel:
    """A stand-in for a trained MaskablePPO model: predicts the highest rank the mask allows."""

    def predict(self, observation: Any, action_masks: Any = None, deterministic: bool = True) -> Any:
        return np.array(np.flatnonzero(action_masks)[-1]), None


def test_a_policy_agent_is_an_opponent() -> None:
    convention = WarEnv(**SMALL, pickup="high_first")
    policy = gym.make("tabletop/War-v0", **SMALL, opponent=PolicyAgent(_HighestModel())).unwrapped
    for seed in range(4):
        assert _same(_episode(convention, seed), _episode(policy, seed)), seed


def test_an_illegal_opponent_move_and_a_non_agent_are_refused() -> None:
    class Stubborn(HighestRank):
        def act(self, observation: Any, info: dict[str, Any]) -> int:
            return len(info["action_mask"])  # no rank of the deck

    env = WarEnv(**SMALL, opponent=Stubborn())
    with pytest.raises(IllegalActionError, match=r"the opponent \(player 1\) chose a rank not in its pot"):
        for seed in range(10):
            _episode(env, seed)
    with pytest.raises(TypeError, match="is not an Agent"):
        WarEnv(opponent=lambda observation, info: 0)


def test_the_contract_kit_passes_with_an_agent_opponent() -> None:
    kwargs = {"ranks": 6, "suits": 2, "observation": "hidden", "opponent": RandomAgent()}
    assert testing.check_hidden_information("tabletop/War-v0", kwargs) > 0
    testing.check_masks("tabletop/War-v0", kwargs)
    testing.check_pickle_and_deepcopy("tabletop/War-v0", kwargs)
    # As under the random convention, a random player 1 draws from the seed's stream after the deal:
    # the deal string given back plays the deal, not the seed's pickups.
    testing.check_seed_determinism("tabletop/War-v0", kwargs, replays_by_deal=False)

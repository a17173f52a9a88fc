"""Every environment id through the RL clients a user reaches for, at tiny sizes: Gymnasium's async
vector environment, TorchRL, tianshou, Minari and stable-baselines3 (design principle 9).

The wrappers of ``tabletop_gym.wrappers`` are tested here without any client; each client's test
fails, never skips, where that client is not installed (the ``[interop]`` extra, which ``make``
installs, so CI always tests them).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import GameOverError, IllegalActionError
from tabletop_gym.wrappers import (
    ActionMaskObservation,
    FlatObservation,
    UnmaskedPlay,
    VectorActionMasks,
    flatten_observation,
)


def _client(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        pytest.fail(f"{module} is missing: install the [interop] and [train] extras (make install): {error}")


# One tiny setting per environment id.
ENVS: list[tuple[str, dict[str, Any]]] = [
    ("tabletop/Cribbage-v0", {"pile_size": 4}),
    ("tabletop/War-v0", {"ranks": 6, "suits": 2}),
    ("tabletop/Dominion-v0", {"turn_limit": 6}),
    ("tabletop/DominionSolitaire-v0", {"target": 1, "turn_limit": 12}),
    ("tabletop/ModernArt-v0", {"rounds": 1}),
    # 10x10: random play lasts at least 5 placements (on 6x6 some end after 2), so TorchRL's
    # check_env_specs, which draws an action after its 3-step rollout, never draws from a finished game.
    ("tabletop/Nmbr9-v0", {"max_value": 3, "copies": 2, "cards": 6, "grid": 10}),
]
IDS = [env_id.split("/")[1] for env_id, _ in ENVS]


def test_every_environment_id_is_covered() -> None:
    assert {i for i in gym.registry if i.startswith("tabletop/")} == {env_id for env_id, _ in ENVS}


def _legal(mask: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# -- the wrappers on their own ---------------------------------------------------------------------


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_new_observation_forms_hold_the_default_observation_and_the_mask(env_id: str, kwargs: dict) -> None:
    # The same seeded game with and without the wrappers: the flat vector is the default observation
    # cast to float32, the mask entry is info's mask as bool, and both lie in their spaces.
    plain = gym.make(env_id, **kwargs)
    wrapped = ActionMaskObservation(FlatObservation(gym.make(env_id, **kwargs)))
    assert wrapped.observation_space["observation"].dtype == np.float32
    assert wrapped.observation_space["action_mask"].dtype == np.bool_
    rng = np.random.default_rng(0)
    obs, info = plain.reset(seed=3)
    form, form_info = wrapped.reset(seed=3)
    done = False
    while True:
        assert wrapped.observation_space.contains(form), env_id
        flat = form["observation"]
        assert flat.dtype == np.float32 and flat.ndim == 1
        assert np.array_equal(flat, flatten_observation(plain.observation_space, obs))
        assert np.array_equal(form["action_mask"], info["action_mask"].astype(bool))
        assert set(form_info) == set(info)
        if done:
            break
        action = _legal(info["action_mask"], rng)
        obs, _, terminated, truncated, info = plain.step(action)
        form, _, _, _, form_info = wrapped.step(action)
        done = terminated or truncated
    assert not form["action_mask"].any()  # nothing is legal once the episode is over


def test_the_flat_encoding_is_the_default_observation_in_order() -> None:
    # Nmbr9's Dict observation: key after key in the order of its space, each array row by row.
    env = gym.make("tabletop/Nmbr9-v0", max_value=3, copies=1, cards=4, grid=6)
    obs, _ = env.reset(seed=0)
    flat = FlatObservation(env).observation(obs)
    expected = np.concatenate([np.ravel(obs[key]) for key in env.observation_space.spaces])
    assert np.array_equal(flat, expected.astype(np.float32))
    space = FlatObservation(env).observation_space
    parts = env.observation_space.spaces.values()
    assert np.array_equal(space.low, np.concatenate([np.ravel(part.low) for part in parts]))
    assert np.array_equal(space.high, np.concatenate([np.ravel(part.high) for part in parts]))


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_unmasked_play_replaces_an_illegal_action_and_counts_it(env_id: str, kwargs: dict) -> None:
    env = UnmaskedPlay(gym.make(env_id, **kwargs))
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=0)
    assert (info["illegal_action"], info["illegal_actions"], info["played_action"]) == (False, 0, -1)
    illegal = 0
    done = False
    while not done:
        mask = env.action_masks()
        action = int(rng.integers(env.action_space.n))  # what an algorithm without masking does
        _, _, terminated, truncated, info = env.step(action)
        illegal += not mask[action]
        assert info["illegal_action"] == (not mask[action]) and info["illegal_actions"] == illegal
        assert mask[info["played_action"]] and (info["played_action"] == action) == bool(mask[action])
        done = terminated or truncated
    assert info["deal"]


def test_unmasked_play_replays_under_a_seed() -> None:
    def episode() -> list[int]:
        env = UnmaskedPlay(gym.make("tabletop/Nmbr9-v0", max_value=3, copies=1, cards=4, grid=6))
        _, info = env.reset(seed=5)
        played, done = [], False
        while not done:
            _, _, terminated, truncated, info = env.step(0)  # mostly illegal
            played.append(info["played_action"])
            done = terminated or truncated
        return played

    assert episode() == episode()


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_unmasked_play_can_end_the_episode_with_a_penalty(env_id: str, kwargs: dict) -> None:
    env = UnmaskedPlay(gym.make(env_id, **kwargs), on_illegal="end", penalty=-2.5)
    seed = 0
    _, first = env.reset(seed=seed)
    # A masked action where there is one (not at Cribbage's first card), else one past the last.
    illegal = [*np.flatnonzero(~env.action_masks()), env.action_space.n]
    _, reward, terminated, truncated, info = env.step(int(illegal[0]))
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] and info["illegal_actions"] == 1 and info["played_action"] == -1
    assert not info["action_mask"].any() and not env.action_masks().any()
    # The episode is over: its deal is shown, as on any last step, and it is the deal played.
    revealed = gym.make(env_id, reveal_deal=True, **kwargs)
    assert info["deal"] and info["deal"] == revealed.reset(seed=seed)[1]["deal"]
    with pytest.raises(GameOverError, match="call reset"):
        env.step(0)
    with pytest.raises(GameOverError, match="call reset"):  # the game itself refuses to go on too
        env.unwrapped.step(int(first["action_mask"].argmax()))
    _, info = env.reset(seed=seed)
    assert info["illegal_actions"] == 0 and (info["deal"] == "") == (first["deal"] == "")


def test_unmasked_play_refuses_unknown_modes() -> None:
    with pytest.raises(ValueError, match="on_illegal must be one of"):
        UnmaskedPlay(gym.make("tabletop/Cribbage-v0"), on_illegal="ignore")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_masks_and_samples_are_legal_at_every_step_autoreset_included(mode: str) -> None:
    # The Gymnasium default, next-step autoreset: the step after an episode's end only resets that
    # sub-environment. Its finished game has no legal action (info's mask is all zeros), so a loop
    # drawing from the mask would crash there; the wrapper's mask has a choice at every step.
    envs = VectorActionMasks(gym.make_vec("tabletop/Cribbage-v0", num_envs=2, vectorization_mode=mode,
                                          pile_size=2))
    try:
        rng = np.random.default_rng(0)
        _, info = envs.reset(seed=0)
        ended = 0
        for step in range(30):
            masks = envs.action_masks()
            assert masks.shape == (2, 4) and masks.dtype == np.bool_ and masks.any(axis=1).all()
            actions = envs.action_space.sample() if step % 2 else [_legal(m, rng) for m in masks]
            assert all(masks[i, a] for i, a in enumerate(actions))
            _, _, terminated, truncated, info = envs.step(actions)
            ended += int(np.sum(terminated | truncated))
        assert ended >= 4  # several autoresets were crossed
    finally:
        envs.close()


# -- Gymnasium's async vector environment ------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*IllegalActionError:UserWarning")  # the worker's traceback, logged
@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_async_vector_env_reports_an_illegal_action_intact(env_id: str, kwargs: dict) -> None:
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="async", **kwargs)
    try:
        envs.reset(seed=0)
        legal = [np.flatnonzero(m).tolist() for m in envs.call("action_masks")]
        n = int(envs.single_action_space.n)
        with pytest.raises(IllegalActionError, match=rf"illegal action {n} .*legal actions: \[") as error:
            envs.step(np.full(2, n))  # one past the last action: illegal everywhere
        assert error.value.action == n and error.value.legal in legal
    finally:
        envs.close(terminate=True)


# -- TorchRL -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_torchrl_env_specs_and_action_mask(env_id: str, kwargs: dict) -> None:
    _client("torchrl")
    import torch
    from torchrl.envs import GymWrapper, TransformedEnv
    from torchrl.envs.transforms import ActionMask
    from torchrl.envs.utils import check_env_specs

    torch.manual_seed(0)  # the transform's random actions: the same run every time
    base = ActionMaskObservation(FlatObservation(gym.make(env_id, **kwargs)))
    env = TransformedEnv(GymWrapper(base, categorical_action_encoding=True), ActionMask())
    env.set_seed(0)
    check_env_specs(env, break_when_any_done=False)  # past an episode end too (short episodes)
    rollout = env.rollout(12)  # random actions, drawn within the mask by the ActionMask transform
    actions = rollout["action"]
    assert rollout["action_mask"].dtype.is_floating_point is False
    assert bool(rollout["action_mask"][range(len(actions)), actions].all())


# -- tianshou ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_tianshou_buffer_holds_collected_steps(env_id: str, kwargs: dict) -> None:
    _client("tianshou")
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    def make() -> gym.Env:  # tianshou's masked policies read obs.obs and obs.mask
        return ActionMaskObservation(gym.make(env_id, **kwargs), observation_key="obs", mask_key="mask")

    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(make().action_space)
    buffer = VectorReplayBuffer(100, 2)
    collector = Collector(policy, envs, buffer)  # checks the buffer for NaNs (missing info keys)
    collector.reset()
    collector.collect(n_step=30)
    assert len(buffer) == 30
    batch = buffer[buffer.sample_indices(0)]  # every step stored, in both sub-buffers
    assert bool(batch.obs.mask[np.arange(30), batch.act].all())
    assert {"action_mask", "score", "deal"} <= set(batch.info.keys())
    assert batch.info.action_mask.shape == (30, make().action_space.n)


# -- Minari ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_minari_records_infos_and_loads_the_dataset(
    env_id: str, kwargs: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _client("minari")
    _client("jax")  # Minari's DataCollector needs it (minari[create])
    import minari
    from minari import DataCollector

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    env = DataCollector(ActionMaskObservation(gym.make(env_id, **kwargs)), record_infos=True)
    deals = []
    for seed in range(2):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(env.action_space.sample())  # legal samples
            done = terminated or truncated
        deals.append(info["deal"])
    name = f"tabletop/{env_id.split('/')[1].lower()}-test-v0"
    with pytest.warns(UserWarning):  # Minari asks for an author, a description...
        env.create_dataset(dataset_id=name, algorithm_name="random")
    dataset = minari.load_dataset(name)
    episodes = list(dataset.iterate_episodes())
    assert len(episodes) == 2
    for episode, deal in zip(episodes, deals, strict=True):
        last = episode.infos["deal"][-1]
        assert (last.decode() if isinstance(last, bytes) else last) == deal
        assert episode.infos["action_mask"].shape == (len(episode.actions) + 1, env.action_space.n)
    recovered = dataset.recover_environment()  # the wrapper stack, rebuilt from the spec
    assert isinstance(recovered, ActionMaskObservation)


# -- stable-baselines3 -------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_sb3_vec_normalize_takes_the_flat_observation(env_id: str, kwargs: dict) -> None:
    _client("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    venv = VecNormalize(DummyVecEnv([lambda: FlatObservation(gym.make(env_id, **kwargs))] * 2))
    venv.seed(0)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        masks = venv.env_method("action_masks")
        obs, _, _, _ = venv.step(np.array([_legal(m, rng) for m in masks]))
        assert obs.dtype == np.float32 and obs.shape == (2, *venv.observation_space.shape)
        assert np.all(np.abs(obs) <= venv.clip_obs)


@pytest.mark.parametrize("env_id, kwargs", ENVS, ids=IDS)
def test_sb3_dqn_learns_through_unmasked_play(env_id: str, kwargs: dict) -> None:
    _client("stable_baselines3")
    from stable_baselines3 import DQN

    env = UnmaskedPlay(FlatObservation(gym.make(env_id, **kwargs)))
    model = DQN("MlpPolicy", env, learning_starts=40, buffer_size=500, train_freq=8, batch_size=16,
                policy_kwargs={"net_arch": [16]}, seed=0, device="cpu")
    model.learn(total_timesteps=200)
    # The greedy policy knows nothing of masks: its illegal choices are replaced and counted.
    obs, info = env.reset(seed=0)
    for _ in range(20):
        mask = env.action_masks()
        action, _ = model.predict(obs, deterministic=True)
        obs, _, terminated, truncated, info = env.step(action)
        assert info["illegal_action"] == (not mask[int(action)])
        if terminated or truncated:
            obs, info = env.reset()


# -- Dominion takes any Agent as an opponent ---------------------------------------------------------


def test_dominion_takes_any_agent_as_an_opponent() -> None:
    seen = []

    class Recording(RandomAgent):
        def act(self, observation: Any, info: dict[str, Any]) -> int:
            seen.append((observation, info["action_mask"]))
            return super().act(observation, info)

    env = gym.make("tabletop/Dominion-v0", opponents=[Recording(), "big-money"], turn_limit=4)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(_legal(info["action_mask"], rng))
        done = terminated or truncated
    assert seen and all(obs.shape == env.observation_space.shape for obs, _ in seen)
    assert all(mask.dtype == np.int8 and mask.any() for _, mask in seen)


def test_dominion_names_an_opponents_illegal_action() -> None:
    class Stubborn(RandomAgent):
        def act(self, observation: Any, info: dict[str, Any]) -> int:
            return int(np.flatnonzero(np.asarray(info["action_mask"]) == 0)[0])

    env = gym.make("tabletop/Dominion-v0", opponents=Stubborn(), seat=1)
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.reset(seed=0)


# -- the examples of the docs' "Other RL libraries" page -----------------------------------------------

INTEROP_PAGE = Path(__file__).resolve().parents[1] / "docs" / "interop.md"
MARKER = "<!-- interop-example -->"


def _page_examples() -> list[str]:
    text = INTEROP_PAGE.read_text()
    return re.findall(re.escape(MARKER) + r"\s*```python\n(.*?)```", text, flags=re.S)


def test_the_interop_page_has_one_example_per_client() -> None:
    examples = _page_examples()
    for client in ("ActionMaskObservation", "torchrl", "tianshou", "minari", "VecNormalize", "DQN",
                   "VectorActionMasks", "make_vec"):
        assert any(client in code for code in examples), client


@pytest.mark.parametrize("index", range(len(_page_examples())))
def test_interop_page_example_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _page_examples()[index]
    for module in re.findall(r"^(?:from|import) (\w+)", code, flags=re.M):
        _client(module)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"docs/interop.md example {index}", "exec"), {"__name__": "interop_example"})

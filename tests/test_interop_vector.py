"""The native vector environments (``gym.make_vec`` through an id's ``vector_entry_point``) and the
RL clients that take Gymnasium vector environments.

TorchRL 0.14's ``GymWrapper`` takes a Gymnasium vector environment only under same-step or disabled
autoreset; the native environments autoreset on the next step (Gymnasium's default, which their
kernels implement), so TorchRL refuses them, and the path that works is Gymnasium's ``SyncVectorEnv``
of the single environments with autoreset disabled (TorchRL's preferred mode: it resets a finished
sub-environment itself). These tests pin both, and check that what TorchRL returns on that path is
what the native environment gives, sub-environment by sub-environment, episode after episode. RLlib
makes its vector environments with ``gym.make_vec`` under Gymnasium's ``DictInfoToList``, which is
checked over the native environments without RLlib (ray is too heavy for these tests). Like
``test_interop.py``, a client that is not installed fails the test, never skips it.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import NativeVectorEnv
from tabletop_gym.wrappers import ActionMaskObservation, FlatObservation, flatten_observation


def _client(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        pytest.fail(f"{module} is missing: install the [interop] extra (make install): {error}")


# The four ids with a native vector environment, each at a size whose random games end within a few
# dozen moves, so a short rollout crosses several episode ends in every sub-environment.
NATIVE: list[tuple[str, dict[str, Any]]] = [
    ("tabletop/Cribbage-v0", {"pile_size": 2}),
    ("tabletop/War-v0", {"ranks": 4, "suits": 2}),
    ("tabletop/Nmbr9-v0", {"max_value": 3, "copies": 1, "cards": 4, "grid": 10}),
    ("tabletop/DominionSolitaire-v0", {"target": 1, "turn_limit": 6}),
]
IDS = [env_id.split("/")[1] for env_id, _ in NATIVE]
NUM_ENVS = 3
STEPS = 30


def _native(env_id: str, kwargs: dict[str, Any], num_envs: int = NUM_ENVS) -> NativeVectorEnv:
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def test_every_native_vector_environment_is_covered() -> None:
    ours = {i: spec for i, spec in gym.registry.items() if i.startswith("tabletop/")}
    assert {i for i, spec in ours.items() if spec.vector_entry_point} == {env_id for env_id, _ in NATIVE}


@pytest.mark.parametrize("env_id, kwargs", NATIVE, ids=IDS)
def test_native_vector_env_states_its_autoreset_mode_as_gymnasiums_own_do(env_id: str, kwargs: dict) -> None:
    # SyncVectorEnv and AsyncVectorEnv give the mode as an attribute beside the metadata entry that
    # VectorEnv asks for; clients (TorchRL's GymWrapper) read the attribute.
    envs = _native(env_id, kwargs)
    assert isinstance(envs, NativeVectorEnv)
    assert envs.autoreset_mode is envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    sync = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync", **kwargs)
    assert envs.autoreset_mode is sync.autoreset_mode  # the same default as Gymnasium's
    sync.close()


@pytest.mark.parametrize("env_id, kwargs", NATIVE, ids=IDS)
def test_torchrl_refuses_next_step_autoreset(env_id: str, kwargs: dict) -> None:
    # docs/interop.md says so and gives the path below instead: if a TorchRL release starts taking
    # next-step autoreset, this fails and the page is to be updated.
    _client("torchrl")
    from torchrl.envs import GymWrapper

    with pytest.raises(RuntimeError, match=r"must be one of SAME_STEP or DISABLED .*NEXT_STEP"):
        GymWrapper(_native(env_id, kwargs), categorical_action_encoding=True)


def _sub_env(observation: Any, i: int) -> Any:
    """Sub-environment i's observation in a batched observation (Nmbr9's is a dict of arrays)."""
    if isinstance(observation, dict):
        return {key: value[i] for key, value in observation.items()}
    return observation[i]


@pytest.mark.parametrize("env_id, kwargs", NATIVE, ids=IDS)
def test_torchrl_rollout_of_the_sync_vector_env_equals_the_native_env(env_id: str, kwargs: dict) -> None:
    _client("torchrl")
    import torch
    from torchrl.envs import GymWrapper, TransformedEnv
    from torchrl.envs.transforms import ActionMask

    torch.manual_seed(0)  # the ActionMask transform's random legal actions
    sync = gym.make_vec(
        env_id, num_envs=NUM_ENVS, vectorization_mode="sync", **kwargs,
        wrappers=[FlatObservation, ActionMaskObservation],
        vector_kwargs={"autoreset_mode": AutoresetMode.DISABLED},
    )  # fmt: skip
    env = TransformedEnv(GymWrapper(sync, categorical_action_encoding=True), ActionMask())
    seed = 11
    start = env.reset(seed=seed)  # sub-environment i seeded with seed + i, as the native one is
    rollout = env.rollout(STEPS, auto_reset=False, tensordict=start, break_when_any_done=False)
    assert rollout.batch_size == (NUM_ENVS, STEPS)
    actions = rollout["action"].numpy()
    masks = rollout["action_mask"].numpy()
    # TorchRL's ActionMask transform takes a batched environment: every random action was legal.
    assert masks.dtype == np.bool_ and masks[*np.indices(actions.shape), actions].all()

    space = _native(env_id, kwargs, 1).single_observation_space
    for i in range(NUM_ENVS):
        # The native environment with sub-environment 0 seeded as TorchRL's sub-environment i, so
        # it can take its autoreset step (which ignores the action) whenever sub-environment i ends.
        native = _native(env_id, kwargs, 1)
        obs, info = native.reset(seed=seed + i)
        episodes = 0
        for t in range(STEPS):
            where = f"{env_id}, sub-environment {i}, step {t}"
            flat = flatten_observation(space, _sub_env(obs, 0))
            assert np.array_equal(rollout["observation"][i, t].numpy(), flat), where
            assert np.array_equal(masks[i, t], info["action_mask"][0].astype(bool)), where
            obs, reward, terminated, truncated, info = native.step([actions[i, t]])
            after = rollout["next"][i, t]
            flat = flatten_observation(space, _sub_env(obs, 0))
            assert np.array_equal(after["observation"].numpy(), flat), where
            assert np.array_equal(after["action_mask"].numpy(), info["action_mask"][0].astype(bool)), where
            assert float(after["reward"]) == np.float32(reward[0]), where
            ended = (bool(after["terminated"]), bool(after["truncated"]))
            assert ended == (terminated[0], truncated[0]), where
            if terminated[0] or truncated[0]:
                episodes += 1
                obs, _, _, _, info = native.step([0])  # the native autoreset: its next deal
        assert episodes >= 2, f"{env_id}: sub-environment {i} crossed {episodes} episode ends"
    env.close()


@pytest.mark.parametrize("env_id, kwargs", NATIVE, ids=IDS)
def test_dict_info_to_list_gives_each_sub_environment_the_single_environments_info(
    env_id: str, kwargs: dict
) -> None:
    # RLlib's env runner wraps what gym.make_vec returns in DictInfoToList (one info dict per
    # sub-environment); over the native environment, each is the single environment's info.
    from gymnasium.wrappers.vector import DictInfoToList

    envs = DictInfoToList(_native(env_id, kwargs))
    single = gym.make(env_id, **kwargs)
    _, infos = envs.reset(seed=5)
    rng = np.random.default_rng(0)
    for i, info in enumerate(infos):
        _, expected = single.reset(seed=5 + i)
        assert set(info) == set(expected)
        for key, value in expected.items():
            assert np.array_equal(info[key], value), (env_id, i, key)
    for _ in range(10):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in envs.unwrapped.action_masks()]
        _, _, _, _, infos = envs.step(actions)
        assert len(infos) == NUM_ENVS and all(set(info) == set(expected) for info in infos)

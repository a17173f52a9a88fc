"""What other RL libraries need, as opt-in Gymnasium wrappers: the mask in the observation, a flat
float32 observation, play without masking, and legal samples and masks from a vector environment.

Every environment of the package keeps its default observation and behaviour; these wrappers offer
the other forms on request, the same for every environment id::

    env = ActionMaskObservation(FlatObservation(gym.make("tabletop/Cribbage-v0")))
    envs = gym.make_vec("tabletop/War-v0", num_envs=4, vectorization_mode="sync", wrappers=[FlatObservation])

They are wrappers rather than environment arguments because that is how Gymnasium offers other
forms of an environment (``FlattenObservation``, ``DtypeObservation``), how ``gym.make_vec`` takes
them (``wrappers=[...]``), and how every client takes an environment (TorchRL's ``GymWrapper``,
tianshou's and RLlib's environment factories, Minari's ``DataCollector``). Each records its
arguments, so ``env.spec`` names it and ``gym.make(env.spec)`` (Minari's ``recover_environment``)
builds the same stack again.
"""

from __future__ import annotations

import weakref
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from tabletop_gym.core import GameOverError, check_float

__all__ = [
    "ActionMaskObservation",
    "FlatObservation",
    "UnmaskedPlay",
    "VectorActionMasks",
    "flatten_observation",
]


def _action_masks(env: gym.Env) -> np.ndarray:
    # The nearest wrapper's action_masks (UnmaskedPlay's after it ended an episode), else the game's.
    return np.asarray(env.get_wrapper_attr("action_masks")(), dtype=bool)


def _num_actions(env: gym.Env) -> int:
    space = env.action_space
    if not isinstance(space, spaces.Discrete):
        raise TypeError(f"expected an environment with a Discrete action space, got {space}")
    return int(space.n)


class ActionMaskObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The legal actions ride in the observation: ``{"observation": obs, "action_mask": mask}``.

    The convention of PettingZoo's classic games and RLlib's action-masking examples, which tianshou
    and TorchRL's ``ActionMask`` transform read too. ``action_mask`` is a bool ``Box(0, 1, (n,))``
    equal to ``info["action_mask"]`` (np.int8 there, kept as it is): after the last step of an
    episode no action is legal, and it is all False. ``observation_key`` and ``mask_key`` rename
    the two entries where a client reads other names (RLlib's action-masking module reads
    ``"observations"``, tianshou's masked policies ``"obs"`` and ``"mask"``), and ``mask_dtype`` gives
    the mask another dtype (``np.float32`` for models that take the mask's logarithm, as RLlib's
    action-masking module does). Nothing is added that ``info`` does not already give the player.
    """

    def __init__(
        self,
        env: gym.Env,
        observation_key: str = "observation",
        mask_key: str = "action_mask",
        mask_dtype: Any = "bool",
    ) -> None:
        # Recorded by name: env.spec must stay JSON (Minari stores it to rebuild the environment).
        gym.utils.RecordConstructorArgs.__init__(
            self, observation_key=observation_key, mask_key=mask_key, mask_dtype=np.dtype(mask_dtype).name
        )
        gym.ObservationWrapper.__init__(self, env)
        keys = (observation_key, mask_key)
        if not all(isinstance(key, str) for key in keys) or observation_key == mask_key:
            raise ValueError(f"observation_key and mask_key must be two different strings, got "
                             f"{observation_key!r} and {mask_key!r}")
        self.observation_key, self.mask_key = observation_key, mask_key
        self.mask_dtype = np.dtype(mask_dtype)
        n = _num_actions(env)
        self.observation_space = spaces.Dict(
            {observation_key: env.observation_space, mask_key: spaces.Box(0, 1, (n,), dtype=self.mask_dtype)}
        )

    def observation(self, observation: Any) -> dict[str, Any]:
        mask = _action_masks(self.env)
        return {self.observation_key: observation, self.mask_key: mask.astype(self.mask_dtype, copy=False)}

    def action_masks(self) -> np.ndarray:
        return _action_masks(self.env)


def flatten_observation(space: spaces.Space, observation: Any) -> np.ndarray:
    """``observation`` of ``space`` as the flat float32 vector ``FlatObservation`` gives."""
    if isinstance(space, spaces.Dict):
        parts = [flatten_observation(sub, observation[key]) for key, sub in space.spaces.items()]
        return np.concatenate(parts)
    if isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        return np.asarray(observation, dtype=np.float32).reshape(-1)
    raise TypeError(f"FlatObservation takes Box, MultiDiscrete, MultiBinary and Dict of them, not {space}")


def _flat_bounds(space: spaces.Space) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(space, spaces.Dict):
        parts = [_flat_bounds(sub) for sub in space.spaces.values()]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    if isinstance(space, spaces.Box):
        return space.low.astype(np.float32).reshape(-1), space.high.astype(np.float32).reshape(-1)
    if isinstance(space, spaces.MultiDiscrete):
        return (space.start.astype(np.float32).reshape(-1),
                (space.start + space.nvec - 1).astype(np.float32).reshape(-1))
    if isinstance(space, spaces.MultiBinary):
        shape = (int(np.prod(space.shape)),)
        return np.zeros(shape, np.float32), np.ones(shape, np.float32)
    raise TypeError(f"FlatObservation takes Box, MultiDiscrete, MultiBinary and Dict of them, not {space}")


class FlatObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """The observation as one flat float32 ``Box``, for default networks and normalizers.

    Encoding: the default observation's numbers, unchanged in value, cast to float32 and laid end to
    end in the order of its docstring (a ``Dict`` observation, Nmbr9's, key after key in the order of
    its space, each array row by row); the bounds are the default space's (a ``MultiDiscrete`` slot
    ``k`` of ``nvec[k]`` values lies in ``[0, nvec[k] - 1]``). So the slot tables of each environment's
    docstring still say what each entry means, and the vector holds exactly what the default
    observation holds. RLlib's default encoders, SB3's ``VecNormalize`` and torch's float layers take
    it; one-hot codes, where wanted, are Gymnasium's ``FlattenObservation`` on the default one.
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        low, high = _flat_bounds(env.observation_space)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        return flatten_observation(self.env.observation_space, observation)

    def action_masks(self) -> np.ndarray:
        return _action_masks(self.env)


ON_ILLEGAL = ("replace", "end")


class UnmaskedPlay(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Play without a mask, for algorithms that have none (DQN, plain PPO): an illegal action no
    longer raises.

    - ``on_illegal="replace"`` (default): a legal action drawn uniformly is played in its place (from
      the wrapper's own generator, seeded by ``reset(seed=...)``, so a seeded run replays exactly);
    - ``on_illegal="end"``: the episode ends there (``terminated``) with reward ``penalty`` (default
      -1); its info is that of a last step, the deal included, no action legal. Stepping on raises
      ``GameOverError`` until ``reset``.

    Never silently: every info (reset's included) holds ``illegal_action`` (bool: this step's action
    was illegal), ``illegal_actions`` (int: how many so far this episode) and ``played_action`` (int:
    the action the environment played, -1 at reset and where the episode was ended), so an agent's
    share of illegal choices can be logged and its episodes replayed. An action that is not an
    integer of the action space counts as illegal too.
    """

    def __init__(self, env: gym.Env, on_illegal: str = "replace", penalty: float = -1.0) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, on_illegal=on_illegal, penalty=penalty)
        gym.Wrapper.__init__(self, env)
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be one of {ON_ILLEGAL}, got {on_illegal!r}")
        self.on_illegal = on_illegal
        self.penalty = check_float("penalty", penalty)
        self._n = _num_actions(env)
        self._rng = np.random.default_rng()
        self._illegal = 0
        self._ended = False
        self._observation: Any = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        observation, info = self.env.reset(seed=seed, options=options)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._illegal, self._ended, self._observation = 0, False, observation
        return observation, self._count(info, False, -1)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._ended:
            raise GameOverError("the episode was ended by an illegal action; call reset()")
        mask = _action_masks(self.env)
        legal = self.env.action_space.contains(action) and bool(mask[int(action)])
        if legal:
            played = int(action)
        else:
            self._illegal += 1
            if self.on_illegal == "end":
                self._ended = True
                info = self.env.unwrapped.end_episode()
                return self._observation, self.penalty, True, False, self._count(info, True, -1)
            played = int(self._rng.choice(np.flatnonzero(mask)))
        observation, reward, terminated, truncated, info = self.env.step(played)
        self._observation = observation
        return observation, reward, terminated, truncated, self._count(info, not legal, played)

    def _count(self, info: dict[str, Any], illegal: bool, played: int) -> dict[str, Any]:
        info["illegal_action"] = illegal
        info["illegal_actions"] = self._illegal
        info["played_action"] = played
        return info

    def action_masks(self) -> np.ndarray:
        if self._ended:
            return np.zeros(self._n, dtype=bool)
        return _action_masks(self.env)


class _LegalBatchSpace(spaces.MultiDiscrete):
    """The vector action space whose unmasked ``sample()`` draws a legal action in every
    sub-environment (as each one's own ``action_space.sample()`` does)."""

    def __init__(self, nvec: np.ndarray, owner: VectorActionMasks) -> None:
        super().__init__(nvec)
        self._owner = weakref.ref(owner)

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        owner = self._owner() if self._owner is not None else None
        if mask is not None or probability is not None or owner is None:
            return super().sample(mask=mask, probability=probability)
        return super().sample(mask=tuple(m.astype(np.int8) for m in owner.action_masks()))

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_owner"] = None
        return state


class VectorActionMasks(VectorWrapper):
    """A vector environment of the package with masks for every step, reset steps included.

    ``action_masks()`` gives a ``(num_envs, n)`` bool array (what sb3-contrib and a masked sampling
    loop read), and ``action_space.sample()`` draws a legal action in every sub-environment (the
    batched space of ``gym.make_vec`` alone draws uniformly). Under Gymnasium's default next-step
    autoreset, the step after an episode's end only resets that sub-environment and ignores its
    action; the finished game has no legal action (``info["action_mask"]`` is all zeros there), so
    for that step every action is given as legal, and ``rng.choice(np.flatnonzero(mask))`` always
    has a choice. Under same-step autoreset the mask is the new episode's; with autoreset disabled,
    a finished sub-environment's mask stays all False until you reset it.
    """

    def __init__(self, env: VectorEnv) -> None:
        super().__init__(env)
        single = env.single_action_space
        if not isinstance(single, spaces.Discrete):
            raise TypeError(f"expected sub-environments with a Discrete action space, got {single}")
        self._n = int(single.n)
        self._resetting = np.zeros(env.num_envs, dtype=bool)
        self.action_space = _LegalBatchSpace(np.full(env.num_envs, self._n, dtype=np.int64), self)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        result = self.env.reset(seed=seed, options=options)
        reset_mask = (options or {}).get("reset_mask")
        if reset_mask is None:
            self._resetting[:] = False
        else:
            self._resetting[np.asarray(reset_mask, dtype=bool)] = False
        return result

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        mode = self.env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        if mode == AutoresetMode.NEXT_STEP:
            self._resetting = np.logical_or(terminations, truncations)
        return observations, rewards, terminations, truncations, infos

    def action_masks(self) -> np.ndarray:
        masks = np.array(self.env.call("action_masks"), dtype=bool).reshape(self.num_envs, self._n)
        masks[self._resetting] = True  # the autoreset step ignores the action: any one will do
        return masks

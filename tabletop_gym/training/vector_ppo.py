"""Masked PPO over a native vector environment (``gym.make_vec``'s ``vector_entry_point``).

``tabletop-gym train`` uses this loop where the game's id has a native vector environment: the games
step thousands of times faster than one environment at a time, and sb3-contrib's own loop (a Python
call, an info dict and a network call per environment step, the one-hot of the observation rebuilt for
every minibatch) would keep only a small share of that (docs/training.md gives the measurements).

The network trained is the policy of an sb3-contrib ``MaskablePPO`` model, parameters, optimizer and
all: this loop only collects the rollouts and computes MaskablePPO's loss (the clipped surrogate, the
value loss, the masked entropy, advantages normalized per minibatch, the gradient clipped) itself, so
the model saved is the same ``model.zip`` that ``evaluate``, ``--resume`` and ``--trainer sb3`` load.

What differs from ``MaskablePPO.learn``: the observations are turned into the network's input (the
one-hot of a ``MultiDiscrete`` observation) once per rollout, not once per minibatch; actions are drawn
for the whole batch in one call; and the vector environment's next-step autoreset is followed: the step
that starts a finished game's next deal is no move (its action is ignored), so it is left out of the
training batch and of the steps counted, and no advantage flows across it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces

MAX_ENVS = 4096  # games side by side, either trainer: past this a rollout's memory grows for no speed
HUGE_NEG = -1e8  # the logit of an illegal action, as sb3-contrib's masked distribution sets it


def has_vector_env(env_id: str) -> bool:
    """Whether ``env_id`` is registered with a native vector environment (a ``vector_entry_point``)."""
    import gymnasium as gym

    return gym.spec(env_id).vector_entry_point is not None


def make_vector_env(env_id: str, env_kwargs: dict[str, Any], n_envs: int) -> Any:
    """The native vector environment of ``env_id`` with ``n_envs`` games and the id's settings."""
    import gymnasium as gym

    return gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", **env_kwargs)


def spaces_env(vector_env: Any) -> Any:
    """An SB3 ``VecEnv`` with the spaces and size of ``vector_env``, which never steps: what
    ``MaskablePPO``'s constructor, ``load`` and ``save`` need to know of the environment."""
    from stable_baselines3.common.vec_env import VecEnv

    class SpacesOnly(VecEnv):
        """The spaces of a native vector environment, for building and loading the model; its
        rollouts are collected by :func:`learn`, never by ``MaskablePPO.learn``."""

        def __init__(self) -> None:
            super().__init__(
                vector_env.num_envs, vector_env.single_observation_space, vector_env.single_action_space
            )

        def _refuse(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("this environment only describes spaces: train it with vector_ppo.learn")

        reset = step_async = step_wait = set_attr = _refuse

        def close(self) -> None:
            vector_env.close()

        def get_attr(self, name: str, indices: Any = None) -> list[Any]:
            if name == "render_mode":
                return [None] * self.num_envs
            raise AttributeError(name)

        def env_method(self, name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
            if name == "action_masks":
                return list(vector_env.action_masks())
            raise AttributeError(name)

        def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
            return [False] * self.num_envs

        def has_attr(self, attr_name: str) -> bool:
            return attr_name == "action_masks"

    return SpacesOnly()


@numba.njit(cache=True, nogil=True)
def _table_gradient(index, grad, rows):
    """``one_hot(index).T @ grad``: each observation's gradient added to the rows its one-hot has a 1
    in (a fifth of the matrix product's time on a Cribbage batch: 65 rows of 920 touched)."""
    out = np.zeros((rows, grad.shape[1]), dtype=grad.dtype)
    for b in range(index.shape[0]):
        for k in range(index.shape[1]):
            row = index[b, k]
            for j in range(grad.shape[1]):
                out[row, j] += grad[b, j]
    return out


class _OneHotLinear(torch.autograd.Function):
    """``one_hot(index) @ table`` without the one-hot: a sum of ``table``'s rows, one per observation
    dimension (the index of each dimension's 1), and for the backward pass the same rows' gradients."""

    @staticmethod
    def forward(ctx: Any, index: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(index)
        ctx.rows = table.shape[0]
        return F.embedding_bag(index, table, mode="sum")

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor]:
        (index,) = ctx.saved_tensors
        return None, torch.from_numpy(_table_gradient(index.numpy(), grad.contiguous().numpy(), ctx.rows))


class Network:
    """The policy's action logits and values for a batch of observations, computed with the policy's
    own layers as ``MaskableActorCriticPolicy.evaluate_actions`` applies them after SB3's
    ``preprocess_obs``. ``inputs`` turns observations into what ``__call__`` takes.

    For a ``MultiDiscrete`` observation under SB3's flattening (``MlpPolicy``), the input is the
    one-hot's index of each dimension, and the first layers of the actor and the critic (a linear
    layer on the one-hot) are one sum of their weights' columns at those indices: the same numbers as
    the matrix product, at a small share of its cost (a Cribbage observation has 65 dimensions and a
    920-wide one-hot). Any other space goes through SB3's own ``preprocess_obs``."""

    def __init__(self, policy: Any) -> None:
        from stable_baselines3.common.torch_layers import FlattenExtractor

        self.policy = policy
        space = policy.observation_space
        extractor = policy.mlp_extractor
        self.one_hot = (
            isinstance(space, spaces.MultiDiscrete)
            and space.nvec.ndim == 1
            and policy.share_features_extractor
            and isinstance(policy.features_extractor, FlattenExtractor)
            and len(extractor.policy_net) > 0
            and len(extractor.value_net) > 0
            and isinstance(extractor.policy_net[0], torch.nn.Linear)
            and isinstance(extractor.value_net[0], torch.nn.Linear)
        )
        if self.one_hot:
            nvec = torch.as_tensor(space.nvec, dtype=torch.int64)
            self._offsets = torch.cumsum(nvec, 0) - nvec

    def inputs(self, observations: Any) -> Any:
        """What ``__call__`` takes for a batch of observations (a numpy array, or a dict of them)."""
        if self.one_hot:
            return torch.as_tensor(np.asarray(observations), dtype=torch.int64) + self._offsets
        from stable_baselines3.common.preprocessing import preprocess_obs
        from stable_baselines3.common.utils import obs_as_tensor

        return preprocess_obs(obs_as_tensor(observations, "cpu"), self.policy.observation_space)

    def __call__(self, inputs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """(action logits, values) of a batch of inputs."""
        policy = self.policy
        extractor = policy.mlp_extractor
        if self.one_hot:
            first_pi, first_vf = extractor.policy_net[0], extractor.value_net[0]
            table = torch.cat([first_pi.weight, first_vf.weight]).t().contiguous()
            hidden = _OneHotLinear.apply(inputs, table) + torch.cat([first_pi.bias, first_vf.bias])
            hidden_pi, hidden_vf = hidden.split([first_pi.out_features, first_vf.out_features], dim=1)
            latent_pi, latent_vf = extractor.policy_net[1:](hidden_pi), extractor.value_net[1:](hidden_vf)
        elif policy.share_features_extractor:
            latent_pi, latent_vf = extractor(policy.features_extractor(inputs))
        else:
            latent_pi = extractor.forward_actor(policy.pi_features_extractor(inputs))
            latent_vf = extractor.forward_critic(policy.vf_features_extractor(inputs))
        return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of every action, illegal ones given sb3-contrib's huge negative logit."""
    return torch.log_softmax(torch.where(masks, logits, torch.tensor(HUGE_NEG)), dim=-1)


def _select(inputs: Any, index: torch.Tensor) -> Any:
    if isinstance(inputs, dict):
        return {key: value[index] for key, value in inputs.items()}
    return inputs[index]


def _stack(parts: list[Any]) -> Any:
    if isinstance(parts[0], dict):
        return {key: torch.cat([p[key] for p in parts]) for key in parts[0]}
    return torch.cat(parts)


def learn(
    model: Any,
    vector_env: Any,
    total_steps: int,
    seed: int,
    on_update: Callable[[int], None] | None = None,
) -> None:
    """Train ``model`` (a MaskablePPO built on :func:`spaces_env` of ``vector_env``) until
    ``model.num_timesteps`` reaches ``total_steps`` moves, in rollouts of ``model.n_steps`` batch steps;
    ``on_update(moves)`` runs after each update (``model.num_timesteps`` counts the moves that trained
    the weights as they are then). ``seed`` (with the moves already done, on resume) seeds the deals and
    the action draws, so a run is repeated exactly with the same seed."""
    policy = model.policy
    network = Network(policy)
    n_envs, n_steps = vector_env.num_envs, model.n_steps
    start = int(model.num_timesteps)
    seeds = np.random.SeedSequence([seed, start]).generate_state(2)
    draws = torch.Generator().manual_seed(int(seeds[0]))
    observations, _ = vector_env.reset(seed=int(seeds[1]) % (2**31 - n_envs))
    waiting = torch.zeros(n_envs, dtype=torch.bool)  # games that ended last step: their next step restarts
    n_actions = int(vector_env.single_action_space.n)
    while model.num_timesteps < total_steps:
        policy.set_training_mode(False)
        inputs, masks, actions, log_probs, values, rewards, terminated, ended, moves = ([] for _ in range(9))
        with torch.no_grad():
            for _ in range(n_steps):
                step_inputs = network.inputs(observations)
                mask = torch.as_tensor(vector_env.action_masks())
                logits, value = network(step_inputs)
                log_prob = masked_log_probs(logits, mask)
                # The Gumbel-max draw: a sample of the masked categorical for the whole batch at once.
                noise = torch.rand((n_envs, n_actions), generator=draws).clamp_(min=1e-20)
                action = torch.argmax(log_prob - torch.log(-torch.log(noise)), dim=1)
                observations, reward, term, trunc, _ = vector_env.step(action.numpy())
                inputs.append(step_inputs)
                masks.append(mask)
                actions.append(action)
                log_probs.append(log_prob.gather(1, action[:, None]).squeeze(1))
                values.append(value)
                rewards.append(torch.as_tensor(reward, dtype=torch.float32))
                terminated.append(torch.as_tensor(term))
                moves.append(~waiting)
                waiting = torch.as_tensor(term | trunc)
                ended.append(waiting)
            # The value after the rollout's last step; after a truncation the observation returned is
            # the final one, which a next-step autoreset returns before restarting, so it bootstraps.
            values.append(network(network.inputs(observations))[1])
        advantages = _advantages(
            torch.stack(rewards), torch.stack(values), torch.stack(terminated), torch.stack(ended),
            torch.stack(moves), model.gamma, model.gae_lambda,
        )  # fmt: skip
        move = torch.stack(moves).flatten()
        returns = (advantages + torch.stack(values[:-1])).flatten()[move]
        rollout = (
            _select(_stack(inputs), move), torch.cat(masks)[move], torch.cat(actions)[move],
            torch.cat(log_probs)[move], advantages.flatten()[move], returns,
        )  # fmt: skip
        done = int(move.sum())
        model._current_progress_remaining = 1.0 - min(1.0, model.num_timesteps / total_steps)
        _update(model, network, rollout, draws)
        model.num_timesteps += done
        if on_update is not None:
            on_update(done)


def _advantages(
    rewards: torch.Tensor,
    values: torch.Tensor,
    terminated: torch.Tensor,
    ended: torch.Tensor,
    moves: torch.Tensor,
    gamma: float,
    gae_lambda: float,
) -> torch.Tensor:
    """Generalized advantage estimates of a rollout (steps x games): a game's value bootstraps past a
    step unless the game terminated there, and no advantage flows past the end of a game (ended).
    The restart steps (not moves) get 0 and are dropped from training."""
    advantages = torch.zeros_like(rewards)
    running = torch.zeros(rewards.shape[1])
    for t in range(rewards.shape[0] - 1, -1, -1):
        delta = rewards[t] + gamma * values[t + 1] * (~terminated[t]) - values[t]
        running = delta + gamma * gae_lambda * (~ended[t]) * running
        running = torch.where(moves[t], running, torch.zeros(()))
        advantages[t] = running
    return advantages


def _update(model: Any, network: Network, rollout: tuple[Any, ...], draws: torch.Generator) -> None:
    """MaskablePPO's ``train()`` on one rollout: ``n_epochs`` passes in shuffled minibatches."""
    policy = model.policy
    policy.set_training_mode(True)
    from stable_baselines3.common.utils import update_learning_rate

    update_learning_rate(policy.optimizer, model.lr_schedule(model._current_progress_remaining))
    clip = model.clip_range(model._current_progress_remaining)
    clip_vf = model.clip_range_vf(model._current_progress_remaining) if model.clip_range_vf else None
    inputs, masks, actions, old_log_probs, advantages, returns = rollout
    old_values = returns - advantages
    size = len(actions)
    for _ in range(model.n_epochs):
        order = torch.randperm(size, generator=draws)
        for first in range(0, size, model.batch_size):
            batch = order[first : first + model.batch_size]
            logits, values = network(_select(inputs, batch))
            log_prob_all = masked_log_probs(logits, masks[batch])
            log_prob = log_prob_all.gather(1, actions[batch][:, None]).squeeze(1)
            advantage = advantages[batch]
            if model.normalize_advantage and len(batch) > 1:
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            ratio = torch.exp(log_prob - old_log_probs[batch])
            clipped = advantage * torch.clamp(ratio, 1 - clip, 1 + clip)
            policy_loss = -torch.min(advantage * ratio, clipped).mean()
            if clip_vf is not None:
                values = old_values[batch] + torch.clamp(values - old_values[batch], -clip_vf, clip_vf)
            value_loss = F.mse_loss(returns[batch], values)
            # sb3-contrib's masked entropy: illegal actions contribute nothing.
            p_log_p = torch.where(masks[batch], log_prob_all * log_prob_all.exp(), torch.zeros(()))
            entropy_loss = p_log_p.sum(-1).mean()
            loss = policy_loss + model.ent_coef * entropy_loss + model.vf_coef * value_loss
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            policy.optimizer.step()
        model._n_updates += 1

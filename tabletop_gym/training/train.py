"""Train a MaskablePPO agent (sb3-contrib) on a game's environment."""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import time
from pathlib import Path
from typing import Any

from tabletop_gym.core import atomic_write_text
from tabletop_gym.training.games import GameSpec

DEFAULT_PPO: dict[str, Any] = {
    "n_steps": 512,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "net_arch": [256, 256],
}


def train(
    spec: GameSpec,
    steps: int,
    seed: int,
    out: Path,
    args: argparse.Namespace,
    n_envs: int = 8,
    progress: bool = True,
    overrides: dict[str, Any] | None = None,
) -> Path:
    """Train for ``steps`` environment steps; writes ``model.zip`` and ``config.json`` to ``out``.

    Environments run side by side in one process (the games step much faster than the network
    updates, so worker processes would only add copying). TensorBoard logs go to ``out/tb`` when
    tensorboard is installed. Returns the model's path.
    """
    try:
        import gymnasium as gym
        import sb3_contrib
        import stable_baselines3
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("training needs the training extra: pip install 'tabletop-gym[train]'") from exc
    import tabletop_gym  # noqa: F401  (registers the environments)

    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    if n_envs < 1:
        raise ValueError(f"n_envs must be at least 1, got {n_envs}")
    settings = {**DEFAULT_PPO, **spec.ppo, **(overrides or {})}
    net_arch = settings.pop("net_arch")
    env_id, env_kwargs = spec.environment(args)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)  # small networks: one thread is fastest and leaves a core to the envs
    vec_env = make_vec_env(lambda: gym.make(env_id, **env_kwargs), n_envs=n_envs, seed=seed)
    tensorboard = str(out / "tb") if importlib.util.find_spec("tensorboard") else None
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        seed=seed,
        device="cpu",
        verbose=0,
        tensorboard_log=tensorboard,
        policy_kwargs={"net_arch": net_arch},
        **settings,
    )
    start = time.perf_counter()
    model.learn(total_timesteps=steps, progress_bar=progress and importlib.util.find_spec("rich") is not None)
    seconds = time.perf_counter() - start
    path = out / "model.zip"
    model.save(str(out / "model.tmp.zip"))
    (out / "model.tmp.zip").replace(path)
    config = {
        "game": spec.name,
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "algorithm": "MaskablePPO",
        "policy": "MlpPolicy",
        "net_arch": net_arch,
        "steps": steps,
        "steps_done": int(model.num_timesteps),
        "seed": seed,
        "n_envs": n_envs,
        "ppo": settings,
        "train_seconds": round(seconds, 2),
        "tensorboard_log": tensorboard,
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__,
            "gymnasium": gym.__version__,
        },
    }
    atomic_write_text(out / "config.json", json.dumps(config, indent=1))
    vec_env.close()
    return path

"""What every game's ``bench`` command shares: environment speed and the report (table + JSON)."""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path
from typing import Any

import gymnasium as gym

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import atomic_write_text, check_int


def env_steps_per_second(env: gym.Env, steps: int, seed: int) -> float:
    """Steps per second of one environment driven by random legal actions (resets included)."""
    steps = check_int("env_steps", steps, 1)
    agent = RandomAgent(seed)
    obs, info = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            obs, info = env.reset()
    return steps / (time.perf_counter() - start)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def write_report(game: str, report: dict[str, Any], out: Path) -> Path:
    """Print ``report`` as aligned ``name  value`` lines and write it to ``out/<game>.json``."""
    width = max(len(k) for k in report)
    for key, value in report.items():
        shown = f"{value:.3f}" if isinstance(value, float) else value
        print(f"{key.ljust(width)}  {shown}")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{game}.json"
    atomic_write_text(path, json.dumps(report, indent=1))
    print(f"written to {path}")
    return path

"""What every game's ``bench`` command shares: environment speed and the report (table + JSON); and
``bench startup``, the command line's own start."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import MAX_NUM_ENVS, atomic_write_text, check_int
from tabletop_gym.training.arguments import int_arg, path_arg


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


def plain_loop_steps_per_second(env: gym.Env, steps: int, seed: int) -> float:
    """Steps per second of ``env`` driven by ``action_space.sample()`` in a plain loop (resets included):
    the yardstick a reader knows, CartPole-v1's rate measured beside ours in the same run."""
    steps = check_int("env_steps", steps, 1)
    env.action_space.seed(seed)
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def vector_steps_timing(envs: Any, steps: int, seed: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process) for ``steps`` sub-environment steps of a native vector
    environment, every sub-environment playing a random legal action chosen for the whole batch at once
    from ``envs.action_masks()`` (``random_legal_actions``)."""
    from tabletop_gym.training.random_actions import random_legal_actions  # compiled: only where timed

    rng = np.random.default_rng(seed)
    envs.reset(seed=seed)
    batches = max(1, steps // envs.num_envs)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(batches):
        envs.step(random_legal_actions(envs.action_masks(), rng))
    return time.perf_counter() - wall, time.process_time() - cpu


def vector_bench(
    env_id: str,
    num_envs: int,
    steps: int,
    env_steps: int,
    runs: int = 3,
    env_kwargs: dict[str, Any] | None = None,
    vector_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The native vector environment of ``env_id`` (made with ``env_kwargs``, and ``vector_kwargs``
    that only it takes, such as its threads) against its single environment (the same settings) and
    a plain-loop CartPole-v1, all measured in this run: medians of ``runs`` runs, CPU time beside
    wall time, and the process's peak memory before and after the vector runs (flat when nothing
    grows with steps)."""
    env_kwargs = dict(env_kwargs or {})
    made = {**env_kwargs, **(vector_kwargs or {})}
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **made)
    vector_steps_timing(envs, envs.num_envs * 2, 0)  # compile (or load the compiled kernels) first
    rss_before = peak_rss_mb()
    timings = [vector_steps_timing(envs, steps, seed) for seed in range(runs)]
    done = max(1, steps // num_envs) * num_envs
    walls = [w for w, _ in timings]
    cpus = [c for _, c in timings]
    report: dict[str, Any] = {
        "vector_num_envs": num_envs,
        "vector_steps_per_run": done,
        "vector_runs": runs,
        "vector_steps_per_second_median": done / statistics.median(walls),
        "vector_steps_per_cpu_second_median": done / statistics.median(cpus),
        "vector_wall_seconds_median": statistics.median(walls),
        "vector_cpu_seconds_median": statistics.median(cpus),
        "process_peak_rss_mb_before_vector": rss_before,
        "process_peak_rss_mb_after_vector": peak_rss_mb(),
    }
    single = gym.make(env_id, **env_kwargs).unwrapped
    report["single_env_steps_per_second_median"] = statistics.median(
        env_steps_per_second(single, env_steps, seed) for seed in range(runs)
    )
    cartpole = gym.make("CartPole-v1")
    report["cartpole_plain_loop_steps_per_second_median"] = statistics.median(
        plain_loop_steps_per_second(cartpole, env_steps, seed) for seed in range(runs)
    )
    report["vector_over_single"] = (
        report["vector_steps_per_second_median"] / report["single_env_steps_per_second_median"]
    )
    report["vector_over_cartpole"] = (
        report["vector_steps_per_second_median"] / report["cartpole_plain_loop_steps_per_second_median"]
    )
    return report


MAX_VECTOR_ENVS = MAX_NUM_ENVS  # what a native vector environment accepts
MAX_VECTOR_STEPS = 10**10


def add_vector_arguments(parser: argparse.ArgumentParser, game: str, num_envs: int, steps: int) -> None:
    """``bench GAME --vector`` and its options, for a game with a native vector environment: ``num_envs``
    and ``steps`` (per run) are the game's defaults."""
    parser.add_argument(
        "--vector",
        action="store_true",
        help="time the native vector environment instead (gym.make_vec), beside the single "
        f"environment and CartPole-v1, and write {game}-vector.json",
    )
    parser.add_argument(
        "--num-envs",
        type=int_arg(1, MAX_VECTOR_ENVS),
        default=num_envs,
        help=f"with --vector: games stepped together, 1-{MAX_VECTOR_ENVS:,} (default {num_envs})",
    )
    parser.add_argument(
        "--vector-steps",
        type=int_arg(1, MAX_VECTOR_STEPS),
        default=steps,
        help=f"with --vector: steps (all games together) per run, 1-{MAX_VECTOR_STEPS:,} (default {steps})",
    )


def vector_bench_command(
    game: str,
    env_id: str,
    args: argparse.Namespace,
    env_kwargs: dict[str, Any] | None = None,
    labels: dict[str, Any] | None = None,
    vector_kwargs: dict[str, Any] | None = None,
) -> int:
    """``bench GAME --vector``: the native vector environment's steps per second (median of 3 runs,
    wall and CPU), the single environment's and a plain-loop CartPole-v1's in the same run (both made
    with ``env_kwargs``; the vector environment with ``vector_kwargs`` too), written to
    ``GAME-vector.json`` with ``labels`` (what the settings are called)."""
    report = dict(labels or {})
    report.update(
        vector_bench(
            env_id, args.num_envs, args.vector_steps, args.env_steps, env_kwargs=env_kwargs,
            vector_kwargs=vector_kwargs,
        )  # fmt: skip
    )
    report["load_average_after"] = os.getloadavg()[0]
    write_report(f"{game}-vector", report, args.out)
    return 0


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


STARTUP = "startup"
"""``tabletop-gym bench startup``: what the command line itself costs before it does any work."""

# A deal the oracle answers from the cache: Nmbr9's demo settings (its solver imports OR-Tools and
# numba, which a cached answer must not wait for), and a War horizon (its simulation is numba's).
STARTUP_COMMANDS: dict[str, tuple[str, ...]] = {
    "version": ("--version",),
    "help": ("--help",),
    "solve_help": ("solve", "nmbr9", "--help"),
    "cached_solve_nmbr9": (
        "solve", "nmbr9", "--variant", "9-2-5", "--grid", "7", "--levels", "2", "--time-limit", "8",
        "--seed", "0",
    ),
    "cached_solve_war": ("solve", "war", "--horizon", "3", "--method", "search", "--seed", "3"),
}  # fmt: skip


def add_startup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--runs",
        type=int_arg(1, 1000),
        default=5,
        help="runs of each command, their median reported (default 5)",
    )
    parser.add_argument(
        "--cache",
        type=path_arg,
        default=None,
        help="oracle cache folder of the cached solves (default: a temporary folder; a first run fills it)",
    )
    parser.add_argument("--out", type=path_arg, default=Path("runs/bench"), help="folder for startup.json")


def command_cpu_seconds(arguments: Sequence[str], runs: int) -> list[float]:
    """CPU seconds (user and system) of each of ``runs`` runs of ``tabletop-gym ARGUMENTS``, each in a
    fresh interpreter as a shell starts the command; its output is discarded, a failure raised."""
    command = [sys.executable, "-m", "tabletop_gym_cli", *arguments]
    seconds = []
    for _ in range(check_int("runs", runs, 1)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"tabletop-gym {' '.join(arguments)} failed: {done.stderr.strip()}")
        seconds.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return seconds


def startup_bench(args: argparse.Namespace) -> int:
    """The median CPU seconds of ``--version``, ``--help``, a game's help and cached solves."""
    with tempfile.TemporaryDirectory(prefix="tabletop-gym-startup-") as scratch:
        cache = str(args.cache if args.cache is not None else scratch)
        report: dict[str, Any] = {"runs": args.runs}
        for name, arguments in STARTUP_COMMANDS.items():
            if name.startswith("cached_solve"):
                arguments = (*arguments, "--cache", cache)
                command_cpu_seconds(arguments, 1)  # solved (or found) once: the timed runs read the cache
            report[f"{name}_cpu_seconds_median"] = statistics.median(
                command_cpu_seconds(arguments, args.runs)
            )
    write_report(STARTUP, report, args.out)
    return 0


"""``bench GAME --train``: end-to-end training speed of the trainers, measured side by side."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tabletop_gym.core import check_int
from tabletop_gym.training.bench import write_report
from tabletop_gym.training.games import GameSpec
from tabletop_gym.training.train import train


def training_bench(
    spec: GameSpec, steps: dict[str, int], runs: int = 3, n_envs: dict[str, int | None] | None = None
) -> dict[str, Any]:
    """End-to-end training speed (rollouts and updates, environment steps per second) of each trainer
    in ``steps`` (``{"sb3": 20_000, "vector": 200_000}``): ``runs`` runs of each, alternating which
    goes first run by run so that a change in the machine's load hits both alike; medians of wall and
    process CPU time. Each run trains a fresh model with the game's default settings (seed = run)."""
    runs = check_int("runs", runs, 1)
    timings: dict[str, list[tuple[float, float, int]]] = {name: [] for name in steps}
    configs: dict[str, dict[str, Any]] = {}
    names = list(steps)
    with tempfile.TemporaryDirectory(prefix="tabletop-gym-train-bench-") as scratch:
        for name in names:  # a short first run of each: imports and compiled kernels out of the timings
            train(spec, 1, 0, Path(scratch) / f"warm-{name}", argparse.Namespace(), progress=False,
                  checkpoint_every=0, trainer=name, n_envs=(n_envs or {}).get(name))
        for run in range(runs):
            for name in names if run % 2 == 0 else names[::-1]:
                out = Path(scratch) / f"{name}-{run}"
                cpu, wall = time.process_time(), time.perf_counter()
                train(spec, steps[name], run, out, argparse.Namespace(), progress=False, checkpoint_every=0,
                      trainer=name, n_envs=(n_envs or {}).get(name))
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                configs[name] = json.loads((out / "config.json").read_text())
                timings[name].append((wall, cpu, int(configs[name]["steps_done"])))
    report: dict[str, Any] = {"train_runs": runs}
    for name in names:
        walls = [s / w for w, _, s in timings[name]]
        cpus = [s / c for _, c, s in timings[name]]
        report[f"train_{name}_steps_per_run"] = timings[name][0][2]
        report[f"train_{name}_steps_per_second_median"] = statistics.median(walls)
        report[f"train_{name}_steps_per_cpu_second_median"] = statistics.median(cpus)
        config = configs[name]
        report[f"train_{name}_n_envs"] = config["n_envs"]
        report[f"train_{name}_net_arch"] = "x".join(map(str, config["net_arch"]))
        report[f"train_{name}_n_steps_batch_size_n_epochs"] = "/".join(
            str(config["ppo"][k]) for k in ("n_steps", "batch_size", "n_epochs")
        )
    if "sb3" in steps and "vector" in steps:
        report["train_vector_over_sb3"] = (
            report["train_vector_steps_per_second_median"] / report["train_sb3_steps_per_second_median"]
        )
        report["train_vector_over_sb3_cpu"] = (
            report["train_vector_steps_per_cpu_second_median"]
            / report["train_sb3_steps_per_cpu_second_median"]
        )
    return report


def train_bench_command(spec: GameSpec, args: argparse.Namespace) -> int:
    """``bench GAME --train``: both trainers (``--sb3-steps 0``: the vector trainer alone), interleaved,
    written to ``GAME-train.json``."""
    steps = {"vector": args.train_steps}
    if args.sb3_steps:
        steps = {"sb3": args.sb3_steps, **steps}
    report = training_bench(spec, steps)
    report["load_average_after"] = os.getloadavg()[0]
    write_report(f"{spec.name}-train", report, args.out)
    return 0

"""``tabletop-gym pretrained``: list the shipped agents, and (for maintainers) make an entry from a
``tabletop-gym train`` run folder.

``export RUN --id ENV_ID`` keeps the run's policy (its actor's weights, see
:mod:`tabletop_gym.agents.shipped`), scores it, and writes the file and its index entry into the
package's data (or ``into``). The score is the one a user reproduces: on the newest shipped suite
whose settings are the run's where one covers them, else what ``evaluate`` reports of seeded games
against the environment's default opponents, without an oracle.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabletop_gym.agents.shipped import (
    INDEX,
    PretrainedError,
    actor_weights,
    data_dir,
    index,
    load_entry,
    settings_difference,
)
from tabletop_gym.core import atomic_output, atomic_write_text, hold_output, read_regular
from tabletop_gym.suites import rules_kwargs
from tabletop_gym.suites.definitions import split_id
from tabletop_gym.suites.storage import available, normal
from tabletop_gym.training.games import get_game

SEEDED_GAMES = 200  # games of the score where no suite covers the settings (evaluate's default)


def run_config(run: Path) -> dict[str, Any]:
    """The config.json of a finished ``tabletop-gym train`` run, refused in one line otherwise."""
    path = Path(run) / "config.json"
    if not (Path(run) / "model.zip").is_file():
        raise PretrainedError(f"{run} holds no model.zip: give a finished 'tabletop-gym train' run folder")
    try:
        config = json.loads(read_regular(path))
    except (OSError, ValueError) as error:
        raise PretrainedError(f"{path} cannot be read ({error}): give a 'tabletop-gym train' run "
                              "folder") from None
    needed = ("game", "env_id", "env_kwargs", "policy", "net_arch")
    if not isinstance(config, dict) or not all(k in config for k in needed):
        raise PretrainedError(f"{path} is not a config.json of a finished 'tabletop-gym train' run "
                              f"(it needs {', '.join(needed)})")
    if config.get("interrupted"):
        raise PretrainedError(f"the run in {run} was interrupted: resume it (train --resume) first")
    return config


def check_command(command: str, train_args: argparse.Namespace, config: Mapping[str, Any]) -> None:
    """The command must be a ``tabletop-gym train`` of the run's game and settings (``train_args``:
    it as the command line parses it), so that it says truly how the model was made."""
    if getattr(train_args, "command", None) != "train":
        raise PretrainedError(f"--command {command!r} is not a 'tabletop-gym train' command")
    spec = get_game(train_args.game)
    env_id, env_kwargs = spec.environment(spec.read(train_args))
    made = (spec.name, env_id, rules_kwargs(env_id, env_kwargs))
    run = (config["game"], config["env_id"], rules_kwargs(config["env_id"], config["env_kwargs"]))
    if normal(made) != normal(run):
        raise PretrainedError(f"--command trains {made[0]} {made[1]} with {made[2]}, but the run trained "
                              f"{run[0]} {run[1]} with {run[2]}: give the command that made the run")


def covering_suite(game: str, env_id: str, env_kwargs: Mapping[str, Any]) -> str | None:
    """The newest shipped suite whose environment and rules are these (None where none is)."""
    from tabletop_gym.training.suites import _environment, definition_args

    wanted = normal(rules_kwargs(env_id, env_kwargs))
    names = []
    for definition in get_game(game).suites:
        d_env, d_kwargs = _environment(game, definition_args(definition))
        if d_env == env_id and normal(rules_kwargs(d_env, d_kwargs)) == wanted:
            names.append(definition.name)
    shipped = [s for s in available() if split_id(s)[0] in names]
    return max(shipped, key=lambda s: int(split_id(s)[1][1:])) if shipped else None


SCORE_KEYS = ("mean_score", "mean_bound", "mean_ratio", "ratio_ci95", "share_optimal", "all_bounds_optimal")


def score(
    run: Path,
    config: Mapping[str, Any],
    train_args: argparse.Namespace,
    progress: bool,
    episodes: int | None = None,
) -> dict[str, Any]:
    """The run's model scored as ``tabletop-gym evaluate`` scores it: on the covering suite (its first
    ``episodes`` deals, default all), else on ``episodes`` (default 200) seeded games from seed 0
    against the environment's default opponents (no oracle)."""
    from tabletop_gym.training import suites
    from tabletop_gym.training.evaluate import evaluate

    game, env_id = config["game"], config["env_id"]
    suite_id = covering_suite(game, env_id, config["env_kwargs"])
    if suite_id is not None:
        suite = suites.load(suite_id)
        args = suites.definition_args(suites.definition(suite_id))
        report = evaluate(get_game(game), [str(run)], episodes, None, args, progress=progress, suite=suite)
        where: dict[str, Any] = {"suite": suite_id, "episodes": report["episodes"],
                                 "ratio": report.get("ratio")}
    else:
        spec = dataclasses.replace(get_game(game), oracle=None)
        report = evaluate(spec, [str(run)], episodes or SEEDED_GAMES, 0, train_args, progress=progress)
        where = {"against": "the environment's default opponents, without an oracle (none covers these "
                 "settings)", "episodes": report["episodes"], "seed": 0}
    entry = report["agents"][str(run)]
    figures = {k: v for k, v in entry.items() if k in SCORE_KEYS or k.startswith("share_")}
    return {**where, **figures}


def export(
    run: Path,
    env_id: str,
    command: str,
    train_args: argparse.Namespace,
    into: Path | None = None,
    progress: bool = True,
    episodes: int | None = None,
) -> dict[str, Any]:
    """Make (or remake) the shipped agent of ``env_id`` from the train run in ``run``, made by
    ``command`` (``train_args``: it parsed); returns its index entry, written into ``into``
    (default: the package's data folder) beside its file."""
    import torch
    from sb3_contrib import MaskablePPO

    run = Path(run)
    config = run_config(run)
    if config["env_id"] != env_id:
        raise PretrainedError(f"the run in {run} trained {config['env_id']}, not {env_id}")
    differ = settings_difference(env_id, config["env_kwargs"], {})
    if differ:
        raise PretrainedError(f"the run in {run} trained {env_id} on other settings than its defaults "
                              f"({'; '.join(differ)}): a shipped agent plays an id's default settings")
    check_command(command, train_args, config)
    into = data_dir() if into is None else Path(into)
    into.mkdir(parents=True, exist_ok=True)
    with hold_output(into, folder=True):
        model = MaskablePPO.load(str(run / "model.zip"), device="cpu")
        file = env_id.rsplit("/", 1)[-1] + ".pt"
        with atomic_output(into / file) as tmp:
            torch.save(actor_weights(model.policy), tmp)
        data = (into / file).read_bytes()
        entry = {
            "game": config["game"],
            "env_id": env_id,
            "env_kwargs": normal(config["env_kwargs"]),
            "file": file,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "policy": config["policy"],
            "net_arch": config["net_arch"],
            "command": command,
            # An imitation run (train --teacher) counts labelled positions and iterations, not steps.
            "trainer": config.get("trainer") or ("imitation" if config.get("teacher") else None),
            "steps": config.get("steps_done"),
            "positions": config.get("positions"),
            "train_seconds": config.get("train_seconds"),
            "versions": config.get("versions"),
            "score": score(run, config, train_args, progress, episodes),
        }
        load_entry(env_id, entry, into)  # what is written loads back, or nothing is indexed
        entries = index(into)
        entries[env_id] = entry
        atomic_write_text(into / INDEX, json.dumps(dict(sorted(entries.items())), indent=1) + "\n")
    return entry


def describe_score(entry: Mapping[str, Any]) -> str:
    """An index entry's score in a few words."""
    result = entry.get("score", {})
    parts = []
    if "mean_ratio" in result:
        low, high = result["ratio_ci95"]
        best = "optimum" if result.get("all_bounds_optimal") else "bound"
        parts.append(f"{result['mean_ratio']:.3f} [{low:.3f}, {high:.3f}] of the oracle {best}")
    parts.append(f"mean score {result.get('mean_score', float('nan')):.2f}")
    shares = [k for k in result if k.startswith("share_") and k != "share_optimal"]
    parts += [f"{k.removeprefix('share_').replace('_', ' ')} {100 * result[k]:.1f}%" for k in shares]
    where = f"suite {result['suite']}" if "suite" in result else "default opponents"
    return f"{', '.join(parts)} ({where}, {result.get('episodes')} games)"


def format_index(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The index as ``pretrained list`` prints it: per agent its id, score and the command that made it."""
    if not entries:
        return "no pretrained agents"
    lines = []
    for env_id, entry in sorted(entries.items()):
        made = f"{entry['steps']:,} steps" if entry.get("steps") else f"{entry.get('positions')} positions"
        lines.append(f"{env_id}  ({entry['file']}, {entry['bytes'] / 1024:.0f} KiB, {entry['trainer']} "
                     f"trainer, {made})")
        lines.append(f"  score:   {describe_score(entry)}")
        lines.append(f"  command: {entry['command']}")
    return "\n".join(lines)


def split_command(command: str) -> list[str]:
    """The arguments of a ``tabletop-gym ...`` command line, without the program's name."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise PretrainedError(f"--command {command!r} cannot be read as a command line ({error})") from None
    if not words or Path(words[0]).name not in ("tabletop-gym", "tabletop_gym_cli"):
        raise PretrainedError(f"--command {command!r} is not a tabletop-gym command")
    return words[1:]

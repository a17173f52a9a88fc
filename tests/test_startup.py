"""What the command line imports to start, and what the core install (no training extra) can do.

No clock here: the speed itself is measured by ``tabletop-gym bench startup``. These tests pin its
cause instead: ``--version``, ``--help`` and a cached solve load none of the heavy libraries (OR-Tools
pulls in pandas, numba llvmlite and scipy; training torch and stable-baselines3), and nothing of the
core needs a library of the ``[train]`` extra.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.envs.nmbr9.rules import Nmbr9Rules, Variant, random_deal, replay
from tabletop_gym.training.cli import main

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "ortools", "numba", "llvmlite", "scipy", "pandas", "torch", "stable_baselines3", "sb3_contrib",
    "rliable", "matplotlib", "ray",
    "tqdm",  # not heavy, but 30 ms of a start of 400: progress bars load it where work is long
)  # fmt: skip
# The [train] extra (and [ray]): what the core install lacks. pandas is not among them: OR-Tools itself
# imports it, so the core install has it whatever this package declares.
TRAINING_ONLY = ("torch", "stable_baselines3", "sb3_contrib", "rliable", "arch", "matplotlib", "rich", "ray")
TRAIN_EXTRA = "pip install 'tabletop-gym[train]'"

# Runs a command as the console script does, then writes the top-level modules it had loaded.
DRIVER = """
import json, os, sys
from tabletop_gym_cli import main
sys.argv = ["tabletop-gym", *sys.argv[2:]]
modules_file = os.environ["MODULES_FILE"]
try:
    status = main()
except SystemExit as exit:  # --help and --version end in argparse's exit
    status = exit.code
with open(modules_file, "w") as out:
    json.dump({"status": status, "modules": sorted({m.split(".")[0] for m in sys.modules})}, out)
"""

# The core install, made here by refusing every module of the training extra before anything runs.
BLOCKER = """
import importlib.abc, sys
BLOCKED = set(sys.argv[1].split(","))

class TrainingExtraMissing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: the core install)", name=name)
        return None

sys.meta_path.insert(0, TrainingExtraMissing())
"""


def _environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["TABLETOP_GYM_CACHE"] = str(tmp_path / "default-cache")
    return {**env, **extra}


def _loaded_by(tmp_path: Path, *argv: str) -> tuple[set[str], str]:
    """The top-level modules loaded by ``tabletop-gym ARGV`` run in a fresh interpreter, and what it
    printed."""
    modules_file = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, "driver", *argv],
        cwd=tmp_path,
        env=_environment(tmp_path, MODULES_FILE=str(modules_file)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(modules_file.read_text())
    assert report["status"] in (0, None), (report["status"], done.stderr)
    return set(report["modules"]), done.stdout


@pytest.mark.parametrize(
    "argv", [["--version"], ["--help"], ["solve", "nmbr9", "--help"], ["bench", "--help"]]
)
def test_the_command_line_starts_without_heavy_libraries(argv, tmp_path) -> None:
    loaded, printed = _loaded_by(tmp_path, *argv)
    assert printed and "tabletop_gym" in loaded and "argparse" in loaded  # it did run
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def _greedy_answer(deal, grid, levels, time_limit, model_grid) -> OracleResult:  # noqa: ANN001
    """An answer for the cache without the solvers: the engine's greedy play, under a bound that
    holds for any play of a 5-card deal (every card worth at most 9 on a level at most 1)."""
    from tabletop_gym.oracles.nmbr9.beam import greedy_plan

    plan = tuple(greedy_plan(deal, grid, levels))
    return OracleResult(replay(Nmbr9Rules(grid=grid, levels=levels), deal, plan).score, 45, plan)


def test_a_cached_solve_loads_no_solver(tmp_path, monkeypatch) -> None:
    """The cached answer is read before any solver is imported: Nmbr9's imports OR-Tools and numba."""
    from tabletop_gym.oracles import nmbr9

    variant, cache = Variant.parse("9-2-5"), tmp_path / "cache"
    deal = random_deal(0, variant)
    monkeypatch.setattr(nmbr9, "solve", _greedy_answer)
    stored = nmbr9.solve_cached(deal, grid=7, levels=2, time_limit=8.0, cache=OracleCache(cache))
    argv = ["solve", "nmbr9", "--variant", "9-2-5", "--grid", "7", "--levels", "2", "--time-limit", "8"]
    loaded, printed = _loaded_by(tmp_path, *argv, "--seed", "0", "--cache", str(cache))
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    assert f"deal {deal} on a 7x7 grid" in printed
    assert f"score    {stored.score} (proven bound 45)" in printed  # the cache's answer, not a solve


def test_importing_the_package_and_making_every_environment_loads_no_solver(tmp_path) -> None:
    code = (
        "import sys, gymnasium as gym, tabletop_gym\n"
        "for env_id in [i for i in gym.registry if i.startswith('tabletop/')]:\n"
        "    gym.make(env_id).reset(seed=0)\n"
        "print(','.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=_environment(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.strip().split(","))
    assert "gymnasium" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_core_install_imports_makes_every_environment_and_solves(tmp_path) -> None:
    """With every module of the training extra refused: import, gym.make and a step of every id, a
    solve through each kind of solver (numba: War's simulation; OR-Tools and numba: Nmbr9's) and an
    evaluation of bots (its plot left out without matplotlib)."""
    code = BLOCKER + (
        "import gymnasium as gym, tabletop_gym\n"
        "from tabletop_gym.training.cli import main\n"
        "ids = [i for i in gym.registry if i.startswith('tabletop/')]\n"
        "for env_id in ids:\n"
        "    env = gym.make(env_id)\n"
        "    _, info = env.reset(seed=0)\n"
        "    env.step(int(info['action_mask'].argmax()))\n"
        "print('made', len(ids))\n"
        "assert main(['solve', 'war', '--ranks', '4', '--suits', '2', '--seed', '1']) == 0\n"
        "assert main(['solve', 'nmbr9', '--variant', '3-1-3', '--grid', '4', '--seed', '1']) == 0\n"
        "assert main(['evaluate', 'war', '--agent', 'random,greedy', '--episodes', '3', '--ranks', '4',\n"
        "             '--suits', '2', '--out', 'evaluation', '--no-progress']) == 0\n"
        "import sys\n"
        "print('loaded', ','.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, ",".join(TRAINING_ONLY)],
        cwd=tmp_path,
        env=_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert f"made {len([i for i in gym.registry if i.startswith('tabletop/')])}" in done.stdout
    assert "proven optimal" in done.stdout and "report:" in done.stdout
    (loaded,) = [line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("loaded ")]
    assert {"ortools", "numba"} <= set(loaded.split(","))  # the solvers did run
    assert not set(loaded.split(",")) & set(TRAINING_ONLY)
    assert not (tmp_path / "evaluation" / "evaluation.png").exists()  # no matplotlib, no plot


@pytest.fixture
def without_training_extra(monkeypatch):
    """The training extra missing, in this process: importing any of its modules fails."""
    for name in ("torch", "stable_baselines3", "sb3_contrib", "rliable"):
        monkeypatch.setitem(sys.modules, name, None)


def test_training_without_the_extra_says_what_to_install(without_training_extra, tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["train", "war", "--steps", "10", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == f"tabletop-gym: error: training needs the training extra: {TRAIN_EXTRA}\n"
    assert not (out / "model.zip").exists()


def test_a_trained_model_without_the_extra_says_what_to_install(without_training_extra, tmp_path, capsys):
    model = tmp_path / "model.zip"
    model.write_bytes(b"PK")  # found, so the loader gets as far as importing sb3-contrib
    argv = ["evaluate", "war", "--agent", str(model), "--episodes", "1", "--out", str(tmp_path / "ev")]
    assert main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == f"tabletop-gym: error: loading a trained policy needs the training extra: {TRAIN_EXTRA}\n"


def test_baselines_without_the_extra_stop_before_any_training(
    without_training_extra, tmp_path, capsys
) -> None:
    out = tmp_path / "baselines"
    assert (
        main(["baselines", "--suites", "war-r6s2-v0", "--seeds", "1", "--out", str(out), "--no-progress"])
        == 2
    )
    err = capsys.readouterr().err
    assert err == f"tabletop-gym: error: the baselines need the training extra: {TRAIN_EXTRA}\n"
    assert not out.exists()  # refused before the run made its folder


def test_the_core_dependencies_leave_the_training_libraries_to_the_extra() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_name(d) for d in project["dependencies"]}
    train = {_name(d) for d in project["optional-dependencies"]["train"]}
    assert not core & {"rliable", "pandas", "matplotlib", "torch", "stable-baselines3", "sb3-contrib"}
    assert {"rliable", "pandas", "matplotlib", "torch", "stable-baselines3", "sb3-contrib"} <= train


def _name(requirement: str) -> str:
    return requirement.split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()


def test_lazy_oracle_packages_offer_the_same_names() -> None:
    """The packages that load their solvers on first use still offer every name they list."""
    from tabletop_gym.oracles import modern_art, nmbr9, war

    for package in (war, nmbr9, modern_art):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
        assert set(package.__all__) <= set(dir(package))
    assert callable(war.simulate) and war.simulate.__module__ == "tabletop_gym.oracles.war.simulation"
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        war.no_such_name  # noqa: B018


def test_bench_startup_reports_the_median_cpu_seconds(tmp_path, monkeypatch, capsys) -> None:
    """The figures themselves are the bench's to judge; here, that each command runs and is reported."""
    from tabletop_gym.training import bench

    ran = []

    def cpu_seconds(arguments, runs):  # noqa: ANN001, ANN202
        ran.append(tuple(arguments))
        return [0.3, 0.1, 0.2][:runs] if runs > 1 else [9.0]

    monkeypatch.setattr(bench, "command_cpu_seconds", cpu_seconds)
    assert (
        main(["bench", "startup", "--runs", "3", "--cache", str(tmp_path / "c"), "--out", str(tmp_path)]) == 0
    )
    report = json.loads((tmp_path / "startup.json").read_text())
    assert report["runs"] == 3
    assert report["version_cpu_seconds_median"] == 0.2  # the median of the timed runs, not the warm-up
    assert set(report) == {"runs"} | {f"{name}_cpu_seconds_median" for name in bench.STARTUP_COMMANDS}
    assert ("--version",) in ran
    solves = [a for a in ran if a[0] == "solve" and "--help" not in a]
    assert solves and all(a[-2:] == ("--cache", str(tmp_path / "c")) for a in solves)
    assert "version_cpu_seconds_median" in capsys.readouterr().out


def test_command_cpu_seconds_runs_the_command_and_refuses_a_failure(tmp_path) -> None:
    from tabletop_gym.training.bench import command_cpu_seconds

    (seconds,) = command_cpu_seconds(["--version"], 1)
    assert seconds > 0
    with pytest.raises(RuntimeError, match="tabletop-gym solve nosuchgame failed: .*invalid choice"):
        command_cpu_seconds(["solve", "nosuchgame"], 1)


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "nmbr9", "--seed", "3", "--grid", "7"],
        ["evaluate", "war", "--agent", "random", "--ranks", "4"],
        ["demo", "modern_art"],
        ["bench", "startup", "--runs", "2"],
        ["suite", "build", "cribbage-v0", "--size", "3"],
        ["baselines", "--seeds", "2"],
    ],
)
def test_the_parser_of_one_run_reads_it_as_the_whole_parser_does(argv) -> None:
    """A run builds only the command it names: the same namespace, and the same help at every level."""
    from tabletop_gym.training.cli import build_parser, parser_for

    assert vars(parser_for(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))
    assert parser_for(argv).format_help() == build_parser().format_help()
    whole, one = build_parser(), parser_for(argv)
    for depth in range(1, 3):
        path = [word for word in argv[:depth] if not word.startswith("-")]
        assert _help_at(one, path) == _help_at(whole, path), path


def _help_at(parser, path):  # noqa: ANN001, ANN202
    import argparse

    for word in path:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[word]
    return parser.format_help()

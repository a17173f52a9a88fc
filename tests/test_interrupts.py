"""Ctrl-C: real ``tabletop-gym`` processes get SIGINT at chosen moments of each long command.

Every command, interrupted at any moment, exits 130 with one line on stderr and no traceback, and
what it leaves behind (cache entries, ``--deals`` lines, a suite file, a training folder) is what an
uninterrupted run gives, only less of it. The moments are found by reading the process's output and
files (and, for a CP-SAT solve, its threads), not by fixed sleeps.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.oracles import cribbage
from tabletop_gym.training import suites

ROOT = Path(__file__).resolve().parents[1]
# The command's own entry module, run as the console script runs it (``from tabletop_gym_cli import
# main; sys.exit(main())``). A terminal hands a command SIGINT at its default; a shell's background
# job (as a CI runner may start pytest) would hand it on ignored, so the driver puts Python's default
# back first. It says "started" once the entry module is loaded, just before main() imports the
# package (an interrupt while Python itself compiles the entry module is Python's, not ours).
DRIVER = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from tabletop_gym_cli import main; sys.argv[0] = 'tabletop-gym'; "
    "print('started', flush=True); sys.exit(main())"
)
# Run before DRIVER: a SIGINT sent from inside the package's import, at the moment numpy's C extension
# imports ``datetime`` (``PyCapsule_Import``). Python's handler raised KeyboardInterrupt there, which
# numpy reported as "Importing the numpy C-extensions failed" (an ImportError, ~50 lines, exit 1): the
# C import drops the interrupt, so nothing in the error says it was one. A finder sees every import
# not yet loaded, so the moment is the same on every run.
SIGINT_INSIDE_NUMPY = """
import os, signal, sys
class SigintInsideNumpy:
    def find_spec(self, name, path=None, target=None):
        if name == 'datetime' and 'numpy' in sys.modules:
            sys.meta_path.remove(self)
            print('interrupting numpy', flush=True)
            os.kill(os.getpid(), signal.SIGINT)
sys.meta_path.insert(0, SigintInsideNumpy())
"""
# Run before DRIVER: an ImportError raised from a KeyboardInterrupt (how a library may report an
# interrupt during its import) while main() imports the package.
INTERRUPT_AS_IMPORT_ERROR = """
import sys
class InterruptAsImportError:
    def find_spec(self, name, path=None, target=None):
        if name == 'tabletop_gym.training.cli':
            print('interrupting the import', flush=True)
            raise ImportError('a library failed to load') from KeyboardInterrupt()
sys.meta_path.insert(0, InterruptAsImportError())
"""
PATIENCE = 300.0  # seconds a moment may take to come on a loaded machine (a first numba compile)
KNOWN_CRIBBAGE = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"
WAR_SEED_1 = "89T79288J7A6A3T2QK8T5J4Q6J/3567J54A2396K794QKQ243TK5A"


class Command:
    """A ``tabletop-gym`` process in ``folder`` (its working directory, cache and outputs there)."""

    def __init__(self, folder: Path, *args: str, before: str = "") -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.stdout_path = folder / "stdout.txt"
        self.stderr_path = folder / "stderr.txt"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"  # its lines reach the file as they are printed
        env["TABLETOP_GYM_CACHE"] = str(folder / "default-cache")
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-c", before + DRIVER, *args], cwd=folder, env=env, stdout=out, stderr=err
            )

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def wait_for(self, moment: Callable[[], bool], what: str) -> None:
        """Poll until ``moment()``; the process must still be running then."""
        deadline = time.monotonic() + PATIENCE
        while not moment():
            if self.process.poll() is not None:
                status = self.process.returncode
                raise AssertionError(f"ended ({status}) before {what}: {self.stderr[-2000:]}")
            if time.monotonic() > deadline:
                self.process.kill()
                raise AssertionError(f"no {what} within {PATIENCE:g} s")
            time.sleep(0.02)
        assert self.process.poll() is None, f"ended right at {what}: {self.stderr[-2000:]}"

    def interrupt(self) -> int:
        """Ctrl-C; the exit status."""
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(PATIENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("still running long after Ctrl-C") from None

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/task"))

    def cpu_seconds(self) -> float:
        """CPU time the process has used (all its threads): its progress, whatever the load."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_for_work(self, seconds: float, what: str) -> None:
        """Poll until the process has worked ``seconds`` more CPU time: from a point between two
        deals, that lands inside the next deal's oracle (about a CPU second a Cribbage deal)."""
        start = self.cpu_seconds()
        self.wait_for(lambda: self.cpu_seconds() >= start + seconds, what)


def assert_interrupted(status: int, stderr: str, progress: bool = False) -> None:
    """Exit 130 and one line (after the progress bar, for a command that shows one)."""
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    lines = [line for line in stderr.replace("\r", "\n").splitlines() if line.strip()]
    if not progress:
        assert len(lines) == 1, stderr
    assert lines[-1].startswith("tabletop-gym: interrupted"), stderr
    assert status == 130, stderr


def cache_entries(root: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(root.rglob("*.json"))]


def without_seconds(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in ("seconds", "stats")}


def cribbage_suite() -> dict[str, dict]:
    """The published Cribbage suite (every deal solved to the end, and checked): an uninterrupted run."""
    return {e.deal: e for e in suites.load("cribbage-v1").entries}


needs_proc = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc/PID/task")


def cp_sat_running(command: Command, before: int) -> Callable[[], bool]:
    """True once CP-SAT's two workers run beside the threads there were before the solve."""
    return lambda: command.threads() >= before + 2


# ---- in process: the shared mechanisms -----------------------------------------------------------


@contextmanager
def sigint_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the block, as Python's own handler does; one arriving after
    the block is dropped rather than raised in pytest."""
    armed = [True]

    def handler(signum: int, frame: object) -> None:
        if armed[0]:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        armed[0] = False
        signal.signal(signal.SIGINT, previous)


def _sigint_soon(delay: float) -> threading.Timer:
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_an_interrupted_cp_sat_solve_raises_and_caches_nothing(tmp_path, monkeypatch) -> None:
    """CP-SAT caught SIGINT itself and returned its best so far as if the limit had run out."""
    from ortools.sat.python import cp_model

    from tabletop_gym.envs.war.rules import DEFAULT_RULES
    from tabletop_gym.oracles.war import cpsat

    real = cp_model.CpSolver.solve
    timers = []

    def solve_then_interrupt(self, model, callback=None):  # noqa: ANN001, ANN202
        timers.append(_sigint_soon(0.3))  # Ctrl-C while CP-SAT searches
        return real(self, model, callback)

    monkeypatch.setattr(cp_model.CpSolver, "solve", solve_then_interrupt)
    cache = OracleCache(tmp_path)
    with sigint_raises(), pytest.raises(KeyboardInterrupt):
        cache.solve(
            "war",
            "horizon26",
            WAR_SEED_1,
            lambda: cpsat.solve_horizon_cpsat(WAR_SEED_1, 26, DEFAULT_RULES, time_limit=120),
        )
    for timer in timers:
        timer.join()
    assert timers and cache_entries(tmp_path) == []


def test_a_sigint_while_the_worker_starts_still_stops_and_joins_it(monkeypatch) -> None:
    """A Ctrl-C landing inside ``Thread.start()`` (it waits for the thread to run) escaped with the
    worker still searching; the process then exited under a running CP-SAT search and aborted with
    "terminate called without an active exception" (seen in CI)."""
    from tabletop_gym import core

    real_start = threading.Thread.start
    stopped = threading.Event()
    workers: list[threading.Thread] = []

    def start_then_interrupt(self: threading.Thread) -> None:
        real_start(self)
        workers.append(self)
        os.kill(os.getpid(), signal.SIGINT)  # as if the signal came during start()'s wait
        time.sleep(0.05)  # room for Python to run the handler before start() returns

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
    with sigint_raises(), pytest.raises(KeyboardInterrupt):
        core.run_interruptibly(lambda: stopped.wait(30), stopped.set)
    monkeypatch.undo()
    assert workers and stopped.is_set() and not workers[0].is_alive()


def test_a_sigint_inside_the_cribbage_kernel_is_a_keyboard_interrupt() -> None:
    """A SIGINT during the numba kernel gave SystemError (... returned a result with an exception set)."""
    from tabletop_gym.oracles import cribbage

    expected = cribbage.solve(KNOWN_CRIBBAGE, threads=2)  # compiled (or loaded) before the moment
    walk = cribbage._walk_roots
    timers = []

    class Interrupting:
        """``_walk_roots`` with a SIGINT sent while it runs."""

        def __getattr__(self, name: str) -> object:
            return getattr(walk, name)

        def __call__(self, *args: object) -> object:
            timers.append(_sigint_soon(0.05))
            return walk(*args)

    cribbage._walk_roots = Interrupting()
    try:
        with sigint_raises(), pytest.raises(KeyboardInterrupt):
            cribbage.solve(KNOWN_CRIBBAGE, threads=2)
    finally:
        cribbage._walk_roots = walk
        for timer in timers:
            timer.join()
    assert timers and cribbage.solve(KNOWN_CRIBBAGE, threads=2).score == expected.score


# ---- real processes, every long command ----------------------------------------------------------


def test_ctrl_c_while_the_package_imports(tmp_path) -> None:
    command = Command(tmp_path, "solve", "war", "--horizon", "3", "--seed", "1")
    command.wait_for(lambda: "started" in command.stdout, "start")
    assert_interrupted(command.interrupt(), command.stderr)


def test_ctrl_c_while_numpy_loads_its_c_extension(tmp_path) -> None:
    """The signal is held while the package loads and answered once it has loaded: numpy never sees
    a KeyboardInterrupt to turn into its ImportError, and the command does not start."""
    command = Command(tmp_path, "solve", "war", "--horizon", "3", "--seed", "1", before=SIGINT_INSIDE_NUMPY)
    status = command.process.wait(PATIENCE)
    assert "interrupting numpy" in command.stdout  # the moment came, inside numpy's import
    assert_interrupted(status, command.stderr)
    assert "simulated" not in command.stdout


def test_an_import_error_caused_by_an_interrupt_is_an_interrupt(tmp_path) -> None:
    command = Command(
        tmp_path, "solve", "war", "--horizon", "3", "--seed", "1", before=INTERRUPT_AS_IMPORT_ERROR
    )
    status = command.process.wait(PATIENCE)
    assert "interrupting the import" in command.stdout
    assert_interrupted(status, command.stderr)


@needs_proc
def test_ctrl_c_during_a_cp_sat_solve_keeps_no_answer(tmp_path) -> None:
    """The issue's case: interrupted, the solve printed and cached CP-SAT's best so far (26 cards,
    bound 52) as the limit's answer, and exited 0."""
    cache = tmp_path / "cache"
    args = ["solve", "war", "--horizon", "26", "--seed", "1", "--method", "cpsat", "--time-limit", "120"]
    command = Command(tmp_path, *args, "--cache", str(cache))
    command.wait_for(lambda: "simulated" in command.stdout, "the simulation before the oracle")
    command.wait_for(cp_sat_running(command, command.threads()), "CP-SAT's workers")
    assert_interrupted(command.interrupt(), command.stderr)
    assert "best" not in command.stdout and cache_entries(cache) == []


def test_ctrl_c_during_solve_deals_keeps_only_finished_lines(tmp_path) -> None:
    """Each line the interrupted batch wrote is the line an uninterrupted run writes for that deal;
    the deal in flight (its CP-SAT solve cut short) is not written."""
    options = ["--horizon", "26", "--method", "cpsat", "--time-limit", "1", "--no-progress"]
    out = tmp_path / "cut" / "lines.jsonl"
    command = Command(
        tmp_path / "cut", "solve", "war", "--deals", "1:6", *options, "--out", str(out), "--cache", "c"
    )
    command.wait_for(lambda: out.is_file() and out.read_text().count("\n") >= 1, "the first line")
    assert_interrupted(command.interrupt(), command.stderr)
    cut = [json.loads(line) for line in out.read_text().splitlines()]
    seeds = [line["seed"] for line in cut]
    assert 1 <= len(cut) < 5 and seeds == list(range(1, len(cut) + 1))
    whole = tmp_path / "whole" / "lines.jsonl"
    again = Command(
        tmp_path / "whole", "solve", "war", "--deals", f"1:{len(cut) + 1}", *options, "--out", str(whole)
    )
    assert again.process.wait(PATIENCE) == 0, again.stderr
    assert [without_seconds(x) for x in cut] == [
        without_seconds(json.loads(line)) for line in whole.read_text().splitlines()
    ]


@needs_proc
def test_ctrl_c_during_evaluate_caches_only_finished_solves(tmp_path) -> None:
    """The issue's Cribbage case (SystemError from the numba kernel, exit 1); what is cached is
    what the published suite holds for those deals."""
    cache = tmp_path / "cache"
    out = tmp_path / "report"
    command = Command(
        tmp_path, "evaluate", "cribbage", "--agent", "greedy", "--episodes", "30", "--cache", str(cache),
        "--out", str(out), "--no-progress",
    )  # fmt: skip
    command.wait_for(lambda: any(cache.rglob("*.json")), "the first cached solve")
    command.wait_for_work(0.3, "the second deal's kernel")
    assert_interrupted(command.interrupt(), command.stderr)
    entries = cache_entries(cache)
    published = cribbage_suite()
    assert entries and not (out / "evaluation.json").exists()
    for entry in entries:
        # A deal may have several optimal plans (which one the kernel keeps can depend on its thread
        # count): the optimum is compared, the plan replayed.
        result = OracleResult.from_json(entry["result"])
        expected = published[entry["deal"]]
        assert (result.score, result.bound) == (expected.score, expected.bound)
        assert cribbage.check(entry["deal"], result)


@needs_proc
def test_ctrl_c_during_suite_build_keeps_finished_entries(tmp_path) -> None:
    path = tmp_path / "suite.json"
    cache = tmp_path / "cache"
    command = Command(
        tmp_path, "suite", "build", "cribbage-v1", "--size", "6", "--out", str(path), "--cache", str(cache),
        "--no-progress",
    )  # fmt: skip
    command.wait_for(lambda: len(list(cache.rglob("*.json"))) >= 2, "two solved deals")
    command.wait_for_work(0.3, "the third deal's kernel")
    assert_interrupted(command.interrupt(), command.stderr)
    entries = json.loads(path.read_text())["entries"]
    published = suites.load("cribbage-v1").entries
    assert 2 <= len(entries) < 6
    for entry, expected in zip(entries, published, strict=False):
        assert (entry["seed"], entry["deal"], entry["score"], entry["bound"]) == (
            expected.seed,
            expected.deal,
            expected.score,
            expected.bound,
        )
        played = OracleResult(entry["score"], entry["bound"], tuple(entry["plan"]))
        assert cribbage.check(entry["deal"], played)


def test_ctrl_c_during_dataset_leaves_no_half_dataset(tmp_path) -> None:
    out = tmp_path / "datasets"
    command = Command(
        tmp_path, "dataset", "war", "--suite", "war-r6s2-v0", "--limit", "400", "--out", str(out),
        "--no-progress",
    )  # fmt: skip

    def staged() -> bool:
        return out.is_dir() and any(p.name.startswith(".tabletop-gym-dataset-") for p in out.iterdir())

    command.wait_for(staged, "the staging folder")
    command.wait_for_work(0.5, "episodes being recorded")
    assert_interrupted(command.interrupt(), command.stderr)
    # Neither the dataset nor its staging folder: Minari finds nothing there.
    assert not (out / "tabletop" / "war-r6s2-v0" / "oracle-v0").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".tabletop-gym-dataset-")]


def test_ctrl_c_during_bench_writes_no_report(tmp_path) -> None:
    out = tmp_path / "bench"
    command = Command(tmp_path, "bench", "cribbage", "--deals", "5", "--out", str(out))
    command.wait_for(lambda: "oracle" in command.stderr, "the oracle timings")
    assert_interrupted(command.interrupt(), command.stderr, progress=True)
    assert not out.exists() or not any(out.iterdir())


def test_ctrl_c_during_train_keeps_a_checkpoint_not_a_model(tmp_path) -> None:
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    command = Command(
        tmp_path, "train", "war", "--ranks", "6", "--suits", "2", "--steps", "100000", "--n-envs", "1",
        "--checkpoint-every", "64", "--no-progress", "--out", str(out),
    )  # fmt: skip
    command.wait_for(lambda: (out / "checkpoint.zip").is_file(), "the first checkpoint")
    status = command.interrupt()
    assert_interrupted(status, command.stderr)
    assert "checkpoint saved" in command.stderr and "--resume" in command.stderr
    assert not (out / "model.zip").exists()
    config = json.loads((out / "config.json").read_text())
    assert config["interrupted"] is True and config["steps_done"] < 100_000

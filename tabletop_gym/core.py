"""What every game shares: the Agent protocol, errors, the oracle result and its on-disk cache, deal and
mask helpers."""

from __future__ import annotations

import _signal
import copy
import dataclasses
import hashlib
import json
import math
import numbers
import os
import signal
import stat
import sys
import threading
import time
import uuid
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

__all__ = [
    "Agent",
    "TabletopError",
    "InvalidDealError",
    "IllegalActionError",
    "GameOverError",
    "CacheError",
    "OutputInUseError",
    "OracleResult",
    "OracleCache",
    "default_cache_dir",
    "mask_to_int8",
    "legal_actions",
    "check_characters",
    "make_rng",
    "check_int",
    "check_float",
    "quote_input",
    "atomic_write_text",
    "atomic_output",
    "hold_output",
    "read_regular",
    "run_interruptibly",
    "sigint_deferred",
    "compile_kernel",
    "call_kernel",
    "vector_seeds",
    "vector_actions",
    "cp_solve",
    "LegalActionSpace",
    "TabletopEnv",
    "Table",
]


@runtime_checkable
class Agent(Protocol):
    """A player: ``reset`` before each episode, then ``act`` once per decision.

    ``act`` gets the environment's observation and info (``info["action_mask"]`` lists the legal
    actions) and returns an action index. Random players, heuristics, rule bots and trained policies
    all follow this, so any of them can be the evaluated agent or an opponent.
    """

    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: Any, info: dict[str, Any]) -> int: ...


class TabletopError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidDealError(TabletopError, ValueError):
    """A deal string (or deal parameters) that does not describe a valid deal."""


class IllegalActionError(TabletopError, ValueError):
    """An action that the rules do not allow in the current position."""

    def __init__(self, action: Any, legal: Sequence[Any] | None = None, why: str = "") -> None:
        if legal is None and isinstance(action, IllegalActionError):
            # Gymnasium's async vector environment re-raises a worker's error as ``type(error)(error)``:
            # the copy keeps the original's action, legal actions and message.
            action, legal, why = action.action, action.legal, action.why
        legal = () if legal is None else legal
        if isinstance(action, (np.generic, np.ndarray)) and np.ndim(action) == 0:
            action = action.item()  # model.predict's array(3) reads as 3
        self.action = action
        self.legal = [int(a) if isinstance(a, np.integer) else a for a in legal]
        self.why = why
        reason = f" ({why})" if why else ""
        super().__init__(f"illegal action {quote_input(action)}{reason}; legal actions: {self.legal}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle rebuilds an exception from ``self.args`` (the message alone), which this __init__ does
        # not take: without this, the error turns into a TypeError crossing a process boundary (async
        # vector environments, SubprocVecEnv, Ray workers) and its message is lost.
        return (type(self), (self.action, self.legal, self.why))


class GameOverError(TabletopError, RuntimeError):
    """A step was asked of a game that has already ended."""


class CacheError(TabletopError, OSError):
    """The oracle cache cannot be used at all (its root is a file, an entry is a folder or a FIFO)."""


class OutputInUseError(TabletopError, RuntimeError):
    """Another run holds the output (a folder or a file) this run was asked to write."""


def quote_input(text: Any, limit: int = 80) -> str:
    """``repr`` of user input, cut to ``limit`` characters (a 10 MB deal gives a short message)."""
    if isinstance(text, str) and len(text) > limit:
        return f"{text[:limit]!r}... ({len(text)} characters)"
    return repr(text)


def check_int(
    name: str, value: Any, low: int | None = None, high: int | None = None, optional: bool = False
) -> int | None:
    """``value`` as a Python int within ``[low, high]``, or a ValueError that names ``name``.

    Accepts Python and numpy integers (not bools, not floats that happen to be whole); with
    ``optional`` also None. Every numeric option of the package goes through this or
    ``check_float``, at the command line and in the API alike.
    """
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {quote_input(value)}")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be at most {high}, got {value}")
    return value


def check_float(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    optional: bool = False,
    low_open: bool = False,
) -> float | None:
    """``value`` as a finite float within ``[low, high]`` (``(low, high]`` with ``low_open``), or a
    ValueError that names ``name``: NaN and infinities never pass, so a limit always binds."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {quote_input(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    if low is not None and (value <= low if low_open else value < low):
        raise ValueError(f"{name} must be {'above' if low_open else 'at least'} {low:g}, got {value:g}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be at most {high:g}, got {value:g}")
    return value


@dataclasses.dataclass(frozen=True)
class OracleResult:
    """What an oracle proves about one deal.

    ``score`` is achieved by ``plan`` (the engine replays it), ``bound`` is a proven upper bound on
    any play of the deal, and ``optimal`` means the two meet. ``seconds`` is the solve time and
    ``stats`` holds solver-specific figures (states visited, nodes, status...).
    """

    score: float
    bound: float
    plan: tuple[Any, ...]
    seconds: float = 0.0
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.score > self.bound:
            raise ValueError(f"oracle score {self.score} exceeds its own bound {self.bound}")

    @property
    def optimal(self) -> bool:
        return self.score == self.bound

    @property
    def gap(self) -> float:
        return self.bound - self.score

    def to_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "bound": self.bound,
            "optimal": self.optimal,
            "plan": _plain(self.plan),
            "seconds": self.seconds,
            "stats": _plain(self.stats),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OracleResult:
        return cls(
            score=data["score"],
            bound=data["bound"],
            plan=_as_tuple(data["plan"]),
            seconds=float(data.get("seconds", 0.0)),
            stats=dict(data.get("stats", {})),
        )


# -- the value of every move: one contract for every game whose oracle proves optima ---------------------


class NoMoveOracleError(TabletopError, ValueError):
    """The game or its settings have no oracle that proves each move's value."""


@dataclasses.dataclass(frozen=True)
class MoveValues:
    """What an oracle proves about one position reached in play (a :class:`MoveOracle`'s answer).

    ``optimum`` is the most the seat can still gain from the position to the end of the game (not
    counting what it has scored); ``values`` gives each legal action its reward plus the optimum from
    the position it leads to; ``plan`` is an optimal continuation, which the engine has replayed from
    the position to gain exactly ``optimum``. An action's loss, ``optimum - values[action]``, is what
    that decision gives away. The optimum after an action is the optimum of the next position, so the
    losses of a game's decisions add up to exactly the deal's optimum minus the score played. Values
    are exact, never bounds: a setting whose oracle only bounds the optimum has no move oracle
    (:class:`NoMoveOracleError`).
    """

    optimum: float
    values: Mapping[int, float]
    plan: tuple[int, ...]

    @property
    def best(self) -> int:
        """The optimal action the plan starts with."""
        return self.plan[0]

    def loss(self, action: int) -> float:
        """What ``action`` gives away against the best move (0 for an optimal one)."""
        try:
            return self.optimum - self.values[int(action)]
        except KeyError:
            raise ValueError(
                f"action {action} is not legal here; the legal actions are {sorted(self.values)}"
            ) from None


class MoveOracle(Protocol):
    """A game's move oracle, made for one deal (``deal``, the deal string as ``info["deal"]`` gives
    it): the :class:`MoveValues` of any position play reaches (what ``evaluate --moves`` reads)."""

    deal: str

    def at(self, history: Sequence[int]) -> MoveValues:
        """The values at the position that ``history`` (the actions from the deal's start) reaches;
        raises ``ValueError`` for a history that is not a legal play of the deal, or one that has
        ended the game (no decision is left to value)."""
        ...


def _plain(value: Any) -> Any:
    """Turn tuples and numpy scalars into JSON-friendly values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _as_tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_as_tuple(v) for v in value)
    return value


def default_cache_dir() -> Path:
    """``$TABLETOP_GYM_CACHE`` if set, else ``~/.cache/tabletop-gym``."""
    env = os.environ.get("TABLETOP_GYM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "tabletop-gym"


class OracleCache:
    """Oracle results on disk, one JSON file per (game, variant, deal).

    Every entry carries the game, variant and deal it answers and a checksum of its result. An
    entry that does not parse as one, answers another question, fails its checksum or fails the
    caller's check (normally a replay of its plan through the engine) is ignored and recomputed.
    What that guarantees: a cached score is achieved by its plan, re-proven on every load. The
    bound, and so the claim of optimality, is trusted as written: the checksum catches damage, not
    forgery by someone who can write the folder. Writes are atomic, so an interrupted run never
    leaves a half-written entry; a cache that cannot be written costs a warning, not the result.
    """

    FORMAT = 2
    # Format 1 entries were written before an interrupted solve raised: one cut short by Ctrl-C could
    # be stored as the limit's answer. A proven optimum stays true however its search ended, so those
    # are kept; a format-1 bound (not optimal) is solved again.
    _PROVEN_ONLY = frozenset({1})
    # Roots already warned about in this process: the command line opens a cache per deal (and a
    # demo one more for its first deal), and one unwritable folder is one warning, not one a deal.
    _warned_roots: set[Path] = set()

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.hits = 0
        self.misses = 0
        self.rejected = 0

    def path(self, game: str, variant: str, deal: str) -> Path:
        digest = hashlib.sha256(f"{game}\0{variant}\0{deal}".encode()).hexdigest()[:32]
        return self.root / game / _safe_name(variant) / f"{digest}.json"

    def load(
        self,
        game: str,
        variant: str,
        deal: str,
        check: Callable[[OracleResult], bool] | None = None,
    ) -> OracleResult | None:
        path = self.path(game, variant, deal)
        self._check_usable(path)
        try:
            if not path.exists():
                raise FileNotFoundError(path)
            entry = json.loads(path.read_text())
            if not isinstance(entry, dict) or not isinstance(entry.get("result"), dict):
                raise ValueError("entry is not a cache record")
            if (
                entry.get("format") not in (self.FORMAT, *self._PROVEN_ONLY)
                or entry.get("game") != game
                or entry.get("variant") != variant
                or entry.get("deal") != deal
                or entry.get("checksum") != _checksum(entry["result"])
            ):
                raise ValueError("entry answers another question or was altered")
            result = OracleResult.from_json(entry["result"])
            if entry["format"] in self._PROVEN_ONLY and not result.optimal:
                raise ValueError("a bound from before interrupts were told apart from limits")
            if check is not None and not check(result):
                raise ValueError("entry failed its check")
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError, IndexError):
            # Whatever an entry holds, a bad one costs a recomputation, never a crash.
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return result

    def _check_usable(self, path: Path) -> None:
        """Refuse what would hang or fail on every run: a root (or folder) that is a file, an entry
        that is a folder, a FIFO or a device (reading a FIFO blocks forever)."""
        # The root's own parents too: a root under a file fails on every write, wherever the root
        # came from (--cache, which the command line refuses alike, or $TABLETOP_GYM_CACHE).
        for parent in (*self.root.parents, self.root, *[p for p in path.parents if self.root in p.parents]):
            if parent.exists() and not parent.is_dir():
                raise CacheError(
                    f"oracle cache {self.root}: {parent} is not a folder; "
                    "set $TABLETOP_GYM_CACHE or --cache to a folder"
                )
        if path.exists() and not path.is_file():
            raise CacheError(
                f"oracle cache entry {path} is not a regular file; remove it or choose another cache folder"
            )

    def store(self, game: str, variant: str, deal: str, result: OracleResult) -> bool:
        """Write the entry; a cache that cannot be written (read-only, disk full) costs a warning on
        stderr, never the result. Returns whether the entry was written."""
        payload = result.to_json()
        entry = {
            "format": self.FORMAT,
            "game": game,
            "variant": variant,
            "deal": deal,
            "result": payload,
            "checksum": _checksum(payload),
        }
        path = self.path(game, variant, deal)
        self._check_usable(path)
        try:
            atomic_write_text(path, json.dumps(entry))
        except OSError as error:
            root = self.root.resolve()
            if root not in OracleCache._warned_roots:
                print(f"tabletop-gym: warning: oracle cache not written ({error})", file=sys.stderr)
                OracleCache._warned_roots.add(root)
            return False
        return True

    def solve(
        self,
        game: str,
        variant: str,
        deal: str,
        solve: Callable[[], OracleResult],
        check: Callable[[OracleResult], bool] | None = None,
    ) -> OracleResult:
        """The cached result for this deal, or ``solve()``'s, stored for next time."""
        cached = self.load(game, variant, deal, check)
        if cached is not None:
            return cached
        result = solve()
        self.store(game, variant, deal, result)
        return result


def _checksum(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _safe_name(text: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    return cleaned or "default"


def _file_mode() -> int:
    """The mode a new file gets under the process's umask (mkstemp's 0600 would lock out a
    cache or run folder shared between users)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a fresh temporary path beside ``path`` (same suffix); on success it replaces ``path``.

    For writers that take a file name (``model.save``, ``savefig``): readers see the old file or the
    new one, never a mix, and two runs writing the same file never share a temporary name.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:12]}.tmp{path.suffix}")
    try:
        yield tmp
        if tmp.exists():
            os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write a file so that readers see the old content or the new one, never a mix."""
    with atomic_output(path) as tmp:
        with open(tmp, "x") as handle:
            handle.write(text)


LOCK_NAME = ".tabletop-gym.lock"


@contextmanager
def hold_output(path: str | os.PathLike[str], what: str = "--out", folder: bool = False) -> Iterator[Path]:
    """Hold the lock of an output for as long as this run writes it: a folder (``folder=True``, the
    lock is ``.tabletop-gym.lock`` in it) or a file (the lock is ``.NAME.lock`` beside it).

    Atomic writes keep each file whole, but two runs writing one output still mix their work (one
    run's config beside the other's model, a results file with every deal twice). So a second run
    is refused at once with an ``OutputInUseError`` naming the output: waiting instead could mean
    hours behind a training run, and two runs aimed at one output are nearly always a mistake. The
    lock is the operating system's (``flock``, through filelock), so a run that dies frees it. Yields
    the lock file's path.
    """
    from filelock import FileLock, Timeout

    path = Path(path)
    # Beside the real file: two spellings of one output (a symlink, "a/../b") share one lock.
    real = path.resolve()
    lock_path = real / LOCK_NAME if folder else real.with_name(f".{real.name}.lock")
    made = _missing_folders(lock_path.parent)
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        # Made here first: filelock reports a lock it cannot create as one another run holds.
        lock_path.touch(exist_ok=True)
    except OSError as error:
        raise ValueError(f"{what} {path} cannot be written ({error.strerror or error})") from None
    lock = FileLock(lock_path, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise OutputInUseError(
            f"{what} {path} is in use: another run is writing it (it holds {lock_path}); wait for that "
            f"run to end or choose another {what}"
        ) from None
    try:
        yield lock_path
    finally:
        lock.release()
        _remove_if_unwritten(lock_path, real, folder, made)


def _missing_folders(folder: Path) -> list[Path]:
    """The folders on the way to ``folder`` that do not exist yet, innermost first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_if_unwritten(lock_path: Path, real: Path, folder: bool, made: list[Path]) -> None:
    """A run refused or stopped before it wrote anything leaves nothing behind: not its lock, not the
    folders made for it. Only when the output holds nothing, so a lock that guards work stays."""
    try:
        unwritten = (not any(p != lock_path for p in real.iterdir())) if folder else not real.exists()
        if unwritten:
            lock_path.unlink(missing_ok=True)
            for empty in made:
                empty.rmdir()
    except OSError:
        pass  # a leftover lock file is harmless; never let tidying hide the run's own outcome


def read_regular(path: str | os.PathLike[str], what: str = "") -> bytes:
    """The bytes a regular file holds when it is opened, and no more (FileNotFoundError without it).

    Anything else is refused with a ValueError: a device (``/dev/zero``) reads without end, a FIFO
    blocks until a writer comes, a folder has no bytes. Opened without blocking and checked again once
    open, so a path swapped after the first check cannot hang the read either."""
    path = Path(path)
    name = f"{what} {path}" if what else str(path)
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{name} is not a regular file (a folder, a device or a FIFO); expected a file")
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise ValueError(f"{name} is not a regular file; expected a file")
        return handle.read(status.st_size)


_T = TypeVar("_T")

# How often the main thread wakes while a solver works in another thread: Python runs its signal
# handlers only between bytecodes of the main thread, so a Ctrl-C is seen within this many seconds.
_JOIN_SLICE = 0.05


def run_interruptibly(work: Callable[[], _T], stop: Callable[[], None] | None = None) -> _T:
    """``work()``, run so that Ctrl-C interrupts it promptly: ``KeyboardInterrupt`` is raised, never a
    result that the interrupt cut short.

    ``work`` must release the GIL while it computes (a CP-SAT solve, a ``nogil`` numba kernel): on
    the main thread it runs in a worker thread while the main thread waits in short joins, so
    Python's SIGINT handler runs. On an interrupt ``stop()`` asks ``work`` to end early (repeated
    until it does, as the first request can come before ``work`` has started listening), the
    worker is joined, and the ``KeyboardInterrupt`` goes on with whatever ``work`` returned thrown
    away. Off the main thread (no signal reaches it) ``work`` simply runs.
    """
    if threading.current_thread() is not threading.main_thread():
        return work()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed to the caller's thread below
            outcome["error"] = error

    worker = threading.Thread(target=target, name="tabletop-gym-solve", daemon=True)
    try:
        # Thread.start() waits for the thread to run: a Ctrl-C landing in that wait left a worker
        # searching unwatched while the process exited, and C++ threads killed at exit abort
        # ("terminate called without an active exception"). Held back here, it is raised below,
        # where the worker is stopped and joined.
        with sigint_deferred():
            worker.start()
        while worker.is_alive():
            worker.join(_JOIN_SLICE)
    except KeyboardInterrupt:
        with sigint_deferred():  # a second Ctrl-C while the worker winds down is the same request
            while worker.is_alive():
                if stop is not None:
                    stop()
                worker.join(_JOIN_SLICE)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C back until the block ends, then deliver it (``KeyboardInterrupt`` as usual).

    For short compiled calls that cannot be stopped from outside (numba kernels): numba's compiled
    code calls back into Python on entry, so a SIGINT arriving during a kernel raised inside that
    call and broke it (``SystemError: ... returned a result with an exception set``, or worse in a
    parallel region). While deferred, the SIGINT handler only records the signal; the previous
    handler is put back and called afterwards. Off the main thread, where Python runs no signal
    handler, and where SIGINT is ignored or left to the system (``SIG_IGN``, ``SIG_DFL``), it does
    nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # ``_signal``'s functions, not ``signal``'s: these wrap each handler in and out of an enum, which
    # took a block from about 4 to 18 microseconds of CPU, twice in every step of a native vector
    # environment. The handlers are the same objects either way (SIG_DFL and SIG_IGN as plain ints).
    previous = _signal.getsignal(signal.SIGINT)
    if not callable(previous):
        yield
        return
    caught: list[Any] = []
    _signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:
        _signal.signal(signal.SIGINT, previous)
        if caught:
            previous(signal.SIGINT, caught[0])


def compile_kernel(kernel: Any, *args: Any) -> None:
    """Compile (or load from numba's cache) the specialization of the numba ``kernel`` that
    ``kernel(*args)`` runs, without running it. Compiling is Python code, which a Ctrl-C stops
    cleanly; calling this first keeps a kernel's first call (seconds to a minute after an install or
    an edit) out of ``sigint_deferred`` and out of a worker thread that cannot be stopped."""
    import numba

    kernel.compile(tuple(numba.typeof(a) for a in args))


def call_kernel(kernel: Any, *args: Any) -> Any:
    """``kernel(*args)`` for a numba kernel that a Ctrl-C must not break: compiled first, then run
    with SIGINT deferred (see ``sigint_deferred``), so an interrupt is raised as soon as it returns."""
    compile_kernel(kernel, *args)
    with sigint_deferred():
        return kernel(*args)


def vector_seeds(seed: Any, num_envs: int) -> list[int | None]:
    """The seed of each sub-environment for a native vector environment's ``reset(seed=...)``, as
    ``SyncVectorEnv`` gives them: ``s`` seeds sub-environment i with ``s + i``, a sequence gives one
    to each (None leaves that one's generator as it is), None leaves them all."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, (list, tuple, np.ndarray)):
        if len(seed) != num_envs:
            raise ValueError(f"expected {num_envs} seeds (one per sub-environment), got {len(seed)}")
        return [check_int(f"seed of sub-environment {i}", s, 0, optional=True) for i, s in enumerate(seed)]
    first = check_int("seed", seed, 0)
    return [first + i for i in range(num_envs)]


def vector_actions(actions: Any, num_envs: int, what: str) -> np.ndarray:
    """A native vector environment's batch of actions as int64, one per sub-environment; a wrong
    shape or a batch of non-integers (``what`` says what an action is) raises."""
    array = np.asarray(actions)
    if array.shape != (num_envs,):
        raise ValueError(f"expected {num_envs} actions, one per sub-environment; got shape {array.shape}")
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise IllegalActionError(actions, None, f"actions must be integers ({what}), got {array.dtype}")
    return array.astype(np.int64, copy=False)


# The most sub-environments a native vector environment takes (``num_envs``).
MAX_NUM_ENVS = 1 << 20


def _references(arrays: list[np.ndarray], k: int) -> int:
    return sys.getrefcount(arrays[k])


# What ``_references`` counts for an array that only its list refers to (the count differs between
# Python versions; on a Python without reference counts, nothing is ever found unheld).
_UNHELD = _references([np.empty(0)], 0) if hasattr(sys, "getrefcount") else -1


class ReturnedArrays:
    """New arrays for what a native vector environment returns each step, reusing those it returned
    before that nobody holds any more.

    A step of a thousand games returns megabytes of new arrays (observations, masks). Allocated fresh
    each step, the C allocator hands the freed megabytes back to the system and takes them again, and
    the page faults cost a third of a fast kernel's step. An array is reused only when nothing but
    this pool refers to it (CPython's reference count): an array a caller kept, or a view of it, or
    one a tensor wraps, is never written again.
    """

    def __init__(self, keep: int = 3) -> None:
        # Three arrays a name: a loop holds the last step's while it takes the next.
        self.keep = keep
        self._arrays: dict[str, list[np.ndarray]] = {}

    def take(self, name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """An array of ``shape`` and ``dtype`` that nobody outside holds (its contents are garbage)."""
        arrays = self._arrays.setdefault(name, [])
        for k in range(len(arrays)):
            if _references(arrays, k) <= _UNHELD and arrays[k].shape == shape and arrays[k].dtype == dtype:
                return arrays[k]
        array = np.empty(shape, dtype=dtype)
        if len(arrays) < self.keep:
            arrays.append(array)
        else:  # all held: the oldest is the caller's now
            arrays.pop(0)
            arrays.append(array)
        return array

    def copy_of(self, name: str, array: np.ndarray) -> np.ndarray:
        """A new array (to the caller) equal to ``array``."""
        out = self.take(name, array.shape, array.dtype)
        np.copyto(out, array)
        return out

    def __getstate__(self) -> dict[str, Any]:
        # A cache: a copy (pickle, deepcopy) starts with none, and shares none with the original.
        return {"keep": self.keep, "_arrays": {}}


class NativeVectorEnv(gym.vector.VectorEnv):
    """What the native vector environments (N games stepped by one compiled kernel, returned by
    ``gym.make_vec`` through an id's ``vector_entry_point``) share: next-step autoreset, the masks
    that MaskablePPO and ``VectorActionMasks`` ask for, pickling, and the step's returned tuple.

    A game's subclass holds its kernel and state arrays and sets ``num_envs``, ``copy`` and
    ``_started`` (False until its first ``reset``), and gives ``_legal_actions()`` (the kernel's
    bool masks, every action legal where a game waits for its autoreset) and ``_sub_masks()`` (the
    single environments' masks, all False for a finished game).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }
    copy: bool
    _started: bool
    _mask: np.ndarray  # (num_envs, actions) int8: each single environment's info["action_mask"]
    _rewards: np.ndarray
    _terminated: np.ndarray
    _truncated: np.ndarray
    _rngs: list[np.random.Generator | None]
    _next_deal: np.ndarray

    @property
    def autoreset_mode(self) -> gym.vector.AutoresetMode:
        """``metadata["autoreset_mode"]`` as the attribute Gymnasium's own vector environments also give
        (``SyncVectorEnv.autoreset_mode``), which clients such as TorchRL's ``GymWrapper`` read."""
        return self.metadata["autoreset_mode"]

    def action_masks(self) -> np.ndarray:
        """``(num_envs, actions)`` bool: the legal actions of every sub-environment; every action for
        one whose game has ended (the next step starts its next deal and ignores the action)."""
        self._check_started("action_masks()")
        with sigint_deferred():
            return self._legal_actions()

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """What ``SyncVectorEnv.call`` gives, for the one method of the sub-environments that callers
        use on a vector environment (``VectorActionMasks``): ``call("action_masks")``, one bool mask
        per sub-environment (all False for a finished game, as its single environment says)."""
        if name != "action_masks" or args or kwargs:
            raise AttributeError(f"the native vector environment calls only 'action_masks()', not {name!r}")
        return tuple(self._sub_masks())

    def __getstate__(self) -> dict[str, Any]:
        # The attributes are arrays and plain values (generators included), pickled as they are.
        return dict(self.__dict__)

    def _deal_each(self, deals: Any, one: tuple[type, ...]) -> list[Any]:
        """The ``deal`` option of ``reset`` as one deal per sub-environment: a single deal (an
        instance of ``one``) for every one of them, or a sequence of ``num_envs`` deals."""
        if isinstance(deals, one):
            deals = [deals] * self.num_envs
        deals = list(deals)
        if len(deals) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} deals (one per sub-environment), got {len(deals)}")
        return deals

    # Games whose deals are drawn ahead by numpy, ``ahead`` at a time, from one generator a
    # sub-environment (``_rngs``; ``_next_deal``, the slot of each one's next deal; ``_refill`` draws
    # the block of a sub-environment whose slots are used up), use these two in ``reset``.

    def _seed_generators(self, seed: Any, ahead: int) -> None:
        """A new generator for each sub-environment that ``seed`` seeds (see ``vector_seeds``) or
        that has none yet, as its single environment makes one."""
        for i, s in enumerate(vector_seeds(seed, self.num_envs)):
            if s is not None or self._rngs[i] is None:
                self._rngs[i] = seeding.np_random(s)[0]
                self._next_deal[i] = ahead  # a new generator: its deals are still to draw

    def _start_slots(self, given: Any, ahead: int) -> np.ndarray:
        """The slot of the deal each sub-environment starts: its generator's next, or (``given`` not
        None) slot ``ahead``, where the caller writes the given deal."""
        self._refill()
        if given is None:
            slots = self._next_deal.copy()
            self._next_deal += 1
            return slots
        # A given deal has a slot of its own, past the generator's deals, which it leaves untouched
        # (as the single environment's generator is left untouched by a deal given to reset).
        return np.full(self.num_envs, ahead, dtype=np.int64)

    def _refill(self) -> None:
        raise NotImplementedError

    def _legal_actions(self) -> np.ndarray:
        raise NotImplementedError

    def _sub_masks(self) -> np.ndarray:
        return self._mask.astype(np.bool_)

    def _check_started(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"call reset() before {what}")

    def _out(self, array: np.ndarray) -> np.ndarray:
        """An observation array as returned: a new array, or (``copy=False``) the environment's own."""
        return array.copy() if self.copy else array

    def _step_result(
        self, observation: Any, infos: dict[str, Any]
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """``step``'s return: the kernel's reward, termination and truncation arrays copied, so the next
        step does not overwrite what a caller kept."""
        return observation, self._rewards.copy(), self._terminated.copy(), self._truncated.copy(), infos


def cp_solve(solver: Any, model: Any, callback: Any = None) -> Any:
    """``solver.solve(model, callback)`` for every CP-SAT solve of the package: a Ctrl-C raises
    ``KeyboardInterrupt`` within a fraction of a second instead of passing for the solve's own limit.

    CP-SAT by default catches SIGINT itself (``catch_sigint_signal``) and only stops the search, so
    an interrupted solve returned FEASIBLE or UNKNOWN as if its work limit had run out, and that
    weaker answer was printed, cached and written as the limit's result. Here CP-SAT leaves SIGINT to
    Python, the solve runs in a worker thread (CP-SAT releases the GIL; solution callbacks take it
    back), and an interrupt stops the search and raises.
    """
    solver.parameters.catch_sigint_signal = False
    return run_interruptibly(lambda: solver.solve(model, callback), solver.stop_search)


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a legal action of its environment.

    In most positions of most games nearly every action index is illegal, and an illegal action
    raises; uniform samples would make ``action_space.sample()`` and generic tools useless.
    ``env`` must offer ``action_masks()`` (bool) and say through ``has_position()`` whether a
    position is on the board. After ``seed(s)`` the next unmasked sample is legal in the position that
    ``env.reset(seed=s)`` produces (Gymnasium's checker seeds the space, samples, then resets with
    that seed and steps). With a mask, or pickled apart from its environment, it is a plain
    ``Discrete``; pickled with it, it follows the unpickled environment. The link to the environment
    is weak, so the space never keeps it alive.
    """

    def __init__(self, n: int, env: Any) -> None:
        super().__init__(n)
        self._env = weakref.ref(env)
        self._seeded: int | None = None

    def seed(self, seed: int | None = None) -> int:
        self._seeded = seed
        return super().seed(seed)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        env = self._env() if self._env is not None else None
        seeded, self._seeded = self._seeded, None
        if mask is not None or probability is not None or env is None:
            return super().sample(mask=mask, probability=probability)
        if seeded is not None:
            env = copy.deepcopy(env)
            env.reset(seed=seeded)
        if not env.has_position():
            return super().sample()
        legal = np.asarray(env.action_masks(), dtype=np.int8)
        return super().sample(mask=legal) if legal.any() else super().sample()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_env"] = None
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalActionSpace:
        other = LegalActionSpace.__new__(LegalActionSpace)
        memo[id(self)] = other
        for key, value in self.__dict__.items():
            if key != "_env":
                setattr(other, key, copy.deepcopy(value, memo))
        # A copied environment's space follows the copy, not the original.
        env = self._env() if self._env is not None else None
        twin = memo.get(id(env)) if env is not None else None
        other._env = weakref.ref(twin) if twin is not None else self._env
        return other


class TabletopEnv(gym.Env):
    """What every environment of the package shares: text rendering, the engine's state in
    ``self.state`` (an object with ``done``), the hooks ``LegalActionSpace`` samples through, and
    when ``info["deal"]`` may be shown.

    The deal string replays and solves an episode, but where the player does not see every card it
    is hidden information: opponents' hands, face-down cards, the order (or the seed) of every
    future draw. An agent that reads ``info`` (a custom loop, a wrapper that flattens info into the
    observation) would then play with perfect information without anyone noticing. So the
    environments build ``info["deal"]`` through ``_add_deal``: it holds the deal on the episode's last
    step (terminated or truncated, or cut short by ``end_episode``), in every info where
    ``deal_is_public`` (the observation shows every card, as Cribbage's face-up piles do), or in every
    info, reset included, when the environment is made with ``reveal_deal=True`` (an oracle's plan
    played as an agent needs it from the start); otherwise it holds ``""``. The key is always there:
    every info of an environment has the same keys, shapes and dtypes (replay buffers and dataset
    writers that stack infos step by step need that), what is only known at the end holding a
    documented empty value until then.
    """

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A pickled space drops its link to the environment (a weak reference cannot be pickled);
        # an environment unpickled with its space links it again, so samples stay legal.
        self.__dict__.update(state)
        space = state.get("action_space")
        if isinstance(space, LegalActionSpace) and space._env is None:
            space._env = weakref.ref(self)

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    PICTURE_METADATA: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    """The ``metadata`` of an environment that draws pictures (``picture()``): the package's own do."""
    state: Any = None
    reveal_deal: bool = False
    PRESENTATION_OPTIONS: ClassVar[frozenset[str]] = frozenset({"render_mode"})
    """Arguments that change only what the agent is shown or how training is rewarded, never the
    deals or the scores: a suite or a trained model made with one value serves every value. An
    environment adds its own (War's ``observation``, Dominion's training aids)."""
    SEATING_OPTIONS: ClassVar[frozenset[str]] = frozenset({"seat", "opponents", "reveal_deal"})
    """Arguments that say who sits where (and what the seat may peek at), not what game is played: a
    trained model plays its seat against anyone. An environment adds its own (War's one opponent)."""
    deal_is_public: bool = False
    """True where the observation shows every card of the deal, so that the deal string tells the
    player nothing about the game to come that the observation does not."""

    def _set_reveal_deal(self, reveal_deal: Any) -> None:
        """Keep the ``reveal_deal`` argument every environment takes; only a bool is accepted, so a
        stray value (``"no"``, 0.5) cannot switch hidden information on by being truthy."""
        if not isinstance(reveal_deal, (bool, np.bool_)):
            raise ValueError(f"reveal_deal must be True or False, got {quote_input(reveal_deal)}")
        self.reveal_deal = bool(reveal_deal)

    _ended_early = False

    def _add_deal(self, info: dict[str, Any], deal: str, episode_over: bool) -> dict[str, Any]:
        """``info`` with ``info["deal"] = deal`` where the player may see it: on the last step of the
        episode (``episode_over``: terminated or truncated, or ended by ``end_episode``), where the deal
        is public, or when the environment was made with ``reveal_deal=True``; otherwise
        ``info["deal"] = ""``, so that the key is in every info."""
        shown = episode_over or self._ended_early or self.reveal_deal or self.deal_is_public
        info["deal"] = deal if shown else ""
        return info

    def end_episode(self) -> dict[str, Any]:
        """End the episode here, before the game does (``wrappers.UnmaskedPlay`` does on an illegal
        action): returns the info of that last step as a natural end gives it, the deal included and
        no action legal. Later steps raise ``GameOverError`` until ``reset`` (the deal is shown now, so
        the game may not go on)."""
        if not self.has_position():
            raise GameOverError("no episode in progress to end; call reset()")
        self._ended_early = True
        info = self._info()  # type: ignore[attr-defined]  (every environment of the package has one)
        info["action_mask"] = np.zeros_like(info["action_mask"])
        return info

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        """Seed the episode's generator; numpy integers are seeds too (Gymnasium alone takes only
        Python ints), and a negative or non-integer seed is refused with ``seed`` named."""
        self._ended_early = False
        return super().reset(seed=check_int("seed", seed, 0, optional=True), options=options)

    def _check_render_mode(self, render_mode: str | None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = [repr(mode) for mode in self.metadata["render_modes"]]
            named = ", ".join(["None", *modes[:-1]]) + f" or {modes[-1]}"
            raise ValueError(f"render_mode must be {named}, got {render_mode!r}")

    def picture(self) -> Any:
        """The position as a ``tabletop_gym.render.Picture``, showing only what the player is
        shown (the observation, never the deal): each game draws it in its own ``draw.py``."""
        raise NotImplementedError(f"{type(self).__name__} has no picture")

    def svg(self) -> str:
        """The position as an SVG document (any ``render_mode``; no extra needed). Raises
        ``GameOverError`` before the first ``reset``."""
        return self.picture().svg()

    def _repr_svg_(self) -> str | None:
        # A notebook shows the position; before the first reset there is none to show.
        try:
            return self.svg()
        except (GameOverError, NotImplementedError):
            return None

    def render(self) -> Any:
        """Under ``render_mode="ansi"`` the position as text, under ``"rgb_array"`` an ``(H, W, 3)``
        uint8 frame of ``picture()``; None without a render mode."""
        if self.render_mode == "rgb_array":
            return self.picture().rgb_array()
        if self.render_mode == "ansi":
            return self._render_text()
        return None

    def _render_text(self) -> str:
        """The position as text, showing only what the player is shown: each game writes its own."""
        raise NotImplementedError(f"{type(self).__name__} has no text rendering")

    def has_position(self) -> bool:
        """True while a game is in progress (``action_space.sample()`` then draws legal actions)."""
        return self.state is not None and not self.state.done

    def _require_state(self) -> Any:
        if self.state is None:
            raise GameOverError("call reset() before using the environment")
        return self.state

    def _action_index(self, action: Any) -> int:
        """The action as a Python int, accepting exactly what ``action_space.contains`` accepts:
        Python ints, numpy integer scalars and 0-d integer arrays (what ``model.predict`` returns).
        Python bools are ints to Gymnasium's ``Discrete`` and so act as 0 and 1; numpy bools, floats
        and anything else raise ``IllegalActionError``, as does an index out of range. Unsigned numpy
        integers are integers too (``Discrete.contains`` refuses ``np.uint64``, which cannot be cast
        to its int64 without loss, though a legal action's value fits)."""
        if self._ended_early:
            raise GameOverError("the episode was ended by end_episode(); call reset()")
        value = action[()] if isinstance(action, np.ndarray) and action.shape == () else action
        if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
            index = int(value)
            start = int(self.action_space.start)
            if start <= index < start + self.action_space.n:
                return index
        legal = legal_actions(self.action_masks()) if self.has_position() else []
        raise IllegalActionError(action, legal, f"an action is an integer 0-{self.action_space.n - 1}")

    @staticmethod
    def _deal_option(options: Any) -> Any:
        """``options["deal"]`` (None without one); options other than a dict or keys other than
        ``deal`` are refused rather than ignored."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise TypeError(
                f"options must be None or a dict such as {{'deal': ...}}, got {quote_input(options)}"
            )
        unknown = sorted(str(k) for k in options if k != "deal")
        if unknown:
            raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; the only option is 'deal'")
        return options.get("deal")


class Table(ABC):
    """A game of several seats behind one engine: whose decision it is, what each seat sees, what
    each seat has won so far.

    The multi-player games have one each (``envs/<game>/table.py``). Their single-agent
    environments play one seat of it and let agents play the others (``play_others``); the
    PettingZoo environments (``tabletop_gym.multiagent``) give every seat to a learner. Both drive
    the same table, so rules, seeding and deal strings cannot drift apart.

    Seats are numbered 0..``num_seats``-1. Every seat has the same ``observation_space`` and
    ``num_actions`` actions. What a seat is shown (``observe``, ``info``) holds only what that seat
    may know; ``info(seat)["deal"]`` is the deal string once the game is over and ``""`` before
    (unless the table was made to reveal it).
    """

    num_seats: int
    num_actions: int
    observation_space: spaces.Space

    @abstractmethod
    def reset(self, rng: np.random.Generator, deal: Any = None) -> None:
        """Start a game: ``deal`` (a deal string, as ``reset(options={"deal": ...})`` takes) or one
        drawn from ``rng`` exactly as the single-agent environment draws it from its seed."""

    @property
    @abstractmethod
    def to_move(self) -> int | None:
        """The seat whose decision is pending; None once the game is over."""

    @property
    @abstractmethod
    def done(self) -> bool:
        """The game is over (ended by the rules, or cut off: see ``truncated``)."""

    @property
    def truncated(self) -> bool:
        """The game was cut off by a limit (turns, tricks) rather than ended by the rules."""
        return False

    @property
    @abstractmethod
    def deal(self) -> str:
        """The deal string of the game in progress (what ``reset`` takes back)."""

    @abstractmethod
    def observe(self, seat: int) -> np.ndarray:
        """What ``seat`` sees, in ``observation_space``."""

    @abstractmethod
    def action_mask(self, seat: int) -> np.ndarray:
        """The legal actions of ``seat`` (bool, ``num_actions``): none unless it is to move."""

    @abstractmethod
    def info(self, seat: int) -> dict[str, Any]:
        """The info of ``seat``: its ``action_mask`` (np.int8), ``deal`` (see the class docstring)
        and the game's own keys, the same keys at every step."""

    @abstractmethod
    def apply(self, action: int) -> None:
        """The decision of the seat to move; an illegal one raises ``IllegalActionError``."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Each seat's return so far (the sum of its rewards): the game's result once it is over."""

    def render(self, seat: int | None = None) -> str:
        """The position as text, as ``seat`` may see it (None: as an onlooker who sees every card)."""
        raise NotImplementedError

    def act(self, seat: int, agent: Agent) -> int:
        """The action ``agent`` takes in ``seat`` (which must be to move), from that seat's
        observation and info. A game whose rule bots read the engine's view instead overrides this."""
        action = agent.act(self.observe(seat), self.info(seat))
        value = action[()] if isinstance(action, np.ndarray) and action.shape == () else action
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise IllegalActionError(action, legal_actions(self.action_mask(seat)),
                                     f"the agent in seat {seat} returned no action index")
        return int(value)

    def play_others(self, seat: int, agents: Mapping[int, Agent]) -> None:
        """Let ``agents`` (seat -> Agent) decide until ``seat`` must choose or the game is over."""
        while not self.done:
            mover = self.to_move
            if mover is None or mover == seat:
                return
            self.apply(self.act(mover, agents[mover]))


def mask_to_int8(mask: Sequence[bool] | np.ndarray) -> np.ndarray:
    return np.asarray(mask, dtype=np.int8)


def legal_actions(mask: Sequence[bool] | np.ndarray) -> list[int]:
    return [int(a) for a in np.flatnonzero(np.asarray(mask))]


def check_characters(text: str, alphabet: str, what: str) -> None:
    """Raise InvalidDealError naming the first character of ``text`` not in ``alphabet``."""
    for pos, char in enumerate(text):
        if char not in alphabet:
            raise InvalidDealError(f"{what}: character {char!r} at position {pos} is not one of {alphabet!r}")


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


class Stopwatch:
    """``with Stopwatch() as w: ...; w.seconds``"""

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start

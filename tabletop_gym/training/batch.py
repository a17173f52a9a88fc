"""Batch solving: a game's oracle on many deals, one JSON line per deal, serially or as Ray tasks.

``tabletop-gym solve GAME --deals SPEC --out FILE`` solves the deals of a seed range (``0:1000``,
the deals ``reset(seed=s)`` plays) or of a file of deal strings, with the game's own solve options,
and appends one JSON object a line to FILE: ``deal``, ``seed`` (None for a listed deal), ``score``,
``bound``, ``optimal``, ``plan``, ``seconds``, ``revision``, and the ``game`` and ``settings`` it
answers (so a line says what question it is the answer to, wherever it is copied). Every plan is
replayed through the game's engine before its line is written, and each line is flushed as it is
written, so an interrupted run loses at most the deals in flight: run the same command again and
deals already in FILE are skipped (each line's plan replayed first, as it was before it was written).
One run writes FILE at a time: a second is refused while the first holds FILE's lock (``.FILE.lock``).

With ``--ray`` (local Ray) or ``--ray ADDRESS`` (an existing cluster) the deals are Ray tasks; the
lines are the same as the serial run's except ``seconds``, in the order the deals finish. A task
whose worker dies, or that raises an unexpected error, is retried by Ray; a deal that still fails
is reported with its error and the exit status is 1, never dropped silently. ``--cpus-per-deal K``
gives each task K CPUs and K threads to the oracle's numba kernels: many deals side by side with
K = 1, fewer deals each on more cores with a larger K.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import socket
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

from tabletop_gym.core import OracleResult, TabletopError, hold_output, quote_input, read_regular
from tabletop_gym.training.arguments import (
    MAX_DIGITS,
    MAX_EPISODES,
    SEED_MAX,
    check_output_dir,
    int_arg,
    one_line,
    path_arg,
)

RAY_MISSING = "--ray needs Ray, which is not installed: pip install 'tabletop-gym[ray]'"
MAX_BATCH_DEALS = MAX_EPISODES  # a run lists every deal first, as an evaluation's report holds them
RAY_CONNECT_SECONDS = 5.0
"""How long ``--ray HOST:PORT`` waits for the cluster's port, then for its GCS, to answer before it is
refused: Ray's own connection retries go on for minutes, repeating 'Failed to connect to GCS'."""
_RAY_ADDRESS = re.compile(r"(?:ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):([0-9]{1,5})", re.ASCII)


def ray_address_arg(text: str) -> str:
    """An argparse type for ``--ray ADDRESS``: ``local``, ``auto`` or HOST:PORT (``ray://`` allowed),
    with a port 1-65535 and, for a dotted address, four numbers 0-255."""
    text = text.strip()
    if text in ("local", "auto"):
        return text
    found = _RAY_ADDRESS.fullmatch(text)
    expected = "expected local, auto or a cluster's HOST:PORT (port 1-65535)"
    if found is None or not 1 <= int(found.group(2)) <= 65535:
        raise argparse.ArgumentTypeError(f"{expected}, got {quote_input(text)}")
    parts = found.group(1).split(".")
    if all(p.isdigit() for p in parts) and (len(parts) != 4 or any(int(p) > 255 for p in parts)):
        raise argparse.ArgumentTypeError(f"{found.group(1)} is not an IPv4 address; {expected}")
    return text


def check_ray_reachable(address: str, timeout: float = RAY_CONNECT_SECONDS) -> None:
    """Refuse, in one line and before Ray is started (its own retries last minutes), a cluster address
    whose port does not answer within ``timeout`` seconds or, for HOST:PORT, where what answers is not
    a Ray cluster's GCS."""
    found = _RAY_ADDRESS.fullmatch(address)
    if found is None:  # local, auto: Ray finds or starts its own
        return
    host, port = found.group(1).strip("[]"), int(found.group(2))
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as error:
        reason = f"no answer within {timeout:g} s" if isinstance(error, TimeoutError) else error.strerror
        raise _no_ray_cluster(address, reason or str(error)) from None
    # A Ray Client address (ray://) is served by its own protocol, not the GCS's.
    if not address.startswith("ray://"):
        _check_ray_gcs_answers(address, timeout)


def _no_ray_cluster(address: str, reason: str) -> ValueError:
    return ValueError(
        f"--ray {address}: no Ray cluster answers there ({reason}); start one with "
        "'ray start --head', or give --ray alone for a local Ray"
    )


def _check_ray_gcs_answers(address: str, timeout: float) -> None:
    """Ask the address for its cluster id, the first question Ray's own client asks a cluster's GCS,
    through Ray's own channel (its TLS and token settings), with one deadline. A port where something
    else listens (a web server) answers at once with an error, where ``ray.init`` retried for minutes."""
    import_ray()
    import grpc
    from ray._private import gcs_utils
    from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

    channel = gcs_utils.create_gcs_channel(address)
    try:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=timeout)
    except grpc.RpcError as error:
        code = error.code()
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            raise _no_ray_cluster(address, f"no answer within {timeout:g} s") from None
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNIMPLEMENTED):
            detail = "what listens there is not a Ray cluster's GCS: "
            detail += (error.details() or code.name).splitlines()[0]
            raise _no_ray_cluster(address, detail) from None
        # Any other answer (a cluster asking for its token, say) is a GCS's: ray.init says the rest.
    finally:
        channel.close()


# Options of the batch run itself, and one-deal options of solve: not part of the question a line
# answers, so neither stored in its settings nor compared when a run resumes.
RUN_OPTIONS = frozenset(
    {
        "command", "game", "deals", "batch_out", "ray", "ray_cpus", "cpus_per_deal", "no_progress", "cache",
        "cache_for_deals_only",
    }
)
# The one-deal modes of the games' solve commands (a given deal, free deals, the unknown draw
# order, CP-SAT pattern queries, a picture of one plan): none of them is a per-deal oracle result,
# so --deals refuses them.
ONE_DEAL_OPTIONS = ("deal", "seed", "free", "unknown", "find_pattern", "most_wars", "draw")
# Errors that a deal or the settings cause, the same on every try: reported at once, not retried.
INPUT_ERRORS = (ValueError, TypeError, AssertionError, TabletopError)
RAY_RETRIES = 3
SHOWN_FAILURES = 20


@dataclasses.dataclass(frozen=True)
class Job:
    """One deal to solve: its deal string and the seed that dealt it (None for a listed deal)."""

    seed: int | None
    deal: str

    @property
    def key(self) -> tuple[int | None, str]:
        return (self.seed, self.deal)

    def where(self) -> str:
        return f"deal {quote_input(self.deal, 60)}" + ("" if self.seed is None else f" (seed {self.seed})")


@dataclasses.dataclass(frozen=True)
class Failure:
    """A deal that could not be solved, with the error, in one line."""

    job: Job
    error: str


@dataclasses.dataclass
class BatchReport:
    """What a batch run did: the lines of its deals (those found in FILE and those solved now),
    the failures, and the time it took (wall clock, and CPU of every process that solved)."""

    game: str
    out: Path
    deals: int
    lines: list[dict[str, Any]]
    already: int
    solved: int
    failures: list[Failure]
    wall_seconds: float
    cpu_seconds: float
    where: str

    def summary(self) -> str:
        done = len(self.lines)
        text = [
            f"{self.game}: {self.deals} deals ({self.already} already in {self.out}, {self.solved} solved "
            f"now, {len(self.failures)} failed) on {self.where}"
        ]
        if done:
            proven = sum(bool(line["optimal"]) for line in self.lines)
            text.append(
                f"proven optimal {proven} of {done} ({100 * proven / done:.1f}%); mean score "
                f"{statistics.fmean(line['score'] for line in self.lines):.2f}, mean bound "
                f"{statistics.fmean(line['bound'] for line in self.lines):.2f}"
            )
        if self.solved:
            wall = self.solved / self.wall_seconds if self.wall_seconds > 0 else float("inf")
            cpu = self.solved / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")
            text.append(
                f"throughput: {self.solved} deals in {self.wall_seconds:.1f} s wall ({wall:.2f} deals/s), "
                f"{self.cpu_seconds:.1f} s CPU ({cpu:.2f} deals per CPU second)"
            )
        for failure in self.failures[:SHOWN_FAILURES]:
            text.append(f"FAILED {failure.job.where()}: {failure.error}")
        if len(self.failures) > SHOWN_FAILURES:
            text.append(f"... and {len(self.failures) - SHOWN_FAILURES} more failures")
        if self.failures:
            text.append("the failed deals are not in the file: run the same command again to retry them")
        return "\n".join(text)


# ---- the command-line options ----------------------------------------------------------------------


def deals_arg(text: str) -> range | Path:
    """An argparse type for ``--deals``: a seed range ``A:B`` (seeds A to B-1) or a file of deal
    strings (an existing file wins over a range of the same spelling)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    path = Path(text)
    try:
        is_file, exists = path.is_file(), path.exists()
    except OSError:  # a name too long to be a file's: then it is meant as a range, or it is nothing
        is_file = exists = False
    if is_file:
        return path
    expected = "expected a seed range A:B (seeds A to B-1, e.g. 0:100) or a file of deal strings"
    if ":" not in text:
        shown = text if len(text) <= 80 else quote_input(text)  # a long name, cut short
        if exists:
            raise argparse.ArgumentTypeError(f"{shown} is not a file; {expected}")
        raise argparse.ArgumentTypeError(f"no file named {shown}; {expected}")
    low, _, high = text.partition(":")
    if max(len(low.strip()), len(high.strip())) > MAX_DIGITS:  # no int() of thousands of digits
        raise argparse.ArgumentTypeError(f"seeds must be from 0 to {SEED_MAX}, got {quote_input(text)}")
    try:
        first, stop = int(low.strip(), 10), int(high.strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{quote_input(text)} is not a seed range or a file; {expected}"
        ) from None
    if first < 0 or stop > SEED_MAX + 1:
        raise argparse.ArgumentTypeError(f"seeds must be from 0 to {SEED_MAX}, got {text!r}")
    if stop <= first:
        raise argparse.ArgumentTypeError(
            f"the range {text!r} holds no seed: A:B needs A < B (seeds A to B-1)"
        )
    if stop - first > MAX_BATCH_DEALS:
        # Every deal of a run is listed (and checked) before the first is solved.
        raise argparse.ArgumentTypeError(
            f"the range {text!r} holds {stop - first:,} seeds; one run solves at most {MAX_BATCH_DEALS:,} "
            "deals: split the range (runs may share --out)"
        )
    return range(first, stop)


def add_ray_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--ray [ADDRESS]``, ``--ray-cpus`` and ``--cpus-per-deal``, for solve and evaluate."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        type=ray_address_arg,
        default=None,
        metavar="ADDRESS",
        help="solve the deals as Ray tasks: on a local Ray started for this run, or on the existing "
        "cluster at ADDRESS (needs pip install 'tabletop-gym[ray]')",
    )
    parser.add_argument(
        "--ray-cpus",
        type=int_arg(1, 100_000),
        default=None,
        help="with --ray (local): the CPUs the local Ray may use (default all)",
    )
    parser.add_argument(
        "--cpus-per-deal",
        type=int_arg(1, 1024),
        default=None,
        help="CPUs (Ray's num_cpus) and oracle threads for each deal: 1 solves as many deals side by side "
        "as there are CPUs, more gives each deal more cores (default 1 on Ray; serially, the oracle's own)",
    )


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The batch options of ``solve GAME`` for a game with a per-deal oracle."""
    known = {a.dest for a in parser._actions}
    group = parser.add_argument_group("batch solving (--deals)")
    group.add_argument(
        "--deals",
        type=deals_arg,
        default=None,
        metavar="SPEC",
        help="solve many deals: a seed range A:B (the deals reset(seed=s) plays, s from A to B-1) or a "
        "file of deal strings, one a line (blank and # lines skipped); needs --out",
    )
    group.add_argument(
        "--out",
        dest="batch_out",  # a file, not the report folder that the command line checks for --out
        type=path_arg,
        default=None,
        metavar="FILE",
        help="with --deals: the JSON-lines file, one result a line; deals already in it are skipped",
    )
    if "cache" not in known:
        group.add_argument("--cache", type=path_arg, default=None, help="with --deals: oracle cache folder")
        # The game's one-deal solve keeps no cache: this --cache is for --deals only, and
        # check_batch_options refuses it alone rather than accept and ignore it.
        parser.set_defaults(cache_for_deals_only=True)
    add_ray_arguments(group)
    if "no_progress" not in known:
        group.add_argument("--no-progress", action="store_true", help="no progress bar")


def check_ray_options(args: argparse.Namespace) -> None:
    """--ray-cpus and --cpus-per-deal say how Ray runs: without --ray they are a mistake."""
    address = getattr(args, "ray", None)
    if getattr(args, "ray_cpus", None) is not None and address != "local":
        raise ValueError("--ray-cpus sizes a local Ray: give it with --ray (no ADDRESS)")
    cpus = getattr(args, "cpus_per_deal", None)
    if cpus is not None and args.ray_cpus is not None and cpus > args.ray_cpus:
        raise ValueError(f"--cpus-per-deal {cpus} is more than --ray-cpus {args.ray_cpus}: no deal could run")


def check_batch_options(args: argparse.Namespace) -> None:
    """The options of ``solve GAME`` that only --deals uses, and the one-deal options it refuses."""
    if args.deals is None:
        batch_only = ["batch_out", "ray", "ray_cpus", "cpus_per_deal"]
        if getattr(args, "cache_for_deals_only", False):
            batch_only.append("cache")
        for option in batch_only:
            if getattr(args, option, None) is not None:
                raise ValueError(f"--{_dashed(option)} is for batch solving: give --deals too")
        return
    for option in ONE_DEAL_OPTIONS:
        value = getattr(args, option, None)
        if value is not None and value is not False:
            raise ValueError(f"--{_dashed(option)} is a one-deal mode of solve; --deals solves many deals")
    if args.batch_out is None:
        raise ValueError("--deals needs --out FILE (the JSON-lines file of results)")
    check_output_file(args.batch_out)
    check_ray_options(args)


def _dashed(dest: str) -> str:
    return "out" if dest == "batch_out" else dest.replace("_", "-")


def check_output_file(path: Path, option: str = "--out") -> None:
    """A results file (or a suite file) that cannot be written is refused before any deal is solved."""
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; expected a file")
    if path.exists() and not path.is_file():
        # A device reads without end (/dev/zero) and a FIFO blocks: the file is read before a run resumes.
        raise ValueError(f"{option} {path} is not a regular file (a device or a FIFO); expected a file")
    check_output_dir(path.parent if str(path.parent) else Path("."), f"{option}'s folder")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ValueError(f"{option} {path} cannot be read and written")


# ---- the deals ------------------------------------------------------------------------------------


def settings_of(args: argparse.Namespace, ignored: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The command-line settings that make the question each deal's line answers: the game's rules
    and oracle options, without the options of the run itself or those the oracle never reads
    (``ignored``, the game's ``oracle_ignores``), JSON-normal with paths as text."""
    skip = RUN_OPTIONS | ignored
    values = {k: v for k, v in sorted(vars(args).items()) if k not in skip and k not in ONE_DEAL_OPTIONS}
    return json.loads(json.dumps(values, default=str))


def _deal_env(env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    # Hidden-information games show the deal at reset only when asked to.
    return gym.make(env_id, **kwargs, reveal_deal=True)


def read_jobs(source: Sequence[int] | Path, env_id: str, kwargs: dict[str, Any]) -> list[Job]:
    """The deals of seeds (each the deal ``reset(seed=s)`` plays) or of a file (each checked by the
    environment and written as it writes it). A deal listed twice is solved once."""
    from tabletop_gym.suites import deal_of_seed

    env = _deal_env(env_id, kwargs)
    try:
        if isinstance(source, Path):
            return list(dict.fromkeys(_file_jobs(source, env)))
        return list(dict.fromkeys(Job(seed, deal_of_seed(env, seed)) for seed in source))
    finally:
        env.close()


def _file_jobs(path: Path, env: gym.Env) -> Iterator[Job]:
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--deals {path} cannot be read: {error}") from None
    count = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            deal = env.reset(seed=0, options={"deal": line})[1]["deal"]
        except (ValueError, TypeError) as error:
            raise ValueError(
                f"{path} line {number}: {one_line(error)} (expected one deal string a line; blank lines "
                "and lines starting with # are skipped)"
            ) from None
        count += 1
        if count > MAX_BATCH_DEALS:
            raise ValueError(f"{path} lists more than {MAX_BATCH_DEALS:,} deals, the most one run solves")
        yield Job(None, deal)
    if count == 0:
        raise ValueError(f"{path} lists no deal (one deal string a line; blank and # lines are skipped)")


# ---- the results file -----------------------------------------------------------------------------

LINE_KEYS = ("deal", "seed", "score", "bound", "optimal", "plan", "seconds", "revision", "game", "settings")


def read_done(
    path: Path,
    game: str,
    settings: dict[str, Any],
    check: Callable[[dict[str, Any]], None] | None = None,
) -> dict[tuple[int | None, str], dict[str, Any]]:
    """The lines already in a results file, by (seed, deal). A last line cut short by an interrupted
    run is dropped (with a warning) and cut from the file, so the run appends after whole lines; any
    other line that is not a result of these settings, or that fails ``check`` (``run_batch`` replays
    its plan, as the oracle cache does with its entries), stops the run with its line number."""
    try:
        data = read_regular(path, "--out")  # only what the file holds now: never a device's endless bytes
    except FileNotFoundError:
        return {}
    lines = data.split(b"\n")
    done: dict[tuple[int | None, str], dict[str, Any]] = {}
    keep = len(data)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        last = number == len(lines)  # no newline after it: the run writing it may have stopped
        try:
            line = _parse_line(raw)
        except ValueError as error:
            if last:
                warnings.warn(
                    f"{path} line {number} is cut short (an interrupted run?): dropped, its deal is solved "
                    "again",
                    stacklevel=2,
                )
                keep = len(data) - len(raw)
                break
            raise ValueError(
                f"{path} line {number} is not a result line ({error}): fix or remove it, or write to "
                "another --out"
            ) from None
        if line["game"] != game or line["settings"] != settings:
            raise ValueError(
                f"{path} line {number} answers {line['game']} with {line['settings']}, not {game} with "
                f"{settings}: write to another --out"
            )
        if check is not None:
            try:
                check(line)
            except LINE_CHECK_ERRORS as error:
                raise ValueError(
                    f"{path} line {number} does not hold ({one_line(error)}): the file was edited or "
                    "damaged; remove the line (its deal is solved again) or write to another --out"
                ) from None
        done[(line["seed"], line["deal"])] = line
    if keep != len(data):
        with open(path, "r+b") as handle:
            handle.truncate(keep)
    elif data and not data.endswith(b"\n"):
        with open(path, "ab") as handle:  # a whole last line without its newline: complete it
            handle.write(b"\n")
    return done


def _parse_line(raw: bytes) -> dict[str, Any]:
    try:
        line = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"not JSON: {error}") from None
    if not isinstance(line, dict) or any(k not in line for k in LINE_KEYS):
        raise ValueError(f"expected an object with {', '.join(LINE_KEYS)}")
    if not isinstance(line["deal"], str) or not (line["seed"] is None or isinstance(line["seed"], int)):
        raise ValueError("its deal is not a string or its seed not an integer")
    return line


def result_of(line: dict[str, Any]) -> OracleResult:
    """The oracle result a line holds."""
    return OracleResult.from_json(line)


# Whatever an edited line holds, checking it ends in one of these (a bad plan, a bad number...).
LINE_CHECK_ERRORS = (
    AssertionError, ValueError, TypeError, KeyError, IndexError, AttributeError, RuntimeError, RecursionError
)


def line_check(game: str, kwargs: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """The check a line in the file passes before a resumed run counts it: what every line is checked
    for before it is written (its plan replays through the engine to its score; the score is within
    its bound) and that its ``optimal`` agrees with the two."""
    from tabletop_gym.suites import confirm_plan

    def check(line: dict[str, Any]) -> None:
        result = result_of(line)
        if line["optimal"] is not result.optimal:
            raise ValueError(f"optimal={line['optimal']} with score {result.score} and bound {result.bound}")
        confirm_plan(game, kwargs, line["deal"], result, "the line")

    return check


# ---- solving one deal -------------------------------------------------------------------------------


def solve_deal(game: str, args: argparse.Namespace, job: Job) -> dict[str, Any]:
    """One deal's line: the game's (cached) oracle with the command line's settings, its plan replayed
    through the engine to the score it states (an AssertionError otherwise)."""
    from tabletop_gym.suites import confirm_plan, oracle_revision
    from tabletop_gym.training.games import get_game

    spec = get_game(game)
    if spec.oracle is None:
        raise ValueError(f"{game} has no per-deal oracle")
    result = spec.oracle(job.deal, spec.read(args))
    if result is None:
        raise ValueError(f"the {game} oracle does not serve these settings")
    _, kwargs = spec.environment(spec.read(args))
    confirm_plan(game, kwargs, job.deal, result, job.where())
    data = result.to_json()
    return {
        "deal": job.deal,
        "seed": job.seed,
        "score": data["score"],
        "bound": data["bound"],
        "optimal": data["optimal"],
        "plan": data["plan"],
        "seconds": round(float(data["seconds"]), 4),
        "revision": oracle_revision(game),
        "game": game,
        "settings": settings_of(args, spec.oracle_ignores),
    }


Solver = Callable[[str, argparse.Namespace, Job], dict[str, Any]]


def set_threads(threads: int | None) -> None:
    """The oracles' numba kernels use ``threads`` threads (at most the ones numba started)."""
    if threads is None:
        return
    import numba

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def _timed(solver: Solver, game: str, args: argparse.Namespace, job: Job) -> tuple[Any, float]:
    """(the line, or a Failure for an error the deal or the settings cause; the CPU seconds it took)."""
    start = time.process_time()  # every thread of this process: the oracle's kernels included
    try:
        outcome: Any = solver(game, args, job)
    except INPUT_ERRORS as error:
        outcome = Failure(job, f"{type(error).__name__}: {one_line(error)}")
    return outcome, time.process_time() - start


Outcomes = Generator[tuple[Any, float], None, None]


def _serial(
    solver: Solver, game: str, args: argparse.Namespace, jobs: Sequence[Job], threads: int | None
) -> Outcomes:
    set_threads(threads)
    for job in jobs:
        yield _timed(solver, game, args, job)


def _ray_task(
    solver: Solver, game: str, args: argparse.Namespace, job: Job, threads: int
) -> tuple[Any, float]:
    set_threads(threads)
    return _timed(solver, game, args, job)


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ImportError(RAY_MISSING) from None
    return ray


def start_ray(address: str, cpus: int | None) -> tuple[Any, bool, str]:
    """(the ray module, whether this run started it, where it runs): a Ray already started in this
    process (a notebook, a test) is used as it is."""
    import logging

    if address != "local":
        check_ray_reachable(address)
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=cpus, include_dashboard=False, logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
        started = True
    total = int(ray.cluster_resources().get("CPU", 0))
    return ray, started, f"Ray ({'local' if address == 'local' else address}, {total} CPUs)"


def _on_ray(
    ray: Any, solver: Solver, game: str, args: argparse.Namespace, jobs: Sequence[Job], cpus: int
) -> Outcomes:
    """Each deal a Ray task, at most a few per CPU in flight (a million deals are not a million
    pending tasks); results in the order they finish. A worker that dies and an unexpected error
    are retried by Ray; what still fails comes back as a Failure."""
    task = ray.remote(_ray_task).options(
        num_cpus=cpus, max_retries=RAY_RETRIES, retry_exceptions=True, name=f"solve {game}"
    )
    window = max(4, 2 * int(ray.cluster_resources().get("CPU", 1)) // cpus)
    args_ref = ray.put(args)
    waiting = iter(jobs)
    pending: dict[Any, Job] = {}
    try:
        while True:
            while len(pending) < window:
                job = next(waiting, None)
                if job is None:
                    break
                pending[task.remote(solver, game, args_ref, job, cpus)] = job
            if not pending:
                return
            ready, _ = ray.wait(list(pending), num_returns=1)
            job = pending.pop(ready[0])
            try:
                yield ray.get(ready[0])
            except ray.exceptions.RayError as error:
                cause = getattr(error, "cause", None) or error
                yield (
                    Failure(job, f"{type(cause).__name__} after {RAY_RETRIES} retries: {one_line(cause)}"),
                    0.0,
                )
    finally:
        for ref in pending:  # Ctrl-C or an error: nothing left running for this run
            ray.cancel(ref, force=True)


def solve_many(
    game: str,
    args: argparse.Namespace,
    jobs: Sequence[Job],
    ray_address: str | None = None,
    ray_cpus: int | None = None,
    cpus_per_deal: int | None = None,
    solver: Solver = solve_deal,
) -> tuple[Outcomes, str, Callable[[], None]]:
    """(each job's outcome, a line or a Failure, with its CPU seconds, as they finish; where they run;
    what to call when done). Serially here, or as Ray tasks with ``ray_address``."""
    if ray_address is None:
        where = "this process" + (f", {cpus_per_deal} oracle threads" if cpus_per_deal else "")
        return _serial(solver, game, args, jobs, cpus_per_deal), where, lambda: None
    ray, started, where = start_ray(ray_address, ray_cpus)
    cpus = cpus_per_deal or 1
    outcomes = _on_ray(ray, solver, game, args, jobs, cpus)
    return outcomes, f"{where}, {cpus} per deal", (ray.shutdown if started else lambda: None)


def run_batch(
    game: str,
    args: argparse.Namespace,
    source: Sequence[int] | Path,
    out: Path,
    ray_address: str | None = None,
    ray_cpus: int | None = None,
    cpus_per_deal: int | None = None,
    progress: bool = True,
    solver: Solver = solve_deal,
) -> BatchReport:
    """Solve the deals of ``source`` that ``out`` does not hold yet, appending a line for each as it
    is solved. ``args`` are the command line's settings of the game (rules, oracle limits, cache)."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    from tabletop_gym.training.games import get_game

    spec = get_game(game)
    env_id, kwargs = spec.environment(spec.read(args))
    settings = settings_of(args, spec.oracle_ignores)
    check_output_file(out)
    # One run appends to a file at a time: two would each solve every deal and write it twice.
    with hold_output(out):
        jobs = read_jobs(source, env_id, kwargs)
        done = read_done(out, game, settings, line_check(game, kwargs))
        todo = [job for job in jobs if job.key not in done]
        lines = [done[job.key] for job in jobs if job.key in done]
        already = len(lines)
        failures: list[Failure] = []
        solved = 0
        cpu = 0.0
        starting = time.perf_counter()
        outcomes, where, finish = solve_many(game, args, todo, ray_address, ray_cpus, cpus_per_deal, solver)
        # Starting Ray is a cost of the run, not of the deals: said apart, not in the throughput.
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        if ray_address is not None:
            where += f"; Ray ready in {start_wall - starting:.1f} s, not counted below"
        try:
            with (
                open(out, "a", encoding="utf-8") as handle,
                tqdm(total=len(todo), desc=f"solving {game}", unit="deal", disable=not progress) as bar,
            ):
                for outcome, seconds in outcomes:
                    cpu += seconds
                    if isinstance(outcome, Failure):
                        failures.append(outcome)
                        bar.set_postfix(failed=len(failures))
                    else:
                        # One write and a flush a line: an interrupted run keeps every line it finished.
                        handle.write(json.dumps(outcome, separators=(",", ":")) + "\n")
                        handle.flush()
                        lines.append(outcome)
                        solved += 1
                    bar.update(1)
        finally:
            outcomes.close()  # its tasks cancelled while Ray still runs
            finish()
    wall = time.perf_counter() - start_wall
    if ray_address is None:
        cpu = time.process_time() - start_cpu  # the whole process, reading the deals included
    return BatchReport(game, out, len(jobs), lines, already, solved, failures, wall, cpu, where)


def presolve(
    game: str,
    args: argparse.Namespace,
    seeds: Sequence[int],
    ray_address: str,
    ray_cpus: int | None = None,
    cpus_per_deal: int | None = None,
    progress: bool = True,
) -> dict[str, OracleResult]:
    """The oracle results of the deals of ``seeds``, solved as Ray tasks (``evaluate --ray``), by
    deal string. A deal that failed is left out, with a warning: the evaluation solves it itself."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    from tabletop_gym.training.games import get_game

    spec = get_game(game)
    env_id, kwargs = spec.environment(spec.read(args))
    jobs = read_jobs(seeds, env_id, kwargs)
    outcomes, where, finish = solve_many(game, args, jobs, ray_address, ray_cpus, cpus_per_deal)
    results: dict[str, OracleResult] = {}
    try:
        for outcome, _ in tqdm(
            outcomes, total=len(jobs), desc="oracle on Ray", unit="deal", disable=not progress
        ):
            if isinstance(outcome, Failure):
                print(
                    f"tabletop-gym: warning: {outcome.job.where()} failed on Ray ({outcome.error}); "
                    "solving it here",
                    file=sys.stderr,
                )
            else:
                results[outcome["deal"]] = result_of(outcome)
    finally:
        outcomes.close()
        finish()
    return results

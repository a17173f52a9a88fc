"""Certified evaluation suites: fixed deals with their oracle results, shipped with the package.

A suite is one JSON file in ``tabletop_gym/suites/data/<id>.json`` (``cribbage-v0``,
``war-h26-v0``...): the environment and rules it was made for, how the oracle was run, and for
each deal its seed, its deal string, the oracle's plan score, its proven bound, whether they meet
(``optimal``), the oracle revision and the plan. ``load`` trusts none of it blindly: the file's
checksum must match its content, its environment must be today's, every deal must be accepted by
the environment and every plan must replay through the game's engine to the score it states.
Any failure raises ``SuiteError``: a suite that no longer replays is never used silently.

``build`` makes or resumes a suite (entries already written are kept; the file is rewritten
atomically as it grows), and a complete suite's numbers never change under its id: a different
size, or a rebuild with a better oracle, goes to a new version (``cribbage-v1``). It writes to the
user's suite folder (``user_dir``), never into the package: a suite found there is listed as
user-built, and ``load`` finds it by id when the package ships none of that id.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import importlib
import json
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

import tabletop_gym
from tabletop_gym.core import (
    OracleResult,
    TabletopError,
    atomic_write_text,
    check_int,
    hold_output,
    quote_input,
    read_regular,
)

__all__ = [
    "FORMAT",
    "SuiteError",
    "SuiteDefinition",
    "SuiteEntry",
    "Suite",
    "DEFINITIONS",
    "available",
    "definition",
    "load",
    "build",
    "resolve",
    "suite_path",
    "user_dir",
    "user_suite_path",
    "user_built",
    "oracle_revision",
    "deal_of_seed",
    "confirm_plan",
    "evaluate",
    "rules_kwargs",
]

FORMAT = 1
# Environment arguments that change what the agent sees or how training is shaped, never the deals
# or the scores: a suite made with one value serves every value.
PRESENTATION_KEYS = frozenset({"observation", "province_reward", "money_reward", "render_mode"})
_ID = re.compile(r"^(?P<name>[a-z0-9_]+(?:-[a-z0-9_]+)*)-(?P<version>v[0-9]+)$")


class SuiteError(TabletopError, ValueError):
    """A suite that cannot be used: missing, altered, incomplete, or no longer replaying."""


@dataclasses.dataclass(frozen=True)
class SuiteDefinition:
    """What a suite is made of, before any version of it is built.

    ``settings`` are command-line settings (argparse names) of the game, the same ones ``evaluate``
    reads: they select the environment, its rules and the oracle's limits. ``options`` are the
    command-line options that select its environment, for messages. ``target_size`` is the size
    the benchmark asks for; ``size`` the size of the shipped v0 where solving all of them on a
    2-core machine was too costly (``cut`` says why). ``note`` says how the results were made, for
    any version; ``describe(size)`` is the note a suite of that size carries.
    """

    name: str
    game: str
    settings: dict[str, Any]
    options: str
    target_size: int
    size: int
    note: str = ""
    cut: str = ""

    def describe(self, size: int) -> str:
        """The note of a version of ``size`` deals: a suite smaller than the target says so, and why
        where it is the size the definition was cut to (a user's own size has the user's reasons)."""
        if size >= self.target_size:
            return self.note
        why = f" {self.cut}" if self.cut and size == self.size else ""
        return f"shrunk from {self.target_size:,} to {size:,} deals{why}; {self.note}"

    def args(self, cache: Path | None = None) -> argparse.Namespace:
        return argparse.Namespace(**self.settings, cache=cache)


DEFINITIONS: dict[str, SuiteDefinition] = {
    d.name: d
    for d in (
        SuiteDefinition(
            "cribbage",
            "cribbage",
            {},
            "(default rules)",
            1000,
            300,
            "every result a proven optimum",
            "(about 2 s of CPU a deal on the shared 2-core machine)",
        ),
        SuiteDefinition(
            "war-h26",
            "war",
            {"horizon": 26, "method": "auto", "time_limit": 10.0},
            "--horizon 26",
            1000,
            50,
            "the full deck, default rules, scored by the cards held after 26 tricks; the exact search within "
            "20,000 positions, then CP-SAT with 10 s of work per deal (seconds of a 2-core machine as "
            "deterministic time; v0 was built when this limit was 10 s of wall clock on a loaded machine) "
            "(a bound, not an optimum, where it stops: some bounds are the trivial 52)",
            "for the machine's time (seed 55 ran past 3 CPU minutes)",
        ),
        SuiteDefinition(
            "war-r6s2",
            "war",
            {"ranks": 6, "suits": 2},
            "--ranks 6 --suits 2",
            1000,
            1000,
            "the whole game on a 12-card deck (the demo's), every result proven by exact search; the "
            "whole game on the full deck has no oracle that answers in time",
        ),
        SuiteDefinition(
            "dominion",
            "dominion",
            {"oracle_work_limit": 3_000_000},
            "(default: solitaire, treasure supply, 4 Provinces)",
            200,
            100,
            "the oracle's default work limit, 3,000,000 search nodes per deal (a bound, not an optimum, "
            "where it stops first)",
            "(about 1.7 s of CPU a deal)",
        ),
        SuiteDefinition(
            "nmbr9",
            "nmbr9",
            {"time_limit": 3.0},
            "(default: 9-2-20 on a 20x20 grid)",
            50,
            5,
            "plans and proven bounds with 3 s of work per deal, not optima "
            "(the standard game leaves a large gap even at 300 s)",
        ),
        SuiteDefinition(
            "nmbr9-small",
            "nmbr9",
            {"variant": "9-2-5", "grid": 7, "levels": 2, "time_limit": 8.0},
            "--variant 9-2-5 --grid 7 --levels 2",
            50,
            50,
            "5 cards on a 7x7 grid with 2 levels (the demo's settings), where the oracle proves optima",
        ),
        SuiteDefinition(
            "modern_art-2p",
            "modern_art",
            {"players": 2, "width": 8, "time_limit": 2.0},
            "--players 2",
            50,
            4,
            "beam width 8 and 2 s of work per deal: plans and proven bounds, "
            "not optima (a full game leaves a gap even at 30 s)",
        ),
        SuiteDefinition(
            "modern_art-3p",
            "modern_art",
            {"players": 3, "width": 8, "time_limit": 2.0},
            "--players 3",
            50,
            4,
            "beam width 8 and 2 s of work per deal: plans and proven bounds, "
            "not optima (a full game leaves a gap even at 30 s)",
        ),
    )
}


@dataclasses.dataclass(frozen=True)
class SuiteEntry:
    """One deal of a suite and what the oracle proved about it."""

    seed: int
    deal: str
    score: float
    bound: float
    plan: tuple[Any, ...]
    oracle_revision: str
    seconds: float = 0.0

    @property
    def optimal(self) -> bool:
        return self.score == self.bound

    def result(self) -> OracleResult:
        return OracleResult(score=self.score, bound=self.bound, plan=self.plan, seconds=self.seconds)

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "deal": self.deal,
            "score": self.score,
            "bound": self.bound,
            "optimal": self.optimal,
            "oracle_revision": self.oracle_revision,
            "seconds": round(self.seconds, 4),
            "plan": _plain(self.plan),
        }


@dataclasses.dataclass(frozen=True)
class Suite:
    """A loaded, checked suite: every entry's plan replayed to its score when it was loaded."""

    id: str
    game: str
    env_id: str
    env_kwargs: dict[str, Any]
    entries: tuple[SuiteEntry, ...]
    meta: dict[str, Any]
    path: Path
    # Deals the ``build`` call that returned this suite solved (0 for a suite loaded, or one that
    # was complete already): what that call did, as against the build times, which add up every call.
    solved_now: int = 0

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def deals(self) -> list[str]:
        return [e.deal for e in self.entries]

    @property
    def checksum(self) -> str:
        return self.meta["checksum"]

    @functools.cached_property
    def _by_deal(self) -> dict[str, SuiteEntry]:
        return {e.deal: e for e in self.entries}

    def result(self, deal: str) -> OracleResult:
        """The stored oracle result of one of the suite's deals (a KeyError names a foreign deal)."""
        if deal not in self._by_deal:
            raise KeyError(f"deal {quote_input(deal)} is not in suite {self.id}")
        return self._by_deal[deal].result()

    def summary(self) -> dict[str, Any]:
        n = len(self.entries)
        return {
            "id": self.id,
            "deals": n,
            "target_size": self.meta.get("target_size"),
            "optimal": sum(e.optimal for e in self.entries),
            "mean_score": sum(e.score for e in self.entries) / n,
            "mean_bound": sum(e.bound for e in self.entries) / n,
            "options": self.meta.get("options", ""),
        }


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()  # numpy scalars
    return value


def _as_tuple(value: Any) -> Any:
    return tuple(_as_tuple(v) for v in value) if isinstance(value, list) else value


def _normal(value: Any) -> Any:
    """A value as JSON gives it back (tuples become lists), so settings compare across a file."""
    return json.loads(json.dumps(value))


def rules_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Environment arguments as JSON gives them back, without those that change only what is
    shown or how training is rewarded (``PRESENTATION_KEYS``): what decides the deals and scores."""
    return {k: v for k, v in _normal(dict(kwargs)).items() if k not in PRESENTATION_KEYS}


def oracle_revision(game: str) -> str:
    """The oracle's revision (its ``ORACLE_REVISION`` where it has one) and the package version."""
    module = importlib.import_module(f"tabletop_gym.oracles.{game}")
    revision = getattr(module, "ORACLE_REVISION", None)
    text = f"tabletop-gym {tabletop_gym.__version__}"
    return f"{text}, {game} oracle revision {revision}" if revision is not None else text


def _split_id(suite_id: str) -> tuple[str, str]:
    match = _ID.match(suite_id) if isinstance(suite_id, str) else None
    if match is None:
        raise SuiteError(f"suite id {quote_input(suite_id)} is not NAME-vN (e.g. cribbage-v0)")
    return match["name"], match["version"]


def definition(suite_id: str) -> SuiteDefinition:
    """The definition of a suite id (any version of a known name)."""
    name, _ = _split_id(suite_id)
    if name not in DEFINITIONS:
        raise SuiteError(f"no suite named {name!r}; suites: {', '.join(sorted(DEFINITIONS))}")
    return DEFINITIONS[name]


def data_dir() -> Path:
    return Path(str(resources.files(__name__).joinpath("data")))


def suite_path(suite_id: str) -> Path:
    """Where the package keeps a shipped suite's file."""
    _split_id(suite_id)
    return data_dir() / f"{suite_id}.json"


def user_dir() -> Path:
    """Where ``build`` writes a suite unless told otherwise: ``$TABLETOP_GYM_SUITES`` if set, else
    ``~/.local/share/tabletop-gym/suites``. Data, not a cache: a suite can take hours to solve and
    its numbers get cited, so it does not go where caches are cleared (``~/.cache``)."""
    env = os.environ.get("TABLETOP_GYM_SUITES")
    return Path(env) if env else Path.home() / ".local" / "share" / "tabletop-gym" / "suites"


def user_suite_path(suite_id: str) -> Path:
    """Where ``build`` writes a suite by default."""
    _split_id(suite_id)
    return user_dir() / f"{suite_id}.json"


def _ids(names: Sequence[str]) -> list[str]:
    return sorted(n[: -len(".json")] for n in names if n.endswith(".json") and _ID.match(n[:-5]))


def available() -> list[str]:
    """Ids of the suites shipped in the package, sorted."""
    folder = resources.files(__name__).joinpath("data")
    return _ids([p.name for p in folder.iterdir()] if folder.is_dir() else [])


def user_built() -> list[str]:
    """Ids of the suites in the user's suite folder (``user_dir``) that the package does not ship
    (``load`` takes the shipped one of an id first), sorted."""
    folder = user_dir()
    try:
        names = [p.name for p in folder.iterdir() if p.is_file()] if folder.is_dir() else []
    except OSError:
        return []  # an unreadable folder holds nothing to list; loading a file there says why
    shipped = set(available())
    return [n for n in _ids(names) if n not in shipped]


# ---- replay through the engines ------------------------------------------------------------------


def _replay_cribbage(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.envs.cribbage.rules import parse_deal, replay

    state = replay(parse_deal(deal), plan)
    if not state.done:
        raise ValueError("the plan stops before the game ends")
    return float(state.score)


def _replay_war(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.envs.war.rules import WarGame, WarRules, parse_deal

    rules = WarRules(
        kwargs["ranks"], kwargs["suits"], kwargs["face_down"], kwargs["pickup"], kwargs["max_tricks"]
    )
    horizon = kwargs.get("horizon")
    limit = rules.max_tricks if horizon is None else min(horizon, rules.max_tricks)
    game = WarGame(parse_deal(deal, rules), rules.replace(max_tricks=limit), controlled=0)
    for rank in plan:
        game.choose(rank)
    if not game.over:
        raise ValueError("the plan stops before the episode ends")
    if horizon is None:
        return float(game.outcome(0))
    return float(game.state.horizon_cards(0))


def _replay_dominion(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.oracles.dominion import replay_turns

    try:
        return float(-replay_turns(deal, plan, kwargs["target"], kwargs.get("kingdom", "")))
    except AssertionError as error:  # replay_turns says so when the plan falls short of the target
        raise ValueError(str(error)) from None


def _replay_nmbr9(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.envs.nmbr9.rules import Variant, parse_deal, replay

    variant = Variant(kwargs["max_value"], kwargs["copies"], kwargs["cards"])
    state = replay(parse_deal(deal, variant), plan, kwargs["grid"], kwargs.get("levels"))
    if not state.done:
        raise ValueError("the plan stops before every card is placed")
    return float(state.score)


def _replay_modern_art(kwargs: dict[str, Any], deal: str, plan: Sequence[Any]) -> float:
    from tabletop_gym.envs.modern_art.rules import Rules, replay

    fields = {f.name for f in dataclasses.fields(Rules)}
    rules = Rules(**{k: _as_tuple(v) for k, v in kwargs.items() if k in fields})
    state = replay(rules, deal, plan)
    if not state.done:
        raise ValueError("the plan stops before the game ends")
    return float(state.scores[0])  # the oracle plans for seat 0, the seat the environment gives the agent


REPLAY: dict[str, Callable[[dict[str, Any], str, Sequence[Any]], float]] = {
    "cribbage": _replay_cribbage,
    "war": _replay_war,
    "dominion": _replay_dominion,
    "nmbr9": _replay_nmbr9,
    "modern_art": _replay_modern_art,
}


def deal_of_seed(env: gym.Env, seed: int) -> str:
    """The deal string that ``env.reset(seed=seed)`` plays. ``env`` must be made with
    ``reveal_deal=True``: hidden-information games show the deal at reset only then."""
    return env.reset(seed=seed)[1]["deal"]


def confirm_plan(game: str, kwargs: dict[str, Any], deal: str, result: OracleResult, where: str) -> None:
    """Replay an oracle result's plan through the game's engine (environment keyword arguments
    ``kwargs``); an AssertionError naming ``where`` unless it reaches the score the result states.
    Suites and batch solving store nothing the engine does not confirm."""
    score = float(REPLAY[game](kwargs, deal, result.plan))
    if score != result.score:
        raise AssertionError(f"oracle plan of {where} replays to {score}, not {result.score}")


# ---- the file -------------------------------------------------------------------------------------


def _checksum(meta: dict[str, Any], entries: list[dict[str, Any]]) -> str:
    body = {k: v for k, v in meta.items() if k != "checksum"}
    text = json.dumps({"meta": body, "entries": entries}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _write(path: Path, meta: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    meta = {**meta, "deals": len(entries), "complete": len(entries) >= meta["size"]}
    meta["checksum"] = _checksum(meta, entries)
    # One entry a line: a diff of a rebuilt suite shows which deals changed.
    lines = ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries)
    atomic_write_text(path, f'{{"meta": {json.dumps(meta, indent=1)},\n"entries": [\n{lines}\n]}}\n')


def _read(path: Path, suite_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        data = json.loads(read_regular(path))  # a device (/dev/zero) or a FIFO is refused, not read
    except FileNotFoundError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise SuiteError(f"suite {suite_id} ({path}) is not a readable suite file: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("meta"), dict) or not isinstance(
        data.get("entries"), list
    ):
        raise SuiteError(f"suite {suite_id} ({path}) is not a suite file (no meta and entries)")
    meta, entries = data["meta"], data["entries"]
    if meta.get("format") != FORMAT:
        raise SuiteError(
            f"suite {suite_id} ({path}) has format {meta.get('format')!r}; this version reads {FORMAT}"
        )
    if meta.get("checksum") != _checksum(meta, entries):
        raise SuiteError(f"suite {suite_id} ({path}) fails its checksum: the file was altered or damaged")
    return meta, entries


def _environment(spec_name: str, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    from tabletop_gym.training.games import get_game

    env_id, kwargs = get_game(spec_name).environment(args)
    return env_id, _normal(kwargs)


def load(suite: str | Path, replay: bool = True) -> Suite:
    """A checked suite, by id (``"cribbage-v0"``: shipped in the package, else built into
    ``user_dir``) or by a file's path.

    Checks, each a ``SuiteError`` naming the suite: the file parses and matches its checksum; it is
    complete; its environment and rules are what its definition gives today; every deal is
    accepted by the environment; every plan replays through the engine to the score it states,
    within the bound it states (``replay=False`` skips the replays, for listing only).
    """
    path = Path(suite) if isinstance(suite, Path) or str(suite).endswith(".json") else None
    if path is not None:
        # A file may have any name (a copy, a download): the suite it holds says which it is.
        if not path.is_file():
            raise SuiteError(f"no suite file at {path}")
        meta, raw = _read(path, path.name)
        suite_id = meta.get("id")
        if not isinstance(suite_id, str):
            raise SuiteError(f"suite file {path} names no suite id")
        spec = definition(suite_id)
    else:
        suite_id = str(suite)
        spec = definition(suite_id)
        path = suite_path(suite_id)
        if not path.is_file() and user_suite_path(suite_id).is_file():
            path = user_suite_path(suite_id)
        try:
            meta, raw = _read(path, suite_id)
        except FileNotFoundError:
            shipped = ", ".join(available()) or "none"
            raise SuiteError(
                f"no suite file for {suite_id} in the package or at {user_suite_path(suite_id)} "
                f"(shipped: {shipped}); build it with: tabletop-gym suite build {suite_id}"
            ) from None
        if meta.get("id") != suite_id:
            raise SuiteError(f"suite file {path} holds suite {meta.get('id')!r}, not {suite_id}")
    if not meta.get("complete") or len(raw) != meta.get("size"):
        raise SuiteError(
            f"suite {suite_id} is incomplete ({len(raw)} of {meta.get('size')} deals); "
            f"finish it with: tabletop-gym suite build {suite_id}"
        )
    env_id, kwargs = _environment(spec.game, spec.args())
    if meta.get("game") != spec.game or meta.get("env_id") != env_id or rules_kwargs(
        meta.get("env_kwargs", {})
    ) != rules_kwargs(kwargs):
        raise SuiteError(
            f"suite {suite_id} was made for {meta.get('env_id')} with {meta.get('env_kwargs')}, but its "
            f"definition now gives {env_id} with {kwargs}: build a new version"
        )
    entries = tuple(_entry(suite_id, i, e) for i, e in enumerate(raw))
    if len({e.deal for e in entries}) != len(entries):
        raise SuiteError(f"suite {suite_id} holds a deal twice")
    if replay:
        _check_entries(suite_id, spec.game, env_id, meta["env_kwargs"], entries)
    return Suite(suite_id, spec.game, env_id, meta["env_kwargs"], entries, meta, path)


def _entry(suite_id: str, index: int, data: Any) -> SuiteEntry:
    try:
        entry = SuiteEntry(
            seed=int(data["seed"]),
            deal=str(data["deal"]),
            score=data["score"],
            bound=data["bound"],
            plan=_as_tuple(data["plan"]),
            oracle_revision=str(data["oracle_revision"]),
            seconds=float(data.get("seconds", 0.0)),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise SuiteError(f"suite {suite_id}: entry {index} is malformed ({error!r})") from None
    if not isinstance(entry.score, (int, float)) or not isinstance(entry.bound, (int, float)):
        raise SuiteError(f"suite {suite_id}: entry {index} has a score or bound that is not a number")
    if entry.score > entry.bound:
        raise SuiteError(
            f"suite {suite_id}: entry {index} states score {entry.score} above its bound {entry.bound}"
        )
    if data.get("optimal") != entry.optimal:
        raise SuiteError(f"suite {suite_id}: entry {index} says optimal={data.get('optimal')} "
                         f"with score {entry.score} and bound {entry.bound}")
    return entry


def _check_entries(
    suite_id: str, game: str, env_id: str, kwargs: dict[str, Any], entries: Sequence[SuiteEntry]
) -> None:
    """Every deal through the environment's own parser, every plan through the engine."""
    env = gym.make(env_id, **{k: _as_tuple(v) if k == "deals" else v for k, v in kwargs.items()})
    replay = REPLAY[game]
    try:
        for i, entry in enumerate(entries):
            where = f"suite {suite_id}: entry {i} (seed {entry.seed})"
            try:
                env.reset(seed=entry.seed, options={"deal": entry.deal})
            except (ValueError, TypeError) as error:
                raise SuiteError(f"{where}: the environment refuses its deal: {error}") from None
            try:
                score = replay(kwargs, entry.deal, entry.plan)
            except (ValueError, TypeError, RuntimeError, IndexError, KeyError) as error:
                raise SuiteError(f"{where}: its plan no longer replays through the engine: {error}") from None
            if score != entry.score:
                raise SuiteError(
                    f"{where}: its plan replays to {score:g}, not the stated {entry.score:g}: the engine "
                    "changed or the file was edited; rebuild the suite as a new version"
                )
    finally:
        env.close()


# ---- building ------------------------------------------------------------------------------------


def build(
    suite_id: str,
    size: int | None = None,
    out: Path | None = None,
    cache: Path | None = None,
    progress: bool = True,
    save_every: float = 10.0,
) -> Suite:
    """Make or resume a suite: deals of seeds 0, 1, ... as the environment's ``reset(seed=...)``
    plays them, each solved by the game's oracle with the definition's settings.

    Entries already in the file are kept (checked first); the file is rewritten atomically every
    ``save_every`` seconds and at the end, so an interrupted build resumes where it stopped. The size
    of an unfinished suite may change; a complete suite's may not (its numbers are published): a
    different size is a new version. The file is ``out``, else ``user_suite_path(suite_id)``; a
    suite the package ships is checked there and never rewritten. Returns the loaded, checked
    suite, with ``solved_now`` the deals this call solved.
    """
    spec = definition(suite_id)
    # The package's files are published numbers, not a place to build in: an id it ships is only
    # checked there (and resumed nowhere); any other goes to the user's folder.
    shipped = out is None and suite_path(suite_id).is_file()
    path = Path(out) if out is not None else suite_path(suite_id) if shipped else user_suite_path(suite_id)
    if path.exists() and not path.is_file():
        raise SuiteError(f"{path} is not a regular file (a folder, a device or a FIFO); expected a file")
    if shipped:  # read only: no lock beside the package's files
        return _build(suite_id, spec, path, shipped, size, cache, progress, save_every)
    # Two builds of one file would each solve every deal and the last to save would drop the other's.
    with hold_output(path, "suite file"):
        return _build(suite_id, spec, path, shipped, size, cache, progress, save_every)


def _build(
    suite_id: str,
    spec: SuiteDefinition,
    path: Path,
    shipped: bool,
    size: int | None,
    cache: Path | None,
    progress: bool,
    save_every: float,
) -> Suite:
    args = spec.args(cache)
    env_id, kwargs = _environment(spec.game, args)
    from tabletop_gym.training.games import get_game

    game = get_game(spec.game)
    entries: list[dict[str, Any]] = []
    meta: dict[str, Any] | None = None
    if path.exists():
        meta, entries = _read(path, suite_id)
        if meta.get("id") != suite_id or meta.get("settings") != _normal(spec.settings):
            raise SuiteError(
                f"{path} holds {meta.get('id')} made with {meta.get('settings')}, not {suite_id} with "
                f"{spec.settings}: build a new version"
            )
        if meta.get("env_id") != env_id or rules_kwargs(meta.get("env_kwargs", {})) != rules_kwargs(kwargs):
            raise SuiteError(
                f"{path} was made for {meta.get('env_id')} with {meta.get('env_kwargs')}, but {suite_id}'s "
                f"definition now gives {env_id} with {kwargs}: build a new version"
            )
        checked = tuple(_entry(suite_id, i, e) for i, e in enumerate(entries))
        _check_entries(suite_id, spec.game, env_id, kwargs, checked)
        if meta.get("complete") and size is not None and size != meta["size"]:
            raise SuiteError(
                f"suite {suite_id} is complete with {meta['size']} deals; another size changes its "
                f"numbers: build a new version (e.g. {spec.name}-v{int(_split_id(suite_id)[1][1:]) + 1})"
            )
    size = check_int("size", size if size is not None else (meta or {}).get("size", spec.size), 1)
    if meta is None:
        meta = {
            "format": FORMAT,
            "id": suite_id,
            "game": spec.game,
            "env_id": env_id,
            "env_kwargs": kwargs,
            "options": spec.options,
            "settings": _normal(spec.settings),
            "target_size": spec.target_size,
            "note": spec.note,
            "deal_source": "seeds 0, 1, ...: the deal the environment's reset(seed=s) plays",
            "build_wall_seconds": 0.0,
            "build_cpu_seconds": 0.0,
        }
    before = json.dumps([meta, len(entries)], sort_keys=True)
    if not meta.get("complete"):
        # Words, not numbers: the note and the target follow the definition and the size while the
        # suite is made; a finished suite's words say how it was made, and stay.
        meta.update(note=spec.describe(size), target_size=spec.target_size, options=spec.options)
    meta["size"] = size
    entries = entries[:size]
    # A finished suite asked for again is left as it is (not even its build times are touched).
    changed = json.dumps([meta, len(entries)], sort_keys=True) != before or len(entries) < size
    if shipped and changed:
        raise SuiteError(
            f"suite {suite_id} ships with the package ({path}), which is never rebuilt in place: "
            f"give --out FILE to build a copy elsewhere"
        )
    already = len(entries)
    env = gym.make(env_id, **kwargs, reveal_deal=True)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    spent_wall, spent_cpu = meta["build_wall_seconds"], meta["build_cpu_seconds"]
    saved = time.perf_counter()

    def save() -> None:
        meta["build_wall_seconds"] = round(spent_wall + time.perf_counter() - start_wall, 1)
        meta["build_cpu_seconds"] = round(spent_cpu + time.process_time() - start_cpu, 1)
        _write(path, meta, entries)

    revision = oracle_revision(spec.game)
    try:
        quiet = not progress or not changed
        bar = tqdm(total=size, initial=len(entries), desc=suite_id, unit="deal", disable=quiet)
        for seed in range(len(entries), size):
            deal = deal_of_seed(env, seed)
            result = game.oracle(deal, args)
            if result is None:
                raise SuiteError(f"the {spec.game} oracle does not serve suite {suite_id}'s settings")
            confirm_plan(spec.game, kwargs, deal, result, f"seed {seed}")
            entry = SuiteEntry(seed, deal, result.score, result.bound, result.plan, revision, result.seconds)
            entries.append(entry.to_json())
            bar.update(1)
            if time.perf_counter() - saved >= save_every:
                save()
                saved = time.perf_counter()
        bar.close()
    finally:
        env.close()
        if changed:
            save()  # also on Ctrl-C or an error: what was solved is kept for the next run
    return dataclasses.replace(load(path), solved_now=len(entries) - already)


# ---- the command line's view -----------------------------------------------------------------------


def resolve(game: str, suite: str, args: argparse.Namespace) -> Suite:
    """The suite that ``evaluate GAME --suite SUITE`` names: a version (``v0``: the game's suite of
    that version whose environment is the one the command line selects), a suite id, or a suite
    file's path. Its environment must be the command line's (its options say which)."""
    if re.fullmatch(r"v[0-9]+", suite):
        names = [d.name for d in DEFINITIONS.values() if d.game == game]
        wanted = rules_kwargs(_environment(game, args)[1])
        env_id = _environment(game, args)[0]
        for name in names:
            d = DEFINITIONS[name]
            d_env, d_kwargs = _environment(game, d.args())
            if d_env == env_id and rules_kwargs(d_kwargs) == wanted:
                return load(f"{name}-{suite}")
        choices = "; ".join(f"{n}-{suite} ({DEFINITIONS[n].options})" for n in names) or "none"
        raise SuiteError(
            f"no {suite} suite of {game} for these settings ({env_id}, {wanted}); {game}'s suites: {choices}"
        )
    loaded = load(Path(suite) if suite.endswith(".json") else suite)
    if loaded.game != game:
        raise SuiteError(f"suite {loaded.id} is a {loaded.game} suite, not {game}")
    env_id, kwargs = _environment(game, args)
    if env_id != loaded.env_id or rules_kwargs(kwargs) != rules_kwargs(loaded.env_kwargs):
        raise SuiteError(
            f"suite {loaded.id} was made for {loaded.env_id} with {loaded.meta.get('options')}; the command "
            f"line selects {env_id} with {rules_kwargs(kwargs)}: give the suite's options"
        )
    return loaded


def evaluate(
    suite: Suite | str,
    agents: Sequence[str],
    out: Path | None = None,
    progress: bool = False,
    **settings: Any,
) -> dict[str, Any]:
    """Score agents (by name, as on the command line: ``random``, ``greedy``, ``oracle`` or a model's
    path) on a suite's deals against its stored oracle results; nothing is solved. ``settings`` are
    further command-line settings of the game (``observation="hidden"``); the suite's own settings
    select the environment. Returns the report ``tabletop-gym evaluate --suite`` writes."""
    from tabletop_gym.training.evaluate import evaluate as run
    from tabletop_gym.training.games import get_game

    suite = suite if isinstance(suite, Suite) else load(suite)
    spec = definition(suite.id)
    args = argparse.Namespace(**{**spec.settings, **settings, "cache": None})
    env_id, kwargs = _environment(spec.game, args)
    if env_id != suite.env_id or rules_kwargs(kwargs) != rules_kwargs(suite.env_kwargs):
        raise SuiteError(f"settings {settings} change the rules of suite {suite.id}")
    return run(get_game(spec.game), list(agents), None, None, args, out=out, progress=progress, suite=suite)

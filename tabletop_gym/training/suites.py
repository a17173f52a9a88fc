"""Suites as the command line (and a user's script) sees them: a suite definition's settings are
command-line settings, which only a game's ``GameSpec`` reads, so loading a suite (whose environment
must still be the one its definition selects), building one, finding the suite of a command line and
evaluating agents on one live here, above ``tabletop_gym.suites`` (definitions, files and checks).

This module offers every public name of ``tabletop_gym.suites`` too: ``from tabletop_gym.training
import suites`` is the one import a script needs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from tabletop_gym.core import check_int, hold_output
from tabletop_gym.suites.checking import (
    check_entries,
    confirm_plan,
    deal_of_seed,
    oracle_revision,
    presentation_options,
    replay_score,
    rules_kwargs,
)
from tabletop_gym.suites.definitions import SuiteDefinition, SuiteError, split_id
from tabletop_gym.suites.storage import (
    FORMAT,
    Suite,
    SuiteEntry,
    available,
    data_dir,
    normal,
    parse_entry,
    read_file,
    suite_path,
    user_built,
    user_dir,
    user_suite_path,
    write_file,
)
from tabletop_gym.training.games import game_names, get_game, suite_game

__all__ = [
    # the layer below's public names, offered here too
    "FORMAT",
    "replay_score",
    "Suite",
    "SuiteDefinition",
    "SuiteEntry",
    "SuiteError",
    "available",
    "confirm_plan",
    "data_dir",
    "deal_of_seed",
    "oracle_revision",
    "presentation_options",
    "rules_kwargs",
    "suite_path",
    "user_built",
    "user_dir",
    "user_suite_path",
    # what needs the command line's view of a game (and DEFINITIONS, built when asked for)
    "build",
    "definition",
    "definition_args",
    "definitions",
    "evaluate",
    "load",
    "resolve",
]


def definitions() -> dict[str, SuiteDefinition]:
    """Every suite definition by name, collected from each game's ``GameSpec`` (``suites``)."""
    return {suite.name: suite for game in game_names() for suite in get_game(game).suites}


def __getattr__(name: str) -> Any:
    # ``DEFINITIONS`` as it was when one shared table held them: built when asked for, since it
    # imports every game's GameSpec, where finding one suite imports only its own game's.
    if name == "DEFINITIONS":
        return definitions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def definition(suite_id: str) -> SuiteDefinition:
    """The definition of a suite id (any version of a known name), from the ``GameSpec`` of the game
    the id names (``war-r6s2-v0``: War's)."""
    name, _ = split_id(suite_id)
    game = suite_game(name)
    if game in game_names():
        for suite in get_game(game).suites:
            if suite.name == name:
                return suite
    raise SuiteError(f"no suite named {name!r}; suites: {', '.join(sorted(definitions()))}")


def definition_args(spec: SuiteDefinition, cache: Path | None = None) -> argparse.Namespace:
    """A definition's settings as the command line's parsed arguments, which the game's ``GameSpec``
    reads."""
    return argparse.Namespace(**spec.settings, cache=cache)


def _environment(spec_name: str, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    game = get_game(spec_name)
    env_id, kwargs = game.environment(game.read(args))
    return env_id, normal(kwargs)


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
        meta, raw = read_file(path, path.name)
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
            meta, raw = read_file(path, suite_id)
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
    env_id, kwargs = _environment(spec.game, definition_args(spec))
    if meta.get("game") != spec.game or meta.get("env_id") != env_id or rules_kwargs(
        env_id, meta.get("env_kwargs", {})
    ) != rules_kwargs(env_id, kwargs):
        raise SuiteError(
            f"suite {suite_id} was made for {meta.get('env_id')} with {meta.get('env_kwargs')}, but its "
            f"definition now gives {env_id} with {kwargs}: build a new version"
        )
    entries = tuple(parse_entry(suite_id, i, e) for i, e in enumerate(raw))
    if len({e.deal for e in entries}) != len(entries):
        raise SuiteError(f"suite {suite_id} holds a deal twice")
    if replay:
        check_entries(suite_id, spec.game, env_id, meta["env_kwargs"], entries)
    return Suite(suite_id, spec.game, env_id, meta["env_kwargs"], entries, meta, path)


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
    args = definition_args(spec, cache)
    env_id, kwargs = _environment(spec.game, args)
    entries: list[dict[str, Any]] = []
    meta: dict[str, Any] | None = None
    if path.exists():
        meta, entries = _entries_so_far(suite_id, spec, path, env_id, kwargs, size)
    size = check_int("size", size if size is not None else (meta or {}).get("size", spec.size), 1)
    if meta is None:
        meta = _fresh_meta(suite_id, spec, env_id, kwargs)
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
    _solve_deals(
        suite_id, spec, path, args, env_id, kwargs, meta, entries, size, changed, progress, save_every
    )
    return dataclasses.replace(load(path), solved_now=len(entries) - already)


def _entries_so_far(
    suite_id: str, spec: SuiteDefinition, path: Path, env_id: str, kwargs: dict[str, Any], size: int | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The metadata and entries of the suite file being resumed, refused unless it is this suite
    with the same settings and environment, its entries replay, and (once complete) its size stays."""
    meta, entries = read_file(path, suite_id)
    if meta.get("id") != suite_id or meta.get("settings") != normal(spec.settings):
        raise SuiteError(
            f"{path} holds {meta.get('id')} made with {meta.get('settings')}, not {suite_id} with "
            f"{spec.settings}: build a new version"
        )
    if meta.get("env_id") != env_id or rules_kwargs(env_id, meta.get("env_kwargs", {})) != rules_kwargs(
        env_id, kwargs
    ):
        raise SuiteError(
            f"{path} was made for {meta.get('env_id')} with {meta.get('env_kwargs')}, but {suite_id}'s "
            f"definition now gives {env_id} with {kwargs}: build a new version"
        )
    checked = tuple(parse_entry(suite_id, i, e) for i, e in enumerate(entries))
    check_entries(suite_id, spec.game, env_id, kwargs, checked)
    if meta.get("complete") and size is not None and size != meta["size"]:
        raise SuiteError(
            f"suite {suite_id} is complete with {meta['size']} deals; another size changes its "
            f"numbers: build a new version (e.g. {spec.name}-v{int(split_id(suite_id)[1][1:]) + 1})"
        )
    return meta, entries


def _fresh_meta(suite_id: str, spec: SuiteDefinition, env_id: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The metadata a new suite file starts with: what it is, how its deals are made, no build time yet."""
    return {
        "format": FORMAT,
        "id": suite_id,
        "game": spec.game,
        "env_id": env_id,
        "env_kwargs": kwargs,
        "options": spec.options,
        "settings": normal(spec.settings),
        "target_size": spec.target_size,
        "note": spec.note,
        "deal_source": "seeds 0, 1, ...: the deal the environment's reset(seed=s) plays",
        "build_wall_seconds": 0.0,
        "build_cpu_seconds": 0.0,
    }


def _solve_deals(
    suite_id: str,
    spec: SuiteDefinition,
    path: Path,
    args: argparse.Namespace,
    env_id: str,
    kwargs: dict[str, Any],
    meta: dict[str, Any],
    entries: list[dict[str, Any]],
    size: int,
    changed: bool,
    progress: bool,
    save_every: float,
) -> None:
    """Solve the deals of seeds ``len(entries)`` to ``size - 1``, appending to ``entries``; each plan
    is replayed before it is kept. The file is saved every ``save_every`` seconds and at the end, also
    on Ctrl-C or an error, with the build times so far added to the file's."""
    game = get_game(spec.game)
    env = gym.make(env_id, **kwargs, reveal_deal=True)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    spent_wall, spent_cpu = meta["build_wall_seconds"], meta["build_cpu_seconds"]
    saved = time.perf_counter()

    def save() -> None:
        meta["build_wall_seconds"] = round(spent_wall + time.perf_counter() - start_wall, 1)
        meta["build_cpu_seconds"] = round(spent_cpu + time.process_time() - start_cpu, 1)
        write_file(path, meta, entries)

    revision = oracle_revision(spec.game)
    try:
        quiet = not progress or not changed
        bar = tqdm(total=size, initial=len(entries), desc=suite_id, unit="deal", disable=quiet)
        for seed in range(len(entries), size):
            deal = deal_of_seed(env, seed)
            result = game.oracle(deal, game.read(args))
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


def resolve(game: str, suite: str, args: argparse.Namespace) -> Suite:
    """The suite that ``evaluate GAME --suite SUITE`` names: a version (``v0``: the game's suite of
    that version whose environment is the one the command line selects), a suite id, or a suite
    file's path. Its environment must be the command line's (its options say which)."""
    if re.fullmatch(r"v[0-9]+", suite):
        own = get_game(game).suites
        env_id, kwargs = _environment(game, args)
        wanted = rules_kwargs(env_id, kwargs)
        for d in own:
            d_env, d_kwargs = _environment(game, definition_args(d))
            if d_env == env_id and rules_kwargs(d_env, d_kwargs) == wanted:
                return load(f"{d.name}-{suite}")
        choices = "; ".join(f"{d.name}-{suite} ({d.options})" for d in own) or "none"
        raise SuiteError(
            f"no {suite} suite of {game} for these settings ({env_id}, {wanted}); {game}'s suites: {choices}"
        )
    loaded = load(Path(suite) if suite.endswith(".json") else suite)
    if loaded.game != game:
        raise SuiteError(f"suite {loaded.id} is a {loaded.game} suite, not {game}")
    env_id, kwargs = _environment(game, args)
    if env_id != loaded.env_id or rules_kwargs(env_id, kwargs) != rules_kwargs(env_id, loaded.env_kwargs):
        raise SuiteError(
            f"suite {loaded.id} was made for {loaded.env_id} with {loaded.meta.get('options')}; the command "
            f"line selects {env_id} with {rules_kwargs(env_id, kwargs)}: give the suite's options"
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

    suite = suite if isinstance(suite, Suite) else load(suite)
    spec = definition(suite.id)
    args = argparse.Namespace(**{**spec.settings, **settings, "cache": None})
    env_id, kwargs = _environment(spec.game, args)
    if env_id != suite.env_id or rules_kwargs(env_id, kwargs) != rules_kwargs(env_id, suite.env_kwargs):
        raise SuiteError(f"settings {settings} change the rules of suite {suite.id}")
    return run(get_game(spec.game), list(agents), None, None, args, out=out, progress=progress, suite=suite)

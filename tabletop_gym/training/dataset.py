"""Expert datasets: a certified suite's oracle plans, played through the environment, written as a
Minari dataset (``tabletop-gym dataset GAME --suite ID``).

Each proven entry of the suite is one episode: the environment the suite was made for is reset to
the entry's deal and steps through the entry's plan, and Minari's ``DataCollector`` records what the
environment returns (observations, actions, rewards, terminations, truncations and every info, the
action mask among them). The environment is made as an agent meets it (``reveal_deal`` off), so where
the seat does not see the whole deal (Nmbr9's cards to come, Dominion's shuffles, War's hidden
observation) the dataset holds only what the seat observes; the plan, though, was chosen knowing the
deal, and the metadata says so (``hindsight_plan``).

Only proven plans are written: an entry whose value is a bound (the oracle stopped before proving
it optimal) is skipped and counted in the metadata (``skipped_bounds``). A dataset of demonstrations
is read as "what the best play looks like"; a plan of unknown distance from the optimum would teach
whatever it happens to do, unlabelled in every learner that samples steps without their episode.

The dataset is staged in a hidden folder beside its place and moved there only once complete, so an
interruption leaves no half dataset; Minari's own listing skips hidden folders.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
from tqdm import tqdm

import tabletop_gym
from tabletop_gym.core import TabletopError, hold_output
from tabletop_gym.suites.checking import presentation_options, rules_kwargs
from tabletop_gym.suites.definitions import SuiteError
from tabletop_gym.suites.storage import Suite, as_tuple
from tabletop_gym.training import suites as suite_api

__all__ = ["DatasetError", "DatasetReport", "INSTALL", "NAMESPACE", "dataset_id", "datasets_root", "write"]

NAMESPACE = "tabletop"
# The dataset's own version, apart from the suite's: it changes when what is recorded changes (new
# info keys, another observation), while the suite's version changes with its numbers.
DATASET_NAME = "oracle-v0"
INSTALL = 'pip install "tabletop-gym[dataset]"'


class DatasetError(TabletopError, ValueError):
    """A dataset that cannot be written: its place is taken, its suite has no proven plan, or a plan
    does not play through the environment."""


@dataclasses.dataclass(frozen=True)
class DatasetReport:
    """What ``write`` wrote."""

    dataset_id: str
    path: Path
    episodes: int
    steps: int
    skipped_bounds: int
    hindsight_plan: bool


def dataset_id(suite_id: str) -> str:
    """The Minari id of a suite's dataset, ``tabletop/<suite-id>/oracle-v0``: Minari's own layout
    (``namespace/environment/dataset-vN``, as in ``mujoco/hopper/expert-v0``), with the suite as the
    environment (its id already carries the suite's version) and the dataset named by what made it."""
    return f"{NAMESPACE}/{suite_id}/{DATASET_NAME}"


def datasets_root(out: Path | None = None) -> Path:
    """Where the dataset goes: ``out``, else Minari's own folder (``$MINARI_DATASETS_PATH``, else
    ``~/.minari/datasets``), where ``minari.load_dataset`` looks."""
    if out is not None:
        return Path(out)
    env = os.environ.get("MINARI_DATASETS_PATH")
    return Path(env) if env else Path.home() / ".minari" / "datasets"


def _import_minari() -> Any:
    """Minari and what it needs to write a dataset (jax for its episode buffers, h5py for its
    default storage), or one ImportError with the command that installs them."""
    try:
        import h5py  # noqa: F401
        import jax  # noqa: F401
        import minari
    except ImportError as error:
        raise ImportError(
            f"writing a Minari dataset needs minari with jax and h5py ({error.name} is missing): {INSTALL}"
        ) from None
    return minari


@contextlib.contextmanager
def _minari_root(root: Path) -> Iterator[None]:
    """Minari reads its folder from ``$MINARI_DATASETS_PATH`` on every call: point it at ``root``
    for the calls inside, and restore it after."""
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = before


def _load_suite(game: str, suite: str | Path) -> Suite:
    loaded = suite_api.load(Path(suite) if str(suite).endswith(".json") else str(suite))
    if loaded.game != game:
        raise SuiteError(f"suite {loaded.id} is a {loaded.game} suite, not {game}")
    return loaded


def _env_kwargs(suite: Suite, options: Mapping[str, Any]) -> dict[str, Any]:
    """The suite's environment arguments with ``options``, which may change only what is shown
    (the environment's presentation options, War's ``observation``), never the deals or scores."""
    shown = presentation_options(suite.env_id)
    for name in options:
        if name not in shown:
            raise DatasetError(
                f"environment option {name!r} would change the rules of suite {suite.id}; options that "
                f"change only what is shown: {', '.join(sorted(shown)) or 'none'}"
            )
    kwargs = {k: as_tuple(v) if k == "deals" else v for k, v in suite.env_kwargs.items()}
    kwargs.update(options)
    if rules_kwargs(suite.env_id, kwargs) != rules_kwargs(suite.env_id, suite.env_kwargs):
        raise DatasetError(f"options {dict(options)} change the rules of suite {suite.id}")
    return kwargs


def write(
    game: str,
    suite: str | Path,
    out: Path | None = None,
    force: bool = False,
    limit: int | None = None,
    env_options: Mapping[str, Any] | None = None,
    progress: bool = True,
) -> DatasetReport:
    """Write the proven plans of ``suite`` (an id or a suite file of ``game``), played through its
    environment, as the Minari dataset ``dataset_id(suite id)`` under ``out`` (default: Minari's
    folder, see ``datasets_root``). ``limit``: only the suite's first ``limit`` deals. An existing
    dataset is replaced only with ``force``. ``env_options``: environment arguments that change only
    what the seat is shown (War's ``observation="hidden"``). Returns what was written."""
    minari = _import_minari()
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise DatasetError(f"limit must be a whole number of deals, 1 or more, got {limit!r}")
    loaded = _load_suite(game, suite)
    kwargs = _env_kwargs(loaded, dict(env_options or {}))
    entries = loaded.entries[:limit] if limit is not None else loaded.entries
    proven = [e for e in entries if e.optimal]
    if not proven:
        raise DatasetError(
            f"suite {loaded.id} holds no proven plan in {'its first ' if limit else ''}{len(entries)} deals "
            "(each result is a bound, not an optimum): a dataset of it would hold no expert play"
        )
    name = dataset_id(loaded.id)
    root = datasets_root(out)
    final = root / name
    if final.exists() and not force:
        raise DatasetError(f"dataset {name} already exists at {final}: give --force to replace it")
    root.mkdir(parents=True, exist_ok=True)
    with hold_output(final, "dataset"):
        if final.exists() and not force:  # written by another run since the check above
            raise DatasetError(f"dataset {name} already exists at {final}: give --force to replace it")
        staging = Path(tempfile.mkdtemp(prefix=".tabletop-gym-dataset-", dir=root))
        try:
            with _minari_root(staging):
                hindsight, steps = _record(
                    minari, loaded, name, kwargs, proven, len(entries), limit, progress
                )
            from minari.namespace import create_namespace, list_local_namespaces

            with _minari_root(root):
                # The namespaces' own files (Minari lists a dataset under them); made before the
                # move, so a dataset in place always has them.
                for namespace in (NAMESPACE, f"{NAMESPACE}/{loaded.id}"):
                    if namespace not in list_local_namespaces():
                        create_namespace(namespace)
            replaced = staging / "replaced"
            try:
                if final.exists():
                    final.rename(replaced)
                (staging / name).rename(final)
            except BaseException:
                # Interrupted between the two moves: the old dataset goes back, not away with the staging.
                if replaced.exists() and not final.exists():
                    replaced.rename(final)
                raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return DatasetReport(name, final, len(proven), steps, len(entries) - len(proven), hindsight)


def _record(
    minari: Any,
    suite: Suite,
    name: str,
    kwargs: dict[str, Any],
    proven: list[Any],
    deals: int,
    limit: int | None,
    progress: bool,
) -> tuple[bool, int]:
    """Play every proven plan through a DataCollector over the suite's environment and create the
    dataset ``name`` in Minari's current folder. Returns whether the plans are hindsight plans, and
    the steps recorded."""
    env = minari.DataCollector(gym.make(suite.env_id, **kwargs), record_infos=True)
    try:
        hindsight = not bool(getattr(env.unwrapped, "deal_is_public", False))
        steps = 0
        bar = tqdm(proven, desc=name, unit="episode", disable=not progress)
        for entry in bar:
            steps += _play(env, suite, entry)
        bar.close()
        revisions = sorted({e.oracle_revision for e in proven})
        with warnings.catch_warnings():
            # Minari asks for an e-mail address and a link to versioned code, which a dataset made
            # on a user's machine has not got; the metadata below says how it was made instead.
            warnings.simplefilter("ignore", UserWarning)
            dataset = env.create_dataset(
                dataset_id=name,
                algorithm_name=f"the {suite.game} oracle's proven plans ({', '.join(revisions)})",
                author=f"tabletop-gym {tabletop_gym.__version__}",
                description=_description(suite, len(proven), deals, hindsight),
                requirements=[f"tabletop-gym=={tabletop_gym.__version__}"],
            )
        dataset.storage.update_metadata(
            {
                "suite_id": suite.id,
                "suite_checksum": suite.checksum,
                "suite_game": suite.game,
                "suite_settings": suite.meta.get("settings", {}),
                "suite_options": suite.meta.get("options", ""),
                "oracle_revision": revisions[0] if len(revisions) == 1 else revisions,
                "env_id": suite.env_id,
                "env_kwargs": _plain(kwargs),
                "deals": deals,
                "limit": limit,
                "skipped_bounds": deals - len(proven),
                "hindsight_plan": hindsight,
                "tabletop_gym_version": tabletop_gym.__version__,
            }
        )
        dataset.storage.update_episode_metadata(
            [
                {"suite_seed": e.seed, "deal": e.deal, "score": e.score, "bound": e.bound, "optimal": True}
                for e in proven
            ],
            range(len(proven)),
        )
        return hindsight, steps
    finally:
        env.close()


def _play(env: gym.Env, suite: Suite, entry: Any) -> int:
    """One episode: the entry's deal, its plan step by step; it must end on the plan's last action
    at the score the suite states."""
    where = f"suite {suite.id}, deal of seed {entry.seed}"
    env.reset(seed=entry.seed, options={"deal": entry.deal})
    ended, info = False, {}
    for step, action in enumerate(entry.plan, 1):
        if ended:
            raise DatasetError(f"{where}: the episode ended after {step - 1} of the plan's {len(entry.plan)} "
                               "actions (the plan chooses more than this environment's seat)")
        try:
            _, _, terminated, truncated, info = env.step(action)
        except ValueError as error:
            raise DatasetError(
                f"{where}: action {step} of its plan does not play in {suite.env_id} ({error}); the "
                "plan chooses moves this environment's seat does not make"
            ) from None
        ended = terminated or truncated
    if not ended or info.get("score") != entry.score:
        end = f"at score {info.get('score')}" if ended else "before the episode does"
        raise DatasetError(f"{where}: its plan ends {end}, not at the stated score {entry.score}")
    return len(entry.plan)


def _description(suite: Suite, episodes: int, deals: int, hindsight: bool) -> str:
    skipped = deals - episodes
    text = (
        f"The proven-optimal plans of tabletop-gym's certified suite {suite.id} ({suite.env_id}, "
        f"{suite.meta.get('options', '')}), each played through the environment from its deal: "
        f"{episodes} episodes of {deals} deals"
        + (f" ({skipped} skipped: their results are bounds, not proven optima)" if skipped else "")
        + ". Infos hold every step's action mask (info['action_mask']) and score."
    )
    if hindsight:
        text += (
            " The seat does not see the whole deal, and the observations hold only what it sees; the "
            "plans are hindsight plans: their moves were chosen knowing the deal (future draws, "
            "shuffles, hidden cards), so no policy of the observations alone need reach their scores."
        )
    return text


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value

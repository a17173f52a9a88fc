"""A suite on disk: its entries, its file (one entry a line, signed by a checksum of its content),
and where suites are kept: the package's own data, and the user's suite folder."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from tabletop_gym.core import OracleResult, atomic_write_text, quote_input, read_regular
from tabletop_gym.suites.definitions import ID, SuiteError, split_id

FORMAT = 1


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


def as_tuple(value: Any) -> Any:
    return tuple(as_tuple(v) for v in value) if isinstance(value, list) else value


def normal(value: Any) -> Any:
    """A value as JSON gives it back (tuples become lists), so settings compare across a file."""
    return json.loads(json.dumps(value))


def data_dir() -> Path:
    return Path(str(resources.files("tabletop_gym.suites").joinpath("data")))


def suite_path(suite_id: str) -> Path:
    """Where the package keeps a shipped suite's file."""
    split_id(suite_id)
    return data_dir() / f"{suite_id}.json"


def user_dir() -> Path:
    """Where ``build`` writes a suite unless told otherwise: ``$TABLETOP_GYM_SUITES`` if set, else
    ``~/.local/share/tabletop-gym/suites``. Data, not a cache: a suite can take hours to solve and
    its numbers get cited, so it does not go where caches are cleared (``~/.cache``)."""
    env = os.environ.get("TABLETOP_GYM_SUITES")
    return Path(env) if env else Path.home() / ".local" / "share" / "tabletop-gym" / "suites"


def user_suite_path(suite_id: str) -> Path:
    """Where ``build`` writes a suite by default."""
    split_id(suite_id)
    return user_dir() / f"{suite_id}.json"


def _ids(names: Sequence[str]) -> list[str]:
    return sorted(n[: -len(".json")] for n in names if n.endswith(".json") and ID.match(n[:-5]))


def available() -> list[str]:
    """Ids of the suites shipped in the package, sorted."""
    folder = resources.files("tabletop_gym.suites").joinpath("data")
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


# ---- the file -------------------------------------------------------------------------------------


def _checksum(meta: dict[str, Any], entries: list[dict[str, Any]]) -> str:
    body = {k: v for k, v in meta.items() if k != "checksum"}
    text = json.dumps({"meta": body, "entries": entries}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def write_file(path: Path, meta: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    meta = {**meta, "deals": len(entries), "complete": len(entries) >= meta["size"]}
    meta["checksum"] = _checksum(meta, entries)
    # One entry a line: a diff of a rebuilt suite shows which deals changed.
    lines = ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries)
    atomic_write_text(path, f'{{"meta": {json.dumps(meta, indent=1)},\n"entries": [\n{lines}\n]}}\n')


def read_file(path: Path, suite_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
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


def parse_entry(suite_id: str, index: int, data: Any) -> SuiteEntry:
    try:
        entry = SuiteEntry(
            seed=int(data["seed"]),
            deal=str(data["deal"]),
            score=data["score"],
            bound=data["bound"],
            plan=as_tuple(data["plan"]),
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

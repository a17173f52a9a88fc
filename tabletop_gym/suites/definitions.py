"""What a suite is made of (``SuiteDefinition``; each game declares its own beside its ``GameSpec``)
and how suite ids read (``NAME-vN``)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from tabletop_gym.core import TabletopError, quote_input

__all__ = ["SuiteDefinition", "SuiteError", "split_id"]

ID = re.compile(r"^(?P<name>[a-z0-9_]+(?:-[a-z0-9_]+)*)-(?P<version>v[0-9]+)$")


class SuiteError(TabletopError, ValueError):
    """A suite that cannot be used: missing, altered, incomplete, or no longer replaying."""


@dataclasses.dataclass(frozen=True)
class SuiteDefinition:
    """What a suite is made of, before any version of it is built.

    ``settings`` are command-line settings (argparse names) of the game, the same ones ``evaluate``
    reads: they select the environment, its rules and the oracle's limits (reading them takes the
    game's command-line view, so ``tabletop_gym.training.suites`` does). ``options`` are the
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


def split_id(suite_id: str) -> tuple[str, str]:
    match = ID.match(suite_id) if isinstance(suite_id, str) else None
    if match is None:
        raise SuiteError(f"suite id {quote_input(suite_id)} is not NAME-vN (e.g. cribbage-v0)")
    return match["name"], match["version"]


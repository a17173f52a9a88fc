"""What each suite is made of (``DEFINITIONS``) and how suite ids read (``NAME-vN``)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from tabletop_gym.core import TabletopError, quote_input

__all__ = ["DEFINITIONS", "SuiteDefinition", "SuiteError", "definition", "split_id"]

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


def split_id(suite_id: str) -> tuple[str, str]:
    match = ID.match(suite_id) if isinstance(suite_id, str) else None
    if match is None:
        raise SuiteError(f"suite id {quote_input(suite_id)} is not NAME-vN (e.g. cribbage-v0)")
    return match["name"], match["version"]


def definition(suite_id: str) -> SuiteDefinition:
    """The definition of a suite id (any version of a known name)."""
    name, _ = split_id(suite_id)
    if name not in DEFINITIONS:
        raise SuiteError(f"no suite named {name!r}; suites: {', '.join(sorted(DEFINITIONS))}")
    return DEFINITIONS[name]

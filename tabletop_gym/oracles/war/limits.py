"""How far War's oracles go: the sizes past which they are refused rather than left to eat time and
memory, and the limits a user sets on one answer (``WarLimits``). A module of its own so the command
line can state the ranges without loading a solver."""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_gym.core import check_float
from tabletop_gym.settings import MAX_WORK_LIMIT, WORK_LIMIT_NOTE, SettingsError, option

POSITIONS_PER_SECOND = 30_000
"""Positions searched (each way a trick plays out) in a second of the shared 2-core machine: 2 million
took 64 s there on the full deck, holding 1.75 GB. The command line turns its work limit into
``max_positions`` at this rate, so the search stops at the same point on every machine."""

METHODS = ("auto", "search", "cpsat")
"""How the horizon oracle answers: the exact search, CP-SAT, or the search within 20,000 positions
then CP-SAT."""

MAX_SEARCH_HORIZON = 2000
"""The longest horizon the horizon search covers: it recurses once per trick and its table keeps
each position's line of play, so memory grows with the square of the horizon (about 0.2 GB at 3,000
tricks, 1.3 GB at 10,000 on a 12-card deck)."""

MAX_MODEL_TRICKS = 200
"""The most tricks a CP-SAT model covers (a horizon, a pattern's length, ``--most-wars``). A model
grows with the square of its turns: on the full deck 200 tricks build in about 0.4 s, 1,000 in 15 s,
2,000 in over a minute. Its building counts against ``time_limit`` by its terms (``cpsat.model_terms``),
never by a clock."""

MAX_MODEL_TURNS = 1000
"""The most turns (cards each player puts on the table) a CP-SAT model holds."""


@dataclass(frozen=True)
class WarLimits:
    """What a user sets on the oracle's answer for one deal; each field is also a command-line flag."""

    method: str = option(
        METHODS[0],
        "with --horizon: exact search, CP-SAT, or the search within 20k positions then CP-SAT",
        choices=METHODS,
    )
    time_limit: float = option(
        60.0,
        "the oracle's work limit per deal or query (CP-SAT, model building included; the whole-game "
        f"search: {POSITIONS_PER_SECOND:,} positions a unit), {WORK_LIMIT_NOTE}",
        low=0,
        high=MAX_WORK_LIMIT,
        low_open=True,
    )
    force_exact: bool = option(False, "whole-game search on a large deck")

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise SettingsError(f"method must be one of {METHODS}, got {self.method!r}")
        # Values are refused as the flags refuse them (a suite's stored settings never pass argparse).
        try:
            limit = check_float("time_limit", self.time_limit, 0, MAX_WORK_LIMIT, low_open=True)
        except ValueError as error:
            raise SettingsError(str(error)) from None
        object.__setattr__(self, "time_limit", limit)
        if not isinstance(self.force_exact, bool):
            raise SettingsError(f"force_exact must be True or False, got {self.force_exact!r}")

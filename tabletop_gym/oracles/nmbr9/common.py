"""What the Nmbr9 oracles share: the work budget (limits counted as work, not clocks), CP-SAT
settings, parameter checks, and the exact search's place at the head of each call."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tabletop_gym.core import OracleResult, TabletopError, check_float, cp_solve
from tabletop_gym.envs.nmbr9.rules import (
    Deal,
    Variant,
    check_grid,
    parse_deal,
)

if TYPE_CHECKING:  # OR-Tools is imported where a model is solved: the limits and checks need none of it
    from ortools.sat.python import cp_model

GAME = "nmbr9"
# Part of the cache key: raise it when a change alters what ``solve`` returns (2: bounds covering
# forced discards and pair-cover cuts; 3: exact discards in the placement model, beams that keep
# plays with discards, limits counted as work instead of clocks; 4: the exact search's nodes priced by
# the placements they test), so that results cached by an older version are computed again rather
# than served.
ORACLE_REVISION = 4
MAX_TIME_LIMIT = 86_400.0  # a day: a longer search is a typo, not a request
MAX_WORKERS = 64

# Work per second of a 2-core machine (measured on this project's shared 2-core machine, see
# ``_Work``). CP-SAT: deterministic time, its search interleaved one task at a time (placement
# models of 6-8 cards on 6x6-8x8 boards and the relaxations: 0.9 units a wall second with the
# machine under a load of 3.5, 1.5-2.5 when it was quiet; CP-SAT means a unit to be about a second).
WORK_PER_SECOND = 1.0
# Beam searches: child positions evaluated (the standard game on 20x20: 7,000-8,500 a second).
POSITIONS_PER_SECOND = 8_000
# Model construction: variables and constraint terms written (Python: 470,000-640,000 a second).
TERMS_PER_SECOND = 500_000
# The free draft's candidate enumeration: level profiles and value combinations looked at.
COMBINATIONS_PER_SECOND = 500_000


class NoPlanError(TabletopError, RuntimeError):
    """The oracle found no play that its model covers (kept for callers that catch it: since every
    model admits plays with discards, a play, if only of one tile, is always found)."""


class _OverBudget(Exception):
    """A model's construction would pass its share of the work (the caller goes on without it)."""


EXACT_SEARCH_CARDS = 12
"""Deals (and free-draft variants) of at most this many cards go first to the exact depth-first
search (``oracles.nmbr9.search``): it proves 6-8 cards on 8x8 with 3 levels in milliseconds, where
CP-SAT takes minutes. Beyond, it rarely finishes and its work goes to the other methods."""
EXACT_SEARCH_SHARE = 0.5
"""The share of a call's work the exact search may use before the other methods take over."""
NODES_PER_SECOND = 500_000
"""The exact search's placements counted as one second of work of a 2-core machine (it does
0.7-0.9 million a second on one core there, with a known deal on 8x8): a node limit, not a clock."""
PLACEMENTS_PER_NODE = 100
"""Placements a node may test for where its tile would land at the price of one node. Expanding a
node tests every placement of each value it may place next: about 110 for a known deal on 8x8, the
board ``NODES_PER_SECOND`` was measured on, but 1,100 on 20x20 and, in the free draft (every value),
11,000 there, where a node took 200 microseconds instead of 2 (measured on F-9-2-5) and
``--time-limit 1`` ran a minute. Pricing a node by them keeps a unit of work near a second on
every board."""


def node_price(placements: float) -> float:
    """Nodes of work one node of the exact search costs when it tests ``placements`` placements."""
    return max(1.0, placements / PLACEMENTS_PER_NODE)


def _exact_first(
    wanted: bool,
    search: Callable[[int], OracleResult],
    work: _Work,
    stats: dict,
    placements: Callable[[], float],
) -> OracleResult | None:
    """The exact search's result within its share of ``work`` (None unless ``wanted``), each node
    priced by the ``placements()`` it tests (``node_price``); its score, bound and nodes go to
    ``stats``. Stopped early, its plan is still a replayed play and its bound still valid (it covers
    every subtree left)."""
    if not wanted:
        return None
    price = node_price(placements())
    nodes = max(1, int(work.left * EXACT_SEARCH_SHARE * NODES_PER_SECOND / price))
    result = search(nodes)
    used = result.stats.get("nodes", nodes)
    work.spend(used * price / NODES_PER_SECOND)
    stats["exact_search"] = {"score": result.score, "bound": result.bound, "nodes": used}
    return result


def _proven_by_search(exact: OracleResult, start: float) -> OracleResult:
    """The exact search's proven answer as the call's, timed from the call's start."""
    stats = {**exact.stats, "source": "exact search", "method": "exact search"}
    return dataclasses.replace(exact, seconds=time.perf_counter() - start, stats=stats)


class _Work:
    """Seconds of work of a 2-core machine left to a call.

    Each part spends what it counted (CP-SAT's deterministic time, beam positions, model terms),
    never what a clock says, so that a call's bound and plan do not depend on the machine or on
    what else runs on it. ``part`` hands a share to a sub-search; the caller then ``settle``s it.
    """

    def __init__(self, seconds: float) -> None:
        self.budget = max(0.0, float(seconds))
        self.left = self.budget

    @property
    def out(self) -> bool:
        return self.left <= 0

    @property
    def used(self) -> float:
        return self.budget - self.left

    def spend(self, seconds: float) -> None:
        self.left -= seconds

    def part(self, seconds: float) -> _Work:
        return _Work(min(seconds, self.left))

    def settle(self, sub: _Work) -> None:
        self.spend(sub.used)


def check_time_limit(time_limit: float, name: str = "time_limit") -> float:
    """``time_limit`` as a float: finite seconds, above 0 and at most a day (NaN would mean no limit
    at all to CP-SAT)."""
    return check_float(f"{name} (seconds)", time_limit, 0, MAX_TIME_LIMIT, low_open=True)


def _check_model_grid(model_grid: int | None, grid: int) -> int:
    """The model's board: ``grid`` when None, else a grid size no larger than ``grid``."""
    if model_grid is None:
        return grid
    model_grid = check_grid(model_grid, "model_grid")
    if model_grid > grid:
        raise ValueError(f"model_grid ({model_grid}) must be at most grid ({grid})")
    return model_grid


def _cp_solve(
    m: cp_model.CpModel, work: _Work, workers: int, floor: float = 0.01, quick_presolve: bool = False
) -> tuple[cp_model.CpSolver, int]:
    """CP-SAT on ``m`` for the work left (at least ``floor`` seconds of it): deterministic time with
    the search interleaved on ``workers`` workers, so the same model and budget give the same
    answer on every run and machine. The deterministic time used is spent from ``work``.
    ``quick_presolve``: one round of presolve (for the placement models, see below)."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = max(floor, work.left) * WORK_PER_SECOND
    solver.parameters.num_workers = int(workers)
    solver.parameters.interleave_search = True
    # One task per batch: the deterministic limit is then met exactly (batches of several tasks
    # overshot it by up to a few units, which starved the searches that follow).
    solver.parameters.interleave_batch_size = 1
    if quick_presolve:
        # On the placement models each round of probing and clique merging costs about two units
        # of deterministic time, and the default rounds used up short budgets before the search
        # (and the hinted play) was even reached. (The relaxations need the full presolve: with
        # one round F-9-2-20's stopped at 500 where it proves 380 with the same work.)
        solver.parameters.max_presolve_iterations = 1
    status = cp_solve(solver, m)
    work.spend(solver.ResponseProto().deterministic_time / WORK_PER_SECOND)
    return solver, status


def _as_deal(deal: Deal | str, variant: Variant | None) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if not isinstance(deal, str):
        # parse_deal says what a deal is; the variant guessed from its length needs a string first.
        return parse_deal(deal, variant or Variant())  # type: ignore[arg-type]
    if variant is None:
        variant = Variant(9, 2, len(deal.strip())) if len(deal.strip()) <= 20 else Variant()
    return parse_deal(deal, variant)

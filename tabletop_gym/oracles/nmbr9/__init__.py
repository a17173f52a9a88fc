"""Oracles for Nmbr9: the best score of a known card order, and of a freely chosen deck.

**Modules.** ``search``: the exact depth-first branch and bound (small boards, proofs in
milliseconds; written independently of the models, it cross-checks them). ``models``: the CP-SAT
placement model. ``bounds``: the grid-free relaxations. ``moves``: every move's value from a
position reached in play (the exact search from there; small variants). ``beam``: beam searches
over the engine's placements (plans for big boards). ``layout``: free-draft layouts built from the
top level down. ``known`` and ``free``: the two oracles, a portfolio of these.
``common``: the work budget and what the rest shares. This module keeps the public API.

**The placement model.** The game is a sequence of slots (one per card). Slot ``s`` gets at most one
Boolean ``x[s, value, action, level]`` (a value is fixed by the deal in the known draft, chosen in the
free draft); a slot with none is a card left out. With ``occ(s, L, c)`` the sum of slot ``s``'s
variables covering cell ``c`` on level ``L`` and ``below(s, L, c)`` a Boolean "a slot before ``s``
covers ``c`` on level ``L``" (a running sum):

- no two tiles share a cell of a level: ``sum_s occ(s, L, c) <= 1``;
- full support by earlier tiles: ``occ(s, L, c) <= below(s, L-1, c)`` for L >= 1;
- at least two tiles below: ``x + sum(earlier tiles on L-1 whose cells contain x's cells) <= 1``
  (a fully supported footprint rests on one tile exactly when one tile contains it);
- adjacency: ``x AND level L already started before s  =>  OR(below(s, L, c) for c around x)``;
- a slot can only be on level <= s // 2 (each level needs two tiles under it), and below a level limit.

**Discards.** The rules discard a card that fits nowhere (small grids, level limits), and only such
a card. In the known draft the model says so exactly (``exact_skips``): a card may be left out only
if every one of its placements is unavailable given the tiles before it (a cell not at the right
height, a single tile under it, or no neighbour on a level already started), so its feasible set is
the legal games and its optimum the true one. In the free draft a card left out is a card not
chosen: the best play is the best sequence of *at most* k legal placements, the missing cards then
dealt last (placed if they fit, which only adds points, else discarded), so free-draft models let
table slots go unused.

Symmetry breaking: the first tile is unturned (turning the whole square board maps legal games onto
legal games, discards included), and, in a game without discards, the layout touches row 0 and
column 0 (a shift keeps every placement legal; it is not used with discards, because a shift
changes what fits near the edges and so which cards are discarded). Hints come from the best plan
found so far.

**Bounds.** A grid-free relaxation (which card on which level, with each level's area and tile
count limited by the level under it, in draw order) gives an upper bound valid on every grid, in a
fraction of a second; a discarded card counts as a table tile in the known draft's (which only
loosens it) and is left out of the free draft's (at most k tiles). The placement model gives the
exact optimum on the grid it is built for; on a smaller "model grid" (to find good plans fast on a
big board) its bound is not used, only its plan.

**Certificates.** Every plan is replayed through the engine (``tabletop_gym.envs.nmbr9.rules``) on
the requested grid before it is reported, slot by slot: a model plan is used only when the engine
discards exactly the cards it left out, and a model whose plan does not replay (a bug) gives neither
plan nor bound. Free-draft plans mark a discarded card's action ``None``.

**Limits are work, not clocks.** Where a proof does not finish, the bound and plan depend on how
much search was done, so every limit counts work: CP-SAT runs on deterministic time with its search
interleaved (``WORK_PER_SECOND``), beam searches count positions (``POSITIONS_PER_SECOND``), model
construction counts terms (``TERMS_PER_SECOND``), the free draft's candidate enumeration counts
combinations, the exact search counts nodes, each priced by the placements it tests
(``NODES_PER_SECOND``, ``PLACEMENTS_PER_NODE``). ``time_limit`` is seconds of such work on a 2-core
machine: the same call gives the same bound and plan on every run and machine (with the same
OR-Tools); a faster one only finishes sooner.

**Plans for big boards.** The placement model on a 20x20 board is far too big to help, so plans
come from a portfolio of beam searches over the engine's own legal placements (``beam_plan``), and,
in the free draft, from layouts built from the top level down (``layout``: each level covered by a
small CP-SAT model; 207 on F-9-2-20 where the beams find 122).
"""

from __future__ import annotations

import sys

from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.envs.nmbr9.rules import (
    DEFAULT_GRID,
    Deal,
    Nmbr9Rules,
    Variant,
    check_grid,
    check_levels,
    parse_deal,
    replay,
)
from tabletop_gym.oracles import lazy_exports
from tabletop_gym.oracles.nmbr9.common import (
    EXACT_SEARCH_CARDS,
    GAME,
    MAX_TIME_LIMIT,
    ORACLE_REVISION,
    NoPlanError,
    _as_deal,
    _check_model_grid,
    check_time_limit,
)
from tabletop_gym.oracles.nmbr9.limits import Nmbr9Limits

# The solvers (CP-SAT models, the numba search) are imported on first use: a cached answer, the
# limits and the checks need none of them.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "beam": ("BEAM_PORTFOLIO", "beam_plan", "greedy_plan"),
        "bounds": (
            "PAIR_COVER",
            "free_relaxation_bound",
            "pair_cover",
            "pair_cover_table",
            "relaxation_bound",
        ),
        "free": ("_replay_free", "solve_free", "solve_free_beam"),
        "known": ("solve",),
        "moves": ("Nmbr9Moves",),
    },
)

__all__ = [
    "BEAM_PORTFOLIO",
    "EXACT_SEARCH_CARDS",
    "GAME",
    "MAX_TIME_LIMIT",
    "ORACLE_REVISION",
    "PAIR_COVER",
    "Nmbr9Limits",
    "Nmbr9Moves",
    "NoPlanError",
    "beam_plan",
    "check",
    "check_free",
    "check_time_limit",
    "free_relaxation_bound",
    "greedy_plan",
    "pair_cover",
    "pair_cover_table",
    "relaxation_bound",
    "solve",
    "solve_cached",
    "solve_free",
    "solve_free_beam",
]


def check(
    deal: Deal | str, result: OracleResult, grid: int = DEFAULT_GRID, levels: int | None = None
) -> bool:
    """True if ``result``'s plan replays through the engine to its score (the engine discards a card
    that fits nowhere, as the rules do; the plan then has no action for it)."""
    try:
        state = replay(Nmbr9Rules(grid=grid, levels=levels), _as_deal(deal, None), result.plan)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state.done and state.score == result.score <= result.bound


def check_free(
    variant: Variant, result: OracleResult, grid: int = DEFAULT_GRID, levels: int | None = None
) -> bool:
    """True if a free-draft result deals ``k`` cards of ``variant`` and its plan replays through the
    engine to its score, the engine discarding exactly the cards whose action is ``None``."""
    from tabletop_gym.oracles.nmbr9.free import _replay_free

    try:
        parse_deal("".join(str(int(v)) for v, _ in result.plan), variant)
        state = _replay_free(result.plan, grid, levels)
    except (ValueError, RuntimeError, TypeError):
        return False
    return state is not None and state.score == result.score <= result.bound


def solve_cached(
    deal: Deal | str,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    time_limit: float = 60.0,
    model_grid: int | None = None,
    cache: OracleCache | None = None,
) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    deal = _as_deal(deal, None)
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    board = _check_model_grid(model_grid, grid)  # model_grid itself stays None when not given
    cache = cache if cache is not None else OracleCache()
    # The revision, so that older entries are not reused; "l0" is no level limit (a limit is at
    # least 1). Results depend on these arguments only (limits count work), so entries are reusable.
    key = f"K{ORACLE_REVISION}-g{grid}-l{0 if levels is None else levels}-t{time_limit:g}-m{board}"
    return cache.solve(
        GAME,
        key,
        str(deal),
        # Through the package, which imports the solvers only now that the cache has no answer.
        lambda: sys.modules[__name__].solve(deal, grid, levels, time_limit, model_grid),
        lambda r: check(deal, r, grid, levels),
    )

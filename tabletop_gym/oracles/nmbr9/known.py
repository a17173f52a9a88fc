"""The known-draft Nmbr9 oracle: the best score of a given card order, with a plan and a bound."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ortools.sat.python import cp_model

from tabletop_gym.core import OracleResult, check_int
from tabletop_gym.envs.nmbr9.rules import (
    DEFAULT_GRID,
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    check_grid,
    check_levels,
    decode_action,
    footprint,
    replay,
    translate_plan,
)
from tabletop_gym.oracles.nmbr9 import search
from tabletop_gym.oracles.nmbr9.beam import _portfolio_rounds, beam_plan, greedy_plan
from tabletop_gym.oracles.nmbr9.bounds import _level_cap, _relaxation_bound
from tabletop_gym.oracles.nmbr9.common import (
    EXACT_SEARCH_CARDS,
    MAX_WORKERS,
    TERMS_PER_SECOND,
    NoPlanError,
    _as_deal,
    _check_model_grid,
    _exact_first,
    _OverBudget,
    _proven_by_search,
    _Work,
    check_time_limit,
)
from tabletop_gym.oracles.nmbr9.models import _canonical_hint, _PlacementModel, _replay_slots


def solve(
    deal: Deal | str,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    time_limit: float = 60.0,
    model_grid: int | None = None,
    workers: int = 2,
    variant: Variant | None = None,
    model_levels: int | None = None,
    placement_model: bool | None = None,
    exact_search: bool = True,
) -> OracleResult:
    """Known draft: the best score for this exact card order, with a plan and a proven bound.

    With ``exact_search`` (the default), a deal of at most ``EXACT_SEARCH_CARDS`` cards first goes
    to the exact depth-first search (``oracles.nmbr9.search``) for up to half the work: what it
    proves is the answer; else its play and its valid bound join what follows.

    Plans come from the greedy player and a portfolio of beam searches over the engine's legal
    placements (``beam_plan``, run in turn until their share of the work is used), then, if
    ``placement_model`` (default: only on grids of at most 10 cells a side, or when ``model_grid``
    is given), from the CP-SAT placement model, hinted with the best plan so far. ``model_grid``
    builds that model on a smaller board and ``model_levels`` limits its levels; its plan is moved
    to the middle of ``grid`` and its bound is then not used.

    ``bound`` is the least of the grid-free relaxation bound and, when the placement model covers
    the whole game, the model's proven bound: a valid upper bound on every play of the deal on
    ``grid``, even when a solver stops at its limit. Plays where the rules discard a card that fits
    nowhere (small grids, level limits) are covered: the relaxation counts a discarded card as a
    table tile (which only loosens it), and the placement model on the full grid leaves a card out
    exactly when no placement of it is available, as the rules do; such plays are also found.
    Plans hold one action per placed card; the engine replays them, discards included.

    ``time_limit`` is seconds of work of a 2-core machine, counted as work (CP-SAT's
    deterministic time, beam positions, model terms; see the module's notes), so the same call
    gives the same result everywhere; it covers the models' construction. Every parameter is
    checked first (a ValueError names the one that is wrong).
    """
    start = time.perf_counter()
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    model_given = model_grid is not None
    model_grid = _check_model_grid(model_grid, grid)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    model_levels = check_int("model_levels", model_levels, 1, optional=True)
    if placement_model is not None and not isinstance(placement_model, bool):
        raise TypeError(f"placement_model must be True, False or None, got {placement_model!r}")
    work = _Work(time_limit)
    deal = _as_deal(deal, variant)
    values = list(deal.cards)
    k = len(values)
    exact_stats: dict = {}
    exact = _exact_first(
        exact_search and k <= EXACT_SEARCH_CARDS,
        lambda nodes: search.solve_known(deal, grid, levels, node_limit=nodes),
        work,
        exact_stats,
        lambda: search.placements_tested(values, grid) / max(1, k),  # a node places the next card
    )
    if exact is not None and exact.optimal:
        return _proven_by_search(exact, start)
    if placement_model is None:
        placement_model = model_given or grid <= 10
    lv_cap = _level_cap(k, levels)
    model_cap = lv_cap if model_levels is None else min(lv_cap, model_levels)
    relax = _relaxation_bounds(values, levels, time_limit, work)
    bound = relax
    stats: dict = {"relaxation_bound": relax, **exact_stats}
    if exact is not None:
        bound = min(bound, exact.bound)
    best = _plays_before_the_model(deal, grid, levels, exact, bound, placement_model, work, stats)
    whole = model_grid == grid and model_cap == lv_cap  # else the model solves a restricted game
    if placement_model and (best.state is None or best.state.score < bound) and work.left > 0.05:
        bound = _offer_model_play(
            deal, grid, levels, best, bound, model_grid, model_cap, whole, work, workers, stats
        )
    if best.state is None:  # the greedy player always finishes: only a bug gets here
        raise NoPlanError(f"no play of deal {deal} found within {time_limit:g} s of work")
    return OracleResult(
        score=best.state.score,
        bound=max(bound, best.state.score),
        plan=tuple(best.plan),
        seconds=time.perf_counter() - start,
        stats=stats,
    )


def _plays_before_the_model(
    deal: Deal,
    grid: int,
    levels: int | None,
    exact: OracleResult | None,
    bound: int,
    placement_model: bool,
    work: _Work,
    stats: dict,
) -> _BestPlay:
    """The plays found before the placement model: the greedy player's, the stopped exact search's,
    then the beam portfolio's (all the work on big boards, a third when the model follows)."""
    best = _BestPlay(stats)
    best.offer(replay(Nmbr9Rules(grid=grid, levels=levels), deal, greedy_plan(deal, grid, levels)), "greedy")
    stats["greedy"] = None if best.state is None else best.state.score
    if exact is not None:
        best.offer(
            replay(Nmbr9Rules(grid=grid, levels=levels), deal, list(exact.plan)), "exact search (stopped)"
        )
    beam_work = work.part((1 / 3 if placement_model else 1.0) * work.left)
    beam_scores = _beam_portfolio(deal, grid, levels, bound, best, beam_work)
    work.settle(beam_work)
    stats["beam_runs"] = beam_scores
    return best


def _offer_model_play(
    deal: Deal,
    grid: int,
    levels: int | None,
    best: _BestPlay,
    bound: int,
    model_grid: int,
    model_cap: int,
    whole: bool,
    work: _Work,
    workers: int,
    stats: dict,
) -> int:
    """The placement model, hinted with the best play so far: its play goes to ``best``; returns the
    bound, tightened by the model's own where the model covers the whole game (``whole``)."""
    found = _solve_placement(
        deal, grid, levels, best.plan, model_grid, model_cap, whole, work, workers, stats
    )
    if found is not None:
        state, model_bound = found
        best.offer(state, "placement model")
        if model_bound is not None:
            stats["model_bound"] = model_bound
            bound = min(bound, model_bound)
    return bound


def _relaxation_bounds(values: list[int], levels: int | None, time_limit: float, work: _Work) -> int:
    """The grid-free relaxation's bound, the least of two solves. The plain relaxation is solved in
    a blink; the one with pair cuts is tighter but slower, and if stopped early its proven bound can
    be the looser of the two. Both bound every play, and one stopped before its first solution gives
    a trivial bound, so their shares need no floor."""
    relax = None
    for share, cuts in ((min(10.0, time_limit / 10), False), (min(30.0, time_limit / 4), True)):
        part = work.part(share)
        found = _relaxation_bound(values, levels, part, cuts)
        work.settle(part)
        relax = found if relax is None else min(relax, found)
    return relax


class _BestPlay:
    """The best finished play offered so far, its plan (one action per placed card), and where it
    came from (``stats["source"]``): the greedy player, the stopped exact search, a beam or the model."""

    def __init__(self, stats: dict) -> None:
        self.state: Nmbr9State | None = None
        self.plan: list[int] = []
        self._stats = stats

    def offer(self, state: Nmbr9State, source: str) -> None:
        if state.done and (self.state is None or state.score > self.state.score):
            self.state = state
            self.plan = [p.action for p in state.placements if p is not None]
            self._stats["source"] = source


def _beam_portfolio(
    deal: Deal, grid: int, levels: int | None, bound: int, best: _BestPlay, work: _Work
) -> list[int]:
    """The beam searches of the portfolio, run in turn until their work is used or the best play
    meets the bound; each play goes to ``best``. Returns the score of each beam that finished."""
    beam_scores = []
    for rho, vmin, per_table, per_level, width, per_parent in _portfolio_rounds():
        if work.out or (best.state is not None and best.state.score >= bound):
            break
        found = beam_plan(
            deal, grid, levels, rho, vmin, per_table, per_level, width, None, per_parent, work=work
        )
        if found is not None:
            beam_scores.append(found[1])
            best.offer(replay(Nmbr9Rules(grid=grid, levels=levels), deal, found[0]), "beam")
    return beam_scores


def _solve_placement(
    deal: Deal,
    grid: int,
    levels: int | None,
    best_plan: list[int],
    model_grid: int,
    model_cap: int,
    whole: bool,
    work: _Work,
    workers: int,
    stats: dict,
) -> tuple[Nmbr9State, int | None] | None:
    """The placement model's replayed play and, when it covers the whole game, its proven bound;
    None when it found no play (or was not built within the work). With ``whole`` the model
    leaves a card out exactly when the rules discard it; else (a smaller board or fewer levels) it
    places every card, so that its plan is a play on ``grid`` too."""
    values = list(deal.cards)
    k = len(values)
    try:
        model = _PlacementModel(
            [[v] for v in values],
            model_grid,
            model_cap,
            skippable=[whole] * k,
            exact_skips=whole,
            max_terms=work.left * TERMS_PER_SECOND,
        )
    except _OverBudget:
        work.spend(work.left)
        stats["model"] = "not built within the work limit"
        return None
    work.spend(model.terms / TERMS_PER_SECOND)
    hint = None
    if model_grid == grid:
        hint = _canonical_hint(deal, best_plan, grid, levels) if best_plan else None
        if hint is not None and not whole and any(h is None for h in hint):
            hint = None  # a play with discards: not one the restricted model covers
    else:
        small = _fit_plan(values, best_plan, grid, model_grid) if len(best_plan) == k else None
        if small is None:
            small = greedy_plan(deal, model_grid, levels)
        if len(small) == k:
            hint = _canonical_hint(deal, small, model_grid, levels)
    if hint is not None and all(h is None or h[2] < model_cap for h in hint):
        model.hint(hint)
    solver, status = model.solve(work, workers)
    stats.update(
        status=solver.status_name(status),
        variables=model.num_vars,
        model_grid=model_grid,
        model_levels=model_cap,
    )
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if status == cp_model.INFEASIBLE and whole:  # every game is one of its solutions: a bug
            stats["model"] = "infeasible although every game is a solution (a model bug): not used"
        return None
    actions = [None if p is None else p[1] for p in model.plan(solver)]
    if model_grid < grid:
        actions = translate_plan(deal, actions, model_grid, grid)  # every card placed (not whole)
    state = _replay_slots(deal, actions, grid, levels)
    if state is None or state.score != model.score(solver):
        # Out of step with the rules: a model bug. Neither its plan nor its bound is trusted.
        stats["model_plan"] = "does not replay through the engine: plan and bound not used"
        return None
    return state, model.score_bound(solver) if whole else None


def _fit_plan(values: Sequence[int], plan: Sequence[int], grid: int, small: int) -> list[int] | None:
    """The plan moved onto a ``small`` board (layout shifted to the top-left), or None if it does
    not fit there."""
    cells = [rc for v, a in zip(values, plan, strict=True) for rc in footprint(v, a, grid)]
    dr = min(r for r, _ in cells)
    dc = min(c for _, c in cells)
    if max(r for r, _ in cells) - dr >= small or max(c for _, c in cells) - dc >= small:
        return None
    out = []
    for a in plan:
        rot, r, c = decode_action(a, grid)
        out.append(rot * small * small + (r - dr) * small + (c - dc))
    return out

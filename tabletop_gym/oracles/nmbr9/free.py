"""The free-draft Nmbr9 oracle: the best score of a freely chosen deck of a variant."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
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
    footprint,
    replay,
    tile_area,
    translate_plan,
)
from tabletop_gym.oracles.nmbr9 import search
from tabletop_gym.oracles.nmbr9.beam import _portfolio_rounds, beam_plan, greedy_plan
from tabletop_gym.oracles.nmbr9.bounds import (
    _free_relaxation_bound,
    _level_cap,
)
from tabletop_gym.oracles.nmbr9.common import (
    COMBINATIONS_PER_SECOND,
    EXACT_SEARCH_CARDS,
    MAX_WORKERS,
    TERMS_PER_SECOND,
    _check_model_grid,
    _exact_first,
    _OverBudget,
    _proven_by_search,
    _Work,
    check_time_limit,
)
from tabletop_gym.oracles.nmbr9.layout import layouts
from tabletop_gym.oracles.nmbr9.models import _canonical_hint, _PlacementModel, _replay_slots


def solve_free(
    variant: Variant | str,
    grid: int = DEFAULT_GRID,
    levels: int | None = None,
    time_limit: float = 60.0,
    workers: int = 2,
    model_grid: int | None = None,
    max_candidates: int = 5000,
    exact_search: bool = True,
) -> OracleResult:
    """Free draft: the best score over every choice of ``k`` cards and their order for variant m-c-k.

    With ``exact_search`` (the default), variants of at most ``EXACT_SEARCH_CARDS`` cards first go
    to the exact layout search (``oracles.search.solve_free``) for up to half the work.

    The plan is ``((value, action), ...)`` for the ``k`` cards in play order; a card the rules
    discard (it fits nowhere: small grids, level limits) has action ``None``. The engine replays
    it on ``grid``.

    Adding a card never lowers a score (a placed tile scores value x level >= 0), so the best play
    is the best sequence of *at most* ``k`` legal placements, the cards it leaves out dealt last
    (placed where they fit, else discarded). Only level-major orders need searching: any finished
    layout can be rebuilt level by level, each level in an order where every tile touches an
    earlier one (each level of a finished game is connected). So the oracle enumerates
    *candidates*: a level for each of ``k`` slots in level-major order and the values of the cards
    above the table (which fix the score), pruned by areas, best score first. Each candidate is a
    small satisfiability model (the table's cards are left to the solver, and table slots beyond
    the two that hold the first upper level may stay unused); the first feasible one is optimal,
    and every better one was proven infeasible. An incumbent play from the greedy player and beam
    searches (a tenth of the work) ends the search as soon as no candidate left scores more, and
    is the answer when the work runs out (the bound is then the score of the first candidate not
    proven infeasible). When there are more than ``max_candidates`` (big variants), the one-model
    search runs instead, hinted with the incumbent, and the bound is the grid-free relaxation's
    (or the model's own); where that model would be too big to build (``_ONE_MODEL_LIMIT``),
    ``solve_free_beam`` runs instead (top-down layouts and beams).

    ``time_limit`` is seconds of work of a 2-core machine (see the module's notes): the same call
    gives the same result everywhere.
    """
    start = time.perf_counter()
    variant = Variant.of(variant)
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    model_grid = _check_model_grid(model_grid, grid)
    max_candidates = check_int("max_candidates", max_candidates, 0, 10**6)  # 0: the one-model search
    work = _Work(time_limit)
    k = variant.cards
    exact_stats: dict = {}
    exact = _exact_first(
        exact_search and k <= EXACT_SEARCH_CARDS,
        lambda nodes: search.solve_free(variant, grid, levels, node_limit=nodes),
        work,
        exact_stats,
        lambda: search.placements_tested(range(variant.max_value + 1), grid),
    )
    if exact is not None and exact.optimal:
        return _proven_by_search(exact, start)
    cap = _level_cap(k, levels)
    part = work.part(time_limit / 4)
    candidates = _free_candidates(variant, cap, max_candidates, part)
    work.settle(part)
    if candidates is None and k * model_grid**2 * (variant.max_value + 1) > _ONE_MODEL_LIMIT:
        # The one model would hold millions of variables (F-9-2-20 on 20x20): beam plans instead.
        return _solve_free_beam(variant, grid, levels, work, 6, start)
    part = work.part(min(120.0, time_limit / 10))
    relax = _free_relaxation_bound(variant, levels, part)
    work.settle(part)
    incumbent, runs = _free_incumbent(variant, grid, levels, work)
    stats: dict = {"relaxation_bound": relax, "model_grid": model_grid, "beam_runs": runs, "source": "beam"}
    stats.update(exact_stats)
    bound = relax if exact is None else min(relax, exact.bound)
    if candidates is not None and model_grid == grid:
        return _search_candidates(
            candidates, variant, grid, levels, cap, relax, incumbent, bound, work, stats, start
        )
    return _search_one_model(
        variant, grid, levels, model_grid, cap, incumbent, bound, work, workers, stats, start
    )


def _free_incumbent(variant: Variant, grid: int, levels: int | None, work: _Work) -> tuple[Nmbr9State, int]:
    """An incumbent from the greedy player and beams (a tenth of the work left): the answer when the
    models run out of work, and the one-model search's hint (without one it often finds nothing)."""
    part = work.part(work.left / 10)
    incumbent, runs = _free_beam_best(variant, grid, levels, part, 2, fewer=True)
    work.settle(part)
    return incumbent, runs


def _incumbent_answer(incumbent: Nmbr9State, bound: int, start: float, stats: dict) -> OracleResult:
    """The incumbent play (greedy player and beams) as the answer, with the bound proven so far."""
    return _free_plan_result(_free_pairs(incumbent), incumbent.score, bound, start, stats)


def _search_candidates(
    candidates: list,
    variant: Variant,
    grid: int,
    levels: int | None,
    cap: int,
    relax: int,
    incumbent: Nmbr9State,
    bound: int,
    work: _Work,
    stats: dict,
    start: float,
) -> OracleResult:
    """The candidates, best score first, each a small satisfiability model: the first feasible one
    is optimal; the incumbent is, once no candidate left scores more. When the work runs out the
    bound is the score of the first candidate not proven infeasible."""
    stats["candidates"] = len(candidates)
    proven_infeasible = 0
    for score, profile, upper in candidates:
        if score > relax:
            continue  # beyond the relaxation: impossible anyway
        bound = score  # every candidate scoring more was proven infeasible (or beyond the bound)
        if score <= incumbent.score:
            stats.update(status="OPTIMAL", infeasible_candidates=proven_infeasible)
            return _incumbent_answer(incumbent, bound, start, stats)  # nothing better is left: optimal
        if work.out:
            break
        slot_values = [list(range(variant.max_value + 1)) if v is None else [v] for v in upper]
        # Table slots beyond those the upper levels need may stay unused (fewer cards placed).
        needed = 2 if max(profile) > 0 else 1
        skippable = [lv == 0 and s >= needed for s, lv in enumerate(profile)]
        try:
            model = _PlacementModel(
                slot_values,
                grid,
                cap,
                copies=variant.copies,
                slot_levels=profile,
                skippable=skippable,
                max_terms=work.left * TERMS_PER_SECOND,
            )
        except _OverBudget:
            work.spend(work.left)
            break
        work.spend(model.terms / TERMS_PER_SECOND)
        # These small satisfiability models run fastest on one worker (measured on F-6-2-5).
        solver, status = model.solve(work, 1)
        if status == cp_model.INFEASIBLE:
            proven_infeasible += 1
            continue
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break  # out of work: the bound stays at this candidate's score
        stats.update(status="OPTIMAL", infeasible_candidates=proven_infeasible, source="candidate model")
        result = _free_result(model, solver, variant, grid, levels, score, start, stats)
        if result is not None:
            return result
        stats.update(status="NOT_PROVEN", model_plan="does not replay through the engine: not used")
        return _incumbent_answer(incumbent, relax, start, stats)  # a model bug: its proofs are not trusted
    stats.update(status="NOT_PROVEN", infeasible_candidates=proven_infeasible)
    return _incumbent_answer(incumbent, bound, start, stats)


def _search_one_model(
    variant: Variant,
    grid: int,
    levels: int | None,
    model_grid: int,
    cap: int,
    incumbent: Nmbr9State,
    bound: int,
    work: _Work,
    workers: int,
    stats: dict,
    start: float,
) -> OracleResult:
    """Too many candidates (or a smaller model grid): one model over every card of the box in every
    slot, level-major, hinted with the incumbent (without a hint it often finds nothing). Its own
    bound holds only on the full grid."""
    k = variant.cards
    try:
        model = _PlacementModel(
            [list(range(variant.max_value + 1))] * k,
            model_grid,
            cap,
            copies=variant.copies,
            level_major=True,
            skippable=[True] * k,
            max_terms=work.left * TERMS_PER_SECOND,
        )
    except _OverBudget:
        work.spend(work.left)
        stats.update(one_model_status="not built within the work limit")
        return _incumbent_answer(incumbent, bound, start, stats)
    work.spend(model.terms / TERMS_PER_SECOND)
    if model_grid == grid:
        hint = _level_major_hint(incumbent, k)
        if hint is not None and all(h is None or h[2] < cap for h in hint):
            model.hint(hint)
    solver, status = model.solve(work, workers)
    stats.update(one_model_status=solver.status_name(status), variables=model.num_vars)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        result = _free_result(model, solver, variant, grid, levels, bound, start, stats)
        if result is None:
            stats["model_plan"] = "does not replay through the engine: not used"
        else:
            if model_grid == grid:
                # Every play's placed tiles, rebuilt level-major, are one of its solutions: a bound.
                bound = min(bound, model.score_bound(solver))
            if result.score > incumbent.score:
                stats["source"] = "one model"
                return dataclasses.replace(result, bound=max(bound, result.score))
    return _incumbent_answer(incumbent, bound, start, stats)


_ONE_MODEL_LIMIT = 60_000  # cards x cells x values: beyond it the one-model free search is hopeless


def solve_free_beam(
    variant: Variant | str,
    grid: int = DEFAULT_GRID,
    time_limit: float = 30.0,
    orders: int = 6,
    levels: int | None = None,
) -> OracleResult:
    """Free draft for big variants, where the placement model is out of reach: the grid-free
    relaxation's bound (``free_relaxation_bound``, valid on every grid), then the better plan of
    top-down layouts (``oracles.nmbr9.layout``, ``LAYOUT_SHARE`` of the work left) and the beam
    searches (``beam_plan``) over a few card orders of the ``k`` highest cards (the table first gets
    the low ones). The plan is ``((value, action or None), ...)``; the engine replays it.
    ``time_limit`` is seconds of work for the whole call (see the module's notes)."""
    start = time.perf_counter()
    variant = Variant.of(variant)
    grid = check_grid(grid)
    levels = check_levels(levels)
    time_limit = check_time_limit(time_limit)
    orders = check_int("orders", orders, 1, 1000)
    return _solve_free_beam(variant, grid, levels, _Work(time_limit), orders, start)


def _solve_free_beam(
    variant: Variant, grid: int, levels: int | None, work: _Work, orders: int, start: float
) -> OracleResult:
    part = work.part(min(120.0, work.left / 2))
    relax = _free_relaxation_bound(variant, levels, part)
    work.settle(part)
    part = work.part(work.left * LAYOUT_SHARE)
    layout, tried = _layout_best(variant, grid, levels, part)
    work.settle(part)
    state, runs = _free_beam_best(variant, grid, levels, work, orders)
    stats = {"relaxation_bound": relax, "beam_runs": runs, "beam": state.score, "layouts": tried}
    if layout is not None:
        stats["layout"] = layout.score
    if layout is not None and layout.score > state.score:
        state = layout
    stats.update(deal=str(state.deal), source="layout" if state is layout else "beam")
    return _free_plan_result(_free_pairs(state), state.score, max(relax, state.score), start, stats)


LAYOUT_SHARE = 0.75
"""The share of a big free draft's work (after its bound) that goes to top-down layouts; the beams
over card orders get the rest (on F-9-2-20 layouts scored 206-209 where beams found 117)."""


def _layout_best(
    variant: Variant, grid: int, levels: int | None, work: _Work
) -> tuple[Nmbr9State | None, int]:
    """The best top-down layout (``oracles.nmbr9.layout``), its missing cards dealt last, as the
    engine replays it, and how many better layouts were found on the way."""
    best: Nmbr9State | None = None
    found = 0
    for placed in layouts(variant, grid, levels, work):
        found += 1
        state = _replay_free(_complete_free_plan(variant, placed, grid, levels), grid, levels)
        if state is not None and (best is None or state.score > best.score):
            best = state
    return best, found


def _free_beam_best(
    variant: Variant, grid: int, levels: int | None, work: _Work, orders: int, fewer: bool = False
) -> tuple[Nmbr9State, int]:
    """The best play found by the greedy player and the beam portfolio on a few orders of the ``k``
    highest cards (low cards first: they build the table), and the number of beams that finished.
    With ``fewer`` (small grids, where the best plays often discard), also the ``j`` highest cards
    for each ``j < k`` first, in ascending order, the others dealt last."""
    ascending = sorted(sorted(variant.full_deck, reverse=True)[: variant.cards])
    candidates = [ascending, ascending[::2] + ascending[1::2]][:orders]
    if fewer:
        rest = sorted(variant.full_deck)
        for j in range(variant.cards - 1, 1, -1):
            top = sorted(rest[-j:])
            low = rest[: len(rest) - j][::-1][: variant.cards - j]
            candidates.append(top + low)
        orders += variant.cards - 2
    rng = np.random.default_rng(0)
    while len(candidates) < orders and len(ascending) > 1:
        # Low cards early, with random swaps between neighbours.
        order = list(ascending)
        for i in rng.integers(0, len(order) - 1, size=len(order)):
            order[i], order[i + 1] = order[i + 1], order[i]
        candidates.append(order)
    first = Deal(tuple(candidates[0]))
    best = replay(Nmbr9Rules(grid=grid, levels=levels), first, greedy_plan(first, grid, levels))
    runs = 0
    for config in _portfolio_rounds(rounds=3, diverse_first=True):
        for order in candidates:
            if work.out:
                break
            deal = Deal(tuple(order))
            rho, vmin, per_table, per_level, width, per_parent = config
            found = beam_plan(
                deal, grid, levels, rho, vmin, per_table, per_level, width, None, per_parent, work=work
            )
            if found is not None:
                runs += 1
                if found[1] > best.score:
                    best = replay(Nmbr9Rules(grid=grid, levels=levels), deal, found[0])
    return best, runs


def _level_major_hint(state: Nmbr9State, slots: int) -> list | None:
    """A finished play rebuilt for the free draft's one-model search: its tiles level by level, each
    level in an order where every tile touches an earlier one, turned so that the first tile is
    unturned and shifted up-left; the unused slots just before the upper levels. As (value, action,
    level) per slot, None for an unused one; None if it does not replay (or has too many tiles)."""
    grid = state.grid
    placed = [p for p in state.placements if p is not None]
    if not placed or len(placed) > slots:
        return None
    order: list = []
    for lv in range(max(p.level for p in placed) + 1):
        level = [p for p in placed if p.level == lv]
        cells = [set(footprint(p.value, p.action, grid)) for p in level]
        ring = [
            {(r + dr, c + dc) for r, c in own for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))}
            for own in cells
        ]
        done = [0]
        while len(done) < len(level):  # each level of a finished game is connected
            nxt = next(
                (i for i in range(len(level)) if i not in done and any(ring[i] & cells[j] for j in done)),
                None,
            )
            if nxt is None:
                return None
            done.append(nxt)
        order.extend(level[i] for i in done)
    values = [p.value for p in order]
    actions = [p.action for p in order]
    hint = _canonical_hint(Deal(tuple(values)), actions, grid, state.levels)
    if hint is None or any(h is None for h in hint):
        return None
    table = sum(1 for h in hint if h[2] == 0)
    return hint[:table] + [None] * (slots - len(hint)) + hint[table:]


def _free_pairs(state: Nmbr9State) -> list[tuple[int, int | None]]:
    """A finished game as a free-draft plan: (value, action) per card, None for a discarded one."""
    return [
        (value, None if p is None else p.action)
        for value, p in zip(state.deal.cards, state.placements, strict=True)
    ]


def _free_plan_result(
    plan: Sequence[tuple[int, int | None]], score: int, bound: int, start: float, stats: dict
) -> OracleResult:
    """A free-draft answer: the dealt cards with their placements, the replayed score."""
    return OracleResult(
        score=score,
        bound=max(bound, score),
        plan=tuple(plan),
        seconds=time.perf_counter() - start,
        stats=stats,
    )


def _free_result(model, solver, variant, grid, levels, bound, start, stats) -> OracleResult | None:
    """The model's play, its missing cards dealt last, replayed; None if it does not replay to at
    least the model's score (a model bug)."""
    placed = [p for p in model.plan(solver) if p is not None]
    values = [v for v, _ in placed]
    actions = translate_plan(Deal(tuple(values)), [a for _, a in placed], model.grid, grid)
    plan = _complete_free_plan(variant, list(zip(values, actions, strict=True)), grid, levels)
    state = _replay_free(plan, grid, levels)
    if state is None or state.score < model.score(solver):
        return None
    return _free_plan_result(plan, state.score, bound, start, stats)


def _complete_free_plan(
    variant: Variant, placed: list[tuple[int, int]], grid: int, levels: int | None
) -> list[tuple[int, int | None]]:
    """A play of at most ``k`` placements completed to ``k`` cards: each missing card, highest
    value first among those that fit, is placed where it scores most; once nothing left fits (the
    board no longer changes, so nothing will), the rest are dealt and discarded."""
    from tabletop_gym.agents.nmbr9 import greedy_action

    plan: list[tuple[int, int | None]] = list(placed)
    left = list(variant.full_deck)
    for value, _ in placed:
        left.remove(value)
    while len(plan) < variant.cards:
        choice: tuple[int, int | None] = (max(left), None)
        for value in sorted(set(left), reverse=True):
            deal = Deal(tuple(v for v, _ in plan) + (value,))
            state = replay(Nmbr9Rules(grid=grid, levels=levels), deal, [a for _, a in plan if a is not None])
            if not state.done:  # the engine did not discard it: it fits
                choice = (value, greedy_action(state))
                break
        left.remove(choice[0])
        plan.append(choice)
    return plan


def _replay_free(plan: Sequence[tuple[int, int | None]], grid: int, levels: int | None) -> Nmbr9State | None:
    """The engine's replay of a free-draft plan, or None when it is out of step with the rules."""
    deal = Deal(tuple(int(v) for v, _ in plan))
    return _replay_slots(deal, [a for _, a in plan], grid, levels)


def _free_candidates(variant: Variant, cap: int, limit: int, work: _Work | None = None) -> list | None:
    """(score, level per slot, value per slot or None on the table), best score first; None if more
    than ``limit``. Levels in level-major order; a used level stands on two tiles of the level
    under it; each level's area fits on the level under it (the table's area at most 10 per tile).
    Also None when ``work`` runs out first (each profile and combination looked at costs
    ``1 / COMBINATIONS_PER_SECOND``)."""
    import itertools

    k, m, c = variant.cards, variant.max_value, variant.copies
    out: list = []
    cost = 1 / COMBINATIONS_PER_SECOND

    def profiles(prefix: list[int]):
        if len(prefix) == k:
            yield list(prefix)
            return
        last = prefix[-1]
        for lv in (last, last + 1):
            if lv >= cap or (lv > last and prefix.count(last) < 2):
                continue
            yield from profiles(prefix + [lv])

    for profile in profiles([0]):
        if work is not None:
            work.spend(cost)
            if work.out:
                return None
        counts = [profile.count(lv) for lv in range(max(profile) + 1)]
        per_level = [list(itertools.combinations_with_replacement(range(m + 1), n)) for n in counts[1:]]
        for tried, combo in enumerate(itertools.product(*per_level)):
            if work is not None and tried % 1024 == 1023:
                work.spend(1024 * cost)
                if work.out:
                    return None
            used = [v for group in combo for v in group]
            if any(used.count(v) > c for v in set(used)):
                continue
            areas = [10 * counts[0]] + [sum(tile_area(v) for v in g) for g in combo]
            if any(areas[i] > areas[i - 1] for i in range(1, len(areas))):
                continue
            orders = [sorted(set(itertools.permutations(g))) if len(g) >= 3 else [g] for g in combo]
            score = sum((i + 1) * sum(g) for i, g in enumerate(combo))
            for chosen in itertools.product(*orders):
                upper = [None] * counts[0] + [v for g in chosen for v in g]
                out.append((score, profile, upper))
                if len(out) > limit:
                    return None
    out.sort(key=lambda item: -item[0])
    return out

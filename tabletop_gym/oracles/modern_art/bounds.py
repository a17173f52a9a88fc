"""Bounds from the CP-SAT models: the game model (``relaxation_bound``), the seat-only round model
and the seat's supply per artist."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ortools.sat.python import cp_model

from tabletop_gym.core import check_int, cp_solve
from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    DRAW,
    HIDDEN,
    NUM_ARTISTS,
    NUM_SYMBOLS,
    ModernArtRules,
    artist_of,
)
from tabletop_gym.oracles.modern_art.common import (
    MAX_WORKERS,
    SUPPLY_WORK_PER_SECOND,
    WORK_PER_SECOND,
    _check_seat,
    _check_seconds,
    _require_modelled,
)
from tabletop_gym.oracles.modern_art.model import _seat_reach, build_model
from tabletop_gym.oracles.modern_art.solutions import _Collector, _hint


def _solve_for(
    m: cp_model.CpModel,
    seconds: float,
    workers: int,
    callback: cp_model.CpSolverSolutionCallback | None = None,
    rate: float = WORK_PER_SECOND,
    lns_only: bool = False,
) -> tuple[Any, cp_model.CpSolver]:
    """(status, solver) of CP-SAT on ``m`` on ``workers`` workers, for about ``seconds`` of a 2-core
    machine: ``seconds x rate`` of CP-SAT's deterministic time, with its search interleaved, so the
    same model and limit give the same answer on every run and machine. ``lns_only``: only the
    neighbourhood workers, from the hint (a search for solutions that proves nothing)."""
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = max(0.01, float(seconds) * rate)
    solver.parameters.num_workers = int(workers)
    solver.parameters.interleave_search = True
    if lns_only:
        solver.parameters.use_lns_only = True
    return cp_solve(solver, m, callback), solver


def _seconds_spent(solver: cp_model.CpSolver, rate: float) -> float:
    """The ``seconds`` (as ``_solve_for`` counts them at ``rate``) a finished solve used."""
    return solver.ResponseProto().deterministic_time / rate


def _complete_hint(m: cp_model.CpModel, time_limit: float, workers: int) -> None:
    """Turn the partial hint (the plays) into a complete one: solve a copy with the hinted values fixed
    and hint every variable with that solution (CP-SAT starts from complete hints far more easily)."""
    fixed = m.Clone()
    hint = fixed.Proto().solution_hint
    for index, value in zip(hint.vars, hint.values, strict=True):
        fixed.Add(fixed.GetIntVarFromProtoIndex(index) == value)
    fixed.ClearHints()
    status, solver = _solve_for(fixed, time_limit, workers)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return  # keep the partial hint
    m.ClearHints()
    for index in range(len(m.Proto().variables)):
        var = m.GetIntVarFromProtoIndex(index)
        m.AddHint(var, solver.Value(fixed.GetIntVarFromProtoIndex(index)))


def relaxation_bound(
    rules: ModernArtRules,
    cards: Sequence[int] | None,
    seat: int = 0,
    time_limit: float = 10.0,
    workers: int = 2,
    plan: Sequence[int] | None = None,
    plan_deal: Sequence[int] | None = None,
    collect: list | None = None,
) -> tuple[int, int, dict[str, Any]]:
    """(proven upper bound, the relaxation's best objective found, stats) of ``build_model``;
    ``plan`` (a real game of the deal ``cards``, or of ``plan_deal`` for the free-deal model) hints
    the search. With a list ``collect``, the last solutions found are added to it as (objective,
    ``solution_plays``). Raises RuntimeError when CP-SAT proves nothing in time (no bound to report)."""
    seat, time_limit = _check_seat(rules, seat), _check_seconds("time_limit", time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    m, handles = build_model(rules, cards, seat)
    played_on = plan_deal if plan_deal is not None else cards
    if plan is not None and played_on is not None:
        _hint(m, handles, rules, played_on, plan)
        _complete_hint(m, min(2.0, time_limit / 4), workers)
    collector = _Collector(handles, rules) if collect is not None else None
    solver, status, bound, found = _solve_relaxation(m, time_limit, workers, collector)
    if collector is not None:
        collect.extend(collector.found)
    stats = {
        "relaxation_status": solver.StatusName(status),
        "relaxation_objective": found,
        "relaxation_seconds": solver.WallTime(),
    }
    return bound, found, stats


def _supply(rules: ModernArtRules, cards: Sequence[int] | None, seat: int) -> dict[str, Any]:
    """What the relaxation needs to know about the deal (or, with ``cards=None``, about any deal)."""
    draws = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    hidden = sum(rules.deck[a][HIDDEN] for a in range(NUM_ARTISTS))
    award_cards = sum(rules.deck[a][AWARD] for a in range(NUM_ARTISTS))
    # per artist and round, the most cards of it the seat can have received (any deal: the deck's)
    reach = _seat_reach(rules, cards, seat)["artist"]
    extra_artist = None if cards is None else artist_of(cards[rules.deals[0] * rules.players])
    return {
        "reach": reach, "hand": rules.deals[0], "draws": draws, "hidden": hidden,
        "award_cards": award_cards, "extra_artist": extra_artist,
    }  # fmt: skip


def seat_round_bound(
    rules: ModernArtRules,
    cards: Sequence[int] | None,
    seat: int = 0,
    time_limit: float = 10.0,
    workers: int = 2,
) -> tuple[int, int, dict[str, Any]]:
    """(proven upper bound, best objective found, stats) of the first, seat-only round-level model.

    It keeps only the seat's cards (see the module docstring of the first version): per round the top
    places go to distinct artists, awards need award cards, the seat's cards come from its first hand
    or the part of the deck that can reach it, at most dealt plus draw cards in all, and per round its
    face-up cards of an artist stay below the limit except for two cards of the last play (its own turn
    card and double card, or one simultaneous card), face-down ones need hidden cards. Weaker than
    ``build_model`` on a fixed deal, but CP-SAT proves a lower bound with it over free deals.
    """
    _require_modelled(rules)
    seat, time_limit = _check_seat(rules, seat), _check_seconds("time_limit", time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    data = _supply(rules, cards, seat)
    R, A = rules.rounds, NUM_ARTISTS
    places = len(rules.value_tokens)
    limit = rules.round_limit
    end_plays = 1 if rules.end_of_round_plays else 0
    awards_max = min(rules.award_tokens, data["award_cards"])
    max_value = sum(rules.value_tokens[:1]) * R + rules.award_value * awards_max
    cards_max = max(max(row) for row in data["reach"])

    m = cp_model.CpModel()
    place = [[[m.NewBoolVar(f"place{r}_{a}_{k}") for k in range(places)] for a in range(A)] for r in range(R)]
    placed = [[m.NewBoolVar(f"placed{r}_{a}") for a in range(A)] for r in range(R)]
    award = [[m.NewIntVar(0, awards_max, f"award{r}_{a}") for a in range(A)] for r in range(R)]
    up = [[m.NewIntVar(0, limit + 1 + end_plays, f"up{r}_{a}") for a in range(A)] for r in range(R)]
    excess = [[m.NewIntVar(0, 2, f"excess{r}_{a}") for a in range(A)] for r in range(R)]
    down = [[m.NewIntVar(0, data["hidden"], f"down{r}_{a}") for a in range(A)] for r in range(R)]
    pay = []
    m.Add(sum(award[r][a] for r in range(R) for a in range(A)) <= awards_max)
    m.Add(sum(down[r][a] for r in range(R) for a in range(A)) <= data["hidden"])
    for r in range(R):
        for k in range(places):
            m.Add(sum(place[r][a][k] for a in range(A)) <= 1)
        m.Add(sum(excess[r][a] for a in range(A)) <= 2)
        for a in range(A):
            m.Add(sum(place[r][a]) == placed[r][a])
            first_round_extra = 1 if (data["extra_artist"] == a and r == 0) else 0
            m.Add(up[r][a] <= limit - 1 - first_round_extra + excess[r][a] + end_plays)
        total_dealt = data["hand"] + sum(rules.deals[1 : r + 1])
        m.Add(
            sum(up[q][a] + down[q][a] for q in range(r + 1) for a in range(A)) <= total_dealt + data["draws"]
        )
        for a in range(A):
            m.Add(sum(up[q][a] + down[q][a] for q in range(r + 1)) <= data["reach"][a][r])
            value = m.NewIntVar(0, max_value, f"value{r}_{a}")
            m.Add(
                value
                == sum(rules.value_tokens[k] * place[q][a][k] for q in range(r + 1) for k in range(places))
                + rules.award_value * sum(award[q][a] for q in range(r + 1))
            )
            own = m.NewIntVar(0, cards_max, f"own{r}_{a}")
            m.Add(own == up[r][a] + down[r][a])
            product = m.NewIntVar(0, max_value * cards_max, f"product{r}_{a}")
            m.AddMultiplicationEquality(product, [value, own])
            p = m.NewIntVar(0, max_value * cards_max, f"pay{r}_{a}")
            m.Add(p <= product)
            m.Add(p <= max_value * cards_max * placed[r][a])
            # McCormick-style linear cuts: they let the LP relaxation see the product's size.
            round_value = sum(rules.value_tokens[:1]) * (r + 1) + rules.award_value * awards_max
            own_max = limit + 1 + end_plays + data["hidden"]
            m.Add(p <= round_value * own)
            m.Add(p <= own_max * value)
            pay.append(p)
    m.Maximize(sum(pay))
    solver, status, bound, found = _solve_relaxation(m, time_limit, workers)
    stats = {
        "seat_model_status": solver.StatusName(status),
        "seat_model_bound": bound,
        "seat_model_seconds": solver.WallTime(),
    }
    return bound, found, stats


def _seat_supply(
    rules: ModernArtRules, cards: Sequence[int], seat: int, seconds: float, workers: int = 2
) -> list[int]:
    """Per artist, the most of its cards the seat can display over the whole game, as proven by
    CP-SAT in the game model (about ``seconds`` per artist); at most ``_seat_reach``'s count.

    Every real game is a solution of the game model, so these hold in every real game. They are
    often below ``_seat_reach``'s counts, which take each artist's best starters and draws on their
    own: the model knows that drawing needs draw cards played as turns, that every hand must take
    its turns, and where the deck's cards lie. First each count is maximized (up to half of
    ``seconds``); the time that leaves goes to asking, where a gap remains, whether the bound
    itself can be reached: CP-SAT often answers "no" within a second or two, which lowers the bound
    by one."""
    # Without the order of draws: it slows these proofs more than it cuts (3 players, seeds 0 and 1,
    # 3 s per artist: path bounds 341 and 348 without it, 364 and 377 with it).
    m, h = build_model(rules, cards, seat, scoring=False, draw_order=False)
    reach = _seat_reach(rules, cards, seat)["artist"]
    left = seconds * NUM_ARTISTS
    counts, found, most = [], [], []
    for a in range(NUM_ARTISTS):
        kinds = range(a * NUM_SYMBOLS, (a + 1) * NUM_SYMBOLS)
        counts.append(sum(h[what][r][seat][k] for what in ("turn", "sec", "down") for r in range(rules.rounds)
                          for k in kinds))  # fmt: skip
        m.Maximize(counts[a])
        status, solver = _solve_for(m, seconds / 2, workers, rate=SUPPLY_WORK_PER_SECOND)
        left -= _seconds_spent(solver, SUPPLY_WORK_PER_SECOND)
        if status == cp_model.INFEASIBLE:  # a real game always exists: the model would be wrong
            raise AssertionError("the game model has no solution")
        solved = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        found.append(int(solver.ObjectiveValue()) if solved else 0)
        most.append(min(reach[a][-1], int(solver.BestObjectiveBound() + 1e-6) if solved else reach[a][-1]))
    m.ClearObjective()
    for a in sorted(range(NUM_ARTISTS), key=lambda a: found[a] - most[a]):  # widest gap first
        while found[a] < most[a] and left > 0:
            probe = m.Clone()
            probe.Add(counts[a] >= most[a])
            status, solver = _solve_for(probe, min(seconds, left), workers, rate=SUPPLY_WORK_PER_SECOND)
            left -= _seconds_spent(solver, SUPPLY_WORK_PER_SECOND)
            if status == cp_model.INFEASIBLE:
                most[a] -= 1
            elif status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                found[a] = most[a]
            else:
                break
    return most


def _solve_relaxation(
    m: cp_model.CpModel,
    time_limit: float,
    workers: int,
    callback: cp_model.CpSolverSolutionCallback | None = None,
) -> tuple[cp_model.CpSolver, int, int, int]:
    """Solve a relaxation; returns the solver, its status, the proven bound and the best objective.

    Without a solution (UNKNOWN) CP-SAT's objective bound means nothing, and INFEASIBLE would mean a
    real game violates the model (a bug): both raise.
    """
    status, solver = _solve_for(m, time_limit, workers, callback)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(f"relaxation not solved: {solver.StatusName(status)}")
    return solver, status, int(solver.BestObjectiveBound() + 1e-6), int(solver.ObjectiveValue())

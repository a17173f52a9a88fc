"""The per-deal oracle: ``solve``, its check and its cache."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from tabletop_gym.core import OracleCache, OracleResult, check_int
from tabletop_gym.envs.modern_art.rules import (
    ModernArtRules,
    State,
    parse_deal,
    replay,
)
from tabletop_gym.oracles.modern_art import common
from tabletop_gym.oracles.modern_art.beam import PORTFOLIO, _played_out, portfolio_search
from tabletop_gym.oracles.modern_art.bounds import relaxation_bound, seat_round_bound
from tabletop_gym.oracles.modern_art.brute import brute_force
from tabletop_gym.oracles.modern_art.common import (
    GAME,
    POSITIONS_PER_SECOND,
    _check_seat,
    _check_seconds,
    _check_width,
    _require_modelled,
)
from tabletop_gym.oracles.modern_art.lns import lns_plan
from tabletop_gym.oracles.modern_art.paths import _path_bound_or_none
from tabletop_gym.oracles.modern_art.realization import _Positions, realize, replanned


def solve(
    deal: str,
    rules: ModernArtRules | None = None,
    seat: int = 0,
    width: int = 64,
    time_limit: float = 10.0,
    exact_positions: int = 0,
) -> OracleResult:
    """The per-deal oracle: ``score`` from a replayed plan, ``bound`` the smaller of the game model's
    (CP-SAT, ``time_limit`` seconds) and ``artist_path_bound``'s (an LP of about a second, after the
    seat's supply per artist with 2 or 3 players: up to ``time_limit / 10`` seconds of CP-SAT each).
    Seconds are those of a 2-core machine, counted as deterministic work (see the module's
    docstring): the result depends on the arguments only.

    The plan: the best of the beams, the game model's solutions played out through the engine, its
    later rounds planned again, and ``lns_plan`` with the plan budget those leave unspent.

    With ``exact_positions > 0`` the exhaustive search is tried first (exact, for tiny decks) and its
    optimum is both score and bound when it finishes within that many positions.

    ``width`` is 1 to ``MAX_WIDTH`` and ``time_limit`` above 0 and at most ``MAX_TIME_LIMIT`` (finite:
    every limit binds); anything else is a ValueError naming the parameter, before any search.
    """
    rules = ModernArtRules() if rules is None else rules
    _require_modelled(rules)
    seat, width = _check_seat(rules, seat), _check_width(width)
    time_limit = _check_seconds("time_limit", time_limit)
    exact_positions = check_int("exact_positions", exact_positions, 0)
    cards = parse_deal(deal, rules)
    start = time.perf_counter()
    stats: dict[str, Any] = {"variant": rules.variant(), "seat": seat}
    if exact_positions > 0:
        try:
            score, plan = brute_force(rules, deal, seat, exact_positions)
            stats["method"] = "exhaustive"
            return _checked(rules, deal, seat, score, score, plan, start, stats)
        except RuntimeError:
            pass
    score, plan, which = portfolio_search(rules, cards, seat, width)
    stats.update(beam_width=width, beam_valuation=PORTFOLIO[which])
    stats["beam_seconds"] = time.perf_counter() - start
    solutions: list = []
    try:
        bound, _, relax_stats = relaxation_bound(rules, cards, seat, time_limit, plan=plan, collect=solutions)
        relax_stats["game_model_bound"] = bound
    except RuntimeError as error:  # nothing proven in time: the seat-only model's bound instead
        bound, _, relax_stats = seat_round_bound(rules, cards, seat, time_limit)
        relax_stats["game_model"] = str(error)
    stats.update(relax_stats)
    # A tenth of the game model's time per artist for the seat's supply (half as much again). With
    # 4 or 5 players CP-SAT proved no count below the seat's reach in that time (the bench's deals),
    # so it is left out there.
    supply_seconds = time_limit / 10 if rules.players <= 3 else 0.0
    path_bound = _path_bound_or_none(rules, cards, seat, stats, supply_seconds=supply_seconds)
    if path_bound is not None:
        bound = min(bound, path_bound)
    stats["plan_source"] = "beam"
    narrow = max(8, width // 2)
    found = _realized(rules, cards, seat, score, plan, solutions, bound, time_limit, narrow, which)
    score, plan, how, left = found
    if how:
        stats["plan_source"] = how
    if score < bound:
        # The work kept for realizing and planning again that they did not spend: CP-SAT's LNS on the
        # game model from the best plan, and its solutions realized.
        stats["lns_seconds"] = round(left, 3)
        score, plan, how = lns_plan(rules, cards, seat, score, plan, left, [PORTFOLIO[which]], narrow)
        if how:
            stats["plan_source"] += f", {how}"
    stats["method"] = "beam and realized relaxation plans; smaller of the game model and artist path bounds"
    if bound < score:  # a proven bound below a replayed plan can only be a bug in the model
        raise AssertionError(f"relaxation bound {bound} below the plan's {score}: the model is wrong")
    return _checked(rules, deal, seat, score, bound, plan, start, stats)


def _realized(
    rules: ModernArtRules,
    cards: Sequence[int],
    seat: int,
    score: int,
    plan: Sequence[int],
    solutions: list,
    bound: int,
    time_limit: float,
    narrow: int,
    which: int,
) -> tuple[int, tuple[int, ...], str, float]:
    """The best of ``plan`` and the game model's ``solutions`` played out through the engine: where
    the order of plays can be found, the plan scores what the solution does; else (after planning
    again once from there) a beam of width ``narrow`` goes on from the first round that could not be
    realized. Realizing gets a third of the relaxation's time as positions (the seat's supply took up
    to half), planning again a sixth; two thirds where a solution meets the bound, since realizing
    one proves the plan optimal. Where nothing needed planning again, the sixth goes to planning the
    plan's later rounds again. Returns (score, plan, how it was found or "", the seconds of that
    budget left unspent)."""
    plan, how = tuple(plan), ""
    at_bound = any(objective >= bound for objective, _ in solutions)
    shared = _Positions(time_limit * (2 / 3 if at_bound else 1 / 3) * POSITIONS_PER_SECOND)
    replan = True  # once, for the best solution that cannot be realized to the end (a sixth more time)
    for objective, plays in sorted(solutions, key=lambda item: -item[0]):
        if objective <= score or shared.left <= 0:
            break
        reached = realize(rules, cards, plays, shared=shared)
        if not reached.done and replan:
            replan = False
            shared.left += int(time_limit / 6 * POSITIONS_PER_SECOND)
            reached = replanned(rules, cards, seat, reached, time_limit / 6, shared=shared)
        found, line, made = _played_out(rules, cards, seat, reached, narrow, [PORTFOLIO[which]])
        if found > score:
            score, plan, how = found, line, f"relaxation {made}"
    left = max(0, shared.left) / POSITIONS_PER_SECOND
    if replan and score < bound:
        spent: list[float] = []
        score, plan, again = _replan_later_rounds(rules, cards, seat, score, plan, time_limit / 6, spent)
        left += max(0.0, time_limit / 6 - sum(spent))
        if again:
            how = f"{how or 'beam'}, {again}"
    return score, plan, how, left


def _replan_later_rounds(
    rules: ModernArtRules,
    cards: Sequence[int],
    seat: int,
    score: int,
    plan: Sequence[int],
    seconds: float,
    spent: list[float] | None = None,
) -> tuple[int, tuple[int, ...], str]:
    """The plan with its later rounds planned again: from the start of each round after the first
    (in order, each from the best plan so far), the game model with the rounds before fixed to the
    plan's own (``replanned``: a smaller search than the whole game's) for an equal share of
    ``seconds``, and its solutions realized. Returns (score, plan, how it was improved or ""); with a
    list ``spent``, the seconds CP-SAT used are added to it."""
    plan, how = tuple(plan), ""
    share = seconds / (rules.rounds - 1) if rules.rounds > 1 else 0.0
    for r in range(1, rules.rounds):
        start = State(rules, cards)
        for action in plan:
            if start.round == r or start.done:
                break
            start.apply(action)
        if start.done or start.round != r:
            break  # the plan's game ended early: no later round to plan again
        shared = _Positions(share * POSITIONS_PER_SECOND)
        reached = replanned(rules, cards, seat, start, share, shared=shared, spent=spent)
        if reached.done and reached.money[seat] > score:
            score, plan, how = reached.money[seat], tuple(reached.history), f"replanned from round {r + 1}"
    return score, plan, how


def _checked(
    rules: ModernArtRules, deal: str, seat: int, score: int, bound: int, plan, start: float, stats
) -> OracleResult:  # noqa: ANN001
    final = replay(rules, deal, plan)
    if not final.done or final.money[seat] != score:
        raise AssertionError(f"plan replays to {final.money[seat]}, claimed {score}")
    return OracleResult(
        score=score, bound=bound, plan=tuple(plan), seconds=time.perf_counter() - start, stats=stats
    )


def check(deal: str, result: OracleResult, rules: ModernArtRules | None = None, seat: int = 0) -> bool:
    """True when the result's plan replays through the engine to its score."""
    rules = ModernArtRules() if rules is None else rules
    try:
        final = replay(rules, deal, result.plan)
    except (ValueError, TypeError):
        return False
    return final.done and final.money[seat] == result.score <= result.bound


def solve_cached(
    deal: str,
    rules: ModernArtRules | None = None,
    seat: int = 0,
    cache: OracleCache | None = None,
    **options: Any,
) -> OracleResult:  # noqa: E501
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    rules = ModernArtRules() if rules is None else rules
    if not isinstance(deal, str):
        raise TypeError(f"a deal must be a string of two-character cards, got {type(deal).__name__}")
    cache = cache if cache is not None else OracleCache()
    options_key = "_".join(f"{k}{v}" for k, v in sorted(options.items()))
    # read at call time, so a test can stand in another revision (``common.ORACLE_REVISION``)
    variant = f"{rules.variant()}_seat{seat}_r{common.ORACLE_REVISION}_{options_key}"
    return cache.solve(
        GAME,
        variant,
        deal.strip(),
        lambda: solve(deal, rules, seat, **options),
        lambda r: check(deal, r, rules, seat),
    )

"""The Dominion oracle itself: ``solve`` (the treasure game or a kingdom), the plans that seed the
kingdom search, results checked by the engine, and the on-disk cache."""

from __future__ import annotations

import time
from typing import Any

from tabletop_gym.core import OracleCache, OracleResult, check_float, check_int
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles.dominion.common import (
    DEFAULT_WORK_LIMIT,
    GAME,
    Plan,
    _deepen,
    oracle_kingdom,
    replay_turns,
)
from tabletop_gym.oracles.dominion.kingdom import _kingdom_iteration, _KingdomSearch
from tabletop_gym.oracles.dominion.plans import _beam, _bot_plan
from tabletop_gym.oracles.dominion.treasure import _iteration, _Search

# Shares of the work the seed plans may take: the exact search first runs alone on 1/_FIRST_SHARE of the
# work limit (enough for most one-card kingdoms and small targets); if it is not done, the plans below
# take at most their shares of the work left and the exact search goes on with the rest.
_FIRST_SHARE = 8
_BEAM_SHARE = 8  # each beam
_BEAM_WIDTHS = (20, 60)
_TREASURE_SHARE = 8  # the treasure game, solved exactly
_SINGLES_SHARE = 4  # all one-card sub-kingdoms together, solved exactly in turn, each with what is left
# The one-card sub-kingdoms in the order they are solved: the best alone first (measured: Smithy
# alone is optimal in 12 turns on most deals, Mine in 13, the others in 13-15). Each stops as soon as it
# cannot beat the best plan so far, so most take little of the share.
_SINGLE_ORDER = (R.SMITHY, R.MINE, R.MARKET, R.REMODEL, R.WORKSHOP, R.MILITIA, R.CELLAR, R.MOAT, R.MERCHANT,
                 R.VILLAGE)
# The treasure search's nodes are about four times cheaper than the kingdom search's work units.
_TREASURE_NODES_PER_WORK = 4


def _seed_plans(seed: int, target: int, kingdom: tuple[int, ...], work_limit: int,
                best: int) -> tuple[dict[str, Plan], int]:
    """Upper bounds with their plans, by source, and the work they took, each within a share of
    ``work_limit``: for two kingdom cards or more, beam searches over whole turns; then the
    sub-kingdoms solved exactly (a plan with fewer kingdom cards is a legal play of a larger kingdom:
    the same decisions come up; each is replayed in the larger kingdom to make sure): the treasure
    game and, for two kingdom cards or more, each card alone (seeded by the treasure game's plan). A
    sub-kingdom's search stops once its lower bound reaches the best plan so far (``best`` turns at
    first): it cannot improve on it (its entry is then the best plan it had, its bots' or the treasure
    game's)."""
    plans: dict[str, Plan] = {}
    used = 0
    if len(kingdom) >= 2:
        for width in _BEAM_WIDTHS:
            search = _KingdomSearch(seed, target, kingdom, work_limit=work_limit // _BEAM_SHARE)
            found = _beam(search, width)
            used += search.work
            if found is not None:
                plans[f"beam {width}"] = found
                best = min(best, found[0])
    treasure = _solve_treasure(seed, target, None, max(1, work_limit // _TREASURE_SHARE), cutoff=best)
    plans["treasure"] = (-int(treasure.score), list(treasure.plan))
    best = min(best, plans["treasure"][0])
    used += treasure.stats["work"]
    if len(kingdom) >= 2:
        pool = work_limit // _SINGLES_SHARE
        for card in sorted(kingdom, key=_SINGLE_ORDER.index):
            if pool < 1:
                break
            sub = _solve_kingdom(seed, target, (card,), None, pool, seeded=False,
                                 plans={"treasure": plans["treasure"]}, cutoff=best)
            plans[R.CARD_NAMES[card]] = (-int(sub.score), list(sub.plan))
            best = min(best, plans[R.CARD_NAMES[card]][0])
            pool -= sub.stats["work"]
            used += sub.stats["work"]
    for name, (turns, plan) in plans.items():
        if replay_turns(seed, plan, target, kingdom) != turns:  # never: a sub-kingdom's play is a play here
            raise AssertionError(f"the {name} plan does not replay to {turns} turns in the kingdom")
    return plans, used



def solve(deal: int | str, target: int = R.DEFAULT_TARGET, time_limit: float | None = None,
          kingdom: Any = "", work_limit: int = DEFAULT_WORK_LIMIT) -> OracleResult:
    """The fewest turns to own ``target`` Provinces on seed ``deal``.

    ``kingdom``: "" (default) is the treasure-and-victory supply; otherwise any kingdom cards of the
    First Game, as for the engine (e.g. "smithy,village" or "first-game"). Returns ``score = -turns``
    of the best plan found and ``bound = -(proven lower bound)``; with enough work they meet
    (``optimal``). ``work_limit`` (search nodes, positions and turn outcomes generated: about 50,000
    a second on one core) caps the search, so the same call gives the same answer on every machine;
    ``time_limit`` (seconds, finite, above 0; default none) adds a wall-clock cap on the exact search,
    whose answer then depends on the machine. A search cut off reports its bound, not an optimum.
    ``target`` is 1..8.
    """
    seed, target, time_limit, work_limit = _checked(deal, target, time_limit, work_limit)
    cards = oracle_kingdom(kingdom)
    if cards:
        return _solve_kingdom(seed, target, cards, time_limit, work_limit)
    return _solve_treasure(seed, target, time_limit, work_limit)


def _solve_treasure(seed: int, target: int, time_limit: float | None, work_limit: int,
                    cutoff: int | None = None) -> OracleResult:
    start = time.perf_counter()
    deadline = start + (time_limit or float("inf"))
    search = _Search(seed, target, deadline, _TREASURE_NODES_PER_WORK * work_limit)
    upper, plan = _bot_plan(seed, target)
    root = search.start()
    upper, lower, plan, iterations = _deepen(
        search, lambda turns: _iteration(search, root, 0, turns), upper, plan,
        search.lower_bound(root, target), cutoff)
    return _result(seed, target, (), upper, lower, plan, start, search, iterations,
                   {"positions_refuted": len(search.failed),
                    "work": -(-search.nodes // _TREASURE_NODES_PER_WORK)})


def _checked(deal: int | str, target: Any, time_limit: Any,
             work_limit: Any) -> tuple[int, int, float | None, int]:
    """The seed, target and limits, or a ValueError naming the bad one (a NaN or infinite time
    limit would never stop the search)."""
    limit = None if time_limit is None else check_float("time_limit", time_limit, 0, low_open=True)
    return (R.parse_seed(deal), check_int("target", target, 1, R.MAX_TARGET), limit,
            check_int("work_limit", work_limit, 1))


def _solve_kingdom(seed: int, target: int, kingdom: tuple[int, ...], time_limit: float | None = None,
                   work_limit: int = DEFAULT_WORK_LIMIT, seeded: bool = True,
                   plans: dict[str, Plan] | None = None, cutoff: int | None = None) -> OracleResult:
    """The search with kingdom cards (also runs on the empty kingdom, for cross-checks), from the
    bots' plans and ``plans`` (plans of this kingdom, by source). With ``seeded``, the exact search
    first runs on a share of the work; if that does not settle it, the sub-kingdoms' and beams'
    plans (``_seed_plans``) are made from the work left, and the search goes on (its tables stay valid:
    they hold positions refuted within a number of turns, whatever the plan to beat) with the rest.
    With ``cutoff`` it stops once its lower bound reaches ``cutoff`` turns."""
    start = time.perf_counter()
    deadline = start + (time_limit or float("inf"))
    plans = {"bots": _bot_plan(seed, target, kingdom), **(plans or {})}
    upper, plan = min(plans.values(), key=lambda p: p[0])
    search = _KingdomSearch(seed, target, kingdom, deadline,
                            max(1, work_limit // _FIRST_SHARE) if seeded else work_limit)
    root = search.start()
    iterate = lambda turns: _kingdom_iteration(search, root, turns)  # noqa: E731
    upper, lower, plan, iterations = _deepen(search, iterate, upper, plan, search.lower_bound(root, target),
                                             cutoff)
    used = 0
    if seeded and lower < upper and time.perf_counter() <= deadline:
        more, used = _seed_plans(seed, target, kingdom, work_limit - search.work, upper)
        plans.update(more)
        best, best_plan = min(more.values(), key=lambda p: p[0])
        if best < upper:
            upper, plan = best, best_plan
        search.work_limit = max(1, work_limit - used)
        search.timed_out = False
        upper, lower, plan, more_iterations = _deepen(search, iterate, upper, plan, lower, cutoff)
        iterations += more_iterations
    return _result(seed, target, kingdom, upper, lower, plan, start, search, iterations,
                   {"positions_refuted": len(search.failed), "shuffles_cached": len(search._shuffles),
                    "work": used + search.work, "seed_work": used,
                    "seed_plan_turns": {name: p[0] for name, p in plans.items()}})


def _result(seed: int, target: int, kingdom: tuple[int, ...], upper: int, lower: int, plan: list[int],
            start: float, search: Any, iterations: int, stats: dict[str, Any]) -> OracleResult:
    turns = replay_turns(seed, plan, target, kingdom)
    if turns != upper:
        raise AssertionError(f"oracle claims {upper} turns but its plan replays to {turns} on seed {seed}")
    return OracleResult(
        score=-upper,
        bound=-lower,
        plan=tuple(int(a) for a in plan),
        seconds=time.perf_counter() - start,
        stats={"nodes": search.nodes, "iterations": iterations, "timed_out": search.timed_out,
               "turns": upper, "lower_bound_turns": lower,
               "kingdom": [R.CARD_NAMES[c] for c in kingdom], **stats},
    )


def check(deal: int | str, result: OracleResult, target: int = R.DEFAULT_TARGET, kingdom: Any = "") -> bool:
    """True if the plan replays through the engine to the claimed turns and the result is proven."""
    try:
        turns = replay_turns(R.parse_seed(deal), result.plan, target, kingdom)
    except (ValueError, RuntimeError, TypeError, AssertionError):
        return False
    return -turns == result.score and result.optimal


def cache_variant(target: int, kingdom: Any = "") -> str:
    """The cache's name for a solitaire variant (the treasure game keeps its original name)."""
    cards = oracle_kingdom(kingdom)
    supply = "treasure" if not cards else "treasure+" + "+".join(R.CARD_NAMES[c].lower() for c in cards)
    return f"solitaire-{supply}-target{target}"


def solve_cached(deal: int | str, target: int = R.DEFAULT_TARGET, cache: OracleCache | None = None,
                 time_limit: float | None = None, kingdom: Any = "",
                 work_limit: int = DEFAULT_WORK_LIMIT) -> OracleResult:
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    seed, target, time_limit, work_limit = _checked(deal, target, time_limit, work_limit)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(GAME, cache_variant(target, kingdom), str(seed),
                       lambda: solve(seed, target, time_limit, kingdom, work_limit),
                       lambda r: check(seed, r, target, kingdom))

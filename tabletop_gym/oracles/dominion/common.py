"""What the parts of the Dominion oracle share: the work budget, the kingdoms supported, a plan's
replay through the engine, and the iterative deepening every search runs."""

from __future__ import annotations

from typing import Any

from tabletop_gym.envs.dominion import rules as R

GAME = "dominion"
# Every kingdom card of the First Game is supported. In solitaire Militia is +$2 (no one to attack)
# and Moat +2 Cards; the choices inside Cellar (which cards to discard), Mine (which Treasure to trash,
# which to gain), Remodel (which card to trash, which to gain) and Workshop (which card to gain) are
# part of the search like the buys.
SUPPORTED_KINGDOM = R.KINGDOM_CARDS
# Work: one unit per turn outcome generated (a child) and per position inside a turn expanded (the
# treasure search: per four nodes); about 50,000-75,000 a second on one core of the development
# machine, so the default is about a minute. Counting work instead of seconds gives the same answer on
# every machine.
DEFAULT_WORK_LIMIT = 3_000_000
MAX_WORK_LIMIT = 10**12  # the most work a command line may ask for: weeks of search, more is a typo
MAX_TIME_LIMIT = 86_400.0  # a day: a longer wall-clock limit is a typo, not a request
PROVINCE_COINS = R.COST[R.PROVINCE]  # the coins a Province costs: what a turn must make to buy one
# What each Treasure makes (the engine's table, as constants for the searches' hot paths).
COPPER_COINS, SILVER_COINS, GOLD_COINS = (R.COINS[t] for t in R.TREASURES)

Plan = tuple[int, list[int]]  # turns, actions


def oracle_kingdom(kingdom: Any) -> tuple[int, ...]:
    """The kingdom as card ids (every kingdom card of the set is supported); a clear error for an
    unknown card."""
    return R.parse_kingdom(kingdom)


def replay_turns(seed: int | str, plan: Any, target: int = R.DEFAULT_TARGET, kingdom: Any = ()) -> int:
    """Replay a plan through the engine; the turns it takes to own the target (raises if it fails)."""
    state = R.replay(R.DominionRules(1, R.parse_kingdom(kingdom), target), seed, plan)
    if not state.done or state.unreachable or state.owned[0][R.PROVINCE] < target:
        raise AssertionError(f"the plan does not reach {target} Provinces on seed {seed}")
    return state.turns[0]


def _deepen(search: Any, iterate: Any, upper: int, plan: list[int], lower: int,
            cutoff: int | None = None) -> tuple[int, int, list, int]:
    """Iterative deepening from a proven lower bound up to a known plan: (upper, lower, plan, iterations).
    With ``cutoff``, it stops once the lower bound reaches it (only plans shorter than ``cutoff`` are
    wanted)."""
    iterations = 0
    stop = upper if cutoff is None else min(upper, cutoff)
    while lower < stop:
        iterations += 1
        if iterate(lower):
            upper, plan = lower, search.plan
            break
        if search.timed_out:
            break
        lower += 1  # no play owns the target within ``lower`` turns
    return upper, min(lower, upper), plan, iterations

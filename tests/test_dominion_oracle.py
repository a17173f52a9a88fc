"""Dominion solitaire oracle: optimum against an independent brute force, plan replay, bounds, cache."""

from __future__ import annotations

import pytest

from tabletop_gym.agents.dominion import solitaire_turns
from tabletop_gym.core import InvalidDealError, OracleCache, OracleResult
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles import dominion as O


def brute_force_turns(seed: int, target: int, max_turns: int = 30) -> int:
    """Fewest turns by breadth-first search over every buy, through the engine itself (no bound,
    no model of its own); positions reached at the same turn are merged when identical."""
    start = R.DominionState(1, (), seed, target)
    level = [start]
    for turn in range(1, max_turns + 1):
        following: dict[tuple, R.DominionState] = {}
        for state in level:
            for action in state.legal_actions():
                child = state.copy()
                child.apply(action)
                if child.done:
                    return turn
                key = (tuple(child.draw[0]), tuple(child.discard[0]),
                       tuple(h + p for h, p in zip(child.hand[0], child.in_play[0], strict=True)),
                       child.shuffles[0])
                following.setdefault(key, child)
        level = list(following.values())
    raise AssertionError("no solution found")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_optimum_matches_brute_force_for_one_province(seed):
    result = O.solve(seed, target=1)
    assert result.optimal
    assert -result.score == brute_force_turns(seed, 1)


@pytest.mark.parametrize("seed", [5])
def test_optimum_matches_brute_force_for_two_provinces(seed):
    result = O.solve(seed, target=2)
    assert result.optimal and -result.score == brute_force_turns(seed, 2)


def test_plan_replays_and_beats_or_equals_every_bot():
    for seed in (2, 5):
        result = O.solve(seed, target=3, time_limit=60)
        turns = O.replay_turns(seed, result.plan, target=3)
        assert result.optimal and -result.score == turns
        for bot in ("big-money", "big-money-ultimate", "buy-money-and-duchy-and-estate"):
            assert turns <= solitaire_turns(bot, seed, target=3)
        assert O.check(seed, result, target=3)
        # A plan cut short does not reach the target: the check refuses it.
        cut = OracleResult(score=result.score, bound=result.bound, plan=result.plan[:-1])
        assert not O.check(seed, cut, target=3)


def test_a_time_limited_search_reports_a_bound_not_an_optimum():
    result = O.solve(0, target=4, time_limit=0.05)
    assert -result.score == O.replay_turns(0, result.plan)
    assert result.bound >= result.score  # lower bound on turns <= turns achieved
    if not result.optimal:
        assert result.stats["timed_out"]


def test_cache_round_trip_and_rejects_a_forged_entry(tmp_path):
    cache = OracleCache(tmp_path)
    first = O.solve_cached(5, target=2, cache=cache)
    again = O.solve_cached(5, target=2, cache=cache)
    assert cache.hits == 1 and again.score == first.score and again.plan == first.plan
    forged = OracleResult(score=first.score + 1, bound=first.score + 1, plan=first.plan)
    assert not O.check(5, forged, target=2)


def test_bad_arguments():
    with pytest.raises(InvalidDealError):
        O.solve("seven")
    with pytest.raises(ValueError, match="target"):
        O.solve(1, target=9)

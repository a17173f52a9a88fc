"""Nmbr9 oracles against an independent exhaustive search over the engine's legal placements."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tabletop_gym.core import OracleCache
from tabletop_gym.envs.nmbr9.rules import Deal, Nmbr9State, Variant, parse_deal, replay
from tabletop_gym.oracles import nmbr9 as oracle


def exhaustive(deal: Deal, grid: int, levels: int | None = None) -> int:
    """Best score over every play, by trying every legal placement (engine only; the engine
    discards a card that fits nowhere, as the rules do).

    The last card needs no descent: its best placement is read off the engine's placement levels.
    """

    def best(state: Nmbr9State) -> int:
        if state.done:
            return 0
        value = state.card
        if state.turn == len(deal.cards) - 1:
            return value * int(max(state.level_of(a) for a in state.legal_actions()))
        result = -1
        for action in state.legal_actions():
            child = state.copy()
            points = child.place(action)
            rest = best(child)
            if rest >= 0:
                result = max(result, points + rest)
        return result

    return best(Nmbr9State(deal, grid, levels))


def exhaustive_free(variant: Variant, grid: int, levels: int | None = None) -> int:
    result = -1
    for cards in itertools.permutations(variant.full_deck, variant.cards):
        result = max(result, exhaustive(Deal(cards), grid, levels))
    return result


@pytest.mark.parametrize(
    ("cards", "grid", "levels"),
    [
        ("917", 5, None),
        ("591", 6, 2),
        ("1277", 6, None),
        ("2711", 5, None),
        ("11771", 5, None),
        ("12171", 5, 2),
        ("2430", 6, None),  # the best play has a forced discard (the 4 fits nowhere)
    ],
)
def test_known_draft_matches_exhaustive_search(cards: str, grid: int, levels: int | None) -> None:
    deal = Deal(tuple(int(c) for c in cards))
    truth = exhaustive(deal, grid, levels)
    result = oracle.solve(deal, grid=grid, levels=levels, time_limit=20)
    assert result.optimal and result.score == truth
    assert oracle.check(deal, result, grid, levels)
    assert oracle.relaxation_bound(list(deal.cards), levels) >= truth


def test_free_draft_matches_exhaustive_search() -> None:
    variant = Variant(2, 1, 3)
    truth = exhaustive_free(variant, 5)
    result = oracle.solve_free(variant, grid=5, time_limit=20)
    assert result.optimal and result.score == truth
    assert oracle.check_free(variant, result, 5)
    # The one-model search (used for big variants) agrees when it proves optimality.
    one = oracle.solve_free(variant, grid=5, time_limit=20, max_candidates=0)
    assert one.score == truth and one.bound >= truth
    assert oracle.check_free(variant, one, 5)


def test_plan_found_on_a_small_model_grid_replays_on_the_big_grid() -> None:
    deal = parse_deal("9876543210", Variant(9, 1, 10))
    result = oracle.solve(deal, grid=20, time_limit=2, model_grid=12, model_levels=3)
    assert oracle.check(deal, result, 20)
    assert result.bound == result.stats["relaxation_bound"] >= result.score
    state = replay(deal, result.plan, 20)
    assert state.score == result.score and not state.discarded


def test_greedy_plan_is_a_lower_bound_and_relaxation_an_upper_bound() -> None:
    deal = parse_deal("90817263549081726354")
    plan = oracle.greedy_plan(deal, 20)
    greedy = replay(deal, plan, 20).score
    assert greedy <= oracle.relaxation_bound(list(deal.cards))


def test_cache_replays_before_trusting(tmp_path) -> None:
    cache = OracleCache(tmp_path)
    deal = Deal((9, 1, 7))
    first = oracle.solve_cached(deal, grid=5, time_limit=10, cache=cache)
    second = oracle.solve_cached(deal, grid=5, time_limit=10, cache=cache)
    assert first.score == second.score and cache.hits == 1
    assert np.all(np.array(second.plan) == np.array(first.plan))


# --- parameters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"time_limit": float("nan")}, "time_limit .* finite"),  # NaN meant no limit to CP-SAT
        ({"time_limit": float("inf")}, "time_limit .* finite"),
        ({"time_limit": 0}, "time_limit .* above 0"),
        ({"levels": 0}, "levels .* at least 1"),  # used to crash in the relaxation (IndexError)
        ({"grid": 3}, "grid .* at least 4"),
        ({"grid": 8, "model_grid": 12}, r"model_grid \(12\) must be at most grid \(8\)"),
        ({"model_grid": 2}, "model_grid .* at least 4"),
        ({"workers": 0}, "workers must be at least 1"),
        ({"model_levels": 0}, "model_levels must be at least 1"),
    ],
)
def test_solve_checks_its_parameters_by_name(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        oracle.solve("1277", **kwargs)
    if "workers" not in kwargs and "model_levels" not in kwargs:
        with pytest.raises(ValueError, match=match):
            oracle.solve_cached("1277", **kwargs, cache=OracleCache("/nonexistent/never/written"))


def test_free_draft_checks_its_parameters_and_refuses_a_grid_too_small() -> None:
    with pytest.raises(ValueError, match="time_limit .* finite"):
        oracle.solve_free("2-1-2", grid=5, time_limit=float("nan"))
    with pytest.raises(ValueError, match="levels .* at least 1"):
        oracle.solve_free("2-1-2", grid=5, levels=0)
    with pytest.raises(ValueError, match="max_candidates"):
        oracle.solve_free("2-1-2", grid=5, max_candidates=-1)
    with pytest.raises(ValueError, match="time_limit"):
        oracle.solve_free_beam("2-1-2", grid=5, time_limit=-1)
    with pytest.raises(ValueError, match="copies"):
        oracle.solve_free("9-1000000000-20")
    with pytest.raises(ValueError, match="time_limit"):
        oracle.relaxation_bound([1, 2, 7], time_limit=float("nan"))
    with pytest.raises(ValueError, match="levels"):
        oracle.free_relaxation_bound(Variant(2, 1, 2), levels=0)
    with pytest.raises(ValueError, match="width"):
        oracle.beam_plan(Deal((1, 2)), grid=6, width=-1)  # a negative width let the beam grow
    # Two cards of 0, 1, 2 never fit together on a 4x4 grid (it used to be a RuntimeError traceback).
    with pytest.raises(oracle.NoPlanError, match="places all 2 cards on a 4x4 grid"):
        oracle.solve_free("2-1-2", grid=4, time_limit=5)


def test_numpy_integers_are_welcome() -> None:
    result = oracle.solve(
        "1277", grid=np.int64(6), levels=np.int32(3), time_limit=np.float32(20), workers=np.int8(1)
    )
    assert result.optimal and result.score == exhaustive(Deal((1, 2, 7, 7)), 6, 3)


def test_building_a_model_stops_at_the_deadline() -> None:
    # The time limit covers a model's construction, which takes seconds of Python on big boards.
    import time

    with pytest.raises(oracle._OutOfTime):
        oracle._PlacementModel([[9], [8], [7]], 8, 2, deadline=time.perf_counter() - 1)
    assert oracle._free_candidates(Variant(6, 2, 5), 3, 5000, deadline=time.perf_counter() - 1) is None

"""Nmbr9 bounds: the pair-cover table against the engine, and the relaxations against plays."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.envs.nmbr9.rules import (
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    encode_action,
    footprint,
    random_deal,
    replay,
    tile_area,
)
from tabletop_gym.oracles import nmbr9 as oracle
from tabletop_gym.oracles.nmbr9 import search


@pytest.mark.parametrize("a", [1, 7])
def test_pair_cover_table_is_what_the_enumeration_gives(a: int) -> None:
    assert tuple(oracle.pair_cover(a, b) for b in range(10)) == oracle.PAIR_COVER[a]


def test_pair_cover_table_is_symmetric() -> None:
    table = oracle.PAIR_COVER
    for a in range(10):
        assert all(table[a][b] == table[b][a] <= tile_area(a) + tile_area(b) for b in range(10))


def _engine_pair_cover(a: int, b: int, grid: int = 12) -> int:
    """The most area the engine lets two level-1 tiles cover on a table of exactly a and b.

    Only for pairs whose union holds fewer than 15 cells, so at most two tiles fit above."""
    start = Nmbr9State(Deal((a, b)), grid)
    start.apply(encode_action(0, 4, 4, grid))
    best = 0
    for second in start.legal_actions():
        table = start.copy()
        table.apply(second)
        singles = []
        for value in range(10):
            actions, level = table.placement_levels(value)
            for action in actions[level == 1]:
                singles.append((frozenset(footprint(value, int(action), grid)), tile_area(value)))
        for i, (cells, area) in enumerate(singles):
            best = max(best, area)
            for other, area2 in singles[i + 1 :]:
                if not cells & other:
                    best = max(best, area + area2)
    return best


@pytest.mark.parametrize(("a", "b"), [(1, 7), (7, 7), (1, 4)])
def test_pair_cover_agrees_with_the_engine(a: int, b: int) -> None:
    assert tile_area(a) + tile_area(b) < 15
    assert _engine_pair_cover(a, b) == oracle.PAIR_COVER[a][b]


def test_relaxation_bounds_every_play_and_pair_cuts_only_tighten() -> None:
    for seed in (2,):
        deal = random_deal(seed)
        plain = oracle.relaxation_bound(list(deal.cards), pair_cuts=False, time_limit=20)
        cut = oracle.relaxation_bound(list(deal.cards), time_limit=20)
        plan, score = oracle.beam_plan(deal, 20, width=4, per_table=4, per_level=3)
        assert replay(Nmbr9Rules(grid=20), deal, plan).score == score <= cut <= plain
        # Stopped before its first solution, the solver reports a bound of 0: never used.
        assert oracle.relaxation_bound(list(deal.cards), time_limit=0.01) >= cut
    assert oracle.free_relaxation_bound(Variant(4, 1, 5), time_limit=10) <= oracle.free_relaxation_bound(
        Variant(4, 1, 5), pair_cuts=False, time_limit=10
    )


def test_pair_cut_decides_a_small_deal_exactly() -> None:
    # A 9 (area 10) cannot rest on a table of just a 1 and a 7 (PAIR_COVER 9): the cut sees it,
    # the area count alone (12 cells) does not, and the engine's exhaustive search agrees.
    from test_nmbr9_oracle import exhaustive

    deal = Deal((1, 7, 9))
    assert oracle.PAIR_COVER[1][7] < tile_area(9)
    assert exhaustive(deal, 6) == 0 == oracle.relaxation_bound(list(deal.cards))
    assert oracle.relaxation_bound(list(deal.cards), pair_cuts=False) == 9
    # With a third table tile the 9 can go up, and the cut does not claim otherwise.
    deal = Deal((1, 7, 2, 9))
    assert exhaustive(deal, 6) == 9 == oracle.relaxation_bound(list(deal.cards))
    # In draw order: the 9 comes while the table holds only the 1 and the 7, so it stays down,
    # though the table ends with three tiles; only the 2 can then go up.
    deal = Deal((1, 7, 9, 2))
    assert exhaustive(deal, 6) == 2 == oracle.relaxation_bound(list(deal.cards))


def test_free_draft_of_the_standard_game_gets_beam_plans_and_the_relaxation_bound() -> None:
    variant = Variant()
    result = oracle.solve_free(variant, grid=20, time_limit=2)
    assert oracle.check_free(variant, result, 20)
    assert 0 < result.score <= result.bound
    assert sorted(v for v, _ in result.plan) == sorted(variant.full_deck)


# --- every bound against an exact search, on random small instances where cards get discarded ---
#
# ``oracles.nmbr9.search`` is an exhaustive branch-and-bound written independently of these models
# (it shares only the engine). A bound must be at least the exact optimum of every instance, the
# oracles' plans at most it, and "optimal" only where they meet.


def _instances(seed: int, n: int, most_cards: int = 8) -> list[tuple[Deal, int, int | None]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        cards = int(rng.integers(2, most_cards + 1))
        grid = int(rng.integers(4, 8))
        levels = [None, 1, 2, 3][int(rng.integers(0, 4))]
        out.append((random_deal(int(rng.integers(0, 10**6)), Variant(9, 2, cards)), grid, levels))
    return out


def _free_instances(seed: int, n: int) -> list[tuple[Variant, int, int | None]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        m, c = int(rng.integers(1, 10)), int(rng.integers(1, 3))
        k = int(rng.integers(2, min(6, (m + 1) * c) + 1))
        out.append((Variant(m, c, k), int(rng.integers(4, 7)), [None, 2, 3][int(rng.integers(0, 3))]))
    return out


def test_relaxation_bounds_every_play_of_random_small_deals() -> None:
    discards = 0
    for deal, grid, levels in _instances(0, 300):
        exact = search.solve_known(deal, grid, levels)
        assert exact.optimal
        discards += replay(Nmbr9Rules(grid=grid, levels=levels), deal, exact.plan).discarded > 0
        values = list(deal.cards)
        for cuts in (True, False):
            assert oracle.relaxation_bound(values, levels, time_limit=5, pair_cuts=cuts) >= exact.score, (
                deal,
                grid,
                levels,
            )
    assert discards >= 40  # the instances do exercise plays with discards


def test_free_relaxation_bounds_every_play_of_random_small_variants() -> None:
    for variant, grid, levels in _free_instances(1, 75):  # every level limit, one and two copies
        exact = search.solve_free(variant, grid, levels)
        assert exact.optimal
        for cuts in (True, False):
            bound = oracle.free_relaxation_bound(variant, levels, time_limit=5, pair_cuts=cuts)
            assert bound >= exact.score, (variant, grid, levels)


def test_known_draft_oracle_against_the_exact_search() -> None:
    proven = 0
    for deal, grid, levels in _instances(2, 25, most_cards=7):  # 2 to 7 cards, every level limit
        exact = search.solve_known(deal, grid, levels).score
        result = oracle.solve(deal, grid=grid, levels=levels, time_limit=1, exact_search=False)
        what = (str(deal), grid, levels, exact, result.score, result.bound, result.stats)
        assert oracle.check(deal, result, grid, levels), what
        assert result.score <= exact <= result.bound, what
        assert not result.optimal or result.score == exact, what
        assert "model_plan" not in result.stats and "model" not in result.stats, what
        proven += result.optimal
    assert proven >= 18  # 24 of the 25 are proven today


def test_free_draft_oracle_against_the_exact_search() -> None:
    proven = 0
    for variant, grid, levels in _free_instances(3, 15):  # every level limit, one and two copies
        exact = search.solve_free(variant, grid, levels).score
        result = oracle.solve_free(variant, grid=grid, levels=levels, time_limit=1, exact_search=False)
        what = (str(variant), grid, levels, exact, result.score, result.bound, result.stats)
        assert oracle.check_free(variant, result, grid, levels), what
        assert result.score <= exact <= result.bound, what
        assert not result.optimal or result.score == exact, what
        assert "model_plan" not in result.stats, what
        proven += result.optimal
    assert proven >= 10  # 11 of the 15 are proven today

"""Nmbr9 bounds: the pair-cover table against the engine, and the relaxations against plays."""

from __future__ import annotations

import pytest

from tabletop_gym.envs.nmbr9.rules import (
    Deal,
    Nmbr9State,
    Variant,
    encode_action,
    footprint,
    random_deal,
    replay,
    tile_area,
)
from tabletop_gym.oracles import nmbr9 as oracle


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
    start.place(encode_action(0, 4, 4, grid))
    best = 0
    for second in start.legal_actions():
        table = start.copy()
        table.place(second)
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
        assert replay(deal, plan, 20).score == score <= cut <= plain
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

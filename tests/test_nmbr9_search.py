"""The exact Nmbr9 search (oracles/nmbr9/search.py) against brute force over the engine's own moves.

The brute force uses nothing but the engine: every legal action of every card, in every card order
for the free draft, with the engine discarding a card that fits nowhere. It is slow and obviously
right, so the instances are small (4-6 cards, grids 4-6); hundreds of them are drawn at random.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from tabletop_gym.envs.nmbr9.rules import (
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    parse_deal,
    random_deal,
    replay,
)
from tabletop_gym.oracles import nmbr9 as cpsat_oracle
from tabletop_gym.oracles.nmbr9 import search


def brute_known(deal: Deal, grid: int, levels: int | None) -> int:
    """The best score over every play of the card order: every legal action of every card (the last
    card's best is read off the engine's levels of its legal actions, without playing them)."""
    last = len(deal.cards) - 1

    def best(state: Nmbr9State) -> int:
        if state.done:
            return state.score
        if state.turn == last:
            return state.score + state.card * max(state.level_of(a) for a in state.legal_actions())
        result = -1
        for action in state.legal_actions():
            child = state.copy()
            child.apply(action)
            result = max(result, best(child))
        return result

    return best(Nmbr9State(deal, grid, levels))


def brute_free(variant: Variant, grid: int, levels: int | None) -> int:
    """The best score over every order of every choice of k cards of the deck."""
    orders = set(itertools.permutations(variant.full_deck, variant.cards))
    return max(brute_known(Deal(order), grid, levels) for order in orders)


def free_by_orders(variant: Variant, grid: int, levels: int | None) -> int:
    """The free-draft optimum as the best known-draft optimum over every card order: the known-draft
    search (checked against brute force below) standing in for the engine's brute force."""
    orders = set(itertools.permutations(variant.full_deck, variant.cards))
    return max(search.solve_known(Deal(order), grid, levels).score for order in orders)


def assert_known_result(deal: Deal, result, grid: int, levels: int | None) -> None:
    """The plan is a play of the deal worth the score (the engine replays it)."""
    state = replay(Nmbr9Rules(grid=grid, levels=levels), deal, result.plan)
    assert state.done and state.score == result.score <= result.bound


# ---------------------------------------------------------------------------------------------------
# The cases of issue 21, where the CP-SAT oracle fell short (its values there: 3, crash, 0, 3, 0, 7).


@pytest.mark.parametrize(
    ("cards", "grid", "levels", "optimum"),
    [
        ("052940", 6, 3, 9),  # the CP-SAT oracle returned 0
        ("725399", 6, 3, 9),  # 3
        ("4337", 5, 2, 3),  # 0
        ("276074", 6, 2, 11),  # 7
        ("176952", 5, 3, 6),  # variant 9-2-6: the CP-SAT oracle crashed
        ("1340", 5, 3, 4),  # the F-4-1-4 optimum as a known order: 1 and 3 on the table, 4 on them
    ],
)
def test_issue_cases_known_draft(cards: str, grid: int, levels: int, optimum: int) -> None:
    deal = parse_deal(cards, Variant(9, 2, len(cards)))
    result = search.solve_known(deal, grid, levels)
    assert result.optimal and result.stats["proven"]
    assert result.score == result.bound == optimum
    assert_known_result(deal, result, grid, levels)
    assert brute_known(deal, grid, levels) == optimum


def test_issue_case_free_draft_needs_a_discard() -> None:
    """F-4-1-4 on 5x5 with 3 levels: 4 (the CP-SAT oracle claimed 3 proven optimal): 1 and 3 on the
    table, the 4 on level 1, and the last card fits nowhere."""
    variant = Variant(4, 1, 4)
    result = search.solve_free(variant, 5, 3)
    assert result.optimal and result.score == 4
    assert result.stats["discarded"] == 1
    assert result.plan[-1][1] is None  # the discarded card comes last, without an action
    assert search.check_free_plan(variant, result, 5, 3)
    assert brute_free(variant, 5, 3) == 4


def test_free_draft_f_6_2_5_is_19() -> None:
    """The README's figure for F-6-2-5 on 6x6 with 3 levels, proven in a blink."""
    variant = Variant(6, 2, 5)
    result = search.solve_free(variant, 6, 3)
    assert result.optimal and result.score == 19
    assert result.stats["nodes"] < 200_000
    assert search.check_free_plan(variant, result, 6, 3)
    # Every card placed: the plan is in the CP-SAT oracle's format and its checker accepts it.
    assert all(action is not None for _, action in result.plan)
    assert cpsat_oracle.check_free(variant, result, 6, 3)


# ---------------------------------------------------------------------------------------------------
# Random small instances against the brute force


# (cards, grid, levels) of the random known-draft instances: small grids where cards get discarded,
# 6x6 boards where the best plays reach level 2, and 7x7 boards with room for every card.
_SHAPES = {
    "small": [(4, 4, 2), (5, 4, 3), (4, 5, 3), (5, 5, 2), (6, 5, 3), (5, 5, None), (4, 5, 1)],
    "six": [(5, 6, 3), (6, 6, 3), (6, 6, None), (7, 6, 3), (6, 6, 2), (7, 6, None)],
    "seven": [(4, 7, 3), (4, 7, 2)],
}
_COUNTS = {"small": 120, "six": 72, "seven": 6}


@functools.cache
def _known_instances(kind: str) -> tuple[tuple[Deal, int, int | None], ...]:
    rng = np.random.default_rng([21, len(kind)])  # "small", "six", "seven": one stream each
    shapes = _SHAPES[kind]
    out = []
    for i in range(_COUNTS[kind]):
        cards, grid, levels = shapes[i % len(shapes)]
        out.append((random_deal(rng, Variant(9, 2, cards)), grid, levels))
    return tuple(out)


@pytest.mark.parametrize(
    ("kind", "batch", "batches"),
    [("small", 0, 2), ("small", 1, 2), ("six", 0, 3), ("six", 1, 3), ("six", 2, 3), ("seven", 0, 1)],
)
def test_known_draft_matches_brute_force(kind: str, batch: int, batches: int) -> None:
    """198 random card orders of the standard deck (4-7 cards, grids 4-7, 1-3 levels or none): the
    proven optimum equals the brute force, and the plan replays to it."""
    for deal, grid, levels in _known_instances(kind)[batch::batches]:
        result = search.solve_known(deal, grid, levels)
        truth = brute_known(deal, grid, levels)
        assert result.optimal and result.score == truth, (str(deal), grid, levels)
        assert_known_result(deal, result, grid, levels)
        # The same plan format as the CP-SAT oracle: its checker accepts it.
        assert cpsat_oracle.check(deal, result, grid, levels)


def test_random_instances_cover_discards_and_level_two() -> None:
    """The random instances above are not all alike: some best plays discard, some reach level 2."""
    discards = level_two = 0
    for kind in _SHAPES:
        for deal, grid, levels in _known_instances(kind):
            result = search.solve_known(deal, grid, levels)
            state = replay(Nmbr9Rules(grid=grid, levels=levels), deal, result.plan)
            discards += state.discarded > 0
            level_two += any(p is not None and p.level >= 2 for p in state.placements)
    assert discards >= 100 and level_two >= 15


@pytest.mark.parametrize(
    ("variant", "grid", "levels"),
    [("3-1-3", 4, 2), ("3-1-3", 5, 3), ("2-2-3", 5, None), ("4-1-3", 5, 2), ("2-2-4", 4, 3)],
)
def test_free_draft_matches_brute_force(variant: str, grid: int, levels: int | None) -> None:
    parsed = Variant.parse(variant)
    result = search.solve_free(parsed, grid, levels)
    assert result.optimal and result.score == brute_free(parsed, grid, levels)
    assert search.check_free_plan(parsed, result, grid, levels)


def test_free_draft_matches_best_card_order() -> None:
    """20 random small variants (up to 5 cards; one and two copies, grids 4-6, every level limit):
    the free-draft search (level-major layouts, transpositions) equals the best known-draft optimum
    over every card order (a different search: every order, every placement), and its plan deals k
    cards of the deck and replays to its score."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        max_value = int(rng.integers(1, 6))
        copies = int(rng.integers(1, 3))
        # Up to 5 cards from a deck of at most 6 (at most 720 orders for the check below).
        cards = int(rng.integers(2, min(5 if copies == 1 else 4, (max_value + 1) * copies) + 1))
        variant = Variant(max_value, copies, cards)
        grid = int(rng.integers(4, 7))
        levels = [2, 3, None][int(rng.integers(0, 3))]
        result = search.solve_free(variant, grid, levels)
        truth = free_by_orders(variant, grid, levels)
        assert result.optimal and result.score == truth, (str(variant), grid, levels)
        assert search.check_free_plan(variant, result, grid, levels)


# ---------------------------------------------------------------------------------------------------
# Node limits: deterministic work, valid bounds


def test_node_limit_gives_a_valid_bound_and_the_same_answer_every_time() -> None:
    rng = np.random.default_rng(3)
    for i in range(12):
        deal = random_deal(rng, Variant(9, 2, 7))
        grid, levels = (6, 3) if i % 2 else (7, 2)
        optimum = search.solve_known(deal, grid, levels).score
        for limit in (1, 10, 100, 1_000):
            result = search.solve_known(deal, grid, levels, node_limit=limit)
            assert result.stats["nodes"] <= max(limit, len(deal))
            assert result.score <= optimum <= result.bound
            assert (
                result.stats["proven"] == (result.bound == optimum == result.score)
                or not result.stats["proven"]
            )
            assert_known_result(deal, result, grid, levels)
            again = search.solve_known(deal, grid, levels, node_limit=limit)
            assert (again.score, again.bound, again.plan) == (result.score, result.bound, result.plan)


def test_free_draft_node_limit_gives_a_valid_bound() -> None:
    variant = Variant(6, 2, 5)
    for limit in (1, 50, 2_000):
        result = search.solve_free(variant, 6, 3, node_limit=limit)
        assert result.score <= 19 <= result.bound
        assert not result.stats["proven"]
        assert search.check_free_plan(variant, result, 6, 3)
        again = search.solve_free(variant, 6, 3, node_limit=limit)
        assert (again.score, again.bound, again.plan) == (result.score, result.bound, result.plan)


# ---------------------------------------------------------------------------------------------------
# Odds and ends


def test_table_only_scores_nothing_and_a_tiny_grid_discards() -> None:
    deal = parse_deal("9876", Variant(9, 2, 4))
    result = search.solve_known(deal, 8, 1)
    assert result.optimal and result.score == 0
    # A 4x4 grid holds two tiles at most: later cards are discarded and have no action.
    result = search.solve_known(deal, 4, 3)
    assert result.optimal and len(result.plan) < 4
    assert_known_result(deal, result, 4, 3)


def test_replay_free_checks_the_discards() -> None:
    with pytest.raises(ValueError, match="fits somewhere"):
        search.replay_free([(1, None)], 5, 3)
    # An upright 0 in the corner of a 4x4 table leaves one column: no tile fits next to it.
    with pytest.raises(ValueError, match="fits nowhere"):
        search.replay_free([(0, 0), (9, 0)], 4, 1)
    state = search.replay_free([(0, 0), (9, None)], 4, 1)
    assert state.done and state.discarded == 1


def test_bench_exact_reports_its_figures() -> None:
    figures = search.bench_exact(
        deals=2, cards=(4, 5), grid=5, levels=2, free_variant="3-1-3", free_grid=5, free_levels=3
    )
    for n in ("4", "5"):
        row = figures["known"][n]
        assert row["proven"] == 1.0 and len(row["scores"]) == 2
        assert 0 <= row["median_cpu_s"] <= row["max_cpu_s"]
    assert figures["free"]["proven"] and figures["free"]["score"] == 3


def test_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="node_limit"):
        search.solve_known("1234", 5, 3, node_limit=0)
    with pytest.raises(ValueError, match="grid"):
        search.solve_known("1234", 3, 3)
    with pytest.raises(ValueError, match="levels"):
        search.solve_free("3-1-3", 5, 0)

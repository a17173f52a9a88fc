"""Top-down free-draft layouts (oracles/nmbr9/layout.py): every layout is a legal play by the engine."""

from __future__ import annotations

import itertools

import pytest

from tabletop_gym.envs.nmbr9.rules import Deal, Nmbr9Rules, Variant, replay
from tabletop_gym.oracles import nmbr9 as oracle
from tabletop_gym.oracles.nmbr9 import layout, search
from tabletop_gym.oracles.nmbr9.common import _Work


def _replayed(plan: list[tuple[int, int]], grid: int, levels: int | None = None):
    return replay(Nmbr9Rules(grid=grid, levels=levels), Deal(tuple(v for v, _ in plan)), [a for _, a in plan])


@pytest.mark.parametrize(("tiles", "depth"), [(20, 6), (20, 7), (12, 4), (5, 3)])
def test_profiles_can_carry_their_levels(tiles, depth) -> None:
    found = layout.profiles(tiles, depth)
    assert found and len(set(found)) == len(found)
    for profile in found:
        assert len(profile) == depth and profile[0] == 1 and sum(profile) <= tiles
        assert all(n >= 2 for n in profile[1:])  # a tile rests on two tiles of the level below
        assert all(0 <= b - a <= 2 for a, b in itertools.pairwise(profile[1:]))


def test_standard_layouts_replay_to_their_score_with_every_card_placed() -> None:
    """Each layout the search yields is a play: the engine places every tile where the plan says
    (no discard) on the level the layout put it, and scores what the layout claims."""
    found = list(itertools.islice(layout.layouts(Variant(), 20, None, _Work(12)), 3))
    assert found
    scores = []
    for plan in found:
        state = _replayed(plan, 20)
        assert state.discarded == 0 and state.done
        assert len(plan) <= 20 and all(plan.count(p) == 1 for p in plan)
        assert all(sum(v == value for v, _ in plan) <= 2 for value in range(10))
        scores.append(state.score)
    assert scores == sorted(scores) and len(set(scores)) == len(scores)  # ever better


def test_layouts_respect_the_level_limit_and_the_grid() -> None:
    for plan in itertools.islice(layout.layouts(Variant(), 14, 4, _Work(6)), 2):
        state = _replayed(plan, 14, 4)
        assert state.done and state.discarded == 0
        assert max(p.level for p in state.placements) <= 3


def test_layouts_never_beat_the_exact_optimum_of_a_small_free_draft() -> None:
    variant, grid, levels = Variant(6, 2, 5), 6, 3
    best = search.solve_free(variant, grid, levels)
    assert best.optimal
    for plan in itertools.islice(layout.layouts(variant, grid, levels, _Work(3)), 5):
        state = _replayed(plan, grid, levels)
        assert state.done and state.score <= best.score


def test_the_big_free_draft_takes_the_better_of_layouts_and_beams_and_is_deterministic() -> None:
    # A budget of work, not of the clock: what is asserted holds for any; at 5 as at 2 no layout is
    # found within it and the beams' plan is taken.
    first = oracle.solve_free_beam(Variant(), grid=20, time_limit=2)
    again = oracle.solve_free_beam(Variant(), grid=20, time_limit=2)
    assert oracle.check_free(Variant(), first, 20)
    assert first.plan == again.plan and first.score == again.score
    stats = first.stats
    assert first.score == max(stats["beam"], stats.get("layout", -1))
    assert stats["source"] == ("layout" if stats.get("layout", -1) > stats["beam"] else "beam")

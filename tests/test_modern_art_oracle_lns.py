"""Modern Art oracle: plans from CP-SAT's LNS on the game model (``lns_plan``), started from a plan, and
the work ``solve`` gives it (what realizing and planning again left unspent)."""

from __future__ import annotations

import pytest

from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.oracles import modern_art as O
from tabletop_gym.oracles.modern_art import bounds, common, lns
from tabletop_gym.oracles.modern_art import oracle as solving

TWO_ROUNDS = R.ModernArtRules(players=2, deals=(13, 6))


@pytest.fixture(scope="module")
def start() -> tuple:
    """A two-round deal and a poor real game of it (a width-1 beam), for the LNS to start from."""
    deal = R.random_deal(TWO_ROUNDS, 1)
    cards = R.parse_deal(deal, TWO_ROUNDS)
    score, plan = O.beam_search(TWO_ROUNDS, cards, 0, width=1)
    return deal, cards, score, plan


def _lns(start: tuple, seconds: float = 2.0, **options) -> tuple[int, tuple[int, ...], str]:
    _, cards, score, plan = start
    return lns.lns_plan(TWO_ROUNDS, cards, 0, score, plan, seconds, [O.PORTFOLIO[0]], **options)


@pytest.fixture(scope="module")
def found(start) -> tuple[int, tuple[int, ...], str]:
    """The LNS plan from ``start`` at the default work and pool, shared by the tests that only read it
    (each call is seconds of CP-SAT work)."""
    return _lns(start)


def test_lns_plan_replays_and_improves_its_start(start, found) -> None:
    """The plan found replays through the engine to its score, which is above the start's (a width-1
    beam plan leaves much to find) and within the game model's proven bound."""
    deal, cards, score, _ = start
    got, line, how = found
    final = R.replay(TWO_ROUNDS, deal, line)
    assert final.done and final.money[0] == got > score
    assert how.startswith("LNS solution")
    # any time limit gives a proven bound (a shorter one only a looser bound)
    bound, _, _ = O.relaxation_bound(TWO_ROUNDS, cards, 0, 0.5)
    assert got <= bound


def test_lns_plan_is_deterministic(start, found) -> None:
    """Work, not a clock, limits it: the same call gives the same plan."""
    assert _lns(start) == found


def test_the_pool_is_never_worse_than_the_best_solution_alone(start, found) -> None:
    """Keeping the last few solutions and realizing them best first gives a plan at least as good as
    realizing only the best one, at the same work (the search is the same: the pool only keeps more
    of what it finds)."""
    pooled = found if lns.LNS_POOL == 6 else _lns(start, pool=6)  # the shared plan is a pool of 6
    single = _lns(start, pool=1)
    assert pooled[0] >= single[0]


def test_lns_plan_keeps_the_plan_with_too_little_work(start, monkeypatch) -> None:
    """Below ``LNS_MIN_SECONDS`` nothing is built or solved: the plan comes back as it was."""
    _, _, score, plan = start
    monkeypatch.setattr(lns, "build_model", None)  # would raise if called
    assert _lns(start, seconds=lns.LNS_MIN_SECONDS / 2) == (score, tuple(plan), "")


def test_lns_asks_for_no_more_work_than_it_is_given(start, monkeypatch) -> None:
    """Completing the hint and the search together ask CP-SAT for at most the seconds given (less the
    share kept for realizing), as deterministic time, and realizing counts positions from that share."""
    asked: list[float] = []
    solve_for = bounds._solve_for

    def spy(m, seconds, workers, callback=None, rate=common.WORK_PER_SECOND, lns_only=False):
        asked.append(max(0.01, seconds * rate))
        return solve_for(m, seconds, workers, callback, rate, lns_only)

    monkeypatch.setattr(bounds, "_solve_for", spy)
    monkeypatch.setattr(lns, "_solve_for", spy)
    seconds = 1.0  # above LNS_MIN_SECONDS: both the hint's completion and the search run
    _lns(start, seconds=seconds)
    assert len(asked) == 2
    assert sum(asked) <= seconds * (1 - lns.LNS_REALIZE_SHARE) * common.WORK_PER_SECOND + 1e-9


def test_solve_gives_the_lns_what_realizing_and_planning_again_left(monkeypatch) -> None:
    """``solve`` hands the LNS the unspent part of the budget it keeps for realizing and planning
    again (a third and a sixth of ``time_limit``), never more; the result still replays."""
    given: list[float] = []

    def spy(rules, cards, seat, score, plan, seconds, valuations, width=8, **options):
        given.append(seconds)
        return lns_plan(rules, cards, seat, score, plan, seconds, valuations, width, **options)

    lns_plan = solving.lns_plan
    monkeypatch.setattr(solving, "lns_plan", spy)
    deal = R.random_deal(TWO_ROUNDS, 1)
    time_limit = 1.5
    result = O.solve(deal, TWO_ROUNDS, 0, width=8, time_limit=time_limit)
    assert result.score < result.bound  # else the LNS is not run
    assert len(given) == 1 and 0 < given[0] <= time_limit / 3 + time_limit / 6
    assert result.stats["lns_seconds"] == round(given[0], 3)
    final = R.replay(TWO_ROUNDS, deal, result.plan)
    assert final.done and final.money[0] == result.score

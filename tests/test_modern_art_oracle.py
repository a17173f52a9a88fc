"""Modern Art oracles: plans replay, the CP-SAT bound is never below the exhaustive optimum."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.core import OracleCache
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.oracles import modern_art as O

# A tiny deck: two cards per artist, one of them with a symbol; two players, two rounds.
TINY_DECK = (
    (1, 1, 0, 0, 0, 0),
    (1, 0, 1, 0, 0, 0),
    (1, 0, 0, 1, 0, 0),
    (1, 0, 0, 0, 1, 0),
    (1, 0, 0, 0, 0, 1),
)
TINY = R.Rules(players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2)


def _random_play(rules: R.Rules, deal: str, seed: int) -> R.State:
    rng = np.random.default_rng(seed)
    state = R.State(rules, deal)
    while not state.done:
        acts = state.legal_actions()
        state.apply(int(acts[rng.integers(len(acts))]))
    return state


@pytest.mark.parametrize("seed", range(6))
def test_bound_and_plan_against_brute_force_on_tiny_decks(seed: int) -> None:
    deal = R.random_deal(TINY, seed)
    for seat in (0, 1):
        best, plan = O.brute_force(TINY, deal, seat)
        assert R.replay(TINY, deal, plan).scores[seat] == best
        # no random line of play beats the exhaustive optimum
        for s in range(5):
            assert _random_play(TINY, deal, s).scores[seat] <= best
        result = O.solve(deal, TINY, seat, width=8, time_limit=0.5)
        assert result.score <= best <= result.bound
        assert R.replay(TINY, deal, result.plan).scores[seat] == result.score
        exact = O.solve(deal, TINY, seat, exact_positions=100_000)
        assert exact.optimal and exact.score == best and exact.stats["method"] == "exhaustive"


def test_relaxation_bound_valid_with_parameters() -> None:
    rules = R.Rules(
        players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2, end_of_round_plays=True, at_once=False
    )
    deal = R.random_deal(rules, 3)
    best, _ = O.brute_force(rules, deal, 0)
    bound, _, _ = O.relaxation_bound(rules, R.parse_deal(deal, rules), 0, time_limit=1)
    free, _, _ = O.relaxation_bound(rules, None, 0, time_limit=1)
    assert best <= bound and best <= free  # both proven bounds (time limits make them incomparable)


def test_full_deal_plan_replays_and_is_cached(tmp_path) -> None:
    rules = R.Rules(players=3)
    deal = R.random_deal(rules, 0)
    cache = OracleCache(tmp_path)
    result = O.solve_cached(deal, rules, 1, cache, width=4, time_limit=1)
    final = R.replay(rules, deal, result.plan)
    assert final.done and final.scores[1] == result.score <= result.bound
    again = O.solve_cached(deal, rules, 1, cache, width=4, time_limit=1)
    assert cache.hits == 1 and again.score == result.score
    forged = type(result)(score=result.score + 1, bound=result.bound + 1, plan=result.plan)
    assert not O.check(deal, forged, rules, 1)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="seat"):
        O.solve(R.random_deal(TINY, 0), TINY, seat=2)
    with pytest.raises(R.InvalidDealError):
        O.solve("L.", TINY)

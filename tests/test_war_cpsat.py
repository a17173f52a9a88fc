"""War CP-SAT oracles: horizon model against the exact horizon search, plans replayed by the engine,
free-deal queries confirmed by the engine and the simulation, against brute force on a tiny deck."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time

import pytest

from tabletop_gym.envs.war.rules import WarRules, random_deal
from tabletop_gym.oracles.war import simulate
from tabletop_gym.oracles.war.cpsat import (
    find_deal_most_wars,
    find_deal_with_pattern,
    solve_horizon_best,
    solve_horizon_cpsat,
    trick_pattern,
)
from tabletop_gym.oracles.war.horizon import check_horizon, solve_horizon

# Decks big enough that no war runs short within these horizons: the model is then exact.
EXACT = [
    (WarRules(ranks=8, suits=3, face_down=1), (3, 8, 12), range(4)),
    (WarRules(ranks=13, suits=2, face_down=2), (4, 10), range(3)),
    (WarRules(), (3, 8), range(3)),
    (WarRules(ranks=7, suits=2, face_down=0), (5, 9), range(3)),
    (WarRules(ranks=8, suits=3, face_down=1, pickup="loser_first"), (6, 10), range(3)),
]


@pytest.mark.parametrize("rules,horizons,seeds", EXACT, ids=lambda x: getattr(x, "variant", ""))
def test_cpsat_matches_horizon_search(rules: WarRules, horizons, seeds) -> None:
    for seed in seeds:
        deal = random_deal(seed, rules)
        for tricks in horizons:
            exact = solve_horizon(deal, tricks, rules)
            result = solve_horizon_cpsat(deal, tricks, rules, time_limit=20)
            assert (result.score, result.bound) == (exact.score, exact.score), (str(deal), tricks)
            assert check_horizon(deal, tricks, rules, result)


def test_cpsat_bound_holds_with_short_wars() -> None:
    # Tiny decks: wars run short all the time; the model takes them optimistically, so its bound
    # still holds and its plan still replays, but it need not be tight.
    rules = WarRules(ranks=5, suits=2, face_down=1)
    for seed in range(8):
        deal = random_deal(seed, rules)
        for tricks in (2, 5):
            exact = solve_horizon(deal, tricks, rules)
            result = solve_horizon_cpsat(deal, tricks, rules, time_limit=10)
            assert result.score <= exact.score <= result.bound
            assert check_horizon(deal, tricks, rules, result)


def test_full_deck_three_tricks() -> None:
    rules = WarRules()
    for seed in range(1, 4):
        deal = random_deal(seed, rules)
        result = solve_horizon_cpsat(deal, 3, rules, time_limit=10)
        assert result.optimal and result.score == solve_horizon(deal, 3, rules).score
        assert check_horizon(deal, 3, rules, result)


def test_best_of_search_and_cpsat() -> None:
    rules = WarRules()
    deal = random_deal(3, rules)
    fast = solve_horizon_best(deal, 12, rules, time_limit=20)
    assert fast.stats["method"] == "search" and fast.optimal
    forced = solve_horizon_best(deal, 12, rules, time_limit=20, max_nodes=1)
    assert forced.stats["method"] == "cpsat" and (forced.score, forced.bound) == (fast.score, fast.score)


def test_cpsat_refuses_sorted_convention() -> None:
    with pytest.raises(ValueError, match="pickup"):
        solve_horizon_cpsat(random_deal(0), 3, WarRules(pickup="high_first"))


@pytest.mark.parametrize("pattern", ["w,1", "n1 w0 n0", "w0 . w1"])
def test_pattern_query_confirmed_by_engine(pattern: str) -> None:
    rules = WarRules()
    found = find_deal_with_pattern(pattern, rules, time_limit=20)
    tokens = pattern.replace(",", " ").split()
    played = trick_pattern(found.deal, rules, len(tokens))
    assert len(played) == len(tokens)
    for want, got in zip(tokens, played, strict=True):
        if want[:1] in ("w", "n"):
            assert got[0] == want[0]
            want = want[1:]
        if want not in ("", "."):
            assert got[1] == want
    wars = simulate(found.deal, rules.replace(max_tricks=len(tokens))).wars
    assert wars >= sum(1 for t in tokens if t.startswith("w"))


def test_pattern_query_bad_input() -> None:
    with pytest.raises(ValueError, match="pattern"):
        find_deal_with_pattern("x2", WarRules())


def _all_deals(rules: WarRules):
    cards = [r for r in range(rules.ranks) for _ in range(rules.suits)]
    half = (len(cards) + 1) // 2
    for perm in set(itertools.permutations(cards)):
        yield "/".join("".join(rules.alphabet[r] for r in pile) for pile in (perm[:half], perm[half:]))


def test_free_queries_against_brute_force() -> None:
    # face_down = 0: no war can run short, so the models cover every deal of this tiny deck.
    rules = WarRules(ranks=3, suits=2, face_down=0)
    tricks = 2
    seen = {}
    for deal in _all_deals(rules):
        played = tuple(trick_pattern(deal, rules, tricks))
        if len(played) == tricks:
            wars = simulate(deal, rules.replace(max_tricks=tricks)).wars
            seen[played] = max(seen.get(played, 0), wars)
    most = find_deal_most_wars(tricks, rules, time_limit=20)
    assert most.bound == most.value == max(seen.values())
    assert simulate(most.deal, rules.replace(max_tricks=tricks)).wars == most.value
    for pattern in itertools.product(["w0", "w1", "n0", "n1"], repeat=tricks):
        if pattern in seen:
            found = find_deal_with_pattern(",".join(pattern), rules, time_limit=20)
            assert tuple(trick_pattern(found.deal, rules, tricks)) == pattern
        else:
            with pytest.raises(ValueError, match="no deal"):
                find_deal_with_pattern(",".join(pattern), rules, time_limit=20)


def test_most_wars_full_deck_confirmed_by_simulation() -> None:
    rules = WarRules()
    found = find_deal_most_wars(2, rules, time_limit=20)
    sim = simulate(found.deal, rules.replace(max_tricks=2))
    assert sim.tricks == 2 and sim.wars == found.value >= 4
    assert found.bound is None or found.bound >= found.value


@pytest.mark.parametrize("seed", [3, 5, 23])
def test_full_deck_26_tricks_against_search(seed: int) -> None:
    # Seed 23: player 0 runs out within the horizon whatever it does (its short war is exact).
    rules = WarRules()
    deal = random_deal(seed, rules)
    exact = solve_horizon(deal, 26, rules)
    result = solve_horizon_cpsat(deal, 26, rules, time_limit=30)
    assert result.optimal and result.score == exact.score
    assert check_horizon(deal, 26, rules, result)


def test_horizon_oracles_agree_with_the_env_on_its_deals() -> None:
    # With horizon 3 many first deals give player 0 no decision and are drawn again: the deal in
    # info["deal"] is the one played, and the oracles' plans score there exactly what they claim.
    from tabletop_gym.envs.war.env import WarEnv

    env = WarEnv(horizon=3)
    for seed in range(12):
        _, info = env.reset(seed=seed)
        deal = info["deal"]
        for result in (
            solve_horizon(deal, 3, env.rules),
            solve_horizon_cpsat(deal, 3, env.rules, time_limit=10),
        ):
            env.reset(options={"deal": deal})
            done, score = False, None
            for action in result.plan:
                _, _, terminated, truncated, info = env.step(action)
                done, score = terminated or truncated, info["score"]
                if done:
                    break
            assert done and score == result.score


def _jumping_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every read of the wall clock jumps an hour ahead: a deadline read off it passes at once."""
    now = [time.perf_counter()]

    def jump() -> float:
        now[0] += 3600.0
        return now[0]

    monkeypatch.setattr(time, "perf_counter", jump)


def _answers(result) -> tuple:
    return result.score, result.bound, result.plan, result.stats["statuses"], result.stats.get("work_seconds")


def test_same_call_same_answer_on_a_busy_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seed 25's 26 tricks are cut short by this limit (a plan of 38 cards under a bound of 52), so
    # the answer depends on how much search was done: a clock would show here. The second calls run
    # beside a process that keeps a core busy, with a wall clock that jumps an hour at every read;
    # work counted by CP-SAT's deterministic time and the models' terms notices neither.
    rules = WarRules()
    deal = random_deal(25, rules)
    cut = solve_horizon_cpsat(deal, 26, rules, time_limit=0.2)
    assert cut.score < cut.bound  # FEASIBLE (38 of 52) on OR-Tools 9.15
    best = solve_horizon_best(random_deal(3, rules), 12, rules, time_limit=0.5, max_nodes=1)
    small = WarRules(ranks=3, suits=2, face_down=0)
    most = find_deal_most_wars(2, small, time_limit=5)
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        _jumping_clock(monkeypatch)
        again = solve_horizon_cpsat(deal, 26, rules, time_limit=0.2)
        best_again = solve_horizon_best(random_deal(3, rules), 12, rules, time_limit=0.5, max_nodes=1)
        most_again = find_deal_most_wars(2, small, time_limit=5)
    finally:
        monkeypatch.undo()
        burner.kill()
        burner.wait()
    assert _answers(again) == _answers(cut) and check_horizon(deal, 26, rules, again)
    assert _answers(best_again) == _answers(best) and best.stats["method"] == "cpsat"
    assert (most_again.deal, most_again.value, most_again.bound) == (most.deal, most.value, most.bound)


def test_a_model_too_large_for_the_limit_is_never_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # Whether a model fits what is left of the limit is decided by its count of terms before it is
    # built: with the wall clock frozen (no deadline read off it could ever pass) the 200-trick
    # models are still refused. The horizon oracle then answers with a plan that replays (player 0's
    # highest card first at each decision) under the trivial bound; the free-deal queries say why.
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    rules = WarRules()
    deal = random_deal(1, rules)
    result = solve_horizon_cpsat(deal, 200, rules, time_limit=0.5)
    assert result.stats["statuses"] == ["TIME_LIMIT_BEFORE_BUILDING"] and result.stats["work_seconds"] == 0
    assert result.score <= result.bound == 52 and check_horizon(deal, 200, rules, result)
    with pytest.raises(TimeoutError, match="building the model of 200 tricks takes about"):
        find_deal_most_wars(200, rules, time_limit=0.5)
    with pytest.raises(TimeoutError, match="building the model of 150 tricks"):
        find_deal_with_pattern(",".join(["w"] * 150), rules, time_limit=0.5)
    # The first model fits but leaves the solver almost nothing: still a replayed plan and a bound.
    short = solve_horizon_cpsat(random_deal(25, rules), 26, rules, time_limit=0.1)
    assert short.stats["statuses"] == ["UNKNOWN"] and short.bound == 52
    assert check_horizon(random_deal(25, rules), 26, rules, short)


def test_model_sizes_and_limits_are_checked() -> None:
    rules = WarRules()
    deal = random_deal(1, rules)
    with pytest.raises(ValueError, match="1 to 200"):
        find_deal_most_wars(100_000, rules, time_limit=5)
    with pytest.raises(ValueError, match="1 to 200"):
        find_deal_with_pattern(",".join(["."] * 201), rules)
    with pytest.raises(ValueError, match="empty trick pattern"):
        find_deal_with_pattern("", rules)
    with pytest.raises(ValueError, match="1 to 200"):
        solve_horizon_cpsat(deal, 201, rules)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="time_limit"):
            solve_horizon_cpsat(deal, 3, rules, time_limit=bad)
        with pytest.raises(ValueError, match="time_limit"):
            find_deal_most_wars(3, rules, time_limit=bad)
    with pytest.raises(ValueError, match="tricks"):
        find_deal_most_wars(0, rules)
    with pytest.raises(ValueError, match="turns"):
        find_deal_with_pattern(",".join(["w"] * 100), rules.replace(face_down=20))

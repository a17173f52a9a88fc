"""The Cribbage oracle is exact: brute force on small deals, plan replay and baselines on full ones."""

import functools
import itertools
import json
import os

import gymnasium as gym
import numba
import numpy as np
import pytest

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.cribbage import CribbageGreedyAgent
from tabletop_gym.core import OracleCache
from tabletop_gym.envs.cribbage.rules import (
    CribbageRules,
    CribbageState,
    parse_deal,
    random_deal,
    replay,
    score_card,
    value_of,
)
from tabletop_gym.oracles import cribbage as oracle
from tabletop_gym.training.cli import main
from tabletop_gym.training.evaluate import play_episode

KNOWN = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"


def enumerate_every_play(deal) -> int:
    """The best score over every complete play sequence, listed one by one through the engine."""
    best = 0
    stack = [CribbageState(deal)]
    while stack:
        state = stack.pop()
        if state.done:
            best = max(best, state.score)
            continue
        for pile in state.legal_actions():
            child = state.copy()
            child.apply(pile)
            stack.append(child)
    return best


def search_every_position(deal) -> int:
    """Exhaustive search over full positions (piles and the whole current stack), card by card."""

    @functools.cache
    def best(heights: tuple[int, ...], stack: tuple[int, ...], total: int) -> int:
        state = CribbageState(deal)
        state.heights, state.stack, state.total = list(heights), list(stack), total
        state.played = sum(heights)
        if state.done:
            return 0
        outcomes = []
        for pile in state.legal_actions():
            child = state.copy()
            points = child.apply(pile)
            outcomes.append(points + best(tuple(child.heights), tuple(child.stack), child.total))
        return max(outcomes)

    return best((0, 0, 0, 0), (), 0)


def test_known_answer() -> None:
    result = oracle.solve(KNOWN)
    assert result.score == 112 and result.bound == 112 and result.optimal
    assert replay(CribbageRules(), parse_deal(KNOWN), result.plan).score == 112


def test_full_deal_gives_the_same_answer_with_1_and_2_threads() -> None:
    one, two = oracle.solve(KNOWN, threads=1), oracle.solve(KNOWN, threads=2)
    assert one.score == two.score == 112
    assert one.plan == two.plan and one.stats["stack_nodes"] == two.stats["stack_nodes"]
    assert one.stats["threads"] == 1 and two.stats["threads"] == min(2, numba.config.NUMBA_NUM_THREADS)


def test_thread_count_follows_numba_and_the_cpus_and_is_restored() -> None:
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)  # what a batch runner does per task
        assert oracle.solve("KA/Q9/J8/77").stats["threads"] == 1
        assert numba.get_num_threads() == 1
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        result = oracle.solve("KA/Q9/J8/77", threads=1)
        assert result.stats["threads"] == 1 and numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        assert 1 <= oracle.resolve_threads() <= cpus
        assert oracle.resolve_threads(10**6) == numba.config.NUMBA_NUM_THREADS
        for bad in (0, -1, 1.5, True, "2"):
            with pytest.raises(ValueError, match="threads"):
                oracle.solve("KA/Q9/J8/77", threads=bad)
    finally:
        numba.set_num_threads(previous)


@pytest.mark.parametrize("seed", range(25))
def test_matches_enumeration_of_every_play_on_tiny_deals(seed: int) -> None:
    deal = random_deal(seed, pile_size=2)
    result = oracle.solve(deal)
    assert result.score == enumerate_every_play(deal)
    assert replay(CribbageRules(), deal, result.plan).score == result.score


@pytest.mark.parametrize(("seed", "pile_size"), [(s, 3) for s in range(12)] + [(s, 4) for s in range(4)])
def test_matches_exhaustive_search_on_small_deals(seed: int, pile_size: int) -> None:
    deal = random_deal(1000 + seed, pile_size=pile_size)
    result = oracle.solve(deal)
    assert result.score == search_every_position(deal)
    final = replay(CribbageRules(), deal, result.plan)
    assert final.done and final.score == result.score


# Deals with hundreds of reachable positions, so both threads take many chunks of them.
@pytest.mark.parametrize(("seed", "pile_size"), [(s, 5) for s in range(3)] + [(s, 6) for s in range(2)])
def test_matches_exhaustive_search_on_mid_size_deals_with_1_and_2_threads(seed: int, pile_size: int) -> None:
    deal = random_deal(2000 + seed, pile_size=pile_size)
    best = search_every_position(deal)
    one, two = oracle.solve(deal, threads=1), oracle.solve(deal, threads=2)
    assert one.score == two.score == best
    assert one.plan == two.plan and one.stats["stack_nodes"] == two.stats["stack_nodes"]
    assert replay(CribbageRules(), deal, two.plan).score == best


def empty_stack_positions(deal) -> set[tuple[int, ...]]:
    """Every position (cards played per pile) where play can stand with an empty stack, game over
    included, found by playing every sequence through the engine."""
    found = set()
    stack = [CribbageState(deal)]
    while stack:
        state = stack.pop()
        if not state.stack or state.done:
            if tuple(state.heights) in found:
                continue  # the same position: the same continuations
            found.add(tuple(state.heights))
        for pile in state.legal_actions() if not state.done else []:
            child = state.copy()
            child.apply(pile)
            stack.append(child)
    return found


@pytest.mark.parametrize(("seed", "pile_size"), [(s, 2) for s in range(10)] + [(s, 3) for s in range(5)])
def test_solves_exactly_the_positions_play_can_reach(seed: int, pile_size: int) -> None:
    deal = random_deal(3000 + seed, pile_size=pile_size)
    ranks, values, sizes = oracle._deal_arrays(deal)
    roots, _, _ = oracle._stack_ends(values, oracle._order(sizes)[0])
    solved = {tuple(int(r) // 14**p % 14 for p in range(4)) for r in roots}
    assert solved == empty_stack_positions(deal)


def test_kernel_scores_every_card_as_the_engine_does() -> None:
    # Random legal stacks, low ranks favoured so that long stacks, sets and runs of 5-7 occur; the
    # kernel scores each card from what it kept of the cards before, as the walk does.
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(4000):
        on = np.zeros(17, dtype=np.int64)
        same = np.zeros(17, dtype=np.int64)
        seen = np.zeros(8 * 17, dtype=np.int64)
        stack: list[int] = []
        total = 0
        while True:
            rank = int(rng.choice([rng.integers(1, 8), rng.integers(1, 14)]))
            if total + value_of(rank) > 31 or stack.count(rank) == 4:
                break
            stack.append(rank)
            total += value_of(rank)
            assert oracle._place(rank, len(stack), total, on, same, seen) == score_card(stack, total), stack
            checked += 1
    assert checked > 20000


def test_hand_built_small_deal_with_a_trap() -> None:
    # Taking the 5 first scores 15 at once; the better line keeps three 7s together for 2 + 6 points.
    deal = parse_deal("7T/75/7A/23", pile_size=2)
    assert oracle.solve(deal).score == search_every_position(deal) == enumerate_every_play(deal)


@pytest.mark.parametrize("seed", [11, 12])
def test_full_deals_replay_and_beat_baselines(seed: int) -> None:
    env = gym.make("tabletop/Cribbage-v0")
    greedy_score, deal, _ = play_episode(env, CribbageGreedyAgent(), seed)
    random_score, same_deal, _ = play_episode(env, RandomAgent(seed), seed)
    assert deal == same_deal
    result = oracle.solve(deal)
    final = replay(CribbageRules(), parse_deal(deal), result.plan)
    assert final.done and final.score == result.score
    assert result.score >= greedy_score and result.score >= random_score


def test_cache_round_trip_and_rejects_bad_entries(tmp_path) -> None:
    cache = OracleCache(tmp_path)
    deal = "KA/Q9/J8/77"
    first = oracle.solve_cached(deal, cache)
    assert cache.misses == 1
    again = oracle.solve_cached(deal, cache)
    assert cache.hits == 1 and again.score == first.score and again.plan == first.plan
    path = cache.path("cribbage", "piles4x2", deal)

    path.write_text("{ not json")  # corrupt file: recomputed, then rewritten
    assert oracle.solve_cached(deal, cache).score == first.score
    assert cache.rejected == 1 and json.loads(path.read_text())["deal"] == deal

    entry = json.loads(path.read_text())  # a claimed score its plan does not reach
    entry["result"]["score"] = entry["result"]["bound"] = first.score + 5
    from tabletop_gym.core import _checksum

    entry["checksum"] = _checksum(entry["result"])
    path.write_text(json.dumps(entry))
    assert oracle.solve_cached(deal, cache).score == first.score
    assert cache.rejected == 2

    entry["deal"] = "QA/K9/J8/77"  # an entry answering another deal
    path.write_text(json.dumps(entry))
    assert oracle.solve_cached(deal, cache).score == first.score
    assert cache.rejected == 3


def test_orderings_of_a_deal_agree() -> None:
    # Swapping whole piles cannot change the optimum.
    deal = random_deal(5, pile_size=4)
    scores = {
        oracle.solve(parse_deal("/".join(str(deal).split("/")[i] for i in order), pile_size=4)).score
        for order in itertools.permutations(range(4))
    }
    assert len(scores) == 1


def test_bench_times_1_thread_against_the_others_in_one_run(tmp_path) -> None:
    args = ["bench", "cribbage", "--deals", "2", "--env-steps", "100", "--probe-deals", "0"]
    assert main(args + ["--oracle-threads", "2", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "cribbage.json").read_text())
    assert report["oracle_threads"] == min(2, numba.config.NUMBA_NUM_THREADS)
    assert report["oracle_median_seconds"] > 0 and report["oracle_median_cpu_seconds"] > 0
    assert report["oracle_threading_layer"] in ("tbb", "omp", "workqueue")
    assert report["known_answer_112"] == 112
    if report["oracle_threads"] > 1:
        assert report["oracle_1_thread_median_seconds"] > 0
        assert report["oracle_1_thread_median_cpu_seconds"] > 0


def test_bench_on_one_thread_needs_no_thread_pool(tmp_path) -> None:
    args = ["bench", "cribbage", "--deals", "1", "--env-steps", "100", "--probe-deals", "0"]
    assert main(args + ["--oracle-threads", "1", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "cribbage.json").read_text())
    assert report["oracle_threads"] == 1 and "oracle_1_thread_median_seconds" not in report
    assert report["oracle_threading_layer"] in ("none", "tbb", "omp", "workqueue")

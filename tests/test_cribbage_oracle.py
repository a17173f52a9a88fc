"""The Cribbage oracle is exact: brute force on small deals, plan replay and baselines on full ones."""

import functools
import itertools
import json

import gymnasium as gym
import pytest

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.cribbage import CribbageGreedyAgent
from tabletop_gym.core import OracleCache
from tabletop_gym.envs.cribbage.rules import CribbageState, parse_deal, random_deal, replay
from tabletop_gym.oracles import cribbage as oracle
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
        for pile in state.legal_piles():
            child = state.copy()
            child.play(pile)
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
        for pile in state.legal_piles():
            child = state.copy()
            points = child.play(pile)
            outcomes.append(points + best(tuple(child.heights), tuple(child.stack), child.total))
        return max(outcomes)

    return best((0, 0, 0, 0), (), 0)


def test_known_answer() -> None:
    result = oracle.solve(KNOWN)
    assert result.score == 112 and result.bound == 112 and result.optimal
    assert replay(parse_deal(KNOWN), result.plan).score == 112


@pytest.mark.parametrize("seed", range(25))
def test_matches_enumeration_of_every_play_on_tiny_deals(seed: int) -> None:
    deal = random_deal(seed, pile_size=2)
    result = oracle.solve(deal)
    assert result.score == enumerate_every_play(deal)
    assert replay(deal, result.plan).score == result.score


@pytest.mark.parametrize(("seed", "pile_size"), [(s, 3) for s in range(12)] + [(s, 4) for s in range(4)])
def test_matches_exhaustive_search_on_small_deals(seed: int, pile_size: int) -> None:
    deal = random_deal(1000 + seed, pile_size=pile_size)
    result = oracle.solve(deal)
    assert result.score == search_every_position(deal)
    final = replay(deal, result.plan)
    assert final.done and final.score == result.score


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
    final = replay(parse_deal(deal), result.plan)
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

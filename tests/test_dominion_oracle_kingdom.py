"""Dominion solitaire oracle with kingdom cards: optimum against a brute force through the engine,
the model against the engine, the lower bound along optimal plays, refused kingdoms, bounds, cache."""

from __future__ import annotations

import pytest

from tabletop_gym.agents.dominion import solitaire_turns
from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles import dominion as O


def _key(state: R.DominionState) -> tuple:
    return (tuple(state.draw[0]), tuple(state.discard[0]), tuple(state.hand[0]), tuple(state.in_play[0]),
            state.shuffles[0], state.decision, state.actions, state.buys, state.coins, state.merchants)


def brute_force_turns(seed: int, target: int, kingdom: str, max_turns: int = 20) -> int:
    """Fewest turns by breadth-first search over every legal answer to every decision, through the
    engine itself (no model or bound of its own); identical engine states are merged."""
    level = [R.DominionState(1, kingdom, seed, target)]
    for turn in range(1, max_turns + 1):
        following: dict[tuple, R.DominionState] = {}
        stack, seen = list(level), set()
        while stack:
            state = stack.pop()
            for action in state.legal_actions():
                child = state.copy()
                child.step(action)
                if child.done:
                    return turn
                key = _key(child)
                if child.turns[0] == turn:
                    following.setdefault(key, child)
                elif key not in seen:
                    seen.add(key)
                    stack.append(child)
        level = list(following.values())
    raise AssertionError("no solution found")


@pytest.mark.parametrize(("kingdom", "seed"), [
    ("smithy,village", 1), ("market", 2), ("moat,market", 1), ("militia,merchant", 1),
    ("market,merchant,militia,moat,smithy,village", 1),
])
def test_optimum_matches_brute_force_for_one_province(kingdom, seed):
    result = O.solve(seed, target=1, kingdom=kingdom)
    assert result.optimal
    assert -result.score == brute_force_turns(seed, 1, kingdom)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_kingdom_search_on_the_empty_kingdom_agrees_with_the_treasure_search(seed):
    treasure = O.solve(seed, target=2)
    general = O._solve_kingdom(seed, 2, (), time_limit=60)
    assert treasure.optimal and general.optimal and treasure.score == general.score


def _turn_starts(seed: int, plan, target: int, kingdom: tuple[int, ...], search: O._KingdomSearch):
    """The compact position at the start of every turn of the plan, read from the engine."""
    state = R.DominionState(1, kingdom, seed, target)
    local = search.local

    def position() -> tuple:
        hand = [0] * search.n
        discard = [0] * search.n
        for c in search.cards:
            hand[local[c]] = state.hand[0][c] + state.in_play[0][c]
            discard[local[c]] = state.discard[0][c]
        return (tuple(local[c] for c in state.draw[0]), tuple(discard), tuple(hand), state.shuffles[0])

    positions = [position()]
    for action in plan:
        turns = state.turns[0]
        state.step(action)
        if state.turns[0] > turns and not state.done:
            positions.append(position())
    return positions


@pytest.mark.parametrize(("kingdom", "seed", "target"), [("smithy", 2, 3), ("market,village", 4, 2),
                                                        ("merchant,militia,moat", 2, 2)])
def test_model_follows_the_engine_and_the_bound_holds_along_the_optimal_plan(kingdom, seed, target):
    cards = R.parse_kingdom(kingdom)
    result = O.solve(seed, target=target, kingdom=kingdom, time_limit=60)
    assert result.optimal
    turns = -result.score
    search = O._KingdomSearch(seed, target, cards, deadline=float("inf"))
    positions = _turn_starts(seed, result.plan, target, cards, search)
    assert positions[0] == search.start() and len(positions) == turns
    for i, pos in enumerate(positions):
        needed = target - search.provinces(pos)
        # The lower bound never exceeds the turns the optimal play still takes from there.
        assert search.lower_bound(pos, needed) <= turns - i
        if i + 1 < len(positions):  # the engine's next turn start is one of the model's children
            assert positions[i + 1] in {child for child, _ in search.children(pos)}


def test_plan_replays_and_beats_or_equals_the_bots():
    result = O.solve(2, target=3, kingdom="smithy", time_limit=60)
    turns = O.replay_turns(2, result.plan, target=3, kingdom="smithy")
    assert result.optimal and -result.score == turns
    for bot in ("big-money", "smithy-big-money"):
        assert turns <= solitaire_turns(bot, 2, target=3, kingdom="smithy")
    assert O.check(2, result, target=3, kingdom="smithy")
    assert not O.check(2, result, target=3, kingdom="")  # a kingdom plan is not a treasure-game plan
    cut = OracleResult(score=result.score, bound=result.bound, plan=result.plan[:-1])
    assert not O.check(2, cut, target=3, kingdom="smithy")


def test_a_time_limited_search_reports_a_bound_not_an_optimum():
    result = O.solve(0, target=4, kingdom="smithy,village,market", time_limit=0.2)
    assert -result.score == O.replay_turns(0, result.plan, kingdom="smithy,village,market")
    assert result.stats["timed_out"] and not result.optimal
    assert result.bound > result.score  # proven lower bound on the turns < turns achieved


@pytest.mark.parametrize("kingdom", ["cellar", "smithy,mine", "remodel", "workshop", "first-game"])
def test_unsupported_kingdoms_are_refused_with_a_clear_error(kingdom):
    with pytest.raises(ValueError, match="does not support"):
        O.solve(1, target=1, kingdom=kingdom)


def test_cache_keeps_kingdoms_apart(tmp_path):
    cache = OracleCache(tmp_path)
    smithy = O.solve_cached(1, target=2, cache=cache, kingdom="smithy")
    treasure = O.solve_cached(1, target=2, cache=cache, kingdom="")
    again = O.solve_cached(1, target=2, cache=cache, kingdom="smithy")
    assert cache.hits == 1 and again.plan == smithy.plan
    assert smithy.stats["kingdom"] == ["Smithy"] and treasure.stats["kingdom"] == []
    assert O.cache_variant(2, "") == "solitaire-treasure-target2"
    assert O.cache_variant(2, "village,smithy") == "solitaire-treasure+smithy+village-target2"

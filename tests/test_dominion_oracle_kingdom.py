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
            state.shuffles[0], state.decision, state.actions, state.buys, state.coins, state.merchants,
            tuple(state.supply), state.cellar_discarded, state.trashed)


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
                child.apply(action)
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

    start_supply = R.supply_sizes(1, kingdom)

    def position() -> tuple:
        hand = [0] * search.n
        discard = [0] * search.n
        gained = [0] * search.n
        for c in search.cards:
            hand[local[c]] = state.hand[0][c] + state.in_play[0][c]
            discard[local[c]] = state.discard[0][c]
            gained[local[c]] = start_supply[c] - state.supply[c]
        return (tuple(local[c] for c in state.draw[0]), tuple(discard), tuple(hand), state.shuffles[0],
                tuple(gained))

    positions = [position()]
    for action in plan:
        turns = state.turns[0]
        state.apply(action)
        if state.turns[0] > turns and not state.done:
            positions.append(position())
    return positions


@pytest.mark.parametrize(("kingdom", "seed", "target"), [
    ("smithy", 2, 3), ("market,village", 4, 2), ("merchant,militia,moat", 2, 2), ("remodel", 6, 1),
    ("cellar", 4, 1), ("mine,workshop", 0, 1), ("workshop", 4, 2), ("first-game", 3, 1),
])
def test_model_follows_the_engine_and_the_bound_holds_along_the_optimal_plan(kingdom, seed, target):
    cards = R.parse_kingdom(kingdom)
    result = O.solve(seed, target=target, kingdom=kingdom)
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


def test_every_first_game_kingdom_is_accepted_and_unknown_cards_are_refused():
    assert O.oracle_kingdom("first-game") == R.FIRST_GAME
    assert O.oracle_kingdom("cellar,mine,remodel,workshop") == (R.CELLAR, R.MINE, R.REMODEL, R.WORKSHOP)
    with pytest.raises(ValueError, match="unknown card 'chapel'"):
        O.solve(1, target=1, kingdom="smithy,chapel")
    with pytest.raises(ValueError, match="Gold is not a kingdom card"):
        O.solve(1, target=1, kingdom="gold")


@pytest.mark.parametrize(("kingdom", "seed"), [
    ("remodel", 4), ("workshop", 4), ("mine", 4), ("cellar", 4),  # as early as the treasure game
    ("remodel", 6), ("first-game", 3),  # earlier than any play of the treasure game
])
def test_optimum_with_choices_inside_cards_matches_brute_force(kingdom, seed):
    result = O.solve(seed, target=1, kingdom=kingdom)
    assert result.optimal
    assert -result.score == brute_force_turns(seed, 1, kingdom)


def test_a_sub_kingdom_plan_is_a_play_of_the_larger_kingdom():
    smithy = O.solve(2, target=2, kingdom="smithy")
    assert smithy.optimal
    assert O.replay_turns(2, smithy.plan, target=2, kingdom="first-game") == -smithy.score
    # Seeded by Smithy's sub-kingdom within this work limit (as within 400,000: 7 turns either way).
    full = O.solve(2, target=2, kingdom="first-game", work_limit=100_000)
    assert "Smithy" in full.stats["seed_plan_turns"]
    assert full.score >= smithy.score  # never worse than the sub-kingdom: its plan seeds the search
    assert O.replay_turns(2, full.plan, target=2, kingdom="first-game") == -full.score


def test_the_work_limit_binds_and_gives_the_same_answer_every_time():
    first = O.solve(0, target=4, kingdom="first-game", work_limit=20_000)
    again = O.solve(0, target=4, kingdom="first-game", work_limit=20_000)
    assert first.stats["timed_out"] and not first.optimal
    assert (first.score, first.bound, first.plan) == (again.score, again.bound, again.plan)
    assert first.stats["work"] <= 20_000 + 5_000  # the limit is checked once per node
    assert O.replay_turns(0, first.plan, kingdom="first-game") == -first.score


def test_remodel_gains_a_province_from_a_gold_in_the_model_as_in_the_engine():
    search = O._KingdomSearch(0, 1, (R.REMODEL,))
    local = search.local
    draw, discard, _, shuffles, gained = search.start()
    hand = [0] * search.n
    hand[local[R.REMODEL]], hand[local[R.GOLD]], hand[local[R.COPPER]] = 1, 1, 3
    pos = (draw, discard, tuple(hand), shuffles, gained)
    plans = [steps for child, steps in search.children(pos) if search.provinces(child) == 1]
    assert [R.REMODEL, R.GOLD, R.PROVINCE] in [steps[:3] for steps in plans]
    # The same answers in the engine gain the Province.
    state = R.DominionState(1, "remodel", 0, 1)
    state.hand[0] = [0] * R.NUM_CARDS
    state.hand[0][R.REMODEL], state.hand[0][R.GOLD], state.hand[0][R.COPPER] = 1, 1, 3
    state._start_turn()
    for action in (R.REMODEL, R.GOLD, R.PROVINCE):
        state.apply(action)
    assert state.owned[0][R.PROVINCE] == 1 and state.trash[R.GOLD] == 1


def test_cache_keeps_kingdoms_apart(tmp_path):
    cache = OracleCache(tmp_path)
    smithy = O.solve_cached(1, target=2, cache=cache, kingdom="smithy")
    treasure = O.solve_cached(1, target=2, cache=cache, kingdom="")
    again = O.solve_cached(1, target=2, cache=cache, kingdom="smithy")
    assert cache.hits == 1 and again.plan == smithy.plan
    assert smithy.stats["kingdom"] == ["Smithy"] and treasure.stats["kingdom"] == []
    assert O.cache_variant(2, "") == "solitaire-treasure-target2"
    assert O.cache_variant(2, "village,smithy") == "solitaire-treasure+smithy+village-target2"


def test_seed_plans_come_from_every_one_card_sub_kingdom_the_treasure_game_and_beams():
    kingdom = R.parse_kingdom("smithy,militia")
    plans, used = O._seed_plans(1, 2, kingdom, 400_000, best=99)
    assert set(plans) == {"beam 20", "beam 60", "treasure", "Smithy", "Militia"}
    assert 0 < used <= 400_000
    for turns, plan in plans.values():  # every plan is a play of the whole kingdom
        assert O.replay_turns(1, plan, target=2, kingdom=kingdom) == turns
    # A sub-kingdom's search stops once it cannot beat the plans before it; with the work they had,
    # the best seed is never worse than any sub-kingdom's proven optimum.
    best = min(turns for turns, _ in plans.values())
    for card in ("", "smithy", "militia"):
        alone = O.solve(1, target=2, kingdom=card)
        assert alone.optimal and best <= -alone.score


def test_a_kingdom_is_never_worse_than_its_sub_kingdoms_under_a_small_work_limit():
    kingdom = "smithy,militia,market"
    result = O.solve(1, target=2, kingdom=kingdom, work_limit=60_000)
    seeds = result.stats["seed_plan_turns"]
    assert {"treasure", "Smithy", "Militia", "Market", "beam 20", "beam 60", "bots"} <= set(seeds)
    assert -result.score == min(seeds.values()) or result.optimal
    assert -result.score <= -O.solve(1, target=2, kingdom="smithy").score
    assert -result.score <= -O.solve(1, target=2).score
    assert O.replay_turns(1, result.plan, target=2, kingdom=kingdom) == -result.score


def test_a_one_card_kingdom_is_seeded_by_the_treasure_game():
    # Militia's bots are far from the optimum; the treasure game's optimum is a play of it.
    result = O.solve(0, target=3, kingdom="militia", work_limit=200_000)
    treasure = O.solve(0, target=3)
    assert "treasure" in result.stats["seed_plan_turns"]
    assert -result.score <= -treasure.score
    assert O.replay_turns(0, result.plan, target=3, kingdom="militia") == -result.score


def test_a_sub_kingdom_search_stops_at_its_cutoff():
    full = O._solve_kingdom(2, 3, (R.SMITHY,))
    assert full.optimal
    turns = -full.score
    cut = O._solve_kingdom(2, 3, (R.SMITHY,), seeded=False, cutoff=turns - 1)
    assert not cut.optimal and -cut.bound == turns - 1  # proved no shorter plan exists, then stopped
    assert O.replay_turns(2, cut.plan, target=3, kingdom="smithy") == -cut.score >= turns
    assert O._solve_kingdom(2, 3, (R.SMITHY,), seeded=False, cutoff=turns + 1).optimal


def test_the_bench_names_the_sources_of_the_plans():
    from tabletop_gym.training.games.dominion import _plan_sources

    def result(turns: int, seeds: dict[str, int]) -> OracleResult:
        return OracleResult(score=-turns, bound=-turns, plan=(), stats={"seed_plan_turns": seeds})

    results = [result(11, {"bots": 14, "beam 60": 11, "Smithy": 11}), result(10, {"bots": 14, "beam 60": 11}),
               result(12, {"bots": 12}), OracleResult(score=-14, bound=-14, plan=())]
    assert _plan_sources(results) == {"exact search": 2, "Smithy": 1, "beam 60": 1, "bots": 1}

"""War oracles: the fast simulation against the engine, exact search against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.envs.war.rules import WarRules, parse_deal, play_game, random_deal, replay
from tabletop_gym.oracles.war import random_decks, simulate, simulate_many
from tabletop_gym.oracles.war.search import solve as exact_solve

CASES = [
    WarRules(),
    WarRules(ranks=5, suits=2),
    WarRules(ranks=13, suits=1, max_tricks=61),  # the limit falls on a cycle's first repeat
    WarRules(ranks=13, suits=1, max_tricks=60),
    WarRules(ranks=4, suits=3, face_down=1, max_tricks=30),
    WarRules(ranks=3, suits=2, face_down=2, max_tricks=10),
]


@pytest.mark.parametrize("pickup", ["winner_first", "loser_first", "high_first"])
@pytest.mark.parametrize("rules", CASES, ids=lambda r: r.variant)
def test_simulate_matches_engine(rules: WarRules, pickup: str) -> None:
    rules = rules.replace(pickup=pickup)
    for seed in range(12 if rules.num_cards == 52 else 40):
        deal = random_deal(seed, rules)
        a = play_game(deal, rules)
        b = simulate(deal, rules)
        assert (a.winner, a.tricks, a.end_reason, a.wars) == (b.winner, b.tricks, b.end_reason, b.wars)
        assert (a.cycle_start, a.cycle_period) == (b.cycle_start, b.cycle_period)


def test_simulate_finds_the_hand_built_cycle() -> None:
    rules = WarRules(ranks=13, suits=1)
    sim = simulate("Q7K39T5/2J4A68", rules)
    assert sim.end_reason == "cycle" and sim.winner == -1
    assert sim.tricks == sim.cycle_start + sim.cycle_period


def test_simulate_many_deals_like_random_deal() -> None:
    rules = WarRules(ranks=6, suits=3)
    decks = random_decks(30, 1, rules)
    rows = simulate_many(decks, rules)
    for deck, row in zip(decks, rows, strict=True):
        deal = parse_deal("/".join("".join("234567"[r] for r in deck[p::2]) for p in (0, 1)), rules)
        sim = simulate(deal, rules)
        assert (row[0], row[1], row[3]) == (sim.winner, sim.tricks, sim.wars)
    with pytest.raises(ValueError, match="shape"):
        simulate_many(decks[:, :5], rules)
    with pytest.raises(ValueError, match="fixed convention"):
        simulate_many(decks, rules.replace(pickup="random"))


def test_simulate_random_convention_is_seeded() -> None:
    rules = WarRules(pickup="random")
    deal = random_deal(0, rules)
    assert simulate(deal, rules, seed=3) == simulate(deal, rules, seed=3)


def _brute_best(deal, rules: WarRules, depth: int) -> tuple[int, int | None]:
    """(best outcome, fewest tricks to a win) by trying every decision sequence through the engine.

    A line still going after ``depth`` tricks counts as able to last (a draw by max_tricks when
    ``depth`` is the number of positions, since a longer line must repeat a position).
    """
    best, fastest = -2, None
    stack = [[]]
    while stack:
        choices = stack.pop()
        game = replay(rules, deal, choices)
        if game.done or game.state.tricks > depth:
            value = game.outcome(0) if game.done else 0
            best = max(best, value)
            if value == 1 and (fastest is None or game.state.tricks < fastest):
                fastest = game.state.tricks
            continue
        for rank in game.legal_actions():
            stack.append(choices + [rank])
    return best, fastest


@pytest.mark.parametrize("pickup", ["winner_first", "high_first"])
@pytest.mark.parametrize("shape", [(3, 2, 1), (4, 2, 1), (2, 3, 1)])
def test_exact_search_matches_brute_force(shape: tuple[int, int, int], pickup: str) -> None:
    ranks, suits, face_down = shape
    rules = WarRules(ranks=ranks, suits=suits, face_down=face_down, pickup=pickup)
    checked_without_win = 0
    for seed in range(12):
        deal = random_deal(seed, rules)
        result = exact_solve(deal, rules)
        assert result.optimal
        game = replay(rules, deal, result.plan)
        assert game.done and game.outcome(0) == result.score
        if result.score == 1:
            # Every line of play to the claimed length: a win there, none sooner.
            tricks = result.stats["tricks"]
            assert _brute_best(deal, rules, tricks)[1] == tricks
        elif result.stats["positions"] <= 14:
            # Lines longer than the number of positions repeat one, so this depth decides it all.
            checked_without_win += 1
            assert _brute_best(deal, rules, result.stats["positions"])[0] == result.score
    if shape == (3, 2, 1):
        assert checked_without_win > 0


def test_exact_search_refuses_random_and_huge() -> None:
    with pytest.raises(ValueError, match="fixed pickup"):
        exact_solve(
            random_deal(0, WarRules(ranks=3, suits=2, pickup="random")),
            WarRules(ranks=3, suits=2, pickup="random"),
        )
    with pytest.raises(ValueError, match="too large"):
        exact_solve(random_deal(1, WarRules()), WarRules(), max_positions=50)


def test_simulate_rows_are_plausible_on_full_deck() -> None:
    rules = WarRules()
    rows = simulate_many(random_decks(200, 0, rules), rules)
    assert set(np.unique(rows[:, 0])) <= {-1, 0, 1}
    assert (rows[:, 1] > 0).all()


def _brute_most_cards(deal, rules: WarRules, tricks: int) -> int:
    """Every decision sequence through the engine with max_tricks = tricks: the most cards held."""
    limited = rules.replace(max_tricks=tricks)
    best = -1
    stack = [[]]
    while stack:
        choices = stack.pop()
        game = replay(limited, deal, choices)
        if game.done:
            held = rules.num_cards if game.state.winner == 0 else game.state.cards_held(0)
            best = max(best, held)
            continue
        stack.extend(choices + [rank] for rank in game.legal_actions())
    return best


@pytest.mark.parametrize("pickup", ["winner_first", "loser_first", "high_first"])
def test_horizon_search_matches_brute_force(pickup: str) -> None:
    from tabletop_gym.oracles.war.horizon import solve_horizon

    rules = WarRules(ranks=3, suits=3, face_down=1, pickup=pickup)
    for seed in range(5):
        deal = random_deal(seed, rules)
        for tricks in (3, 5):
            result = solve_horizon(deal, tricks, rules)
            assert result.optimal
            assert result.score == _brute_most_cards(deal, rules, tricks)


def test_horizon_search_full_deck_plan_replays() -> None:
    from tabletop_gym.envs.war.rules import WarGame
    from tabletop_gym.oracles.war.horizon import solve_horizon

    rules = WarRules()
    deal = random_deal(0, rules)
    result = solve_horizon(deal, 20, rules)
    game = WarGame(deal, rules.replace(max_tricks=20), controlled=0)
    for rank in result.plan:
        game.apply(rank)
    assert game.done and game.state.tricks == 20
    assert len(game.state.piles[0]) == result.score
    # With no choice before player 0 reaches its won cards, the first tricks are plain simulation.
    assert solve_horizon(deal, 3, rules).score == 52 - len(
        WarGame(deal, rules.replace(max_tricks=3), controlled=None).state.piles[1]
    )


def _env_score(env, plan) -> float:
    """Play ``plan`` in the environment from its current reset; the episode's score."""
    info = env._info()
    for action in plan:
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert info["game_over"]
    return info["score"]


def test_exact_search_serves_the_12_card_deck_the_env_deals() -> None:
    # Pots are ordered lazily now: the concrete search needed over 2 million positions (and half a
    # minute) on some of these deals, and gave up; the env's deal is what the oracle solves.
    from tabletop_gym.envs.war.env import WarEnv

    env = WarEnv(ranks=6, suits=2)
    for seed in range(40):
        _, info = env.reset(seed=seed)
        result = exact_solve(info["deal"], env.rules)
        assert result.optimal and result.stats["positions"] < 5_000
        assert _env_score(env, result.plan) == result.score


def test_exact_search_win_needs_a_playable_trick() -> None:
    # With max_tricks = 8 the first win the search met lay past the limit: it claimed a win that
    # the engine plays as a draw (and raised). Every line of play says a draw.
    rules = WarRules(ranks=5, suits=2, max_tricks=8)
    deal = parse_deal("43366/55422", rules)
    result = exact_solve(deal, rules)
    assert result.score == 0 == _brute_best(deal, rules, 100)[0]
    assert replay(rules, deal, result.plan).state.end_reason == "max_tricks"


def test_search_arguments_are_checked() -> None:
    from tabletop_gym.oracles.war.horizon import solve_horizon

    rules = WarRules(ranks=6, suits=2, max_tricks=100_000)
    deal = random_deal(0, rules)
    assert solve_horizon(deal, np.int64(3), rules).stats["horizon"] == 3
    with pytest.raises(ValueError, match="tricks"):
        solve_horizon(deal, 0, rules)
    with pytest.raises(ValueError, match="1 to 2000"):
        solve_horizon(deal, 2001, rules)
    with pytest.raises(ValueError, match="max_positions"):
        exact_solve(deal, rules, max_positions=0)


def _brute_truncated(deal, rules: WarRules) -> tuple[int, int | None]:
    """(best outcome, fewest tricks to a win) over every decision sequence through the engine, each
    played until the engine ends the game (max_tricks is small, so every line ends)."""
    best, fastest = -2, None
    stack: list[list[int]] = [[]]
    while stack:
        choices = stack.pop()
        game = replay(rules, deal, choices)
        if game.done:
            value = game.outcome(0)
            best = max(best, value)
            if value == 1 and (fastest is None or game.state.tricks < fastest):
                fastest = game.state.tricks
            continue
        stack.extend(choices + [rank] for rank in game.legal_actions())
    return best, fastest


@pytest.mark.parametrize("shape", [(3, 2, 1), (4, 2, 1), (3, 3, 2)])
def test_exact_search_of_a_truncated_game_matches_brute_force(shape: tuple[int, int, int]) -> None:
    """A max_tricks shorter than the game: a draw when player 0 can last that long, a win only
    within it, and the search's answer is what trying every play through the engine gives."""
    ranks, suits, face_down = shape
    outcomes = set()
    for seed in range(6):
        for max_tricks in (1, 2, 3, 5, 8):
            rules = WarRules(ranks=ranks, suits=suits, face_down=face_down, max_tricks=max_tricks)
            deal = random_deal(seed, rules)
            result = exact_solve(deal, rules)
            best, fastest = _brute_truncated(deal, rules)
            assert result.score == best, (str(deal), max_tricks)
            if best == 1:
                assert result.stats["tricks"] == fastest
            assert replay(rules, deal, result.plan).outcome(0) == best
            outcomes.add(best)
    assert {0, 1} <= outcomes  # the draw at max_tricks and the win within it both occur


def test_exact_search_of_a_truncated_game_stays_within_it() -> None:
    """The deal of the report: with max_tricks below the 18 tricks its win takes, the search looked
    through the whole game (millions of positions) for a win it could not count. It now looks no
    further than max_tricks: a few hundred positions, the draw proven."""
    for max_tricks in (5, 12, 17):
        rules = WarRules(ranks=6, suits=2, max_tricks=max_tricks)
        result = exact_solve("654256/347372", rules, max_positions=1000)
        assert result.score == 0 and result.stats["end_reason"] == "max_tricks"
        assert result.stats["tricks"] == max_tricks
    result = exact_solve("654256/347372", WarRules(ranks=6, suits=2, max_tricks=18), max_positions=1000)
    assert result.score == 1 and result.stats["tricks"] == 18

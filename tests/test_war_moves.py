"""War's move oracle: every pot card's value against brute force through the engine, plans replay,
losses add up to optimum minus score, evaluate --moves, and the settings it refuses."""

from __future__ import annotations

import builtins
import json
import random

import gymnasium as gym
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import NoMoveOracleError
from tabletop_gym.envs.war.rules import WarGame, WarRules, random_deal, replay
from tabletop_gym.oracles.war import horizon, search
from tabletop_gym.oracles.war.moves import WarMoves, replay_from
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.moves import move_oracle_factory


def _score(game: WarGame, tricks: int | None) -> int:
    return game.outcome(0) if tricks is None else game.state.horizon_cards(0)


def _brute_force(game: WarGame, tricks: int | None, known: dict) -> int:
    """The best score from ``game`` by trying every pot card at every decision through the engine;
    positions are remembered whole (both piles in order, the pot left, the tricks played)."""
    if game.done:
        return _score(game, tricks)
    s = game.state
    key = (tuple(s.piles[0]), tuple(s.piles[1]), tuple(sorted(s.to_place.elements())), s.tricks)
    if key not in known:
        best = None
        for rank in game.legal_actions():
            after = game.copy()
            after.apply(rank)
            value = _brute_force(after, tricks, known)
            best = value if best is None else max(best, value)
        known[key] = best
    return known[key]


# Tiny decks with a trick limit low enough for brute force; the whole game and horizons, each convention,
# with and without face-down cards in a war.
CASES = [
    (WarRules(ranks=4, suits=2, face_down=0, pickup="loser_first", max_tricks=10), None),
    (WarRules(ranks=3, suits=3, face_down=1, pickup="high_first", max_tricks=12), None),
    (WarRules(ranks=4, suits=2, face_down=1), 6),
    (WarRules(ranks=3, suits=3, face_down=0, pickup="loser_first"), 6),
]


@pytest.mark.parametrize(("rules", "tricks"), CASES)
def test_every_pot_card_value_matches_brute_force_on_tiny_decks(rules: WarRules, tricks: int | None) -> None:
    played = mid_pot = 0
    for seed in range(20):
        deal = random_deal(seed, rules)
        moves = WarMoves(deal, rules, tricks)
        game = replay(moves.engine_rules, deal, [])
        rng = random.Random(seed)
        known: dict = {}
        last_trick = -1
        while not game.done:
            mid_pot += game.state.tricks == last_trick  # the pot's first cards are placed already
            last_trick = game.state.tricks
            values = moves.at(game.choices)
            assert set(values.values) == set(game.legal_actions())
            for rank, value in values.values.items():
                after = game.copy()
                after.apply(rank)
                assert value == _brute_force(after, tricks, known), (str(deal), game.choices, rank)
            assert values.optimum == _brute_force(game, tricks, known) == max(values.values.values())
            # The engine replays the best plan from this position to exactly the optimum.
            assert _score(replay_from(game, values.plan), tricks) == values.optimum
            assert values.values[values.best] == values.optimum
            game.apply(rng.choice(game.legal_actions()))
            played += 1
    assert played > 20 and mid_pot > 0  # mid-game positions, mid-pot ones among them, were valued


@pytest.mark.parametrize("tricks", [None, 10])
def test_values_in_the_environment_add_up_and_start_at_the_oracles_optimum(tricks: int | None) -> None:
    rules = WarRules(ranks=6, suits=2)
    env = gym.make("tabletop/War-v0", ranks=6, suits=2, horizon=tricks)
    for seed in range(2):
        _, info = env.reset(seed=seed)
        deal = info["deal"]
        moves = WarMoves(deal, rules, tricks)
        solved = search.solve(deal, rules) if tricks is None else horizon.solve_horizon(deal, tricks, rules)
        optimum = solved.score
        rng = random.Random(seed)
        actions: list[int] = []
        lost = 0.0
        done = False
        while not done:
            values = moves.at_game(env.unwrapped.game)
            assert moves.at(actions) == values  # the environment's position, or the deal and its actions
            if not actions:
                assert values.optimum == optimum
            rank = rng.choice(sorted(values.values))
            lost += values.loss(rank)
            actions.append(rank)
            _, _, terminated, truncated, info = env.step(rank)
            done = terminated or truncated
        assert lost == optimum - info["score"]


def test_a_drawn_whole_game_is_valued_to_the_trick_limit() -> None:
    # Following the oracle's own plan on a deal whose best is a draw at the trick limit: every
    # decision optimal, every plan lasting to the limit, the last plan's tail reused and still right.
    rules = WarRules(ranks=4, suits=2, max_tricks=60)
    deal = "3342/4525"  # seed 0: no win, no both-out draw, a line that lasts 60 tricks
    result = search.solve(deal, rules)
    assert result.score == 0 and result.stats["end_reason"] == "max_tricks"
    moves = WarMoves(deal, rules)
    game = replay(rules, deal, [])
    while not game.done:
        values = moves.at(game.choices)
        assert values.optimum == 0 and values.loss(values.best) == 0
        assert _score(replay_from(game, values.plan), None) == 0
        game.apply(values.best)
    assert game.state.end_reason == "max_tricks"


def test_evaluate_moves_totals_equal_optimum_minus_score_on_every_deal(tmp_path, capsys) -> None:
    out = tmp_path / "moves"
    args = ["evaluate", "war", "--moves", "--ranks", "6", "--suits", "2", "--horizon", "12"]
    args += ["--agent", "random,greedy,oracle", "--episodes", "3", "--seed", "5"]
    assert main(args + ["--out", str(out), "--no-progress"]) == 0
    assert "blunders/game (>1)" in capsys.readouterr().out
    report = json.loads((out / "moves.json").read_text())
    rules = WarRules(ranks=6, suits=2)
    for name, entry in report["agents"].items():
        for game in entry["games"]:
            assert game["optimum"] == horizon.solve_horizon(game["deal"], 12, rules).score
            assert sum(game["losses"]) == game["optimum"] - game["score"], name
    assert report["agents"]["oracle"]["total_points_lost"] == 0
    assert report["agents"]["random"]["total_points_lost"] > 0


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"observation": "hidden"}, "full observation"),
        ({"pickup": "random"}, "fixed pickup convention"),
        ({"opponents": "greedy"}, "--opponents"),
        ({}, "at most 20 cards"),  # the whole game on the full deck
    ],
)
def test_settings_without_proven_move_values_are_refused(values, message) -> None:
    with pytest.raises(NoMoveOracleError, match=message):
        move_oracle_factory(get_game("war"), {"ranks": 6, "suits": 2, **values} if values else {})


def test_move_oracle_refuses_positions_that_are_not_a_play_of_the_deal() -> None:
    rules = WarRules(ranks=6, suits=2)
    deal = str(random_deal(1, rules))
    moves = WarMoves(deal, rules)
    legal = replay(rules, deal, []).legal_actions()
    missing = next(r for r in range(6) if r not in legal)
    with pytest.raises(ValueError, match="not a play of"):
        moves.at([missing])
    with pytest.raises(ValueError, match="game is over"):
        moves.at(list(search.solve(deal, rules).plan))
    with pytest.raises(ValueError, match="not legal here"):
        moves.at([]).loss(missing)
    other = random_deal(2, rules)
    with pytest.raises(ValueError, match="not of"):
        moves.at_game(WarGame(other, rules, controlled=0))
    with pytest.raises(ValueError, match="horizon"):
        WarMoves(deal, rules, horizon=0)


@pytest.mark.parametrize("review", ["each", "end"])
def test_play_review_names_the_cards_that_gave_something_away(review, monkeypatch, capsys) -> None:
    # Seed 2 with a 10-trick horizon: 2, then 5 (the best was 7: 6 cards held after 10 tricks, 0 with
    # the 5), then 2.
    answers = iter(["2", "5", "2"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    args = ["play", "war", "--ranks", "6", "--suits", "2", "--horizon", "10", "--seed", "2"]
    assert main(args + ["--review", review]) == 0
    out = capsys.readouterr().out
    line = "decision 2: 5 lost 6 (cards): with it at best 0, with 7 6"
    assert line in out and "decision 1" not in out and "decision 3" not in out
    if review == "end":
        assert out.index("cards that gave something away:") > out.index("result: you lost")
    else:
        assert out.index(line) < out.index("result: you lost")


def test_play_review_refuses_settings_without_move_values(capsys) -> None:
    args = ["play", "war", "--ranks", "6", "--suits", "2", "--observation", "hidden", "--review", "end"]
    assert main(args) == 2
    assert "full observation" in capsys.readouterr().err

"""Nmbr9's move oracle (small variants): every placement's value against a brute force through the
engine at positions of random plays, plans that replay, losses that add up to the optimum minus the
score (in the environment and in ``evaluate --moves``), ``play --review``, and refusals."""

from __future__ import annotations

import json
import random

import gymnasium as gym
import pytest
from test_nmbr9_cli import _script

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import NoMoveOracleError
from tabletop_gym.envs.nmbr9 import ENV_ID
from tabletop_gym.envs.nmbr9.rules import Nmbr9Rules, Nmbr9State, Variant, decode_action, random_deal, replay
from tabletop_gym.oracles import nmbr9 as oracle
from tabletop_gym.oracles.nmbr9 import search
from tabletop_gym.oracles.nmbr9.moves import Nmbr9Moves, replay_from
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.moves import move_oracle_factory

SMALL = ["--variant", "9-2-5", "--grid", "7", "--levels", "2"]  # suite nmbr9-small-v0's settings


def brute_force(state: Nmbr9State) -> int:
    """The most points still to score from ``state``: every legal placement of every card to the end,
    through the engine (which discards a card that fits nowhere)."""
    if state.done:
        return 0
    best = -1
    for action in state.legal_actions():
        after = state.copy()
        best = max(best, after.apply(action) + brute_force(after))
    return best


@pytest.mark.parametrize(
    ("variant", "grid", "levels", "seed", "after_discard"),
    [
        # A 5x5 board with 3 levels: cards that fit nowhere are discarded mid-game, and some
        # positions valued come after such a discard (``after_discard``).
        ("9-2-4", 5, 3, 0, True),
        ("9-2-4", 5, 3, 2, True),
        ("9-2-4", 5, 3, 8, False),
        ("6-2-4", 5, None, 7, True),  # no level limit
        ("6-2-4", 5, None, 5, False),
        ("9-1-3", 6, 2, 2, False),
        ("9-1-3", 6, 2, 5, False),
    ],
)
def test_every_placement_value_matches_brute_force(
    variant: str, grid: int, levels: int | None, seed: int, after_discard: bool
) -> None:
    rules = Nmbr9Rules(variant, grid, levels)
    deal = str(random_deal(seed, rules.variant))
    moves = Nmbr9Moves(deal, rules)
    rng = random.Random(seed)
    spread = discarded = 0
    for _ in range(3):  # every position of three random plays
        state = replay(rules, deal, ())
        while not state.done:
            values = moves.at_state(state)
            assert set(values.values) == set(state.legal_actions())
            for action, value in values.values.items():
                after = state.copy()
                assert value == after.apply(action) + brute_force(after), (deal, state.turn, action)
            assert values.optimum == brute_force(state) == max(values.values.values())
            assert replay_from(state, values.plan) == values.optimum == values.values[values.best]
            spread += len(set(values.values.values())) > 1
            discarded += state.discarded > 0
            state.apply(rng.choice(state.legal_actions()))
    assert spread  # positions where the placements differ in value: the test can tell them apart
    assert discarded > 0 or not after_discard


def test_the_search_from_a_position_is_the_search_from_the_start_there() -> None:
    # From the deal's start, the search held nowhere is solve_known itself; from a position, its plan
    # keeps the tiles already down and the total is the best over plays that share them.
    rules = Nmbr9Rules("9-2-5", 7, 2)
    for seed in range(4):
        deal = random_deal(seed, rules.variant)
        start = replay(rules, deal, ())
        assert search.solve_from(start).score == search.solve_known(deal, 7, 2).score
        rng = random.Random(seed)
        state = start.copy()
        state.apply(rng.choice(state.legal_actions()))
        state.apply(rng.choice(state.legal_actions()))
        result = search.solve_from(state)
        assert result.optimal and replay_from(state, result.plan) == result.score == brute_force(state)
        # The suite's settings, card 3 of 5: every placement's value too.
        values = Nmbr9Moves(str(deal), rules).at_state(state)
        for action, value in values.values.items():
            after = state.copy()
            assert value == after.apply(action) + brute_force(after)


@pytest.mark.parametrize("agent", ["random", "greedy", "oracle"])
def test_plans_replay_and_losses_add_up_in_the_environment(agent: str) -> None:
    # The deal in info from the start: the oracle's values see it (the player does not).
    env = gym.make(ENV_ID, max_value=9, copies=2, cards=5, grid=7, levels=2, reveal_deal=True)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        rules = Nmbr9Rules("9-2-5", 7, 2)
        optimum = oracle.solve(info["deal"], grid=7, levels=2, time_limit=8).score
        moves = Nmbr9Moves(info["deal"], rules)
        assert moves.optimum == optimum
        state = env.unwrapped.state
        rng = random.Random(seed)
        actions: list[int] = []
        lost = 0.0
        done = False
        while not done:
            values = moves.at_state(state)
            assert moves.at(actions) == values  # the environment's position, or the deal and its actions
            assert info["score"] + values.optimum <= optimum
            if agent == "oracle":
                action = values.best
            elif agent == "greedy":
                action = max(state.legal_actions(), key=state.points_if_placed)
            else:
                action = rng.choice(state.legal_actions())
            lost += values.loss(action)
            actions.append(action)
            _, _, done, _, info = env.step(action)
        assert lost == optimum - info["score"]
        if agent == "oracle":
            assert info["score"] == optimum


def test_evaluate_moves_totals_equal_optimum_minus_score_on_every_deal(tmp_path, capsys) -> None:
    out = tmp_path / "moves"
    args = ["evaluate", "nmbr9", *SMALL, "--moves", "--agent", "random,greedy,oracle", "--episodes", "3"]
    assert main(args + ["--seed", "5", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "optimal decisions" in printed and "blunders/game (>4)" in printed  # Nmbr9's default
    report = json.loads((out / "moves.json").read_text())
    assert report["blunder_above"] == 4
    for offset in range(3):
        deal = str(random_deal(5 + offset, Variant(9, 2, 5)))
        optimum = oracle.solve(deal, grid=7, levels=2, time_limit=8).score
        for name, entry in report["agents"].items():
            game = entry["games"][offset]
            assert game["deal"] == deal and game["optimum"] == optimum
            assert sum(game["losses"]) == optimum - game["score"], name
    for entry in report["agents"].values():
        total = sum(g["optimum"] - g["score"] for g in entry["games"])
        assert entry["total_points_lost"] == total
    assert report["agents"]["oracle"]["total_points_lost"] == 0
    assert report["agents"]["random"]["total_points_lost"] > 0


def test_settings_the_search_does_not_prove_are_refused(tmp_path, capsys) -> None:
    # The standard game (20 cards): the oracle only bounds it.
    args = ["evaluate", "nmbr9", "--moves", "--agent", "random", "--episodes", "1", "--out", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "move values where the exact search proves the optimum" in err and "9-2-20" in err
    assert not (tmp_path / "moves.json").exists()
    with pytest.raises(NoMoveOracleError, match="13 cards"):
        move_oracle_factory(get_game("nmbr9"), {"variant": "9-2-13", "grid": 10})
    # A deal whose search is not finished within the work limit: refused, never valued with a bound.
    with pytest.raises(NoMoveOracleError, match="does not prove"):
        Nmbr9Moves(str(random_deal(0, Variant(9, 2, 8))), Nmbr9Rules("9-2-8", 8, 3), time_limit=1e-6)


def test_positions_that_are_not_a_play_of_the_deal_are_refused() -> None:
    rules = Nmbr9Rules("9-2-4", 5, 3)
    deal = str(random_deal(1, rules.variant))
    moves = Nmbr9Moves(deal, rules)
    with pytest.raises(ValueError, match="not a play of"):
        moves.at([10**6])
    plan = list(moves.at([]).plan)
    with pytest.raises(ValueError, match="game is over"):
        moves.at(plan)
    with pytest.raises(ValueError, match="not legal here"):
        moves.at([]).loss(-1)
    other = str(random_deal(2, rules.variant))
    with pytest.raises(ValueError, match="not of"):
        moves.at_state(replay(rules, other, ()))
    with pytest.raises(ValueError, match="not of"):
        moves.at_state(replay(Nmbr9Rules("9-2-4", 6, 3), deal, ()))




@pytest.mark.parametrize("review", ["each", "end"])
def test_play_review_names_the_placements_that_lost_points_and_the_best(review, monkeypatch, capsys) -> None:
    # Seed 3 deals 86941: the 8 at row 3, column 0, then the 6 at row 0, column 3 beside it on the
    # table, which gives away 5 points (the best puts the 6 where the 9 can later cover it).
    _script(monkeypatch, ["3 0 0", "0 3 0", "quit"])
    assert main(["play", "nmbr9", *SMALL, "--seed", "3", "--review", review]) == 0
    out = capsys.readouterr().out
    line = "card 2: the 6 at row 0, column 3, turned 0 lost 5 points: with it at most 5 more points"
    assert line in out
    deal = "86941"
    moves = Nmbr9Moves(deal, Nmbr9Rules("9-2-5", 7, 2))
    state = replay(Nmbr9Rules("9-2-5", 7, 2), deal, ())
    state.apply(3 * 7)  # row 3, column 0
    values = moves.at_state(state)
    turns, row, col = decode_action(values.best, 7)
    assert f"at row {row}, column {col}, turned {turns}: {values.optimum:g}" in out
    if review == "end":
        assert out.index("placements that lost points:") > out.index("game stopped")
    else:
        assert out.index(line) < out.index("game stopped")


def test_play_review_refuses_a_variant_without_move_values(monkeypatch, capsys) -> None:
    _script(monkeypatch, [])
    assert main(["play", "nmbr9", "--seed", "1", "--review", "end"]) == 2
    assert "move values where the exact search proves the optimum" in capsys.readouterr().err

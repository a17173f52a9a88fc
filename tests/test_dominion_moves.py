"""Dominion's move oracle (solitaire, treasure game and Smithy): values against a brute force through
the engine near the end of a game (turn starts and mid-turn), plans that replay, losses that add up to
the optimum minus the score, and refusals."""

from __future__ import annotations

import argparse
import json

import gymnasium as gym
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.dominion import BOTS, BigMoney, play_game
from tabletop_gym.core import NoMoveOracleError
from tabletop_gym.envs.dominion import SOLITAIRE_ENV_ID
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles.dominion import solve
from tabletop_gym.oracles.dominion.moves import DominionMoves, replay_from
from tabletop_gym.training.games import get_game
from tabletop_gym.training.moves import move_oracle_factory, play_recorded, review_game

KINGDOMS = ("", "smithy")


def brute_force(state: R.DominionState) -> int:
    """Minus the fewest turns still to play, by trying every decision through the engine."""
    if state.done:
        return 0
    best = None
    for action in state.legal_actions():
        after = state.copy()
        after.apply(action)
        value = state.turns[0] - after.turns[0] + brute_force(after)
        best = value if best is None else max(best, value)
    return best


def bot_game(seed: int, kingdom: str, target: int) -> list[int]:
    bot = "smithy-big-money" if kingdom else "big-money"
    state = play_game([BOTS[bot]()], seed, R.parse_kingdom(kingdom), target=target, turn_limit=60)
    return [a for _, a in state.history]


def positions_near_end(actions: list[int], rules: R.DominionRules, seed: int, turn: int) -> list[list[int]]:
    """Histories of every decision of turn ``turn`` (counted from 0) in the game ``actions``: its
    turn start and the decisions inside it."""
    state = R.DominionState.start(rules, seed)
    histories = []
    for t, action in enumerate(actions):
        if state.turns[0] == turn:
            histories.append(actions[:t])
        elif state.turns[0] > turn:
            break
        state.apply(action)
    return histories


@pytest.mark.parametrize("kingdom", KINGDOMS)
@pytest.mark.parametrize("seed", [3, 8])
def test_values_equal_brute_force_near_the_end(kingdom: str, seed: int) -> None:
    # The last turns of a bot's game to 2 Provinces, each under a turn limit 3 turns on: some moves
    # reach the target in time, others lose a turn or are cut off by the limit (every kind of value).
    actions = bot_game(seed, kingdom, 2)
    turns = R.replay(R.DominionRules(1, kingdom, 2), seed, actions).turns[0]
    spread = False
    for start in range(turns - 3, turns):
        rules = R.DominionRules(1, kingdom, 2, start + 3)
        moves = DominionMoves(seed, 2, kingdom, turn_limit=start + 3)
        for history in positions_near_end(actions, rules, seed, start):
            state = R.replay(rules, seed, history)
            values = moves.at(history)
            for action, value in values.values.items():
                after = state.copy()
                after.apply(action)
                assert value == state.turns[0] - after.turns[0] + brute_force(after), (history, action)
            assert values.optimum == brute_force(state) == max(values.values.values())
            assert replay_from(state, values.plan) == values.optimum
            spread |= len(set(values.values.values())) > 1
    assert spread  # some position where the moves differ


@pytest.mark.parametrize("kingdom", KINGDOMS)
def test_optimum_at_the_start_is_the_oracles(kingdom: str) -> None:
    values = DominionMoves(5, 1, kingdom).at([])
    result = solve(5, 1, kingdom=kingdom)
    assert result.optimal and values.optimum == result.score
    state = R.replay(R.DominionRules(1, kingdom, 1, 60), 5, values.plan)
    assert state.done and state.owned[0][R.PROVINCE] == 1 and -state.turns[0] == values.optimum


@pytest.mark.parametrize("kingdom", KINGDOMS)
def test_losses_add_up_to_optimum_minus_score(kingdom: str) -> None:
    # Played through gym.make, under a short turn limit (a random agent runs into it).
    env = gym.make(SOLITAIRE_ENV_ID, target=1, kingdom=kingdom, turn_limit=10)
    for agent in (BigMoney(), RandomAgent()):
        for seed in (1, 2):
            score, deal, actions = play_recorded(env, agent, seed, None)
            moves = DominionMoves(deal, 1, kingdom, turn_limit=10)
            review = review_game(moves, actions, score)
            assert sum(review["losses"]) == review["optimum"] - score
            assert all(loss >= 0 for loss in review["losses"])
            assert review["optimum"] >= score


def test_a_move_that_wastes_turns_loses_them() -> None:
    # Passing with $8 in hand against the best buy: the pass gives at least one turn away.
    actions = bot_game(3, "", 1)
    moves = DominionMoves(3, 1, "")
    last = moves.at(actions[:-1])
    assert last.values[actions[-1]] == last.optimum == -1  # the Province that ends the game
    assert last.loss(R.PASS) >= 1


def test_refusals() -> None:
    with pytest.raises(NoMoveOracleError, match="treasure game and Smithy"):
        DominionMoves(1, 4, "first-game")
    moves = DominionMoves(1, 1, "")
    with pytest.raises(ValueError, match="not a play"):
        moves.at([R.PROVINCE])  # unaffordable on the first turn
    finished = bot_game(1, "", 1)
    with pytest.raises(ValueError, match="game is over"):
        moves.at(finished)
    with pytest.raises(ValueError, match="not of"):
        moves.at_state(R.DominionState.start(R.DominionRules(1, "", 1, 60), 2))
    with pytest.raises(ValueError, match="not legal"):
        moves.at([]).loss(R.PROVINCE)
    with pytest.raises(NoMoveOracleError, match="work limit"):
        DominionMoves(1, 4, "", work_limit=1).at([])
    spec = get_game("dominion")
    with pytest.raises(NoMoveOracleError, match="only bounds"):
        move_oracle_factory(spec, argparse.Namespace(kingdom="first-game"))
    with pytest.raises(NoMoveOracleError, match="solitaire"):
        move_oracle_factory(spec, argparse.Namespace(opponents="big-money"))
    assert move_oracle_factory(spec, argparse.Namespace(kingdom="smithy", target=1))("4").at([]).optimum < 0


def test_evaluate_moves_reports_the_turns_lost(tmp_path, capsys) -> None:
    from tabletop_gym.training.cli import main

    args = ["evaluate", "dominion", "--moves", "--target", "1", "--kingdom", "smithy", "--agent", "greedy",
            "--agent", "smithy-big-money", "--episodes", "2", "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    report = json.loads((tmp_path / "moves.json").read_text())
    for summary in report["agents"].values():
        lost = summary["mean_optimum"] - summary["mean_score"]
        assert summary["mean_points_lost_per_game"] == pytest.approx(lost)
    assert (tmp_path / "moves.png").exists() and "smithy-big-money" in capsys.readouterr().out

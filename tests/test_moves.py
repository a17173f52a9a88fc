"""The value of every move: Cribbage's move oracle against brute force, evaluate --moves, play --review."""

from __future__ import annotations

import argparse
import builtins
import dataclasses
import hashlib
import json
import random
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import NoMoveOracleError, OracleResult
from tabletop_gym.envs.cribbage.rules import CribbageRules, CribbageState, parse_deal, random_deal, replay
from tabletop_gym.oracles import cribbage
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.moves import evaluate_moves, move_oracle_factory, review_game


def _brute_force(state: CribbageState, known: dict | None = None) -> int:
    """The most points still to score from ``state``, by trying every play to the end through the
    engine; positions are remembered whole (the full stack, not what scoring can still see)."""
    if state.done:
        return 0
    known = {} if known is None else known
    key = (str(state.deal), tuple(state.heights), tuple(state.stack))
    if key not in known:
        best = 0
        for pile in state.legal_actions():
            after = state.copy()
            points = after.apply(pile)
            best = max(best, points + _brute_force(after, known))
        known[key] = best
    return known[key]


def _tiny_deal(seed: int, pile_size: int) -> str:
    return str(random_deal(seed, pile_size=pile_size))


@pytest.mark.parametrize("seed", range(3))
def test_every_move_value_matches_brute_force_on_tiny_deals(seed: int) -> None:
    # Piles of 2 to 4 cards: every position of a random play, every legal move, against every play.
    for pile_size in (2, 3, 4):
        deal = _tiny_deal(seed, pile_size)
        moves = cribbage.CribbageMoves(deal, threads=1)
        rng = random.Random(seed)
        state = CribbageState(parse_deal(deal, pile_size))
        known: dict = {}
        while not state.done:
            values = moves.at(state.history)
            assert set(values.values) == set(state.legal_actions())
            for pile, value in values.values.items():
                after = state.copy()
                assert value == after.apply(pile) + _brute_force(after, known), (deal, state.history, pile)
            assert values.optimum == _brute_force(state, known) == max(values.values.values())
            state.apply(rng.choice(state.legal_actions()))


def test_a_trap_mid_stack_is_valued_as_brute_force_does() -> None:
    # Pile 0 scores a fifteen now (5 on a T) but leaves the pair of 5s and 31 to nobody; positions
    # inside a stack are where the table alone cannot answer.
    deal = "T5/5T/5A/AA"
    moves = cribbage.CribbageMoves(deal, threads=1)
    state = CribbageState(parse_deal(deal, 2))
    state.apply(0)
    assert state.stack  # mid-stack
    values = moves.at(state.history)
    for pile, value in values.values.items():
        after = state.copy()
        assert value == after.apply(pile) + _brute_force(after)


def test_best_plans_replay_to_their_value_and_losses_add_up_in_the_environment() -> None:
    env = gym.make("tabletop/Cribbage-v0")
    _, info = env.reset(seed=7)
    moves = cribbage.CribbageMoves(info["deal"], threads=1)
    optimum = cribbage.solve(info["deal"], threads=1).score
    rng = random.Random(7)
    state = env.unwrapped.state
    actions: list[int] = []
    lost = 0.0
    done = False
    while not done:
        values = moves.at_state(state)
        assert moves.at(actions) == values  # the environment's position, or the deal and its actions
        # The engine replays the plan from this position to exactly the optimum claimed.
        assert cribbage.replay_from(state, values.plan) == values.optimum
        assert values.values[values.best] == values.optimum
        assert info["score"] + values.optimum <= optimum
        pile = rng.choice(state.legal_actions())
        lost += values.loss(pile)
        actions.append(pile)
        _, _, done, _, info = env.step(pile)
    assert lost == optimum - info["score"]
    assert moves.at([]).optimum == optimum


# What the move oracle answered, before its mid-stack search was compiled, at every position of
# full deals: sha256 (first 16 hex digits) of the JSON list of [optimum, sorted (move, value)
# pairs, plan] of each position, on the teacher's own game (its best moves: the positions imitation
# labels first) and on a random play (the positions a learner reaches), per deal seed.
PINNED_MOVE_VALUES = {
    (1, None): "b24c984f285ff4a4",
    (1, 0): "448dcf3ece0c538c",
    (2, None): "1d70f20170b90b21",
    (2, 1): "e4719514dbfb53e3",
}


@pytest.mark.parametrize("deal_seed", [1, 2])
def test_move_values_and_plans_on_full_deals_are_pinned(deal_seed: int) -> None:
    deal = random_deal(deal_seed)
    moves = cribbage.CribbageMoves(str(deal), threads=1)
    for play_seed, digest in PINNED_MOVE_VALUES.items():
        if play_seed[0] != deal_seed:
            continue
        rng = np.random.default_rng(play_seed[1])
        state = CribbageState(deal)
        rows = []
        while not state.done:
            values = moves.at_state(state)
            rows.append([values.optimum, sorted(values.values.items()), list(values.plan)])
            move = values.best if play_seed[1] is None else int(rng.choice(state.legal_actions()))
            state.apply(move)
        assert hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16] == digest, play_seed


def test_positions_asked_in_any_order_get_the_same_values() -> None:
    # ``at`` goes on from the position it reached last when the history extends it: going back, or
    # to another line of play, must start again from the deal.
    deal = _tiny_deal(4, 4)
    moves = cribbage.CribbageMoves(deal, threads=1)
    fresh = cribbage.CribbageMoves(deal, threads=1)
    history = list(cribbage.solve(deal).plan)
    other = history[:3] + [p for p in range(4) if p != history[3]][:1]
    for asked in (history[:8], history[:3], history[:9], other, [], history[:3], history[:12]):
        try:
            expected = fresh.at(asked)
        except ValueError:
            with pytest.raises(ValueError, match="not a play of"):
                moves.at(asked)
            continue
        assert moves.at(asked) == expected
        assert moves.at_state(replay(CribbageRules(), deal, asked)) == expected
    with pytest.raises(ValueError, match="not a play of"):
        moves.at(history[:3] + [9])
    assert moves.at(history[:4]) == fresh.at(history[:4])  # the failed play left nothing behind


def test_evaluate_moves_totals_equal_optimum_minus_score_on_every_deal(tmp_path, capsys) -> None:
    out = tmp_path / "moves"
    args = ["evaluate", "cribbage", "--moves", "--agent", "random,greedy,oracle", "--episodes", "2"]
    assert main(args + ["--seed", "3", "--blunder", "3", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "optimal decisions" in printed and "blunders/game (>3)" in printed
    report = json.loads((out / "moves.json").read_text())
    assert (out / "moves.png").stat().st_size > 0
    assert report["blunder_above"] == 3
    for seed_offset in range(2):
        optimum = cribbage.solve(str(random_deal(3 + seed_offset)), threads=1).score
        for name, entry in report["agents"].items():
            game = entry["games"][seed_offset]
            assert game["optimum"] == optimum
            assert sum(game["losses"]) == optimum - game["score"], name
            assert replay(CribbageRules(), game["deal"], []).score == 0
    for entry in report["agents"].values():
        games = entry["games"]
        total = sum(g["optimum"] - g["score"] for g in games)
        assert entry["total_points_lost"] == total
        assert entry["mean_points_lost_per_game"] == total / len(games)
        assert sum(entry["points_lost_per_game_by_tenth"]) == pytest.approx(total / len(games))
        losses = [x for g in games for x, c in zip(g["losses"], g["choices"], strict=True) if c > 1]
        assert entry["blunders"] == sum(x > 3 for x in (y for g in games for y in g["losses"]))
        assert entry["decisions"] == len(losses)
        assert sum(entry["loss_counts"].values()) == len(losses)
    oracle = report["agents"]["oracle"]
    assert oracle["share_optimal_decisions"] == 1.0 and oracle["total_points_lost"] == 0
    assert report["agents"]["random"]["total_points_lost"] > 0


def test_review_refuses_losses_that_do_not_add_up() -> None:
    deal = _tiny_deal(1, 2)
    moves = cribbage.CribbageMoves(deal, threads=1)
    plan = list(cribbage.solve(deal).plan)
    score = replay(CribbageRules(), deal, plan).score
    assert sum(review_game(moves, plan, score)["losses"]) == 0
    with pytest.raises(AssertionError, match="add up"):
        review_game(moves, plan, score - 1)


def test_move_oracle_refuses_positions_that_are_not_a_play_of_the_deal() -> None:
    deal = "T5/5T/5A/AA"
    moves = cribbage.CribbageMoves(deal, threads=1)
    with pytest.raises(ValueError, match="not a play of"):
        moves.at([0, 0, 0])  # pile 0 has two cards
    with pytest.raises(ValueError, match="game is over"):
        moves.at(list(cribbage.solve(deal).plan))
    with pytest.raises(ValueError, match="not legal here"):
        moves.at([]).loss(7)
    with pytest.raises(ValueError, match="not of"):
        moves.at_state(CribbageState(parse_deal("5T/T5/5A/AA", 2)))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--blunder", "2"], "--blunder is an option of --moves"),
        (["--moves", "--ray"], "--ray does not apply"),
    ],
)
def test_bad_moves_options_are_clear_errors(extra, message, tmp_path, capsys) -> None:
    args = ["evaluate", "cribbage", "--agent", "random", "--episodes", "1", "--out", str(tmp_path)]
    assert main(args + extra) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "moves.json").exists()


@pytest.mark.parametrize("blunder", ["0", "-1", "nan"])
def test_a_blunder_threshold_must_be_a_positive_number(blunder, tmp_path, capsys) -> None:
    args = ["evaluate", "cribbage", "--moves", "--agent", "random", "--out", str(tmp_path)]
    with pytest.raises(SystemExit) as stop:
        main(args + ["--blunder", blunder])
    assert stop.value.code == 2 and "--blunder" in capsys.readouterr().err


def test_moves_of_a_game_without_a_move_oracle_is_a_clear_error(tmp_path, capsys, monkeypatch) -> None:
    # Every game now has move values in some settings: a game made without them (Modern Art's spec
    # with no MoveReview) stands in for one that has none.
    from tabletop_gym.training.games import modern_art

    monkeypatch.setattr(modern_art, "SPEC", dataclasses.replace(modern_art.SPEC, moves=None))
    args = ["evaluate", "modern_art", "--moves", "--agent", "random", "--episodes", "1"]
    args += ["--out", str(tmp_path)]
    assert main(args) == 2
    assert "modern_art has no move values" in capsys.readouterr().err
    monkeypatch.undo()
    # With its move oracle, settings it does not prove (the whole game) are refused as clearly.
    assert main(args) == 2
    assert "one-round games (--rounds 1)" in capsys.readouterr().err
    with pytest.raises(NoMoveOracleError):
        move_oracle_factory(get_game("dominion"), {"kingdom": "first-game"})  # a kingdom only bounded


@pytest.mark.parametrize("review", ["each", "end"])
def test_play_review_names_the_moves_that_lost_points_and_the_best(review, monkeypatch, capsys) -> None:
    # Seed 3: piles 0, 1, 2, 3, 0, then quit; the 5th move gives away 7 points, pile 1 was best.
    answers = iter(["0", "1", "2", "3", "0", "quit"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    assert main(["play", "cribbage", "--seed", "3", "--review", review]) == 0
    out = capsys.readouterr().out
    assert "move 5: pile 0 lost 7 points" in out and "with pile 1 93" in out
    if review == "end":
        assert out.index("moves that lost points:") > out.index("stopped: you scored")
    else:
        assert out.index("move 5: pile 0 lost 7 points") < out.index("stopped: you scored")


class _StoredSuite:
    """A suite's face as evaluate reads it: its deals and a stored optimum for each."""

    id, checksum = "cribbage-test", "0"

    def __init__(self, deal: str, optimum: int, score: int | None = None) -> None:
        self.entries = [SimpleNamespace(seed=0, deal=deal)]
        self._optimum = optimum
        self._score = optimum if score is None else score  # below the bound: a suite entry not proven

    def __len__(self) -> int:
        return len(self.entries)

    def result(self, deal: str) -> OracleResult:
        return OracleResult(score=self._score, bound=self._optimum, plan=())


def test_on_a_suite_the_move_oracle_must_agree_with_its_stored_optimum() -> None:
    spec = get_game("cribbage")
    deal = str(random_deal(11))
    optimum = cribbage.solve(deal, threads=1).score
    args = argparse.Namespace()
    stored = _StoredSuite(deal, optimum)
    report = evaluate_moves(spec, ["greedy"], None, None, args, progress=False, suite=stored)
    assert report["suite"]["id"] == "cribbage-test"
    assert report["agents"]["greedy"]["games"][0]["optimum"] == optimum
    with pytest.raises(AssertionError, match="disagrees with suite cribbage-test's optimum"):
        evaluate_moves(
            spec, ["greedy"], None, None, args, progress=False, suite=_StoredSuite(deal, optimum + 1)
        )
    # An entry the suite only bounds: a proven optimum under its bound agrees, one above it cannot be.
    loose = _StoredSuite(deal, optimum + 1, score=optimum - 3)
    assert evaluate_moves(spec, ["greedy"], None, None, args, progress=False, suite=loose)["agents"]
    with pytest.raises(AssertionError, match="disagrees with suite cribbage-test's bound"):
        beaten = _StoredSuite(deal, optimum - 1, optimum - 2)
        evaluate_moves(spec, ["greedy"], None, None, args, progress=False, suite=beaten)

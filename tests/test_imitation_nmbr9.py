"""Imitation of Nmbr9's best policy of what the seat sees (train nmbr9 --teacher policy).

The labels are checked against a plain expectimax over the engine's game tree (no memo, no
symmetry), on a variant small enough for it (1-3-4 on a 5x5 grid, two levels)."""

from __future__ import annotations

import json
from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.envs.nmbr9.rules import Deal, Nmbr9Rules, replay
from tabletop_gym.oracles.nmbr9.unknown import draw_orders, solve_unknown
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.imitation import (
    STATE,
    Data,
    ImitationOptions,
    PolicyTeacher,
    play,
    train_imitation,
)

TINY = {"variant": "1-3-4", "grid": 5, "levels": 2}
DECK = [0, 0, 0, 1, 1, 1]  # 1-3-4: values 0 and 1, three copies each; 4 of the 6 are drawn


def _env() -> gym.Env:
    return gym.make("tabletop/Nmbr9-v0", max_value=1, copies=3, cards=4, grid=5, levels=2)


def _move_values(drawn: tuple[int, ...], actions: tuple[int, ...]) -> dict[int, Fraction]:
    """Each legal placement of the last card of ``drawn`` after ``actions``: its points plus the
    expectimax of the points to come, over the whole game tree of the engine's own moves."""
    rules = Nmbr9Rules(grid=TINY["grid"], levels=TINY["levels"])
    left = list(DECK)
    for v in drawn:
        left.remove(v)

    def to_come(drawn: tuple[int, ...], actions: tuple[int, ...], left: list[int]) -> Fraction:
        if len(drawn) == 4:
            return Fraction(0)
        total = Fraction(0)
        for v in sorted(set(left)):
            rest = list(left)
            rest.remove(v)
            state = replay(rules, Deal(drawn + (v,)), list(actions))
            if state.done:  # the card fits nowhere: discarded
                best = to_come(drawn + (v,), actions, rest)
            else:
                best = max(state.copy().apply(int(a)) + to_come(drawn + (v,), actions + (int(a),), rest)
                           for a in np.flatnonzero(state.action_mask()))
            total += Fraction(left.count(v), len(left)) * best
        return total

    state = replay(rules, Deal(drawn), list(actions))
    return {int(a): state.copy().apply(int(a)) + to_come(drawn, actions + (int(a),), left)
            for a in np.flatnonzero(state.action_mask())}


def test_labels_are_the_expectimax_best_moves_where_the_learner_goes() -> None:
    spec = get_game("nmbr9")
    env = _env()
    teacher = PolicyTeacher(spec, spec.read(TINY), env)
    assert teacher.reference == float(solve_unknown("1-3-4", 5, 2).expected) > 0
    rng = np.random.default_rng(5)
    checked = ties = 0
    for deal in ("0101", "1100", "0011"):
        data = Data()
        # A random learner: the positions are not only those the teacher's own play reaches.
        obs, info = env.reset(options={"deal": deal})
        teacher.start(info)
        actions: list[int] = []
        done = False
        while not done:
            optimal, best, value = teacher.label(obs, info, actions)
            data.add(obs, info["action_mask"], optimal)
            drawn = deal[: env.unwrapped.state.turn + 1]  # a card that fits nowhere was discarded
            truth = _move_values(tuple(int(c) for c in drawn), tuple(actions))
            top = max(truth.values())
            assert sorted(np.flatnonzero(optimal)) == sorted(a for a, v in truth.items() if v == top)
            assert sorted(np.flatnonzero(info["action_mask"])) == sorted(truth)
            assert optimal[best] and value == float(top)
            checked += 1
            ties += int(optimal.sum() > 1)
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            teacher.played(obs, info, action)
            actions.append(action)
            obs, _, done, _, info = env.step(action)
        assert checked and not np.array_equal(data.optimal[0], data.legal[0])  # the labels choose
    assert checked >= 9 and ties > 0


def test_the_teacher_plays_the_best_policy() -> None:
    """Its own games average the expected value: over every order of 1-3-4 (equally likely deals
    of the multiset, weighted by how many orders of the deck give them)."""
    spec = get_game("nmbr9")
    env = _env()
    teacher = PolicyTeacher(spec, spec.read(TINY), env)

    total = Fraction(0)
    for order, p in draw_orders(spec.read(TINY).rules.variant):
        total += p * int(_play_deal(env, teacher, "".join(map(str, order))))
    assert total == solve_unknown("1-3-4", 5, 2).expected


def _play_deal(env: gym.Env, teacher: PolicyTeacher, deal: str) -> float:
    """The teacher's own game of ``deal`` (``play`` draws deals from seeds; here every order)."""
    obs, info = env.reset(options={"deal": deal})
    teacher.start(info)
    score, done, history = 0.0, False, []
    while not done:
        _, best, _ = teacher.label(obs, info, history)
        teacher.played(obs, info, best)
        history.append(best)
        obs, reward, done, _, info = env.step(best)
        score += reward
    return score


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # Nmbr9's move values would see the cards to come: the oracle is no teacher there.
        (["train", "nmbr9", "--teacher", "oracle"], "--teacher policy follows its best policy"),
        (["train", "cribbage", "--teacher", "policy"], "--teacher oracle is its best policy"),
        (["train", "modern_art", "--teacher", "policy"], "computes no best policy of what the modern_art"),
        (["train", "nmbr9", "--teacher", "policy", "--variant", "6-2-5", "--grid", "6", "--max-positions",
          "1000"], "beyond the best policy's exact search"),
    ],
)
def test_settings_without_the_best_policy_are_refused(args, message, tmp_path, capsys) -> None:
    assert main(args + ["--out", str(tmp_path / "run"), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())


def test_a_tiny_run_trains_resumes_and_reports_the_expected_value(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    spec = get_game("nmbr9")
    options = ImitationOptions(teacher="policy", iterations=1, deals=4, epochs=2)
    train_imitation(spec, options, 0, out, TINY, progress=False)
    state = json.loads((out / STATE).read_text())
    assert state["iterations_done"] == 2
    expected = float(solve_unknown("1-3-4", 5, 2).expected)
    point = state["curve"][1]
    assert point["mean_optimum"] == pytest.approx(expected)  # divided by the expected value, every deal
    assert point["score_ratio"] == pytest.approx(point["mean_score"] / expected)
    before = state["positions"]
    train_imitation(spec, ImitationOptions(teacher="policy", iterations=2, deals=4, epochs=2), 0, out, TINY,
                    progress=False, resume=True)
    state = json.loads((out / STATE).read_text())
    assert [p["iteration"] for p in state["curve"]] == [0, 1, 2]
    assert before < state["positions"] == len(Data.load(out / "imitation_data.npz"))
    config = json.loads((out / "config.json").read_text())
    assert config["teacher"]["teacher"] == "policy" and config["resumed_at_iteration"] == 2
    assert config["env_kwargs"]["grid"] == 5 and (out / "model.zip").is_file()
    # The command line says what the curve divides by.
    args = ["train", "nmbr9", "--teacher", "policy", "--variant", "1-3-4", "--grid", "5", "--levels", "2",
            "--iterations", "1", "--deals", "2", "--epochs", "1", "--out", str(tmp_path / "cli")]
    assert main(args + ["--no-progress"]) == 0
    assert "iteration   1: score/expected value" in capsys.readouterr().out


def test_play_labels_every_position_of_the_learners_game() -> None:
    spec = get_game("nmbr9")
    env = _env()
    teacher = PolicyTeacher(spec, spec.read(TINY), env)
    data = Data()
    rng = np.random.default_rng(1)
    def random_act(obs, info):
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    _, reference = play(env, teacher, 3, random_act, data)
    assert reference == teacher.reference and 1 <= len(data) <= 4
    assert all(o.any() and not (o & ~legal).any() for o, legal in zip(data.optimal, data.legal, strict=True))

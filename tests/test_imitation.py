"""Imitation training with the oracle as teacher (train --teacher oracle): labels, learning, resume, errors.

The learning tests play Cribbage on small deals (3 cards a pile), whose oracle answers at once."""

from __future__ import annotations

import dataclasses
import json

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.agents import load_policy
from tabletop_gym.core import NoMoveOracleError
from tabletop_gym.oracles.cribbage import CribbageMoves
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.imitation import (
    CHECKPOINT,
    STATE,
    Data,
    ImitationOptions,
    Teacher,
    curve_ratio,
    deal_seeds,
    play,
    train_imitation,
)

PILE_SIZE = 3


def _small_cribbage():
    """Cribbage's spec with an environment of small deals (the command line always deals 13 a pile)."""
    return dataclasses.replace(get_game("cribbage"), env_kwargs=lambda settings: {"pile_size": PILE_SIZE})


def _score_ratio(agent_act, seeds) -> float:
    """Total score over total optimum of ``agent_act`` on the small deals of ``seeds``."""
    env = gym.make("tabletop/Cribbage-v0", pile_size=PILE_SIZE)
    score = optimum = 0.0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        optimum += CribbageMoves(info["deal"], threads=1).at([]).optimum
        done = False
        while not done:
            obs, reward, done, _, info = env.step(agent_act(obs, info))
            score += reward
    return score / optimum


def test_teacher_labels_are_the_move_oracles_optimal_moves() -> None:
    spec = get_game("cribbage")
    env = gym.make("tabletop/Cribbage-v0", pile_size=4)
    teacher = Teacher(spec, spec.read({}), env)
    data = Data()
    score, optimum = play(env, teacher, 7, None, data)
    # The teacher plays its best moves: it reaches the optimum, which the oracle proves from the start.
    deal = env.unwrapped.state.deal
    moves = CribbageMoves(str(deal), threads=1)
    assert score == optimum == moves.at([]).optimum
    history = list(env.unwrapped.state.history)
    assert len(data) == len(history) == 16
    for step, (legal, optimal) in enumerate(zip(data.legal, data.optimal, strict=True)):
        values = moves.at(history[:step])
        assert sorted(np.flatnonzero(legal)) == sorted(values.values)
        best = sorted(a for a, v in values.values.items() if v == values.optimum)
        assert sorted(np.flatnonzero(optimal)) == best
        assert optimal[values.best] and optimal[history[step]]
    # Ties exist (several optimal moves somewhere), so the loss that accepts them all matters.
    assert any(o.sum() > 1 for o in data.optimal)


def test_deal_seeds_are_fresh_every_iteration_and_fixed_by_the_seed() -> None:
    assert deal_seeds(0, 1, 5) == deal_seeds(0, 1, 5)
    assert not set(deal_seeds(0, 1, 5)) & set(deal_seeds(0, 2, 5))
    assert deal_seeds(0, 1, 5) != deal_seeds(1, 1, 5)


def test_a_few_dagger_iterations_beat_random_and_load_as_a_model(tmp_path) -> None:
    out = tmp_path / "run"
    options = ImitationOptions(iterations=2, deals=12, epochs=6, batch_size=128)
    path = train_imitation(_small_cribbage(), options, 0, out, {}, progress=False)
    config = json.loads((out / "config.json").read_text())
    assert config["teacher"]["iterations"] == 2 and config["iterations_done"] == 3
    assert config["env_kwargs"] == {"pile_size": PILE_SIZE} and config["algorithm"] == "MaskablePPO"
    curve = json.loads((out / "imitation_curve.json").read_text())
    assert [p["iteration"] for p in curve] == [0, 1, 2]
    assert (out / "imitation_curve.png").stat().st_size > 0
    agent = load_policy(path)  # as evaluate loads a run folder's model
    rng = np.random.default_rng(0)
    seeds = range(500, 530)

    def random_act(obs, info):
        return int(rng.choice(np.flatnonzero(info["action_mask"])))

    learned = _score_ratio(agent.act, seeds)
    assert learned > _score_ratio(random_act, seeds) + 0.1


def test_evaluate_plays_an_imitation_model(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    train_imitation(get_game("cribbage"), ImitationOptions(iterations=1, deals=1, epochs=1), 0, out, {},
                    progress=False)
    report = tmp_path / "evaluate"
    args = ["evaluate", "cribbage", "--agent", str(out), "--episodes", "1", "--out", str(report)]
    assert main(args + ["--no-progress"]) == 0
    assert "run" in capsys.readouterr().out


def test_resume_continues_the_iterations_and_keeps_the_data(tmp_path) -> None:
    out = tmp_path / "run"
    spec = _small_cribbage()
    train_imitation(spec, ImitationOptions(iterations=1, deals=3, epochs=1), 0, out, {}, progress=False)
    state = json.loads((out / STATE).read_text())
    assert state["iterations_done"] == 2 and (out / CHECKPOINT).is_file()
    before = state["positions"]
    train_imitation(spec, ImitationOptions(iterations=3, deals=3, epochs=1), 0, out, {}, progress=False,
                    resume=True)
    state = json.loads((out / STATE).read_text())
    assert state["iterations_done"] == 4
    assert [p["iteration"] for p in state["curve"]] == [0, 1, 2, 3]
    assert state["positions"] == before + 2 * 3 * 4 * PILE_SIZE
    assert len(Data.load(out / "imitation_data.npz")) == state["positions"]
    config = json.loads((out / "config.json").read_text())
    assert config["resumed_at_iteration"] == 2
    with pytest.raises(ValueError, match="ask for more with --iterations"):
        train_imitation(spec, ImitationOptions(iterations=3, deals=3, epochs=1), 0, out, {}, progress=False,
                        resume=True)


def test_the_command_line_trains_with_the_teacher(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    args = ["train", "cribbage", "--teacher", "oracle", "--iterations", "1", "--deals", "1", "--epochs", "1"]
    assert main(args + ["--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "iteration   1: score/optimum" in printed and (out / "model.zip").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # Modern Art has move values on one round, but they see every hand, which its player does not.
        (["train", "modern_art", "--teacher", "oracle", "--rounds", "1"],
         "the modern_art player does not see the whole deal"),
        # Dominion has move values, but they see the deal's shuffles, which its player does not.
        (["train", "dominion", "--teacher", "oracle"], "the dominion player does not see the whole deal"),
        (["train", "cribbage", "--iterations", "3"], "--iterations is an option of --teacher"),
        (["train", "war", "--teacher", "oracle", "--self-play"], "choose one"),
        # War's hidden observation: the oracle's orders depend on cards the seat has not seen.
        (["train", "war", "--teacher", "oracle", "--observation", "hidden"],
         "the war player does not see the whole deal"),
    ],
)
def test_bad_teacher_options_are_clear_errors(args, message, tmp_path, capsys) -> None:
    assert main(args + ["--out", str(tmp_path / "run"), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run" / "model.zip").exists()


def test_a_game_without_a_move_oracle_has_no_teacher(tmp_path, capsys, monkeypatch) -> None:
    # Every game now has move values in some settings: Modern Art's spec made without them stands in
    # for a game that has none.
    from tabletop_gym.training.games import modern_art

    monkeypatch.setattr(modern_art, "SPEC", dataclasses.replace(modern_art.SPEC, moves=None))
    args = ["train", "modern_art", "--teacher", "oracle", "--out", str(tmp_path / "run"), "--no-progress"]
    assert main(args) == 2
    assert "modern_art has no move oracle" in capsys.readouterr().err
    assert not (tmp_path / "run" / "model.zip").exists()


def test_a_teacher_the_learner_cannot_follow_is_refused() -> None:
    spec = dataclasses.replace(get_game("cribbage"))
    env = gym.make("tabletop/Cribbage-v0", pile_size=PILE_SIZE)
    env.unwrapped.deal_is_public = False  # a seat that does not see the whole deal
    with pytest.raises(ValueError, match="cannot follow"):
        Teacher(spec, spec.read({}), env)
    with pytest.raises(NoMoveOracleError):
        without = dataclasses.replace(get_game("modern_art"), moves=None)  # a game with no move oracle
        Teacher(without, without.read({}), env)
    with pytest.raises(ValueError, match="unknown teacher"):
        ImitationOptions(teacher="hindsight")


def test_ctrl_c_keeps_the_last_iterations_checkpoint_and_resume_goes_on(tmp_path, monkeypatch) -> None:
    from tabletop_gym.training import imitation

    out = tmp_path / "run"
    spec = _small_cribbage()
    fits = []
    real_fit = imitation.fit

    def interrupted_fit(*args, **kwargs):
        fits.append(1)
        if len(fits) == 2:  # Ctrl-C while the second iteration trains
            raise KeyboardInterrupt
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(imitation, "fit", interrupted_fit)
    options = ImitationOptions(iterations=2, deals=2, epochs=1)
    with pytest.raises(KeyboardInterrupt, match="after 1 imitation iterations"):
        train_imitation(spec, options, 0, out, {}, progress=False)
    assert json.loads((out / STATE).read_text())["iterations_done"] == 1
    config = json.loads((out / "config.json").read_text())
    assert config["interrupted"] is True and not (out / "model.zip").exists()
    monkeypatch.setattr(imitation, "fit", real_fit)
    train_imitation(spec, options, 0, out, {}, progress=False, resume=True)
    state = json.loads((out / STATE).read_text())
    assert [p["iteration"] for p in state["curve"]] == [0, 1, 2] and (out / "model.zip").is_file()


def test_shuffled_piles_are_the_same_position_with_the_same_optimal_moves() -> None:
    # Each shuffled row must be the environment's own observation of the deal with its piles in
    # some order, after the same moves so reordered, and its optimal moves the move oracle's there.
    from itertools import permutations

    from tabletop_gym.envs.cribbage.env import shuffle_piles

    pile_size = 4
    env = gym.make("tabletop/Cribbage-v0", pile_size=pile_size)
    teacher = Teacher(get_game("cribbage"), get_game("cribbage").read({}), env)
    data = Data()
    rng = np.random.default_rng(3)
    play(env, teacher, 11, lambda obs, info: int(rng.choice(np.flatnonzero(info["action_mask"]))), data)
    deal = env.unwrapped.state.deal
    history = list(env.unwrapped.state.history)
    arrays = data.arrays()
    shuffled, (legal, optimal) = shuffle_piles(arrays["obs"], [arrays["legal"], arrays["optimal"]],
                                               np.random.default_rng(0))
    orders_seen = set()
    for step in range(len(history)):
        matches = []
        for order in permutations(range(4)):  # new pile i is the old pile order[i]
            text = "/".join(str(deal).split("/")[old] for old in order)
            obs, info = env.reset(options={"deal": text})
            moves = [order.index(pile) for pile in history[:step]]
            for pile in moves:
                obs, _, _, _, info = env.step(pile)
            if np.array_equal(obs, shuffled[step]):
                matches.append((order, text, moves, info))
        assert matches, step
        order, text, moves, info = matches[0]
        orders_seen.add(order)
        assert np.array_equal(legal[step], info["action_mask"].astype(bool))
        values = CribbageMoves(text, threads=1).at(moves)
        assert sorted(np.flatnonzero(optimal[step])) == sorted(
            a for a, v in values.values.items() if v == values.optimum)
    assert len(orders_seen) > 1  # the order really changes, row by row
    with pytest.raises(ValueError, match="rows of 65"):
        shuffle_piles(arrays["obs"][:, :60], [arrays["legal"]], rng)


def test_training_relabels_every_batch_by_the_games_symmetry_unless_told_not_to(tmp_path, capsys) -> None:
    from tabletop_gym.envs.cribbage.env import shuffle_piles

    calls = []

    def counted(observations, masks, rng):
        calls.append(len(observations))
        return shuffle_piles(observations, masks, rng)

    spec = dataclasses.replace(_small_cribbage(), symmetry=counted)
    options = ImitationOptions(iterations=1, deals=2, epochs=2, batch_size=8)
    train_imitation(spec, options, 0, tmp_path / "on", {}, progress=False)
    positions = json.loads((tmp_path / "on" / STATE).read_text())["curve"]
    # Every position of every pass: iteration 0 on its positions, iteration 1 on all of them.
    assert sum(calls) == 2 * (positions[0]["positions"] + positions[1]["positions"])
    calls.clear()
    off = dataclasses.replace(options, symmetry=False)
    train_imitation(spec, off, 0, tmp_path / "off", {}, progress=False)
    assert calls == []
    out = tmp_path / "cli"
    args = ["train", "cribbage", "--teacher", "oracle", "--iterations", "1", "--deals", "1", "--epochs", "1"]
    assert main(args + ["--no-symmetry", "--out", str(out), "--no-progress"]) == 0
    assert json.loads((out / "config.json").read_text())["teacher"]["symmetry"] is False
    capsys.readouterr()
    assert main(["train", "cribbage", "--no-symmetry", "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "--no-symmetry is an option of --teacher" in capsys.readouterr().err


# War with the full observation (the seat sees both piles): the move oracle is a teacher it can follow.
# Eight cards and a short trick limit keep every search and every learner's game (a cycle ends at the
# limit, a draw) small.
WAR_TINY = {"ranks": 4, "suits": 2, "max_tricks": 200, "observation": "full"}


def test_war_learner_clones_the_oracles_moves_on_the_positions_it_saw(tmp_path) -> None:
    from tabletop_gym.oracles.war.moves import WarMoves

    spec = get_game("war")
    settings = spec.read(WAR_TINY)
    env_id, env_kwargs = spec.environment(settings)
    env = gym.make(env_id, **env_kwargs)
    data = Data()
    score, optimum = play(env, Teacher(spec, settings, env), 3, None, data)
    assert score == optimum  # the teacher's own game reaches the deal's optimum
    deal, history = env.unwrapped.game.deal, list(env.unwrapped.game.choices)
    moves = WarMoves(str(deal), settings.rules)
    for step, optimal in enumerate(data.optimal):
        values = moves.at(history[:step])
        assert sorted(np.flatnonzero(optimal)) == sorted(a for a, v in values.values.items()
                                                         if v == values.optimum)

    out = tmp_path / "run"
    options = ImitationOptions(iterations=1, deals=4, clone_deals=40, epochs=30)
    path = train_imitation(spec, options, 0, out, WAR_TINY, progress=False)
    curve = json.loads((out / "imitation_curve.json").read_text())
    assert [p["deals"] for p in curve] == [40, 44]  # behaviour cloning on its own number of deals
    seen = Data.load(out / "imitation_data.npz")
    agent = load_policy(path)
    chosen = [(agent.act(obs, {"action_mask": legal}), optimal)
              for obs, legal, optimal in zip(seen.obs, seen.legal, seen.optimal, strict=True)
              if legal.sum() > 1 and not optimal.all()]  # a real choice, where a move can be wrong
    assert len(chosen) > 20
    followed = np.mean([optimal[action] for action, optimal in chosen])
    assert followed > 0.9, f"the learner picks an optimal move in {followed:.0%} of the positions it saw"


def test_the_curve_counts_a_war_loss_as_nothing() -> None:
    # War's whole game: -1 a loss, 0 a draw, 1 a win; the worst score is the scale's zero, as in evaluate.
    assert curve_ratio([-1.0, 0.0, 1.0], [1.0, 1.0, 0.0], -1.0) == pytest.approx(3 / 5)
    assert curve_ratio([-1.0], [-1.0], -1.0) == 1.0  # a deal lost whatever the play
    assert curve_ratio([2.0, 4.0], [4.0, 4.0]) == pytest.approx(0.75)  # no worst score: score / optimum

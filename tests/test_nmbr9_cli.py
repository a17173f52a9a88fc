"""Nmbr9 on the command line: solve, evaluate, play, bench."""

from __future__ import annotations

import builtins
import json

import pytest
from test_nmbr9_oracle import exhaustive

from tabletop_gym.envs.nmbr9.rules import (
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    decode_action,
    encode_action,
    replay,
)
from tabletop_gym.training.cli import main


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def _plan(out: str, grid: int) -> list[int]:
    """The printed plan's actions, placed cards only (a card the rules discard is printed
    'discarded', in the free draft 'V@discarded')."""
    words = [w for w in out.split("plan")[1].split("(")[0].split() if not w.endswith("discarded")]
    return [encode_action(*(int(x) for x in w.split("@")[-1][1:].split("/")), grid=grid) for w in words]


def test_solve_proves_a_small_deal_and_prints_a_plan_that_replays(capsys) -> None:
    args = ["solve", "nmbr9", "--variant", "9-2-4", "--deal", "1277", "--grid", "6", "--time-limit", "20"]
    assert main(args) == 0
    out = capsys.readouterr().out
    truth = exhaustive(Deal((1, 2, 7, 7)), 6)
    assert f"score    {truth} (proven optimal)" in out
    state = replay(Nmbr9Rules(grid=6), Deal((1, 2, 7, 7)), _plan(out, 6))
    assert state.score == truth and state.done and not state.discarded


def test_solve_free_draft(capsys) -> None:
    assert main(["solve", "nmbr9", "--free", "--variant", "2-1-3", "--grid", "5", "--time-limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "free draft F-2-1-3" in out and "proven optimal" in out
    words = out.split("plan")[1].split("(")[0].split()
    deal = Deal(tuple(int(w.split("@")[0]) for w in words))
    state = replay(Nmbr9Rules(grid=5), deal, _plan(out, 5))
    assert f"score    {state.score} " in out


def _refused(args: list[str], capsys) -> str:
    """The command's one-line error (exit status 2: argparse's or the command's own)."""
    try:
        status = main(args)
    except SystemExit as stop:
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_bad_deal_and_variant_are_clear_errors(capsys) -> None:
    assert "deal '99'" in _refused(["solve", "nmbr9", "--deal", "99"], capsys)
    err = _refused(["solve", "nmbr9", "--variant", "6-2-15", "--seed", "1"], capsys)
    assert "--variant" in err and "cards (k) must be from 1 to 14" in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        # NaN meant no time limit at all; a 10^10-card deck was built before drawing 20 cards.
        (["solve", "nmbr9", "--seed", "1", "--time-limit", "nan"], ["--time-limit", "finite"]),
        (["solve", "nmbr9", "--seed", "1", "--time-limit", "0"], ["--time-limit", "above 0"]),
        (["solve", "nmbr9", "--variant", "9-1000000000-20"], ["--variant", "copies (c, 1-10)"]),
        (["solve", "nmbr9", "--seed", "1", "--levels", "0"], ["--levels", "from 1 to 101"]),
        (["solve", "nmbr9", "--seed", "-1"], ["--seed", "at least 0"]),
        (["play", "nmbr9", "--seed", "-1"], ["--seed", "at least 0"]),
        (["train", "nmbr9", "--seed", "-1"], ["--seed", "at least 0"]),
        (["demo", "nmbr9", "--seed", "-1"], ["--seed", "at least 0"]),
        (["solve", "nmbr9", "--seed", "1", "--grid", "3"], ["--grid", "from 4 to 64"]),
        (["solve", "nmbr9", "--seed", "1", "--model-grid", "3"], ["--model-grid", "from 4 to 64"]),
        # --model-grid used to be reported as "grid".
        (
            ["solve", "nmbr9", "--seed", "1", "--grid", "8", "--model-grid", "12"],
            ["--model-grid 12", "--grid 8"],
        ),
        (["play", "nmbr9", "--seed", "1", "--grid", "8", "--model-grid", "12"], ["--model-grid 12"]),
        (["solve", "nmbr9", "--deal", "12", "--seed", "1", "--variant", "2-1-2"], ["--deal", "--seed"]),
        (["solve", "nmbr9", "--free", "--seed", "1"], ["--free", "--seed"]),
        (["solve", "nmbr9", "--deal", ""], ["--deal", "empty"]),
        (["evaluate", "nmbr9", "--agent", "random", "--time-limit", "inf"], ["--time-limit", "finite"]),
        (["evaluate", "nmbr9", "--agent", "random", "--cache", ""], ["--cache", "empty"]),
        (["bench", "nmbr9", "--env-steps", "-1"], ["--env-steps", "from 1"]),
        (["bench", "nmbr9", "--deals", "-1"], ["--deals", "from 0"]),
        (["bench", "nmbr9", "--free-time-limit", "nan"], ["--free-time-limit", "finite"]),
        (["bench", "nmbr9", "--time-limit", "-5"], ["--time-limit", "above 0"]),
    ],
)
def test_bad_numbers_are_refused_in_one_line_naming_the_option(args, words, capsys) -> None:
    err = _refused(args, capsys)
    assert all(word in err for word in words), err


def test_a_free_draft_on_a_grid_too_small_discards_as_the_rules_do(capsys) -> None:
    # Two tiles of 0, 1, 2 never fit together on 4x4: the second card is discarded (it used to be
    # refused as "no free-draft play places all 2 cards").
    args = ["solve", "nmbr9", "--free", "--variant", "2-1-2", "--grid", "4", "--time-limit", "5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "score    0 (proven optimal)" in out and "@discarded" in out


def test_free_draft_whose_best_play_discards_is_not_falsely_proven(capsys) -> None:
    """F-4-1-4 on 5x5 with 3 levels printed "3 (proven optimal)"; the optimum is 4 (the 1 and the 3
    on the table, the 4 on level 1, the last card discarded)."""
    args = ["solve", "nmbr9", "--free", "--variant", "4-1-4", "--grid", "5", "--levels", "3"]
    assert main([*args, "--time-limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "score    4 (proven optimal)" in out
    words = out.split("plan")[1].split("(")[0].split()
    deal = Deal(tuple(int(w.split("@")[0]) for w in words))
    state = replay(Nmbr9Rules(grid=5, levels=3), deal, _plan(out, 5))
    assert state.done and state.score == 4 and state.discarded == 1


def test_solve_with_a_card_the_model_must_not_leave_out_prints_the_optimum(capsys) -> None:
    # This deal ended in a GameOverError (the model left out a card that fits; the replay ran out).
    args = ["solve", "nmbr9", "--variant", "9-2-6", "--deal", "176952", "--grid", "5", "--levels", "3"]
    assert main([*args, "--time-limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "score    6 (proven optimal)" in out
    state = replay(Nmbr9Rules(grid=5, levels=3), Deal((1, 7, 6, 9, 5, 2)), _plan(out, 5))
    assert state.done and state.score == 6
    assert out.split("plan")[1].split().count("discarded") == state.discarded


def test_a_level_limit_of_one_is_the_table_alone(capsys) -> None:
    args = ["solve", "nmbr9", "--variant", "9-2-3", "--deal", "987", "--grid", "8", "--levels", "1"]
    assert main([*args, "--time-limit", "5"]) == 0
    assert "score    0 (proven optimal)" in capsys.readouterr().out


def test_evaluate_two_episodes_against_the_oracle(tmp_path, capsys) -> None:
    out = tmp_path / "eval"
    args = ["evaluate", "nmbr9", "--agent", "random,greedy", "--agent", "oracle", "--episodes", "2"]
    args += ["--variant", "4-1-4", "--grid", "6", "--time-limit", "2", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    assert "greedy" in capsys.readouterr().out
    report = json.loads((out / "evaluation.json").read_text())
    agents = report["agents"]
    oracle, greedy, rand = (agents[a] for a in ("oracle", "greedy", "random"))
    assert oracle["deals"] == greedy["deals"] == rand["deals"] and len(oracle["deals"]) == 2
    assert all(r <= 1.0 for a in (oracle, greedy, rand) for r in a["ratios"])
    # The oracle's plan is at least the greedy player's on every deal (it is one of its candidates).
    assert oracle["mean_score"] >= greedy["mean_score"]


def _typed(action: int, grid: int) -> str:
    """A placement as a person types it: row, column, quarter turns."""
    rotation, row, col = decode_action(action, grid)
    return f"{row} {col} {rotation}"


def _script(monkeypatch, answers: list[str]) -> None:
    """Feed ``answers`` to the prompts, then end of input."""
    lines = iter(answers)

    def typed(prompt: str = "") -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(builtins, "input", typed)


def test_play_a_whole_game_in_the_terminal(monkeypatch, capsys) -> None:
    deal, grid = Deal((3, 1, 2)), 6
    state = Nmbr9State(deal, grid)
    moves = []
    while not state.done:
        moves.append(state.legal_actions()[-1])
        state.apply(moves[-1])
    after_first = replay(Nmbr9Rules(grid=grid), deal, moves[:1])
    illegal = next(a for a in range(grid * grid) if not after_first.action_mask()[a])
    answers = [
        "hello",
        "²",
        "1 ²",
        _typed(moves[0], grid),
        "9 0",
        "0 0 4",
        "",
        "help",
        "hint",
        _typed(illegal, grid),
    ]
    _script(monkeypatch, answers + [_typed(a, grid) for a in moves[1:]])
    args = ["play", "nmbr9", "--variant", "3-1-3", "--deal", "312", "--grid", "6", "--time-limit", "5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "type ROW COL or ROW COL TURNS" in out  # 'hello' and '²' re-prompt
    assert "column '²' is not a number" in out
    assert "row 9 is off the board: rows are 0 to 5" in out
    assert "turns are 0 to 3" in out
    assert "hint: " in out
    rotation, row, col = decode_action(illegal, grid)
    assert f"the 1 turned {rotation} cannot go at row {row}, column {col}: " in out
    assert "legal actions" not in out and "illegal action" not in out  # no encoded actions
    assert "the 3 lands on level 0" in out and " 5 " in out and "012345" in out  # coordinates
    assert f"game over: you scored {state.score}; the best play scores " in out


def test_play_turns_two_and_three_of_a_zero_are_its_turns_zero_and_one(monkeypatch, capsys) -> None:
    _script(monkeypatch, ["1 1 2"])
    assert main(["play", "nmbr9", "--variant", "9-1-2", "--deal", "05", "--grid", "8"]) == 0
    out = capsys.readouterr().out
    assert "the 0 lands on level 0" in out
    assert "end of input: 1 of 2 cards placed (0 discarded), score 0 so far" in out


def test_play_stops_on_quit_and_end_of_input_with_a_summary(monkeypatch, capsys) -> None:
    # 'q' is no quit word: it re-prompts; 'quit' stops.
    _script(monkeypatch, ["q", "quit"])
    assert main(["play", "nmbr9", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "type ROW COL" in out and "game stopped: 0 of 20 cards placed (0 discarded), score 0 so far" in out
    assert "deal " in out

    _script(monkeypatch, [])
    assert main(["play", "nmbr9", "--seed", "1", "--variant", "9-2-5", "--grid", "8"]) == 0
    out = capsys.readouterr().out
    assert "end of input: 0 of 5 cards placed (0 discarded), score 0 so far" in out


def test_play_says_which_cards_the_rules_discard(monkeypatch, capsys) -> None:
    # On a 6x6 grid the 8 and the 6 leave no room for the 9.
    _script(monkeypatch, ["3 2 1", "0 2 3"])
    args = ["play", "nmbr9", "--variant", "9-2-3", "--deal", "869", "--grid", "6", "--time-limit", "5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "the 9 is drawn and fits nowhere on the board: discarded, no points" in out
    assert "game over: you scored 0; the best play scores 9" in out


def test_bench_runs_small_and_writes_json(tmp_path, capsys) -> None:
    args = ["bench", "nmbr9", "--deals", "1", "--time-limit", "2", "--free-time-limit", "2"]
    args += ["--env-steps", "100", "--skip-proof", "--out", str(tmp_path), "--no-progress"]
    assert main(args + ["--unknown-up-to", "1"]) == 0
    out = capsys.readouterr().out
    assert "known draft 9-2-20" in out and "free draft 9-2-20" in out and "peak memory" in out
    report = json.loads((tmp_path / "nmbr9.json").read_text())
    (unknown,) = report["unknown_draft"]
    assert unknown["variant"] == "4-1-4" and unknown["positions"] > 0
    assert unknown["guaranteed"] <= unknown["expected"] <= unknown["hindsight_mean"]
    # The free draft's play, drawn level by level, holds every placed tile's value.
    drawing = report["free_9-2-20"]["levels"]
    placed = [v for v, a in report["free_9-2-20"]["plan"] if a is not None]
    assert drawing.startswith("level ") and sum(line.count(" tiles ") for line in drawing.splitlines()) >= 1
    assert sorted(int(v) for line in drawing.splitlines() if " tiles " in line
                  for v in line.split(" tiles ")[1].split("  points")[0].split()) == sorted(placed)
    row = report["known_9-2-20"]["deals"][0]
    assert row["greedy"] <= row["score"] <= row["bound"] and row["gap"] == row["bound"] - row["score"]
    free = report["free_9-2-20"]
    assert 0 < free["best_found"] <= free["bound"]
    assert report["env_steps_per_second"]["median"] > 0 and report["peak_rss_mb"] > 0
    assert Variant.parse("9-2-20") == Variant()


def test_settings_are_read_by_field_name_once() -> None:
    from tabletop_gym.oracles.nmbr9.limits import Nmbr9Limits
    from tabletop_gym.training.games import get_game
    from tabletop_gym.training.games.nmbr9 import Nmbr9Settings

    spec = get_game("nmbr9")
    # A suite's stored settings (names of the fields; others, such as a command's, are ignored).
    settings = spec.read({"variant": "9-2-5", "grid": 7, "levels": 2, "time_limit": 8.0, "steps": 9})
    assert settings.rules == Nmbr9Rules(Variant(9, 2, 5), 7, 2)
    assert settings.limits == Nmbr9Limits(time_limit=8.0)
    assert spec.env_kwargs(settings) == {"max_value": 9, "copies": 2, "cards": 5, "grid": 7, "levels": 2}
    assert spec.read({}) == Nmbr9Settings() and Nmbr9Settings().rules.grid == 20
    with pytest.raises(ValueError, match="--model-grid 12 must be at most --grid 8"):
        spec.read({"grid": 8, "model_grid": 12})
    with pytest.raises(ValueError, match="time_limit"):
        spec.read({"time_limit": 0.0})

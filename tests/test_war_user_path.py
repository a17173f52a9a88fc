"""War on a new user's path: play in the terminal, every numeric option checked, the commands of
issue 20 (horizon 3, the 12-card deck, the demo) running end to end at tiny sizes."""

from __future__ import annotations

import argparse
import io
import json
import math
from pathlib import Path

import pytest

from tabletop_gym.envs.war.rules import random_deal
from tabletop_gym.training.cli import build_parser, main
from tabletop_gym.training.games.war import SPEC

# A 13-card deck (one card of each rank): player 0's Queen takes player 1's 2 at once.
QUEEN_DEAL = ["--ranks", "13", "--suits", "1", "--deal", "QA3579J/2468TK"]


def _play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], typed: str, *args: str):
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    status = main(["play", "war", *args])
    return status, capsys.readouterr()


def test_play_places_a_queen_reprompts_typos_and_sums_up_at_eof(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "Q" quit the game, so a Queen could never be placed; "5" gave "illegal action 3 ...
    # legal actions: [1, 10]"; end of input left without a word.
    status, out = _play(monkeypatch, capsys, "²\nq\n5\nA\n", *QUEEN_DEAL)
    assert status == 0 and out.err == ""
    text = out.out
    assert "'²' is not a rank; you can place 2, Q" in text
    # The Queen went under the pile first, then the 2 (no choice left): the next pot is A against 4.
    assert "your pile     ( 7): 3579JQ2" in text
    assert "the pot holds no 5; you can place 4, A" in text
    assert "illegal action" not in text and "legal actions" not in text
    assert "input ended after" in text and "you hold" in text and "player 1 holds" in text
    assert "best play from this deal: a forced win" in text


@pytest.mark.parametrize("word", ["quit", "EXIT"])
def test_play_quits_on_a_whole_word(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], word: str
) -> None:
    status, out = _play(monkeypatch, capsys, f"{word}\nQ\n", *QUEEN_DEAL)
    assert status == 0 and "you stopped after 1 trick(s)" in out.out
    assert "your pile     ( 7): 3579JQ2" not in out.out


def test_play_to_the_end_and_deck_ranks_in_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed = "K\n" + "2\n3\n4\n5\n6\n7\n" * 40
    status, out = _play(monkeypatch, capsys, typed, "--ranks", "6", "--suits", "2", "--seed", "3")
    assert status == 0
    assert "this deck has no K; you can place" in out.out
    assert "the game ended after" in out.out and "result: you" in out.out


def test_play_refuses_a_deal_without_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "war", "--ranks", "3", "--suits", "1", "--deal", "2/34"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no pickup decision" in err


def _war_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = {}
    for command, sub in commands.choices.items():
        games = next((a for a in sub._actions if isinstance(a, argparse._SubParsersAction)), None)
        if games is not None and "war" in games.choices:  # not baselines: it names no game
            out[command] = games.choices["war"]
    return out


def _bad_values(action: argparse.Action) -> list[str]:
    low, high = action.type.bounds  # type: ignore[union-attr]
    values = ["x", "nan"] if action.type.__name__ == "number" else ["x", "1.5"]  # type: ignore[union-attr]
    if low is not None:
        values.append(str(low - 1) if action.type.__name__ == "integer" else str(low - 0.5))  # type: ignore[union-attr]
        if action.type.__name__ == "number":  # type: ignore[union-attr]
            values.append(str(low))  # time limits: above 0
    if high is not None:
        values.append(str(high + 1))
    return values


def test_every_numeric_option_is_checked_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    checked = 0
    for command, parser in _war_parsers().items():
        for action in parser._actions:
            if not action.option_strings or action.type is None:
                continue
            assert action.type not in (int, float), f"{command} {action.option_strings[0]} is unchecked"
            if not hasattr(action.type, "bounds"):
                continue
            option = action.option_strings[0]
            for value in _bad_values(action):
                with pytest.raises(SystemExit) as stop:
                    main([command, "war", f"{option}={value}"])
                err = capsys.readouterr().err
                assert stop.value.code == 2, (command, option, value)
                assert len(err.strip().splitlines()) == 1 and option in err, (command, option, value, err)
                checked += 1
    assert checked > 60


@pytest.mark.parametrize(
    "args, option",
    [
        (["solve", "war", "--horizon", "0"], "--horizon"),
        (["solve", "war", "--most-wars", "0"], "--most-wars"),
        (["solve", "war", "--most-wars", "100000", "--time-limit", "5"], "--most-wars"),
        (["solve", "war", "--find-pattern", ""], "--find-pattern"),
        (["solve", "war", "--find-pattern", "w,x"], "--find-pattern"),
        (["solve", "war", "--seed", "-1"], "--seed"),
        (["play", "war", "--seed", "-1"], "--seed"),
        (["play", "war", "--deal", ""], "--deal"),
        (["train", "war", "--horizon", "0"], "--horizon"),
        (["evaluate", "war", "--agent", "random", "--time-limit", "0"], "--time-limit"),
        (["demo", "war", "--horizon", "0"], "--horizon"),
        (["bench", "war", "--games", "0"], "--games"),
        (["bench", "war", "--deals", "0"], "--deals"),
        (["stats", "war", "--games", "-1"], "--games"),
        (["solve", "war", "--deal", "23/45", "--seed", "1"], "--seed"),
    ],
)
def test_bad_values_named_in_one_line(
    args: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.strip().splitlines()) == 1 and option in err


def test_long_deal_is_quoted_briefly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "war", "--ranks", "3", "--suits", "2", "--deal", "2" * 100_000 + "/3"]) == 2
    err = capsys.readouterr().err
    assert len(err) < 400 and "100002 characters" in err


def test_free_deal_query_takes_no_horizon(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "war", "--most-wars", "2", "--horizon", "3"]) == 2
    assert "no --horizon" in capsys.readouterr().err


def test_solve_seed_solves_the_deal_the_env_plays(capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop_gym.envs.war.env import WarEnv

    env = WarEnv(horizon=3)
    for seed in range(40):
        deal = env.reset(seed=seed)[1]["deal"]
        if deal != str(random_deal(seed, env.rules)):
            break  # a seed whose first deal was drawn again
    assert main(["solve", "war", "--horizon", "3", "--method", "search", "--seed", str(seed)]) == 0
    assert f"deal       {deal}" in capsys.readouterr().out


def test_issue_commands_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = ["--cache", str(tmp_path / "cache"), "--no-progress"]
    args = ["evaluate", "war", "--horizon", "3", "--agent", "random", "--episodes", "3"]
    assert main(args + ["--out", str(tmp_path / "e1")] + cache) == 0
    args = ["evaluate", "war", "--ranks", "6", "--suits", "2", "--agent", "random,oracle", "--episodes", "6"]
    assert main(args + ["--out", str(tmp_path / "e2")] + cache) == 0
    agents = json.loads((tmp_path / "e2" / "evaluation.json").read_text())["agents"]
    assert agents["oracle"]["share_optimal"] == 1.0 and agents["oracle"]["share_oracle_proven"] == 1.0


def test_train_with_horizon_three(tmp_path: Path) -> None:
    args = ["train", "war", "--horizon", "3", "--steps", "300", "--n-envs", "2", "--no-progress"]
    assert main(args + ["--out", str(tmp_path)]) == 0
    assert (tmp_path / "model.zip").is_file()


def test_demo_settings_are_served_by_the_oracle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the demo trained on the full deck for 150,000 steps, then found no whole-game oracle.
    from tabletop_gym.envs.war.env import WarEnv
    from tabletop_gym.oracles.war.search import solve
    from tabletop_gym.training.games.war import EXACT_LIMIT

    demo = SPEC.demo
    env = WarEnv(ranks=demo["ranks"], suits=demo["suits"])
    assert env.rules.num_cards <= EXACT_LIMIT and "horizon" not in demo
    for seed in range(100):  # the demo's deals (its 200 take about a second more)
        assert solve(env.reset(seed=seed)[1]["deal"], env.rules).optimal
    args = ["demo", "war", "--steps", "300", "--episodes", "3", "--n-envs", "2", "--no-progress"]
    assert main(args + ["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "[0/2] checking that the oracle serves" in out and "ranks=6, suits=2" in out
    report = json.loads((tmp_path / "evaluation" / "evaluation.json").read_text())
    assert all(a["share_oracle_proven"] == 1.0 for a in report["agents"].values())


def test_stats_and_bench_reports_have_no_nan(tmp_path: Path) -> None:
    def no_nan(text: str) -> dict:
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the report"))

    # Every game stops at the trick limit: no finished game, so no mean length (was NaN).
    args = ["stats", "war", "--games", "20", "--ranks", "13", "--suits", "1", "--max-tricks", "5"]
    assert main(args + ["--out", str(tmp_path)]) == 0
    report = no_nan((tmp_path / "war.json").read_text())
    assert report["finished_games"] == 0 and "mean_tricks_finished_games" not in report
    args = ["bench", "war", "--games", "50", "--deals", "1", "--cpsat-deals", "0", "--env-steps", "50"]
    assert main(args + ["--ranks", "5", "--suits", "2", "--out", str(tmp_path)]) == 0
    report = no_nan((tmp_path / "war.json").read_text())
    assert not any(k.startswith("cpsat") for k in report)
    assert all(v >= 0 for v in report.values() if isinstance(v, float) and math.isfinite(v))

"""Nmbr9 on the command line: solve, evaluate, play, bench."""

from __future__ import annotations

import builtins
import json

import pytest
from test_nmbr9_oracle import exhaustive

from tabletop_gym.envs.nmbr9.rules import Deal, Nmbr9State, Variant, decode_action, encode_action, replay
from tabletop_gym.training.cli import main


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def _plan(out: str, grid: int) -> list[int]:
    words = out.split("plan")[1].split("(")[0].split()
    return [encode_action(*(int(x) for x in w.split("@")[-1][1:].split("/")), grid=grid) for w in words]


def test_solve_proves_a_small_deal_and_prints_a_plan_that_replays(capsys) -> None:
    args = ["solve", "nmbr9", "--variant", "9-2-4", "--deal", "1277", "--grid", "6", "--time-limit", "20"]
    assert main(args) == 0
    out = capsys.readouterr().out
    truth = exhaustive(Deal((1, 2, 7, 7)), 6)
    assert f"score    {truth} (proven optimal)" in out
    state = replay(Deal((1, 2, 7, 7)), _plan(out, 6), 6)
    assert state.score == truth and state.done and not state.discarded


def test_solve_free_draft(capsys) -> None:
    assert main(["solve", "nmbr9", "--free", "--variant", "2-1-3", "--grid", "5", "--time-limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "free draft F-2-1-3" in out and "proven optimal" in out
    words = out.split("plan")[1].split("(")[0].split()
    deal = Deal(tuple(int(w.split("@")[0]) for w in words))
    state = replay(deal, _plan(out, 5), 5)
    assert f"score    {state.score} " in out


def test_bad_deal_and_variant_are_clear_errors(capsys) -> None:
    assert main(["solve", "nmbr9", "--deal", "99"]) == 2
    assert "deal '99'" in capsys.readouterr().err
    assert main(["solve", "nmbr9", "--variant", "6-2-15", "--seed", "1"]) == 2
    assert "k must be" in capsys.readouterr().err


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


def test_play_a_whole_game_in_the_terminal(monkeypatch, capsys) -> None:
    deal, grid = Deal((3, 1, 2)), 6
    state = Nmbr9State(deal, grid)
    moves = []
    while not state.done:
        moves.append(state.legal_actions()[-1])
        state.place(moves[-1])
    after_first = replay(deal, moves[:1], grid)
    illegal = next(a for a in range(grid * grid) if not after_first.action_mask()[a])

    def typed(action: int) -> str:
        return " ".join(str(x) for x in decode_action(action, grid))

    answers = iter(["hello", typed(moves[0]), typed(illegal), *(typed(a) for a in moves[1:])])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    args = ["play", "nmbr9", "--variant", "3-1-3", "--deal", "312", "--grid", "6", "--time-limit", "5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "type three numbers" in out
    assert f"illegal action {illegal}" in out
    assert f"game over: you scored {state.score}; the oracle found" in out


def test_play_stops_on_quit_and_end_of_input(monkeypatch, capsys) -> None:
    monkeypatch.setattr(builtins, "input", lambda prompt="": "q")
    assert main(["play", "nmbr9", "--seed", "1"]) == 0
    assert "deal " in capsys.readouterr().out

    def no_input(prompt=""):
        raise EOFError

    monkeypatch.setattr(builtins, "input", no_input)
    assert main(["play", "nmbr9", "--seed", "1"]) == 0


def test_bench_runs_small_and_writes_json(tmp_path, capsys) -> None:
    args = ["bench", "nmbr9", "--deals", "1", "--time-limit", "2", "--free-time-limit", "2"]
    args += ["--env-steps", "100", "--skip-proof", "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "known draft 9-2-20" in out and "free draft 9-2-20" in out and "peak memory" in out
    report = json.loads((tmp_path / "nmbr9.json").read_text())
    row = report["known_9-2-20"]["deals"][0]
    assert row["greedy"] <= row["score"] <= row["bound"] and row["gap"] == row["bound"] - row["score"]
    free = report["free_9-2-20"]
    assert 0 < free["best_found"] <= free["bound"]
    assert report["env_steps_per_second"]["median"] > 0 and report["peak_rss_mb"] > 0
    assert Variant.parse("9-2-20") == Variant()

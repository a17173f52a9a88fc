"""Dominion on the command line: tournament, solve and the game spec."""

from __future__ import annotations

import json

import pytest

from tabletop_gym.core import OracleResult
from tabletop_gym.training.cli import main
from tabletop_gym.training.evaluate import score_ratio
from tabletop_gym.training.games import get_game


def test_tournament_command_writes_json(tmp_path, capsys):
    code = main(["tournament", "dominion", "--players", "big-money,smithy-big-money", "--games", "20",
                 "--seed", "3", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    report = json.loads((tmp_path / "dominion-big-money-vs-smithy-big-money.json").read_text())
    assert sum(report["players"]["big-money"][k] for k in ("win", "tie", "loss")) == 20
    assert "level on VP" in capsys.readouterr().out


def test_tournament_unknown_bot_is_a_clear_error(tmp_path, capsys):
    code = main(["tournament", "dominion", "--players", "big-money,nobody", "--out", str(tmp_path)])
    assert code == 2 and "unknown Dominion bot" in capsys.readouterr().err


def test_solve_command(capsys):
    assert main(["solve", "dominion", "--seed", "5", "--target", "2"]) == 0
    out = capsys.readouterr().out
    assert "proven optimal" in out


def test_spec_oracle_and_figures(tmp_path):
    spec = get_game("dominion")
    assert spec.env_id == "tabletop/DominionSolitaire-v0"

    class Args:
        target = 2
        cache = str(tmp_path)
        oracle_time_limit = 60.0

    result = spec.oracle("5", Args())
    assert isinstance(result, OracleResult) and result.optimal
    figures = spec.figures([result.score, result.score - 2], [result, result], [{}, {}])
    assert figures["mean_extra_turns"] == pytest.approx(1.0)
    turns = -result.score
    assert score_ratio(result.score, result.bound) == 1.0
    assert score_ratio(result.score - 2, result.bound) == pytest.approx(turns / (turns + 2))


def test_solve_command_with_a_kingdom(capsys):
    assert main(["solve", "dominion", "--seed", "2", "--target", "2", "--kingdom", "smithy"]) == 0
    out = capsys.readouterr().out
    assert "kingdom: Smithy" in out and "proven optimal" in out
    assert "turn  1  " in out and "smithy-big-money on this seed" in out


def test_solve_command_refuses_an_unsupported_kingdom(capsys):
    assert main(["solve", "dominion", "--seed", "2", "--kingdom", "smithy,cellar"]) == 2
    assert "does not support Cellar" in capsys.readouterr().err


def test_evaluate_a_kingdom_the_oracle_does_not_support_runs_without_it(tmp_path, capsys):
    code = main(["evaluate", "dominion", "--agent", "greedy", "--episodes", "2", "--target", "1",
                 "--kingdom", "cellar,workshop", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    report = json.loads((tmp_path / "evaluation.json").read_text())
    entry = report["agents"]["greedy"]
    assert "mean_ratio" not in entry and entry["mean_turns"] == -entry["mean_score"]

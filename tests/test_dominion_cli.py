"""Dominion on the command line: tournament, solve and the game spec."""

from __future__ import annotations

import argparse
import json

import pytest

from tabletop_gym.core import OracleResult
from tabletop_gym.envs.dominion.env import deal_of_seed
from tabletop_gym.oracles import dominion as oracle
from tabletop_gym.training.cli import build_parser, main
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
    with pytest.raises(SystemExit) as stop:
        main(["tournament", "dominion", "--players", "big-money,nobody", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "argument --players: unknown Dominion bot 'nobody'" in err


def test_solve_command(capsys):
    assert main(["solve", "dominion", "--seed", "5", "--target", "2"]) == 0
    out = capsys.readouterr().out
    assert "proven optimal" in out


def test_spec_oracle_and_figures(tmp_path):
    spec = get_game("dominion")
    assert spec.env_id == "tabletop/DominionSolitaire-v0"

    args = argparse.Namespace(target=2, cache=str(tmp_path), oracle_time_limit=60.0)
    result = spec.oracle("5", spec.read(args))
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
    assert "turn  1  " in out and "smithy-big-money on this deal" in out


def test_solve_command_with_cards_that_ask_questions(capsys):
    # Deal 6 (not the deal of seed 6): its plan to 1 Province plays Remodel.
    assert main(["solve", "dominion", "--deal", "6", "--target", "1", "--kingdom", "remodel"]) == 0
    out = capsys.readouterr().out
    assert "kingdom: Remodel" in out and "proven optimal" in out and "play Remodel" in out


def test_solve_command_at_its_work_limit_reports_a_bound(capsys):
    assert main(["solve", "dominion", "--seed", "0", "--kingdom", "first-game",
                 "--oracle-work-limit", "20000"]) == 0
    assert "best found; proven at least" in capsys.readouterr().out


def test_evaluate_with_cards_that_ask_questions_scores_against_the_oracle(tmp_path, capsys):
    code = main(["evaluate", "dominion", "--agent", "greedy", "--episodes", "2", "--target", "1",
                 "--kingdom", "cellar,workshop", "--out", str(tmp_path), "--no-progress",
                 "--cache", str(tmp_path / "cache")])
    assert code == 0
    report = json.loads((tmp_path / "evaluation.json").read_text())
    entry = report["agents"]["greedy"]
    assert "mean_ratio" in entry and entry["mean_turns"] == -entry["mean_score"]


# Every numeric option of every Dominion command, with a bad value: a one-line error naming it.
BAD_VALUES = [
    (["solve", "dominion"], "--target", "0"),
    (["solve", "dominion"], "--target", "9"),
    (["solve", "dominion"], "--seed", "-1"),
    (["solve", "dominion"], "--oracle-time-limit", "nan"),
    (["solve", "dominion"], "--oracle-time-limit", "0"),
    (["solve", "dominion"], "--oracle-time-limit", "inf"),
    (["solve", "dominion"], "--kingdom", "smithy,chapel"),
    (["play", "dominion"], "--seed", "-1"),
    (["play", "dominion"], "--target", "0"),
    (["play", "dominion"], "--oracle-time-limit", "-1"),
    (["play", "dominion"], "--opponents", "big-money,big-money,big-money,big-money"),
    (["play", "dominion"], "--opponents", ""),
    (["evaluate", "dominion", "--agent", "greedy"], "--target", "0"),
    (["evaluate", "dominion", "--agent", "greedy"], "--oracle-time-limit", "nan"),
    (["evaluate", "dominion", "--agent", "greedy"], "--opponents", "nobody"),
    (["train", "dominion"], "--target", "-3"),
    (["train", "dominion"], "--province-reward", "-1"),
    (["train", "dominion"], "--money-reward", "nan"),
    (["demo", "dominion"], "--target", "0"),
    (["demo", "dominion"], "--oracle-time-limit", "0"),
    (["demo", "dominion"], "--money-reward", "inf"),
    (["tournament", "dominion", "--players", "big-money"], "--games", "0"),
    (["tournament", "dominion", "--players", "big-money"], "--games", "-1"),
    (["tournament", "dominion", "--players", "big-money"], "--seed", "-1"),
    (["tournament", "dominion", "--players", "big-money"], "--kingdom", "chapel"),
    (["bench", "dominion"], "--seeds", "0"),
    (["bench", "dominion"], "--games", "1"),
    (["bench", "dominion"], "--seed-games", "0"),
    (["bench", "dominion"], "--deals", "0"),
    (["bench", "dominion"], "--env-steps", "-1"),
    (["bench", "dominion"], "--oracle-time-limit", "nan"),
    (["bench", "dominion"], "--target", "0"),
    (["bench", "dominion"], "--oracle-kingdom", "chapel"),
    (["bench", "dominion"], "--oracle-work-limit", "0"),
    (["bench", "dominion"], "--jobs", "0"),
    (["bench", "dominion", "--vector"], "--num-envs", "0"),
    (["bench", "dominion", "--vector"], "--vector-steps", "0"),
    (["solve", "dominion"], "--oracle-work-limit", "1.5"),
]


@pytest.mark.parametrize(("command", "option", "value"), BAD_VALUES)
def test_a_bad_value_is_refused_in_one_line_naming_the_option(command, option, value, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*command, option, value, "--out", str(tmp_path)] if command[0] in ("tournament", "bench")
             else [*command, option, value])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert len(err.strip().splitlines()) == 1 and f"argument {option}: " in err


def test_valid_edge_values_are_taken_as_given():
    parser = build_parser()
    args = parser.parse_args(["train", "dominion", "--target", "8", "--province-reward", "0",
                              "--money-reward", "0"])
    assert (args.target, args.province_reward, args.money_reward) == (8, 0.0, 0.0)
    spec = get_game("dominion")
    assert spec.env_kwargs(spec.read(args))["target"] == 8  # never replaced by the default 4
    assert spec.env_kwargs(spec.read(args))["money_reward"] == 0.0
    args = parser.parse_args(["play", "dominion", "--seed", "0", "--target", "1"])
    assert args.seed == 0 and args.target == 1
    args = parser.parse_args(["tournament", "dominion", "--players", "big-money", "--games", "1"])
    assert args.games == 1 and args.seed == 0


def test_kingdom_defaults_follow_the_game():
    parser = build_parser()
    spec = get_game("dominion")
    solitaire = parser.parse_args(["evaluate", "dominion", "--agent", "greedy"])
    versus = parser.parse_args(["evaluate", "dominion", "--agent", "greedy", "--opponents", "big-money"])
    treasure_versus = parser.parse_args(["evaluate", "dominion", "--agent", "greedy", "--opponents",
                                         "big-money", "--kingdom", ""])
    assert spec.env_kwargs(spec.read(solitaire))["kingdom"] == ""
    assert spec.env_kwargs(spec.read(versus))["kingdom"] == "first-game"
    assert spec.env_kwargs(spec.read(treasure_versus))["kingdom"] == ""  # "" is a choice, not a missing value


@pytest.mark.parametrize("deal", ["²", "-3", "1" * 100_000, "18446744073709551616"])
def test_a_bad_deal_is_one_short_line_naming_deal(deal, capsys):
    assert main(["solve", "dominion", "--deal", deal]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tabletop-gym: error: --deal: ") and len(err) < 300


def test_a_huge_kingdom_is_quoted_briefly(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "dominion", "--kingdom", "x" * 100_000])
    err = capsys.readouterr().err
    assert "argument --kingdom: unknown card 'xxxx" in err and len(err) < 600


def test_demo_settings_are_served_by_the_oracle():
    spec = get_game("dominion")
    assert spec.demo["target"] == 2 and "opponents" not in spec.demo
    args = build_parser().parse_args(["demo", "dominion"])
    assert args.target == 2 and args.steps == spec.demo["steps"] and args.episodes == spec.demo["episodes"]
    # The demo's first deals (those of seeds 0-2): proven optimal (well under a second each on 2 busy
    # cores).
    for seed in range(3):
        assert oracle.solve(deal_of_seed(seed), args.target, args.oracle_time_limit,
                            work_limit=args.oracle_work_limit).optimal


@pytest.mark.parametrize("extra", [["--opponents", "big-money"]])
def test_evaluate_the_oracle_where_it_cannot_serve_is_a_one_line_error(tmp_path, capsys, extra):
    code = main(["evaluate", "dominion", "--agent", "oracle", "--episodes", "1", "--out", str(tmp_path),
                 "--no-progress", *extra])
    err = capsys.readouterr().err
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "oracle" in lines[0] and "Traceback" not in err


def test_settings_are_read_by_field_name_from_a_command_or_a_suite():
    from tabletop_gym.envs.dominion.rules import DominionRules
    from tabletop_gym.oracles.dominion import DominionLimits

    spec = get_game("dominion")
    stored = spec.read({"oracle_work_limit": 3_000_000})  # the dominion suite's settings
    assert stored.rules == DominionRules() and stored.limits == DominionLimits()
    assert stored.opponents == () and stored.cache is None
    assert spec.environment(stored) == (spec.env_id, {"target": 4, "kingdom": "", "province_reward": 0.0,
                                                      "money_reward": 0.0})
    versus = spec.read(build_parser().parse_args(["evaluate", "dominion", "--agent", "greedy",
                                                  "--opponents", "big-money,random"]))
    assert versus.rules == DominionRules(3, "first-game", None)
    assert spec.environment(versus) == ("tabletop/Dominion-v0", {"opponents": ["big-money", "random"],
                                                                  "kingdom": "first-game"})
    assert spec.oracle("5", versus) is None  # evaluate scores the versus game by win rate
    play = spec.read(build_parser().parse_args(["play", "dominion"]))
    assert play.limits.oracle_work_limit == DominionLimits.oracle_work_limit // 4  # play answers quickly
    with pytest.raises(ValueError, match="--target sets the"):
        spec.read({"opponents": "big-money", "target": 3})
    with pytest.raises(ValueError, match="oracle_time_limit"):
        DominionLimits(oracle_time_limit=float("nan"))
    with pytest.raises(ValueError, match="oracle_work_limit"):
        DominionLimits(oracle_work_limit=0)

"""The command line end to end on Cribbage: solve, evaluate, train, play, errors."""

import builtins
import json

import pytest

from tabletop_gym.envs.cribbage.rules import parse_deal, replay
from tabletop_gym.training.cli import main

KNOWN = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"


def test_solve_prints_the_optimum_and_a_plan_that_replays(capsys) -> None:
    assert main(["solve", "cribbage", "--deal", KNOWN]) == 0
    out = capsys.readouterr().out
    assert "optimum  112" in out
    plan = [int(c) for c in out.split("plan")[1].split()[0]]
    assert replay(parse_deal(KNOWN), plan).score == 112


def test_bad_deal_is_a_clear_error(capsys) -> None:
    assert main(["solve", "cribbage", "--deal", "AAA/222"]) == 2
    assert "2 pile(s); expected 4" in capsys.readouterr().err


def test_unknown_agent_is_a_clear_error(tmp_path, capsys) -> None:
    code = main(["evaluate", "cribbage", "--agent", "nobody", "--episodes", "1", "--out", str(tmp_path)])
    assert code == 2 and "unknown agent 'nobody'" in capsys.readouterr().err


def test_evaluate_compares_agents_against_the_oracle(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "eval"
    args = ["evaluate", "cribbage", "--agent", "random,greedy", "--agent", "oracle"]
    assert main(args + ["--episodes", "3", "--seed", "5", "--out", str(out), "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "score/optimum" in table and "reaching_61" in table
    report = json.loads((out / "evaluation.json").read_text())
    assert (out / "evaluation.png").stat().st_size > 0
    oracle, greedy, rand = (report["agents"][a] for a in ("oracle", "greedy", "random"))
    assert oracle["deals"] == greedy["deals"] == rand["deals"]
    assert oracle["mean_ratio"] == 1.0 and oracle["share_optimal"] == 1.0
    assert all(r <= 1.0 for r in greedy["ratios"] + rand["ratios"])
    assert greedy["mean_bound"] == oracle["mean_score"]
    # The deals were solved once and cached: a second run reads the cache.
    assert len(list((tmp_path / "cache" / "cribbage").rglob("*.json"))) == 3


def test_train_then_evaluate_the_saved_policy(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    model_dir = tmp_path / "model"
    args = ["train", "cribbage", "--steps", "256", "--seed", "1", "--n-envs", "2", "--no-progress"]
    assert main(args + ["--out", str(model_dir)]) == 0
    config = json.loads((model_dir / "config.json").read_text())
    assert config["seed"] == 1 and config["steps_done"] >= 256 and config["algorithm"] == "MaskablePPO"
    out = tmp_path / "eval"
    code = main(
        [
            "evaluate",
            "cribbage",
            "--agent",
            str(model_dir),
            "--episodes",
            "2",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    entry = json.loads((out / "evaluation.json").read_text())["agents"][str(model_dir)]
    assert len(entry["scores"]) == 2 and 0 < entry["mean_ratio"] <= 1


def test_play_in_the_terminal(monkeypatch, capsys) -> None:
    answers = iter(["x", "0", "q"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    assert main(["play", "cribbage", "--deal", KNOWN]) == 0
    out = capsys.readouterr().out
    assert "is not a pile" in out
    assert "stopped: you scored 0; the best possible score on this deal is 112" in out


def test_play_handles_end_of_input(monkeypatch, capsys) -> None:
    def no_input(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", no_input)
    assert main(["play", "cribbage", "--seed", "3"]) == 0
    assert "best possible score" in capsys.readouterr().out


def test_unknown_game_is_rejected() -> None:
    with pytest.raises(SystemExit):
        main(["solve", "chess"])


def test_bench_writes_its_report(tmp_path, capsys) -> None:
    assert main(["bench", "cribbage", "--deals", "1", "--env-steps", "300", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "cribbage.json").read_text())
    assert report["known_answer_112"] == 112
    assert report["oracle_median_seconds"] > 0 and report["env_steps_per_second_median"] > 0
    assert "oracle_median_seconds" in capsys.readouterr().out


def test_evaluate_picks_the_environment_the_arguments_ask_for(tmp_path, capsys) -> None:
    # Dominion's --opponents selects the versus game: no oracle there, a win rate instead.
    args = ["evaluate", "dominion", "--agent", "big-money", "--opponents", "big-money", "--episodes", "2"]
    assert main(args + ["--out", str(tmp_path), "--no-progress"]) == 0
    entry = json.loads((tmp_path / "evaluation.json").read_text())["agents"]["big-money"]
    assert "mean_ratio" not in entry
    assert entry["share_win"] + entry["share_shared"] + entry["share_loss"] == 1.0
    assert "win" in capsys.readouterr().out

"""War's CP-SAT oracles on the command line: solve --method, free-deal queries, bench figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop_gym.envs.war.rules import WarRules
from tabletop_gym.oracles.war import simulate
from tabletop_gym.training.cli import main


def test_solve_horizon_with_cpsat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["solve", "war", "--seed", "1", "--horizon", "3", "--cache", str(tmp_path)]
    assert main(args + ["--method", "cpsat"]) == 0
    out = capsys.readouterr().out
    assert "proven optimal, by cpsat" in out
    assert main(args + ["--method", "auto"]) == 0  # the search answers this one within its budget
    assert "proven optimal, by search" in capsys.readouterr().out


def test_solve_free_deal_queries(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "war", "--find-pattern", "w,1", "--time-limit", "20"]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    engine = next(line.split()[1:3] for line in out.splitlines() if line.startswith("engine"))
    assert engine[0][0] == "w" and engine[1][1] == "1"
    small = ["--ranks", "3", "--suits", "2", "--face-down", "0"]
    assert main(["solve", "war", "--most-wars", "2", "--time-limit", "20"] + small) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    wars = int(next(line.split()[2] for line in out.splitlines() if line.startswith("most wars")))
    assert simulate(deal, WarRules(ranks=3, suits=2, face_down=0, max_tricks=2)).wars == wars


def test_bench_reports_cpsat_medians(tmp_path: Path) -> None:
    args = ["bench", "war", "--games", "100", "--deals", "1", "--cpsat-deals", "1", "--time-limit", "2"]
    small = ["--ranks", "5", "--suits", "2", "--face-down", "1", "--out", str(tmp_path)]
    assert main(args + small) == 0
    report = json.loads((tmp_path / "war.json").read_text())
    for tricks in (3, 26):
        assert report[f"cpsat_T{tricks}_median_seconds"] >= 0
        assert report[f"cpsat_T{tricks}_proven_optimal"].endswith("/1")
        assert report[f"cpsat_T{tricks}_median_work_seconds"] >= 0


def test_evaluate_against_cpsat_horizon(tmp_path: Path) -> None:
    args = ["evaluate", "war", "--agent", "greedy,oracle", "--episodes", "3", "--horizon", "8"]
    args += ["--ranks", "8", "--suits", "3", "--face-down", "1", "--method", "cpsat", "--time-limit", "10"]
    assert main(args + ["--cache", str(tmp_path / "cache"), "--out", str(tmp_path), "--no-progress"]) == 0
    agents = json.loads((tmp_path / "evaluation.json").read_text())["agents"]
    assert agents["oracle"]["share_optimal"] == 1.0 and agents["oracle"]["share_oracle_proven"] == 1.0
    assert agents["greedy"]["mean_score"] <= agents["oracle"]["mean_score"]


def test_solve_cut_short_gives_the_same_answer_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seed 25's 26 tricks do not finish within this limit, so the answer depends on how much search
    # was done: with a limit of work two runs (each with a cache of its own, so both solve) print
    # the same answer; only the wall-clock time line may differ.
    from tabletop_gym.envs.war.rules import random_deal

    deal = str(random_deal(25, WarRules()))
    args = ["solve", "war", "--deal", deal, "--horizon", "26", "--method", "cpsat", "--time-limit", "0.2"]
    outs = []
    for run in ("a", "b"):
        assert main(args + ["--cache", str(tmp_path / run)]) == 0
        outs.append([line for line in capsys.readouterr().out.splitlines() if not line.startswith("time")])
    assert outs[0] == outs[1]
    assert any("proven bound 52" in line and "time limit reached" in line for line in outs[0])

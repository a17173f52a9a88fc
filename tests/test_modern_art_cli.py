"""Modern Art on the command line: solve, evaluate (with the win rate), tournament and play."""

from __future__ import annotations

import json

import pytest

from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.games.modern_art import win_share

FAST = ["--width", "2", "--time-limit", "0.5"]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def test_solve_command_prints_plan_and_bound(capsys):
    assert main(["solve", "modern_art", "--seed", "3", *FAST]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    plan = next(line for line in out.splitlines() if line.startswith("plan actions:"))
    actions = [int(a) for a in plan.split(":")[1].split()]
    found = int(next(line.split()[1] for line in out.splitlines() if line.startswith("plan ")))
    assert R.replay(R.Rules(), deal, actions).scores[0] == found
    bound = int(next(line.split()[1] for line in out.splitlines() if line.startswith("bound")))
    # the reported bound is the smallest of the relaxations' bounds, each printed (the game model's,
    # or the seat-only model's where CP-SAT proves nothing in the time limit, and the path LP's)
    each = next(line for line in out.splitlines() if "artist paths (LP)" in line)
    bounds = [int(part.split()[-1]) for part in each.split(",")]
    assert len(bounds) == 2 and found <= bound == min(bounds)


def test_solve_command_over_every_deal(capsys):
    assert main(["solve", "modern_art", "--free", "--width", "2", "--time-limit", "2"]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    plan = next(line for line in out.splitlines() if line.startswith("plan actions:"))
    actions = [int(a) for a in plan.split(":")[1].split()]
    found = int(next(line.split()[1] for line in out.splitlines() if line.startswith("plan ")))
    bound = int(next(line.split()[1] for line in out.splitlines() if line.startswith("bound")))
    assert R.replay(R.Rules(), deal, actions).scores[0] == found <= bound


def test_solve_command_plays_the_first_rounds_only(capsys):
    """``--rounds 1``: a one-round game (13 cards each, then the game ends), its plan replayed under
    those rules; too many rounds is refused with the range."""
    assert main(["solve", "modern_art", "--rounds", "1", "--seed", "1", *FAST]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    plan = next(line for line in out.splitlines() if line.startswith("plan actions:"))
    found = int(next(line.split()[1] for line in out.splitlines() if line.startswith("plan ")))
    final = R.replay(R.Rules(deals=(13,)), deal, [int(a) for a in plan.split(":")[1].split()])
    assert final.done and final.round == 1 and final.scores[0] == found  # over after one round
    with pytest.raises(SystemExit, match="--rounds must be 1 to 4, got 5"):
        main(["solve", "modern_art", "--rounds", "5", *FAST])


def test_solve_command_rejects_a_bad_deal(capsys):
    assert main(["solve", "modern_art", "--deal", "L.Y.", *FAST]) == 2
    assert "deal holds" in capsys.readouterr().err


def test_evaluate_reports_win_rate(tmp_path, capsys):
    out = tmp_path / "eval"
    code = main(["evaluate", "modern_art", "--agent", "greedy,random", "--episodes", "2", "--seed", "1",
                 "--out", str(out), "--no-progress", *FAST])  # fmt: skip
    assert code == 0
    table = capsys.readouterr().out
    assert "wins" in table.splitlines()[0]
    report = json.loads((out / "evaluation.json").read_text())
    for entry in report["agents"].values():
        assert 0.0 <= entry["share_wins"] <= 1.0
        assert entry["mean_ratio"] <= 1.0


def test_figures_share_of_wins():
    spec = get_game("modern_art")
    infos = [{"scores": [30, 20], "seat": 0}, {"scores": [10, 10], "seat": 0}, {"scores": [5, 9], "seat": 0}]
    assert spec.figures([30, 10, 5], [None] * 3, infos)["share_wins"] == pytest.approx(0.5)
    assert win_share([4, 9, 9], 2) == 0.5 and win_share([4, 9, 9], 0) == 0.0


def test_tournament_command_writes_json(tmp_path, capsys):
    code = main(["tournament", "modern_art", "--games", "2", "--out", str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "modern_art_2p.json").read_text())
    assert set(report) == {"random_vs_random", "random_vs_greedy", "greedy_vs_random", "greedy_vs_greedy"}
    assert all(row["games"] == 2 and 0 <= row["win_rate"] <= 1 for row in report.values())
    assert "greedy_vs_random" in capsys.readouterr().out


def test_play_command_with_typed_actions(monkeypatch, capsys):
    """A person types a bad answer, an illegal action, then legal actions until the game is over."""
    rules = R.Rules()
    deal = R.random_deal(rules, 8)
    answers = iter(["hello", "35"])
    seen: list[str] = []

    def typed(prompt: str = "") -> str:
        seen.append(capsys.readouterr().out)
        answer = next(answers, None)
        if answer is not None:
            return answer
        # Afterwards: the first legal action of the position the command shows.
        options = seen[-1].rsplit("your options: ", 1)[1].splitlines()[0]
        return options.split("=", 1)[0]

    monkeypatch.setattr("builtins.input", typed)
    assert main(["play", "modern_art", "--deal", deal, *FAST]) == 0
    out = "".join(seen) + capsys.readouterr().out
    assert f"deal {deal}" in out and "'hello' is not an action number" in out
    assert "illegal action 35" in out and "cannot be passed" in out
    assert "game over: scores" in out and "bound" in out


def test_play_command_quits(monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["play", "modern_art", "--seed", "2", *FAST]) == 0
    assert "stopped" in capsys.readouterr().out


def test_bench_command_small(tmp_path, capsys):
    small = [
        "--deals",
        "1",
        "--env-steps",
        "200",
        "--bound-seconds",
        "1",
        "--free-deals",
        "1",
        "--width",
        "1",
    ]
    code = main(["bench", "modern_art", "--bench-players", "2", *small, "--out", str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "modern_art.json").read_text())
    row, best = report["oracle_2p"], report["max_2p"]
    assert row["median_plan_score"] <= row["median_bound"]
    each = zip(row["bounds"], row["cp_sat_bounds"], row["artist_path_bounds"], strict=True)
    assert all(bound == min(cp_sat, paths) for bound, cp_sat, paths in each)
    assert best["proven_bound"] == min(best["bounds_by_relaxation"].values())
    assert best["best_found"] <= best["proven_bound"] and best["seed_relaxed_figure"] == 301
    assert "max_2p" in capsys.readouterr().out

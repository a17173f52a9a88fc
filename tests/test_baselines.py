"""The baselines command: every agent on every suite, trained runs reused, rliable aggregates."""

from __future__ import annotations

import functools
import json
import shutil

import numpy as np
import pytest
from scipy import stats

from tabletop_gym.training import baselines, suites
from tabletop_gym.training.baselines import ORACLE, PPO, _agent_entry, intervals, iqm_interval
from tabletop_gym.training.cli import main
from tabletop_gym.training.evaluate import mean_ci95, score_ratio

# War is left out here: its 12-card games ask about 1,900 decisions each (its ratio is tested below).
SUITES = "cribbage-v0,nmbr9-small-v0,modern_art-2p-v0,dominion-v0"


def _baselines(argv: list[str]) -> int:
    # rliable's bootstrap of 2,000 resamples costs about a second of CPU per agent and suite, most of
    # a run this small; what these tests read of the intervals (the point within its interval, within
    # [0, 1]) holds for any number of resamples, and the intervals themselves are tested below.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(baselines, "intervals", functools.partial(baselines.intervals, reps=200))
        return main(argv)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("baselines")
    argv = ["baselines", "--budget", "small", "--suites", SUITES, "--seeds", "2", "--steps", "256"]
    argv += ["--episodes", "2"]
    status = _baselines(argv + ["--out", str(out), "--no-progress"])
    return status, out, argv


def test_every_agent_on_every_suite(run):
    status, out, _ = run
    assert status == 0
    report = json.loads((out / "baselines.json").read_text())
    assert [g["suite"] for g in report["games"]] == SUITES.split(",")
    for game in report["games"]:
        suite = suites.load(game["suite"], replay=False)
        entries = suite.entries[:2]
        agents = game["agents"]
        assert set(game["bots"]) >= {"random", "greedy"} and "probe" not in agents
        assert agents[PPO]["runs"] == 2 and np.array(agents[PPO]["ratios"]).shape == (2, 2)
        # The oracle's plans score what the suite stores: each deal's ratio follows from its entry.
        expected = [score_ratio(e.score, e.bound) for e in entries]
        assert agents[ORACLE]["ratios"] == [expected]
        assert game["denominator"] == ("optimum" if all(e.optimal for e in entries) else "bound")
        for entry in agents.values():
            ratios = np.array(entry["ratios"])
            assert ratios.min() >= 0 and ratios.max() <= 1 + 1e-9
            assert entry["mean"] == pytest.approx(ratios.mean())
            # rliable's IQM of runs x deals is the 25%-trimmed mean of all the scores.
            assert entry["iqm"] == pytest.approx(stats.trim_mean(ratios.ravel(), 0.25))
            assert entry["iqm_ci95"][0] <= entry["iqm"] + 1e-9 <= entry["iqm_ci95"][1] + 2e-9
    modern_art = report["games"][2]
    assert modern_art["denominator"] == "bound"
    aggregate = report["aggregate"]
    assert set(aggregate) == {"random", "greedy", PPO, ORACLE} and aggregate[PPO]["runs"] == 2
    assert aggregate[ORACLE]["iqm"] == pytest.approx(
        stats.trim_mean([np.mean(g["agents"][ORACLE]["ratios"]) for g in report["games"]], 0.25)
    )


def test_dominion_trains_with_its_training_aids_and_is_scored_without(run):
    _, out, _ = run
    config = json.loads((out / "dominion-v0" / "ppo-seed0" / "config.json").read_text())
    assert config["env_kwargs"]["province_reward"] == 1.0 and config["env_kwargs"]["money_reward"] == 1.0
    game = json.loads((out / "baselines.json").read_text())["games"][3]
    assert game["training_aids"] == {"province_reward": 1.0, "money_reward": 1.0}
    # Scored by minus the turns taken, never by the shaped return (which adds a Province's +1).
    assert all(s <= game["mean_bound"] < 0 for s in game["agents"][PPO]["mean_scores"])
    assert all(0 < r <= 1 for run in game["agents"][PPO]["ratios"] for r in run)


def test_table_and_figure(run):
    _, out, _ = run
    table = (out / "baselines.md").read_text()
    assert "modern_art (modern_art-2p-v0, 2 deals, bound)" in table
    assert "cribbage (cribbage-v0, 2 deals)" in table and f"| {PPO}, IQM |" in table
    assert (out / "baselines.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_second_run_reuses_the_trained_models(run, capsys):
    status, out, argv = run
    models = sorted(out.glob("*/ppo-seed*/model.zip"))
    assert len(models) == 8
    before = {p: p.stat().st_mtime_ns for p in models}
    first = json.loads((out / "baselines.json").read_text())
    assert _baselines(argv + ["--out", str(out), "--no-progress"]) == 0
    assert {p: p.stat().st_mtime_ns for p in models} == before
    again = json.loads((out / "baselines.json").read_text())
    assert [g["agents"][PPO]["ratios"] for g in again["games"]] == [
        g["agents"][PPO]["ratios"] for g in first["games"]
    ]
    assert "| random |" in capsys.readouterr().out


def test_a_suites_part_is_reused_only_while_its_inputs_are_unchanged(run, monkeypatch, tmp_path):
    _, finished, argv = run
    out = tmp_path / "copy"  # the module's other tests read the run's own report
    shutil.copytree(finished, out, ignore=shutil.ignore_patterns(".tabletop-gym.lock"))
    first = json.loads((out / "baselines.json").read_text())
    played = []
    real = baselines._play_suite
    monkeypatch.setattr(baselines, "_play_suite", lambda *a, **k: played.append(a[2].id) or real(*a, **k))
    assert _baselines(argv + ["--out", str(out), "--no-progress"]) == 0
    assert played == []
    assert json.loads((out / "baselines.json").read_text())["games"] == first["games"]
    one = ["baselines", "--budget", "small", "--suites", "cribbage-v0", "--seeds", "2", "--steps", "256"]
    one += ["--episodes", "2", "--out", str(out), "--no-progress"]
    part = out / "cribbage-v0" / baselines.SUITE_PART
    part.write_text("{not json")  # unreadable: played again, and stored again
    assert _baselines(one) == 0 and played == ["cribbage-v0"]
    again = json.loads(part.read_text())["part"]
    assert {name: agent["ratios"] for name, agent in again["agents"].items()} == {
        name: agent["ratios"] for name, agent in first["games"][0]["agents"].items()
    }
    # Any change to the package (a bot, a rule, the evaluation) plays the suite again.
    monkeypatch.setattr(baselines, "package_fingerprint", lambda: "another package")
    assert _baselines(one) == 0 and played == ["cribbage-v0", "cribbage-v0"]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--seeds", "0", "argument --seeds: must be from 1 to 100"),
        ("--steps", "-5", "argument --steps: must be from 1 to"),
        ("--suites", "nope-v0", "nope"),
        ("--suites", "cribbage-v0,,war-r6s2-v0", "an empty suite id"),
    ],
)
def test_bad_options_stop_before_any_training(tmp_path, capsys, option, value, message):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        code = main(["baselines", option, value, "--out", str(out), "--no-progress"])
        raise SystemExit(code)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not list(out.glob("*/ppo-seed*"))


def test_evaluate_scores_war_whole_games_from_a_loss_at_zero(tmp_path):
    argv = ["evaluate", "war", "--ranks", "6", "--suits", "2", "--agent", "random,oracle", "--episodes", "6"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    agents = json.loads((tmp_path / "evaluation.json").read_text())["agents"]
    oracle, random = agents["oracle"], agents["random"]
    assert oracle["ratios"] == [1.0] * 6 and set(oracle["scores"]) <= {-1.0, 0.0, 1.0}
    for score, best, ratio in zip(random["scores"], oracle["scores"], random["ratios"], strict=True):
        assert ratio == (1.0 if best == -1 else (score + 1) / (best + 1))


def test_war_whole_game_ratio_puts_a_loss_at_zero():
    assert score_ratio(-1, 1, -1) == 0 and score_ratio(0, 1, -1) == 0.5 and score_ratio(1, 1, -1) == 1
    assert score_ratio(-1, -1, -1) == 1 and score_ratio(-1, 0, -1) == 0 and score_ratio(0, 0, -1) == 1
    assert score_ratio(12, 24) == 0.5 and score_ratio(-16, -12) == 0.75  # no worst: the plain ratio


def test_iqm_interval_matches_rliable_definition():
    scores = np.random.default_rng(3).random((3, 8))
    iqm, low, high = iqm_interval(scores)
    assert iqm == pytest.approx(stats.trim_mean(scores.ravel(), 0.25))
    assert low <= iqm <= high and (low, high) == iqm_interval(scores)[1:]  # seeded: reproducible


def test_per_game_intervals_resample_the_deals():
    deals = np.random.default_rng(5).random(12)
    # One run, or three runs that play every deal alike: resampling runs alone gives no width.
    for matrix in (deals[None, :], np.tile(deals, (3, 1))):
        figures = intervals(matrix, reps=200)
        for key in ("iqm", "mean"):
            point, low, high = figures[key]
            assert low < point < high, (matrix.shape, key, figures[key])
    # The same deals, the same figure: no spread to report.
    assert intervals(np.full((2, 6), 0.75), reps=200)["mean"] == (0.75, 0.75, 0.75)


EXTREMES = ([0.0] * 10, [1.0] * 10, [0.0] * 9 + [1.0], [1.0] * 9 + [0.0], [0.0, 1.0], [1.0])


@pytest.mark.parametrize("ratios", EXTREMES)
def test_intervals_stay_within_zero_and_one(ratios):
    mean, low, high = mean_ci95(ratios)  # evaluate's table
    assert 0 <= low <= mean <= high <= 1
    entry = _agent_entry([ratios], [0.0])  # the baselines' table and figure
    for point, key in (("mean", "ci95"), ("iqm", "iqm_ci95")):
        low, high = entry[key]
        assert 0 <= low <= entry[point] <= high <= 1
    if len(set(ratios)) > 1:
        assert entry["ci95"][1] > entry["ci95"][0]


def test_each_game_names_the_ratio_its_deals_are_scored_by(run):
    _, out, _ = run
    games = {g["game"]: g for g in json.loads((out / "baselines.json").read_text())["games"]}
    assert games["dominion"]["ratio"] == "fewest turns (oracle optimum) / turns taken"
    assert games["modern_art"]["ratio"] == "score / oracle bound"  # its plans are not optima
    assert games["cribbage"]["ratio"] == "score / oracle optimum"


def test_each_games_baseline_gives_the_published_table():
    # The suites, budgets, training aids and deals of the table in the docs are the games' own
    # (GameSpec.baseline): the defaults of `tabletop-gym baselines` make that table again.
    from pathlib import Path

    from tabletop_gym.training.baselines import default_episodes, default_suites
    from tabletop_gym.training.games import get_game

    published = json.loads((Path(__file__).parents[1] / "docs" / "baselines.json").read_text())["games"]
    assert default_suites() == [g["suite"] for g in published]
    for game in published:
        baseline = get_game(game["game"]).baseline
        assert baseline.suite == game["suite"] and baseline.steps == game["steps"]
        assert baseline.training_aids == game["training_aids"]
        size = len(suites.load(game["suite"], replay=False))
        assert (baseline.episodes or size) == game["deals"]
    assert default_episodes() == {"war-r6s2-v0": 100}


def test_a_baseline_names_one_of_its_games_suites():
    import dataclasses

    from tabletop_gym.training.games import Baseline, get_game

    spec = get_game("cribbage")
    with pytest.raises(ValueError, match="baseline suite war-r6s2-v0 is none of cribbage's suites"):
        dataclasses.replace(spec, baseline=Baseline("war-r6s2-v0", 100))
    with pytest.raises(ValueError, match="baseline suite nmbr9-v1 is none of cribbage's suites"):
        dataclasses.replace(spec, baseline=Baseline("cribbage-v0", 100, large_suite="nmbr9-v1"))


def test_the_curve_keeps_snapshots_at_1_2_5_times_each_power_of_ten():
    assert baselines.curve_steps(10_000_000) == [
        m * 10**k for k in range(4, 7) for m in (1, 2, 5)
    ]
    assert baselines.curve_steps(50_000) == [10_000, 20_000]
    assert baselines.curve_steps(10_000) == [] and baselines.curve_steps(256) == []


def test_the_large_budget_is_a_hundred_times_the_small_one_on_the_suites_at_target_size():
    from tabletop_gym.training.games import LARGE_FACTOR, game_names, get_game

    assert LARGE_FACTOR == 100
    for name in game_names():
        baseline = get_game(name).baseline
        if baseline is None:
            continue
        suite_id, steps, _ = baseline.budget("large")
        # Modern Art has no native vector environment: its large budget is 10x (the docs say why).
        assert steps >= (10 if name == "modern_art" else LARGE_FACTOR) * baseline.steps
        size = len(suites.load(suite_id, replay=False))
        assert size == suites.definition(suite_id).target_size, suite_id
    with pytest.raises(ValueError, match="budget 'huge': expected one of small, large"):
        get_game("war").baseline.budget("huge")


def test_a_large_run_trains_with_the_vector_trainer_and_draws_its_learning_curve(tmp_path):
    from tabletop_gym.training.train import snapshot_steps

    out = tmp_path / "large"
    # Seed 0 trained alone first, as side-by-side seeds are: the command then reuses it.
    model = baselines.train_seed("nmbr9-small-v0", 0, out, "large", steps=20_000, progress=False)
    config = json.loads((model.parent / "config.json").read_text())
    assert config["trainer"] == "vector" and config["steps"] == 20_000
    kept = snapshot_steps(model.parent)
    assert [step for step, _ in kept] and all(step >= 10_000 for step, _ in kept)
    stamp = model.stat().st_mtime_ns
    argv = ["baselines", "--budget", "large", "--suites", "nmbr9-small-v0", "--seeds", "2"]
    argv += ["--steps", "20000", "--episodes", "3", "--out", str(out), "--no-progress"]
    assert _baselines(argv) == 0
    assert model.stat().st_mtime_ns == stamp
    report = json.loads((out / "baselines.json").read_text())
    game = report["games"][0]
    assert report["budget"] == game["budget"] == "large" and game["agents"][PPO]["trainer"] == "vector"
    curve = game["curve"]
    assert curve["deals"] == 3 and len(curve["runs"]) == 2
    for run, ratios in zip(curve["runs"], game["agents"][PPO]["ratios"], strict=True):
        assert run["steps"] == sorted(run["steps"]) and len(run["steps"]) == len(run["mean"]) >= 2
        # The last point is the finished model, on the same deals the table played.
        assert run["mean"][-1] == pytest.approx(np.mean(ratios))
        assert all(0 <= m <= 1 for m in run["mean"])
    assert (out / "learning-nmbr9.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

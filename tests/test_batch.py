"""Batch solving (``solve GAME --deals SPEC --out FILE``): seed ranges and deal files, one replayed
result a line, resuming, clear errors; and the same on a local Ray (identical lines, retries,
failures reported, ``evaluate --ray``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from tabletop_gym.envs.war.rules import WarRules
from tabletop_gym.oracles import cribbage
from tabletop_gym.oracles.war import search
from tabletop_gym.suites import replay_score
from tabletop_gym.training import batch
from tabletop_gym.training.cli import main

WAR = ["war", "--ranks", "6", "--suits", "2"]  # the 12-card whole game: exact, milliseconds a deal
WAR_RULES = WarRules(6, 2)
WAR_KWARGS = {"ranks": 6, "suits": 2, "face_down": 3, "pickup": "winner_first", "max_tricks": 10_000}
KNOWN = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"  # optimum 112 (the README's deal)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _solve(*argv: str) -> int:
    return main(["solve", *argv, "--no-progress"])


def _war_deal(seed: int) -> str:
    env = gym.make("tabletop/War-v0", ranks=6, suits=2, reveal_deal=True)
    return env.reset(seed=seed)[1]["deal"]


# ---- the --deals argument ----------------------------------------------------------------------------


def test_a_seed_range_and_a_file_are_told_apart(tmp_path):
    assert batch.deals_arg("3:7") == range(3, 7)
    listed = tmp_path / "deals.txt"
    listed.write_text(KNOWN + "\n")
    assert batch.deals_arg(str(listed)) == listed


@pytest.mark.parametrize(
    "spec, message",
    [
        ("5:2", "holds no seed"),
        ("4:4", "holds no seed"),
        ("a:b", "is not a seed range or a file"),
        ("-1:3", "seeds must be from 0"),
        ("no-such-file.txt", "no file named no-such-file.txt"),
    ],
)
def test_a_malformed_spec_is_one_clear_line(spec, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["solve", *WAR, f"--deals={spec}", "--out", "r.jsonl"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "--deals" in err and len(err.strip().splitlines()) == 1


# ---- serial runs ----------------------------------------------------------------------------------------


def test_each_line_is_the_oracle_result_of_the_seeds_deal_and_replays(tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    assert _solve(*WAR, "--deals", "0:6", "--out", str(out)) == 0
    lines = _lines(out)
    assert [line["seed"] for line in lines] == list(range(6))
    for line in lines:
        assert line["deal"] == _war_deal(line["seed"])
        expected = search.solve(line["deal"], WAR_RULES)  # the oracle itself, outside the batch
        assert (line["score"], line["bound"], tuple(line["plan"])) == (
            expected.score,
            expected.bound,
            expected.plan,
        )
        assert line["optimal"] == (line["score"] == line["bound"])
        assert replay_score("war", WAR_KWARGS, line["deal"], line["plan"]) == line["score"]
        assert line["game"] == "war" and line["settings"]["ranks"] == 6
        assert line["revision"].startswith("tabletop-gym ")
    summary = capsys.readouterr().out
    assert "6 deals (0 already" in summary and "proven optimal 6 of 6" in summary
    assert "deals/s" in summary and "deals per CPU second" in summary


def test_a_run_resumes_past_the_deals_in_the_file(tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    assert _solve(*WAR, "--deals", "0:3", "--out", str(out)) == 0
    first = out.read_text()
    assert _solve(*WAR, "--deals", "0:5", "--out", str(out)) == 0
    assert out.read_text().startswith(first)  # lines written before are kept as they were
    assert [line["seed"] for line in _lines(out)] == list(range(5))
    assert "5 deals (3 already in" in capsys.readouterr().out.splitlines()[-4]


def test_a_line_cut_short_is_dropped_with_a_warning_and_solved_again(tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    assert _solve(*WAR, "--deals", "0:3", "--out", str(out)) == 0
    whole = out.read_text()
    out.write_text(whole + whole.splitlines()[0][:25])  # an interrupted write of a fourth line
    capsys.readouterr()
    assert _solve(*WAR, "--deals", "0:4", "--out", str(out)) == 0
    err = capsys.readouterr().err.splitlines()
    # One line, as the command's errors are: not Python's warning with a line of the package's source.
    assert [line for line in err if "warning" in line] == [
        line for line in err if line.startswith("tabletop-gym: warning: ") and "line 4 is cut short" in line
    ]
    assert any("line 4 is cut short" in line for line in err) and not any("warn(" in line for line in err)
    lines = _lines(out)
    assert [line["seed"] for line in lines] == [0, 1, 2, 3]
    with pytest.warns(UserWarning, match="line 4 is cut short"):  # from Python, a warning as usual
        out.write_text(whole + whole.splitlines()[0][:25])
        batch.read_done(out, "war", json.loads(whole.splitlines()[0])["settings"])


def test_a_corrupt_line_inside_the_file_stops_the_run_with_its_number(tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    assert _solve(*WAR, "--deals", "0:3", "--out", str(out)) == 0
    rows = out.read_text().splitlines()
    out.write_text("\n".join([rows[0], "{not json", rows[2]]) + "\n")
    before = out.read_text()
    assert _solve(*WAR, "--deals", "0:4", "--out", str(out)) == 2
    assert "line 2 is not a result line" in capsys.readouterr().err
    assert out.read_text() == before  # nothing changed, nothing lost


def test_lines_of_other_settings_are_refused(tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    assert _solve(*WAR, "--deals", "0:2", "--out", str(out)) == 0
    assert _solve("war", "--ranks", "5", "--suits", "2", "--deals", "0:2", "--out", str(out)) == 2
    assert "line 1 answers war with" in capsys.readouterr().err


def test_a_file_of_deals_skips_blank_and_comment_lines(tmp_path):
    listed = tmp_path / "deals.txt"
    listed.write_text(f"# the README's deal\n\n{KNOWN}\n   \n")
    out = tmp_path / "cribbage.jsonl"
    assert _solve("cribbage", "--deals", str(listed), "--out", str(out)) == 0
    (line,) = _lines(out)
    expected = cribbage.solve(KNOWN)
    assert line["seed"] is None and line["deal"] == KNOWN
    assert (line["score"], line["bound"], tuple(line["plan"])) == (
        expected.score,
        expected.bound,
        expected.plan,
    )
    assert line["score"] == 112 and line["optimal"]


def test_a_bad_deal_line_names_its_line_and_what_is_expected(tmp_path, capsys):
    listed = tmp_path / "deals.txt"
    listed.write_text(f"{_war_deal(0)}\n# fine so far\nAAA/222\n")
    assert _solve(*WAR, "--deals", str(listed), "--out", str(tmp_path / "r.jsonl")) == 2
    err = capsys.readouterr().err
    assert "deals.txt line 3" in err and "expected one deal string a line" in err
    assert not (tmp_path / "r.jsonl").exists() or not (tmp_path / "r.jsonl").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--deals", "0:2"], "--deals needs --out FILE"),
        (["--out", "r.jsonl"], "--out is for batch solving"),
        (["--seed", "1", "--deals", "0:2", "--out", "r.jsonl"], "--seed is a one-deal mode"),
        (["--deals", "0:2", "--out", "r.jsonl", "--ray-cpus", "2"], "--ray-cpus sizes a local Ray"),
    ],
)
def test_options_that_do_not_go_together_are_refused(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _solve(*WAR, *argv) == 2
    assert message in capsys.readouterr().err


def test_an_out_that_is_a_folder_is_refused_before_any_work(tmp_path, capsys):
    assert _solve(*WAR, "--deals", "0:2", "--out", str(tmp_path)) == 2
    assert "is a folder; expected a file" in capsys.readouterr().err


def test_deals_that_fail_are_reported_and_the_status_says_so(tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    # The full deck's whole game is beyond the exact search: every deal fails, none is dropped silently.
    assert _solve("war", "--deals", "0:2", "--out", str(out)) == 1
    text = capsys.readouterr().out
    assert "2 failed" in text and text.count("FAILED deal") == 2 and "(seed 1)" in text
    assert out.read_text() == ""


def test_cpus_per_deal_sets_the_oracle_threads_in_a_serial_run(tmp_path):
    import numba

    before = numba.get_num_threads()
    try:
        assert _solve(*WAR, "--deals", "0:1", "--out", str(tmp_path / "r.jsonl"), "--cpus-per-deal", "1") == 0
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


def test_without_ray_installed_ray_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without Ray gives: ImportError
    assert _solve(*WAR, "--deals", "0:2", "--out", str(tmp_path / "r.jsonl"), "--ray") == 2
    err = capsys.readouterr().err.strip()
    assert err == f"tabletop-gym: error: {batch.RAY_MISSING}"
    assert "pip install 'tabletop-gym[ray]'" in err


# ---- on a local Ray ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_a_ray_clusters_gcs_passes_the_address_check(ray_local):
    """The check that refuses a port where something else listens lets a real cluster's GCS through."""
    from tabletop_gym.training import batch

    batch.check_ray_reachable(ray_local.get_runtime_context().gcs_address)


def _without_seconds(lines: list[dict]) -> list[str]:
    return sorted(
        json.dumps({k: v for k, v in line.items() if k != "seconds"}, sort_keys=True) for line in lines
    )


@pytest.mark.parametrize("game", [["cribbage"], WAR])
def test_ray_writes_the_serial_runs_lines(game, ray_local, tmp_path):
    deals = "0:2" if game == ["cribbage"] else "0:8"
    serial, on_ray = tmp_path / "serial.jsonl", tmp_path / "ray.jsonl"
    # Separate caches: each run solves every deal itself.
    assert _solve(*game, "--deals", deals, "--out", str(serial), "--cache", str(tmp_path / "c1")) == 0
    assert (
        _solve(*game, "--deals", deals, "--out", str(on_ray), "--cache", str(tmp_path / "c2"), "--ray") == 0
    )
    assert len(_lines(on_ray)) == len(range(*map(int, deals.split(":"))))
    assert _without_seconds(_lines(on_ray)) == _without_seconds(_lines(serial))


def _war_args(tmp_path: Path) -> argparse.Namespace:
    from tabletop_gym.training.cli import build_parser

    return build_parser().parse_args(
        ["solve", *WAR, "--deals", "0:4", "--out", str(tmp_path / "r.jsonl"), "--cache", str(tmp_path / "c")]
    )


def test_a_worker_that_dies_is_retried_and_a_deal_that_keeps_failing_is_reported(ray_local, tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()

    def flaky(game, args, job):
        if job.seed == 1 and not (marks / "died").exists():
            (marks / "died").touch()
            os._exit(1)  # the worker process dies mid-task
        if job.seed == 2:
            (marks / f"try-{len(list(marks.glob('try-*')))}").touch()
            raise RuntimeError("out of luck")
        return batch.solve_deal(game, args, job)

    args = _war_args(tmp_path)
    report = batch.run_batch(
        "war", args, range(4), tmp_path / "r.jsonl", ray_address="local", progress=False, solver=flaky
    )
    assert (marks / "died").exists()
    assert sorted(line["seed"] for line in _lines(tmp_path / "r.jsonl")) == [0, 1, 3]
    (failure,) = report.failures
    assert failure.job.seed == 2 and "RuntimeError" in failure.error and "out of luck" in failure.error
    assert len(list(marks.glob("try-*"))) == 1 + batch.RAY_RETRIES  # retried, then reported
    assert "FAILED deal" in report.summary() and "(seed 2)" in report.summary()


def test_evaluate_with_ray_reports_the_same_numbers(ray_local, tmp_path, monkeypatch):
    calls = []
    real = batch.presolve

    def spy(*args, **kwargs):
        calls.append(real(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr(batch, "presolve", spy)
    common = ["evaluate", *WAR, "--agent", "greedy,oracle", "--episodes", "6", "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "a"), "--cache", str(tmp_path / "c1")]) == 0
    assert main([*common, "--out", str(tmp_path / "b"), "--cache", str(tmp_path / "c2"), "--ray"]) == 0
    (solved,) = calls
    assert len(solved) == 6  # every deal's result came from Ray
    plain, on_ray = (json.loads((tmp_path / d / "evaluation.json").read_text()) for d in ("a", "b"))
    assert plain["agents"] == on_ray["agents"]
    assert on_ray["agents"]["oracle"]["share_optimal"] == 1.0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cpus-per-deal", "2"], "--cpus-per-deal sizes the Ray tasks"),
        (["--ray-cpus", "2"], "--ray-cpus sizes a local Ray"),
        (["--ray", "--suite", "v0"], "with --suite nothing is solved"),
    ],
)
def test_evaluate_refuses_ray_options_that_do_nothing(argv, message, tmp_path, capsys):
    code = main(["evaluate", *WAR, "--agent", "greedy", "--episodes", "2", "--out", str(tmp_path), *argv])
    assert code == 2 and message in capsys.readouterr().err


def test_options_the_oracle_never_reads_do_not_make_a_file_foreign(tmp_path, capsys):
    out = tmp_path / "nmbr9.jsonl"
    tiny = ["nmbr9", "--variant", "3-1-4", "--grid", "5", "--levels", "2"]
    assert _solve(*tiny, "--deals", "0:2", "--out", str(out)) == 0
    # --max-positions and --no-hindsight serve --unknown only: the per-deal answers are the same.
    assert _solve(*tiny, "--deals", "0:3", "--max-positions", "5", "--no-hindsight", "--out", str(out)) == 0
    assert "3 deals (2 already in" in capsys.readouterr().out
    assert all("max_positions" not in line["settings"] for line in _lines(out))
    # An option the oracle reads still makes the file another question's.
    assert _solve(*tiny, "--deals", "0:3", "--time-limit", "3", "--out", str(out)) == 2
    assert "line 1 answers nmbr9 with" in capsys.readouterr().err

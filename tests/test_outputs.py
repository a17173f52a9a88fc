"""What the commands write (``--out``): one writer at a time, nothing but a regular file read as
existing output, resumed lines checked as written ones are, and no trained model replaced or
resumed on settings that cannot be checked."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from tabletop_gym.core import OutputInUseError, hold_output, read_regular
from tabletop_gym.training.cli import main

WAR = ["war", "--ranks", "6", "--suits", "2"]  # the 12-card whole game: exact, milliseconds a deal


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---- a second writer ------------------------------------------------------------------------------

# Each command that writes, and the output it writes (a folder, or a file).
WRITERS = {
    "train": (["train", *WAR, "--steps", "64", "--n-envs", "2"], "run", True),
    "evaluate": (["evaluate", *WAR, "--agent", "random", "--episodes", "1"], "report", True),
    "demo": (["demo", *WAR, "--steps", "64", "--n-envs", "2", "--episodes", "1"], "demo", True),
    "baselines": (
        ["baselines", "--suites", "war-r6s2-v0", "--seeds", "1", "--steps", "64", "--episodes", "1"],
        "baselines",
        True,
    ),
    "solve --deals": (["solve", *WAR, "--deals", "0:3"], "war.jsonl", False),
    "suite build": (["suite", "build", "war-r6s2-v3", "--size", "2"], "war-r6s2-v3.json", False),
}


@pytest.mark.parametrize("command", WRITERS)
def test_an_output_another_run_writes_is_refused_before_any_work(command, tmp_path, capsys):
    argv, name, folder = WRITERS[command]
    out = tmp_path / name
    if folder:
        out.mkdir()
    # The other run: the test holds the output's lock as a run writing it does.
    with hold_output(out, folder=folder):
        code = main([*argv, "--out", str(out), "--no-progress"])
    assert code == 2
    err = _error(capsys)
    assert f"--out {out} is in use: another run is writing it" in err or (
        f"suite file {out} is in use" in err
    )
    # Nothing was done: no model, no report, no line, no oracle solve.
    if folder:
        assert [p.name for p in out.iterdir() if not p.name.startswith(".")] == []
    else:
        assert not out.exists()
    assert not (tmp_path / "cache").exists()


def test_the_lock_is_the_systems_and_is_freed_when_its_run_ends(tmp_path):
    out = tmp_path / "war.jsonl"
    with hold_output(out):
        with pytest.raises(OutputInUseError, match="in use"):
            with hold_output(out):
                pass
    with hold_output(out):  # released: the next run takes it
        pass


def test_two_spellings_of_one_output_share_its_lock(tmp_path):
    (tmp_path / "war.jsonl").write_text("")
    (tmp_path / "latest.jsonl").symlink_to(tmp_path / "war.jsonl")
    with hold_output(tmp_path / "war.jsonl"):
        with pytest.raises(OutputInUseError):
            with hold_output(tmp_path / "latest.jsonl"):
                pass


def test_an_output_whose_lock_cannot_be_made_is_said_to_be_unwritable(tmp_path):
    with pytest.raises(ValueError, match="cannot be written"):
        with hold_output(Path("/proc/tabletop-gym-test"), folder=True):
            pass


# ---- not a regular file -------------------------------------------------------------------------


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("where", ["/dev/full", "/dev/zero", "fifo"])
def test_solve_refuses_an_out_that_is_not_a_regular_file(where, tmp_path, capsys):
    out = _fifo(tmp_path) if where == "fifo" else Path(where)
    assert main(["solve", *WAR, "--deals", "0:2", "--out", str(out), "--no-progress"]) == 2
    assert f"--out {out} is not a regular file" in _error(capsys)
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("where", ["/dev/zero", "fifo"])
def test_suite_build_refuses_an_out_that_is_not_a_regular_file(where, tmp_path, capsys):
    out = _fifo(tmp_path) if where == "fifo" else Path(where)
    argv = ["suite", "build", "war-r6s2-v3", "--size", "2", "--out", str(out), "--no-progress"]
    assert main(argv) == 2
    assert f"--out {out} is not a regular file" in _error(capsys)


def test_existing_output_is_read_only_from_a_regular_file(tmp_path):
    for path in (Path("/dev/zero"), _fifo(tmp_path), tmp_path):
        with pytest.raises(ValueError, match="is not a regular file"):
            read_regular(path)
    (tmp_path / "r.jsonl").write_bytes(b"{}\n")
    assert read_regular(tmp_path / "r.jsonl") == b"{}\n"


# ---- resumed lines -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "edit",
    [
        {"score": 5, "bound": 5, "optimal": True},  # a win worth 5: War's whole game scores at most 1
        {"optimal": "flip"},  # a proven line said not to be, or the reverse
        {"plan": []},  # a plan that does not play the game out
    ],
)
def test_an_edited_line_is_refused_when_the_run_resumes(edit, tmp_path, capsys):
    out = tmp_path / "war.jsonl"
    assert main(["solve", *WAR, "--deals", "0:3", "--out", str(out), "--no-progress"]) == 0
    lines = _lines(out)
    if edit.get("optimal") == "flip":
        edit = {"optimal": not lines[1]["optimal"]}
    lines[1].update(edit)
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = out.read_text()
    capsys.readouterr()
    assert main(["solve", *WAR, "--deals", "0:4", "--out", str(out), "--no-progress"]) == 2
    assert f"{out} line 2 does not hold" in _error(capsys)
    assert out.read_text() == before  # nothing solved on top of it, nothing lost


# ---- trained models ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A War run of one rollout (one environment, 512 steps), copied by each test that changes it."""
    run = tmp_path_factory.mktemp("trained") / "run"
    argv = ["train", *WAR, "--steps", "64", "--n-envs", "1", "--checkpoint-every", "0", "--no-progress"]
    assert main([*argv, "--out", str(run)]) == 0
    return run


def _copy(trained: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(trained, tmp_path / "run", ignore=shutil.ignore_patterns("tb", ".*")))


def test_a_fresh_run_does_not_replace_another_games_model(trained, tmp_path, capsys):
    run = _copy(trained, tmp_path)
    model = (run / "model.zip").read_bytes()
    code = main(["train", "cribbage", "--steps", "64", "--n-envs", "2", "--out", str(run), "--no-progress"])
    assert code == 2
    assert f"--out {run} holds a model of war tabletop/War-v0" in _error(capsys)
    assert (run / "model.zip").read_bytes() == model


def test_a_fresh_run_does_not_replace_a_model_of_unknown_settings(trained, tmp_path, capsys):
    run = _copy(trained, tmp_path)
    (run / "config.json").unlink()
    argv = ["train", *WAR, "--steps", "64", "--n-envs", "2", "--out", str(run), "--no-progress"]
    assert main(argv) == 2
    assert "holds a model without its config.json" in _error(capsys)


def test_a_fresh_run_of_the_same_settings_trains_again(trained, tmp_path):
    run = _copy(trained, tmp_path)
    argv = ["train", *WAR, "--steps", "64", "--n-envs", "1", "--seed", "3", "--checkpoint-every", "0"]
    assert main([*argv, "--out", str(run), "--no-progress"]) == 0
    assert json.loads((run / "config.json").read_text())["seed"] == 3


@pytest.mark.parametrize("config", ["garbage", "[1, 2]", '{"game": "war"}'])
@pytest.mark.parametrize("command", ["train --resume", "evaluate --agent"])
def test_a_config_that_cannot_be_read_stops_the_settings_check(command, config, trained, tmp_path, capsys):
    run = _copy(trained, tmp_path)
    (run / "config.json").write_text(config)
    if command == "train --resume":
        argv = ["train", *WAR, "--steps", "2048", "--n-envs", "2", "--resume", "--out", str(run)]
    else:
        argv = ["evaluate", *WAR, "--agent", str(run), "--episodes", "1", "--out", str(tmp_path / "report")]
    assert main([*argv, "--no-progress"]) == 2
    err = _error(capsys)
    assert f"{run / 'config.json'}" in err and "is not a config.json written by 'tabletop-gym train'" in err
    assert (run / "config.json").read_text() == config


@pytest.mark.parametrize("damage", ["cut in half", "no entries"])
@pytest.mark.parametrize("name", ["model.zip", "checkpoint.zip"])
def test_resuming_from_a_damaged_model_is_one_clear_line(name, damage, trained, tmp_path, capsys):
    run = _copy(trained, tmp_path)
    whole = (run / "model.zip").read_bytes()
    if damage == "cut in half":
        (run / name).write_bytes(whole[: len(whole) // 2])  # the newest of the two: the one resumed from
    else:
        zipfile.ZipFile(run / name, "w").close()  # a save stopped before its first entry (SB3 asserts)
    argv = ["train", *WAR, "--steps", "2048", "--n-envs", "2", "--resume", "--out", str(run), "--no-progress"]
    assert main(argv) == 2
    assert f"--resume: {run / name} is not a whole model saved by 'tabletop-gym train'" in _error(capsys)


def test_training_without_tensorboard_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    """SB3's default logger makes an empty SB3-<time> folder in the system's temporary folder at every
    run that has no log folder of its own (no tensorboard installed)."""
    import importlib.util
    import tempfile

    from tabletop_gym.training.games import get_game
    from tabletop_gym.training.train import train

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tensorboard" else real(name, *a)
    )
    spec = get_game("cribbage")
    train(spec, 64, 0, tmp_path / "run", argparse.Namespace(), n_envs=1, progress=False,
          overrides={"n_steps": 64, "batch_size": 64, "n_epochs": 1})
    assert (tmp_path / "run" / "model.zip").exists()
    assert [p.name for p in scratch.iterdir() if p.name.startswith("SB3-")] == []

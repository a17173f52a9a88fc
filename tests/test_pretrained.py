"""The pretrained agents shipped with the package: every environment id has one, it loads and plays its
id, loading refuses other settings and altered files, the command line seats it (``--agent
pretrained``, ``--opponents pretrained``, a tournament's players), ``pretrained export`` makes an entry
from a train run, and the wheel carries the files."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents import PretrainedError, load_policy, pretrained, shipped
from tabletop_gym.training import cli

IDS = ["tabletop/Cribbage-v0", "tabletop/War-v0", "tabletop/Nmbr9-v0", "tabletop/DominionSolitaire-v0",
       "tabletop/Dominion-v0", "tabletop/ModernArt-v0"]
ROOT = Path(__file__).resolve().parents[1]
# A file of a few hundred kilobytes: the actor's weights only (Nmbr9's, with 1,600 moves on its 20x20
# grid, is the largest: 729 KiB).
MAX_BYTES = 1024 * 1024


def _play(env: gym.Env, agent, seed: int) -> tuple[dict, int]:
    agent.reset(seed=seed)
    observation, info = env.reset(seed=seed)
    moves, done = 0, False
    while not done:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        moves += 1
        done = terminated or truncated
    return info, moves


def test_every_environment_id_has_a_pretrained_agent_with_its_record() -> None:
    entries = shipped.index()
    assert sorted(entries) == sorted(IDS)
    for env_id, entry in entries.items():
        path = shipped.data_dir() / entry["file"]
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"], env_id
        assert len(data) <= MAX_BYTES, (env_id, len(data))
        assert entry["command"].startswith(f"tabletop-gym train {entry['game']} "), env_id
        assert entry["trainer"] in ("vector", "sb3") and entry["steps"] > 0, env_id
        assert np.isfinite(entry["score"]["mean_score"]) and entry["score"]["episodes"] > 0, env_id
        # Trained at the id's default settings: the settings it records play the id's default game.
        assert shipped.settings_difference(env_id, entry["env_kwargs"], {}) == [], env_id


@pytest.mark.parametrize("env_id", IDS)
def test_each_pretrained_agent_loads_and_plays_an_episode_of_its_id(env_id: str) -> None:
    agent = pretrained(env_id)
    env = gym.make(env_id)
    info, moves = _play(env, agent, seed=3)
    assert moves > 0 and np.isfinite(info["score"])


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path, dict]:
    """A small train run of Dominion against big money (its id's defaults; short games) and the entry
    ``pretrained export`` makes of it: (run, data folder, entry)."""
    folder = tmp_path_factory.mktemp("export")
    run = folder / "run"
    status = cli.main(["train", "dominion", "--opponents", "big-money", "--trainer", "sb3", "--steps", "64",
                       "--n-envs", "2", "--out", str(run), "--checkpoint-every", "0", "--no-progress"])
    assert status == 0
    status = cli.main(["pretrained", "export", str(run), "--id", "tabletop/Dominion-v0", "--into",
                       str(folder / "data"), "--episodes", "2", "--no-progress"])
    assert status == 0
    entry = json.loads((folder / "data" / "index.json").read_text())["tabletop/Dominion-v0"]
    return run, folder / "data", entry


def test_the_pretrained_agent_acts_as_the_run_it_came_from(exported) -> None:
    """An exported file holds the policy exactly: the same moves as the train run's model."""
    run, data, entry = exported
    agent = shipped.load_entry("tabletop/Dominion-v0", entry, data)
    trained = load_policy(run)
    env = gym.make("tabletop/Dominion-v0")
    moves = 0
    for seed in range(3):
        observation, info = env.reset(seed=seed)
        done = False
        while not done:
            assert agent.act(observation, info) == trained.act(observation, info)
            observation, _, terminated, truncated, info = env.step(trained.act(observation, info))
            done, moves = terminated or truncated, moves + 1
    assert moves > 30


def test_settings_other_than_the_trained_ones_are_refused_naming_the_difference() -> None:
    with pytest.raises(PretrainedError, match=r"ranks=13 there, 6 here.*suits=4 there, 2 here"):
        pretrained("tabletop/War-v0", ranks=6, suits=2)
    with pytest.raises(PretrainedError, match=r"num_players=2 there, 4 here"):
        pretrained("tabletop/Dominion-v0", opponents=["big-money"] * 3)
    with pytest.raises(PretrainedError, match=r"target=4 there, 2 here"):
        pretrained("tabletop/DominionSolitaire-v0", target=2)
    with pytest.raises(PretrainedError, match=r"sees observations"):
        pretrained("tabletop/War-v0", observation="hidden")  # shown otherwise: other observations
    with pytest.raises(PretrainedError, match=r"no pretrained agent for 'tabletop/Nope-v0'"):
        pretrained("tabletop/Nope-v0")


def test_the_same_settings_spelled_otherwise_and_other_opponents_are_accepted() -> None:
    # The default kingdom by name, other bots in the other seat, the training aids: the same game.
    assert pretrained("tabletop/Dominion-v0", kingdom="first-game", opponents="smithy-big-money").model
    assert pretrained("tabletop/DominionSolitaire-v0", province_reward=1.0, money_reward=3.0).model
    assert pretrained("tabletop/War-v0", ranks=13, opponent=None).model


def test_a_missing_or_altered_file_is_refused_in_one_line(tmp_path: Path, monkeypatch) -> None:
    data = tmp_path / "data"
    shutil.copytree(shipped.data_dir(), data)
    monkeypatch.setattr(shipped, "data_dir", lambda: data)
    entry = shipped.index()["tabletop/Cribbage-v0"]
    (data / entry["file"]).write_bytes((data / entry["file"]).read_bytes()[:-10])
    with pytest.raises(PretrainedError, match="sha256 differs"):
        pretrained("tabletop/Cribbage-v0")
    (data / entry["file"]).unlink()
    with pytest.raises(PretrainedError, match="is missing"):
        pretrained("tabletop/Cribbage-v0")
    (data / "index.json").write_text("{not json")
    with pytest.raises(PretrainedError, match="cannot be read"):
        pretrained("tabletop/Cribbage-v0")


def test_a_file_of_other_weights_is_refused_even_with_its_checksum(tmp_path: Path, monkeypatch) -> None:
    data = tmp_path / "data"
    shutil.copytree(shipped.data_dir(), data)
    monkeypatch.setattr(shipped, "data_dir", lambda: data)
    entries = shipped.index()
    # War's weights under Cribbage's name, the index updated to match: shapes that do not fit.
    shutil.copy(data / entries["tabletop/War-v0"]["file"], data / entries["tabletop/Cribbage-v0"]["file"])
    entries["tabletop/Cribbage-v0"]["sha256"] = entries["tabletop/War-v0"]["sha256"]
    (data / "index.json").write_text(json.dumps(entries))
    with pytest.raises(PretrainedError, match="cannot be read|does not hold"):
        pretrained("tabletop/Cribbage-v0")


# ---- the command line ---------------------------------------------------------------------------


def _cli(argv: list[str], capsys) -> tuple[int, str, str]:
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_evaluate_agent_pretrained(tmp_path: Path, capsys) -> None:
    status, out, err = _cli(["evaluate", "dominion", "--opponents", "big-money", "--agent",
                             "pretrained,random", "--episodes", "2", "--out", str(tmp_path / "e"),
                             "--no-progress"], capsys)
    assert status == 0, err
    report = json.loads((tmp_path / "e" / "evaluation.json").read_text())
    assert len(report["agents"]["pretrained"]["scores"]) == 2
    assert "pretrained" in out


def test_evaluate_refuses_the_pretrained_agent_on_other_settings_in_one_line(tmp_path: Path, capsys) -> None:
    status, out, err = _cli(["evaluate", "war", "--ranks", "6", "--suits", "2", "--agent", "pretrained",
                             "--episodes", "2", "--out", str(tmp_path / "e"), "--no-progress"], capsys)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and "ranks=13 there, 6 here" in err, err


def test_opponents_pretrained_sits_in_the_other_seat(tmp_path: Path, capsys) -> None:
    status, _, err = _cli(["evaluate", "dominion", "--opponents", "pretrained", "--agent", "random",
                           "--episodes", "2", "--out", str(tmp_path / "e"), "--no-progress"], capsys)
    assert status == 0, err
    status, _, err = _cli(["evaluate", "war", "--ranks", "6", "--suits", "2", "--opponents", "pretrained",
                           "--agent", "random", "--episodes", "2", "--out", str(tmp_path / "w"),
                           "--no-progress"], capsys)
    assert status == 2 and len(err.splitlines()) == 1 and "player pretrained" in err and "ranks" in err, err
    # A table of three players is not the two-player game the Dominion agent learned.
    status, _, err = _cli(["evaluate", "dominion", "--opponents", "pretrained,big-money", "--agent", "random",
                           "--episodes", "1", "--out", str(tmp_path / "d3"), "--no-progress"], capsys)
    assert status == 2 and "players" in err and len(err.splitlines()) == 1, err


def test_a_tournament_seats_the_pretrained_agent(tmp_path: Path, capsys) -> None:
    status, out, err = _cli(["tournament", "modern_art", "--players", "pretrained,greedy", "--games", "2",
                             "--out", str(tmp_path / "t"), "--no-progress"], capsys)
    assert status == 0, err
    assert "pretrained" in out


def test_pretrained_list_prints_each_id_its_score_and_command(capsys) -> None:
    status, out, _ = _cli(["pretrained", "list"], capsys)
    assert status == 0
    for env_id, entry in shipped.index().items():
        assert env_id in out and entry["command"] in out


# ---- export -------------------------------------------------------------------------------------


def test_export_writes_the_policy_and_its_index_entry_from_the_command_train_recorded(exported) -> None:
    run, data, entry = exported
    config = json.loads((run / "config.json").read_text())
    assert config["command"].startswith("tabletop-gym train dominion --opponents big-money --trainer sb3")
    written = (data / entry["file"]).read_bytes()
    assert entry["sha256"] == hashlib.sha256(written).hexdigest() and entry["bytes"] == len(written)
    assert entry["command"] == config["command"] and entry["trainer"] == "sb3"
    assert entry["env_kwargs"] == config["env_kwargs"] and entry["steps"] == config["steps_done"]
    # No suite covers the game against bots: seeded games against the id's default opponent, its win rate.
    score = entry["score"]
    assert score["episodes"] == 2 and "against" in score and "suite" not in score
    assert 0 <= score["share_win"] <= 1
    # The actor only: smaller than the run's model, which keeps the critic and the optimizer's state.
    assert len(written) < (run / "model.zip").stat().st_size / 2


def test_export_refuses_a_run_of_other_settings_or_a_command_that_did_not_make_it(
    exported, tmp_path: Path, capsys
) -> None:
    run = tmp_path / "small"
    assert cli.main(["train", "war", "--ranks", "6", "--suits", "2", "--steps", "64", "--n-envs", "4",
                     "--out", str(run), "--checkpoint-every", "0", "--no-progress"]) == 0
    capsys.readouterr()
    status, _, err = _cli(["pretrained", "export", str(run), "--id", "tabletop/War-v0", "--into",
                           str(tmp_path / "d"), "--no-progress"], capsys)
    assert status == 2 and "other settings than its defaults" in err and "ranks=6" in err, err
    status, _, err = _cli(["pretrained", "export", str(run), "--id", "tabletop/Cribbage-v0", "--into",
                           str(tmp_path / "d"), "--no-progress"], capsys)
    assert status == 2 and "trained tabletop/War-v0, not tabletop/Cribbage-v0" in err, err
    default_run = exported[0]
    other = "tabletop-gym train dominion --opponents smithy-big-money"
    status, _, err = _cli(["pretrained", "export", str(default_run), "--id", "tabletop/Dominion-v0", "--into",
                           str(tmp_path / "d"), "--command", other, "--no-progress"], capsys)
    assert status == 2 and "give the command that made the run" in err, err
    assert not (tmp_path / "d" / "index.json").exists()


# ---- the wheel ----------------------------------------------------------------------------------


def test_the_wheel_carries_the_pretrained_agents(tmp_path: Path) -> None:
    # Built from a copy of the sources: a build in place would leave build/ and egg-info in the tree.
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.lock", ".*.lock")
    shutil.copytree(ROOT / "tabletop_gym", source / "tabletop_gym", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "MANIFEST.in", "tabletop_gym_cli.py"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(source)], check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("tabletop_gym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "tabletop_gym/agents/data/index.json" in names
    for entry in shipped.index().values():
        assert f"tabletop_gym/agents/data/{entry['file']}" in names

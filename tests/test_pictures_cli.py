"""The pictures the command line makes: ``evaluate --video``, ``solve --draw`` and ``draw``, at tiny
sizes (each command end to end on the smallest settings that show what it must)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tabletop_gym.training.cli import main

WAR = ["war", "--ranks", "6", "--suits", "2", "--max-tricks", "12"]  # a few tricks: short videos


def _frames(path: Path) -> list[Any]:
    import imageio

    with imageio.get_reader(path) as reader:
        return [frame for frame in reader]


# -- evaluate --video -------------------------------------------------------------------------------


def test_evaluate_records_the_first_episodes_of_each_agent(tmp_path: Path, capsys) -> None:
    out = tmp_path / "eval"
    argv = ["evaluate", *WAR, "--agent", "random,greedy", "--episodes", "3", "--video", "2",
            "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    assert f"videos: 4 in {out / 'videos'}" in capsys.readouterr().out
    made = sorted(p.name for p in (out / "videos").iterdir())
    assert made == [f"{agent}-episode-{i}.mp4" for agent in ("greedy", "random") for i in (0, 1)]
    report = json.loads((out / "evaluation.json").read_text())
    assert report["agents"]["random"]["videos"] == [f"videos/random-episode-{i}.mp4" for i in (0, 1)]
    left = sorted(p.name for p in out.iterdir())  # no recording folder left behind
    assert left == [".tabletop-gym.lock", "evaluation.json", "evaluation.png", "videos"]
    frames = _frames(out / "videos" / "greedy-episode-0.mp4")
    assert len(frames) >= 2 and frames[0].shape[2] == 3
    # The scores are those of an evaluation without videos: recording changes nothing of the play.
    again = tmp_path / "plain"
    assert main([*argv[:-4], "--out", str(again), "--no-progress"]) == 0
    plain = json.loads((again / "evaluation.json").read_text())
    for agent in ("random", "greedy"):
        assert plain["agents"][agent]["scores"] == report["agents"][agent]["scores"]


def test_video_names_follow_the_agents_as_file_names() -> None:
    from tabletop_gym.training.evaluate import _video_names

    assert _video_names(["random", "runs/train/war", "runs/train/war/", "./runs/train/war"]) == {
        "random": "random", "runs/train/war": "runs-train-war", "runs/train/war/": "runs-train-war-2",
        "./runs/train/war": "runs-train-war-3",
    }


@pytest.mark.parametrize("value", ["0", "-1", "1001", "two", "1.5"])
def test_a_bad_video_count_is_refused(value: str, tmp_path: Path, capsys) -> None:
    argv = ["evaluate", *WAR, "--agent", "random", "--episodes", "1", "--out", str(tmp_path),
            "--video", value]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "--video" in capsys.readouterr().err
    assert not (tmp_path / "videos").exists()


def test_without_the_video_extra_evaluate_video_names_the_install_command(tmp_path, monkeypatch,
                                                                          capsys) -> None:
    monkeypatch.setitem(sys.modules, "moviepy", None)  # as if moviepy were not installed
    argv = ["evaluate", *WAR, "--agent", "random", "--episodes", "1", "--video", "1",
            "--out", str(tmp_path / "e")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'tabletop-gym[video]'" in err
    assert not (tmp_path / "e" / "evaluation.json").exists()  # refused before any agent played


def test_an_interrupted_recording_leaves_no_video_behind(tmp_path: Path, monkeypatch, capsys) -> None:
    from tabletop_gym.training import evaluate

    played = []
    real = evaluate.play_episode

    def play_then_stop(*args: Any, **kwargs: Any) -> Any:
        if played:
            raise KeyboardInterrupt  # Ctrl-C during the second episode, the first one recorded
        played.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate, "play_episode", play_then_stop)
    out = tmp_path / "eval"
    argv = ["evaluate", *WAR, "--agent", "random", "--episodes", "2", "--video", "2", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 130
    assert not list((out / "videos").iterdir()) and not list(out.glob(".videos-*"))

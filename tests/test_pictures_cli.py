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
    # The oracle plays from the deal, on an environment of its own: recorded alike.
    argv = ["evaluate", *WAR, "--agent", "random,oracle", "--episodes", "3", "--video", "2",
            "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    assert f"videos: 4 in {out / 'videos'}" in capsys.readouterr().out
    made = sorted(p.name for p in (out / "videos").iterdir())
    assert made == [f"{agent}-episode-{i}.mp4" for agent in ("oracle", "random") for i in (0, 1)]
    report = json.loads((out / "evaluation.json").read_text())
    assert report["agents"]["random"]["videos"] == [f"videos/random-episode-{i}.mp4" for i in (0, 1)]
    left = sorted(p.name for p in out.iterdir())  # no recording folder left behind
    assert left == [".tabletop-gym.lock", "evaluation.json", "evaluation.png", "videos"]
    frames = _frames(out / "videos" / "oracle-episode-0.mp4")
    assert len(frames) >= 2 and frames[0].shape[2] == 3
    # The scores are those of an evaluation without videos: recording changes nothing of the play.
    again = tmp_path / "plain"
    assert main([*argv[:-4], "--out", str(again), "--no-progress"]) == 0
    plain = json.loads((again / "evaluation.json").read_text())
    for agent in ("random", "oracle"):
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


# -- solve --draw -----------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"
SOLVES = {  # each the smallest deal its oracle proves at once
    "war": ["solve", "war", "--ranks", "6", "--suits", "2", "--seed", "3"],
    "war-horizon": ["solve", "war", "--horizon", "12", "--seed", "3"],
    "nmbr9": ["solve", "nmbr9", "--variant", "4-1-4", "--grid", "5", "--levels", "3", "--seed", "0"],
    "dominion": ["solve", "dominion", "--target", "1", "--seed", "0"],
}


def _texts(svg: str) -> str:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return "\n".join(t.text or "" for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("game", list(SOLVES))
def test_solve_draws_the_plan_the_same_every_time(game: str, tmp_path: Path, capsys) -> None:
    argv = SOLVES[game]
    first, second, png = tmp_path / "a.svg", tmp_path / "b.SVG", tmp_path / "plan.png"
    assert main([*argv, "--draw", str(first)]) == 0
    assert f"picture  {first}" in capsys.readouterr().out
    assert main([*argv, "--draw", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()  # the same plan, the same picture
    text = _texts(first.read_text())
    assert "proven optimum" in text  # these oracles prove their optimum
    assert main([*argv, "--draw", str(png)]) == 0
    from PIL import Image

    with Image.open(png) as image:
        assert image.format == "PNG" and image.mode == "RGB" and min(image.size) >= 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg", "b.SVG", "plan.png"]  # no temporary left


def test_the_plan_pictures_show_what_the_game_s_plan_is(tmp_path: Path) -> None:
    assert main([*SOLVES["nmbr9"], "--draw", str(tmp_path / "n.svg")]) == 0
    assert "level 0:" in _texts((tmp_path / "n.svg").read_text())  # every level of the layout
    assert main([*SOLVES["dominion"], "--draw", str(tmp_path / "d.svg")]) == 0
    text = _texts((tmp_path / "d.svg").read_text())
    assert "turn 1" in text and "+Province" in text  # the deck turn by turn, up to the Province


def _random_plan(state: Any, seed: int) -> list[int]:
    import numpy as np

    rng, plan = np.random.default_rng(seed), []
    while not state.done:
        action = int(rng.choice(state.legal_actions()))
        state.apply(action)
        plan.append(action)
    return plan


def _unproven(score: float, bound: float, plan: list[Any]) -> Any:
    from tabletop_gym.core import OracleResult

    return OracleResult(score=score, bound=bound, plan=tuple(plan))


def test_a_bound_not_proven_is_drawn_as_a_bound_never_as_an_optimum() -> None:
    from tabletop_gym.envs.cribbage import draw as cribbage
    from tabletop_gym.envs.cribbage.rules import CribbageState, random_deal
    from tabletop_gym.envs.dominion import draw as dominion
    from tabletop_gym.envs.dominion import rules as D
    from tabletop_gym.envs.modern_art import draw as modern_art
    from tabletop_gym.envs.modern_art.rules import ModernArtRules, State
    from tabletop_gym.envs.modern_art.rules import random_deal as art_deal
    from tabletop_gym.envs.nmbr9 import draw as nmbr9
    from tabletop_gym.envs.nmbr9.rules import Nmbr9State
    from tabletop_gym.envs.nmbr9.rules import random_deal as nmbr9_deal
    from tabletop_gym.envs.war import draw as war
    from tabletop_gym.envs.war.rules import WarGame, WarRules, parse_deal
    from tabletop_gym.render import plan_status

    status = plan_status(False, 99)
    deal = str(random_deal(1))
    pictures = [cribbage.draw_plan(deal, _random_plan(CribbageState(random_deal(1)), 1), status).svg()]
    layout = Nmbr9State(nmbr9_deal(1))
    _random_plan(layout, 1)
    pictures.append(nmbr9.draw_levels(layout, status).svg())
    rules = WarRules(6, 2)
    six_tricks = rules.replace(max_tricks=6)  # the horizon of the picture below
    plan = _random_plan(WarGame(parse_deal("243567/765324", rules), six_tricks, controlled=0), 1)
    pictures.append(war.draw_plan("243567/765324", _unproven(10, 12, plan), rules, horizon=6).svg())
    solitaire = D.DominionRules(target=1)
    plan = _random_plan(D.DominionState.start(solitaire, "7"), 1)
    pictures.append(dominion.draw_plan("7", _unproven(-20, -9, plan), solitaire).svg())
    art = ModernArtRules(players=3, deals=(3, 2), round_limit=2)
    deal = art_deal(art, 2)
    plan = _random_plan(State(art, deal), 2)
    pictures.append(modern_art.draw_plan(deal, _unproven(30, 80, plan), art).svg())
    for svg in pictures:
        text = _texts(svg)
        assert "bound" in text and "optimum" not in text, text


@pytest.mark.parametrize(("argv", "message"), [
    (["--draw", "plan.jpg"], "not a picture file: its name ends in .svg"),
    (["--draw", "plan"], "not a picture file"),
    (["--draw", ""], "--draw"),
])
def test_a_bad_picture_file_is_refused_by_its_name(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*SOLVES["war"], *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_draw_is_refused_where_there_is_no_one_plan_or_no_file(tmp_path: Path, capsys) -> None:
    out = str(tmp_path / "p.svg")
    one_plan = "--draw draws one deal's plan"
    cases = [
        (["solve", "war", "--ranks", "6", "--suits", "2", "--deals", "0:2", "--out", str(tmp_path / "r")],
         "--draw is a one-deal mode of solve"),
        (["solve", "war", "--ranks", "4", "--suits", "2", "--most-wars", "3"], one_plan),
        (["solve", "nmbr9", "--variant", "4-1-4", "--grid", "5", "--unknown"], one_plan),
        (["solve", "modern_art", "--free"], one_plan),
    ]
    for argv, message in cases:
        assert main([*argv, "--draw", out]) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    (tmp_path / "folder.svg").mkdir()
    assert main([*SOLVES["war"], "--draw", str(tmp_path / "folder.svg")]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert not (tmp_path / "p.svg").exists()


def test_without_pillow_a_png_is_refused_before_solving_and_an_svg_still_works(tmp_path, monkeypatch,
                                                                                capsys) -> None:
    monkeypatch.setitem(sys.modules, "PIL", None)
    assert main([*SOLVES["war"], "--draw", str(tmp_path / "p.png")]) == 2
    captured = capsys.readouterr()
    assert "pip install 'tabletop-gym[render]'" in captured.err and "deal" not in captured.out
    assert main([*SOLVES["war"], "--draw", str(tmp_path / "p.svg")]) == 0


def test_an_interrupted_picture_write_keeps_the_old_file(tmp_path: Path, monkeypatch) -> None:
    from PIL import Image

    path = tmp_path / "plan.png"
    path.write_bytes(b"the picture of an earlier run")

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Image.Image, "save", interrupted)
    assert main([*SOLVES["war"], "--draw", str(path)]) == 130
    assert path.read_bytes() == b"the picture of an earlier run"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.png"]  # no temporary file left


# -- draw -------------------------------------------------------------------------------------------


def test_draw_makes_the_same_picture_for_the_same_seed_and_moves(tmp_path: Path, capsys) -> None:
    nmbr9 = ["draw", "tabletop/Nmbr9-v0", "--seed", "1", "--steps"]
    for name in ("a.svg", "b.svg", "a.png", "b.png"):
        assert main([*nmbr9, "5", "--out", str(tmp_path / name)]) == 0
    assert "tabletop/Nmbr9-v0, seed 1, 5 moves: " in capsys.readouterr().out
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert "score" in _texts((tmp_path / "a.svg").read_text())
    # Other moves, another picture (else the sameness above proves nothing).
    assert main([*nmbr9, "6", "--out", str(tmp_path / "c.svg")]) == 0
    assert (tmp_path / "c.svg").read_bytes() != (tmp_path / "a.svg").read_bytes()


def test_draw_stops_where_the_game_ends_and_says_so(tmp_path: Path, capsys) -> None:
    argv = ["draw", "tabletop/Cribbage-v0", "--steps", "100000", "--out", str(tmp_path / "end.svg")]
    assert main(argv) == 0
    assert "52 moves (the game ended)" in capsys.readouterr().out
    assert "game over" in _texts((tmp_path / "end.svg").read_text())


@pytest.mark.parametrize(("argv", "message"), [
    (["tabletop/War-v0", "--steps", "-1"], "--steps"),
    (["tabletop/War-v0", "--steps", "100001"], "--steps"),
    (["tabletop/War-v0", "--steps", "two"], "--steps"),
    (["tabletop/War-v0", "--seed", "-3"], "--seed"),
    (["tabletop/Chess-v0"], "invalid choice"),
    (["War-v0"], "invalid choice"),
    (["tabletop/War-v0", "--out", "war.gif"], "not a picture file"),
    (["tabletop/War-v0", "--out", ""], "--out"),
    (["tabletop/War-v0"], "the following arguments are required: --out"),
])
def test_draw_refuses_bad_values_naming_them(argv: list[str], message: str, tmp_path: Path, capsys) -> None:
    out = [] if "--out" in argv or argv == ["tabletop/War-v0"] else ["--out", str(tmp_path / "p.svg")]
    with pytest.raises(SystemExit) as stop:
        main(["draw", *argv, *out])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())

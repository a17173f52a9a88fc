"""Pictures of positions: ``render_mode="rgb_array"`` frames and ``svg()`` for every environment id.

The pictures must be well formed (frames ``(H, W, 3)`` uint8, SVG that parses), a function of the
position alone (the same position, the same picture), and show only what the player sees: a hidden
twin (``hidden_twins``: the same position but for what the player may not know) has the same picture.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import GameOverError
from tabletop_gym.render import Picture

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"

# Every id with settings small enough to play whole episodes quickly, and the defaults once each.
SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("tabletop/Cribbage-v0", {}),
    ("tabletop/Cribbage-v0", {"pile_size": 4}),
    ("tabletop/Nmbr9-v0", {}),
    ("tabletop/Nmbr9-v0", {"max_value": 5, "copies": 2, "cards": 8, "grid": 8}),
    ("tabletop/War-v0", {}),
    ("tabletop/War-v0", {"ranks": 6, "suits": 2, "face_down": 1, "observation": "hidden"}),
    ("tabletop/Dominion-v0", {"turn_limit": 6}),
    ("tabletop/Dominion-v0", {"opponents": ["big-money", "big-money"], "turn_limit": 4}),
    ("tabletop/DominionSolitaire-v0", {"turn_limit": 6}),
    ("tabletop/ModernArt-v0", {}),
    ("tabletop/ModernArt-v0", {"players": 4, "deals": (3, 2), "round_limit": 2}),
]
IDS = [f"{env_id.split('/')[1]}-{i}" for i, (env_id, _) in enumerate(SETTINGS)]
ALL_IDS = sorted({env_id for env_id, _ in SETTINGS})


def _positions(env: gym.Env, seed: int, limit: int = 400) -> Any:
    """Yield after reset and after every step of a seeded random episode (at most ``limit`` steps)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    yield info
    for _ in range(limit):
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        yield info
        if terminated or truncated:
            return


def _check_frame(frame: Any) -> None:
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[0] >= 100 and frame.shape[1] >= 100
    assert frame.min() < frame.max()  # something is drawn


def _check_svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    assert int(root.get("width")) >= 100 and int(root.get("height")) >= 100
    assert root.findall(f"{SVG}text"), "a position is drawn with its numbers"
    return root


def test_the_tested_settings_cover_every_registered_id() -> None:
    registered = sorted(i for i in gym.registry if i.startswith("tabletop/"))
    assert registered == ALL_IDS


@pytest.mark.parametrize(("env_id", "kwargs"), SETTINGS, ids=IDS)
def test_every_position_renders_as_a_frame_and_an_svg(env_id: str, kwargs: dict[str, Any]) -> None:
    env = gym.make(env_id, render_mode="rgb_array", **kwargs)
    frames = 0
    for step, _ in enumerate(_positions(env, seed=3)):
        if step % 7 and step > 2:  # several positions, the first ones and the last among them
            continue
        _check_frame(env.render())
        _check_svg(env.unwrapped.svg())
        frames += 1
    # The final position (game over) draws too.
    _check_frame(env.render())
    assert _check_svg(env.unwrapped._repr_svg_()) is not None
    assert frames >= 2


@pytest.mark.parametrize(("env_id", "kwargs"), SETTINGS, ids=IDS)
def test_every_frame_of_an_environment_has_one_size(env_id: str, kwargs: dict[str, Any]) -> None:
    """A video's frames must agree in size (RecordVideo's encoder refuses others), so the layout
    depends on the settings alone, never on how many cards a hand or a pile holds."""
    env = gym.make(env_id, render_mode="rgb_array", **kwargs)
    sizes = set()
    for seed in (0, 1):
        for _ in _positions(env, seed=seed):
            root = ET.fromstring(env.unwrapped.svg())
            sizes.add((int(root.get("height")), int(root.get("width"))))
    assert len(sizes) == 1, sizes
    assert env.render().shape == (*sizes.pop(), 3)


@pytest.mark.parametrize(("env_id", "kwargs"), SETTINGS, ids=IDS)
def test_the_same_position_gives_the_same_picture(env_id: str, kwargs: dict[str, Any]) -> None:
    first = gym.make(env_id, render_mode="rgb_array", **kwargs)
    second = gym.make(env_id, render_mode="rgb_array", **kwargs)
    pictures = set()
    for step, _ in enumerate(zip(_positions(first, seed=5, limit=30), _positions(second, seed=5, limit=30),
                                 strict=True)):
        svg = first.unwrapped.svg()
        assert svg == second.unwrapped.svg()
        pictures.add(svg)
        if step % 10 == 0:
            np.testing.assert_array_equal(first.render(), second.render())
    # ... and a position that changes changes the picture (else the test above proves nothing).
    assert len(pictures) > 1


HIDDEN = [(s, i) for s, i in zip(SETTINGS, IDS, strict=True) if s[0] != "tabletop/Cribbage-v0"]


@pytest.mark.parametrize(("env_id", "kwargs"), [s for s, _ in HIDDEN], ids=[i for _, i in HIDDEN])
def test_what_the_player_may_not_know_leaves_the_picture_alone(env_id: str, kwargs: dict[str, Any]) -> None:
    env = gym.make(env_id, render_mode="rgb_array", **kwargs).unwrapped
    if env_id == "tabletop/War-v0" and kwargs.get("observation") != "hidden":
        assert env.deal_is_public  # the full observation shows every card: nothing is hidden
        return
    draws = np.random.default_rng(11)
    twins = 0
    for step, _ in enumerate(_positions(env, seed=7, limit=60)):
        if not env.has_position():
            break
        for twin, _, _ in env.hidden_twins(draws):
            twins += 1
            assert twin.svg() == env.svg(), f"a hidden change shows in the picture at step {step}"
            if twins <= 2:
                np.testing.assert_array_equal(twin.render(), env.render())
    assert twins > 0, "no hidden twin was compared"


def test_the_cribbage_deal_is_public_so_its_picture_may_show_every_pile() -> None:
    env = gym.make("tabletop/Cribbage-v0").unwrapped
    assert env.deal_is_public


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_an_unknown_render_mode_is_refused_with_the_modes_named(env_id: str) -> None:
    # ("human" is Gymnasium's to give: gym.make then draws rgb_array frames in a pygame window.)
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi' or 'rgb_array', got 'svg'"):
        gym.make(env_id, render_mode="svg")


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_no_picture_before_reset(env_id: str) -> None:
    env = gym.make(env_id, render_mode="rgb_array").unwrapped
    assert env._repr_svg_() is None
    with pytest.raises(GameOverError, match="reset"):
        env.svg()
    with pytest.raises(GameOverError, match="reset"):
        env.render()


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_gymnasium_checks_the_rgb_array_frames(env_id: str) -> None:
    kwargs = {"turn_limit": 4} if "Dominion" in env_id else {}
    check_env(gym.make(env_id, render_mode="rgb_array", **kwargs).unwrapped, skip_render_check=False)


def test_text_is_escaped_and_alignment_checked() -> None:
    picture = Picture(120, 120)
    picture.text(10, 20, "Q & <K>")
    assert ET.fromstring(picture.svg()).find(f"{SVG}text").text == "Q & <K>"
    with pytest.raises(ValueError, match="align"):
        picture.text(0, 0, "x", align="left")


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          check=False)


def test_without_render_mode_no_drawing_is_loaded() -> None:
    """render_mode=None costs nothing: stepping every environment loads neither the drawing code
    nor Pillow."""
    done = _run(
        "import sys, gymnasium as gym, numpy as np, tabletop_gym\n"
        f"for env_id in {ALL_IDS!r}:\n"
        "    env = gym.make(env_id)\n"
        "    _, info = env.reset(seed=0)\n"
        "    for _ in range(5):\n"
        "        _, _, t, tr, info = env.step(int(np.flatnonzero(info['action_mask'])[0]))\n"
        "        if t or tr: break\n"
        "loaded = sorted(m for m in sys.modules\n"
        "                if m.split('.')[0] == 'PIL' or m.endswith('.draw') or m == 'tabletop_gym.render')\n"
        "print('loaded', loaded)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded []"


def test_without_pillow_the_frame_names_the_extra_and_the_svg_still_works() -> None:
    done = _run(
        "import sys\n"
        "sys.modules['PIL'] = None  # as if Pillow were not installed\n"
        "import gymnasium as gym, tabletop_gym\n"
        "env = gym.make('tabletop/Cribbage-v0', render_mode='rgb_array')\n"
        "env.reset(seed=0)\n"
        "assert env.unwrapped.svg().startswith('<svg')\n"
        "try:\n"
        "    env.render()\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'tabletop-gym[render]'" in done.stdout


def test_the_docs_pictures_are_the_ones_the_docs_commands_draw(tmp_path: Path, monkeypatch) -> None:
    """docs/pictures.md shows one picture per environment id, and plans, and the commands that made
    them (the README shows the same files): each command runs, and draws its picture at the size of
    the one in the docs (pixels may differ by font hinting across platforms; sizes follow the layout
    alone)."""
    import re
    import shlex

    from PIL import Image

    from tabletop_gym.training.cli import main

    page = (ROOT / "docs" / "pictures.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```bash\n(.*?)```", page, flags=re.S) if "docs/pictures/" in b]
    assert len(blocks) == 1
    commands = [shlex.split(line) for line in blocks[0].splitlines() if line.startswith("tabletop-gym ")]
    shown = re.findall(r"!\[[^\]]*\]\((pictures/[a-z0-9-]+\.png)\)", page)
    (tmp_path / "docs" / "pictures").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    drawn = set()
    for argv in commands:
        assert argv[0] == "tabletop-gym" and main(argv[1:]) == 0, argv
        if argv[1] == "draw":
            drawn.add(argv[2])
    made = sorted(f"pictures/{p.name}" for p in (tmp_path / "docs" / "pictures").iterdir())
    assert made == sorted(shown) and drawn == set(ALL_IDS)
    for name in made:
        with Image.open(tmp_path / "docs" / name) as new, Image.open(ROOT / "docs" / name) as committed:
            assert new.size == committed.size and new.mode == committed.mode == "RGB", name


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_record_video_writes_a_playable_file(env_id: str, tmp_path: Path) -> None:
    """Gymnasium's RecordVideo (the [video] extra's moviepy) records any environment; the file reads
    back frame by frame at the environment's frame size."""
    try:
        import imageio
        import moviepy  # noqa: F401  (RecordVideo's encoder)
    except ImportError as missing:  # a failure, not a skip: make install installs the extra
        pytest.fail(f"the [video] extra is not installed ({missing}): run make install")
    from gymnasium.wrappers import RecordVideo

    kwargs = {"turn_limit": 3} if "Dominion" in env_id else {}
    env = RecordVideo(gym.make(env_id, render_mode="rgb_array", **kwargs), str(tmp_path),
                      episode_trigger=lambda episode: episode == 0, video_length=6, disable_logger=True)
    positions = sum(1 for _ in _positions(env, seed=2, limit=10))
    size = env.render().shape
    env.close()
    (video,) = tmp_path.glob("*.mp4")
    with imageio.get_reader(video) as reader:
        frames = [frame for frame in reader]
    # reset's frame, then one per step until video_length steps are recorded
    assert len(frames) == min(6 + 1, positions)
    # ffmpeg pads a frame to a multiple of 16 pixels (macro blocks); never smaller than drawn
    assert all(f.shape[0] >= size[0] and f.shape[1] >= size[1] and f.shape[2] == 3 for f in frames)


TABLES = [
    ("tabletop/War-v0", {"ranks": 6, "suits": 2, "face_down": 1, "observation": "hidden"}),
    ("tabletop/Dominion-v0", {"opponents": ["big-money", "big-money"], "turn_limit": 4}),
    ("tabletop/ModernArt-v0", {"players": 3, "deals": (3, 2), "round_limit": 2}),
]


@pytest.mark.parametrize(("env_id", "kwargs"), TABLES, ids=[t[0].split("/")[1] for t in TABLES])
def test_a_table_draws_each_seat_what_that_seat_sees(env_id: str, kwargs: dict[str, Any]) -> None:
    """The multi-player tables draw any seat's view (``table.picture(seat)``: what the PettingZoo
    environments' seats see); the single-agent environment's picture is its seat's, and what a seat
    may not know (the table's hidden twins for that seat) leaves that seat's picture alone."""
    env = gym.make(env_id, **kwargs).unwrapped
    table = env.table
    draws = np.random.default_rng(5)
    twins = 0
    for _ in _positions(env, seed=4, limit=25):
        assert table.picture(env.seat if hasattr(env, "seat") else 0).svg() == env.svg()
        for seat in range(table.num_seats):
            picture = table.picture(seat).svg()
            _check_svg(picture)
            if table.done:
                continue
            war = env_id == "tabletop/War-v0"  # War's twins hide from both seats alike
            for twin in table.hidden_twins(draws) if war else table.hidden_twins(seat, draws):
                twins += 1
                assert twin.picture(seat).svg() == picture
    assert twins > 0


AEC = [
    ("war_v0", {"ranks": 6, "suits": 2, "face_down": 1, "observation": "hidden"}),
    ("dominion_v0", {"num_players": 3, "turn_limit": 3}),
    ("modern_art_v0", {"players": 3, "deals": (3, 2), "round_limit": 2}),
]


def _aec_module(name: str) -> Any:
    import importlib

    return importlib.import_module(f"tabletop_gym.multiagent.{name}")


@pytest.mark.parametrize(("name", "kwargs"), AEC, ids=[a[0] for a in AEC])
def test_pettingzoo_render_test_passes(name: str, kwargs: dict[str, Any], capsys) -> None:
    from functools import partial

    from pettingzoo.test import render_test

    render_test(partial(_aec_module(name).env, **kwargs))
    assert "\n" in capsys.readouterr().out  # "human" printed the table's text


@pytest.mark.parametrize(("name", "kwargs"), AEC, ids=[a[0] for a in AEC])
def test_a_pettingzoo_frame_is_the_view_of_the_agent_to_act(name: str, kwargs: dict[str, Any]) -> None:
    """PettingZoo renders one frame for the whole table: the view of ``agent_selection``, so what
    that seat may not know (its hidden twins) never changes it, and every frame has one size."""
    aec = _aec_module(name).raw_env(render_mode="rgb_array", **kwargs)
    with pytest.raises(GameOverError, match="reset"):
        aec.render()
    assert aec._repr_svg_() is None
    aec.reset(seed=4)
    rng, draws = np.random.default_rng(4), np.random.default_rng(5)
    table, sizes, seats, twins = aec.table, set(), set(), 0
    for step, agent in enumerate(aec.agent_iter(60)):
        seat = int(agent.split("_")[1])
        seats.add(seat)
        svg = aec.svg()
        assert svg == table.picture(seat).svg() == aec._repr_svg_()
        root = _check_svg(svg)
        sizes.add((int(root.get("height")), int(root.get("width"))))
        if step % 10 == 0:
            frame = aec.render()
            _check_frame(frame)
            np.testing.assert_array_equal(frame, table.picture(seat).rgb_array())
        if not table.done:
            for twin in table.hidden_twins(draws) if name == "war_v0" else table.hidden_twins(seat, draws):
                twins += 1
                assert twin.picture(seat).svg() == svg, f"a hidden change shows in the frame at step {step}"
        observation, _, terminated, truncated, _ = aec.last()
        done = terminated or truncated
        aec.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert len(sizes) == 1 and twins > 0 and len(seats) > 1

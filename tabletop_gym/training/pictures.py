"""The pictures the command line writes: ``solve GAME --draw FILE`` (the oracle's plan) and
``draw GAME`` (a position), as SVG or PNG by the file's suffix. Each game draws in its ``draw.py``
with ``tabletop_gym.render``; nothing of the drawing is imported unless a picture is asked for."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabletop_gym.training.arguments import path_arg

SUFFIXES = (".svg", ".png")


def picture_path(text: str) -> Path:
    """A picture file's path: its suffix says the format (``.svg``, or ``.png`` with Pillow)."""
    path = path_arg(text)
    if path.suffix.lower() not in SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a picture file: its name ends in .svg (SVG text) or .png (a PNG image)"
        )
    return path


picture_path.__name__ = "picture file"


def add_draw_argument(parser: argparse.ArgumentParser) -> None:
    """``solve``'s ``--draw FILE``: the oracle's plan as a picture."""
    parser.add_argument(
        "--draw",
        type=picture_path,
        default=None,
        metavar="FILE",
        help="also draw the oracle's plan into FILE.svg or FILE.png (PNG needs the render extra: "
        "pip install 'tabletop-gym[render]'); one deal only, not with --deals",
    )


def check_picture_output(path: Path, option: str) -> None:
    """Refuse a picture file that cannot be written, or a PNG without Pillow, before any work."""
    from tabletop_gym.training.batch import check_output_file

    check_output_file(path, option)
    if path.suffix.lower() == ".png":
        try:
            import PIL  # noqa: F401
        except ImportError:
            raise ImportError(
                f"{option} {path.name}: a PNG is painted with Pillow: pip install 'tabletop-gym[render]' "
                "(or write an .svg)"
            ) from None


def draw_if_asked(args: argparse.Namespace, make: Callable[[], Any]) -> None:
    """Write ``make()`` (a ``tabletop_gym.render.Picture``) into ``--draw``'s file when one is given."""
    path = getattr(args, "draw", None)
    if path is None:
        return
    from tabletop_gym.render import write_picture

    write_picture(make(), path)
    print(f"picture  {path}")


def refuse_draw(args: argparse.Namespace, why: str) -> None:
    """A solve mode with no one plan to draw refuses ``--draw`` (before its work) and says why."""
    if getattr(args, "draw", None) is not None:
        raise ValueError(f"--draw draws one deal's plan: {why}")


MAX_DRAW_STEPS = 100_000


def env_ids() -> list[str]:
    """Every environment id the package registers, the ``draw`` command's choices."""
    import gymnasium as gym

    import tabletop_gym  # noqa: F401  (registers the environments)

    return sorted(i for i in gym.registry if i.startswith("tabletop/"))


def add_draw_command(commands: argparse._SubParsersAction, help_text: str) -> None:
    """``tabletop-gym draw ENV_ID --seed S --steps K --out FILE``: a position as a picture."""
    from tabletop_gym.training.arguments import int_arg, seed_arg

    sub = commands.add_parser(
        "draw",
        help=help_text,
        description="Draw a position of an environment as the player sees it (env.unwrapped.svg(), "
        "render_mode='rgb_array'): the seeded deal, then K random legal moves drawn from the same seed. "
        "The pictures of the docs and the README are made by this command.",
    )
    sub.add_argument("env_id", choices=env_ids(), metavar="ENV_ID", help=", ".join(env_ids()))
    sub.add_argument("--seed", type=seed_arg, default=0, help="seed of the deal and of the moves (default 0)")
    sub.add_argument(
        "--steps",
        type=int_arg(0, MAX_DRAW_STEPS),
        default=0,
        help=f"random legal moves before drawing, 0-{MAX_DRAW_STEPS:,}; fewer where the game ends first "
        "(default 0: the position reset deals)",
    )
    sub.add_argument(
        "--out", dest="picture", type=picture_path, required=True, metavar="FILE",
        help="the picture: FILE.svg (SVG text) or FILE.png (needs the render extra)",
    )


def draw_command(args: argparse.Namespace) -> int:
    check_picture_output(args.picture, "--out")
    steps = draw_position(args.env_id, args.seed, args.steps, args.picture)
    ended = " (the game ended)" if steps < args.steps else ""
    print(f"{args.env_id}, seed {args.seed}, {steps} moves{ended}: {args.picture}")
    return 0


def draw_position(env_id: str, seed: int, steps: int, path: Path) -> int:
    """Reset ``env_id`` with ``seed``, play up to ``steps`` random legal moves (a generator seeded
    with ``seed``), and write the position's picture to ``path``; the moves played."""
    import gymnasium as gym
    import numpy as np

    from tabletop_gym.render import write_picture

    env = gym.make(env_id)
    _, info = env.reset(seed=seed)
    moves = np.random.default_rng(seed)
    played = 0
    while played < steps:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(moves.choice(legal)))
        played += 1
        if terminated or truncated:
            break
    write_picture(env.unwrapped.picture(), path)
    env.close()
    return played

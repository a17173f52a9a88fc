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

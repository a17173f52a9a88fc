"""Pictures of positions: one drawing, written as SVG text or painted into an RGB frame.

A game's ``draw.py`` lays out a ``Picture`` from what the seat sees (rectangles, lines, text, cards);
``svg()`` writes it as SVG with the standard library alone, ``rgb_array()`` paints the same shapes
with Pillow (the ``[render]`` extra). Pillow rather than SVG rasterised by cairosvg: Pillow ships as
self-contained wheels (FreeType included), while cairosvg needs the system's libcairo, which a fresh
machine or a user's laptop may lack. Describing the shapes once keeps both outputs the same picture.

Nothing here runs, and Pillow is not imported, unless a picture is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
INK = "#1f2328"
PAPER = "#ffffff"
FELT = "#2e6b3f"  # the green of a card table
CARD_BACK = "#5a3fa0"
RED = "#c0392b"
MUTED = "#6e7781"

# Pillow's anchors ("l"eft/"m"iddle/"r"ight, on the "s" baseline) and SVG's text-anchor, by alignment.
_PIL_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}


@dataclass
class Picture:
    """A drawing of ``width`` x ``height`` pixels: shapes painted in the order they were added."""

    width: int
    height: int
    background: str = PAPER
    _shapes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    # -- shapes ---------------------------------------------------------------------------------------
    def rect(self, x: float, y: float, w: float, h: float, fill: str | None = None,
             stroke: str | None = None, radius: float = 0, stroke_width: float = 1) -> None:
        self._shapes.append(("rect", {"x": x, "y": y, "w": w, "h": h, "fill": fill, "stroke": stroke,
                                      "radius": radius, "stroke_width": stroke_width}))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = INK, width: float = 1) -> None:
        self._shapes.append(("line", {"x1": x1, "y1": y1, "x2": x2, "y2": y2, "stroke": stroke,
                                      "width": width}))

    def text(self, x: float, y: float, text: str, size: int = 14, fill: str = INK,
             align: str = "start") -> None:
        """``text`` with its baseline at ``y``, starting, centred or ending at ``x`` (``align``)."""
        if align not in _PIL_ANCHOR:
            raise ValueError(f"align must be one of {sorted(_PIL_ANCHOR)}, got {align!r}")
        self._shapes.append(("text", {"x": x, "y": y, "text": str(text), "size": size, "fill": fill,
                                      "align": align}))

    def card(self, x: float, y: float, label: str, w: float = 30, h: float = 42, face_up: bool = True,
             fill: str = PAPER, ink: str = INK, outline: str = INK, size: int = 16) -> None:
        """A playing card seen from above: its face with ``label``, or its back (``face_up=False``)."""
        if face_up:
            self.rect(x, y, w, h, fill=fill, stroke=outline, radius=4)
            self.text(x + w / 2, y + h / 2 + size * 0.35, label, size=size, fill=ink, align="middle")
        else:
            self.rect(x, y, w, h, fill=CARD_BACK, stroke=INK, radius=4)
            self.rect(x + 4, y + 4, w - 8, h - 8, stroke="#d9ccf5", radius=2)

    # -- outputs --------------------------------------------------------------------------------------
    def svg(self) -> str:
        """The picture as an SVG document (text)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
               f'viewBox="0 0 {self.width} {self.height}" font-family={quoteattr(FONT)}>',
               f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="{self.background}"/>']
        for kind, s in self._shapes:
            if kind == "rect":
                paint = f'fill="{s["fill"] or "none"}"'
                if s["stroke"]:
                    paint += f' stroke="{s["stroke"]}" stroke-width="{_n(s["stroke_width"])}"'
                out.append(f'<rect x="{_n(s["x"])}" y="{_n(s["y"])}" width="{_n(s["w"])}" '
                           f'height="{_n(s["h"])}" rx="{_n(s["radius"])}" {paint}/>')
            elif kind == "line":
                out.append(f'<line x1="{_n(s["x1"])}" y1="{_n(s["y1"])}" x2="{_n(s["x2"])}" '
                           f'y2="{_n(s["y2"])}" stroke="{s["stroke"]}" stroke-width="{_n(s["width"])}"/>')
            else:
                out.append(f'<text x="{_n(s["x"])}" y="{_n(s["y"])}" font-size="{s["size"]}" '
                           f'fill="{s["fill"]}" text-anchor="{s["align"]}">{escape(s["text"])}</text>')
        out.append("</svg>")
        return "\n".join(out)

    def rgb_array(self) -> np.ndarray:
        """The picture painted into a ``(height, width, 3)`` uint8 frame (needs Pillow)."""
        Image, ImageDraw, font = _pillow()
        image = Image.new("RGB", (self.width, self.height), self.background)
        pen = ImageDraw.Draw(image)
        for kind, s in self._shapes:
            if kind == "rect":
                box = (s["x"], s["y"], s["x"] + s["w"], s["y"] + s["h"])
                pen.rounded_rectangle(box, radius=s["radius"], fill=s["fill"], outline=s["stroke"],
                                      width=max(1, round(s["stroke_width"])))
            elif kind == "line":
                pen.line((s["x1"], s["y1"], s["x2"], s["y2"]), fill=s["stroke"],
                         width=max(1, round(s["width"])))
            else:
                pen.text((s["x"], s["y"]), s["text"], fill=s["fill"], font=font(s["size"]),
                         anchor=_PIL_ANCHOR[s["align"]])
        return np.asarray(image, dtype=np.uint8)


def _n(value: float) -> str:
    """A coordinate as SVG writes it: no trailing ``.0``, at most two decimals."""
    return f"{round(float(value), 2):g}"


_FONTS: dict[int, Any] = {}


def _pillow() -> tuple[Any, Any, Any]:
    """Pillow's Image and ImageDraw, and a font of a given size (Pillow's own scalable font, so
    frames do not depend on the fonts a machine has)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as error:
        raise ImportError(
            "render_mode='rgb_array' needs Pillow: pip install 'tabletop-gym[render]'"
        ) from error

    def font(size: int) -> Any:
        if size not in _FONTS:
            _FONTS[size] = ImageFont.load_default(size=size)
        return _FONTS[size]

    return Image, ImageDraw, font


# Level colours (Nmbr9's levels, heat of a count): light to dark, readable under black text.
LEVEL_COLOURS = ("#f4f1e8", "#9ecae1", "#74c476", "#fdae6b", "#fb6a4a", "#bc80bd", "#8c96c6", "#d9d9d9")


def plan_status(optimal: bool, bound: float, unit: str = "") -> str:
    """What an oracle's plan is worth, in a picture: "proven optimum", or the proven bound it is
    measured against ("bound"), never called an optimum where it is not proven one."""
    if optimal:
        return "proven optimum"
    return f"not proven optimal: bound {bound:g}{unit}"


def write_picture(picture: Picture, path: str | Any) -> None:
    """Write ``picture`` to ``path``: SVG text for ``.svg``, a PNG (Pillow, the ``[render]`` extra)
    for ``.png``; atomically, so an interrupted write leaves the old file or none, never half a file."""
    from pathlib import Path

    from tabletop_gym.core import atomic_output, atomic_write_text

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        atomic_write_text(path, picture.svg())
    elif suffix == ".png":
        frame = picture.rgb_array()
        from PIL import Image

        with atomic_output(path) as tmp:
            Image.fromarray(frame).save(tmp, format="PNG", optimize=True)  # small files for the docs
    else:
        raise ValueError(f"a picture is written as .svg or .png, not {path.name!r}")

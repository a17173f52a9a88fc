"""War as a picture, drawn from what a seat observes: the two piles, the trick on the table and the
pot still to place.

Under the hidden observation the cards a player has not seen are drawn face down, and the other
pile is a face-down stack with its count: the picture holds nothing the observation does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_gym.envs.war.rules import RANK_CHARS
from tabletop_gym.render import FELT, PAPER, Picture

_W, _H, _STEP = 22, 32, 17
_SOFT = "#b7d3bf"


def draw(observation: np.ndarray, info: Mapping[str, Any], *, hidden: bool, ranks: int, num_cards: int,
         seat: int = 0) -> Picture:
    """The position seen by ``seat`` from its ``observation`` (the layout of ``WarEnv``'s docstring)
    and the public parts of its ``info`` (``tricks``, ``cards``, ``pots``, ``game_over``)."""
    obs = np.asarray(observation)
    width = 150 + num_cards * _STEP + _W
    pic = Picture(width, 330, background=FELT)
    other = 1 - seat
    pic.text(16, 28, f"trick {int(info['tricks'])}", size=18, fill=PAPER)
    pic.text(width - 16, 28, f"cards you hold {int(info['cards'])}", size=14, fill=PAPER, align="end")
    pot = obs[-ranks:]
    if hidden:
        own = obs[:num_cards]
        faces = [(int(v) - 2) if v >= 2 else None for v in own[own > 0]]
        other_count = int(obs[num_cards])
        _pile(pic, 60, f"your pile ({len(faces)})", faces)
        _pile(pic, 110, f"player {other} ({other_count})", [None] * min(other_count, 1), other_count)
    else:
        piles = [obs[:num_cards], obs[num_cards : 2 * num_cards]]
        mine = [int(v) - 1 for v in piles[0] if v > 0]
        theirs = [int(v) - 1 for v in piles[1] if v > 0]
        _pile(pic, 60, f"your pile ({len(mine)})", mine)
        _pile(pic, 110, f"player {other} ({len(theirs)})", theirs)
    pic.line(16, 160, width - 16, 160, stroke=_SOFT)
    pots = np.asarray(info["pots"])
    for row, (label, p) in enumerate((("you played", seat), (f"player {other} played", other))):
        played = [int(r) for r in pots[p] if r >= 0]
        _pile(pic, 172 + row * 46, label, played)
    left = [r for r in range(ranks) for _ in range(int(pot[r]))]
    _pile(pic, 272, "pot to place", left)
    if info.get("game_over"):
        pic.text(width - 16, 318, "game over", size=14, fill=PAPER, align="end")
    return pic


def _pile(pic: Picture, y: float, label: str, cards: list[int | None], count: int | None = None) -> None:
    """A row of cards (a rank, or None face down) under ``label``; ``count`` written on a stack."""
    pic.text(16, y + 21, label, size=13, fill=PAPER)
    if not cards:
        pic.text(150, y + 21, "(none)", size=12, fill=_SOFT)
    for i, rank in enumerate(cards):
        pic.card(150 + i * _STEP, y, RANK_CHARS[rank] if rank is not None else "", _W, _H,
                 face_up=rank is not None, size=13)
    if count is not None and cards:
        pic.text(150 + _W + 8, y + 21, f"x {count}", size=13, fill=PAPER)

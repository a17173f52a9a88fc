"""Solitaire Cribbage as a picture: the four face-up piles, the stack with its total, the score.

Every card of the deal is face up in the piles, so the engine's state is what the player sees.
"""

from __future__ import annotations

from tabletop_gym.envs.cribbage.rules import NUM_PILES, RANK_CHARS, CribbageState
from tabletop_gym.render import FELT, MUTED, PAPER, Picture

_CARD_W, _CARD_H, _STEP = 30, 42, 34
_LONGEST_STACK = 13


def draw(state: CribbageState) -> Picture:
    """The position: each pile as a row of its cards left to play (the top card first, ringed in
    gold when it fits the stack, with the points it would score), then the stack and its total."""
    # One size for the whole game (a video's frames must agree): the longest pile as dealt, or the
    # longest stack there can be (13 cards: four each of A, 2 and 3, then a 4, make 28).
    longest = max(max(len(state.remaining(p)) + state.heights[p] for p in range(NUM_PILES)), _LONGEST_STACK)
    width = 110 + longest * _STEP + 50  # room for the points of a playable top card
    pic = Picture(width, 70 + (NUM_PILES + 1) * 56 + 20, background=FELT)
    pic.text(16, 28, f"score {state.score}", size=20, fill=PAPER)
    pic.text(width - 16, 28, f"cards played {state.played}/{state.num_cards}", size=14, fill=PAPER,
             align="end")
    for p in range(NUM_PILES):
        y = 50 + p * 56
        pic.text(16, y + 27, f"pile {p}", size=14, fill=PAPER)
        cards = state.remaining(p)
        if not cards:
            pic.text(110, y + 27, "(empty)", size=13, fill="#b7d3bf")
        playable = state.is_legal(p)
        for i, rank in enumerate(cards):
            top = i == 0
            pic.card(110 + i * _STEP, y, RANK_CHARS[rank - 1], _CARD_W, _CARD_H,
                     outline="#f1c40f" if top and playable else "#1f2328")
        if playable:
            points = state.points_if_played(p)
            pic.text(110 + len(cards) * _STEP + 6, y + 27, f"+{points}" if points else "+0", size=13,
                     fill="#f1c40f")
    y = 50 + NUM_PILES * 56 + 10
    pic.line(16, y - 6, width - 16, y - 6, stroke="#b7d3bf")
    pic.text(16, y + 20, f"stack {state.total}", size=14, fill=PAPER)
    for i, rank in enumerate(state.stack):
        pic.card(110 + i * _STEP, y, RANK_CHARS[rank - 1], _CARD_W, _CARD_H)
    if not state.stack:
        pic.text(110, y + 27, "(new stack)" if state.new_stack else "(empty)", size=13, fill="#b7d3bf")
    if state.done:
        pic.text(width - 16, y + 40, "game over", size=14, fill=MUTED)
    return pic

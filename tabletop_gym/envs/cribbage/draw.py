"""Solitaire Cribbage as a picture: the four face-up piles, the stack with its total, the score.

Every card of the deal is face up in the piles, so the engine's state is what the player sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.envs.cribbage.rules import NUM_PILES, RANK_CHARS, CribbageState, Deal, as_deal, value_of
from tabletop_gym.render import FELT, MUTED, PAPER, Picture

_CARD_W, _CARD_H, _STEP = 30, 42, 34
_LONGEST_STACK = 13
_SOFT = "#b7d3bf"


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


def draw_plan(deal: Deal | str, plan: Sequence[int], status: str) -> Picture:
    """An oracle's plan as the stacks it builds: one row per stack, its cards in the order played
    with the points each scores, then the stack's total and points; ``status`` says what the score
    is worth (``tabletop_gym.render.plan_status``)."""
    state = CribbageState(as_deal(deal))
    stacks: list[list[tuple[int, int]]] = [[]]
    for pile in plan:
        card = state.top(pile)
        points = state.apply(pile)  # the engine's own scoring
        stacks[-1].append((card, points))
        if state.new_stack and not state.done:
            stacks.append([])
    longest = max(len(s) for s in stacks)
    width = max(110 + longest * _STEP + 130, 520)
    pic = Picture(width, 60 + len(stacks) * 62 + 14, background=FELT)
    pic.text(16, 30, f"score {state.score}  ({status})", size=20, fill=PAPER)
    pic.text(width - 16, 30, f"{len(stacks)} stacks, {state.played} cards", size=14, fill=PAPER,
             align="end")
    for i, stack in enumerate(stacks):
        y = 50 + i * 62
        pic.text(16, y + 27, f"stack {i + 1}", size=14, fill=PAPER)
        for j, (rank, points) in enumerate(stack):
            pic.card(110 + j * _STEP, y, RANK_CHARS[rank - 1], _CARD_W, _CARD_H)
            if points:
                pic.text(110 + j * _STEP + _CARD_W / 2, y + _CARD_H + 13, f"+{points}", size=11,
                         fill="#f1c40f", align="middle")
        total = sum(value_of(rank) for rank, _ in stack)
        scored = sum(points for _, points in stack)
        pic.text(width - 16, y + 20, f"total {total}", size=13, fill=PAPER, align="end")
        pic.text(width - 16, y + 38, f"{scored} points", size=13, fill="#f1c40f" if scored else _SOFT,
                 align="end")
    return pic

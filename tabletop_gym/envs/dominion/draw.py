"""Dominion as a picture, drawn from a seat's observation: the hand, the play area, the draw pile
and discard counts, the supply, and each player's points.

Drawn from the observation vector alone, so it shows no card the seat may not see (the order of a
draw pile, another player's hand).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.observation import (
    COUNTER,
    DECISION,
    DISCARD,
    DRAW,
    HAND,
    IN_PLAY,
    PLAYER_SIZE,
    PLAYERS,
    SUPPLY,
    TRASH,
)
from tabletop_gym.render import INK, MUTED, Picture

_W, _H = 96, 44
_PER_ROW = 6
_ROWS = 2  # rows of cards for the hand, and for the play area


def _colour(card: int) -> str:
    if card in R.TREASURES:
        return "#f6d365"
    if card == R.CURSE:
        return "#c9a0dc"
    if R.VP[card] > 0:
        return "#a8d5a2"
    return "#e8e2d0"  # an Action


def draw(observation: np.ndarray, kingdom: Sequence[int], num_players: int) -> Picture:
    """The position seen from the observing seat: its hand and the play area as cards with counts,
    its draw pile and discard pile as counts, the supply piles of the game (the base cards and
    ``kingdom``) with cost and cards left, and every player's victory points, turns and hand size."""
    obs = np.rint(np.asarray(observation, dtype=np.float64)).astype(int)
    decision = R.DECISION_NAMES[int(np.argmax(obs[DECISION]))]
    coins, actions, buys = (int(v) for v in obs[COUNTER][:3])
    own_turn = bool(obs[COUNTER][6])
    supply_cards = list(R.BASE_CARDS) + sorted(kingdom)
    per_row = _PER_ROW
    rows = -(-len(supply_cards) // per_row)
    pic = Picture(30 + per_row * (_W + 8), 0)  # its height once the rows are laid out
    turn = "your turn" if own_turn else "another player's turn"
    pic.text(16, 28, f"{turn}: {decision.replace('_', ' ')}", size=18)
    pic.text(16, 50, f"actions {actions}   buys {buys}   coins {coins}", size=14, fill=MUTED)
    y = 66
    y = _cards(pic, y, "hand", obs[HAND])
    y = _cards(pic, y, "in play", obs[IN_PLAY])
    pic.text(16, y + 16, f"draw pile {int(obs[DRAW].sum())}   discard {int(obs[DISCARD].sum())}   "
                         f"trash {int(obs[TRASH].sum())}", size=14)
    y += 34
    pic.text(16, y + 14, "supply", size=14, fill=MUTED)
    y += 22
    for i, card in enumerate(supply_cards):
        x = 16 + (i % per_row) * (_W + 8)
        top = y + (i // per_row) * (_H + 26)
        left = int(obs[SUPPLY][card])
        pic.rect(x, top, _W, _H, fill=_colour(card) if left else "#f0f0f0", stroke=INK, radius=4)
        pic.text(x + _W / 2, top + 18, R.CARD_NAMES[card], size=13, align="middle")
        pic.text(x + 6, top + _H - 7, f"${R.COST[card]}", size=11, fill=MUTED)
        pic.text(x + _W - 6, top + _H - 7, f"{left} left", size=11, fill=INK if left else MUTED, align="end")
    y += rows * (_H + 26)
    for i in range(num_players):
        base = PLAYERS.start + i * PLAYER_SIZE + R.NUM_CARDS
        vp, turns, hand = (int(v) for v in obs[base : base + 3])
        who = "you" if i == 0 else f"player +{i}"
        pic.text(16, y + 16 + i * 20, f"{who}: {vp} VP   {turns} turns   {hand} cards in hand", size=13)
    pic.height = int(y + num_players * 20 + 16)
    return pic


def _cards(pic: Picture, y: float, label: str, counts: np.ndarray) -> float:
    """The cards of ``counts`` (one box per card name, with its count) under ``label``, in ``_ROWS``
    rows whatever they hold: every frame of a game has one size (a video's frames must agree)."""
    pic.text(16, y + 16, label, size=14, fill=MUTED)
    y += 22
    held = [c for c in range(R.NUM_CARDS) if counts[c] > 0]
    if not held:
        pic.text(16, y + 26, "(none)", size=12, fill=MUTED)
    shown = held if len(held) <= _ROWS * _PER_ROW else held[: _ROWS * _PER_ROW - 1]
    for i, card in enumerate(shown):
        x, top = 16 + (i % _PER_ROW) * (_W + 8), y + (i // _PER_ROW) * (_H + 6)
        pic.rect(x, top, _W, _H, fill=_colour(card), stroke=INK, radius=4)
        pic.text(x + _W / 2, top + 20, R.CARD_NAMES[card], size=13, align="middle")
        pic.text(x + _W / 2, top + 37, f"x{int(counts[card])}", size=12, align="middle")
    if len(shown) < len(held):
        more = sum(int(counts[c]) for c in held[len(shown):])
        x, top = 16 + (_PER_ROW - 1) * (_W + 8), y + (_ROWS - 1) * (_H + 6)
        pic.text(x + _W / 2, top + 28, f"+{more} more", size=13, align="middle")
    return y + _ROWS * (_H + 6)

"""Dominion as a picture, drawn from a seat's observation: the hand, the play area, the draw pile
and discard counts, the supply, and each player's points.

Drawn from the observation vector alone, so it shows no card the seat may not see (the order of a
draw pile, another player's hand).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tabletop_gym.core import OracleResult
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


# Each base card its own shade within its kind (treasures gold, victory cards green), so a deck's
# growth reads as colours; kingdom cards share the Action colour and are named in the legend.
_SHADES = {R.COPPER: "#c98a4b", R.SILVER: "#c0c7cf", R.GOLD: "#f1c40f", R.ESTATE: "#cfe8c8",
           R.DUCHY: "#7cc47f", R.PROVINCE: "#2e8b57", R.CURSE: "#c9a0dc"}
_BLOCK = 11


def draw_plan(deal: str, result: OracleResult, rules: R.DominionRules) -> Picture:
    """An oracle's plan as the deck it grows, turn by turn: after each turn, every card the player
    owns as a block (coloured by card, the base cards first), and the cards gained (+) or trashed (-)
    that turn; replayed through the engine. The headline says the turns the plan takes and what
    they are worth: where the oracle proved no optimum it says the bound."""
    state = R.DominionState.start(rules, deal)
    decks: list[tuple[list[int], list[str]]] = []  # (owned after the turn, what changed)
    before = list(state.owned[0])
    for action in result.plan:
        turn = state.turns[0]
        state.apply(action)
        if state.turns[0] != turn or state.done:
            after = list(state.owned[0])
            changed = [("+" if a > b else "-") + R.CARD_NAMES[c] + (f" x{abs(a - b)}" if abs(a - b) > 1
                                                                       else "")
                       for c, (a, b) in enumerate(zip(after, before, strict=True)) if a != b]
            decks.append((after, changed))
            before = after
    order = [c for c in R.BASE_CARDS] + sorted(c for c in range(R.NUM_CARDS) if c not in R.BASE_CARDS)
    largest = max((sum(owned) for owned, _ in decks), default=10)
    width = 90 + largest * _BLOCK + 190
    pic = Picture(max(width, 560), 96 + len(decks) * 24 + 40)
    turns = -result.score
    # Fewer turns is better: the bound is the fewest turns any play can take (the score is minus turns).
    status = "proven optimum" if result.optimal else f"not proven optimal: bound {-result.bound:g} turns"
    pic.text(16, 28, f"{turns:g} turns to own {rules.target} Provinces  ({status})", size=17)
    pic.text(16, 50, "the deck after each turn, and the cards gained (+) or trashed (-)", size=12, fill=MUTED)
    y = 64
    for i, (owned, changed) in enumerate(decks):
        top = y + i * 24
        pic.text(16, top + 15, f"turn {i + 1}", size=12)
        x = 70.0
        for card in order:
            for _ in range(owned[card]):
                pic.rect(x, top + 3, _BLOCK - 1, 16, fill=_SHADES.get(card, _colour(card)), stroke=INK,
                         stroke_width=0.5)
                x += _BLOCK
        pic.text(x + 8, top + 15, f"{sum(owned)}  {' '.join(changed)}", size=11)
    used = [c for c in order if any(owned[c] for owned, _ in decks)]
    x, top = 16.0, y + len(decks) * 24 + 14
    for card in used:
        pic.rect(x, top, _BLOCK - 1, 14, fill=_SHADES.get(card, _colour(card)), stroke=INK, stroke_width=0.5)
        pic.text(x + _BLOCK + 3, top + 12, R.CARD_NAMES[card], size=11)
        x += _BLOCK + 12 + 7 * len(R.CARD_NAMES[card])
    pic.width = int(max(pic.width, x + 10))
    return pic

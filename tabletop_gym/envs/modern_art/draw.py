"""Modern Art as a picture, drawn from a seat's observation: the board of artists (value tokens,
awards, the paintings each seat has bought this round), the seat's own hand, every seat's points
and hand size.

Drawn from the observation vector alone: other seats' hands and face-down paintings appear only as
the counts the observation gives.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.core import OracleResult
from tabletop_gym.envs.modern_art.observation import (
    AWARDS,
    AWARDS_LEFT,
    DECISION,
    DECK_LEFT,
    EXTRA,
    HAND,
    HAND_SIZES,
    HIDDEN_COUNT,
    MAX_PLAYERS,
    OWN_HIDDEN,
    PLAYERS,
    ROUND,
    SCORES,
    SHOWN,
    TURN,
    VALUES,
)
from tabletop_gym.envs.modern_art.rules import (
    ARTISTS,
    NUM_ARTISTS,
    NUM_SYMBOLS,
    PHASES,
    SYMBOLS,
    ModernArtRules,
    State,
)
from tabletop_gym.render import INK, MUTED, PAPER, Picture, plan_status

# One colour per artist, as the game's artists each have their own.
ARTIST_COLOURS = ("#f39c12", "#27ae60", "#c0392b", "#2980b9", "#8e44ad")
_ROW, _NAME_W = 34, 110


def _seat(i: int) -> str:
    return "you" if i == 0 else f"+{i}"


def draw(observation: np.ndarray, rounds: int) -> Picture:
    """The position seen from the observing seat (seats named relative to it: ``you``, then ``+1``
    the next player in turn order, and so on), ``rounds`` being the game's number of rounds."""
    obs = np.asarray(observation).astype(int)
    n = int(obs[PLAYERS])
    shown = obs[SHOWN].reshape(MAX_PLAYERS, NUM_ARTISTS)
    seat_w = 70
    width = 16 + _NAME_W + 60 + 60 + n * seat_w + 20
    pic = Picture(max(width, 520), 0)
    phase = PHASES[int(obs[DECISION])]
    pic.text(16, 28, f"round {int(obs[ROUND]) + 1}/{rounds}   {phase}", size=18)
    pic.text(16, 50, f"deck {int(obs[DECK_LEFT])}   awards left {int(obs[AWARDS_LEFT])}   "
                     f"to play: {_seat(int(obs[TURN]))}", size=13, fill=MUTED)
    y = 66
    columns = ["value", "awards"] + [_seat(i) for i in range(n)]
    xs = [16 + _NAME_W, 16 + _NAME_W + 60] + [16 + _NAME_W + 120 + i * seat_w for i in range(n)]
    for label, x in zip(columns, xs, strict=True):
        pic.text(x, y + 14, label, size=12, fill=MUTED)
    y += 22
    for a in range(NUM_ARTISTS):
        top = y + a * _ROW
        pic.rect(16, top, _NAME_W - 8, _ROW - 6, fill=ARTIST_COLOURS[a], radius=4)
        pic.text(22, top + 19, ARTISTS[a], size=12, fill=PAPER)
        pic.text(xs[0], top + 19, str(int(obs[VALUES][a])), size=14)
        pic.text(xs[1], top + 19, str(int(obs[AWARDS][a])), size=14)
        for i in range(n):
            bought = int(shown[i, a])
            hidden = int(obs[OWN_HIDDEN][a]) if i == 0 else 0
            for j in range(bought + hidden):
                pic.rect(xs[2 + i] + j * 11, top + 6, 9, 16, fill=ARTIST_COLOURS[a] if j < bought else PAPER,
                         stroke=INK)
        if obs[EXTRA][a]:
            pic.text(pic.width - 10, top + 19, "+extra", size=11, fill=MUTED, align="end")
    y += NUM_ARTISTS * _ROW + 4
    face_down = ", ".join(f"{_seat(i)} {int(obs[HIDDEN_COUNT][i])}" for i in range(n))
    pic.text(16, y + 14, f"face down this round: {face_down}", size=12, fill=MUTED)
    y += 24
    scores = "   ".join(f"{_seat(i)} {int(obs[SCORES][i])}" for i in range(n))
    sizes = "   ".join(f"{_seat(i)} {int(obs[HAND_SIZES][i])}" for i in range(n))
    pic.text(16, y + 14, f"points: {scores}", size=13)
    pic.text(16, y + 32, f"cards in hand: {sizes}", size=13)
    y += 44
    pic.text(16, y + 14, "your hand", size=13, fill=MUTED)
    y += 22
    # One column per artist, a line per kind of card held: a fixed layout, so every frame of a game
    # has one size (a video's frames must agree).
    column = (pic.width - 32) // NUM_ARTISTS
    hand = obs[HAND]
    for a in range(NUM_ARTISTS):
        x = 16 + a * column
        held = int(hand[a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS].sum())
        pic.rect(x, y, column - 6, 22, fill=ARTIST_COLOURS[a] if held else "#f0f0f0", stroke=INK, radius=4)
        pic.text(x + (column - 6) / 2, y + 16, f"{ARTISTS[a].split()[0]} {held}", size=12,
                 fill=PAPER if held else MUTED, align="middle")
        lines = [(SYMBOLS[k], int(hand[a * NUM_SYMBOLS + k])) for k in range(NUM_SYMBOLS)]
        for j, (symbol, count) in enumerate((s, c) for s, c in lines if c):
            pic.text(x + 4, y + 40 + j * 17, f"{count} x {symbol}", size=12)
    pic.height = int(y + 24 + NUM_SYMBOLS * 17 + 10)
    return pic


def draw_plan(deal: str, result: OracleResult, rules: ModernArtRules) -> Picture:
    """An oracle's plan as the game it plays, round by round: the plan chooses every seat's moves
    (the most seat 0 can get when everyone plays for it), so the picture is the board after each
    round: each artist's value tokens so far, and every seat's points that round and in all;
    replayed through the engine. The headline says seat 0's points and what they are worth (a
    bound that is not proven says "bound")."""
    state = State(rules, deal)
    values_after: list[list[int]] = []
    for action in result.plan:
        state.apply(action)
        if len(state.round_history) > len(values_after):
            values_after.append(list(state.values))
    n = rules.players
    seat_w, artist_w = 62, 58
    width = 16 + 70 + NUM_ARTISTS * artist_w + 10 + n * seat_w + 10
    pic = Picture(max(width, 560), 66 + (len(values_after) + 1) * _ROW + 14)
    status = plan_status(result.optimal, result.bound, " points")
    pic.text(16, 28, f"you (seat 0): {result.score:g} points  ({status})", size=17)
    pic.text(16, 50, "after each round: the artists' value tokens so far, each seat's points that round "
             "(and in all)", size=12, fill=MUTED)
    y = 66
    x_seats = 16 + 70 + NUM_ARTISTS * artist_w + 10
    for a in range(NUM_ARTISTS):
        x = 16 + 70 + a * artist_w
        pic.rect(x, y, artist_w - 6, 20, fill=ARTIST_COLOURS[a], radius=4)
        pic.text(x + (artist_w - 6) / 2, y + 14, ARTISTS[a].split()[0], size=11, fill=PAPER, align="middle")
    for i in range(n):
        pic.text(x_seats + i * seat_w, y + 14, _seat(i), size=12, fill=MUTED)
    totals = [0] * n
    for r, (values, points) in enumerate(zip(values_after, state.round_history, strict=True)):
        top = y + (r + 1) * _ROW
        pic.text(16, top + 19, f"round {r + 1}", size=13)
        for a in range(NUM_ARTISTS):
            x = 16 + 70 + a * artist_w
            pic.text(x + (artist_w - 6) / 2, top + 19, str(values[a]) if values[a] else "-", size=14,
                     fill=INK if values[a] else MUTED, align="middle")
        for i in range(n):
            totals[i] += points[i]
            pic.text(x_seats + i * seat_w, top + 19, f"+{points[i]} ({totals[i]})", size=12,
                     fill=INK if i == 0 else MUTED)
    return pic

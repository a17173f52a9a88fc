"""Modern Art players beyond random: the greedy player.

Both read only the observation a seat gets from ``ModernArtEnv`` (or ``env.observe``), so they can sit
at any seat, as the evaluated agent or as an opponent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.envs.modern_art.env import (
    AWARDS,
    DECISION,
    EXTRA,
    HAND,
    OWN_HIDDEN,
    PLAYERS,
    SHOWN,
    VALUES,
)
from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    AWARD_ARTIST,
    CHOOSE_ARTIST,
    DOUBLE,
    DRAW,
    HIDDEN,
    NUM_ARTISTS,
    NUM_KINDS,
    NUM_SYMBOLS,
    PASS,
    PLAY,
)

__all__ = ["GreedyAgent", "RandomAgent", "provisional_points"]

_TOKENS = (3, 2, 1)
_AWARD_VALUE = 2


def provisional_points(counts: list[int], own: list[int], values: list[int], awards: list[int]) -> int:
    """What a seat holding ``own`` cards per artist scores if the round ended with these ``counts``
    (default tokens 3, 2, 1 and awards worth 2; ties to the earlier artist)."""
    # One integer per artist that sorts like (more cards, earlier artist): count * 8 + (4 - artist).
    keys = [c * 8 + 4 - a for a, c in enumerate(counts) if c > 0]
    keys.sort(reverse=True)
    total = 0
    for place, key in enumerate(keys[:3]):
        a = 4 - (key & 7)
        if own[a]:
            total += (values[a] + _TOKENS[place] + _AWARD_VALUE * awards[a]) * own[a]
    return total


class GreedyAgent:
    """Plays the card that most increases its round score if the round ended right now.

    For every legal card it adds that card to the displayed cards it can see (its own face-down cards
    included, other players' face-down cards unknown and left out), ranks the artists as the engine
    would, and scores its own cards with each artist's value so far plus this round's token and
    awards. A symbol card on its turn adds what the symbol is expected to bring at once: an award the
    best gain of 2 per own card on a placing artist, a double the gain of one more card of that artist
    if held, a hidden card the gain of its best second card, a draw half a point (one more card later).
    An award goes to the artist that gains it most now (ties: most of its cards in hand). An optional
    card is passed only when every card would lower its provisional score. Ties go to the plain card
    over a symbol card (symbols are kept for later), then to the lowest action.
    """

    name = "greedy"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: np.ndarray, info: dict[str, Any]) -> int:
        mask = info["action_mask"]
        legal = [int(a) for a in np.flatnonzero(mask)]
        if not legal:
            raise ValueError("no legal action in info['action_mask']")
        if len(legal) == 1:
            return legal[0]
        obs = observation.tolist() if isinstance(observation, np.ndarray) else list(observation)
        players = obs[PLAYERS]
        counts = [obs[EXTRA.start + a] for a in range(NUM_ARTISTS)]
        for seat in range(players):
            for a in range(NUM_ARTISTS):
                counts[a] += obs[SHOWN.start + seat * NUM_ARTISTS + a]
        own = [obs[SHOWN.start + a] + obs[OWN_HIDDEN.start + a] for a in range(NUM_ARTISTS)]
        for a in range(NUM_ARTISTS):  # others' face-down cards: artists unknown, left out
            counts[a] += obs[OWN_HIDDEN.start + a]
        values = obs[VALUES]
        awards = obs[AWARDS]
        hand = obs[HAND]
        decision = obs[DECISION]
        base = provisional_points(counts, own, values, awards)

        gains: dict[int, int] = {}  # per artist: many kinds share one

        def gain_with(artist: int) -> int:
            gain = gains.get(artist)
            if gain is None:
                counts[artist] += 1
                own[artist] += 1
                gain = provisional_points(counts, own, values, awards) - base
                counts[artist] -= 1
                own[artist] -= 1
                gains[artist] = gain
            return gain

        if decision == AWARD_ARTIST:
            best, best_key = legal[0], None
            for action in legal:
                if not CHOOSE_ARTIST <= action < PASS:
                    continue
                a = action - CHOOSE_ARTIST
                awards[a] += 1
                gain = provisional_points(counts, own, values, awards) - base
                awards[a] -= 1
                held = sum(hand[a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS])
                key = (gain, held, counts[a])
                if best_key is None or key > best_key:
                    best, best_key = action, key
            return best

        best, best_key = PASS if PASS in legal else legal[0], None
        if PASS in legal:
            best_key = (0.0, 0, 0)
        for action in legal:
            if action >= NUM_KINDS:
                continue
            artist, symbol = divmod(action, NUM_SYMBOLS)
            value = float(gain_with(artist))
            if decision == PLAY and symbol != 0 and symbol != DRAW:
                value += self._symbol_bonus(symbol, artist, hand, counts, own, values, awards, base)
            elif decision == PLAY and symbol == DRAW:
                value += 0.5  # one more card later (as _symbol_bonus says)
            key = (value, 1 if symbol == 0 else 0, -action)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    @staticmethod
    def _symbol_bonus(symbol, artist, hand, counts, own, values, awards, base) -> float:  # noqa: ANN001
        counts[artist] += 1
        own[artist] += 1
        now = provisional_points(counts, own, values, awards)
        bonus = 0.0
        if symbol == DRAW:
            bonus = 0.5
        elif symbol == AWARD:
            gains = []
            for a in range(NUM_ARTISTS):
                awards[a] += 1
                gains.append(provisional_points(counts, own, values, awards) - now)
                awards[a] -= 1
            bonus = float(max(gains))
        elif symbol == DOUBLE:
            held = sum(hand[artist * NUM_SYMBOLS : (artist + 1) * NUM_SYMBOLS]) - 1
            if held > 0:
                counts[artist] += 1
                own[artist] += 1
                bonus = float(max(0, provisional_points(counts, own, values, awards) - now))
                counts[artist] -= 1
                own[artist] -= 1
        elif symbol == HIDDEN:
            gains = [0]
            for a in range(NUM_ARTISTS):
                if sum(hand[a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS]) - (1 if a == artist else 0) > 0:
                    counts[a] += 1
                    own[a] += 1
                    gains.append(provisional_points(counts, own, values, awards) - now)
                    counts[a] -= 1
                    own[a] -= 1
            bonus = float(max(gains))
        counts[artist] -= 1
        own[artist] -= 1
        return bonus

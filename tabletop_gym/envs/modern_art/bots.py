"""Modern Art players beyond random: the greedy player.

Both read only the observation a seat gets from ``ModernArtEnv`` (or ``env.observe``), so they can sit
at any seat, as the evaluated agent or as an opponent.
"""

from __future__ import annotations

from operator import add
from typing import Any

import numpy as np

from tabletop_gym.envs.modern_art.observation import (
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
    PLAIN,
    PLAY,
    ModernArtRules,
    rank_artists,
)

__all__ = ["GreedyAgent", "provisional_points"]


def provisional_points(
    counts: list[int],
    own: list[int],
    values: list[int],
    awards: list[int],
    rules: ModernArtRules | None = None,
) -> int:
    """What a seat holding ``own`` cards per artist scores if the round ended with these ``counts``
    (the value tokens and award value of ``rules``, default ``ModernArtRules()``; ties to the earlier
    artist)."""
    rules = ModernArtRules() if rules is None else rules
    worth = [v + rules.award_value * w for v, w in zip(values, awards, strict=True)]
    return _points(counts, own, worth, rules.value_tokens)


def _points(counts: list[int], own: list[int], worth: list[int], tokens: tuple[int, ...]) -> int:
    """``provisional_points`` with each artist's value and awards summed into ``worth`` once, as the
    greedy player scores many variations of one position."""
    total = 0
    for a, token in zip(rank_artists(counts, len(tokens)), tokens, strict=False):
        if own[a]:
            total += (worth[a] + token) * own[a]
    return total


class GreedyAgent:
    """Plays the card that most increases its round score if the round ended right now.

    For every legal card it adds that card to the displayed cards it can see (its own face-down cards
    included, other players' face-down cards unknown and left out), ranks the artists as the engine
    would, and scores its own cards with each artist's value so far plus this round's token and
    awards. A symbol card on its turn adds what the symbol is expected to bring at once: an award the
    best gain of the award value per own card on a placing artist, a double the gain of one more
    card of that artist if held, a hidden card the gain of its best second card, a draw half a point
    (one more card later).
    An award goes to the artist that gains it most now (ties: most of its cards in hand). An optional
    card is passed only when every card would lower its provisional score. Ties go to the plain card
    over a symbol card (symbols are kept for later), then to the lowest action.
    """

    name = "greedy"

    def __init__(self, rules: ModernArtRules | None = None) -> None:
        """``rules``: the game's rules, whose value tokens and award value the player scores with
        (the observation does not carry them); default ``ModernArtRules()``."""
        rules = ModernArtRules() if rules is None else rules
        self.tokens, self.award_value = tuple(rules.value_tokens), rules.award_value

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: np.ndarray, info: dict[str, Any]) -> int:
        legal = np.asarray(info["action_mask"]).ravel().nonzero()[0].tolist()
        if not legal:
            raise ValueError("no legal action in info['action_mask']")
        if len(legal) == 1:
            return legal[0]
        obs = observation.tolist() if isinstance(observation, np.ndarray) else list(observation)
        own, counts = _cards_seen(obs)
        tokens, award_value = self.tokens, self.award_value
        worth = [v + award_value * w for v, w in zip(obs[VALUES], obs[AWARDS], strict=True)]
        hand = obs[HAND]
        if obs[DECISION] == AWARD_ARTIST:
            return _award_choice(legal, counts, own, hand, len(tokens), award_value)
        return _card_choice(legal, obs[DECISION] == PLAY, counts, own, hand, worth, tokens, award_value)


def _cards_seen(obs: list[int]) -> tuple[list[int], list[int]]:
    """The seat's own cards per artist (displayed and its face-down ones), and every card it can
    see per artist (others' face-down cards: artists unknown, left out)."""
    # map(add) over slices: this runs on every opponent decision and the comprehensions cost more
    own = list(map(add, obs[SHOWN.start : SHOWN.start + NUM_ARTISTS], obs[OWN_HIDDEN]))
    counts = list(map(add, obs[EXTRA], own))
    for start in range(SHOWN.start + NUM_ARTISTS, SHOWN.start + obs[PLAYERS] * NUM_ARTISTS, NUM_ARTISTS):
        counts = list(map(add, counts, obs[start : start + NUM_ARTISTS]))
    return own, counts


def _award_choice(
    legal: list[int], counts: list[int], own: list[int], hand: list[int], placing: int, award_value: int
) -> int:
    """The artist an award gains most now (ties: most of its cards in hand, then most cards seen).
    An award changes no ranking, so it adds its value per own card of a placing artist."""
    placed = rank_artists(counts, placing)
    best, best_key = legal[0], None
    for action in legal:
        if not CHOOSE_ARTIST <= action < PASS:
            continue
        a = action - CHOOSE_ARTIST
        gain = award_value * own[a] if a in placed else 0
        held = sum(hand[a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS])
        key = (gain, held, counts[a])
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best


def _award_card_bonus(
    artist: int, counts: list[int], own: list[int], placing: int, award_value: int
) -> float:
    """What an award card of ``artist`` played on this turn brings at once: as for an award decision,
    once this card is added. ``counts`` and ``own`` are changed and restored in place."""
    counts[artist] += 1
    own[artist] += 1
    best_gain = max([0, *(award_value * own[a] for a in rank_artists(counts, placing))])
    counts[artist] -= 1
    own[artist] -= 1
    return float(best_gain)


def _card_choice(
    legal: list[int],
    play: bool,
    counts: list[int],
    own: list[int],
    hand: list[int],
    worth: list[int],
    tokens: tuple[int, ...],
    award_value: int,
) -> int:
    """The card (or pass) of the best provisional score once played, a symbol's bonus added on the
    seat's own turn (see ``GreedyAgent``). ``counts`` and ``own`` are changed and restored in place."""
    base = _points(counts, own, worth, tokens)
    # Scores after adding one card (or two) of given artists: many kinds share an artist, and a
    # symbol's bonus looks at the same additions again. Closures over the tallies, not methods: this
    # runs on every opponent decision.
    gains: list[int | None] = [None] * NUM_ARTISTS
    pairs: dict[tuple[int, int], int] = {}
    held: list[int] = []  # cards in hand per artist, once a bonus needs them

    def gain_with(artist: int) -> int:
        gain = gains[artist]
        if gain is None:
            counts[artist] += 1
            own[artist] += 1
            gain = gains[artist] = _points(counts, own, worth, tokens) - base
            counts[artist] -= 1
            own[artist] -= 1
        return gain

    def points_with(first: int, second: int) -> int:
        key = (first, second) if first <= second else (second, first)
        points = pairs.get(key)
        if points is None:
            counts[first] += 1
            own[first] += 1
            counts[second] += 1
            own[second] += 1
            points = pairs[key] = _points(counts, own, worth, tokens)
            counts[first] -= 1
            own[first] -= 1
            counts[second] -= 1
            own[second] -= 1
        return points

    def symbol_bonus(symbol: int, artist: int) -> float:
        """What a symbol played on this turn is expected to bring at once (see the class doc)."""
        if symbol == AWARD:
            return _award_card_bonus(artist, counts, own, len(tokens), award_value)
        now = base + gain_with(artist)
        if not held:
            held.extend(sum(hand[i : i + NUM_SYMBOLS]) for i in range(0, NUM_KINDS, NUM_SYMBOLS))
        if symbol == DOUBLE:
            if held[artist] - 1 > 0:
                return float(max(0, points_with(artist, artist) - now))
            return 0.0
        if symbol == HIDDEN:
            best_gain = 0
            for a in range(NUM_ARTISTS):
                if held[a] - (1 if a == artist else 0) > 0:
                    best_gain = max(best_gain, points_with(artist, a) - now)
            return float(best_gain)
        return 0.0  # simultaneous: nothing at once

    if PASS in legal:
        best, best_key = PASS, (0.0, 0, 0)
    else:
        best, best_key = legal[0], None
    for action in legal:
        if action >= NUM_KINDS:
            continue
        artist, symbol = divmod(action, NUM_SYMBOLS)
        value = float(gain_with(artist))
        if play and symbol != PLAIN:
            # a draw: one more card later
            value += 0.5 if symbol == DRAW else symbol_bonus(symbol, artist)
        key = (value, 1 if symbol == PLAIN else 0, -action)
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best

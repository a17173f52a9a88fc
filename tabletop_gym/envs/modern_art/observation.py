"""Where each part of the Modern Art environment's observation lies.

Its own module, below both the environment and the bots: the environment seats the greedy bot by
default, and the bot reads the observation, so neither may import the other for it.
"""

from __future__ import annotations

from tabletop_gym.envs.modern_art.rules import NUM_ARTISTS, NUM_KINDS

MAX_PLAYERS = 5

# Where each part of the observation lies; seats are relative: 0 is the observing seat, 1 the next
# player in turn order, and so on (absent seats read 0).
HAND = slice(0, NUM_KINDS)
SHOWN = slice(HAND.stop, HAND.stop + MAX_PLAYERS * NUM_ARTISTS)  # [seat * 5 + artist]
OWN_HIDDEN = slice(SHOWN.stop, SHOWN.stop + NUM_ARTISTS)
HIDDEN_COUNT = slice(OWN_HIDDEN.stop, OWN_HIDDEN.stop + MAX_PLAYERS)
EXTRA = slice(HIDDEN_COUNT.stop, HIDDEN_COUNT.stop + NUM_ARTISTS)
VALUES = slice(EXTRA.stop, EXTRA.stop + NUM_ARTISTS)
AWARDS = slice(VALUES.stop, VALUES.stop + NUM_ARTISTS)
SCORES = slice(AWARDS.stop, AWARDS.stop + MAX_PLAYERS)
HAND_SIZES = slice(SCORES.stop, SCORES.stop + MAX_PLAYERS)
DECK_LEFT = HAND_SIZES.stop
ROUND = DECK_LEFT + 1
DECISION = ROUND + 1
TURN = DECISION + 1
PLAYERS = TURN + 1
AWARDS_LEFT = PLAYERS + 1
DECISION_ARTIST = AWARDS_LEFT + 1
OBS_SIZE = DECISION_ARTIST + 1

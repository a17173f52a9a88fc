"""Limits, checks and work rates the Modern Art oracles share."""

from __future__ import annotations

from typing import Any

from tabletop_gym.core import check_float, check_int
from tabletop_gym.envs.modern_art.rules import (
    ModernArtRules,
)

GAME = "modern_art"


# Part of the cache key: raise it when a change alters what ``solve`` returns (the artist-path bound
# made it 2, its displayed-cards state 3, the seat's supply from the game model 4, the game model's
# rules of a round's last card and first draw 5, one answer per player to a last simultaneous card
# 6, the order of draws 7, draws only with draw cards in hand and answers apart from double second
# cards 8, deterministic limits in place of clocks 9, a 0 value token paying its artist's value, the
# extra cards in the search key and later rounds planned again 10, the work left over going to LNS
# plans 11), so results cached by an older version are computed again rather than served.
ORACLE_REVISION = 11


# The largest search settings accepted (a ValueError names the parameter beyond them). The beam has no
# clock: its cost grows with its width (a full 2-player game: about 0.02 s per unit of width and
# hand valuation on a 2-core machine; one round about a fifth of that), so the width is bounded
# instead. Time limits are finite and positive, at most a day.
MAX_WIDTH = 4_096


MAX_TIME_LIMIT = 86_400.0


MAX_WORKERS = 64


MAX_FREE_DEALS = 10_000  # stacked (and as many shuffled) deals of the free-deal search


def _check_seat(rules: ModernArtRules, seat: Any) -> int:
    return check_int("seat", seat, 0, rules.players - 1)


def _check_width(width: Any) -> int:
    return check_int("width", width, 1, MAX_WIDTH)


def _check_seconds(name: str, seconds: Any) -> float:
    return check_float(name, seconds, 0, MAX_TIME_LIMIT, low_open=True)


# ``solve`` gives realizing its time as positions: about this many a second on a 2-core machine
# (measured on round searches of 2 and 3 players: 5,000-8,000).
POSITIONS_PER_SECOND = 5_000


# CP-SAT's limits are deterministic time, not seconds (a clock would make bounds and plans depend on
# the machine and its load): this much per second asked for. Measured here with the interleaved
# search on 2 workers: 10 units took 25-31 s on the full-game models of 2 and 3 players (one-round
# models run about a unit a second, and finish well within their limits). The model without scoring
# of ``_seat_supply`` runs faster: its 3-player proofs did 10.5 units in 18 s, about 0.6 a second.
WORK_PER_SECOND = 0.4


SUPPLY_WORK_PER_SECOND = 0.6


def _require_modelled(rules: ModernArtRules) -> None:
    """Refuse rules the oracle cannot represent, rather than give a wrong bound or optimum."""
    if rules.second_card_symbols:
        raise ValueError(
            "the Modern Art oracle cannot model second_card_symbols=True: its bound models assume that "
            "second cards bring no symbol of their own, and the exhaustive search's position key does "
            "not hold interrupted simultaneous plays"
        )

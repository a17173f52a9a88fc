"""Solitaire Cribbage (the card game inside Möbius Front '83): the engine.

The single source of the rules (docs/rules/cribbage.md): deals and deal strings, legal moves,
the forced-play / new-stack rule and the score of every card played. No Gymnasium here.

Cards are ranks 1..13 (A..K); suits never matter. A deal is four piles, top card first.

The engine contract every game's engine offers: ``CribbageRules`` (the rules' settings; solitaire
Cribbage has none to set), ``CribbageState`` with ``legal_actions()``, ``apply(pile)``, ``done``,
``copy()`` and ``scores()``, and ``replay(rules, deal, plan)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tabletop_gym.core import (
    GameOverError,
    IllegalActionError,
    InvalidDealError,
    check_characters,
    check_int,
    make_rng,
    quote_input,
)

RANK_CHARS = "A23456789TJQK"
NUM_PILES = 4
PILE_SIZE = 13
COPIES = 4
STACK_LIMIT = 31
JACK = 11
TARGET = 61


def rank_of(char: str) -> int:
    return RANK_CHARS.index(char) + 1


def value_of(rank: int) -> int:
    """The card's value for the stack total: face value, court cards count 10."""
    return rank if rank < 10 else 10


@dataclass(frozen=True)
class CribbageRules:
    """The rules of solitaire Cribbage as the engine plays them. The game has no variant to choose:
    the class exists so that every engine's ``replay`` reads ``(rules, deal, plan)``. (A smaller
    deal, ``pile_size``, is a property of the deal, not of the rules.)"""


@dataclass(frozen=True)
class Deal:
    """Four piles of ranks, top card first. ``str(deal)`` is the deal string."""

    piles: tuple[tuple[int, ...], ...]

    @property
    def pile_size(self) -> int:
        return len(self.piles[0])

    @property
    def num_cards(self) -> int:
        return sum(len(p) for p in self.piles)

    def __str__(self) -> str:
        return "/".join("".join(RANK_CHARS[r - 1] for r in pile) for pile in self.piles)


def parse_deal(text: str, pile_size: int = PILE_SIZE) -> Deal:
    """Parse and validate a deal string ``P1/P2/P3/P4``.

    A full deal (``pile_size=13``) holds every rank exactly four times. A reduced deal (fewer cards
    per pile, for tests that enumerate every play) holds each rank at most four times.
    """
    check_pile_size(pile_size)
    if not isinstance(text, str):
        raise InvalidDealError(f"a deal must be a string 'P1/P2/P3/P4', got {type(text).__name__}")
    parts = text.strip().split("/")
    shown = quote_input(text)
    if len(parts) != NUM_PILES:
        raise InvalidDealError(
            f"deal {shown} has {len(parts)} pile(s); expected {NUM_PILES} piles separated by '/'"
        )
    for i, part in enumerate(parts):
        check_characters(part, RANK_CHARS, f"pile {i + 1} of deal {shown}")
        if len(part) != pile_size:
            raise InvalidDealError(
                f"pile {i + 1} of deal {shown} has {len(part)} cards; expected {pile_size}"
            )
    counts = Counter("".join(parts))
    for char in RANK_CHARS:
        n = counts.get(char, 0)
        if n > COPIES or (pile_size == PILE_SIZE and n != COPIES):
            expected = "exactly" if pile_size == PILE_SIZE else "at most"
            raise InvalidDealError(f"deal {shown} holds rank {char} {n} times; expected {expected} {COPIES}")
    return Deal(tuple(tuple(rank_of(c) for c in part) for part in parts))


def random_deal(seed: int | np.random.Generator | None = None, pile_size: int = PILE_SIZE) -> Deal:
    """A uniformly shuffled deck dealt into four piles (``pile_size`` cards each, from the top)."""
    check_pile_size(pile_size)
    rng = make_rng(seed)
    deck = np.repeat(np.arange(1, 14), COPIES)
    rng.shuffle(deck)
    cards = deck[: NUM_PILES * pile_size].tolist()
    return Deal(tuple(tuple(cards[i * pile_size : (i + 1) * pile_size]) for i in range(NUM_PILES)))


def check_pile_size(pile_size: int) -> int:
    try:
        return check_int("pile_size", pile_size, 1, PILE_SIZE)
    except ValueError as error:
        raise InvalidDealError(str(error)) from None


def score_card(stack: Sequence[int], total: int) -> int:
    """Points for the card just played: ``stack`` holds the current stack's ranks (the new card last)
    and ``total`` the stack total after it."""
    n = len(stack)
    card = stack[-1]
    points = 0
    if n == 1 and card == JACK:
        points += 2
    if total == 15 or total == STACK_LIMIT:
        points += 2
    same = 1
    while same < n and same < 4 and stack[-1 - same] == card:
        same += 1
    points += (0, 0, 2, 6, 12)[same]
    # Longest run among the last k cards: k distinct ranks spanning exactly k values.
    run = 0
    seen = 0
    low = high = card
    for k in range(1, n + 1):
        rank = stack[-k]
        bit = 1 << rank
        if seen & bit:
            break
        seen |= bit
        low = min(low, rank)
        high = max(high, rank)
        if k >= 3 and high - low == k - 1:
            run = k
    return points + run


class CribbageState:
    """A position: how many cards each pile has given, the current stack, the score so far.

    ``apply(pile)`` plays the pile's top card and returns its points. When no top card fits any more the stack
    is cleared at once, so in every position with cards left at least one move is legal.
    """

    __slots__ = ("deal", "heights", "stack", "total", "score", "played", "history")

    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self.heights = [0] * NUM_PILES  # cards already played from each pile
        self.stack: list[int] = []
        self.total = 0
        self.score = 0
        self.played = 0
        self.history: list[int] = []  # pile index of every move, in order

    @property
    def num_cards(self) -> int:
        return self.deal.num_cards

    @property
    def done(self) -> bool:
        return self.played == self.deal.num_cards

    @property
    def new_stack(self) -> bool:
        """True when a stack has just been cleared (not at the very start of the game)."""
        return not self.stack and self.played > 0

    def top(self, pile: int) -> int:
        """Rank of the pile's top card, 0 if the pile is empty."""
        cards = self.deal.piles[pile]
        h = self.heights[pile]
        return cards[h] if h < len(cards) else 0

    def remaining(self, pile: int) -> tuple[int, ...]:
        return self.deal.piles[pile][self.heights[pile] :]

    def is_legal(self, pile: int) -> bool:
        top = self.top(pile)
        return top > 0 and self.total + value_of(top) <= STACK_LIMIT

    def legal_actions(self) -> list[int]:
        """The piles whose top card fits on the stack, in pile order."""
        return [p for p in range(NUM_PILES) if self.is_legal(p)]

    def action_mask(self) -> np.ndarray:
        return np.array([self.is_legal(p) for p in range(NUM_PILES)], dtype=bool)

    def points_if_played(self, pile: int) -> int:
        """What playing this pile would score now (0 if it is illegal)."""
        if not self.is_legal(pile):
            return 0
        top = self.top(pile)
        return score_card(self.stack + [top], self.total + value_of(top))

    def scores(self) -> list[float]:
        """The solitaire's one seat's score so far: ``[score]``."""
        return [float(self.score)]

    def apply(self, pile: int) -> int:
        """Play the top card of ``pile``; returns the points it scores. Raises
        ``IllegalActionError`` for a pile that is empty or whose card does not fit, ``GameOverError``
        once every card is played."""
        if self.done:
            raise GameOverError("the game is over: all cards have been played")
        if not (isinstance(pile, (int, np.integer)) and 0 <= pile < NUM_PILES):
            raise IllegalActionError(pile, self.legal_actions(), "not a pile index 0-3")
        if not self.is_legal(pile):
            why = "the pile is empty" if self.top(pile) == 0 else "the stack total would exceed 31"
            raise IllegalActionError(int(pile), self.legal_actions(), why)
        pile = int(pile)
        card = self.deal.piles[pile][self.heights[pile]]
        self.heights[pile] += 1
        self.stack.append(card)
        self.total += value_of(card)
        points = score_card(self.stack, self.total)
        self.score += points
        self.played += 1
        self.history.append(pile)
        if not self.done and not any(self.is_legal(p) for p in range(NUM_PILES)):
            self.stack = []
            self.total = 0
        return points

    def copy(self) -> CribbageState:
        other = CribbageState.__new__(CribbageState)
        other.deal = self.deal
        other.heights = list(self.heights)
        other.stack = list(self.stack)
        other.total = self.total
        other.score = self.score
        other.played = self.played
        other.history = list(self.history)
        return other


def as_deal(deal: Deal | str) -> Deal:
    """A deal from a deal string (its pile size read from the string: a reduced deal is accepted)
    or a parsed deal as it is."""
    if isinstance(deal, Deal):
        return deal
    if not isinstance(deal, str):
        raise InvalidDealError(f"a deal must be a string 'P1/P2/P3/P4', got {type(deal).__name__}")
    return parse_deal(deal, pile_size=len(deal.strip().split("/")[0]))


def replay(rules: CribbageRules, deal: Deal | str, plan: Iterable[int]) -> CribbageState:
    """Play ``plan`` (pile indices) from the start of ``deal`` (a :class:`Deal` or a deal string);
    raises on an illegal move."""
    if not isinstance(rules, CribbageRules):
        raise TypeError(f"rules must be CribbageRules, got {type(rules).__name__}")
    state = CribbageState(as_deal(deal))
    for pile in plan:
        state.apply(pile)
    return state

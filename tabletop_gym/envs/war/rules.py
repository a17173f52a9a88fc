"""War: the engine.

The single source of the rules (docs/rules/war.md): rule parameters, deals and deal strings,
tricks with wars and running out, the pickup conventions, the end of the game (all cards, both out,
``max_tricks``, a repeated position under deterministic rules). No Gymnasium here.

Ranks are integers 0..ranks-1 (0 is the lowest, ``2``); suits never matter, so a pile is a sequence
of ranks, top card first. ``WarState`` plays one trick at a time; ``WarGame`` drives a whole game,
deciding every pickup by convention except those of a controlled player, whose pickups wait for
``apply(rank)`` card by card. ``WarGame`` offers the engine contract every game shares
(``legal_actions()``, ``apply(action)``, ``done``, ``scores()``, ``copy()``, and ``replay(rules,
deal, plan)`` here).
"""

from __future__ import annotations

import copy as _copy
import dataclasses
import random as _random
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields

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
from tabletop_gym.settings import option

RANK_CHARS = "23456789TJQKA"
PICKUPS = ("winner_first", "loser_first", "high_first", "random")
DETERMINISTIC_PICKUPS = PICKUPS[:3]

# Why a game ended (WarState.end_reason).
ALL_CARDS = "all_cards"  # the loser had no card to turn face up
BOTH_OUT = "both_out"  # neither player had a card to turn face up: a draw
MAX_TRICKS = "max_tricks"  # stopped after rules.max_tricks tricks: a draw
CYCLE = "cycle"  # a position repeated under deterministic rules: a draw

MAX_SUITS = 64
MAX_FACE_DOWN = 64
# Beyond this a game that never ends (a cycle under the random convention, an agent that keeps the
# game going) would take hours to play out: the limit is what makes every game finish.
MAX_TRICKS_LIMIT = 1_000_000


@dataclass(frozen=True)
class WarRules:
    """The parameters of the rules; defaults are the project's (docs/rules/war.md). Each field is also
    a command-line flag (``--face-down`` for ``face_down``) with the range and choices declared here."""

    ranks: int = option(13, f"ranks in the deck, 1-{len(RANK_CHARS)}", low=1, high=len(RANK_CHARS))
    suits: int = option(4, f"cards of each rank, 1-{MAX_SUITS}", low=1, high=MAX_SUITS)
    face_down: int = option(3, f"face-down cards in a war, 0-{MAX_FACE_DOWN}", low=0, high=MAX_FACE_DOWN)
    pickup: str = option("winner_first", "player 1's convention", choices=PICKUPS)
    max_tricks: int = option(
        10_000, f"a draw after this many tricks, 1-{MAX_TRICKS_LIMIT:,}", low=1, high=MAX_TRICKS_LIMIT
    )

    def __post_init__(self) -> None:
        # Numpy integers are welcome (and stored as Python ints, so variants and JSON read the same);
        # bools, floats and out-of-range values are refused with the parameter named, in the ranges
        # the fields declare (the flags' ranges).
        for f in fields(self):
            declared = f.metadata["option"]
            if declared.choices is not None:
                continue
            try:
                value = check_int(f.name, getattr(self, f.name), int(declared.low), int(declared.high))
            except ValueError as error:
                raise InvalidDealError(str(error)) from None
            object.__setattr__(self, f.name, value)
        if self.ranks * self.suits < 2:
            raise InvalidDealError("a deck needs at least 2 cards (ranks * suits >= 2)")
        if not isinstance(self.pickup, str) or self.pickup not in PICKUPS:
            raise InvalidDealError(f"pickup must be one of {PICKUPS}, got {quote_input(self.pickup)}")

    @property
    def num_cards(self) -> int:
        return self.ranks * self.suits

    @property
    def alphabet(self) -> str:
        return RANK_CHARS[: self.ranks]

    @property
    def deterministic(self) -> bool:
        return self.pickup != "random"

    @property
    def variant(self) -> str:
        """A name for these rules, used as the oracle cache's variant."""
        return f"r{self.ranks}s{self.suits}f{self.face_down}-{self.pickup}-m{self.max_tricks}"

    def replace(self, **changes: object) -> WarRules:
        return dataclasses.replace(self, **changes)


DEFAULT_RULES = WarRules()


@dataclass(frozen=True)
class Deal:
    """Two piles of ranks, top card first. ``str(deal)`` is the deal string ``P0/P1``."""

    piles: tuple[tuple[int, ...], tuple[int, ...]]
    ranks: int = 13

    def __str__(self) -> str:
        return "/".join("".join(RANK_CHARS[r] for r in pile) for pile in self.piles)

    @property
    def num_cards(self) -> int:
        return len(self.piles[0]) + len(self.piles[1])


def parse_deal(text: str | Deal, rules: WarRules = DEFAULT_RULES) -> Deal:
    """Parse and validate a deal string ``P0/P1`` (top card first) for ``rules``.

    Both piles must be non-empty and together hold every rank exactly ``rules.suits`` times. The
    piles may differ in size (a position from the middle of a game is a valid deal).
    """
    if isinstance(text, Deal):
        text = str(text)
    if not isinstance(text, str):
        raise InvalidDealError(f"a deal must be a string 'P0/P1', got {type(text).__name__}")
    # Messages quote a bounded prefix of the deal: a 10 MB deal gives a short message.
    quoted = quote_input(text)
    parts = text.strip().split("/")
    if len(parts) != 2:
        raise InvalidDealError(f"deal {quoted} has {len(parts)} pile(s); expected 2 piles separated by '/'")
    alphabet = rules.alphabet
    for i, part in enumerate(parts):
        check_characters(part, alphabet, f"pile {i} of deal {quoted}")
        if not part:
            raise InvalidDealError(f"pile {i} of deal {quoted} is empty; each player needs a card")
    counts = Counter(parts[0] + parts[1])
    # Every rank that is off, the farthest off first: naming only the first one in rank order
    # blamed a missing 2 for a deal whose fault was four 6s too many.
    wrong = sorted(
        (c for c in alphabet if counts.get(c, 0) != rules.suits),
        key=lambda c: (-abs(counts.get(c, 0) - rules.suits), alphabet.index(c)),
    )
    if wrong:
        held = ", ".join(f"{c} {counts.get(c, 0)} times" for c in wrong)
        raise InvalidDealError(
            f"deal {quoted} holds rank {held}; expected each rank exactly {rules.suits} times "
            f"(ranks={rules.ranks}, suits={rules.suits})"
        )
    piles = tuple(tuple(alphabet.index(c) for c in part) for part in parts)
    return Deal(piles, rules.ranks)  # type: ignore[arg-type]


def random_deal(seed: int | np.random.Generator | None = None, rules: WarRules = DEFAULT_RULES) -> Deal:
    """A shuffled deck dealt alternately, one card each, player 0 first (so piles differ by at most 1)."""
    rng = make_rng(seed)
    deck = np.repeat(np.arange(rules.ranks), rules.suits)
    rng.shuffle(deck)
    cards = deck.tolist()
    return Deal((tuple(cards[0::2]), tuple(cards[1::2])), rules.ranks)


def convention_order(
    pots: Sequence[Sequence[int]], taker: int, pickup: str, rng: _random.Random | None
) -> list[int]:
    """The order (first card goes under the pile first) in which ``taker`` picks up ``pots``.

    ``pots[p]`` holds player p's cards on the table in the order they were played.
    """
    own, other = list(pots[taker]), list(pots[1 - taker])
    if pickup == "winner_first":
        return own + other
    if pickup == "loser_first":
        return other + own
    if pickup == "high_first":
        # Suits never matter, so equal ranks are interchangeable: a plain descending sort suffices.
        return sorted(own + other, reverse=True)
    if pickup == "random":
        if rng is None:
            raise ValueError("the random pickup convention needs a random generator")
        cards = own + other
        rng.shuffle(cards)
        return cards
    raise ValueError(f"unknown pickup convention {pickup!r}; expected one of {PICKUPS}")


@dataclass
class WarState:
    """A position and the trick being played.

    Between tricks ``taker`` is None. ``play_trick()`` turns cards until a player wins the pot (it
    sets ``taker`` and ``to_place``, the pot cards still to go under the taker's pile) or the game
    ends; ``place(rank)`` moves one pot card of that rank to the bottom of the taker's pile.
    """

    rules: WarRules
    piles: list[deque[int]]
    pots: list[list[int]] = field(default_factory=lambda: [[], []])
    to_place: Counter[int] = field(default_factory=Counter)
    taker: int | None = None
    tricks: int = 0
    wars: int = 0
    turned: list[int] = field(default_factory=lambda: [0, 0])  # cards each player has put on the table
    winner: int | None = None  # 0 or 1, or -1 for a draw, None while the game goes on
    end_reason: str | None = None

    @classmethod
    def start(cls, deal: Deal, rules: WarRules = DEFAULT_RULES) -> WarState:
        if deal.ranks != rules.ranks:
            raise InvalidDealError(f"deal has {deal.ranks} ranks but the rules say {rules.ranks}")
        return cls(rules, [deque(deal.piles[0]), deque(deal.piles[1])])

    @property
    def done(self) -> bool:
        return self.winner is not None

    def position(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The two piles in order: what identifies a position between tricks."""
        return tuple(self.piles[0]), tuple(self.piles[1])

    def cards_held(self, player: int) -> int:
        """Cards in the player's pile plus, while they pick up a pot, the pot cards still to place."""
        held = len(self.piles[player])
        if self.taker == player:
            held += sum(self.to_place.values())
        return held

    def horizon_cards(self, player: int) -> int:
        """The player's score when play stops at a horizon: every card once they have won, else the
        cards they hold (none once they have lost)."""
        return self.rules.num_cards if self.winner == player else self.cards_held(player)

    def _end(self, winner: int, reason: str) -> None:
        self.winner = winner
        self.end_reason = reason

    def _turn(self, player: int) -> int:
        rank = self.piles[player].popleft()
        self.pots[player].append(rank)
        self.turned[player] += 1
        return rank

    def play_trick(self) -> int | None:
        """Play the next trick up to its pickup; return the taker, or None if the game ended."""
        if self.done:
            raise GameOverError(f"the game is over ({self.end_reason})")
        if self.taker is not None:
            raise ValueError("the last pot has not been picked up yet")
        self.pots = [[], []]
        while True:
            empty0, empty1 = not self.piles[0], not self.piles[1]
            if empty0 or empty1:
                # Rule 4: a player who must turn a card face up and has none loses; both: a draw.
                if empty0 and empty1:
                    self._end(-1, BOTH_OUT)
                else:
                    self._end(1 if empty0 else 0, ALL_CARDS)
                return None
            up0, up1 = self._turn(0), self._turn(1)
            if up0 != up1:
                taker = 0 if up0 > up1 else 1
                break
            # A war: face-down cards, keeping one to turn face up (rule 3).
            self.wars += 1
            for p in (0, 1):
                for _ in range(max(0, min(self.rules.face_down, len(self.piles[p]) - 1))):
                    self._turn(p)
        self.taker = taker
        self.to_place = Counter(self.pots[0] + self.pots[1])
        self.tricks += 1
        return taker

    def legal_actions(self) -> list[int]:
        """Ranks the taker may put under the pile next (those still in the pot)."""
        return sorted(r for r, n in self.to_place.items() if n > 0)

    def place(self, rank: int) -> None:
        if self.taker is None:
            raise IllegalActionError(rank, [], "no pot is being picked up")
        if not isinstance(rank, (int, np.integer)) or self.to_place.get(int(rank), 0) == 0:
            raise IllegalActionError(rank, self.legal_actions(), "that rank is not in the pot")
        rank = int(rank)
        self.to_place[rank] -= 1
        if self.to_place[rank] == 0:
            del self.to_place[rank]
        self.piles[self.taker].append(rank)
        if not self.to_place:
            self.taker = None

    def place_all(self, order: Iterable[int]) -> None:
        for rank in order:
            self.place(rank)
        if self.taker is not None:
            raise ValueError("the order given does not place every pot card")

    def stop_if_limit(self) -> bool:
        """Between tricks: end the game as a draw if ``max_tricks`` tricks have been played."""
        if not self.done and self.taker is None and self.tricks >= self.rules.max_tricks:
            # A player holding every card has already won: that is decided at the next trick.
            if self.piles[0] and self.piles[1]:
                self._end(-1, MAX_TRICKS)
                return True
        return False


class WarGame:
    """A whole game: every pickup by convention, except the ``controlled`` players'.

    With ``controlled=None`` the game runs to its end at once (a simulation); under deterministic
    rules a repeated position ends it as a draw (``cycle_start``/``cycle_period`` say where). With a
    controlled player (0 or 1, or both as ``(0, 1)``) the game stops at each pickup of theirs where
    the choice matters (the pot holds more than one distinct rank and the other player still has
    cards); ``to_move`` says whose it is, and ``apply(rank)`` places one card and plays on. Other
    pots are placed automatically. A controlled player in ``order_every_pot`` (one standing in for
    the convention) also orders the pots of a game already won, as the convention does.
    """

    def __init__(
        self,
        deal: Deal,
        rules: WarRules = DEFAULT_RULES,
        controlled: int | tuple[int, ...] | None = 0,
        seed: int | None = None,
        detect_cycles: bool | None = None,
        order_every_pot: tuple[int, ...] = (),
    ) -> None:
        seats = (controlled,) if controlled in (0, 1) else controlled if isinstance(controlled, tuple) else ()
        if not (controlled is None or seats) or not set(seats) <= {0, 1}:
            raise ValueError(f"controlled must be None, 0, 1 or a tuple of them, got {controlled!r}")
        self.deal = deal
        self.rules = rules
        self.controlled = controlled
        self._seats = frozenset(seats)
        self._order_every_pot = frozenset(order_every_pot)
        self.state = WarState.start(deal, rules)
        self.rng = _random.Random(seed) if rules.pickup == "random" else None
        if detect_cycles is None:
            detect_cycles = not self._seats and rules.deterministic
        if detect_cycles and not rules.deterministic:
            raise ValueError("cycle detection needs deterministic rules (a fixed pickup convention)")
        self._seen: dict[tuple[tuple[int, ...], tuple[int, ...]], int] | None = {} if detect_cycles else None
        self.cycle_start: int | None = None
        self.cycle_period: int | None = None
        self.choices: list[int] = []  # the controlled players' decisions, in order
        self.advance()

    @property
    def done(self) -> bool:
        return self.state.done

    @property
    def awaiting(self) -> bool:
        """True when a controlled player (``to_move``) must choose the next card of their pot."""
        return not self.done and self.state.taker in self._seats

    @property
    def to_move(self) -> int | None:
        """The controlled player who must choose now, None when no decision is pending."""
        return self.state.taker if self.awaiting else None

    def outcome(self, player: int = 0) -> int:
        """+1 if ``player`` won, -1 if they lost, 0 for a draw or a game still going on."""
        w = self.state.winner
        if w is None or w == -1:
            return 0
        return 1 if w == player else -1

    def legal_actions(self) -> list[int]:
        """The ranks the controlled player may put under their pile next (none unless ``awaiting``)."""
        return self.state.legal_actions() if self.awaiting else []

    def scores(self) -> list[float]:
        """The cards each player holds (pot cards still to place included): every card once a player
        has won, none once they have lost; what a horizon scores."""
        return [float(self.state.horizon_cards(p)) for p in (0, 1)]

    def copy(self) -> WarGame:
        """An independent copy: its moves leave this game as it is (the random convention's generator
        is copied too, so both draw the same pickups from here)."""
        return _copy.deepcopy(self)

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(self.rules.ranks, dtype=bool)
        for r in self.legal_actions():
            mask[r] = True
        return mask

    def apply(self, rank: int) -> None:
        """Put a pot card of ``rank`` under the controlled player's pile, then play on to their next
        decision or the end (returns nothing). Raises IllegalActionError naming the legal ranks, or
        GameOverError once the game is over."""
        if self.done:
            raise GameOverError(f"the game is over ({self.state.end_reason})")
        if not self.awaiting:
            raise IllegalActionError(rank, [], "no pickup decision is pending")
        legal = self.state.legal_actions()
        if not isinstance(rank, (int, np.integer)) or int(rank) not in legal:
            raise IllegalActionError(rank, legal, "that rank is not in the pot")
        self.state.place(int(rank))
        self.choices.append(int(rank))
        self.advance()

    def advance(self) -> None:
        """Play on until the controlled player has a real choice or the game ends."""
        state = self.state
        while not state.done:
            if state.taker is None:
                if self._between_tricks():
                    return
                state.play_trick()
            elif state.taker in self._seats:
                # With the other pile empty the game is won whatever the order: no decision, except
                # for a player standing in for a convention, whose order still shows in the pile.
                decided = not state.piles[1 - state.taker] and state.taker not in self._order_every_pot
                if len(state.to_place) > 1 and not decided:
                    return
                # No choice to make: one rank left, or the game is already won.
                state.place_all(sorted(state.to_place.elements()))
            else:
                state.place_all(convention_order(state.pots, state.taker, self.rules.pickup, self.rng))

    def _between_tricks(self) -> bool:
        """End checks at the start of a trick; True if the game ended."""
        state = self.state
        if not state.piles[0] or not state.piles[1]:
            return False  # play_trick declares the win (or the draw)
        if self._seen is not None:
            key = state.position()
            first = self._seen.get(key)
            if first is not None:
                self.cycle_start, self.cycle_period = first, state.tricks - first
                state._end(-1, CYCLE)
                return True
            self._seen[key] = state.tricks
        return state.stop_if_limit()


@dataclass(frozen=True)
class GameRecord:
    """The end of a simulated game: ``winner`` 0, 1 or -1 (draw); ``tricks`` the completed tricks;
    why it ended; for a cycle, the position at the start of trick ``cycle_start`` comes back every
    ``cycle_period`` tricks, first at trick ``tricks = cycle_start + cycle_period``."""

    winner: int
    tricks: int
    end_reason: str
    wars: int
    cycle_start: int | None = None
    cycle_period: int | None = None


def play_game(deal: Deal, rules: WarRules = DEFAULT_RULES, seed: int | None = None) -> GameRecord:
    """Play a whole game with both players following ``rules.pickup`` (the reference simulation)."""
    game = WarGame(deal, rules, controlled=None, seed=seed)
    s = game.state
    assert s.winner is not None and s.end_reason is not None
    return GameRecord(s.winner, s.tricks, s.end_reason, s.wars, game.cycle_start, game.cycle_period)


def replay(rules: WarRules, deal: str | Deal, plan: Iterable[int], seed: int | None = None) -> WarGame:
    """The game after ``plan`` (player 0's decisions, as ``WarGame.apply`` takes them) from the start
    of ``deal`` (a deal string or a parsed deal) under ``rules``; IllegalActionError on an illegal
    decision. ``seed`` seeds player 1's pickups under the random convention."""
    game = WarGame(parse_deal(deal, rules), rules, controlled=0, seed=seed)
    for rank in plan:
        game.apply(rank)
    return game


def deal_from_piles(piles: Sequence[Sequence[int]], rules: WarRules = DEFAULT_RULES) -> Deal:
    """A validated Deal from two rank sequences."""
    text = "/".join("".join(RANK_CHARS[int(r)] for r in pile) for pile in piles)
    return parse_deal(text, rules)


def episode_rules(rules: WarRules, horizon: int | None) -> WarRules:
    """The rules the engine plays an episode by: the horizon is the engine's own trick limit, so the
    engine decides where the episode stops."""
    return rules if horizon is None else rules.replace(max_tricks=min(rules.max_tricks, horizon))

"""Modern Art: Masters Gallery (Reiner Knizia, 2009): the engine.

The single source of the rules (docs/rules/modern-art.md): deck table, dealing, the five symbols,
the round end, ranking, values, awards, scoring and the start player of each round. No Gymnasium here.

Cards
    A card is a *kind*: ``artist * 6 + symbol`` (30 kinds). Artists in board order (the order breaks
    ties): 0 Lite Metal, 1 Yoko, 2 Christin P., 3 Karl Gitter, 4 Krypto. Symbols: 0 plain, 1 draw,
    2 double, 3 hidden, 4 simultaneous, 5 award.

Deal strings
    The whole shuffled deck, top card first, two characters per card: the artist letter (``LYCGK``)
    then the symbol (``.`` plain, ``d`` draw, ``x`` double, ``h`` hidden, ``s`` simultaneous,
    ``a`` award). It must hold exactly the cards of the deck table, so a deal fixes every hand, the
    extra card and every later draw and deal.

Actions (one integer, interpreted by the current decision)
    ``0..29`` display (or, for a hidden second card, put face down) a card of that kind;
    ``30..34`` choose artist ``action - 30`` for an award token; ``35`` pass (decline an optional card).

Points fixed by the project where sources are silent are parameters of :class:`ModernArtRules`; the
rest of the choices this engine makes (all documented in the rules file or here):
    - dealing is one card at a time in seat order: the first 13 rounds of it from seat 0, later rounds'
      deals from that round's start player; seat 0 starts round 1;
    - an award must be placed while tokens remain (on any artist, displayed or not);
    - "the player who ended the round" is the player whose turn it was (for a simultaneous play too);
      when the round ends because every hand is empty, it is the player who took the last turn;
    - a decision with no card that may be played (a double with no second card of that artist, a
      hidden card with an empty hand, a simultaneous play by a player with no cards) is skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress

import numpy as np

from tabletop_gym.core import (
    GameOverError,
    IllegalActionError,
    InvalidDealError,
    check_int,
    make_rng,
    quote_input,
)
from tabletop_gym.settings import option

ARTISTS = ("Lite Metal", "Yoko", "Christin P.", "Karl Gitter", "Krypto")
ARTIST_CHARS = "LYCGK"
SYMBOLS = ("plain", "draw", "double", "hidden", "simultaneous", "award")
SYMBOL_CHARS = ".dxhsa"
NUM_ARTISTS = 5
NUM_SYMBOLS = 6
NUM_KINDS = NUM_ARTISTS * NUM_SYMBOLS
PLAIN, DRAW, DOUBLE, HIDDEN, SIMULTANEOUS, AWARD = range(NUM_SYMBOLS)

CHOOSE_ARTIST = NUM_KINDS  # actions 30..34
PASS = NUM_KINDS + NUM_ARTISTS  # 35
NUM_ACTIONS = PASS + 1

# Decisions (``State.phase``).
PLAY, DOUBLE_CARD, HIDDEN_CARD, SIMULTANEOUS_CARD, AWARD_ARTIST, END_PLAY, GAME_OVER = range(7)
PHASES = ("play", "double", "hidden", "simultaneous", "award", "end-of-round play", "game over")

# Per artist: cards carrying (plain, draw, double, hidden, simultaneous, award).
DEFAULT_DECK: tuple[tuple[int, ...], ...] = (
    (11, 2, 1, 1, 1, 1),
    (12, 2, 1, 1, 1, 1),
    (13, 2, 1, 1, 1, 1),
    (14, 2, 1, 1, 1, 1),
    (15, 2, 1, 1, 1, 1),
)
# Cards dealt to each player at the start of rounds 1-4, by player count.
DEFAULT_DEALS: dict[int, tuple[int, ...]] = {
    2: (13, 6, 6, 3),
    3: (13, 6, 6, 0),
    4: (13, 4, 4, 0),
    5: (13, 2, 2, 0),
}
# The largest rule parameters accepted: far beyond any published or sensible variant, small enough
# that no game grows without end (a game takes about one decision per card) and every total fits
# the observation's and the oracle's integers.
MAX_KIND_COUNT = 100  # cards of one artist with one symbol (the deck: at most 3,000 cards)
MAX_ROUNDS = 20
MAX_ROUND_LIMIT = 1_000
MAX_TOKEN_VALUE = 100  # a value token, and what an award token adds
MAX_AWARDS = 100
_SWITCHES = (
    "extra_card_each_round", "simultaneous_same_artist", "end_of_round_plays", "at_once",
    "second_card_symbols", "resolve_ending_card",
)  # fmt: skip


def kind_of(artist: int, symbol: int) -> int:
    return artist * NUM_SYMBOLS + symbol


def artist_of(kind: int) -> int:
    return kind // NUM_SYMBOLS


def symbol_of(kind: int) -> int:
    return kind % NUM_SYMBOLS


_CARD_NAMES = tuple(f"{ARTISTS[k // NUM_SYMBOLS]} ({SYMBOLS[k % NUM_SYMBOLS]})" for k in range(NUM_KINDS))


def card_name(kind: int) -> str:
    return _CARD_NAMES[kind]


def card_code(kind: int) -> str:
    return ARTIST_CHARS[artist_of(kind)] + SYMBOL_CHARS[symbol_of(kind)]


def action_name(action: int) -> str:
    if 0 <= action < NUM_KINDS:
        return card_name(action)
    if CHOOSE_ARTIST <= action < PASS:
        return f"award to {ARTISTS[action - CHOOSE_ARTIST]}"
    if action == PASS:
        return "pass"
    return f"<not an action: {action}>"


def _listed(value: object, depth: int) -> list | None:
    """``value`` as (nested) lists, ``depth`` levels deep (tuples, lists, numpy arrays), or None if it
    is not such a sequence (a number, a string)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        return None
    items = list(value)  # type: ignore[call-overload]
    if depth == 1:
        return items
    rows = [_listed(item, depth - 1) for item in items]
    return None if any(row is None for row in rows) else rows


def first_rounds(players: int, rounds: int, name: str = "rounds") -> tuple[int, ...]:
    """The ``deals`` of a game of only the first ``rounds`` rounds: the default deal table for the
    player count (``DEFAULT_DEALS``), cut after that many rounds. A ValueError names ``name`` (the
    environment's ``rounds``, the command line's ``--rounds``) and the range, 1 to 4."""
    full = DEFAULT_DEALS[check_int("players", players, 2, 5)]
    return full[: check_int(name, rounds, 1, len(full))]


@dataclass(frozen=True)
class ModernArtRules:
    """The game's parameters; every point the rules file marks "fixed here" is one of them.

    - ``players``: 2 to 5.
    - ``deck``: per artist, how many cards carry each symbol (plain, draw, double, hidden,
      simultaneous, award).
    - ``deals``: cards dealt to each player at the start of each round (default: the table for the
      player count); its length is the number of rounds.
    - ``round_limit``: face-up cards of one artist that end a round (default 5 with two players, else 6).
    - ``extra_card_each_round``: reveal an extra card at the start of every round, not only round 1.
    - ``simultaneous_same_artist``: simultaneous plays must be of the symbol card's artist.
    - ``end_of_round_plays``: at the round end each player, in turn order from the left of the one who
      ended it, may display one more card of each artist they displayed face up this round.
    - ``at_once``: a double or simultaneous card and the cards it brings count as displayed at once, so
      the round-end check waits for them (even if the symbol card itself reached the limit); if false
      the symbol card reaching the limit ends the round at once, unresolved.
    - ``second_card_symbols``: a second card (played by a double, a hidden or a simultaneous card)
      resolves its own symbol, like a turn card, for the player who played it (the rules file fixes
      that it has none; this is the natural reading of the alternative). Its effect comes at once,
      before the rest of what brought it: a draw draws, a double asks that player for a second card of
      its artist, a hidden card for a face-down card, an award for an artist, and a simultaneous card
      asks every player other than the one who played it, in turn order from their left, for a card;
      then the interrupted simultaneous plays (if any) go on and the turn ends. Chains nest. A
      face-down card's symbol is resolved too, when it is put down (so that it carries that symbol
      becomes known). A second card displayed once an artist has reached the round limit is resolved
      only as a turn card ending the round would be (``at_once``, ``resolve_ending_card``).
    - ``resolve_ending_card``: the draw, hidden or award symbol of the card that ends the round is
      resolved before the round ends (a card is drawn, a card may be put face down, which then counts
      for the ranking and its owner's score, an award token is placed, counting already this round);
      no one plays again. Double and simultaneous cards at the limit are governed by ``at_once``.
    - ``value_tokens``: the value tokens given to the top artists each round (3, 2, 1).
    - ``award_tokens`` and ``award_value``: award tokens in the game and what each adds to a value.

    Every number is checked (integers, numpy ones included; a ValueError names the parameter): deck
    counts 0 to ``MAX_KIND_COUNT``, 1 to ``MAX_ROUNDS`` rounds of deals each 0 to the deck's size,
    ``round_limit`` 2 to ``MAX_ROUND_LIMIT``, value tokens and ``award_value`` 0 to
    ``MAX_TOKEN_VALUE``, ``award_tokens`` 0 to ``MAX_AWARDS``; the switches must be booleans.
    """

    players: int = option(2, "players, 2-5", low=2, high=5)
    deck: tuple[tuple[int, ...], ...] = option(
        DEFAULT_DECK,
        "per artist, the cards of each symbol (plain, draw, double, hidden, simultaneous, award)",
    )
    deals: tuple[int, ...] | None = option(
        None,
        "cards dealt to each player at the start of each round (default: the table for the player count)",
    )
    round_limit: int | None = option(
        None, "face-up cards of one artist that end a round (default 5 with two players, else 6)",
        low=2, high=MAX_ROUND_LIMIT,
    )  # fmt: skip
    extra_card_each_round: bool = option(False, "an extra card at the start of every round")
    simultaneous_same_artist: bool = option(False, "simultaneous plays of the symbol card's artist only")
    end_of_round_plays: bool = option(False, "one more card of each artist displayed, at the round's end")
    at_once: bool = option(True, "a double or simultaneous card and the cards it brings count together")
    second_card_symbols: bool = option(False, "a second card carries out its own symbol")
    resolve_ending_card: bool = option(False, "the card ending a round carries out its draw, hidden or award")
    value_tokens: tuple[int, ...] = option((3, 2, 1), "the value tokens of each round, best artist first")
    award_tokens: int = option(5, "award tokens in the game", low=0, high=MAX_AWARDS)
    award_value: int = option(
        2, "what an award token adds to its artist's value", low=0, high=MAX_TOKEN_VALUE
    )
    _resolved: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        players = check_int("players", self.players, 2, 5)
        object.__setattr__(self, "players", players)
        rows = _listed(self.deck, 2)
        if rows is None or len(rows) != NUM_ARTISTS or any(len(row) != NUM_SYMBOLS for row in rows):
            raise ValueError(
                f"deck must have {NUM_ARTISTS} rows (artists) of {NUM_SYMBOLS} counts (symbols), "
                f"got {quote_input(self.deck)}"
            )
        deck = tuple(
            tuple(
                check_int(f"deck count of {ARTISTS[a]} ({SYMBOLS[s]})", rows[a][s], 0, MAX_KIND_COUNT)
                for s in range(NUM_SYMBOLS)
            )
            for a in range(NUM_ARTISTS)
        )
        object.__setattr__(self, "deck", deck)
        cards = sum(map(sum, deck))
        if self.deals is None:
            deals = DEFAULT_DEALS[players]
        else:
            listed = _listed(self.deals, 1)
            if listed is None or not 1 <= len(listed) <= MAX_ROUNDS:
                raise ValueError(
                    f"deals must be a sequence of 1 to {MAX_ROUNDS} counts (one per round), "
                    f"got {quote_input(self.deals)}"
                )
            deals = tuple(check_int(f"deals[{r}]", d, 0, cards) for r, d in enumerate(listed))
        if deals[0] * players + 1 > cards:
            raise ValueError(
                f"the deck holds {cards} cards: too few to deal {deals[0]} to each of "
                f"{players} players and reveal the extra card"
            )
        object.__setattr__(self, "deals", deals)
        limit = (5 if players == 2 else 6) if self.round_limit is None else self.round_limit
        object.__setattr__(self, "round_limit", check_int("round_limit", limit, 2, MAX_ROUND_LIMIT))
        listed = _listed(self.value_tokens, 1)
        if listed is None or not 1 <= len(listed) <= NUM_ARTISTS:
            raise ValueError(f"value_tokens must be 1 to 5 values, got {quote_input(self.value_tokens)}")
        tokens = tuple(check_int(f"value_tokens[{i}]", v, 0, MAX_TOKEN_VALUE) for i, v in enumerate(listed))
        object.__setattr__(self, "value_tokens", tokens)
        awards = check_int("award_tokens", self.award_tokens, 0, MAX_AWARDS)
        object.__setattr__(self, "award_tokens", awards)
        award_value = check_int("award_value", self.award_value, 0, MAX_TOKEN_VALUE)
        object.__setattr__(self, "award_value", award_value)
        for name in _SWITCHES:
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {quote_input(value)}")
            object.__setattr__(self, name, bool(value))

    @property
    def rounds(self) -> int:
        return len(self.deals)

    @property
    def num_cards(self) -> int:
        return sum(map(sum, self.deck))

    def variant(self) -> str:
        """A short text naming these rules, for caches and reports."""
        deck = "-".join("".join(f"{c}." for c in row) for row in self.deck)
        flags = "".join(
            ch
            for ch, on in (
                ("E", self.extra_card_each_round),
                ("S", self.simultaneous_same_artist),
                ("P", self.end_of_round_plays),
                ("N", not self.at_once),
                ("X", self.second_card_symbols),
                ("R", self.resolve_ending_card),
            )
            if on
        )
        deals = ".".join(map(str, self.deals))
        tokens = ".".join(map(str, self.value_tokens))
        return (
            f"p{self.players}_d{deals}_l{self.round_limit}_v{tokens}_a{self.award_tokens}x{self.award_value}"
            f"_{flags or 'std'}_k{deck}"
        )

    def cards(self) -> list[int]:
        """Every card of the deck (kinds), unshuffled."""
        return [
            kind_of(a, s)
            for a in range(NUM_ARTISTS)
            for s in range(NUM_SYMBOLS)
            for _ in range(self.deck[a][s])
        ]


_KINDS = range(NUM_KINDS)
_CODE_OF_KIND = [ARTIST_CHARS[k // NUM_SYMBOLS] + SYMBOL_CHARS[k % NUM_SYMBOLS] for k in range(NUM_KINDS)]
_KIND_OF_CODE = {code: kind for kind, code in enumerate(_CODE_OF_KIND)}


def deal_string(cards: Sequence[int]) -> str:
    return "".join([_CODE_OF_KIND[k] for k in cards])


def parse_deal(text: str, rules: ModernArtRules) -> tuple[int, ...]:
    """The deck order (kinds, top first) of a deal string; raises InvalidDealError with the reason."""
    if not isinstance(text, str):
        raise InvalidDealError(f"a deal must be a string of two-character cards, got {type(text).__name__}")
    text = text.strip()
    if len(text) % 2:
        raise InvalidDealError(f"deal has {len(text)} characters; every card takes two (artist, symbol)")
    try:  # the common case, fast: every code known and the counts those of the deck table
        cards = tuple(_KIND_OF_CODE[text[i : i + 2]] for i in range(0, len(text), 2))
        if deck_table(cards) == rules.deck:
            return cards
    except KeyError:
        pass
    cards = []
    for i in range(0, len(text), 2):
        a, s = text[i], text[i + 1]
        if a not in ARTIST_CHARS:
            raise InvalidDealError(
                f"card {i // 2 + 1} ({text[i : i + 2]!r}, position {i}): artist {a!r} is not one of "
                f"{ARTIST_CHARS!r}"
            )
        if s not in SYMBOL_CHARS:
            raise InvalidDealError(
                f"card {i // 2 + 1} ({text[i : i + 2]!r}, position {i + 1}): symbol {s!r} is not one of "
                f"{SYMBOL_CHARS!r}"
            )
        cards.append(kind_of(ARTIST_CHARS.index(a), SYMBOL_CHARS.index(s)))
    have = Counter(cards)
    for a in range(NUM_ARTISTS):
        for s in range(NUM_SYMBOLS):
            k = kind_of(a, s)
            if have[k] != rules.deck[a][s]:
                raise InvalidDealError(
                    f"deal holds {have[k]} card(s) {card_code(k)} ({card_name(k)}); the deck table has "
                    f"{rules.deck[a][s]}"
                )
    return tuple(cards)


def parse_cards(text: str) -> list[int]:
    """Cards (kinds) from codes such as ``"L. Yd Kx"`` (spaces optional)."""
    text = text.replace(" ", "")
    if len(text) % 2:
        raise InvalidDealError(f"card list {quote_input(text)} has an odd number of characters")
    cards = []
    for i in range(0, len(text), 2):
        a, s = text[i], text[i + 1]
        if a not in ARTIST_CHARS or s not in SYMBOL_CHARS:
            raise InvalidDealError(
                f"{text[i : i + 2]!r} is not a card code (artist {ARTIST_CHARS}, symbol {SYMBOL_CHARS})"
            )
        cards.append(kind_of(ARTIST_CHARS.index(a), SYMBOL_CHARS.index(s)))
    return cards


def deck_table(cards: Iterable[int]) -> tuple[tuple[int, ...], ...]:
    """The deck table (per artist, cards per symbol) of a collection of cards."""
    have = Counter(cards)
    return tuple(tuple(have[kind_of(a, s)] for s in range(NUM_SYMBOLS)) for a in range(NUM_ARTISTS))


def arrange_deal(hands: Sequence[Sequence[int]], extra: int, rest: Sequence[int] = ()) -> str:
    """The deal string that gives each seat its first hand (all of equal size), reveals ``extra`` and
    leaves ``rest`` as the deck, top first: the inverse of the round-1 deal."""
    size = len(hands[0])
    if any(len(h) != size for h in hands):
        raise InvalidDealError("every first hand has the same number of cards")
    order = [hands[p][i] for i in range(size) for p in range(len(hands))]
    return deal_string([*order, extra, *rest])


def random_deal(rules: ModernArtRules, seed: int | np.random.Generator | None = None) -> str:
    """A uniformly shuffled deck as a deal string (``seed``: a non-negative integer, a Generator or
    None)."""
    if seed is not None and not isinstance(seed, np.random.Generator):
        seed = check_int("seed", seed, 0)
    rng = make_rng(seed)
    cards = np.array(rules.cards(), dtype=np.int64)
    rng.shuffle(cards)
    return deal_string(cards.tolist())


def rank_artists(counts: Sequence[int], places: int = 3) -> list[int]:
    """The artists that place this round, best first: most cards, ties to the earlier artist in board
    order; artists with no card cannot place. ``counts``: cards per artist, in board order.

    The game's one ranking: rounds are scored with it (``round_points``) and the greedy player ranks
    with it many times a decision, hence one integer key per artist, count * 8 - artist, which sorts
    like (more cards, earlier artist) and gives the artist back as -key & 7 (there are 5 < 8)."""
    keys = [c * 8 - a for a, c in enumerate(counts) if c > 0]
    keys.sort(reverse=True)
    return [-key & 7 for key in keys[:places]]


def round_points(
    counts: Sequence[int],
    own: Sequence[Sequence[int]],
    values: Sequence[int],
    awards: Sequence[int],
    rules: ModernArtRules,
) -> tuple[list[int], list[int]]:
    """Score a round: ``counts`` per artist (all displayed cards), ``own[p][a]`` each player's cards.

    Returns (points per player, value tokens won per artist)."""
    won = [0] * NUM_ARTISTS
    placed = rank_artists(counts, len(rules.value_tokens))
    for place, artist in enumerate(placed):
        won[artist] = rules.value_tokens[place]
    points = []
    for cards in own:
        total = 0
        # every placed artist pays, by place, not by its token: a 0 token still places its artist
        for a in placed:
            if cards[a]:
                total += (values[a] + won[a] + rules.award_value * awards[a]) * cards[a]
        points.append(total)
    return points, won


class State:
    """A position of the game. ``apply(action)`` plays the decision of player ``to_move``.

    Rounds start, end and score inside ``apply``; decisions with nothing to decide are skipped, so
    in every position that is not over the player to move has at least one legal action.

    The engine contract every game's state offers: ``legal_actions()``, ``apply(action)``, ``done``,
    ``copy()`` and ``scores()`` (each seat's money so far; ``money`` is the list play adds to).
    """

    __slots__ = (
        "rules", "deck", "top", "hands", "hand_sizes", "up", "down", "extra", "column", "values",
        "awards", "awards_left", "money", "round", "phase", "to_move", "turn_player", "starter",
        "double_artist", "queue", "outer", "end_used", "last_turn", "history", "round_history", "log",
        "drawn",
    )  # fmt: skip

    def __init__(self, rules: ModernArtRules, deal: str | Sequence[int], log: bool = False) -> None:
        self.rules = rules
        if isinstance(deal, str):
            self.deck = parse_deal(deal, rules)
        else:
            self.deck = tuple(int(k) for k in deal)
            if len(self.deck) != rules.num_cards:
                raise InvalidDealError(
                    f"deal holds {len(self.deck)} cards; the deck table has {rules.num_cards}"
                )
            # Kinds only: the free-deal oracle deals placeholders it decides as play reaches them.
            bad = [k for k in self.deck if not 0 <= k < NUM_KINDS]
            if bad:
                raise InvalidDealError(f"a deal's cards are kinds 0-{NUM_KINDS - 1}, got {bad[0]}")
        n = rules.players
        self.top = 0  # index of the deck's top card
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_sizes = [0] * n
        self.drawn = [0] * n  # cards each player drew by a draw symbol, all game
        self.up = [[0] * NUM_ARTISTS for _ in range(n)]  # face up this round, per player and artist
        self.down = [[0] * NUM_ARTISTS for _ in range(n)]  # face down this round
        self.extra = [0] * NUM_ARTISTS  # the extra card(s) this round
        self.column = [0] * NUM_ARTISTS  # face-up cards this round, extra card included
        self.values = [0] * NUM_ARTISTS  # sum of value tokens won so far
        self.awards = [0] * NUM_ARTISTS
        self.awards_left = rules.award_tokens
        self.money = [0] * n  # each player's points so far, added to as each round is scored
        self.round = 0
        self.phase = PLAY
        self.to_move = 0
        self.turn_player = 0
        self.starter = 0
        self.double_artist = -1
        self.queue: list[int] = []  # players still to decide (simultaneous, end-of-round plays)
        # simultaneous plays interrupted by a second card's symbol (second_card_symbols): a stack of
        # (artist, players still to decide)
        self.outer: list[tuple[int, tuple[int, ...]]] = []
        self.end_used = [0] * NUM_ARTISTS  # end-of-round plays: artists the player has used
        self.last_turn = -1
        self.history: list[int] = []  # every action, in order: the plan that replays this game
        self.round_history: list[list[int]] = []  # points per player of each scored round
        self.log: list[str] | None = [] if log else None
        self._deal_cards(rules.deals[0], 0)
        self._start_round()

    # ---- queries -------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.phase == GAME_OVER

    def scores(self) -> list[float]:
        """Each seat's score as the game counts it now: the money it holds."""
        return [float(m) for m in self.money]

    @property
    def deck_left(self) -> int:
        return len(self.deck) - self.top

    def legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == GAME_OVER:
            return []
        hand = self.hands[self.to_move]
        if phase == PLAY or phase == HIDDEN_CARD:
            acts = list(compress(_KINDS, hand))
        elif phase == DOUBLE_CARD:
            base = self.double_artist * NUM_SYMBOLS
            acts = [k for k in range(base, base + NUM_SYMBOLS) if hand[k]]
        elif phase == SIMULTANEOUS_CARD:
            if self.rules.simultaneous_same_artist:
                base = self.double_artist * NUM_SYMBOLS
                acts = [k for k in range(base, base + NUM_SYMBOLS) if hand[k]]
            else:
                acts = list(compress(_KINDS, hand))
        elif phase == AWARD_ARTIST:
            return list(range(CHOOSE_ARTIST, PASS))
        else:  # END_PLAY
            up = self.up[self.to_move]
            acts = [
                k for k in range(NUM_KINDS) if hand[k] and up[k // NUM_SYMBOLS] and not self.end_used[k // 6]
            ]
        if phase != PLAY:
            acts.append(PASS)
        return acts

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        phase = self.phase
        # the common decisions straight from the hand (any count > 0 reads True), without the list
        if phase == PLAY:
            mask[:NUM_KINDS] = self.hands[self.to_move]
        elif phase == HIDDEN_CARD:
            mask[:NUM_KINDS] = self.hands[self.to_move]
            mask[PASS] = True
        else:
            mask[self.legal_actions()] = True
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an int) is legal now; the same answer as ``in legal_actions()``, faster."""
        phase = self.phase
        if phase == GAME_OVER or not 0 <= action < NUM_ACTIONS:
            return False
        if phase == AWARD_ARTIST:
            return CHOOSE_ARTIST <= action < PASS
        if action == PASS:
            return phase != PLAY
        if action >= NUM_KINDS or not self.hands[self.to_move][action]:
            return False
        if phase == PLAY or phase == HIDDEN_CARD:
            return True
        artist = action // NUM_SYMBOLS
        if phase == DOUBLE_CARD or (phase == SIMULTANEOUS_CARD and self.rules.simultaneous_same_artist):
            return artist == self.double_artist
        if phase == SIMULTANEOUS_CARD:
            return True
        return bool(self.up[self.to_move][artist]) and not self.end_used[artist]  # END_PLAY

    def counts(self) -> list[int]:
        """Cards per artist this round as the ranking sees them (face-down cards included)."""
        return [self.column[a] + sum(d[a] for d in self.down) for a in range(NUM_ARTISTS)]

    # ---- moves ---------------------------------------------------------------------------------

    def apply(self, action: int) -> list[int]:
        """Play ``action`` for ``to_move``; returns the points each player scored meanwhile (a round
        scored by this action), all zero otherwise."""
        if self.phase == GAME_OVER:
            raise GameOverError("the game is over: all rounds have been scored")
        if not isinstance(action, (int, np.integer)) or not self.is_legal(int(action)):
            raise IllegalActionError(action, self.legal_actions(), self._why_illegal(action))
        action = int(action)
        scored_before = len(self.round_history)
        self.history.append(action)
        p = self.to_move
        phase = self.phase
        if phase == PLAY:
            self._play_card(p, action)
        elif phase == DOUBLE_CARD or phase == SIMULTANEOUS_CARD:
            if action == PASS:
                self._next_simultaneous()
            else:
                self._display(p, action, "second card" if phase == DOUBLE_CARD else "simultaneous card")
                self._second_card(p, action, phase)
        elif phase == HIDDEN_CARD:
            if action == PASS:
                self._next_simultaneous()
            else:
                self._take(p, action)
                self.down[p][artist_of(action)] += 1
                self._note("P{} puts a card face down", p)
                self._second_card(p, action, phase)
        elif phase == AWARD_ARTIST:
            artist = action - CHOOSE_ARTIST
            self.awards[artist] += 1
            self.awards_left -= 1
            self._note("P{} puts an award on {}", p, ARTISTS[artist])
            self._next_simultaneous()
        else:  # END_PLAY
            if action == PASS:
                self.queue.pop(0)
                self.end_used = [0] * NUM_ARTISTS
            else:
                self._display(p, action, "end-of-round card")
                self.end_used[artist_of(action)] = 1
            self._next_end_play()
        if len(self.round_history) > scored_before:
            return [sum(r[i] for r in self.round_history[scored_before:]) for i in range(self.rules.players)]
        return [0] * self.rules.players

    def _why_illegal(self, action: object) -> str:
        if not isinstance(action, (int, np.integer)) or not 0 <= int(action) < NUM_ACTIONS:
            return f"not an action index 0-{NUM_ACTIONS - 1}"
        a = int(action)
        what = PHASES[self.phase]
        if a == PASS:
            return f"the {what} decision cannot be passed"
        if a >= CHOOSE_ARTIST:
            return f"choosing an artist is only for an award, the decision is: {what}"
        if self.phase == AWARD_ARTIST:
            return "an award decision takes an artist (actions 30-34)"
        if not self.hands[self.to_move][a]:
            return f"player {self.to_move} holds no {card_name(a)}"
        return f"{card_name(a)} may not be played in the {what} decision"

    def _note(self, template: str, *args: object) -> None:
        # formatted only when a log is kept: the text costs more than the move
        if self.log is not None:
            self.log.append(f"R{self.round + 1}: " + template.format(*args))

    def _take(self, p: int, kind: int) -> None:
        self.hands[p][kind] -= 1
        self.hand_sizes[p] -= 1

    def _display(self, p: int, kind: int, what: str) -> None:
        self._take(p, kind)
        a = artist_of(kind)
        self.up[p][a] += 1
        self.column[a] += 1
        self._note("P{} displays {} as {}", p, _CARD_NAMES[kind], what)

    def _play_card(self, p: int, kind: int) -> None:
        self.last_turn = p
        self._display(p, kind, "turn card")
        self._resolve(p, kind, False)

    def _second_card(self, p: int, kind: int, phase: int) -> None:
        """After ``p`` played ``kind`` as a second card in decision ``phase``: its symbol (only with
        ``second_card_symbols``), then the rest of the turn."""
        if not self.rules.second_card_symbols or symbol_of(kind) == PLAIN:
            self._next_simultaneous()
            return
        if phase == SIMULTANEOUS_CARD:  # the symbol interrupts the simultaneous plays: keep the rest
            self.outer.append((self.double_artist, tuple(self.queue)))
            self.queue = []
        self._resolve(p, kind, True)

    def _resolve(self, p: int, kind: int, second: bool) -> None:
        """Resolve the symbol of the card ``p`` just played (``second``: as a second card), then go on
        to the decision it asks for or the rest of the turn."""
        artist, symbol = artist_of(kind), symbol_of(kind)
        rules = self.rules
        if symbol == PLAIN:
            self._next_simultaneous()
            return
        limit = rules.round_limit
        # before a turn card only its own artist can be at the limit; a second card may follow others
        if self.column[artist] >= limit or (second and max(self.column) >= limit):
            brings_cards = symbol == DOUBLE or symbol == SIMULTANEOUS
            if not (rules.at_once if brings_cards else rules.resolve_ending_card):
                if second:
                    self._next_simultaneous()
                else:
                    self._end_round()
                return
        hand = self.hands[p]
        if symbol == DRAW:
            if self.top < len(self.deck):
                card = self.deck[self.top]
                self.top += 1
                hand[card] += 1
                self.hand_sizes[p] += 1
                self.drawn[p] += 1
                self._note("P{} draws a card", p)
        elif symbol == DOUBLE:
            base = artist * NUM_SYMBOLS
            if any(hand[base : base + NUM_SYMBOLS]):
                self.phase, self.double_artist, self.to_move = DOUBLE_CARD, artist, p
                return
        elif symbol == HIDDEN:
            if self.hand_sizes[p]:
                self.phase, self.to_move = HIDDEN_CARD, p
                return
        elif symbol == SIMULTANEOUS:
            n = self.rules.players
            self.double_artist = artist  # the artist simultaneous plays must match, if that rule is on
            self.queue = [(p + i) % n for i in range(1, n)]
            self._next_simultaneous()
            return
        elif symbol == AWARD:
            if self.awards_left > 0:
                self.phase, self.to_move = AWARD_ARTIST, p
                return
        self._next_simultaneous()

    def _next_simultaneous(self) -> None:
        """The next simultaneous play still to decide (interrupted ones included), else the turn's end."""
        while True:
            while self.queue:
                q = self.queue.pop(0)
                self.phase, self.to_move = SIMULTANEOUS_CARD, q
                if len(self.legal_actions()) > 1:  # more than "pass"
                    return
            if not self.outer:
                break
            self.double_artist, rest = self.outer.pop()
            self.queue = list(rest)
        self.to_move = self.turn_player
        self._finish_turn()

    def _finish_turn(self) -> None:
        if max(self.column) >= self.rules.round_limit:  # max: no generator on every turn
            self._end_round()
            return
        self.turn_player = (self.turn_player + 1) % self.rules.players
        self._begin_turn()

    def _begin_turn(self) -> None:
        n = self.rules.players
        if not any(self.hand_sizes):
            self._end_round()
            return
        while not self.hand_sizes[self.turn_player]:
            self.turn_player = (self.turn_player + 1) % n
        self.phase, self.to_move = PLAY, self.turn_player

    # ---- rounds --------------------------------------------------------------------------------

    def _deal_cards(self, per_player: int, first: int) -> None:
        n = self.rules.players
        for _ in range(per_player):
            for i in range(n):
                if self.top >= len(self.deck):
                    return
                p = (first + i) % n
                self.hands[p][self.deck[self.top]] += 1
                self.hand_sizes[p] += 1
                self.top += 1

    def _start_round(self) -> None:
        if self.round == 0 or self.rules.extra_card_each_round:
            if self.top < len(self.deck):
                card = self.deck[self.top]
                self.top += 1
                self.extra[artist_of(card)] += 1
                self.column[artist_of(card)] += 1
                self._note("extra card {}", card_name(card))
        self.turn_player = self.starter
        self.last_turn = (self.starter - 1) % self.rules.players
        self._begin_turn()

    def _end_round(self) -> None:
        ender = self.last_turn
        self.starter = (ender + 1) % self.rules.players
        if self.rules.end_of_round_plays:
            n = self.rules.players
            self.queue = [(ender + i) % n for i in range(1, n + 1)]
            self.end_used = [0] * NUM_ARTISTS
            self._next_end_play()
            return
        self._score_round()

    def _next_end_play(self) -> None:
        while self.queue:
            self.phase, self.to_move = END_PLAY, self.queue[0]
            if len(self.legal_actions()) > 1:
                return
            self.queue.pop(0)
            self.end_used = [0] * NUM_ARTISTS
        self._score_round()

    def _score_round(self) -> None:
        rules = self.rules
        n = rules.players
        own = [[self.up[p][a] + self.down[p][a] for a in range(NUM_ARTISTS)] for p in range(n)]
        points, won = round_points(self.counts(), own, self.values, self.awards, rules)
        for a in range(NUM_ARTISTS):
            self.values[a] += won[a]
        for p in range(n):
            self.money[p] += points[p]
        self.round_history.append(points)
        self._note("round scored: {}", points)
        self.up = [[0] * NUM_ARTISTS for _ in range(n)]
        self.down = [[0] * NUM_ARTISTS for _ in range(n)]
        self.extra = [0] * NUM_ARTISTS
        self.column = [0] * NUM_ARTISTS
        self.queue = []
        self.outer = []
        self.round += 1
        if self.round >= rules.rounds:
            self.phase = GAME_OVER
            self.to_move = -1
            return
        self._deal_cards(rules.deals[self.round], self.starter)
        self._start_round()

    # ---- copying and text ----------------------------------------------------------------------

    def copy(self) -> State:
        """An independent copy (the oracle's searches copy every node, so each field by hand)."""
        other = State.__new__(State)
        other.rules = self.rules
        other.deck = self.deck
        other.top = self.top
        other.hands = [h[:] for h in self.hands]
        other.hand_sizes = self.hand_sizes[:]
        other.up = [u[:] for u in self.up]
        other.down = [d[:] for d in self.down]
        other.extra = self.extra[:]
        other.column = self.column[:]
        other.values = self.values[:]
        other.awards = self.awards[:]
        other.awards_left = self.awards_left
        other.money = self.money[:]
        other.round = self.round
        other.phase = self.phase
        other.to_move = self.to_move
        other.turn_player = self.turn_player
        other.starter = self.starter
        other.double_artist = self.double_artist
        other.queue = self.queue[:]
        other.outer = self.outer[:]
        other.end_used = self.end_used[:]
        other.last_turn = self.last_turn
        other.history = self.history[:]
        other.round_history = [r[:] for r in self.round_history]
        other.log = None if self.log is None else self.log[:]
        other.drawn = self.drawn[:]
        return other

    def winners(self) -> list[int]:
        best = max(self.money)
        return [p for p, s in enumerate(self.money) if s == best]

    def render(self, viewer: int | None = None) -> str:
        """The position as text; with ``viewer``, only what that seat may see."""
        n = self.rules.players
        lines = [
            f"Round {min(self.round + 1, self.rules.rounds)}/{self.rules.rounds}  deck: {self.deck_left}  "
            f"awards left: {self.awards_left}  decision: {PHASES[self.phase]}"
            + ("" if self.done else f" (player {self.to_move})"),
            "artist        value awards shown" + "".join(f"   P{p}" for p in range(n)),
        ]
        for a in range(NUM_ARTISTS):
            per = ""
            for p in range(n):
                down = self.down[p][a] if viewer is None or viewer == p else 0
                per += f" {self.up[p][a]:>2}" + (f"+{down}" if down else "  ")
            extra = " (+extra)" if self.extra[a] else ""
            lines.append(
                f"{ARTISTS[a]:<13} {self.values[a]:>5} {self.awards[a]:>6} {self.column[a]:>5}{per}{extra}"
            )
        if viewer is not None and any(map(any, self.down)):
            lines.append("face down: " + ", ".join(f"P{p} {sum(self.down[p])}" for p in range(n)))
        lines.append("scores: " + ", ".join(f"P{p} {s}" for p, s in enumerate(self.money)))
        for p in range(n):
            if viewer is None or viewer == p:
                cards = " ".join(card_code(k) for k in range(NUM_KINDS) for _ in range(self.hands[p][k]))
            else:
                cards = "(hidden)"
            lines.append(f"P{p} hand ({self.hand_sizes[p]}): {cards}")
        return "\n".join(lines)


def new_game(rules: ModernArtRules, deal: str, log: bool = False) -> State:
    return State(rules, deal, log=log)


def replay(rules: ModernArtRules, deal: str | Sequence[int], plan: Iterable[int]) -> State:
    """Play ``plan`` (actions, in order) from the start of ``deal``; raises on an illegal action."""
    state = State(rules, deal)
    for action in plan:
        state.apply(action)
    return state

"""Nmbr9: the engine.

The single source of the rules (docs/rules/nmbr9.md): the ten tiles and their rotations, the deck
of a variant m-c-k, deal strings, placement legality, scoring. No Gymnasium here.

A board is a bounded square grid of ``grid x grid`` usable cells. Because every occupied cell is
supported from below, a cell is described by its height ``h`` (tiles stacked on it) and its top tile;
a tile can go on level ``L`` only where every cell it covers has height ``L``.

An action is ``rotation * grid**2 + row * grid + col``: the tile turned ``rotation`` quarter turns
clockwise (never mirrored), with the top-left corner of its bounding box on cell ``(row, col)``.
Tiles 0 and 8 look the same after a half turn; their rotations 2 and 3 are not legal actions, so that
every placement has exactly one action.

The engine contract every game's engine offers: ``Nmbr9Rules`` (the variant, the grid and the level
limit), ``Nmbr9State`` with ``legal_actions()``, ``apply(action)``, ``done``, ``copy()`` and
``scores()``, and ``replay(rules, deal, plan)``.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

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

MAX_VALUE = 9
NUM_ROTATIONS = 4
DEFAULT_GRID = 20
MIN_GRID = 4  # the smallest board every tile fits on (each tile's box is 3 x 4)
MAX_GRID = 64  # the engine's tables grow with grid**2; beyond this nothing is useful, only slow
MAX_COPIES = 10  # at most 100 cards in a deck (the standard game has 2 copies of each value)
MAX_LEVELS = (MAX_VALUE + 1) * MAX_COPIES + 1  # the table and one level a card: the largest deck's

# Row 0 on top, '#' = a cell of the tile. The two cells inside the 0 are not part of it.
TILE_ROWS: dict[int, tuple[str, ...]] = {
    0: ("###", "#.#", "#.#", "###"),
    1: ("##.", ".#.", ".#.", ".#."),
    2: (".##", ".##", "##.", "###"),
    3: ("###", "..#", ".##", "###"),
    4: (".##", ".#.", "###", ".##"),
    5: ("###", "###", "..#", "###"),
    6: ("##.", "#..", "###", "###"),
    7: ("###", ".#.", "##.", "#.."),
    8: (".##", ".##", "##.", "##."),
    9: ("###", "###", "##.", "##."),
}

Cells = tuple[tuple[int, int], ...]


def _normalise(cells: Iterable[tuple[int, int]]) -> Cells:
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def _turn(cells: Cells) -> Cells:
    """A quarter turn clockwise: (r, c) -> (c, -r). A turn, never a mirror image."""
    return _normalise((c, -r) for r, c in cells)


@functools.cache
def tile_rotations(value: int) -> tuple[Cells, ...]:
    """The tile's cells after 0, 1, 2, 3 quarter turns clockwise, each normalised to its bounding box."""
    _check_value(value)
    cells = _normalise(
        (r, c) for r, row in enumerate(TILE_ROWS[value]) for c, ch in enumerate(row) if ch == "#"
    )
    turns = [cells]
    for _ in range(NUM_ROTATIONS - 1):
        turns.append(_turn(turns[-1]))
    return tuple(turns)


@functools.cache
def distinct_rotations(value: int) -> tuple[int, ...]:
    """Rotation indices that give a new footprint (0 and 8 have two, the others four)."""
    seen: list[Cells] = []
    keep = []
    for rot, cells in enumerate(tile_rotations(value)):
        if cells not in seen:
            seen.append(cells)
            keep.append(rot)
    return tuple(keep)


def tile_area(value: int) -> int:
    return len(tile_rotations(value)[0])


def _check_value(value: int) -> None:
    if not isinstance(value, (int, np.integer)) or not 0 <= value <= MAX_VALUE:
        raise ValueError(f"a tile value is an integer from 0 to {MAX_VALUE}, got {value!r}")


# ---------------------------------------------------------------------------------------------------
# Variants and deals


@dataclass(frozen=True)
class Variant:
    """Deck of variant m-c-k: values 0..``max_value``, ``copies`` cards of each, ``cards`` drawn."""

    max_value: int = 9
    copies: int = 2
    cards: int = 20

    def __post_init__(self) -> None:
        # Numpy integers are welcome (stored as ints); a deck beyond MAX_COPIES copies is refused,
        # so no variant can ask for a deck that does not fit in memory.
        try:
            max_value = check_int(f"max_value (m, 0-{MAX_VALUE})", self.max_value, 0, MAX_VALUE)
            copies = check_int(f"copies (c, 1-{MAX_COPIES})", self.copies, 1, MAX_COPIES)
            cards = check_int("cards (k, 1-(m+1)*c)", self.cards, 1)
            full = (max_value + 1) * copies
            if cards > full:
                raise ValueError(
                    f"the deck of {max_value}-{copies}-k holds (m+1)*c = {full} cards, "
                    f"so cards (k) must be from 1 to {full}, got {cards}"
                )
        except ValueError as error:
            raise InvalidDealError(str(error)) from None
        object.__setattr__(self, "max_value", max_value)
        object.__setattr__(self, "copies", copies)
        object.__setattr__(self, "cards", cards)

    _WRITTEN = re.compile(r"(?:[UKF]-)?([0-9]+)-([0-9]+)-([0-9]+)", re.IGNORECASE | re.ASCII)

    @classmethod
    def parse(cls, text: str) -> Variant:
        """``"9-2-20"`` (m-c-k), optionally prefixed by the draft letter (``"F-6-2-5"``)."""
        if not isinstance(text, str):
            raise InvalidDealError(f"a variant is a string m-c-k such as '9-2-20', got {quote_input(text)}")
        found = cls._WRITTEN.fullmatch(text.strip())
        if found is None:
            raise InvalidDealError(
                f"a variant is written m-c-k (max value, copies, cards), e.g. 9-2-20; got {quote_input(text)}"
            )
        parts = found.groups()
        if any(len(p) > 18 for p in parts):  # no int() of a thousand digits, and a short message
            raise InvalidDealError(
                f"variant {quote_input(text, 30)}: m is 0-{MAX_VALUE}, c is 1-{MAX_COPIES} and k is 1-(m+1)*c"
            )
        try:
            return cls(*(int(p) for p in parts))
        except InvalidDealError as error:
            raise InvalidDealError(f"variant {text.strip()}: {error}") from None

    @classmethod
    def of(cls, variant: Variant | str) -> Variant:
        """``variant`` itself, or the variant a string such as ``"9-2-20"`` names."""
        return variant if isinstance(variant, Variant) else cls.parse(variant)

    @property
    def full_deck(self) -> tuple[int, ...]:
        return tuple(v for v in range(self.max_value + 1) for _ in range(self.copies))

    def __str__(self) -> str:
        return f"{self.max_value}-{self.copies}-{self.cards}"


STANDARD = Variant()


@dataclass(frozen=True)
class Deal:
    """The card values in draw order. ``str(deal)`` is the deal string, e.g. ``"9081726354..."``."""

    cards: tuple[int, ...]

    def __str__(self) -> str:
        return "".join(str(v) for v in self.cards)

    def __len__(self) -> int:
        return len(self.cards)


def parse_deal(text: str, variant: Variant = STANDARD) -> Deal:
    """Parse and validate a deal string: ``variant.cards`` digits, each value at most ``copies`` times."""
    if not isinstance(text, str):
        raise InvalidDealError(f"a deal must be a string of digits, got {type(text).__name__}")
    text = text.strip()
    quoted = quote_input(text)  # a 10 MB deal gives a short message
    alphabet = "".join(str(v) for v in range(variant.max_value + 1))
    for pos, char in enumerate(text):
        if char not in alphabet:
            raise InvalidDealError(
                f"deal {quoted}: character {char!r} at position {pos} is not a card value of "
                f"variant {variant} (0..{variant.max_value})"
            )
    if len(text) != variant.cards:
        raise InvalidDealError(
            f"deal {quoted} has {len(text)} cards; variant {variant} deals {variant.cards}"
        )
    for char, n in Counter(text).items():
        if n > variant.copies:
            raise InvalidDealError(
                f"deal {quoted} holds value {char} {n} times; variant {variant} has {variant.copies} copies"
            )
    return Deal(tuple(int(c) for c in text))


def random_deal(seed: int | np.random.Generator | None = None, variant: Variant = STANDARD) -> Deal:
    """The first ``variant.cards`` cards of a uniformly shuffled deck."""
    rng = make_rng(seed)
    deck = np.array(variant.full_deck)
    rng.shuffle(deck)
    return Deal(tuple(int(v) for v in deck[: variant.cards]))


# ---------------------------------------------------------------------------------------------------
# Geometry: every placement of every tile on a grid, as index tables for vectorised legality.


@dataclass(frozen=True)
class _TileTable:
    actions: np.ndarray  # (n,) action index of each in-grid placement with a distinct rotation
    # Stored transposed, (10, n) and (B, n), so that reductions run over whole rows of placements.
    cells: np.ndarray  # (10, n) flat cell indices covered (padded by repeating the first cell)
    border: np.ndarray  # (B, n) flat indices of edge neighbours outside the tile (padded: sentinel)


@functools.cache
def _tables(grid: int) -> tuple[_TileTable, ...]:
    sentinel = grid * grid  # an extra cell of height -1: never a tile, never a neighbour
    tables = []
    for value in range(MAX_VALUE + 1):
        acts, cells_rows, border_rows = [], [], []
        for rot in distinct_rotations(value):
            shape = tile_rotations(value)[rot]
            height = max(r for r, _ in shape) + 1
            width = max(c for _, c in shape) + 1
            own = set(shape)
            ring = sorted(
                {(r + dr, c + dc) for r, c in shape for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))} - own
            )
            for row in range(grid - height + 1):
                for col in range(grid - width + 1):
                    acts.append(rot * grid * grid + row * grid + col)
                    flat = [(row + r) * grid + col + c for r, c in shape]
                    cells_rows.append(flat + [flat[0]] * (10 - len(flat)))
                    border_rows.append(
                        [
                            (row + r) * grid + col + c
                            if 0 <= row + r < grid and 0 <= col + c < grid
                            else sentinel
                            for r, c in ring
                        ]
                    )
        width_b = max((len(b) for b in border_rows), default=0)
        border = np.full((len(border_rows), width_b), sentinel, dtype=np.intp)
        for i, b in enumerate(border_rows):
            border[i, : len(b)] = b
        tables.append(
            _TileTable(
                actions=np.array(acts, dtype=np.intp),
                cells=np.ascontiguousarray(np.array(cells_rows, dtype=np.intp).reshape(len(acts), 10).T),
                border=np.ascontiguousarray(border.T),
            )
        )
    return tuple(tables)


def encode_action(rotation: int, row: int, col: int, grid: int = DEFAULT_GRID) -> int:
    return rotation * grid * grid + row * grid + col


def decode_action(action: int, grid: int = DEFAULT_GRID) -> tuple[int, int, int]:
    """``(rotation, row, col)`` of an action index."""
    rotation, rest = divmod(int(action), grid * grid)
    return rotation, rest // grid, rest % grid


def footprint(value: int, action: int, grid: int = DEFAULT_GRID) -> Cells:
    """The grid cells ``(row, col)`` a tile covers under an action (may leave the grid)."""
    rotation, row, col = decode_action(action, grid)
    return tuple((row + r, col + c) for r, c in tile_rotations(value)[rotation])


def why_illegal(value: int, action: int, height: np.ndarray, top: np.ndarray, levels: int | None) -> str:
    """Why placing tile ``value`` by ``action`` is illegal on a board whose cells have ``height``
    tiles stacked, the top one placed on turn ``top`` (both ``(grid, grid)``), under the level limit
    ``levels``: a plain-words reason for error messages, the mask being the authority."""
    grid = height.shape[0]
    rotation, _, _ = decode_action(action, grid)
    if rotation not in distinct_rotations(value):
        return f"tile {value} looks the same after a half turn; use rotation {rotation - 2}"
    cells = footprint(value, action, grid)
    if any(not (0 <= r < grid and 0 <= c < grid) for r, c in cells):
        return "the tile would leave the grid"
    heights = {int(height[r, c]) for r, c in cells}
    if len(heights) > 1:
        shown = " and ".join(str(h) for h in sorted(heights))
        return (
            f"the cells under it have different heights ({shown}): a tile lies flat on one level, "
            "never overhanging or over a gap"
        )
    level = heights.pop()
    if levels is not None and level >= levels:
        return f"level {level} is beyond the level limit ({levels} levels)"
    if level > 0 and len({int(top[r, c]) for r, c in cells}) < 2:
        return f"a tile on level {level} must rest on at least two different tiles"
    return f"the tile must share an edge with a tile already on level {level}"


def check_grid(grid: int, name: str = "grid") -> int:
    """``grid`` as an int: cells per side, from ``MIN_GRID`` to ``MAX_GRID``; ``name`` is the
    parameter named in the error (``model_grid`` for an oracle's model board)."""
    return check_int(f"{name} (cells per side, {MIN_GRID}-{MAX_GRID})", grid, MIN_GRID, MAX_GRID)


def check_levels(levels: int | None) -> int | None:
    """``levels`` as an int or None: the number of levels allowed, the table included (1 = only the
    table); None for no limit."""
    return check_int("levels (the number of levels, the table included)", levels, 1, optional=True)


@dataclass(frozen=True)
class Nmbr9Rules:
    """The rules a game of Nmbr9 is played under: the deck (``variant``, m-c-k; a string such as
    ``"9-2-5"`` is read as one), the board (``grid`` cells per side) and the level limit (``levels``,
    the table included; None for none)."""

    variant: Variant = STANDARD
    grid: int = option(
        DEFAULT_GRID, f"cells per side of the grid, {MIN_GRID}-{MAX_GRID}", low=MIN_GRID, high=MAX_GRID
    )
    levels: int | None = option(
        None,
        f"level limit, the table included, 1-{MAX_LEVELS} (no stack is higher than its cards)",
        low=1,
        high=MAX_LEVELS,
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", Variant.of(self.variant))
        object.__setattr__(self, "grid", check_grid(self.grid))
        object.__setattr__(self, "levels", check_levels(self.levels))


# ---------------------------------------------------------------------------------------------------
# The game


@dataclass(frozen=True)
class Placement:
    """A placed tile: its card value, the action that placed it, its level."""

    value: int
    action: int
    level: int


class Nmbr9State:
    """A position: the board, the cards drawn so far, the score.

    ``apply(action)`` puts the current card's tile down and returns its points. A card with no legal
    placement at all (possible only on a small grid or under a level limit) is discarded at once,
    scoring nothing, so whenever the game is not over the current card has a legal placement.
    ``levels`` optionally limits the number of levels (including the table), as in the seed's variants.
    """

    __slots__ = (
        "deal",
        "grid",
        "levels",
        "height",
        "top",
        "top_value",
        "placements",
        "turn",
        "score",
        "discarded",
        "_hflat",
        "_tflat",
        "_key",
        "_mask",
    )

    def __init__(self, deal: Deal, grid: int = DEFAULT_GRID, levels: int | None = None) -> None:
        grid = check_grid(grid)
        levels = check_levels(levels)
        self.deal = deal
        self.grid = grid
        self.levels = levels
        # Flat arrays with one extra sentinel cell (height -1) that out-of-grid neighbours point at.
        self._hflat = np.zeros(grid * grid + 1, dtype=np.int16)
        self._hflat[-1] = -1
        self._tflat = np.full(grid * grid + 1, -1, dtype=np.int16)
        self.height = self._hflat[:-1].reshape(grid, grid)  # tiles stacked on each cell
        self.top = self._tflat[:-1].reshape(grid, grid)  # index (turn) of each cell's top tile, -1 none
        self.top_value = np.full((grid, grid), -1, dtype=np.int8)
        # height << 16 | (top + 1) per cell: one gather and two reductions give a footprint's
        # flatness, level and whether it rests on two different tiles.
        self._key = np.zeros(grid * grid, dtype=np.int32)
        self.placements: list[Placement | None] = []  # one per card drawn; None = discarded
        self.turn = 0
        self.score = 0
        self.discarded = 0
        self._mask: np.ndarray | None = None
        self._skip_unplaceable()

    @property
    def done(self) -> bool:
        return self.turn >= len(self.deal.cards)

    @property
    def card(self) -> int | None:
        """The value of the card to place now (None when the game is over)."""
        return None if self.done else self.deal.cards[self.turn]

    @property
    def num_actions(self) -> int:
        return NUM_ROTATIONS * self.grid * self.grid

    def remaining(self) -> tuple[int, ...]:
        """Cards still to come after the current one (their order is unknown to a player)."""
        return self.deal.cards[self.turn + 1 :]

    def placement_levels(self, value: int) -> tuple[np.ndarray, np.ndarray]:
        """For each in-grid placement of tile ``value``: the actions and their level (-1 if illegal).

        Vectorised over every placement at once; this is the action mask's hot path.
        """
        table = _tables(self.grid)[value]
        key = self._key[table.cells]  # (10, n) height << 16 | (top + 1) under each placement
        low = key.min(axis=0)
        high = key.max(axis=0)
        level = low >> 16
        ok = level == (high >> 16)  # a flat footprint: the level is implied
        if self.levels is not None:
            ok &= level < self.levels
        # On level >= 1 the tile must rest on two different tiles: on a flat footprint, the keys
        # differ exactly when the top tiles under it do.
        ok &= (level == 0) | (low != high)
        # Unless it is the first tile of its level, it must touch a tile of that level along an edge.
        first_of_level = level >= self._hflat.max()
        if table.border.shape[0]:
            touches = self._hflat[table.border].max(axis=0) > level
        else:
            touches = np.zeros(len(level), dtype=bool)
        ok &= first_of_level | touches
        return table.actions, np.where(ok, level, -1)

    def action_mask(self) -> np.ndarray:
        """Legal actions for the current card (bool, length ``4 * grid**2``); all False when over."""
        if self._mask is None:
            mask = np.zeros(self.num_actions, dtype=bool)
            if not self.done:
                actions, level = self.placement_levels(self.deal.cards[self.turn])
                mask[actions[level >= 0]] = True
            self._mask = mask
        return self._mask

    def legal_actions(self) -> list[int]:
        """The legal placements of the current card, in action order (none once the game is over)."""
        return [int(a) for a in np.flatnonzero(self.action_mask())]

    def level_of(self, action: int) -> int:
        """The level the current card's tile would land on under ``action`` (-1 if illegal)."""
        if self.done or not self._is_action(action) or not self.action_mask()[action]:
            return -1
        cells = footprint(self.deal.cards[self.turn], action, self.grid)
        r, c = cells[0]
        return int(self.height[r, c])

    def points_if_placed(self, action: int) -> int:
        level = self.level_of(action)
        return 0 if level < 0 else level * self.deal.cards[self.turn]

    def _is_action(self, action: object) -> bool:
        return (
            isinstance(action, (int, np.integer))
            and not isinstance(action, bool)
            and (0 <= action < self.num_actions)
        )

    def scores(self) -> list[float]:
        """The solitaire's one seat's score so far: ``[score]``."""
        return [float(self.score)]

    def apply(self, action: int) -> int:
        """Place the current card's tile; returns the points it scores (value x level). Raises
        ``IllegalActionError`` for an illegal placement, ``GameOverError`` once every card is placed."""
        if self.done:
            raise GameOverError("the game is over: every card has been placed")
        if not self._is_action(action):
            raise IllegalActionError(
                action, self.legal_actions(), f"not an action index 0..{self.num_actions - 1}"
            )
        action = int(action)
        if not self.action_mask()[action]:
            raise IllegalActionError(action, self.legal_actions(), self.why_illegal(action))
        value = self.deal.cards[self.turn]
        cells = footprint(value, action, self.grid)
        rows = np.array([r for r, _ in cells])
        cols = np.array([c for _, c in cells])
        level = int(self.height[rows[0], cols[0]])
        self.height[rows, cols] += 1
        self.top[rows, cols] = self.turn
        self._key[rows * self.grid + cols] = ((level + 1) << 16) | (self.turn + 1)
        self.top_value[rows, cols] = value
        self.placements.append(Placement(value, action, level))
        points = value * level
        self.score += points
        self.turn += 1
        self._mask = None
        self._skip_unplaceable()
        return points

    def _skip_unplaceable(self) -> None:
        while not self.done and not self.action_mask().any():
            self.placements.append(None)
            self.discarded += 1
            self.turn += 1
            self._mask = None

    def why_illegal(self, action: int) -> str:
        """A plain-words reason, for error messages (the mask is the authority)."""
        return why_illegal(self.deal.cards[self.turn], action, self.height, self.top, self.levels)

    def with_next(self, value: int) -> Nmbr9State:
        """A copy of this finished position with one more card, ``value``, to place: the draw of a
        game whose order is not fixed in advance (the unknown draft). As always, a card that fits
        nowhere is discarded at once (the copy is then finished again)."""
        _check_value(value)
        if not self.done:
            raise ValueError(f"card {self.card} must be placed before the next one is drawn")
        other = self.copy()
        other.deal = Deal(self.deal.cards + (int(value),))
        other._mask = None
        other._skip_unplaceable()
        return other

    def __getstate__(self) -> dict[str, object]:
        # ``height`` and ``top`` are views of the flat arrays; pickle and deepcopy would make them
        # arrays of their own that no longer follow play, so they are rebuilt on load instead.
        return {name: getattr(self, name) for name in self.__slots__ if name not in ("height", "top")}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.height = self._hflat[:-1].reshape(self.grid, self.grid)
        self.top = self._tflat[:-1].reshape(self.grid, self.grid)

    def copy(self) -> Nmbr9State:
        other = Nmbr9State.__new__(Nmbr9State)
        other.deal = self.deal
        other.grid = self.grid
        other.levels = self.levels
        other._hflat = self._hflat.copy()
        other._tflat = self._tflat.copy()
        other._key = self._key.copy()
        other.height = other._hflat[:-1].reshape(self.grid, self.grid)
        other.top = other._tflat[:-1].reshape(self.grid, self.grid)
        other.top_value = self.top_value.copy()
        other.placements = list(self.placements)
        other.turn = self.turn
        other.score = self.score
        other.discarded = self.discarded
        other._mask = self._mask
        return other

    def render(self) -> str:
        """The board as text with row and column numbers, a legend and the state of the game.

        Two views of the grid side by side: ``tiles`` shows the value of the top tile on each cell
        (``.`` an empty cell), ``heights`` how many tiles are stacked there: a tile put on cells of
        height h lands on level h and scores its value times h (the table is level 0).
        """
        g = self.grid
        pad = " " * len(f"{g - 1:>2} ")
        gap = "   "
        header = []
        if g > 10:  # two-digit column numbers, written downwards: tens, then units
            tens = "".join(str(c // 10) if c >= 10 else " " for c in range(g))
            header.append(f"{pad}{tens}{gap}{pad}{tens}")
        units = "".join(str(c % 10) for c in range(g))
        header.append(f"{pad}{units}{gap}{pad}{units}")
        title_tiles, title_heights = "tiles", "heights"
        lines = [f"{pad}{title_tiles:<{g}}{gap}{pad}{title_heights}", *header]
        for r in range(g):
            tops = "".join("." if v < 0 else str(v) for v in self.top_value[r])
            hs = "".join("." if h == 0 else (str(h) if h < 10 else "+") for h in self.height[r])
            lines.append(f"{r:>2} {tops}{gap}{r:>2} {hs}")
        lines.append("tiles: the value of each cell's top tile (. empty)")
        lines.append("heights: tiles stacked on each cell; a tile put on cells of height h lands on level h")
        lines.append("         and scores its value x h (the table is level 0)")
        if self.card is None:
            lines.append(f"game over  score {self.score}  discarded {self.discarded}")
        else:
            lines.append(
                f"card to place: {self.card} (card {self.turn + 1} of {len(self.deal.cards)})"
                f"  score {self.score}  discarded {self.discarded}"
            )
        return "\n".join(lines)


def tile_picture(value: int, rotation: int = 0) -> tuple[str, ...]:
    """The tile ``value`` turned ``rotation`` quarter turns clockwise, as rows of ``#`` (a cell of the
    tile) and ``.`` (not part of it), its top-left corner being the corner a placement names."""
    cells = set(tile_rotations(value)[rotation])
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    return tuple("".join("#" if (r, c) in cells else "." for c in range(width)) for r in range(height))


def replay(rules: Nmbr9Rules, deal: Deal | str, plan: Iterable[int]) -> Nmbr9State:
    """Play ``plan`` (one action per placed card, in order) from the start of ``deal`` on the board
    of ``rules``; raises on an illegal move. A deal string is read as a deal of ``rules.variant``; a
    :class:`Deal` is played as it is (the free draft's and the unknown draft's card orders belong to
    no variant's deal)."""
    if not isinstance(rules, Nmbr9Rules):
        raise TypeError(f"rules must be Nmbr9Rules, got {type(rules).__name__}")
    if not isinstance(deal, Deal):
        deal = parse_deal(deal, rules.variant)
    state = Nmbr9State(deal, rules.grid, rules.levels)
    for action in plan:
        state.apply(action)
    return state


def translate_plan(
    deal: Deal, plan: Iterable[int], grid: int, new_grid: int, offset: int | None = None
) -> list[int]:
    """Move a plan found on a ``grid`` board to the middle of a larger ``new_grid`` board.

    Every rule is invariant under translation, so the moved plan is legal and scores the same.
    """
    if new_grid < grid:
        raise ValueError(f"cannot move a plan from a {grid}-grid onto a smaller {new_grid}-grid")
    shift = (new_grid - grid) // 2 if offset is None else offset
    out = []
    for action in plan:
        rotation, row, col = decode_action(action, grid)
        out.append(encode_action(rotation, row + shift, col + shift, new_grid))
    return out

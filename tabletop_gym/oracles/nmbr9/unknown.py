"""Nmbr9 with the draw order unknown (the U variants): what the best policy can reach.

In the game as people and agents play it, each card is seen only when it is drawn. The known-draft
oracle's hindsight optimum sees the future, so no policy reaches it in general. Here, for variants
small enough, two exact values of the game itself:

- the **expected value**: the most a policy can score on average when the ``k`` cards are drawn
  uniformly at random from the deck (expectimax: the mean over the next card, the best placement
  of it);
- the **guaranteed value**: the most a policy can be sure of whatever the order (the seed's reading
  with the draws quantified for all: the worst next card, the best placement of it).

Both come from one memoized search over positions: the board (heights and which cells share a top
tile, the tiles' own turn numbers forgotten), the cards not yet drawn and how many draws remain. The
four quarter turns of the whole board map legal plays onto legal plays with the same points, so a
board and its turns are one position. A card that fits nowhere is discarded, as the engine does
(``Nmbr9State.with_next``); every placement comes from the engine. The search counts the positions
it visits (each placement tried is one) and stops with ``UnknownTooBigError`` past
``max_positions``: a limit counted in work, not time.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from tabletop_gym.core import TabletopError, check_int
from tabletop_gym.envs.nmbr9.rules import Deal, Nmbr9State, Variant, check_grid, check_levels

MAX_POSITIONS = 2_000_000
"""The default limit on positions visited: about 4 minutes of one core here (0.12 ms each)."""


class UnknownTooBigError(TabletopError, RuntimeError):
    """The variant has more positions than the search was allowed to visit."""


@dataclass(frozen=True)
class UnknownResult:
    """The values of a variant with the draw order unknown (see the module's notes)."""

    variant: str
    grid: int
    levels: int | None
    expected: Fraction
    guaranteed: int
    positions: int
    seconds: float
    visited: int = 0
    hindsight_mean: Fraction | None = None
    hindsight_orders: int | None = None


def board_key(state: Nmbr9State) -> bytes:
    """The board up to quarter turns: heights and the partition of cells into top tiles (labels
    renumbered in reading order), the least of the four turns' encodings."""
    best = None
    for turns in range(4):
        height = np.rot90(state.height, turns)
        top = np.rot90(state.top, turns).ravel()
        labels: dict[int, int] = {}
        renamed = np.array([-1 if t < 0 else labels.setdefault(int(t), len(labels)) for t in top], np.int16)
        key = height.astype(np.int16).tobytes() + renamed.tobytes()
        if best is None or key < best:
            best = key
    return best


class UnknownSolver:
    """Memoized values of positions ``(board, cards not drawn, draws left)``: ``value`` gives the
    (expected, guaranteed) points still to come under best play, ``choose`` the best placement of
    a drawn card for each reading."""

    def __init__(self, grid: int, levels: int | None, max_positions: int = MAX_POSITIONS) -> None:
        self.grid = check_grid(grid)
        self.levels = check_levels(levels)
        self.max_positions = check_int("max_positions", max_positions, 1)
        self.memo: dict[tuple, tuple[Fraction, int]] = {}
        self.visited = 0  # placements tried: the work counted against ``max_positions``

    def empty(self) -> Nmbr9State:
        return Nmbr9State(Deal(()), self.grid, self.levels)

    def value(self, state: Nmbr9State, unseen: tuple[int, ...], draws: int) -> tuple[Fraction, int]:
        """Points still to come from a finished ``state`` when ``draws`` cards are drawn from the
        deck ``unseen`` (cards of each value): (expected under the best policy, guaranteed)."""
        if draws == 0:
            return Fraction(0), 0
        key = (board_key(state), unseen, draws)
        found = self.memo.get(key)
        if found is not None:
            return found
        total = sum(unseen)
        expected = Fraction(0)
        guaranteed = None
        for v, count in enumerate(unseen):
            if count == 0:
                continue
            rest = unseen[:v] + (count - 1,) + unseen[v + 1 :]
            e, g = self._best(state.with_next(v), rest, draws - 1)
            expected += Fraction(count, total) * e
            guaranteed = g if guaranteed is None else min(guaranteed, g)
        self.memo[key] = (expected, guaranteed)
        return expected, guaranteed

    def _best(self, drawn: Nmbr9State, rest: tuple[int, ...], draws: int) -> tuple[Fraction, int]:
        if drawn.done:  # the card fits nowhere: discarded
            return self.value(drawn, rest, draws)
        best_e, best_g = None, None
        for points, child in self._children(drawn):
            e, g = self.value(child, rest, draws)
            best_e = points + e if best_e is None else max(best_e, points + e)
            best_g = points + g if best_g is None else max(best_g, points + g)
        return best_e, best_g

    def _children(self, drawn: Nmbr9State) -> Iterator[tuple[int, Nmbr9State]]:
        """Each legal placement's points and position, boards equal up to turns given once."""
        seen: set[bytes] = set()
        for action in np.flatnonzero(drawn.action_mask()):
            self._visit()
            child = drawn.copy()
            points = child.apply(int(action))
            key = board_key(child)
            if key not in seen:
                seen.add(key)
                yield points, child

    def _visit(self) -> None:
        self.visited += 1
        if self.visited > self.max_positions:
            raise UnknownTooBigError(
                f"more than {self.max_positions:,} positions visited: beyond the exact search's reach "
                "(try a smaller deck, grid or number of cards, or a larger --max-positions)"
            )

    def choose(self, drawn: Nmbr9State, rest: tuple[int, ...], draws: int, guaranteed: bool = False) -> int:
        """The best placement of the drawn card (``drawn.card``) with ``draws`` more cards to come
        from ``rest``: best in expectation, or by the guaranteed value."""
        best, best_action = None, -1
        for action in np.flatnonzero(drawn.action_mask()):
            child = drawn.copy()
            points = child.apply(int(action))
            e, g = self.value(child, rest, draws)
            score = points + (g if guaranteed else e)
            if best is None or score > best:
                best, best_action = score, int(action)
        return best_action


def solve_unknown(
    variant: Variant | str,
    grid: int,
    levels: int | None = None,
    max_positions: int = MAX_POSITIONS,
    solver: UnknownSolver | None = None,
) -> UnknownResult:
    """The expected and guaranteed values of ``variant`` on ``grid`` with the draw order unknown
    (see the module's notes). Raises ``UnknownTooBigError`` past ``max_positions`` positions."""
    start = time.perf_counter()
    variant = Variant.of(variant)
    solver = solver or UnknownSolver(grid, levels, max_positions)
    deck = tuple(variant.copies for _ in range(variant.max_value + 1))
    expected, guaranteed = solver.value(solver.empty(), deck, variant.cards)
    return UnknownResult(
        variant=str(variant),
        grid=solver.grid,
        levels=solver.levels,
        expected=expected,
        guaranteed=guaranteed,
        positions=len(solver.memo),
        visited=solver.visited,
        seconds=time.perf_counter() - start,
    )


def draw_orders(variant: Variant) -> Iterator[tuple[tuple[int, ...], Fraction]]:
    """Every ordered draw of ``variant.cards`` cards from the deck, with its probability."""
    deck = Counter(variant.full_deck)
    size = len(variant.full_deck)
    falling = math.perm(size, variant.cards)
    for order in itertools.product(range(variant.max_value + 1), repeat=variant.cards):
        used = Counter(order)
        if any(used[v] > deck[v] for v in used):
            continue
        ways = math.prod(math.perm(deck[v], n) for v, n in used.items())
        yield order, Fraction(ways, falling)


def hindsight_mean(
    variant: Variant | str,
    grid: int,
    levels: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> tuple[Fraction, int]:
    """The mean over every draw order of its hindsight optimum (the known-draft exact search), and
    the number of orders: what a player who saw the future would average."""
    from tabletop_gym.oracles.nmbr9 import search

    variant = Variant.of(variant)
    total = Fraction(0)
    orders = 0
    for order, p in draw_orders(variant):
        result = search.solve_known(Deal(order), grid, levels)
        if not result.optimal:
            raise RuntimeError(f"the exact search did not prove order {order}")
        total += p * result.score
        orders += 1
        if progress is not None:
            progress(1)
    return total, orders

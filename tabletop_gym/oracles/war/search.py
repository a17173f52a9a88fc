"""Exact best pickup play for player 0 on small decks: a search over positions.

Player 1 follows a fixed convention, so the game is a one-player problem: from a position (both
piles at the start of a trick) the trick plays out by itself except for the order of the cards
player 0 turns. A breadth-first search with a table of visited positions (the transposition table; a
position met again closes a cycle) finds the fewest tricks to a forced win. Without a win the best
is a draw when player 0 can reach a both-out draw or keep the game going until ``max_tricks`` (a
reachable cycle, or a long enough path), else every play loses.

The order of a won pot is decided lazily, as in the horizon search (``horizon``): the pot goes under
player 0's pile as an unordered block, and only when one of its cards is turned does the search
branch on which rank comes up. Choosing each card as it comes up is the same as choosing the whole
order at pickup (player 0 knows everything and player 1's play is fixed), but orders that differ
only in cards not yet turned are one position, not thousands: a pot of ten cards has up to 10!
orders, and a 12-card deck that needed millions of concrete positions needs a few hundred.

The search has its own compact model of a trick; every plan it returns is replayed through the
engine (``tabletop_gym.envs.war.rules.replay``) before it is reported.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Iterator, Sequence

from tabletop_gym.core import OracleCache, OracleResult, check_int
from tabletop_gym.envs.war.rules import (
    DEFAULT_RULES,
    MAX_TRICKS,
    Deal,
    WarGame,
    WarRules,
    convention_order,
    parse_deal,
    replay,
)
from tabletop_gym.oracles.war.limits import POSITIONS_PER_SECOND  # noqa: F401  (its rate, kept here too)

GAME = "war"
Block = tuple[int, ...]  # the ranks, sorted, of one unordered block of player 0's pile
Position = tuple[tuple[Block, ...], tuple[int, ...]]  # player 0's blocks (top first), player 1's pile
# How player 0's side of a trick went: the ranks it turned, in order, and the pot it took (sorted;
# empty when player 1 took the pot or the game ended during the trick).
Step = tuple[tuple[int, ...], tuple[int, ...]]
_WIN, _LOSS, _DRAW = 1, -1, 0


class SearchBudgetError(ValueError):
    """The search passed its budget of positions (``max_positions``) without an answer."""


def _size(blocks: tuple[Block, ...]) -> int:
    return sum(len(b) for b in blocks)


def _take(blocks: tuple[Block, ...], k: int) -> Iterator[tuple[tuple[int, ...], tuple[Block, ...]]]:
    """Every distinct way to turn player 0's next k cards: (ranks in turn, blocks left)."""
    if k == 0:
        yield (), blocks
        return
    ranks = blocks[0]
    for i, rank in enumerate(ranks):
        if i and ranks[i - 1] == rank:
            continue  # equal ranks are interchangeable
        rest = ranks[:i] + ranks[i + 1 :]
        left = (rest,) + blocks[1:] if rest else blocks[1:]
        for more, final in _take(left, k - 1):
            yield (rank,) + more, final


def _trick(
    blocks: tuple[Block, ...], pile1: tuple[int, ...], face_down: int, pot0: tuple[int, ...] = (),
    pot1: tuple[int, ...] = (),
):  # fmt: skip
    """Every way the next trick can go, by the ranks player 0 turns.

    Yields ``("end", outcome for player 0, turned0)`` when a player has no card to turn, else
    ``("take", taker, pot0, pot1, blocks left, pile 1 left)``; ``pot0`` and ``turned0`` are player
    0's cards of this trick in the order turned, ``pot1`` player 1's.
    """
    n0, n1 = _size(blocks), len(pile1)
    if n0 == 0 or n1 == 0:
        yield ("end", _DRAW if n0 == n1 else (_LOSS if n0 == 0 else _WIN), pot0)
        return
    c1 = pile1[0]
    for up, left0 in _take(blocks, 1):
        p0, p1 = pot0 + up, pot1 + (c1,)
        if up[0] != c1:
            yield ("take", 0 if up[0] > c1 else 1, p0, p1, left0, pile1[1:])
            continue
        # A war: face-down cards, each player keeping one to turn face up (rule 3).
        d0 = max(0, min(face_down, _size(left0) - 1))
        d1 = max(0, min(face_down, n1 - 2))
        for down0, rest0 in _take(left0, d0):
            yield from _trick(rest0, pile1[1 + d1 :], face_down, p0 + down0, p1 + pile1[1 : 1 + d1])


def choices_of(order: tuple[int, ...]) -> list[int]:
    """The decisions the engine asks for to place ``order``: none once one rank is left."""
    left = Counter(order)
    out = []
    for rank in order:
        if len(left) <= 1:
            break
        out.append(rank)
        left[rank] -= 1
        if left[rank] == 0:
            del left[rank]
    return out


def plan_for_orders(deal: Deal, rules: WarRules, orders: list[tuple[int, ...]]) -> list[int]:
    """Player 0's decisions that place its pots in ``orders`` (one per pot it takes, in turn),
    asked of the engine itself, so decisions the engine never asks for are left out."""
    return play_orders(WarGame(deal, rules, controlled=0), orders)


def plan_from(game: WarGame, orders: list[tuple[int, ...]]) -> list[int]:
    """:func:`plan_for_orders` from ``game``'s position (left as it is): where a pot is being picked
    up, ``orders[0]`` holds the rest of it, the cards not yet placed."""
    return play_orders(game.copy(), orders)


def play_orders(game: WarGame, orders: list[tuple[int, ...]]) -> list[int]:
    """:func:`plan_from`, played on ``game`` itself: the engine's game after the plan is left in it."""
    plan: list[int] = []
    for order in orders:
        if not game.awaiting:
            break
        trick = game.state.tricks
        for rank in order:
            if not game.awaiting or game.state.tricks != trick:
                break
            game.apply(rank)
            plan.append(rank)
    return plan


def orders_of_steps(deal: Deal, steps: Sequence[Step]) -> list[tuple[int, ...]]:
    """Player 0's pot orders (one per pot it takes, in turn) that make the cards come up as ``steps``
    say: each pot's cards in the order they are turned, then those never turned, ascending."""
    return orders_from(deal.piles[0], (), steps)


def orders_from(pile0: Sequence[int], pot: tuple[int, ...], steps: Sequence[Step]) -> list[tuple[int, ...]]:
    """:func:`orders_of_steps` from a position where player 0's pile is ``pile0`` (top first) and the
    cards ``pot`` of a pot it is picking up still go under it, in an order still to choose (the
    search's root from that position, :func:`root_of`): the first order is that pot's rest."""
    blocks: deque[tuple[int, list[int]]] = deque((-1, [r]) for r in pile0)
    pots: list[tuple[int, ...]] = []
    picked: list[list[int]] = []
    if pot:
        blocks.append((0, list(pot)))
        pots.append(tuple(pot))
        picked.append([])
    for turned, pot in steps:
        for rank in turned:
            pot_id, ranks = blocks[0]
            ranks.remove(rank)  # the search only turns ranks the block holds
            if pot_id >= 0:
                picked[pot_id].append(rank)
            if not ranks:
                blocks.popleft()
        if pot:
            blocks.append((len(pots), list(pot)))
            pots.append(pot)
            picked.append([])
    orders = []
    for pot, first in zip(pots, picked, strict=True):
        # Lists, not Counters: a line lasting to the trick limit takes thousands of pots, and the move
        # oracle asks for one at every decision of such a game.
        rest = list(pot)
        for rank in first:
            rest.remove(rank)
        orders.append(tuple(first) + tuple(sorted(rest)))
    return orders


class PositionGraph:
    """The positions reachable from a deal, with player 0's moves between them."""

    def __init__(self, deal: Deal, rules: WarRules, max_positions: int, root: Position | None = None) -> None:
        """``root``: where the search starts, the deal's start unless given (a position reached in play,
        :func:`root_of`, with ``rules.max_tricks`` the tricks it has left)."""
        if not rules.deterministic:
            raise ValueError("exact search needs a fixed pickup convention for player 1, not 'random'")
        self.rules = rules
        self.deal = deal
        if root is None:
            root = (tuple((r,) for r in deal.piles[0]), deal.piles[1])
        self.root = root
        self.depth: dict[Position, int] = {root: 0}
        self.parent: dict[Position, tuple[Position, Step]] = {}
        self.children: dict[Position, list[tuple[Position, Step]]] = {}
        # Where the game can end as wanted: the position and player 0's cards turned in that trick.
        self.first_win: tuple[Position, tuple[int, ...]] | None = None
        self.first_both_out: tuple[Position, tuple[int, ...]] | None = None
        # Positions first reached after max_tricks tricks, both piles holding cards: the game stops
        # there as a draw, so they are not expanded. Only positions first reached within max_tricks
        # tricks matter: every line the rules let be played (at most max_tricks tricks) passes through
        # positions no deeper than the trick it is at, so the search never looks past the truncation
        # and a short game is the small search it should be, not the whole game's graph.
        self.frontier: set[Position] = set()
        self.searched = 0  # tricks played out, each a position reached: the work max_positions bounds
        queue = deque([root])
        while queue:
            pos = queue.popleft()
            d = self.depth[pos]
            at_start = not pos[0] or not pos[1]  # a pile is empty before the trick: no trick is played
            if d >= rules.max_tricks and not at_start:
                self.frontier.add(pos)
                continue
            # One step per child, the first found: a position's trick can play out in millions of ways
            # (long wars over large pots) that reach few distinct positions, and every use of the
            # children (the BFS parents, the lasting line) takes a child's first step.
            nexts: dict[Position, Step] = {}
            for outcome in _trick(pos[0], pos[1], rules.face_down):
                # The budget counts every way a trick is played out, not only new positions: one
                # position with long wars over large pots can have millions of them.
                self.searched += 1
                if self.searched > max_positions:
                    raise SearchBudgetError(
                        f"more than {max_positions:,} positions searched: the deck is too large for "
                        "exact search"
                    )
                if outcome[0] == "end":
                    _, value, turned = outcome
                    # A win during a war needs trick d to be played (d < max_tricks); one at the start
                    # of trick d was won in trick d - 1.
                    if value == _WIN and (d < rules.max_tricks or (at_start and d <= rules.max_tricks)):
                        self.first_win = (pos, turned)
                        return  # breadth first: no shorter win exists
                    if value == _DRAW and self.first_both_out is None:
                        self.first_both_out = (pos, turned)
                    continue
                _, taker, pot0, pot1, rest0, rest1 = outcome
                if taker == 0:
                    pot = tuple(sorted(pot0 + pot1))
                    nexts.setdefault((rest0 + (pot,), rest1), (pot0, pot))
                else:
                    order = tuple(convention_order((pot0, pot1), 1, rules.pickup, None))
                    nexts.setdefault((rest0, rest1 + order), (pot0, ()))
            if nexts:
                self.children[pos] = list(nexts.items())
            for child, step in nexts.items():
                if child not in self.depth:
                    self.depth[child] = d + 1
                    self.parent[child] = (pos, step)
                    queue.append(child)

    def steps_to(self, pos: Position, last: tuple[int, ...] = ()) -> list[Step]:
        """Player 0's steps along the path from the root to ``pos``, then ``last`` (the cards turned
        in the trick that ends the game there)."""
        steps: list[Step] = []
        while pos != self.root:
            pos, step = self.parent[pos]
            steps.append(step)
        steps.reverse()
        if last:
            steps.append((last, ()))
        return steps

    def lasting_steps(self) -> list[Step] | None:
        """Player 0's steps of a line that lasts ``max_tricks`` tricks without the game ending (so it
        ends there as a draw), or None if every line ends sooner.

        Repeatedly drop positions with no move to a surviving position (game-ending positions go
        first); what is left can always continue, so it holds a cycle and the line follows it. If the
        root drops, the graph the root reaches is acyclic, and the positions dropped come children
        first: the longest line from each is worked out in that order.
        """
        max_tricks = self.rules.max_tricks
        alive = set(self.children)
        preds: dict[Position, list[Position]] = {}
        count: dict[Position, int] = {}
        for pos, nexts in self.children.items():
            count[pos] = sum(1 for child, _ in nexts if child in alive)
            for child, _ in nexts:
                preds.setdefault(child, []).append(pos)
        queue = deque(pos for pos in alive if count[pos] == 0)
        dropped: list[Position] = []
        while queue:
            pos = queue.popleft()
            alive.discard(pos)
            dropped.append(pos)
            for prev in preds.get(pos, []):
                if prev in alive:
                    count[prev] -= 1
                    if count[prev] == 0:
                        queue.append(prev)
        if self.root in alive:
            moves = {pos: next((c, st) for c, st in self.children[pos] if c in alive) for pos in alive}
            steps, pos = [], self.root
            for _ in range(max_tricks):
                pos, step = moves[pos]
                steps.append(step)
            return steps
        # The most tricks a line from a position lasts and still stops with both piles holding cards
        # (the only way max_tricks ends a game): a position not expanded lasts 0 tricks if both its
        # piles hold cards (the frontier, or one whose next trick ends the game), else it never does.
        lasts: dict[Position, int] = {}
        best: dict[Position, tuple[Position, Step]] = {}

        def lasting(pos: Position) -> int:
            if pos in lasts:
                return lasts[pos]
            return 0 if pos[0] and pos[1] else -1

        for pos in dropped:
            value = 0  # a position with moves has cards in both piles: a line may stop there
            for child, step in self.children[pos]:
                more = lasting(child)
                if more >= 0 and more + 1 > value:
                    value, best[pos] = more + 1, (child, step)
            lasts[pos] = min(value, max_tricks)
        if lasting(self.root) < max_tricks:
            return None
        steps, pos = [], self.root
        for _ in range(max_tricks):
            pos, step = best[pos]
            steps.append(step)
        return steps


def solve(deal: Deal | str, rules: WarRules = DEFAULT_RULES, max_positions: int = 2_000_000) -> OracleResult:
    """Player 0's best result on ``deal`` (+1 win, 0 draw, -1 loss), proven, with a plan.

    ``stats["tricks"]`` is the fewest tricks to the forced win (or the length of the game the plan
    plays), ``stats["positions"]`` the positions searched (at most ``max_positions``, else a
    ValueError). The plan is player 0's decision sequence (``WarGame.apply`` / the environment's
    actions).
    """
    max_positions = check_int("max_positions", max_positions, 1)
    deal = parse_deal(deal, rules)
    start = time.perf_counter()
    graph = PositionGraph(deal, rules, max_positions)
    value, steps = best_line(graph)
    if steps is not None:
        plan = plan_for_orders(deal, rules, orders_of_steps(deal, steps))
    else:
        plan = _any_play(deal, rules)
    game = replay(rules, deal, plan)
    seconds = time.perf_counter() - start
    if not game.done or game.outcome(0) != value:
        raise AssertionError(f"search claims {value} but its plan replays to {game.outcome(0)} on {deal}")
    if value == _DRAW and graph.first_both_out is None and game.state.end_reason != MAX_TRICKS:
        raise AssertionError("survival plan did not reach max_tricks")
    return OracleResult(
        score=value,
        bound=value,
        plan=tuple(plan),
        seconds=seconds,
        stats={
            "tricks": game.state.tricks,
            "positions": len(graph.depth),
            "searched": graph.searched,
            "end_reason": game.state.end_reason,
        },
    )


def best_line(graph: PositionGraph) -> tuple[int, list[Step] | None]:
    """Player 0's best result from the graph's root (+1, 0 or -1) and the steps of a line that gets
    it; None for the steps where every line loses (any play does)."""
    if graph.first_win is not None:
        return _WIN, graph.steps_to(*graph.first_win)
    if graph.first_both_out is not None:
        return _DRAW, graph.steps_to(*graph.first_both_out)
    lasting = graph.lasting_steps()
    if lasting is not None:
        # Player 0 keeps the game going until max_tricks: a draw (no win exists).
        return _DRAW, lasting
    # Every line ends before max_tricks, and none in a win or a draw.
    return _LOSS, None


def root_of(game: WarGame) -> Position:
    """The search's position for ``game``'s (player 0 to choose, or between tricks): the pile as it
    lies, then the cards of the pot it is picking up still to place, as one unordered block."""
    state = game.state
    pot = tuple(sorted(state.to_place.elements())) if state.taker == 0 else ()
    return tuple((r,) for r in state.piles[0]) + ((pot,) if pot else ()), tuple(state.piles[1])


def _any_play(deal: Deal, rules: WarRules) -> list[int]:
    """Every play loses: play the lowest rank each time."""
    game = replay(rules, deal, [])
    while not game.done:
        game.apply(game.legal_actions()[0])
    return game.choices


def check(deal: Deal | str, rules: WarRules, result: OracleResult) -> bool:
    """True if the result's plan replays through the engine to its score and it claims optimality."""
    try:
        game = replay(rules, deal, result.plan)
    except (ValueError, RuntimeError, TypeError):
        return False
    return game.done and game.outcome(0) == result.score and result.optimal


def solve_cached(
    deal: Deal | str,
    rules: WarRules = DEFAULT_RULES,
    cache: OracleCache | None = None,
    max_positions: int = 2_000_000,
) -> OracleResult:
    """``solve`` through the cache. The budget stays out of the key: an answer is exact whatever the
    budget, which only decides whether one comes."""
    deal = parse_deal(deal, rules)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(
        GAME,
        "exact-" + rules.variant,
        str(deal),
        lambda: solve(deal, rules, max_positions),
        lambda r: check(deal, rules, r),
    )

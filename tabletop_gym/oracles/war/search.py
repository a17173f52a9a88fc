"""Exact best pickup play for player 0 on small decks: a search over positions.

Player 1 follows a fixed convention, so the game is a one-player problem: from a position (both
piles, in order, at the start of a trick) the trick plays out by itself, and when player 0 takes the
pot every distinct order of the pot cards leads to its own next position. A breadth-first search
with a table of visited positions (the transposition table; a position met again closes a cycle)
finds the fewest tricks to a forced win. Without a win the best is a draw when player 0 can reach a
both-out draw or keep the game going until ``max_tricks`` (a reachable cycle, or a long enough path),
else every play loses.

The search has its own compact model of a trick; every plan it returns is replayed through the
engine (``tabletop_gym.envs.war.rules.replay``) before it is reported.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Iterator

from tabletop_gym.core import OracleCache, OracleResult
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

GAME = "war"
Position = tuple[tuple[int, ...], tuple[int, ...]]
_WIN, _LOSS, _DRAW = 1, -1, 0


def _trick(p0: tuple[int, ...], p1: tuple[int, ...], face_down: int):
    """(taker, pot0, pot1, rest0, rest1), or (outcome for player 0, None, ...) if the game ends."""
    i = j = 0
    n0, n1 = len(p0), len(p1)
    while True:
        if i == n0 or j == n1:
            if i == n0 and j == n1:
                return ("end", _DRAW)
            return ("end", _LOSS if i == n0 else _WIN)
        a, b = p0[i], p1[j]
        i += 1
        j += 1
        if a != b:
            return ("take", 0 if a > b else 1, p0[:i], p1[:j], p0[i:], p1[j:])
        i += max(0, min(face_down, n0 - i - 1))
        j += max(0, min(face_down, n1 - j - 1))


def _orders(counts: dict[int, int], prefix: list[int], size: int) -> Iterator[tuple[int, ...]]:
    """Every distinct order of a multiset of ranks."""
    if len(prefix) == size:
        yield tuple(prefix)
        return
    for rank in sorted(counts):
        if counts[rank]:
            counts[rank] -= 1
            prefix.append(rank)
            yield from _orders(counts, prefix, size)
            prefix.pop()
            counts[rank] += 1


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
    game = WarGame(deal, rules, controlled=0)
    plan: list[int] = []
    for order in orders:
        if not game.awaiting:
            break
        trick = game.state.tricks
        for rank in order:
            if not game.awaiting or game.state.tricks != trick:
                break
            game.choose(rank)
            plan.append(rank)
    return plan


class PositionGraph:
    """The positions reachable from a deal, with player 0's moves between them."""

    def __init__(self, deal: Deal, rules: WarRules, max_positions: int) -> None:
        if not rules.deterministic:
            raise ValueError("exact search needs a fixed pickup convention for player 1, not 'random'")
        self.rules = rules
        root: Position = (deal.piles[0], deal.piles[1])
        self.root = root
        self.depth: dict[Position, int] = {root: 0}
        self.parent: dict[Position, tuple[Position, tuple[int, ...]]] = {}
        self.children: dict[Position, list[tuple[Position, tuple[int, ...]]]] = {}
        self.ends: dict[Position, int] = {}  # positions whose next trick ends the game
        self.first_win: Position | None = None
        self.first_both_out: Position | None = None
        queue = deque([root])
        while queue:
            pos = queue.popleft()
            d = self.depth[pos]
            step = _trick(pos[0], pos[1], rules.face_down)
            if step[0] == "end":
                self.ends[pos] = step[1]
                if step[1] == _WIN and self.first_win is None:
                    # A win found at the start of trick d; a win during a war needs d < max_tricks.
                    if d < rules.max_tricks or not (pos[0] and pos[1]):
                        self.first_win = pos
                        return  # breadth first: no shorter win exists
                if step[1] == _DRAW and self.first_both_out is None:
                    self.first_both_out = pos
                continue
            _, taker, pot0, pot1, rest0, rest1 = step
            if taker == 0:
                counts = Counter(pot0 + pot1)
                nexts = [((rest0 + o, rest1), o) for o in _orders(dict(counts), [], len(pot0) + len(pot1))]
            else:
                order = tuple(convention_order((pot0, pot1), 1, rules.pickup, None))
                nexts = [((rest0, rest1 + order), ())]
            self.children[pos] = nexts
            for child, order in nexts:
                if child not in self.depth:
                    if len(self.depth) >= max_positions:
                        raise ValueError(
                            f"more than {max_positions} positions: the deck is too large for exact search"
                        )
                    self.depth[child] = d + 1
                    self.parent[child] = (pos, order)
                    queue.append(child)

    def path_to(self, pos: Position) -> list[tuple[int, ...]]:
        """Player 0's pot orders along the path from the root to ``pos``."""
        orders = []
        while pos != self.root:
            pos, order = self.parent[pos]
            if order:
                orders.append(order)
        return orders[::-1]

    def survival_moves(self) -> dict[Position, tuple[Position, tuple[int, ...]]] | None:
        """For each position from which the game can last forever, a move that keeps it so.

        Repeatedly drop positions with no move to a surviving position (game-ending positions go
        first); what is left can always continue, so it contains a cycle. None if the root drops.
        """
        alive = set(self.children)
        preds: dict[Position, list[Position]] = {}
        count: dict[Position, int] = {}
        for pos, nexts in self.children.items():
            count[pos] = sum(1 for child, _ in nexts if child in alive)
            for child, _ in nexts:
                preds.setdefault(child, []).append(pos)
        queue = deque(pos for pos in alive if count[pos] == 0)
        while queue:
            pos = queue.popleft()
            alive.discard(pos)
            for prev in preds.get(pos, []):
                if prev in alive:
                    count[prev] -= 1
                    if count[prev] == 0:
                        queue.append(prev)
        if self.root not in alive:
            return None
        return {pos: next((c, o) for c, o in self.children[pos] if c in alive) for pos in alive}


def solve(deal: Deal | str, rules: WarRules = DEFAULT_RULES, max_positions: int = 2_000_000) -> OracleResult:
    """Player 0's best result on ``deal`` (+1 win, 0 draw, -1 loss), proven, with a plan.

    ``stats["tricks"]`` is the fewest tricks to the forced win (or the length of the game the plan
    plays), ``stats["positions"]`` the positions searched. The plan is player 0's decision
    sequence (``WarGame.choose`` / the environment's actions).
    """
    deal = parse_deal(deal, rules)
    start = time.perf_counter()
    graph = PositionGraph(deal, rules, max_positions)
    if graph.first_win is not None:
        value, plan = _WIN, plan_for_orders(deal, rules, graph.path_to(graph.first_win))
    elif graph.first_both_out is not None:
        value, plan = _DRAW, plan_for_orders(deal, rules, graph.path_to(graph.first_both_out))
    else:
        moves = graph.survival_moves()
        if moves is not None and len(graph.depth) < rules.max_tricks:
            value, plan = _DRAW, plan_for_orders(deal, rules, _survive(graph, moves, rules.max_tricks))
        elif moves is None and len(graph.depth) < rules.max_tricks:
            value, plan = _LOSS, _any_play(deal, rules)
        else:
            raise ValueError(
                f"{len(graph.depth)} positions against max_tricks={rules.max_tricks}: "
                "raise max_tricks above the number of positions for an exact answer"
            )
    game = replay(deal, rules, plan)
    seconds = time.perf_counter() - start
    if not game.over or game.outcome(0) != value:
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
            "end_reason": game.state.end_reason,
        },
    )


def _survive(graph: PositionGraph, moves: dict, max_tricks: int) -> list[tuple[int, ...]]:
    pos = graph.root
    orders = []
    for _ in range(max_tricks):
        pos, order = moves[pos]
        if order:
            orders.append(order)
    return orders


def _any_play(deal: Deal, rules: WarRules) -> list[int]:
    """Every play loses: play the lowest rank each time."""
    game = replay(deal, rules, [])
    while not game.over:
        game.choose(game.legal_ranks()[0])
    return game.choices


def check(deal: Deal | str, rules: WarRules, result: OracleResult) -> bool:
    """True if the result's plan replays through the engine to its score and it claims optimality."""
    try:
        game = replay(parse_deal(deal, rules), rules, result.plan)
    except (ValueError, RuntimeError, TypeError):
        return False
    return game.over and game.outcome(0) == result.score and result.optimal


def solve_cached(
    deal: Deal | str, rules: WarRules = DEFAULT_RULES, cache: OracleCache | None = None
) -> OracleResult:
    deal = parse_deal(deal, rules)
    cache = cache if cache is not None else OracleCache()
    return cache.solve(
        GAME, "exact-" + rules.variant, str(deal), lambda: solve(deal, rules), lambda r: check(deal, rules, r)
    )

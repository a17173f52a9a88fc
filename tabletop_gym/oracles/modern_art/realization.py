"""Realization: a game model solution played out through the engine, round by round."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from tabletop_gym.core import check_int
from tabletop_gym.envs.modern_art.rules import (
    AWARD_ARTIST,
    CHOOSE_ARTIST,
    DOUBLE,
    DRAW,
    HIDDEN,
    HIDDEN_CARD,
    NUM_ARTISTS,
    NUM_KINDS,
    NUM_SYMBOLS,
    PASS,
    PLAIN,
    PLAY,
    SIMULTANEOUS,
    ModernArtRules,
    State,
    artist_of,
    symbol_of,
)
from tabletop_gym.oracles.modern_art.beam import _key
from tabletop_gym.oracles.modern_art.bounds import _seconds_spent, _solve_for
from tabletop_gym.oracles.modern_art.common import MAX_WORKERS, WORK_PER_SECOND, _check_seat, _check_seconds
from tabletop_gym.oracles.modern_art.model import build_model
from tabletop_gym.oracles.modern_art.solutions import _Collector, _plan_values


class _OutOfNodes(Exception):
    pass


class _Positions:
    """Positions several realizations share (their budget in place of a clock, so the plan found
    depends on the deal and the budget only, not on how fast the machine runs)."""

    def __init__(self, left: int) -> None:
        self.left = int(left)


# ``_realize_round``: the share of its positions for the search in the fixed order, and the positions
# of each shuffled restart after it. An order that goes wrong early traps a search, so short ones
# win: on 3-player one-round solutions, 2,000 positions in the fixed order realized 12 solutions in
# 3 s in all, half of the 100,000 in 14 s.
FIXED_ORDER_SHARE = 0.02


RESTART_NODES = 2_000


def _turns_can_alternate(
    s: State, turn: list[list[int]], sec: list[list[int]], down: list[list[int]]
) -> bool:
    """Whether the turn cards still to play can follow the turn order from the player to move: while
    no hand runs out, players take turns in order, so counted from the player to move the turns
    still to come never grow and differ by at most one."""
    n = s.rules.players
    for p in range(n):
        if s.hand_sizes[p] <= sum(turn[p]) + sum(sec[p]) + sum(down[p]):
            return True  # this hand may run out, and then its turns are skipped
    order = [sum(turn[(s.to_move + i) % n]) for i in range(n)]
    return all(a >= b for a, b in zip(order, order[1:], strict=False)) and order[0] - order[-1] <= 1


def _sources_left(
    s: State, turn: list[list[int]], sec: list[list[int]], down: list[list[int]]
) -> bool:
    """Whether the cards still to play at the start of a turn have what brings them: each player's
    second cards face up a double of their artist or another player's simultaneous card (one answer
    each), its face-down cards a hidden card, and the cards it does not hold yet a draw card, all
    among the turn cards still to play."""
    rules, n = s.rules, s.rules.players
    sims = [sum(turn[p][a * NUM_SYMBOLS + SIMULTANEOUS] for a in range(NUM_ARTISTS)) for p in range(n)]
    for p in range(n):
        if sum(down[p]) > sum(turn[p][a * NUM_SYMBOLS + HIDDEN] for a in range(NUM_ARTISTS)):
            return False
        hand = s.hands[p]
        missing = sum(max(0, turn[p][k] + sec[p][k] + down[p][k] - hand[k]) for k in range(NUM_KINDS))
        if missing > sum(turn[p][a * NUM_SYMBOLS + DRAW] for a in range(NUM_ARTISTS)):
            return False
        if rules.end_of_round_plays:
            continue
        answers = sum(sims) - sims[p]
        doubles = [turn[p][a * NUM_SYMBOLS + DOUBLE] for a in range(NUM_ARTISTS)]
        seconds = [sum(sec[p][a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS]) for a in range(NUM_ARTISTS)]
        if sum(max(0, x - d) for x, d in zip(seconds, doubles, strict=True)) > answers:
            return False
    return True


def realize(
    rules: ModernArtRules,
    cards: Sequence[int],
    plays: Sequence[dict[str, Any]],
    node_limit: int = 100_000,
    shared: _Positions | None = None,
) -> State:
    """Play the deal through the engine so that each round's cards are exactly those of ``plays``
    (``solution_plays``), searching the order of plays inside each round depth first.

    Returns the position reached: game over when every round was realized, else the start of the first
    round no order realizes (within ``node_limit`` positions per round and the positions left in
    ``shared``), for another search to go on from. An order that
    places the solution's award tokens and gives the cards drawn to the players the solution gives
    them to is preferred (then the next round's hands are the solution's); failing that, any order
    that plays the round's cards (award tokens then go where the solution has them left, else to any
    artist).
    """
    node_limit = check_int("node_limit", node_limit, 1)
    return _realize_rounds(State(rules, cards), plays, node_limit, shared)


def replanned(
    rules: ModernArtRules,
    cards: Sequence[int],
    seat: int,
    reached: State,
    seconds: float,
    workers: int = 2,
    node_limit: int = 100_000,
    shared: _Positions | None = None,
    spent: list[float] | None = None,
) -> State:
    """Plan again from a position where realizing a solution stopped (the start of a round no order
    realizes, or where the cards drawn went to other players than the solution had them go to): the
    game model with the rounds before it fixed to what was really played (a real game satisfies the
    model, so it stays feasible), solved for ``seconds``, and its solutions realized from there, best
    first. Returns the first game realized to the end, else the furthest position reached. With a
    list ``spent``, the seconds CP-SAT used (of ``seconds``: it stops early once it proves its
    optimum) are added to it."""
    seat, seconds = _check_seat(rules, seat), _check_seconds("seconds", seconds)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    node_limit = check_int("node_limit", node_limit, 1)
    r = reached.round
    m, h = build_model(rules, cards, seat)
    for x, value in _plan_values(h, rules, cards, reached.history, rounds=r):
        m.Add(x == value)
    m.Add(h["st"][r][reached.starter] == 1)
    collector = _Collector(h, rules)
    _, solver = _solve_for(m, seconds, workers, collector)
    if spent is not None:
        spent.append(min(seconds, _seconds_spent(solver, WORK_PER_SECOND)))
    best = reached
    for _, plays in sorted(collector.found, key=lambda item: -item[0]):
        got = _realize_rounds(reached, plays[r:], node_limit, shared)
        if got.done:
            return got
        if got.round > best.round:
            best = got
    return best


def _realize_rounds(
    state: State,
    plays: Sequence[dict[str, Any]],
    node_limit: int,
    shared: _Positions | None = None,
    lazy: _FreeDeck | None = None,
) -> State:
    """``realize``'s loop over the rounds (``lazy``: the deck of a free deal, decided on the way)."""
    for r, budget in enumerate(plays):
        if state.done:
            break
        if lazy is not None:
            lazy.begin_round(r)
            saved = lazy.snapshot()
        done = _realize_round(state, budget, node_limit, True, lazy, shared)
        if done is None:  # no order deals the cards as the solution has it: one that plays its cards
            if lazy is not None:
                lazy.restore(saved)
            done = _realize_round(state, budget, node_limit, False, lazy, shared)
        if done is None:
            if lazy is not None:
                lazy.restore(saved)
            return state
        if lazy is not None:
            lazy.end_round()
        state = done
    return state


class _FreeDeck:
    """The deck of a free deal, decided as a realization reaches each position: the cards a solution
    of the free-deal model has each player receive in a round are partly dealt at the round's start,
    partly drawn when that player draws (the choice of which card comes then is part of the search),
    and every other position gets a card no one is meant to receive."""

    def __init__(self, rules: ModernArtRules, plays: Sequence[dict[str, Any]]) -> None:
        n = rules.players
        self.rules, self.plays = rules, plays
        self.pool = [rules.deck[artist_of(k)][symbol_of(k)] for k in range(NUM_KINDS)]
        self.reserved = [0] * NUM_KINDS  # planned receipts not yet placed in the deck
        self.dealt: list[list[list[int]]] = []
        self.to_draw: list[list[list[int]]] = []
        held = [[0] * NUM_KINDS for _ in range(n)]
        for r, entry in enumerate(plays):
            dealt_r, drawn_r = [], []
            for p in range(n):
                got = [max(0, x) for x in entry["receipts"][p]]
                for k in range(NUM_KINDS):
                    self.reserved[k] += got[k]
                    held[p][k] += got[k] - entry["turn"][p][k] - entry["sec"][p][k] - entry["down"][p][k]
                beyond_deal = sum(got) - rules.deals[r]  # received by drawing
                drawn = [0] * NUM_KINDS
                # drawn: first the cards kept for later rounds (any time in the round will do), then
                # second and face-down cards (played after a turn card), then any
                for source in (
                    [max(0, held[p][k]) for k in range(NUM_KINDS)],
                    [entry["sec"][p][k] + entry["down"][p][k] for k in range(NUM_KINDS)],
                    got,
                ):
                    for k in range(NUM_KINDS):
                        take = min(beyond_deal, source[k], got[k] - drawn[k])
                        if take > 0:
                            drawn[k] += take
                            beyond_deal -= take
                dealt_r.append([got[k] - drawn[k] for k in range(NUM_KINDS)])
                drawn_r.append(drawn)
            self.dealt.append(dealt_r)
            self.to_draw.append(drawn_r)
        self.round = 0

    def _spare(self, artist: int = -1) -> int:
        """A card for a position no one is meant to receive: of ``artist`` if given, the kind with the
        most copies to spare, plain first."""
        kinds = range(NUM_KINDS) if artist < 0 else range(artist * NUM_SYMBOLS, (artist + 1) * NUM_SYMBOLS)
        best = max(kinds, key=lambda k: (self.pool[k] - self.reserved[k], symbol_of(k) == PLAIN))
        if self.pool[best] - self.reserved[best] <= 0:
            raise ValueError("no card to spare")
        return best

    def _take(self, kind: int, planned: bool) -> None:
        self.pool[kind] -= 1
        if planned:
            self.reserved[kind] -= 1

    def _deal_order(self, r: int, starter: int) -> list[int]:
        """Round ``r``'s dealt cards in deck order, dealt one at a time from ``starter``; taken from
        the pool (raises ValueError when a pad is needed and no card is spare)."""
        n = self.rules.players
        lists = []
        for p in range(n):
            cards = [k for k in range(NUM_KINDS) for _ in range(self.dealt[r][p][k])]
            for k in cards:
                self._take(k, True)
            while len(cards) < self.rules.deals[r]:  # the solution received fewer: pad with spares
                spare = self._spare()
                self._take(spare, False)
                cards.append(spare)
            lists.append(cards)
        order = []
        for i in range(self.rules.deals[r]):
            for j in range(n):
                order.append(lists[(starter + j) % n][i])
        return order

    def opening(self) -> tuple[int, ...]:
        """The first hands and the extra card; every later position a placeholder (kind 0)."""
        hands = self._deal_order(0, 0)
        extra = self._spare(self.plays[0]["extra"])
        self._take(extra, False)
        cards = (*hands, extra)
        return cards + (0,) * (self.rules.num_cards - len(cards))

    def key(self) -> tuple:
        return tuple(map(tuple, self.to_draw[self.round]))

    def all_drawn(self) -> bool:
        return not any(map(any, self.to_draw[self.round]))

    def begin_round(self, r: int) -> None:
        self.round = r

    def end_round(self) -> None:
        """Cards meant to be drawn this round that were not: no longer reserved."""
        for row in self.to_draw[self.round]:
            for k in range(NUM_KINDS):
                self.reserved[k] -= row[k]
                row[k] = 0

    def snapshot(self) -> tuple:
        return self.pool[:], self.reserved[:], [row[:] for row in self.to_draw[self.round]]

    def restore(self, saved: tuple) -> None:
        self.pool, self.reserved = saved[0][:], saved[1][:]
        self.to_draw[self.round] = [row[:] for row in saved[2]]

    def _set(self, s: State, pos: int, kind: int) -> None:
        s.deck = s.deck[:pos] + (kind,) + s.deck[pos + 1 :]

    def children(self, s: State, action: int, turn: list[list[int]]) -> Iterator[State]:
        """The positions ``action`` leads to from ``s``, one per choice of the cards it reveals; the
        deck's bookkeeping follows each while it is being searched."""
        child = s.copy()
        child.apply(action)
        n = self.rules.players
        if child.top == s.top:
            yield child
            return
        drawer = [p for p in range(n) if child.drawn[p] > s.drawn[p]]
        new_round = child.round != s.round and not child.done
        if drawer and not new_round:
            p = drawer[0]
            plan = self.to_draw[self.round][p]
            # the cards the player still needs for its turns first
            options = sorted((k for k in range(NUM_KINDS) if plan[k]), key=lambda k: -turn[p][k])
            planned = bool(options)
            if not options:
                try:
                    options = [self._spare()]
                except ValueError:
                    return
            for kind in options:
                grand = child.copy()
                grand.hands[p][0] -= 1
                grand.hands[p][kind] += 1
                self._set(grand, s.top, kind)
                self._take(kind, planned)
                if planned:
                    plan[kind] -= 1
                yield grand
                self.pool[kind] += 1
                if planned:
                    self.reserved[kind] += 1
                    plan[kind] += 1
            return
        if not new_round or drawer:
            return  # a draw and a new round in one action: not followed
        r = child.round
        saved = self.pool[:], self.reserved[:]
        try:
            order = self._deal_order(r, child.starter)
            extra = []
            if self.rules.extra_card_each_round:
                extra = [self._spare(self.plays[r]["extra"] if r < len(self.plays) else -1)]
                self._take(extra[0], False)
        except ValueError:
            self.pool, self.reserved = saved
            return
        fixed = child.copy()
        segment = tuple(order + extra)
        fixed.deck = s.deck[: s.top] + segment + s.deck[s.top + len(segment) :]
        for i, kind in enumerate(order):
            p = (child.starter + i) % n
            fixed.hands[p][0] -= 1
            fixed.hands[p][kind] += 1
        if extra:
            fixed.extra[0] -= 1
            fixed.column[0] -= 1
            fixed.extra[artist_of(extra[0])] += 1
            fixed.column[artist_of(extra[0])] += 1
        yield fixed
        self.pool, self.reserved = saved

    def complete(self, state: State) -> tuple[int, ...]:
        """The whole deck: the positions decided so far, then every card left (planned ones first)."""
        rest = [k for k in range(NUM_KINDS) for _ in range(self.pool[k])]
        rest.sort(key=lambda k: -self.reserved[k])
        return state.deck[: state.top] + tuple(rest)


def realize_free(
    rules: ModernArtRules, plays: Sequence[dict[str, Any]], node_limit: int = 100_000
) -> tuple[State, tuple[int, ...]]:
    """A deal and a game of it that play ``plays`` (``solution_plays`` of the free-deal model):
    ``realize`` with the deck decided on the way. Returns (the position reached, the whole deck); the
    position is game over when every round was realized, else the start of the first round that was
    not (the rest of the deck then holds the remaining cards, planned ones first)."""
    node_limit = check_int("node_limit", node_limit, 1)
    lazy = _FreeDeck(rules, plays)
    state = _realize_rounds(State(rules, lazy.opening()), plays, node_limit, lazy=lazy)
    deck = lazy.complete(state)
    state.deck = deck
    return state, deck


def _applied(s: State, action: int, turn: list[list[int]]) -> Iterator[State]:
    """The position ``action`` leads to from ``s`` (with a fixed deck, the only one)."""
    child = s.copy()
    child.apply(action)
    yield child


def _round_played(
    s: State, budget: dict[str, Any], left: tuple, exact: bool, lazy: _FreeDeck | None
) -> State | None:
    """``s``, the position after the round being realized, if the round played all of ``budget``
    (``left``: the turn, second and face-down cards and award tokens still unplayed) and, with
    ``exact``, as the solution has it; else None."""
    turn, sec, down, aw = left
    spent = not any(map(any, turn)) and not any(map(any, sec)) and not any(map(any, down))
    if not spent:
        return None
    # the cards drawn went to the players the solution gave them to, so later rounds hold
    # what the solution plays
    if not exact:
        return s
    if any(aw) and s.awards_left:
        return None  # an award token the solution places was not placed
    if s.done:
        return s
    if lazy is not None:
        return s if lazy.all_drawn() else None
    return s if "next_hand" not in budget or s.hands == budget["next_hand"] else None


def _realize_round(
    state: State,
    budget: dict[str, Any],
    node_limit: int,
    exact: bool,
    lazy: _FreeDeck | None = None,
    shared: _Positions | None = None,
) -> State | None:
    """An order of the round's plays ``budget`` from ``state`` (its first position), as a position of
    a later round (or game over); None if none is found. With ``lazy`` the deck is decided as play
    reaches it (free deals).

    A depth-first search, first in a fixed order of plays with ``FIXED_ORDER_SHARE`` of
    ``node_limit`` positions; where that runs out, short searches in shuffled orders
    (``RESTART_NODES`` positions each, seeded, so reproducible) spend the rest: an order that goes
    wrong early traps a single search, and a few shuffled starts often find a way the fixed order
    misses. Positions shown to lead nowhere are remembered across the searches."""
    r, limit = state.round, state.rules.round_limit
    failed: set[tuple] = set()
    nodes = 0
    stop = int(node_limit * FIXED_ORDER_SHARE)
    rng: random.Random | None = None
    expand = _applied if lazy is None else lazy.children

    def search(s: State) -> State | None:
        nonlocal nodes
        if s.done or s.round != r:
            return _round_played(s, budget, (turn, sec, down, aw), exact, lazy)
        if s.phase == PLAY and not (
            _turns_can_alternate(s, turn, sec, down) and _sources_left(s, turn, sec, down)
        ):
            return None
        key = (_key(s), _budget_left(turn, sec, down, aw), lazy.key() if lazy is not None else None)
        if key in failed:
            return None
        nodes += 1
        if shared is not None:
            shared.left -= 1
            if shared.left <= 0:
                raise _OutOfNodes
        if nodes > stop:
            raise _OutOfNodes
        for action, row, i in _play_options(s, turn, sec, down, aw, limit, rng):
            if row is not None:
                row[i] -= 1
            found = None
            for child in expand(s, action, turn):
                found = search(child)
                if found is not None:
                    break
            if row is not None:
                row[i] += 1
            if found is not None:
                return found
        failed.add(key)
        return None

    seed = 0
    while True:
        turn = [row[:] for row in budget["turn"]]
        sec = [row[:] for row in budget["sec"]]
        down = [row[:] for row in budget["down"]]
        aw = list(budget["aw"])
        saved = lazy.snapshot() if lazy is not None else None
        try:
            return search(state)  # None only when every order was tried: no restart can help
        except _OutOfNodes:
            if lazy is not None:
                lazy.restore(saved)
        node_limit -= min(nodes, stop)
        if node_limit <= 0 or (shared is not None and shared.left <= 0):
            return None
        seed += 1
        rng, nodes, stop = random.Random(seed), 0, min(RESTART_NODES, node_limit)


def _budget_left(turn: list[list[int]], sec: list[list[int]], down: list[list[int]], aw: list[int]) -> tuple:
    """The plays of the round's budget not yet made, as a key: a position reached with other plays
    left is another search node."""
    return tuple(map(tuple, turn)) + tuple(map(tuple, sec)) + tuple(map(tuple, down)) + (tuple(aw),)


def _play_options(
    s: State,
    turn: list[list[int]],
    sec: list[list[int]],
    down: list[list[int]],
    aw: list[int],
    limit: int,
    rng: random.Random | None,
) -> list[tuple[int, list[int] | None, int]]:
    """The plays to try from ``s`` within the budget left, as (action, the budget row it uses, index
    in it), in the order to try (shuffled in a restart, ``rng`` given)."""
    p, phase = s.to_move, s.phase
    hand = s.hands[p]
    if phase == AWARD_ARTIST:
        wanted = [(CHOOSE_ARTIST + a, aw, a) for a in range(NUM_ARTISTS) if aw[a]]
        return wanted or [(CHOOSE_ARTIST + a, None, 0) for a in range(NUM_ARTISTS)]
    row = turn[p] if phase == PLAY else down[p] if phase == HIDDEN_CARD else sec[p]
    acts = [(k, row, k) for k in range(NUM_KINDS) if row[k] and hand[k] and s.is_legal(k)]
    if phase == PLAY:
        # cards that would end the round early go last; draw cards first while the player still
        # has cards to draw; among the rest the thinnest artist first (shuffled in a restart)
        missing = any(turn[p][k] + sec[p][k] + down[p][k] > hand[k] for k in range(NUM_KINDS))
        acts.sort(key=lambda o: (s.column[artist_of(o[0])] + 1 >= limit,
                                 not (missing and symbol_of(o[0]) == DRAW),
                                 s.column[artist_of(o[0])] if rng is None else rng.random()))  # fmt: skip
    else:
        acts.append((PASS, None, 0))
        if rng is not None:
            rng.shuffle(acts)
    return acts

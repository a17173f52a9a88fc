"""Oracles for Modern Art: the most one seat can score when every player plays to help it.

With all hands and draws known and every player's plays chosen for the seat, no opponent behaviour can
give the seat more, so this is an upper bound on what any agent scores in that deal.

Two parts, reported separately and never mixed up:

- **plan** (``score``): beam searches through the engine itself over every player's decisions (a
  portfolio of ways to value the seat's cards in hand, ``PORTFOLIO``), ranked by the seat's points so
  far plus what the current round would pay it if it ended now; and the model's best solutions (see
  below) played out through the engine by ``realize``, which searches an order for each round's
  plays (depth first, then in seeded shuffled restarts). Where it stops early, the game model is
  solved again once with the rounds played fixed and its solutions realized from there
  (``replanned``); a beam goes on from where that stops. The best plan is replayed through the
  engine to its score before it is returned.
- **bound**: ``build_model``, a CP-SAT model of the whole game at the level of rounds with every
  player: per round, player and card kind the turn cards, second cards and face-down cards; the cards
  each player receives, exactly by deck position (deals from the starter after the draws so far, the
  draws as the next positions); turn order with the empty-hand exception; every symbol; the round end
  with its overshoot; the exact ranking with board-order ties; values, awards and pay. Each constraint
  and its argument is in ``build_model``'s docstring; every real game is a solution of it with the
  seat's real score as objective (tests fix real games in it and check this), so CP-SAT's proven
  bound on its optimum bounds the seat's score. It leaves out the order of plays inside a round, so
  it is a relaxation: ``optimal`` is true only when the bound meets the plan.
  The plan hints the search, so CP-SAT starts from a real game. Where CP-SAT proves nothing in time,
  ``seat_round_bound`` (the first, seat-only round model: weaker, but fast) gives the bound.
  ``artist_path_bound`` is a third relaxation, an LP solved in about a second by column
  generation: each artist follows a path of values, the seat's cards and its own displayed cards
  through the rounds, so one artist's value pays for that artist's cards only. Per deal, each path
  also keeps the seat's cards of its artist within what the game model lets the seat display over
  the whole game (``_seat_supply``: a short CP-SAT proof per artist). The game model's LP
  instead pools the seat's cards across artists (a value token split over several artists pays for
  cards of all of them), which is why its bound stays high; the path LP cuts it by a third to
  two fifths. The reported bound is the smaller of the two.

On one-round games (``Rules(deals=(13,))``, ``--rounds 1``) the game model meets the plans: with
2 and 3 players CP-SAT proves its optimum in seconds and a solution at it is played out, so the
plan is proven optimal (the bench: 8 of 8 deals each). With two rounds or more the proofs mostly
do not finish, and plans and bounds are still far from meeting on full deals (see the bench).
Fixing every round's ranking and award tokens makes the game model's LP tight (CP-SAT then proves
the restricted optimum in seconds), but with them free no formulation tried here comes near the
plans, and proofs need search the time limits do not allow.

Over all deals (``free_deal``) the same model with free cards gives the bound, and its solutions
give plans: ``realize_free`` decides the deck as the realization reaches each position (the cards a
solution has a player receive are dealt or drawn to it when play needs them), so a solution becomes
a deal and a game of it, replayed through the engine like every plan.

``brute_force`` searches every line of play exhaustively (with memory of positions); it is exact and
only meant for tiny decks, to check the other two in tests.

Where a proof does not finish, the bound and the plan depend on how much search was done. So no
limit here is a clock: CP-SAT runs on deterministic time with its search interleaved
(``WORK_PER_SECOND``), realizations count positions (``POSITIONS_PER_SECOND``), the path LP
counts rounds. The same deal, seat, rules and ``time_limit`` give the same bound and plan on every
run and machine (with the same OR-Tools), so scores measured against the bound can be compared
between users; a faster machine only finishes sooner.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from ortools.sat.python import cp_model

from tabletop_gym.core import OracleCache, OracleResult, check_float, check_int, make_rng
from tabletop_gym.envs.modern_art.rules import (
    AWARD,
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
    Rules,
    State,
    arrange_deal,
    artist_of,
    deal_string,
    parse_deal,
    random_deal,
    replay,
    round_points,
    symbol_of,
)

GAME = "modern_art"
# Part of the cache key: raise it when a change alters what ``solve`` returns (the artist-path bound
# made it 2, its displayed-cards state 3, the seat's supply from the game model 4, the game model's
# rules of a round's last card and first draw 5, one answer per player to a last simultaneous card
# 6, the order of draws 7, draws only with draw cards in hand and answers apart from double second
# cards 8, deterministic limits in place of clocks 9), so results cached by an older version are
# computed again rather than served.
ORACLE_REVISION = 9

# The largest search settings accepted (a ValueError names the parameter beyond them). The beam has no
# clock: its cost grows with its width (a full 2-player game: about 0.02 s per unit of width and
# hand valuation on a 2-core machine; one round about a fifth of that), so the width is bounded
# instead. Time limits are finite and positive, at most a day.
MAX_WIDTH = 4_096
MAX_TIME_LIMIT = 86_400.0
MAX_WORKERS = 64
MAX_FREE_DEALS = 10_000  # stacked (and as many shuffled) deals of the free-deal search


def _check_seat(rules: Rules, seat: Any) -> int:
    return check_int("seat", seat, 0, rules.players - 1)


def _check_width(width: Any) -> int:
    return check_int("width", width, 1, MAX_WIDTH)


def _check_seconds(name: str, seconds: Any) -> float:
    return check_float(name, seconds, 0, MAX_TIME_LIMIT, low_open=True)


# ---- the plan: beam search through the engine ----------------------------------------------------


def _key(state: State) -> tuple:
    return (
        state.phase,
        state.to_move,
        state.round,
        state.top,
        state.awards_left,
        tuple(map(tuple, state.hands)),
        tuple(map(tuple, state.up)),
        tuple(map(tuple, state.down)),
        tuple(state.values),
        tuple(state.awards),
        tuple(state.scores),
        tuple(state.queue),
        tuple(state.end_used),
        state.double_artist,
        state.turn_player,
        state.starter,
    )


def _promise(state: State, seat: int, hand_weight: float = 0.0, per_round: float = 0.0) -> float:
    """The seat's points so far, plus what this round would pay it if it ended now, plus its cards in
    hand, each valued at ``hand_weight`` x (its artist's value and awards + ``per_round`` per round
    still to come); with ``hand_weight=0`` a tenth of a point per card."""
    if state.done:
        return float(state.scores[seat])
    own = [[state.up[p][a] + state.down[p][a] for a in range(NUM_ARTISTS)] for p in (seat,)]
    points, _ = round_points(state.counts(), own, state.values, state.awards, state.rules)
    hand = state.hands[seat]
    if hand_weight == 0.0:
        return state.scores[seat] + points[0] + 0.1 * state.hand_sizes[seat]
    left = state.rules.rounds - 1 - state.round
    potential = 0.0
    for a in range(NUM_ARTISTS):
        held = sum(hand[a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS])
        if held:
            worth = state.values[a] + state.rules.award_value * state.awards[a] + per_round * left
            potential += held * worth
    return state.scores[seat] + points[0] + hand_weight * potential


# Hand valuations the portfolio tries: (hand_weight, per_round); the first is the myopic one.
PORTFOLIO = ((0.0, 0.0), (0.3, 2.0), (0.5, 2.0))


def beam_search(
    rules: Rules, deal: str | Sequence[int], seat: int = 0, width: int = 64, hand_weight: float = 0.0,
    per_round: float = 0.0, start: State | None = None,
) -> tuple[int, tuple[int, ...]]:  # fmt: skip
    """The best plan the beam finds: (seat's score, every player's actions in order); from the
    position ``start`` of that deal if given (its history is part of the plan). ``width`` is 1 to
    ``MAX_WIDTH``."""
    seat, width = _check_seat(rules, seat), _check_width(width)
    hand_weight = check_float("hand_weight", hand_weight, 0)
    per_round = check_float("per_round", per_round, 0)
    beam = [State(rules, deal) if start is None else start]
    best_score, best_plan = -1, ()
    while beam:
        children: dict[tuple, tuple[float, State]] = {}
        for state in beam:
            for action in state.legal_actions():
                child = state.copy()
                child.apply(action)
                if child.done:
                    if child.scores[seat] > best_score:
                        best_score, best_plan = child.scores[seat], tuple(child.history)
                    continue
                key = _key(child)
                if key not in children:
                    children[key] = (_promise(child, seat, hand_weight, per_round), child)
        ranked = sorted(children.values(), key=lambda item: -item[0])
        beam = [state for _, state in ranked[:width]]
    return best_score, best_plan


def _played_out(
    rules: Rules, cards: Sequence[int], seat: int, reached: State, width: int, valuations: Sequence[tuple]
) -> tuple[int, tuple[int, ...], str]:
    """The plan from a realized position: the game itself when it was realized to the end, else the
    best beam (one per hand valuation) from the start of the round it stopped at. Returns (score,
    plan, how it was made)."""
    if reached.done:
        return reached.scores[seat], tuple(reached.history), "solution"
    best: tuple[int, tuple[int, ...]] = (-1, ())
    for weight, per_round in valuations:
        best = max(best, beam_search(rules, cards, seat, width, weight, per_round, start=reached))
    return best[0], best[1], f"solution to round {reached.round + 1}, then beam"


def portfolio_search(
    rules: Rules, deal: str | Sequence[int], seat: int = 0, width: int = 64
) -> tuple[int, tuple[int, ...], int]:
    """The best of one beam search per hand valuation in ``PORTFOLIO``: (score, plan, which)."""
    seat, width = _check_seat(rules, seat), _check_width(width)
    best = (-1, (), 0)
    for i, (weight, per_round) in enumerate(PORTFOLIO):
        score, plan = beam_search(rules, deal, seat, width, weight, per_round)
        if score > best[0]:
            best = (score, plan, i)
    return best


# ---- plans from the relaxation's solutions ---------------------------------------------------------


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


def _value(solver: cp_model.CpSolver, x: Any) -> int:
    return int(x) if isinstance(x, int) else int(solver.Value(x))


def solution_plays(solver: cp_model.CpSolver, handles: dict, rules: Rules) -> list[dict[str, Any]]:
    """Per round, what a solution of ``build_model`` has each player play: turn cards, face-up second
    cards and face-down cards per card kind, and award tokens per artist."""
    n = rules.players
    rounds = []
    for r in range(rules.rounds):
        rounds.append({
            what: [[int(solver.Value(handles[what][r][p][k])) for k in range(NUM_KINDS)] for p in range(n)]
            for what in ("turn", "sec", "down")
        })  # fmt: skip
        rounds[-1]["aw"] = [int(solver.Value(handles["aw"][r][a])) for a in range(NUM_ARTISTS)]
        # what each player receives this round (dealt and drawn), and the extra card's artist: a free
        # deal is built from these
        rounds[-1]["receipts"] = [
            [
                int(solver.Value(handles["recv"][r][p][k]))
                - (int(solver.Value(handles["recv"][r - 1][p][k])) if r else 0)
                for k in range(NUM_KINDS)
            ]
            for p in range(n)
        ]
        extra = [_value(solver, x) for x in handles["extra"][r]]
        rounds[-1]["extra"] = extra.index(1) if 1 in extra else -1
        if r + 1 < rules.rounds:  # each hand as the next round starts (dealt, nothing drawn yet)
            rounds[-1]["next_hand"] = [
                [
                    int(solver.Value(handles["recv"][r + 1][p][k]))
                    - int(solver.Value(handles["took"][r + 1][p][k]))
                    - int(solver.Value(handles["played"][r][p][k]))
                    for k in range(NUM_KINDS)
                ]
                for p in range(n)
            ]
    return rounds


def realize(
    rules: Rules,
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
    rules: Rules,
    cards: Sequence[int],
    seat: int,
    reached: State,
    seconds: float,
    workers: int = 2,
    node_limit: int = 100_000,
    shared: _Positions | None = None,
) -> State:
    """Plan again from a position where realizing a solution stopped (the start of a round no order
    realizes, or where the cards drawn went to other players than the solution had them go to): the
    game model with the rounds before it fixed to what was really played (a real game satisfies the
    model, so it stays feasible), solved for ``seconds``, and its solutions realized from there, best
    first. Returns the first game realized to the end, else the furthest position reached."""
    seat, seconds = _check_seat(rules, seat), _check_seconds("seconds", seconds)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    node_limit = check_int("node_limit", node_limit, 1)
    r = reached.round
    m, h = build_model(rules, cards, seat)
    for x, value in _plan_values(h, rules, cards, reached.history, rounds=r):
        m.Add(x == value)
    m.Add(h["st"][r][reached.starter] == 1)
    collector = _Collector(h, rules)
    _solve_for(m, seconds, workers, collector)
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

    def __init__(self, rules: Rules, plays: Sequence[dict[str, Any]]) -> None:
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
    rules: Rules, plays: Sequence[dict[str, Any]], node_limit: int = 100_000
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

    def left() -> tuple:
        return tuple(map(tuple, turn)) + tuple(map(tuple, sec)) + tuple(map(tuple, down)) + (tuple(aw),)

    def options(s: State) -> list[tuple[int, list[int] | None, int]]:
        """(action, the budget row it uses, index in it), in the order to try."""
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

    def search(s: State) -> State | None:
        nonlocal nodes
        if s.done or s.round != r:
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
        if s.phase == PLAY and not (
            _turns_can_alternate(s, turn, sec, down) and _sources_left(s, turn, sec, down)
        ):
            return None
        key = (_key(s), left(), lazy.key() if lazy is not None else None)
        if key in failed:
            return None
        nodes += 1
        if shared is not None:
            shared.left -= 1
            if shared.left <= 0:
                raise _OutOfNodes
        if nodes > stop:
            raise _OutOfNodes
        for action, row, i in options(s):
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


# ---- exhaustive search for tiny decks --------------------------------------------------------------


def brute_force(
    rules: Rules, deal: str, seat: int = 0, limit: int = 2_000_000
) -> tuple[int, tuple[int, ...]]:
    """The exact best score of ``seat`` over every line of play, with a plan; raises if the game tree
    has more than ``limit`` distinct positions (meant for tiny decks)."""
    _require_modelled(rules)
    seat, limit = _check_seat(rules, seat), check_int("limit", limit, 1)
    memo: dict[tuple, tuple[int, tuple[int, ...]]] = {}

    def best(state: State) -> tuple[int, tuple[int, ...]]:
        if state.done:
            return state.scores[seat], ()
        key = _key(state)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if len(memo) >= limit:
            raise RuntimeError(f"brute force: more than {limit} positions; use a smaller deck")
        result = (-1, ())
        for action in state.legal_actions():
            child = state.copy()
            child.apply(action)
            score, rest = best(child)
            if score > result[0]:
                result = (score, (action, *rest))
        memo[key] = result
        return result

    return best(State(rules, deal))


# ---- the bound: a game-level CP-SAT relaxation with every player ----------------------------------


def _deck_tables(rules: Rules, cards: Sequence[int]) -> dict[str, Any]:
    """Where each card of a fixed deal can go, as tables indexed by the number of draws made so far."""
    n, N, R = rules.players, len(cards), rules.rounds
    ex = 1 if rules.extra_card_each_round else 0
    first = rules.deals[0] * n
    hand1 = [[0] * NUM_KINDS for _ in range(n)]
    for t in range(first):
        hand1[t % n][cards[t]] += 1
    dmax = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    # F[r]: where round r's draws start when no card has been drawn before (extra card(s) and deals).
    F = [first + 1]
    for r in range(1, R):
        F.append(F[-1] + n * rules.deals[r] + ex)
    cum = [[0] * (N + 1) for _ in range(NUM_KINDS)]
    for x in range(N):
        for k in range(NUM_KINDS):
            cum[k][x + 1] = cum[k][x] + (cards[x] == k)

    def cum_at(k: int, x: int) -> int:
        return cum[k][min(x, N)]

    draws = [[[cum_at(k, F[r] + d) for d in range(dmax + 1)] for k in range(NUM_KINDS)] for r in range(R)]
    deal = [None]  # deal[r][k][d * n + offset]: kind k dealt to the player `offset` after the starter
    extra = [[int(artist_of(cards[first]) == a) for a in range(NUM_ARTISTS)]]
    for r in range(1, R):
        start = F[r - 1]
        table = [[0] * ((dmax + 1) * n) for _ in range(NUM_KINDS)]
        for d in range(dmax + 1):
            for t in range(n * rules.deals[r]):
                pos = start + d + t
                if pos < N:
                    table[cards[pos]][d * n + t % n] += 1
        deal.append(table)
        pos_extra = [start + d + n * rules.deals[r] for d in range(dmax + 1)]
        extra.append(
            [[int(ex and p < N and artist_of(cards[p]) == a) for p in pos_extra] for a in range(NUM_ARTISTS)]
        )
    return {"hand1": hand1, "draws": draws, "deal": deal, "extra": extra, "dmax": dmax, "first_draw": F}


def _require_modelled(rules: Rules) -> None:
    """Refuse rules the oracle cannot represent, rather than give a wrong bound or optimum."""
    if rules.second_card_symbols:
        raise ValueError(
            "the Modern Art oracle cannot model second_card_symbols=True: its bound models assume that "
            "second cards bring no symbol of their own, and the exhaustive search's position key does "
            "not hold interrupted simultaneous plays"
        )


def build_model(
    rules: Rules, cards: Sequence[int] | None, seat: int = 0, scoring: bool = True, draw_order: bool = True
) -> tuple[cp_model.CpModel, dict]:
    """The CP-SAT relaxation of the whole game for ``seat`` (``cards=None``: over every deal).
    With ``scoring=False`` the model stops before the ranking and pay (no objective): what is left
    still holds in every real game, and proofs about the cards played come faster; with
    ``draw_order=False`` the order of a round's draws is left out too (a weaker model, still valid).

    Variables, per round ``r``, player ``p`` and card kind ``k``: turn cards, face-up second cards
    (double or simultaneous) and face-down cards; per round the starter, the draws, the award tokens
    placed and the ranking. Every constraint holds in every real game, so the optimum (or CP-SAT's
    proven bound on it) bounds the seat's score. Each with its argument:

    - *Cards*: what a player displays by the end of round ``r`` it received by then. Fixed deal: its
      first hand, its share of each later deal (dealt one at a time from the starter, starting after
      the cards drawn so far, so a table indexed by the draws so far and the seat's offset from the
      starter gives it exactly) and the cards drawn: round ``r``'s draws are exactly the next deck
      positions after that round's deal, shared among the players who drew, each drawing at most once
      per draw card it played as a turn card and, where the deck cannot run out, drawing for every
      such card but the one that ended the round; a hand grows in a round only by its own draws, so
      the first draw card a player plays in a round was in its hand at the round's start: some kind
      it plays as a draw turn card it held then (cards of a kind are alike). The draws come in turn
      order: a player's turns are the first laps of the round (an emptied hand stays empty), each draw
      index is drawn in one of its drawer's turns and after the index before it (lap x players + place
      from the starter), a player draws first no later than its held cards without a draw symbol
      allow, a turn card of a kind it did not hold at the round's start was drawn at an earlier
      turn of its own, and a player's draws up to each index are no more than the draw cards it held
      at the round's start plus those it drew at earlier indices (each draw spends a draw card in
      hand, and the card drawn at an index is not in hand before it). Free deal: any cards, as
      many as the deck holds of each kind, each player receiving exactly its dealt count plus its
      draws.
    - *Turns*: players take turns in order from the starter, one turn card each, skipping only a
      player whose hand is empty, and an emptied hand stays empty for the round (cards arrive only by
      drawing, which needs a turn). So a player earlier in the order than another takes at least as
      many turns, a later one at most one fewer, unless its hand is empty at the round's end. A hand
      is empty at the round's end exactly when all its cards were played.
    - *Who ends*: the player whose turn it was, so no one took a turn after its last (in the order
      from the starter, players before it took at most as many turns, players after it at most one
      fewer). The next round starts to its left. With no hand empty,
      everyone from the starter to the ender took one turn more than everyone after the ender. Unless
      every hand is empty, the ender displayed a card of an artist at the limit or played a
      simultaneous card.
    - *The last display*: it is the ender's turn card (with a double's second card or one
      simultaneous card per other player). Every artist is below the limit before it, so of one
      artist at most one turn card (the last) lies above ``limit - 1``; the cards above ``limit - 1``
      are the last turn card, a double's second card of its artist, or (when the last turn card is
      simultaneous) one card per other player, each a second card of the same artist in this round
      of a player other than the ender that answers a simultaneous card (not a double's second
      card), and no player answers twice (one card each, of one artist);
      and only then can more than one artist pass ``limit - 1``. Unless every hand is empty there is
      a last turn card, and when it is an award card its display reached the limit, so it places no
      award token. A draw card that does not draw (where the deck cannot run out) is that last turn
      card.
    - *Symbols*: a double's second card is of its artist, a hidden card brings at most one face-down
      card, each simultaneous turn card at most one card from every other player, award tokens need
      award turn cards and there are only so many; second cards bring no symbol of their own.
    - *Round end*: the round ends when an artist reaches the limit of face-up cards (the extra card
      counts) or when every hand is empty. Until the last display every artist is below the limit; the
      last display (a double with its second card, or a simultaneous card with every other player's
      card) adds at most ``max(2, players)`` cards above ``limit - 1`` in all (plus one per player and
      artist with end-of-round plays). If no artist reached the limit every hand is empty.
    - *Ranking and pay*: the artists rank by cards this round (face-down and extra included), ties
      to board order, exactly as the engine ranks; tokens go to the placing artists, award tokens
      stay, and the seat is paid value x own cards only for placing artists. Of one artist the seat
      has at most the face-up limit's worth plus the hidden cards it can hold by then, and no more
      than it can have received by then under any starters and draws (``_seat_reach``).

    Left out (so the optimum may be above the best real play): the order of plays inside a round
    beyond the order of draws (a second card may be any held card, and when in the round it is
    played), and that the triggering card's symbol is not resolved (but for draws, hidden cards and
    awards).
    """
    _require_modelled(rules)
    n, R, A, K = rules.players, rules.rounds, NUM_ARTISTS, NUM_KINDS
    L = rules.round_limit
    P = len(rules.value_tokens)
    count = [rules.deck[artist_of(k)][symbol_of(k)] for k in range(K)]
    N = rules.num_cards
    ex_each = 1 if rules.extra_card_each_round else 0
    dmax = sum(rules.deck[a][DRAW] for a in range(A))
    tab = _deck_tables(rules, cards) if cards is not None else None
    tokens = min(rules.award_tokens, sum(rules.deck[a][AWARD] for a in range(A)))
    total_hand = rules.deals[0] + sum(rules.deals[1:]) + dmax
    m = cp_model.CpModel()
    V = m.NewIntVar
    B = m.NewBoolVar

    def kinds_of(a: int) -> range:
        return range(a * NUM_SYMBOLS, (a + 1) * NUM_SYMBOLS)

    turn = [[[V(0, count[k], f"t{r}_{p}_{k}") for k in range(K)] for p in range(n)] for r in range(R)]
    sec = [[[V(0, count[k], f"s{r}_{p}_{k}") for k in range(K)] for p in range(n)] for r in range(R)]
    down = [[[V(0, count[k], f"h{r}_{p}_{k}") for k in range(K)] for p in range(n)] for r in range(R)]
    for k in range(K):
        m.Add(
            sum(turn[r][p][k] + sec[r][p][k] + down[r][p][k] for r in range(R) for p in range(n)) <= count[k]
        )
    # ---- starters and draws
    st = [[B(f"st{r}_{p}") for p in range(n)] for r in range(R)]
    for r in range(R):
        m.AddExactlyOne(st[r])
    m.Add(st[0][0] == 1)
    dr = [[V(0, dmax, f"d{r}_{p}") for p in range(n)] for r in range(R)]
    dle = [V(0, dmax, f"D{r}") for r in range(R)]  # draws made by the end of round r
    never_short = n * sum(rules.deals) + (R if ex_each else 1) + dmax <= N
    unresolved_draw: list[list | None] = [None] * R
    for r in range(R):
        m.Add(dle[r] == sum(dr[q][p] for q in range(r + 1) for p in range(n)))
        for p in range(n):
            m.Add(dr[r][p] <= sum(turn[r][p][a * NUM_SYMBOLS + DRAW] for a in range(A)))
        if never_short:
            # Every draw card played draws, but for the one that ends the round (its symbol is not
            # resolved): the deck cannot run out.
            unresolved = [B(f"ud{r}_{p}") for p in range(n)]
            m.AddAtMostOne(unresolved)
            unresolved_draw[r] = unresolved
            for p in range(n):
                # (exactly: the unresolved card draws nothing)
                m.Add(dr[r][p] == sum(turn[r][p][a * NUM_SYMBOLS + DRAW] for a in range(A)) - unresolved[p])
    # ---- the extra card(s)
    extra = [[0] * A for _ in range(R)]
    if tab is not None:
        extra[0] = tab["extra"][0]
        for r in range(1, R):
            if ex_each:
                for a in range(A):
                    e = V(0, 1, f"x{r}_{a}")
                    m.AddElement(dle[r - 1], tab["extra"][r][a], e)
                    extra[r][a] = e
    else:
        for r in range(R if ex_each else 1):
            xs = [B(f"x{r}_{a}") for a in range(A)]
            m.AddExactlyOne(xs)
            extra[r] = xs
    # ---- cards received
    recv = [[[None] * K for _ in range(n)] for _ in range(R)]
    took = [[[0] * K for _ in range(n)] for _ in range(R)]  # cards drawn, per round, player and kind
    if tab is not None:
        for r in range(R):
            off = [sum(st[r][s] * ((p - s) % n) for s in range(n)) for p in range(n)]
            for k in range(K):
                win = None
                lo = tab["draws"][r][k]
                if max(lo) > 0:
                    win = V(0, count[k], f"w{r}_{k}")
                    end = V(0, count[k], f"we{r}_{k}")
                    m.AddElement(dle[r], lo, end)
                    if r == 0:
                        m.Add(win == end - lo[0])
                    else:
                        beg = V(0, count[k], f"wb{r}_{k}")
                        m.AddElement(dle[r - 1], lo, beg)
                        m.Add(win == end - beg)
                drawn = [V(0, count[k], f"g{r}_{p}_{k}") if win is not None else 0 for p in range(n)]
                for p in range(n):
                    took[r][p][k] = drawn[p]
                if win is not None:
                    m.Add(sum(drawn) == win)
                for p in range(n):
                    prev = tab["hand1"][p][k] if r == 0 else recv[r - 1][p][k]
                    got = 0
                    if r > 0 and max(tab["deal"][r][k]) > 0:
                        idx = V(0, (dmax + 1) * n - 1, f"i{r}_{p}_{k}")
                        m.Add(idx == dle[r - 1] * n + off[p])
                        got = V(0, count[k], f"dl{r}_{p}_{k}")
                        m.AddElement(idx, tab["deal"][r][k], got)
                    recv[r][p][k] = prev + got + drawn[p]
            for p in range(n):
                m.Add(sum(recv[r][p][k] - (tab["hand1"][p][k] if r == 0 else recv[r - 1][p][k])
                          for k in range(K)) <= rules.deals[r] * (r > 0) + dr[r][p])  # fmt: skip
    else:
        dealt = n * sum(rules.deals) + (R if ex_each else 1)
        lasts = dealt <= N  # otherwise later deals may fall short: counts become upper bounds
        m.Add(dle[R - 1] <= max(0, N - dealt))
        for r in range(R):
            for p in range(n):
                got = [V(0, count[k], f"g{r}_{p}_{k}") for k in range(K)]
                drawn = V(0, dmax, f"gd{r}_{p}")
                m.Add(drawn <= dr[r][p])
                if lasts:
                    m.Add(sum(got) == rules.deals[r] + drawn)
                else:
                    m.Add(sum(got) <= rules.deals[r] + drawn)
                for k in range(K):
                    recv[r][p][k] = got[k] + (recv[r - 1][p][k] if r else 0)
        for k in range(K):
            m.Add(sum(recv[R - 1][p][k] for p in range(n)) <= count[k])
        # each extra card is a card of the deck too: per artist
        for a in range(A):
            m.Add(
                sum(recv[R - 1][p][k] for p in range(n) for k in kinds_of(a))
                + sum(extra[r][a] for r in range(R))
                <= sum(rules.deck[a])
            )
    # ---- playing what one holds; empty hands
    played = [[[None] * K for _ in range(n)] for _ in range(R)]
    empty = [[B(f"e{r}_{p}") for p in range(n)] for r in range(R)]
    for r in range(R):
        for p in range(n):
            for k in range(K):
                played[r][p][k] = (
                    turn[r][p][k] + sec[r][p][k] + down[r][p][k] + (played[r - 1][p][k] if r else 0)
                )
                m.Add(played[r][p][k] <= recv[r][p][k])
            left = sum(recv[r][p][k] - played[r][p][k] for k in range(K))
            m.Add(left == 0).OnlyEnforceIf(empty[r][p])
            m.Add(left >= 1).OnlyEnforceIf(empty[r][p].Not())

    def held_at_start(r: int, p: int, k: int) -> Any:
        """Player p's cards of kind k as round r starts (its deal in, nothing drawn yet)."""
        return recv[r][p][k] - took[r][p][k] - (played[r - 1][p][k] if r else 0)

    if tab is not None:
        # A hand grows during a round only by its own draws, and a draw needs a draw card: the first
        # draw card a player plays in a round was in its hand at the round's start. Cards of one kind
        # are alike, so some kind it plays as a draw turn card was held at the start.
        draw_kinds = [a * NUM_SYMBOLS + DRAW for a in range(A)]
        for r in range(R):
            for p in range(n):
                starters = []
                for k in draw_kinds:
                    held = held_at_start(r, p, k)
                    first = B(f"df{r}_{p}_{k}")
                    m.Add(turn[r][p][k] >= 1).OnlyEnforceIf(first)
                    m.Add(held >= 1).OnlyEnforceIf(first)
                    starters.append(first)
                m.Add(sum(turn[r][p][k] for k in draw_kinds) <= dmax * sum(starters))
        if never_short:
            # The round's last card drawn is not played as a turn card that draws: that would draw
            # once more. So if it is a draw card, its drawer plays one fewer of its kind as a turn
            # card than it has (unless that card ends the round with its symbol unresolved).
            for r in range(R):
                drew = B(f"dw{r}")
                m.Add(dle[r] - (dle[r - 1] if r else 0) >= 1).OnlyEnforceIf(drew)
                m.Add(dle[r] - (dle[r - 1] if r else 0) == 0).OnlyEnforceIf(drew.Not())
                last_drawer = [B(f"ld{r}_{p}") for p in range(n)]
                m.Add(sum(last_drawer) == drew)
                for p in range(n):
                    m.Add(dr[r][p] >= 1).OnlyEnforceIf(last_drawer[p])
                for k in draw_kinds:
                    at = tab["draws"][r][k]  # kind k's cards before each draw count, from this round on
                    lasts = [0] + [at[d] - at[d - 1] for d in range(1, dmax + 1)]
                    if max(lasts) == 0:
                        continue
                    last_is = B(f"lk{r}_{k}")
                    m.AddElement(dle[r], lasts, last_is)
                    for p in range(n):
                        m.Add(took[r][p][k] >= 1).OnlyEnforceIf([last_drawer[p], drew, last_is])
                        m.Add(
                            turn[r][p][k]
                            <= recv[r][p][k] - (played[r - 1][p][k] if r else 0) - 1 + unresolved_draw[r][p]
                        ).OnlyEnforceIf([last_drawer[p], drew, last_is])
    # ---- turns
    T = [[V(0, total_hand, f"T{r}_{p}") for p in range(n)] for r in range(R)]
    for r in range(R):
        for p in range(n):
            m.Add(T[r][p] == sum(turn[r][p]))
        for p in range(n):
            for q in range(n):
                if p == q:
                    continue
                # p comes before q in this round's order iff the starter is one of q+1, ..., p
                before = sum(st[r][(q + 1 + i) % n] for i in range((p - q) % n))
                m.Add(T[r][p] >= T[r][q] - 1 + before).OnlyEnforceIf(empty[r][p].Not())
    draw_lap: list[list] = [[] for _ in range(R)]  # per round, the lap of each draw index (fixed deal)
    if tab is not None and draw_order:
        # The order of a round's draws. A player's turns are the first T of the round's laps (an
        # emptied hand stays empty), so its turn in lap c comes at time n c + its place from the
        # starter. Draw index d (the d-th card drawn in the game, a known deck position for each
        # round) is drawn in round r when it lies between the draws before the round and after it,
        # by one player in one of its turns, later than index d - 1 if that was drawn in the round
        # too; the drawers take exactly the kinds at their indices. A turn card of a kind a player
        # holds fewer of at the round's start was drawn in that round, at an earlier turn.
        for r in range(R):
            off = [sum(st[r][s] * ((p - s) % n) for s in range(n)) for p in range(n)]
            before = dle[r - 1] if r else 0
            indices: list[tuple[int, list, Any]] = []  # (kind, owner flags, lap) per index, in order
            last = None
            for d in range(dmax):
                at = tab["first_draw"][r] + d
                if at >= N:
                    break
                drawn_by_end, drawn_before = B(f"De{r}_{d}"), B(f"Db{r}_{d}")
                m.Add(dle[r] >= d + 1).OnlyEnforceIf(drawn_by_end)
                m.Add(dle[r] <= d).OnlyEnforceIf(drawn_by_end.Not())
                m.Add(before >= d + 1).OnlyEnforceIf(drawn_before)
                m.Add(before <= d).OnlyEnforceIf(drawn_before.Not())
                owner = [B(f"Do{r}_{d}_{p}") for p in range(n)]
                m.Add(sum(owner) == drawn_by_end - drawn_before)
                lap = V(0, total_hand, f"Dl{r}_{d}")
                draw_lap[r].append(lap)
                time_ = V(0, n * (total_hand + 1), f"Dt{r}_{d}")
                for p in range(n):
                    m.Add(time_ == n * lap + off[p]).OnlyEnforceIf(owner[p])
                    m.Add(lap <= T[r][p] - 1).OnlyEnforceIf(owner[p])
                if last is not None:  # both this index and the one before drawn in round r
                    m.Add(time_ >= last[1] + 1).OnlyEnforceIf([drawn_by_end, last[0].Not()])
                last = (drawn_before, time_)
                indices.append((cards[at], owner, lap))
            for p in range(n):
                # Before its first draw a player's turn cards come from its hand at the round's
                # start, none of them a draw card: it draws first at a lap no later than its other
                # cards there.
                others = sum(held_at_start(r, p, k) for k in range(K) if symbol_of(k) != DRAW)
                soon = []
                for _, owner, lap in indices:
                    flag = B(f"Df{r}_{p}_{len(soon)}")
                    m.AddImplication(flag, owner[p])
                    m.Add(lap <= others).OnlyEnforceIf(flag)
                    soon.append(flag)
                drew = B(f"Dd{r}_{p}")
                m.Add(dr[r][p] >= 1).OnlyEnforceIf(drew)
                m.Add(dr[r][p] == 0).OnlyEnforceIf(drew.Not())
                m.AddBoolOr(soon).OnlyEnforceIf(drew)
                # Each draw spends a draw card in the drawer's hand: one it held at the round's start
                # or one it drew itself at an earlier index (the card drawn at an index is not in
                # hand before it). So its draws up to an index are at most those two counts.
                held_draws = sum(held_at_start(r, p, k) for k in draw_kinds)
                so_far, drawn_draws = [], []
                for kind, owner, _ in indices:
                    so_far.append(owner[p])
                    m.Add(sum(so_far) <= held_draws + sum(drawn_draws)).OnlyEnforceIf(owner[p])
                    if symbol_of(kind) == DRAW:
                        drawn_draws.append(owner[p])
                for k in range(K):
                    at_k = [(owner, lap) for kind, owner, lap in indices if kind == k]
                    mine = [owner[p] for owner, _ in at_k]
                    if not mine:
                        if not isinstance(took[r][p][k], int):
                            m.Add(took[r][p][k] == 0)
                        continue
                    m.Add(took[r][p][k] == sum(mine))
                    held = held_at_start(r, p, k)
                    needs = B(f"Dn{r}_{p}_{k}")
                    m.Add(turn[r][p][k] >= held + 1).OnlyEnforceIf(needs)
                    m.Add(turn[r][p][k] <= held).OnlyEnforceIf(needs.Not())
                    early = []
                    for owner, lap in at_k:
                        flag = B(f"Dx{r}_{p}_{k}_{len(early)}")
                        m.AddImplication(flag, owner[p])
                        m.Add(lap <= T[r][p] - 2).OnlyEnforceIf(flag)
                        early.append(flag)
                    m.AddBoolOr(early).OnlyEnforceIf(needs)
    # ---- symbols
    aw = [[V(0, tokens, f"aw{r}_{a}") for a in range(A)] for r in range(R)]
    award_turns: list = []
    answered: list[list] = [[] for _ in range(R)]  # per round and player: its answers per artist
    m.Add(sum(aw[r][a] for r in range(R) for a in range(A)) <= tokens)
    for r in range(R):
        award_turns.append(sum(turn[r][p][a * NUM_SYMBOLS + AWARD] for p in range(n) for a in range(A)))
        m.Add(sum(aw[r]) <= award_turns[r])
        sims = [sum(turn[r][p][a * NUM_SYMBOLS + SIMULTANEOUS] for a in range(A)) for p in range(n)]
        for p in range(n):
            m.Add(sum(down[r][p]) <= sum(turn[r][p][a * NUM_SYMBOLS + HIDDEN] for a in range(A)))
            simp = [V(0, total_hand, f"sp{r}_{p}_{a}") for a in range(A)]
            answered[r].append(simp)
            m.Add(sum(simp) <= sum(sims[q] for q in range(n) if q != p))
            for a in range(A):
                double = turn[r][p][a * NUM_SYMBOLS + DOUBLE]
                if rules.simultaneous_same_artist:
                    m.Add(
                        simp[a] <= sum(turn[r][q][a * NUM_SYMBOLS + SIMULTANEOUS] for q in range(n) if q != p)
                    )
                # end-of-round plays: one more card of each artist (displayed face up this round)
                end_play = 1 if rules.end_of_round_plays else 0
                m.Add(sum(sec[r][p][k] for k in kinds_of(a)) <= double + simp[a] + end_play)
    # ---- round end
    excess_max = max(2, n)

    def carries(mine: cp_model.IntVar, r: int, p: int, a: int, symbol: int) -> cp_model.IntVar:
        """A flag: the last turn card (``mine``: player p's, of artist a) carries ``symbol``; then p
        played such a turn card in round r."""
        flag = B(f"l{symbol}_{r}_{p}_{a}")
        m.AddImplication(flag, mine)
        m.Add(turn[r][p][a * NUM_SYMBOLS + symbol] >= 1).OnlyEnforceIf(flag)
        return flag

    col = [[None] * A for _ in range(R)]
    tot = [[None] * A for _ in range(R)]
    for r in range(R):
        trig = [B(f"tr{r}_{a}") for a in range(A)]
        all_empty = B(f"ae{r}")
        for p in range(n):
            m.AddImplication(all_empty, empty[r][p])
        m.AddBoolOr(trig + [all_empty])
        exc = [V(0, excess_max, f"ex{r}_{a}") for a in range(A)]
        m.Add(sum(exc) <= excess_max)
        # Turn cards come one per display; only the last display may take an artist to the limit, so
        # of one artist at most one turn card (the last) lies above limit - 1.
        last = [B(f"lt{r}_{a}") for a in range(A)]
        m.AddAtMostOne(last)
        for a in range(A):
            up = sum(turn[r][p][k] + sec[r][p][k] for p in range(n) for k in kinds_of(a))
            col[r][a] = up + extra[r][a]
            tot[r][a] = col[r][a] + sum(down[r][p][k] for p in range(n) for k in kinds_of(a))
            endp = 0
            if rules.end_of_round_plays:
                endp = V(0, n, f"ep{r}_{a}")
            m.Add(col[r][a] <= L - 1 + exc[a] + endp)
            m.Add(sum(turn[r][p][k] for p in range(n) for k in kinds_of(a)) + extra[r][a] <= L - 1 + last[a])
            m.Add(col[r][a] >= L).OnlyEnforceIf(trig[a])
        # Who ends the round: the player whose turn it was. The player to its left starts the next
        # round. Without empty hands nobody was skipped, so everyone from the starter to the ender
        # took one turn more than everyone after the ender. Unless every hand emptied, the round
        # ended in the ender's turn on a card of an artist at the limit: the ender displayed one
        # itself, or its simultaneous card brought it.
        pair = [[B(f"se{r}_{a}_{b}") for b in range(n)] for a in range(n)]  # starter a, ender b
        m.AddExactlyOne(x for row in pair for x in row)
        ender = [sum(pair[a][b] for a in range(n)) for b in range(n)]
        for a in range(n):
            m.Add(st[r][a] == sum(pair[a]))
        # No one plays after the ender's last turn: in the order from the starter, a player before
        # the ender took at most as many turns, one after it at most one fewer (skipped turns of
        # empty hands only lower these counts).
        for a in range(n):
            for b in range(n):
                for q in range(n):
                    if q != b:
                        earlier = int((q - a) % n < (b - a) % n)
                        m.Add(T[r][q] <= T[r][b] - 1 + earlier).OnlyEnforceIf(pair[a][b])
        if r + 1 < R:
            for b in range(n):
                m.Add(st[r + 1][(b + 1) % n] == ender[b])
        most = V(1, total_hand, f"Tm{r}")
        last_sims = []
        last_by: list[list] = [[] for _ in range(A)]
        last_doubles: list[list] = [[] for _ in range(A)]
        last_awards: list = []
        full = [empty[r][p].Not() for p in range(n)]
        ends_flags: list = []
        for p in range(n):
            after = sum(pair[a][b] for a in range(n) for b in range(n) if (p - a) % n > (b - a) % n)
            m.Add(T[r][p] == most - after).OnlyEnforceIf(full)
            reasons = [all_empty]
            sim = B(f"sm{r}_{p}")
            m.Add(sum(turn[r][p][a * NUM_SYMBOLS + SIMULTANEOUS] for a in range(A)) >= 1).OnlyEnforceIf(sim)
            reasons.append(sim)
            for a in range(A):
                own_trigger = B(f"ot{r}_{p}_{a}")
                m.AddImplication(own_trigger, trig[a])
                m.Add(sum(turn[r][p][k] + sec[r][p][k] for k in kinds_of(a)) >= 1).OnlyEnforceIf(own_trigger)
                reasons.append(own_trigger)
            ends = B(f"en{r}_{p}")
            m.Add(ends == ender[p])
            ends_flags.append(ends)
            m.AddBoolOr([ends.Not()] + reasons)
            # The last turn card is the ender's: ``mine`` when it is of artist a.
            my_draws, my_hiddens = [], []
            for a in range(A):
                mine = B(f"lp{r}_{p}_{a}")
                m.AddImplication(mine, ends)
                m.Add(sum(turn[r][p][k] for k in kinds_of(a)) >= 1).OnlyEnforceIf(mine)
                last_by[a].append(mine)
                symbols = (SIMULTANEOUS, DOUBLE, DRAW, AWARD, HIDDEN)
                flags = [carries(mine, r, p, a, symbol) for symbol in symbols]
                last_sim, last_double, last_draw, last_award, last_hidden = flags
                last_sims.append(last_sim)
                last_doubles[a].append(last_double)
                my_draws.append(last_draw)
                last_awards.append(last_award)
                my_hiddens.append(last_hidden)
                # the last turn card has one symbol, and with none of these it is plain
                m.AddAtMostOne(flags)
                plain = turn[r][p][a * NUM_SYMBOLS + PLAIN]
                m.Add(plain >= 1).OnlyEnforceIf([mine] + [flag.Not() for flag in flags])
            if not rules.resolve_ending_card:
                # a hidden card that ends the round at the limit brings no face-down card
                hiddens = sum(turn[r][p][a * NUM_SYMBOLS + HIDDEN] for a in range(A))
                m.Add(sum(down[r][p]) <= hiddens - sum(my_hiddens) + all_empty)
            if unresolved_draw[r] is not None and not rules.resolve_ending_card:
                # a draw card that does not draw is the last turn card, at the limit, and a draw card
                # that ends the round at the limit draws nothing
                m.AddBoolOr(my_draws).OnlyEnforceIf(unresolved_draw[r][p])
                m.AddImplication(unresolved_draw[r][p], all_empty.Not())
                for last_draw in my_draws:
                    m.AddBoolOr([last_draw.Not(), all_empty, unresolved_draw[r][p]])
        # Only the last display takes artists past limit - 1: its turn card's artist, and (when it is
        # a simultaneous card) one more artist per other player, each through a second card.
        over = [B(f"ov{r}_{a}") for a in range(A)]
        answers: list[list] = [[] for _ in range(n)]
        for a in range(A):
            m.Add(exc[a] <= excess_max * over[a])
            # the turn card and a double's second card, or one simultaneous card per other player:
            # an answer to the ender's simultaneous card, so a second card of that artist this round
            # from a player other than the ender
            brought_by = []
            for p in range(n):
                flag = B(f"sb{r}_{a}_{p}")
                m.Add(sum(sec[r][p][k] for k in kinds_of(a)) >= 1).OnlyEnforceIf(flag)
                m.Add(answered[r][p][a] >= 1).OnlyEnforceIf(flag)  # an answer, not a double's second card
                m.AddImplication(flag, ends_flags[p].Not())
                brought_by.append(flag)
                answers[p].append(flag)
            m.AddBoolOr([over[a].Not(), last[a], *brought_by])
            m.Add(exc[a] <= last[a] + sum(last_doubles[a]) + sum(brought_by))
            m.Add(exc[a] <= last[a] + sum(last_doubles[a]) + (n - 1) * sum(last_sims))
        m.Add(sum(over) <= 1 + (n - 1) * sum(last_sims))
        for flags in answers:  # each other player answers the last simultaneous card once at most
            m.AddAtMostOne(flags)
        m.Add(sum(exc) <= 1 + sum(sum(x) for x in last_doubles) + (n - 1) * sum(last_sims))
        for a in range(A):
            m.Add(last[a] == sum(last_by[a]))
        # A round in which some hand still holds cards ended at the limit, on a last turn card; if that
        # is an award card, its display reached the limit, so its award token is not placed.
        m.Add(sum(last) >= 1 - all_empty)
        if not rules.resolve_ending_card:
            m.Add(sum(aw[r]) <= award_turns[r] - sum(last_awards) + all_empty)
    handles = {
        "turn": turn, "sec": sec, "down": down, "aw": aw, "st": st, "dr": dr, "recv": recv,
        "extra": extra, "took": took, "played": played, "draw_lap": draw_lap,
    }  # fmt: skip
    if not scoring:
        return m, handles
    # ---- ranking, values and pay
    tok = rules.value_tokens
    pay = []
    place = []
    for r in range(R):
        pl = [[B(f"pl{r}_{a}_{j}") for j in range(P)] for a in range(A)]
        place.append(pl)
        for j in range(P):
            m.AddAtMostOne(pl[a][j] for a in range(A))
            if j:
                m.Add(sum(pl[a][j] for a in range(A)) <= sum(pl[a][j - 1] for a in range(A)))
        gt = {}
        for a in range(A):
            for b in range(a + 1, A):
                g = B(f"gt{r}_{a}_{b}")  # a ranks above b: at least as many cards (a is earlier)
                m.Add(tot[r][a] >= tot[r][b]).OnlyEnforceIf(g)
                m.Add(tot[r][a] < tot[r][b]).OnlyEnforceIf(g.Not())
                gt[a, b], gt[b, a] = g, g.Not()
        for a in range(A):
            m.AddAtMostOne(pl[a])
            for j in range(P):
                m.Add(tot[r][a] >= 1).OnlyEnforceIf(pl[a][j])
                for b in range(A):
                    if b != a:
                        m.AddBoolOr([pl[a][j].Not(), gt[b, a].Not()] + [pl[b][i] for i in range(j)])
    # The pay, linear: value x own is a sum over the tokens the artist holds (one per place won in an
    # earlier or this round, one per award token), each times the seat's cards of it this round. A
    # token goes to one artist, so each token term pays for one artist's cards only; the LP sees that.
    # One artist's face-up cards stop at the limit minus one plus the last display (a simultaneous
    # card at the limit brings one card per other player, a double one more); past that only the
    # seat's face-down cards add to its own, and it can put down no more hidden cards than it holds.
    up_max = L - 1 + excess_max + (n if rules.end_of_round_plays else 0)
    # What the seat can hold by round r, whatever the starters and draws: hidden cards, and of each
    # artist (free deal: the deck's counts).
    seat_reach = _seat_reach(rules, cards, seat)
    hidden_max = seat_reach["hidden"]
    awb = [[[B(f"ab{r}_{a}_{i}") for i in range(tokens)] for a in range(A)] for r in range(R)]
    for r in range(R):
        for a in range(A):
            m.Add(aw[r][a] == sum(awb[r][a]))
    for r in range(R):
        for a in range(A):
            placed = sum(place[r][a])
            cap = min(up_max + hidden_max[r], seat_reach["artist"][a][r])
            seat_down = sum(down[r][seat][k] for k in kinds_of(a))
            own = V(0, cap, f"o{r}_{a}")
            m.Add(own == sum(turn[r][seat][k] + sec[r][seat][k] + down[r][seat][k] for k in kinds_of(a)))
            terms = []
            units = [[(tok[j], place[q][a][j]) for j in range(P)] for q in range(r + 1)]
            units += [[(rules.award_value, awb[q][a][i])] for q in range(r + 1) for i in range(tokens)]
            for group in units:  # an artist wins one place a round: one token of each group at most
                zs = []
                for weight, unit in group:
                    z = V(0, cap, "")
                    m.Add(z <= cap * unit)
                    m.Add(z <= min(cap, up_max) * unit + seat_down)
                    m.Add(z <= cap * placed)
                    zs.append(z)
                    terms.append(weight * z)
                m.Add(sum(zs) <= own)
            round_value = max(tok) * (r + 1) + rules.award_value * tokens
            pa = V(0, round_value * cap, f"pay{r}_{a}")
            m.Add(pa == sum(terms))
            m.Add(pa <= round_value * own)
            # The same pay as one product too: CP-SAT propagates and cuts it differently.
            value = V(0, round_value, f"v{r}_{a}")
            m.Add(value == sum(tok[j] * place[q][a][j] for q in range(r + 1) for j in range(P))
                  + rules.award_value * sum(aw[q][a] for q in range(r + 1)))  # fmt: skip
            prod = V(0, round_value * cap, f"pr{r}_{a}")
            m.AddMultiplicationEquality(prod, [value, own])
            m.Add(pa <= prod)
            m.Add(pa <= cap * value)
            pay.append(pa)
    m.Maximize(sum(pay))
    handles["place"] = place
    return m, handles


def plan_plays(rules: Rules, cards: Sequence[int], plan: Sequence[int]) -> dict[str, Any]:
    """What the real game ``plan`` plays, per round, as ``build_model`` counts it: "plays" in the
    form of ``solution_plays``, and the starters and draws per round."""
    n, R = rules.players, rules.rounds
    rounds = [
        {what: [[0] * NUM_KINDS for _ in range(n)] for what in ("turn", "sec", "down")} for _ in range(R)
    ]
    for entry in rounds:
        entry["aw"] = [0] * NUM_ARTISTS
    draws = [[0] * n for _ in range(R)]
    starters = [-1] * R
    state = State(rules, cards)
    for action in plan:
        r, p, phase, drawn = state.round, state.to_move, state.phase, state.drawn[:]
        if starters[r] < 0:  # (end-of-round plays come after the next starter is known)
            starters[r] = state.starter
        state.apply(action)
        for q in range(n):
            draws[r][q] += state.drawn[q] - drawn[q]
        if state.round != r and not state.done:
            rounds[r]["next_hand"] = [hand[:] for hand in state.hands]
        if phase == PLAY:
            rounds[r]["turn"][p][action] += 1
        elif phase == HIDDEN_CARD and action != PASS:
            rounds[r]["down"][p][action] += 1
        elif phase == AWARD_ARTIST:
            rounds[r]["aw"][action - CHOOSE_ARTIST] += 1
        elif action != PASS:
            rounds[r]["sec"][p][action] += 1
    return {"plays": rounds, "starters": starters, "draws": draws}


def _plan_values(
    h: dict, rules: Rules, cards: Sequence[int], plan: Sequence[int], rounds: int | None = None
) -> Iterator[tuple[Any, int]]:
    """(model variable, its value in the real game ``plan``) for the starters, draws, plays and award
    tokens of ``build_model`` (handles ``h``), over its first ``rounds`` rounds (default: all)."""
    game = plan_plays(rules, cards, plan)
    for r, entry in enumerate(game["plays"][:rounds]):
        for p in range(rules.players):
            yield h["st"][r][p], int(game["starters"][r] == p)
            yield h["dr"][r][p], game["draws"][r][p]
            for what in ("turn", "sec", "down"):
                for k in range(NUM_KINDS):
                    yield h[what][r][p][k], entry[what][p][k]
        for a in range(NUM_ARTISTS):
            yield h["aw"][r][a], entry["aw"][a]


def _hint(m: cp_model.CpModel, h: dict, rules: Rules, cards: Sequence[int], plan: Sequence[int]) -> None:
    """Hint the model with the real game ``plan`` plays: a feasible start for CP-SAT, so it reports
    a proven bound quickly, and (if the model is right) a relaxation objective of at least the plan's
    score."""
    for x, value in _plan_values(h, rules, cards, plan):
        m.AddHint(x, value)


def _solve_for(
    m: cp_model.CpModel,
    seconds: float,
    workers: int,
    callback: cp_model.CpSolverSolutionCallback | None = None,
    rate: float = WORK_PER_SECOND,
) -> tuple[Any, cp_model.CpSolver]:
    """(status, solver) of CP-SAT on ``m`` on ``workers`` workers, for about ``seconds`` of a 2-core
    machine: ``seconds x rate`` of CP-SAT's deterministic time, with its search interleaved, so the
    same model and limit give the same answer on every run and machine."""
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = max(0.01, float(seconds) * rate)
    solver.parameters.num_workers = int(workers)
    solver.parameters.interleave_search = True
    return solver.Solve(m, callback), solver


def _seconds_spent(solver: cp_model.CpSolver, rate: float) -> float:
    """The ``seconds`` (as ``_solve_for`` counts them at ``rate``) a finished solve used."""
    return solver.ResponseProto().deterministic_time / rate


def _complete_hint(m: cp_model.CpModel, time_limit: float, workers: int) -> None:
    """Turn the partial hint (the plays) into a complete one: solve a copy with the hinted values fixed
    and hint every variable with that solution (CP-SAT starts from complete hints far more easily)."""
    fixed = m.Clone()
    hint = fixed.Proto().solution_hint
    for index, value in zip(hint.vars, hint.values, strict=True):
        fixed.Add(fixed.GetIntVarFromProtoIndex(index) == value)
    fixed.ClearHints()
    status, solver = _solve_for(fixed, time_limit, workers)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return  # keep the partial hint
    m.ClearHints()
    for index in range(len(m.Proto().variables)):
        var = m.GetIntVarFromProtoIndex(index)
        m.AddHint(var, solver.Value(fixed.GetIntVarFromProtoIndex(index)))


def relaxation_bound(
    rules: Rules,
    cards: Sequence[int] | None,
    seat: int = 0,
    time_limit: float = 10.0,
    workers: int = 2,
    plan: Sequence[int] | None = None,
    plan_deal: Sequence[int] | None = None,
    collect: list | None = None,
) -> tuple[int, int, dict[str, Any]]:
    """(proven upper bound, the relaxation's best objective found, stats) of ``build_model``;
    ``plan`` (a real game of the deal ``cards``, or of ``plan_deal`` for the free-deal model) hints
    the search. With a list ``collect``, the last solutions found are added to it as (objective,
    ``solution_plays``). Raises RuntimeError when CP-SAT proves nothing in time (no bound to report)."""
    seat, time_limit = _check_seat(rules, seat), _check_seconds("time_limit", time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    m, handles = build_model(rules, cards, seat)
    played_on = plan_deal if plan_deal is not None else cards
    if plan is not None and played_on is not None:
        _hint(m, handles, rules, played_on, plan)
        _complete_hint(m, min(2.0, time_limit / 4), workers)
    collector = _Collector(handles, rules) if collect is not None else None
    solver, status, bound, found = _solve_relaxation(m, time_limit, workers, collector)
    if collector is not None:
        collect.extend(collector.found)
    stats = {
        "relaxation_status": solver.StatusName(status),
        "relaxation_objective": found,
        "relaxation_seconds": solver.WallTime(),
    }
    return bound, found, stats


# ---- a second, seat-only relaxation (the first version's) -----------------------------------------


def _supply(rules: Rules, cards: Sequence[int] | None, seat: int) -> dict[str, Any]:
    """What the relaxation needs to know about the deal (or, with ``cards=None``, about any deal)."""
    draws = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    hidden = sum(rules.deck[a][HIDDEN] for a in range(NUM_ARTISTS))
    award_cards = sum(rules.deck[a][AWARD] for a in range(NUM_ARTISTS))
    # per artist and round, the most cards of it the seat can have received (any deal: the deck's)
    reach = _seat_reach(rules, cards, seat)["artist"]
    extra_artist = None if cards is None else artist_of(cards[rules.deals[0] * rules.players])
    return {
        "reach": reach, "hand": rules.deals[0], "draws": draws, "hidden": hidden,
        "award_cards": award_cards, "extra_artist": extra_artist,
    }  # fmt: skip


def seat_round_bound(
    rules: Rules, cards: Sequence[int] | None, seat: int = 0, time_limit: float = 10.0, workers: int = 2
) -> tuple[int, int, dict[str, Any]]:
    """(proven upper bound, best objective found, stats) of the first, seat-only round-level model.

    It keeps only the seat's cards (see the module docstring of the first version): per round the top
    places go to distinct artists, awards need award cards, the seat's cards come from its first hand
    or the part of the deck that can reach it, at most dealt plus draw cards in all, and per round its
    face-up cards of an artist stay below the limit except for two cards of the last play (its own turn
    card and double card, or one simultaneous card), face-down ones need hidden cards. Weaker than
    ``build_model`` on a fixed deal, but CP-SAT proves a lower bound with it over free deals.
    """
    _require_modelled(rules)
    seat, time_limit = _check_seat(rules, seat), _check_seconds("time_limit", time_limit)
    workers = check_int("workers", workers, 1, MAX_WORKERS)
    data = _supply(rules, cards, seat)
    R, A = rules.rounds, NUM_ARTISTS
    places = len(rules.value_tokens)
    limit = rules.round_limit
    end_plays = 1 if rules.end_of_round_plays else 0
    awards_max = min(rules.award_tokens, data["award_cards"])
    max_value = sum(rules.value_tokens[:1]) * R + rules.award_value * awards_max
    cards_max = max(max(row) for row in data["reach"])

    m = cp_model.CpModel()
    place = [[[m.NewBoolVar(f"place{r}_{a}_{k}") for k in range(places)] for a in range(A)] for r in range(R)]
    placed = [[m.NewBoolVar(f"placed{r}_{a}") for a in range(A)] for r in range(R)]
    award = [[m.NewIntVar(0, awards_max, f"award{r}_{a}") for a in range(A)] for r in range(R)]
    up = [[m.NewIntVar(0, limit + 1 + end_plays, f"up{r}_{a}") for a in range(A)] for r in range(R)]
    excess = [[m.NewIntVar(0, 2, f"excess{r}_{a}") for a in range(A)] for r in range(R)]
    down = [[m.NewIntVar(0, data["hidden"], f"down{r}_{a}") for a in range(A)] for r in range(R)]
    pay = []
    m.Add(sum(award[r][a] for r in range(R) for a in range(A)) <= awards_max)
    m.Add(sum(down[r][a] for r in range(R) for a in range(A)) <= data["hidden"])
    for r in range(R):
        for k in range(places):
            m.Add(sum(place[r][a][k] for a in range(A)) <= 1)
        m.Add(sum(excess[r][a] for a in range(A)) <= 2)
        for a in range(A):
            m.Add(sum(place[r][a]) == placed[r][a])
            first_round_extra = 1 if (data["extra_artist"] == a and r == 0) else 0
            m.Add(up[r][a] <= limit - 1 - first_round_extra + excess[r][a] + end_plays)
        total_dealt = data["hand"] + sum(rules.deals[1 : r + 1])
        m.Add(
            sum(up[q][a] + down[q][a] for q in range(r + 1) for a in range(A)) <= total_dealt + data["draws"]
        )
        for a in range(A):
            m.Add(sum(up[q][a] + down[q][a] for q in range(r + 1)) <= data["reach"][a][r])
            value = m.NewIntVar(0, max_value, f"value{r}_{a}")
            m.Add(
                value
                == sum(rules.value_tokens[k] * place[q][a][k] for q in range(r + 1) for k in range(places))
                + rules.award_value * sum(award[q][a] for q in range(r + 1))
            )
            own = m.NewIntVar(0, cards_max, f"own{r}_{a}")
            m.Add(own == up[r][a] + down[r][a])
            product = m.NewIntVar(0, max_value * cards_max, f"product{r}_{a}")
            m.AddMultiplicationEquality(product, [value, own])
            p = m.NewIntVar(0, max_value * cards_max, f"pay{r}_{a}")
            m.Add(p <= product)
            m.Add(p <= max_value * cards_max * placed[r][a])
            # McCormick-style linear cuts: they let the LP relaxation see the product's size.
            round_value = sum(rules.value_tokens[:1]) * (r + 1) + rules.award_value * awards_max
            own_max = limit + 1 + end_plays + data["hidden"]
            m.Add(p <= round_value * own)
            m.Add(p <= own_max * value)
            pay.append(p)
    m.Maximize(sum(pay))
    solver, status, bound, found = _solve_relaxation(m, time_limit, workers)
    stats = {
        "seat_model_status": solver.StatusName(status),
        "seat_model_bound": bound,
        "seat_model_seconds": solver.WallTime(),
    }
    return bound, found, stats


# ---- a third relaxation: each artist's path of values and the seat's cards ------------------------


def _received_by(rules: Rules) -> list[int]:
    """Per round, the deck position before which lie all the cards anyone can have received by its
    end (hands, extra cards, later deals, and every draw card of the deck drawn)."""
    n, ex_each = rules.players, 1 if rules.extra_card_each_round else 0
    dmax = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    first = rules.deals[0] * n + 1
    return [first + sum(n * rules.deals[q] + ex_each for q in range(1, r + 1)) + dmax
            for r in range(rules.rounds)]  # fmt: skip


def _seat_reach(rules: Rules, cards: Sequence[int] | None, seat: int) -> dict[str, list]:
    """What the seat can have by the end of each round, whatever the starters and draws: per artist
    the most cards of it received ("artist"), the most cards in all ("total": dealt, plus one draw
    per draw card it can have received), the award cards any hand can have played ("awards", at most
    the tokens) and the hidden cards the seat can hold ("hidden"). With ``cards=None`` (any deal) the
    deck's own counts."""
    n, R, A = rules.players, rules.rounds, NUM_ARTISTS
    dmax = sum(rules.deck[a][DRAW] for a in range(A))
    tokens = min(rules.award_tokens, sum(rules.deck[a][AWARD] for a in range(A)))
    dealt = [rules.deals[0] + sum(rules.deals[1 : r + 1]) for r in range(R)]
    if cards is None:
        hidden = sum(rules.deck[a][HIDDEN] for a in range(A))
        return {
            "artist": [[sum(rules.deck[a])] * R for a in range(A)], "total": [d + dmax for d in dealt],
            "awards": [tokens] * R, "hidden": [hidden] * R,
        }  # fmt: skip
    tab = _deck_tables(rules, cards)
    first = rules.deals[0] * n
    hidden, awards = [], []
    for end in _received_by(rules):
        held = sum(tab["hand1"][seat][a * NUM_SYMBOLS + HIDDEN] for a in range(A))
        hidden.append(held + sum(1 for k in cards[first:end] if symbol_of(k) == HIDDEN))
        awards.append(min(tokens, sum(1 for k in cards[:end] if symbol_of(k) == AWARD)))

    def most(kinds: Sequence[int]) -> list[int]:
        """Per round, the most cards of ``kinds`` the seat can have received by its end."""
        # best[d]: the most when d cards have been drawn so far. Round r deals to the seat (from any
        # starter) after the draws so far, then its draws are the next positions: the seat may take
        # every card of ``kinds`` among them.
        best = {0: sum(tab["hand1"][seat][k] for k in kinds)}
        row = []
        for r in range(R):
            nxt: dict[int, int] = {}
            for d0, held in best.items():
                if r:
                    held += max(sum(tab["deal"][r][k][d0 * n + off] for k in kinds) for off in range(n))
                for d1 in range(d0, dmax + 1):
                    got = held + sum(tab["draws"][r][k][d1] - tab["draws"][r][k][d0] for k in kinds)
                    nxt[d1] = max(nxt.get(d1, 0), got)
            row.append(max(nxt.values()))
            best = nxt
        return row

    artist = [most(range(a * NUM_SYMBOLS, (a + 1) * NUM_SYMBOLS)) for a in range(A)]
    # each draw needs a draw card of the seat's own, played as a turn card
    draw_cards = most([a * NUM_SYMBOLS + DRAW for a in range(A)])
    total = [dealt[r] + min(dmax, draw_cards[r]) for r in range(R)]
    return {"artist": artist, "total": total, "awards": awards, "hidden": hidden}


def _seat_supply(
    rules: Rules, cards: Sequence[int], seat: int, seconds: float, workers: int = 2
) -> list[int]:
    """Per artist, the most of its cards the seat can display over the whole game, as proven by
    CP-SAT in the game model (about ``seconds`` per artist); at most ``_seat_reach``'s count.

    Every real game is a solution of the game model, so these hold in every real game. They are
    often below ``_seat_reach``'s counts, which take each artist's best starters and draws on their
    own: the model knows that drawing needs draw cards played as turns, that every hand must take
    its turns, and where the deck's cards lie. First each count is maximized (up to half of
    ``seconds``); the time that leaves goes to asking, where a gap remains, whether the bound
    itself can be reached: CP-SAT often answers "no" within a second or two, which lowers the bound
    by one."""
    # Without the order of draws: it slows these proofs more than it cuts (3 players, seeds 0 and 1,
    # 3 s per artist: path bounds 341 and 348 without it, 364 and 377 with it).
    m, h = build_model(rules, cards, seat, scoring=False, draw_order=False)
    reach = _seat_reach(rules, cards, seat)["artist"]
    left = seconds * NUM_ARTISTS
    counts, found, most = [], [], []
    for a in range(NUM_ARTISTS):
        kinds = range(a * NUM_SYMBOLS, (a + 1) * NUM_SYMBOLS)
        counts.append(sum(h[what][r][seat][k] for what in ("turn", "sec", "down") for r in range(rules.rounds)
                          for k in kinds))  # fmt: skip
        m.Maximize(counts[a])
        status, solver = _solve_for(m, seconds / 2, workers, rate=SUPPLY_WORK_PER_SECOND)
        left -= _seconds_spent(solver, SUPPLY_WORK_PER_SECOND)
        if status == cp_model.INFEASIBLE:  # a real game always exists: the model would be wrong
            raise AssertionError("the game model has no solution")
        solved = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        found.append(int(solver.ObjectiveValue()) if solved else 0)
        most.append(min(reach[a][-1], int(solver.BestObjectiveBound() + 1e-6) if solved else reach[a][-1]))
    m.ClearObjective()
    for a in sorted(range(NUM_ARTISTS), key=lambda a: found[a] - most[a]):  # widest gap first
        while found[a] < most[a] and left > 0:
            probe = m.Clone()
            probe.Add(counts[a] >= most[a])
            status, solver = _solve_for(probe, min(seconds, left), workers, rate=SUPPLY_WORK_PER_SECOND)
            left -= _seconds_spent(solver, SUPPLY_WORK_PER_SECOND)
            if status == cp_model.INFEASIBLE:
                most[a] -= 1
            elif status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                found[a] = most[a]
            else:
                break
    return most


class _ArtistPaths:
    """The network of ``artist_path_bound`` for one deal (``cards=None``: any deal) and seat.

    A path of an artist is one step per round: (award tokens k it gets, its place j or -1, the
    seat's cards s of it that score). Along the path the DP in ``price`` carries the artist's value
    (its tokens and award tokens apart), the seat's cards of it scored so far and the fewest cards of
    it displayed so far; ``rows`` couple the artists (the master LP's rows, all ``<=``). ``supply``
    (``_seat_supply``) caps the seat's cards of each artist over the game on every path."""

    def __init__(
        self, rules: Rules, cards: Sequence[int] | None, seat: int, supply: Sequence[int] | None = None
    ) -> None:
        n, R, A = rules.players, rules.rounds, NUM_ARTISTS
        self.R, self.P = R, len(rules.value_tokens)
        self.tok, self.av, self.L = rules.value_tokens, rules.award_value, rules.round_limit
        self.reach = reach = _seat_reach(rules, cards, seat)
        for a, most in enumerate(supply or ()):
            reach["artist"][a] = [min(x, most) for x in reach["artist"][a]]
        ex_each = 1 if rules.extra_card_each_round else 0
        first = rules.deals[0] * n
        ends = _received_by(rules)
        if cards is None:
            self.avail = [[sum(rules.deck[a])] * R for a in range(A)]
            self.extra = [[0] * R for _ in range(A)]
        else:
            self.avail = [[sum(artist_of(k) == a for k in cards[:end]) for end in ends] for a in range(A)]
            self.extra = [[int(r == 0 and artist_of(cards[first]) == a) for r in range(R)] for a in range(A)]
        # The fewest cards in hands at a round's start (its own deal, as far as the deck can hold it
        # after every draw), plus an extra card: a round that ends with every hand empty displayed
        # them all, so its first artist has at least a fifth of them; any other round ended at the
        # limit, so its first artist has at least the limit.
        least = [first + 1]
        for r in range(1, R):
            start = ends[r - 1] + ex_each
            least.append(max(0, min(n * rules.deals[r], rules.num_cards - start)) + ex_each)
        self.need = [[min(self.L, -(-x // A))] + [1] * (self.P - 1) for x in least]
        end_plays = 1 if rules.end_of_round_plays else 0
        self.excess = max(2, n) + end_plays * A
        up_max = self.L - 1 + max(2, n) + end_plays
        self.cap = [[min(up_max + reach["hidden"][r], reach["artist"][a][r]) for r in range(R)]
                    for a in range(A)]  # fmt: skip
        names = [("place", r, j) for r in range(R) for j in range(self.P)]
        names += [("order", r, j) for r in range(R) for j in range(1, self.P)]
        names += [(what, r) for what in ("award", "total", "over", "hidden") for r in range(R)]
        self.rows = {name: i for i, name in enumerate(names)}
        limits = {"place": [1] * R, "order": [0] * R, "award": reach["awards"], "total": reach["total"],
                  "over": [self.excess] * R, "hidden": reach["hidden"]}  # fmt: skip
        self.rhs = [float(limits[name[0]][name[1]]) for name in names]

    def column(self, path: Sequence[tuple[int, int, int]]) -> tuple[int, dict[int, float]]:
        """(what the path pays, its coefficients in ``rows``)."""
        coef: dict[int, float] = {}

        def add(name: tuple, c: float) -> None:
            coef[self.rows[name]] = coef.get(self.rows[name], 0.0) + c

        value, pay = 0, 0
        for r, (k, j, s) in enumerate(path):
            value += self.av * k
            for q in range(r, self.R):  # the award and card rows are cumulative
                add(("award", q), k)
                add(("total", q), s)
            if j >= 0:
                value += self.tok[j]
                pay += value * s
                add(("place", r, j), 1)
                if j:  # a place only when the one above it is taken
                    add(("order", r, j), 1)
                if j + 1 < self.P:
                    add(("order", r, j + 1), -1)
                add(("over", r), max(0, s - (self.L - 1)))
        return pay, {i: c for i, c in coef.items() if c}

    def down_column(self, r: int) -> dict[int, float]:
        """The seat's face-down cards of round r: they let its cards pass ``limit - 1``."""
        coef = {self.rows[("over", r)]: -1.0}
        for q in range(r, self.R):
            coef[self.rows[("hidden", q)]] = 1.0
        return coef

    def price(self, a: int, y: Sequence[float]) -> tuple[float, tuple[tuple[int, int, int], ...]]:
        """The path of artist ``a`` of most pay less ``y`` (duals >= 0 of ``rows``) times its
        coefficients: (that reduced pay, the path). A DP over (tokens' value t, award tokens g, the
        seat's cards u, cards displayed c) in numpy arrays."""
        R, P, L, av, rw = self.R, self.P, self.L, self.av, self.rows
        y_award = [sum(y[rw[("award", q)]] for q in range(r, R)) for r in range(R)]
        y_card = [sum(y[rw[("total", q)]] for q in range(r, R)) for r in range(R)]
        y_over = [y[rw[("over", r)]] for r in range(R)]
        y_place = [
            [y[rw[("place", r, j)]] + (y[rw[("order", r, j)]] if j else 0.0)
             - (y[rw[("order", r, j + 1)]] if j + 1 < P else 0.0) for j in range(P)]
            for r in range(R)
        ]  # fmt: skip
        shape = (R * max(self.tok) + 1, max(self.reach["awards"]) + 1,
                 self.reach["artist"][a][R - 1] + 1, self.avail[a][R - 1] + 1)  # fmt: skip
        NT, NG, NU, NC = shape
        value = np.arange(NT)[:, None] + av * np.arange(NG)[None, :]

        def gain(r: int, s: int) -> Any:
            return value * s - y_card[r] * s - y_over[r] * max(0, s - (L - 1))

        def tops(r: int) -> tuple[int, int]:
            """The most seat cards and displayed cards of the artist by the end of round r."""
            return min(NU - 1, self.reach["artist"][a][r]), min(NC - 1, self.avail[a][r])

        def steps(r: int, j: int, u: int, c: int) -> Iterator[tuple[int, int]]:
            """(s, cards displayed) of the cards step from seat cards u and displayed c."""
            x, (top_u, top_c) = self.extra[a][r], tops(r)
            for s in range(min(self.cap[a][r], self.reach["artist"][a][r]) + 1):
                shown = max(s + x, self.need[r][j])
                if u + s <= top_u and c + shown <= top_c:
                    yield s, shown

        later = np.zeros(shape)
        stages: list[tuple] = [None] * R
        for r in reversed(range(R)):
            x, (top_u, top_c) = self.extra[a][r], tops(r)
            after_place = []
            for j in range(P):
                best = np.full(shape, -np.inf)
                for s, shown in steps(r, j, 0, 0):  # from every (u, c) that leaves room for them
                    view = best[:, :, : top_u - s + 1, : top_c - shown + 1]
                    cand = gain(r, s)[:, :, None, None] + later[:, :, s : top_u + 1, shown : top_c + 1]
                    np.maximum(view, cand, out=view)
                after_place.append(best)
            placed = np.full(shape, -np.inf)
            if top_c - x >= 0:  # no place: only the extra card is known to be displayed
                placed[..., : top_c - x + 1] = later[..., x : top_c + 1]
            for j in range(P):
                t = self.tok[j]
                np.maximum(placed[: NT - t], after_place[j][t:] - y_place[r][j], out=placed[: NT - t])
            awarded = np.full(shape, -np.inf)
            g_top = min(NG - 1, self.reach["awards"][r])
            for k in range(g_top + 1):
                view = awarded[:, : g_top + 1 - k]
                np.maximum(view, placed[:, k : g_top + 1] - k * y_award[r], out=view)
            stages[r] = (placed, after_place, later)
            later = awarded
        best_value = float(later[0, 0, 0, 0])
        # the path itself, forward through the stages
        t = g = u = c = 0
        path = []
        for r in range(R):
            placed, after_place, nxt = stages[r]
            g_top = min(NG - 1, self.reach["awards"][r])
            _, k = max((placed[t, g + k, u, c] - k * y_award[r], k) for k in range(g_top + 1 - g))
            g += k
            x = self.extra[a][r]
            options = [(after_place[j][t + self.tok[j], g, u, c] - y_place[r][j], j) for j in range(P)
                       if t + self.tok[j] < NT]  # fmt: skip
            if c + x <= tops(r)[1]:
                options.append((nxt[t, g, u, c + x], -1))
            _, j = max(options)
            if j < 0:
                path.append((k, -1, 0))
                c += x
                continue
            t += self.tok[j]
            _, s, shown = max((float(gain(r, s)[t, g]) + nxt[t, g, u + s, c + shown], s, shown)
                              for s, shown in steps(r, j, u, c))  # fmt: skip
            path.append((k, j, s))
            u, c = u + s, c + shown
        return best_value, tuple(path)


def _path_master(net: _ArtistPaths, max_rounds: int = 500) -> dict[str, Any]:
    """Column generation on the path relaxation: a master LP (GLOP) over the paths found so far,
    and for each artist the path of most reduced pay (``price``) from the master's duals.

    Whatever the duals y >= 0, the Lagrangian y b + sum over artists of their best reduced pay
    (plus the face-down columns' positive reduced costs at their bounds) bounds every choice of one
    path per artist that meets the rows, so it bounds the seat's score; the smallest over the rounds
    is the bound, valid whether or not the generation converged. At convergence it equals the
    master's optimum, the LP optimum over all paths. At most ``max_rounds`` rounds, and no clock, so
    the bound is the same on every machine."""
    from ortools.linear_solver import linear_solver_pb2, pywraplp

    A, R, rows = NUM_ARTISTS, net.R, len(net.rhs)
    down_top = float(net.reach["hidden"][R - 1])
    columns: list[tuple[float, dict[int, float], float, int]] = [
        (0.0, net.down_column(r), down_top, -1) for r in range(R)
    ]
    seen: set[tuple] = set()
    for a in range(A):  # a start every master can take: the artist never places
        path = tuple((0, -1, 0) for _ in range(R))
        columns.append((*net.column(path), 1.0, a))
        seen.add((a, path))
    bound, optimum, converged, iterations = math.inf, 0.0, False, 0
    while iterations < max_rounds:
        iterations += 1
        model = linear_solver_pb2.MPModelProto(maximize=True)
        entries: list[list[tuple[int, float]]] = [[] for _ in range(rows + A)]
        for index, (pay, coef, upper, a) in enumerate(columns):
            model.variable.add(lower_bound=0.0, upper_bound=upper, objective_coefficient=pay)
            for i, c in coef.items():
                entries[i].append((index, c))
            if a >= 0:
                entries[rows + a].append((index, 1.0))
        for i, entry in enumerate(entries):
            lower, upper = (-math.inf, net.rhs[i]) if i < rows else (1.0, 1.0)
            model.constraint.add(
                lower_bound=lower, upper_bound=upper, var_index=[v for v, _ in entry],
                coefficient=[c for _, c in entry],
            )  # fmt: skip
        request = linear_solver_pb2.MPModelRequest(
            model=model, solver_type=linear_solver_pb2.MPModelRequest.GLOP_LINEAR_PROGRAMMING
        )
        response = linear_solver_pb2.MPSolutionResponse()
        pywraplp.Solver.SolveWithProto(request, response)
        if response.status != linear_solver_pb2.MPSOLVER_OPTIMAL:
            raise RuntimeError(f"path LP not solved: status {response.status}")
        optimum = response.objective_value
        y = [max(0.0, d) for d in response.dual_value[:rows]]
        convexity = response.dual_value[rows:]
        lagrangian = sum(yi * b for yi, b in zip(y, net.rhs, strict=True))
        for r in range(R):
            reduced = -sum(y[i] * c for i, c in net.down_column(r).items())
            lagrangian += max(0.0, reduced) * down_top
        added = 0
        for a in range(A):
            value, path = net.price(a, y)
            lagrangian += value
            if value > convexity[a] + 1e-7 and (a, path) not in seen:
                seen.add((a, path))
                columns.append((*net.column(path), 1.0, a))
                added += 1
        bound = min(bound, lagrangian)
        if not added or bound - optimum < 1e-6:
            converged = True
            break
    return {"bound": bound, "optimum": optimum, "converged": converged, "iterations": iterations,
            "columns": len(columns)}  # fmt: skip


def artist_path_bound(
    rules: Rules,
    cards: Sequence[int] | None,
    seat: int = 0,
    max_rounds: int = 500,
    supply_seconds: float = 0.0,
) -> tuple[int, dict[str, Any]]:
    """(proven upper bound, stats) from a relaxation that follows each artist on its own.

    The game model's LP pools the seat's cards across artists: a value token split over several
    artists pays for cards of all of them. Here every artist takes a path through the rounds: in
    each round the award tokens it gets, its place (or none), and the seat's cards of it that score.
    A path pays value x cards for every round in which the artist places, so one artist's value pays
    for that artist's cards only, and a mixture of paths pays a mixture of the same products. Every
    real game gives one path per artist (the seat's cards of an artist outside the top places are
    dropped: that only loosens the limits below). Along its path an artist holds no more award
    tokens than any hand can have played by then, and:

    - the seat scores no more of its cards by the end of round r than it can have received
      (``_seat_reach``: any starters and draws), nor (with ``supply_seconds``, per deal) more over
      the game than it can display in the game model (``_seat_supply``, that many CP-SAT seconds per
      artist), and in one round at most ``limit - 1`` plus the last display's excess plus its
      face-down cards;
    - it is displayed at least the seat's cards plus the extra card in every round, at least one
      card when it places, and, when it places first, at least the limit (the round ended at the
      limit, and the first artist has at least the artist that reached it) or, where a round could
      end with every hand empty, a fifth of the fewest cards the hands hold at its start (all of
      them were displayed); and all the cards of it displayed by the end of round r are no more
      than the cards of it anyone can have received by then (``cards=None``: the deck's).

    The artists are coupled by rows every real game meets:

    - per round each place goes to at most one artist, and a place only when the one above is taken;
    - the award tokens placed by the end of round r are no more than the tokens, nor than the award
      cards any hand can have played by then;
    - the seat scores no more cards in all than it was dealt plus one per draw card it can have
      received (a draw needs the drawing player's own draw card);
    - per round, the seat's cards past ``limit - 1`` are at most the last display's excess (at most
      ``max(2, players)`` over all artists, as in ``build_model``) plus its face-down cards, and it puts
      down no more face-down cards by round r than the hidden cards it can hold by then
      (end-of-round plays add one card per artist).

    So the best choice of one path per artist meeting the rows bounds the seat's score, and so does
    the LP over mixtures of paths, solved by column generation (``_path_master``); the bound is
    its Lagrangian bound, computed from the duals and the paths' DP, so it rests neither on the
    solver's tolerances nor on the generation converging.
    """
    _require_modelled(rules)
    seat, max_rounds = _check_seat(rules, seat), check_int("max_rounds", max_rounds, 1)
    supply_seconds = check_float("supply_seconds", supply_seconds, 0, MAX_TIME_LIMIT)
    start = time.perf_counter()
    stats: dict[str, Any] = {}
    supply = None
    if supply_seconds > 0 and cards is not None:  # over every deal the deck's counts are the most
        supply = _seat_supply(rules, cards, seat, supply_seconds)
        stats.update(path_supply=supply, path_supply_seconds=time.perf_counter() - start)
    master = _path_master(_ArtistPaths(rules, cards, seat, supply), max_rounds)
    bound = int(master["bound"] + 1e-6)
    stats.update(path_lp=master["optimum"], path_bound=bound, path_columns=master["columns"],
                 path_iterations=master["iterations"], path_converged=master["converged"],
                 path_seconds=time.perf_counter() - start)  # fmt: skip
    return bound, stats


def _path_bound_or_none(
    rules: Rules, cards: Sequence[int] | None, seat: int, stats: dict, supply_seconds: float = 0.0
) -> int | None:
    """``artist_path_bound``, its stats added to ``stats``; None (and the reason in ``stats``) where
    the LP solver gives up, so the other bounds still stand."""
    try:
        bound, path_stats = artist_path_bound(rules, cards, seat, supply_seconds=supply_seconds)
    except RuntimeError as error:
        stats["path_lp"] = str(error)
        return None
    stats.update(path_stats)
    return bound


class _Collector(cp_model.CpSolverSolutionCallback):
    """Keeps the plays of the last ``keep`` solutions CP-SAT finds, to be realized into plans."""

    def __init__(self, handles: dict, rules: Rules, keep: int = 6) -> None:
        super().__init__()
        self.handles, self.rules, self.keep = handles, rules, keep
        self.found: list[tuple[int, list[dict[str, Any]]]] = []

    def on_solution_callback(self) -> None:
        self.found.append((int(self.ObjectiveValue()), solution_plays(self, self.handles, self.rules)))
        del self.found[: -self.keep]


def _solve_relaxation(
    m: cp_model.CpModel,
    time_limit: float,
    workers: int,
    callback: cp_model.CpSolverSolutionCallback | None = None,
) -> tuple[cp_model.CpSolver, int, int, int]:
    """Solve a relaxation; returns the solver, its status, the proven bound and the best objective.

    Without a solution (UNKNOWN) CP-SAT's objective bound means nothing, and INFEASIBLE would mean a
    real game violates the model (a bug): both raise.
    """
    status, solver = _solve_for(m, time_limit, workers, callback)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(f"relaxation not solved: {solver.StatusName(status)}")
    return solver, status, int(solver.BestObjectiveBound() + 1e-6), int(solver.ObjectiveValue())


# ---- the oracle API --------------------------------------------------------------------------------


def solve(
    deal: str,
    rules: Rules | None = None,
    seat: int = 0,
    width: int = 64,
    time_limit: float = 10.0,
    exact_positions: int = 0,
) -> OracleResult:
    """The per-deal oracle: ``score`` from a replayed plan, ``bound`` the smaller of the game model's
    (CP-SAT, ``time_limit`` seconds) and ``artist_path_bound``'s (an LP of about a second, after the
    seat's supply per artist with 2 or 3 players: up to ``time_limit / 10`` seconds of CP-SAT each).
    Seconds are those of a 2-core machine, counted as deterministic work (see the module's
    docstring): the result depends on the arguments only.

    With ``exact_positions > 0`` the exhaustive search is tried first (exact, for tiny decks) and its
    optimum is both score and bound when it finishes within that many positions.

    ``width`` is 1 to ``MAX_WIDTH`` and ``time_limit`` above 0 and at most ``MAX_TIME_LIMIT`` (finite:
    every limit binds); anything else is a ValueError naming the parameter, before any search.
    """
    rules = Rules() if rules is None else rules
    _require_modelled(rules)
    seat, width = _check_seat(rules, seat), _check_width(width)
    time_limit = _check_seconds("time_limit", time_limit)
    exact_positions = check_int("exact_positions", exact_positions, 0)
    cards = parse_deal(deal, rules)
    start = time.perf_counter()
    stats: dict[str, Any] = {"variant": rules.variant(), "seat": seat}
    if exact_positions > 0:
        try:
            score, plan = brute_force(rules, deal, seat, exact_positions)
            stats["method"] = "exhaustive"
            return _checked(rules, deal, seat, score, score, plan, start, stats)
        except RuntimeError:
            pass
    score, plan, which = portfolio_search(rules, cards, seat, width)
    stats.update(beam_width=width, beam_valuation=PORTFOLIO[which])
    stats["beam_seconds"] = time.perf_counter() - start
    solutions: list = []
    try:
        bound, _, relax_stats = relaxation_bound(rules, cards, seat, time_limit, plan=plan, collect=solutions)
        relax_stats["game_model_bound"] = bound
    except RuntimeError as error:  # nothing proven in time: the seat-only model's bound instead
        bound, _, relax_stats = seat_round_bound(rules, cards, seat, time_limit)
        relax_stats["game_model"] = str(error)
    stats.update(relax_stats)
    # A tenth of the game model's time per artist for the seat's supply (half as much again). With
    # 4 or 5 players CP-SAT proved no count below the seat's reach in that time (the bench's deals),
    # so it is left out there.
    supply_seconds = time_limit / 10 if rules.players <= 3 else 0.0
    path_bound = _path_bound_or_none(rules, cards, seat, stats, supply_seconds=supply_seconds)
    if path_bound is not None:
        bound = min(bound, path_bound)
    stats["plan_source"] = "beam"
    # The relaxation's best solutions, played out through the engine: where the order of plays can
    # be found, the plan scores what the solution does; else (after planning again once from there)
    # a beam goes on from the first round that could not be realized. Realizing gets a third of the
    # relaxation's time (the seat's supply took up to half), planning again a sixth; two thirds where
    # a solution meets the bound, since realizing one proves the plan optimal.
    at_bound = any(objective >= bound for objective, _ in solutions)
    shared = _Positions(time_limit * (2 / 3 if at_bound else 1 / 3) * POSITIONS_PER_SECOND)
    replan = True  # once, for the best solution that cannot be realized to the end (a sixth more time)
    for objective, plays in sorted(solutions, key=lambda item: -item[0]):
        if objective <= score or shared.left <= 0:
            break
        reached = realize(rules, cards, plays, shared=shared)
        if not reached.done and replan:
            replan = False
            shared.left += int(time_limit / 6 * POSITIONS_PER_SECOND)
            reached = replanned(rules, cards, seat, reached, time_limit / 6, shared=shared)
        narrow = max(8, width // 2)
        found, line, how = _played_out(rules, cards, seat, reached, narrow, [PORTFOLIO[which]])
        if found > score:
            score, plan = found, line
            stats["plan_source"] = f"relaxation {how}"
    stats["method"] = "beam and realized relaxation plans; smaller of the game model and artist path bounds"
    if bound < score:  # a proven bound below a replayed plan can only be a bug in the model
        raise AssertionError(f"relaxation bound {bound} below the plan's {score}: the model is wrong")
    return _checked(rules, deal, seat, score, bound, plan, start, stats)


def _checked(
    rules: Rules, deal: str, seat: int, score: int, bound: int, plan, start: float, stats
) -> OracleResult:  # noqa: ANN001
    final = replay(rules, deal, plan)
    if not final.done or final.scores[seat] != score:
        raise AssertionError(f"plan replays to {final.scores[seat]}, claimed {score}")
    return OracleResult(
        score=score, bound=bound, plan=tuple(plan), seconds=time.perf_counter() - start, stats=stats
    )


def check(deal: str, result: OracleResult, rules: Rules | None = None, seat: int = 0) -> bool:
    """True when the result's plan replays through the engine to its score."""
    rules = Rules() if rules is None else rules
    try:
        final = replay(rules, deal, result.plan)
    except (ValueError, TypeError):
        return False
    return final.done and final.scores[seat] == result.score <= result.bound


def solve_cached(
    deal: str, rules: Rules | None = None, seat: int = 0, cache: OracleCache | None = None, **options: Any
) -> OracleResult:  # noqa: E501
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    rules = Rules() if rules is None else rules
    if not isinstance(deal, str):
        raise TypeError(f"a deal must be a string of two-character cards, got {type(deal).__name__}")
    cache = cache if cache is not None else OracleCache()
    options_key = "_".join(f"{k}{v}" for k, v in sorted(options.items()))
    variant = f"{rules.variant()}_seat{seat}_r{ORACLE_REVISION}_{options_key}"
    return cache.solve(
        GAME,
        variant,
        deal.strip(),
        lambda: solve(deal, rules, seat, **options),
        lambda r: check(deal, r, rules, seat),
    )


# ---- per player count: the highest score over all deals ------------------------------------------


def free_deal_bound(
    rules: Rules,
    time_limit: float = 30.0,
    plan: Sequence[int] | None = None,
    plan_deal: str | None = None,
    collect: list | None = None,
) -> tuple[int, int, dict[str, Any]]:
    """A proven upper bound on any seat's score over every deal: the smallest of the three
    relaxations' proven bounds with free cards (``time_limit`` seconds for each CP-SAT model).
    Returns (bound, the game model's best objective, stats); that objective is the relaxation's, not
    a played score. ``plan`` (a game of ``plan_deal``) hints the search; ``collect`` receives the game
    model's last solutions, as in ``relaxation_bound``."""
    time_limit = _check_seconds("time_limit", time_limit)
    hint_deal = parse_deal(plan_deal, rules) if plan_deal is not None else None
    game_bound, objective, stats = relaxation_bound(
        rules, None, 0, time_limit, plan=plan, plan_deal=hint_deal, collect=collect
    )
    seat_bound, _, seat_stats = seat_round_bound(rules, None, 0, time_limit)
    stats.update(seat_stats)
    stats["game_model_bound"] = game_bound
    bounds = [game_bound, seat_bound, _path_bound_or_none(rules, None, 0, stats)]
    return min(b for b in bounds if b is not None), objective, stats


def stacked_deal(rules: Rules, seed: int, seat: int = 0) -> str:
    """A deal stacked for ``seat``: its first hand holds the award and hidden cards and the rest of it
    cards of a few artists (chosen at random by ``seed``); the other hands get the other artists'
    cards, and the deck the favourites first. A start for the free-deal search, not a claim of optimality."""
    seat, seed = _check_seat(rules, seat), check_int("seed", seed, 0)
    rng = make_rng(seed)
    n, h = rules.players, rules.deals[0]
    pool = rules.cards()
    rng.shuffle(pool)
    favourite = [int(a) for a in rng.permutation(NUM_ARTISTS)[: int(rng.integers(1, 4))]]
    noise = rng.random(len(pool))

    def rank(i: int) -> tuple:
        k = pool[i]
        symbol = symbol_of(k)
        if symbol in (AWARD, HIDDEN):
            return (0, noise[i])
        return (1 if artist_of(k) in favourite else 2 if symbol in (DOUBLE, DRAW) else 3, noise[i])

    order = sorted(range(len(pool)), key=rank)
    mine = [pool[i] for i in order[:h]]
    rest = [pool[i] for i in order[h:]]
    # the other hands get the other artists' cards; the deck then holds the favourites first, for
    # the later deals and draws
    rest.sort(key=lambda k: artist_of(k) in favourite)
    others = rest[: (n - 1) * h]
    later = sorted(rest[(n - 1) * h :], key=lambda k: artist_of(k) not in favourite)
    hands, it = [], iter(others)
    for p in range(n):
        hands.append(mine if p == seat else [next(it) for _ in range(h)])
    return arrange_deal(hands, later[0], later[1:])


def free_deal_search(
    rules: Rules, deals: int = 8, width: int = 32, seed: int = 0
) -> tuple[int, str, tuple[int, ...]]:
    """The best seat-0 plan found over ``deals`` stacked deals (and as many shuffled ones):
    (score, deal, plan), replayed through the engine."""
    deals, width = check_int("deals", deals, 1, MAX_FREE_DEALS), _check_width(width)
    seed = check_int("seed", seed, 0)
    best = (-1, "", ())
    for i in range(deals):
        for deal in (stacked_deal(rules, seed + i), random_deal(rules, seed + i)):
            score, plan, _ = portfolio_search(rules, deal, 0, width)
            if score > best[0]:
                best = (score, deal, plan)
    final = replay(rules, best[1], best[2])
    if final.scores[0] != best[0]:
        raise AssertionError("free-deal plan does not replay to its score")
    return best


def free_deal(
    rules: Rules,
    deals: int = 8,
    width: int = 32,
    time_limit: float = 30.0,
    seed: int = 0,
    realized: int = 4,
    node_limit: int = 100_000,
) -> dict[str, Any]:
    """The free-deal oracle for seat 0: the best plan found and a proven bound over every deal.

    Plans come from beam searches on stacked and shuffled deals (``free_deal_search``) and from the
    free-deal model's best solutions (``realized`` of them), each made into a deal and a game by
    ``realize_free`` (``node_limit`` positions per round); where a round cannot be realized, a beam
    plays on from it. The model's search is hinted with the best beam plan. Every plan is replayed
    through the engine on its deal. Returns a dict with "score", "deal", "plan", "bound",
    "relaxation_objective", "plan_source" and "stats".
    """
    deals, width = check_int("deals", deals, 1, MAX_FREE_DEALS), _check_width(width)
    time_limit, seed = _check_seconds("time_limit", time_limit), check_int("seed", seed, 0)
    realized, node_limit = check_int("realized", realized, 0), check_int("node_limit", node_limit, 1)
    score, deal, plan = free_deal_search(rules, deals, width, seed)
    source = "beam on a stacked or shuffled deal"
    solutions: list = []
    bound, objective, stats = free_deal_bound(rules, time_limit, plan=plan, plan_deal=deal, collect=solutions)
    for found, plays in sorted(solutions, key=lambda item: -item[0])[:realized]:
        if found <= score:
            break
        reached, cards = realize_free(rules, plays, node_limit)
        got, line, how = _played_out(rules, cards, 0, reached, width, PORTFOLIO)
        if got > score:
            score, deal, plan, source = got, deal_string(cards), line, f"free-deal model {how}"
    final = replay(rules, deal, plan)
    if not final.done or final.scores[0] != score:
        raise AssertionError(f"free-deal plan replays to {final.scores[0]}, claimed {score}")
    if bound < score:
        raise AssertionError(f"free-deal bound {bound} below the plan's {score}: the model is wrong")
    return {
        "score": score, "deal": deal, "plan": plan, "bound": bound, "relaxation_objective": objective,
        "plan_source": source, "stats": stats,
    }  # fmt: skip


__all__ = [
    "beam_search", "portfolio_search", "brute_force", "build_model", "relaxation_bound", "seat_round_bound",
    "artist_path_bound",
    "solve", "solve_cached", "check", "free_deal_bound", "free_deal_search", "stacked_deal", "free_deal",
    "realize", "realize_free",
]  # fmt: skip

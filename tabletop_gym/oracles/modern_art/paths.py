"""The artist-path LP: each artist's path of values and the seat's cards, by column generation."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tabletop_gym.core import check_float, check_int
from tabletop_gym.envs.modern_art.rules import (
    NUM_ARTISTS,
    ModernArtRules,
    artist_of,
)
from tabletop_gym.oracles.modern_art.bounds import _seat_supply
from tabletop_gym.oracles.modern_art.common import MAX_TIME_LIMIT, _check_seat, _require_modelled
from tabletop_gym.oracles.modern_art.model import _received_by, _seat_reach


class _ArtistPaths:
    """The network of ``artist_path_bound`` for one deal (``cards=None``: any deal) and seat.

    A path of an artist is one step per round: (award tokens k it gets, its place j or -1, the
    seat's cards s of it that score). Along the path the DP in ``price`` carries the artist's value
    (its tokens and award tokens apart), the seat's cards of it scored so far and the fewest cards of
    it displayed so far; ``rows`` couple the artists (the master LP's rows, all ``<=``). ``supply``
    (``_seat_supply``) caps the seat's cards of each artist over the game on every path."""

    def __init__(
        self,
        rules: ModernArtRules,
        cards: Sequence[int] | None,
        seat: int,
        supply: Sequence[int] | None = None,
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
    rules: ModernArtRules,
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
    rules: ModernArtRules, cards: Sequence[int] | None, seat: int, stats: dict, supply_seconds: float = 0.0
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

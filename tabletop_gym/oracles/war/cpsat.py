"""CP-SAT models of the first T tricks of War: the most cards player 0 can hold after T tricks of a
given deal (player 0 orders its pots), and free-deal queries (a deal whose first tricks follow a
pattern, a deal with the most wars), both players on fixed conventions for the latter.

The model is indexed by *turns*, not by positions of a pile: turn k is the k-th card each player puts
on the table (face up or face down). While no war is short (a player with too few cards to put
``face_down`` cards down), both players put the same number of cards on the table in every trick,
so their k-th cards meet at the same moment. A pile is then a queue whose k-th card is the k-th card
its owner turns: ``X[p][k]`` is both. The first ``n_p`` are the dealt pile; a won pot's cards go to
slots ``n_p + 2 * (turns of the tricks p won before) + ...`` by element constraints (a convention
fixes each card's slot; player 0's slots are a free permutation of the pot, AllDifferent).
Per turn: face up or down, equal or higher, trick start and end, tricks done, turns won so far.
About 40 variables per turn, a few thousand in all for T = 26 on the full deck.

What the model does not follow exactly it treats optimistically, so the solver's bound stays a bound
on every play: a short war (except one that leaves player 0 without cards: that one is exact), or a
play that needs more turns than the model holds, counts as player 0 taking every card. A plan is
read off the solution, replayed through the engine, and its replayed count is the score; the bound is
CP-SAT's proven objective bound (equal when the search finished). When the best solution is an
optimistic one, ``solve_horizon_cpsat`` looks for a real plan in a model with more turns and no short
war, then tightens the bound once more (see there).

Conventions covered: ``winner_first`` and ``loser_first`` (a pot's slots are linear in the turns);
``high_first`` (a sort) and ``random`` are refused with a ValueError.

Limits are work, never a clock: ``time_limit`` is seconds of a 2-core machine, counted as CP-SAT's
deterministic time (``WORK_PER_SECOND``, its search interleaved on a fixed number of workers) and
the terms of each model built (``model_terms``, known before building, so a model too large for what
is left is refused rather than started). The same call gives the same bound and plan on every run
and machine, loaded or idle; a faster machine only finishes sooner. CP-SAT checks its limit between
steps of its search, so a solve can run past it (seed 25 below with ``time_limit=0.5``: 1.3 units
where 0.37 were left), but by the same amount every time.

Measured (full deck, T = 26, ``random_deal(seed)``, 2 workers on the shared 2-core machine): with
``time_limit=10``, seeds 1-12 all proven optimal, median 0.14 CPU s (0.05 s of work), slowest 18 CPU
s (8.5 s of work): the slow ones are the deals where player 0 can take every card within the horizon
(a first model's best is optimistic, a second one finds the real plan); seed 25 stays at 38 cards
with a bound of 52 (the horizon search does not finish it either). Earlier, with wall-clock limits,
29 of seeds 1-30 were proven within 60 s. T = 3 takes about 0.05 s. The free-deal models make every
dealt card a variable (52 x 13 booleans).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from tabletop_gym.core import OracleResult, check_float, check_int, cp_solve
from tabletop_gym.envs.war.rules import (
    DEFAULT_RULES,
    Deal,
    WarRules,
    WarState,
    convention_order,
    deal_from_piles,
    parse_deal,
    replay,
)
from tabletop_gym.oracles.war.limits import MAX_MODEL_TRICKS, MAX_MODEL_TURNS, WarLimits
from tabletop_gym.oracles.war.search import plan_for_orders

MODEL_PICKUPS = ("winner_first", "loser_first")  # conventions whose pot order is linear in the turns


# Limits are work, not clocks: a clock would make bounds and plans depend on the machine and its load.
# ``time_limit`` is seconds of a 2-core machine, and each part of a call is charged by a count of what
# it did, converted at these rates, so the same call gives the same bound and plan on every run and
# machine (with the same OR-Tools); a faster machine only finishes sooner.
#
# CP-SAT: deterministic time per second, with the search interleaved on ``workers`` workers (as the
# Modern Art oracle runs it). Measured here on the horizon models of the full deck at T = 26 (seeds
# 1-12, the solves that ran over 0.5 units), per second of both cores busy (CPU seconds / 2, as the
# shared machine's load made its wall clock 3 times that): 0.7-1.2 units a second, most near 0.75.
WORK_PER_SECOND = 0.8
# Building a model: terms (``model_terms``) per second; measured here on the full deck's horizon
# models of 50 to 1,000 turns (building is single-threaded): 1.2-2.1 million terms a CPU second, so
# a second is counted as a million (on the safe side: a limit is not overrun by building).
BUILD_TERMS_PER_SECOND = 1_000_000
TERMS_PER_TURN = 400  # about 55 variables and 90 constraints a turn, weighed as element entries
FLAG_TERMS_PER_TURN = 40  # what a pattern's constrained trick adds per turn of the model, likewise
# The horizon search of ``solve_horizon_best``: positions per second (20,000 positions took 0.8 CPU s
# on seed 25's 26 tricks; positions with many pot orders to branch on cost more).
SEARCH_NODES_PER_SECOND = 20_000


class _OutOfWork(Exception):
    """A model would take more work to build than the time limit has left."""

    def __init__(self, needed: float, left: float) -> None:
        super().__init__(f"{needed:.3g} s of work needed, {max(left, 0.0):.3g} s left")
        self.needed, self.left = needed, left

    def __reduce__(self) -> tuple[type, tuple[float, float]]:
        return (type(self), (self.needed, self.left))  # picklable, as every error of the package


class _Work:
    """What is left of a ``time_limit`` (seconds of a 2-core machine), charged by counts, never by a
    clock: model terms built, CP-SAT's deterministic time, search positions."""

    def __init__(self, seconds: float) -> None:
        self.limit, self.left = float(seconds), float(seconds)

    @property
    def spent(self) -> float:
        return self.limit - self.left

    def charge(self, seconds: float) -> None:
        self.left -= seconds

    def build(self, terms: int) -> None:
        """Charge the building of a model of ``terms`` terms, or raise ``_OutOfWork`` (before anything
        is built) when that is more than is left."""
        needed = terms / BUILD_TERMS_PER_SECOND
        if needed > self.left:
            raise _OutOfWork(needed, self.left)
        self.charge(needed)

    def solve(self, m: cp_model.CpModel, workers: int) -> tuple[cp_model.CpSolver, int]:
        """CP-SAT on ``m`` within what is left, as deterministic time, then charged what it used."""
        solver = cp_model.CpSolver()
        solver.parameters.max_deterministic_time = max(0.01, self.left * WORK_PER_SECOND)
        solver.parameters.num_workers = workers
        # Several workers are deterministic only when interleaved (the Modern Art oracle's choice too).
        solver.parameters.interleave_search = True
        status = cp_solve(solver, m)
        self.charge(solver.ResponseProto().deterministic_time / WORK_PER_SECOND)
        return solver, status


def model_terms(turns: int, sizes: tuple[int, int], deal_bits: int = 0) -> int:
    """The terms a ``_Turns`` model of ``turns`` turns is counted as (its building work): the element
    entries of the pots (``2 x turns`` element constraints of ``3 x turns`` entries each, for a player
    whose dealt pile is shorter than the model), ``TERMS_PER_TURN`` a turn, and twice a free deal's
    ``deal_bits`` (cards x ranks booleans). Known before building, so a model too large for what is
    left of the limit is never started."""
    elements = sum(6 * turns * turns for n in sizes if n < turns)
    return elements + TERMS_PER_TURN * turns + 2 * deal_bits


def _check_model_tricks(name: str, tricks: object) -> int:
    value = check_int(name, tricks, 1)
    assert value is not None
    if value > MAX_MODEL_TRICKS:
        raise ValueError(f"{name}: the CP-SAT model covers 1 to {MAX_MODEL_TRICKS} tricks, got {value}")
    return value


class _Turns:
    """The turn-indexed model (see the module docstring), built section by section: the cards, each
    turn's faces, the game flow, the trick ends, the pots into queues, the outcomes."""

    def __init__(
        self,
        rules: WarRules,
        tricks: int,
        turns: int,
        piles: Sequence[Sequence[int]] | None,
        sizes: tuple[int, int],
        player0_chooses: bool,
        optimistic: bool,
    ) -> None:
        if rules.pickup not in MODEL_PICKUPS:
            raise ValueError(
                f"the CP-SAT model covers pickup conventions {MODEL_PICKUPS}, not {rules.pickup!r}"
            )
        self.rules, self.T, self.K = rules, tricks, turns
        self.n = sizes
        self.m = cp_model.CpModel()
        self._cards(piles)
        self._faces()
        self._flow()
        self._trick_ends()
        self._pots(player0_chooses)
        self._outcomes(optimistic)

    def _both(self, a: cp_model.IntVar, b: cp_model.IntVar, name: str) -> cp_model.IntVar:
        """A Boolean equal to ``a`` and ``b``."""
        m = self.m
        c = m.NewBoolVar(name)
        m.AddBoolAnd([a, b]).OnlyEnforceIf(c)
        m.AddBoolOr([a.Not(), b.Not()]).OnlyEnforceIf(c.Not())
        return c

    def _when(self, cond: bool, name: str) -> cp_model.IntVar:
        """A Boolean fixed to ``cond`` (known when the deal is)."""
        c = self.m.NewBoolVar(name)
        self.m.Add(c == int(cond))
        return c

    def _cards(self, piles: Sequence[Sequence[int]] | None) -> None:
        """Cards: X[p][k] is player p's k-th card on the table (and the k-th card of p's queue); a
        dealt card is known, or, in a free deal, a variable with one Boolean per rank."""
        m, K, R = self.m, self.K, self.rules.ranks
        self.X: list[list] = [[], []]
        self.deal_bits: list[list[list]] = [[], []]
        for p in (0, 1):
            for k in range(K):
                if piles is not None and k < self.n[p]:
                    self.X[p].append(int(piles[p][k]))
                else:
                    self.X[p].append(m.NewIntVar(0, R - 1, f"x{p}_{k}"))
        if piles is None:  # a free deal: every dealt card a variable, each rank `suits` times
            for p in (0, 1):
                for k in range(self.n[p]):
                    bits = [m.NewBoolVar(f"d{p}_{k}_{v}") for v in range(R)]
                    m.AddExactlyOne(bits)
                    if k < K:
                        m.Add(self.X[p][k] == sum(v * b for v, b in enumerate(bits)))
                    self.deal_bits[p].append(bits)
            for v in range(R):
                m.Add(sum(bits[v] for p in (0, 1) for bits in self.deal_bits[p]) == self.rules.suits)

    def _faces(self) -> None:
        """Per turn: the two cards equal or player 0's higher, the turn face up, a war, a trick end."""
        m, fd = self.m, self.rules.face_down
        B = m.NewBoolVar
        self.eq: list = []
        self.gt: list = []
        self.up: list = []
        self.war: list = []
        self.endt: list = []
        for k in range(self.K):
            x0, x1 = self.X[0][k], self.X[1][k]
            if isinstance(x0, int) and isinstance(x1, int):
                e, g = self._when(x0 == x1, f"eq{k}"), self._when(x0 > x1, f"gt{k}")
            else:
                e, g = B(f"eq{k}"), B(f"gt{k}")
                m.Add(x0 == x1).OnlyEnforceIf(e)
                m.Add(x0 != x1).OnlyEnforceIf(e.Not())
                m.Add(x0 > x1).OnlyEnforceIf(g)
                m.Add(x0 <= x1).OnlyEnforceIf(g.Not())
            u = B(f"up{k}")
            if k == 0:
                m.Add(u == 1)
            else:
                # Face up after a trick ended, or fd face-down cards after a war (never both).
                m.Add(u == self.endt[k - 1] + (self.war[k - fd - 1] if k - fd - 1 >= 0 else 0))
            self.eq.append(e)
            self.gt.append(g)
            self.up.append(u)
            self.war.append(self._both(u, e, f"war{k}"))
            self.endt.append(self._both(u, e.Not(), f"end{k}"))

    def _flow(self) -> None:
        """Game flow: pre[k] the game reaches turn k inside the horizon; live[k] turn k is played;
        st[k] the turn its trick started at; tc[k] the tricks done before it; G[p][k] the turns of the
        tricks p won before it."""
        m = self.m
        self.pre = [m.NewBoolVar("pre0")]
        m.Add(self.pre[0] == 1)
        self.tc = [m.NewConstant(0)]
        self.G = [[m.NewConstant(0)], [m.NewConstant(0)]]
        self.st: list = []
        self.live: list = []
        self.le: list = []  # the turn is played and ends its trick
        self.wk: list[list] = [[], []]  # the turn is played and ends a trick p wins
        self._losses: list = []
        self._wins: list = []
        self._escapes: list = []
        self._lasts: list = []
        for k in range(self.K):
            self._turn(k)

    def _turn(self, k: int) -> None:
        """Turn k of the flow: its trick's start, whether a pile is empty (the game ends: won or lost),
        a short war, the trick count and who gains the trick's turns."""
        m, n = self.m, self.n
        B = m.NewBoolVar
        s = m.NewIntVar(0, k, f"st{k}")
        if k == 0:
            m.Add(s == 0)
        else:
            m.Add(s == k).OnlyEnforceIf(self.endt[k - 1])
            m.Add(s == self.st[k - 1]).OnlyEnforceIf(self.endt[k - 1].Not())
        self.st.append(s)
        out = []
        for p in (0, 1):
            o = B(f"out{p}_{k}")  # p's pile is empty (meaningful on a face-up turn)
            m.Add(n[p] + 2 * self.G[p][k] <= k).OnlyEnforceIf(o)
            m.Add(n[p] + 2 * self.G[p][k] >= k + 1).OnlyEnforceIf(o.Not())
            out.append(o)
        anyout = B(f"anyout{k}")
        m.AddMaxEquality(anyout, out)
        ended = B(f"ended{k}")
        m.AddMultiplicationEquality(ended, [self.pre[k], self.up[k], anyout])
        lv = B(f"live{k}")
        m.Add(lv == self.pre[k] - ended)
        ls, wn = B(f"lose{k}"), B(f"win{k}")
        m.AddMultiplicationEquality(ls, [ended, out[0]])
        m.Add(wn == ended - ls)
        es, sl = self._short_war(k, lv)
        la = self._trick_done(k, lv, s)
        nxt = B(f"pre{k + 1}")
        m.Add(nxt == lv - es - la - sl)
        self.pre.append(nxt)
        self.live.append(lv)
        self._losses.extend((ls, sl))
        self._wins.append(wn)
        self._escapes.append(es)
        self._lasts.append(la)

    def _short_war(self, k: int, lv: cp_model.IntVar) -> tuple[cp_model.IntVar, cp_model.IntVar]:
        """A war on played turn k that runs short (the turns of the players fall out of step): (taken
        optimistically, exactly a loss of player 0; see ``_short_loss``)."""
        m, n, fd = self.m, self.n, self.rules.face_down
        B = m.NewBoolVar
        shorts = []
        for p in (0, 1) if fd > 0 else ():
            sh = B(f"short{p}_{k}")  # after its face-up card p holds at most fd cards
            m.Add(n[p] + 2 * self.G[p][k] - k - 1 <= fd).OnlyEnforceIf(sh)
            m.Add(n[p] + 2 * self.G[p][k] - k - 1 >= fd + 1).OnlyEnforceIf(sh.Not())
            shorts.append(sh)
        anyshort = B(f"anyshort{k}")
        if shorts:
            m.AddMaxEquality(anyshort, shorts)
        else:
            m.Add(anyshort == 0)
        risky = B(f"risky{k}")  # a war runs short: the turns of the players fall out of step
        m.AddMultiplicationEquality(risky, [lv, self.war[k], anyshort])
        sl = self._short_loss(k, risky, shorts)
        es = B(f"esc{k}")
        m.Add(es == risky - sl)
        return es, sl

    def _short_loss(self, k: int, risky: cp_model.IntVar, shorts: list) -> cp_model.IntVar:
        """Player 0 alone runs short and its last card does not beat player 1's: player 0 is out of
        cards after this trick (a loss, or a draw if player 1 is out too), so it holds none at the
        horizon. Every other short war is taken optimistically."""
        m, fd, K = self.m, self.rules.face_down, self.K
        B = m.NewBoolVar
        sl = B(f"shortloss{k}")
        if not (fd > 0 and k + fd + 1 < K):
            m.Add(sl == 0)
            return sl
        after = self.n[0] + 2 * self.G[0][k] - k - 1  # player 0's cards after its face-up card
        zero = B(f"zero{k}")
        m.Add(after <= 0).OnlyEnforceIf(zero)
        m.Add(after >= 1).OnlyEnforceIf(zero.Not())
        t = m.NewIntVar(1, fd, f"lastat{k}")
        m.Add(t == after).OnlyEnforceIf([shorts[0], zero.Not()])
        last0 = m.NewIntVar(0, self.rules.ranks - 1, f"last0_{k}")
        m.AddElement(t - 1, self.X[0][k + 1 : k + fd + 1], last0)
        beaten = B(f"beaten{k}")
        m.Add(last0 <= self.X[1][k + fd + 1]).OnlyEnforceIf(beaten)
        m.Add(last0 > self.X[1][k + fd + 1]).OnlyEnforceIf(beaten.Not())
        loses = B(f"loses{k}")
        m.AddMaxEquality(loses, [zero, beaten])
        lits = [risky, shorts[0], shorts[1].Not(), loses]
        m.AddBoolAnd(lits).OnlyEnforceIf(sl)
        m.AddBoolOr([x.Not() for x in lits]).OnlyEnforceIf(sl.Not())
        return sl

    def _trick_done(self, k: int, lv: cp_model.IntVar, s: cp_model.IntVar) -> cp_model.IntVar:
        """A trick that ends on played turn k: counted, and its turns (k + 1 - start) gained by its
        winner. Returns "the horizon's last trick ends here"."""
        m, K = self.m, self.K
        B = m.NewBoolVar
        lek = self._both(lv, self.endt[k], f"le{k}")
        final = B(f"final{k}")  # tc[k] == T - 1
        m.Add(self.tc[k] == self.T - 1).OnlyEnforceIf(final)
        m.Add(self.tc[k] != self.T - 1).OnlyEnforceIf(final.Not())
        la = self._both(lek, final, f"last{k}")
        w0 = self._both(lek, self.gt[k], f"wk0_{k}")
        w1 = B(f"wk1_{k}")
        m.Add(w1 == lek - w0)
        nxt_tc = m.NewIntVar(0, self.T, f"tc{k + 1}")
        m.Add(nxt_tc == self.tc[k] + lek)
        self.tc.append(nxt_tc)
        for p, w in ((0, w0), (1, w1)):
            g = m.NewIntVar(0, K, f"G{p}_{k + 1}")
            m.Add(g == self.G[p][k] + k + 1 - s).OnlyEnforceIf(w)
            m.Add(g == self.G[p][k]).OnlyEnforceIf(w.Not())
            self.G[p].append(g)
            self.wk[p].append(w)
        self.le.append(lek)
        return la

    def _trick_ends(self) -> None:
        """Backward: each turn's trick end (K when it does not end inside the model) and who won it."""
        m, K = self.m, self.K
        self.en: list = [None] * K
        self.won: list[list] = [[None] * K, [None] * K]
        en, won, endt = self.en, self.won, self.endt
        for k in reversed(range(K)):
            e = m.NewIntVar(k, K, f"en{k}")
            m.Add(e == k).OnlyEnforceIf(endt[k])
            m.Add(e == (en[k + 1] if k + 1 < K else K)).OnlyEnforceIf(endt[k].Not())
            en[k] = e
            for p in (0, 1):
                w = m.NewBoolVar(f"won{p}_{k}")
                m.Add(w == self.wk[p][k]).OnlyEnforceIf(endt[k])
                m.Add(w == (won[p][k + 1] if k + 1 < K else 0)).OnlyEnforceIf(endt[k].Not())
                won[p][k] = w

    def _pots(self, player0_chooses: bool) -> None:
        """Pots into queues. dest(p, q, j): the slot of p's queue that X[q][j] goes to when p wins it
        (by the convention; player 0's, when it chooses, a free permutation of the pot)."""
        m, K, n, rules = self.m, self.K, self.n, self.rules
        dummy = [[m.NewIntVar(0, rules.ranks - 1, f"dummy{p}_{i}") for i in range(2 * K)] for p in (0, 1)]
        self.r0: list[list] = [[None] * K, [None] * K]
        all_r0 = []
        for j in range(K):  # the element constraints make this loop grow with the square of K
            length = self.en[j] - self.st[j] + 1
            for p in (0, 1):
                base = n[p] + 2 * self.G[p][j]
                chooses = p == 0 and player0_chooses
                first = p if rules.pickup == "winner_first" else 1 - p  # whose cards go first
                for q in (0, 1):
                    sentinel = K + 2 * j + q
                    if chooses:
                        r = m.NewIntVar(n[0], n[0] + 5 * K + 2, f"r{q}_{j}")
                        m.Add(r >= base).OnlyEnforceIf(self.won[0][j])
                        m.Add(r <= base + 2 * length - 1).OnlyEnforceIf(self.won[0][j])
                        m.Add(r == n[0] + 2 * K + sentinel).OnlyEnforceIf(self.won[0][j].Not())
                        self.r0[q][j] = r
                        all_r0.append(r)
                        real, use = r, m.NewBoolVar(f"fit{p}{q}_{j}")
                        m.Add(r <= K - 1).OnlyEnforceIf(use)
                        m.Add(r >= K).OnlyEnforceIf(use.Not())
                    else:
                        real = base + j - self.st[j] + (0 if q == first else length)
                        fits = m.NewBoolVar(f"fits{p}{q}_{j}")
                        m.Add(real <= K - 1).OnlyEnforceIf(fits)
                        m.Add(real >= K).OnlyEnforceIf(fits.Not())
                        use = self._both(self.won[p][j], fits, f"use{p}{q}_{j}")
                    if n[p] >= K:
                        continue  # no slot beyond the dealt pile is ever turned inside the model
                    idx = m.NewIntVarFromDomain(
                        cp_model.Domain.FromIntervals([[n[p], K - 1], [sentinel, sentinel]]),
                        f"e{p}{q}_{j}",
                    )
                    m.Add(idx == real).OnlyEnforceIf(use)
                    m.Add(idx == sentinel).OnlyEnforceIf(use.Not())
                    m.AddElement(idx, self.X[p] + dummy[p], self.X[q][j])
        if all_r0:
            m.AddAllDifferent(all_r0)

    def _outcomes(self, optimistic: bool) -> None:
        """Outcomes: exactly one of horizon reached, player 0 out, player 1 out, short war, overflow;
        the cards player 0 holds at the end (every card, optimistically, after a short war or an
        overflow; without ``optimistic`` those two are ruled out)."""
        m, K, N = self.m, self.K, self.rules.num_cards
        B = m.NewBoolVar
        self.done, self.lose, self.win = B("done"), B("lose"), B("win")
        self.esc, self.over = B("esc"), self.pre[K]
        m.Add(self.done == sum(self._lasts))
        m.Add(self.lose == sum(self._losses))
        m.Add(self.win == sum(self._wins))
        m.Add(self.esc == sum(self._escapes))
        m.Add(self.done + self.lose + self.win + self.esc + self.over == 1)
        if not optimistic:
            m.Add(self.esc == 0)
            m.Add(self.over == 0)
        self.played = sum(self.live)
        self.held = m.NewIntVar(0, N, "held")
        m.Add(self.held == self.n[0] + 2 * self.G[0][K] - self.played).OnlyEnforceIf(self.done)
        m.Add(self.held == N).OnlyEnforceIf(self.win)
        m.Add(self.held == 0).OnlyEnforceIf(self.lose)
        m.Add(self.held == N).OnlyEnforceIf(self.esc)
        m.Add(self.held == N).OnlyEnforceIf(self.over)
        self.wars = sum(self._both(self.live[k], self.war[k], f"lw{k}") for k in range(K))

    def pot_orders(self, solver: cp_model.CpSolver) -> list[tuple[int, ...]]:
        """Player 0's pots in the order taken, each as its cards sorted by their slots."""
        orders = []
        K = self.K
        for k in range(K):
            if solver.Value(self.le[k]) and solver.Value(self.gt[k]):
                a = solver.Value(self.st[k])
                cards = []
                for j in range(a, k + 1):
                    for q in (0, 1):
                        x = self.X[q][j]
                        cards.append(
                            (solver.Value(self.r0[q][j]), x if isinstance(x, int) else solver.Value(x))
                        )
                orders.append(tuple(rank for _, rank in sorted(cards)))
        return orders


def _engine_turns(deal: Deal, rules: WarRules, tricks: int) -> tuple[int, int]:
    """(turns, wars) of the first ``tricks`` tricks with both players on the convention."""
    state = WarState.start(deal, rules)
    for _ in range(tricks):
        if state.done or state.play_trick() is None:
            break
        state.place_all(convention_order(state.pots, state.taker, rules.pickup, None))
    return state.turned[0], state.wars


def trick_pattern(deal: Deal | str, rules: WarRules, tricks: int) -> list[str]:
    """The first ``tricks`` tricks with both players on the convention, by the engine: one token per
    completed trick, ``w`` or ``n`` (a war or not) then the taker (``0`` or ``1``)."""
    deal = parse_deal(deal, rules)
    state = WarState.start(deal, rules)
    out = []
    for _ in range(tricks):
        wars = state.wars
        if state.done or state.play_trick() is None:
            break
        out.append(("w" if state.wars > wars else "n") + str(state.taker))
        state.place_all(convention_order(state.pots, state.taker, rules.pickup, None))
    return out


def _finish(deal: Deal, rules: WarRules, plan: Sequence[int]) -> tuple[list[int], int]:
    """``plan`` played to the horizon (any decision left: the highest rank first), and the cards
    player 0 then holds."""
    game = replay(rules, deal, plan)
    done = list(plan)
    while game.awaiting:
        rank = game.legal_actions()[-1]
        game.apply(rank)
        done.append(rank)
    return done, game.state.horizon_cards(0)


def solve_horizon_cpsat(
    deal: Deal | str,
    tricks: int,
    rules: WarRules = DEFAULT_RULES,
    time_limit: float = WarLimits.time_limit,
    workers: int = 2,
    extra_wars: int = 3,
) -> OracleResult:
    """The most cards player 0 can hold after ``tricks`` tricks, by CP-SAT.

    ``score`` is what the returned plan replays to through the engine; ``bound`` is CP-SAT's proven
    upper bound (a time-limited run may leave a gap). The first model holds ``extra_wars`` more wars
    than the convention play has. When the solver's best needs more turns than the model holds, the
    model is rebuilt with twice the wars; when it is a short war (taken optimistically), the bound
    stays what that model proved and a second model without short wars looks for a real plan.

    ``time_limit`` is seconds of a 2-core machine counted as work, not read off a clock (see
    ``WORK_PER_SECOND``): CP-SAT's deterministic time, and the building of each model by its terms
    (``model_terms``). A model whose building would take more than is left is not built; the answer
    is then the best plan found so far (at first: player 0 on its convention) with the bound proven
    so far. The same call gives the same answer on every run and machine; ``stats["work_seconds"]``
    is the work it was charged, ``seconds`` the wall clock it took.
    The horizon (``tricks``, capped by ``rules.max_tricks``) is at most ``MAX_MODEL_TRICKS``.
    """
    start = time.perf_counter()
    deal = parse_deal(deal, rules)
    tricks = check_int("tricks", tricks, 1)
    time_limit = check_float("time_limit", time_limit, 0, low_open=True)
    workers = check_int("workers", workers, 1, 256)
    extra_wars = check_int("extra_wars", extra_wars, 0, MAX_MODEL_TURNS)
    horizon = _model_horizon(tricks, rules)
    work = _Work(time_limit)
    limited = rules.replace(max_tricks=horizon)
    n = (len(deal.piles[0]), len(deal.piles[1]))
    _, base_wars = _engine_turns(deal, rules, horizon)
    wars = base_wars + extra_wars
    most_turns = min(horizon * rules.num_cards, MAX_MODEL_TURNS)
    bound, plan, score = rules.num_cards, *_finish(deal, limited, [])
    forbid_short, tightened, solves, statuses = False, False, 0, []
    turns, size = 0, (0, 0)
    while True:
        turns = min(horizon + (rules.face_down + 1) * wars, most_turns)
        try:
            work.build(model_terms(turns, n))
        except _OutOfWork:
            statuses.append("TIME_LIMIT_BEFORE_BUILDING")
            break
        model, size, solver, status = _solve_turns(
            deal, limited, horizon, turns, n, forbid_short, work, workers
        )
        solves += 1
        statuses.append(solver.StatusName(status))
        feasible = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        if not forbid_short and feasible:
            # A relaxation of every play: its bound holds whatever its best solution looks like.
            bound = min(bound, int(round(solver.BestObjectiveBound())))
        overflow = feasible and solver.Value(model.over) == 1
        short = feasible and solver.Value(model.esc) == 1
        if feasible and not overflow and not short:
            found, held = _replayed_plan(deal, limited, model, solver, status)
            if held > score:
                plan, score = found, held
        if score >= bound or not feasible or work.left < 0.5:
            break
        again = _next_model(overflow, short, forbid_short, tightened, turns >= most_turns)
        if again is None:
            break
        forbid_short, tightened, more_wars = again
        if more_wars:
            wars *= 2
    if score > bound:
        raise AssertionError(f"CP-SAT bound {bound} below a replayed play of {score} cards on {deal}")
    return OracleResult(
        score=score,
        bound=bound,
        plan=tuple(plan),
        seconds=time.perf_counter() - start,
        stats={
            "horizon": horizon,
            "method": "cpsat",
            "statuses": statuses,
            "turns": turns,
            "solves": solves,
            "variables": size[0],
            "constraints": size[1],
            "work_seconds": work.spent,
        },
    )


def _next_model(
    overflow: bool, short: bool, forbid_short: bool, tightened: bool, at_most_turns: bool
) -> tuple[bool, bool, bool] | None:
    """After a solve whose plan is not yet the bound: the next model, as (forbid short wars, bound
    tightened, twice the wars), or None to stop. When the best solution is optimistic, look for a
    real plan without short wars (and with more turns if it ran out of them), then come back once
    without that restriction to tighten the bound."""
    if overflow or short:
        if overflow:
            if at_most_turns:
                return None
            return True, tightened, True
        if tightened:
            return None  # short-war optimism is all that is left between plan and bound
        return True, tightened, False
    if forbid_short:
        return False, True, False  # a real plan below the bound: tighten the bound
    return None


def _model_horizon(tricks: int, rules: WarRules) -> int:
    """The horizon the model covers: ``tricks`` capped by the rules' last trick, refused past
    ``MAX_MODEL_TRICKS`` (the model grows with every turn)."""
    horizon = min(tricks, rules.max_tricks)
    if horizon > MAX_MODEL_TRICKS:
        raise ValueError(
            f"the CP-SAT model covers horizons of 1 to {MAX_MODEL_TRICKS} tricks, got {horizon}: "
            "use the horizon search (--method search) or a shorter horizon"
        )
    return horizon


def _solve_turns(
    deal: Deal,
    limited: WarRules,
    horizon: int,
    turns: int,
    n: tuple[int, int],
    forbid_short: bool,
    work: _Work,
    workers: int,
) -> tuple[_Turns, tuple[int, int], cp_model.CpSolver, int]:
    """One solve of the model of ``turns`` turns, player 0 choosing the pot orders and short wars
    taken optimistically (or, with ``forbid_short``, forbidden), for the most cards player 0 holds.
    Returns the model, its (variables, constraints) and the solver with its status."""
    model = _Turns(limited, horizon, turns, deal.piles, n, player0_chooses=True, optimistic=True)
    size = (len(model.m.Proto().variables), len(model.m.Proto().constraints))
    if forbid_short:
        model.m.Add(model.esc == 0)
    model.m.Maximize(model.held)
    solver, status = work.solve(model.m, workers)
    return model, size, solver, status


def _replayed_plan(
    deal: Deal, limited: WarRules, model: _Turns, solver: cp_model.CpSolver, status: int
) -> tuple[list[int], int]:
    """The solver's pot orders as a plan, finished to the horizon through the engine, and the cards
    it holds there; an optimal solution that replays to another count is a model bug."""
    found, held = _finish(deal, limited, plan_for_orders(deal, limited, model.pot_orders(solver)))
    if status == cp_model.OPTIMAL and held != solver.ObjectiveValue():
        raise AssertionError(
            f"CP-SAT claims {solver.ObjectiveValue()} cards but its plan replays to {held} on {deal}"
        )
    return found, held


def solve_horizon_best(
    deal: Deal | str,
    tricks: int,
    rules: WarRules = DEFAULT_RULES,
    time_limit: float = WarLimits.time_limit,
    workers: int = 2,
    max_nodes: int = 20_000,
) -> OracleResult:
    """The exact horizon search within ``max_nodes`` positions (fast on most deals), else CP-SAT
    within what is left of ``time_limit`` (work, as in ``solve_horizon_cpsat``) after the search's
    positions, counted at ``SEARCH_NODES_PER_SECOND``; CP-SAT gets at least 1 ms of work."""
    from tabletop_gym.oracles.war.horizon import SearchBudgetError, solve_horizon

    start = time.perf_counter()
    time_limit = check_float("time_limit", time_limit, 0, low_open=True)
    max_nodes = check_int("max_nodes", max_nodes, 1)
    try:
        return solve_horizon(deal, tricks, rules, max_nodes=max_nodes)
    except SearchBudgetError:
        pass
    searched = max_nodes / SEARCH_NODES_PER_SECOND  # the search stops at exactly max_nodes positions
    left = max(1e-3, time_limit - searched)
    result = solve_horizon_cpsat(deal, tricks, rules, time_limit=left, workers=workers)
    stats = dict(result.stats, search_gave_up_after=max_nodes)
    stats["work_seconds"] = searched + stats["work_seconds"]
    return OracleResult(result.score, result.bound, result.plan, time.perf_counter() - start, stats)


@dataclass
class FreeDealResult:
    """A deal found by a free-deal query, with what CP-SAT proved about the query's objective."""

    deal: str
    value: int  # the objective on this deal (wars, or 0 for a pattern query)
    bound: int | None  # proven upper bound on the objective (see the query), None if unproven
    status: str
    seconds: float
    stats: dict = field(default_factory=dict)


def _parse_pattern(pattern: str) -> list[tuple[bool | None, int | None]]:
    """Tokens, one per trick, separated by commas or spaces: ``.`` anything, ``w`` a war, ``n`` no war,
    then optionally the winner ``0`` or ``1`` (e.g. ``w,1`` or ``w0 n1 .``)."""
    out = []
    for token in pattern.replace(",", " ").split():
        war = None
        rest = token
        if rest[:1] in ("w", "n"):
            war, rest = rest[0] == "w", rest[1:]
        if rest in ("", "."):
            winner = None
        elif rest in ("0", "1"):
            winner = int(rest)
        else:
            raise ValueError(
                f"bad trick pattern token {token!r}: use '.', 'w', 'n', '0', '1', 'w0', 'w1', 'n0', 'n1'"
            )
        out.append((war, winner))
    if not out:
        raise ValueError("empty trick pattern: give one token a trick, e.g. 'w,1'")
    if len(out) > MAX_MODEL_TRICKS:
        raise ValueError(f"a trick pattern covers 1 to {MAX_MODEL_TRICKS} tricks, got {len(out)}")
    return out


parse_pattern = _parse_pattern


def _free_turns(rules: WarRules, tricks: int, wars_cap: int) -> int:
    turns = tricks + (rules.face_down + 1) * wars_cap
    if turns > MAX_MODEL_TURNS:
        raise ValueError(
            f"{tricks} tricks with up to {wars_cap} wars of {rules.face_down} face-down cards need {turns} "
            f"turns; the model holds at most {MAX_MODEL_TURNS}: ask for fewer tricks or wars"
        )
    return turns


def _free_model(rules: WarRules, tricks: int, wars_cap: int, work: _Work, flags: int = 0) -> _Turns:
    """The free-deal model, its building (with ``flags`` constrained tricks of a pattern) charged to
    ``work`` first: ``_OutOfWork`` when that is more than is left."""
    n0 = (rules.num_cards + 1) // 2
    sizes = (n0, rules.num_cards - n0)
    turns = _free_turns(rules, tricks, wars_cap)
    work.build(model_terms(turns, sizes, rules.num_cards * rules.ranks) + flags * FLAG_TERMS_PER_TURN * turns)
    return _Turns(rules.replace(max_tricks=tricks), tricks, turns, None, sizes, False, False)


def _free_deal(model: _Turns, solver: cp_model.CpSolver, rules: WarRules) -> str:
    piles = [
        [next(v for v, b in enumerate(bits) if solver.Value(b)) for bits in model.deal_bits[p]]
        for p in (0, 1)
    ]
    return str(deal_from_piles(piles, rules))


def _trick_flags(model: _Turns, t: int) -> tuple:
    """(trick t has a war, trick t won by player 0) as booleans of the model."""
    m = model.m
    has_war, won0 = m.NewBoolVar(f"tw{t}"), m.NewBoolVar(f"t0_{t}")
    wars, ends0 = [], []
    for k in range(model.K):
        at = m.NewBoolVar(f"at{t}_{k}")
        m.Add(model.tc[k] == t).OnlyEnforceIf(at)
        m.Add(model.tc[k] != t).OnlyEnforceIf(at.Not())
        w = m.NewBoolVar(f"atw{t}_{k}")
        m.AddMultiplicationEquality(w, [at, model.live[k], model.war[k]])
        e = m.NewBoolVar(f"ate{t}_{k}")
        m.AddMultiplicationEquality(e, [at, model.le[k], model.gt[k]])
        wars.append(w)
        ends0.append(e)
    m.AddMaxEquality(has_war, wars)
    m.Add(won0 == sum(ends0))
    return has_war, won0


def find_deal_with_pattern(
    pattern: str, rules: WarRules = DEFAULT_RULES, time_limit: float = 30.0, workers: int = 2
) -> FreeDealResult:
    """A deal whose first tricks follow ``pattern`` (see ``_parse_pattern``), both players on
    ``rules.pickup``, no short war. Raises ValueError if the model proves there is none, and
    TimeoutError if ``time_limit`` (work, building included, as in ``solve_horizon_cpsat``) is spent
    first: before building when the model alone would take more."""
    start = time.perf_counter()
    if not isinstance(pattern, str):
        raise ValueError(f"a trick pattern is a string such as 'w,1', got {type(pattern).__name__}")
    tokens = _parse_pattern(pattern)
    time_limit = check_float("time_limit", time_limit, 0, low_open=True)
    workers = check_int("workers", workers, 1, 256)
    work = _Work(time_limit)
    wars_cap = max(1, sum(1 for war, _ in tokens if war)) + 1
    flags = sum(1 for war, winner in tokens if war is not None or winner is not None)
    try:
        model = _free_model(rules, len(tokens), wars_cap, work, flags)
    except _OutOfWork as out:
        raise TimeoutError(
            f"building the model of {len(tokens)} tricks takes about {out.needed:.3g} s of work, more than "
            f"the time limit of {time_limit:g} s"
        ) from None
    model.m.Add(model.done == 1)
    for t, (war, winner) in enumerate(tokens):
        if war is None and winner is None:
            continue
        has_war, won0 = _trick_flags(model, t)
        if war is not None:
            model.m.Add(has_war == int(war))
        if winner is not None:
            model.m.Add(won0 == int(winner == 0))
    solver, status = work.solve(model.m, workers)
    if status == cp_model.INFEASIBLE:
        raise ValueError(f"no deal follows the pattern {pattern!r} (within {wars_cap} wars, no short war)")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise TimeoutError(f"no deal found for {pattern!r} within {time_limit:g} s of work")
    return FreeDealResult(
        _free_deal(model, solver, rules),
        0,
        0,
        solver.StatusName(status),
        time.perf_counter() - start,
        {"turns": model.K, "work_seconds": work.spent},
    )


def find_deal_most_wars(
    tricks: int,
    rules: WarRules = DEFAULT_RULES,
    time_limit: float = 30.0,
    workers: int = 2,
    wars_cap: int = 8,
) -> FreeDealResult:
    """A deal with the most wars in its first ``tricks`` tricks (all of them completed), both players
    on ``rules.pickup``, no short war. The model holds at most ``wars_cap`` wars; while the best deal
    reaches the cap it is rebuilt with twice the cap, time allowing. ``bound`` is proven over deals
    without a short war; it is None when the last model's cap was reached (more may be possible).
    ``tricks`` is at most ``MAX_MODEL_TRICKS``; ``time_limit`` is work, building the models included,
    as in ``solve_horizon_cpsat``."""
    start = time.perf_counter()
    tricks = _check_model_tricks("tricks", tricks)
    time_limit = check_float("time_limit", time_limit, 0, low_open=True)
    workers = check_int("workers", workers, 1, 256)
    wars_cap = check_int("wars_cap", wars_cap, 1, MAX_MODEL_TURNS)
    work = _Work(time_limit)
    best: FreeDealResult | None = None
    while True:
        try:
            model = _free_model(rules, tricks, wars_cap, work)
        except _OutOfWork as out:
            if best is not None:
                return best  # no work left to build the larger model: keep the capped answer
            raise TimeoutError(
                f"building the model of {tricks} tricks takes about {out.needed:.3g} s of work, more than "
                f"the time limit of {time_limit:g} s"
            ) from None
        model.m.Add(model.done == 1)
        model.m.Maximize(model.wars)
        solver, status = work.solve(model.m, workers)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            if best is not None:
                return best  # the larger model found nothing in time: keep the capped answer
            if status == cp_model.INFEASIBLE:
                raise ValueError(f"no deal completes {tricks} tricks without a short war")
            raise TimeoutError(f"no deal found within {time_limit:g} s of work")
        value = int(round(solver.ObjectiveValue()))
        bound = int(round(solver.BestObjectiveBound()))
        capped = bound >= wars_cap  # the model's cap may be what stops the bound
        deal = _free_deal(model, solver, rules)
        if best is not None and best.value > value:  # a time-limited bigger model did worse
            deal, value = best.deal, best.value
        room = tricks + (rules.face_down + 1) * 2 * wars_cap <= MAX_MODEL_TURNS
        best = FreeDealResult(
            deal,
            value,
            None if capped else bound,
            solver.StatusName(status),
            time.perf_counter() - start,
            # larger_model_fits: whether a model with twice the cap would still fit, so that only
            # the work left stopped the search for more wars.
            {"turns": model.K, "wars_cap": wars_cap, "larger_model_fits": room, "work_seconds": work.spent},
        )
        if capped and room and work.left > 1.0:
            wars_cap *= 2
            continue
        return best

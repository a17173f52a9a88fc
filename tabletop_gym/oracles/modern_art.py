"""Oracles for Modern Art: the most one seat can score when every player plays to help it.

With all hands and draws known and every player's plays chosen for the seat, no opponent behaviour can
give the seat more, so this is an upper bound on what any agent scores in that deal.

Two parts, reported separately and never mixed up:

- **plan** (``score``): a beam search through the engine itself over every player's decisions, ranked
  by the seat's points so far plus what the current round would pay it if it ended now. The plan is
  replayed through the engine to its score before it is returned.
- **bound**: a round-level CP-SAT relaxation. It keeps only constraints every real game satisfies, so
  its optimum (or CP-SAT's proven bound on it, when the time limit stops the search) is a proven upper
  bound on the seat's score:
    * per round, the top places go to distinct artists, tokens accumulate into values, award tokens
      (no more than the award cards and tokens) add to them, and the seat is paid value x cards only for
      placing artists;
    * the seat's cards of an artist over the game come from its first hand or the part of the deck that
      can reach it by that round (later deals plus at most every draw card, and the extra cards);
    * the seat's total cards by each round are at most its dealt cards plus one per draw card;
    * per round, the seat's face-up cards of an artist stay below the round limit (one fewer for the
      extra card's artist) except for at most two cards of the final play (plus one per artist with
      end-of-round plays), and face-down cards need hidden cards, at most one each.
  It leaves out turn order and what the other players must play, so it is not tight: the gap between
  bound and score is reported, and ``optimal`` is true only when they meet.

``brute_force`` searches every line of play exhaustively (with memory of positions); it is exact and
only meant for tiny decks, to check the other two in tests.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ortools.sat.python import cp_model

from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    DRAW,
    HIDDEN,
    NUM_ARTISTS,
    NUM_SYMBOLS,
    Rules,
    State,
    artist_of,
    parse_deal,
    replay,
    round_points,
    symbol_of,
)

GAME = "modern_art"


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


def _promise(state: State, seat: int) -> float:
    """The seat's points so far plus what this round would pay it if it ended now."""
    if state.done:
        return float(state.scores[seat])
    own = [[state.up[p][a] + state.down[p][a] for a in range(NUM_ARTISTS)] for p in (seat,)]
    points, _ = round_points(state.counts(), own, state.values, state.awards, state.rules)
    # Cards still in hand are worth a little: they can be displayed later.
    return state.scores[seat] + points[0] + 0.1 * state.hand_sizes[seat]


def beam_search(rules: Rules, deal: str, seat: int = 0, width: int = 64) -> tuple[int, tuple[int, ...]]:
    """The best plan the beam finds: (seat's score, every player's actions in order)."""
    beam = [State(rules, deal)]
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
                    children[key] = (_promise(child, seat), child)
        ranked = sorted(children.values(), key=lambda item: -item[0])
        beam = [state for _, state in ranked[:width]]
    return best_score, best_plan


# ---- exhaustive search for tiny decks --------------------------------------------------------------


def brute_force(
    rules: Rules, deal: str, seat: int = 0, limit: int = 2_000_000
) -> tuple[int, tuple[int, ...]]:
    """The exact best score of ``seat`` over every line of play, with a plan; raises if the game tree
    has more than ``limit`` distinct positions (meant for tiny decks)."""
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


# ---- the bound: round-level CP-SAT relaxation ------------------------------------------------------


def _supply(rules: Rules, cards: Sequence[int] | None, seat: int) -> dict[str, Any]:
    """What the relaxation needs to know about the deal (or, with ``cards=None``, about any deal)."""
    n = rules.players
    first = rules.deals[0] * n
    counts_total = [sum(rules.deck[a]) for a in range(NUM_ARTISTS)]
    draws = sum(rules.deck[a][DRAW] for a in range(NUM_ARTISTS))
    hidden = sum(rules.deck[a][HIDDEN] for a in range(NUM_ARTISTS))
    award_cards = sum(rules.deck[a][AWARD] for a in range(NUM_ARTISTS))
    extras = rules.rounds if rules.extra_card_each_round else 1
    if cards is None:
        # Any deal: the seat may hold any cards; the extra card may be of any artist.
        reach = [[counts_total[a]] * rules.rounds for a in range(NUM_ARTISTS)]
        return {
            "reach": reach, "hand": rules.deals[0], "draws": draws, "hidden": hidden,
            "award_cards": award_cards, "extra_artist": None,
        }  # fmt: skip
    hand = [0] * NUM_ARTISTS
    for i in range(rules.deals[0]):
        hand[artist_of(cards[i * n + seat])] += 1
    reach = []
    for a in range(NUM_ARTISTS):
        row = []
        for r in range(rules.rounds):
            # Deck positions that may have reached any hand by the end of round r.
            end = first + extras + n * sum(rules.deals[1 : r + 1]) + draws
            row.append(hand[a] + sum(1 for k in cards[first:end] if artist_of(k) == a))
        reach.append(row)
    return {
        "reach": reach, "hand": rules.deals[0], "draws": draws, "hidden": hidden,
        "award_cards": award_cards, "extra_artist": artist_of(cards[first]),
    }  # fmt: skip


def relaxation_bound(
    rules: Rules, cards: Sequence[int] | None, seat: int = 0, time_limit: float = 10.0, workers: int = 2
) -> tuple[int, int, dict[str, Any]]:
    """(proven upper bound, the relaxation's best objective found, stats) of the round-level model."""
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
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers)
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(f"relaxation not solved: {solver.StatusName(status)}")
    bound = int(solver.BestObjectiveBound() + 1e-6)
    stats = {
        "relaxation_status": solver.StatusName(status),
        "relaxation_objective": int(solver.ObjectiveValue()),
        "relaxation_seconds": solver.WallTime(),
    }
    return bound, int(solver.ObjectiveValue()), stats


# ---- the oracle API --------------------------------------------------------------------------------


def solve(
    deal: str,
    rules: Rules | None = None,
    seat: int = 0,
    width: int = 64,
    time_limit: float = 10.0,
    exact_positions: int = 0,
) -> OracleResult:
    """The per-deal oracle: ``score`` from a replayed plan, ``bound`` from the relaxation.

    With ``exact_positions > 0`` the exhaustive search is tried first (exact, for tiny decks) and its
    optimum is both score and bound when it finishes within that many positions.
    """
    rules = rules or Rules()
    if not 0 <= seat < rules.players:
        raise ValueError(f"seat must be 0 to {rules.players - 1}, got {seat!r}")
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
    score, plan = beam_search(rules, deal, seat, width)
    stats["beam_width"] = width
    stats["beam_seconds"] = time.perf_counter() - start
    bound, _, relax_stats = relaxation_bound(rules, cards, seat, time_limit)
    stats.update(relax_stats)
    stats["method"] = "beam plan + CP-SAT relaxation bound"
    return _checked(rules, deal, seat, score, max(bound, score), plan, start, stats)


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
    rules = rules or Rules()
    try:
        final = replay(rules, deal, result.plan)
    except (ValueError, TypeError):
        return False
    return final.done and final.scores[seat] == result.score <= result.bound


def solve_cached(
    deal: str, rules: Rules | None = None, seat: int = 0, cache: OracleCache | None = None, **options: Any
) -> OracleResult:  # noqa: E501
    """``solve`` through the on-disk cache; cached entries are replayed before they are trusted."""
    rules = rules or Rules()
    cache = cache if cache is not None else OracleCache()
    variant = f"{rules.variant()}_seat{seat}_" + "_".join(f"{k}{v}" for k, v in sorted(options.items()))
    return cache.solve(
        GAME,
        variant,
        deal.strip(),
        lambda: solve(deal, rules, seat, **options),
        lambda r: check(deal, r, rules, seat),
    )


# ---- per player count: the highest score over all deals ------------------------------------------


def free_deal_bound(rules: Rules, time_limit: float = 30.0) -> tuple[int, int, dict[str, Any]]:
    """A proven upper bound on any seat's score over every deal (the relaxation with free cards)."""
    return relaxation_bound(rules, None, 0, time_limit)


__all__ = [
    "beam_search", "brute_force", "relaxation_bound", "solve", "solve_cached", "check", "free_deal_bound",
    "symbol_of", "NUM_SYMBOLS",
]  # fmt: skip

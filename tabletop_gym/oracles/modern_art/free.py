"""The free-deal oracle: the best plan found and a proven bound over every deal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabletop_gym.core import check_int, make_rng
from tabletop_gym.envs.modern_art.rules import (
    AWARD,
    DOUBLE,
    DRAW,
    HIDDEN,
    NUM_ARTISTS,
    ModernArtRules,
    arrange_deal,
    artist_of,
    deal_string,
    parse_deal,
    random_deal,
    replay,
    symbol_of,
)
from tabletop_gym.oracles.modern_art.beam import PORTFOLIO, _played_out, portfolio_search
from tabletop_gym.oracles.modern_art.bounds import relaxation_bound, seat_round_bound
from tabletop_gym.oracles.modern_art.common import MAX_FREE_DEALS, _check_seat, _check_seconds, _check_width
from tabletop_gym.oracles.modern_art.paths import _path_bound_or_none
from tabletop_gym.oracles.modern_art.realization import realize_free


def free_deal_bound(
    rules: ModernArtRules,
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


def stacked_deal(rules: ModernArtRules, seed: int, seat: int = 0) -> str:
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
    rules: ModernArtRules, deals: int = 8, width: int = 32, seed: int = 0
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
    if final.money[0] != best[0]:
        raise AssertionError("free-deal plan does not replay to its score")
    return best


def free_deal(
    rules: ModernArtRules,
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
    if not final.done or final.money[0] != score:
        raise AssertionError(f"free-deal plan replays to {final.money[0]}, claimed {score}")
    if bound < score:
        raise AssertionError(f"free-deal bound {bound} below the plan's {score}: the model is wrong")
    return {
        "score": score, "deal": deal, "plan": plan, "bound": bound, "relaxation_objective": objective,
        "plan_source": source, "stats": stats,
    }  # fmt: skip

"""Plans from the game model by large neighbourhood search: the work ``solve`` kept for realizing and
planning again but did not spend goes to CP-SAT's LNS on the whole game model, started from the best
plan, and the solutions it finds (a pool of the last few, best first) are played out through the
engine; the best replayed game is kept.

Why LNS: the first solve of the game model is there for its bound, so its search also proves; a
second solve of the same model only to find solutions does better with CP-SAT's neighbourhood
workers alone (``use_lns_only``), each of which fixes most of the best solution and searches the
rest. On the two-round bench deal 0 of 2 players (``time_limit`` 30), 5 units of deterministic
time from the 113 plan: 118 with LNS alone (at 0.3 units), 113 with the default interleaved search.
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from tabletop_gym.envs.modern_art.rules import ModernArtRules
from tabletop_gym.oracles.modern_art.beam import _played_out
from tabletop_gym.oracles.modern_art.bounds import _complete_hint, _solve_for
from tabletop_gym.oracles.modern_art.common import POSITIONS_PER_SECOND
from tabletop_gym.oracles.modern_art.model import build_model
from tabletop_gym.oracles.modern_art.realization import _Positions, realize
from tabletop_gym.oracles.modern_art.solutions import _Collector, _hint

# Below this many seconds of work left the LNS is not started (building the model and completing the
# hint would take most of it).
LNS_MIN_SECONDS = 0.5


# Of the LNS's seconds: this share for completing the hint (at most 2 s), the same share as
# positions for realizing its solutions, the rest for the search.
LNS_HINT_SHARE = 0.125


LNS_REALIZE_SHARE = 0.125


# Solutions the pool keeps (the last ones found, so the best): each is realized, best first, while
# its objective is above the best plan so far.
LNS_POOL = 6


def lns_plan(
    rules: ModernArtRules,
    cards: Sequence[int],
    seat: int,
    score: int,
    plan: Sequence[int],
    seconds: float,
    valuations: Sequence[tuple],
    width: int = 8,
    workers: int = 2,
    pool: int = LNS_POOL,
) -> tuple[int, tuple[int, ...], str]:
    """The best of ``plan`` (a real game scoring ``score``) and the games realized from the solutions
    CP-SAT's LNS finds in the game model hinted with ``plan``, for about ``seconds`` in all (counted as
    deterministic work and positions, like every limit here): (score, plan, how it was found, "" when
    the plan stayed). A solution realized only in part is played out by beams of ``width`` with
    ``valuations`` from the round it stopped at. ``pool``: how many of the last solutions are kept."""
    plan = tuple(plan)
    if seconds < LNS_MIN_SECONDS:
        return score, plan, ""
    m, h = build_model(rules, cards, seat)
    _hint(m, h, rules, cards, plan)
    _complete_hint(m, min(2.0, seconds * LNS_HINT_SHARE), workers)
    collector = _Collector(h, rules, keep=pool)
    search = seconds * (1 - LNS_HINT_SHARE - LNS_REALIZE_SHARE)
    status, _ = _solve_for(m, search, workers, collector, lns_only=True)
    if status == cp_model.INFEASIBLE:  # a real game always satisfies the model: the model is wrong
        raise AssertionError("the game model has no solution")
    shared = _Positions(seconds * LNS_REALIZE_SHARE * POSITIONS_PER_SECOND)
    how = ""
    for objective, plays in sorted(collector.found, key=lambda item: -item[0]):
        if objective <= score or shared.left <= 0:
            break
        reached = realize(rules, cards, plays, shared=shared)
        found, line, made = _played_out(rules, cards, seat, reached, width, valuations)
        if found > score:
            score, plan, how = found, line, f"LNS {made}"
    return score, plan, how


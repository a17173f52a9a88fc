"""Exhaustive search with memory of positions: exact, for tiny decks (tests check the other oracles
with it)."""

from __future__ import annotations

from tabletop_gym.core import check_int
from tabletop_gym.envs.modern_art.rules import (
    ModernArtRules,
    State,
)
from tabletop_gym.oracles.modern_art.beam import _key
from tabletop_gym.oracles.modern_art.common import _check_seat, _require_modelled


def brute_force(
    rules: ModernArtRules, deal: str, seat: int = 0, limit: int = 2_000_000
) -> tuple[int, tuple[int, ...]]:
    """The exact best score of ``seat`` over every line of play, with a plan; raises if the game tree
    has more than ``limit`` distinct positions (meant for tiny decks)."""
    _require_modelled(rules)
    seat, limit = _check_seat(rules, seat), check_int("limit", limit, 1)
    memo: dict[tuple, tuple[int, tuple[int, ...]]] = {}

    def best(state: State) -> tuple[int, tuple[int, ...]]:
        if state.done:
            return state.money[seat], ()
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

"""Plans by beam search through the engine: one beam per hand valuation (the portfolio)."""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.core import check_float
from tabletop_gym.envs.modern_art.rules import (
    NUM_ARTISTS,
    NUM_SYMBOLS,
    ModernArtRules,
    State,
    round_points,
)
from tabletop_gym.oracles.modern_art.common import _check_seat, _check_width


def _key(state: State) -> tuple:
    """The position, for the searches' memory: everything the rest of the game depends on. The
    extra cards are part of it: with ``extra_card_each_round`` a round's extra card counts towards
    its end and ranking and is not fixed by the rest of the key."""
    return (
        state.phase,
        state.to_move,
        state.round,
        state.top,
        state.awards_left,
        tuple(map(tuple, state.hands)),
        tuple(map(tuple, state.up)),
        tuple(map(tuple, state.down)),
        tuple(state.extra),
        tuple(state.values),
        tuple(state.awards),
        tuple(state.money),
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
        return float(state.money[seat])
    own = [[state.up[p][a] + state.down[p][a] for a in range(NUM_ARTISTS)] for p in (seat,)]
    points, _ = round_points(state.counts(), own, state.values, state.awards, state.rules)
    hand = state.hands[seat]
    if hand_weight == 0.0:
        return state.money[seat] + points[0] + 0.1 * state.hand_sizes[seat]
    left = state.rules.rounds - 1 - state.round
    potential = 0.0
    for a in range(NUM_ARTISTS):
        held = sum(hand[a * NUM_SYMBOLS : (a + 1) * NUM_SYMBOLS])
        if held:
            worth = state.values[a] + state.rules.award_value * state.awards[a] + per_round * left
            potential += held * worth
    return state.money[seat] + points[0] + hand_weight * potential


# Hand valuations the portfolio tries: (hand_weight, per_round); the first is the myopic one.
PORTFOLIO = ((0.0, 0.0), (0.3, 2.0), (0.5, 2.0))


def beam_search(
    rules: ModernArtRules, deal: str | Sequence[int], seat: int = 0, width: int = 64,
    hand_weight: float = 0.0, per_round: float = 0.0, start: State | None = None,
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
                    if child.money[seat] > best_score:
                        best_score, best_plan = child.money[seat], tuple(child.history)
                    continue
                key = _key(child)
                if key not in children:
                    children[key] = (_promise(child, seat, hand_weight, per_round), child)
        ranked = sorted(children.values(), key=lambda item: -item[0])
        beam = [state for _, state in ranked[:width]]
    return best_score, best_plan


def _played_out(
    rules: ModernArtRules,
    cards: Sequence[int],
    seat: int,
    reached: State,
    width: int,
    valuations: Sequence[tuple],
) -> tuple[int, tuple[int, ...], str]:
    """The plan from a realized position: the game itself when it was realized to the end, else the
    best beam (one per hand valuation) from the start of the round it stopped at. Returns (score,
    plan, how it was made)."""
    if reached.done:
        return reached.money[seat], tuple(reached.history), "solution"
    best: tuple[int, tuple[int, ...]] = (-1, ())
    for weight, per_round in valuations:
        best = max(best, beam_search(rules, cards, seat, width, weight, per_round, start=reached))
    return best[0], best[1], f"solution to round {reached.round + 1}, then beam"


def portfolio_search(
    rules: ModernArtRules, deal: str | Sequence[int], seat: int = 0, width: int = 64
) -> tuple[int, tuple[int, ...], int]:
    """The best of one beam search per hand valuation in ``PORTFOLIO``: (score, plan, which)."""
    seat, width = _check_seat(rules, seat), _check_width(width)
    best = (-1, (), 0)
    for i, (weight, per_round) in enumerate(PORTFOLIO):
        score, plan = beam_search(rules, deal, seat, width, weight, per_round)
        if score > best[0]:
            best = (score, plan, i)
    return best

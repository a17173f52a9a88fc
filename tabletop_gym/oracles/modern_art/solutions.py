"""Between games and the game model: a model solution's plays, a plan's plays, hints and solution
pools."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ortools.sat.python import cp_model

from tabletop_gym.envs.modern_art.rules import (
    AWARD_ARTIST,
    CHOOSE_ARTIST,
    HIDDEN_CARD,
    NUM_ARTISTS,
    NUM_KINDS,
    PASS,
    PLAY,
    ModernArtRules,
    State,
)


def _value(solver: cp_model.CpSolver, x: Any) -> int:
    return int(x) if isinstance(x, int) else int(solver.Value(x))


def solution_plays(solver: cp_model.CpSolver, handles: dict, rules: ModernArtRules) -> list[dict[str, Any]]:
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


def plan_plays(rules: ModernArtRules, cards: Sequence[int], plan: Sequence[int]) -> dict[str, Any]:
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
    h: dict, rules: ModernArtRules, cards: Sequence[int], plan: Sequence[int], rounds: int | None = None
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


def _hint(
    m: cp_model.CpModel, h: dict, rules: ModernArtRules, cards: Sequence[int], plan: Sequence[int]
) -> None:
    """Hint the model with the real game ``plan`` plays: a feasible start for CP-SAT, so it reports
    a proven bound quickly, and (if the model is right) a relaxation objective of at least the plan's
    score."""
    for x, value in _plan_values(h, rules, cards, plan):
        m.AddHint(x, value)


class _Collector(cp_model.CpSolverSolutionCallback):
    """Keeps the plays of the last ``keep`` solutions CP-SAT finds, to be realized into plans."""

    def __init__(self, handles: dict, rules: ModernArtRules, keep: int = 6) -> None:
        super().__init__()
        self.handles, self.rules, self.keep = handles, rules, keep
        self.found: list[tuple[int, list[dict[str, Any]]]] = []

    def on_solution_callback(self) -> None:
        self.found.append((int(self.ObjectiveValue()), solution_plays(self, self.handles, self.rules)))
        del self.found[: -self.keep]

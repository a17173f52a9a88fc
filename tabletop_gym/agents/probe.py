"""The randomized probe search of the Cribbage seed, for every game whose greedy bot ranks moves by
the points they score now.

One probe plays a whole game from the deal. At each decision it walks along the legal moves best
first, in the order of the game's greedy bot, and flips a coin that comes up heads with probability
``weight``: on heads it commits to the move, on tails it goes on to the next one. A walk that passes
the last move without heads takes the best move, as the seed's own code does (``Search.java``: "if
we didn't choose anything, just go with the best one"). Many probes are played and the best whole
game is kept: an anytime search, better the more probes it is given.

Two choices, said here because they differ from the seed's code:

- a move is one decision of the environment (one card in Cribbage), ranked as the game's greedy bot
  ranks it, not the seed's whole "stack" of cards: the greedy bot is the package's definition of
  "best first by immediate points", and with ``weight=1`` the probe plays exactly the greedy bot's
  game;
- the coin is seeded per probe (probe ``i`` of seed ``s`` always flips the same coins), so the same
  seed gives the same game, and a run of ``n`` probes contains the first ``k`` probes of any shorter
  run: more probes are never worse than fewer.

The probe plays from the deal, so it sees what the oracle sees: it is a planning agent, not a player
of the observation. In the solitaire games with a greedy bot that scores immediate points (Cribbage,
where everything is in view anyway; Nmbr9, where it also sees the draw order to come, so its score
is a hindsight score to compare with the hindsight optimum, not with what a player can reach) it is
the seed's classical baseline. It is not offered for War, Dominion or Modern Art. War's greedy bot
follows a card convention and Dominion's (Big Money) a buy rule, neither a ranking by points scored
now; Dominion's shuffles are also hidden. Modern Art's greedy bot does rank cards by its provisional
score, but the game has opponents: a whole-game probe would have to see their hidden hands and the
cards still to be dealt, and replay their answers to each line it tries, which is a search over
information no player has rather than the seed's solitaire method.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from tabletop_gym.agents.policy import PlanAgent
from tabletop_gym.core import check_float, check_int

S = TypeVar("S")

DEFAULT_WEIGHT = 0.7
DEFAULT_PROBES = 100
MAX_PROBES = 10_000_000


@dataclass(frozen=True)
class ProbeRules(Generic[S]):
    """How the probe plays one game: every rule comes from the game's engine, every ranking from the
    game's greedy bot.

    - ``start(deal)``: the engine position at the start of a deal string;
    - ``legal(state)``: the legal moves as a bool mask (a copy the search may change);
    - ``best(state, mask)``: the greedy bot's move among the moves left in ``mask``; asking again
      with that move removed gives the next best, so the walk follows the bot's own order, tie-breaks
      included, without ranking moves it never reaches;
    - ``play(state, move)``: applies the move in the engine;
    - ``done(state)`` and ``score(state)``: the engine's end of game and score.
    """

    start: Callable[[str], S]
    legal: Callable[[S], np.ndarray]
    best: Callable[[S, np.ndarray], int]
    play: Callable[[S, int], Any]
    done: Callable[[S], bool]
    score: Callable[[S], float]


def check_weight(weight: float) -> float:
    """The coin's chance of heads: a finite number above 0 (a coin that never commits) and at most 1."""
    return check_float("weight", weight, 0.0, 1.0, low_open=True)


def check_probes(probes: int) -> int:
    return check_int("probes", probes, 1, MAX_PROBES)


def probe_rng(seed: int, index: int) -> random.Random:
    """The coin of probe ``index`` under ``seed``: its own stream, so that probe ``i`` flips the same
    coins whatever the number of probes (Python's string seeding is stable across processes)."""
    return random.Random(f"probe:{seed}:{index}")


def choose_move(rules: ProbeRules[S], state: S, weight: float, rng: random.Random) -> int:
    """One decision of a probe: walk the moves best first, commit on heads, the best after the last."""
    mask = rules.legal(state)
    left = int(np.count_nonzero(mask))
    if left == 0:
        raise ValueError("no legal move in a position that is not over")
    first = rules.best(state, mask)
    if left == 1 or weight >= 1.0:
        return first  # no choice to make, or a coin that always comes up heads: no flip spent
    move = first
    while True:
        if rng.random() < weight:
            return move
        mask[move] = False
        left -= 1
        if left == 0:
            return first
        move = rules.best(state, mask)


def play_probe(rules: ProbeRules[S], deal: str, weight: float, rng: random.Random) -> tuple[float, list[int]]:
    """One probe: a whole game from the deal; its score and its moves."""
    state = rules.start(deal)
    moves: list[int] = []
    while not rules.done(state):
        move = choose_move(rules, state, weight, rng)
        rules.play(state, move)
        moves.append(move)
    return rules.score(state), moves


@dataclass(frozen=True)
class ProbeResult:
    """The best game of a probe search.

    ``score`` is what ``plan`` (the moves in order) scores when the engine replays it from the deal;
    ``found_at`` is the probe (from 0) that first played it; ``progress`` lists ``(probe, score)`` for
    every probe that improved on the best so far: the anytime curve, from which the best of the first
    ``k`` probes can be read for every ``k``. ``checkpoints`` holds ``(k, best score, CPU seconds)``
    after the first ``k`` probes, for each ``k`` the search was asked to note.
    """

    score: float
    plan: tuple[int, ...]
    found_at: int
    probes: int
    weight: float
    seed: int
    cpu_seconds: float
    progress: tuple[tuple[int, float], ...]
    checkpoints: tuple[tuple[int, float, float], ...] = ()

    def best_within(self, probes: int) -> float:
        """The best score among the first ``probes`` probes (the same as a run of that many)."""
        check_int("probes", probes, 1, self.probes)
        return max(score for index, score in self.progress if index < probes)


def probe_search(
    rules: ProbeRules[S],
    deal: str,
    weight: float = DEFAULT_WEIGHT,
    probes: int = DEFAULT_PROBES,
    seed: int = 0,
    checkpoints: Sequence[int] = (),
) -> ProbeResult:
    """Play ``probes`` probes from ``deal`` and keep the best game (the first one on ties).

    ``checkpoints``: probe counts after which to note the best score and the CPU time so far (what a
    run of that many probes would have given, at its cost), for the anytime curve of ``bench``.
    """
    weight = check_weight(weight)
    probes = check_probes(probes)
    seed = check_int("seed", seed, 0)
    marks = sorted({check_int("checkpoint", k, 1, probes) for k in checkpoints})
    start = time.process_time()
    best_score, best_plan, found_at = -np.inf, [], -1
    progress: list[tuple[int, float]] = []
    noted: list[tuple[int, float, float]] = []
    # With weight 1 every probe plays the greedy game, so one probe stands for all of them.
    played = 1 if weight >= 1.0 else probes
    for index in range(played):
        score, plan = play_probe(rules, deal, weight, probe_rng(seed, index))
        if score > best_score:
            best_score, best_plan, found_at = score, plan, index
            progress.append((index, score))
        while marks and marks[0] == index + 1:
            noted.append((marks.pop(0), float(best_score), time.process_time() - start))
    cpu = time.process_time() - start
    noted += [(k, float(best_score), cpu) for k in marks]
    return ProbeResult(
        float(best_score),
        tuple(best_plan),
        found_at,
        probes,
        weight,
        seed,
        cpu,
        tuple(progress),
        tuple(noted),
    )


class ProbeAgent(PlanAgent):
    """The probe search as an Agent: at the first decision of a deal it plays ``probes`` probes from
    the deal in ``info["deal"]`` and then plays the best game move by move (``result`` holds it).

    A planning agent that sees the deal, like the oracle (``reads_deal`` gives it an environment that
    shows the deal from reset on); it reads nothing else from the observation. ``reset(seed)`` seeds
    the coins (``evaluate`` passes each deal's seed), so the same seed gives the same game.
    """

    name = "probe"

    def __init__(
        self,
        rules: ProbeRules[Any],
        weight: float = DEFAULT_WEIGHT,
        probes: int = DEFAULT_PROBES,
        seed: int = 0,
    ) -> None:
        self.rules = rules
        self.weight = check_weight(weight)
        self.probes = check_probes(probes)
        self.seed = check_int("seed", seed, 0)
        super().__init__(self._search, "the probe search")

    def _search(self, deal: str) -> ProbeResult:
        return probe_search(self.rules, deal, self.weight, self.probes, self.seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = check_int("seed", seed, 0)
        super().reset()

"""Modern Art's move oracle (one-round games, against the greedy bots): every decision's value
against a brute force through the environment at positions of random plays, plans that replay,
losses that add up to the optimum minus the score (in the environment and in ``evaluate --moves``),
``play --review``, and refusals."""

from __future__ import annotations

import argparse
import copy
import json
import random
from types import SimpleNamespace

import pytest
from test_nmbr9_cli import _script

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import NoMoveOracleError, OracleResult
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.env import ModernArtEnv
from tabletop_gym.envs.modern_art.rules import PHASES, ModernArtRules, random_deal
from tabletop_gym.oracles.modern_art import brute_force
from tabletop_gym.oracles.modern_art.moves import ModernArtMoves
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.moves import evaluate_moves, move_oracle_factory, play_recorded, review_game

# A small deck with every symbol: 13 cards, a round ends at 3 face-up cards of one artist.
DECK = (
    (2, 1, 0, 0, 0, 1),
    (2, 0, 1, 0, 0, 0),
    (2, 0, 0, 1, 0, 0),
    (1, 0, 0, 0, 1, 0),
    (1, 1, 0, 0, 0, 0),
)
SMALL = [
    {"players": 2, "deck": DECK, "deals": (4,), "round_limit": 3},
    {"players": 3, "deck": DECK, "deals": (3,), "round_limit": 3},
]
# A seeded deal of the command line's one-round game whose whole search is some 50 positions.
CHEAP_SEED = 10


def _best_in_env(env: ModernArtEnv) -> float:
    """The most reward still to come in ``env`` over every play of the seat, by stepping copies of
    the environment itself (its bots answering): independent of the oracle's engine search."""
    if env.state.done:
        return 0.0
    best = None
    for action in env.state.legal_actions():
        after = copy.deepcopy(env)
        _, reward, _, _, _ = after.step(action)
        value = reward + _best_in_env(after)
        best = value if best is None else max(best, value)
    return best


@pytest.mark.parametrize("params", SMALL, ids=["2p", "3p"])
@pytest.mark.parametrize("seed", range(3))
def test_every_decision_value_matches_a_brute_force_through_the_environment(params, seed: int) -> None:
    env = ModernArtEnv(reveal_deal=True, **params)
    _, info = env.reset(seed=seed)
    moves = ModernArtMoves(info["deal"], env.rules)
    rng = random.Random(seed)
    history: list[int] = []
    decisions = set()
    assert moves.optimum == _best_in_env(env)
    while not env.state.done:
        values = moves.at(history)
        assert values == moves.at_state(env.state)
        decisions.add(PHASES[env.state.phase])
        for action in env.state.legal_actions():
            after = copy.deepcopy(env)
            _, reward, _, _, _ = after.step(action)
            assert values.values[action] == reward + _best_in_env(after), (history, action)
        assert values.optimum == max(values.values.values())
        # The plan (the seat's decisions) played in the environment, the bots answering, gains it.
        replayed, gained = copy.deepcopy(env), 0.0
        for action in values.plan:
            gained += replayed.step(action)[1]
        assert replayed.state.done and gained == values.optimum
        action = rng.choice(env.state.legal_actions())
        env.step(action)
        history.append(action)
    assert "play" in decisions


def test_decisions_other_than_a_turn_card_are_valued() -> None:
    # A deal where the seat decides a second card, a face-down card or an award: those are valued too.
    seen = set()
    for seed in range(6):
        env = ModernArtEnv(reveal_deal=True, **SMALL[0])
        _, info = env.reset(seed=seed)
        moves = ModernArtMoves(info["deal"], env.rules)
        history: list[int] = []
        rng = random.Random(seed)
        while not env.state.done:
            seen.add(PHASES[env.state.phase])
            moves.at(history)
            history.append(rng.choice(env.state.legal_actions()))
            env.step(history[-1])
    assert len(seen - {"play"}) >= 2, seen


@pytest.mark.parametrize("params", SMALL, ids=["2p", "3p"])
def test_losses_add_up_to_optimum_minus_score_and_stay_under_the_cooperative_optimum(params) -> None:
    env = ModernArtEnv(reveal_deal=True, **params)
    for seed in range(4):
        deal = random_deal(env.rules, seed)
        moves = ModernArtMoves(deal, env.rules)
        for agent in (RandomAgent(seed), GreedyAgent(env.rules)):
            score, played, actions = play_recorded(env, agent, seed, deal)
            review = review_game(moves, actions, score)  # raises where the losses do not add up
            assert played == deal and review["optimum"] == moves.optimum
            assert sum(review["losses"]) == moves.optimum - score
        # Against the bots the seat gets at most what it gets with every player helping it.
        assert moves.optimum <= brute_force(env.rules, deal, 0)[0]


def test_the_command_lines_one_round_game_is_valued_in_the_environment() -> None:
    env = ModernArtEnv(rounds=1, reveal_deal=True)
    _, info = env.reset(seed=CHEAP_SEED)
    moves = ModernArtMoves(info["deal"], env.rules)
    score, _, actions = play_recorded(env, RandomAgent(1), CHEAP_SEED, None)
    review = review_game(moves, actions, score)
    assert review["optimum"] == moves.optimum > 0


def test_settings_without_proven_move_values_are_refused(capsys) -> None:
    with pytest.raises(NoMoveOracleError, match="one-round games"):
        ModernArtMoves(random_deal(ModernArtRules(), 0), ModernArtRules())
    spec = get_game("modern_art")
    with pytest.raises(NoMoveOracleError, match="--rounds 1"):
        move_oracle_factory(spec, {"rounds": 2})
    with pytest.raises(NoMoveOracleError, match="greedy bots"):
        move_oracle_factory(spec, {"rounds": 1, "opponents": "random"})
    # A deal whose search needs more than the work limit: refused, never valued.
    rules = ModernArtRules(deals=(13,))
    with pytest.raises(NoMoveOracleError, match="work limit"):
        ModernArtMoves(random_deal(rules, 0), rules, max_positions=10)
    assert main(["evaluate", "modern_art", "--moves", "--agent", "random", "--episodes", "1"]) == 2
    assert "one-round games (--rounds 1)" in capsys.readouterr().err


def test_positions_that_are_not_a_play_of_the_deal_are_refused() -> None:
    env = ModernArtEnv(reveal_deal=True, **SMALL[0])
    _, info = env.reset(seed=0)
    moves = ModernArtMoves(info["deal"], env.rules)
    illegal = next(a for a in range(36) if a not in env.state.legal_actions())
    with pytest.raises(ValueError, match="not a play of deal"):
        moves.at([illegal])
    other = ModernArtEnv(reveal_deal=True, **SMALL[0])
    other.reset(seed=1)
    with pytest.raises(ValueError, match="another deal"):
        moves.at_state(other.state)
    while not env.state.done:
        env.step(env.state.legal_actions()[0])
    with pytest.raises(ValueError, match="game is over"):
        moves.at_state(env.state)


def test_evaluate_moves_totals_equal_optimum_minus_score_on_every_deal(tmp_path, capsys) -> None:
    out = tmp_path / "moves"
    args = ["evaluate", "modern_art", "--rounds", "1", "--moves", "--agent", "random,greedy"]
    args += ["--episodes", "1", "--seed", str(CHEAP_SEED), "--out", str(out), "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "optimal decisions" in printed and "blunders/game (>3)" in printed  # Modern Art's default
    report = json.loads((out / "moves.json").read_text())
    rules = ModernArtRules(deals=(13,))
    deal = random_deal(rules, CHEAP_SEED)
    optimum = ModernArtMoves(deal, rules).optimum
    for name, entry in report["agents"].items():
        (game,) = entry["games"]
        assert game["deal"] == deal and game["optimum"] == optimum
        assert sum(game["losses"]) == optimum - game["score"], name
        assert entry["total_points_lost"] == optimum - game["score"]


class _StoredSuite:
    """A one-round suite of one deal whose stored optimum is proven (every player helping the seat)."""

    id, checksum = "modern_art-test", "0"

    def __init__(self, deal: str, optimum: int) -> None:
        self.entries = [SimpleNamespace(seed=CHEAP_SEED, deal=deal)]
        self._optimum = optimum

    def __len__(self) -> int:
        return len(self.entries)

    def result(self, deal: str) -> OracleResult:
        return OracleResult(score=self._optimum, bound=self._optimum, plan=())


def test_on_a_suite_the_optimum_against_the_bots_stays_under_the_stored_one() -> None:
    # A suite stores solve's optimum (every player helping the seat), above the one against the bots:
    # a proven entry is not required to equal the move optimum, only never to be beaten by it.
    spec, args = get_game("modern_art"), argparse.Namespace(rounds=1)
    rules = ModernArtRules(deals=(13,))
    deal = random_deal(rules, CHEAP_SEED)
    optimum = ModernArtMoves(deal, rules).optimum
    report = evaluate_moves(spec, ["greedy"], None, None, args, progress=False,
                            suite=_StoredSuite(deal, optimum + 5))
    assert report["agents"]["greedy"]["games"][0]["optimum"] == optimum
    with pytest.raises(AssertionError, match="disagrees with suite modern_art-test's bound"):
        below = _StoredSuite(deal, optimum - 1)
        evaluate_moves(spec, ["greedy"], None, None, args, progress=False, suite=below)


@pytest.mark.parametrize("review", ["each", "end"])
def test_play_review_names_the_decisions_that_lost_points_and_the_best(review, monkeypatch, capsys) -> None:
    # Play the costliest decision twice, then stop: both are named with the best decision instead.
    env = ModernArtEnv(rounds=1, reveal_deal=True)
    _, info = env.reset(seed=CHEAP_SEED)
    moves = ModernArtMoves(info["deal"], env.rules)
    answers, lost = [], []
    for _ in range(2):
        values = moves.at_state(env.state)
        options = env.state.legal_actions()
        worst = max(options, key=values.loss)
        answers.append(str(options.index(worst) + 1))
        lost.append((values.loss(worst), values.optimum))
        env.step(worst)
    assert all(loss > 0 for loss, _ in lost)
    _script(monkeypatch, [*answers, "quit"])
    assert main(["play", "modern_art", "--rounds", "1", "--seed", str(CHEAP_SEED), "--review", review]) == 0
    out = capsys.readouterr().out
    for decision, (loss, optimum) in enumerate(lost, 1):
        assert f"decision {decision}: " in out and f"lost {loss:g} points" in out
        assert f"{optimum:g} (knowing every hand, the cards to come and the bots' answers)" in out
    if review == "end":
        assert "decisions that lost points:" in out
        assert out.index("decisions that lost points:") > out.index("stopped in round 1")


def test_play_review_refuses_settings_without_move_values(monkeypatch, capsys) -> None:
    _script(monkeypatch, [])
    assert main(["play", "modern_art", "--seed", "1", "--review", "end"]) == 2
    assert "one-round games (--rounds 1)" in capsys.readouterr().err

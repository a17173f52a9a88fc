"""Nmbr9 with the draw order unknown: exact values against brute force, and the policy that reaches them."""

from __future__ import annotations

import itertools
from fractions import Fraction

import gymnasium as gym
import numpy as np
import pytest

from tabletop_gym.envs.nmbr9.rules import Deal, Nmbr9Rules, Nmbr9State, Variant, footprint, replay
from tabletop_gym.oracles.nmbr9 import search
from tabletop_gym.oracles.nmbr9.policy import Nmbr9OptimalPolicyAgent
from tabletop_gym.oracles.nmbr9.unknown import (
    UnknownTooBigError,
    board_key,
    draw_orders,
    hindsight_mean,
    solve_unknown,
)
from tabletop_gym.training.cli import main


def brute_force(variant: Variant, grid: int, levels: int | None) -> tuple[Fraction, int]:
    """Expectimax and max-min over the whole game tree, no memo and no symmetry: each position is
    the engine's replay of the cards drawn so far and the placements chosen."""
    deck = list(variant.full_deck)

    def value(drawn: tuple[int, ...], actions: tuple[int, ...], left: list[int]) -> tuple[Fraction, int]:
        if len(drawn) == variant.cards:
            return Fraction(0), 0
        expected, guaranteed = Fraction(0), None
        for v in sorted(set(left)):
            p = Fraction(left.count(v), len(left))
            rest = list(left)
            rest.remove(v)
            state = replay(Nmbr9Rules(grid=grid, levels=levels), Deal(drawn + (v,)), list(actions))
            if state.done:  # it fits nowhere: discarded
                e, g = value(drawn + (v,), actions, rest)
            else:
                options = []
                for a in np.flatnonzero(state.action_mask()):
                    points = state.copy().apply(int(a))
                    ce, cg = value(drawn + (v,), actions + (int(a),), rest)
                    options.append((points + ce, points + cg))
                e, g = max(o[0] for o in options), max(o[1] for o in options)
            expected += p * e
            guaranteed = g if guaranteed is None else min(guaranteed, g)
        return expected, guaranteed

    return value((), (), deck)


@pytest.mark.parametrize(
    ("variant", "grid", "levels"),
    [("1-3-3", 4, 2), ("1-3-3", 5, 3), ("1-2-3", 5, 2), ("1-3-4", 5, 2), ("1-2-4", 5, None), ("3-1-3", 4, 3)],
)
def test_values_match_brute_force_over_the_whole_game_tree(variant, grid, levels) -> None:
    v = Variant.parse(variant)
    result = solve_unknown(v, grid, levels)
    assert (result.expected, result.guaranteed) == brute_force(v, grid, levels)
    assert result.expected > 0 or variant == "3-1-3"  # only 3-1-3 on 4x4 scores nothing at all


@pytest.mark.parametrize(("variant", "grid", "levels"), [("4-1-4", 5, 3), ("5-1-4", 5, 2), ("3-2-4", 5, 3)])
def test_not_knowing_the_future_costs_and_never_gains(variant, grid, levels) -> None:
    v = Variant.parse(variant)
    result = solve_unknown(v, grid, levels)
    mean, orders = hindsight_mean(v, grid, levels)
    optima = [search.solve_known(Deal(order), grid, levels).score for order, _ in draw_orders(v)]
    assert orders == len(optima) and sum(p for _, p in draw_orders(v)) == 1
    assert result.guaranteed <= min(optima)
    assert result.guaranteed <= result.expected <= mean


def test_the_policy_reaches_the_expected_value_on_every_order() -> None:
    """Played through ``gym.make`` on each of the 120 orders of 4-1-4 (all equally likely), the
    optimal-policy agent averages exactly the expected value, and never scores below the
    guaranteed value."""
    variant, grid, levels = Variant.parse("4-1-4"), 5, 3
    agent = Nmbr9OptimalPolicyAgent(variant, grid, levels)
    env = gym.make("tabletop/Nmbr9-v0", max_value=4, copies=1, cards=4, grid=grid, levels=levels)
    total = Fraction(0)
    for order, p in draw_orders(variant):
        agent.reset()
        observation, info = env.reset(options={"deal": "".join(map(str, order))})
        done = False
        while not done:
            observation, _, done, _, info = env.step(agent.act(observation, info))
        assert info["score"] >= agent.value.guaranteed
        total += p * info["score"]
    assert total == agent.value.expected


def test_the_policy_refuses_a_board_it_did_not_build() -> None:
    agent = Nmbr9OptimalPolicyAgent("3-1-3", 5, 3)
    env = gym.make("tabletop/Nmbr9-v0", max_value=3, copies=1, cards=3, grid=5, levels=3)
    observation, info = env.reset(options={"deal": "123"})
    observation, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="reset"):
        agent.act(observation, info)


def test_board_key_is_the_same_for_a_turned_board() -> None:
    """Turning the whole layout a quarter turn gives the same position."""
    rng = np.random.default_rng(3)
    grid = 6
    for _ in range(20):
        deal = Deal(tuple(int(v) for v in rng.integers(0, 10, size=3)))
        state = Nmbr9State(deal, grid, 3)
        turned = Nmbr9State(deal, grid, 3)
        while not state.done:
            action = int(rng.choice(np.flatnonzero(state.action_mask())))
            cells = {(c, grid - 1 - r) for r, c in footprint(state.card, action, grid)}  # a quarter turn
            legal = np.flatnonzero(turned.action_mask())
            match = [a for a in legal if set(footprint(turned.card, a, grid)) == cells]
            assert len(match) == 1
            state.apply(action)
            turned.apply(int(match[0]))
        assert board_key(state) == board_key(turned) and state.score == turned.score


def test_a_variant_beyond_the_limit_stops_with_a_clear_error(capsys) -> None:
    with pytest.raises(UnknownTooBigError, match="positions"):
        solve_unknown("5-1-5", 5, 3, max_positions=50)
    too_big = ["solve", "nmbr9", "--unknown", "--variant", "5-1-5", "--grid", "5", "--max-positions", "50"]
    assert main(too_big) == 2
    assert "beyond the exact search's reach" in capsys.readouterr().err
    assert main(["solve", "nmbr9", "--unknown", "--free", "--variant", "4-1-4", "--grid", "5"]) == 2
    assert "do not apply" in capsys.readouterr().err


def test_solve_unknown_prints_both_values_and_the_price_of_not_knowing(capsys) -> None:
    v = Variant.parse("4-1-4")
    result = solve_unknown(v, 5, 3)
    mean, _ = hindsight_mean(v, 5, 3)
    assert main(["solve", "nmbr9", "--unknown", "--variant", "4-1-4", "--grid", "5", "--levels", "3"]) == 0
    out = capsys.readouterr().out
    assert f"{float(result.expected):.4f} (= {result.expected})" in out
    assert f"guaranteed value  {result.guaranteed}" in out
    assert f"{float(mean - result.expected):.4f}" in out


def test_the_next_card_is_drawn_only_after_the_last_is_placed() -> None:
    state = Nmbr9State(Deal((1, 2)), 5, 3)
    with pytest.raises(ValueError, match="placed before"):
        state.with_next(3)
    with pytest.raises(ValueError, match="tile value"):
        Nmbr9State(Deal(()), 5, 3).with_next(10)
    drawn = Nmbr9State(Deal(()), 5, 3).with_next(4)
    assert drawn.card == 4 and drawn.action_mask().any()
    assert list(itertools.islice(draw_orders(Variant.parse("1-1-2")), 3)) == [
        ((0, 1), Fraction(1, 2)),
        ((1, 0), Fraction(1, 2)),
    ]


def test_evaluate_reports_score_over_the_expected_value(tmp_path, capsys) -> None:
    import json

    args = ["evaluate", "nmbr9", "--variant", "4-1-4", "--grid", "5", "--levels", "3", "--episodes", "12"]
    args += ["--agent", "greedy,optimal-policy", "--expected-value", "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    assert "score/expected value" in capsys.readouterr().out
    report = json.loads((tmp_path / "evaluation.json").read_text())
    expected = float(solve_unknown("4-1-4", 5, 3).expected)
    assert report["references"] == {"expected_value": expected}
    for entry in report["agents"].values():
        assert entry["over_expected_value"] == pytest.approx(entry["mean_score"] / expected)
    # Without the flag, nothing is solved beyond the per-deal oracle.
    assert main(args[:-4] + ["--out", str(tmp_path / "plain"), "--no-progress"]) == 0
    plain = json.loads((tmp_path / "plain" / "evaluation.json").read_text())
    assert "references" not in plain


def test_the_standard_game_is_refused_quickly_by_work_not_by_waiting(tmp_path, capsys) -> None:
    """The limit counts placements tried, so a variant far beyond reach stops at once with a low one."""
    args = ["evaluate", "nmbr9", "--agent", "optimal-policy", "--episodes", "1", "--max-positions", "3000"]
    assert main(args + ["--out", str(tmp_path), "--no-progress"]) == 2
    assert "3,000 positions visited" in capsys.readouterr().err

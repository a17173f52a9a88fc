"""Dominion's API checks its numbers as the command line does: numpy integers are accepted, bad values
(zero where a count is needed, NaN, infinities, bools) raise a ValueError naming the parameter, and
reset's options and deals give clear errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.dominion import tournament
from tabletop_gym.core import InvalidDealError, OracleCache
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import DominionEnv, DominionSolitaireEnv
from tabletop_gym.oracles import dominion as oracle


def test_numpy_numbers_are_accepted_everywhere():
    env = DominionSolitaireEnv(target=np.int64(2), turn_limit=np.int32(30), province_reward=np.float32(0.5),
                               money_reward=np.int64(1))
    assert env.target == 2 and env.turn_limit == 30 and env.province_reward == 0.5
    versus = DominionEnv(["big-money", "random"], seat=np.int64(1), vp_shaping=np.float64(0.1))
    assert versus.seat == 1 and versus.vp_shaping == pytest.approx(0.1)
    state = R.DominionState(np.int64(2), "", np.uint64(7), None, np.int16(10))
    assert state.num_players == 2 and state.turn_limit == 10 and state.seed == 7
    assert oracle.solve(np.int64(5), np.int64(1), np.float32(30)).optimal
    assert tournament(["big-money", "big-money"], np.int64(2), np.int64(1))["games"] == 2


@pytest.mark.parametrize(("make", "name"), [
    (lambda: DominionSolitaireEnv(target=0), "target"),
    (lambda: DominionSolitaireEnv(target=9), "target"),
    (lambda: DominionSolitaireEnv(target=2.0), "target"),
    (lambda: DominionSolitaireEnv(target=True), "target"),
    (lambda: DominionSolitaireEnv(target=None), "target"),
    (lambda: DominionSolitaireEnv(turn_limit=0), "turn_limit"),
    (lambda: DominionSolitaireEnv(turn_limit=None), "turn_limit"),  # an endless episode otherwise
    (lambda: DominionSolitaireEnv(province_reward=float("nan")), "province_reward"),
    (lambda: DominionSolitaireEnv(money_reward=float("inf")), "money_reward"),
    (lambda: DominionSolitaireEnv(money_reward=-1), "money_reward"),
    (lambda: DominionEnv(seat=-1), "seat"),
    (lambda: DominionEnv(seat=1.0), "seat"),
    (lambda: DominionEnv(vp_shaping=float("nan")), "vp_shaping"),
    (lambda: DominionEnv(turn_limit=-5), "turn_limit"),
    (lambda: R.DominionState(0), "num_players"),
    (lambda: R.DominionState(5), "num_players"),
    (lambda: R.DominionState(1, "", 0, 0), "target"),
    (lambda: R.DominionState(2, "", 0, None, 0), "turn_limit"),
    (lambda: R.supply_sizes(np.float64(2)), "num_players"),
    (lambda: oracle.solve(1, target=0), "target"),
    (lambda: oracle.solve(1, time_limit=float("nan")), "time_limit"),
    (lambda: oracle.solve(1, time_limit=float("inf")), "time_limit"),
    (lambda: oracle.solve(1, time_limit=0), "time_limit"),
    (lambda: oracle.solve_cached(1, 2, OracleCache("/nonexistent"), time_limit=-1), "time_limit"),
    (lambda: oracle.solve(1, work_limit=0), "work_limit"),
    (lambda: oracle.solve(1, work_limit=2.5), "work_limit"),
    (lambda: oracle.solve(1, kingdom="first-game", work_limit=-3), "work_limit"),
    (lambda: tournament(["big-money"], 0), "games"),
    (lambda: tournament(["big-money"], -1), "games"),
    (lambda: tournament(["big-money"], 1, seed=-1), "seed"),
])
def test_bad_numbers_name_the_parameter(make, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        make()


def test_the_oracle_time_limit_binds():
    # Market and Village to 4 Provinces take far longer than this to prove (README): the search stops
    # at the limit and reports a bound, and its plan still replays.
    result = oracle.solve(0, 4, time_limit=0.05, kingdom="market,village")
    assert result.stats["timed_out"] and not result.optimal
    assert oracle.replay_turns(0, result.plan, 4, "market,village") == -result.score


@pytest.mark.parametrize("env_id", ["tabletop/Dominion-v0", "tabletop/DominionSolitaire-v0"])
def test_reset_options_and_deals(env_id):
    env = gym.make(env_id, reveal_deal=True).unwrapped
    _, info = env.reset(options={"deal": np.int64(5)})
    assert info["deal"] == "5"
    _, info = env.reset(options={"deal": " 0012 "})
    assert info["deal"] == "12"
    with pytest.raises(TypeError, match="options must be None or a dict"):
        env.reset(options="x")
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"seed": 3})
    for deal in ("x", "²", "٣", "-1", "1.5", "", 2.0, True, [1], str(2**64)):
        with pytest.raises(InvalidDealError):
            env.reset(options={"deal": deal})
    with pytest.raises(InvalidDealError) as error:
        env.reset(options={"deal": "9" * 1_000_000})
    assert len(str(error.value)) < 200  # a bounded prefix, not the whole input


def test_step_takes_what_the_space_contains():
    # model.predict returns a 0-d array; numpy integers work as well.
    env = DominionSolitaireEnv()
    _, info = env.reset(seed=3)
    action = int(np.flatnonzero(info["action_mask"])[-1])
    _, _, _, _, info = env.step(np.array(action))
    assert info["turns"] == 1  # the pass ended the first turn
    _, _, _, _, info = env.step(np.int64(np.flatnonzero(info["action_mask"])[-1]))
    assert info["turns"] == 2


def test_kingdom_errors_quote_a_bounded_prefix():
    with pytest.raises(ValueError, match="unknown card") as error:
        R.parse_kingdom("smithy," + "z" * 100_000)
    assert len(str(error.value)) < 400
    with pytest.raises(ValueError, match="kingdom must be"):
        R.parse_kingdom(5)


def test_why_illegal_speaks_in_the_games_words():
    state = R.DominionState(1, "", 5, 1)  # seed 5 opens with $3
    assert state.why_illegal(R.DUCHY) == "Duchy costs $5 and only $3 is available"
    assert state.why_illegal(R.SMITHY) == "Smithy is not in this game's supply"
    assert "buy a card: $3, 1 Buy" in state.question()

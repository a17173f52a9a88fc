"""Dominion environments: Gymnasium API, masks, rewards, replay by deal, errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401
from tabletop_gym.agents.dominion import BigMoney, SmithyBigMoney, play_game, solitaire_turns
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import (
    COUNTERS,
    DECISION,
    HAND,
    SUPPLY,
    DominionEnv,
    DominionSolitaireEnv,
)


def test_make_both_ids_without_import():
    for env_id in ("tabletop_gym:tabletop/Dominion-v0", "tabletop_gym:tabletop/DominionSolitaire-v0"):
        env = gym.make(env_id, reveal_deal=True)  # the seed is hidden information: shown on request
        _, info = env.reset(seed=0)
        assert R.parse_seed(info["deal"]) >= 0


def test_solitaire_return_is_minus_turns_and_matches_the_engine():
    env = DominionSolitaireEnv(render_mode="ansi")
    bot = BigMoney()
    obs, info = env.reset(options={"deal": "12345"})
    assert "Copper" in env.render()
    total, done = 0.0, False
    while not done:
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        obs, reward, terminated, truncated, info = env.step(bot.act(obs, info))
        total += reward
        done = terminated or truncated
    assert terminated and info["provinces"] == 4
    assert total == info["score"] == -solitaire_turns("big-money", 12345)
    with pytest.raises(GameOverError):
        env.step(R.PASS)


def test_bot_acting_from_observation_equals_bot_on_engine():
    # The rule bot decoding the observation plays exactly as on the engine's view: the observation
    # holds what the bot needs (hand, coins, supply, own cards).
    env = DominionEnv(opponents="big-money", kingdom=None)
    bot = SmithyBigMoney()
    obs, info = env.reset(options={"deal": "99"})
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(bot.act(obs, info))
        done = terminated or truncated
    final = play_game([SmithyBigMoney(), BigMoney()], seed=99, kingdom=None, turn_limit=100)
    assert info["score"] == final.vp(0) and info["result"] == final.results()[0] == reward


def test_same_seed_same_game_and_observation_contents():
    env = DominionEnv(reveal_deal=True)
    obs1, info1 = env.reset(seed=7)
    obs2, info2 = env.reset(seed=7)
    assert info1["deal"] == info2["deal"] and np.array_equal(obs1, obs2)
    assert obs1[DECISION.start + R.BUY] == 1 and obs1[SUPPLY.start + R.PROVINCE] == 8
    assert obs1[HAND].sum() == 5 - env.state.in_play[0][R.COPPER]  # Coppers are already in play
    assert env.observation_space.contains(obs1)


def test_agent_answers_militia_on_the_opponents_turn():
    # Random play against a Militia-heavy opponent: whenever the agent must discard, it is asked.
    class MilitiaBot(BigMoney):
        name = "militia"
        action_priority = (R.MILITIA,)

        def buy(self, view):
            return R.MILITIA if 4 <= view.coins <= 5 else super().buy(view)

    env = DominionEnv(opponents=MilitiaBot())
    rng = np.random.default_rng(0)
    asked = 0
    for episode in range(3):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            asked += info["decision"] == "militia_discard"
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert asked > 0


def test_illegal_and_bad_arguments():
    env = DominionSolitaireEnv()
    _, info = env.reset(seed=1)
    with pytest.raises(IllegalActionError) as err:
        env.step(R.PROVINCE)
    assert R.PASS in err.value.legal
    with pytest.raises(IllegalActionError):
        env.step(1.5)
    with pytest.raises(InvalidDealError):
        env.reset(options={"deal": "not a seed"})
    with pytest.raises(ValueError, match="unknown Dominion bot"):
        DominionEnv(opponents="nobody")
    with pytest.raises(ValueError, match="seat"):
        DominionEnv(seat=3)
    with pytest.raises(ValueError, match="opponents"):
        DominionEnv(opponents=["big-money"] * 4)
    with pytest.raises(ValueError, match="target"):
        DominionSolitaireEnv(target=0)
    with pytest.raises(ValueError, match="render_mode"):
        DominionSolitaireEnv(render_mode="human")
    with pytest.raises(GameOverError):
        DominionEnv().step(0)


def test_turn_limit_truncates():
    env = DominionSolitaireEnv(turn_limit=3)
    _, info = env.reset(seed=0)
    steps = 0
    truncated = terminated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, info = env.step(R.PASS)
        steps += 1
    assert truncated and not terminated and steps == 3 and info["score"] == -3


def test_versus_render_shows_what_the_agent_may_see():
    env = DominionEnv(opponents="big-money", render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    me = next(line for line in text.splitlines() if line.startswith("player 0:"))
    bot = next(line for line in text.splitlines() if line.startswith("player 1:"))
    assert "hand [" in me and "hand [" not in bot and "5 cards in hand" in bot


def _play_until(env, state, decision):
    """Answer every decision with pass (or the first legal card where pass is not legal) until
    ``decision`` comes up."""
    while state.decision != decision:
        legal = state.legal_actions()
        env.step(R.PASS if R.PASS in legal else legal[0])


def test_the_cellar_counter_does_not_leak_into_later_turns():
    env = DominionSolitaireEnv(kingdom="cellar", turn_limit=60)
    env.reset(options={"deal": "3"})
    state = env.state
    # A hand with Cellar and four Coppers: discard two to Cellar, then draw two.
    state.hand[0] = [0] * R.NUM_CARDS
    state.hand[0][R.CELLAR], state.hand[0][R.COPPER] = 1, 4
    state.owned[0][R.CELLAR] += 1
    state._start_turn()
    env.step(R.CELLAR)
    env.step(R.COPPER)
    obs, *_ = env.step(R.COPPER)
    counter = obs[-len(COUNTERS):][COUNTERS.index("cellar_discarded")]
    assert counter == 2  # shown while Cellar is resolving
    env.step(R.PASS)  # draw two
    obs, *_ = env.step(R.PASS)  # buy nothing: the next turn starts
    assert obs[-len(COUNTERS):][COUNTERS.index("cellar_discarded")] == 0
    assert state.turns[0] == 1


def test_a_solitaire_episode_ends_when_the_target_becomes_unreachable():
    # Target 8 Provinces, 7 owned, 1 in the supply: Remodel trashes a Province (and gains the last
    # one), so at most 7 can ever be owned again: the episode must end with that turn.
    env = DominionSolitaireEnv(kingdom="remodel", target=8, turn_limit=30)
    env.reset(options={"deal": "1"})
    state = env.state
    state.hand[0] = [0] * R.NUM_CARDS
    state.hand[0][R.REMODEL], state.hand[0][R.PROVINCE] = 1, 1
    state.owned[0][R.REMODEL] += 1
    state.owned[0][R.PROVINCE] = 7
    state.discard[0][R.PROVINCE] = 6
    state.supply[R.PROVINCE] = 1
    state._start_turn()
    env.step(R.REMODEL)
    env.step(R.PROVINCE)  # trash it
    env.step(R.PROVINCE)  # gain the last one: 7 owned, none left
    obs, reward, terminated, truncated, info = env.step(R.PASS)  # buy nothing: the turn ends
    assert terminated and not truncated
    assert state.done
    # The turns the player can no longer use are charged: as if cut off at the turn limit.
    assert reward == -30.0 and info["score"] == -30
    with pytest.raises(GameOverError):
        env.step(R.PASS)


def test_the_solitaire_environment_refuses_no_turn_limit():
    with pytest.raises(ValueError, match="turn_limit"):
        DominionSolitaireEnv(turn_limit=None)
    with pytest.raises(ValueError, match="turn_limit"):
        gym.make("tabletop/DominionSolitaire-v0", turn_limit=None)


def test_the_environment_module_does_not_import_the_agents_at_load():
    # The bots import the engine; an environment importing the bots at module level made a circle.
    import ast
    import inspect

    from tabletop_gym.envs.dominion import env as env_module

    tree = ast.parse(inspect.getsource(env_module))
    top_level = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    modules = [node.module or "" for node in top_level if isinstance(node, ast.ImportFrom)]
    modules += [alias.name for node in top_level if isinstance(node, ast.Import) for alias in node.names]
    assert not [m for m in modules if m.startswith("tabletop_gym.agents")]


def test_score_plan_is_the_score_the_environment_gives_the_plan():
    from tabletop_gym.envs.dominion.env import score_plan

    kwargs = {"target": 2, "kingdom": "smithy", "province_reward": 1.0}
    env = DominionSolitaireEnv(**kwargs)
    obs, info = env.reset(seed=3)
    bot, plan = SmithyBigMoney(), []
    done = False
    while not done:
        plan.append(bot.act(obs, info))
        obs, _, terminated, truncated, info = env.step(plan[-1])
        done = terminated or truncated
    assert score_plan(info["deal"], plan, **kwargs) == info["score"] < 0
    assert score_plan(int(info["deal"]), plan, **kwargs) == info["score"]  # the parsed deal too
    with pytest.raises(ValueError, match="stops before the episode ends"):
        score_plan(info["deal"], plan[:-1], **kwargs)
    with pytest.raises(IllegalActionError):
        score_plan(info["deal"], [R.PROVINCE, *plan], **kwargs)
    with pytest.raises(TypeError):
        score_plan(info["deal"], plan, opponents="big-money")  # the game against bots has no plans
    # A game cut off at the turn limit scores as the environment says: minus the limit.
    cut = DominionSolitaireEnv(target=2, turn_limit=3)
    cut.reset(options={"deal": info["deal"]})
    passes = []
    while not cut.state.done:
        passes.append(R.PASS)
        *_, cut_info = cut.step(R.PASS)
    assert score_plan(info["deal"], passes, target=2, turn_limit=3) == cut_info["score"] == -3

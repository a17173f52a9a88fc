"""Nmbr9 players: the greedy heuristic and the beam-search planner, checked through the engine."""

from __future__ import annotations

import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.nmbr9 import Nmbr9GreedyAgent, greedy_action
from tabletop_gym.envs.nmbr9.env import Nmbr9Env
from tabletop_gym.envs.nmbr9.rules import Nmbr9Rules, Nmbr9State, footprint, random_deal, replay
from tabletop_gym.oracles import nmbr9 as oracle


def _box(cells) -> int:
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return (max(rows) - min(rows) + 1) * (max(cols) - min(cols) + 1)


def test_greedy_takes_the_most_points_then_the_most_compact_table() -> None:
    for seed in range(3):
        state = Nmbr9State(random_deal(seed), 12)
        while not state.done:
            legal = state.legal_actions()
            action = greedy_action(state)
            assert action in legal
            # Most points now, by the engine's own reckoning of every legal placement.
            points = {a: state.points_if_placed(a) for a in legal}
            assert points[action] == max(points.values())
            if state.turn and points[action] == 0:
                # On the table: no legal placement grows the bounding box of the layout less.
                occupied = [tuple(rc) for rc in np.argwhere(state.height > 0)]
                value = state.card
                grown = {a: _box(occupied + list(footprint(value, a, 12))) for a in legal if points[a] == 0}
                assert grown[action] == min(grown.values())
            state.apply(action)


def test_greedy_agent_plays_from_observations_like_the_engine_player() -> None:
    env = Nmbr9Env(grid=14)
    agent = Nmbr9GreedyAgent()
    agent.reset()
    obs, info = env.reset(seed=11)
    plan = []
    done = False
    while not done:
        action = agent.act(obs, info)
        assert action == greedy_action(env.state)
        assert info["action_mask"][action] == 1
        plan.append(action)
        obs, _, done, _, info = env.step(action)
    # The same game as the oracle's greedy plan on that deal.
    deal = env.state.deal
    assert plan == oracle.greedy_plan(deal, 14)
    assert replay(Nmbr9Rules(grid=14), deal, plan).score == info["score"]


def test_greedy_beats_random_on_average() -> None:
    env = Nmbr9Env()
    totals = {"greedy": 0.0, "random": 0.0}
    for name, agent in (("greedy", Nmbr9GreedyAgent()), ("random", RandomAgent(0))):
        for seed in range(4):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, _, done, _, info = env.step(agent.act(obs, info))
            totals[name] += info["score"]
    assert totals["greedy"] > totals["random"]


def test_beam_plan_replays_and_the_oracle_keeps_the_best_plan() -> None:
    deal = random_deal(3)
    found = oracle.beam_plan(deal, 20, width=4, per_table=4, per_level=3)
    assert found is not None
    plan, score = found
    state = replay(Nmbr9Rules(grid=20), deal, plan)
    assert state.done and not state.discarded and state.score == score
    plan, score = oracle.beam_plan(deal, 20, width=4, per_table=4, per_level=3, per_parent=1)
    assert replay(Nmbr9Rules(grid=20), deal, plan).score == score
    result = oracle.solve(deal, grid=20, time_limit=2)
    assert oracle.check(deal, result, 20)
    assert result.stats["greedy"] <= result.score <= result.bound
    assert result.bound <= result.stats["relaxation_bound"]
    assert all(s <= result.score for s in result.stats["beam_runs"])


def test_beam_plan_gives_up_past_its_deadline() -> None:
    assert oracle.beam_plan(random_deal(0), 20, deadline=0.0) is None

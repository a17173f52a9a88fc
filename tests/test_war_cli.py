"""War's command-line glue and agents: stats, solve, agents playing legal moves."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.war import ConventionAgent, GreedyAgent
from tabletop_gym.envs.war.env import WarEnv
from tabletop_gym.envs.war.rules import WarRules, parse_deal, play_game
from tabletop_gym.training.cli import main


def test_stats_command_writes_shares(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["stats", "war", "--games", "300", "--ranks", "5", "--suits", "2", "--out", str(tmp_path)]) == 0
    )
    report = json.loads((tmp_path / "war.json").read_text())
    shares = [
        report[k]
        for k in (
            "share_player0_wins",
            "share_player1_wins",
            "share_both_out",
            "share_cycles",
            "share_max_tricks",
        )
    ]
    assert abs(sum(shares) - 1.0) < 1e-9
    assert report["games"] == 300 and "tricks_p50" in capsys.readouterr().out


def test_solve_command_small_deck(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["solve", "war", "--ranks", "3", "--suits", "2", "--face-down", "1", "--deal", "432/234"]
    assert main(args) == 0
    assert "proven optimal" in capsys.readouterr().out
    assert main(["solve", "war", "--seed", "0"]) == 2  # a full deck without --horizon: a clear error


def test_convention_agent_reproduces_the_convention() -> None:
    # Player 0 on ConventionAgent(c) against player 1 on c plays exactly the simulation under c.
    for pickup in ("winner_first", "loser_first", "high_first"):
        rules = WarRules(ranks=6, suits=2, face_down=1, pickup=pickup)
        env = WarEnv(ranks=6, suits=2, face_down=1, pickup=pickup, max_tricks=500)
        agent = ConventionAgent(pickup)
        for seed in range(6):
            obs, info = env.reset(seed=seed)
            while not info["game_over"]:
                obs, _, _, _, info = env.step(agent.act(obs, info))
            record = play_game(parse_deal(info["deal"], rules), rules.replace(max_tricks=500))
            if record.end_reason != "cycle":
                assert (
                    info["tricks"] == record.tricks and info["result"] == {0: 1, 1: -1, -1: 0}[record.winner]
                )


@pytest.mark.parametrize("observation", ["full", "hidden"])
def test_agents_play_legal_moves(observation: str) -> None:
    env = WarEnv(observation=observation)
    for agent in (RandomAgent(0), GreedyAgent(), ConventionAgent("high_first")):
        obs, info = env.reset(seed=1)
        for _ in range(60):
            if info["game_over"]:
                break
            action = agent.act(obs, info)
            assert info["action_mask"][action] == 1
            obs, _, term, trunc, info = env.step(action)
            if term or trunc:
                break
    assert np.all(env.action_masks() == info["action_mask"].astype(bool))


def test_settings_are_read_by_field_name_once_with_each_default_from_its_dataclass() -> None:
    import argparse
    import inspect

    from tabletop_gym.oracles.war.limits import WarLimits
    from tabletop_gym.settings import SettingsError
    from tabletop_gym.training.games import get_game
    from tabletop_gym.training.games.war import WarSettings

    spec = get_game("war")
    # A suite's stored settings (names of fields) and names that are not War's are both welcome.
    settings = spec.read({"horizon": 26, "method": "auto", "time_limit": 10.0, "ranks": 6, "episodes": 3})
    assert settings == WarSettings(WarRules(ranks=6), WarLimits("auto", 10.0), horizon=26)
    # Nothing given: every default is the dataclasses', and the environment's own are the same.
    kwargs = spec.env_kwargs(spec.read(argparse.Namespace()))
    defaults = {k: p.default for k, p in inspect.signature(WarEnv).parameters.items() if k in kwargs}
    assert kwargs == defaults
    # A stored value the flag would refuse is refused here too, naming the setting.
    with pytest.raises(SettingsError, match="time_limit must be above 0"):
        spec.read({"time_limit": 0})
    with pytest.raises(SettingsError, match="method must be one of"):
        spec.read({"method": "guess"})

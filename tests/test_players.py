"""Any agent in any seat (``training.players``) and rated tournaments (``training.ratings``)."""

from __future__ import annotations

import json
import pickle
import re
from collections import Counter

import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.envs.dominion.env import DominionEnv
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.env import ModernArtEnv
from tabletop_gym.training import players as P
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.games.dominion import _table as dominion_table
from tabletop_gym.training.ratings import places_from_scores, seatings

DOMINION = get_game("dominion")
MODERN_ART = get_game("modern_art")


@pytest.fixture(scope="module")
def dominion_run(tmp_path_factory):
    """A Dominion model trained for a few hundred steps in seat 0 of a 2-player game (a run folder)."""
    out = tmp_path_factory.mktemp("runs") / "dominion-2p"
    assert main(["train", "dominion", "--opponents", "big-money", "--steps", "256", "--n-envs", "1",
                 "--checkpoint-every", "0", "--out", str(out)]) == 0
    return out


def _untrained(env, path):
    from sb3_contrib import MaskablePPO

    MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64).save(path)  # no config.json beside it
    return path


def _play_out(env, agent) -> dict:
    observation, info = env.reset(seed=3)
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        done = terminated or truncated
    return info


def _error(capsys, argv) -> str:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's refusal
        code = stop.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    return err


def test_bots_and_random_give_a_fresh_agent_per_seat():
    settings = MODERN_ART.read({"players": 3})
    agents = P.load_players(MODERN_ART, ["greedy", "greedy", "random"], settings, "tabletop/ModernArt-v0",
                            {"players": 3}, lambda: ModernArtEnv(players=3), dict)
    assert [type(a) for a in agents] == [GreedyAgent, GreedyAgent, RandomAgent]
    assert len({id(a) for a in agents}) == 3


@pytest.mark.parametrize("entries, message", [
    ("greedy,,random", "an empty player"),
    ("gredy", "unknown modern_art player 'gredy': expected a bot (random, greedy) or a trained model"),
    ("runs/nothing-here", "player 'runs/nothing-here': no trained model at runs/nothing-here"),
])
def test_bad_entries_are_named(entries, message):
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        for entry in P.split_entries(entries):
            P.check_entry(MODERN_ART, entry)
    assert "\n" not in str(error.value)


def test_a_model_folder_and_its_zip_sit_in_every_seat_of_dominion(dominion_run):
    settings = DOMINION.read({"opponents": "big-money"})
    kwargs = {"opponents": ["big-money"], "kingdom": "first-game"}
    for entry in (str(dominion_run), str(dominion_run / "model.zip")):
        (agent,) = P.load_players(DOMINION, [entry], settings, "tabletop/Dominion-v0", kwargs,
                                  lambda: DominionEnv(opponents=["big-money"], kingdom="first-game"),
                                  dominion_table)
        assert agent.model is not None
        seated = P.SeatedAgent(entry, agent)
        # As the opponent in either seat, from that seat's observation: a whole game each.
        for seat in (0, 1):
            env = DominionEnv(opponents=[seated], kingdom="first-game", seat=seat)
            info = _play_out(env, RandomAgent(0))
            assert info["deal"] and info["result"] in (-1, 0, 1)
        # An entry is text to JSON (a run's config.json records it) and pickles whole.
        assert json.loads(json.dumps({"opponents": [seated]})) == {"opponents": [entry]}
        again = pickle.loads(pickle.dumps(seated))
        assert again == entry and again.agent.model is not None


def test_a_model_of_another_table_is_refused_naming_the_difference(dominion_run, capsys):
    err = _error(capsys, ["evaluate", "dominion", "--agent", "random", "--opponents",
                          f"big-money,{dominion_run}", "--episodes", "1"])
    assert f"player {dominion_run}: trained for another table (players=2 there, 3 here)" in err
    err = _error(capsys, ["evaluate", "dominion", "--agent", "random", "--opponents", str(dominion_run),
                          "--kingdom", "smithy", "--episodes", "1"])
    assert "kingdom='first-game' there, 'smithy' here" in err
    err = _error(capsys, ["tournament", "modern_art", "--players", f"greedy,{dominion_run}"])
    assert f"player {dominion_run}: a dominion model, not a modern_art one" in err


def test_a_model_without_config_is_checked_by_its_spaces(tmp_path, capsys):
    three = _untrained(ModernArtEnv(players=3), tmp_path / "three.zip")
    other = _untrained(DominionEnv(opponents=["big-money"]), tmp_path / "dominion.zip")
    settings = MODERN_ART.read({"players": 3})
    (agent,) = P.load_players(MODERN_ART, [str(three)], settings, "tabletop/ModernArt-v0", {"players": 3},
                              lambda: ModernArtEnv(players=3), dict)
    info = _play_out(ModernArtEnv(players=3, seat=2, opponents=[agent, GreedyAgent(settings.rules)]),
                     RandomAgent(1))
    assert len(info["scores"]) == 3
    err = _error(capsys, ["tournament", "modern_art", "--players", f"greedy,{other}", "--out",
                          str(tmp_path / "t")])
    assert f"player {other}: the model was trained for observations" in err


def test_opponents_count_must_fit_the_table(capsys):
    err = _error(capsys, ["evaluate", "modern_art", "--players", "3", "--agent", "random",
                          "--opponents", "greedy", "--episodes", "1"])
    assert "--opponents lists 1 players, but a game of 3 players (--players) has 2 other seats" in err
    err = _error(capsys, ["evaluate", "war", "--agent", "random", "--opponents", "greedy,random"])
    assert "War has one opponent (player 1), got 2" in err


def test_war_pickup_convention_as_opponent_is_the_pickup_rule():
    war = get_game("war")
    settings = war.read({"opponents": "high_first"})
    assert settings.rules.pickup == "high_first" and settings.opponents is None
    kwargs = war.env_kwargs(war.read({"opponents": "greedy"}))
    assert kwargs["opponent"] == "greedy" and hasattr(kwargs["opponent"], "act")


def test_a_model_plays_war_as_player_1_and_the_oracle_steps_aside(tmp_path):
    from tabletop_gym.envs.war.env import WarEnv

    war = get_game("war")
    model = _untrained(WarEnv(ranks=4, suits=2), tmp_path / "war.zip")
    settings = war.read({"ranks": 4, "suits": 2, "opponents": str(model)})
    kwargs = war.env_kwargs(settings)
    assert kwargs["opponent"] == str(model) and kwargs["opponent"].agent.model is not None
    info = _play_out(WarEnv(**kwargs), RandomAgent(2))
    assert info["score"] in (-1, 0, 1)
    # The oracles assume player 1's convention: against an agent they answer nothing.
    assert war.oracle(info["deal"], settings) is None


def test_seatings_rotate_every_group():
    assert seatings(3, 2) == [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
    assert seatings(3, 3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert places_from_scores([5, 9, 9, 1]) == [3, 1, 1, 4]


def test_dominion_tournament_rates_a_bot_above_random_on_the_same_deals(tmp_path, dominion_run, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "dominion", "--players", f"big-money,random,{dominion_run}", "--seats", "2",
                 "--games", "4", "--seed", "7", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    report = json.loads((out / "dominion-ratings.json").read_text())
    assert (out / "dominion-ratings.png").stat().st_size > 0 and "95% interval" in printed
    names = ["big-money", "random", str(dominion_run)]
    assert len(report["seatings"]) == 6 and report["games"] == 6 * 4
    # Seats rotated: every player sits in every seat equally often.
    seats = Counter((name, seat) for r in report["results"] for seat, name in enumerate(r["seating"]))
    assert set(seats.values()) == {8} and len(seats) == 6
    # The same deals at every seating: each seed's deal is one deal, played 6 times.
    by_seed = {}
    for r in report["results"]:
        by_seed.setdefault(r["seed"], set()).add(r["deal"])
    assert sorted(by_seed) == [7, 8, 9, 10] and all(len(d) == 1 for d in by_seed.values())
    assert Counter(r["seed"] for r in report["results"]) == {s: 6 for s in range(7, 11)}
    ratings = report["ratings"]
    assert set(ratings) == set(names)
    assert ratings["big-money"]["mu"] > ratings["random"]["mu"]
    assert ratings["big-money"]["win_share"] > ratings["random"]["win_share"]
    assert all(r["low"] < r["mu"] < r["high"] for r in ratings.values())


def test_modern_art_three_player_tournament_and_the_old_table(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "modern_art", "--players", "greedy,random,greedy", "--rounds", "1",
                 "--games", "2", "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "modern_art-ratings.json").read_text())
    assert report["seats"] == 3 and len(report["seatings"]) == 3 and report["games"] == 6
    assert set(report["ratings"]) == {"greedy#1", "random", "greedy#2"}
    assert all(len(r["places"]) == 3 for r in report["results"])
    # A player count keeps the table of bots it always gave.
    assert main(["tournament", "modern_art", "--players", "3", "--rounds", "1", "--games", "1",
                 "--out", str(out)]) == 0
    assert (out / "modern_art_3p.json").exists()


def test_war_tournament(tmp_path):
    out = tmp_path / "t"
    assert main(["tournament", "war", "--players", "greedy,random", "--ranks", "4", "--suits", "2",
                 "--games", "3", "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "war-ratings.json").read_text())
    assert report["seatings"] == [["greedy", "random"], ["random", "greedy"]]
    assert report["games"] == 2 * (3 - len(report["dropped_seeds"]))


@pytest.mark.parametrize("argv, message", [
    (["tournament", "dominion", "--players", "big-money,random", "--seats", "3"],
     "--seats 3 needs at least 3"),
    (["tournament", "dominion", "--players", "big-money", "--seats", "5"], "--seats"),
    (["tournament", "modern_art", "--players", "3", "--seats", "2"], "--seats is for a list of --players"),
    (["tournament", "modern_art", "--players", "greedy"], "a round robin needs at least 2 players"),
    (["tournament", "modern_art", "--players", "9"], "a player count must be from 2 to 5"),
    (["tournament", "war", "--players", "greedy"], "a round robin needs at least 2 players"),
    (["tournament", "war", "--players", "greedy,nobody"], "unknown war player 'nobody'"),
    (["tournament", "war", "--players", "greedy,random", "--games", "0"], "--games"),
])
def test_tournament_errors_are_one_line(tmp_path, capsys, argv, message):
    err = _error(capsys, [*argv, "--out", str(tmp_path / "t")])
    assert message in err
    assert not list((tmp_path).glob("t/*.json"))


def test_ctrl_c_writes_nothing(tmp_path, monkeypatch, capsys):
    from tabletop_gym.training.games import modern_art

    def interrupted(scores):
        raise KeyboardInterrupt

    monkeypatch.setattr(modern_art, "places_from_scores", interrupted)
    out = tmp_path / "t"
    assert main(["tournament", "modern_art", "--players", "greedy,random", "--rounds", "1", "--games", "2",
                 "--out", str(out), "--no-progress"]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert not list(out.glob("*.json")) and not list(out.glob("*.png"))

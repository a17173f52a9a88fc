"""Modern Art's options, each used or refused: ``solve --free`` with a deal, ``bench``'s options, and
the environment's keywords (``rounds``, an unknown one). No oracle runs here: every oracle call is
replaced by a stand-in, so these tests take well under a second each."""

from __future__ import annotations

import argparse

import gymnasium as gym
import pytest

import tabletop_gym  # noqa: F401
from tabletop_gym.core import GameOverError
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.envs.modern_art.env import RULE_PARAMS, ModernArtEnv
from tabletop_gym.oracles.modern_art import ModernArtLimits
from tabletop_gym.training import cli
from tabletop_gym.training.games import get_game
from tabletop_gym.training.games import modern_art as game

FREE = {"deal": "deal", "score": 1, "plan_source": "stand-in", "bound": 2, "stats": {}, "plan": [35]}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def no_oracle(monkeypatch):
    """The oracle's entry points, replaced: each call is recorded (rules and settings); ``free_deal``
    answers a stand-in result, ``solve`` one with its settings in the stats."""
    calls: list[tuple[str, R.ModernArtRules, dict]] = []

    def free_deal(rules, deals, **settings):
        calls.append(("free_deal", rules, {"deals": deals, **settings}))
        return dict(FREE, relaxation_objective=0)

    def solve(deal, rules, seat, **settings):
        calls.append(("solve", rules, settings))
        return game.OracleResult(score=1, bound=2, plan=(35,), seconds=0.0, stats={})

    monkeypatch.setattr(game.oracle, "free_deal", free_deal)
    monkeypatch.setattr(game.oracle, "solve", solve)
    return calls


# ---- solve --free refuses a deal -------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        ["--deal", "C."],  # an invalid deal: refused for --free, not parsed
        ["--seed", "3"],
        ["--deal", R.random_deal(R.ModernArtRules(deals=(13,)), 1)],  # a valid deal
        ["--players", "3", "--seed", "0"],
    ],
)
def test_free_refuses_deal_and_seed_in_one_line_before_any_work(capsys, no_oracle, extra):
    assert cli.main(["solve", "modern_art", "--rounds", "1", "--free", *extra]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    assert "--free" in err and "--deal and --seed do not apply" in err, err
    assert captured.out == "" and no_oracle == []


def test_free_alone_still_solves_over_every_deal(capsys, no_oracle):
    assert cli.main(["solve", "modern_art", "--rounds", "1", "--free", "--width", "3"]) == 0
    [(name, rules, settings)] = no_oracle
    assert name == "free_deal" and rules == R.ModernArtRules(deals=(13,)) and settings["width"] == 3
    assert "plan actions: 35" in capsys.readouterr().out


# ---- bench: only options it uses -----------------------------------------------------------------


def test_bench_help_lists_neither_players_nor_time_limit(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["bench", "modern_art", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "--bench-players" in out and "--bound-seconds" in out
    assert "--players" not in out and "--time-limit" not in out, out


@pytest.mark.parametrize("option", [["--players", "3"], ["--time-limit", "1"]])
def test_bench_refuses_options_it_would_ignore(capsys, option):
    with pytest.raises(SystemExit) as stop:
        cli.main(["bench", "modern_art", *option])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and option[0] in err, err


class _Recording(argparse.Namespace):
    """A Namespace that notes every option read from it, by name or through ``vars()`` (the game's
    settings are built from ``vars(args)``)."""

    def __getattribute__(self, name: str):
        read = object.__getattribute__(self, "_read")
        if name == "__dict__":
            return _RecordingDict(super().__getattribute__(name), read)
        if not name.startswith("_"):
            read.add(name)
        return super().__getattribute__(name)


class _RecordingDict(dict):
    """The options as ``vars()`` gives them, noting each one looked up."""

    def __init__(self, values: dict, read: set) -> None:
        super().__init__(values)
        self._read = read

    def __getitem__(self, name: str):
        self._read.add(name)
        return super().__getitem__(name)

    def get(self, name: str, default=None):
        self._read.add(name)
        return super().get(name, default)


def test_bench_reads_every_option_it_lists(tmp_path, monkeypatch, capsys, no_oracle):
    """Every option of ``bench modern_art --help`` is read, and its value reaches the work: the
    oracle's width and time (--bound-seconds), the rounds, the deals, the player counts."""
    steps = []
    monkeypatch.setattr(game, "env_steps_per_second", lambda env, n, seed: steps.append(n) or 1.0)
    argv = ["bench", "modern_art", "--rounds", "2", "--width", "3", "--deals", "2", "--env-steps", "7",
            "--bound-seconds", "0.25", "--free-deals", "1", "--bench-players", "3",
            "--out", str(tmp_path)]  # fmt: skip
    parsed = cli.build_parser().parse_args(argv)
    args = _Recording(**vars(parsed))
    object.__setattr__(args, "_read", set())
    assert get_game("modern_art").commands["bench"](args) == 0
    options = set(vars(parsed)) - {"command", "game"}
    assert options <= args._read, f"listed but never read: {sorted(options - args._read)}"
    assert steps == [7, 7, 7]
    rules = R.ModernArtRules(players=3, deals=(13, 6))
    assert [(name, r) for name, r, _ in no_oracle] == [("solve", rules)] * 2 + [("free_deal", rules)]
    for _, _, settings in no_oracle:
        assert settings["width"] == 3 and settings["time_limit"] == 0.25
    assert no_oracle[-1][2]["deals"] == 1
    assert (tmp_path / "modern_art_2_rounds.json").exists()
    capsys.readouterr()


# ---- the environment's keywords --------------------------------------------------------------------


def test_make_with_rounds_plays_a_shorter_game():
    env = gym.make("tabletop/ModernArt-v0", rounds=1)
    base = env.unwrapped
    assert base.rules.deals == (13,) and base.rules.rounds == 1
    obs, info = env.reset(seed=2)
    done = False
    while not done:
        action = int(info["action_mask"].argmax())
        obs, _, done, truncated, info = env.step(action)
        assert info["round"] == 0 and not truncated
    with pytest.raises(GameOverError, match="round 1, the last"):
        base.step(35)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rounds_maps_as_the_command_line_does(players):
    """One mapping: the environment's ``rounds=N`` and the command line's ``--rounds N`` (its
    environment arguments, and the rules its oracle solves) give the same rules."""
    for rounds in range(1, len(R.DEFAULT_DEALS[players]) + 1):
        args = cli.build_parser().parse_args(
            ["train", "modern_art", "--players", str(players), "--rounds", str(rounds)]
        )
        spec = get_game("modern_art")
        from_cli = ModernArtEnv(**spec.env_kwargs(spec.read(args))).rules
        from_env = ModernArtEnv(players=players, rounds=rounds).rules
        assert from_cli == from_env == spec.read(args).rules == R.ModernArtRules(
            players=players, deals=R.DEFAULT_DEALS[players][:rounds]
        )


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"rounds": 0}, ValueError, "rounds must be at least 1, got 0"),
        ({"rounds": 5}, ValueError, "rounds must be at most 4, got 5"),
        ({"rounds": 1.0}, ValueError, "rounds must be an integer"),
        ({"rounds": 1, "deals": (13,)}, ValueError, "rounds and deals"),
        ({"round": 1}, TypeError, "unexpected keyword argument 'round'.*rounds.*deals"),
        ({"_resolved": {}}, TypeError, "unexpected keyword argument '_resolved'"),
    ],
)
def test_bad_keywords_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        ModernArtEnv(**kwargs)


def test_unknown_keyword_names_every_accepted_one():
    with pytest.raises(TypeError) as raised:
        gym.make("tabletop/ModernArt-v0", players=2, foo=1)
    message = str(raised.value)
    assert "'foo'" in message
    for name in ("players", "seat", "opponents", "render_mode", "reveal_deal", "rounds", *RULE_PARAMS):
        assert name in message
    fields = R.ModernArtRules.__dataclass_fields__
    assert set(RULE_PARAMS) == {f for f in fields if f not in ("players", "_resolved")}


def test_docstring_tells_how_to_play_a_shorter_game():
    doc = ModernArtEnv.__doc__
    assert "rounds=1" in doc and "round 4 is scored" not in doc
    assert "`rounds`" in doc and "first_rounds" in doc


# ---- the typed settings ----------------------------------------------------------------------------


def test_settings_read_from_any_command_or_a_suite_by_field_name():
    """The settings from a command's arguments equal those from names stored in a suite; other
    commands' names are ignored (batch solving's ``--deals`` is a seed range, never the rules')."""
    spec = get_game("modern_art")
    assert spec.read(cli.build_parser().parse_args(["solve", "modern_art"])) == game.ModernArtSettings()
    stored = spec.read({"players": 3, "width": 8, "time_limit": 2.0})
    assert stored.rules == R.ModernArtRules(players=3) and stored.limits == ModernArtLimits(8, 2.0)
    assert stored.rounds is None and stored.cache is None
    argv = ["solve", "modern_art", "--rounds", "1", "--deals", "0:2", "--out", "x"]
    args = cli.build_parser().parse_args(argv)
    assert spec.read(args) == spec.read({"rounds": 1}) and spec.read(args).rules.deals == (13,)
    assert spec.read({"rounds": 2}).with_players(3).rules == R.ModernArtRules(players=3, deals=(13, 6))


@pytest.mark.parametrize(
    "values, match",
    [
        ({"width": 0}, "width must be at least 1"),
        ({"time_limit": 0.0}, "time_limit must be above 0"),
        ({"time_limit": float("nan")}, "time_limit must be a finite number"),
        ({"players": 6}, "players must be at most 5"),
        ({"rounds": 5}, "rounds must be at most 4"),
    ],
)
def test_settings_out_of_range_are_named(values, match):
    with pytest.raises(ValueError, match=match):
        get_game("modern_art").read(values)


def test_settings_refuse_rules_that_are_not_the_rounds_asked_for():
    with pytest.raises(ValueError, match="not the first 1 rounds"):
        game.ModernArtSettings(rules=R.ModernArtRules(players=3), rounds=1)

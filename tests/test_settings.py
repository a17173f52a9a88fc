"""Typed settings: flags generated from a settings dataclass, built back once at the edge, and
settings stored by field name read back with unknown names refused."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from tabletop_gym.settings import SettingsError, as_dict, from_dict, option, options_of, replace
from tabletop_gym.training.arguments import Parser, add_options, settings_from


@dataclasses.dataclass(frozen=True)
class Toy:
    ranks: int = option(13, "ranks in the deck", low=1, high=13)
    work: float = option(60.0, "work limit", low=0, high=100, low_open=True)
    pickup: str = option("winner_first", "player 1's convention", choices=("winner_first", "random"))
    horizon: int | None = option(None, "tricks scored", low=1)
    cache: Path | None = option(None, "cache folder")
    force: bool = option(False, "search anyway")
    hidden: int = 7  # not an option: never a flag

    def __post_init__(self) -> None:
        if isinstance(self.cache, str):
            object.__setattr__(self, "cache", Path(self.cache))


def _parser(**kwargs: object) -> Parser:
    parser = Parser(prog="toy")
    add_options(parser, Toy, **kwargs)  # type: ignore[arg-type]
    return parser


def test_flags_come_from_the_fields_with_their_defaults() -> None:
    args = _parser().parse_args([])
    assert settings_from(Toy, args) == Toy()
    args = _parser().parse_args(["--ranks", "6", "--work", "2.5", "--pickup", "random", "--horizon", "26",
                                 "--cache", "c", "--force"])
    assert settings_from(Toy, args) == Toy(6, 2.5, "random", 26, Path("c"), True)
    assert not hasattr(args, "hidden")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ranks", "14"], "from 1 to 13, got 14"),
        (["--ranks", "x"], "expected an integer"),
        (["--work", "0"], "above 0 and at most 100"),
        (["--work", "nan"], "finite"),
        (["--pickup", "loser_first"], "invalid choice"),
        (["--horizon", "0"], "at least 1"),
        (["--cache", ""], "must not be empty"),
    ],
)
def test_a_bad_value_is_refused_in_one_line_naming_the_flag(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        _parser().parse_args(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and argv[0] in err and len(err.strip().splitlines()) == 1


def test_only_and_skip_choose_the_flags() -> None:
    args = _parser(only=["ranks", "force"]).parse_args(["--ranks", "3"])
    assert settings_from(Toy, args) == Toy(ranks=3)
    with pytest.raises(SystemExit):
        _parser(skip=["ranks"]).parse_args(["--ranks", "3"])
    with pytest.raises(TypeError, match="no option nope"):
        _parser(only=["nope"])


def test_help_shows_each_default_once() -> None:
    text = _parser().format_help()
    assert "(default 13)" in text and "(default 60.0)" in text
    assert "hidden" not in text


def test_settings_stored_by_name_read_back_and_unknown_names_refused() -> None:
    settings = Toy(ranks=6, cache=Path("c"))
    stored = as_dict(settings)
    assert stored["cache"] == "c" and stored["ranks"] == 6
    assert from_dict(Toy, stored) == settings
    with pytest.raises(SettingsError, match="no setting 'rank'.*its settings: ranks, work"):
        from_dict(Toy, {"rank": 6})
    with pytest.raises(SettingsError, match="must be a mapping"):
        from_dict(Toy, [("ranks", 6)])  # type: ignore[arg-type]
    assert replace(settings, ranks=2).ranks == 2
    with pytest.raises(SettingsError):
        replace(settings, rnaks=2)


def test_settings_from_takes_overrides_and_ignores_other_flags() -> None:
    args = argparse.Namespace(ranks=4, steps=100, out="x")
    assert settings_from(Toy, args, force=True) == Toy(ranks=4, force=True)


def test_only_option_fields_are_listed() -> None:
    assert [f.name for f, _, _ in options_of(Toy)] == ["ranks", "work", "pickup", "horizon", "cache", "force"]
    with pytest.raises(TypeError, match="mutable|immutable"):
        option([1], "a list")


def _flat(settings: object) -> dict[str, object]:
    """A game's settings by field name, nested settings (rules, limits) opened."""
    flat: dict[str, object] = {}
    for f in dataclasses.fields(settings):  # type: ignore[arg-type]
        value = getattr(settings, f.name)
        if dataclasses.is_dataclass(value) and f.name in ("rules", "limits"):
            flat.update(_flat(value))
        else:
            flat[f.name] = value
    return flat


def test_every_suites_stored_settings_name_a_setting_of_its_game() -> None:
    """A suite's settings are read by field name, other names ignored (a command's --out): a name
    that is no setting would be silently dropped and the suite solved under other settings."""
    from tabletop_gym.training.games import game_names, get_game

    checked = 0
    for name in game_names():
        spec = get_game(name)
        for suite in spec.suites:
            flat = _flat(spec.read(suite.settings))
            for key, value in suite.settings.items():
                assert key in flat, f"suite {suite.name}: {key!r} is none of {name}'s settings {sorted(flat)}"
                assert flat[key] == value or str(flat[key]) == str(value), (suite.name, key, flat[key])
                checked += 1
    assert checked >= 10


def test_a_game_reads_its_settings_from_a_commands_arguments_ignoring_other_options() -> None:
    from tabletop_gym.training.games import game_names, get_game

    for name in game_names():
        spec = get_game(name)
        default = spec.read({})
        assert spec.read(argparse.Namespace(out=Path("x"), steps=5, command="train")) == default
        assert dataclasses.is_dataclass(default), f"{name}'s settings are not typed"

"""Typed settings: frozen dataclasses whose fields say what a user may set, once.

A game's rules (``WarRules``...), its environment's options and its oracle's limits are each a frozen
dataclass. A field declared with :func:`option` carries what the command line needs to offer it
(help, range, choices); the command line generates its flags from those fields
(``tabletop_gym.training.arguments.add_options``) and builds the dataclass once, at the edge, so
every default is written in one place and nothing below the command line reads a parsed-argument
namespace. Suites and results store settings by field name (:func:`as_dict`) and read them back with
:func:`from_dict`, which refuses a name the dataclass does not have.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tabletop_gym.core import TabletopError, quote_input

__all__ = [
    "given",
    "MAX_WORK_LIMIT",
    "WORK_LIMIT_NOTE",
    "Option",
    "SettingsError",
    "as_dict",
    "from_dict",
    "option",
    "options_of",
    "replace",
]

S = TypeVar("S")

MAX_WORK_LIMIT = 86_400.0
"""The largest work limit (``--time-limit``) any command takes: a day of work; more is a typo."""

WORK_LIMIT_NOTE = (
    "counted as work (CP-SAT's deterministic time, positions searched), not by a clock, so every "
    "machine gives the same answer: a unit is about a second of an idle 2-core machine, and the wall "
    "clock can run several times longer on a loaded one"
)
"""What every ``--time-limit`` help says: the limit is deterministic work, not wall-clock seconds."""


class SettingsError(TabletopError, ValueError):
    """Settings that cannot be read: a name the settings do not have, or a value of the wrong kind."""


@dataclasses.dataclass(frozen=True)
class Option:
    """What the command line needs to offer a field as a flag.

    ``low``/``high`` bound a number (``low_open``: above ``low``, not at it); ``choices`` list the
    accepted words; ``flag`` overrides the flag's name (default ``--`` + the field name with dashes);
    ``metavar`` names the value in the help.
    """

    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] | None = None
    flag: str | None = None
    metavar: str | None = None


def option(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    choices: Sequence[str] | None = None,
    flag: str | None = None,
    metavar: str | None = None,
) -> Any:
    """A dataclass field with its default and what the command line shows for it.

    The default is the only copy of it in the package: flags, environments and oracles all read it
    from here."""
    meta = Option(help, low, high, low_open, None if choices is None else tuple(choices), flag, metavar)
    if isinstance(default, (list, dict, set)):
        raise TypeError("a setting's default must be immutable (use a tuple)")
    return dataclasses.field(default=default, metadata={"option": meta})


def _check_settings_class(cls: type) -> None:
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a settings dataclass")


def options_of(cls: type) -> list[tuple[dataclasses.Field, Option, Any]]:
    """The fields of ``cls`` declared with :func:`option`, each with its option and resolved type."""
    _check_settings_class(cls)
    hints = typing.get_type_hints(cls)
    return [
        (f, f.metadata["option"], hints[f.name])
        for f in dataclasses.fields(cls)
        if "option" in f.metadata
    ]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def as_dict(settings: Any) -> dict[str, Any]:
    """The settings by field name, as JSON writes them (tuples as lists, paths as text)."""
    _check_settings_class(type(settings))
    return {f.name: _plain(getattr(settings, f.name)) for f in dataclasses.fields(settings) if f.init}


def from_dict(cls: type[S], values: Mapping[str, Any], what: str | None = None) -> S:
    """``cls`` from settings stored by field name (:func:`as_dict`); names it does not have are
    refused with the names it has. Values are checked by the dataclass itself."""
    _check_settings_class(cls)
    if not isinstance(values, Mapping):
        raise SettingsError(
            f"{what or cls.__name__} must be a mapping of names to values, got {quote_input(values)}"
        )
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = sorted(str(k) for k in values if k not in names)
    if unknown:
        raise SettingsError(
            f"{what or cls.__name__} has no setting {', '.join(map(repr, unknown))}; "
            f"its settings: {', '.join(names)}"
        )
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def given(cls: type, values: Mapping[str, Any], skip: Sequence[str] = ()) -> dict[str, Any]:
    """The values that name an init field of ``cls`` (but those in ``skip``): what a game's settings
    take from a command's parsed arguments (``vars(args)``) or a suite's stored settings, leaving
    the command's other options (``--out``, ``--steps``) alone."""
    _check_settings_class(cls)
    names = [f.name for f in dataclasses.fields(cls) if f.init and f.name not in skip]
    return {name: values[name] for name in names if name in values}


def replace(settings: S, **changes: Any) -> S:
    """A copy of ``settings`` with ``changes``, refusing a name the settings do not have."""
    return from_dict(type(settings), {**as_dict(settings), **changes})

"""Command-line argument types shared by every game: numbers checked for range (and finiteness),
seeds, output folders, and a parser whose errors are one line.

Every numeric option of every command uses one of these types, so a bad value stops the command
before any work with a message that names the option (argparse adds ``argument --seed:``).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import types
import typing
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from tabletop_gym.core import quote_input

# The work limit's ceiling and note are settings' (an oracle's limits declare them); the command
# line's modules import them from here as before.
from tabletop_gym.settings import MAX_WORK_LIMIT, WORK_LIMIT_NOTE, Option, options_of  # noqa: F401

S = TypeVar("S")

SEED_MAX = 2**63 - 1
MAX_DIGITS = 40  # more digits than any bound of any option has


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: what is wrong and where to look for help
    (argparse's default prints the whole usage first, which buries the message)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see: {self.prog} --help)\n")


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def _range_text(low: float | None, high: float | None, low_open: bool = False) -> str:
    if low is not None and high is not None:
        if low_open:
            return f"above {_number(low)} and at most {_number(high)}"
        return f"from {_number(low)} to {_number(high)}"
    if low is not None:
        return f"{'above' if low_open else 'at least'} {_number(low)}"
    return f"at most {_number(high)}" if high is not None else ""


def int_arg(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer within ``[low, high]``."""

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-").lstrip("0")
        if len(digits) > MAX_DIGITS and digits.isascii() and digits.isdigit():
            # int() refuses past 4300 digits and is slow before: such a number is out of any range.
            raise argparse.ArgumentTypeError(
                f"must be {_range_text(low, high)}, got a number of {len(digits)} digits"
            )
        try:
            if not text.isascii():  # int() reads '٣' as 3: only ASCII digits are a number here
                raise ValueError(text)
            value = int(text.strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {quote_input(text)}") from None
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(
                f"must be {_range_text(low, high if high != SEED_MAX else None)}, got {value}"
            )
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be {_range_text(low, high)}, got {value}")
        return value

    parse.__name__ = "integer"
    parse.bounds = (low, high)  # type: ignore[attr-defined]  (read by the tests' option matrix)
    return parse


def float_arg(
    low: float | None = None, high: float | None = None, low_open: bool = False
) -> Callable[[str], float]:
    """An argparse type: a finite number within ``[low, high]`` (``(low, high]`` with ``low_open``);
    NaN and infinities are refused, so a time limit always binds."""

    def parse(text: str) -> float:
        try:
            if not text.isascii():  # float() reads '٣' as 3.0, as int() does
                raise ValueError(text)
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {quote_input(text)}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {quote_input(text)}")
        too_low = low is not None and (value <= low if low_open else value < low)
        if too_low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {_range_text(low, high, low_open)}, got {value:g}")
        return value

    parse.__name__ = "number"
    parse.bounds = (low, high)  # type: ignore[attr-defined]
    return parse


MAX_EPISODES = 1_000_000
"""The most deals one evaluation plays: its report keeps every deal's score and deal string (about a
hundred bytes each), and a million deals of the fastest game take hours."""

MAX_VIDEOS = 1_000  # episodes recorded per agent by evaluate --video: each is a video file

MAX_BLUNDER = 1_000
"""The highest blunder threshold of ``evaluate --moves``: no single decision of any game here can lose
that many points (a Modern Art round pays at most a few hundred), so a larger one is a typo."""

MAX_STEPS = 1_000_000_000
"""The most environment steps one training run takes: about a week at this project's fastest rates;
more is a typo, not a request."""

seed_arg = int_arg(0, SEED_MAX)
"""An argparse type for ``--seed``: a non-negative integer (what Gymnasium's ``reset(seed=...)``
and numpy accept)."""


def nonempty(text: str) -> str:
    """An argparse type: any text but the empty string (``--agent ""``, ``--deal ""``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def path_arg(text: str) -> Path:
    """An argparse type for ``--out`` and ``--cache``: a non-empty path (``Path("")`` would
    silently mean the current folder)."""
    return Path(nonempty(text))


def check_output_dir(path: Path, option: str = "--out") -> None:
    """Make sure ``path`` is (or can become) a writable folder, before any work starts: a report
    computed for an hour and then lost to a typo in ``--out`` is the failure this prevents."""
    for parent in (path, *path.parents):
        if parent.exists() and not parent.is_dir():
            kind = "a file" if parent.is_file() else "not a folder"  # a device (/dev/zero), a FIFO
            where = f"is {kind}" if parent == path else f"lies under {parent}, which is {kind}"
            raise ValueError(f"{option} {path} {where}; expected a folder")
    # The folders made for the test are removed after it: a command refused by a later check must
    # leave nothing behind (whatever writes the results makes the folder again).
    made = [p for p in (path, *path.parents) if not p.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{uuid.uuid4().hex[:8]}"
        probe.touch()
        probe.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(f"{option} {path} is not a writable folder ({reason})") from None
    finally:
        for folder in made:  # deepest first
            try:
                folder.rmdir()
            except OSError:
                pass


def check_file_path(path: Path, option: str = "--out") -> None:
    """A file to be written later that no file can be (a name too long, a folder in its place),
    refused before the work whose result it would hold."""
    try:
        if path.is_dir():
            raise ValueError(f"{option} {path} is a folder; expected a file")
    except OSError as error:
        raise ValueError(f"{option} {quote_input(str(path))} cannot be a file ({error.strerror})") from None


def check_cache_dir(path: Path | None, option: str = "--cache") -> None:
    """A cache folder that is a file (or lies under one) is refused; an unwritable cache is only
    read (the oracle cache warns and keeps every result in memory)."""
    if path is None:
        return
    for parent in (path, *path.parents):
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"{option} {path}: {parent} is a file; expected a folder")


def stop_on_broken_pipe() -> int:
    """After stdout's reader went away (``| head``): silence the rest of the output, exit quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


def one_line(error: BaseException, limit: int = 500) -> str:
    """An error as one line: its message's first line (or its type's name), at most ``limit`` chars."""
    text = str(error).strip()
    first = text.splitlines()[0] if text else type(error).__name__
    return first if len(first) <= limit else first[:limit] + "..."


def _optional(kind: Any) -> tuple[Any, bool]:
    """``int | None`` -> (int, True); ``int`` -> (int, False)."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0], True
    return kind, False


def _flag_type(name: str, kind: Any, opt: Option) -> Callable[[str], Any] | None:
    base, _ = _optional(kind)
    if opt.choices is not None:
        return None
    if base is int:
        return int_arg(None if opt.low is None else int(opt.low), None if opt.high is None else int(opt.high))
    if base is float:
        return float_arg(opt.low, opt.high, opt.low_open)
    if base is Path:
        return path_arg
    if base is str:
        return nonempty
    raise TypeError(f"setting {name!r}: no command-line type for {kind!r}")


def add_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    settings: type,
    only: Iterable[str] | None = None,
    skip: Iterable[str] = (),
    help: Mapping[str, str] | None = None,
) -> None:
    """Flags for the fields of a settings dataclass declared with ``tabletop_gym.settings.option``:
    ``--face-down`` for ``face_down``, typed and range-checked as the field is, its default the
    field's. ``only``/``skip`` choose fields by name (in the dataclass's order); ``help`` replaces a
    field's help where one command says more. :func:`settings_from` builds the dataclass back."""
    chosen = None if only is None else set(only)
    skipped = set(skip)
    overrides = dict(help or {})
    for field, opt, kind in options_of(settings):
        if field.name in skipped or (chosen is not None and field.name not in chosen):
            continue
        flag = opt.flag or "--" + field.name.replace("_", "-")
        text = overrides.get(field.name, opt.help)
        default = field.default
        if kind is bool:
            parser.add_argument(flag, dest=field.name, action="store_true", default=default, help=text)
            continue
        if default is not None and "(default" not in text:
            shown = f"{default:,}" if isinstance(default, int) and default >= 10_000 else default
            text = f"{text} (default {shown})"
        parser.add_argument(
            flag,
            dest=field.name,
            type=_flag_type(field.name, kind, opt),
            choices=opt.choices,
            default=default,
            metavar=opt.metavar,
            help=text,
        )
    if chosen is not None:
        missing = chosen - {f.name for f, _, _ in options_of(settings)}
        if missing:
            raise TypeError(f"{settings.__name__} has no option {', '.join(sorted(missing))}")


def settings_from(settings: type[S], args: argparse.Namespace, **overrides: Any) -> S:
    """The settings dataclass from parsed arguments: each field a flag of this command gave, the
    field's own default for the rest (a command that does not offer an option takes its default).
    This is the one place a namespace becomes settings; below it nothing reads ``args``."""
    given = vars(args)
    names = [f.name for f in dataclasses.fields(settings) if f.init]  # type: ignore[arg-type]
    values = {name: given[name] for name in names if name in given}
    values.update(overrides)
    return settings(**values)

"""The probe agent on the command line: its options (``--probe-weight``, ``--probes``), which each
game's settings hold as ``probe_weight`` and ``probes`` (its agent factory makes the agent from
them). The search itself is ``tabletop_gym.agents.probe``; its numbers' ranges are checked there
too, so the command line and the API refuse the same values."""

from __future__ import annotations

import argparse

from tabletop_gym.agents.probe import DEFAULT_PROBES, DEFAULT_WEIGHT, MAX_PROBES
from tabletop_gym.training.arguments import float_arg, int_arg


def add_probe_arguments(parser: argparse.ArgumentParser, most: int | None = None) -> None:
    """The probe agent's options for a game's ``evaluate``; with ``most`` (bench), ``--probes`` is the
    largest count of the anytime curve instead."""
    parser.add_argument(
        "--probe-weight",
        type=float_arg(0, 1, low_open=True),
        default=DEFAULT_WEIGHT,
        help=f"agent probe: chance of committing to each move, best first (default {DEFAULT_WEIGHT})",
    )
    default = DEFAULT_PROBES if most is None else most
    what = (
        "agent probe: whole games played from the deal, the best one kept"
        if most is None
        else "the most probes of the curve, read at 1, 10, 100..."
    )
    parser.add_argument(
        "--probes", type=int_arg(1, MAX_PROBES), default=default, help=f"{what} (default {default})"
    )

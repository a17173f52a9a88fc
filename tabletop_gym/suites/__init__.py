"""Certified evaluation suites: fixed deals with their oracle results, shipped with the package.

A suite is one JSON file in ``tabletop_gym/suites/data/<id>.json`` (``cribbage-v0``,
``war-h26-v0``...): the environment and rules it was made for, how the oracle was run, and for
each deal its seed, its deal string, the oracle's plan score, its proven bound, whether they meet
(``optimal``), the oracle revision and the plan. ``load`` trusts none of it blindly: the file's
checksum must match its content, its environment must be today's, every deal must be accepted by
the environment and every plan must replay through the game's engine to the score it states.
Any failure raises ``SuiteError``: a suite that no longer replays is never used silently.

The package is in three parts: ``definitions`` (what a suite is made of, and how its id reads),
``storage`` (the file, and where suites are kept) and ``checking`` (replay through the engines). It
names no game: each game declares its suites beside its ``GameSpec`` (``GameSpec.suites``), whose
settings are command-line settings, read by that ``GameSpec``. Finding a suite by its id
(``definition``), ``load``, ``build``, ``resolve`` and ``evaluate`` need that, so they live in
``tabletop_gym.training.suites``, which also offers every name of this package (``from
tabletop_gym.training import suites``).

``build`` makes or resumes a suite (entries already written are kept; the file is rewritten
atomically as it grows), and a complete suite's numbers never change under its id: a different
size, or a rebuild with a better oracle, goes to a new version (``cribbage-v1``). It writes to the
user's suite folder (``user_dir``), never into the package: a suite found there is listed as
user-built, and ``load`` finds it by id when the package ships none of that id.
"""

from tabletop_gym.suites.checking import (
    confirm_plan,
    deal_of_seed,
    oracle_revision,
    presentation_options,
    replay_score,
    rules_kwargs,
)
from tabletop_gym.suites.definitions import SuiteDefinition, SuiteError, split_id
from tabletop_gym.suites.storage import (
    FORMAT,
    Suite,
    SuiteEntry,
    available,
    data_dir,
    suite_path,
    user_built,
    user_dir,
    user_suite_path,
)

__all__ = [
    "FORMAT",
    "replay_score",
    "SuiteError",
    "SuiteDefinition",
    "SuiteEntry",
    "Suite",
    "available",
    "data_dir",
    "suite_path",
    "user_dir",
    "user_suite_path",
    "user_built",
    "oracle_revision",
    "deal_of_seed",
    "confirm_plan",
    "presentation_options",
    "rules_kwargs",
    "split_id",
]

"""How much work Nmbr9's oracles may do, as one settings object: the command line generates its
flags from these fields (``tabletop_gym.training.games.nmbr9``), and each default is written here
only. A module of its own so that the command line reads the limits without loading a solver."""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_gym.core import check_int
from tabletop_gym.envs.nmbr9.rules import MAX_GRID, MIN_GRID, check_grid
from tabletop_gym.oracles.nmbr9.common import MAX_TIME_LIMIT, check_time_limit
from tabletop_gym.oracles.nmbr9.unknown import MAX_POSITIONS
from tabletop_gym.settings import option

MAX_POSITIONS_LIMIT = 10**9  # the command line's most positions of one search: far past what memory holds


@dataclass(frozen=True)
class Nmbr9Limits:
    """The known-draft oracle's work limit per deal (``time_limit``, work not wall clock) and the
    smaller board it may build its placement model on (``model_grid``, plans only); the positions
    the exact search of the unknown draft may visit (``max_positions``: ``solve --unknown``, the
    optimal-policy agent and the expected value)."""

    time_limit: float = option(
        30.0, "the oracle's work limit per deal", low=0, high=MAX_TIME_LIMIT, low_open=True
    )
    model_grid: int | None = option(
        None,
        "build the oracle's model on a smaller grid, at most --grid (plans only)",
        low=MIN_GRID,
        high=MAX_GRID,
    )
    max_positions: int = option(
        MAX_POSITIONS,
        "with --unknown or the optimal-policy agent: positions the exact search of the game with the "
        "order unknown may visit",
        low=1,
        high=MAX_POSITIONS_LIMIT,
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "time_limit", check_time_limit(self.time_limit))
        if self.model_grid is not None:
            object.__setattr__(self, "model_grid", check_grid(self.model_grid, "model_grid"))
        # The API's own ranges (the command line's are narrower): what the oracles accept, a
        # suite's stored settings may ask.
        object.__setattr__(self, "max_positions", check_int("max_positions", self.max_positions, 1))

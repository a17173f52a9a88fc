"""How much the Dominion oracle may search before it answers with a bound instead of an optimum."""

from __future__ import annotations

import dataclasses

from tabletop_gym.core import check_float, check_int
from tabletop_gym.oracles.dominion.common import DEFAULT_WORK_LIMIT, MAX_TIME_LIMIT, MAX_WORK_LIMIT
from tabletop_gym.settings import option


@dataclasses.dataclass(frozen=True)
class DominionLimits:
    """The oracle's limits per deal. Work (search nodes), not seconds, is the limit by default, so
    every machine gets the same answer; a wall-clock limit is available, off by default."""

    oracle_work_limit: int = option(
        DEFAULT_WORK_LIMIT,
        "the oracle's work per deal (search nodes; about 50,000 a second) before it reports a bound; "
        "the same answer on every machine",
        low=1,
        high=MAX_WORK_LIMIT,
    )
    oracle_time_limit: float | None = option(
        None,
        "also stop the oracle after this many seconds per deal (default none: a wall-clock limit makes "
        "the answer depend on the machine)",
        low=0,
        high=MAX_TIME_LIMIT,
        low_open=True,
    )

    def __post_init__(self) -> None:
        work = check_int("oracle_work_limit", self.oracle_work_limit, 1, MAX_WORK_LIMIT)
        seconds = check_float("oracle_time_limit", self.oracle_time_limit, 0, MAX_TIME_LIMIT, optional=True,
                              low_open=True)
        object.__setattr__(self, "oracle_work_limit", work)
        object.__setattr__(self, "oracle_time_limit", seconds)

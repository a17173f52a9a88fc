"""How much search the Modern Art oracle may do: its settings apart from the rules."""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_gym.oracles.modern_art.common import MAX_TIME_LIMIT, MAX_WIDTH, _check_seconds, _check_width
from tabletop_gym.settings import option


@dataclass(frozen=True)
class ModernArtLimits:
    """The per-deal oracle's limits (``solve(deal, rules, seat, width=..., time_limit=...)``).

    - ``width``: the beam's width, 1 to ``MAX_WIDTH``; its time grows with it.
    - ``time_limit``: the work limit of the CP-SAT models and the plan search, in seconds of a 2-core
      machine counted as deterministic work (the same answer on every machine), above 0 and at most
      ``MAX_TIME_LIMIT``.

    Out-of-range values are a ValueError naming the field.
    """

    width: int = option(
        32, f"oracle beam width, 1-{MAX_WIDTH}; its time grows with it", low=1, high=MAX_WIDTH
    )
    time_limit: float = option(
        10.0, "the work limit of the oracle's CP-SAT models and plan search",
        low=0, high=MAX_TIME_LIMIT, low_open=True,
    )  # fmt: skip

    def __post_init__(self) -> None:
        object.__setattr__(self, "width", _check_width(self.width))
        # checked, not converted: the cache key spells the value as given (10 and 10.0 differ there)
        _check_seconds("time_limit", self.time_limit)


__all__ = ["ModernArtLimits"]

"""`solve war --most-wars T`: the line that says whether the count is proven the most, and why not."""

from __future__ import annotations

import pytest

from tabletop_gym.oracles.war.cpsat import FreeDealResult
from tabletop_gym.oracles.war.limits import MAX_MODEL_TURNS
from tabletop_gym.training.cli import main
from tabletop_gym.training.games.war import _most_wars_proof


def _one_verdict(text: str) -> bool:
    """Proven or not, said once, with no solver status beside it to contradict it."""
    proven = text.startswith("proven the most:")
    unproven = text.startswith("not proven the most:")
    statuses = ("OPTIMAL", "FEASIBLE", "UNKNOWN", "unproven", "cap reached")
    return proven != unproven and not any(s in text for s in statuses)


def _found(value: int, bound: int | None, status: str, cap: int, fits: bool = True) -> FreeDealResult:
    stats = {"turns": 40, "wars_cap": cap, "larger_model_fits": fits}
    return FreeDealResult("2345/2345", value, bound, status, 0.1, stats)


def test_every_answer_gets_one_verdict_with_its_reason() -> None:
    proven = _most_wars_proof(_found(5, 5, "OPTIMAL", 8))
    assert proven == "proven the most: no deal without a short war has more"
    bounded = _most_wars_proof(_found(5, 7, "FEASIBLE", 8))
    assert bounded.startswith("not proven the most: the time limit was reached")
    assert bounded.endswith("has more than 7")
    # The reported case: CP-SAT said OPTIMAL, but only for a model that holds at most 8 wars.
    capped = _most_wars_proof(_found(8, None, "OPTIMAL", 8))
    assert "holds at most 8 wars, this deal has 8" in capped and "time limit" in capped
    assert capped.endswith("more may be possible")
    short_of_cap = _most_wars_proof(_found(7, None, "FEASIBLE", 8))
    assert "before 8 wars or more (the most the model holds) were ruled out" in short_of_cap
    # A cap whose doubled model would not fit: the turns, not the time, stopped it.
    big_cap = MAX_MODEL_TURNS // 4
    no_room = _most_wars_proof(_found(big_cap, None, "OPTIMAL", big_cap, fits=False))
    assert f"would pass the {MAX_MODEL_TURNS} turns" in no_room and "time limit" not in no_room
    for text in (proven, bounded, capped, short_of_cap, no_room):
        assert _one_verdict(text), text


def _most_wars_line(out: str) -> tuple[int, str]:
    line = next(line for line in out.splitlines() if line.startswith("most wars"))
    head, _, verdict = line.partition(" (")
    assert verdict.endswith(")")
    return int(head.split()[2]), verdict[:-1]


@pytest.mark.parametrize(
    ("args", "proven", "reason"),
    [
        # 12 cards, 2 tricks: CP-SAT proves 1 war the most within a second.
        (["--ranks", "6", "--suits", "2", "--most-wars", "2", "--time-limit", "5"], True, "no deal"),
        # Two ranks, no face-down cards: a war every trick fills the model's first cap of 8 wars.
        (
            ["--ranks", "2", "--suits", "6", "--face-down", "0", "--most-wars", "8", "--time-limit", "1"],
            False,
            "holds at most 8 wars, this deal has 8",
        ),
        # Too little work to rule out 8 wars in 12 tricks (limits are work: the same on every machine).
        (
            ["--ranks", "6", "--suits", "2", "--face-down", "0", "--most-wars", "12", "--time-limit", "0.3"],
            False,
            "time limit was reached",
        ),
    ],
    ids=["proven", "cap-reached", "time-limit"],
)
def test_most_wars_line_says_one_thing(
    args: list[str], proven: bool, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "most wars 8 in 3 tricks (unproven (cap reached), OPTIMAL; no short war)".
    assert main(["solve", "war", *args]) == 0
    wars, verdict = _most_wars_line(capsys.readouterr().out)
    assert _one_verdict(verdict), verdict
    assert verdict.startswith("proven the most:" if proven else "not proven the most:")
    assert reason in verdict
    assert wars >= 1

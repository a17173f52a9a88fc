"""The Cribbage engine: scoring rules, forced play, deal strings."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.cribbage.rules import (
    CribbageRules,
    CribbageState,
    parse_deal,
    random_deal,
    rank_of,
    replay,
    score_card,
    value_of,
)

KNOWN = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"


def stack_points(cards: str) -> int:
    """Points of the last card of a stack written as rank characters, e.g. '5T' (5 then 10)."""
    ranks = [rank_of(c) for c in cards]
    return score_card(ranks, sum(value_of(r) for r in ranks))


@pytest.mark.parametrize(
    ("stack", "points", "why"),
    [
        ("J", 2, "a Jack starting a stack"),
        ("AJ", 0, "a Jack that does not start the stack"),
        ("Q", 0, "another court card starting a stack"),
        ("78", 2, "fifteen"),
        ("5K", 2, "fifteen with a court card"),
        ("TQKA", 2, "thirty-one"),
        ("99", 2, "a pair"),
        ("999", 6, "three of a kind (not 6 + 2)"),
        ("3333", 12, "four of a kind"),
        ("2332", 0, "ranks equal but not adjacent: no pair"),
        ("779", 0, "no pair: the last two differ"),
        ("A23", 3, "a run of three in order"),
        ("3A2", 3, "a run of three in any order"),
        ("5346", 4, "a run of four"),
        ("A234567", 7 + 0, "a run of seven (A..7 totals 28)"),
        ("4567", 4 + 0, "longest run only: 4-5-6-7 counts 4, not 3 + 4"),
        ("A2345", 5 + 2, "run of five that makes fifteen"),
        ("3453", 3 + 2, "a repeated rank inside the last four: only the last three run (and 15)"),
        ("5435", 3, "5-4-3 is not counted again; 4-3-5 runs"),
        ("QKA", 0, "aces are low: Q-K-A is no run"),
        ("JQK", 3, "court cards run by rank"),
        ("TJQK", 4 + 0, "run of four court cards (total 40 is never reached in play; scoring only)"),
        ("246", 0, "not consecutive"),
        ("7K7", 0, "pairs look only at the last two cards"),
        ("A2A2", 0, "no run with repeated ranks, no pair"),
        ("J5", 2, "fifteen after a Jack"),
    ],
)
def test_scoring_rules(stack: str, points: int, why: str) -> None:
    assert stack_points(stack) == points, why


def test_pair_and_thirty_one_add_up() -> None:
    # 3 then four 7s totals 31: four of a kind (12) + 31 (2).
    assert stack_points("37777") == 14


def test_card_values() -> None:
    assert [value_of(r) for r in range(1, 14)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]


def test_forced_play_then_new_stack() -> None:
    # Stack K, Q, J = 30: the only playable top card is the Ace, which the player must take.
    state = CribbageState(parse_deal("KA/Q9/J8/77", pile_size=2))
    for pile in (0, 1, 2):
        state.apply(pile)
    assert state.total == 30
    assert state.legal_actions() == [0]
    with pytest.raises(IllegalActionError, match="exceed 31"):
        state.apply(3)
    assert state.apply(0) == 2  # 31
    # Nothing else fits on 31: the stack was cleared at once and a new one starts.
    assert state.total == 0 and state.stack == [] and state.new_stack
    assert state.legal_actions() == [1, 2, 3]
    assert state.apply(3) == 0 and state.apply(3) == 2  # 7 + 7 = pair... on a new stack
    assert state.total == 14


def test_stack_is_cleared_only_when_nothing_fits() -> None:
    state = CribbageState(parse_deal("T/T/T/A", pile_size=1))
    state.apply(0), state.apply(1), state.apply(2)  # 30: the Ace still fits
    assert state.total == 30 and state.legal_actions() == [3]
    assert state.apply(3) == 2
    assert state.done


def test_last_stack_is_abandoned_without_bonus() -> None:
    state = replay(CribbageRules(), parse_deal("5/T/A/2", pile_size=1), [0, 1, 2, 3])
    # 5 + 10 = 15 scores 2; then A, 2 score nothing; no go or last-card point.
    assert state.done and state.score == 2


def test_playing_after_the_end_raises() -> None:
    state = replay(CribbageRules(), parse_deal("5/T/A/2", pile_size=1), [0, 1, 2, 3])
    with pytest.raises(GameOverError):
        state.apply(0)


def test_empty_pile_is_illegal() -> None:
    state = CribbageState(parse_deal("5/T/A/2", pile_size=1))
    state.apply(0)
    with pytest.raises(IllegalActionError, match="empty") as error:
        state.apply(0)
    assert error.value.legal == [1, 2, 3]


@pytest.mark.parametrize("pile", [-1, 4, 1.5, "0"])
def test_not_a_pile_is_illegal(pile: object) -> None:
    with pytest.raises(IllegalActionError, match="pile index"):
        CribbageState(parse_deal(KNOWN)).apply(pile)


def test_deal_string_round_trip() -> None:
    assert str(parse_deal(KNOWN)) == KNOWN


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q", "3 pile"),
        ("46QK25J4K7TA/T24A74J562A7TK/6639KJA82889Q/J837359T935QQ", "has 12 cards; expected 13"),
        ("46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935Q1", "character '1'"),
        ("46qK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ", "character 'q'"),
        ("46QKA5J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ", "rank A 5 times; expected exactly 4"),
        ("", "1 pile"),
    ],
)
def test_malformed_deals_are_rejected(text: str, message: str) -> None:
    with pytest.raises(InvalidDealError, match=message):
        parse_deal(text)


def test_reduced_deals() -> None:
    deal = parse_deal("A2/A2/A2/A3", pile_size=2)
    assert deal.num_cards == 8
    with pytest.raises(InvalidDealError, match="rank A 5 times; expected at most 4"):
        parse_deal("AA/AA/A2/33", pile_size=2)
    for bad in (0, 14, 2.5):
        with pytest.raises(InvalidDealError, match="pile_size"):
            random_deal(0, pile_size=bad)


def test_random_deals_are_seeded_and_complete() -> None:
    assert random_deal(7) == random_deal(7)
    assert random_deal(7) != random_deal(8)
    deal = random_deal(7)
    parse_deal(str(deal))  # a full deal: every rank exactly four times
    small = random_deal(3, pile_size=3)
    assert small.num_cards == 12 and parse_deal(str(small), pile_size=3) == small


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), choices=st.lists(st.integers(0, 3), min_size=52, max_size=52))
def test_random_legal_play_properties(seed: int, choices: list[int]) -> None:
    state = CribbageState(random_deal(seed))
    points = 0
    for choice in choices:
        legal = state.legal_actions()
        assert legal, "a game with cards left always has a legal move"
        illegal = [p for p in range(4) if p not in legal]
        if illegal:
            with pytest.raises(IllegalActionError):
                state.copy().apply(illegal[choice % len(illegal)])
        points += state.apply(legal[choice % len(legal)])
        assert 0 <= state.total <= 31
    assert state.done and state.played == 52
    assert all(state.top(p) == 0 for p in range(4))
    assert points == state.score

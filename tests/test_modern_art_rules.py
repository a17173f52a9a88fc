"""Modern Art engine: every symbol, the round end, ranking, scoring and parameters on hand-built deals."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.envs.modern_art.rules import (
    AWARD_ARTIST,
    CHOOSE_ARTIST,
    DEFAULT_DECK,
    DOUBLE_CARD,
    END_PLAY,
    HIDDEN_CARD,
    PASS,
    PLAY,
    SIMULTANEOUS_CARD,
    ModernArtRules,
    State,
)

L, Y, C, G, K = range(5)


def card(code: str) -> int:
    return R.parse_cards(code)[0]


def setup(hands: list[str], extra: str, rest: str = "", **params) -> State:
    """A game whose deck is exactly these cards: seat p's first hand is ``hands[p]``."""
    hs = [R.parse_cards(h) for h in hands]
    ex = card(extra)
    rs = R.parse_cards(rest)
    params.setdefault("deals", (len(hs[0]),))
    table = R.deck_table([c for h in hs for c in h] + [ex] + rs)
    rules = ModernArtRules(players=len(hs), deck=table, **params)
    return State(rules, R.arrange_deal(hs, ex, rs))


def play(state: State, *codes: str) -> None:
    """Apply actions given as card codes, 'pass' or 'award:<artist index>'."""
    for code in codes:
        if code == "pass":
            state.apply(PASS)
        elif code.startswith("award:"):
            state.apply(CHOOSE_ARTIST + int(code[6:]))
        else:
            state.apply(card(code))


def test_dealing_default_deck_by_player_count() -> None:
    for players, deals in R.DEFAULT_DEALS.items():
        rules = ModernArtRules(players=players)
        assert rules.num_cards == 95
        state = State(rules, R.random_deal(rules, 1))
        assert state.hand_sizes == [13] * players
        assert sum(state.extra) == 1 and sum(state.column) == 1
        assert state.deck_left == 95 - 13 * players - 1
        assert rules.deals == deals and rules.round_limit == (5 if players == 2 else 6)


def test_deal_string_round_trip_and_errors() -> None:
    rules = ModernArtRules(players=3)
    deal = R.random_deal(rules, 7)
    assert R.deal_string(R.parse_deal(deal, rules)) == deal
    assert deal == R.random_deal(rules, 7) and deal != R.random_deal(rules, 8)
    with pytest.raises(InvalidDealError, match="two"):
        R.parse_deal(deal[:-1], rules)
    with pytest.raises(InvalidDealError, match="artist 'Z'"):
        R.parse_deal("Z." + deal[2:], rules)
    with pytest.raises(InvalidDealError, match="symbol 'q'"):
        R.parse_deal(deal[0] + "q" + deal[2:], rules)
    with pytest.raises(InvalidDealError, match="deck table"):
        R.parse_deal(deal[:-2], rules)
    swapped = ("Y" if deal[0] != "Y" else "L") + deal[1:]
    with pytest.raises(InvalidDealError, match="deck table"):
        R.parse_deal(swapped, rules)
    with pytest.raises(InvalidDealError):
        R.parse_deal(123, rules)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "params, match",
    [
        ({"players": 1}, "players"),
        ({"players": 6}, "players"),
        ({"deck": ((1, 2),)}, "rows"),
        ({"deck": ((-1, 0, 0, 0, 0, 0),) * 5}, r"deck count of Lite Metal \(plain\) must be at least 0"),
        ({"deck": ((10**10, 0, 0, 0, 0, 0),) * 5}, r"deck count of Lite Metal \(plain\) must be at most 100"),
        ({"deck": 7}, "rows"),
        ({"round_limit": 1}, "round_limit"),
        ({"round_limit": 2.5}, "round_limit must be an integer"),
        ({"round_limit": 10**9}, "round_limit must be at most"),
        ({"deals": ()}, "deals"),
        ({"deals": (50, 0)}, "too few"),
        ({"deals": (13, -1)}, r"deals\[1\] must be at least 0"),
        ({"deals": (13,) + (0,) * 10**4}, "1 to 20 counts"),
        ({"value_tokens": ()}, "value_tokens"),
        ({"value_tokens": (3, float("nan"))}, r"value_tokens\[1\] must be an integer"),
        ({"award_tokens": -1}, "award_tokens must be at least 0"),
        ({"award_value": 10**6}, "award_value must be at most 100"),
        ({"players": True}, "players must be an integer"),
        ({"players": 2.0}, "players must be an integer"),
        ({"at_once": "no"}, "at_once must be True or False"),
    ],
)
def test_bad_parameters(params: dict, match: str) -> None:
    """Every rule number is checked and named; a huge one (a deck or game that would never end) is
    refused with its range."""
    with pytest.raises(ValueError, match=match):
        ModernArtRules(**params)


def test_numpy_numbers_are_rule_numbers() -> None:
    rules = ModernArtRules(
        players=np.int64(3), deals=np.array([13, 2]), round_limit=np.int32(4), award_tokens=np.int64(0),
        deck=np.array(DEFAULT_DECK), value_tokens=[np.int64(5)], at_once=np.bool_(False),
    )  # fmt: skip
    assert rules.players == 3 and type(rules.players) is int and rules.deals == (13, 2)
    assert rules.round_limit == 4 and rules.award_tokens == 0 and rules.value_tokens == (5,)
    assert rules.deck == DEFAULT_DECK and rules.at_once is False
    # the same rules, the same cache key
    assert ModernArtRules(players=np.int64(3)) == ModernArtRules(players=3)
    assert ModernArtRules(players=np.int64(3)).variant() == ModernArtRules(players=3).variant()


def test_a_negative_seed_is_named() -> None:
    with pytest.raises(ValueError, match="seed must be at least 0, got -1"):
        R.random_deal(ModernArtRules(), -1)
    assert R.random_deal(ModernArtRules(), np.int64(4)) == R.random_deal(ModernArtRules(), 4)


def test_card_list_errors_quote_a_bounded_prefix() -> None:
    with pytest.raises(InvalidDealError) as error:
        R.parse_cards("L" * 1_000_001)
    assert len(str(error.value)) < 300 and "1000001 characters" in str(error.value)
    with pytest.raises(InvalidDealError) as error:
        R.parse_deal("Q" * 1_000_000, ModernArtRules())
    assert len(str(error.value)) < 300
    with pytest.raises(InvalidDealError, match="kinds 0-29, got 30"):
        R.State(ModernArtRules(), [30] * 95)


def test_draw_takes_the_top_card_and_nothing_from_an_empty_deck() -> None:
    state = setup(["Ld Y.", "K. K."], "C.", "G.")
    play(state, "Ld")
    assert state.hands[0][card("G.")] == 1 and state.hand_sizes[0] == 2 and state.deck_left == 0
    assert state.to_move == 1 and state.phase == PLAY
    empty = setup(["Ld Y.", "K. K."], "C.")
    play(empty, "Ld")
    assert empty.hand_sizes[0] == 1 and empty.to_move == 1


def test_double_with_and_without_a_second_card_of_that_artist() -> None:
    state = setup(["Lx L. Y.", "K. K. K."], "C.", deals=(3,), round_limit=9)
    play(state, "Lx")
    assert state.phase == DOUBLE_CARD and state.to_move == 0
    assert state.legal_actions() == [card("L."), PASS]
    play(state, "L.")
    assert state.column[L] == 2 and state.up[0][L] == 2 and state.to_move == 1
    without = setup(["Lx Y. Y.", "K. K. K."], "C.", round_limit=9)
    play(without, "Lx")
    assert without.phase == PLAY and without.to_move == 1
    declined = setup(["Lx L. Y.", "K. K. K."], "C.", round_limit=9)
    play(declined, "Lx", "pass")
    assert declined.column[L] == 1 and declined.to_move == 1


def test_hidden_card_is_revealed_and_scored_but_does_not_end_the_round() -> None:
    state = setup(["Lh Y. G.", "K. K. C."], "C.", round_limit=2)
    play(state, "Lh")
    assert state.phase == HIDDEN_CARD
    play(state, "Y.")
    assert state.column[Y] == 0 and state.down[0][Y] == 1 and state.counts()[Y] == 1
    play(state, "K.", "G.", "K.")  # K reaches the limit of 2
    # counts L1 Y1 (hidden) C1 (extra) G1 K2: K 3, then L 2 and Y 1 by board order.
    assert state.round_history == [[2 + 1, 3 * 2]]


def test_simultaneous_asks_every_other_player_in_turn_order_and_skips_empty_hands() -> None:
    state = setup(["L. Ls", "Y. Y.", "Gs G."], "C.", round_limit=9)
    play(state, "L.", "Y.", "Gs")
    assert state.phase == SIMULTANEOUS_CARD and state.to_move == 0
    play(state, "pass")
    assert state.phase == SIMULTANEOUS_CARD and state.to_move == 1
    play(state, "Y.")  # seat 1's hand is now empty
    assert state.phase == PLAY and state.to_move == 0
    play(state, "Ls")
    assert state.phase == SIMULTANEOUS_CARD and state.to_move == 2  # seat 1 skipped
    legal = state.legal_actions()
    assert card("G.") in legal and PASS in legal


def test_award_tokens_stack_on_one_artist() -> None:
    state = setup(["La Ya", "K. K."], "C.", round_limit=9)
    play(state, "La")
    assert state.phase == AWARD_ARTIST and state.legal_actions() == [30, 31, 32, 33, 34, PASS][:5]
    play(state, f"award:{K}", "K.", "Ya", f"award:{K}", "K.")
    # every hand empty: the round ends. K (2 cards) places first: value 3 + 2 awards * 2.
    assert state.awards[K] == 2 and state.awards_left == 3
    assert state.round_history == [[2 + 1, (3 + 4) * 2]]


def test_no_award_decision_when_tokens_are_gone() -> None:
    state = setup(["La Y.", "K. K."], "C.", round_limit=9, award_tokens=0)
    play(state, "La")
    assert state.phase == PLAY and state.to_move == 1


def test_round_ends_exactly_at_five_with_two_players_symbol_unresolved() -> None:
    state = setup(["L. L. Ld", "L. L. K."], "K.", "Y.", deals=(3, 0))
    play(state, "L.", "L.", "L.", "L.")
    assert not state.round_history
    play(state, "Ld")  # the fifth Lite Metal: the draw is not resolved
    assert state.round_history == [[3 * 3, 3 * 2]]
    assert state.deck_left == 1 and state.hand_sizes == [0, 1]
    assert state.round == 1 and state.starter == 1 and state.to_move == 1


def test_simultaneous_overshoot_ends_after_the_last_card() -> None:
    state = setup(["L. L. Ls", "L. L. L.", "L. G. G."], "C.", deals=(3, 0))
    play(state, "L.", "L.", "G.", "L.", "L.", "G.", "Ls")  # Lite Metal at 5 of 6
    play(state, "L.")  # 6: but the simultaneous plays are displayed at once
    assert not state.round_history and state.to_move == 2
    play(state, "L.")
    assert len(state.round_history) >= 1 and state.column == [0] * 5
    assert state.starter == 1  # seat 0, whose turn it was, ended the round


def test_double_at_the_limit_overshoots_only_when_at_once() -> None:
    hands = ["L. L. Lx L.", "L. K. K. K."]
    state = setup(hands, "L.", deals=(4, 0))
    play(state, "L.", "L.", "L.", "K.", "Lx")  # Lx is the fifth face-up Lite Metal
    assert state.phase == DOUBLE_CARD
    play(state, "L.")
    assert state.round == 1 and state.round_history[0][0] == 3 * 4  # four Lite Metal, six shown
    strict = setup(hands, "L.", deals=(4, 0), at_once=False)
    play(strict, "L.", "L.", "L.", "K.", "Lx")
    assert strict.round == 1 and strict.round_history[0][0] == 3 * 3


def test_extra_card_counts_but_never_scores_and_board_order_breaks_ties() -> None:
    state = setup(["L. Y.", "G. K."], "G.", round_limit=9)
    play(state, "L.", "G.", "Y.", "K.")
    # counts L1 Y1 G2 K1: G first thanks to the extra card, then L and Y ahead of K by board order.
    assert state.round_history == [[2 + 1, 3]]
    assert state.values == [2, 1, 0, 3, 0]


def test_artist_outside_the_top_three_pays_nothing_despite_its_value() -> None:
    state = setup(["K. K.", "L. Y."], "C.", "K. Y. L. C.", deals=(2, 2))
    play(state, "K.", "L.", "K.", "Y.")
    assert state.round_history == [[6, 3]] and state.values[K] == 3
    assert state.starter == 0 and state.to_move == 0  # seat 1 took the last turn
    play(state, "K.", "Y.", "L.", "C.")
    # round 2: all artists tie at 1; L, Y, C place, K (value 3) pays nothing.
    assert state.round_history[1] == [2 + 3, 1 + 2 + 1]
    assert state.done and state.money == [11, 7]
    with pytest.raises(GameOverError):
        state.apply(PASS)


def test_value_tokens_and_award_value_parameters() -> None:
    state = setup(["La Y.", "K. K."], "C.", round_limit=9, value_tokens=(5, 1), award_value=10)
    play(state, "La", f"award:{L}", "K.", "Y.", "K.")
    # only two places: K (2 cards) 5 per card; L (award) second: 1 + 10; Y places nowhere.
    assert state.round_history == [[11, 10]]


def test_a_zero_value_token_still_places_its_artist_and_pays_its_value() -> None:
    # The rules pay every top-three artist its cumulative value; the 0 token only adds nothing to it.
    state = setup(["L. L.", "Y. C."], "G.", "C. L. C. Y.", deals=(2, 2), value_tokens=(3, 2, 0))
    play(state, "L.", "Y.", "L.", "C.")
    assert state.values == [3, 2, 0, 0, 0]  # L, Y, C placed; C won the 0 token
    play(state, "C.", "L.", "C.", "Y.")
    # round 2: C 2 cards first (0 + 3), L second (3 + 2), Y third with the 0 token pays its value 2
    assert state.round_history == [[6, 2], [6, 5 + 2]]
    assert state.done and state.money == [12, 9]


def test_extra_card_each_round_parameter() -> None:
    for each in (False, True):
        state = setup(["K. K.", "L. Y."], "C.", "K. Y. L. C. G.", deals=(2, 2), extra_card_each_round=each)
        play(state, "K.", "L.", "K.", "Y.")
        assert sum(state.extra) == (1 if each else 0)
        assert state.deck_left == (0 if each else 1)


def test_simultaneous_same_artist_parameter() -> None:
    for same in (False, True):
        state = setup(["Ls Y.", "L. K."], "C.", round_limit=9, simultaneous_same_artist=same)
        play(state, "Ls")
        expected = [card("L."), PASS] if same else [card("L."), card("K."), PASS]
        assert state.phase == SIMULTANEOUS_CARD and state.legal_actions() == expected


def test_end_of_round_plays_parameter() -> None:
    state = setup(["L. L. L. Y.", "L. L. C. C."], "K.", deals=(4,), end_of_round_plays=True)
    play(state, "L.", "L.", "L.", "L.")
    assert state.round_history == []  # limit 5 not reached yet (4 L)
    play(state, "Y.", "C.")
    play(state, "L.")  # fifth L ends the round; end-of-round plays start left of seat 0
    assert state.phase == END_PLAY and state.to_move == 1
    assert state.legal_actions() == [card("C."), PASS]
    play(state, "C.")
    assert state.done  # no card left that may be added
    # counts L5, C2, Y1, K1 (extra): L 3, C 2, Y 1.  seat 0: 3*3 + 1; seat 1: 3*2 + 2*2.
    assert state.money == [10, 10]
    off = setup(["L. L. L. Y.", "L. L. C. C."], "K.", deals=(4,))
    play(off, "L.", "L.", "L.", "L.", "Y.", "C.", "L.")
    assert off.money == [3 * 3 + 2, 3 * 2 + 1]  # L 3, then Y 2 and C 1 by board order


def test_second_card_symbols_parameter_double_and_hidden() -> None:
    for on in (False, True):
        state = setup(["Lx Ld Y.", "K. K. K."], "C.", "G.", round_limit=9, second_card_symbols=on)
        play(state, "Lx", "Ld")  # the double's second card carries a draw
        assert state.hands[0][card("G.")] == (1 if on else 0)
        assert state.deck_left == (0 if on else 1) and state.to_move == 1 and state.phase == PLAY
        hidden = setup(["Lh Ya K.", "G. G. G."], "C.", round_limit=9, second_card_symbols=on)
        play(hidden, "Lh", "Ya")  # the face-down card carries an award
        if on:
            assert hidden.phase == AWARD_ARTIST and hidden.to_move == 0
            play(hidden, f"award:{G}")
            assert hidden.awards[G] == 1
        assert hidden.phase == PLAY and hidden.to_move == 1 and hidden.down[0][Y] == 1
        assert hidden.awards_left == (4 if on else 5)


def test_second_card_symbols_parameter_inside_simultaneous_plays() -> None:
    for on in (False, True):
        state = setup(["Ls Y. Y.", "Gx G. K.", "C. C. C."], "K.", round_limit=9, second_card_symbols=on)
        play(state, "Ls", "Gx")  # seat 1's simultaneous card is a double
        if on:  # seat 1 adds a second Karl Gitter, then the simultaneous plays go on
            assert state.phase == DOUBLE_CARD and state.to_move == 1 and state.double_artist == G
            play(state, "G.")
        assert state.phase == SIMULTANEOUS_CARD and state.to_move == 2 and state.double_artist == L
        play(state, "C.")
        assert state.phase == PLAY and state.to_move == 1
        assert state.column[G] == (2 if on else 1)
    # a simultaneous card played as a simultaneous card: every player but seat 1 plays, then seat 2
    # is asked again for the first one
    nested = setup(["Ls Y.", "Gs K.", "C. C."], "K.", round_limit=9, second_card_symbols=True)
    play(nested, "Ls", "Gs")
    assert nested.phase == SIMULTANEOUS_CARD and nested.to_move == 2 and nested.double_artist == G
    play(nested, "C.")
    assert nested.to_move == 0
    play(nested, "Y.")
    assert nested.phase == SIMULTANEOUS_CARD and nested.to_move == 2 and nested.double_artist == L
    play(nested, "C.")
    assert nested.phase == PLAY and nested.to_move == 1 and nested.column[C] == 2


def test_second_card_at_the_limit_resolves_only_as_an_ending_card() -> None:
    hands = ["L. L. Lx Ld", "L. K. K. K."]
    for resolve in (False, True):
        state = setup(hands, "L.", "G.", deals=(4, 0), second_card_symbols=True, resolve_ending_card=resolve)
        play(state, "L.", "L.", "L.", "K.", "Lx", "Ld")  # Lx reaches the limit; its double goes on
        assert state.round == 1 and state.round_history[0][0] == 3 * 4
        assert state.deck_left == (0 if resolve else 1)


def test_resolve_ending_card_parameter() -> None:
    for resolve in (False, True):
        drawn = setup(["L. L. Ld", "L. L. K."], "K.", "Y.", deals=(3, 0), resolve_ending_card=resolve)
        play(drawn, "L.", "L.", "L.", "L.", "Ld")  # the fifth Lite Metal ends the round
        assert drawn.round_history == [[3 * 3, 3 * 2]] and drawn.to_move == 1
        assert drawn.deck_left == (0 if resolve else 1) and drawn.hand_sizes == [1 if resolve else 0, 1]
        award = setup(["L. L. La", "L. L. K."], "K.", resolve_ending_card=resolve)
        play(award, "L.", "L.", "L.", "L.", "La")
        if resolve:  # the award is placed before the round is scored and already counts
            assert award.phase == AWARD_ARTIST and award.round_history == []
            play(award, f"award:{L}")
            assert award.money == [(3 + 2) * 3, (3 + 2) * 2]
        else:
            assert award.money == [3 * 3, 3 * 2] and award.awards_left == 5
        assert award.done
        hidden = setup(["L. L. Lh Y.", "L. L. K. K."], "K.", resolve_ending_card=resolve)
        play(hidden, "L.", "L.", "L.", "L.", "Lh")
        if resolve:  # the face-down card is revealed and ranks: Yoko ties Krypto, first in board order
            assert hidden.phase == HIDDEN_CARD
            play(hidden, "Y.")
            assert hidden.money == [3 * 3 + 2, 3 * 2]
        else:
            assert hidden.money == [3 * 3, 3 * 2]
        assert hidden.done


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2, "second_card_symbols": True},
        {"players": 3, "second_card_symbols": True, "resolve_ending_card": True},
        {"players": 4, "second_card_symbols": True, "simultaneous_same_artist": True, "at_once": False},
        {"players": 5, "resolve_ending_card": True, "end_of_round_plays": True},
    ],
)
def test_random_games_with_symbol_parameters_conserve_cards_and_replay(params) -> None:
    rules = ModernArtRules(**params)
    rng = np.random.default_rng(11)
    for seed in range(4):
        deal = R.random_deal(rules, seed)
        state = State(rules, deal)
        while not state.done:
            legal = state.legal_actions()
            assert state.to_move >= 0 and legal
            assert [a for a in range(R.NUM_ACTIONS) if state.is_legal(a)] == legal
            state.apply(int(legal[rng.integers(len(legal))]))
            played = sum(1 for a in state.history if a < R.NUM_KINDS)
            assert state.top == sum(state.hand_sizes) + played + 1
        again = R.replay(rules, deal, state.history)
        assert again.money == state.money and again.done
        assert "X" in rules.variant() or "R" in rules.variant()


def test_round_limit_and_deals_parameters() -> None:
    state = setup(["L. L.", "L. Y."], "C.", "G. G. K. K.", deals=(2, 1, 1), round_limit=3)
    play(state, "L.", "L.", "L.")
    assert state.round == 1 and state.hand_sizes == [1, 2]  # one new card each
    assert state.hands[1][card("G.")] == 1 and state.deck_left == 2
    assert state.rules.rounds == 3


def test_illegal_actions_name_the_legal_ones() -> None:
    state = setup(["Lx L. Y.", "K. K. K."], "C.", round_limit=9)
    with pytest.raises(IllegalActionError, match="holds no") as err:
        state.apply(card("K."))
    assert err.value.legal == state.legal_actions()
    with pytest.raises(IllegalActionError, match="cannot be passed"):
        state.apply(PASS)
    with pytest.raises(IllegalActionError, match="not an action"):
        state.apply(99)
    play(state, "Lx")
    with pytest.raises(IllegalActionError, match="double"):
        state.apply(card("Y."))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_conserve_cards_and_replay(players: int) -> None:
    rules = ModernArtRules(players=players)
    rng = np.random.default_rng(players)
    for seed in range(4):
        deal = R.random_deal(rules, seed)
        state = State(rules, deal)
        while not state.done:
            acts = state.legal_actions()
            assert state.to_move >= 0 and acts
            state.apply(int(acts[rng.integers(len(acts))]))
            # every card taken from the deck is in a hand, was played, or is the round-1 extra card
            played = sum(1 for a in state.history if a < R.NUM_KINDS)
            assert state.top == sum(state.hand_sizes) + played + 1
        assert sum(state.money) == sum(map(sum, state.round_history))
        again = R.replay(rules, deal, state.history)
        assert again.money == state.money and again.done


@pytest.mark.parametrize(
    "params",
    [{}, {"players": 3, "end_of_round_plays": True}, {"players": 4, "simultaneous_same_artist": True}],
)
def test_fast_legality_check_agrees_with_legal_actions(params) -> None:
    rules = R.ModernArtRules(**params)
    rng = np.random.default_rng(7)
    for seed in range(3):
        state = R.State(rules, R.random_deal(rules, seed))
        while not state.done:
            legal = state.legal_actions()
            assert [a for a in range(-1, R.NUM_ACTIONS + 1) if state.is_legal(a)] == legal
            assert list(np.flatnonzero(state.action_mask())) == legal
            state.apply(legal[rng.integers(len(legal))])
        assert not state.is_legal(0)


def test_copy_is_complete_and_independent() -> None:
    rules = R.ModernArtRules(players=3, end_of_round_plays=True, second_card_symbols=True)
    rng = np.random.default_rng(11)
    state = R.State(rules, R.random_deal(rules, 4), log=True)
    while not state.done:
        copy = state.copy()
        assert all(getattr(copy, name) == getattr(state, name) for name in R.State.__slots__)
        legal = state.legal_actions()
        action = legal[rng.integers(len(legal))]
        before = [repr(getattr(copy, name)) for name in R.State.__slots__]
        state.apply(action)  # the original moves on, the copy stays where it was
        assert [repr(getattr(copy, name)) for name in R.State.__slots__] == before
        copy.apply(action)
        assert all(getattr(copy, name) == getattr(state, name) for name in R.State.__slots__)

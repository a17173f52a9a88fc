"""The War engine on hand-built deals: every war case, the conventions, cycles, bad input."""

from __future__ import annotations

import pytest

from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.war.rules import (
    ALL_CARDS,
    BOTH_OUT,
    CYCLE,
    MAX_TRICKS,
    WarGame,
    WarRules,
    WarState,
    convention_order,
    parse_deal,
    play_game,
    random_deal,
    replay,
)

# Ranks are 0-based: with ranks=3 the characters 2, 3, 4 are ranks 0, 1, 2.
R3S2F3 = WarRules(ranks=3, suits=2, face_down=3)
R3S2F1 = WarRules(ranks=3, suits=2, face_down=1)
R3S4F1 = WarRules(ranks=3, suits=4, face_down=1)


def ranks_of(text: str) -> list[int]:
    return ["23456789TJQKA".index(c) for c in text]


def test_plain_trick_and_win() -> None:
    rules = WarRules(ranks=2, suits=1)
    record = play_game(parse_deal("3/2", rules), rules)
    assert (record.winner, record.tricks, record.end_reason, record.wars) == (0, 1, ALL_CARDS, 0)
    record = play_game(parse_deal("2/3", rules), rules)
    assert (record.winner, record.tricks) == (1, 1)


def test_war_with_last_card_turned_at_once_and_loss_when_none_left() -> None:
    # Tie on 2s; player 0 has one card left and turns it face up at once (no face-down card);
    # player 1 puts 3 face down and turns a 5: tie again, and player 0 has no card: player 0
    # loses, the trick is not completed.
    rules = WarRules(ranks=4, suits=2, face_down=3)
    state = WarState.start(parse_deal("25/233454", rules), rules)
    assert state.play_trick() is None
    assert state.pots == [ranks_of("25"), ranks_of("23345")]
    assert (state.winner, state.end_reason, state.tricks, state.wars) == (1, ALL_CARDS, 0, 2)
    assert list(state.piles[1]) == ranks_of("4")


def test_war_where_both_run_out_keeping_one_card_to_turn() -> None:
    # Player 1 keeps one card to turn face up, so only 2 of its 3 cards go face down; the second
    # tie leaves neither player a card: a draw.
    state = WarState.start(parse_deal("24/2334", R3S2F3), R3S2F3)
    assert state.play_trick() is None
    assert state.pots == [ranks_of("24"), ranks_of("2334")]
    assert (state.winner, state.end_reason, state.tricks) == (-1, BOTH_OUT, 0)


def test_war_won_with_short_face_down() -> None:
    # With face_down=1: after the tie player 0 (one card left) turns 4 at once, player 1 puts one 3
    # face down and turns the other 3 up: player 0 takes the pot.
    state = WarState.start(parse_deal("24/2334", R3S2F1), R3S2F1)
    assert state.play_trick() == 0
    assert state.tricks == 1
    state.place_all([0, 2, 0, 1, 1])  # winner_first would be 2 4 2 3 3
    assert state.position() == (tuple(ranks_of("24233")), tuple(ranks_of("4")))


def test_both_run_out_is_a_draw() -> None:
    rules = WarRules(ranks=2, suits=2)
    record = play_game(parse_deal("23/23", rules), rules)
    assert (record.winner, record.end_reason, record.tricks, record.wars) == (-1, BOTH_OUT, 0, 2)


def test_double_war_and_each_convention() -> None:
    # 2v2 war, face down 4|2, 3v3 war, face down 2|4, then 4 beats 3.
    deal_text = "243243/223434"
    expected = {
        "winner_first": "3" + "24324" + "22343",
        "loser_first": "3" + "22343" + "24324",
        "high_first": "3" + "4443332222",
    }
    for pickup, pile0 in expected.items():
        rules = R3S4F1.replace(pickup=pickup)
        state = WarState.start(parse_deal(deal_text, rules), rules)
        game = WarGame(parse_deal(deal_text, rules), rules, controlled=1)
        assert state.play_trick() == 0
        assert state.wars == 2 and state.tricks == 1
        # The controlled player 1 never takes the first pot, so WarGame placed it by convention.
        assert game.state.tricks >= 1
        state.place_all(convention_order(state.pots, 0, pickup, None))
        assert state.position() == (tuple(ranks_of(pile0)), tuple(ranks_of("4")))


def test_random_convention_is_seeded_and_a_permutation() -> None:
    rules = WarRules(pickup="random")
    deal = random_deal(3, rules)
    a = play_game(deal, rules, seed=11)
    b = play_game(deal, rules, seed=11)
    assert a == b
    assert a.end_reason in (ALL_CARDS, BOTH_OUT, MAX_TRICKS)


def test_cycle_detected_on_hand_checked_deal() -> None:
    # loser_first, 3/24: 3 beats 2 -> player 0 holds 2 3; 2 loses to 4 -> player 1 holds 2 4,
    # player 0 holds 3: the starting position again after two tricks.
    rules = WarRules(ranks=3, suits=1, pickup="loser_first")
    deal = parse_deal("3/24", rules)
    state = WarState.start(deal, rules)
    for _ in range(2):
        taker = state.play_trick()
        state.place_all(convention_order(state.pots, taker, "loser_first", None))
    assert state.position() == deal.piles
    record = play_game(deal, rules)
    assert (record.winner, record.end_reason, record.tricks) == (-1, CYCLE, 2)
    assert (record.cycle_start, record.cycle_period) == (0, 2)


def test_longer_cycle_repeats_with_its_period() -> None:
    rules = WarRules(ranks=13, suits=1)
    deal = parse_deal("Q7K39T5/2J4A68", rules)
    record = play_game(deal, rules)
    assert record.end_reason == CYCLE
    # Independently: step trick by trick with no detection and compare positions.
    game = WarGame(deal, rules.replace(max_tricks=record.tricks + 1), controlled=None, detect_cycles=False)
    assert game.state.end_reason == MAX_TRICKS
    seen: dict = {}
    state = WarState.start(deal, rules)
    from tabletop_gym.envs.war.rules import convention_order

    while state.position() not in seen:
        seen[state.position()] = state.tricks
        taker = state.play_trick()
        state.place_all(convention_order(state.pots, taker, rules.pickup, None))
    assert seen[state.position()] == record.cycle_start
    assert state.tricks - record.cycle_start == record.cycle_period


def test_max_tricks_is_a_draw() -> None:
    rules = WarRules(max_tricks=5)
    record = play_game(random_deal(0, rules), rules)
    assert (record.winner, record.tricks, record.end_reason) == (-1, 5, MAX_TRICKS)


def test_controlled_player_chooses_card_by_card() -> None:
    deal = parse_deal("243243/223434", R3S4F1)
    game = WarGame(deal, R3S4F1, controlled=0)
    assert game.awaiting and game.legal_actions() == [0, 1, 2]
    with pytest.raises(IllegalActionError) as err:
        game.apply(7)
    assert err.value.legal == [0, 1, 2]
    for rank in [2, 2, 2, 1, 1]:  # 4 4 4 3 3, then the remaining 2s go by themselves
        game.apply(rank)
    assert game.choices == [2, 2, 2, 1, 1]
    # Next pot (3 v 4) is player 1's; then the game waits for player 0's next real choice or ends.
    assert game.state.position()[0][:6] == tuple(ranks_of("444332"))[:6] or game.done or game.awaiting
    again = replay(R3S4F1, deal, [2, 2, 2, 1, 1])
    assert again.state.position() == game.state.position()
    assert again.state.tricks == game.state.tricks


def test_scores_are_the_cards_each_player_holds_and_a_copy_is_independent() -> None:
    deal = parse_deal("243243/223434", R3S4F1)
    game = WarGame(deal, R3S4F1, controlled=0)
    # Player 0 is picking up a pot: its cards count as held, so the two scores make the deck.
    assert sum(game.scores()) == R3S4F1.num_cards
    assert game.scores() == [float(game.state.cards_held(0)), float(game.state.cards_held(1))]
    twin = game.copy()
    twin.apply(2)
    assert game.choices == [] and twin.choices == [2] and game.legal_actions() == [0, 1, 2]
    # A deal string and a parsed deal replay alike.
    assert replay(R3S4F1, "243243/223434", [2]).state.position() == twin.state.position()
    finished = replay(R3S4F1, deal, [2, 2, 2, 1, 1])
    while not finished.done:
        finished.apply(finished.legal_actions()[-1])
    winner = finished.state.winner
    if winner in (0, 1):  # every card to the winner, none to the loser
        assert finished.scores()[winner] == R3S4F1.num_cards and finished.scores()[1 - winner] == 0


def test_stepping_a_finished_game_raises() -> None:
    rules = WarRules(ranks=2, suits=1)
    game = WarGame(parse_deal("3/2", rules), rules)
    # Player 0 takes the last card of player 1: won whatever the order, so no decision is asked.
    assert game.done and game.choices == []
    assert game.outcome(0) == 1 and game.outcome(0) == 1
    with pytest.raises(GameOverError):
        game.apply(0)
    with pytest.raises(GameOverError):
        game.state.play_trick()


def test_random_deal_splits_the_deck() -> None:
    rules = WarRules()
    deal = random_deal(5, rules)
    assert (len(deal.piles[0]), len(deal.piles[1])) == (26, 26)
    assert parse_deal(str(deal), rules) == deal
    assert random_deal(5, rules) == deal and random_deal(6, rules) != deal


@pytest.mark.parametrize(
    "text, message",
    [
        ("2345", "expected 2 piles"),
        ("23/45/6", "expected 2 piles"),
        ("23X/456", "not one of"),
        ("/2345", "is empty"),
        ("2223/3455", "holds rank"),
    ],
)
def test_bad_deals_are_rejected_clearly(text: str, message: str) -> None:
    with pytest.raises(InvalidDealError, match=message):
        parse_deal(text, WarRules(ranks=4, suits=2))


def test_bad_rules_are_rejected() -> None:
    with pytest.raises(InvalidDealError, match="pickup"):
        WarRules(pickup="loser_last")
    with pytest.raises(InvalidDealError, match="ranks"):
        WarRules(ranks=14)
    with pytest.raises(InvalidDealError, match="max_tricks"):
        WarRules(max_tricks=0)
    with pytest.raises(InvalidDealError, match="ranks"):
        WarState.start(parse_deal("3/2", WarRules(ranks=2, suits=1)), WarRules())


def test_both_players_controlled_stop_at_each_ones_decisions() -> None:
    rules = WarRules(ranks=6, suits=2, face_down=1, max_tricks=200)
    movers = set()
    for seed in range(10):
        game = WarGame(random_deal(seed, rules), rules, controlled=(0, 1), order_every_pot=(1,))
        while not game.done:
            assert game.awaiting and game.to_move == game.state.taker and game.legal_actions()
            movers.add(game.to_move)
            game.apply(game.legal_actions()[-1])
        assert game.to_move is None and game.legal_actions() == []
    assert movers == {0, 1}
    with pytest.raises(ValueError, match="controlled must be"):
        WarGame(random_deal(0, rules), rules, controlled=(0, 2))

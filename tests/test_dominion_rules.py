"""Dominion engine: every kingdom card on hand-built positions, supply, end, tie-break, randomness."""

from __future__ import annotations

import random

import pytest

from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.rules import (
    CELLAR,
    COPPER,
    CURSE,
    DUCHY,
    ESTATE,
    GOLD,
    MARKET,
    MERCHANT,
    MILITIA,
    MINE,
    MOAT,
    PASS,
    PROVINCE,
    REMODEL,
    SILVER,
    SMITHY,
    VILLAGE,
    WORKSHOP,
    DominionState,
)  # fmt: skip


def counts(*cards: int) -> list[int]:
    c = [0] * R.NUM_CARDS
    for card in cards:
        c[card] += 1
    return c


def position(num_players: int = 2, hand=(), draw=(), discard=(), others=None, seed: int = 11,
             kingdom=None) -> DominionState:
    """Player 0 to start a turn holding ``hand``, with ``draw`` (top last) and ``discard``; other
    players hold ``others[p]`` in hand. Owned cards follow from the piles."""
    s = DominionState(num_players, kingdom, seed)
    for p in range(num_players):
        s.hand[p] = counts(*(hand if p == 0 else (others or {}).get(p, ())))
        s.draw[p] = list(draw) if p == 0 else []
        s.discard[p] = counts(*discard) if p == 0 else [0] * R.NUM_CARDS
        s.in_play[p] = [0] * R.NUM_CARDS
        s.owned[p] = [s.hand[p][c] + s.discard[p][c] + s.draw[p].count(c) for c in range(R.NUM_CARDS)]
    s.player = 0
    s._start_turn()
    return s


def test_supply_sizes_by_player_count():
    two = R.supply_sizes(2)
    assert (two[COPPER], two[SILVER], two[GOLD]) == (46, 40, 30)
    assert (two[ESTATE], two[DUCHY], two[PROVINCE], two[CURSE]) == (8, 8, 8, 10)
    assert all(two[k] == 10 for k in R.KINGDOM_CARDS)
    three, four = R.supply_sizes(3), R.supply_sizes(4)
    assert (three[COPPER], three[PROVINCE], three[CURSE]) == (39, 12, 20)
    assert (four[COPPER], four[DUCHY], four[CURSE]) == (32, 12, 30)
    assert R.supply_sizes(1) == two  # solitaire uses the 2-player sizes
    assert R.supply_sizes(2, ())[SMITHY] == 0
    with pytest.raises(ValueError, match="num_players"):
        R.supply_sizes(5)


def test_start_of_game():
    s = DominionState(3, None, 5)
    for p in range(3):
        assert s.owned[p] == counts(*[COPPER] * 7, *[ESTATE] * 3)
        assert sum(s.hand[p]) + sum(s.in_play[p]) == 5 and len(s.draw[p]) == 5
    # The starting Estates do not come from the supply.
    assert s.supply[ESTATE] == 12


def test_randomness_model_is_a_function_of_seed_player_count_and_multiset():
    deck = counts(*[COPPER] * 7, *[ESTATE] * 3, GOLD, SILVER)
    a = R.shuffle_cards(42, 1, 3, deck)
    assert sorted(a) == sorted(c for c in range(R.NUM_CARDS) for _ in range(deck[c]))
    assert a == R.shuffle_cards(42, 1, 3, list(deck))
    others = {tuple(R.shuffle_cards(*key, deck)) for key in [(43, 1, 3), (42, 0, 3), (42, 1, 4)]}
    assert tuple(a) not in others
    # Two games with one seed deal identically, whatever happened before in other seats.
    s1, s2 = DominionState(2, None, 99), DominionState(4, None, 99)
    assert s1.draw[1] == s2.draw[1] and s1.hand[1] == s2.hand[1]


def test_reshuffle_in_the_middle_of_a_draw():
    s = position(hand=(SMITHY, ESTATE), draw=(GOLD,), discard=(COPPER, SILVER, SILVER, ESTATE, DUCHY))
    shuffles = s.shuffles[0]
    expected_new = R.shuffle_cards(s.seed, 0, shuffles, counts(COPPER, SILVER, SILVER, ESTATE, DUCHY))
    s.apply(SMITHY)
    # The Gold on top is drawn first; then the discard pile (not the Smithy in play) is shuffled.
    assert s.shuffles[0] == shuffles + 1
    drawn = [GOLD] + expected_new[::-1][:2]
    # Treasures went into play at the start of the buy phase; together they are the cards drawn.
    seen = [s.hand[0][c] + s.in_play[0][c] for c in range(R.NUM_CARDS)]
    assert seen == counts(ESTATE, SMITHY, *drawn)
    assert s.draw[0] == expected_new[:3]
    assert sum(s.discard[0]) == 0


def test_drawing_stops_when_draw_and_discard_are_empty():
    s = position(hand=(SMITHY,), draw=(GOLD,), discard=())
    s.apply(SMITHY)
    assert s.coins == 3 and s.decision == R.BUY


def test_cellar_discards_then_draws_that_many_with_the_discards_reshuffled():
    s = position(hand=(CELLAR, ESTATE, ESTATE, COPPER), draw=(GOLD,), discard=(), kingdom=None)
    s.apply(CELLAR)
    assert s.decision == R.CELLAR_DISCARD and s.actions == 1
    assert PASS in s.legal_actions() and CELLAR not in s.legal_actions()
    s.apply(ESTATE)
    s.apply(ESTATE)
    s.apply(PASS)
    # Drew the Gold, then the two discarded Estates were shuffled into a new draw pile: one drawn.
    assert s.hand[0][ESTATE] == 1 and s.in_play[0][GOLD] == 1
    assert s.decision == R.BUY and s.coins == 1 + 3
    assert s.draw[0] == [ESTATE]


def test_market_gives_card_action_buy_and_coin():
    s = position(hand=(MARKET, SMITHY, COPPER), draw=(ESTATE, COPPER))
    s.apply(MARKET)
    assert (s.actions, s.buys, s.coins) == (1, 2, 1)
    assert s.hand[0][COPPER] == 2
    s.apply(SMITHY)  # draws the Estate, then the draw pile is empty
    assert s.decision == R.BUY and s.coins == 1 + 2 and s.buys == 2
    s.apply(COPPER)
    assert s.decision == R.BUY and s.buys == 1  # a second buy with the same coins
    s.apply(SILVER)
    assert s.owned[0][SILVER] == 1 and s.player == 1


@pytest.mark.parametrize("silvers, merchants, expected", [(0, 1, 2), (1, 1, 2 + 2 + 1), (2, 1, 2 + 4 + 1),
                                                          (1, 2, 2 + 2 + 2)])
def test_merchant_bonus_only_on_the_first_silver(silvers, merchants, expected):
    hand = [MERCHANT] * merchants + [SILVER] * silvers + [COPPER, COPPER]
    s = position(hand=hand, draw=(ESTATE,) * 3)
    for _ in range(merchants):
        s.apply(MERCHANT)
    assert s.decision == R.BUY and s.coins == expected


def test_militia_victims_discard_to_three_unless_moat_is_revealed():
    s = position(3, hand=(MILITIA,), others={1: (MOAT, COPPER, COPPER, ESTATE, GOLD),
                                              2: (COPPER, ESTATE, ESTATE, SILVER, GOLD)})
    s.apply(MILITIA)
    assert s.coins == 2
    assert s.decision == R.MOAT_REVEAL and s.decider == 1 and s.legal_actions() == [MOAT, PASS]
    s.apply(MOAT)
    assert sum(s.hand[1]) == 5  # unaffected
    assert s.decision == R.MILITIA_DISCARD and s.decider == 2
    with pytest.raises(IllegalActionError, match="Moat"):
        s.apply(MOAT)
    s.apply(ESTATE)
    s.apply(ESTATE)
    assert s.hand[2] == counts(COPPER, SILVER, GOLD) and s.discard[2][ESTATE] == 2
    assert s.decision == R.BUY and s.decider == 0 and s.coins == 2


def test_moat_declined_means_discarding_and_short_hands_are_skipped():
    s = position(3, hand=(MILITIA,), others={1: (MOAT, COPPER, COPPER, ESTATE), 2: (COPPER, GOLD, GOLD)})
    s.apply(MILITIA)
    s.apply(PASS)  # player 1 keeps Moat hidden
    assert s.decision == R.MILITIA_DISCARD and s.decider == 1
    s.apply(MOAT)
    # Player 2 has only 3 cards: nothing to ask.
    assert s.decision == R.BUY and s.hand[2] == counts(COPPER, GOLD, GOLD)


def test_mine_gains_a_treasure_to_hand_up_to_three_more():
    s = position(hand=(MINE, SILVER, COPPER, ESTATE))
    s.apply(MINE)
    assert s.decision == R.MINE_TRASH and s.legal_actions() == [COPPER, SILVER, PASS]
    s.apply(SILVER)
    assert s.decision == R.MINE_GAIN and s.legal_actions() == [COPPER, SILVER, GOLD]
    s.apply(GOLD)
    assert s.decision == R.BUY and s.coins == 3 + 1  # the Gold went to hand and was played
    assert s.trash[SILVER] == 1 and s.owned[0][SILVER] == 0 and s.owned[0][GOLD] == 1
    s2 = position(hand=(MINE, COPPER))
    s2.apply(MINE)
    s2.apply(COPPER)
    assert s2.legal_actions() == [COPPER, SILVER]  # Gold costs 6 > 0 + 3
    s3 = position(hand=(MINE, COPPER, ESTATE))
    s3.apply(MINE)
    s3.apply(PASS)  # "may"
    assert s3.decision == R.BUY and s3.trash == [0] * R.NUM_CARDS


def test_remodel_must_trash_and_gains_up_to_two_more():
    s = position(hand=(REMODEL, ESTATE, GOLD), kingdom="smithy,village")
    s.apply(REMODEL)
    assert s.decision == R.REMODEL_TRASH and PASS not in s.legal_actions()
    s.apply(ESTATE)
    legal = s.legal_actions()
    assert set(legal) == {COPPER, SILVER, ESTATE, CURSE, SMITHY, VILLAGE}
    with pytest.raises(IllegalActionError, match="Gold"):
        s.apply(GOLD)
    s.apply(SMITHY)
    assert s.discard[0][SMITHY] == 1 and s.owned[0][ESTATE] == 0
    s2 = position(hand=(REMODEL, GOLD), kingdom="")
    s2.apply(REMODEL)
    s2.apply(GOLD)
    assert PROVINCE in s2.legal_actions()
    s3 = position(hand=(REMODEL,))
    s3.apply(REMODEL)
    assert s3.decision == R.BUY  # nothing to trash


def test_workshop_gains_up_to_four_and_village_gives_actions():
    s = position(hand=(VILLAGE, WORKSHOP, WORKSHOP), draw=(ESTATE,))
    s.apply(VILLAGE)
    assert s.actions == 2
    s.apply(WORKSHOP)
    assert all(R.COST[c] <= 4 for c in s.legal_actions()) and SMITHY in s.legal_actions()
    assert R.MINE not in s.legal_actions()
    s.apply(SMITHY)
    s.apply(WORKSHOP)
    s.apply(SILVER)
    assert s.decision == R.BUY and s.discard[0][SMITHY] == 1 and s.discard[0][SILVER] == 1


def test_game_ends_when_provinces_run_out_at_the_end_of_that_turn():
    s = position(hand=(GOLD, GOLD, GOLD))
    s.supply[PROVINCE] = 1
    s.apply(PROVINCE)
    assert s.done and s.turns == [1, 0]
    with pytest.raises(GameOverError):
        s.apply(PASS)


def test_game_ends_on_three_empty_piles():
    s = position(hand=(COPPER,))
    s.supply[CURSE] = 0
    s.supply[SMITHY] = 0
    s.supply[COPPER] = 1
    s.apply(COPPER)
    assert s.done
    s2 = position(hand=(COPPER,))
    s2.supply[SMITHY] = 0
    s2.supply[COPPER] = 1
    s2.apply(COPPER)
    assert not s2.done  # only two piles empty


def test_tie_break_on_turns_then_shared():
    s = position(hand=(GOLD, GOLD, GOLD))
    s.owned[1][DUCHY] += 2  # player 1: 2 Duchies = 6 VP
    s.supply[PROVINCE] = 1
    s.apply(PROVINCE)  # player 0: a Province = 6 VP, but one more turn
    assert s.done and s.scores() == [6, 6] and s.vp_level()
    assert s.winners() == [1] and s.results() == [-1, 1]
    s2 = position(hand=(GOLD,))
    s2.apply(PASS)
    s2.supply[PROVINCE] = 0
    s2.apply(PASS)  # player 1 ends the game by passing; equal turns, equal VP
    assert s2.done and s2.winners() == [0, 1] and s2.results() == [0, 0]


def test_illegal_choices_name_the_legal_ones():
    s = position(hand=(COPPER, COPPER))
    with pytest.raises(IllegalActionError) as err:
        s.apply(SILVER)
    assert err.value.legal == [COPPER, ESTATE, CURSE, CELLAR, MOAT, PASS] and "costs $3" in str(err.value)
    with pytest.raises(IllegalActionError, match="card ids 0..16"):
        s.apply(99)
    with pytest.raises(IllegalActionError):
        s.apply("Copper")
    s3 = position(hand=(GOLD, GOLD), kingdom="")
    with pytest.raises(IllegalActionError, match="not in this game's supply"):
        s3.apply(SMITHY)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown card"):
        R.parse_kingdom("smithy,chapel")
    with pytest.raises(ValueError, match="not a kingdom card"):
        R.parse_kingdom(["gold"])
    with pytest.raises(InvalidDealError):
        R.parse_seed("abc")
    with pytest.raises(InvalidDealError):
        R.parse_seed(-1)
    with pytest.raises(ValueError, match="target"):
        DominionState(1, (), 0, target=9)
    with pytest.raises(ValueError, match="solitaire"):
        DominionState(2, (), 0, target=4)


def test_random_games_conserve_every_card():
    rng = random.Random(3)
    for g in range(40):
        n = rng.randint(1, 4)
        s = DominionState(n, None, g, turn_limit=30)
        start = [s.supply[c] + sum(s.owned[p][c] for p in range(n)) for c in range(R.NUM_CARDS)]
        while not s.done:
            s.apply(rng.choice(s.legal_actions()))
            for p in range(n):
                held = [s.hand[p][c] + s.discard[p][c] + s.in_play[p][c] + s.draw[p].count(c)
                        for c in range(R.NUM_CARDS)]
                assert held == s.owned[p]
        total = [s.supply[c] + s.trash[c] + sum(s.owned[p][c] for p in range(n)) for c in range(R.NUM_CARDS)]
        assert total == start


def test_replay_reproduces_a_game():
    rng = random.Random(8)
    s = DominionState(2, None, 77, turn_limit=20)
    while not s.done:
        s.apply(rng.choice(s.legal_actions()))
    again = R.replay(R.DominionRules(2, None, None, 20), 77, [a for _, a in s.history])
    assert again.done and again.owned == s.owned and again.turns == s.turns


def test_rules_are_checked_and_read_back_by_field_name():
    from tabletop_gym.settings import as_dict, from_dict

    assert R.DominionRules() == R.DominionRules(1, "", R.DEFAULT_TARGET, None)  # the solitaire benchmark
    with pytest.raises(ValueError, match="solitaire game"):
        R.DominionRules(2)  # a target against others: the game would ignore it
    with pytest.raises(ValueError, match="players"):
        R.DominionRules(5, "", None)
    with pytest.raises(ValueError, match="unknown card"):
        R.DominionRules(kingdom="smithy,nothing")
    with pytest.raises(ValueError, match="turn_limit"):
        R.DominionRules(turn_limit=0)
    assert R.DominionRules(1, "", None).target == R.DEFAULT_TARGET  # as the state reads a missing target
    rules = R.DominionRules(3, ["Smithy", "militia"], None, 20)
    assert rules.kingdom == ("Smithy", "militia") and hash(rules)  # a list becomes a tuple: hashable
    assert rules.cards == (R.MILITIA, R.SMITHY)
    assert from_dict(R.DominionRules, as_dict(rules)) == rules


def test_a_state_says_its_rules_and_replay_starts_from_them():
    rules = R.DominionRules(2, "first-game", None, 30)
    state = R.replay(rules, "42", [])
    assert state.rules == R.DominionRules(2, R.FIRST_GAME, None, 30)
    assert R.replay(state.rules, 42, []).hand == state.hand == DominionState(2, None, 42, None, 30).hand
    with pytest.raises(IllegalActionError):
        R.replay(R.DominionRules(), 5, [R.PASS, R.PROVINCE])  # no hand of the starting deck makes $8

"""Dominion bots' decisions, games between them and tournaments."""

from __future__ import annotations

import statistics

import pytest
from test_dominion_rules import position

from tabletop_gym.agents import dominion as A
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.rules import COPPER, DUCHY, ESTATE, GOLD, PASS, PROVINCE, SILVER, SMITHY


def buy_with(bot: A.DominionBot, coins: int, provinces_left: int = 8, owned_smithies: int = 0) -> int:
    s = position(hand=(COPPER,) * 0)
    s.coins = coins
    s.supply[PROVINCE] = provinces_left
    s.owned[0][SMITHY] = owned_smithies
    return bot.choose(A.PlayerView(s, 0))


@pytest.mark.parametrize("coins, expected", [(0, PASS), (2, PASS), (3, SILVER), (5, SILVER), (6, GOLD),
                                             (7, GOLD), (8, PROVINCE), (11, PROVINCE)])
def test_big_money_buys(coins, expected):
    assert buy_with(A.BigMoney(), coins) == expected
    assert buy_with(A.JustBuyMoney(), coins) == expected


def test_seed_strategies_under_real_values():
    duchy, estate = A.BuyMoneyAndDuchy(), A.BuyMoneyAndDuchyAndEstate()
    assert [buy_with(duchy, c) for c in (2, 3, 4, 5, 6, 8)] == [PASS, SILVER, SILVER, DUCHY, GOLD, PROVINCE]
    assert [buy_with(estate, c) for c in (1, 2, 3, 5)] == [PASS, ESTATE, SILVER, DUCHY]


def test_big_money_ultimate_greens_late():
    bmu = A.BigMoneyUltimate()
    assert buy_with(bmu, 6, provinces_left=8) == GOLD
    assert buy_with(bmu, 5, provinces_left=8) == SILVER
    assert buy_with(bmu, 5, provinces_left=6) == DUCHY
    assert buy_with(bmu, 7, provinces_left=4) == DUCHY
    assert buy_with(bmu, 3, provinces_left=2) == ESTATE
    assert buy_with(bmu, 8, provinces_left=1) == PROVINCE


def test_smithy_big_money_buys_and_plays_smithy():
    bot = A.SmithyBigMoney()
    assert buy_with(bot, 4) == SMITHY
    assert buy_with(bot, 4, owned_smithies=1) == SILVER  # a second one only in a bigger deck
    s = position(hand=(SMITHY, COPPER), draw=(ESTATE,) * 5)
    assert bot.choose(A.PlayerView(s, 0)) == SMITHY


def test_a_bot_never_asks_for_an_empty_pile():
    s = position(hand=())
    s.coins = 4
    s.supply[SILVER] = 0
    assert A.BigMoney().choose(A.PlayerView(s, 0)) == PASS


def test_bots_answer_every_card_decision_legally():
    # Every bot against every other, first-game kingdom: each answer must be legal (step checks).
    names = list(A.BOTS)
    for i, name in enumerate(names):
        bots = [A.make_bot(name), A.make_bot(names[(i + 1) % len(names)]), A.RandomBot(i)]
        state = A.play_game(bots, seed=i, turn_limit=40)
        assert state.done


def test_solitaire_bots_land_on_the_published_figures():
    # Published: big money about 17 turns to 4 Provinces, with Smithies about 14-15.
    seeds = range(300)
    bm = statistics.mean(A.solitaire_turns("big-money", s) for s in seeds)
    smithy = statistics.mean(A.solitaire_turns("smithy-big-money", s, kingdom=None) for s in seeds)
    assert 16.0 <= bm <= 18.0
    assert 14.0 <= smithy <= 15.5


def test_tournament_alternates_seats_and_counts_every_game():
    out = A.tournament(["big-money", "buy-money-and-duchy"], games=200, seed=5, kingdom="")
    bm, duchy = out["players"]["big-money"], out["players"]["buy-money-and-duchy"]
    for p in (bm, duchy):
        assert p["win"] + p["tie"] + p["loss"] == 200
        assert p["by_seat"]["0"]["games"] == p["by_seat"]["1"]["games"] == 100
        lo, hi = p["win_ci95"]
        assert lo <= p["win_rate"] <= hi
    assert bm["win"] == duchy["loss"] and bm["tie"] == duchy["tie"]
    assert bm["win"] > duchy["win"]  # the seed's finding survives the real rules
    # The same seed replays the same series.
    again = A.tournament(["big-money", "buy-money-and-duchy"], games=200, seed=5, kingdom="")
    assert again["players"]["big-money"]["win"] == bm["win"] and again["level_on_vp"] == out["level_on_vp"]


def test_bad_bot_and_tournament_arguments():
    with pytest.raises(ValueError, match="unknown Dominion bot"):
        A.make_bot("cheater")
    with pytest.raises(ValueError, match="games"):
        A.tournament(["big-money"], games=0)
    with pytest.raises(ValueError, match="players"):
        A.tournament(["big-money"] * 5, games=1)


def test_wilson_interval():
    lo, hi = A.wilson(50, 100)
    assert lo == pytest.approx(0.404, abs=1e-3) and hi == pytest.approx(0.596, abs=1e-3)
    assert A.wilson(0, 10)[0] == 0.0


def test_view_hides_draw_order():
    s = R.DominionState(2, None, 1)
    view = A.PlayerView(s, 1)
    assert not hasattr(view, "draw")

"""Dominion's rule bots: the players the Dominion environment seats by default, and by name.

They live beside the environment, which imports them, and below ``tabletop_gym.agents.dominion``,
which offers them with the games and tournaments between them (its docstring gives each bot's
buy rules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_gym.envs.dominion import rules
from tabletop_gym.envs.dominion.observation import ObservationView
from tabletop_gym.envs.dominion.rules import (
    BUY,
    CELLAR_DISCARD,
    COPPER,
    CURSE,
    DUCHY,
    ESTATE,
    GOLD,
    MILITIA_DISCARD,
    MINE_GAIN,
    MINE_TRASH,
    MOAT,
    MOAT_REVEAL,
    PASS,
    PROVINCE,
    REMODEL_GAIN,
    REMODEL_TRASH,
    SILVER,
    SMITHY,
    WORKSHOP_GAIN,
    DominionState,
)  # fmt: skip


class PlayerView:
    """What player ``player`` may see of ``state`` (a live view: it reads the current position)."""

    __slots__ = ("_state", "player")

    def __init__(self, state: DominionState, player: int) -> None:
        self._state = state
        self.player = player

    @property
    def decision(self) -> int:
        return self._state.decision

    @property
    def hand(self) -> list[int]:
        return self._state.hand[self.player]

    @property
    def owned(self) -> list[int]:
        return self._state.owned[self.player]

    @property
    def coins(self) -> int:
        return self._state.coins

    @property
    def buys(self) -> int:
        return self._state.buys

    @property
    def actions(self) -> int:
        return self._state.actions

    @property
    def supply(self) -> list[int]:
        return self._state.supply

    @property
    def trashed(self) -> int:
        return self._state.trashed

    @property
    def turn(self) -> int:
        return self._state.turns[self.player] + 1

    def gains(self, p: int) -> list[int]:
        return self._state.gains[p]

    def vp(self, p: int) -> int:
        return self._state.vp(p)

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions()


# Discard/trash order for unwanted cards: worst first.
_JUNK = (CURSE, ESTATE, DUCHY, PROVINCE, COPPER)
_DISCARD_ORDER = _JUNK + (
    rules.CELLAR,
    rules.MOAT,
    rules.WORKSHOP,
    rules.MERCHANT,
    rules.VILLAGE,
    rules.REMODEL,
    rules.MINE,
    rules.MILITIA,
    rules.SMITHY,
    rules.MARKET,
    SILVER,
    GOLD,
)


class DominionBot:
    """A rule bot: ``buy(view)`` picks a card to buy (or ``PASS``); the rest is shared."""

    name = "bot"

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        """Play as the agent of a Dominion environment, from its observation and action mask."""
        return self.choose(ObservationView(observation, info["action_mask"]))  # type: ignore[arg-type]

    def buy(self, view: PlayerView) -> int:
        raise NotImplementedError

    def play(self, view: PlayerView) -> int:
        """Which Action to play: the first of ``action_priority`` in hand."""
        hand = view.hand
        for card in self.action_priority:
            if hand[card]:
                return card
        return PASS

    action_priority: tuple[int, ...] = ()

    def choose(self, view: PlayerView) -> int:
        d = view.decision
        if d == BUY:
            card = self.buy(view)
            if card != PASS and (view.supply[card] <= 0 or rules.COST[card] > view.coins):
                return PASS
            return card
        hand = view.hand
        if d == rules.ACTION:
            return self.play(view)
        if d == MOAT_REVEAL:
            # dominion_v0 asks every attacked seat, so a seat with no Moat may be asked too.
            return MOAT if hand[MOAT] else PASS
        if d == MILITIA_DISCARD:
            return next(c for c in _DISCARD_ORDER if hand[c])
        if d == CELLAR_DISCARD:
            return next((c for c in _JUNK if hand[c]), PASS)
        if d == MINE_TRASH:
            return SILVER if hand[SILVER] else (COPPER if hand[COPPER] else PASS)
        if d == REMODEL_TRASH:
            if hand[GOLD]:
                return GOLD
            return next(c for c in _DISCARD_ORDER if hand[c])
        legal = view.legal_actions()
        if d in (MINE_GAIN, REMODEL_GAIN, WORKSHOP_GAIN):
            # The dearest useful card: Province, Gold, Silver, a $4 Smithy; else the first legal one.
            for card in (PROVINCE, GOLD, SMITHY, SILVER):
                if card in legal:
                    return card
            return legal[-1]
        return legal[-1]


class BigMoney(DominionBot):
    name = "big-money"

    def buy(self, view: PlayerView) -> int:
        coins = view.coins
        if coins >= 8:
            return PROVINCE
        if coins >= 6:
            return GOLD
        if coins >= 3:
            return SILVER
        return PASS


class JustBuyMoney(BigMoney):
    name = "just-buy-money"


class BuyMoneyAndDuchy(BigMoney):
    """Big money that takes a Duchy with exactly $5."""

    name = "buy-money-and-duchy"

    def buy(self, view: PlayerView) -> int:
        return DUCHY if view.coins == 5 else super().buy(view)


class BuyMoneyAndDuchyAndEstate(BuyMoneyAndDuchy):
    name = "buy-money-and-duchy-and-estate"

    def buy(self, view: PlayerView) -> int:
        return ESTATE if view.coins == 2 else super().buy(view)


class BigMoneyUltimate(DominionBot):
    name = "big-money-ultimate"

    def buy(self, view: PlayerView) -> int:
        coins = view.coins
        left = view.supply[PROVINCE]
        if coins >= 8:
            return PROVINCE
        if coins >= 5 and left <= 4:
            return DUCHY
        if 2 <= coins <= 4 and left <= 2:
            return ESTATE
        if coins >= 6:
            return GOLD
        if coins >= 5 and left <= 6:
            return DUCHY
        if coins >= 3:
            return SILVER
        return PASS


class SmithyBigMoney(DominionBot):
    name = "smithy-big-money"
    action_priority = (SMITHY,)

    def buy(self, view: PlayerView) -> int:
        coins = view.coins
        owned = view.owned
        if coins >= 8:
            return PROVINCE
        if coins >= 6:
            return GOLD
        if 4 <= coins <= 5 and view.supply[SMITHY] > 0:
            smithies = owned[SMITHY]
            if smithies == 0 or (smithies == 1 and sum(owned) >= 16):
                return SMITHY
        if coins >= 3:
            return SILVER
        return PASS


class RandomBot(DominionBot):
    """Uniform among the legal answers (seeded by ``reset``)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def choose(self, view: PlayerView) -> int:
        legal = view.legal_actions()
        return legal[int(self._rng.integers(len(legal)))]


BOTS: dict[str, Callable[[], DominionBot]] = {
    cls.name: cls
    for cls in (
        BigMoney,
        BigMoneyUltimate,
        SmithyBigMoney,
        JustBuyMoney,
        BuyMoneyAndDuchy,
        BuyMoneyAndDuchyAndEstate,
        RandomBot,
    )
}


def make_bot(name: str | DominionBot) -> DominionBot:
    """A bot by name (``BOTS``), or the bot itself."""
    if isinstance(name, DominionBot):
        return name
    if name not in BOTS:
        raise ValueError(f"unknown Dominion bot {name!r}; bots: {', '.join(BOTS)}")
    return BOTS[name]()


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a series started with ``seed`` (spread, so series don't overlap)."""
    return rules._mix64((int(seed) * 0x100000001B3 + index) & rules._MASK)

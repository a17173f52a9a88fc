"""War as a table of two seats: one engine game, what each seat sees, whose pickup it is.

``WarTable`` is what ``WarEnv`` (player 0 the learner, player 1 its convention or an agent) and
``tabletop_gym.multiagent.war_v0`` (both seats learners) play. The rules stay in ``rules.py``: this
module only says who orders which pots and what each seat is shown.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletop_gym.core import (
    Agent,
    GameOverError,
    IllegalActionError,
    InvalidDealError,
    Table,
    check_int,
    quote_input,
)
from tabletop_gym.envs.war.rules import (
    ALL_CARDS,
    BOTH_OUT,
    CYCLE,
    MAX_TRICKS,
    MAX_TRICKS_LIMIT,
    RANK_CHARS,
    Deal,
    WarGame,
    WarRules,
    episode_rules,
    parse_deal,
    random_deal,
)

OBSERVATIONS = ("full", "hidden")
"""What a seat sees (``WarEnv``'s docstring says how): both piles in order, or what a real player
knows. The first is the default."""
MAX_DRAWS = 1000
"""Deals drawn at most by one ``reset`` before the rules are declared to give player 0 no decision.
Under rules where a decision is rare this could in principle give up on rules that have one; with
the smallest decks and horizons the package offers, a decision comes within a few draws."""

REASONS = {
    ALL_CARDS: "a player had no card to turn",
    BOTH_OUT: "both players ran out of cards",
    MAX_TRICKS: "the trick limit was reached",
    CYCLE: "a position came back",
}


def check_observation(observation: Any) -> str:
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
    return str(observation)


def check_horizon(horizon: Any) -> int | None:
    return check_int("horizon", horizon, 1, MAX_TRICKS_LIMIT, optional=True)


def rules_text(rules: WarRules, horizon: int | None) -> str:
    text = f"ranks={rules.ranks}, suits={rules.suits}, face_down={rules.face_down}, pickup={rules.pickup}"
    return text + (f", horizon={horizon}" if horizon is not None else "")


class WarTable(Table):
    """A game of War between two seats, each seat seeing it from its own side.

    ``seats`` are the players whose pickups wait for ``apply`` (the others follow ``rules.pickup``
    inside the engine). A seat is asked to order a pot only where the order can still matter: the
    pot holds two ranks or more and the other player still has cards; a seat in
    ``order_every_pot`` (an agent standing in for a convention) orders every pot of two ranks or
    more, as the convention does. ``observe(seat)`` and ``info(seat)`` are ``WarEnv``'s layout with
    "you" being ``seat``; ``returns()`` each seat's result (+1/0/-1), or with a ``horizon`` the
    cards each seat holds.
    """

    num_seats = 2

    def __init__(
        self,
        rules: WarRules,
        horizon: int | None = None,
        observation: str = OBSERVATIONS[0],
        seats: tuple[int, ...] = (0, 1),
        order_every_pot: tuple[int, ...] = (),
        reveal_deal: bool = False,
    ) -> None:
        self.observation_mode = check_observation(observation)
        self.horizon = check_horizon(horizon)
        if rules.ranks == 1 or rules.num_cards == 2:
            # One rank: every pot holds one rank. Two cards: the first trick ends the game.
            raise ValueError(
                "player 0 never has a pickup decision under these rules "
                f"({rules_text(rules, self.horizon)}): use at least 2 ranks and 3 cards"
            )
        self.rules = rules
        self.engine_rules = episode_rules(rules, self.horizon)
        self.seats = seats
        self.order_every_pot = order_every_pot
        self.reveal_deal = reveal_deal
        # The full observation shows both piles in order: the deal tells a seat nothing more.
        self.deal_is_public = self.observation_mode == "full"
        n = self.num_cards = rules.num_cards
        ranks, suits = rules.ranks, rules.suits
        self.num_actions = ranks
        if self.observation_mode == "full":
            nvec = [ranks + 1] * (2 * n) + [suits + 1] * ranks
        else:
            nvec = [ranks + 2] * n + [n + 1] + [suits + 1] * ranks
        self.observation_space = spaces.MultiDiscrete(np.array(nvec, dtype=np.int64))
        self.game: WarGame | None = None
        self.deal_text = ""

    # -- starting a game --------------------------------------------------------------------------
    def candidates(
        self, rng: np.random.Generator, given: Deal | None, tries: int
    ) -> Iterator[tuple[Deal, int]]:
        """Up to ``tries`` deals (``given`` every time, else drawn) with the seed of player 1's
        pickups under the random convention (and of an agent's reset), in the order ``WarEnv``
        draws them from its seeded generator."""
        for _ in range(tries):
            deal = given if given is not None else random_deal(rng, self.rules)
            yield deal, int(rng.integers(2**63))

    def start(self, deal: Deal, pickup_seed: int) -> None:
        """Play ``deal`` up to the first decision of a seat (or the end)."""
        self.game = WarGame(deal, self.engine_rules, controlled=self.seats, seed=pickup_seed,
                            order_every_pot=self.order_every_pot)
        self.deal_text = str(deal)

    def reset(self, rng: np.random.Generator, deal: Any = None) -> None:
        """A drawn deal is the one ``WarEnv`` with the same rules (player 1 on its convention) plays
        from this generator: deals where player 0 would never choose there are drawn past, as
        ``WarEnv`` does. A given deal is played as it is; InvalidDealError if no seat ever chooses."""
        given = parse_deal(deal, self.rules) if deal is not None else None
        previous = self.game, self.deal_text
        for candidate, pickup_seed in self.candidates(rng, given, 1 if given is not None else MAX_DRAWS):
            # The single environment's test of a deal: player 0 chooses, player 1 on its convention.
            if given is None and not self._player_0_chooses(candidate, pickup_seed):
                continue
            self.start(candidate, pickup_seed)
            if self.to_move is not None:
                return
            # A drawn deal gives player 0 a decision with player 1 on its convention, so it gives this
            # table one (player 1's, where its pots come first): only a given deal gets here.
            assert given is not None and self.game is not None
            state = self.game.state
            self.game, self.deal_text = previous  # a refused deal leaves the game as it was
            raise InvalidDealError(
                f"deal {quote_input(str(given))} gives no seat a pickup decision under these rules "
                f"({rules_text(self.rules, self.horizon)}): the game would start finished (it ends after "
                f"{state.tricks} trick(s): {REASONS.get(state.end_reason or '')}); give a deal where a "
                "player takes a pot of two ranks or more while the other still holds cards"
            )
        raise ValueError(
            f"none of {MAX_DRAWS} deals drawn gives player 0 a pickup decision under these rules "
            f"({rules_text(self.rules, self.horizon)}): use a longer horizon or a larger deck"
        )

    def _player_0_chooses(self, deal: Deal, pickup_seed: int) -> bool:
        return WarGame(deal, self.engine_rules, controlled=0, seed=pickup_seed).awaiting

    # -- the game in progress ---------------------------------------------------------------------
    def _game(self) -> WarGame:
        if self.game is None:
            raise GameOverError("call reset() before using the table")
        return self.game

    @property
    def to_move(self) -> int | None:
        return self._game().to_move

    @property
    def done(self) -> bool:
        return self._game().done

    @property
    def truncated(self) -> bool:
        return self._game().state.end_reason == MAX_TRICKS

    @property
    def deal(self) -> str:
        return self.deal_text

    def observe(self, seat: int) -> np.ndarray:
        state = self._game().state
        own, other = state.piles[seat], state.piles[1 - seat]
        n = self.num_cards
        pot = np.zeros(self.rules.ranks, dtype=np.int64)
        if state.taker == seat:
            for rank, count in state.to_place.items():
                pot[rank] = count
        pile = np.fromiter(own, dtype=np.int64, count=len(own))
        if self.observation_mode == "full":
            obs = np.zeros(2 * n + self.rules.ranks, dtype=np.int64)
            theirs = np.fromiter(other, dtype=np.int64, count=len(other))
            obs[: pile.size] = pile + 1
            obs[n : n + theirs.size] = theirs + 1
            obs[2 * n :] = pot
            return obs
        obs = np.zeros(n + 1 + self.rules.ranks, dtype=np.int64)
        # Dealt cards are never put back, so the ones not yet turned are the top of the pile.
        unseen = max(0, len(self._game().deal.piles[seat]) - state.turned[seat])
        obs[:unseen] = 1
        obs[unseen : pile.size] = pile[unseen:] + 2
        obs[n] = len(other)
        obs[n + 1 :] = pot
        return obs

    def action_mask(self, seat: int) -> np.ndarray:
        game = self._game()
        if game.to_move != seat:
            return np.zeros(self.rules.ranks, dtype=bool)
        return game.action_mask()

    def pots(self, seat: int) -> np.ndarray:
        """The cards each player put on the table this trick, ``seat``'s own in row 0, in played
        order, padded with -1: only while ``seat`` picks them up (it sees the face-down ones then),
        all -1 otherwise."""
        game = self._game()
        table = np.full((2, self.num_cards), -1, dtype=np.int64)
        if game.to_move == seat:
            for row, p in enumerate((seat, 1 - seat)):
                cards = game.state.pots[p]
                table[row, : len(cards)] = cards
        return table

    def info(self, seat: int) -> dict[str, Any]:
        game = self._game()
        state = game.state
        cards = state.horizon_cards(seat)
        result = game.outcome(seat)
        shown = game.done or self.reveal_deal or self.deal_is_public
        return {
            "action_mask": self.action_mask(seat).astype(np.int8),
            "score": float(result if self.horizon is None else cards),
            "tricks": state.tricks,
            "cards": cards,
            "result": result,
            "game_over": game.done,
            # What the pickup conventions are defined on; a fixed shape, so that infos stack.
            "pots": self.pots(seat),
            "deal": self.deal_text if shown else "",
        }

    def apply(self, action: int) -> None:
        self._game().apply(action)  # IllegalActionError naming the legal ranks, GameOverError at the end

    def returns(self) -> list[float]:
        game = self._game()
        if self.horizon is None:
            return [float(game.outcome(seat)) for seat in (0, 1)]
        # With a horizon the score is the cards held: the rewards are their changes.
        return [float(game.state.horizon_cards(seat)) for seat in (0, 1)]

    def render(self, seat: int | None = None) -> str:
        return render_text(self._game(), self.horizon, seat)

    def picture(self, seat: int) -> Any:
        """What ``seat`` sees as a picture (``tabletop_gym.render.Picture``), from its observation."""
        from tabletop_gym.envs.war.draw import draw

        info = self.info(seat)
        return draw(self.observe(seat), info, hidden=self.observation_mode == "hidden",
                    ranks=self.rules.ranks, num_cards=self.num_cards, seat=seat)

    def act(self, seat: int, agent: Agent) -> int:
        """The rank ``agent`` puts under ``seat``'s pile next, from that seat's observation and info;
        IllegalActionError if it is not in the seat's pot."""
        action = agent.act(self.observe(seat), self.info(seat))
        value = action[()] if isinstance(action, np.ndarray) and action.shape == () else action
        legal = self._game().legal_actions()
        is_int = isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_)
        if not is_int or int(value) not in legal:
            raise IllegalActionError(
                action, legal, f"the opponent (player {seat}) chose a rank not in its pot"
            )
        return int(value)

    # -- hidden information -----------------------------------------------------------------------
    def hidden_twins(self, rng: np.random.Generator) -> list[WarTable]:
        """Copies of this table at this position that differ only in what neither seat may see
        under the hidden observation: the dealt cards that nobody has turned yet, shuffled among
        both piles (each keeps its count). None under the full observation, which shows both
        piles, nor where no two such cards differ."""
        game = self.game
        if self.observation_mode == "full" or game is None or game.done:
            return []
        state = game.state
        # Dealt cards are never put back: those not yet turned are still the top of each pile.
        unseen = [max(0, len(game.deal.piles[p]) - state.turned[p]) for p in (0, 1)]
        cards = [state.piles[p][i] for p in (0, 1) for i in range(unseen[p])]
        shuffled = [int(card) for card in rng.permutation(cards)]
        if shuffled == cards:
            return []
        twin = copy.deepcopy(self)
        assert twin.game is not None
        piles = [list(pile) for pile in game.deal.piles]
        cards_left = iter(shuffled)
        for p in (0, 1):
            for i in range(unseen[p]):
                card = next(cards_left)
                twin.game.state.piles[p][i] = card
                piles[p][state.turned[p] + i] = card
        twin.game.deal = Deal((tuple(piles[0]), tuple(piles[1])), game.deal.ranks)
        twin.deal_text = str(twin.game.deal)
        return [twin]


def render_text(game: WarGame, horizon: int | None = None, seat: int | None = 0) -> str:
    """The position as text a person can play from: seen from ``seat`` (None: an onlooker), every
    card shown."""
    state = game.state
    alphabet = RANK_CHARS
    names = ["you" if seat == p else f"player {p}" for p in (0, 1)]

    def cards(seq: Any) -> str:
        return "".join(alphabet[r] for r in seq) or "(empty)"

    def pile(p: int) -> str:
        return "your pile    " if seat == p else f"player {p} pile"

    lines = [f"trick {state.tricks}   wars so far {state.wars}"]
    for p in (0, 1) if seat != 1 else (1, 0):  # your own pile first
        lines.append(f"{pile(p)} ({len(state.piles[p]):2d}): {cards(state.piles[p])}")
    if state.taker is not None:
        lines.append(
            f"table: {names[0]} played {cards(state.pots[0])}, {names[1]} played {cards(state.pots[1])}"
        )
        left = sorted(r for r, n in state.to_place.items() for _ in range(n))
        under = "your" if state.taker == seat else f"player {state.taker}'s"
        lines.append(f"pot still to place under {under} pile: {cards(left)}")
    if state.done:
        lines.append(f"game over: {result_text(game, horizon, seat)}")
    return "\n".join(lines)


def result_text(game: WarGame, horizon: int | None = None, seat: int | None = 0) -> str:
    """How the game ended, in words: ``you won (player 1 had no card to turn)``."""
    state = game.state
    if state.end_reason == MAX_TRICKS and horizon is not None and state.tricks >= horizon:
        return f"stopped at the horizon of {horizon} tricks"
    winner = state.winner
    if state.end_reason == ALL_CARDS and winner in (0, 1):
        loser = 1 - winner
        reason = f"{'you' if seat == loser else f'player {loser}'} had no card to turn"
    else:
        reason = REASONS.get(state.end_reason or "", str(state.end_reason))
    if winner in (0, 1):
        if seat in (0, 1):
            verdict = "you won" if winner == seat else "you lost"
        else:
            verdict = f"player {winner} won"
    else:
        verdict = "draw"
    return f"{verdict} ({reason})"


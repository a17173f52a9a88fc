"""Gymnasium environment for War, where the pickup order is player 0's decision."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletop_gym.core import (
    Agent,
    GameOverError,
    IllegalActionError,
    InvalidDealError,
    LegalActionSpace,
    TabletopEnv,
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
    parse_deal,
    random_deal,
    replay,
)
from tabletop_gym.settings import given

OBSERVATIONS = ("full", "hidden")
"""What player 0 sees (the class docstring says how): both piles in order, or what a real player
knows. The first is the default."""
MAX_DRAWS = 1000
"""Deals drawn at most by one ``reset`` before the rules are declared to give player 0 no decision.
Under rules where a decision is rare this could in principle give up on rules that have one; with
the smallest decks and horizons the package offers, a decision comes within a few draws."""


class WarEnv(TabletopEnv):
    """War against a player who follows a pickup convention (or any Agent); you order the pots you win.

    ## Description
    The deck (`ranks` x `suits`, default 13 x 4) is dealt alternately into two piles. Each trick both
    players turn their top card; the higher rank takes the pot, equal ranks start a war (`face_down`
    cards face down, then one face up; a player short of cards keeps one to turn). The taker puts the
    pot under their pile. Player 1 does so by its convention (`pickup`), or, with an `opponent`
    agent, in the order that agent chooses; you, player 0, choose the order card by card. Tricks
    between your decisions are played automatically, and so are pots whose remaining cards all
    share one rank (no choice left). Rules: docs/rules/war.md.

    ## Action space
    `Discrete(ranks)`: the rank of the pot card that goes under your pile next (the first card
    placed comes up first). Only ranks still in the pot are legal: `info["action_mask"]` (np.int8)
    and `action_masks()` (bool) say which.

    ## Observation space
    `observation="full"` (default): `MultiDiscrete` of `2 * N + ranks` integers, N = ranks * suits:

    - 0..N-1: your pile, top card first, as rank + 1 (1 is a `2`), 0 past its end; cards of the
      current pot that you have already placed are at its end;
    - N..2N-1: player 1's pile, the same way;
    - 2N..2N+ranks-1: how many cards of each rank are still to be placed from the pot.

    `observation="hidden"` (what a real player knows): `MultiDiscrete` of `N + 1 + ranks` integers:

    - 0..N-1: your pile as you built it: 1 for a dealt card you have not seen yet, rank + 2 for a
      card you placed, 0 past the end;
    - N: the number of cards in player 1's pile;
    - N+1..: the pot cards still to be placed, per rank.

    ## Rewards
    Without a `horizon` (the whole game): at the end of the game, +1 if you win, -1 if you lose, 0 for
    a draw (both out of cards at once) or when the episode is truncated at `max_tricks`; 0 at every
    other step.

    With a `horizon`: each step's reward is the change in `info["cards"]` (the cards you hold,
    counting pot cards still to place; every card once you have won, none once you have lost) from
    the previous observation to this one. The rewards of an episode therefore sum to its final
    `info["score"]` minus the `info["cards"]` of the first observation (the one `reset` returns),
    whether it stops at the horizon, at `max_tricks` or at the end of the game.

    ## Starting state
    A seeded random deal, or `reset(options={"deal": "P0/P1"})` (top card first, ranks from
    `23456789TJQKA`). The first observation is at your first real pickup decision, so every episode
    starts with a legal action. Deals where player 0 never chooses (the game, or the horizon, ends
    before player 0 takes a pot of two ranks or more) are skipped: drawn again from the same seeded
    stream, so `reset(seed=s)` always gives the same deal, and `info["deal"]` (see Info) is the deal
    played (the one the oracles solve). Under the `random` convention player 1's pickups are drawn
    with the deal, from the same stream; an `opponent` agent is reset (`reset(seed)`) with a seed
    from that same draw, so a seed draws the same deals with or without one (player 1's choices
    decide which of them give player 0 a decision), and a deal given back in `options` replays the
    deal, not a random opponent's choices. Rules under which none of 1000 drawn deals gives player 0
    a decision (say a 3-card deck with `horizon=1`) raise ValueError naming them; so do rules that
    never can (one rank, or two cards), already at construction. A deal given in `options` that
    gives player 0 no decision raises InvalidDealError.

    ## Episode end
    Terminated when a player cannot turn a card (win or loss) or both run out (draw). Truncated
    after `max_tricks` tricks, or after `horizon` tricks when a horizon is set.

    ## Info
    `action_mask`, `deal`, `score`, `tricks` (completed tricks), `cards` (cards you hold, counting
    pot cards still to place), `result` (+1/0/-1, 0 while the game goes on), `game_over`, `pots`
    (an int64 array of shape (2, ranks * suits): row p holds player p's cards on the table this
    trick as ranks, in played order, while you pick them up, padded with -1; all -1 between pickups).
    Every info has these keys with the same shapes and dtypes.
    `score` is the result, or, with a `horizon`, the cards you hold when the episode ends (all of
    them after a win, none after a loss): the quantity `tabletop_gym.oracles.war` bounds.

    `deal` is the deal string: in every info under `observation="full"`, which shows every card
    where it lies; under `observation="hidden"` only on the last step (terminated or truncated;
    `""` before),
    since it gives the order of every card not yet turned, yours and player 1's, unless the
    environment is made with `reveal_deal=True` (then in every info, reset included). The other
    keys hold only what the player knows in both modes: counts and results of tricks played in
    front of them, and the pot they are picking up (cards they have seen: the face-down ones are
    turned as they are picked up).

    ## Arguments

    - `render_mode`: None or "ansi".
    - `ranks`, `suits`, `face_down`, `pickup`, `max_tricks`: the rules (`WarRules`).
    - `observation`: "full" or "hidden".
    - `horizon`: None, or a number of tricks (at least 1) after which the episode stops (scored by
      cards held).
    - `reveal_deal`: True puts `deal` in every info, reset included, also under the hidden
      observation: for an oracle's plan played as an agent, never for an agent being evaluated
      (default False).
    - `opponent`: None (player 1 follows `pickup`), or an Agent (`reset(seed)`, `act(observation,
      info)`) that orders player 1's pots card by card in its place, every pot of two ranks or
      more, from player 1's own observation: this layout from seat 1's side ("your pile" is player
      1's; under `observation="hidden"` only what player 1 may see) and an info with
      `action_mask` (np.int8) and `pots` (its own cards in row 0). An action outside its mask raises
      IllegalActionError. The oracles assume the convention: with an opponent agent their answers
      bound nothing.

    Numbers may be Python or numpy integers; out of range values raise ValueError naming the
    argument (`InvalidDealError` for the rules).
    """

    # The hidden observation shows less of the same deals and scores: a suite serves both.
    PRESENTATION_OPTIONS = TabletopEnv.PRESENTATION_OPTIONS | {"observation"}

    def __init__(
        self,
        render_mode: str | None = None,
        ranks: int = WarRules.ranks,
        suits: int = WarRules.suits,
        face_down: int = WarRules.face_down,
        pickup: str = WarRules.pickup,
        max_tricks: int = WarRules.max_tricks,
        observation: str = OBSERVATIONS[0],
        horizon: int | None = None,
        reveal_deal: bool = False,
        opponent: Agent | None = None,
    ) -> None:
        self._check_render_mode(render_mode)
        if opponent is not None and not (callable(getattr(opponent, "act", None))
                                         and callable(getattr(opponent, "reset", None))):
            raise TypeError(f"opponent {opponent!r} is not an Agent (needs reset() and act())")
        self.opponent = opponent
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self._set_reveal_deal(reveal_deal)
        # The full observation shows both piles in order: the deal says nothing more about the game to
        # come. The hidden one shows neither pile's order.
        self.deal_is_public = observation == "full"
        horizon = check_int("horizon", horizon, 1, MAX_TRICKS_LIMIT, optional=True)
        self.render_mode = render_mode
        self.rules = WarRules(ranks, suits, face_down, pickup, max_tricks)  # checks and converts each
        ranks, suits = self.rules.ranks, self.rules.suits
        if ranks == 1 or self.rules.num_cards == 2:
            # One rank: every pot holds one rank. Two cards: the first trick ends the game.
            raise ValueError(
                f"player 0 never has a pickup decision under these rules ({self._rules_text(horizon)}): "
                "use at least 2 ranks and 3 cards"
            )
        self.horizon = horizon
        self._engine_rules = _episode_rules(self.rules, horizon)
        self.observation_mode = observation
        n = self.rules.num_cards
        self.num_cards = n
        if observation == "full":
            nvec = [ranks + 1] * (2 * n) + [suits + 1] * ranks
        else:
            nvec = [ranks + 2] * n + [n + 1] + [suits + 1] * ranks
        self.observation_space = spaces.MultiDiscrete(np.array(nvec, dtype=np.int64))
        self.action_space = LegalActionSpace(ranks, self)
        self.game: WarGame | None = None
        self._deal_text = ""
        self._cards = 0  # info["cards"] at the last observation: the base of the horizon reward

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        deal_text = self._deal_option(options)
        given = parse_deal(deal_text, self.rules) if deal_text is not None else None
        # Under a fixed convention a given deal plays the same way every time: one try says it all.
        fixed = self.rules.deterministic and self.opponent is None
        draws = 1 if given is not None and fixed else MAX_DRAWS
        for _ in range(draws):
            deal = given if given is not None else random_deal(self.np_random, self.rules)
            game = self._start(deal)
            if game.awaiting:
                break
        else:
            if given is not None:
                state = game.state
                raise InvalidDealError(
                    f"deal {quote_input(str(given))} gives player 0 no pickup decision under these rules "
                    f"({self._rules_text(self.horizon)}): the episode would start finished (it ends "
                    f"after {state.tricks} trick(s): {REASONS.get(state.end_reason or '')}); give a deal "
                    "where player 0 takes a pot of two ranks or more while player 1 still holds cards"
                )
            raise ValueError(
                f"none of {MAX_DRAWS} deals drawn gives player 0 a pickup decision under these rules "
                f"({self._rules_text(self.horizon)}): use a longer horizon or a larger deck"
            )
        self.game = game
        self._deal_text = str(deal)
        self._cards = game.state.horizon_cards(0)
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        game = self._require_game()
        if game.done:
            raise GameOverError(f"the episode has ended ({result_text(game, self.horizon)}); call reset()")
        game.apply(self._action_index(action))  # raises IllegalActionError naming the legal ranks
        self._run_opponent(game)
        terminated = truncated = False
        reward = 0.0
        if game.done:
            truncated = game.state.end_reason == MAX_TRICKS
            terminated = not truncated
        if self.horizon is not None:
            # The score with a horizon is the cards held: reward each step with their change, read
            # from the engine, so an episode's rewards sum to its score minus the cards held at reset.
            cards = game.state.horizon_cards(0)
            reward = float(cards - self._cards)
            self._cards = cards
        elif game.done:
            reward = float(game.outcome(0))
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return render_text(self._require_game(), self.horizon)

    def has_position(self) -> bool:
        """True while a pot waits to be ordered (``action_space.sample()`` then draws its ranks)."""
        return self.game is not None and self.game.awaiting

    def action_masks(self) -> np.ndarray:
        return self._require_game().action_mask()

    # -- hidden information (for the contract test kit, tabletop_gym.testing) -------------------
    # The count of tricks played is in info, not in the hidden observation: the player watches
    # every trick, so a game where it differs is one the player tells apart.
    public_info = ("tricks",)

    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[WarEnv, np.ndarray, dict[str, Any]]]:
        """Copies of this environment at this position that differ only in what player 0 may not
        see, each with the observation and info it gives here: under the hidden observation, the
        dealt cards that nobody has turned yet, shuffled among both piles (each keeps its count).
        None under the full observation, which shows both piles, nor where no two such cards
        differ."""
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
        piles = [list(pile) for pile in game.deal.piles]
        cards_left = iter(shuffled)
        for p in (0, 1):
            for i in range(unseen[p]):
                card = next(cards_left)
                twin.game.state.piles[p][i] = card
                piles[p][state.turned[p] + i] = card
        twin.game.deal = Deal((tuple(piles[0]), tuple(piles[1])), game.deal.ranks)
        twin._deal_text = str(twin.game.deal)
        return [(twin, twin._observation(), twin._info())]

    # -- helpers -------------------------------------------------------------------------------
    def _start(self, deal: Deal) -> WarGame:
        """The game of ``deal`` played up to player 0's first decision (or its end)."""
        # The random convention draws from a generator seeded by the episode's own generator; so does
        # an opponent agent, from the same draw, so that the seed's deals are the same with or
        # without one.
        pickup_seed = int(self.np_random.integers(2**63))
        if self.opponent is None:
            return WarGame(deal, self._engine_rules, controlled=0, seed=pickup_seed)
        self.opponent.reset(seed=pickup_seed)
        game = WarGame(deal, self._engine_rules, controlled=(0, 1), seed=pickup_seed, order_every_pot=(1,))
        self._run_opponent(game)
        return game

    def _run_opponent(self, game: WarGame) -> None:
        """Player 1's pickups, card by card, by the opponent agent from its own observation (this
        environment's layout from seat 1) and info (``action_mask``, and ``pots`` with its own cards
        in row 0), until player 0 must choose or the episode ends."""
        while game.to_move == 1:
            assert self.opponent is not None
            state = game.state
            info = {"action_mask": game.action_mask().astype(np.int8), "pots": self._pots(state.pots[::-1])}
            action = self.opponent.act(self._observation(game, seat=1), info)
            value = action[()] if isinstance(action, np.ndarray) and action.shape == () else action
            legal = game.legal_actions()
            is_int = isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_)
            if not is_int or int(value) not in legal:
                raise IllegalActionError(action, legal, "the opponent (player 1) chose a rank not in its pot")
            game.apply(int(value))

    def _rules_text(self, horizon: int | None) -> str:
        rules = self.rules
        text = f"ranks={rules.ranks}, suits={rules.suits}, face_down={rules.face_down}, pickup={rules.pickup}"
        return text + (f", horizon={horizon}" if horizon is not None else "")

    def _require_game(self) -> WarGame:
        if self.game is None:
            raise GameOverError("call reset() before using the environment")
        return self.game

    def _observation(self, game: WarGame | None = None, seat: int = 0) -> np.ndarray:
        """What ``seat`` sees (the layout of the class docstring, "your" being that seat's)."""
        game = game if game is not None else self._require_game()
        state = game.state
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
        unseen = max(0, len(game.deal.piles[seat]) - state.turned[seat])
        obs[:unseen] = 1
        obs[unseen : pile.size] = pile[unseen:] + 2
        obs[n] = len(other)
        obs[n + 1 :] = pot
        return obs

    def _pots(self, pots: Any) -> np.ndarray:
        table = np.full((2, self.num_cards), -1, dtype=np.int64)
        for p, cards in enumerate(pots):
            table[p, : len(cards)] = cards
        return table

    def _info(self) -> dict[str, Any]:
        game = self._require_game()
        state = game.state
        cards = state.horizon_cards(0)
        result = game.outcome(0)
        info = {
            "action_mask": game.action_mask().astype(np.int8),
            "score": float(result if self.horizon is None else cards),
            "tricks": state.tricks,
            "cards": cards,
            "result": result,
            "game_over": game.done,
            # The cards each player put on the table this trick, in played order (none when no
            # pickup is pending): what the pickup conventions are defined on. A fixed shape, padded
            # with -1, so that every info of the environment stacks into one array.
            "pots": self._pots(state.pots if game.awaiting else ((), ())),
        }
        return self._add_deal(info, self._deal_text, game.done)


def _episode_rules(rules: WarRules, horizon: int | None) -> WarRules:
    """The rules the engine plays an episode by: the horizon is the engine's own trick limit, so the
    engine decides where the episode stops."""
    return rules if horizon is None else rules.replace(max_tricks=min(rules.max_tricks, horizon))


def score_plan(deal: str, plan: Sequence[int], **env_kwargs: Any) -> float:
    """The episode score (``info["score"]`` at its end) that ``WarEnv(**env_kwargs)`` gives ``plan``,
    player 0's decisions, on ``deal``, through the engine's ``replay``: the result (+1/0/-1), or with
    a ``horizon`` the cards held. Options that only change what is shown (``observation``...) are
    ignored. ValueError if the plan stops before the episode ends; IllegalActionError on an illegal
    decision."""
    rules = WarRules(**given(WarRules, env_kwargs))
    horizon = check_int("horizon", env_kwargs.get("horizon"), 1, MAX_TRICKS_LIMIT, optional=True)
    game = replay(_episode_rules(rules, horizon), deal, plan)
    if not game.done:
        raise ValueError("the plan stops before the episode ends")
    return float(game.outcome(0) if horizon is None else game.state.horizon_cards(0))


REASONS = {
    ALL_CARDS: "a player had no card to turn",
    BOTH_OUT: "both players ran out of cards",
    MAX_TRICKS: "the trick limit was reached",
    CYCLE: "a position came back",
}


def render_text(game: WarGame, horizon: int | None = None) -> str:
    """The position as text a person can play from."""
    state = game.state
    alphabet = RANK_CHARS

    def cards(seq: Any) -> str:
        return "".join(alphabet[r] for r in seq) or "(empty)"

    lines = [f"trick {state.tricks}   wars so far {state.wars}"]
    lines.append(f"your pile     ({len(state.piles[0]):2d}): {cards(state.piles[0])}")
    lines.append(f"player 1 pile ({len(state.piles[1]):2d}): {cards(state.piles[1])}")
    if state.taker is not None:
        lines.append(f"table: you played {cards(state.pots[0])}, player 1 played {cards(state.pots[1])}")
        left = sorted(r for r, n in state.to_place.items() for _ in range(n))
        lines.append(f"pot still to place under your pile: {cards(left)}")
    if state.done:
        lines.append(f"game over: {result_text(game, horizon)}")
    return "\n".join(lines)


def result_text(game: WarGame, horizon: int | None = None) -> str:
    """How the game ended, in words: ``you won (player 1 had no card to turn)``."""
    state = game.state
    if state.end_reason == MAX_TRICKS and horizon is not None and state.tricks >= horizon:
        return f"stopped at the horizon of {horizon} tricks"
    outcome = game.outcome(0)
    if state.end_reason == ALL_CARDS:
        reason = f"{'player 1' if outcome == 1 else 'you'} had no card to turn"
    else:
        reason = REASONS.get(state.end_reason or "", str(state.end_reason))
    return {1: "you won", -1: "you lost"}.get(outcome, "draw") + f" ({reason})"

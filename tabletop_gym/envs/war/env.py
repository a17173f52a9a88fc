"""Gymnasium environment for War, where the pickup order is player 0's decision."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from tabletop_gym.core import (
    Agent,
    GameOverError,
    InvalidDealError,
    LegalActionSpace,
    TabletopEnv,
    quote_input,
)
from tabletop_gym.envs.war.rules import WarGame, WarRules, episode_rules, parse_deal, replay
from tabletop_gym.envs.war.table import (
    MAX_DRAWS,
    OBSERVATIONS,
    REASONS,
    WarTable,
    check_horizon,
    check_observation,
    render_text,
    result_text,
    rules_text,
)
from tabletop_gym.settings import given

__all__ = ["MAX_DRAWS", "OBSERVATIONS", "REASONS", "WarEnv", "render_text", "result_text", "score_plan"]


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

    - `render_mode`: None, "ansi" (text) or "rgb_array" (frames; `svg()` draws the same picture as SVG:
      docs/pictures.md).
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
      1's; under `observation="hidden"` only what player 1 may see) and this info from seat 1's
      side (`action_mask`, np.int8, and `pots` with its own cards in row 0; `deal` only where player
      1 may see it), as `tabletop_gym.multiagent.war_v0` gives seat 1. An action outside its mask raises
      IllegalActionError. The oracles assume the convention: with an opponent agent their answers
      bound nothing.

    Numbers may be Python or numpy integers; out of range values raise ValueError naming the
    argument (`InvalidDealError` for the rules).
    """

    metadata = TabletopEnv.PICTURE_METADATA  # drawn by draw.py: render_mode="rgb_array", svg()

    # The hidden observation shows less of the same deals and scores: a suite serves both.
    PRESENTATION_OPTIONS = TabletopEnv.PRESENTATION_OPTIONS | {"observation"}
    SEATING_OPTIONS = TabletopEnv.SEATING_OPTIONS | {"opponent"}

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
        check_observation(observation)
        self._set_reveal_deal(reveal_deal)
        # The full observation shows both piles in order: the deal says nothing more about the game to
        # come. The hidden one shows neither pile's order.
        self.deal_is_public = observation == "full"
        horizon = check_horizon(horizon)
        self.render_mode = render_mode
        self.rules = WarRules(ranks, suits, face_down, pickup, max_tricks)  # checks and converts each
        # Player 1 is the engine's convention, or the opponent agent standing in for one (so it orders
        # every pot it takes, as a convention does); player 0 is asked only where the order matters.
        seats, every_pot = ((0,), ()) if opponent is None else ((0, 1), (1,))
        self.table = WarTable(self.rules, horizon, observation, seats=seats, order_every_pot=every_pot)
        self.horizon = horizon
        self._engine_rules = self.table.engine_rules
        self.observation_mode = observation
        self.num_cards = self.rules.num_cards
        self.observation_space = self.table.observation_space
        self.action_space = LegalActionSpace(self.rules.ranks, self)
        self._others = {} if opponent is None else {1: opponent}
        self._cards = 0  # info["cards"] at the last observation: the base of the horizon reward

    @property
    def game(self) -> WarGame | None:
        """The engine's game in progress (None before the first ``reset``)."""
        return self.table.game

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        deal_text = self._deal_option(options)
        given = parse_deal(deal_text, self.rules) if deal_text is not None else None
        # Under a fixed convention a given deal plays the same way every time: one try says it all.
        fixed = self.rules.deterministic and self.opponent is None
        table = self.table
        previous = table.game, table.deal_text
        tries = 1 if given is not None and fixed else MAX_DRAWS
        for deal, pickup_seed in table.candidates(self.np_random, given, tries):
            # An opponent agent is seeded from the same draw as the random convention, so that a seed's
            # deals are the same with or without one.
            if self.opponent is not None:
                self.opponent.reset(seed=pickup_seed)
            table.start(deal, pickup_seed)
            table.play_others(0, self._others)
            if table.to_move == 0:
                break
        else:
            assert table.game is not None
            state = table.game.state
            table.game, table.deal_text = previous  # a refused reset leaves the episode as it was
            if given is not None:
                raise InvalidDealError(
                    f"deal {quote_input(str(given))} gives player 0 no pickup decision under these rules "
                    f"({rules_text(self.rules, self.horizon)}): the episode would start finished (it ends "
                    f"after {state.tricks} trick(s): {REASONS.get(state.end_reason or '')}); give a deal "
                    "where player 0 takes a pot of two ranks or more while player 1 still holds cards"
                )
            raise ValueError(
                f"none of {MAX_DRAWS} deals drawn gives player 0 a pickup decision under these rules "
                f"({rules_text(self.rules, self.horizon)}): use a longer horizon or a larger deck"
            )
        self._cards = table.returns()[0]
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        table = self.table
        game = self._require_game()
        if game.done:
            raise GameOverError(f"the episode has ended ({result_text(game, self.horizon)}); call reset()")
        table.apply(self._action_index(action))  # raises IllegalActionError naming the legal ranks
        table.play_others(0, self._others)
        terminated = truncated = False
        reward = 0.0
        if table.done:
            truncated = table.truncated
            terminated = not truncated
        if self.horizon is not None:
            # The score with a horizon is the cards held: reward each step with their change, read
            # from the engine, so an episode's rewards sum to its score minus the cards held at reset.
            cards = table.returns()[0]
            reward = cards - self._cards
            self._cards = cards
        elif table.done:
            reward = table.returns()[0]
        return self._observation(), reward, terminated, truncated, self._info()

    def _render_text(self) -> str:
        self._require_game()
        return self.table.render(0)

    def has_position(self) -> bool:
        """True while a pot waits to be ordered (``action_space.sample()`` then draws its ranks)."""
        return self.game is not None and self.game.awaiting

    def picture(self) -> Any:
        """The position as a picture (``tabletop_gym.render.Picture``), drawn from the observation."""
        self._require_game()
        return self.table.picture(0)

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
        twins = []
        for table in self.table.hidden_twins(rng):
            twin = copy.deepcopy(self)
            twin.table = table
            twins.append((twin, twin._observation(), twin._info()))
        return twins

    # -- helpers -------------------------------------------------------------------------------
    def _require_game(self) -> WarGame:
        if self.game is None:
            raise GameOverError("call reset() before using the environment")
        return self.game

    def _observation(self, seat: int = 0) -> np.ndarray:
        """What ``seat`` sees (the layout of the class docstring, "your" being that seat's)."""
        self._require_game()
        return self.table.observe(seat)

    def _info(self) -> dict[str, Any]:
        game = self._require_game()
        return self._add_deal(self.table.info(0), self.table.deal, game.done)


def score_plan(deal: str, plan: Sequence[int], **env_kwargs: Any) -> float:
    """The episode score (``info["score"]`` at its end) that ``WarEnv(**env_kwargs)`` gives ``plan``,
    player 0's decisions, on ``deal``, through the engine's ``replay``: the result (+1/0/-1), or with
    a ``horizon`` the cards held. Options that only change what is shown (``observation``...) are
    ignored. ValueError if the plan stops before the episode ends; IllegalActionError on an illegal
    decision."""
    rules = WarRules(**given(WarRules, env_kwargs))
    horizon = check_horizon(env_kwargs.get("horizon"))
    game = replay(episode_rules(rules, horizon), deal, plan)
    if not game.done:
        raise ValueError("the plan stops before the episode ends")
    return float(game.outcome(0) if horizon is None else game.state.horizon_cards(0))


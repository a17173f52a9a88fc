"""Gymnasium environment for Modern Art: Masters Gallery: one seat against bot (or policy) opponents."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from tabletop_gym.core import GameOverError, LegalActionSpace, TabletopEnv, check_int
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.observation import (  # noqa: F401  (the layout stays public here too)
    AWARDS,
    AWARDS_LEFT,
    DECISION,
    DECISION_ARTIST,
    DECK_LEFT,
    EXTRA,
    HAND,
    HAND_SIZES,
    HIDDEN_COUNT,
    MAX_PLAYERS,
    OBS_SIZE,
    OWN_HIDDEN,
    PLAYERS,
    ROUND,
    SCORES,
    SHOWN,
    TURN,
    VALUES,
)
from tabletop_gym.envs.modern_art.rules import (
    NUM_ACTIONS,
    NUM_SYMBOLS,
    ModernArtRules,
    State,
    first_rounds,
    replay,
)
from tabletop_gym.envs.modern_art.table import ModernArtTable, observe, render_text

# The keywords ModernArtEnv passes on to ModernArtRules (players is the environment's own argument).
RULE_PARAMS = tuple(
    f.name for f in fields(ModernArtRules) if f.init and f.name[0] != "_" and f.name != "players"
)


class ModernArtEnv(TabletopEnv):
    """Modern Art: Masters Gallery: one seat of a 2-5 player game, the other seats played by agents.

    ## Description
    Five artists; each turn a player displays a card from hand, and its symbol may draw a card,
    add a second card (double face up, hidden face down), let every other player add a card
    (simultaneous) or put an award token on an artist. A round ends when one artist has 6 face-up
    cards (5 with two players) or every hand is empty; the three artists with most cards this round
    gain value tokens 3, 2, 1, and each player scores, for each of them, its value so far (plus 2 per
    award) times their own cards of it. Four rounds (fewer with `rounds=N`); highest total wins. Rules:
    docs/rules/modern-art.md; the engine is `tabletop_gym.envs.modern_art.rules`. This environment is
    one seat of `table.ModernArtTable`, the other seats played by `opponents`; `modern_art_v0`
    (`tabletop_gym.multiagent`) gives every seat to a learner.

    ## Action space
    `Discrete(36)`, read by the current decision (observation slot `DECISION`):

    - `0..29`: display (or, for the hidden decision, put face down) a card of kind
      `artist * 6 + symbol` (artists 0-4 in board order Lite Metal, Yoko, Christin P., Karl Gitter,
      Krypto; symbols plain, draw, double, hidden, simultaneous, award);
    - `30..34`: put the award token on artist `action - 30`;
    - `35`: pass (decline an optional second, simultaneous or end-of-round card).
    `info["action_mask"]` (np.int8) and `action_masks()` (bool) give the legal actions.

    ## Observation space
    `Box(0, high, (97,), int64)`, only what the seat may know; seats are relative (0 = this seat,
    1 = next in turn order; seats beyond the player count read 0):

    - 0..29 `HAND`: cards of each kind in hand;
    - 30..54 `SHOWN`: face-up cards this round, per seat and artist;
    - 55..59 `OWN_HIDDEN`: this seat's face-down cards per artist;
    - 60..64 `HIDDEN_COUNT`: face-down cards per seat (count only);
    - 65..69 `EXTRA`: extra card(s) this round per artist;
    - 70..74 `VALUES`: value tokens won per artist; 75..79 `AWARDS`: award tokens per artist;
    - 80..84 `SCORES`: score per seat; 85..89 `HAND_SIZES`: cards in hand per seat;
    - 90 deck cards left, 91 round (from 0; 0-3 in a full game), 92 decision (0 play, 1 double,
      2 hidden, 3 simultaneous, 4 award, 5 end-of-round play), 93 whose turn (relative seat), 94 player
      count, 95 award tokens left, 96 the artist a double/simultaneous card was of (artist + 1, else 0).

    ## Rewards
    The points this seat scores at each round's scoring (0 on other steps); the return is its final
    score.

    ## Starting state
    A seeded shuffle (the same seed gives the same deal), or `reset(options={"deal": "<deal>"})`
    (the whole deck, two characters per card, see `rules.parse_deal`). Opponents act until this seat
    first has a decision.

    ## Episode end
    Terminated when the last round is scored: round 4 in a full game, round N with `rounds=N`
    (or the last of the `deals` given). Never truncated.

    ## Info
    `action_mask`, `score` (this seat's points), `scores` (int64 array, all seats, by absolute seat:
    the observation's `SCORES`, there by relative seat), `seat` (this seat), `round`, `decision` (its
    name), and `deal` (to replay or solve the episode: on the last step, `""` before). Every info has
    these keys with the same shapes and dtypes. The deal is the whole deck
    in order, so every hand and every card to come: during play it is in info only when the
    environment is made with `reveal_deal=True` (then from `reset` on). Opponents act on
    `observe(state, their_seat)` and an info holding only their `action_mask`.

    ## Arguments

    - `players` (2-5, default 2) and `seat` (default 0): the game size and this agent's seat.
    - `rounds` (1-4, default None: all 4): a shorter game of only the first N rounds, each dealing
      the cards it deals in a full game: `gym.make("tabletop/ModernArt-v0", rounds=1)` is the
      command line's `--rounds 1` (the same mapping, `rules.first_rounds`: it sets `deals` to the
      first N entries of `rules.DEFAULT_DEALS[players]`, e.g. `(13,)`). Not with `deals`.
    - `opponents`: one Agent per other seat in seat order (default: greedy bots); anything with
      `reset(seed)` and `act(observation, info)` works, a trained policy included (self-play).
    - `render_mode`: None, "ansi" (text) or "rgb_array" (frames; `svg()` draws the same picture as SVG:
      docs/pictures.md).
    - `reveal_deal`: True puts `deal` in every info, reset included: for an oracle's plan played as
      an agent, never for an agent being evaluated (default False).
    - any other keyword: a rule parameter of `tabletop_gym.envs.modern_art.rules.ModernArtRules`
      (`deck`, `deals`, `round_limit`, `extra_card_each_round`, `simultaneous_same_artist`,
      `end_of_round_plays`, `at_once`, `second_card_symbols`, `resolve_ending_card`, `value_tokens`,
      `award_tokens`, `award_value`). Any other keyword is a TypeError naming the accepted ones.
    Numbers may be Python or numpy integers; one out of range (a sixth player, a negative seat, a
    deck or game that would never end) is a ValueError naming the parameter and its range, as is a
    negative `reset(seed=...)`.
    """

    metadata = TabletopEnv.PICTURE_METADATA  # drawn by draw.py: render_mode="rgb_array", svg()

    def __init__(
        self,
        players: int = ModernArtRules.players,
        seat: int = 0,
        opponents: Sequence[Any] | None = None,
        render_mode: str | None = None,
        reveal_deal: bool = False,
        rounds: int | None = None,
        **rule_params: Any,
    ) -> None:
        _check_keywords(rule_params)
        self._check_render_mode(render_mode)
        self._set_reveal_deal(reveal_deal)
        self.rules = _rules(players, rounds, rule_params)
        players = self.rules.players
        self.seat = check_int("seat", seat, 0, players - 1)
        if opponents is None:
            opponents = [GreedyAgent(self.rules) for _ in range(players - 1)]
        opponents = list(opponents)
        if len(opponents) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, got {len(opponents)}")
        for agent in opponents:
            if not (hasattr(agent, "act") and hasattr(agent, "reset")):
                raise TypeError(f"opponent {agent!r} is not an Agent (needs reset() and act())")
        others = [p for p in range(players) if p != self.seat]
        self.opponents = dict(zip(others, opponents, strict=True))
        self.render_mode = render_mode
        self.action_space = LegalActionSpace(NUM_ACTIONS, self)
        self.table = ModernArtTable(self.rules)
        self.observation_space = self.table.observation_space

    @property
    def state(self) -> State | None:
        """The engine's state of the game in progress (None before the first reset)."""
        return self.table.state

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        table = self.table
        table.reset(self.np_random, self._deal_option(options))
        for agent, seed in zip(self.opponents.values(), table.agent_seeds, strict=True):
            agent.reset(seed)
        table.play_others(self.seat, self.opponents)
        return table.observe(self.seat), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self._require_state()
        if state.done:
            last = state.rules.rounds
            raise GameOverError(f"the episode has ended (round {last}, the last, was scored); call reset()")
        table, seat = self.table, self.seat
        before = state.money[seat]
        table.apply(self._action_index(action))
        table.play_others(seat, self.opponents)
        # points come only at a round's scoring, so the change of score is the points scored meanwhile
        return table.observe(seat), float(state.money[seat] - before), state.done, False, self._info()

    def _render_text(self) -> str:
        self._require_state()
        return self.table.render(self.seat)

    def picture(self) -> Any:
        """The position as a picture (``tabletop_gym.render.Picture``), drawn from the observation."""
        self._require_state()
        return self.table.picture(self.seat)

    def action_masks(self) -> np.ndarray:
        state = self._require_state()
        if state.done:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return state.action_mask()

    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[ModernArtEnv, np.ndarray, dict[str, Any]]]:
        """Copies of this environment at this position that differ only in what the seat may not
        see, each with the observation and info it gives here, for the contract test kit
        (``tabletop_gym.testing``): the table's ``hidden_twins`` for this seat (the deck not yet
        dealt in another order, opponents' hands, opponents' face-down cards)."""
        twins = []
        for table in self.table.hidden_twins(self.seat, rng):
            twin = copy.deepcopy(self)  # its own opponents and generator: the kit plays both on
            twin.table = table
            twins.append((twin, table.observe(self.seat), twin._info()))
        return twins

    def _info(self) -> dict[str, Any]:
        # the table's info of this seat (its deal held back during play), then the environment's rule
        # for the deal, which knows of reveal_deal and end_episode
        return self._add_deal(self.table.info(self.seat), self.table.deal, self.state.done)


def _check_keywords(rule_params: dict[str, Any]) -> None:
    unknown = [name for name in rule_params if name not in RULE_PARAMS]
    if unknown:
        raise TypeError(
            f"ModernArtEnv got an unexpected keyword argument {unknown[0]!r}; it takes players, seat, "
            f"opponents, render_mode, reveal_deal, rounds and the rule parameters "
            + ", ".join(RULE_PARAMS)
        )


def _rules(players: int, rounds: int | None, rule_params: dict[str, Any]) -> ModernArtRules:
    """The rules an environment made with these arguments plays (``rounds``: the first N rounds)."""
    players = check_int("players", players, 2, MAX_PLAYERS)
    if rounds is not None:
        if rule_params.get("deals") is not None:
            raise ValueError("rounds and deals both set the rounds: give one of them")
        rule_params = {**rule_params, "deals": first_rounds(players, rounds)}
    return ModernArtRules(players=players, **rule_params)


def score_plan(deal: str, plan: Sequence[int], **env_kwargs: Any) -> float:
    """The episode score the environment made with ``env_kwargs`` gives a plan: the money of its
    seat once the engine has replayed ``plan`` (every player's actions, as the oracle's plans
    choose them) from the start of ``deal``. Arguments that only change what is shown or who plays
    the other seats (``opponents``, ``render_mode``, ``reveal_deal``) do not change it. Raises a
    ValueError on an illegal action or a plan that stops before the game ends."""
    kwargs = dict(env_kwargs)
    players = kwargs.pop("players", ModernArtRules.players)
    seat, rounds = kwargs.pop("seat", 0), kwargs.pop("rounds", None)
    for name in ("opponents", "render_mode", "reveal_deal"):
        kwargs.pop(name, None)
    _check_keywords(kwargs)
    rules = _rules(players, rounds, kwargs)
    seat = check_int("seat", seat, 0, rules.players - 1)
    state = replay(rules, deal, plan)
    if not state.done:
        raise ValueError("the plan stops before the game ends")
    return float(state.money[seat])


__all__ = ["ModernArtEnv", "observe", "render_text", "score_plan", "OBS_SIZE", "NUM_SYMBOLS"]

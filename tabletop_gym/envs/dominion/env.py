"""Gymnasium environments for Dominion: the game against bots, and the solitaire benchmark."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from tabletop_gym.core import Agent, GameOverError, LegalActionSpace, TabletopEnv, check_float, check_int
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.bots import DominionBot, game_seed, make_bot
from tabletop_gym.envs.dominion.observation import (  # noqa: F401  (the layout stays public here too)
    COUNTER,
    COUNTERS,
    DECISION,
    DISCARD,
    DRAW,
    HAND,
    IN_PLAY,
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    PLAYER_SIZE,
    PLAYERS,
    SUPPLY,
    TRASH,
    ObservationView,
    observe,
)
from tabletop_gym.envs.dominion.table import VERSUS_TURN_LIMIT, DominionTable, hidden_changes
from tabletop_gym.envs.dominion.table import draw_deal as _draw_deal

_DOC_SPACES = """
    ## Action space
    `Discrete(18)`: 0..16 "choose a card of this type" and 17 "done / pass", read by the current
    decision: play that Action; buy that card; discard it (Cellar, Militia); reveal Moat; trash it
    (Mine, Remodel); gain it (Mine, Remodel, Workshop). Pass stops playing Actions, ends the buy phase,
    stops Cellar's discarding, keeps Moat hidden or trashes nothing with Mine. Card ids: Copper,
    Silver, Gold, Estate, Duchy, Province, Curse, Cellar, Market, Merchant, Militia, Mine, Moat,
    Remodel, Smithy, Village, Workshop. `info["action_mask"]` (np.int8) and `action_masks()` (bool)
    give the legal ones. Treasures are played automatically at the start of the buy phase.

    ## Observation space
    `Box(-100, 250, (205,), float32)`, everything the agent may know, counts per card id:
    - 0..10: the decision kind, one-hot (action, buy, cellar_discard, militia_discard, moat_reveal,
      mine_trash, mine_gain, remodel_trash, remodel_gain, workshop_gain, game_over);
    - 11..27 own hand; 28..44 own draw pile as a multiset (its order is hidden); 45..61 own discard
      pile; 62..78 cards in play (the current player's); 79..95 supply; 96..112 trash;
    - 113..196: four player blocks of 21 (the agent first, then the others in turn order): every
      card the player owns (all gains are public), VP, turns taken, hand size, 1 if seated;
    - 197..204: coins, actions, buys, the cost limit of the pending gain, cards over three to discard
      to Militia, cards discarded to Cellar so far, 1 on the agent's own turn, Merchants played.
"""


SOLITAIRE_TURN_LIMIT = 60  # the solitaire episode's truncation, in turns


def deal_of_seed(seed: int) -> str:
    """The deal that ``reset(seed=seed)`` plays in either Dominion environment (the episode seed of
    the randomness model, which ``reset(options={"deal": ...})`` and the oracle take): the command
    line's ``--seed S`` means this deal, as the environment does. Checked against ``reset`` in the
    tests; computed without making an environment."""
    return str(_draw_deal(seeding.np_random(check_int("seed", seed, 0))[0]))


def _is_agent(player: Any) -> bool:
    return hasattr(player, "act") and hasattr(player, "reset")


class _DominionBase(TabletopEnv):
    metadata = TabletopEnv.PICTURE_METADATA  # drawn by draw.py: render_mode="rgb_array", svg()

    def __init__(self, num_players: int, kingdom: Any, render_mode: str | None, turn_limit: int | None,
                 target: int | None, reveal_deal: bool) -> None:
        self._check_render_mode(render_mode)
        self._set_reveal_deal(reveal_deal)
        self.render_mode = render_mode
        self.kingdom = R.parse_kingdom(kingdom)
        self.num_players = check_int("num_players", num_players, 1, R.MAX_PLAYERS)
        # Always a limit: without one, a policy that never buys would make an endless episode.
        self.turn_limit = check_int("turn_limit", turn_limit, 1)
        self.target = check_int("target", target, 1, R.MAX_TARGET, optional=True)
        R.DominionState(self.num_players, self.kingdom, 0, self.target, self.turn_limit)  # the rest
        self.action_space = LegalActionSpace(R.NUM_ACTIONS, self)
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.state: R.DominionState | None = None
        self.seat = 0
        self.seed_value = 0

    # -- shared machinery ------------------------------------------------------------------------
    def _new_game(self, seed: int | None, options: dict[str, Any] | None) -> None:
        super().reset(seed=seed)
        deal = self._deal_option(options)
        if deal is not None:
            self.seed_value = R.parse_seed(deal)
        else:
            self.seed_value = _draw_deal(self.np_random)
        self.state = R.DominionState(self.num_players, self.kingdom, self.seed_value, self.target,
                                     self.turn_limit)

    def _check_action(self, action: Any) -> int:
        state = self._require_state()
        if state.done:
            raise GameOverError("the episode has ended; call reset()")
        return self._action_index(action)

    def action_masks(self) -> np.ndarray:
        state = self._require_state()
        if state.done or state.decider != self.seat:
            return np.zeros(R.NUM_ACTIONS, dtype=bool)
        return state.action_mask()

    def observation(self) -> np.ndarray:
        return observe(self._require_state(), self.seat)

    def _info(self) -> dict[str, Any]:
        state = self._require_state()
        info = {
            "action_mask": self.action_masks().astype(np.int8),
            "decision": R.DECISION_NAMES[state.decision],
            "turns": state.turns[self.seat],
            "vp": state.vp(self.seat),
        }
        # The seed fixes every shuffle to come (and the bots' choices): hidden until the game ends.
        return self._add_deal(info, str(self.seed_value), state.done)

    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[Any, np.ndarray, dict[str, Any]]]:
        """Copies of this environment at this position that differ only in what the agent may not
        see, each with the observation and info it gives here, for the contract test kit
        (``tabletop_gym.testing``): the changes of ``table.hidden_changes`` from the agent's seat
        (another seed for every shuffle to come, the agent's own draw pile in another order, the
        other players' hands and draw piles). Only the seed changes the deal string: no seed deals
        the other positions."""
        state = self.state
        if state is None or state.done:
            return []
        twins = []
        for change in hidden_changes(state, self.seat, rng):
            twin = copy.deepcopy(self)
            change(twin.state)
            twin.seed_value = twin.state.seed
            twins.append(twin)
        return [(twin, twin.observation(), twin._info()) for twin in twins]

    def picture(self) -> Any:
        """The position as a picture (``tabletop_gym.render.Picture``), drawn from the observation."""
        from tabletop_gym.envs.dominion.draw import draw

        self._require_state()
        return draw(self.observation(), self.kingdom, self.num_players)

    def _render_text(self) -> str:
        # What the agent may see: the other players' hands as their sizes.
        return self._require_state().describe(viewer=self.seat)


class DominionEnv(_DominionBase):
    # Built from shared parts, so assigned: an expression in its place would not be the docstring.
    __doc__ = """Dominion (base game, 2nd edition) for one agent against rule bots.

    ## Description
    Each player starts with 7 Coppers and 3 Estates and builds a deck by buying cards from the supply
    (treasures, victory cards, curses and the kingdom's ten Action cards); the game ends after a turn
    in which the Provinces or any three supply piles run out, and most VP wins (ties: fewer turns,
    then shared). Rules: docs/rules/dominion.md. The agent answers every decision that is its own:
    on its turns (Actions, buys, the choices inside its cards) and on the others' turns (discarding to
    an opponent's Militia, revealing Moat). The bots' decisions are played between the agent's steps.
    Every shuffle is a function of the episode seed (the deal), the player, the shuffle count and the
    cards shuffled, so a deal replays exactly. The game is one seat of `DominionTable`
    (`envs/dominion/table.py`); `tabletop_gym.multiagent.dominion_v0` gives every seat to a learner.
""" + _DOC_SPACES + """
    ## Rewards
    +1 for a win, 0 for a shared win, -1 for a loss, at the end. With `vp_shaping=c`, each step also
    gives c times the change of (own VP - best opponent VP).

    ## Starting state
    A seeded deal (`reset(seed=S)` plays the deal `deal_of_seed(S)`), or
    `reset(options={"deal": "<deal>"})` (a decimal integer, as `info["deal"]` gives it); the bots
    take their turns until the agent's first decision.

    ## Episode end
    Terminated when the game ends; truncated when every player has had `turn_limit` turns.

    ## Info
    `action_mask`, `score` (own VP), `decision`, `turns`, `vp` (all four as the observation shows
    them), `result` (+1/0/-1 at the end, 0 before), `level_on_vp` (at the end, whether the leaders
    were level on VP; False before) and `deal` (the seed, to replay the game; `""` before the last
    step). The seed fixes every shuffle to come, so every future draw and the others' hands: during
    play it is in info only when the environment is made with `reveal_deal=True` (then from `reset`
    on). Every info has the same keys.

    ## Arguments
    - `opponents`: one player or a list of 1-3, each a bot name (default "big-money"; see
      tabletop_gym.agents.dominion), a bot, or any Agent (`reset(seed)`, `act(observation, info)`: a
      random player, a trained policy), which acts on its own seat's observation and info (those an
      agent in that seat gets: `action_mask` and the keys below, the deal hidden until the end).
    - `kingdom`: kingdom cards, a comma-separated string or a list (default: the first-game set;
      "" = treasures and victory cards only).
    - `seat`: the agent's seat, 0 = first player .. number of opponents (default 0).
    - `vp_shaping`: weight of the VP-difference shaping reward, >= 0 (default 0).
    - `turn_limit`: turns per player before truncation, at least 1 (default 100).
    - `render_mode`: None, "ansi" (text) or "rgb_array" (frames; `svg()` draws the same picture as SVG:
      docs/pictures.md).
    - `reveal_deal`: True puts `deal` in every info, reset included: for an oracle's plan played as
      an agent, never for an agent being evaluated (default False).
    """

    def __init__(self, opponents: str | Agent | Sequence[str | Agent] = "big-money", kingdom: Any = None,
                 seat: int = 0, vp_shaping: float = 0.0, turn_limit: int = VERSUS_TURN_LIMIT,
                 render_mode: str | None = None, reveal_deal: bool = False) -> None:
        single = isinstance(opponents, (str, DominionBot)) or _is_agent(opponents)
        names = [opponents] if single else list(opponents)
        if not 1 <= len(names) <= R.MAX_PLAYERS - 1:
            raise ValueError(f"opponents must name 1 to {R.MAX_PLAYERS - 1} bots, got {len(names)}")
        # A rule bot by name or instance plays from the engine's view of its seat; any other Agent
        # (random, a trained policy, another environment's agent) from its seat's observation.
        self.opponents = [n if _is_agent(n) and not isinstance(n, DominionBot) else make_bot(n)
                          for n in names]
        num_players = len(self.opponents) + 1
        seat = check_int("seat", seat, 0, num_players - 1)
        self.vp_shaping = check_float("vp_shaping", vp_shaping, 0)
        super().__init__(num_players, kingdom, render_mode, turn_limit, None, reveal_deal)
        self.seat = seat
        # The game itself, every seat of it; this environment plays one and lets the others play.
        # It never reveals the deal: this environment shows it by its own rule (``_add_deal``).
        self.table = DominionTable(num_players, self.kingdom, self.turn_limit)
        self._bots: dict[int, Any] = {}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.table.reset(self.np_random, self._deal_option(options))
        self.state = self.table.state
        self.seed_value = self.state.seed
        self._bots = self.bots
        for i, bot in enumerate(self.opponents):
            bot.reset(game_seed(self.seed_value, i + 1))
        self.table.play_others(self.seat, self._bots)
        self._margin = self.table.vp_margin(self.seat)
        return self.observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        a = self._check_action(action)
        state = self.state
        self.table.apply(a)
        self.table.play_others(self.seat, self._bots)
        reward = 0.0
        if self.vp_shaping:
            margin = self.table.vp_margin(self.seat)
            reward += self.vp_shaping * (margin - self._margin)
            self._margin = margin
        terminated = state.done and not state.truncated
        if terminated:
            reward += state.results()[self.seat]
        return self.observation(), reward, terminated, state.truncated, self._info()

    # What the agent's seat sees and may do: the table's, from that seat.
    def action_masks(self) -> np.ndarray:
        self._require_state()
        return self.table.action_mask(self.seat)

    def observation(self) -> np.ndarray:
        self._require_state()
        return self.table.observe(self.seat)

    def _render_text(self) -> str:
        self._require_state()
        # What the agent may see: the other players' hands as their sizes.
        return self.table.render(self.seat)

    @property
    def bots(self) -> dict[int, Any]:
        """The bot or Agent in each seat other than the agent's (seat -> player), in seat order."""
        others = [p for p in range(self.num_players) if p != self.seat]
        return dict(zip(others, self.opponents, strict=True))

    def _info(self) -> dict[str, Any]:
        # The table's info of the agent's seat (the same keys at every step, those known only at
        # the end holding empty values until then), the deal shown by this environment's rule.
        info = self.table.info(self.seat)
        return self._add_deal(info, self.table.deal, self.state.done)


class DominionSolitaireEnv(_DominionBase):
    # Built from shared parts, so assigned: an expression in its place would not be the docstring.
    __doc__ = """Solitaire Dominion: own the target number of Provinces in as few turns as possible.

    ## Description
    One player, 2-player supply sizes, no opponent (rules: docs/rules/dominion.md, "The solitaire
    benchmark game"). The player starts with 7 Coppers and 3 Estates and buys cards until owning
    `target` Provinces. The episode seed (the deal) fixes every shuffle through the project's
    randomness model, so `tabletop_gym.oracles.dominion.solve(deal, kingdom=...)` gives the fewest
    turns any play of that very seed can take (proven, or a proven lower bound where its work limit
    stops it first).
""" + _DOC_SPACES + """
    ## Rewards
    -1 for each turn completed: the return is minus the number of turns taken. With
    `province_reward=w` (a training aid, default 0), each Province bought also gives +w: every episode
    that reaches the target gets the same w * target, so the ranking of finished plays (fewest turns)
    is unchanged, while a play cut off by the turn limit is credited for the Provinces it did buy.
    With `money_reward=c` (a training aid, default 0), potential-based shaping on the deck's money
    density: each step also gives c times the change of (coins of all Treasures owned / cards
    owned), and the step that reaches the target gives back c times the density then (the
    potential of the end is 0), so a finished play's return is shifted by the same -c * 0.7 whatever
    it bought, and the fewest-turns ranking is kept. `info["score"]` is always the unshaped return.

    ## Starting state
    A seeded deal (`reset(seed=S)` plays the deal `deal_of_seed(S)`) or
    `reset(options={"deal": "<deal>"})` (a decimal integer, as `info["deal"]` gives it).

    ## Episode end
    Terminated at the end of the turn in which the player owns `target` Provinces, or in which that
    became impossible (Remodel trashed Provinces: those owned and those left in the supply fall
    short); that last step is charged the turns left to `turn_limit`, so the return and `score` are
    those of a play cut off at the limit. Truncated after `turn_limit` turns.

    ## Info
    `action_mask`, `score` (minus the turns taken so far, equal to the return; minus `turn_limit`
    once the target is unreachable), `decision`, `turns`,
    `vp`, `provinces` (all as the observation shows them), and `deal` (the seed, on the last step,
    terminated or truncated; `""` before). The seed fixes every shuffle, so every future draw: during play it
    is in info only when the environment is made with `reveal_deal=True` (then from `reset` on).

    ## Arguments
    - `kingdom`: kingdom cards (default "": treasures and victory cards only, the game the oracle
      proves fastest; "first-game" for the ten first-game cards).
    - `target`: Provinces to own, 1..8 (default 4).
    - `turn_limit`: turns before truncation, at least 1 (default 60).
    - `province_reward`: reward per Province bought, added to the -1 per turn, >= 0 (default 0).
    - `money_reward`: weight of the money-density shaping, >= 0 (default 0).
    - `render_mode`: None, "ansi" (text) or "rgb_array" (frames; `svg()` draws the same picture as SVG:
      docs/pictures.md).
    - `reveal_deal`: True puts `deal` in every info, reset included: for an oracle's plan played as
      an agent, never for an agent being evaluated (default False).
    """

    # The training aids: they shape the reward, never the deals or `info["score"]`.
    PRESENTATION_OPTIONS = TabletopEnv.PRESENTATION_OPTIONS | {"province_reward", "money_reward"}

    def __init__(self, kingdom: Any = R.DominionRules.kingdom, target: int = R.DominionRules.target,
                 turn_limit: int = SOLITAIRE_TURN_LIMIT,
                 province_reward: float = 0.0, money_reward: float = 0.0,
                 render_mode: str | None = None, reveal_deal: bool = False) -> None:
        super().__init__(1, kingdom, render_mode, turn_limit, check_int("target", target, 1, R.MAX_TARGET),
                         reveal_deal)
        self.province_reward = check_float("province_reward", province_reward, 0)
        self.money_reward = check_float("money_reward", money_reward, 0)

    def _density(self) -> float:
        owned = self.state.owned[0]
        return sum(owned[c] * R.COINS[c] for c in R.TREASURES) / sum(owned)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        self._new_game(seed, options)
        return self.observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        a = self._check_action(action)
        state = self.state
        before, provinces = state.turns[0], state.owned[0][R.PROVINCE]
        density = self._density() if self.money_reward else 0.0
        state.apply(a)
        reward = -float(state.turns[0] - before)
        if self.province_reward:
            reward += self.province_reward * (state.owned[0][R.PROVINCE] - provinces)
        terminated = state.done and not state.truncated
        if state.unreachable:
            # The target can no longer be owned (Remodel trashed Provinces): the episode ends, and
            # the turns left to the limit are charged so that ending it this way never pays.
            reward -= self.turn_limit - state.turns[0]
        if self.money_reward:
            reward += self.money_reward * ((0.0 if terminated else self._density()) - density)
        return self.observation(), reward, terminated, state.truncated, self._info()

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        state = self.state
        info["score"] = _solitaire_score(state)
        info["provinces"] = self.state.owned[0][R.PROVINCE]
        return info

    @property
    def rules(self) -> R.DominionRules:
        """The rules of this environment's games (the kingdom as card ids)."""
        return R.DominionRules(1, self.kingdom, self.target, self.turn_limit)


def _solitaire_score(state: R.DominionState) -> int:
    """Minus the turns taken; minus the turn limit once the target is unreachable (ending a game
    that way must never pay)."""
    return -(state.turn_limit if state.unreachable else state.turns[0])


def score_plan(deal: str | int, plan: Sequence[Any], **env_kwargs: Any) -> float:
    """The episode score (``info["score"]`` at the end) that the solitaire environment made with
    ``env_kwargs`` gives a play of ``plan`` on ``deal``, replayed through the engine: how suites and
    batch results confirm an oracle's plan. Raises ``ValueError`` on an illegal action or a plan
    that stops before the episode ends."""
    rules = DominionSolitaireEnv(**env_kwargs).rules  # the environment's defaults and checks
    state = R.replay(rules, deal, plan)
    if not state.done:
        raise ValueError("the plan stops before the episode ends")
    return float(_solitaire_score(state))

"""Gymnasium environment for Nmbr9."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletop_gym.core import GameOverError, LegalActionSpace, TabletopEnv
from tabletop_gym.envs.nmbr9.rules import (
    NUM_ROTATIONS,
    Deal,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    parse_deal,
    random_deal,
    replay,
)


class Nmbr9Env(TabletopEnv):
    """Nmbr9: draw a card, place the tile of that number; tiles higher up score more.

    ## Description
    A deck holds the values 0..m, c cards of each, of which k are drawn (the standard game: m=9,
    c=2, k=20). Each turn the next card is revealed and its tile must be placed on a square grid of
    ``grid x grid`` cells: on the table touching the tiles already there, or on level L >= 1 fully
    resting on tiles of level L-1, on at least two different ones, and touching a tile already on
    level L unless it is the first there (rules: docs/rules/nmbr9.md). A tile may be turned, never
    mirrored. A tile scores its value times its level; the table is level 0. A card whose tile
    cannot go anywhere (only on small grids) is discarded and scores nothing.

    ## Action space
    `Discrete(4 * grid**2)`: action `rotation * grid**2 + row * grid + col` puts the tile turned
    `rotation` quarter turns clockwise with the top-left corner of its bounding box on `(row, col)`.
    Only legal placements are allowed: `info["action_mask"]` (np.int8) and `action_masks()` (bool).
    `action_space.sample()` draws among the legal placements of the current position.
    The 0 and the 8 look the same after a half turn; their rotations 2 and 3 are never legal.

    ## Observation space
    `Dict` of fixed-shape integer `Box`es, what a player sees (not the order of the cards to come):

    - `height` (grid, grid): tiles stacked on each cell, 0..k;
    - `top_value` (grid, grid): value of each cell's top tile, -1 for an empty cell;
    - `top_tile` (grid, grid): which tile is on top, as the turn it was placed (0..k-1), -1 if none;
    - `card` (1,): the value of the card to place now, -1 once the game is over;
    - `unseen` (m+1,): for each value, the cards not yet drawn (the current card excluded);
    - `cards_left` (1,): cards still to be drawn after the current one.

    ## Rewards
    Value x level of the tile placed (0 on the table). The episode's return is the game score.

    ## Starting state
    An empty grid and a seeded random deal (`reset(seed=...)`), or the deal passed as
    `reset(options={"deal": "9081726354..."})`: the card values in draw order.

    ## Episode end
    Terminated after the last card. Never truncated.

    ## Info
    `action_mask`, `score`, `turn`, `discarded` (cards with no legal placement), and `deal` (the deal
    string, to replay the episode or solve it with `tabletop_gym.oracles.nmbr9`: on the last step,
    `""` before).
    The deal is the order of the cards to come, which a player learns one card at a time (the
    observation shows only the current card and how many of each value are left): during play it
    is in info only when the environment is made with `reveal_deal=True` (then from `reset` on).

    ## Arguments

    - `render_mode`: None, "ansi" (`render()` returns the board with row and column numbers: the
      value of each cell's top tile and the height of each stack, with a legend) or "rgb_array"
      (frames; `svg()` draws the same picture as SVG: docs/pictures.md).
    - `max_value`, `copies`, `cards`: the variant m-c-k (default 9-2-20, the standard game):
      m from 0 to 9, c from 1 to 10, k from 1 to (m+1)*c.
    - `grid`: cells per side of the square grid, 4 to 64 (default 20).
    - `levels`: optional limit on the number of levels, the table included, at least 1 (default:
      none).
    - `reveal_deal`: True puts `deal` in every info, reset included: the future draw order, for
      an oracle's plan played as an agent, never for an agent being evaluated (default False).

    Python and numpy integers are accepted; anything else, or a value out of range, raises a
    ValueError that names the parameter.
    """

    metadata = TabletopEnv.PICTURE_METADATA  # drawn by draw.py: render_mode="rgb_array", svg()

    def __init__(
        self,
        render_mode: str | None = None,
        max_value: int = Variant.max_value,
        copies: int = Variant.copies,
        cards: int = Variant.cards,
        grid: int = Nmbr9Rules.grid,
        levels: int | None = Nmbr9Rules.levels,
        reveal_deal: bool = False,
    ) -> None:
        self._check_render_mode(render_mode)
        self._set_reveal_deal(reveal_deal)
        self.render_mode = render_mode
        # Checks m, c and k, then the grid and the levels, naming each.
        self.rules = Nmbr9Rules(Variant(max_value, copies, cards), grid, levels)
        self.variant, self.grid, self.levels = self.rules.variant, self.rules.grid, self.rules.levels
        k = self.variant.cards
        m = self.variant.max_value
        board = (self.grid, self.grid)
        self.observation_space = spaces.Dict(
            {
                "height": spaces.Box(0, k, board, dtype=np.int16),
                "top_value": spaces.Box(-1, m, board, dtype=np.int16),
                "top_tile": spaces.Box(-1, k - 1, board, dtype=np.int16),
                "card": spaces.Box(-1, m, (1,), dtype=np.int16),
                "unseen": spaces.Box(0, self.variant.copies, (m + 1,), dtype=np.int16),
                "cards_left": spaces.Box(0, k, (1,), dtype=np.int16),
            }
        )
        self.action_space = LegalActionSpace(NUM_ROTATIONS * self.grid * self.grid, self)
        self.state: Nmbr9State | None = None
        self._deal_text = ""

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        deal_text = self._deal_option(options)
        if deal_text is not None:
            # A Deal object is checked like a deal string: it must be a deal of this variant.
            deal = parse_deal(str(deal_text) if isinstance(deal_text, Deal) else deal_text, self.variant)
        else:
            deal = random_deal(self.np_random, self.variant)
        self.state = Nmbr9State(deal, self.grid, self.levels)
        self._deal_text = str(deal)
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        state = self._require_state()
        if state.done:
            raise GameOverError("the episode has ended (every card placed); call reset()")
        points = state.apply(self._action_index(action))  # raises IllegalActionError for an illegal placement
        return self._observation(), float(points), state.done, False, self._info()

    def _render_text(self) -> str:
        return self._require_state().render()

    def picture(self) -> Any:
        """The position as a picture (``tabletop_gym.render.Picture``): the board and the card turned."""
        from tabletop_gym.envs.nmbr9.draw import draw

        return draw(self._require_state())

    def action_masks(self) -> np.ndarray:
        return self._require_state().action_mask().copy()

    # -- helpers -------------------------------------------------------------------------------

    def hidden_twins(self, rng: np.random.Generator) -> list[tuple[Nmbr9Env, dict[str, Any], dict[str, Any]]]:
        """Copies of this environment at this position that differ only in what the player may not
        see, each with the observation and info it gives here, for the contract test kit
        (``tabletop_gym.testing``): the cards still to come, in another order. None where their
        order cannot change (fewer than two different values)."""
        state = self.state
        if state is None or state.done:
            return []
        drawn, future = list(state.deal.cards[: state.turn + 1]), list(state.remaining())
        shuffled = [int(card) for card in rng.permutation(future)]
        if shuffled == future:
            return []
        twin = copy.deepcopy(self)
        twin.state.deal = Deal(tuple(drawn + shuffled))
        twin._deal_text = str(twin.state.deal)
        return [(twin, twin._observation(), twin._info())]

    def _observation(self) -> dict[str, np.ndarray]:
        state = self.state
        drawn = state.deal.cards[: min(state.turn + 1, len(state.deal.cards))]
        seen = np.bincount(np.asarray(drawn, dtype=np.intp), minlength=self.variant.max_value + 1)
        unseen = (self.variant.copies - seen).astype(np.int16)
        card = -1 if state.card is None else state.card
        return {
            "height": state.height.astype(np.int16),
            "top_value": state.top_value.astype(np.int16),
            "top_tile": state.top.astype(np.int16),
            "card": np.array([card], dtype=np.int16),
            "unseen": unseen,
            "cards_left": np.array([len(state.remaining())], dtype=np.int16),
        }

    def _info(self) -> dict[str, Any]:
        state = self.state
        info = {
            "action_mask": state.action_mask().astype(np.int8),
            "score": state.score,
            "turn": state.turn,
            "discarded": state.discarded,
        }
        return self._add_deal(info, self._deal_text, state.done)


def score_plan(
    deal: str | Deal,
    plan: Iterable[int],
    max_value: int = Variant.max_value,
    copies: int = Variant.copies,
    cards: int = Variant.cards,
    grid: int = Nmbr9Rules.grid,
    levels: int | None = Nmbr9Rules.levels,
    render_mode: str | None = None,
    reveal_deal: bool = False,
) -> float:
    """The episode score that ``Nmbr9Env(**env_kwargs)`` gives ``plan`` (one action per placed card)
    played on ``deal``: the engine's replay of it, which must place every card (the engine discards
    a card that fits nowhere, as the environment does). Raises ``IllegalActionError`` on an illegal
    placement and ``ValueError`` for a plan that stops early. (The arguments that only change what
    is shown are accepted, so any environment's keyword arguments can be passed.)"""
    rules = Nmbr9Rules(Variant(max_value, copies, cards), grid, levels)
    state = replay(rules, deal if isinstance(deal, Deal) else parse_deal(deal, rules.variant), plan)
    if not state.done:
        raise ValueError("the plan stops before every card is placed")
    return state.scores()[0]

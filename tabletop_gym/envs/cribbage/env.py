"""Gymnasium environment for solitaire Cribbage (Möbius Front '83)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletop_gym.core import (
    GameOverError,
    LegalActionSpace,
    TabletopEnv,
)
from tabletop_gym.envs.cribbage.rules import (
    NUM_PILES,
    PILE_SIZE,
    RANK_CHARS,
    STACK_LIMIT,
    CribbageRules,
    CribbageState,
    Deal,
    check_pile_size,
    parse_deal,
    random_deal,
    replay,
)

RECENT = 7  # runs are at most 7 cards long, pairs look back 3: older cards never score again
MAX_POINTS = 14  # four of a kind (12) that also makes 31 (2) is the most one card can score

# Where each part of the observation lies (see CribbageEnv's docstring).
PILES = slice(0, NUM_PILES * PILE_SIZE)
TOTAL = NUM_PILES * PILE_SIZE
STACK = slice(TOTAL + 1, TOTAL + 1 + RECENT)
NEW_STACK = TOTAL + 1 + RECENT
POINTS = slice(NEW_STACK + 1, NEW_STACK + 1 + NUM_PILES)
OBS_SIZE = NEW_STACK + 1 + NUM_PILES


class CribbageEnv(TabletopEnv):
    """Solitaire Cribbage: play 52 face-up cards from four piles onto stacks of at most 31.

    ## Description
    The deck is dealt into four piles of 13 cards, all face up. Each move plays the top card of a
    pile onto the stack; the stack total (A=1, court cards 10) may never exceed 31. When no top card
    fits the stack is cleared and a new one starts. Cards score for 15, 31, a Jack starting a stack,
    pairs, threes and fours of a kind and runs (rules: docs/rules/cribbage.md). The game ends when
    every card has been played; 61 points is a win.

    ## Action space
    `Discrete(4)`: the pile whose top card is played. Only piles whose top card fits are legal:
    `info["action_mask"]` (np.int8) and `action_masks()` (bool) say which.

    ## Observation space
    `MultiDiscrete` of 65 integers, everything the player sees:

    - 0..51: the remaining cards of each pile, pile by pile, top card first, as ranks 1..13
      (A..K), 0 past the pile's end;
    - 52: the stack total, 0..31;
    - 53..59: the ranks of the current stack's last 7 cards, most recent first, 0 where none;
    - 60: 1 if a stack has just been cleared (the next card starts a new stack), else 0;
    - 61..64: the points playing each pile would score now (0 if illegal) — derived from the above
      by the engine, given so that a policy need not learn the scoring table.

    ## Rewards
    The points scored by the card played. The episode's return is the game score.

    ## Starting state
    A seeded random deal, or the deal passed as `reset(options={"deal": "P1/P2/P3/P4"})`.

    ## Episode end
    Terminated after the 52nd card (the last stack is abandoned, no bonus). Never truncated.

    ## Info
    `action_mask`, `score` (points so far), `deal` (the deal string, to replay or solve the
    episode with `tabletop_gym.oracles.cribbage.solve`), `cards_played`. Every card is face up, so
    the deal tells the player nothing the observation does not: it is in every info, reset
    included, whatever `reveal_deal` says.

    ## Arguments

    - `render_mode`: None, "ansi" (text) or "rgb_array" (frames; `svg()` draws the same picture as SVG:
      docs/pictures.md).
    - `pile_size`: cards per pile (default 13); smaller deals draw `4 * pile_size` cards from a
      shuffled deck, for experiments on small instances.
    - `reveal_deal`: accepted as by every environment of the package (True or False, default
      False); here it changes nothing, the deal being public.
    """

    metadata = TabletopEnv.PICTURE_METADATA  # drawn by draw.py: render_mode="rgb_array", svg()

    # All four piles are face up: the deal is in the observation.
    deal_is_public = True

    def __init__(
        self, render_mode: str | None = None, pile_size: int = PILE_SIZE, reveal_deal: bool = False
    ) -> None:
        self._check_render_mode(render_mode)
        self._set_reveal_deal(reveal_deal)
        self.render_mode = render_mode
        self.pile_size = check_pile_size(pile_size)
        nvec = (
            [len(RANK_CHARS) + 1] * (NUM_PILES * PILE_SIZE)
            + [STACK_LIMIT + 1]
            + [len(RANK_CHARS) + 1] * RECENT
            + [2]
            + [MAX_POINTS + 1] * NUM_PILES
        )
        self.observation_space = spaces.MultiDiscrete(np.array(nvec, dtype=np.int64))
        self.action_space = LegalActionSpace(NUM_PILES, self)
        self.state: CribbageState | None = None
        self._obs = np.zeros(OBS_SIZE, dtype=np.int64)
        self._deal_text = ""

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        deal_text = self._deal_option(options)
        if deal_text is not None:
            deal = deal_text if isinstance(deal_text, Deal) else parse_deal(deal_text, self.pile_size)
        else:
            deal = random_deal(self.np_random, self.pile_size)
        self.state = CribbageState(deal)
        self._deal_text = str(deal)
        self._obs[:] = 0
        for p, pile in enumerate(deal.piles):
            self._obs[p * PILE_SIZE : p * PILE_SIZE + len(pile)] = pile
        self._refresh()
        return self._obs.copy(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        state = self._require_state()
        if state.done:
            raise GameOverError("the episode has ended (all cards played); call reset()")
        pile = self._action_index(action)
        points = state.apply(pile)  # raises IllegalActionError for an illegal pile
        row = pile * PILE_SIZE
        # The pile's remaining cards move up one place: its top card is always at column 0.
        self._obs[row : row + PILE_SIZE - 1] = self._obs[row + 1 : row + PILE_SIZE]
        self._obs[row + PILE_SIZE - 1] = 0
        self._refresh()
        return self._obs.copy(), float(points), state.done, False, self._info()

    def _render_text(self) -> str:
        return render_text(self._require_state())

    def picture(self) -> Any:
        """The position as a picture (``tabletop_gym.render.Picture``): every card is face up."""
        from tabletop_gym.envs.cribbage.draw import draw

        return draw(self._require_state())

    def action_masks(self) -> np.ndarray:
        return self._require_state().action_mask()

    # -- helpers -------------------------------------------------------------------------------

    def _refresh(self) -> None:
        state = self.state
        obs = self._obs
        obs[TOTAL] = state.total
        recent = state.stack[-1 : -RECENT - 1 : -1]
        obs[STACK] = 0
        obs[STACK.start : STACK.start + len(recent)] = recent
        obs[NEW_STACK] = state.new_stack
        for p in range(NUM_PILES):
            obs[POINTS.start + p] = state.points_if_played(p)

    def _info(self) -> dict[str, Any]:
        state = self.state
        info = {
            "action_mask": state.action_mask().astype(np.int8),
            "score": state.score,
            "cards_played": state.played,
        }
        return self._add_deal(info, self._deal_text, state.done)


def shuffle_piles(
    observations: np.ndarray, masks: Iterable[np.ndarray], rng: np.random.Generator
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each position of a batch with its four piles in a random order of its own.

    The rules never look at a pile's place, so a position with its piles reordered is the same
    position, and its moves keep their values: ``observations`` (rows of this environment's
    observation) and every per-pile ``masks`` row (the legal moves, the optimal ones) are reordered
    alike. Imitation trains on these (``GameSpec.symmetry``): one labelled position stands for 24.
    """
    observations = np.asarray(observations)
    if observations.ndim != 2 or observations.shape[1] != OBS_SIZE:
        raise ValueError(f"observations must be rows of {OBS_SIZE} integers, got shape {observations.shape}")
    rows = observations.shape[0]
    order = np.argsort(rng.random((rows, NUM_PILES)), axis=1)  # new pile i is the old pile order[:, i]
    piles = observations[:, PILES].reshape(rows, NUM_PILES, PILE_SIZE)
    shuffled = observations.copy()
    shuffled[:, PILES] = np.take_along_axis(piles, order[:, :, None], axis=1).reshape(rows, -1)
    shuffled[:, POINTS] = np.take_along_axis(observations[:, POINTS], order, axis=1)
    return shuffled, [np.take_along_axis(np.asarray(mask), order, axis=1) for mask in masks]


def score_plan(
    deal: str | Deal,
    plan: Iterable[int],
    pile_size: int = PILE_SIZE,
    render_mode: str | None = None,
    reveal_deal: bool = False,
) -> float:
    """The episode score that ``CribbageEnv(**env_kwargs)`` gives ``plan`` (pile indices) played on
    ``deal``: the engine's replay of it, which must play every card. Raises ``IllegalActionError`` on
    an illegal move and ``ValueError`` for a plan that stops early. (The arguments that only change
    what is shown are accepted, so any environment's keyword arguments can be passed.)"""
    state = replay(CribbageRules(), deal if isinstance(deal, Deal) else parse_deal(deal, pile_size), plan)
    if not state.done:
        raise ValueError("the plan stops before the game ends")
    return state.scores()[0]


def render_text(state: CribbageState) -> str:
    """The position as text a person can play from."""
    stack = " ".join(RANK_CHARS[r - 1] for r in state.stack) or "(empty)"
    lines = [
        f"score {state.score}   cards played {state.played}/{state.num_cards}",
        f"stack total {state.total:2d}: {stack}" + ("   (new stack)" if state.new_stack else ""),
    ]
    for p in range(NUM_PILES):
        cards = " ".join(RANK_CHARS[r - 1] for r in state.remaining(p)) or "(empty)"
        if state.is_legal(p):
            note = f"  <- playable, scores {state.points_if_played(p)}"
        else:
            note = "" if state.top(p) == 0 else "  (does not fit)"
        lines.append(f"pile {p}: {cards}{note}")
    return "\n".join(lines)

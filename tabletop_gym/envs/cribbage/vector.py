"""A native vector environment for solitaire Cribbage: N games stepped in one compiled numba call.

``gym.make_vec("tabletop/Cribbage-v0", num_envs=N)`` returns it (the id's ``vector_entry_point``).
Sub-environment i behaves as ``gym.make("tabletop/Cribbage-v0")`` would inside Gymnasium's
``SyncVectorEnv``: the same observations, rewards, terminations and infos, with next-step autoreset.

The rules are stepped by a separate kernel (``_step``), not by the engine (``rules.py``), because the
engine's Python objects cost microseconds a move; tests check the kernel against the engine move by move.
The deals are the single environment's: sub-environment i has its own generator, seeded as the single
environment seeds its own (``reset(seed=s)`` seeds sub-environment i with ``s + i``), and its deals are
drawn from it by the same shuffle. The shuffles are drawn in numpy, many deals at a time
(``Generator.permuted`` on a block of decks gives the same decks, and leaves the generator in the same
state, as that many ``shuffle`` calls one after the other).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from tabletop_gym.core import (
    MAX_NUM_ENVS,
    IllegalActionError,
    NativeVectorEnv,
    call_kernel,
    check_int,
    compile_kernel,
    sigint_deferred,
    vector_actions,
)
from tabletop_gym.envs.cribbage.env import OBS_SIZE, CribbageEnv
from tabletop_gym.envs.cribbage.rules import (
    COPIES,
    NUM_PILES,
    PILE_SIZE,
    RANK_CHARS,
    STACK_LIMIT,
    Deal,
    parse_deal,
)

RECENT = 7
TOTAL = NUM_PILES * PILE_SIZE
STACK = TOTAL + 1
NEW_STACK = STACK + RECENT
POINTS = NEW_STACK + 1
DEALS_AHEAD = 64  # deals drawn at a time per sub-environment: one numpy call per 64 games
# Kernel status codes for a bad action (the first sub-environment at fault is reported).
NOT_A_PILE, EMPTY_PILE, OVER_31 = 1, 2, 3


@numba.njit(cache=True, nogil=True, inline="always")
def _value(rank):
    return rank if rank < 10 else 10


@numba.njit(cache=True, nogil=True, inline="always")
def _score(card, recent, before, total):
    """Points of ``card`` played on a stack whose ``before`` cards end with ``recent`` (most recent
    first), the stack total being ``total`` with the card. As ``rules.score_card``: runs are at most 7
    cards long and pairs look back 3, so the 7 most recent cards decide."""
    n = before + 1
    points = 0
    if n == 1 and card == 11:
        points += 2
    if total == 15 or total == STACK_LIMIT:
        points += 2
    same = 1
    while same < n and same < 4 and recent[same - 1] == card:
        same += 1
    if same == 2:
        points += 2
    elif same == 3:
        points += 6
    elif same == 4:
        points += 12
    run = 0
    seen = 1 << card
    low = card
    high = card
    for k in range(2, min(n, RECENT) + 1):
        rank = recent[k - 2]
        bit = 1 << rank
        if seen & bit:
            break
        seen |= bit
        low = min(low, rank)
        high = max(high, rank)
        if k >= 3 and high - low == k - 1:
            run = k
    return points + run


@numba.njit(cache=True, nogil=True, inline="always")
def _observe(i, piles, heights, pile_size, recent, stack_len, total, played, obs, mask):
    """The observation's stack part, the points of every pile and the mask of sub-environment i."""
    obs[i, TOTAL] = total[i]
    for k in range(RECENT):
        obs[i, STACK + k] = recent[i, k]
    obs[i, NEW_STACK] = 1 if stack_len[i] == 0 and played[i] > 0 else 0
    for p in range(NUM_PILES):
        h = heights[i, p]
        points = 0
        legal = 0
        if h < pile_size:
            card = piles[i, p, h]
            after = total[i] + _value(card)
            if after <= STACK_LIMIT:
                legal = 1
                points = _score(card, recent[i], stack_len[i], after)
        obs[i, POINTS + p] = points
        mask[i, p] = legal


@numba.njit(cache=True, nogil=True)
def _start(i, deck, piles, heights, pile_size, recent, stack_len, total, score, played, over, obs, mask):
    """Sub-environment i starts the deal ``deck`` (the piles one after the other)."""
    obs[i, :] = 0
    for p in range(NUM_PILES):
        heights[i, p] = 0
        for c in range(pile_size):
            card = deck[p * pile_size + c]
            piles[i, p, c] = card
            obs[i, p * PILE_SIZE + c] = card
    recent[i, :] = 0
    stack_len[i] = 0
    total[i] = 0
    score[i] = 0
    played[i] = 0
    over[i] = False
    _observe(i, piles, heights, pile_size, recent, stack_len, total, played, obs, mask)


@numba.njit(cache=True, nogil=True)
def _start_all(
    slots,
    deals,
    next_deal,
    piles,
    heights,
    pile_size,
    recent,
    stack_len,
    total,
    score,
    played,
    over,
    obs,
    mask,
):
    for i in range(piles.shape[0]):
        _start(
            i,
            deals[i, slots[i]],
            piles,
            heights,
            pile_size,
            recent,
            stack_len,
            total,
            score,
            played,
            over,
            obs,
            mask,
        )


@numba.njit(cache=True, nogil=True)
def _step(
    actions,
    deals,
    next_deal,
    piles,
    heights,
    pile_size,
    recent,
    stack_len,
    total,
    score,
    played,
    over,
    obs,
    mask,
    rewards,
    terminated,
    restarted,
    fault,
):
    """One move in every sub-environment (next-step autoreset: a finished one starts its next deal and
    ignores its action). Returns -1, or the first sub-environment whose action is illegal, before any
    sub-environment has moved (``fault[0]`` then says why)."""
    n = piles.shape[0]
    num_cards = NUM_PILES * pile_size
    for i in range(n):
        if over[i]:
            continue
        a = actions[i]
        if a < 0 or a >= NUM_PILES:
            fault[0] = NOT_A_PILE
            return i
        if mask[i, a] == 0:
            fault[0] = EMPTY_PILE if heights[i, a] >= pile_size else OVER_31
            return i
    for i in range(n):
        if over[i]:
            _start(
                i,
                deals[i, next_deal[i]],
                piles,
                heights,
                pile_size,
                recent,
                stack_len,
                total,
                score,
                played,
                over,
                obs,
                mask,
            )
            next_deal[i] += 1
            rewards[i] = 0.0
            terminated[i] = False
            restarted[i] = True
            continue
        restarted[i] = False
        a = actions[i]
        h = heights[i, a]
        card = piles[i, a, h]
        heights[i, a] = h + 1
        row = a * PILE_SIZE
        # The pile's remaining cards move up one place: its top card is always at column 0.
        for c in range(PILE_SIZE - 1):
            obs[i, row + c] = obs[i, row + c + 1]
        obs[i, row + PILE_SIZE - 1] = 0
        after = total[i] + _value(card)
        points = _score(card, recent[i], stack_len[i], after)
        for k in range(RECENT - 1, 0, -1):
            recent[i, k] = recent[i, k - 1]
        recent[i, 0] = card
        stack_len[i] += 1
        total[i] = after
        score[i] += points
        played[i] += 1
        rewards[i] = points
        done = played[i] == num_cards
        terminated[i] = done
        over[i] = done
        if not done:
            fits = False
            for p in range(NUM_PILES):
                hp = heights[i, p]
                if hp < pile_size and total[i] + _value(piles[i, p, hp]) <= STACK_LIMIT:
                    fits = True
            if not fits:
                recent[i, :] = 0
                stack_len[i] = 0
                total[i] = 0
        _observe(i, piles, heights, pile_size, recent, stack_len, total, played, obs, mask)
    return -1


@numba.njit(cache=True, nogil=True)
def _choices(mask, over):
    """``action_masks()``: the legal piles as bools, every pile where a finished game waits for its
    autoreset (one pass here: numpy's cast and boolean assignment cost as much as a step's kernel)."""
    out = np.empty(mask.shape, dtype=np.bool_)
    for i in range(mask.shape[0]):
        for p in range(mask.shape[1]):
            out[i, p] = over[i] or mask[i, p] != 0
    return out


class CribbageVectorEnv(NativeVectorEnv):
    """``num_envs`` games of solitaire Cribbage stepped together in one compiled call.

    Sub-environment i is ``CribbageEnv`` (same observation, action, reward and info) under next-step
    autoreset: the step after a game's last card starts sub-environment i's next deal, ignores its
    action and returns reward 0. ``reset(seed=s)`` gives sub-environment i the deals of
    ``CribbageEnv`` reset with seed ``s + i`` (a list of seeds gives one to each);
    ``reset(options={"deal": ...})`` starts one deal string in every sub-environment, or a list of
    them one each.

    ``infos`` hold, as ``SyncVectorEnv`` stacks them: ``action_mask`` (``(num_envs, 4)`` int8, all zeros
    for a finished game), ``score``, ``cards_played`` and ``deal``, each with its ``_key`` array.
    ``action_masks()`` gives the ``(num_envs, 4)`` bool mask, where a sub-environment waiting for its
    autoreset has every action legal (its action is ignored), so a loop choosing among the legal
    actions always has a choice. An illegal action raises ``IllegalActionError`` naming the
    sub-environment, before any sub-environment moves.

    Arguments: ``num_envs``; ``pile_size`` (as ``CribbageEnv``); ``render_mode`` (None only) and
    ``reveal_deal`` (accepted as by every environment, the deal being public anyway); ``copy`` (default
    True: the observations, masks and infos returned are new arrays; False returns the environment's own
    observation array, overwritten by the next step).
    """

    def __init__(
        self,
        num_envs: int = 1,
        pile_size: int = PILE_SIZE,
        render_mode: str | None = None,
        reveal_deal: bool = False,
        copy: bool = True,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1, MAX_NUM_ENVS)
        single = CribbageEnv(pile_size=pile_size, reveal_deal=reveal_deal)  # checks the arguments alike
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector environment, got {render_mode!r}")
        self.render_mode = None
        self.pile_size = single.pile_size
        self.reveal_deal = single.reveal_deal
        self.copy = bool(copy)
        self.single_observation_space = single.observation_space
        self.single_action_space = spaces.Discrete(NUM_PILES)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._piles = np.zeros((n, NUM_PILES, PILE_SIZE), dtype=np.int64)
        self._heights = np.zeros((n, NUM_PILES), dtype=np.int64)
        self._recent = np.zeros((n, RECENT), dtype=np.int64)
        self._stack_len = np.zeros(n, dtype=np.int64)
        self._total = np.zeros(n, dtype=np.int64)
        self._score = np.zeros(n, dtype=np.int64)
        self._played = np.zeros(n, dtype=np.int64)
        self._over = np.zeros(n, dtype=np.bool_)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.int64)
        self._mask = np.zeros((n, NUM_PILES), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._restarted = np.zeros(n, dtype=np.bool_)
        self._fault = np.zeros(1, dtype=np.int64)
        self._deals = np.zeros((n, DEALS_AHEAD + 1, NUM_PILES * self.pile_size), dtype=np.int8)
        self._texts = np.full((n, DEALS_AHEAD + 1), "", dtype=object)
        self._next_deal = np.full(n, DEALS_AHEAD, dtype=np.int64)
        self._deal_text = np.full(n, "", dtype=object)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._started = False
        self._all = np.ones(n, dtype=np.bool_)

    # -- Gymnasium API -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        n = self.num_envs
        self._seed_generators(seed, DEALS_AHEAD)
        given = self._given_deals(options)
        slots = self._start_slots(given, DEALS_AHEAD)
        if given is not None:
            for i, deal in enumerate(given):
                self._deals[i, DEALS_AHEAD] = np.asarray(deal.piles, dtype=np.int8).reshape(-1)
                self._texts[i, DEALS_AHEAD] = str(deal)
        self._deal_text[:] = self._texts[np.arange(n), slots]
        call_kernel(_start_all, slots, *self._kernel_state())
        if not self._started:
            compile_kernel(_choices, self._mask, self._over)
            compile_kernel(
                _step,
                slots,
                *self._kernel_state(),
                self._rewards,
                self._terminated,
                self._restarted,
                self._fault,
            )
        self._refill()
        self._started = True
        return self._out(self._obs), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_started("step()")
        actions = vector_actions(actions, self.num_envs, "pile indices")
        with sigint_deferred():  # compiled at the first reset: call_kernel's typing per step would cost more
            bad = _step(
                actions, *self._kernel_state(), self._rewards, self._terminated, self._restarted, self._fault
            )
        if bad >= 0:
            self._raise_illegal(bad, actions[bad])
        restarted = np.flatnonzero(self._restarted)
        if restarted.size:
            self._deal_text[restarted] = self._texts[restarted, self._next_deal[restarted] - 1]
            self._refill()
        return self._step_result(self._out(self._obs), self._infos())

    # -- helpers -------------------------------------------------------------------------------

    def _legal_actions(self) -> np.ndarray:
        return _choices(self._mask, self._over)

    def _kernel_state(self) -> tuple[Any, ...]:
        return (
            self._deals, self._next_deal, self._piles, self._heights, self.pile_size, self._recent,
            self._stack_len, self._total, self._score, self._played, self._over, self._obs, self._mask,
        )  # fmt: skip

    def _infos(self) -> dict[str, Any]:
        return {
            "action_mask": self._mask.copy(),
            "_action_mask": self._all.copy(),
            "score": self._score.copy(),
            "_score": self._all.copy(),
            "cards_played": self._played.copy(),
            "_cards_played": self._all.copy(),
            "deal": self._deal_text.copy(),
            "_deal": self._all.copy(),
        }

    def _given_deals(self, options: dict[str, Any] | None) -> list[Deal] | None:
        if not options:
            return None
        unknown = set(options) - {"deal"}
        if unknown:
            raise ValueError(
                f"unknown reset option(s) {sorted(unknown)}; the vector environment takes 'deal' only"
            )
        deals = options["deal"]
        if deals is None:
            return None
        deals = self._deal_each(deals, (str, Deal))
        parsed = [d if isinstance(d, Deal) else parse_deal(d, self.pile_size) for d in deals]
        for i, deal in enumerate(parsed):
            if deal.pile_size != self.pile_size:
                raise ValueError(
                    f"the deal of sub-environment {i} has {deal.pile_size} cards a pile; "
                    f"expected {self.pile_size}"
                )
        return parsed

    def _draw(self, which: np.ndarray) -> None:
        """The next ``DEALS_AHEAD`` deals of each sub-environment in ``which``, drawn as the single
        environment draws its deals one reset after the other (``rules.random_deal``)."""
        deck = np.repeat(np.arange(1, len(RANK_CHARS) + 1, dtype=np.int8), COPIES)
        block = np.tile(deck, (DEALS_AHEAD, 1))
        size = self.pile_size
        cards = NUM_PILES * size
        # The deal strings, built for the whole block at once: rank letters, a '/' after each pile.
        chars = np.frombuffer(RANK_CHARS.encode(), dtype=np.uint8)
        letters = np.full((DEALS_AHEAD, NUM_PILES, size + 1), ord("/"), dtype=np.uint8)
        for i in which:
            shuffled = self._rngs[i].permuted(block, axis=1)[:, :cards]
            self._deals[i, :DEALS_AHEAD] = shuffled
            letters[:, :, :size] = chars[shuffled.reshape(DEALS_AHEAD, NUM_PILES, size) - 1]
            text = letters.reshape(DEALS_AHEAD, -1)[:, :-1].copy().view(f"S{NUM_PILES * (size + 1) - 1}")
            self._texts[i, :DEALS_AHEAD] = text[:, 0].astype(str)
        self._next_deal[which] = 0

    def _refill(self) -> None:
        """Keep a drawn deal ready for every sub-environment's next start."""
        empty = np.flatnonzero(self._next_deal >= DEALS_AHEAD)
        if empty.size:
            self._draw(empty)

    def _raise_illegal(self, i: int, action: int) -> None:
        legal = np.flatnonzero(self._mask[i]).tolist()
        why = {
            NOT_A_PILE: "not a pile index 0-3",
            EMPTY_PILE: "the pile is empty",
            OVER_31: "the stack total would exceed 31",
        }[int(self._fault[0])]
        raise IllegalActionError(int(action), legal, f"in sub-environment {i}: {why}")

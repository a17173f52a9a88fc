"""A native vector environment for solitaire Dominion: N games stepped in one compiled numba call.

``gym.make_vec("tabletop/DominionSolitaire-v0", num_envs=N)`` returns it (the id's
``vector_entry_point``). Sub-environment i behaves as ``gym.make("tabletop/DominionSolitaire-v0")``
would inside Gymnasium's ``SyncVectorEnv``: the same observations, rewards, terminations, truncations
and infos, with next-step autoreset.

The rules are stepped by a separate kernel (``_step``), not by the engine (``rules.py``): the engine's
Python lists cost tens of microseconds a decision. Tests check the kernel against the engine decision
by decision. Every kingdom of the solitaire game is native (the treasure game, Smithy, the First Game
cards in any combination): in solitaire Militia has no victim and Moat is never revealed, and the
choices inside Cellar, Mine, Remodel and Workshop are decisions of the kernel as of the engine.

A game's shuffles are the engine's randomness model (``rules.shuffle_cards``: a Fisher-Yates shuffle
driven by SplitMix64 keyed by the seed and the shuffle count), computed in the kernel, so a deal (the
seed) plays out exactly as in the engine. The deals are the single environment's: sub-environment i
has its own generator, seeded as the single environment seeds its own (``reset(seed=s)`` seeds
sub-environment i with ``s + i``), and draws its deals from it with the same call
(``table.draw_deal``), 64 at a time (``Generator.integers`` with ``size=64`` gives the same numbers,
and leaves the generator in the same state, as 64 calls one after the other).
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
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import SOLITAIRE_TURN_LIMIT, DominionSolitaireEnv
from tabletop_gym.envs.dominion.observation import COUNTER, OBS_HIGH, OBS_SIZE, PLAYERS
from tabletop_gym.envs.dominion.table import MAX_DEAL

DEALS_AHEAD = 64  # deals drawn at a time per sub-environment: one numpy call per 64 games

# --- one game, as one row of int32 -----------------------------------------------------------------
# Counts per card id (the observation's parts and the deck), then the turn's counters, then the draw
# pile itself (its top at DRAW_SIZE - 1). One row per sub-environment keeps the kernel's arguments few
# and the environment's state one array (pickled as is).
_N = R.NUM_CARDS
# The first six parts in the observation's order (HAND to TRASH), so one loop copies them.
HAND = 0
DRAW_COUNTS = HAND + _N
DISCARD = DRAW_COUNTS + _N
IN_PLAY = DISCARD + _N
SUPPLY = IN_PLAY + _N
TRASH = SUPPLY + _N
OWNED = TRASH + _N
(DECISION, ACTIONS, BUYS, COINS, MERCHANTS, CELLAR_DISCARDED, TRASHED, TURNS, SHUFFLES, DRAW_SIZE,
 UNREACHABLE, TRUNCATED) = range(OWNED + _N, OWNED + _N + 12)  # fmt: skip
DRAW_PILE = TRUNCATED + 1
# Every card a player can own: the starting deck and every pile of the largest supply.
MAX_DECK = sum(R.STARTING_DECK) + sum(R.supply_sizes(1, R.KINGDOM_CARDS))
ROW = DRAW_PILE + MAX_DECK
# Per sub-environment, the integer infos (as the single environment's info gives them).
INFO_TURNS, INFO_VP, INFO_SCORE, INFO_PROVINCES = range(4)

# The engine's tables, as arrays the kernel reads as constants. numba's cache is keyed on this file
# alone: a change to these tables in rules.py needs this file touched too (the tests against the
# engine would fail on a stale kernel).
_COST = np.array(R.COST, dtype=np.int64)
_COINS = np.array(R.COINS, dtype=np.int64)
_VP = np.array(R.VP, dtype=np.int64)
_PLUS_CARDS = np.array(R.PLUS_CARDS, dtype=np.int64)
_PLUS_ACTIONS = np.array(R.PLUS_ACTIONS, dtype=np.int64)
_PLUS_BUYS = np.array(R.PLUS_BUYS, dtype=np.int64)
_PLUS_COINS = np.array(R.PLUS_COINS, dtype=np.int64)
_STARTING_DECK = np.array(R.STARTING_DECK, dtype=np.int64)
_PLAYER = PLAYERS.start  # the agent's block (the only seat in solitaire)
_TOP = np.float32(OBS_HIGH)  # only turns can pass it (a turn limit above 250), clipped as observe() does

# The randomness model (rules.shuffle_key / shuffle_cards) in 64-bit unsigned arithmetic.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW16 = np.uint64(0xFFFF)
_S16, _S27, _S30, _S31 = np.uint64(16), np.uint64(27), np.uint64(30), np.uint64(31)
_ONE = np.uint64(1)

# Kernel status codes for a bad action (the first sub-environment at fault is reported).
NOT_AN_ACTION, NOT_LEGAL = 1, 2


@numba.njit(cache=True, nogil=True, inline="always")
def _mix64(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@numba.njit(cache=True, nogil=True)
def _shuffle(row, seed, counts):
    """The draw pile made of the multiset at ``counts`` (an offset in ``row``) by the player's next
    shuffle, exactly as ``rules.shuffle_cards`` lays it out and permutes it."""
    size = 0
    for c in range(_N):
        m = row[counts + c]
        row[DRAW_COUNTS + c] = m
        for _ in range(m):
            row[DRAW_PILE + size] = c
            size += 1
    count = np.uint64(row[SHUFFLES])
    s = _mix64(_mix64(_mix64(seed) ^ _ONE) ^ ((count + _ONE) * _GOLDEN))  # player 0
    bits = np.uint64(0)
    avail = 0
    for i in range(size - 1, 0, -1):
        if avail == 0:
            s = s + _GOLDEN
            bits = _mix64(s)
            avail = 4
        j = np.int64(((bits & _LOW16) * np.uint64(i + 1)) >> _S16)
        bits = bits >> _S16
        avail -= 1
        card = row[DRAW_PILE + i]
        row[DRAW_PILE + i] = row[DRAW_PILE + j]
        row[DRAW_PILE + j] = card
    row[SHUFFLES] += 1
    row[DRAW_SIZE] = size


@numba.njit(cache=True, nogil=True)
def _draw(row, seed, n):
    """Draw up to ``n`` cards, shuffling the discard pile into a new draw pile when it runs out."""
    for _ in range(n):
        if row[DRAW_SIZE] == 0:
            empty = True
            for c in range(_N):
                if row[DISCARD + c]:
                    empty = False
                    break
            if empty:
                return
            _shuffle(row, seed, DISCARD)
            for c in range(_N):
                row[DISCARD + c] = 0
        top = row[DRAW_SIZE] - 1
        card = row[DRAW_PILE + top]
        row[DRAW_SIZE] = top
        row[DRAW_COUNTS + card] -= 1
        row[HAND + card] += 1


@numba.njit(cache=True, nogil=True, inline="always")
def _hand_empty(row):
    for c in range(_N):
        if row[HAND + c]:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _buy_phase(row):
    # Treasures are played at once (never worse with these cards); each Merchant pays on a Silver.
    copper, silver, gold = row[HAND + R.COPPER], row[HAND + R.SILVER], row[HAND + R.GOLD]
    coins = _COINS[R.COPPER] * copper + _COINS[R.SILVER] * silver + _COINS[R.GOLD] * gold
    if silver and row[MERCHANTS]:
        coins += R.MERCHANT_COINS * row[MERCHANTS]
    row[COINS] += coins
    row[IN_PLAY + R.COPPER] += copper
    row[IN_PLAY + R.SILVER] += silver
    row[IN_PLAY + R.GOLD] += gold
    row[HAND + R.COPPER] = 0
    row[HAND + R.SILVER] = 0
    row[HAND + R.GOLD] = 0
    row[DECISION] = R.BUY


@numba.njit(cache=True, nogil=True)
def _action_phase(row):
    if row[ACTIONS] > 0:
        for c in range(R.CELLAR, _N):
            if row[HAND + c]:
                row[DECISION] = R.ACTION
                return
    _buy_phase(row)


@numba.njit(cache=True, nogil=True)
def _start_turn(row):
    row[ACTIONS] = 1
    row[BUYS] = 1
    row[COINS] = 0
    row[MERCHANTS] = 0
    row[CELLAR_DISCARDED] = 0
    _action_phase(row)


@numba.njit(cache=True, nogil=True, inline="always")
def _gainable(row, max_cost, treasure_only):
    last = R.GOLD + 1 if treasure_only else _N
    for c in range(last):
        if row[SUPPLY + c] > 0 and _COST[c] <= max_cost:
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _ask_gain(row, kind, max_cost, treasure_only):
    # A gain is mandatory when something is affordable, and skipped when nothing is.
    if _gainable(row, max_cost, treasure_only):
        row[DECISION] = kind
    else:
        _action_phase(row)


@numba.njit(cache=True, nogil=True)
def _gain_limit(row):
    d = row[DECISION]
    if d == R.MINE_GAIN:
        return _COST[row[TRASHED]] + R.MINE_EXTRA_COST
    if d == R.REMODEL_GAIN:
        return _COST[row[TRASHED]] + R.REMODEL_EXTRA_COST
    if d == R.WORKSHOP_GAIN:
        return R.WORKSHOP_MAX_COST
    return 0


@numba.njit(cache=True, nogil=True)
def _cleanup(row, seed, target, turn_limit):
    for c in range(_N):
        row[DISCARD + c] += row[HAND + c] + row[IN_PLAY + c]
        row[HAND + c] = 0
        row[IN_PLAY + c] = 0
    _draw(row, seed, R.HAND_SIZE)
    row[TURNS] += 1
    owned = row[OWNED + R.PROVINCE]
    if owned >= target:
        row[DECISION] = R.GAME_OVER
    elif owned + row[SUPPLY + R.PROVINCE] < target:
        # Trashed cards never come back: the target can no longer be owned (rules._ended).
        row[UNREACHABLE] = 1
        row[DECISION] = R.GAME_OVER
    elif row[TURNS] >= turn_limit:
        row[TRUNCATED] = 1
        row[DECISION] = R.GAME_OVER
    else:
        _start_turn(row)


@numba.njit(cache=True, nogil=True)
def _play_action(row, seed, card):
    row[HAND + card] -= 1
    row[IN_PLAY + card] += 1
    row[ACTIONS] += _PLUS_ACTIONS[card] - 1
    row[BUYS] += _PLUS_BUYS[card]
    row[COINS] += _PLUS_COINS[card]
    if _PLUS_CARDS[card]:
        _draw(row, seed, _PLUS_CARDS[card])
    if card == R.CELLAR:
        row[CELLAR_DISCARDED] = 0
        if not _hand_empty(row):
            row[DECISION] = R.CELLAR_DISCARD
            return
    elif card == R.MERCHANT:
        row[MERCHANTS] += 1
    elif card == R.MINE:
        if row[HAND + R.COPPER] or row[HAND + R.SILVER] or row[HAND + R.GOLD]:
            row[DECISION] = R.MINE_TRASH
            return
    elif card == R.REMODEL:
        if not _hand_empty(row):
            row[DECISION] = R.REMODEL_TRASH
            return
    elif card == R.WORKSHOP:
        _ask_gain(row, R.WORKSHOP_GAIN, R.WORKSHOP_MAX_COST, False)
        return
    # Militia attacks no one in solitaire, and Moat's reaction never comes up: +$2 and +2 cards.
    _action_phase(row)


@numba.njit(cache=True, nogil=True)
def _trash(row, card):
    row[HAND + card] -= 1
    row[OWNED + card] -= 1
    row[TRASH + card] += 1
    row[TRASHED] = card


@numba.njit(cache=True, nogil=True)
def _apply(row, seed, a, target, turn_limit):
    """``DominionState.apply`` for a legal action ``a`` of the solitaire game."""
    d = row[DECISION]
    if d == R.BUY:
        if a == R.PASS:
            _cleanup(row, seed, target, turn_limit)
            return
        row[SUPPLY + a] -= 1
        row[OWNED + a] += 1
        row[DISCARD + a] += 1
        row[COINS] -= _COST[a]
        row[BUYS] -= 1
        if row[BUYS] == 0:
            _cleanup(row, seed, target, turn_limit)
    elif d == R.ACTION:
        if a == R.PASS:
            _buy_phase(row)
        else:
            _play_action(row, seed, a)
    elif d == R.CELLAR_DISCARD:
        if a != R.PASS:
            row[HAND + a] -= 1
            row[DISCARD + a] += 1
            row[CELLAR_DISCARDED] += 1
        if a == R.PASS or _hand_empty(row):
            _draw(row, seed, row[CELLAR_DISCARDED])
            row[CELLAR_DISCARDED] = 0  # the counter describes a Cellar being resolved, none now
            _action_phase(row)
    elif d == R.MINE_TRASH:
        if a == R.PASS:
            _action_phase(row)
        else:
            _trash(row, a)
            _ask_gain(row, R.MINE_GAIN, _COST[a] + R.MINE_EXTRA_COST, True)
    elif d == R.REMODEL_TRASH:
        _trash(row, a)
        _ask_gain(row, R.REMODEL_GAIN, _COST[a] + R.REMODEL_EXTRA_COST, False)
    else:  # a gain: Mine's to the hand, Remodel's and Workshop's to the discard pile
        row[SUPPLY + a] -= 1
        row[OWNED + a] += 1
        if d == R.MINE_GAIN:
            row[HAND + a] += 1
        else:
            row[DISCARD + a] += 1
        _action_phase(row)


@numba.njit(cache=True, nogil=True)
def _legal(row, mask):
    """``DominionState.legal_actions`` as a 0/1 mask (all zeros once the game is over)."""
    d = row[DECISION]
    for a in range(R.NUM_ACTIONS):
        mask[a] = 0
    if d == R.GAME_OVER:
        return
    if d == R.BUY or d == R.REMODEL_GAIN or d == R.WORKSHOP_GAIN or d == R.MINE_GAIN:
        limit = row[COINS] if d == R.BUY else _gain_limit(row)
        last = R.GOLD + 1 if d == R.MINE_GAIN else _N
        for c in range(last):
            if row[SUPPLY + c] > 0 and _COST[c] <= limit:
                mask[c] = 1
        mask[R.PASS] = 1 if d == R.BUY else 0
        return
    first = R.CELLAR if d == R.ACTION else 0
    last = R.GOLD + 1 if d == R.MINE_TRASH else _N
    for c in range(first, last):
        if row[HAND + c]:
            mask[c] = 1
    mask[R.PASS] = 0 if d == R.REMODEL_TRASH else 1


@numba.njit(cache=True, nogil=True)
def _observe(row, obs, mask, info, turn_limit):
    """The observation (``observation.observe`` from the only seat), the mask and the integer infos."""
    for k in range(R.NUM_DECISIONS):
        obs[k] = 0.0
    obs[row[DECISION]] = 1.0
    at = R.NUM_DECISIONS
    # Hand, draw pile (as a multiset), discard pile, in play, supply, trash: the row's first six parts.
    for k in range(6 * _N):
        obs[at + k] = row[HAND + k]
    hand_size = 0
    vp = 0
    for c in range(_N):
        owned = row[OWNED + c]
        obs[_PLAYER + c] = owned
        vp += _VP[c] * owned
        hand_size += row[HAND + c]
    turns = row[TURNS]
    obs[_PLAYER + _N] = vp
    obs[_PLAYER + _N + 1] = min(np.float32(turns), _TOP)
    obs[_PLAYER + _N + 2] = hand_size
    obs[_PLAYER + _N + 3] = 1.0
    at = COUNTER.start
    obs[at] = row[COINS]
    obs[at + 1] = row[ACTIONS]
    obs[at + 2] = row[BUYS]
    obs[at + 3] = _gain_limit(row)
    obs[at + 4] = 0.0  # cards over three to discard to Militia: never, with no opponent
    obs[at + 5] = row[CELLAR_DISCARDED]
    obs[at + 6] = 1.0  # always the agent's own turn
    obs[at + 7] = row[MERCHANTS]
    _legal(row, mask)
    info[INFO_TURNS] = turns
    info[INFO_VP] = vp
    info[INFO_SCORE] = -(turn_limit if row[UNREACHABLE] else turns)
    info[INFO_PROVINCES] = row[OWNED + R.PROVINCE]


@numba.njit(cache=True, nogil=True)
def _start(row, seed, start_supply):
    """A new game dealt by ``seed``: the starting deck shuffled (shuffle 0) and a hand drawn."""
    for k in range(ROW):
        row[k] = 0
    for c in range(_N):
        row[SUPPLY + c] = start_supply[c]
        row[OWNED + c] = _STARTING_DECK[c]
    _shuffle(row, seed, OWNED)
    _draw(row, seed, R.HAND_SIZE)
    row[TRASHED] = R.COPPER
    _start_turn(row)


@numba.njit(cache=True, nogil=True)
def _start_all(slots, deals, games, start_supply, turn_limit, obs, mask, info, over):
    for i in range(games.shape[0]):
        _start(games[i], deals[i, slots[i]], start_supply)
        over[i] = False
        _observe(games[i], obs[i], mask[i], info[i], turn_limit)


@numba.njit(cache=True, nogil=True, inline="always")
def _density(row):
    money = 0
    cards = 0
    for c in range(_N):
        money += _COINS[c] * row[OWNED + c]
        cards += row[OWNED + c]
    return money / cards


@numba.njit(cache=True, nogil=True)
def _step(
    actions,
    deals,
    next_deal,
    seeds,
    games,
    start_supply,
    target,
    turn_limit,
    province_reward,
    money_reward,
    obs,
    mask,
    info,
    over,
    rewards,
    terminated,
    truncated,
    restarted,
    fault,
):
    """One decision in every sub-environment (next-step autoreset: a finished one starts its next deal
    and ignores its action). Returns -1, or the first sub-environment whose action is illegal, before
    any sub-environment has moved (``fault[0]`` then says why)."""
    n = games.shape[0]
    for i in range(n):
        if over[i]:
            continue
        a = actions[i]
        if a < 0 or a >= R.NUM_ACTIONS:
            fault[0] = NOT_AN_ACTION
            return i
        if mask[i, a] == 0:
            fault[0] = NOT_LEGAL
            return i
    for i in range(n):
        row = games[i]
        if over[i]:
            seed = deals[i, next_deal[i]]
            next_deal[i] += 1
            seeds[i] = seed
            _start(row, seed, start_supply)
            over[i] = False
            rewards[i] = 0.0
            terminated[i] = False
            truncated[i] = False
            restarted[i] = True
            _observe(row, obs[i], mask[i], info[i], turn_limit)
            continue
        restarted[i] = False
        turns, provinces = row[TURNS], row[OWNED + R.PROVINCE]
        density = _density(row) if money_reward else 0.0
        _apply(row, seeds[i], actions[i], target, turn_limit)
        # The single environment's reward, term by term in its order (so equal to the last bit).
        reward = -np.float64(row[TURNS] - turns)
        if province_reward:
            reward += province_reward * (row[OWNED + R.PROVINCE] - provinces)
        done = row[DECISION] == R.GAME_OVER
        ended = done and not row[TRUNCATED]
        if row[UNREACHABLE]:
            reward -= turn_limit - row[TURNS]
        if money_reward:
            reward += money_reward * ((0.0 if ended else _density(row)) - density)
        rewards[i] = reward
        terminated[i] = ended
        truncated[i] = row[TRUNCATED] != 0
        over[i] = done
        _observe(row, obs[i], mask[i], info[i], turn_limit)
    return -1


@numba.njit(cache=True, nogil=True)
def _choices(mask, over):
    """``action_masks()``: the legal actions as bools, every action where a finished game waits for its
    autoreset (one pass here: numpy's cast and boolean assignment cost as much as the kernel)."""
    out = np.empty(mask.shape, dtype=np.bool_)
    for i in range(mask.shape[0]):
        for a in range(mask.shape[1]):
            out[i, a] = over[i] or mask[i, a] != 0
    return out


_DECISION_NAMES = np.array(R.DECISION_NAMES, dtype=object)


class DominionSolitaireVectorEnv(NativeVectorEnv):
    """``num_envs`` games of solitaire Dominion stepped together in one compiled call.

    Sub-environment i is ``DominionSolitaireEnv`` (same observation, action, reward and info) under
    next-step autoreset: the step after a game's end (terminated or truncated) starts
    sub-environment i's next deal, ignores its action and returns reward 0. ``reset(seed=s)`` gives
    sub-environment i the deals of ``DominionSolitaireEnv`` reset with seed ``s + i`` (a list of seeds
    gives one to each); ``reset(options={"deal": ...})`` starts one deal (the seed of the randomness
    model, as ``info["deal"]`` gives it) in every sub-environment, or a list of them one each.

    ``infos`` hold, as ``SyncVectorEnv`` stacks them: ``action_mask`` (``(num_envs, 18)`` int8, all
    zeros for a finished game), ``decision``, ``turns``, ``vp``, ``score``, ``provinces`` and
    ``deal`` (``""`` until the game's last step, unless ``reveal_deal``), each with its ``_key``
    array. ``action_masks()`` gives the ``(num_envs, 18)`` bool mask, where a sub-environment waiting
    for its autoreset has every action legal (its action is ignored), so a loop choosing among the
    legal actions always has a choice. An illegal action raises ``IllegalActionError`` naming the
    sub-environment and why, in the engine's words, before any sub-environment moves.

    Arguments: ``num_envs``; ``kingdom``, ``target``, ``turn_limit``, ``province_reward``,
    ``money_reward`` and ``reveal_deal`` as ``DominionSolitaireEnv`` (every kingdom of its cards);
    ``render_mode`` (None only); ``copy`` (default True: the observations, masks and infos returned
    are new arrays; False returns the environment's own observation array, overwritten by the next
    step).
    """

    def __init__(
        self,
        num_envs: int = 1,
        kingdom: Any = R.DominionRules.kingdom,
        target: int = R.DominionRules.target,
        turn_limit: int = SOLITAIRE_TURN_LIMIT,
        province_reward: float = 0.0,
        money_reward: float = 0.0,
        render_mode: str | None = None,
        reveal_deal: bool = False,
        copy: bool = True,
    ) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1, MAX_NUM_ENVS)
        # The single environment checks every setting, with its own messages.
        single = DominionSolitaireEnv(kingdom, target, turn_limit, province_reward, money_reward,
                                      reveal_deal=reveal_deal)  # fmt: skip
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector environment, got {render_mode!r}")
        self.render_mode = None
        self.kingdom = single.kingdom
        self.target = single.target
        self.turn_limit = single.turn_limit
        self.province_reward = single.province_reward
        self.money_reward = single.money_reward
        self.reveal_deal = single.reveal_deal
        self.copy = bool(copy)
        self.single_observation_space = single.observation_space
        self.single_action_space = spaces.Discrete(R.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._start_supply = np.array(R.supply_sizes(1, self.kingdom), dtype=np.int64)
        self._games = np.zeros((n, ROW), dtype=np.int32)
        self._seeds_now = np.zeros(n, dtype=np.uint64)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((n, R.NUM_ACTIONS), dtype=np.int8)
        self._info = np.zeros((n, 4), dtype=np.int64)
        self._over = np.zeros(n, dtype=np.bool_)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._restarted = np.zeros(n, dtype=np.bool_)
        self._fault = np.zeros(1, dtype=np.int64)
        self._deals = np.zeros((n, DEALS_AHEAD + 1), dtype=np.uint64)
        self._next_deal = np.full(n, DEALS_AHEAD, dtype=np.int64)
        self._deal_text = np.full(n, "", dtype=object)  # each game's deal string
        self._shown = np.full(n, "", dtype=object)  # info["deal"]: the deal where it may be seen
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
            self._deals[:, DEALS_AHEAD] = given
        self._seeds_now[:] = self._deals[np.arange(n), slots]
        self._deal_text[:] = [str(d) for d in self._seeds_now.tolist()]
        self._shown[:] = self._deal_text if self.reveal_deal else ""
        call_kernel(_start_all, slots, self._deals, self._games, self._start_supply, self.turn_limit,
                    self._obs, self._mask, self._info, self._over)  # fmt: skip
        if not self._started:
            compile_kernel(_choices, self._mask, self._over)
            compile_kernel(_step, slots, *self._kernel_state())
        self._refill()
        self._started = True
        return self._out(self._obs), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_started("step()")
        actions = vector_actions(actions, self.num_envs, "card ids 0-16 or 17 (pass)")
        with sigint_deferred():  # compiled at the first reset: call_kernel's typing per step would cost more
            bad = _step(actions, *self._kernel_state())
        if bad >= 0:
            self._raise_illegal(bad, int(actions[bad]))
        restarted = np.flatnonzero(self._restarted)
        if restarted.size:
            self._deal_text[restarted] = [str(d) for d in self._seeds_now[restarted].tolist()]
            self._shown[restarted] = self._deal_text[restarted] if self.reveal_deal else ""
            self._refill()
        ended = np.flatnonzero(self._over)
        if ended.size:
            self._shown[ended] = self._deal_text[ended]  # the game is over: its deal may be seen
        return self._step_result(self._out(self._obs), self._infos())

    # -- helpers -------------------------------------------------------------------------------

    def _legal_actions(self) -> np.ndarray:
        return _choices(self._mask, self._over)

    def _kernel_state(self) -> tuple[Any, ...]:
        return (
            self._deals, self._next_deal, self._seeds_now, self._games, self._start_supply, self.target,
            self.turn_limit, self.province_reward, self.money_reward, self._obs, self._mask, self._info,
            self._over, self._rewards, self._terminated, self._truncated, self._restarted, self._fault,
        )  # fmt: skip

    def _infos(self) -> dict[str, Any]:
        info = self._info
        return {
            "action_mask": self._mask.copy(),
            "_action_mask": self._all.copy(),
            "decision": _DECISION_NAMES[self._games[:, DECISION]],
            "_decision": self._all.copy(),
            "turns": info[:, INFO_TURNS].copy(),
            "_turns": self._all.copy(),
            "vp": info[:, INFO_VP].copy(),
            "_vp": self._all.copy(),
            "deal": self._shown.copy(),
            "_deal": self._all.copy(),
            "score": info[:, INFO_SCORE].copy(),
            "_score": self._all.copy(),
            "provinces": info[:, INFO_PROVINCES].copy(),
            "_provinces": self._all.copy(),
        }

    def _given_deals(self, options: dict[str, Any] | None) -> np.ndarray | None:
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
        deals = self._deal_each(deals, (str, int, np.integer))
        return np.array([R.parse_seed(d) for d in deals], dtype=np.uint64)

    def _refill(self) -> None:
        """Keep a drawn deal ready for every sub-environment's next start: the next ``DEALS_AHEAD``
        deals of each generator, as the single environment draws them one reset after the other."""
        for i in np.flatnonzero(self._next_deal >= DEALS_AHEAD):
            self._deals[i, :DEALS_AHEAD] = self._rngs[i].integers(0, MAX_DEAL, size=DEALS_AHEAD)
            self._next_deal[i] = 0

    def _raise_illegal(self, i: int, action: int) -> None:
        legal = np.flatnonzero(self._mask[i]).tolist()
        if self._fault[0] == NOT_AN_ACTION:
            why = f"actions are card ids 0..{R.NUM_CARDS - 1} and {R.PASS} (pass)"
        else:
            why = self.position(i).why_illegal(action)
        raise IllegalActionError(action, legal, f"in sub-environment {i}: {why}")

    def position(self, i: int) -> R.DominionState:
        """Sub-environment ``i``'s game as an engine state (what the kernel keeps of it: the draw pile,
        hand, discard pile, cards in play, supply, trash and the turn's counters), for messages and
        tests; its ``history`` and ``gains`` are not kept and start empty."""
        i = check_int("sub-environment", i, 0, self.num_envs - 1)
        row = self._games[i].astype(int).tolist()
        state = R.DominionState(1, self.kingdom, int(self._seeds_now[i]), self.target, self.turn_limit)
        state.hand[0] = row[HAND : HAND + R.NUM_CARDS]
        state.discard[0] = row[DISCARD : DISCARD + R.NUM_CARDS]
        state.in_play[0] = row[IN_PLAY : IN_PLAY + R.NUM_CARDS]
        state.owned[0] = row[OWNED : OWNED + R.NUM_CARDS]
        state.supply = row[SUPPLY : SUPPLY + R.NUM_CARDS]
        state.trash = row[TRASH : TRASH + R.NUM_CARDS]
        state.draw[0] = row[DRAW_PILE : DRAW_PILE + row[DRAW_SIZE]]
        state.shuffles[0] = row[SHUFFLES]
        state.turns[0] = row[TURNS]
        state.decision = row[DECISION]
        state.decider = -1 if state.decision == R.GAME_OVER else 0
        state.actions, state.buys, state.coins = row[ACTIONS], row[BUYS], row[COINS]
        state.merchants, state.cellar_discarded = row[MERCHANTS], row[CELLAR_DISCARDED]
        state.trashed = row[TRASHED]
        state.unreachable, state.truncated = bool(row[UNREACHABLE]), bool(row[TRUNCATED])
        state.gains = [[0] * R.NUM_CARDS]
        return state

"""Dominion (base game, 2nd edition): the engine.

The single source of the rules (docs/rules/dominion.md): cards, supply, turns, every choice a
card asks for, the end of the game, the tie-break and the project's randomness model. No Gymnasium.

Cards are identified by an id 0..16 (the order of ``CARD_NAMES``; it is also the canonical order a
multiset is laid out in before a shuffle). Hands, discard piles and cards in play are counts per card
id, since their order never matters; only the draw pile is an ordered list (its top is the end).

Every decision, whether a phase asks it (which Action to play, what to buy) or a card does (Cellar's
discards, Militia's victims, Moat, Mine, Remodel, Workshop), goes through one interface:
``state.decision`` (its kind), ``state.decider`` (the player who answers), ``state.legal_actions()``
and ``state.apply(action)``. An action is a card id ("choose a card of this type": play it, buy it,
discard it, trash it, gain it, reveal it) or ``PASS`` ("done": stop playing Actions, end the buy
phase, stop discarding to Cellar, do not reveal Moat, trash nothing with Mine). Decisions with a
single possible answer that is not a real choice are skipped: the action phase with no Action card
or no Action left, a Militia victim already at 3 cards, a gain with nothing affordable left.
Treasures are played automatically at the start of the buy phase (never worse with these cards).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError, check_int, quote_input
from tabletop_gym.settings import option

# --- cards -----------------------------------------------------------------------------------------
CARD_NAMES = (
    "Copper", "Silver", "Gold", "Estate", "Duchy", "Province", "Curse",
    "Cellar", "Market", "Merchant", "Militia", "Mine", "Moat", "Remodel", "Smithy", "Village", "Workshop",
)  # fmt: skip
NUM_CARDS = len(CARD_NAMES)
(COPPER, SILVER, GOLD, ESTATE, DUCHY, PROVINCE, CURSE, CELLAR, MARKET,
 MERCHANT, MILITIA, MINE, MOAT, REMODEL, SMITHY, VILLAGE, WORKSHOP) = range(NUM_CARDS)  # fmt: skip
PASS = NUM_CARDS  # the "done / pass / no" answer
NUM_ACTIONS = NUM_CARDS + 1

COST = (0, 3, 6, 2, 5, 8, 0, 2, 5, 3, 4, 5, 2, 4, 4, 3, 3)
COINS = (1, 2, 3) + (0,) * (NUM_CARDS - 3)  # what a Treasure produces when played
VP = (0, 0, 0, 1, 3, 6, -1) + (0,) * (NUM_CARDS - 7)
TREASURES = (COPPER, SILVER, GOLD)
BASE_CARDS = (COPPER, SILVER, GOLD, ESTATE, DUCHY, PROVINCE, CURSE)
KINGDOM_CARDS = tuple(range(CELLAR, NUM_CARDS))
ACTION_CARDS = KINGDOM_CARDS  # every kingdom card of this set is an Action
FIRST_GAME = KINGDOM_CARDS  # the recommended first-game kingdom (2nd edition) is exactly these ten
CARD_ID = {name.lower(): i for i, name in enumerate(CARD_NAMES)}


def _per_card(counts: dict[int, int]) -> tuple[int, ...]:
    """A table indexed by card id: ``counts`` for the cards named, 0 for the others."""
    return tuple(counts.get(c, 0) for c in range(NUM_CARDS))


STARTING_DECK = _per_card({COPPER: 7, ESTATE: 3})  # each player's, not taken from the supply

# --- what an Action card does ----------------------------------------------------------------------
# What playing a card gives at once (+Cards, +Actions, +Buys, +$), by card id; the rest of each card
# (Cellar's discards, Merchant's Silver, Militia's attack, the gains of Mine, Remodel and Workshop) is
# in ``DominionState._play_action``. Oracles read these tables rather than keep their own.
PLUS_CARDS = _per_card({MARKET: 1, MERCHANT: 1, MOAT: 2, SMITHY: 3, VILLAGE: 1})
PLUS_ACTIONS = _per_card({CELLAR: 1, MARKET: 1, MERCHANT: 1, VILLAGE: 2})
PLUS_BUYS = _per_card({MARKET: 1})
PLUS_COINS = _per_card({MARKET: 1, MILITIA: 2})
MERCHANT_COINS = 1  # each Merchant played: +$1 the first time a Silver is played that turn
MINE_EXTRA_COST = 3  # Mine gains a Treasure costing up to $3 more than the one it trashes
REMODEL_EXTRA_COST = 2  # Remodel gains a card costing up to $2 more than the one it trashes
WORKSHOP_MAX_COST = 4  # Workshop gains a card costing up to $4

# --- decisions -------------------------------------------------------------------------------------
DECISION_NAMES = (
    "action", "buy", "cellar_discard", "militia_discard", "moat_reveal",
    "mine_trash", "mine_gain", "remodel_trash", "remodel_gain", "workshop_gain", "game_over",
)  # fmt: skip
(ACTION, BUY, CELLAR_DISCARD, MILITIA_DISCARD, MOAT_REVEAL, MINE_TRASH,
 MINE_GAIN, REMODEL_TRASH, REMODEL_GAIN, WORKSHOP_GAIN, GAME_OVER) = range(NUM_DECISIONS := 11)  # fmt: skip

MAX_PLAYERS = 4
HAND_SIZE = 5
MILITIA_KEEP = 3
DEFAULT_TARGET = 4  # solitaire: own this many Provinces
MAX_SEED = 2**64
MAX_TARGET = 8  # a Province pile holds 8 cards in the 2-player (and solitaire) supply


def card_id(card: int | str) -> int:
    """A card id from an id or a (case-insensitive) card name; a clear error otherwise."""
    if isinstance(card, str):
        key = card.strip().lower()
        if key not in CARD_ID:
            raise ValueError(f"unknown card {quote_input(card.strip())}; cards: {', '.join(CARD_NAMES)}")
        return CARD_ID[key]
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool) and 0 <= card < NUM_CARDS:
        return int(card)
    raise ValueError(f"card must be a name or an id 0..{NUM_CARDS - 1}, got {quote_input(card)}")


def parse_kingdom(kingdom: str | Iterable[int | str] | None) -> tuple[int, ...]:
    """Kingdom cards as sorted ids. ``None`` or ``"first-game"`` is the default set, ``""`` or
    ``"none"`` the treasure-and-victory game; a string lists names separated by commas."""
    if kingdom is None:
        return FIRST_GAME
    if isinstance(kingdom, str):
        text = kingdom.strip().lower()
        if text in ("first-game", "first_game", "default"):
            return FIRST_GAME
        if text in ("", "none", "empty"):
            return ()
        kingdom = [part for part in text.split(",") if part.strip()]
    elif not isinstance(kingdom, Iterable):
        raise ValueError(f"kingdom must be card names separated by commas or a list of cards, "
                         f"got {quote_input(kingdom)}")
    ids = sorted({card_id(c) for c in kingdom})
    for c in ids:
        if c not in KINGDOM_CARDS:
            raise ValueError(f"{CARD_NAMES[c]} is not a kingdom card; kingdom cards: "
                             f"{', '.join(CARD_NAMES[k] for k in KINGDOM_CARDS)}")
    return tuple(ids)


_SEED_DIGITS = len(str(MAX_SEED - 1))


def parse_seed(deal: str | int) -> int:
    """The deal string of Dominion is the episode seed, a decimal integer 0 <= seed < 2**64: it fixes
    every shuffle through the randomness model."""
    if isinstance(deal, (int, np.integer)) and not isinstance(deal, (bool, np.bool_)):
        seed = int(deal)
    else:
        text = deal.strip() if isinstance(deal, str) else None
        # ASCII digits only ('²'.isdigit() is True, and int() refuses it); no more digits than the
        # largest seed has (int() of a megabyte of digits is slow, then refused).
        if not text or not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > _SEED_DIGITS:
            raise InvalidDealError(
                f"a Dominion deal is the episode seed, a decimal integer 0..2**64-1; got {quote_input(deal)}")
        seed = int(text.lstrip("0") or "0")
    if not 0 <= seed < MAX_SEED:
        raise InvalidDealError(f"seed must be in 0..2**64-1, got {seed}")
    return seed


def supply_sizes(num_players: int, kingdom: Sequence[int] = FIRST_GAME) -> list[int]:
    """Pile sizes at the start (0 for cards not in the game). Solitaire uses the 2-player sizes."""
    n = max(2, check_int("num_players", num_players, 1, MAX_PLAYERS))
    sizes = [0] * NUM_CARDS
    sizes[COPPER] = 60 - 7 * n if n <= 2 else (39 if n == 3 else 32)
    sizes[SILVER] = 40
    sizes[GOLD] = 30
    victory = 8 if n <= 2 else 12
    sizes[ESTATE] = sizes[DUCHY] = sizes[PROVINCE] = victory
    sizes[CURSE] = 10 * (n - 1)
    for card in kingdom:
        sizes[card] = 10
    return sizes


@dataclasses.dataclass(frozen=True)
class DominionRules:
    """What a game is, besides its deal (the seed): the players, the kingdom, the solitaire Province
    target and the turn limit. The defaults are the solitaire benchmark (one player, the treasure and
    victory supply, 4 Provinces, no turn limit); a game of 2-4 players has no target (``target=None``)
    and ends as Dominion does.

    ``kingdom`` is kept as given (names separated by commas, ``"first-game"``, ``""`` for none, or a
    sequence of card names or ids), so that settings read back as they were written; ``cards`` is
    the sorted card ids it names. Every value is checked here, with the parameter named."""

    players: int = 1
    kingdom: str | tuple[int | str, ...] | None = ""
    target: int | None = option(
        DEFAULT_TARGET, f"solitaire: Provinces to own, 1-{MAX_TARGET}", low=1, high=MAX_TARGET
    )
    turn_limit: int | None = None

    def __post_init__(self) -> None:
        players = check_int("players", self.players, 1, MAX_PLAYERS)
        kingdom = self.kingdom
        if kingdom is not None and not isinstance(kingdom, str):
            kingdom = tuple(kingdom)  # a list would make the rules unhashable
        parse_kingdom(kingdom)
        target = check_int("target", self.target, 1, MAX_TARGET, optional=True)
        if players == 1 and target is None:
            target = DEFAULT_TARGET
        if target is not None and players != 1:
            raise ValueError("a Province target is for the solitaire game (num_players=1) only")
        for name, value in (("players", players), ("kingdom", kingdom), ("target", target),
                            ("turn_limit", check_int("turn_limit", self.turn_limit, 1, optional=True))):
            object.__setattr__(self, name, value)

    @property
    def cards(self) -> tuple[int, ...]:
        """The kingdom cards as sorted ids."""
        return parse_kingdom(self.kingdom)


# --- randomness model ------------------------------------------------------------------------------
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix64(z: int) -> int:
    """SplitMix64's finaliser: a bijection of 64-bit integers that scrambles every bit."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def shuffle_key(seed: int, player: int, shuffle_count: int) -> int:
    return _mix64(_mix64(_mix64(seed & _MASK) ^ (player + 1)) ^ ((shuffle_count + 1) * _GOLDEN & _MASK))


def shuffle_cards(seed: int, player: int, shuffle_count: int, counts: Sequence[int]) -> list[int]:
    """The project's randomness model: the draw pile made by ``player``'s ``shuffle_count``-th shuffle
    (0 = the starting deck) of the multiset ``counts``. The cards are laid out sorted by id and then
    permuted by a Fisher-Yates shuffle driven by a SplitMix64 stream keyed by (seed, player, shuffle
    count), so the result depends on nothing else. Each 64-bit output serves four swaps, 16 bits
    each (j = bits * (i + 1) >> 16). The list's end is the top of the draw pile."""
    cards: list[int] = []
    for c, n in enumerate(counts):
        if n:
            cards.extend([c] * n)
    s = shuffle_key(seed, player, shuffle_count)
    bits = avail = 0
    for i in range(len(cards) - 1, 0, -1):
        if not avail:
            s = (s + _GOLDEN) & _MASK
            bits = _mix64(s)
            avail = 4
        j = ((bits & 0xFFFF) * (i + 1)) >> 16
        bits >>= 16
        avail -= 1
        cards[i], cards[j] = cards[j], cards[i]
    return cards


# --- state -----------------------------------------------------------------------------------------
class DominionState:
    """A game position and its rules.

    Per player: ``draw[p]`` (ordered, top last), ``hand[p]``, ``discard[p]``, ``in_play[p]`` and
    ``owned[p]`` (every card the player has: the deck composition) as counts per card id;
    ``shuffles[p]`` and ``turns[p]``. Shared: ``supply`` counts, ``trash`` counts, the current player
    and their ``actions``, ``buys`` and ``coins``.

    ``target`` (solitaire): the game ends at the end of the turn in which the player owns that many
    Provinces, or in which that became impossible (``unreachable``: Remodel trashed Provinces, and
    those owned plus those left in the supply fall short of it). ``turn_limit``: the game stops
    (truncated) once every player has had that many turns.
    """

    def __init__(
        self,
        num_players: int = 2,
        kingdom: str | Iterable[int | str] | None = None,
        seed: int | str = 0,
        target: int | None = None,
        turn_limit: int | None = None,
    ) -> None:
        self.kingdom = parse_kingdom(kingdom)
        self.num_players = check_int("num_players", num_players, 1, MAX_PLAYERS)
        self.supply = supply_sizes(self.num_players, self.kingdom)
        self.seed = parse_seed(seed)
        target = check_int("target", target, 1, MAX_TARGET, optional=True)
        if self.num_players == 1 and target is None:
            target = DEFAULT_TARGET
        if target is not None and self.num_players != 1:
            raise ValueError("a Province target is for the solitaire game (num_players=1) only")
        self.target = target
        self.turn_limit = check_int("turn_limit", turn_limit, 1, optional=True)
        self.piles = BASE_CARDS + self.kingdom  # the supply piles in this game
        self._not_in_game = NUM_CARDS - len(self.piles)  # cards whose supply count is always 0
        n = self.num_players
        self.hand = [[0] * NUM_CARDS for _ in range(n)]
        self.discard = [[0] * NUM_CARDS for _ in range(n)]
        self.in_play = [[0] * NUM_CARDS for _ in range(n)]
        self.owned = [[0] * NUM_CARDS for _ in range(n)]
        self.draw: list[list[int]] = []
        self.shuffles = [0] * n
        self.turns = [0] * n
        self.trash = [0] * NUM_CARDS
        self.gains: list[list[int]] = [[0] * NUM_CARDS for _ in range(n)]  # bought or gained cards
        for p in range(n):
            start = list(STARTING_DECK)
            self.owned[p] = list(start)
            self.draw.append(shuffle_cards(self.seed, p, 0, start))
            self.shuffles[p] = 1
            self._draw(p, HAND_SIZE)
        self.player = 0
        self.decision = ACTION
        self.decider = 0
        self.truncated = False
        self.unreachable = False  # solitaire: the target can no longer be owned (see ``_ended``)
        self.history: list[tuple[int, int]] = []  # (decider, action) of every decision answered
        self.trashed = COPPER  # the card Mine or Remodel just trashed (sets the gain's cost limit)
        self.cellar_discarded = 0
        self.victims: list[int] = []  # players still to resolve a Militia attack, in turn order
        self._start_turn()

    # --- drawing ---------------------------------------------------------------------------------
    def _draw(self, p: int, n: int) -> int:
        """Draw up to ``n`` cards, shuffling the discard pile into a new draw pile when it runs out."""
        draw, hand = self.draw[p], self.hand[p]
        drawn = 0
        while drawn < n:
            if not draw:
                discard = self.discard[p]
                if not any(discard):
                    break
                draw = shuffle_cards(self.seed, p, self.shuffles[p], discard)
                self.draw[p] = draw
                self.shuffles[p] += 1
                self.discard[p] = [0] * NUM_CARDS
            hand[draw.pop()] += 1
            drawn += 1
        return drawn

    # --- turn flow -------------------------------------------------------------------------------
    def _start_turn(self) -> None:
        self.actions = 1
        self.buys = 1
        self.coins = 0
        self.merchants = 0
        self.cellar_discarded = 0
        self.decider = self.player
        self._action_phase()

    def _action_phase(self) -> None:
        hand = self.hand[self.player]
        if self.actions > 0:
            for c in ACTION_CARDS:
                if hand[c]:
                    self.decision = ACTION
                    self.decider = self.player
                    return
        self._buy_phase()

    def _buy_phase(self) -> None:
        p = self.player
        hand, play = self.hand[p], self.in_play[p]
        copper, silver, gold = hand[COPPER], hand[SILVER], hand[GOLD]
        coins = COINS[COPPER] * copper + COINS[SILVER] * silver + COINS[GOLD] * gold
        if silver and self.merchants:
            coins += MERCHANT_COINS * self.merchants  # each Merchant pays out on the first Silver played
        self.coins += coins
        play[COPPER] += copper
        play[SILVER] += silver
        play[GOLD] += gold
        hand[COPPER] = hand[SILVER] = hand[GOLD] = 0
        self.decision = BUY
        self.decider = p

    def _cleanup(self) -> None:
        p = self.player
        self.discard[p] = [d + h + q for d, h, q in zip(self.discard[p], self.hand[p], self.in_play[p],
                                                         strict=True)]
        self.hand[p] = [0] * NUM_CARDS
        self.in_play[p] = [0] * NUM_CARDS
        self._draw(p, HAND_SIZE)
        self.turns[p] += 1
        if self._ended():
            self.decision = GAME_OVER
            self.decider = -1
            return
        self.player = (p + 1) % self.num_players
        self._start_turn()

    def _ended(self) -> bool:
        p = self.player
        if self.target is not None:
            owned = self.owned[p][PROVINCE]
            if owned >= self.target:
                return True
            # Trashed cards never come back: with too few Provinces owned and left in the supply, no
            # play reaches the target any more, and an episode must not go on for ever.
            if owned + self.supply[PROVINCE] < self.target:
                self.unreachable = True
                return True
        elif self.supply[PROVINCE] == 0 or self.supply.count(0) - self._not_in_game >= 3:
            return True
        if self.turn_limit is not None and p == self.num_players - 1 and self.turns[p] >= self.turn_limit:
            self.truncated = True
            return True
        return False

    def _gain(self, p: int, card: int, to_hand: bool = False) -> None:
        self.supply[card] -= 1
        self.owned[p][card] += 1
        self.gains[p][card] += 1
        if to_hand:
            self.hand[p][card] += 1
        else:
            self.discard[p][card] += 1

    def _trash(self, p: int, card: int) -> None:
        self.hand[p][card] -= 1
        self.owned[p][card] -= 1
        self.trash[card] += 1

    def _gainable(self, max_cost: int, treasure_only: bool = False) -> list[int]:
        cards = TREASURES if treasure_only else self.piles
        return sorted(c for c in cards if self.supply[c] > 0 and COST[c] <= max_cost)

    # --- the decision interface ------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.decision == GAME_OVER

    def legal_actions(self) -> list[int]:
        """The legal answers to the current decision, in increasing order (``PASS`` last)."""
        d = self.decision
        if d == GAME_OVER:
            return []
        hand = self.hand[self.decider]
        if d == ACTION:
            return [c for c in ACTION_CARDS if hand[c]] + [PASS]
        if d == BUY:
            return [c for c in self.piles if self.supply[c] > 0 and COST[c] <= self.coins] + [PASS]
        if d in (CELLAR_DISCARD,):
            return [c for c in range(NUM_CARDS) if hand[c]] + [PASS]
        if d in (MILITIA_DISCARD, REMODEL_TRASH):
            return [c for c in range(NUM_CARDS) if hand[c]]
        if d == MOAT_REVEAL:
            return [MOAT, PASS]
        if d == MINE_TRASH:
            return [c for c in TREASURES if hand[c]] + [PASS]
        if d == MINE_GAIN:
            return self._gainable(COST[self.trashed] + MINE_EXTRA_COST, treasure_only=True)
        if d == REMODEL_GAIN:
            return self._gainable(COST[self.trashed] + REMODEL_EXTRA_COST)
        if d == WORKSHOP_GAIN:
            return self._gainable(WORKSHOP_MAX_COST)
        raise AssertionError(d)

    def action_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def apply(self, action: int) -> None:
        """Answer the current decision with ``action`` (a card id or ``PASS``); returns nothing (the
        state changes in place). An illegal action raises ``IllegalActionError`` naming the legal
        ones; a finished game raises ``GameOverError``."""
        d = self.decision
        if d == GAME_OVER:
            raise GameOverError("the game is over")
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            raise IllegalActionError(action, self.legal_actions(), "an action is an integer 0..17")
        a = int(action)
        p = self.decider
        if d == BUY:  # the hot path: checked inline
            if a == PASS:
                self.history.append((p, a))
                self._cleanup()
                return
            if not (0 <= a < NUM_CARDS and a in self.piles and self.supply[a] > 0 and COST[a] <= self.coins):
                raise IllegalActionError(a, self.legal_actions(), self.why_illegal(a))
            self.history.append((p, a))
            self._gain(p, a)
            self.coins -= COST[a]
            self.buys -= 1
            if self.buys == 0:
                self._cleanup()
            return
        legal = self.legal_actions()
        if a not in legal:
            raise IllegalActionError(a, legal, self.why_illegal(a))
        self.history.append((p, a))
        hand = self.hand[p]
        if d == ACTION:
            if a == PASS:
                self._buy_phase()
            else:
                self._play_action(a)
        elif d == CELLAR_DISCARD:
            if a == PASS:
                self._cellar_draw(p)
            else:
                hand[a] -= 1
                self.discard[p][a] += 1
                self.cellar_discarded += 1
                if not any(hand):
                    self._cellar_draw(p)
        elif d == MOAT_REVEAL:
            if a == MOAT:
                self._next_victim()  # unaffected by this attack
            else:
                self._militia_discard(p)
        elif d == MILITIA_DISCARD:
            hand[a] -= 1
            self.discard[p][a] += 1
            if sum(hand) <= MILITIA_KEEP:
                self._next_victim()
        elif d == MINE_TRASH:
            if a == PASS:
                self._action_phase()
            else:
                self._trash(p, a)
                self.trashed = a
                self._ask_gain(MINE_GAIN, COST[a] + MINE_EXTRA_COST, treasure_only=True)
        elif d == REMODEL_TRASH:
            self._trash(p, a)
            self.trashed = a
            self._ask_gain(REMODEL_GAIN, COST[a] + REMODEL_EXTRA_COST)
        elif d in (MINE_GAIN, REMODEL_GAIN, WORKSHOP_GAIN):
            self._gain(p, a, to_hand=d == MINE_GAIN)
            self._action_phase()

    def _cellar_draw(self, p: int) -> None:
        self._draw(p, self.cellar_discarded)
        self.cellar_discarded = 0  # the counter describes a Cellar being resolved, none now
        self._action_phase()

    def gain_limit(self) -> int:
        """The most a pending gain may cost (Mine, Remodel, Workshop); 0 when no gain is pending."""
        d = self.decision
        if d == MINE_GAIN:
            return COST[self.trashed] + MINE_EXTRA_COST
        if d == REMODEL_GAIN:
            return COST[self.trashed] + REMODEL_EXTRA_COST
        return WORKSHOP_MAX_COST if d == WORKSHOP_GAIN else 0

    def question(self) -> str:
        """The current decision as a question to its player, in the game's words."""
        d = self.decision
        s = "" if self.actions == 1 else "s"
        texts = {
            ACTION: f"play an Action card ({self.actions} Action{s} left), or pass to buy",
            BUY: f"buy a card: ${self.coins}, {self.buys} Buy{'' if self.buys == 1 else 's'}; "
                 "or pass to end the turn",
            CELLAR_DISCARD: "discard a card to Cellar, or pass to draw one card per card discarded",
            MILITIA_DISCARD: f"Militia: discard down to {MILITIA_KEEP} cards, one card at a time",
            MOAT_REVEAL: "Militia attacks: reveal Moat to be unaffected, or pass",
            MINE_TRASH: "Mine: trash a Treasure from your hand, or pass",
            MINE_GAIN: f"Mine: gain a Treasure costing up to ${self.gain_limit()} to your hand",
            REMODEL_TRASH: "Remodel: trash a card from your hand",
            REMODEL_GAIN: f"Remodel: gain a card costing up to ${self.gain_limit()}",
            WORKSHOP_GAIN: f"Workshop: gain a card costing up to ${WORKSHOP_MAX_COST}",
            GAME_OVER: "the game is over",
        }
        return texts[d]

    def why_illegal(self, a: int) -> str:
        """Why ``a`` is not a legal answer to the current decision, in the game's words."""
        if not 0 <= a <= PASS:
            return f"actions are card ids 0..{NUM_CARDS - 1} and {PASS} (pass)"
        d = self.decision
        if d == GAME_OVER:
            return "the game is over"
        what = "pass" if a == PASS else CARD_NAMES[a]
        if a == PASS:
            return "passing is not allowed here: a card must be chosen"
        if d == MOAT_REVEAL:
            return f"{what} is not an answer here: reveal Moat or pass"
        if d in (ACTION, CELLAR_DISCARD, MILITIA_DISCARD, MINE_TRASH, REMODEL_TRASH):
            if not self.hand[self.decider][a]:
                return f"there is no {what} in your hand"
            if d == ACTION:
                return f"{what} is not an Action card"
            if d == MINE_TRASH:
                return f"Mine trashes a Treasure, and {what} is not one"
        if d in (BUY, MINE_GAIN, REMODEL_GAIN, WORKSHOP_GAIN):
            if a not in self.piles:
                return f"{what} is not in this game's supply"
            if self.supply[a] == 0:
                return f"the {what} pile is empty"
            if d == MINE_GAIN and a not in TREASURES:
                return f"Mine gains a Treasure, and {what} is not one"
            if d == BUY:
                return f"{what} costs ${COST[a]} and only ${self.coins} is available"
            return f"{what} costs ${COST[a]}, more than ${self.gain_limit()}"
        return f"{what} is not a legal answer here ({self.question()})"

    def _play_action(self, card: int) -> None:
        p = self.player
        self.hand[p][card] -= 1
        self.in_play[p][card] += 1
        self.actions += PLUS_ACTIONS[card] - 1
        self.buys += PLUS_BUYS[card]
        self.coins += PLUS_COINS[card]
        if PLUS_CARDS[card]:
            self._draw(p, PLUS_CARDS[card])
        if card == CELLAR:
            self.cellar_discarded = 0
            if any(self.hand[p]):
                self.decision = CELLAR_DISCARD
                return
        elif card == MERCHANT:
            self.merchants += 1
        elif card == MILITIA:
            self.victims = [(p + i) % self.num_players for i in range(1, self.num_players)]
            self._next_victim()
            return
        elif card == MINE:
            if any(self.hand[p][c] for c in TREASURES):
                self.decision = MINE_TRASH
                return
        elif card == REMODEL:
            if any(self.hand[p]):
                self.decision = REMODEL_TRASH
                return
        elif card == WORKSHOP:
            self._ask_gain(WORKSHOP_GAIN, WORKSHOP_MAX_COST)
            return
        self._action_phase()

    def _ask_gain(self, kind: int, max_cost: int, treasure_only: bool = False) -> None:
        # A gain is mandatory when something is affordable, and skipped when nothing is.
        if self._gainable(max_cost, treasure_only):
            self.decision = kind
            self.decider = self.player
        else:
            self._action_phase()

    def _next_victim(self) -> None:
        while self.victims:
            v = self.victims.pop(0)
            if sum(self.hand[v]) <= MILITIA_KEEP:
                continue  # nothing to discard, so revealing Moat would change nothing
            if self.hand[v][MOAT]:
                self.decision = MOAT_REVEAL
                self.decider = v
                return
            if sum(self.hand[v]) > MILITIA_KEEP:
                self.decision = MILITIA_DISCARD
                self.decider = v
                return
        self.decider = self.player
        self._action_phase()

    def _militia_discard(self, v: int) -> None:
        if sum(self.hand[v]) > MILITIA_KEEP:
            self.decision = MILITIA_DISCARD
            self.decider = v
        else:
            self._next_victim()

    @classmethod
    def start(cls, rules: DominionRules, deal: int | str) -> DominionState:
        """The position at the start of the game of ``rules`` dealt by ``deal`` (the seed)."""
        return cls(rules.players, rules.kingdom, deal, rules.target, rules.turn_limit)

    @property
    def rules(self) -> DominionRules:
        """The rules this game is played by (the kingdom as card ids)."""
        return DominionRules(self.num_players, self.kingdom, self.target, self.turn_limit)

    def copy(self) -> DominionState:
        """An independent copy of the position (for search and tests)."""
        other = DominionState.__new__(DominionState)
        for name, value in self.__dict__.items():
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            setattr(other, name, value)
        return other

    # --- scoring ---------------------------------------------------------------------------------
    def vp(self, p: int) -> int:
        owned = self.owned[p]
        return owned[ESTATE] + 3 * owned[DUCHY] + 6 * owned[PROVINCE] - owned[CURSE]

    def scores(self) -> list[float]:
        """Each player's victory points so far, as the game counts them (the engine contract's score;
        the winner is decided by these and the tie-break on turns, ``winners``)."""
        return [float(self.vp(p)) for p in range(self.num_players)]

    def vp_level(self) -> bool:
        """True when the leaders are level on VP (before the tie-break on turns)."""
        s = [self.vp(p) for p in range(self.num_players)]
        return s.count(max(s)) > 1

    def winners(self) -> list[int]:
        """Most VP; among those tied, the fewest turns; the rest share the victory."""
        s = [self.vp(p) for p in range(self.num_players)]
        best = max(s)
        tied = [p for p in range(self.num_players) if s[p] == best]
        fewest = min(self.turns[p] for p in tied)
        return [p for p in tied if self.turns[p] == fewest]

    def results(self) -> list[int]:
        """+1 for a sole winner, 0 for a shared victory, -1 for everyone else (at the end only)."""
        win = self.winners()
        shared = len(win) > 1
        return [(0 if shared else 1) if p in win else -1 for p in range(self.num_players)]

    def hand_size(self, p: int) -> int:
        return sum(self.hand[p])

    def draw_counts(self, p: int) -> list[int]:
        """The draw pile as a multiset (what a player may know of their own deck)."""
        counts = [0] * NUM_CARDS
        for c in self.draw[p]:
            counts[c] += 1
        return counts

    def describe(self, viewer: int | None = None) -> str:
        """The position as text (what ``render_mode="ansi"`` shows). With ``viewer``, only what that
        player may see: the other players' hands appear as their sizes, never their cards."""
        lines = [f"turn {self.turns[self.player] + 1} of player {self.player}; decision: "
                 f"{DECISION_NAMES[self.decision]} (player {self.decider}); "
                 f"actions {self.actions}, buys {self.buys}, coins ${self.coins}"]
        lines.append("supply: " + ", ".join(f"{CARD_NAMES[c]} {self.supply[c]}" for c in self.piles))
        for p in range(self.num_players):
            hand = (f"hand [{_names(self.hand[p])}]" if viewer is None or p == viewer
                    else f"{self.hand_size(p)} cards in hand")
            lines.append(f"player {p}: VP {self.vp(p)}, turns {self.turns[p]}, {hand}, "
                         f"in play [{_names(self.in_play[p])}], "
                         f"draw {len(self.draw[p])}, discard {sum(self.discard[p])}")
        if not self.done and (viewer is None or viewer == self.decider):
            lines.append("legal: " + ", ".join(action_name(a) for a in self.legal_actions()))
        return "\n".join(lines)


def _names(counts: Sequence[int]) -> str:
    return ", ".join(f"{n}x{CARD_NAMES[c]}" for c, n in enumerate(counts) if n)


def action_name(action: int) -> str:
    return "pass" if action == PASS else CARD_NAMES[action]


def replay(rules: DominionRules, deal: int | str, plan: Iterable[Any]) -> DominionState:
    """The game of ``rules`` dealt by ``deal`` (the seed, as a deal string or an integer) after
    answering every decision with the plan's actions in order; raises ``IllegalActionError`` on an
    illegal one (``GameOverError`` on one past the end)."""
    state = DominionState.start(rules, deal)
    for action in plan:
        state.apply(action)
    return state

"""Modern Art: Masters Gallery as a table of 2-5 seats: one engine, what each seat sees.

``ModernArtTable`` is the game behind both the single-agent environment (``env.ModernArtEnv``: one
seat, agents in the others) and the PettingZoo environment (``tabletop_gym.multiagent.modern_art_v0``:
every seat a learner). What a seat sees is ``observe(state, seat)``, the single-agent observation from
that seat, so one trained policy can sit in any seat. The rules stay in ``rules.py``.

Every decision of this game is one seat's, in turn order: a simultaneous card's plays are asked one
player after another from the player's left, each displayed face up (docs/rules/modern-art.md), so a
later player sees the earlier ones as it would at the table. Masters Gallery has no auctions or sealed
bids; nothing any seat decides is hidden from a seat deciding after it, except face-down (hidden) cards,
which the others see only as a count.
"""

from __future__ import annotations

import copy
from operator import itemgetter
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletop_gym.core import Table
from tabletop_gym.envs.modern_art.observation import (
    AWARDS,
    AWARDS_LEFT,
    DECISION,
    DECISION_ARTIST,
    MAX_PLAYERS,
    OBS_SIZE,
    PLAYERS,
    ROUND,
    SCORES,
    TURN,
    VALUES,
)
from tabletop_gym.envs.modern_art.rules import (
    DOUBLE_CARD,
    NUM_ACTIONS,
    NUM_ARTISTS,
    PHASES,
    PLAIN,
    SIMULTANEOUS_CARD,
    ModernArtRules,
    State,
    action_name,
    artist_of,
    deal_string,
    kind_of,
    parse_deal,
    random_deal,
    symbol_of,
)

_BIG = 100_000  # bound for scores and values; far above any reachable total

# Per player count: for each seat, a getter of per-seat entries in relative seat order (itemgetter: no
# Python loop per observation), and the padding of absent seats.
_SEATS = {
    n: [itemgetter(*[(seat + rel) % n for rel in range(n)]) for seat in range(n)]
    for n in range(2, MAX_PLAYERS + 1)
}
_PAD = {n: [0] * (MAX_PLAYERS - n) for n in _SEATS}
_PAD_SHOWN = {n: [0] * ((MAX_PLAYERS - n) * NUM_ARTISTS) for n in _SEATS}


def observe(state: State, seat: int) -> np.ndarray:
    """What ``seat`` may know, as the environment's observation vector."""
    # Built as one flat list and converted once: several opponents' decisions per step call this, and
    # one conversion costs less than filling an array part by part.
    n = state.rules.players
    in_seat_order = _SEATS[n][seat]
    pad = _PAD[n]
    down = state.down
    values = state.hands[seat][:]
    for shown in in_seat_order(state.up):
        values += shown
    values += _PAD_SHOWN[n]
    values += down[seat]
    values += map(sum, in_seat_order(down))
    values += pad
    values += state.extra
    values += state.values
    values += state.awards
    values += in_seat_order(state.money)
    values += pad
    values += in_seat_order(state.hand_sizes)
    values += pad
    phase = state.phase
    values += (
        state.deck_left,
        min(state.round, state.rules.rounds - 1),
        phase,
        (state.turn_player - seat) % n,
        n,
        state.awards_left,
        state.double_artist + 1 if phase == DOUBLE_CARD or phase == SIMULTANEOUS_CARD else 0,
    )
    return np.array(values, dtype=np.int64)


def observation_high(rules: ModernArtRules) -> np.ndarray:
    """The upper bounds of the observation under ``rules`` (every reachable value within them)."""
    cards = rules.num_cards
    high = np.full(OBS_SIZE, cards, dtype=np.int64)
    # An artist's value tokens, and a seat's score: every round at most (tokens so far + awards) per
    # card, over every card. Far below _BIG with the default rules; larger rule parameters raise it,
    # so every reachable observation stays in the space.
    top_token = max(rules.value_tokens)
    values = rules.rounds * top_token
    scores = rules.rounds * cards * (values + rules.award_value * rules.award_tokens)
    high[VALUES] = max(_BIG, values)
    high[AWARDS] = max(rules.award_tokens, 1)
    high[SCORES] = max(_BIG, scores)
    high[ROUND] = max(rules.rounds - 1, 1)  # never high == low (Gymnasium warns of a constant slot)
    high[DECISION] = len(PHASES) - 1
    high[TURN] = MAX_PLAYERS - 1
    high[PLAYERS] = MAX_PLAYERS
    high[AWARDS_LEFT] = max(rules.award_tokens, 1)
    high[DECISION_ARTIST] = NUM_ARTISTS
    return high


def render_text(state: State, seat: int | None = None) -> str:
    """The position as text; with ``seat``, only what that seat may see (others' hands hidden)."""
    shown = state.render(seat).split("\n")
    if seat is None:
        return "\n".join(shown)
    if not state.done and state.to_move == seat:
        options = ", ".join(f"{a}={action_name(a)}" for a in state.legal_actions())
        shown.append(f"your options: {options}")
    return "\n".join(shown)


class ModernArtTable(Table):
    """One game of Modern Art under ``rules``, every seat's view of it.

    ``info(seat)``: ``action_mask`` (np.int8, all zero unless the seat is to move), ``score`` (its
    points), ``scores`` (int64, every seat by absolute seat), ``seat``, ``round``, ``decision`` (the
    name of the pending decision) and ``deal`` (the whole deck in order: ``""`` until the game is over,
    unless made with ``reveal_deal=True``). ``returns()`` is each seat's score: points come only at
    each round's scoring, so a seat's rewards are the points it scores there.
    """

    def __init__(self, rules: ModernArtRules, reveal_deal: bool = False) -> None:
        self.rules = rules
        self.num_seats = rules.players
        self.num_actions = NUM_ACTIONS
        self.observation_space = spaces.Box(0, observation_high(rules), (OBS_SIZE,), dtype=np.int64)
        self.reveal_deal = reveal_deal
        self.state: State | None = None
        self._deal = ""
        self.agent_seeds: list[int] = []

    def reset(self, rng: np.random.Generator, deal: Any = None) -> None:
        """Start the game of ``deal`` (or a deal drawn from ``rng``), then draw ``agent_seeds``: one
        seed per seat but one, which ``ModernArtEnv`` gives its opponents in seat order. Drawn here
        for every table, so that ``rng`` goes on alike in the single-agent and the PettingZoo
        environment, and later resets without a seed deal the same games in both. A deal refused
        leaves the game in progress as it was."""
        if deal is None:
            deal = random_deal(self.rules, rng)
        cards = parse_deal(deal, self.rules)  # a clear error for a bad deal
        self._deal = deal.strip()
        self.state = State(self.rules, cards)
        self.agent_seeds = [int(rng.integers(2**31)) for _ in range(self.num_seats - 1)]

    @property
    def to_move(self) -> int | None:
        return None if self.state.done else self.state.to_move

    @property
    def done(self) -> bool:
        return self.state.done

    @property
    def deal(self) -> str:
        return self._deal

    def observe(self, seat: int) -> np.ndarray:
        return observe(self.state, seat)

    def action_mask(self, seat: int) -> np.ndarray:
        state = self.state
        if state.done or state.to_move != seat:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return state.action_mask()

    def info(self, seat: int) -> dict[str, Any]:
        state = self.state
        return {
            "action_mask": self.action_mask(seat).view(np.int8),
            "score": state.money[seat],
            "scores": np.array(state.money, dtype=np.int64),  # an array: one shape in every info
            "seat": seat,
            "round": min(state.round, self.rules.rounds - 1),
            "decision": PHASES[state.phase],
            "deal": self._deal if state.done or self.reveal_deal else "",
        }

    def apply(self, action: int) -> None:
        self.state.apply(action)

    def returns(self) -> list[float]:
        return [float(m) for m in self.state.money]

    def render(self, seat: int | None = None) -> str:
        return render_text(self.state, seat)

    def picture(self, seat: int) -> Any:
        """What ``seat`` sees as a picture (``tabletop_gym.render.Picture``), from its observation."""
        from tabletop_gym.envs.modern_art.draw import draw

        return draw(observe(self.state, seat), self.rules.rounds)

    def act(self, seat: int, agent: Any) -> int:
        # An agent in another seat is given its observation and only its action mask, as the
        # single-agent environment has always given its opponents (cheaper than a whole info, on the
        # path that runs several opponents' decisions per step).
        mask = self.state.action_mask().view(np.int8)  # a fresh array: the view is the agent's
        return int(agent.act(observe(self.state, seat), {"action_mask": mask}))

    def hidden_twins(self, seat: int, rng: np.random.Generator) -> list[ModernArtTable]:
        """Copies of this table at this position that differ only in what ``seat`` may not see:
        the deck's cards not yet dealt in another order; a card of another seat's hand exchanged with
        a different one of a third hand or of the deck not yet dealt; another seat's face-down card
        of one artist turned into one of another artist, the plain card of that other artist (in a
        hand other than ``seat``'s or in the deck not yet dealt) becoming one of the first. Each
        that the position allows (none once the game is over). A twin's deal string follows its deck
        where the deck alone changed; otherwise it is left as it was (which deck position dealt a
        card in hand is not recorded)."""
        state = self.state
        if state is None or state.done:
            return []
        twins = []
        rest = list(state.deck[state.top :])
        shuffled = [int(kind) for kind in rng.permutation(rest)]
        if shuffled != rest:
            twin = copy.deepcopy(self)
            twin.state.deck = state.deck[: state.top] + tuple(shuffled)
            twin._deal = deal_string(twin.state.deck)
            twins.append(twin)
        for change in (_swap_hidden_card, _change_face_down_card):
            twin = copy.deepcopy(self)
            if change(twin.state, seat, rng):
                twins.append(twin)
        return twins


def _swap_hidden_card(state: State, seat: int, rng: np.random.Generator) -> bool:
    """Exchange, in ``state``, a card of a hand other than ``seat``'s with a different card of
    another such hand or of the deck not yet dealt: cards ``seat`` cannot see. False where no such
    pair exists."""
    deck = list(state.deck)
    places: list[tuple[str, int, int]] = [("deck", i, deck[i]) for i in range(state.top, len(deck))]
    for p in range(state.rules.players):
        if p != seat:
            places += [("hand", p, kind) for kind, count in enumerate(state.hands[p]) for _ in range(count)]
    order = rng.permutation(len(places))
    places = [places[i] for i in order]
    for i, first in enumerate(places):
        for second in places[i + 1 :]:
            if first[2] != second[2] and "hand" in (first[0], second[0]):
                for (where, at, kind), new in ((first, second[2]), (second, first[2])):
                    if where == "deck":
                        deck[at] = new
                    else:
                        state.hands[at][kind] -= 1
                        state.hands[at][new] += 1
                state.deck = tuple(deck)
                return True
    return False


def _change_face_down_card(state: State, seat: int, rng: np.random.Generator) -> bool:
    """Turn, in ``state``, a face-down card of a seat other than ``seat`` (known to ``seat`` only as
    a count) into one of another artist, and a plain card of that artist that ``seat`` cannot see (in
    another seat's hand or the deck not yet dealt) into a plain card of the first artist, so the cards
    of each artist stay as many. False where no such pair exists."""
    down = [(p, a) for p in range(state.rules.players) if p != seat
            for a in range(NUM_ARTISTS) for _ in range(state.down[p][a])]
    plain = [("deck", i, artist_of(kind)) for i, kind in enumerate(state.deck)
             if i >= state.top and symbol_of(kind) == PLAIN]
    for p in range(state.rules.players):
        if p != seat:
            hand = state.hands[p]
            plain += [("hand", p, a) for a in range(NUM_ARTISTS) for _ in range(hand[kind_of(a, PLAIN)])]
    pairs = [(d, c) for d in down for c in plain if d[1] != c[2]]
    if not pairs:
        return False
    (p, artist), (where, at, other) = pairs[int(rng.integers(len(pairs)))]
    state.down[p][artist] -= 1
    state.down[p][other] += 1
    if where == "deck":
        deck = list(state.deck)
        deck[at] = kind_of(artist, PLAIN)
        state.deck = tuple(deck)
    else:
        state.hands[at][kind_of(other, PLAIN)] -= 1
        state.hands[at][kind_of(artist, PLAIN)] += 1
    return True


__all__ = ["ModernArtTable", "observe", "observation_high", "render_text"]

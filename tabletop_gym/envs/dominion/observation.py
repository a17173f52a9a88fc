"""The observation of the Dominion environments: where each part lies, how a seat's observation is
filled from the engine, and how a rule bot reads one back (``ObservationView``).

Its own module, below both the environment and the bots: the environment seats the bots, and a bot
playing as the agent decodes the environment's observation, so neither may import the other for it.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.envs.dominion import rules as R

# Where each part of the observation lies (see the environments' docstrings).
_N = R.NUM_CARDS
DECISION = slice(0, R.NUM_DECISIONS)
HAND = slice(DECISION.stop, DECISION.stop + _N)
DRAW = slice(HAND.stop, HAND.stop + _N)
DISCARD = slice(DRAW.stop, DRAW.stop + _N)
IN_PLAY = slice(DISCARD.stop, DISCARD.stop + _N)
SUPPLY = slice(IN_PLAY.stop, IN_PLAY.stop + _N)
TRASH = slice(SUPPLY.stop, SUPPLY.stop + _N)
PLAYER_SIZE = _N + 4  # owned cards, VP, turns taken, hand size, seat is in the game
PLAYERS = slice(TRASH.stop, TRASH.stop + R.MAX_PLAYERS * PLAYER_SIZE)
COUNTERS = ("coins", "actions", "buys", "gain_cost_limit", "cards_over_three", "cellar_discarded",
            "own_turn", "merchants")
COUNTER = slice(PLAYERS.stop, PLAYERS.stop + len(COUNTERS))
OBS_SIZE = COUNTER.stop
OBS_LOW, OBS_HIGH = -100.0, 250.0

def observe(state: R.DominionState, me: int) -> np.ndarray:
    """What seat ``me`` may know of ``state``, as the environments' observation vector (the agent's,
    and an opponent Agent's from its own seat)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    obs[DECISION.start + state.decision] = 1
    obs[HAND] = state.hand[me]
    obs[DRAW] = state.draw_counts(me)
    obs[DISCARD] = state.discard[me]
    obs[IN_PLAY] = state.in_play[state.player]
    obs[SUPPLY] = state.supply
    obs[TRASH] = state.trash
    for i in range(state.num_players):
        p = (me + i) % state.num_players
        base = PLAYERS.start + i * PLAYER_SIZE
        obs[base : base + _N] = state.owned[p]
        obs[base + _N : base + PLAYER_SIZE] = (state.vp(p), state.turns[p], state.hand_size(p), 1)
    limit = state.gain_limit()
    over = max(0, state.hand_size(me) - R.MILITIA_KEEP) if state.decision == R.MILITIA_DISCARD else 0
    obs[COUNTER] = (state.coins, state.actions, state.buys, limit, over, state.cellar_discarded,
                    float(state.player == me), state.merchants)
    return np.clip(obs, OBS_LOW, OBS_HIGH)


class ObservationView:
    """A bot's view (the attributes of ``PlayerView``) decoded from an observation and its mask, so
    the rule bots can play as the agent from what the agent sees and nothing more."""

    def __init__(self, observation: np.ndarray, action_mask: np.ndarray) -> None:
        obs = np.asarray(observation)
        self.decision = int(np.argmax(obs[DECISION]))
        self.hand = [int(x) for x in obs[HAND]]
        self.supply = [int(x) for x in obs[SUPPLY]]
        self.owned = [int(x) for x in obs[PLAYERS.start : PLAYERS.start + _N]]
        counters = [int(x) for x in obs[COUNTER]]
        self.coins, self.actions, self.buys = counters[0], counters[1], counters[2]
        self.turn = int(obs[PLAYERS.start + _N + 1]) + 1
        self._legal = [int(a) for a in np.flatnonzero(action_mask)]

    def legal_actions(self) -> list[int]:
        return self._legal


"""Dominion's versus game as a ``Table``: one engine, every seat's view of it.

The single-agent ``DominionEnv`` plays one seat of it with bots or agents in the others
(``play_others``); ``tabletop_gym.multiagent.dominion_v0`` gives every seat to a learner. Both
drive this table, so the rules (``rules.py``), the deal of a seed and each seat's observation are
the same in both. The solitaire game has no other seat and stays its own environment.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from tabletop_gym.core import Agent, GameOverError, IllegalActionError, Table, check_float, check_int
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.bots import DominionBot, PlayerView
from tabletop_gym.envs.dominion.observation import OBS_HIGH, OBS_LOW, OBS_SIZE, observe

VERSUS_TURN_LIMIT = 100  # the game against bots': turns per player


MAX_DEAL = 2**63  # deals are drawn below it (every seed up to 2**64 - 1 may be given)


def draw_deal(rng: np.random.Generator) -> int:
    """The deal of a seeded episode: the first draw of the episode's generator."""
    return int(rng.integers(0, MAX_DEAL))


def hidden_changes(state: R.DominionState, seat: int,
                   rng: np.random.Generator) -> list[Callable[[R.DominionState], None]]:
    """What ``seat`` may not know of ``state``, as changes to make to copies of it (drawn with
    ``rng`` here, so each change is fixed before any copy is made): another seed for every shuffle
    to come, the seat's own draw pile in another order, and for each other player a card of the
    hand exchanged with a different one of that player's draw pile, and that draw pile in another
    order. Only the first changes the deal string (the seed); no seed deals the others' positions.
    """
    changes: list[Callable[[R.DominionState], None]] = []
    seed = int(rng.integers(2**63))

    def reseed(twin: R.DominionState) -> None:
        twin.seed = seed

    changes.append(reseed)
    if len(set(state.draw[seat])) > 1:
        changes.append(_reorder(state, seat, rng))
    for p in range(state.num_players):
        pairs = [(h, d) for h in range(R.NUM_CARDS) if state.hand[p][h]
                 for d in range(len(state.draw[p])) if state.draw[p][d] != h]
        if p != seat and pairs:
            hand_card, at = pairs[int(rng.integers(len(pairs)))]
            changes.append(_swap(p, hand_card, at))
    for p in range(state.num_players):
        if p != seat and len(set(state.draw[p])) > 1:
            changes.append(_reorder(state, p, rng))
    return changes


def _reorder(state: R.DominionState, p: int, rng: np.random.Generator) -> Callable[[R.DominionState], None]:
    order = list(state.draw[p])
    while order == state.draw[p]:
        rng.shuffle(order)

    def reorder(twin: R.DominionState) -> None:
        twin.draw[p] = list(order)

    return reorder


def _swap(p: int, hand_card: int, at: int) -> Callable[[R.DominionState], None]:
    def swap(twin: R.DominionState) -> None:
        draw_card = twin.draw[p][at]
        twin.hand[p][hand_card] -= 1
        twin.hand[p][draw_card] += 1
        twin.draw[p][at] = hand_card

    return swap


def _unplay_treasures(state: R.DominionState) -> None:
    """Undo what the engine's buy phase does on entry (``DominionState._buy_phase``): the Treasures
    played from the hand go back to it, with their coins (and the Merchants' coins on a Silver).
    Treasures are in play only once the buy phase has played them, so these are all of them."""
    p = state.player
    hand, play = state.hand[p], state.in_play[p]
    if play[R.SILVER] and state.merchants:
        state.coins -= R.MERCHANT_COINS * state.merchants
    for t in R.TREASURES:
        state.coins -= R.COINS[t] * play[t]
        hand[t] += play[t]
        play[t] = 0


class DominionTable(Table):
    """Dominion's versus game for 2-4 seats, behind one ``DominionState``.

    ``to_move`` is the engine's ``decider``: decisions come on other players' turns too (discarding
    to Militia, revealing Moat). ``observe(seat)`` is the single-agent environment's observation
    from that seat (the seat first, then the others in turn order), so one policy fits every seat.
    ``returns()``: +1 for a sole win, 0 for a shared one, -1 for a loss once the game has ended by
    the rules (0 when the turn limit cut it off, as in the single-agent environment); with
    ``vp_shaping=c`` plus c times the seat's (own VP - best other VP) throughout, which is 0 at the
    start, so each step's change of it is the single-agent environment's shaping reward.
    ``act(seat, agent)`` lets a rule bot (``DominionBot``) choose from the engine's view of its seat
    (``PlayerView``) and any other Agent from the seat's observation and info.

    ``ask_hidden_choices``: the engine asks a question only of a player whose hidden hand gives it a
    choice (reveal Moat to a Militia only with a Moat in hand; Mine's trash only with a Treasure in
    hand; which Action to play only with an Action card in hand), so that a question is asked at all
    tells every other seat about that hand. With this option the table asks it anyway where the
    engine skipped it, with only "pass" legal, and applies nothing to the engine for the answer:
    every attacked player with more than three cards is asked about Moat in turn order before
    discarding, every player of a Mine about its trash, and every player with Actions left about
    its next Action (at the start of its turn, or after an Action resolves) before its buy. The
    seat's observation and info show the question as the engine's own would (the action question
    before the Treasures are played for the buy), so the order of seats to move and what they show
    are the same whatever the hands hold. Off, the table asks exactly the engine's questions (the
    single-agent environment, whose agent never sees the other seats' questions). Questions skipped
    for what is public stay skipped: a Militia victim with three cards or fewer, Cellar or Remodel
    with an empty hand, a gain with nothing affordable, the action question with no Action left, an
    empty hand, or no Action card owned outside play (so no player is asked it before buying one).
    """

    num_actions = R.NUM_ACTIONS

    def __init__(self, num_players: int = 2, kingdom: Any = None, turn_limit: int = VERSUS_TURN_LIMIT,
                 vp_shaping: float = 0.0, reveal_deal: bool = False,
                 ask_hidden_choices: bool = False) -> None:
        self.num_seats = check_int("num_players", num_players, 2, R.MAX_PLAYERS)
        self.kingdom = R.parse_kingdom(kingdom)
        # Always a limit: without one, players who never buy would make an endless game.
        self.turn_limit = check_int("turn_limit", turn_limit, 1)
        self.vp_shaping = check_float("vp_shaping", vp_shaping, 0)
        if not isinstance(reveal_deal, (bool, np.bool_)):
            raise ValueError(f"reveal_deal must be True or False, got {reveal_deal!r}")
        self.reveal_deal = bool(reveal_deal)
        if not isinstance(ask_hidden_choices, (bool, np.bool_)):
            raise ValueError(f"ask_hidden_choices must be True or False, got {ask_hidden_choices!r}")
        self.ask_hidden_choices = bool(ask_hidden_choices)
        # The questions the engine skipped that the seat to move is asked (only "pass" legal), first
        # the one asked now; none: the engine's own question is the one shown.
        self._forced: list[int] = []
        # Each table its own space: a space carries its own random generator for sample().
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.state: R.DominionState | None = None
        self._views: list[PlayerView] = []

    def reset(self, rng: np.random.Generator, deal: Any = None) -> None:
        seed = R.parse_seed(deal) if deal is not None else draw_deal(rng)
        self.state = R.DominionState(self.num_seats, self.kingdom, seed, None, self.turn_limit)
        self._views = [PlayerView(self.state, p) for p in range(self.num_seats)]
        # The first player's turn may start without an action question (not with the starting deck).
        self._forced = [R.ACTION] if self.ask_hidden_choices and self._action_skipped() else []

    @property
    def forced_question(self) -> int | None:
        """The question the engine skipped that the seat to move is asked now (only "pass" legal),
        or None: then the engine's own question is the one shown."""
        return self._forced[0] if self._forced else None

    def _game(self) -> R.DominionState:
        if self.state is None:
            raise GameOverError("call reset() before using the table")
        return self.state

    @property
    def to_move(self) -> int | None:
        state = self._game()
        return None if state.done else state.decider

    @property
    def done(self) -> bool:
        return self._game().done

    @property
    def truncated(self) -> bool:
        return self._game().truncated

    @property
    def deal(self) -> str:
        return str(self._game().seed)

    def _shown(self) -> R.DominionState:
        """The position as the seats see it: the engine's, asking the forced question if one is due."""
        state = self._game()
        if self.forced_question is None:
            return state
        # The engine is already past the question (the victim's first discard, the next phase), but
        # nothing the seats see has changed since it would have been asked, save the question and, at
        # the buy, the Treasures the engine played for it.
        shown = state.copy()
        if shown.decision == R.BUY:
            _unplay_treasures(shown)
        shown.decision = self.forced_question
        return shown

    def observe(self, seat: int) -> np.ndarray:
        return observe(self._shown(), seat)

    def action_mask(self, seat: int) -> np.ndarray:
        state = self._game()
        if state.done or state.decider != seat:
            return np.zeros(R.NUM_ACTIONS, dtype=bool)
        if self.forced_question is not None:
            mask = np.zeros(R.NUM_ACTIONS, dtype=bool)
            mask[R.PASS] = True
            return mask
        return state.action_mask()

    def info(self, seat: int) -> dict[str, Any]:
        """``action_mask``, ``decision``, ``turns``, ``vp``, ``deal``, ``score`` (own VP), ``result``
        (+1/0/-1 once over, 0 before) and ``level_on_vp`` (once over, whether the leaders were level
        on VP; False before): the single-agent environment's info from ``seat``."""
        state = self._game()
        # The seed fixes every shuffle to come, so the others' hands: hidden until the game ends.
        return {
            "action_mask": self.action_mask(seat).astype(np.int8),
            "decision": R.DECISION_NAMES[self._shown().decision],
            "turns": state.turns[seat],
            "vp": state.vp(seat),
            "deal": self.deal if state.done or self.reveal_deal else "",
            "score": state.vp(seat),
            "result": state.results()[seat] if state.done else 0,
            "level_on_vp": bool(state.vp_level()) if state.done else False,
        }

    def apply(self, action: int) -> None:
        state = self._game()
        if self.forced_question is not None:
            if not (isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
                    and int(action) == R.PASS):
                raise IllegalActionError(action, [R.PASS], f"with no {self._forced_card()} in hand, "
                                         "the only answer is pass")
            self._forced.pop(0)
            return
        asked, asker, card, player = state.decision, state.decider, action, state.player
        state.apply(action)
        if self.ask_hidden_choices and not state.done:
            self._forced = self._skipped_questions(asked, asker, card, player)

    def _skipped_questions(self, asked: int, asker: int, card: Any, player: int) -> list[int]:
        """The questions the engine skipped for a hidden reason in answering ``card`` to ``asked``
        (by ``asker``, in ``player``'s turn), in the order it would have asked them."""
        state = self._game()
        if state.decision == R.MILITIA_DISCARD and not (
                state.decider == asker and asked in (R.MILITIA_DISCARD, R.MOAT_REVEAL)):
            # A victim's first discard: the engine asks about Moat first only where there is one.
            return [R.MOAT_REVEAL]
        skipped = []
        if asked == R.ACTION and card == R.MINE and state.decision != R.MINE_TRASH:
            skipped.append(R.MINE_TRASH)  # Mine found no Treasure in hand to trash
        # A buy goes on after a buy with Buys left, and passing the action question is the player's
        # own answer; any other way into the buy phase skipped the action question.
        buying_on = asked == R.BUY and state.player == player
        if not buying_on and not (asked == R.ACTION and card == R.PASS) and self._action_skipped():
            skipped.append(R.ACTION)
        return skipped

    def _action_skipped(self) -> bool:
        """Whether the engine has just gone into the buy phase past an action question it skipped
        for want of an Action card in hand only, which is hidden: with Actions left, cards in hand,
        and an Action card owned outside play (all public)."""
        state = self._game()
        if state.decision != R.BUY or state.actions <= 0:
            return False
        p = state.player
        owned, in_play = state.owned[p], state.in_play[p]
        if state.hand_size(p) + sum(in_play[t] for t in R.TREASURES) == 0:
            return False
        return any(owned[c] > in_play[c] for c in R.ACTION_CARDS)

    def _forced_card(self) -> str:
        return {R.MOAT_REVEAL: "Moat", R.MINE_TRASH: "Treasure"}.get(self.forced_question, "Action card")

    def vp_margin(self, seat: int) -> int:
        """The seat's VP minus the best VP among the other players."""
        state = self._game()
        return state.vp(seat) - max(state.vp(p) for p in range(state.num_players) if p != seat)

    def returns(self) -> list[float]:
        state = self._game()
        ended = state.done and not state.truncated
        results = state.results() if ended else [0] * self.num_seats
        if not self.vp_shaping:
            return [float(r) for r in results]
        return [r + self.vp_shaping * self.vp_margin(p) for p, r in enumerate(results)]

    def render(self, seat: int | None = None) -> str:
        text = self._shown().describe(viewer=seat)
        if self.forced_question is not None:
            # The question's usual answers, less the card the hand lacks.
            head, sep, _ = text.rpartition("\nlegal: ")
            if sep:
                text = f"{head}{sep}pass"
        return text

    def picture(self, seat: int) -> Any:
        """What ``seat`` sees as a picture (``tabletop_gym.render.Picture``), from its observation."""
        from tabletop_gym.envs.dominion.draw import draw

        return draw(self.observe(seat), self.kingdom, self.num_seats)

    def act(self, seat: int, agent: Agent) -> int:
        """A rule bot chooses from the engine's view of its seat (what that player may know, read
        live), as in the bots' own games; any other Agent from the seat's observation and info."""
        if isinstance(agent, DominionBot):
            if self.forced_question is not None:
                return R.PASS  # the only answer; the bot's view shows the engine, past the question
            return agent.choose(self._views[seat])
        return super().act(seat, agent)

    def hidden_twins(self, seat: int, rng: np.random.Generator) -> list[DominionTable]:
        """Copies of this table that differ only in what ``seat`` may not know (``hidden_changes``):
        its observation and info are the same at this position in each."""
        state = self._game()
        if state.done:
            return []
        twins = []
        for change in hidden_changes(state, seat, rng):
            twin = copy.deepcopy(self)
            change(twin.state)
            twins.append(twin)
        return twins

"""War's move oracle: what each order of player 0's pots is worth, from any position reached in play.

Player 1 follows a fixed convention and player 0 sees both piles (the full observation), so the best
result from a position is a one-player search from it, the same searches ``solve`` runs from a deal:
the whole-game search (``search``: a win, a draw or a loss, within the trick limit) or, with a
horizon, the horizon search (``horizon``: the most cards held when the episode stops). A position
reached in play is mapped onto a search from that state: player 0's pile as it lies, the cards of the
pot it is picking up still to place as one unordered block (their order is what player 0 still
chooses, so the search branches on it lazily, as on any pot it takes), player 1's pile, and the tricks
already played (the search plays only those left before the trick limit or the horizon). Each answer's
plan is replayed by the engine from the position before it is reported.

Values are in the episode's score: the result (+1, 0, -1) of the whole game, or the cards held at the
horizon. Before the end the whole game has scored nothing, so its values are what is still to gain;
with a horizon the environment pays the change in cards held at every step, which differs from these
values by the cards held now, the same for every move: a move's loss (the difference) is the same
either way, and the losses of a game add up to the deal's optimum minus the score.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabletop_gym.core import GameOverError, IllegalActionError, MoveValues, NoMoveOracleError, check_int
from tabletop_gym.envs.war.rules import DEFAULT_RULES, Deal, WarGame, WarRules, parse_deal, replay
from tabletop_gym.envs.war.table import episode_rules
from tabletop_gym.oracles.war import horizon as horizon_search
from tabletop_gym.oracles.war import search
from tabletop_gym.oracles.war.limits import MAX_SEARCH_HORIZON


class WarMoves:
    """The move oracle of one deal (``tabletop_gym.core.MoveOracle``) for player 0 against player 1's
    fixed convention: the best score still to be had and every legal pot card's value at any position
    reached in play.

    ``horizon``: None for the whole game, else the tricks after which the episode stops.
    ``max_positions``: the budget of each search (one per legal move of a position valued); a search
    past it raises ``SearchBudgetError`` rather than give a value it has not proven.
    """

    def __init__(
        self,
        deal: Deal | str,
        rules: WarRules = DEFAULT_RULES,
        horizon: int | None = None,
        max_positions: int = 2_000_000,
    ) -> None:
        if not rules.deterministic:
            raise NoMoveOracleError(
                "War's move values need player 1 on a fixed pickup convention: under 'random' the best "
                "order depends on pickups still to be drawn, which no search here proves"
            )
        if horizon is not None:
            horizon = check_int("horizon", horizon, 1, MAX_SEARCH_HORIZON)
        self.max_positions = check_int("max_positions", max_positions, 1)
        self.rules = rules
        self.horizon = horizon
        self.engine_rules = episode_rules(rules, horizon)  # the engine stops the episode at the horizon
        self._deal = parse_deal(deal, rules)
        self.deal = str(self._deal)
        start = WarGame(self._deal, self.engine_rules, controlled=0)
        self._last: tuple[tuple[int, ...], WarGame] = ((), start)
        # The last plan given, from the position it was given at: a plan that lasts to the trick limit
        # (a drawn whole game: thousands of tricks) is not played out again at every decision of it.
        self._plan: tuple[WarGame, tuple[int, ...]] | None = None
        self._horizon = (
            None
            if horizon is None
            else horizon_search.HorizonSearch(rules, self.engine_rules.max_tricks, self.max_positions)
        )

    def at(self, history: Sequence[int]) -> MoveValues:
        """The values after ``history`` (player 0's pot cards from the deal's start, as the
        environment takes them)."""
        history = tuple(int(rank) for rank in history)
        try:
            # A game is reviewed decision by decision: the last position asked goes on, where the
            # history does, rather than replaying thousands of tricks from the deal again.
            last_history, last_game = self._last
            if history[: len(last_history)] == last_history:
                game = last_game.copy()
                for rank in history[len(last_history) :]:
                    game.apply(rank)
            else:
                game = replay(self.engine_rules, self._deal, history)
        except (IllegalActionError, GameOverError) as error:
            raise ValueError(f"not a play of {self.deal}: {error}") from None
        self._last = history, game.copy()
        return self.at_game(game)

    def at_game(self, game: WarGame) -> MoveValues:
        """The values at an engine position of this deal (``env.unwrapped.game``)."""
        if str(game.deal) != self.deal or game.rules != self.engine_rules:
            raise ValueError(
                f"the position is of deal {game.deal} under {game.rules.variant}, not of {self.deal} "
                f"under {self.engine_rules.variant}"
            )
        if game.done:
            raise ValueError("the game is over: no move is left to value")
        if not game.awaiting or game.to_move != 0:
            raise ValueError("player 0 has no pot to order here: no move to value")
        values: dict[int, int] = {}
        lines: dict[int, tuple[WarGame, object]] = {}
        for rank in game.legal_actions():
            after = game.copy()
            after.apply(rank)
            values[rank], line = self._search(after)
            lines[rank] = after, line
        best = max(values, key=values.__getitem__)
        optimum = values[best]
        plan = self._continued(game, optimum, values)
        if plan is None:
            # Only the best move's line is played out: a drawn whole game's line lasts to the trick
            # limit, and the engine's replay of it is what such a value costs.
            after, line = lines[best]
            plan = (best,) + self._play(after, line)
            if not after.done or self._score(after) != optimum:
                raise AssertionError(
                    f"move oracle claims {optimum} from {game.choices} of {self.deal}, its plan ends "
                    f"{'with ' + str(self._score(after)) if after.done else 'before the game does'}"
                )
        self._plan = game.copy(), plan
        return MoveValues(float(optimum), {r: float(v) for r, v in values.items()}, plan)

    def _continued(self, game: WarGame, optimum: int, values: dict[int, int]) -> tuple[int, ...] | None:
        """The rest of the last plan where ``game`` is the position its first decision led to and that
        rest still scores ``optimum``: the engine has played it from here already (as the tail of the
        last plan's replay), so it is not played again. None otherwise."""
        if self._plan is None:
            return None
        before, plan = self._plan
        if len(plan) < 2 or game.choices != before.choices + [plan[0]] or values.get(plan[1]) != optimum:
            return None
        return plan[1:]

    def _score(self, game: WarGame) -> int:
        """The episode's score of a finished game: the result, or the cards held at the horizon."""
        return game.outcome(0) if self.horizon is None else game.state.horizon_cards(0)

    def _search(self, game: WarGame) -> tuple[int, object]:
        """(the best score from ``game``'s position, player 0 to choose or the game over; the line that
        gets it, for :meth:`_play`): the search from that state."""
        if game.done:
            return self._score(game), None
        if self._horizon is not None:
            return self._horizon.best_from(game)
        left = self.engine_rules.max_tricks - game.state.tricks
        if left == 0:
            # The game stops after this pickup, whatever its order (a pile empty would have left
            # player 0 no choice): a draw.
            return 0, None
        graph = search.PositionGraph(
            self._deal, self.engine_rules.replace(max_tricks=left), self.max_positions, search.root_of(game)
        )
        value, steps = search.best_line(graph)
        if steps is None:  # every line loses: any play does
            return value, None
        pot = tuple(sorted(game.state.to_place.elements()))
        return value, search.orders_from(game.state.piles[0], pot, steps)

    def _play(self, game: WarGame, line: object) -> tuple[int, ...]:
        """Player 0's decisions of ``line`` (pot orders, or None for any play), played by the engine on
        ``game`` itself, which is left where they lead."""
        if line is None:
            start = len(game.choices)
            while not game.done:
                game.apply(game.legal_actions()[0])
            return tuple(game.choices[start:])
        return tuple(search.play_orders(game, line))  # type: ignore[arg-type]


def replay_from(game: WarGame, plan: Sequence[int]) -> WarGame:
    """The finished game after ``plan`` (player 0's decisions) from ``game``'s position (left as it
    is), played by the engine; raises if the plan is illegal or stops before the game ends."""
    game = game.copy()
    for rank in plan:
        game.apply(rank)
    if not game.done:
        raise ValueError(f"the plan stops after {game.state.tricks} tricks, before the game ends")
    return game

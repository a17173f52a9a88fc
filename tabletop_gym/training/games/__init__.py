"""What the command line needs to know about each game, one module per game in this package.

Each module defines ``SPEC = GameSpec(...)``; modules are found automatically, so adding a game
never edits a shared list.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tabletop_gym.agents.base import Agent
from tabletop_gym.core import OracleResult
from tabletop_gym.suites.definitions import SuiteDefinition, split_id


def _no_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    return None


def _no_figures(
    scores: Sequence[float], results: Sequence[OracleResult | None], infos: Sequence[dict[str, Any]]
) -> dict[str, float]:
    return {}


# Defaults of the native-vector trainer (a game's GameSpec.vector_ppo and the command line override them):
# many games a batch, big minibatches, and a small network, so that the network's work per environment
# step stays near the environment's own (see docs/training.md for the measurements behind them).
DEFAULT_VECTOR_PPO: dict[str, Any] = {
    "n_envs": 256,
    "n_steps": 32,
    "batch_size": 2048,
    "n_epochs": 4,
    "learning_rate": 1e-3,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "net_arch": [64, 64],
}


# ``baselines --budget``: ``small`` the budgets of the first published table (a quick look, CI), ``large``
# at least this many times more, the budget that asks whether PPO closes the gap to the optimum.
BUDGETS = ("small", "large")
LARGE_FACTOR = 100


@dataclass(frozen=True)
class Baseline:
    """How ``tabletop-gym baselines`` trains and plays a game.

    - ``suite``: the suite id the game is benchmarked on (the environment its demo trains on).
    - ``steps``: environment steps per training run (``--steps`` overrides it for every game).
    - ``training_aids``: environment options that shape training's reward but change neither the
      deals nor the scores (options the environment lists in ``PRESENTATION_OPTIONS``); evaluation
      plays without them.
    - ``episodes``: deals of ``suite`` played where the whole suite costs too much to play; None
      plays them all (``--episodes`` overrides it).
    - ``column``: where the game's column stands in the default table (the games in the order they
      joined the benchmark, which the published table keeps).
    - ``large_steps``, ``large_suite``: the ``large`` budget (``baselines --budget large``): its steps
      (None: ``LARGE_FACTOR`` times ``steps``) and its suite (None: ``suite``), the suite at its target
      size where the small budget's was cut. Both budgets play ``episodes`` deals.
    """

    suite: str
    steps: int
    training_aids: dict[str, Any] = field(default_factory=dict)
    episodes: int | None = None
    column: int = 0
    large_steps: int | None = None
    large_suite: str | None = None

    def budget(self, name: str) -> tuple[str, int, int | None]:
        """(suite, steps, deals played or None for all) of the budget ``name`` (``BUDGETS``)."""
        if name == "small":
            return self.suite, self.steps, self.episodes
        if name == "large":
            steps = self.large_steps if self.large_steps is not None else LARGE_FACTOR * self.steps
            return self.large_suite or self.suite, steps, self.episodes
        raise ValueError(f"budget {name!r}: expected one of {', '.join(BUDGETS)}")


@dataclass(frozen=True)
class SelfPlay:
    """How ``train --self-play`` seats a game's players (the learner in one seat, any Agents in the
    others): the game owns these, the self-play loop reads them.

    - ``players(settings)``: the seats of the game the settings describe; it raises ValueError
      (one line) where those settings are not a game of several players (Dominion's solitaire).
    - ``seat_kwargs(settings, seat, others)``: keyword arguments of the game's environment (the one
      ``GameSpec.environment`` selects) with the learner in ``seat`` and ``others`` (Agents, in seat
      order) in the other seats.
    - ``win_share(env, info)``: the learner's share of the win in the finished episode of ``env`` (its
      unwrapped environment; ``info`` its last): 1 alone on top, 1/k when k seats share it, else 0.
    - ``strongest_bot``: the name (in ``GameSpec.agents``) of the bot the learning curve is measured
      against, the strongest the game has.
    - ``any_seat``: whether the environment can seat the learner elsewhere than first (``seat=``).
    """

    players: Callable[[Any], int]
    seat_kwargs: Callable[[Any, int, list[Any]], dict[str, Any]]
    win_share: Callable[[Any, dict[str, Any]], float]
    strongest_bot: str
    any_seat: bool = True


@dataclass(frozen=True)
class MoveReview:
    """How ``evaluate --moves`` and ``play --review`` value a game's moves.

    - ``oracle(settings)``: a function of a deal string that makes the deal's move oracle
      (``tabletop_gym.core.MoveOracle``); it raises ``NoMoveOracleError`` where these
      settings have no oracle that proves each move's value.
    - ``blunder``: the loss (in the game's points) above which a decision counts as a blunder, unless
      ``--blunder`` says otherwise.
    - ``suite_optimum``: whether the move oracle's optimum is the one the game's suites store, so that
      a proven suite entry must equal it (the default); False where it is another optimum, never
      above the suites' bound (Modern Art's, against the environment's bots, under the optimum with
      every player helping the seat that its suites store).
    """

    oracle: Callable[[Any], Callable[[str], Any]]
    blunder: float
    suite_optimum: bool = True


@dataclass(frozen=True)
class GameSpec:
    """A game as the command line sees it.

    - ``settings(values)``: the game's typed settings (frozen dataclasses of its rules, its
      environment's options and its oracle's limits) from values by field name: a command's parsed
      arguments (``vars(args)``, other names ignored) or a suite's stored settings. Every callback
      below that takes ``settings`` receives what this returns; :meth:`read` is how the shared
      commands call it, once, at the edge.

    - ``agents``: named agent factories (``"random"``, ``"greedy"``...), each taking the
      settings.
    - ``env_kwargs(settings)``: keyword arguments for ``gym.make(env_id, ...)``.
    - ``oracle(deal, settings)``: the (cached) oracle result for a deal string, or None if the game has
      no per-deal oracle; evaluation divides scores by ``result.bound``.
    - ``add_arguments(parser, command)``: game options for a sub-command (``solve``, ``evaluate``...).
    - ``figures(scores, results, infos)``: game-specific evaluation figures (e.g. share reaching 61,
      win rate from the seats' scores), from each episode's score, oracle result and final info.
      Figures named ``share_*`` appear as percentage columns in the table.
    - ``commands``: the game's implementation of ``play``, ``bench`` and any other sub-command
      (``tournament``, ``stats``), each ``fn(args) -> int`` (exit status).
    - ``ppo``: MaskablePPO settings that suit the game (override the defaults of ``train``).
    - ``vector_ppo``: the same for the vector trainer (the game's native vector environment), over
      ``DEFAULT_VECTOR_PPO``; ``n_envs`` among them.
    - ``vector_trainer``: ``train`` uses the vector trainer unless told (``--trainer``): set where its
      learning has been checked against MaskablePPO's at the same budget (Cribbage); elsewhere it is
      there to choose, and ``sb3`` stays the default.
    - ``env_id_for(settings)``: for a game with several environments, the one the command line asked
      for (e.g. Dominion's versus game with ``--opponents``); ``env_id`` otherwise.
    - ``demo``: argument defaults of ``tabletop-gym demo <game>`` (``steps``, ``episodes`` and game
      options): settings the game's oracle serves within a demo's time, stated in the README.
    - ``policy``: the stable-baselines3 policy for ``train``; None chooses from the observation
      space (``MultiInputPolicy`` for a ``Dict``, ``MlpPolicy`` otherwise).
    - ``references(settings)``: values of the settings that ``evaluate`` divides each agent's mean
      score by, beside the per-deal oracle (Nmbr9: the expected value of the best policy that does
      not see the cards to come); an empty dict where there are none.
    - ``ratio_name(settings)``: what ``evaluate``'s per-deal ratio divides by what (``score_ratio``),
      for the axis of its plot and the report, with ``{best}`` where the oracle's optimum (or bound)
      goes: "fewest turns ({best}) / turns taken", not "minus turns / optimum".
    - ``worst_score(settings)``: where a deal's score can be below 0, the worst score of any deal (War's
      whole game: -1, a loss), the zero of ``evaluate``'s score/optimum scale; None where the plain
      ratio applies.
    - ``oracle_agent``: whether the oracle's plan can play the environment as the agent named
      ``oracle``; False where the plan chooses every player's moves (Modern Art: the most the seat
      gets when everyone plays for it), which the environment's bots do not follow.
    - ``oracle_ignores``: options of ``solve`` that the per-deal oracle never reads (Nmbr9's
      ``--max-positions`` and ``--no-hindsight`` serve ``--unknown`` only): left out of the settings
      each line of ``solve --deals`` answers, so changing them does not make a results file foreign.
    - ``suites``: the game's certified suite definitions (``tabletop-gym suite build NAME-vN``), each
      named after the game (``war``, ``war-r6s2``) so that a suite id says which game defines it.
    - ``baseline``: how ``tabletop-gym baselines`` trains and plays the game; None leaves it out of
      the default table.
    - ``self_play``: how ``train --self-play`` seats the game's players; None for one-player games.
    - ``moves``: how ``evaluate --moves`` values every decision; None where no oracle of the game proves
      the optimum from every position.
    - ``best_policy(settings)``: the best policy of what the seat sees, as ``train --teacher policy``
      follows it (Nmbr9's expectimax ``optimal-policy`` on small variants): an agent that also has
      ``move_values(observation, info)`` (each legal move's exact expected value), ``follow(observation,
      info, action)`` (a move another player chose) and ``expected`` (the settings' expected value);
      it raises ``TabletopError`` for settings it does not cover. None where the package computes none.
    - ``symmetry(observations, masks, rng)``: the same positions relabelled at random in a way the rules
      cannot tell apart (Cribbage: the order of the piles), with their per-action ``masks`` alike;
      ``train --teacher`` trains on them unless ``--no-symmetry``. None where the game has none.
    """

    name: str
    env_id: str
    agents: dict[str, Callable[[Any], Agent]]
    oracle: Callable[[str, Any], OracleResult] | None = None
    env_kwargs: Callable[[Any], dict[str, Any]] = lambda settings: {}
    add_arguments: Callable[[argparse.ArgumentParser, str], None] = _no_arguments
    figures: Callable[
        [Sequence[float], Sequence[OracleResult | None], Sequence[dict[str, Any]]], dict[str, float]
    ] = _no_figures
    commands: dict[str, Callable[[argparse.Namespace], int]] = field(default_factory=dict)
    ratio_name: Callable[[Any], str] = lambda settings: "score / {best}"
    ppo: dict[str, Any] = field(default_factory=dict)
    vector_ppo: dict[str, Any] = field(default_factory=dict)
    vector_trainer: bool = False
    env_id_for: Callable[[Any], str] | None = None
    demo: dict[str, Any] = field(default_factory=dict)
    policy: str | None = None
    references: Callable[[Any], dict[str, float]] | None = None
    worst_score: Callable[[Any], float | None] | None = None
    oracle_agent: bool = True
    oracle_ignores: frozenset[str] = frozenset()
    # Required: every game's callbacks take typed settings, never the parsed-argument namespace.
    settings: Callable[[Mapping[str, Any]], Any] = field(kw_only=True)
    suites: tuple[SuiteDefinition, ...] = ()
    baseline: Baseline | None = None
    self_play: SelfPlay | None = None
    moves: MoveReview | None = None
    best_policy: Callable[[Any], Any] | None = None
    symmetry: Callable[[Any, Sequence[Any], Any], tuple[Any, list[Any]]] | None = None

    def __post_init__(self) -> None:
        # A suite id names its game (``definition`` finds a suite by it, importing that game only).
        names = [suite.name for suite in self.suites]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name} defines a suite name twice: {names}")
        for suite in self.suites:
            if suite.game != self.name or suite_game(suite.name) != self.name:
                raise ValueError(f"suite {suite.name!r} ({suite.game}) is not named after game {self.name!r}")
        if self.baseline is not None:
            for suite_id in {self.baseline.budget(budget)[0] for budget in BUDGETS}:
                name, _ = split_id(suite_id)
                if name not in {suite.name for suite in self.suites}:
                    raise ValueError(f"baseline suite {suite_id} is none of {self.name}'s suites")

    def read(self, args: argparse.Namespace | Mapping[str, Any]) -> Any:
        """The game's settings from parsed arguments (or values by field name)."""
        return self.settings(vars(args) if isinstance(args, argparse.Namespace) else args)

    def agent_names(self) -> list[str]:
        """Every agent name ``evaluate --agent`` accepts for this game (a trained model's path aside):
        the game's own agents, then ``oracle`` where its plan can play as an agent. The help text and
        the error for an unknown name both read this list, so neither can drift from what is accepted.
        (``pretrained``, the agent shipped for the environment's id, plays its id's default settings
        only: the help names it apart.)"""
        return list(self.agents) + (["oracle"] if self.oracle is not None and self.oracle_agent else [])

    def environment(self, settings: Any) -> tuple[str, dict[str, Any]]:
        """The environment id and keyword arguments that the settings (from :meth:`read`) select."""
        env_id = self.env_id_for(settings) if self.env_id_for is not None else self.env_id
        return env_id, self.env_kwargs(settings)


def suite_game(name: str) -> str:
    """The game a suite name (or id) belongs to: the name up to its first dash."""
    return name.split("-", 1)[0]


def game_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def get_game(name: str) -> GameSpec:
    names = game_names()
    if name not in names:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(names)}")
    return importlib.import_module(f"{__name__}.{name}").SPEC

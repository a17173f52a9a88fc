"""War on the command line: solve, play, evaluate, train, bench and stats."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.war import ConventionAgent, GreedyAgent
from tabletop_gym.core import InvalidDealError, OracleCache, OracleResult, quote_input
from tabletop_gym.envs.war import ENV_ID
from tabletop_gym.envs.war.env import OBSERVATIONS, WarEnv
from tabletop_gym.envs.war.rules import (
    DETERMINISTIC_PICKUPS,
    MAX_TRICKS_LIMIT,
    RANK_CHARS,
    WarRules,
    random_deal,
)
from tabletop_gym.oracles.war.limits import (
    MAX_MODEL_TRICKS,
    MAX_MODEL_TURNS,
    MAX_SEARCH_HORIZON,
    POSITIONS_PER_SECOND,
    WarLimits,
)
from tabletop_gym.settings import as_dict, given, option
from tabletop_gym.suites.definitions import SuiteDefinition
from tabletop_gym.suites.storage import normal
from tabletop_gym.training import ratings
from tabletop_gym.training.arguments import (
    WORK_LIMIT_NOTE,
    add_options,
    int_arg,
    nonempty,
    path_arg,
    seed_arg,
)
from tabletop_gym.training.bench import (
    add_vector_arguments,
    env_steps_per_second,
    vector_bench_command,
    write_report,
)
from tabletop_gym.training.games import Baseline, GameSpec, MoveReview, SelfPlay
from tabletop_gym.training.pictures import draw_if_asked, refuse_draw
from tabletop_gym.training.players import SeatedAgent, check_entry, load_players, split_entries
from tabletop_gym.training.ratings import Outcome, places_from_scores
from tabletop_gym.training.terminal import QUIT_WORDS, ask

EXACT_LIMIT = 20
"""Cards: above this the whole-game search is not offered by default (``--force-exact``). Up to 20
cards it answers in about a second at most (12 cards: 200 deals in 0.5 s in all); at 26 most deals
take under a second but some pass its budget (``--time-limit`` x ``limits.POSITIONS_PER_SECOND``
positions, 1.8 million at the default 60)."""
MAX_GAMES = 1_000_000  # simulated games of one stats or bench run: their decks are held in memory
MAX_DEALS = 10_000  # deals of one bench timing
# The native vector environment's bench: 4,096 games a batch keep the per-call cost of Python (the actions,
# the returned arrays) small beside the kernel's work; 10^7 steps show memory flat.
VECTOR_ENVS = 4096
# Threads of the vector bench's step: every core numba has by default (NUMBA_NUM_THREADS, the CPUs).
MAX_VECTOR_THREADS = 1024
# Settings of `tabletop-gym demo war`: a 12-card deck (6 ranks x 2 suits, other rules as default),
# where the exact whole-game search answers each deal in milliseconds (200 seeded deals in 0.5 s in
# all), so every demo deal is proven. Measured on the shared 2-core machine: 100,000 steps train in
# about 30 s and the whole demo takes about a minute and a half (most of the evaluation is spent on
# games that cycle until max_tricks).
DEMO = {"ranks": 6, "suits": 2, "steps": 100_000, "episodes": 200}


@dataclass(frozen=True)
class WarSettings:
    """What War's commands and callbacks need: the rules, the oracle's limits, and the environment's
    and commands' options that are neither (``horizon``: its range differs by command, so its flag is
    written by hand; ``cache``: a folder, not a limit of the answer)."""

    rules: WarRules = field(default_factory=WarRules)
    limits: WarLimits = field(default_factory=WarLimits)
    horizon: int | None = None
    observation: str = option(
        OBSERVATIONS[0],
        "what player 0 sees: both piles in order (full) or what a real player knows (hidden)",
        choices=OBSERVATIONS,
    )
    cache: Path | None = None
    # Player 1 as ``--opponents`` names it (``training.players``): a bot or a trained model. A pickup
    # convention there is the rules' ``pickup`` (the oracles' opponent), so this holds any other.
    opponents: str | None = None


def _settings(values: Mapping[str, Any]) -> WarSettings:
    """War's settings from values by field name (a command's parsed arguments, a suite's stored
    settings); other names are ignored, missing ones take their defaults. ``--opponents`` naming a
    pickup convention is ``--pickup`` by another name."""
    own = given(WarSettings, values, skip=("rules", "limits"))
    rules = given(WarRules, values)
    opponent = own.get("opponents")
    if opponent is not None:
        (opponent,) = split_entries(opponent)
        if opponent in DETERMINISTIC_PICKUPS:
            rules["pickup"], opponent = opponent, None
        own["opponents"] = opponent
    limits = WarLimits(**given(WarLimits, values))
    return WarSettings(rules=WarRules(**rules), limits=limits, **own)


def _table(env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """What decides the game at a table (for a model's seat): the rules but player 1's convention
    (an opponent, as an agent in that seat is), and not who sits there."""
    return {k: v for k, v in env_kwargs.items() if k not in ("opponent", "pickup")}


def _env_kwargs(settings: WarSettings) -> dict[str, Any]:
    kwargs = {**as_dict(settings.rules), "observation": settings.observation, "horizon": settings.horizon}
    if settings.opponents is not None:
        table = dict(kwargs)
        (agent,) = load_players(SPEC, [settings.opponents], settings, ENV_ID, table, lambda: WarEnv(**table),
                                _table)
        kwargs["opponent"] = SeatedAgent(settings.opponents, agent)
    return kwargs


def _opponent_arg(text: str) -> str:
    """An argparse type: player 1, one bot or a trained model's path."""
    try:
        entries = split_entries(nonempty(text))
        if len(entries) != 1:
            raise ValueError(f"War has one opponent (player 1), got {len(entries)}: {quote_input(text)}")
        check_entry(SPEC, entries[0], exists=False)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return entries[0]


def _players_arg(text: str) -> str:
    """An argparse type: the players of a rated round robin, at least 2."""
    try:
        entries = split_entries(nonempty(text))
        for entry in entries:
            check_entry(SPEC, entry, exists=False)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if len(entries) < 2:
        raise argparse.ArgumentTypeError(f"a round robin needs at least 2 players, got {quote_input(text)}")
    return ",".join(entries)


def _tournament(args: argparse.Namespace) -> int:
    """The round robin of ``training.ratings``: every pair of the listed players, each in both seats,
    the same deals for every pair; the whole game (a win, a draw at the trick limit, a loss)."""
    names = args.players.split(",")
    settings = _settings({**vars(args), "opponents": None})
    table = {**_env_kwargs(settings), "horizon": None}

    def make_agents() -> list[Any]:
        return load_players(SPEC, names, settings, ENV_ID, table, lambda: WarEnv(**table), _table)

    # The seed's deal as the environment without an opponent agent draws it: with one, a deal that
    # leaves player 0 no decision is skipped by what player 1 chose, which differs between seatings.
    dealer = WarEnv(**table, reveal_deal=True)

    def play(agents: Sequence[Any], seed: int) -> Outcome | None:
        env = WarEnv(opponent=agents[1], **table)
        try:
            observation, info = env.reset(seed=seed, options={"deal": dealer.reset(seed=seed)[1]["deal"]})
        except InvalidDealError:  # this opponent leaves player 0 no decision on it: dropped everywhere
            return None
        done = False
        while not done:
            observation, _, terminated, truncated, info = env.step(agents[0].act(observation, info))
            done = terminated or truncated
        result = float(info["score"])  # player 0's: 1 a win, 0 a draw, -1 a loss
        return Outcome(places_from_scores([result, -result]), [result, -result], info["deal"])

    return ratings.run("war", names, make_agents, play, 2, args.games, args.seed, args.out,
                       not args.no_progress, normal(table))


def _oracle(deal: str, settings: WarSettings) -> OracleResult | None:
    """With ``--horizon T``: the most cards after T tricks; else the best result of the whole game
    (small decks only). None where player 1 is an agent (``--opponents``): the oracles assume its
    convention, so their answers would bound nothing."""
    from tabletop_gym.oracles.war import horizon, search

    if settings.opponents is not None:
        return None
    rules, limits = settings.rules, settings.limits
    cache = OracleCache(settings.cache) if settings.cache is not None else None
    tricks = settings.horizon
    if tricks is not None:
        if limits.method == "search":
            return horizon.solve_horizon_cached(deal, tricks, rules, cache)
        return _cpsat_cached(deal, tricks, rules, cache, limits.method, limits.time_limit)
    if rules.num_cards > EXACT_LIMIT and not limits.force_exact:
        raise ValueError(
            f"exact whole-game search is for decks of at most {EXACT_LIMIT} cards ({rules.num_cards} here): "
            "use --horizon T, smaller --ranks/--suits, or --force-exact"
        )
    # The whole-game search's budget is the same work limit, in positions at a fixed rate.
    time_limit = limits.time_limit
    budget = max(1, int(time_limit * POSITIONS_PER_SECOND))
    try:
        return search.solve_cached(deal, rules, cache, max_positions=budget)
    except search.SearchBudgetError as error:
        raise search.SearchBudgetError(
            f"{error} (--time-limit {time_limit:g}); raise --time-limit, or use --horizon T"
        ) from None


def _move_oracle(settings: WarSettings) -> Any:
    """War's move oracle for a deal string, where the search proves the best result from every
    position: player 1 on its fixed convention, player 0 seeing both piles (the full observation),
    and a deck the whole-game search covers (or a horizon). Each search has the oracle's work limit
    in positions, as ``solve`` does."""
    from tabletop_gym.core import NoMoveOracleError
    from tabletop_gym.oracles.war.moves import WarMoves

    rules, limits = settings.rules, settings.limits
    if settings.opponents is not None:
        raise NoMoveOracleError(
            "War's move values assume player 1's pickup convention: with an --opponents agent they "
            "would value nothing; leave --opponents out (or name a convention)"
        )
    if settings.observation != "full":
        raise NoMoveOracleError(
            "War's move values are for the full observation, where player 0 sees both piles: under the "
            "hidden one the best order depends on cards the seat has not seen, which a search of the "
            "whole deal would use (--observation full)"
        )
    if not rules.deterministic:
        raise NoMoveOracleError(
            "War's move values need player 1 on a fixed pickup convention (--pickup winner_first, "
            "loser_first or high_first), not 'random'"
        )
    if settings.horizon is None and rules.num_cards > EXACT_LIMIT and not limits.force_exact:
        raise NoMoveOracleError(
            f"War's move values of the whole game need the exact search, for decks of at most {EXACT_LIMIT} "
            f"cards ({rules.num_cards} here): use --horizon T, smaller --ranks/--suits, or --force-exact"
        )
    budget = max(1, int(limits.time_limit * POSITIONS_PER_SECOND))
    return lambda deal: WarMoves(deal, rules, settings.horizon, max_positions=budget)


def _cpsat_cached(
    deal: str, tricks: int, rules: WarRules, cache: OracleCache | None, method: str, time_limit: float
) -> OracleResult:
    """The horizon answer by CP-SAT (``cpsat``) or by the search within a position budget, then
    CP-SAT (``auto``); cached per method and time limit, since a time-limited answer may have a gap.
    The limit is work (``w`` in the key): answers made under the earlier wall-clock limits (``s``)
    are not taken for what this limit gives."""
    from tabletop_gym.envs.war.rules import parse_deal
    from tabletop_gym.oracles.war.horizon import check_horizon
    from tabletop_gym.oracles.war.search import GAME

    parsed = parse_deal(deal, rules)

    def compute() -> OracleResult:
        from tabletop_gym.oracles.war import cpsat  # OR-Tools, only when the cache has no answer

        solve = cpsat.solve_horizon_cpsat if method == "cpsat" else cpsat.solve_horizon_best
        return solve(parsed, tricks, rules, time_limit=time_limit)

    cache = cache if cache is not None else OracleCache()
    return cache.solve(
        GAME,
        f"horizon{tricks}-{method}{time_limit:g}w-{rules.variant}",
        str(parsed),
        compute,
        lambda r: check_horizon(parsed, tricks, rules, r),
    )


def _pattern_arg(text: str) -> str:
    """An argparse type for ``--find-pattern``: a trick pattern the CP-SAT model can hold."""
    from tabletop_gym.oracles.war.cpsat import parse_pattern

    try:
        parse_pattern(nonempty(text))
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    add_options(parser, WarRules)
    if command in ("solve", "evaluate", "demo"):
        # These ask the horizon oracle, whose search covers at most MAX_SEARCH_HORIZON tricks.
        parser.add_argument(
            "--horizon",
            type=int_arg(1, MAX_SEARCH_HORIZON),
            default=None,
            help=f"score the cards held after T tricks, 1-{MAX_SEARCH_HORIZON} "
            f"(CP-SAT: at most {MAX_MODEL_TRICKS})",
        )
    elif command in ("train", "play"):
        parser.add_argument(
            "--horizon",
            type=int_arg(1, MAX_TRICKS_LIMIT),
            default=None,
            help="score the cards held after T tricks (at least 1)",
        )
    if command in ("evaluate", "train", "demo", "play", "tournament"):
        add_options(parser, WarSettings, only=["observation"])
    if command in ("evaluate", "train", "play"):
        parser.add_argument(
            "--opponents", type=_opponent_arg, default=None,
            help="player 1: a bot (random, greedy, or a pickup convention, which is --pickup), pretrained "
            "(the agent shipped for War-v0) or a trained model (a train output folder or model.zip) "
            "(default: the --pickup convention)",
        )
    if command == "tournament":
        parser.add_argument(
            "--players", type=_players_arg, required=True,
            help="comma-separated players, bots (random, greedy, the pickup conventions), pretrained or "
            "trained models (a train output folder or model.zip): every pair plays both seats, rated",
        )
        parser.add_argument(
            "--games", type=int_arg(1, MAX_GAMES), default=100, help="deals per seating (default 100)"
        )
        parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the first deal (default 0)")
        parser.add_argument("--out", type=path_arg, default=Path("runs/tournament"), help="output folder")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    if command in ("solve", "evaluate", "demo"):
        add_options(parser, WarLimits)
        parser.add_argument("--cache", type=path_arg, default=None, help="oracle cache folder")
    if command == "solve":
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--deal", type=nonempty, help="deal string P0/P1, top card first")
        which.add_argument(
            "--seed",
            type=seed_arg,
            default=None,
            help="without --deal: the deal the environment's reset(seed) plays",
        )
        which.add_argument(
            "--find-pattern",
            metavar="PATTERN",
            type=_pattern_arg,
            help=f"free deal (CP-SAT) whose first tricks (1-{MAX_MODEL_TRICKS}) follow PATTERN, one token "
            "a trick: '.', 'w' war, 'n' no war, then the taker 0 or 1, e.g. 'w,1'",
        )
        which.add_argument(
            "--most-wars",
            type=int_arg(1, MAX_MODEL_TRICKS),
            metavar="T",
            help=f"free deal (CP-SAT) with the most wars in T tricks, 1-{MAX_MODEL_TRICKS}",
        )
    if command == "play":
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--deal", type=nonempty, help="deal string P0/P1, top card first")
        which.add_argument(
            "--seed", type=seed_arg, default=None, help="without --deal: the seed of a random deal"
        )
        parser.add_argument(
            "--review",
            choices=REVIEWS,
            default=None,
            help="the oracle's word on your pot cards (full observation, player 1 on its convention): after "
            "each one that gave something away, or all of them at the end (what each lost, and the best "
            "card instead)",
        )
    if command == "bench":
        add_vector_arguments(parser, "war", VECTOR_ENVS, 10_000_000)
        parser.add_argument(
            "--vector-threads",
            type=int_arg(1, MAX_VECTOR_THREADS),
            default=None,
            help="with --vector: numba threads the step shares the games among, at most numba's "
            "(NUMBA_NUM_THREADS, the CPUs by default); default all of them. Where OpenMP runs them and "
            "OMP_WAIT_POLICY is unset, the bench sets it passive: spinning between steps halved the rate "
            "on the shared machine",
        )
        parser.add_argument(
            "--games",
            type=int_arg(1, MAX_GAMES),
            default=20_000,
            help="simulated games per timing (default 20000)",
        )
        parser.add_argument(
            "--deals", type=int_arg(1, MAX_DEALS), default=20, help="deals per horizon timing (default 20)"
        )
        parser.add_argument(
            "--cpsat-deals",
            type=int_arg(0, MAX_DEALS),
            default=5,
            help="seeded deals per CP-SAT timing, T=3 and T=26; 0 for none (default 5)",
        )
        bench_limit = {"time_limit": f"CP-SAT's work limit per deal, {WORK_LIMIT_NOTE}"}
        add_options(parser, WarLimits, only=["time_limit"], help=bench_limit)
        parser.add_argument(
            "--env-steps",
            type=int_arg(1, 10**8),
            default=20_000,
            help="environment steps for the speed figure (default 20000)",
        )
        parser.add_argument("--out", type=path_arg, default=Path("runs/bench"), help="folder for war.json")
    if command == "stats":
        parser.add_argument(
            "--games", type=int_arg(1, MAX_GAMES), default=10_000, help="games to simulate (default 10000)"
        )
        parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the decks (default 0)")
        parser.add_argument("--out", type=path_arg, default=Path("runs/stats"), help="folder for war.json")


def _figures(
    scores: list[float], results: list[OracleResult | None], infos: list[dict] | None = None
) -> dict[str, float]:
    """The share of deals whose oracle answer is proven optimal (a time-limited CP-SAT answer with a
    gap leaves only a bound)."""
    known = [r for r in results if r is not None]
    return {"share_oracle_proven": float(np.mean([r.optimal for r in known]))} if known else {}


def _deal_for(settings: WarSettings, deal: str | None, seed: int | None) -> str:
    """``--deal``, else the deal the environment plays for ``--seed`` (deals where player 0 never
    chooses are skipped there), so that ``solve`` answers for the deal ``evaluate`` plays."""
    from tabletop_gym.envs.war.env import WarEnv

    if deal is not None:
        from tabletop_gym.envs.war.rules import parse_deal

        return str(parse_deal(deal, settings.rules))  # checked before anything is printed
    env = WarEnv(**_env_kwargs(settings), reveal_deal=True)  # the hidden observation shows it only then
    return env.reset(seed=seed)[1]["deal"]


ENGINE_SIMULATION_TRICKS = 10_000
"""Up to this many tricks (the default ceiling) ``solve`` simulates its one game in the engine: a few
milliseconds, where loading the numba kernel costs a second. Past it the kernel, whose cycle
detection keeps no table of positions (the engine's keeps every position of the game)."""


def _simulation(deal: str, rules: WarRules) -> Any:
    """How ``deal`` ends with both players on ``rules.pickup`` (fixed conventions only): the engine's
    ``play_game`` and the kernel's ``simulate`` give the same game (the War oracle tests compare them)."""
    if rules.max_tricks > ENGINE_SIMULATION_TRICKS:
        from tabletop_gym.oracles.war import simulate

        return simulate(deal, rules)
    from tabletop_gym.envs.war.rules import parse_deal, play_game

    return play_game(parse_deal(deal, rules), rules)


def _solve_command(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)
    rules, method = settings.rules, settings.limits.method
    if settings.horizon is None and method != WarLimits.method:  # another method asks for the horizon oracle
        raise ValueError(f"--method {method} chooses the horizon oracle: it applies with --horizon only")
    if args.find_pattern is not None or args.most_wars is not None:
        refuse_draw(args, "--find-pattern and --most-wars find a deal, with no plan of pickups to draw")
        return _free_deal_command(settings, args.find_pattern, args.most_wars)
    deal = _deal_for(settings, args.deal, args.seed)
    print(f"deal       {deal}")
    if rules.deterministic:
        sim = _simulation(deal, rules)
        period = f", period {sim.cycle_period} from trick {sim.cycle_start}" if sim.cycle_period else ""
        who = {0: "player 0 wins", 1: "player 1 wins", -1: "draw"}[sim.winner]
        print(
            f"simulated  both on {rules.pickup}: {who} ({sim.end_reason}{period}) after {sim.tricks} tricks"
        )
    result = _oracle(deal, settings)
    plan = "".join(RANK_CHARS[r] for r in result.plan)
    if settings.horizon is not None:
        how = f"by {result.stats.get('method', 'search')}"
        if result.optimal:
            tricks = result.stats["horizon"]
            print(f"best       {result.score:g} cards after {tricks} tricks (proven optimal, {how})")
        else:
            print(
                f"best       {result.score:g} cards after {result.stats['horizon']} tricks; "
                f"proven bound {result.bound:g} ({how}, time limit reached)"
            )
    else:
        word = {1: "forced win", 0: "draw at best", -1: "forced loss"}[int(result.score)]
        print(f"best       {word} in {result.stats['tricks']} tricks (proven optimal)")
    print(f"plan       {plan or '(no decision matters)'}  (rank placed at each decision)")
    print(f"time       {result.seconds:.3f} s")
    draw_if_asked(args, lambda: _plan_picture(deal, result, settings))
    return 0


def _plan_picture(deal: str, result: OracleResult, settings: WarSettings) -> Any:
    from tabletop_gym.envs.war.draw import draw_plan

    return draw_plan(deal, result, settings.rules, settings.horizon)


def _free_deal_command(settings: WarSettings, pattern: str | None, most_wars: int | None) -> int:
    """``solve --find-pattern PATTERN`` or ``solve --most-wars T`` (the one not None)."""
    from tabletop_gym.oracles.war import cpsat, simulate

    rules, time_limit = settings.rules, settings.limits.time_limit
    if settings.horizon is not None:
        raise ValueError(
            "--find-pattern and --most-wars look for a deal with both players on --pickup over the "
            "tricks they name: they take no --horizon"
        )
    if pattern is not None:
        found = cpsat.find_deal_with_pattern(pattern, rules, time_limit=time_limit)
        tricks = len(cpsat.parse_pattern(pattern))
        print(f"pattern    {pattern}")
    else:
        assert most_wars is not None
        found = cpsat.find_deal_most_wars(most_wars, rules, time_limit=time_limit)
        tricks = most_wars
        print(f"most wars  {found.value} in {tricks} tricks ({_most_wars_proof(found)})")
    print(f"deal       {found.deal}")
    played = cpsat.trick_pattern(found.deal, rules, tricks)
    sim = simulate(found.deal, rules.replace(max_tricks=tricks))
    print(f"engine     {' '.join(played)}  (w/n: war or not, then the taker)")
    print(f"simulated  {sim.wars} wars in the first {sim.tricks} tricks")
    print(f"time       {found.seconds:.3f} s")
    return 0


def _most_wars_proof(found: Any) -> str:
    """Whether ``found.value`` (a ``cpsat.FreeDealResult`` of ``--most-wars``) is proven the most wars
    over deals without a short war (a war a player is short of cards for), and if not, why not.
    The solver's status is left out: it speaks of the last model, whose cap on wars may be all
    that stops its bound."""
    value, bound, cap = found.value, found.bound, found.stats.get("wars_cap")
    if bound is not None and bound <= value:
        return "proven the most: no deal without a short war has more"
    if bound is not None:
        return (
            f"not proven the most: the time limit was reached; no deal without a short war has more "
            f"than {bound}"
        )
    if cap is None:  # a result from elsewhere, without the model's figures
        return "not proven the most: more may be possible"
    if value >= cap:
        stop = (
            "the time limit was reached before a model with more wars answered"
            if found.stats.get("larger_model_fits", True)
            else f"a model with more wars would pass the {MAX_MODEL_TURNS} turns a model holds"
        )
        return (
            f"not proven the most: the model holds at most {cap} wars, this deal has {cap}, and {stop}; "
            "more may be possible"
        )
    return (
        f"not proven the most: the time limit was reached before {cap} wars or more (the most the model "
        "holds) were ruled out; more may be possible"
    )


def _rank_of(answer: str, alphabet: str) -> int | None:
    """The rank a person typed (``q`` or ``Q`` is a Queen, ``10`` a Ten), None if it is none."""
    text = answer.strip().upper()
    text = "T" if text == "10" else text
    return alphabet.index(text) if len(text) == 1 and text in alphabet else None


def _rank_list(ranks: list[int]) -> str:
    return ", ".join(RANK_CHARS[r] for r in ranks)


REVIEWS = ("each", "end")


def _play(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)
    review = getattr(args, "review", None)
    # Settings without proven move values are refused before the game starts.
    make_moves = _move_oracle(settings) if review is not None else None
    lost: list[str] = []
    status = _play_game(args, settings, make_moves, review, lost)
    if review == "end":
        lines = ["cards that gave something away:"] + lost if lost else ["every card you placed was best"]
        print("\n".join(lines))
    return status


def _loss_line(decision: int, rank: int, values: Any, horizon: int | None) -> str:
    """What a pot card gave away, and the best card instead, in the game's words."""
    unit = "result" if horizon is None else "cards"
    return (
        f"decision {decision}: {RANK_CHARS[rank]} lost {values.loss(rank):g} ({unit}): with it at best "
        f"{values.values[rank]:g}, with {RANK_CHARS[values.best]} {values.optimum:g}"
    )


def _play_game(
    args: argparse.Namespace, settings: WarSettings, make_moves: Any, review: str | None, lost: list[str]
) -> int:
    from tabletop_gym.envs.war.env import WarEnv, render_text

    # The deal is kept for the summary (replay, oracle); it is shown at the start only when the
    # observation shows both piles anyway.
    env = WarEnv(**_env_kwargs(settings), reveal_deal=True)
    options = {"deal": args.deal} if args.deal is not None else None
    _, info = env.reset(seed=args.seed, options=options)
    game = env.game
    assert game is not None
    moves = make_moves(info["deal"]) if make_moves is not None else None
    alphabet = env.rules.alphabet
    shown = f"deal {info['deal']}\n" if env.observation_mode == "full" else ""
    print(
        f"{shown}Player 1 puts the pots it wins under its pile by {env.rules.pickup}; you "
        f"choose your order, card by card. Type the rank to put under your pile next "
        f"({_rank_list(list(range(env.rules.ranks)))}; 10 for a Ten), or {' or '.join(QUIT_WORDS)} to stop.\n"
    )
    show = True  # the position is shown again after a move, not after a typo
    while True:
        if show:
            print(render_text(game, env.horizon))
        show = False
        answer = ask("rank> ")
        if answer is None:
            print(_play_summary(env, info, "input ended"))
            return 0
        if answer.lower() in QUIT_WORDS:
            print(_play_summary(env, info, "you stopped"))
            return 0
        rank = _rank_of(answer, alphabet)
        legal = game.legal_actions()
        if rank is None:
            other = _rank_of(answer, RANK_CHARS)
            why = (
                f"this deck has no {RANK_CHARS[other]}"
                if other is not None
                else f"{quote_input(answer)} is not a rank"
            )
            print(f"{why}; you can place {_rank_list(legal)}\n")
            continue
        if rank not in legal:
            print(f"the pot holds no {RANK_CHARS[rank]}; you can place {_rank_list(legal)}\n")
            continue
        tricks_before = game.state.tricks
        values = moves.at_game(game) if moves is not None else None
        decision = len(game.choices) + 1
        _, _, terminated, truncated, info = env.step(rank)
        show = True
        if values is not None and values.loss(rank) > 0:
            lost.append(_loss_line(decision, rank, values, env.horizon))
            if review == "each":
                print(lost[-1] + "\n")
        if terminated or truncated:
            print(render_text(game, env.horizon))
            print(_play_summary(env, info, "the game ended" if terminated else "the episode stopped"))
            return 0
        played = game.state.tricks - tricks_before
        if played:
            n = env.rules.num_cards
            print(
                f"\n{played} more trick(s) played: you hold {info['cards']} cards, "
                f"player 1 holds {n - info['cards']}.\n"
            )


def _play_summary(env: Any, info: dict[str, Any], how: str) -> str:
    """Where the game stands (cards held, result) and, where it answers fast, what best play from
    the deal achieves."""
    from tabletop_gym.envs.war.env import result_text

    game = env.game
    state = game.state
    n = env.rules.num_cards
    lines = [
        f"{how} after {state.tricks} trick(s) and {state.wars} war(s): you hold {info['cards']} of {n} "
        f"cards, player 1 holds {n - info['cards']}."
    ]
    if state.done:
        lines.append(f"result: {result_text(game, env.horizon)}")
    best = _cheap_oracle_text(info["deal"], env)
    if best:
        lines.append(best)
    if env.observation_mode != "full":
        lines.append(f"deal {info['deal']}  (replay it with --deal)")
    return "\n".join(lines)


def _cheap_oracle_text(deal: str, env: Any) -> str:
    """What the oracle says about the deal, if it answers within a small budget; else how to ask it."""
    from tabletop_gym.oracles.war import search
    from tabletop_gym.oracles.war.horizon import solve_horizon

    rules = env.rules
    ask_it = f"tabletop-gym solve war --deal {deal} (with the same rules) says what best play achieves"
    if not rules.deterministic or env.opponent is not None:  # the oracles know the convention only
        return ""
    try:
        if env.horizon is None:
            if rules.num_cards > EXACT_LIMIT:
                return ask_it
            result = search.solve(deal, rules, max_positions=200_000)
            word = {1: f"a forced win in {result.stats['tricks']} tricks", 0: "a draw", -1: "a loss"}
            return f"best play from this deal: {word[int(result.score)]}"
        if env.horizon > MAX_SEARCH_HORIZON:
            return ""
        result = solve_horizon(deal, env.horizon, rules, max_nodes=20_000)
        return f"best play from this deal holds {result.score:g} cards after {result.stats['horizon']} tricks"
    except ValueError:  # over the budget
        return ask_it


def _bench(args: argparse.Namespace) -> int:
    """Simulated games per second (one core), horizon search and CP-SAT times (medians over seeded
    deals; wall-clock, so noisy on a shared machine; CP-SAT's work, the limit it counts, beside them),
    environment steps per second."""
    from tabletop_gym.envs.war.env import WarEnv
    from tabletop_gym.oracles.war import random_decks, simulate_many
    from tabletop_gym.oracles.war.cpsat import MODEL_PICKUPS, solve_horizon_cpsat
    from tabletop_gym.oracles.war.horizon import solve_horizon

    settings = SPEC.read(args)
    rules, time_limit = settings.rules, settings.limits.time_limit
    if args.vector:
        import numba

        threads = numba.config.NUMBA_NUM_THREADS if args.vector_threads is None else args.vector_threads
        # Read when numba first starts its OpenMP threads (here, not at import): idle threads sleep
        # at once rather than spin through the Python between two steps, taking the cores it needs.
        # Put back afterwards, so that nothing started later in this process reads it.
        unset = "OMP_WAIT_POLICY" not in os.environ
        if unset:
            os.environ["OMP_WAIT_POLICY"] = "passive"
        policy = os.environ["OMP_WAIT_POLICY"]
        labels = {"rules": rules.variant, "vector_threads": threads, "omp_wait_policy": policy}
        try:
            return vector_bench_command("war", ENV_ID, args, as_dict(rules), labels, {"threads": threads})
        finally:
            if unset:
                del os.environ["OMP_WAIT_POLICY"]
    if rules.pickup not in DETERMINISTIC_PICKUPS:
        raise ValueError(
            "bench times fixed conventions; choose --pickup winner_first, loser_first or high_first"
        )
    # Before any timing: rules the environment refuses (no decision ever) stop the bench here.
    env = WarEnv(ranks=rules.ranks, suits=rules.suits, face_down=rules.face_down, pickup=rules.pickup)
    decks = random_decks(args.games, 0, rules)
    simulate_many(decks[:10], rules)  # compile or load the kernel before timing
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        simulate_many(decks, rules)
        rates.append(args.games / (time.perf_counter() - start))
    report: dict[str, Any] = {
        "rules": rules.variant,
        "simulate_games_per_second_median": statistics.median(rates),
        "simulate_games_per_run": args.games,
    }
    for tricks in (3, 26):
        times, unsolved = [], 0
        for seed in range(1, args.deals + 1):
            start = time.perf_counter()
            try:
                solve_horizon(random_deal(seed, rules), tricks, rules, max_nodes=200_000)
            except ValueError:
                unsolved += 1
            times.append(time.perf_counter() - start)
        report[f"horizon_T{tricks}_median_seconds"] = statistics.median(times)
        report[f"horizon_T{tricks}_max_seconds"] = max(times)
        report[f"horizon_T{tricks}_unsolved_within_200k_positions"] = unsolved
    if rules.pickup in MODEL_PICKUPS and args.cpsat_deals:
        for tricks in (3, 26):
            times, work, gaps, proven = [], [], [], 0
            for seed in range(1, args.cpsat_deals + 1):
                result = solve_horizon_cpsat(
                    random_deal(seed, rules), tricks, rules, time_limit=time_limit
                )
                times.append(result.seconds)
                work.append(result.stats["work_seconds"])
                gaps.append(result.gap)
                proven += result.optimal
            report[f"cpsat_T{tricks}_median_seconds"] = statistics.median(times)
            report[f"cpsat_T{tricks}_max_seconds"] = max(times)
            # The same on every machine: a check that two benches solved the same problems.
            report[f"cpsat_T{tricks}_median_work_seconds"] = statistics.median(work)
            report[f"cpsat_T{tricks}_proven_optimal"] = f"{proven}/{len(times)}"
            report[f"cpsat_T{tricks}_mean_gap_cards"] = float(statistics.mean(gaps))
        report["cpsat_workers"] = 2
    report["env_steps_per_second"] = env_steps_per_second(env, args.env_steps, 0)
    write_report("war", report, args.out)
    return 0


def _stats(args: argparse.Namespace) -> int:
    """Distribution of game length and shares of results under fixed rules."""
    from tabletop_gym.oracles.war import random_decks, simulate_many

    rules = SPEC.read(args).rules
    if rules.pickup not in DETERMINISTIC_PICKUPS:
        raise ValueError(
            "stats simulate fixed conventions; choose --pickup winner_first, loser_first or high_first"
        )
    rows = simulate_many(random_decks(args.games, args.seed, rules), rules)
    lengths = rows[:, 1]
    finished = rows[:, 2] <= 1
    report: dict[str, Any] = {
        "rules": rules.variant,
        "games": args.games,
        "seed": args.seed,
        "share_player0_wins": float(np.mean(rows[:, 0] == 0)),
        "share_player1_wins": float(np.mean(rows[:, 0] == 1)),
        "share_both_out": float(np.mean(rows[:, 2] == 1)),
        "share_cycles": float(np.mean(rows[:, 2] == 3)),
        "share_max_tricks": float(np.mean(rows[:, 2] == 2)),
        "finished_games": int(finished.sum()),
    }
    if finished.any():  # no NaN in the report: without a finished game there is no mean length
        report["mean_tricks_finished_games"] = float(lengths[finished].mean())
        report["median_tricks_finished_games"] = float(np.median(lengths[finished]))
    report["mean_wars"] = float(rows[:, 3].mean())
    for q in (10, 25, 50, 75, 90, 99):
        report[f"tricks_p{q}"] = float(np.percentile(lengths, q))
    cycles = rows[rows[:, 2] == 3]
    if cycles.size:
        report["cycle_periods"] = sorted({int(x) for x in cycles[:, 5]})[:20]
    write_report("war", report, args.out)
    return 0


# Certified suites of the game (`tabletop-gym suite build NAME-vN`); their settings are command-line
# settings of this game. Their shipped files pin every word here (ids, notes, checksums).
SUITES = (
    SuiteDefinition(
        "war-h26",
        "war",
        {"horizon": 26, "method": "auto", "time_limit": 10.0},
        "--horizon 26",
        1000,
        50,
        "the full deck, default rules, scored by the cards held after 26 tricks; the exact search within "
        "20,000 positions, then CP-SAT with 10 s of work per deal (seconds of a 2-core machine as "
        "deterministic time; v0 was built when this limit was 10 s of wall clock on a loaded machine) "
        "(a bound, not an optimum, where it stops: some bounds are the trivial 52)",
        "for the machine's time (seed 55 ran past 3 CPU minutes)",
    ),
    SuiteDefinition(
        "war-r6s2",
        "war",
        {"ranks": 6, "suits": 2},
        "--ranks 6 --suits 2",
        1000,
        1000,
        "the whole game on a 12-card deck (the demo's), every result proven by exact search; the "
        "whole game on the full deck has no oracle that answers in time",
    ),
)
# `tabletop-gym baselines`: the demo's 12-card whole game, every deal proven. A game on 12 cards asks
# about 1,900 decisions (a pickup order at every trick won), so the suite's 1,000 deals would take each
# agent hours; the first 100 keep the interval near +-0.1.
# The large budget: the 10^7 steps of Cribbage's (issue 35 asks the same or more of every native vector env).
BASELINE = Baseline(suite="war-r6s2-v0", steps=50_000, episodes=100, column=2, large_steps=10_000_000)

# Player 1's pickups are its only decisions: the pool plays them through the environment's opponent.
# The environment seats the learner as player 0 only (the deal decides who leads, not the seat).
SELF_PLAY = SelfPlay(
    players=lambda settings: 2,
    seat_kwargs=lambda settings, seat, others: {**_env_kwargs(settings), "opponent": others[0]},
    win_share=lambda env, info: (info["result"] + 1) / 2,  # +1 a win, 0 a draw (a half), -1 a loss
    strongest_bot="greedy",
    any_seat=False,
)

SPEC = GameSpec(
    name="war",
    env_id=ENV_ID,
    agents={
        "random": lambda settings: RandomAgent(),
        "greedy": lambda settings: GreedyAgent(),
        **{p: (lambda settings, p=p: ConventionAgent(p)) for p in DETERMINISTIC_PICKUPS},
    },
    oracle=_oracle,
    env_kwargs=_env_kwargs,
    add_arguments=_add_arguments,
    figures=_figures,
    commands={"solve": _solve_command, "play": _play, "bench": _bench, "stats": _stats,
              "tournament": _tournament},
    ratio_name=lambda settings: (
        "(result + 1) / ({best} + 1)"  # a loss -1, a draw 0, a win 1: a loss is 0
        if settings.horizon is None
        else f"cards held after {settings.horizon} tricks / {{best}}"
    ),
    demo=DEMO,
    # The whole game scores -1 (a loss), 0 or 1: a loss is the zero of the score/optimum scale.
    worst_score=lambda settings: None if settings.horizon is not None else -1.0,
    suites=SUITES,
    baseline=BASELINE,
    settings=_settings,
    self_play=SELF_PLAY,
    # A blunder gives away more than a draw's worth (a win thrown to a loss) or, with a horizon, more
    # than one card.
    moves=MoveReview(oracle=_move_oracle, blunder=1),
)

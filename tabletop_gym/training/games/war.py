"""War on the command line: solve, play, evaluate, train, bench and stats."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.war import ConventionAgent, GreedyAgent
from tabletop_gym.core import OracleCache, OracleResult, atomic_write_text
from tabletop_gym.envs.war.rules import DETERMINISTIC_PICKUPS, PICKUPS, RANK_CHARS, WarRules, random_deal
from tabletop_gym.training.games import GameSpec

ENV_ID = "tabletop/War-v0"
EXACT_LIMIT = 12  # cards: above this the whole-game search is not offered by default


def _rules(args: argparse.Namespace) -> WarRules:
    return WarRules(
        ranks=getattr(args, "ranks", 13),
        suits=getattr(args, "suits", 4),
        face_down=getattr(args, "face_down", 3),
        pickup=getattr(args, "pickup", "winner_first"),
        max_tricks=getattr(args, "max_tricks", 10_000),
    )


def _env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    rules = _rules(args)
    return {
        "ranks": rules.ranks,
        "suits": rules.suits,
        "face_down": rules.face_down,
        "pickup": rules.pickup,
        "max_tricks": rules.max_tricks,
        "observation": getattr(args, "observation", "full"),
        "horizon": getattr(args, "horizon", None),
    }


def _oracle(deal: str, args: argparse.Namespace) -> OracleResult:
    """With ``--horizon T``: the most cards after T tricks; else the best result of the whole game
    (small decks only)."""
    from tabletop_gym.oracles.war import horizon, search

    rules = _rules(args)
    cache_dir = getattr(args, "cache", None)
    cache = OracleCache(cache_dir) if cache_dir else None
    tricks = getattr(args, "horizon", None)
    if tricks:
        method = getattr(args, "method", "auto")
        if method == "search":
            return horizon.solve_horizon_cached(deal, tricks, rules, cache)
        return _cpsat_cached(deal, tricks, rules, cache, method, getattr(args, "time_limit", 60.0))
    if rules.num_cards > EXACT_LIMIT and not getattr(args, "force_exact", False):
        raise ValueError(
            f"exact whole-game search is for decks of at most {EXACT_LIMIT} cards ({rules.num_cards} here): "
            "use --horizon T, smaller --ranks/--suits, or --force-exact"
        )
    return search.solve_cached(deal, rules, cache)


def _cpsat_cached(
    deal: str, tricks: int, rules: WarRules, cache: OracleCache | None, method: str, time_limit: float
) -> OracleResult:
    """The horizon answer by CP-SAT (``cpsat``) or by the search within a position budget, then
    CP-SAT (``auto``); cached per method and time limit, since a time-limited answer may have a gap."""
    from tabletop_gym.envs.war.rules import parse_deal
    from tabletop_gym.oracles.war import cpsat
    from tabletop_gym.oracles.war.horizon import check_horizon
    from tabletop_gym.oracles.war.search import GAME

    parsed = parse_deal(deal, rules)
    if method == "cpsat":
        compute = lambda: cpsat.solve_horizon_cpsat(parsed, tricks, rules, time_limit=time_limit)  # noqa: E731
    else:
        compute = lambda: cpsat.solve_horizon_best(parsed, tricks, rules, time_limit=time_limit)  # noqa: E731
    cache = cache if cache is not None else OracleCache()
    return cache.solve(
        GAME,
        f"horizon{tricks}-{method}{time_limit:g}s-{rules.variant}",
        str(parsed),
        compute,
        lambda r: check_horizon(parsed, tricks, rules, r),
    )


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    parser.add_argument("--ranks", type=int, default=13, help="ranks in the deck (default 13)")
    parser.add_argument("--suits", type=int, default=4, help="cards of each rank (default 4)")
    parser.add_argument("--face-down", type=int, default=3, help="face-down cards in a war (default 3)")
    parser.add_argument("--pickup", choices=PICKUPS, default="winner_first", help="player 1's convention")
    parser.add_argument("--max-tricks", type=int, default=10_000, help="draw after this many tricks")
    if command in ("solve", "evaluate", "train", "demo", "play"):
        parser.add_argument("--horizon", type=int, default=None, help="score the cards held after T tricks")
    if command in ("evaluate", "train", "demo", "play"):
        parser.add_argument("--observation", choices=("full", "hidden"), default="full")
    if command in ("solve", "evaluate", "demo"):
        parser.add_argument("--force-exact", action="store_true", help="whole-game search on a large deck")
        parser.add_argument(
            "--method",
            choices=("auto", "search", "cpsat"),
            default="auto",
            help="with --horizon: exact search, CP-SAT, or the search within 20k positions then CP-SAT",
        )
        parser.add_argument(
            "--time-limit", type=float, default=60.0, help="CP-SAT seconds per deal (default 60)"
        )
        parser.add_argument("--cache", type=Path, default=None, help="oracle cache folder")
    if command == "solve":
        parser.add_argument(
            "--find-pattern",
            metavar="PATTERN",
            help="free deal (CP-SAT) whose first tricks follow PATTERN, one token a trick: "
            "'.', 'w' war, 'n' no war, then the taker 0 or 1, e.g. 'w,1'",
        )
        parser.add_argument(
            "--most-wars", type=int, metavar="T", help="free deal (CP-SAT) with the most wars in T tricks"
        )
    if command in ("solve", "play"):
        parser.add_argument("--deal", help="deal string P0/P1, top card first")
        parser.add_argument(
            "--seed", type=int, default=None, help="without --deal: the seed of a random deal"
        )
    if command == "bench":
        parser.add_argument(
            "--games", type=int, default=20_000, help="simulated games per timing (default 20000)"
        )
        parser.add_argument("--deals", type=int, default=20, help="deals per horizon timing (default 20)")
        parser.add_argument(
            "--cpsat-deals",
            type=int,
            default=5,
            help="seeded deals per CP-SAT timing, T=3 and T=26 (default 5)",
        )
        parser.add_argument(
            "--time-limit", type=float, default=60.0, help="CP-SAT seconds per deal (default 60)"
        )
        parser.add_argument("--out", type=Path, default=Path("runs/bench"), help="folder for war.json")
    if command == "stats":
        parser.add_argument("--games", type=int, default=10_000, help="games to simulate (default 10000)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the decks (default 0)")
        parser.add_argument("--out", type=Path, default=Path("runs/stats"), help="folder for war.json")


def _figures(
    scores: list[float], results: list[OracleResult | None], infos: list[dict] | None = None
) -> dict[str, float]:
    """The share of deals whose oracle answer is proven optimal (a time-limited CP-SAT answer with a
    gap leaves only a bound)."""
    known = [r for r in results if r is not None]
    return {"share_oracle_proven": float(np.mean([r.optimal for r in known]))} if known else {}


def _deal_for(args: argparse.Namespace, rules: WarRules) -> str:
    return args.deal if args.deal is not None else str(random_deal(args.seed, rules))


def _solve_command(args: argparse.Namespace) -> int:
    from tabletop_gym.oracles.war import simulate

    rules = _rules(args)
    if args.find_pattern or args.most_wars:
        return _free_deal_command(args, rules)
    deal = _deal_for(args, rules)
    print(f"deal       {deal}")
    if rules.deterministic:
        sim = simulate(deal, rules)
        period = f", period {sim.cycle_period} from trick {sim.cycle_start}" if sim.cycle_period else ""
        who = {0: "player 0 wins", 1: "player 1 wins", -1: "draw"}[sim.winner]
        print(
            f"simulated  both on {rules.pickup}: {who} ({sim.end_reason}{period}) after {sim.tricks} tricks"
        )
    result = _oracle(deal, args)
    plan = "".join(RANK_CHARS[r] for r in result.plan)
    if args.horizon:
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
    return 0


def _free_deal_command(args: argparse.Namespace, rules: WarRules) -> int:
    from tabletop_gym.oracles.war import cpsat, simulate

    if args.find_pattern:
        found = cpsat.find_deal_with_pattern(args.find_pattern, rules, time_limit=args.time_limit)
        tricks = len(args.find_pattern.replace(",", " ").split())
        print(f"pattern    {args.find_pattern}")
    else:
        found = cpsat.find_deal_most_wars(args.most_wars, rules, time_limit=args.time_limit)
        tricks = args.most_wars
        bound = "unproven (cap reached)" if found.bound is None else f"bound {found.bound}"
        print(f"most wars  {found.value} in {tricks} tricks ({bound}, {found.status}; no short war)")
    print(f"deal       {found.deal}")
    played = cpsat.trick_pattern(found.deal, rules, tricks)
    sim = simulate(found.deal, rules.replace(max_tricks=tricks))
    print(f"engine     {' '.join(played)}  (w/n: war or not, then the taker)")
    print(f"simulated  {sim.wars} wars in the first {sim.tricks} tricks")
    print(f"time       {found.seconds:.3f} s")
    return 0


def _play(args: argparse.Namespace) -> int:
    from tabletop_gym.envs.war.env import WarEnv, render_text

    env = WarEnv(**_env_kwargs(args))
    options = {"deal": args.deal} if args.deal else None
    _, info = env.reset(seed=args.seed, options=options)
    alphabet = env.rules.alphabet
    print(
        f"deal {info['deal']}\nType the rank to put under your pile next (e.g. {alphabet[-1]}), q to quit.\n"
    )
    while not info["game_over"]:
        print(render_text(env.game))
        try:
            answer = input("rank> ").strip().upper()
        except EOFError:
            print()
            break
        if answer in ("Q", "QUIT"):
            break
        if len(answer) != 1 or answer not in alphabet:
            print(f"'{answer}' is not a rank: type one of {alphabet}\n")
            continue
        try:
            _, _, terminated, truncated, info = env.step(alphabet.index(answer))
        except ValueError as error:
            print(f"{error}\n")
            continue
        if terminated or truncated:
            break
    print(render_text(env.game))
    return 0


def _bench(args: argparse.Namespace) -> int:
    """Simulated games per second (one core), horizon search and CP-SAT times (medians over seeded
    deals; wall-clock, so noisy on a shared machine), environment steps per second."""
    from tabletop_gym.envs.war.env import WarEnv
    from tabletop_gym.oracles.war import random_decks, simulate_many
    from tabletop_gym.oracles.war.cpsat import MODEL_PICKUPS, solve_horizon_cpsat
    from tabletop_gym.oracles.war.horizon import solve_horizon

    rules = _rules(args)
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
    if rules.pickup in MODEL_PICKUPS:
        for tricks in (3, 26):
            times, gaps, proven = [], [], 0
            for seed in range(1, args.cpsat_deals + 1):
                result = solve_horizon_cpsat(
                    random_deal(seed, rules), tricks, rules, time_limit=args.time_limit
                )
                times.append(result.seconds)
                gaps.append(result.gap)
                proven += result.optimal
            if times:
                report[f"cpsat_T{tricks}_median_seconds"] = statistics.median(times)
                report[f"cpsat_T{tricks}_max_seconds"] = max(times)
                report[f"cpsat_T{tricks}_proven_optimal"] = f"{proven}/{len(times)}"
                report[f"cpsat_T{tricks}_mean_gap_cards"] = float(statistics.mean(gaps))
        report["cpsat_workers"] = 2
    env = WarEnv(ranks=rules.ranks, suits=rules.suits, face_down=rules.face_down, pickup=rules.pickup)
    agent = RandomAgent(0)
    steps, start = 0, time.perf_counter()
    obs, info = env.reset(seed=0)
    while steps < 20_000:
        if info["game_over"]:
            obs, info = env.reset()
            continue
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        steps += 1
        if terminated or truncated:
            obs, info = env.reset()
    report["env_steps_per_second"] = steps / (time.perf_counter() - start)
    _print_and_write(report, args.out / "war.json")
    return 0


def _stats(args: argparse.Namespace) -> int:
    """Distribution of game length and shares of results under fixed rules."""
    from tabletop_gym.oracles.war import random_decks, simulate_many

    rules = _rules(args)
    if rules.pickup not in DETERMINISTIC_PICKUPS:
        raise ValueError(
            "stats simulate fixed conventions; choose --pickup winner_first, loser_first or high_first"
        )
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
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
        "mean_tricks_finished_games": float(lengths[finished].mean()) if finished.any() else float("nan"),
        "median_tricks_finished_games": float(np.median(lengths[finished]))
        if finished.any()
        else float("nan"),
        "mean_wars": float(rows[:, 3].mean()),
    }
    for q in (10, 25, 50, 75, 90, 99):
        report[f"tricks_p{q}"] = float(np.percentile(lengths, q))
    cycles = rows[rows[:, 2] == 3]
    if cycles.size:
        report["cycle_periods"] = sorted({int(x) for x in cycles[:, 5]})[:20]
    _print_and_write(report, args.out / "war.json")
    return 0


def _print_and_write(report: dict[str, Any], path: Path) -> None:
    width = max(len(k) for k in report)
    for key, value in report.items():
        print(
            f"{key.ljust(width)}  {value:.4g}" if isinstance(value, float) else f"{key.ljust(width)}  {value}"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(report, indent=1))
    print(f"written to {path}")


SPEC = GameSpec(
    name="war",
    env_id=ENV_ID,
    agents={
        "random": lambda args: RandomAgent(),
        "greedy": lambda args: GreedyAgent(),
        **{p: (lambda args, p=p: ConventionAgent(p)) for p in DETERMINISTIC_PICKUPS},
    },
    oracle=_oracle,
    env_kwargs=_env_kwargs,
    add_arguments=_add_arguments,
    figures=_figures,
    commands={"solve": _solve_command, "play": _play, "bench": _bench, "stats": _stats},
    score_name="result (or cards held at the horizon)",
)

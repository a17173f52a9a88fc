"""Modern Art on the command line: solve, play, evaluate, train, tournament and bench."""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from tqdm import tqdm

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.modern_art import GreedyAgent
from tabletop_gym.core import OracleCache, OracleResult, atomic_write_text
from tabletop_gym.envs.modern_art.env import ModernArtEnv, render_text
from tabletop_gym.envs.modern_art.rules import DEFAULT_DEALS, Rules, action_name, random_deal
from tabletop_gym.oracles import modern_art as oracle
from tabletop_gym.training.bench import env_steps_per_second
from tabletop_gym.training.games import GameSpec

ENV_ID = "tabletop/ModernArt-v0"
SEED_FIGURES = {2: 301, 4: 295}  # the seed's relaxed MiniZinc maxima (no double/hidden/simultaneous/extra)


def _players(args: argparse.Namespace) -> int:
    return int(getattr(args, "players", None) or 2)


def _variant(args: argparse.Namespace, players: int | None = None) -> dict[str, Any]:
    """Rule parameters from the command line: ``--rounds N`` plays the first N rounds of the deal
    table (a shorter game, where the per-deal oracle proves optima sooner)."""
    rounds = getattr(args, "rounds", None)
    if rounds is None:
        return {}
    full = DEFAULT_DEALS[players or _players(args)]
    if not 1 <= rounds <= len(full):
        raise SystemExit(f"--rounds must be 1 to {len(full)}, got {rounds}")
    return {"deals": full[:rounds]}


def _rules(args: argparse.Namespace, players: int | None = None) -> Rules:
    players = players or _players(args)
    return Rules(players=players, **_variant(args, players))


def _solve(deal: str, args: argparse.Namespace) -> OracleResult:
    cache_dir = getattr(args, "cache", None)
    return oracle.solve_cached(
        deal,
        _rules(args),
        0,
        OracleCache(cache_dir) if cache_dir else None,
        width=int(getattr(args, "width", 32)),
        time_limit=float(getattr(args, "time_limit", 10.0)),
    )


def win_share(scores: Sequence[int], seat: int = 0) -> float:
    """The seat's share of the win: 1 alone on top, 1/k when k seats share the highest total, else 0."""
    best = max(scores)
    return 1.0 / list(scores).count(best) if scores[seat] == best else 0.0


def _figures(
    scores: Sequence[float], results: Sequence[OracleResult | None], infos: Sequence[dict[str, Any]] = ()
) -> dict[str, float]:
    """Win rate against the bots (a shared win counts as a share), from each episode's final scores."""
    wins = [win_share(info["scores"], info.get("seat", 0)) for info in infos if "scores" in info]
    return {"share_wins": float(np.mean(wins))} if wins else {}


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    known = {a.dest for a in parser._actions}
    if "players" not in known:
        parser.add_argument("--players", type=int, default=2, help="players, 2-5 (default 2)")
    if "rounds" not in known:
        parser.add_argument(
            "--rounds", type=int, default=None, help="play only the first N rounds (default: all four)"
        )
    if command in ("solve", "play", "evaluate", "bench") and "width" not in known:
        parser.add_argument("--width", type=int, default=32, help="oracle beam width (default 32)")
        parser.add_argument(
            "--time-limit", type=float, default=10.0,
            help="time for the oracle's CP-SAT models and plan search, in seconds of a 2-core machine "
            "(counted in deterministic work: the same answer on every machine; default 10)",
        )  # fmt: skip
    if command == "solve" and "free" not in known:
        parser.add_argument(
            "--free", action="store_true", help="over every deal: the best plan found and a proven bound"
        )
    if command in ("solve", "play") and "deal" not in known:
        parser.add_argument("--deal", help="deal string: the whole deck, two characters per card")
        parser.add_argument("--seed", type=int, default=None, help="without --deal: seed of a random deal")
    if command == "tournament":
        parser.add_argument("--games", type=int, default=200, help="games per pairing (default 200)")
        parser.add_argument("--out", type=Path, default=Path("runs/tournament"), help="folder for the JSON")
    if command == "bench":
        parser.add_argument("--deals", type=int, default=5, help="deals per player count for the oracle")
        parser.add_argument("--env-steps", type=int, default=20_000, help="steps per environment timing")
        parser.add_argument(
            "--bound-seconds", type=float, default=20.0,
            help="the oracle's time per deal, as --time-limit (default 20)",
        )  # fmt: skip
        parser.add_argument("--free-deals", type=int, default=8, help="stacked deals for the free-deal max")
        parser.add_argument("--bench-players", default="2,3,4,5", help="player counts (comma-separated)")
        parser.add_argument("--out", type=Path, default=Path("runs/bench"), help="folder for the report JSON")


def _bounds_line(stats: dict) -> str:
    """Each relaxation's proven bound, as the oracle's stats hold them."""
    names = {"game_model_bound": "game model (CP-SAT)", "seat_model_bound": "seat-only model (CP-SAT)",
             "path_bound": "artist paths (LP)"}  # fmt: skip
    return ", ".join(f"{name} {stats[key]}" for key, name in names.items() if key in stats)


def _solve_command(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if args.free:
        free = oracle.free_deal(rules, deals=2, width=args.width, time_limit=args.time_limit)
        print(f"deal   {free['deal']}")
        print(f"rules  {rules.variant()}")
        source = free["plan_source"]
        print(f"plan   {free['score']} points for seat 0 ({source}, replayed through the engine)")
        print(f"bound  {free['bound']} (proven upper bound over every deal: the smallest relaxation bound)")
        print(f"       {_bounds_line(free['stats'])}")
        print("plan actions: " + " ".join(map(str, free["plan"])))
        return 0
    deal = args.deal if args.deal is not None else random_deal(rules, args.seed)
    result = oracle.solve(deal, rules, 0, width=args.width, time_limit=args.time_limit)
    print(f"deal   {deal}")
    print(f"rules  {rules.variant()}")
    source = result.stats.get("plan_source", "exhaustive search")
    print(f"plan   {result.score} points for seat 0 ({source}, replayed through the engine)")
    print(f"bound  {result.bound} (proven upper bound: the smaller relaxation bound; optimal only if equal)")
    if "path_bound" in result.stats:
        print(f"       {_bounds_line(result.stats)}")
    print(f"gap    {result.gap}   time {result.seconds:.1f} s   {'optimal' if result.optimal else ''}")
    print("plan actions: " + " ".join(map(str, result.plan)))
    return 0


def _play(args: argparse.Namespace) -> int:
    players = _players(args)
    env = ModernArtEnv(players=players, render_mode="ansi", **_variant(args))
    options = {"deal": args.deal} if args.deal else None
    obs, info = env.reset(seed=args.seed, options=options)
    print(f"deal {info['deal']}")
    print(f"You are seat 0 against {players - 1} greedy bot(s). Type an action number, q to quit.\n")
    done = False
    while not done:
        print(render_text(env.state, 0))
        try:
            answer = input("action> ").strip()
        except EOFError:
            print()
            break
        if answer in ("q", "quit"):
            break
        if not answer.isdigit():
            print(f"'{answer}' is not an action number\n")
            continue
        try:
            obs, points, done, _, info = env.step(int(answer))
        except ValueError as error:
            print(f"{error}\n")
            continue
        print(
            f"you played: {action_name(int(answer))}" + (f"   round scored: +{int(points)}" if points else "")
        )
    print(f"{'game over' if done else 'stopped'}: scores {info['scores']} (you are seat 0)")
    if done:
        result = oracle.solve(info["deal"], env.rules, 0, width=args.width, time_limit=args.time_limit)
        print(f"with every player helping you: {result.score} found, at most {result.bound} (proven bound)")
    return 0


def _play_game(players: int, agents: list, seed: int, variant: dict[str, Any]) -> list[int]:
    """One game: ``agents[p]`` plays seat p; returns the scores."""
    env = ModernArtEnv(players=players, seat=0, opponents=agents[1:], **variant)
    obs, info = env.reset(seed=seed)
    agents[0].reset(seed)
    done = False
    while not done:
        obs, _, done, _, info = env.step(agents[0].act(obs, info))
    return info["scores"]


def _tournament(args: argparse.Namespace) -> int:
    """Each agent at seat 0 against greedy bots and against random bots: mean score and win rate."""
    players = _players(args)
    factories = {"random": lambda s: RandomAgent(s), "greedy": lambda s: GreedyAgent()}
    variant = _variant(args)
    report = {}
    for hero in factories:
        for field_name in factories:
            scores, wins = [], 0.0
            for game in tqdm(range(args.games), desc=f"{hero} vs {field_name}", leave=False):
                agents = [factories[hero](game)] + [
                    factories[field_name](game * 7 + i) for i in range(players - 1)
                ]
                result = _play_game(players, agents, game, variant)
                scores.append(result[0])
                wins += win_share(result)
            report[f"{hero}_vs_{field_name}"] = {
                "mean_score": float(np.mean(scores)),
                "win_rate": wins / args.games,
                "games": args.games,
            }
    print(f"{'pairing':<20} {'mean score':>10} {'win rate':>9}   ({players} players, seat 0)")
    for key, row in report.items():
        print(f"{key:<20} {row['mean_score']:>10.1f} {row['win_rate']:>9.3f}")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / f"modern_art_{players}p.json", json.dumps(report, indent=1))
    print(f"written to {args.out / f'modern_art_{players}p.json'}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    """Environment speed, per-deal oracle (plan, bound, gap, time) and the free-deal maxima per player
    count (best plan found on stacked and shuffled deals and from the free-deal model's solutions,
    proven bound), beside the seed's figures."""
    report: dict = {
        "deck": "default (per artist: 1 award, 2 draw, 1 double, 1 hidden, 1 simultaneous)",
        "timing_note": "wall-clock on a shared machine; medians of 3 runs",
        "rounds": args.rounds or "all",
    }
    counts = [int(c) for c in str(args.bench_players).split(",")]
    if args.env_steps > 0:
        for players in counts:
            env = ModernArtEnv(players=players, **_variant(args, players))
            rates = [env_steps_per_second(env, args.env_steps, seed) for seed in range(3)]
            report[f"env_steps_per_second_median_{players}p"] = statistics.median(rates)
    for players in counts:
        rules = _rules(args, players)
        rows = []
        for seed in tqdm(range(args.deals), desc=f"oracle {players}p", unit="deal"):
            rows.append(
                oracle.solve(
                    random_deal(rules, seed), rules, 0, width=args.width, time_limit=args.bound_seconds
                )
            )
        if rows:
            report[f"oracle_{players}p"] = {
                "plan_scores": [r.score for r in rows],
                "bounds": [r.bound for r in rows],
                # the game model's, or the seat-only model's where CP-SAT proved nothing in time
                "cp_sat_bounds": [r.stats.get("game_model_bound", r.stats.get("seat_model_bound"))
                                  for r in rows],  # fmt: skip
                "artist_path_bounds": [r.stats.get("path_bound") for r in rows],
                "relaxation_objectives": [r.stats.get("relaxation_objective") for r in rows],
                "plan_sources": [r.stats.get("plan_source") for r in rows],
                "median_plan_score": statistics.median(r.score for r in rows),
                "median_bound": statistics.median(r.bound for r in rows),
                "median_gap": statistics.median(r.gap for r in rows),
                "median_seconds": statistics.median(r.seconds for r in rows),
                "proven_optimal": sum(r.optimal for r in rows),
                "deals": len(rows),
            }
        if args.free_deals > 0:
            free = oracle.free_deal(rules, args.free_deals, width=args.width, time_limit=args.bound_seconds)
            report[f"max_{players}p"] = {
                "best_found": free["score"],
                "best_found_deal": free["deal"],
                "plan_source": free["plan_source"],
                "proven_bound": free["bound"],
                "bounds_by_relaxation": {
                    "game_model": free["stats"].get("game_model_bound"),
                    "seat_model": free["stats"].get("seat_model_bound"),
                    "artist_paths": free["stats"].get("path_bound"),
                },
                "relaxation_objective": free["relaxation_objective"],
                "seed_relaxed_figure": SEED_FIGURES.get(players),
                "note": "the seed's figure is the optimum of a model without double, hidden, "
                "simultaneous and the extra card: neither a bound nor a score of this game",
            }
    for key, value in report.items():
        print(f"{key:<36} {value if not isinstance(value, float) else f'{value:.1f}'}")
    args.out.mkdir(parents=True, exist_ok=True)
    name = "modern_art.json" if args.rounds is None else f"modern_art_{args.rounds}_rounds.json"
    atomic_write_text(args.out / name, json.dumps(report, indent=1))
    print(f"written to {args.out / name}")
    return 0


SPEC = GameSpec(
    name="modern_art",
    env_id=ENV_ID,
    agents={"random": lambda args: RandomAgent(), "greedy": lambda args: GreedyAgent()},
    oracle=_solve,
    figures=_figures,
    env_kwargs=lambda args: {"players": _players(args), **_variant(args)},
    add_arguments=_add_arguments,
    commands={"solve": _solve_command, "play": _play, "tournament": _tournament, "bench": _bench},
    ppo={"n_steps": 512, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4},
)

__all__ = ["SPEC", "gym"]

"""Nmbr9 on the command line: solve, play, evaluate, train and bench."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import gymnasium as gym
from tqdm import tqdm

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.nmbr9 import Nmbr9GreedyAgent
from tabletop_gym.core import OracleCache, OracleResult, atomic_write_text
from tabletop_gym.envs.nmbr9.rules import (
    NUM_ROTATIONS,
    Variant,
    decode_action,
    encode_action,
    parse_deal,
    random_deal,
)
from tabletop_gym.oracles import nmbr9 as oracle
from tabletop_gym.training.bench import env_steps_per_second, peak_rss_mb
from tabletop_gym.training.games import GameSpec

ENV_ID = "tabletop/Nmbr9-v0"


def _variant(args: argparse.Namespace) -> Variant:
    return Variant.parse(getattr(args, "variant", "9-2-20") or "9-2-20")


def _env_kwargs(args: argparse.Namespace) -> dict:
    v = _variant(args)
    return {
        "max_value": v.max_value,
        "copies": v.copies,
        "cards": v.cards,
        "grid": getattr(args, "grid", 20),
        "levels": getattr(args, "levels", None),
    }


def _oracle(deal: str, args: argparse.Namespace) -> OracleResult:
    cache_dir = getattr(args, "cache", None)
    return oracle.solve_cached(
        parse_deal(deal, _variant(args)),
        grid=getattr(args, "grid", 20),
        levels=getattr(args, "levels", None),
        time_limit=getattr(args, "time_limit", 30.0),
        model_grid=getattr(args, "model_grid", None),
        cache=OracleCache(cache_dir) if cache_dir else None,
    )


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    parser.add_argument(
        "--variant", default="9-2-20", help="m-c-k: max value, copies, cards (default 9-2-20)"
    )
    parser.add_argument("--grid", type=int, default=20, help="cells per side of the grid (default 20)")
    parser.add_argument("--levels", type=int, default=None, help="level limit, the table included")
    if command in ("solve", "evaluate", "play", "demo"):
        parser.add_argument(
            "--time-limit", type=float, default=30.0, help="oracle seconds per deal (default 30)"
        )
        parser.add_argument(
            "--model-grid",
            type=int,
            default=None,
            help="build the oracle's model on a smaller grid (plans only)",
        )
        parser.add_argument("--cache", type=Path, default=None, help="oracle cache folder")
    if command in ("solve", "play"):
        parser.add_argument("--deal", help="deal string: the card values in draw order, e.g. 9081726354...")
        parser.add_argument(
            "--seed", type=int, default=None, help="without --deal: the seed of a random deal"
        )
    if command == "solve":
        parser.add_argument("--free", action="store_true", help="free draft: best choice of cards and order")
    if command == "bench":
        parser.add_argument(
            "--deals", type=int, default=10, help="seeded standard deals for the known-draft gap (default 10)"
        )
        parser.add_argument(
            "--time-limit",
            type=float,
            default=15.0,
            help="oracle seconds per known-draft deal (default 15; the issue's budget is 300)",
        )
        parser.add_argument(
            "--free-time-limit", type=float, default=20.0, help="seconds for free draft 9-2-20 (default 20)"
        )
        parser.add_argument(
            "--env-steps", type=int, default=5_000, help="steps per timing, 3 timings (default 5000)"
        )
        parser.add_argument("--skip-proof", action="store_true", help="skip the F-6-2-5 proof")
        parser.add_argument("--out", type=Path, default=Path("runs/bench"), help="folder for nmbr9.json")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _solve_command(args: argparse.Namespace) -> int:
    variant = _variant(args)
    if args.free:
        result = oracle.solve_free(variant, grid=args.grid, levels=args.levels, time_limit=args.time_limit)
        what = f"free draft F-{variant}"
        plan = " ".join(f"{v}@{_where(a, args.grid)}" for v, a in result.plan)
    else:
        deal = args.deal if args.deal is not None else str(random_deal(args.seed, variant))
        result = oracle.solve(
            parse_deal(deal, variant),
            grid=args.grid,
            levels=args.levels,
            time_limit=args.time_limit,
            model_grid=args.model_grid,
        )
        what = f"deal {deal}"
        plan = " ".join(_where(a, args.grid) for a in result.plan)
    status = "proven optimal" if result.optimal else f"proven bound {result.bound}"
    print(f"{what} on a {args.grid}x{args.grid} grid")
    print(f"score    {result.score} ({status})  in {result.seconds:.2f} s")
    print(f"plan     {plan}  (rotation/row/col per card)")
    return 0


def _where(action: int, grid: int) -> str:
    rotation, row, col = decode_action(action, grid)
    return f"r{rotation}/{row}/{col}"


def _play(args: argparse.Namespace) -> int:
    env = gym.make(ENV_ID, **_env_kwargs(args), render_mode="ansi")
    options = {"deal": args.deal} if args.deal else None
    _, info = env.reset(seed=args.seed, options=options)
    state = env.unwrapped.state
    print(
        f"deal {info['deal']}\nType 'rotation row col' (rotation 0-3 quarter turns clockwise), q to quit.\n"
    )
    while not state.done:
        print(env.render())
        try:
            answer = input("place> ").strip()
        except EOFError:
            print()
            break
        if answer in ("q", "quit"):
            break
        parts = answer.split()
        if len(parts) != 3 or not all(p.isdigit() for p in parts) or int(parts[0]) >= NUM_ROTATIONS:
            print("type three numbers: rotation (0-3), row, column\n")
            continue
        try:
            _, points, _, _, info = env.step(encode_action(*(int(p) for p in parts), grid=args.grid))
        except ValueError as error:
            print(f"{str(error)[:300]}\n")
            continue
        print(f"+{int(points)}\n" if points else "")
    if state.done:
        result = _oracle(info["deal"], args)
        bound = "optimal" if result.optimal else f"bound {result.bound}"
        print(f"game over: you scored {state.score}; the oracle found {result.score} ({bound})")
    return 0


def _bench(args: argparse.Namespace) -> int:
    """Env speed, the F-6-2-5 proof, known-draft gaps on seeded standard deals, free draft 9-2-20
    best and bound, peak memory. Timings share the machine with whatever else runs: noisy."""
    report: dict = {"grid": 20}
    env = gym.make(ENV_ID).unwrapped
    rates = [env_steps_per_second(env, args.env_steps, seed) for seed in range(3)]
    report["env_steps_per_second"] = {
        "median": round(statistics.median(rates)),
        "runs": [round(r) for r in rates],
    }
    if not args.skip_proof:
        small = oracle.solve_free(Variant(6, 2, 5), grid=6, levels=3, time_limit=60)
        report["F-6-2-5_grid6_levels3"] = {
            "score": small.score,
            "bound": small.bound,
            "optimal": small.optimal,
            "seconds": round(small.seconds, 2),
        }
    rows = []
    for seed in tqdm(range(args.deals), desc="known draft 9-2-20", unit="deal", disable=args.no_progress):
        deal = random_deal(seed)
        result = oracle.solve(deal, grid=20, time_limit=args.time_limit)
        if not oracle.check(deal, result, 20):
            raise AssertionError(f"plan of deal {deal} does not replay")
        rows.append(
            {
                "seed": seed,
                "deal": str(deal),
                "greedy": result.stats.get("greedy"),
                "score": result.score,
                "bound": result.bound,
                "gap": result.bound - result.score,
                "seconds": round(result.seconds, 1),
            }
        )
    if rows:
        report["known_9-2-20"] = {
            "time_limit": args.time_limit,
            "deals": rows,
            "median_gap": statistics.median(r["gap"] for r in rows),
            "mean_score": round(statistics.mean(r["score"] for r in rows), 1),
            "mean_bound": round(statistics.mean(r["bound"] for r in rows), 1),
            "mean_greedy": round(statistics.mean(r["greedy"] for r in rows), 1),
            "mean_score_over_bound": round(statistics.mean(r["score"] / r["bound"] for r in rows), 3),
        }
    if args.free_time_limit > 0:
        free = oracle.solve_free_beam(Variant(), grid=20, time_limit=args.free_time_limit)
        if not oracle.check_free(Variant(), free, 20):
            raise AssertionError("the free-draft plan does not replay")
        report["free_9-2-20"] = {
            "best_found": free.score,
            "bound": free.bound,
            "best_known_by_hand": 229,
            "order": free.stats["deal"],
            "seconds": round(free.seconds, 1),
        }
    report["peak_rss_mb"] = peak_rss_mb()
    print(_bench_table(report))
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "nmbr9.json", json.dumps(report, indent=1))
    print(f"written to {args.out / 'nmbr9.json'}")
    return 0


def _bench_table(report: dict) -> str:
    lines = [f"env steps/s (median of 3, random legal actions)  {report['env_steps_per_second']['median']}"]
    proof = report.get("F-6-2-5_grid6_levels3")
    if proof:
        what = "proven optimum" if proof["optimal"] else f"bound {proof['bound']}"
        lines.append(f"F-6-2-5, 6x6 grid, 3 levels  score {proof['score']} ({what})  {proof['seconds']} s")
    known = report.get("known_9-2-20")
    if known:
        lines.append(f"known draft 9-2-20, 20x20 grid, {known['time_limit']:g} s per deal")
        lines.append("  seed  deal                  greedy  plan  bound   gap  seconds")
        for r in known["deals"]:
            lines.append(
                f"  {r['seed']:4d}  {r['deal']}  {r['greedy']:6d}  {r['score']:4d}  {r['bound']:5d}"
                f"  {r['gap']:4d}  {r['seconds']:7.1f}"
            )
        lines.append(
            f"  mean greedy {known['mean_greedy']}  mean plan {known['mean_score']}  mean bound "
            f"{known['mean_bound']}  median gap {known['median_gap']}  mean plan/bound "
            f"{known['mean_score_over_bound']}"
        )
    free = report.get("free_9-2-20")
    if free:
        lines.append(
            f"free draft 9-2-20  best found {free['best_found']}  bound {free['bound']}  "
            f"(best known by hand 229)  {free['seconds']} s"
        )
    lines.append(f"peak memory (max RSS)  {report['peak_rss_mb']} MB")
    return "\n".join(lines)


SPEC = GameSpec(
    name="nmbr9",
    env_id=ENV_ID,
    agents={"random": lambda args: RandomAgent(), "greedy": lambda args: Nmbr9GreedyAgent()},
    oracle=_oracle,
    env_kwargs=_env_kwargs,
    add_arguments=_add_arguments,
    commands={"solve": _solve_command, "play": _play, "bench": _bench},
)

"""Cribbage on the command line: solve, play, evaluate, train and bench."""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.cribbage import PROBE_RULES, CribbageGreedyAgent
from tabletop_gym.agents.probe import DEFAULT_PROBES, DEFAULT_WEIGHT, ProbeAgent, probe_search
from tabletop_gym.core import OracleCache, OracleResult
from tabletop_gym.envs.cribbage import ENV_ID
from tabletop_gym.envs.cribbage.env import render_text, shuffle_piles
from tabletop_gym.envs.cribbage.rules import (
    STACK_LIMIT,
    TARGET,
    CribbageRules,
    CribbageState,
    parse_deal,
    random_deal,
)
from tabletop_gym.settings import given
from tabletop_gym.suites.definitions import SuiteDefinition
from tabletop_gym.training.arguments import int_arg, nonempty, path_arg, seed_arg
from tabletop_gym.training.bench import (
    add_vector_arguments,
    env_steps_per_second,
    peak_rss_mb,
    vector_bench_command,
    write_report,
)
from tabletop_gym.training.games import Baseline, GameSpec, MoveReview
from tabletop_gym.training.pictures import draw_if_asked
from tabletop_gym.training.probe import add_probe_arguments
from tabletop_gym.training.terminal import ask_move

# The native vector environment's bench: 4,096 games a batch keep the per-call cost of Python (the
# actions, the returned copies) small beside the kernel's work; 10^7 steps show memory flat.
VECTOR_ENVS = 4096
VECTOR_STEPS = 10_000_000

# Steps of each run of `bench cribbage --train`: some seconds of each trainer on the shared machine.
TRAIN_BENCH_STEPS = {"vector": 200_000, "sb3": 20_000}

# The probe counts at which bench reads the probe search's anytime curve.
PROBE_COUNTS = (1, 10, 100, 1_000, 10_000)
MAX_BENCH_DEALS = 100_000  # deals of one timing: each takes the oracle about a second
MAX_ENV_STEPS = 100_000_000  # steps of one timing: about a day at the environment's rate
MAX_THREADS = 1024  # more threads than any machine has (numba caps them at its own count anyway)
# The oracle (numba) is imported by the commands that solve: the command line starts without it.


@dataclasses.dataclass(frozen=True)
class CribbageSettings:
    """What Cribbage's callbacks need: the rules (none to choose), the oracle's cache folder (the
    oracle itself has no limits: it always proves the optimum) and the probe agent's options."""

    rules: CribbageRules = CribbageRules()
    cache: Path | None = None
    probe_weight: float = DEFAULT_WEIGHT
    probes: int = DEFAULT_PROBES


def _settings(values: Mapping[str, Any]) -> CribbageSettings:
    """The settings from values by field name (a command's arguments, a suite's stored settings);
    other names are ignored, a name missing takes its default (a command without that option)."""
    return CribbageSettings(**given(CribbageSettings, values, skip=("rules",)))


def _solve(deal: str, settings: CribbageSettings) -> OracleResult:
    from tabletop_gym.oracles import cribbage as oracle

    cache = settings.cache
    return oracle.solve_cached(deal, OracleCache(cache) if cache else None)


def _move_oracle(settings: CribbageSettings) -> Any:
    """Cribbage's move oracle for a deal string (every setting has one: the oracle always proves)."""
    from tabletop_gym.oracles.cribbage import CribbageMoves

    return CribbageMoves


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    if command in ("solve", "play"):
        parser.add_argument(
            "--deal", type=nonempty, help="deal string P1/P2/P3/P4, 13 cards each, top card first"
        )
        parser.add_argument(
            "--seed", type=seed_arg, default=None, help="without --deal: the seed of a random deal"
        )
    if command == "play":
        parser.add_argument(
            "--review",
            choices=REVIEWS,
            default=None,
            help="the oracle's word on your moves: after each move that lost points, or all of them at "
            "the end (what each lost, and the best move instead)",
        )
    if command in ("evaluate", "demo"):
        parser.add_argument("--cache", type=path_arg, default=None, help="oracle cache folder")
    if command in ("evaluate", "bench"):
        add_probe_arguments(parser, most=PROBE_COUNTS[-1] if command == "bench" else None)
    if command == "bench":
        add_vector_arguments(parser, "cribbage", VECTOR_ENVS, VECTOR_STEPS)
        parser.add_argument(
            "--train",
            action="store_true",
            help="time training end to end instead (rollouts and updates; median of 3 runs, CPU beside "
            "wall): --trainer vector on the native vector environment against --trainer sb3, "
            "interleaved, and write cribbage-train.json",
        )
        parser.add_argument(
            "--train-steps",
            type=int_arg(1, MAX_ENV_STEPS),
            default=TRAIN_BENCH_STEPS["vector"],
            help=f"with --train: steps of each vector-trainer run (default {TRAIN_BENCH_STEPS['vector']})",
        )
        parser.add_argument(
            "--sb3-steps",
            type=int_arg(0, MAX_ENV_STEPS),
            default=TRAIN_BENCH_STEPS["sb3"],
            help=f"with --train: steps of each sb3-trainer run, 0 to leave it out "
            f"(default {TRAIN_BENCH_STEPS['sb3']})",
        )
        parser.add_argument(
            "--deals",
            type=int_arg(1, MAX_BENCH_DEALS),
            default=20,
            help=f"deals for the oracle timing, 1-{MAX_BENCH_DEALS:,} (default 20)",
        )
        parser.add_argument(
            "--env-steps",
            type=int_arg(1, MAX_ENV_STEPS),
            default=50_000,
            help=f"steps per environment timing, 1-{MAX_ENV_STEPS:,} (default 50000)",
        )
        parser.add_argument(
            "--probe-deals",
            type=int_arg(0, MAX_BENCH_DEALS),
            default=5,
            help="the first N of the oracle's deals for the probe search's curve (all of them when "
            "--deals is smaller), 0 for none (default 5)",
        )
        parser.add_argument(
            "--oracle-threads",
            type=int_arg(1, MAX_THREADS),
            default=None,
            help="threads per oracle solve (default: numba's count, at most the CPUs available)",
        )
        parser.add_argument(
            "--compare-threads",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="also solve every deal with 1 thread, alternating which goes first deal by deal "
            "(default on; off when there is only one thread)",
        )
        parser.add_argument(
            "--out", type=path_arg, default=Path("runs/bench"), help="folder for cribbage.json"
        )


def _figures(
    scores: Sequence[float], results: Sequence[OracleResult | None], infos: Sequence[dict]
) -> dict[str, float]:
    return {"share_reaching_61": float(np.mean([s >= TARGET for s in scores]))}


def _solve_command(args: argparse.Namespace) -> int:
    from tabletop_gym.oracles import cribbage as oracle

    deal = args.deal if args.deal is not None else str(random_deal(args.seed))
    result = oracle.solve(parse_deal(deal))
    print(f"deal     {deal}")
    print(f"optimum  {result.score} (proven optimal)  in {result.seconds:.2f} s")
    print(f"plan     {''.join(str(p) for p in result.plan)}  (pile index per move)")
    draw_if_asked(args, lambda: _plan_picture(deal, result))
    return 0


REVIEWS = ("each", "end")


def _plan_picture(deal: str, result: OracleResult) -> Any:
    from tabletop_gym.envs.cribbage.draw import draw_plan
    from tabletop_gym.render import plan_status

    return draw_plan(deal, result.plan, plan_status(result.optimal, result.bound))


def _play(args: argparse.Namespace) -> int:
    from tabletop_gym.oracles import cribbage as oracle

    env = gym.make(ENV_ID)
    options = {"deal": args.deal} if args.deal is not None else None
    _, info = env.reset(seed=args.seed, options=options)
    state = env.unwrapped.state
    print(f"deal {info['deal']}\nType a pile number (0-3) to play its top card, quit to stop.\n")
    review = getattr(args, "review", None)
    moves = oracle.CribbageMoves(info["deal"]) if review is not None else None
    lost: list[str] = []
    while not state.done:
        print(render_text(state))
        pile = ask_move("pile> ", lambda answer: _read_pile(answer, state))
        if pile is None:
            break
        values = moves.at_state(state) if moves is not None else None
        _, points, _, _, info = env.step(pile)
        print(f"+{int(points)}\n" if points else "")
        if values is not None and values.loss(pile) > 0:
            lost.append(_loss_line(state.played, pile, values))
            if review == "each":
                print(lost[-1] + "\n")
    result = oracle.solve(parse_deal(info["deal"]))
    ended = "game over" if state.done else "stopped"
    print(f"{ended}: you scored {state.score}; the best possible score on this deal is {result.score}")
    if review == "end":
        print("\n".join(["moves that lost points:"] + lost) if lost else "every move you played was optimal")
    print(f"an optimal plan: {''.join(str(p) for p in result.plan)}")
    return 0


def _loss_line(move: int, pile: int, values: Any) -> str:
    """What a move gave away, and the best move instead, in the game's words."""
    return (
        f"move {move}: pile {pile} lost {values.loss(pile):g} points: with it at most "
        f"{values.values[pile]:g} more points were to be had, with pile {values.best} {values.optimum:g}"
    )


def _read_pile(answer: str, state: CribbageState) -> tuple[int | None, str]:
    """(the pile an answer names, or None and what is wrong with it in the game's words)."""
    if answer not in ("0", "1", "2", "3"):
        return None, f"{answer!r} is not a pile: type 0, 1, 2 or 3 (or quit)\n"
    pile = int(answer)
    if not state.is_legal(pile):
        why = "is empty" if state.top(pile) == 0 else f"would take the stack past {STACK_LIMIT}"
        playable = ", ".join(str(p) for p in state.legal_actions())
        return None, f"pile {pile} {why}; you can play pile {playable}\n"
    return pile, ""


def _timed_solve(deal: str, threads: int) -> tuple[OracleResult, float, float]:
    """(result, wall seconds, CPU seconds of the whole process, the numba threads included)."""
    from tabletop_gym.oracles import cribbage as oracle

    cpu, wall = time.process_time(), time.perf_counter()
    result = oracle.solve(deal, threads=threads)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _threading_layer() -> str:
    """numba's threading layer, or "none" when no parallel loop has run (every solve on 1 thread)."""
    import numba

    try:
        return numba.threading_layer()
    except ValueError:
        return "none"


def _bench(args: argparse.Namespace) -> int:
    """Oracle time per deal (median wall and CPU; 1 thread against N in one interleaved run), peak
    memory, environment steps per second, and the probe search's score/optimum against its number
    of probes."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    if args.vector:
        return vector_bench_command("cribbage", ENV_ID, args)
    from tabletop_gym.oracles import cribbage as oracle

    settings = SPEC.read(args)
    threads = oracle.resolve_threads(args.oracle_threads)
    compare = args.compare_threads and threads > 1
    oracle.solve(random_deal(0), threads=threads)  # compile (or load the compiled kernel) before timing
    load_before = os.getloadavg()[0]
    runs: dict[int, list[tuple[float, float]]] = {threads: [], 1: []}
    scores, nodes = [], []
    for seed in tqdm(range(1, args.deals + 1), desc="oracle", unit="deal"):
        deal = str(random_deal(seed))
        # Alternate which thread count goes first, so a change in the machine's load hits both alike.
        order = ([threads, 1] if seed % 2 else [1, threads]) if compare else [threads]
        results = {}
        for n in order:
            results[n], wall, cpu = _timed_solve(deal, n)
            runs[n].append((wall, cpu))
        if len({r.score for r in results.values()}) != 1:
            raise AssertionError(f"the oracle with 1 and {threads} threads disagrees on {deal}")
        scores.append(results[threads].score)
        nodes.append(results[threads].stats["stack_nodes"])
    env = gym.make(ENV_ID).unwrapped
    rates = [env_steps_per_second(env, args.env_steps, seed) for seed in range(3)]
    known = oracle.solve("46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ", threads=threads).score
    walls = [w for w, _ in runs[threads]]
    report = {
        "oracle_median_seconds": statistics.median(walls),
        "oracle_median_cpu_seconds": statistics.median(c for _, c in runs[threads]),
        "oracle_max_seconds": max(walls),
        "oracle_deals": args.deals,
        "oracle_threads": threads,
        "oracle_threading_layer": _threading_layer(),
        "oracle_median_stack_nodes": int(statistics.median(nodes)),
        "oracle_mean_optimum": statistics.mean(scores),
        "oracle_min_optimum": min(scores),
        "oracle_max_optimum": max(scores),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
        "process_peak_rss_mb": peak_rss_mb(),
        "known_answer_112": known,
        "env_steps_per_second_median": statistics.median(rates),
        "env_steps_per_run": args.env_steps,
    }
    if compare:
        report["oracle_1_thread_median_seconds"] = statistics.median(w for w, _ in runs[1])
        report["oracle_1_thread_median_cpu_seconds"] = statistics.median(c for _, c in runs[1])
    if args.probe_deals:
        report.update(_probe_curve(settings, scores[: args.probe_deals]))
    write_report("cribbage", report, args.out)
    return 0


def _probe_curve(settings: CribbageSettings, optima: Sequence[int]) -> dict[str, float | int]:
    """Score/optimum of the probe search after 1, 10, 100... probes, next to the greedy agent's (the
    probe with weight 1 plays its game), on the oracle's first deals (seeds 1, 2... with their
    ``optima``): one run of the most probes per deal (coins of seed 0), read at each count, which is
    what a run of that many probes plays, since probe i flips the same coins in every run."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    counts = [k for k in PROBE_COUNTS if k < settings.probes] + [settings.probes]
    ratios: dict[int, list[float]] = {k: [] for k in counts}
    reached: dict[int, list[bool]] = {k: [] for k in counts}
    cpu: dict[int, list[float]] = {k: [] for k in counts}
    greedy: list[float] = []
    greedy_reached: list[bool] = []
    for seed, optimum in enumerate(tqdm(optima, desc="probe", unit="deal"), start=1):
        deal = str(random_deal(seed))
        greedy_score = probe_search(PROBE_RULES, deal, weight=1.0, probes=1).score
        greedy.append(greedy_score / optimum)
        greedy_reached.append(greedy_score >= TARGET)
        weight, probes = settings.probe_weight, settings.probes
        result = probe_search(PROBE_RULES, deal, weight, probes, 0, checkpoints=counts)
        for k, best, seconds in result.checkpoints:
            ratios[k].append(best / optimum)
            reached[k].append(best >= TARGET)
            cpu[k].append(seconds)
    report: dict[str, float | int] = {
        "probe_deals": len(optima),
        "probe_weight": settings.probe_weight,
        "greedy_median_ratio": statistics.median(greedy),
        "greedy_mean_ratio": statistics.mean(greedy),
        "greedy_share_reaching_61": float(np.mean(greedy_reached)),
    }
    for k in counts:
        report[f"probe_{k}_median_ratio"] = statistics.median(ratios[k])
        report[f"probe_{k}_mean_ratio"] = statistics.mean(ratios[k])
        report[f"probe_{k}_share_reaching_61"] = float(np.mean(reached[k]))
        report[f"probe_{k}_median_cpu_seconds"] = statistics.median(cpu[k])
    return report


# Certified suites of the game (`tabletop-gym suite build NAME-vN`); their settings are command-line
# settings of this game. Their shipped files pin every word here (ids, notes, checksums).
SUITES = (
    SuiteDefinition(
        "cribbage",
        "cribbage",
        {},
        "(default rules)",
        1000,
        300,
        "every result a proven optimum",
        "(about 2 s of CPU a deal on the shared 2-core machine)",
    ),
)
# `tabletop-gym baselines`: about 1-3 minutes of one core a training run on the shared 2-core machine.
BASELINE = Baseline(suite="cribbage-v0", steps=100_000, column=1, large_suite="cribbage-v1")

SPEC = GameSpec(
    name="cribbage",
    env_id=ENV_ID,
    agents={
        "random": lambda settings: RandomAgent(),
        "greedy": lambda settings: CribbageGreedyAgent(),
        "probe": lambda settings: ProbeAgent(PROBE_RULES, settings.probe_weight, settings.probes),
    },
    oracle=_solve,
    add_arguments=_add_arguments,
    figures=_figures,
    commands={"solve": _solve_command, "play": _play, "bench": _bench},
    ppo={"n_steps": 256, "batch_size": 512, "n_epochs": 4, "learning_rate": 5e-4},
    vector_trainer=True,
    # The demo on the vector trainer: a million steps in about the time MaskablePPO took for 150,000.
    demo={"steps": 1_000_000},
    suites=SUITES,
    baseline=BASELINE,
    settings=_settings,
    # A blunder gives away more than a pair or a fifteen (2 points) would have scored.
    moves=MoveReview(oracle=_move_oracle, blunder=2),
    symmetry=shuffle_piles,
)

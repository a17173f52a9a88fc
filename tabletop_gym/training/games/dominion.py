"""Dominion on the command line: solve, play, evaluate, train, tournament and bench.

The environment that ``evaluate`` and ``train`` use is the solitaire benchmark
(``tabletop/DominionSolitaire-v0``, treasure-and-victory supply by default, ``--kingdom`` adds
kingdom cards), whose every seed the oracle solves; its score is minus the turns taken. The oracle
supports the kingdom cards without inner choices (Market, Merchant, Militia, Moat, Smithy,
Village); for other kingdoms evaluation runs without it. The game against bots
(``tabletop/Dominion-v0``) is reached through ``play --opponents`` and ``tournament``; ``figures``
reports its win rate from the episodes' final infos (``result``) when given them.
"""

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

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.dominion import BOTS, BigMoney, make_bot, solitaire_turns, tournament, wilson
from tabletop_gym.core import OracleCache, OracleResult, atomic_write_text
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.oracles import dominion as oracle
from tabletop_gym.training.bench import env_steps_per_second
from tabletop_gym.training.games import GameSpec

ENV_ID = "tabletop/DominionSolitaire-v0"
VERSUS_ENV_ID = "tabletop/Dominion-v0"
SEED_PAIRINGS = (
    ("just-buy-money", "just-buy-money"),
    ("just-buy-money", "buy-money-and-duchy"),
    ("just-buy-money", "buy-money-and-duchy-and-estate"),
)


def _target(args: argparse.Namespace) -> int:
    return int(getattr(args, "target", None) or R.DEFAULT_TARGET)


def _kingdom(args: argparse.Namespace) -> str:
    """The solitaire kingdom of the command line ("" = treasure and victory cards only)."""
    return getattr(args, "kingdom", None) or ""


def _solve(deal: str, args: argparse.Namespace) -> OracleResult:
    cache_dir = getattr(args, "cache", None)
    return oracle.solve_cached(deal, _target(args), OracleCache(cache_dir) if cache_dir else None,
                               time_limit=float(getattr(args, "oracle_time_limit", 600.0)),
                               kingdom=_kingdom(args))


def _opponents(args: argparse.Namespace) -> list[str]:
    """The bots of the versus game; none means the solitaire game."""
    return [o for o in (getattr(args, "opponents", "") or "").split(",") if o]


def _env_id(args: argparse.Namespace) -> str:
    return VERSUS_ENV_ID if _opponents(args) else ENV_ID


def _oracle(deal: str, args: argparse.Namespace) -> OracleResult | None:
    """The solitaire oracle where it supports the kingdom; None (no optimum column) otherwise,
    and in the versus game, which evaluate scores by win rate instead."""
    if _opponents(args) or not _oracle_supports(_kingdom(args)):
        return None
    return _solve(deal, args)


def _oracle_supports(kingdom: str) -> bool:
    try:
        oracle.oracle_kingdom(kingdom)
    except ValueError:
        return False
    return True


def _env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    if _opponents(args):
        return {"opponents": _opponents(args), "kingdom": getattr(args, "kingdom", None) or "first-game"}
    # The Province reward only shapes training (scores are minus the turns either way).
    return {"target": _target(args), "kingdom": _kingdom(args),
            "province_reward": float(getattr(args, "province_reward", 0.0) or 0.0),
            "money_reward": float(getattr(args, "money_reward", 0.0) or 0.0)}


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    if command in ("solve", "play", "evaluate", "train", "demo", "bench"):
        parser.add_argument("--target", type=int, default=R.DEFAULT_TARGET,
                            help="solitaire: Provinces to own (default 4)")
    if command in ("solve", "evaluate", "train", "demo"):
        parser.add_argument("--kingdom", default="",
                            help="solitaire kingdom cards, comma-separated (default: none, treasure and "
                                 "victory cards only); the oracle supports Market, Merchant, Militia, "
                                 "Moat, Smithy, Village")
    if command in ("evaluate", "train", "demo"):
        parser.add_argument("--opponents", default="",
                            help="comma-separated bots: play the versus game against them and report "
                                 "the win rate (default: none, the solitaire game against the oracle)")
    if command in ("train", "demo"):
        parser.add_argument("--province-reward", type=float, default=1.0,
                            help="training reward per Province bought, besides -1 a turn (default 1; "
                                 "a random start rarely reaches the target, so -1 a turn alone is flat)")
        parser.add_argument("--money-reward", type=float, default=3.0,
                            help="training: weight of the money-density shaping (default 3; 0 = none)")
    if command in ("solve", "evaluate", "demo", "play"):
        parser.add_argument("--oracle-time-limit", type=float, default=600.0,
                            help="seconds per seed before the oracle reports a bound (default 600)")
        parser.add_argument("--cache", default=None,
                            help="oracle cache folder (default ~/.cache/tabletop-gym)")
    if command in ("solve", "play"):
        parser.add_argument("--deal", help="the deal: the episode seed, a decimal integer")
        parser.add_argument("--seed", type=int, default=None,
                            help="without --deal: the seed (default random)")
    if command == "play":
        parser.add_argument("--opponents", default="",
                            help="comma-separated bots to play against (default: none, the solitaire game)")
        parser.add_argument("--kingdom", default=None,
                            help="kingdom cards, comma-separated "
                                 "(default: solitaire none, versus first-game)")
    if command == "tournament":
        parser.add_argument("--players", required=True, help=f"comma-separated bots: {', '.join(BOTS)}")
        parser.add_argument("--games", type=int, default=1000, help="games (default 1000)")
        parser.add_argument("--seed", type=int, default=0, help="series seed (default 0)")
        parser.add_argument("--kingdom", default="first-game",
                            help='kingdom cards, comma-separated; "" or none for treasures only')
        parser.add_argument("--out", type=Path, default=Path("runs/tournament"), help="folder for the JSON")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    if command == "bench":
        parser.add_argument("--seeds", type=int, default=1000, help="solitaire seeds per bot (default 1000)")
        parser.add_argument("--games", type=int, default=3000, help="games per speed run (default 3000)")
        parser.add_argument("--seed-games", type=int, default=2000,
                            help="games per seed-strategy pairing (default 2000; the seed used 10000)")
        parser.add_argument("--deals", type=int, default=10, help="seeds for the oracle timing (default 10)")
        parser.add_argument("--oracle-kingdom", default="smithy",
                            help='kingdom for the second oracle timing (default smithy; "" skips it)')
        parser.add_argument("--oracle-time-limit", type=float, default=300.0, help="seconds per oracle seed")
        parser.add_argument("--env-steps", type=int, default=20_000, help="steps per environment timing")
        parser.add_argument("--out", type=Path, default=Path("runs/bench"), help="folder for dominion.json")


def _figures(
    scores: Sequence[float], results: Sequence[OracleResult | None], infos: Sequence[dict] = ()
) -> dict[str, float]:
    if infos and all("result" in info for info in infos):
        # The game against bots (tabletop/Dominion-v0): scores are own VP, results +1/0/-1.
        outcomes = [info["result"] for info in infos]
        wins = sum(r == 1 for r in outcomes)
        low, high = wilson(wins, len(outcomes))
        return {"mean_vp": float(np.mean(scores)), "share_win": wins / len(outcomes),
                "win_ci95_low": low, "win_ci95_high": high,
                "share_shared": sum(r == 0 for r in outcomes) / len(outcomes),
                "share_loss": sum(r == -1 for r in outcomes) / len(outcomes),
                "mean_turns": float(np.mean([info["turns"] for info in infos]))}
    # The generic score/optimum column already reads fewest turns / turns taken (scores are -turns).
    turns = [-s for s in scores]
    out = {"mean_turns": float(np.mean(turns))}
    if results and all(r is not None for r in results):
        best = [-r.bound for r in results]  # proven lower bounds on the turns (the optimum when proven)
        out["mean_fewest_turns"] = float(np.mean(best))
        out["mean_extra_turns"] = float(np.mean([t - b for t, b in zip(turns, best, strict=True)]))
    return out


def _deal(args: argparse.Namespace) -> str:
    if args.deal is not None:
        return str(R.parse_seed(args.deal))
    if args.seed is not None:
        return str(R.parse_seed(args.seed))
    return str(int(np.random.default_rng().integers(0, 2**63)))


def _plan_by_turn(deal: str, plan: Sequence[int], target: int, kingdom: str) -> list[str]:
    """The plan's decisions grouped by turn, as text (replayed through the engine)."""
    state = R.DominionState(1, kingdom, deal, target)
    turns: list[list[str]] = [[]]
    for action in plan:
        if state.decision == R.ACTION:
            turns[-1].append("end actions;" if action == R.PASS else f"play {R.CARD_NAMES[action]},")
        elif action != R.PASS:
            turns[-1].append(f"buy {R.CARD_NAMES[action]}")
        elif not any(t.startswith("buy") for t in turns[-1]):
            turns[-1].append("buy nothing")
        state.step(action)
        if state.turns[0] == len(turns) and not state.done:
            turns.append([])
    return [" ".join(t) for t in turns if t]


def _bots_for(kingdom: str) -> list[str]:
    return ["big-money"] + (["smithy-big-money"] if R.SMITHY in R.parse_kingdom(kingdom) else [])


def _solve_command(args: argparse.Namespace) -> int:
    deal = _deal(args)
    result = _solve(deal, args)
    status = "proven optimal" if result.optimal else f"best found; proven at least {-result.bound} turns"
    kingdom = _kingdom(args)
    cards = ", ".join(R.CARD_NAMES[c] for c in R.parse_kingdom(kingdom)) or "none"
    print(f"seed     {deal}; kingdom: {cards}")
    print(f"turns    {-result.score} to own {_target(args)} Provinces ({status}) in {result.seconds:.2f} s")
    for i, text in enumerate(_plan_by_turn(deal, result.plan, _target(args), kingdom), 1):
        print(f"turn {i:2d}  {text}")
    for bot in _bots_for(kingdom):
        print(f"{bot} on this seed: {solitaire_turns(bot, int(deal), _target(args), kingdom)} turns")
    return 0


def _parse_answer(text: str) -> int | None:
    text = text.strip().lower()
    if text in ("p", "pass", "done", "no", "17"):
        return R.PASS
    if text.isdigit() and int(text) < R.NUM_ACTIONS:
        return int(text)
    matches = [i for i, name in enumerate(R.CARD_NAMES) if name.lower().startswith(text)] if text else []
    return matches[0] if len(matches) == 1 else None


def _play(args: argparse.Namespace) -> int:
    opponents = [o for o in args.opponents.split(",") if o]
    if opponents:
        kingdom = args.kingdom if args.kingdom is not None else "first-game"
        env = gym.make(VERSUS_ENV_ID, opponents=opponents, kingdom=kingdom).unwrapped
    else:
        env = gym.make(ENV_ID, kingdom=args.kingdom or "", target=_target(args)).unwrapped
    deal = _deal(args)
    _, info = env.reset(options={"deal": deal})
    state = env.state
    print(f"seed {deal}. Answer with a card name (or its first letters), its number, or pass; q quits.\n")
    while not state.done:
        print(state.describe())
        try:
            answer = input(f"{info['decision']}> ").strip()
        except EOFError:
            print()
            break
        if answer in ("q", "quit"):
            break
        action = _parse_answer(answer)
        if action is None:
            print(f"'{answer}' is not a card or pass\n")
            continue
        try:
            _, _, _, _, info = env.step(action)
        except ValueError as error:
            print(f"{error}\n")
            continue
        print()
    if opponents:
        if state.done:
            outcome = {1: "won", 0: "shared the win", -1: "lost"}[state.results()[env.seat]]
            print(f"game over: you {outcome}; VP {state.scores()}, turns {state.turns}")
        return 0
    print(f"{'game over' if state.done else 'stopped'} after {state.turns[0]} turns")
    kingdom = args.kingdom or ""
    if _oracle_supports(kingdom):
        result = _solve(deal, args)
        print(f"the fewest turns any play of this seed needs: {-result.bound}"
              f"{'' if result.optimal else ' (a lower bound)'}; "
              + "; ".join(f"{bot}: {solitaire_turns(bot, int(deal), _target(args), kingdom)}"
                          for bot in _bots_for(kingdom)))
    return 0


def _print_tournament(report: dict[str, Any]) -> None:
    header = f"{'player':34} {'win':>22} {'shared':>22} {'loss':>22} {'mean VP':>8} {'turns':>6}"
    print(header)
    print("-" * len(header))

    def cell(entry: dict[str, Any], key: str) -> str:
        lo, hi = entry[f"{key}_ci95"]
        return f"{100 * entry[f'{key}_rate']:5.1f}% [{100 * lo:4.1f},{100 * hi:5.1f}]"

    for name, entry in report["players"].items():
        print(f"{name:34} {cell(entry, 'win'):>22} {cell(entry, 'tie'):>22} {cell(entry, 'loss'):>22} "
              f"{entry['mean_vp']:8.2f} {entry['mean_turns']:6.2f}")
        for seat, sub in entry["by_seat"].items():
            print(f"  as seat {seat:25} {cell(sub, 'win'):>22} {cell(sub, 'tie'):>22} "
                  f"{cell(sub, 'loss'):>22}")
    print(f"games {report['games']}; ended level on VP before the tie-break: {report['level_on_vp']} "
          f"({100 * report['level_on_vp'] / report['games']:.1f}%); truncated {report['truncated']}; "
          f"{report['games_per_second']:.0f} games/s ({report['games_per_cpu_second']:.0f} per CPU second)")


def _tournament(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    for n in names:
        make_bot(n)  # a clear error for an unknown bot before any game
    report = tournament(names, args.games, args.seed, args.kingdom, progress=not args.no_progress)
    _print_tournament(report)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"dominion-{'-vs-'.join(names)}.json"
    atomic_write_text(path, json.dumps(report, indent=1))
    print(f"written to {path}")
    return 0


def _games_per_second(names: Sequence[str], games: int, seed: int, kingdom: Any) -> tuple[float, float]:
    out = tournament(names, games, seed, kingdom)
    return out["games_per_second"], out["games_per_cpu_second"]


def _bench(args: argparse.Namespace) -> int:
    """Bots' solitaire turns, games per second, the seed's pairings, oracle times, env steps/s."""
    target = _target(args)
    report: dict[str, Any] = {"target": target}
    for bot, kingdom in (("big-money", ""), ("big-money-ultimate", ""), ("smithy-big-money", "first-game")):
        seeds = tqdm(range(args.seeds), desc=bot, unit="seed")
        turns = [solitaire_turns(bot, s, target, kingdom) for s in seeds]
        report[f"solitaire_turns_{bot}_mean"] = statistics.mean(turns)
        report[f"solitaire_turns_{bot}_median"] = statistics.median(turns)
    # Wall-clock rates, and rates per CPU second of this process (one core; a busy machine slows the
    # wall clock, not the CPU time).
    for label, names, kingdom, games in (("bm_vs_bm", ["big-money", "big-money"], "", args.games),
                                         ("smithy_vs_bm_first_game", ["smithy-big-money", "big-money"],
                                          "first-game", args.games // 2)):
        rates = [_games_per_second(names, games, s, kingdom) for s in range(5)]
        report[f"{label}_games_per_second_median"] = statistics.median(r[0] for r in rates)
        report[f"{label}_games_per_cpu_second_median"] = statistics.median(r[1] for r in rates)
    for a, b in SEED_PAIRINGS:
        out = tournament([a, b], args.seed_games, 2012, "")
        key = f"seed_pairing_{a}_vs_{b}"
        names = list(out["players"])
        first = out["players"][names[0]]["by_seat"]["0"]
        report[key] = {
            "games": args.seed_games,
            f"{names[0]}_wins": out["players"][names[0]]["win"],
            f"{names[1]}_wins": out["players"][names[1]]["win"],
            "shared": out["players"][names[0]]["tie"],
            "level_on_vp": out["level_on_vp"],
            f"{names[0]}_as_first_player_win_rate": first["win_rate"],
        }
    times, optimum, bm = [], [], []
    for seed in tqdm(range(args.deals), desc="oracle", unit="seed"):
        result = oracle.solve(seed, target, args.oracle_time_limit)
        times.append(result.seconds)
        optimum.append(-result.score if result.optimal else float("nan"))
        bm.append(solitaire_turns(BigMoney(), seed, target))
    report["oracle_seeds"] = args.deals
    report["oracle_median_seconds"] = statistics.median(times)
    report["oracle_max_seconds"] = max(times)
    report["oracle_proven_optimal"] = sum(not np.isnan(o) for o in optimum)
    report["oracle_mean_fewest_turns"] = float(np.nanmean(optimum))
    report["big_money_mean_turns_on_those_seeds"] = statistics.mean(bm)
    kingdom = args.oracle_kingdom
    if kingdom:
        # The exact search with kingdom cards (a cut-off seed counts with its time and no optimum).
        label = "oracle_" + "_".join(R.CARD_NAMES[c].lower() for c in oracle.oracle_kingdom(kingdom))
        results = [oracle.solve(seed, target, args.oracle_time_limit, kingdom=kingdom)
                   for seed in tqdm(range(args.deals), desc=label, unit="seed")]
        report[f"{label}_median_seconds"] = statistics.median(r.seconds for r in results)
        report[f"{label}_max_seconds"] = max(r.seconds for r in results)
        report[f"{label}_proven_optimal"] = sum(r.optimal for r in results)
        report[f"{label}_mean_turns_found"] = statistics.mean(-r.score for r in results)
        report[f"{label}_mean_lower_bound_turns"] = statistics.mean(-r.bound for r in results)
        report[f"{label}_mean_best_bot_turns"] = statistics.mean(
            min(solitaire_turns(b, seed, target, kingdom) for b in _bots_for(kingdom))
            for seed in range(args.deals))
    report["solitaire_env_steps_per_second_median"] = statistics.median(
        [env_steps_per_second(gym.make(ENV_ID).unwrapped, args.env_steps, s) for s in range(3)])
    width = max(len(k) for k in report)
    for key, value in report.items():
        text = f"{value:.3f}" if isinstance(value, float) else str(value)
        print(f"{key.ljust(width)}  {text}")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "dominion.json", json.dumps(report, indent=1))
    print(f"written to {args.out / 'dominion.json'}")
    return 0


def _bot_agent(name: str):
    return lambda args: make_bot(name)


SPEC = GameSpec(
    name="dominion",
    env_id=ENV_ID,
    agents={"random": lambda args: RandomAgent(), "greedy": lambda args: BigMoney(),
            **{name: _bot_agent(name) for name in BOTS if name != "random"}},
    oracle=_oracle,
    env_kwargs=_env_kwargs,
    env_id_for=_env_id,
    add_arguments=_add_arguments,
    figures=_figures,
    commands={"solve": _solve_command, "play": _play, "bench": _bench, "tournament": _tournament},
    score_name="minus turns",
    # Episodes are long (20-60 decisions, one reward per turn): rollouts of 256 steps in each of the
    # 8 environments hold several whole episodes; gamma 1 because the return is the turn count itself.
    ppo={"n_steps": 256, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4, "gamma": 1.0,
         "gae_lambda": 0.95, "ent_coef": 0.01, "net_arch": [128, 128]},
)

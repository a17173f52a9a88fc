"""The ``tabletop-gym`` command line: play, solve, train, evaluate, demo, bench (and game extras)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tabletop_gym.core import TabletopError
from tabletop_gym.training.games import GameSpec, game_names, get_game

GENERIC = ("evaluate", "train", "demo")
PER_GAME = ("play", "solve", "bench", "tournament", "stats")
HELP = {
    "play": "play a game in the terminal",
    "solve": "solve one deal exactly with the game's oracle",
    "train": "train a MaskablePPO agent",
    "evaluate": "score agents against the oracle on seeded deals",
    "demo": "train a small agent, then evaluate it beside random and greedy",
    "bench": "measure the oracle and environment speed",
    "tournament": "play bots against each other",
    "stats": "statistics of games under fixed rules",
}


def _agent_list(text: str) -> list[str]:
    return [a for a in text.split(",") if a]


def _add_generic(parser: argparse.ArgumentParser, command: str) -> None:
    if command in ("evaluate", "demo"):
        parser.add_argument("--episodes", type=int, default=200, help="deals to play (default 200)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the first deal (default 0)")
    if command == "evaluate":
        parser.add_argument(
            "--agent",
            action="extend",
            type=_agent_list,
            required=True,
            help="random, greedy, oracle or a trained model's path; repeat or comma-separate to compare",
        )
        parser.add_argument("--out", type=Path, default=Path("runs/evaluate"), help="report folder")
    if command in ("train", "demo"):
        default_steps = 200_000 if command == "train" else 150_000
        parser.add_argument("--steps", type=int, default=default_steps, help="environment steps")
        parser.add_argument("--n-envs", type=int, default=8, help="environments stepped side by side")
    if command == "train":
        parser.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
        parser.add_argument("--out", type=Path, default=Path("runs/train"), help="model and config folder")
    if command == "demo":
        parser.add_argument("--out", type=Path, default=Path("runs/demo"), help="demo folder")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop-gym", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    specs = {name: get_game(name) for name in game_names()}
    for command in GENERIC + PER_GAME:
        owners = [n for n, s in specs.items() if command in GENERIC or command in s.commands]
        if not owners:
            continue
        sub = commands.add_parser(command, help=HELP[command])
        games = sub.add_subparsers(dest="game", required=True, metavar="GAME")
        for name in owners:
            game_parser = games.add_parser(name, help=f"{command} {name}")
            if command in GENERIC:
                _add_generic(game_parser, command)
            specs[name].add_arguments(game_parser, command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    spec = get_game(args.game)
    try:
        if args.command == "evaluate":
            return _evaluate(spec, args)
        if args.command == "train":
            return _train(spec, args)
        if args.command == "demo":
            return _demo(spec, args)
        return spec.commands[args.command](args)
    except (TabletopError, ValueError, FileNotFoundError) as error:
        print(f"tabletop-gym: error: {error}", file=sys.stderr)
        return 2


def _evaluate(spec: GameSpec, args: argparse.Namespace, agents: Sequence[str] | None = None) -> int:
    from tabletop_gym.training.evaluate import evaluate, format_table

    report = evaluate(
        spec,
        agents or args.agent,
        args.episodes,
        args.seed,
        args,
        out=args.out,
        progress=not args.no_progress,
    )
    print(format_table(report))
    print(f"report: {args.out / 'evaluation.json'}")
    if report.get("plot"):
        print(f"plot:   {report['plot']}")
    return 0


def _train(spec: GameSpec, args: argparse.Namespace) -> int:
    from tabletop_gym.training.train import train

    path = train(
        spec, args.steps, args.seed, args.out, args, n_envs=args.n_envs, progress=not args.no_progress
    )
    config = json.loads((args.out / "config.json").read_text())
    print(f"model:  {path}  ({config['steps_done']} steps in {config['train_seconds']} s)")
    print(f"config: {args.out / 'config.json'}")
    return 0


def _demo(spec: GameSpec, args: argparse.Namespace) -> int:
    """Train a small agent for a short budget, then evaluate it beside random and greedy."""
    from tabletop_gym.training.train import train

    out: Path = args.out
    print(f"[1/2] training MaskablePPO on {spec.environment(args)[0]} for {args.steps} steps")
    model = train(
        spec, args.steps, args.seed, out / "agent", args, n_envs=args.n_envs, progress=not args.no_progress
    )
    print(f"[2/2] evaluating on {args.episodes} deals against the oracle")
    args.out = out / "evaluation"
    baselines = [a for a in ("random", "greedy") if a in spec.agents]
    return _evaluate(spec, args, baselines + [str(model.parent)])


if __name__ == "__main__":
    sys.exit(main())

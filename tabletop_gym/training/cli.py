"""The ``tabletop-gym`` command line: play, solve, train, evaluate, demo, bench, draw (and game extras)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shlex
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import tabletop_gym
from tabletop_gym.core import TabletopError, default_cache_dir, hold_output, quote_input
from tabletop_gym.training.arguments import (
    MAX_BLUNDER,
    MAX_EPISODES,
    MAX_STEPS,
    MAX_VIDEOS,
    Parser,
    check_cache_dir,
    check_file_path,
    check_output_dir,
    float_arg,
    int_arg,
    nonempty,
    one_line,
    path_arg,
    seed_arg,
    stop_on_broken_pipe,
)
from tabletop_gym.training.bench import STARTUP, add_startup_arguments, startup_bench
from tabletop_gym.training.games import DEFAULT_VECTOR_PPO, GameSpec, game_names, get_game

GENERIC = ("evaluate", "train", "demo")
PER_GAME = ("play", "solve", "bench", "tournament", "stats")
HELP = {
    "play": "play a game in the terminal",
    "solve": "solve a deal with the game's oracle, or many with --deals",
    "train": "train a MaskablePPO agent (on the game's native vector environment where it has one)",
    "evaluate": "score agents against the oracle on seeded deals",
    "demo": "train a small agent, then evaluate it beside random and greedy",
    "bench": "measure the oracle and environment speed",
    "tournament": "play bots against each other",
    "stats": "statistics of games under fixed rules",
    "suite": "certified evaluation suites: list, check or build them",
    "baselines": "train and evaluate every agent on every game's suite: the baselines table",
    "dataset": "write a suite's proven oracle plans as a Minari dataset (offline RL, imitation)",
    "draw": "draw a position of an environment as a picture (SVG or PNG)",
    "pretrained": "the trained agents shipped with the package: list them, or make one from a train run",
}


def _agent_list(text: str) -> list[str]:
    names = [a.strip() for a in nonempty(text).split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"an empty agent name in {text!r}")
    return names


def _add_generic(parser: argparse.ArgumentParser, command: str, spec: GameSpec) -> None:
    if command == "demo":
        parser.add_argument(
            "--episodes",
            type=int_arg(1, MAX_EPISODES),
            default=200,
            help=f"deals to play, 1-{MAX_EPISODES:,} (default 200)",
        )
        parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the first deal (default 0)")
    if command == "evaluate":
        # None: 200 seeded deals, or every deal of --suite (its first N with --episodes N).
        parser.add_argument(
            "--episodes",
            type=int_arg(1, MAX_EPISODES),
            default=None,
            help=f"deals, 1-{MAX_EPISODES:,} (default 200, or the whole suite)",
        )
        parser.add_argument(
            "--seed", type=seed_arg, default=None, help="seed of the first deal (default 0; not with --suite)"
        )
        parser.add_argument(
            "--suite",
            type=nonempty,
            default=None,
            help="play a certified suite's deals against its stored oracle results, solving nothing: a "
            "version (v0), a suite id (cribbage-v0) or a suite file; see 'tabletop-gym suite list'",
        )
        parser.add_argument(
            "--agent",
            action="extend",
            type=_agent_list,
            required=True,
            help=f"{', '.join(spec.agent_names())}, or a trained model's path (a folder written by "
            "'tabletop-gym train' or its model.zip), or pretrained (the agent shipped with the package for "
            "the environment's id, at its default settings); repeat or comma-separate to compare",
        )
        parser.add_argument(
            "--out",
            type=path_arg,
            default=Path("runs/evaluate") / spec.name,
            help=f"report folder (default runs/evaluate/{spec.name})",
        )
        parser.add_argument(
            "--moves",
            action="store_true",
            help="value every decision with the oracle instead: the share of optimal moves, the points "
            "lost per game, blunders and where in the game they happen (moves.json, moves.png)",
        )
        parser.add_argument(
            "--blunder",
            type=float_arg(0, MAX_BLUNDER, low_open=True),
            default=None,
            help="with --moves: a decision losing more points than this is a blunder"
            + (f" (default {spec.moves.blunder:g})" if spec.moves is not None else ""),
        )
        parser.add_argument(
            "--video",
            type=int_arg(1, MAX_VIDEOS),
            default=None,
            metavar="N",
            help=f"record each agent's first N episodes, 1-{MAX_VIDEOS:,}, as OUT/videos/AGENT-episode-I.mp4 "
            "(needs the video extra: pip install 'tabletop-gym[video]')",
        )
        from tabletop_gym.training.batch import add_ray_arguments

        add_ray_arguments(parser)  # the oracle's solves of the evaluation's deals as Ray tasks
    if command in ("train", "demo"):
        default_steps = 200_000 if command == "train" else 150_000
        parser.add_argument(
            "--steps",
            type=int_arg(1, MAX_STEPS),
            default=default_steps,
            help=f"environment steps, 1-{MAX_STEPS:,} (default {default_steps})",
        )
        parser.add_argument(
            "--n-envs",
            type=int_arg(1, 4096),
            default=None,
            help="games played side by side, 1-4096 (default: 8 with --trainer sb3, "
            f"{_vector_envs(spec)} with --trainer vector)",
        )
        parser.add_argument(
            "--trainer",
            choices=("vector", "sb3"),
            default=None,
            help="who collects the rollouts: vector, the fast masked PPO loop on the game's native vector "
            "environment, or sb3, MaskablePPO.learn on single environments; both save the same MaskablePPO "
            "model (default: vector where the game has a native vector environment"
            + (", as this one has" if _has_vector_env(spec) else ", which this one has not") + ")",
        )
        parser.add_argument(
            "--checkpoint-every",
            type=int_arg(0, MAX_STEPS),
            default=50_000,
            help="save a checkpoint every N steps, 0 for none (default 50000); Ctrl-C also saves one",
        )
    if command == "train":
        parser.add_argument("--seed", type=seed_arg, default=0, help="training seed (default 0)")
        # One folder per game by default: a run refuses a folder holding another game's model.
        parser.add_argument(
            "--out",
            type=path_arg,
            default=Path("runs/train") / spec.name,
            help=f"model and config folder (default runs/train/{spec.name})",
        )
        parser.add_argument(
            "--resume",
            action="store_true",
            help="continue the run in --out from its model or latest checkpoint up to --steps in all",
        )
        if spec.self_play is not None:
            _add_self_play_arguments(parser, spec)
        _add_teacher_arguments(parser)
    if command == "demo":
        parser.add_argument(
            "--out",
            type=path_arg,
            default=Path("runs/demo") / spec.name,
            help=f"demo folder (default runs/demo/{spec.name})",
        )
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _has_vector_env(spec: GameSpec) -> bool:
    import gymnasium as gym

    return gym.spec(spec.env_id).vector_entry_point is not None


def _vector_envs(spec: GameSpec) -> int:
    return {**DEFAULT_VECTOR_PPO, **spec.vector_ppo}["n_envs"]


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: every command, game and option."""
    return _build_parser(None)


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser of one run: every command listed, only the one ``argv`` names filled in (its games
    and options), so that ``--version`` and ``--help`` load no game and a command loads only the
    games it parses. What it parses and prints is what ``build_parser()``'s would."""
    return _build_parser(argv)


def _build_parser(argv: Sequence[str] | None) -> argparse.ArgumentParser:
    parser = Parser(prog="tabletop-gym", description=__doc__.replace("``", "'"))
    parser.add_argument("--version", action="version", version=f"tabletop-gym {tabletop_gym.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # The top level's options take no value: the first word that is not one names the command.
    named = None if argv is None else next((a for a in argv if not a.startswith("-")), None)

    def listed_only(command: str) -> bool:
        if argv is None or command == named:
            return False
        commands.add_parser(command, help=HELP[command])  # in the help's list, parsed by no run
        return True

    if not listed_only("suite"):
        _add_suite_command(commands)
    if not listed_only("baselines"):
        _add_baselines_command(commands)
    if not listed_only("dataset"):
        _add_dataset_command(commands)
    if not listed_only("pretrained"):
        _add_pretrained_command(commands)
    if not listed_only("draw"):
        from tabletop_gym.training.pictures import add_draw_command

        add_draw_command(commands, HELP["draw"])
    wanted = [c for c in GENERIC + PER_GAME if argv is None or c == named]
    specs = {name: get_game(name) for name in game_names()} if wanted else {}
    for command in GENERIC + PER_GAME:
        if listed_only(command):
            continue
        owners = [n for n, s in specs.items() if command in GENERIC or command in s.commands]
        if not owners:
            continue
        sub = commands.add_parser(command, help=HELP[command])
        games = sub.add_subparsers(dest="game", required=True, metavar="GAME")
        for name in owners:
            game_parser = games.add_parser(name, help=f"{command} {name}")
            if command in GENERIC:
                _add_generic(game_parser, command, specs[name])
            specs[name].add_arguments(game_parser, command)
            if command == "solve" and specs[name].oracle is not None:
                from tabletop_gym.training.batch import add_batch_arguments

                add_batch_arguments(game_parser)  # --deals SPEC --out FILE [--ray]: every game alike
                from tabletop_gym.training.pictures import add_draw_argument

                add_draw_argument(game_parser)  # --draw FILE.svg|png: the oracle's plan
            if command == "demo":
                # The settings of the game's demo: ones its oracle serves, a budget that fits.
                game_parser.set_defaults(**specs[name].demo)
        if command == "bench":
            add_startup_arguments(games.add_parser(STARTUP, help="the command line's own start"))
    return parser


def _add_suite_command(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser("suite", help=HELP["suite"])
    actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser(
        "list", help="the shipped and user-built suites, checked, with their sizes and mean results"
    )
    check = actions.add_parser("check", help="load a suite: checksum, environment, every plan replayed")
    check.add_argument("suite", type=nonempty, help="suite id (cribbage-v0) or suite file")
    build = actions.add_parser("build", help="make or resume a suite (entries already written are kept)")
    build.add_argument("suite", type=nonempty, help="suite id, e.g. cribbage-v0 (a new version: cribbage-v1)")
    build.add_argument(
        "--size", type=int_arg(1, 1_000_000), default=None, help="deals (default: the suite's size)"
    )
    build.add_argument(
        "--out",
        dest="suite_file",  # a file, not the report folder that _check_paths makes for --out
        type=path_arg,
        default=None,
        help="suite file (default: ID.json in $TABLETOP_GYM_SUITES or ~/.local/share/tabletop-gym/suites; "
        "a suite the package ships is only checked)",
    )
    build.add_argument("--cache", type=path_arg, default=None, help="oracle cache folder")
    build.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_pretrained_command(commands: argparse._SubParsersAction) -> None:
    import gymnasium as gym

    sub = commands.add_parser("pretrained", help=HELP["pretrained"])
    actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="each shipped agent: its environment id, its score and the command that "
                       "trained it")
    export = actions.add_parser(
        "export", help="(maintainers) make or remake an id's shipped agent from a 'tabletop-gym train' run"
    )
    export.add_argument("run", type=path_arg, help="the train run's folder (its model.zip and config.json)")
    ids = sorted(i for i, s in gym.registry.items() if str(s.entry_point).startswith("tabletop_gym."))
    export.add_argument("--id", dest="env_id", choices=ids, required=True,
                        help="the environment id whose agent it becomes (the run must be of its default "
                        "settings)")
    export.add_argument("--command", dest="train_command", type=nonempty, default=None,
                        help="the 'tabletop-gym train ...' command that made the run (default: the one its "
                        "config.json records)")
    export.add_argument("--into", type=path_arg, default=None,
                        help="the folder of the index and files (default: the package's own data)")
    export.add_argument("--episodes", type=int_arg(1, MAX_EPISODES), default=None,
                        help="games of the score: the first N of the covering suite (default: all of it), "
                        "else N seeded games (default 200)")
    export.add_argument("--no-progress", action="store_true", help="no progress bars")


def _pretrained(args: argparse.Namespace) -> int:
    from tabletop_gym.agents.shipped import PretrainedError, index
    from tabletop_gym.training.pretrained import export, format_index, run_config, split_command

    if args.action == "list":
        print(format_index(index()))
        return 0
    command = args.train_command or run_config(args.run).get("command")
    if not command:
        raise PretrainedError(f"{args.run / 'config.json'} records no command (a run made before train "
                              "recorded it): give the one that made it with --command")
    words = split_command(command)
    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            train_args = parser_for(words).parse_args(words)
    except SystemExit:
        raise PretrainedError(f"--command {command!r} is not a command tabletop-gym reads "
                              f"({one_line(said.getvalue().strip(), 300)})") from None
    entry = export(args.run, args.env_id, command, train_args, args.into, progress=not args.no_progress,
                   episodes=args.episodes)
    print(format_index({args.env_id: entry}))
    return 0


def _env_option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE``; the value read as JSON where it is JSON (``null``, ``3``), else as text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value


def _add_dataset_command(commands: argparse._SubParsersAction) -> None:
    from tabletop_gym.training.dataset import NAMESPACE

    sub = commands.add_parser("dataset", help=HELP["dataset"])
    games = sub.add_subparsers(dest="game", required=True, metavar="GAME")
    for name in game_names():
        parser = games.add_parser(name, help=f"dataset {name}")
        parser.add_argument(
            "--suite",
            type=nonempty,
            required=True,
            help=f"a certified {name} suite: its id (see 'tabletop-gym suite list') or a suite file; the "
            f"dataset is {NAMESPACE}/SUITE-ID/oracle-v0",
        )
        parser.add_argument(
            "--out",
            type=path_arg,
            default=None,
            help="datasets folder (default: Minari's, $MINARI_DATASETS_PATH or ~/.minari/datasets)",
        )
        parser.add_argument("--force", action="store_true", help="replace the dataset if it exists")
        parser.add_argument(
            "--limit", type=int_arg(1, 1_000_000), default=None, help="only the suite's first K deals"
        )
        parser.add_argument(
            "--env-option",
            dest="env_options",
            action="append",
            type=_env_option,
            default=[],
            metavar="KEY=VALUE",
            help="an environment argument that changes only what the seat is shown (War: "
            "observation=hidden); repeat for several",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _dataset(args: argparse.Namespace) -> int:
    from tabletop_gym.training.dataset import datasets_root, write

    report = write(
        args.game,
        args.suite,
        out=args.out,
        force=args.force,
        limit=args.limit,
        env_options=dict(args.env_options),
        progress=not args.no_progress,
    )
    skipped = report.skipped_bounds
    skipped = f"; {skipped} deals skipped (bounds, not proven optima)" if skipped else ""
    print(f"{report.dataset_id}: {report.episodes} episodes, {report.steps} steps{skipped}")
    if report.hindsight_plan:
        print("hindsight plans: the seat does not see the whole deal, the oracle's moves used it")
    print(f"written to {report.path}")
    root = datasets_root(args.out)
    where = "" if args.out is None else f"MINARI_DATASETS_PATH={root} "
    print(f"load it with: {where}python -c \"import minari; minari.load_dataset('{report.dataset_id}')\"")
    return 0


def _suite_list(text: str) -> list[str]:
    names = [n.strip() for n in nonempty(text).split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"an empty suite id in {text!r}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        # A suite twice would be one game counted twice in the IQM across games.
        raise argparse.ArgumentTypeError(f"suite {', '.join(repeated)} named twice: name each suite once")
    return names


def _add_baselines_command(commands: argparse._SubParsersAction) -> None:
    from tabletop_gym.training.baselines import default_episodes, default_suites
    from tabletop_gym.training.games import BUDGETS, LARGE_FACTOR

    sub = commands.add_parser("baselines", help=HELP["baselines"])
    sub.add_argument(
        "--budget",
        choices=BUDGETS,
        default="large",
        help=f"small: the first published table's budgets (a quick look), with MaskablePPO on single "
        f"environments; large: {LARGE_FACTOR} times those or more, with the vector trainer where the game "
        "has a native vector environment, on the suites at their target sizes (default large)",
    )
    sub.add_argument(
        "--suites",
        type=_suite_list,
        default=None,
        help="comma-separated suite ids (default: each game's suite of the budget; small: "
        f"{','.join(default_suites('small'))}; large: {','.join(default_suites('large'))})",
    )
    sub.add_argument("--seeds", type=int_arg(1, 100), default=3, help="training seeds per game (default 3)")
    sub.add_argument(
        "--steps",
        type=int_arg(1, MAX_STEPS),
        default=None,
        help="environment steps per training run (default: each game's budget, see the README)",
    )
    sub.add_argument(
        "--episodes",
        type=int_arg(1, MAX_EPISODES),
        default=None,
        help="play only each suite's first N deals (default all"
        + "".join(f"; {suite}: {n} with --budget small" for suite, n in default_episodes("small").items())
        + ")",
    )
    sub.add_argument("--out", type=path_arg, default=Path("runs/baselines"), help="report and models folder")
    sub.add_argument("--no-progress", action="store_true", help="no progress bars")


def _baselines(args: argparse.Namespace) -> int:
    from tabletop_gym.training.baselines import run_baselines

    report = run_baselines(
        args.suites, args.seeds, args.steps, args.out, args.episodes, progress=not args.no_progress,
        budget=args.budget,
    )
    print((args.out / "baselines.md").read_text(), end="")
    print(f"report: {args.out / 'baselines.json'}")
    if report.get("plot"):
        print(f"plot:   {report['plot']}")
    for curve in report.get("curves", []):
        print(f"curve:  {curve}")
    return 0


def _suite(args: argparse.Namespace) -> int:
    from tabletop_gym.training import suites

    if args.action == "build":
        check_cache_dir(args.cache)
        if args.suite_file is not None:
            from tabletop_gym.training.arguments import check_output_file

            check_file_path(args.suite_file)  # a name no file can have
            check_output_file(args.suite_file)  # a folder, a device or a FIFO is refused before any work
        elif not suites.suite_path(args.suite).is_file():  # a shipped suite is only checked
            check_output_dir(suites.user_dir(), "the suite folder ($TABLETOP_GYM_SUITES)")
        progress = not args.no_progress
        suite = suites.build(args.suite, args.size, args.suite_file, args.cache, progress=progress)
        meta, optimal = suite.meta, sum(e.optimal for e in suite.entries)
        if not suite.solved_now:
            print(f"{suite.id}: nothing to solve: its {len(suite)} deals ({optimal} proven optimal) are all "
                  f"in {suite.path}")
            return 0
        print(
            f"{suite.id}: {len(suite)} deals, {optimal} proven optimal; {suite.solved_now} solved now; built "
            f"in {meta['build_wall_seconds']} s ({meta['build_cpu_seconds']} s CPU) over every run of the "
            f"build; written to {suite.path}"
        )
        return 0
    if args.action == "list":
        names = [(n, "shipped") for n in suites.available()] + [(n, "user") for n in suites.user_built()]
    else:
        names = [(args.suite, "file" if args.suite.endswith(".json") else "")]
    print(
        f"{'suite':18} {'source':8} {'deals':>8} {'optimal':>8} {'mean score':>11} {'mean bound':>11}"
        "  options"
    )
    refused = 0
    for name, source in names:
        try:
            row = suites.load(Path(name) if name.endswith(".json") else name).summary()
        except suites.SuiteError as error:
            if args.action == "check":
                raise
            # The listing goes on, but a refused suite is shown as refused and the status says so.
            print(f"{name:18} {source:8} refused: {error}")
            refused += 1
            continue
        size = f"{row['deals']}" + (f"/{row['target_size']}" if row["target_size"] != row["deals"] else "")
        source = source or ("shipped" if name in suites.available() else "user")
        print(
            f"{row['id']:18} {source:8} {size:>8} {row['optimal']:>8} {row['mean_score']:>11.2f} "
            f"{row['mean_bound']:>11.2f}  {row['options']}"
        )
    if args.action == "list" and suites.user_built():
        print(f"user-built suites (source 'user') are in {suites.user_dir()} ($TABLETOP_GYM_SUITES)")
    if args.action == "check":
        print("checked: checksum, environment, every deal and every plan replayed through the engine")
    return 1 if refused else 0


_PACKAGE = Path(__file__).resolve().parents[1]
_show_warning = warnings.showwarning


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """The package's own warnings as one line each, as its errors are; other libraries' as usual."""
    if Path(filename).resolve().is_relative_to(_PACKAGE):
        print(f"tabletop-gym: warning: {one_line(message)}", file=file or sys.stderr)
    else:
        _show_warning(message, category, filename, lineno, file, line)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure a user can cause ends with a one-line message, not a traceback.
    Ctrl-C at any moment (parsing, loading a game's module, the command) gives exit status 130."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_line
            return _main(argv)
    except KeyboardInterrupt as interrupt:
        return _interrupted(interrupt)


def _interrupted(interrupt: KeyboardInterrupt) -> int:
    """One line and 130 (128 + SIGINT): what an interrupted command prints and returns. Whatever the
    command had not finished is dropped, never written as a result; a command that kept something to
    resume from says so in the interrupt's message."""
    detail = one_line(interrupt) if str(interrupt) else ""
    print(f"\ntabletop-gym: interrupted{' ' + detail if detail else ''}", file=sys.stderr)
    return 130


def _main(argv: Sequence[str] | None) -> int:
    parser = parser_for(sys.argv[1:] if argv is None else argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # Point to the help of the command that refused them, where its options are listed.
        where = " ".join(
            ["tabletop-gym", args.command]
            + [v for v in (getattr(args, "game", None), getattr(args, "action", None)) if isinstance(v, str)]
        )
        parser.exit(2, f"{where}: error: unrecognized arguments: {' '.join(unknown)} (see: {where} --help)\n")
    # The suite and baselines commands name their games through suites; bench startup names none.
    startup = args.command == "bench" and args.game == STARTUP
    no_game = ("suite", "baselines", "draw", "pretrained")
    spec = get_game(args.game) if args.command not in no_game and not startup else None
    try:
        _check_paths(args)
        chosen = [f"--{k}" for k in ("deal", "seed") if getattr(args, k, None) is not None]
        if len(chosen) == 2:
            # Each names the deal on its own: taking one and dropping the other would play a deal
            # the user did not ask for.
            raise ValueError("--deal and --seed both choose the deal: give one of them")
        if chosen and getattr(args, "free", False):
            # The free-deal oracles (Nmbr9, Modern Art) choose the deal themselves.
            raise ValueError(f"--free chooses the deal itself ({chosen[0]}): --deal and --seed do not apply")
        if args.command == "suite":
            status = _suite(args)
        elif args.command == "pretrained":
            status = _pretrained(args)
        elif args.command == "baselines":
            status = _baselines(args)
        elif args.command == "dataset":
            status = _dataset(args)
        elif args.command == "draw":
            from tabletop_gym.training.pictures import draw_command

            status = draw_command(args)
        elif args.command == "evaluate":
            status = _evaluate(spec, args)
        elif args.command == "train":
            # The command as given, which train records in config.json (how a shipped agent was made).
            given = sys.argv[1:] if argv is None else argv
            status = _train(spec, args, shlex.join(["tabletop-gym", *given]))
        elif args.command == "demo":
            with hold_output(args.out, folder=True):  # its agent and its evaluation, one demo at a time
                status = _demo(spec, args)
        elif startup:
            status = startup_bench(args)
        elif args.command == "bench" and getattr(args, "train", False):
            if getattr(args, "vector", False):
                raise ValueError("--vector times the environment, --train the training: give one of them")
            from tabletop_gym.training.train_bench import train_bench_command

            status = train_bench_command(spec, args)
        elif args.command == "solve" and getattr(args, "deals", None) is not None:
            status = _solve_batch(spec, args)
        else:
            if args.command == "solve" and hasattr(args, "deals"):
                from tabletop_gym.training.batch import check_batch_options

                check_batch_options(args)  # batch options without --deals are refused, not ignored
            status = spec.commands[args.command](args)
        sys.stdout.flush()
        return status
    except KeyboardInterrupt as interrupt:
        return _interrupted(interrupt)
    except BrokenPipeError:
        return stop_on_broken_pipe()
    except (TabletopError, ValueError, TypeError, OSError, ImportError) as error:
        print(f"tabletop-gym: error: {one_line(error)}", file=sys.stderr)
        return 2


def _check_paths(args: argparse.Namespace) -> None:
    """Refuse an output folder that cannot be written before any work is done."""
    out = getattr(args, "out", None)
    if isinstance(out, Path):
        check_output_dir(out)
    draw = getattr(args, "draw", None)
    if isinstance(draw, Path) and getattr(args, "deals", None) is None:  # with --deals: refused as such
        from tabletop_gym.training.pictures import check_picture_output

        check_picture_output(draw, "--draw")
    cache = getattr(args, "cache", None)
    if isinstance(cache, Path):
        check_cache_dir(cache)
    elif hasattr(args, "cache") and os.environ.get("TABLETOP_GYM_CACHE"):
        # The cache the oracle opens without --cache, refused alike before any work.
        check_cache_dir(default_cache_dir(), "$TABLETOP_GYM_CACHE")


def _solve_batch(spec: GameSpec, args: argparse.Namespace) -> int:
    """``solve GAME --deals SPEC --out FILE``: the generic batch path, the same for every game."""
    from tabletop_gym.training.batch import check_batch_options, run_batch

    check_batch_options(args)
    report = run_batch(
        spec.name,
        args,
        args.deals,
        args.batch_out,
        ray_address=args.ray,
        ray_cpus=args.ray_cpus,
        cpus_per_deal=args.cpus_per_deal,
        progress=not getattr(args, "no_progress", False),
    )
    print(report.summary())
    print(f"results: {args.batch_out}")
    return 1 if report.failures else 0


def _evaluate(spec: GameSpec, args: argparse.Namespace, agents: Sequence[str] | None = None) -> int:
    from tabletop_gym.training.evaluate import evaluate, format_table

    suite = None
    if getattr(args, "suite", None) is not None:
        from tabletop_gym.training.suites import resolve

        if getattr(args, "ray", None) is not None:
            raise ValueError("--ray solves the oracle's deals; with --suite nothing is solved")
        suite = resolve(spec.name, args.suite, args)  # loaded and checked: every plan replayed
    if getattr(args, "moves", False):
        return _evaluate_moves(spec, args, suite)
    if getattr(args, "blunder", None) is not None:
        raise ValueError("--blunder is an option of --moves: add --moves, or leave it out")
    solve_first = None
    if hasattr(args, "ray"):  # evaluate's options (demo has none)
        from tabletop_gym.training.batch import check_ray_options

        check_ray_options(args)
        if args.ray is None and args.cpus_per_deal is not None:
            raise ValueError("--cpus-per-deal sizes the Ray tasks of the oracle's solves: give --ray too")
    if getattr(args, "ray", None) is not None and spec.oracle is not None:
        from tabletop_gym.training.batch import presolve

        def solve_first(seeds: Sequence[int]) -> dict:
            return presolve(
                spec.name, args, seeds, args.ray, args.ray_cpus, args.cpus_per_deal, not args.no_progress
            )

    report = evaluate(
        spec,
        agents or args.agent,
        args.episodes,
        args.seed,
        args,
        out=args.out,
        progress=not args.no_progress,
        suite=suite,
        solve_first=solve_first,
        video=getattr(args, "video", None) or 0,
    )
    if suite is not None:
        print(f"suite {suite.id}: {report['episodes']} deals, oracle results as stored (nothing solved)")
    print(format_table(report))
    if report.get("write_error"):
        print(f"tabletop-gym: error: {report['write_error']}", file=sys.stderr)
        return 1
    print(f"report: {args.out / 'evaluation.json'}")
    if report.get("plot"):
        print(f"plot:   {report['plot']}")
    videos = sum(len(entry.get("videos", ())) for entry in report["agents"].values())
    if videos:
        print(f"videos: {videos} in {args.out / 'videos'}")
    return 0


def _evaluate_moves(spec: GameSpec, args: argparse.Namespace, suite: Any) -> int:
    """``evaluate GAME --moves``: every decision of every agent valued by the game's move oracle."""
    from tabletop_gym.training.moves import MOVES_JSON, evaluate_moves, format_moves_table

    if any(getattr(args, k) is not None for k in ("ray", "ray_cpus", "cpus_per_deal")):
        raise ValueError("--moves values the deals here, one move oracle a deal: --ray does not apply")
    report = evaluate_moves(
        spec, args.agent, args.episodes, args.seed, args, args.blunder, args.out, not args.no_progress, suite
    )
    if suite is not None:
        print(f"suite {suite.id}: {report['episodes']} deals")
    print(format_moves_table(report))
    if report.get("write_error"):
        print(f"tabletop-gym: error: {report['write_error']}", file=sys.stderr)
        return 1
    print(f"report: {args.out / MOVES_JSON}")
    if report.get("plot"):
        print(f"plot:   {report['plot']}")
    for curve in report.get("curves", []):
        print(f"curve:  {curve}")
    return 0


SELF_PLAY_OPTIONS = ("pool_size", "refresh_every", "sampling", "latest_share", "pool_bots", "random_seat",
                     "eval_games", "eval_against")


def _add_self_play_arguments(parser: argparse.ArgumentParser, spec: GameSpec) -> None:
    """``train``'s self-play options; None (not given) tells an option given without --self-play."""
    from tabletop_gym.training.selfplay import MAX_POOL, SAMPLINGS

    group = parser.add_argument_group("self-play (the other seats played by the learner's earlier policies)")
    group.add_argument("--self-play", action="store_true",
                       help="train against a pool of the learner's own earlier policies (and --pool-bots)")
    group.add_argument("--pool-size", type=int_arg(1, MAX_POOL), default=None,
                       help=f"snapshots kept in the pool, 1-{MAX_POOL}, the oldest leaving first (default 8)")
    group.add_argument("--refresh-every", type=int_arg(1, MAX_STEPS), default=None,
                       help="training steps between snapshots into the pool (default 20000)")
    group.add_argument("--sampling", choices=SAMPLINGS, default=None,
                       help="each opponent seat, every episode: the newest snapshot, any pool entry "
                       "alike, or a mix (the newest with probability --latest-share) (default mix)")
    # Above 0: a mix that never draws the newest snapshot is --sampling uniform.
    group.add_argument("--latest-share", type=float_arg(0, 1, low_open=True), default=None,
                       help="with --sampling mix, the probability of the newest snapshot, above 0 "
                       "and at most 1 (default 0.5; 0 would be --sampling uniform)")
    group.add_argument("--pool-bots", type=_pool_bots(spec), default=None,
                       help="comma-separated bots kept in the pool beside the snapshots: "
                       + ", ".join(spec.agents))
    group.add_argument("--random-seat", action="store_true", default=None,
                       help="draw the learner's seat every episode (default: always the first)")
    group.add_argument("--eval-games", type=int_arg(0, MAX_EPISODES), default=None,
                       help="games against the strongest bot per snapshot, for the learning curve; 0 for "
                       "none (default 100)")
    group.add_argument("--eval-against", choices=list(spec.agents), default=None,
                       help=f"the bot of the learning curve (default {spec.self_play.strongest_bot})")


def _pool_bots(spec: GameSpec) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        names = tuple(part.strip() for part in nonempty(text).split(","))
        for name in names:
            if name not in spec.agents:
                raise argparse.ArgumentTypeError(
                    f"unknown bot {quote_input(name)}: choose among {', '.join(spec.agents)}")
        return names

    parse.__name__ = "bot names"
    return parse


def _self_play_options(args: argparse.Namespace) -> Any:
    """The parsed self-play options (None without --self-play); one given without it is refused."""
    given = {name: getattr(args, name, None) for name in SELF_PLAY_OPTIONS}
    given = {name: value for name, value in given.items() if value is not None}
    if not getattr(args, "self_play", False):
        if given:
            flag = "--" + next(iter(given)).replace("_", "-")
            raise ValueError(f"{flag} is an option of --self-play: add --self-play, or leave it out")
        return None
    from tabletop_gym.training.selfplay import SelfPlayOptions

    return SelfPlayOptions(**given)


TEACHER_OPTIONS = ("iterations", "deals", "clone_deals", "epochs", "no_symmetry")


def _add_teacher_arguments(parser: argparse.ArgumentParser) -> None:
    """``train --teacher``: imitation (behaviour cloning, then DAgger); None tells an option given
    without --teacher."""
    from tabletop_gym.training.imitation import TEACHERS

    group = parser.add_argument_group(
        "imitation (behaviour cloning, then DAgger, with the oracle or the best policy as teacher; --steps, "
        "--n-envs and "
        "--checkpoint-every are not used: a checkpoint follows every iteration)"
    )
    group.add_argument("--teacher", choices=TEACHERS, default=None,
                       help="learn instead of by reinforcement from the move oracle's optimal moves "
                       "(oracle: where the player sees the whole deal) or from the best policy of what the "
                       "player sees (policy: Nmbr9's expectimax, small variants)")
    group.add_argument("--iterations", type=int_arg(1, 10_000), default=None,
                       help="DAgger iterations after the first, behaviour-cloning one (default 10)")
    group.add_argument("--deals", type=int_arg(1, 100_000), default=None,
                       help="fresh deals played per iteration, each position labelled by the teacher "
                       "(default 50)")
    group.add_argument("--clone-deals", type=int_arg(1, 100_000), default=None,
                       help="deals of the first iteration, the teacher's own games (default --deals): "
                       "more where the teacher's games are cheap to label and the learner's are not")
    group.add_argument("--epochs", type=int_arg(1, 1_000), default=None,
                       help="passes over all labelled positions per iteration (default 4)")
    group.add_argument("--no-symmetry", action="store_const", const=True, default=None,
                       help="train on the labelled positions only as they were played, not also relabelled "
                       "by the game's symmetry (Cribbage: the piles in every order; the default where a "
                       "game has one)")


def _teacher_options(args: argparse.Namespace) -> Any:
    """The parsed imitation options (None without --teacher); one given without it is refused."""
    given = {name: getattr(args, name, None) for name in TEACHER_OPTIONS}
    given = {name: value for name, value in given.items() if value is not None}
    if getattr(args, "teacher", None) is None:
        if given:
            flag = "--" + next(iter(given)).replace("_", "-")
            raise ValueError(f"{flag} is an option of --teacher: add --teacher oracle, or leave it out")
        return None
    if getattr(args, "self_play", False):
        raise ValueError("--teacher and --self-play are two ways to train: choose one")
    from tabletop_gym.training.imitation import ImitationOptions

    if given.pop("no_symmetry", None):
        given["symmetry"] = False
    return ImitationOptions(teacher=args.teacher, **given)


def _train(spec: GameSpec, args: argparse.Namespace, command: str | None = None) -> int:
    from tabletop_gym.training.train import train

    teacher = _teacher_options(args)
    if teacher is not None:
        from tabletop_gym.training.imitation import CURVE_PNG, REFERENCE, train_imitation

        path = train_imitation(spec, teacher, args.seed, args.out, args, progress=not args.no_progress,
                               resume=args.resume)
        config = json.loads((args.out / "config.json").read_text())
        print(f"model:  {path}  ({config['positions']} labelled positions, {config['iterations_done']} "
              f"iterations in {config['train_seconds']} s)")
        for point in config["curve"]:
            if "score_ratio" in point:
                print(f"  iteration {point['iteration']:>3}: score/{REFERENCE[teacher.teacher]} "
                      f"{point['score_ratio']:.3f} "
                      f"on {teacher.deals} fresh deals ({point['positions']} positions)")
        print(f"config: {args.out / 'config.json'}")
        if (args.out / CURVE_PNG).exists():
            print(f"curve:  {args.out / CURVE_PNG}")
        return 0
    self_play = _self_play_options(args)
    path = train(
        spec,
        args.steps,
        args.seed,
        args.out,
        args,
        n_envs=args.n_envs,
        progress=not args.no_progress,
        checkpoint_every=args.checkpoint_every,
        resume=args.resume,
        self_play=self_play,
        trainer=args.trainer,
        command=command,
    )
    config = json.loads((args.out / "config.json").read_text())
    print(f"model:  {path}  ({config['steps_done']} steps in {config['train_seconds']} s)")
    print(f"config: {args.out / 'config.json'}")
    if self_play is not None:
        _print_curve(args.out)
    return 0


def _print_curve(out: Path) -> None:
    """The self-play learning curve's last point, and where the curve is."""
    from tabletop_gym.training.selfplay import CURVE_JSON, CURVE_PNG, POOL_FOLDER

    print(f"pool:   {out / POOL_FOLDER}")
    path = out / CURVE_JSON
    if path.is_file():
        curve = json.loads(path.read_text())
        last = curve["points"][-1]
        print(f"curve:  {path} and {out / CURVE_PNG}; at step {last['step']}: win share "
              f"{last['win_share']:.1%} [{last['low']:.1%}, {last['high']:.1%}] against {curve['against']} "
              f"in {last['games']} games ({curve['seats']} seats)")


def _demo(spec: GameSpec, args: argparse.Namespace) -> int:
    """Train a small agent for a short budget, then evaluate it beside random and greedy."""
    from tabletop_gym.training.evaluate import SeededGames
    from tabletop_gym.training.train import train

    SeededGames(args.episodes, args.seed)  # the evaluation's deals, checked before the training
    out: Path = args.out
    env_id, env_kwargs = spec.environment(spec.read(args))
    settings = ", ".join(f"{k}={v}" for k, v in env_kwargs.items()) or "default rules"
    if spec.oracle is not None:
        # Fail before training, not after it, when the oracle does not serve these settings; the
        # answer lands in the cache, where the evaluation finds it.
        print(f"[0/2] checking that the oracle serves {env_id} ({settings}) on the first deal")
        _first_deal_oracle(spec, args)
    from tabletop_gym.training.train import choose_trainer

    trainer = choose_trainer(args.trainer, env_id, False, spec.vector_trainer)
    how = "MaskablePPO" if trainer == "sb3" else "masked PPO on the native vector environment"
    print(f"[1/2] training {how} on {env_id} ({settings}) for {args.steps} steps")
    model = train(
        spec,
        args.steps,
        args.seed,
        out / "agent",
        args,
        n_envs=args.n_envs,
        progress=not args.no_progress,
        checkpoint_every=args.checkpoint_every,
        trainer=trainer,
    )
    print(f"[2/2] evaluating on {args.episodes} deals against the oracle")
    args.out = out / "evaluation"
    baselines = [a for a in ("random", "greedy") if a in spec.agents]
    return _evaluate(spec, args, baselines + [str(model.parent)])


def _first_deal_oracle(spec: GameSpec, args: argparse.Namespace) -> None:
    import gymnasium as gym

    env_id, env_kwargs = spec.environment(spec.read(args))
    # The evaluation's first deal, which hidden-information games show at reset only on request.
    env = gym.make(env_id, **env_kwargs, reveal_deal=True)
    deal = env.reset(seed=args.seed)[1]["deal"]
    env.close()
    spec.oracle(deal, spec.read(args))


if __name__ == "__main__":
    sys.exit(main())

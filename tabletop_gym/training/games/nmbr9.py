"""Nmbr9 on the command line: solve, play, evaluate, train and bench."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.nmbr9 import Nmbr9GreedyAgent, greedy_action, greedy_choice
from tabletop_gym.agents.probe import DEFAULT_PROBES, DEFAULT_WEIGHT, ProbeAgent, ProbeRules
from tabletop_gym.core import (
    InvalidDealError,
    NoMoveOracleError,
    OracleCache,
    OracleResult,
    atomic_write_text,
    quote_input,
)
from tabletop_gym.envs.nmbr9 import ENV_ID
from tabletop_gym.envs.nmbr9.rules import (
    NUM_ROTATIONS,
    Nmbr9Rules,
    Nmbr9State,
    Variant,
    decode_action,
    distinct_rotations,
    encode_action,
    footprint,
    parse_deal,
    random_deal,
    replay,
    tile_picture,
)
from tabletop_gym.oracles import nmbr9 as oracle
from tabletop_gym.oracles.nmbr9.limits import Nmbr9Limits
from tabletop_gym.oracles.nmbr9.policy import Nmbr9OptimalPolicyAgent
from tabletop_gym.oracles.nmbr9.unknown import draw_orders, hindsight_mean, solve_unknown
from tabletop_gym.settings import given
from tabletop_gym.suites.definitions import SuiteDefinition
from tabletop_gym.training.arguments import (
    WORK_LIMIT_NOTE,
    add_options,
    float_arg,
    int_arg,
    nonempty,
    path_arg,
    seed_arg,
)
from tabletop_gym.training.bench import (
    add_vector_arguments,
    env_steps_per_second,
    peak_rss_mb,
    vector_bench_command,
)
from tabletop_gym.training.games import Baseline, GameSpec, MoveReview
from tabletop_gym.training.pictures import draw_if_asked, refuse_draw
from tabletop_gym.training.probe import add_probe_arguments
from tabletop_gym.training.terminal import QUIT_WORDS, ask

STANDARD = str(Nmbr9Rules.variant)  # 9-2-20, the standard game

# The demo: 5 cards of the standard deck (values 0-9, two of each) on a 7x7 grid with two levels
# (the table and level 1). The oracle proves the optimum of such a deal in 0.05-5 s (its placement
# model has about 600 variables): 40 of 40 demo deals (seeds 0-39) proven within the limit of 8 s
# of work (median 0.34 s, at most 4 s, on the shared 2-core machine under load), so the
# evaluation's oracle column is an exact optimum, and a 5-card game with 196 actions is learnable
# within a demo's steps. Limits count work, so the same deals are proven on every machine.
DEMO: dict[str, Any] = {
    "variant": "9-2-5",
    "grid": 7,
    "levels": 2,
    "time_limit": 8.0,
    "steps": 50_000,
    "episodes": 40,
}


# The native vector environment's bench (the standard game on 20x20): 1,024 games a batch keep
# Python's per-call cost small beside the kernel's; 3 runs of 3,400,000 steps pass 10^7 steps.
VECTOR_ENVS = 1024
VECTOR_STEPS = 3_400_000

DRAFTS = {"U": "unknown draft", "K": "known draft", "F": "free draft"}
"""The draft letters of a variant T-m-c-k (docs/rules/nmbr9.md)."""


def _draft_and_variant(text: str) -> tuple[str | None, Variant]:
    """(the draft letter, upper case, or None without one; the variant m-c-k), checked."""
    try:
        variant = Variant.parse(nonempty(text))
    except InvalidDealError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    head = text.strip()[:2].upper()
    return (head[0] if head[1:] == "-" and head[0] in DRAFTS else None), variant


def variant_arg(text: str) -> Variant:
    """An argparse type for ``--variant`` outside ``solve``: m-c-k, checked when the command line is
    read. A draft letter is refused: these commands play dealt cards one at a time, and a letter
    that chose nothing would be silently ignored."""
    draft, variant = _draft_and_variant(text)
    if draft is not None:
        raise argparse.ArgumentTypeError(
            f"{text.strip()}: the draft letter ({draft}, {DRAFTS[draft]}) chooses what solve solves; "
            f"this command plays the cards as they are dealt: give {variant}"
        )
    return variant


class _SolveVariant(argparse.Action):
    """``solve --variant [T-]m-c-k``: the draft letter is honoured, F as --free, U as --unknown, K
    as neither (the known draft, solve's default); ``_solve_command`` refuses a flag that
    contradicts the letter."""

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: ANN001, ANN204
        draft, variant = values
        setattr(namespace, self.dest, variant)
        namespace.draft = draft
        if draft == "F":
            namespace.free = True
        elif draft == "U":
            namespace.unknown = True


@dataclasses.dataclass(frozen=True)
class Nmbr9Settings:
    """What Nmbr9's callbacks need: the rules (variant, grid, level limit), the oracle's limits, its
    cache folder, the probe agent's options, and whether ``evaluate`` also divides by the expected
    value of the best policy that does not see the cards to come (``--expected-value``)."""

    rules: Nmbr9Rules = Nmbr9Rules()
    limits: Nmbr9Limits = Nmbr9Limits()
    cache: Path | None = None
    probe_weight: float = DEFAULT_WEIGHT
    probes: int = DEFAULT_PROBES
    expected_value: bool = False

    def __post_init__(self) -> None:
        # In the options' own names: only the command line combines a model grid with a grid.
        model_grid, grid = self.limits.model_grid, self.rules.grid
        if model_grid is not None and model_grid > grid:
            raise ValueError(f"--model-grid {model_grid} must be at most --grid {grid}")


def _settings(values: Mapping[str, Any]) -> Nmbr9Settings:
    """The settings from values by field name (a command's arguments, a suite's stored settings
    such as ``{"variant": "9-2-5", "grid": 7, "levels": 2, "time_limit": 8.0}``); other names are
    ignored, a name missing takes its default (a command without that option)."""
    return Nmbr9Settings(
        Nmbr9Rules(**given(Nmbr9Rules, values)),
        Nmbr9Limits(**given(Nmbr9Limits, values)),
        **given(Nmbr9Settings, values, skip=("rules", "limits")),
    )


def _env_kwargs(settings: Nmbr9Settings) -> dict:
    rules = settings.rules
    return {
        "max_value": rules.variant.max_value,
        "copies": rules.variant.copies,
        "cards": rules.variant.cards,
        "grid": rules.grid,
        "levels": rules.levels,
    }


def _oracle(deal: str, settings: Nmbr9Settings) -> OracleResult:
    rules, limits, cache = settings.rules, settings.limits, settings.cache
    return oracle.solve_cached(
        parse_deal(deal, rules.variant),
        grid=rules.grid,
        levels=rules.levels,
        time_limit=limits.time_limit,
        model_grid=limits.model_grid,
        cache=None if cache is None else OracleCache(cache),
    )


def _move_oracle(settings: Nmbr9Settings) -> Any:
    """The move oracle of a deal string, where the exact search proves optima (small variants);
    ``NoMoveOracleError`` for a variant beyond it. Each search gets the oracle's work limit."""
    from tabletop_gym.oracles.nmbr9.moves import Nmbr9Moves, refuse_unproven

    rules, time_limit = settings.rules, settings.limits.time_limit
    refuse_unproven(rules)
    return lambda deal: Nmbr9Moves(deal, rules, time_limit)


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    time_limit = float_arg(0, oracle.MAX_TIME_LIMIT, low_open=True)
    if command == "solve":
        parser.add_argument(
            "--variant",
            type=_draft_and_variant,
            action=_SolveVariant,
            default=Nmbr9Rules.variant,  # a string default would go through the type, not the action
            help=f"[T-]m-c-k: max value 0-9, copies 1-10, cards 1-(m+1)*c (default {STANDARD}); the draft "
            "letter T is K (known, the default), F (free, as --free) or U (unknown, as --unknown)",
        )
        parser.set_defaults(draft=None)  # the draft letter, where --variant gives one (_SolveVariant)
    elif command != "bench":
        parser.add_argument(
            "--variant",
            type=variant_arg,
            default=STANDARD,
            help=f"m-c-k: max value 0-9, copies 1-10, cards 1-(m+1)*c (default {STANDARD})",
        )
    if command != "bench":  # bench measures the standard game on a 20x20 grid
        add_options(parser, Nmbr9Rules, only=("grid", "levels"))
    if command in ("solve", "evaluate", "play", "demo"):
        what = f"the oracle's work limit per deal, {WORK_LIMIT_NOTE} (default {Nmbr9Limits.time_limit:g})"
        add_options(parser, Nmbr9Limits, only=("time_limit", "model_grid"), help={"time_limit": what})
        parser.add_argument("--cache", type=path_arg, default=None, help="oracle cache folder")
    if command == "play":
        parser.add_argument(
            "--review",
            choices=REVIEWS,
            default=None,
            help="small variants (e.g. --variant 9-2-5 --grid 7 --levels 2): the oracle's word on your "
            "placements, after each one that lost points or all of them at the end (what each lost, and "
            "the best placement instead, knowing the cards to come)",
        )
    if command in ("solve", "play"):
        parser.add_argument(
            "--deal", type=nonempty, help="deal string: the card values in draw order, e.g. 9081726354..."
        )
        parser.add_argument(
            "--seed", type=seed_arg, default=None, help="without --deal: the seed of a random deal"
        )
    if command in ("solve", "evaluate", "train"):  # train: --teacher policy's expectimax
        add_options(parser, Nmbr9Limits, only=("max_positions",))
    if command == "evaluate":
        parser.add_argument(
            "--expected-value",
            action="store_true",
            help="also solve the variant with the cards to come unknown (small variants) and report "
            "each agent's score/expected value of the best such policy",
        )
    if command == "solve":
        parser.add_argument("--free", action="store_true", help="free draft: best choice of cards and order")
        parser.add_argument(
            "--unknown",
            action="store_true",
            help="draw order unknown (small variants): the expected and guaranteed values of the best "
            "policy, beside the mean hindsight optimum",
        )
        parser.add_argument(
            "--no-hindsight", action="store_true", help="with --unknown: skip the mean hindsight optimum"
        )
    if command == "evaluate":
        add_probe_arguments(parser)
    if command == "bench":
        add_vector_arguments(parser, "nmbr9", VECTOR_ENVS, VECTOR_STEPS)
        parser.add_argument(
            "--deals",
            type=int_arg(0, 1000),
            default=10,
            help="seeded standard deals for the known-draft gap, 0 to skip them (default 10)",
        )
        parser.add_argument(
            "--time-limit",
            type=time_limit,
            default=15.0,
            help=f"the oracle's work limit per known-draft deal, {WORK_LIMIT_NOTE} (default 15; the "
            "issue's budget is 300)",
        )
        parser.add_argument(
            "--free-time-limit",
            type=float_arg(0, oracle.MAX_TIME_LIMIT),
            default=120.0,
            help="seconds of work for free draft 9-2-20, 0 to skip it (default 120: the top-down "
            "layouts need about a minute of it to find their first)",
        )
        parser.add_argument(
            "--env-steps",
            type=int_arg(1, 10_000_000),
            default=5_000,
            help="steps per timing, 3 timings (default 5000)",
        )
        parser.add_argument(
            "--skip-proof",
            action="store_true",
            help="skip the F-6-2-5 proof and the exact search's proof times",
        )
        parser.add_argument(
            "--unknown-up-to",
            type=int_arg(0, len(UNKNOWN_BENCH)),
            default=3,
            help=f"solve the first N of the unknown-draft variants {', '.join(_unknown_names())} "
            "exactly (default 3; 0 skips them)",
        )
        parser.add_argument(
            "--out",
            type=path_arg,
            default=Path("runs/bench"),
            help="folder for nmbr9.json (nmbr9-vector.json)",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _deal_of(deal: str | None, seed: int | None, variant: Variant) -> str:
    """The deal ``--deal`` or ``--seed`` asks for (a fresh random one without either; the command
    line refuses both at once)."""
    if deal is not None:
        return str(parse_deal(deal, variant))
    return str(random_deal(seed, variant))


def _solve_command(args: argparse.Namespace) -> int:
    draft, free, unknown = args.draft, args.free, args.unknown
    chosen = {"F": free, "U": unknown}
    if draft is not None and any(on for letter, on in chosen.items() if letter != draft):
        flag = "--free" if free and draft != "F" else "--unknown"
        raise ValueError(f"--variant {draft}-{args.variant} asks for the {DRAFTS[draft]}, {flag} for another")
    settings = SPEC.read(args)  # checks --model-grid against --grid
    rules, limits = settings.rules, settings.limits
    variant, grid, levels = rules.variant, rules.grid, rules.levels
    if settings.cache is not None and (free or unknown):
        raise ValueError("--cache keeps the answers of dealt cards; --free and --unknown keep none")
    if unknown:
        if free or args.deal is not None or args.seed is not None:
            raise ValueError(
                "--unknown solves the variant over every draw order: --free, --deal and --seed do not apply"
            )
        refuse_draw(args, "--unknown solves over every draw order, with no one layout to draw")
        return _solve_unknown(settings, hindsight=not args.no_hindsight)
    if args.no_hindsight:
        raise ValueError("--no-hindsight applies to --unknown only: here there is no hindsight mean to skip")
    if free:
        result = oracle.solve_free(
            variant, grid=grid, levels=levels, time_limit=limits.time_limit, model_grid=limits.model_grid
        )
        what = f"free draft F-{variant}"
        # A card the rules discard (it fits nowhere) has no placement.
        plan = " ".join(f"{v}@{'discarded' if a is None else _where(a, grid)}" for v, a in result.plan)
    else:
        deal = _deal_of(args.deal, args.seed, variant)
        result = _oracle(deal, settings)  # the same oracle and limits, through --cache when given
        what = f"deal {deal}"
        # The plan has actions for placed cards only: show the cards the rules discard too.
        state = replay(rules, deal, result.plan)
        plan = " ".join("discarded" if p is None else _where(p.action, grid) for p in state.placements)
    status = "proven optimal" if result.optimal else f"proven bound {result.bound}"
    print(f"{what} on a {grid}x{grid} grid")
    print(f"score    {result.score} ({status})  in {result.seconds:.2f} s")
    print(f"plan     {plan}  (rotation/row/col per card)")
    if free:
        from tabletop_gym.oracles.nmbr9.search import replay_free  # numba's: only a free draft needs it

        state = replay_free(result.plan, grid, levels)
    print(level_drawing(state))
    draw_if_asked(args, lambda: _plan_picture(state, result))
    return 0


def _plan_picture(state: Nmbr9State, result: OracleResult) -> Any:
    from tabletop_gym.envs.nmbr9.draw import draw_levels
    from tabletop_gym.render import plan_status

    return draw_levels(state, plan_status(result.optimal, result.bound))


def _references(settings: Nmbr9Settings) -> dict[str, float]:
    """With ``--expected-value``, the expected value of the best policy with the cards to come
    unknown: score/expected value says how close an agent is to what can be reached, where
    score/optimum compares it with a player who sees the future. Small variants only: past
    ``--max-positions`` it stops with a clear error."""
    if not settings.expected_value:
        return {}
    rules = settings.rules
    result = solve_unknown(rules.variant, rules.grid, rules.levels, settings.limits.max_positions)
    return {"expected_value": float(result.expected)}


def _optimal_policy(settings: Nmbr9Settings) -> Nmbr9OptimalPolicyAgent:
    rules = settings.rules
    return Nmbr9OptimalPolicyAgent(rules.variant, rules.grid, rules.levels, settings.limits.max_positions)


def _solve_unknown(settings: Nmbr9Settings, hindsight: bool) -> int:
    """``solve --unknown``: the values of the best policy that does not know the order, and with
    ``hindsight`` the mean of the best plays that know it."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    variant, grid, levels = settings.rules.variant, settings.rules.grid, settings.rules.levels
    limit = "no level limit" if levels is None else f"{levels} levels"
    print(f"unknown draft U-{variant} on a {grid}x{grid} grid, {limit}")
    result = solve_unknown(variant, grid, levels, max_positions=settings.limits.max_positions)
    print(
        f"expected value    {float(result.expected):.4f} (= {result.expected}): the best policy's mean "
        "score, cards drawn uniformly at random"
    )
    print(f"guaranteed value  {result.guaranteed}: what the best policy scores whatever the order")
    print(f"positions         {result.positions:,} ({result.visited:,} visited) in {result.seconds:.2f} s")
    if hindsight:
        orders = sum(1 for _ in draw_orders(variant))
        with tqdm(total=orders, desc="hindsight optima", unit="order", disable=orders < 2000) as bar:
            mean, _ = hindsight_mean(variant, grid, levels, progress=bar.update)
        print(
            f"hindsight optimum {float(mean):.4f}: the mean over all {orders:,} orders of the best play "
            f"that knows the order; the price of not knowing it is {float(mean - result.expected):.4f}"
        )
    return 0


def level_drawing(state: Nmbr9State) -> str:
    """Each level of a finished layout, top level first: the value of the tile on each cell of that
    level (``.`` none), cropped to the layout's box, with the level's tiles and points."""
    placed = [p for p in state.placements if p is not None]
    if not placed:
        return "no tile placed"
    cells = {p: footprint(p.value, p.action, state.grid) for p in placed}
    rows = [r for fp in cells.values() for r, _ in fp]
    cols = [c for fp in cells.values() for _, c in fp]
    r0, c0 = min(rows), min(cols)
    width, height = max(cols) - c0 + 1, max(rows) - r0 + 1
    lines = []
    for level in range(max(p.level for p in placed), -1, -1):
        grid = [["."] * width for _ in range(height)]
        tiles = [p for p in placed if p.level == level]
        for p in tiles:
            for r, c in cells[p]:
                grid[r - r0][c - c0] = str(p.value)
        values = " ".join(str(p.value) for p in tiles)
        lines.append(f"level {level}: tiles {values}  points {level * sum(p.value for p in tiles)}")
        lines.extend("  " + " ".join(row) for row in grid)
    return "\n".join(lines)


def _where(action: int, grid: int) -> str:
    rotation, row, col = decode_action(action, grid)
    return f"r{rotation}/{row}/{col}"


# ---------------------------------------------------------------------------------------------------
# play


def _how_to(grid: int) -> str:
    return (
        "Type ROW COL or ROW COL TURNS: the tile's box, as drawn below, goes with its top-left corner\n"
        f"on the cell at ROW, COL (0-{grid - 1}), turned TURNS quarter turns clockwise (0-3, default 0).\n"
        f"'hint' suggests a placement, 'help' shows this again, {' or '.join(QUIT_WORDS)} ends the game."
    )


def _tile_turns(value: int) -> str:
    """The tile of ``value`` in each of its distinct turns, side by side, labelled by turn."""
    turns = distinct_rotations(value)
    pictures = [tile_picture(value, t) for t in turns]
    widths = [max(len(f"turn {t}"), len(p[0])) for t, p in zip(turns, pictures, strict=True)]
    lines = ["   ".join(f"turn {t}".ljust(w) for t, w in zip(turns, widths, strict=True))]
    for r in range(max(len(p) for p in pictures)):
        cells = [(p[r] if r < len(p) else "").ljust(w) for p, w in zip(pictures, widths, strict=True)]
        lines.append("   ".join(cells).rstrip())
    same = "" if len(turns) == NUM_ROTATIONS else " (turns 2 and 3 look like 0 and 1)"
    return f"the {value} tile, by turns{same}:\n" + "\n".join("  " + line for line in lines)


_NUMBER = re.compile(r"[+-]?[0-9]{1,9}", re.ASCII)


def _read_placement(answer: str, state: Nmbr9State) -> tuple[int | None, str]:
    """The action that ``answer`` (``ROW COL`` or ``ROW COL TURNS``) names, or None and what is
    wrong with it, in the game's words. Only ASCII digits count as numbers ('²' is not one)."""
    words = answer.replace(",", " ").split()
    if len(words) not in (2, 3):
        return None, "type ROW COL or ROW COL TURNS, e.g. '3 5' or '3 5 1' ('help' explains)"
    numbers = []
    for name, word in zip(("row", "column", "turns"), words, strict=False):
        if not _NUMBER.fullmatch(word):
            return None, f"{name} {quote_input(word, 20)} is not a number"
        numbers.append(int(word))
    row, col = numbers[0], numbers[1]
    turns = numbers[2] if len(numbers) == 3 else 0
    grid = state.grid
    if not 0 <= row < grid:
        return None, f"row {row} is off the board: rows are 0 to {grid - 1}"
    if not 0 <= col < grid:
        return None, f"column {col} is off the board: columns are 0 to {grid - 1}"
    if not 0 <= turns < NUM_ROTATIONS:
        return None, f"turns are 0 to 3 quarter turns clockwise, got {turns}"
    value = int(state.card)
    if turns not in distinct_rotations(value):
        turns -= 2  # the 0 and the 8 look the same after a half turn: the same placement
    action = encode_action(turns, row, col, grid)
    if not state.action_mask()[action]:
        where = f"the {value} turned {turns} cannot go at row {row}, column {col}"
        return None, f"{where}: {state.why_illegal(action)}"
    return action, ""


def _placement_words(state: Nmbr9State, action: int) -> str:
    turns, row, col = decode_action(action, state.grid)
    return f"{row} {col} {turns} (row {row}, column {col}, turned {turns})"


def _stopped(state: Nmbr9State, why: str) -> None:
    placed = sum(p is not None for p in state.placements)
    print(
        f"{why}: {placed} of {len(state.deal)} cards placed ({state.discarded} discarded), "
        f"score {state.score} so far"
    )
    print(f"deal {state.deal}: play it again with --deal {state.deal}")


REVIEWS = ("each", "end")


def _play(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)  # a bad --model-grid is reported now, not after the game
    variant, levels = settings.rules.variant, settings.rules.levels
    deal = _deal_of(args.deal, args.seed, variant)
    review = getattr(args, "review", None)
    # Made before the game starts, so a variant without move values is refused at once.
    moves = _move_oracle(settings)(deal) if review is not None else None
    lost: list[str] = []
    env = gym.make(ENV_ID, **_env_kwargs(settings), render_mode="ansi")
    env.reset(options={"deal": deal})
    state: Nmbr9State = env.unwrapped.state
    limit = "" if levels is None else f", {levels} levels at most (the table included)"
    print(
        f"Nmbr9, variant {variant} on a {state.grid}x{state.grid} grid{limit}: {variant.cards} cards are "
        "drawn one by one,\nand each card's tile must be placed. A tile scores its value x its level.\n"
        f"{_how_to(state.grid)}\n"
    )
    show = True
    while not state.done:
        if show:
            print(env.render())
            print(_tile_turns(int(state.card)))
        show = False
        answer = ask(f"place the {state.card}> ")
        if answer is None:
            _stopped(state, "end of input")
            _review_at_end(review, lost, moves is None)
            return 0
        word = answer.lower()
        if word in QUIT_WORDS:
            _stopped(state, "game stopped")
            _review_at_end(review, lost, moves is None)
            return 0
        if not answer:
            continue
        if word in ("help", "?"):
            print(_how_to(state.grid))
            continue
        if word == "hint":
            action = greedy_action(state)
            print(f"hint: {_placement_words(state, action)}, +{state.points_if_placed(action)} points")
            continue
        action, problem = _read_placement(answer, state)
        if action is None:
            print(problem)
            continue
        turn = state.turn
        values = None
        if moves is not None:
            try:
                values = moves.at_state(state)
            except NoMoveOracleError as error:  # a position the search cannot settle within its work
                print(f"the review stops here: {error}\n")
                moves = None
        _, points, _, _, _ = env.step(action)
        placed = state.placements[turn]
        print(f"the {placed.value} lands on level {placed.level}: +{int(points)} points, score {state.score}")
        # The rules discard the cards drawn next whose tile fits nowhere: say so, they score nothing.
        for t in range(turn + 1, state.turn):
            print(f"the {state.deal.cards[t]} is drawn and fits nowhere on the board: discarded, no points")
        if values is not None and values.loss(action) > 0:
            lost.append(_loss_line(turn, placed.value, action, values, state.grid))
            if review == "each":
                print(lost[-1])
        print()
        show = True
    print(env.render())
    print(f"asking the oracle for the best play of this deal (up to {settings.limits.time_limit:g} s)")
    result = _oracle(str(state.deal), settings)
    best = "the best play" if result.optimal else f"the best play found (none can beat {result.bound})"
    print(f"game over: you scored {state.score}; {best} scores {result.score}")
    _review_at_end(review, lost, moves is None)
    print(f"deal {state.deal}")
    return 0


def _review_at_end(review: str | None, lost: list[str], stopped: bool) -> None:
    """``--review end``: the placements that lost points, once the game is over or stopped
    (``stopped``: the review stopped before the game did)."""
    if review == "end":
        until = " (until the review stopped)" if stopped else ""
        print("\n".join([f"placements that lost points{until}:", *lost]) if lost
              else f"every placement was optimal{until}")


def _loss_line(turn: int, value: int, action: int, values: Any, grid: int) -> str:
    """What a placement gave away, and the best one instead, in the game's words. The values see
    the cards still to come: the best placement is the best in hindsight."""

    def where(a: int) -> str:
        turns, row, col = decode_action(a, grid)
        return f"row {row}, column {col}, turned {turns}"

    return (
        f"card {turn + 1}: the {value} at {where(action)} lost {values.loss(action):g} points: with it at "
        f"most {values.values[action]:g} more points were to be had (this card's included), at "
        f"{where(values.best)}: {values.optimum:g} (knowing the cards to come)"
    )


def _bench(args: argparse.Namespace) -> int:
    """Env speed, the F-6-2-5 proof, known-draft gaps on seeded standard deals, free draft 9-2-20
    best and bound, peak memory. Timings share the machine with whatever else runs: noisy."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    if args.vector:
        return vector_bench_command("nmbr9", ENV_ID, args)
    from tabletop_gym.oracles.nmbr9.search import replay_free

    report: dict = {"grid": 20}
    env = gym.make(ENV_ID).unwrapped
    rates = [env_steps_per_second(env, args.env_steps, seed) for seed in range(3)]
    report["env_steps_per_second"] = {
        "median": round(statistics.median(rates)),
        "runs": [round(r) for r in rates],
    }
    if not args.skip_proof:
        from tabletop_gym.oracles.nmbr9.search import bench_exact

        small = oracle.solve_free(Variant(6, 2, 5), grid=6, levels=3, time_limit=60)
        report["F-6-2-5_grid6_levels3"] = {
            "score": small.score,
            "bound": small.bound,
            "optimal": small.optimal,
            "seconds": round(small.seconds, 2),
            "method": small.stats.get("method", "models"),
        }
        # Proof times of the exact search on small known drafts (the portfolio's first method).
        report["exact_search_8x8_levels3"] = bench_exact(deals=20, cards=(6, 7, 8), grid=8, levels=3)
    if args.unknown_up_to:
        report["unknown_draft"] = _bench_unknown(UNKNOWN_BENCH[: args.unknown_up_to], args.no_progress)
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
        cpu = time.process_time()
        free = oracle.solve_free_beam(Variant(), grid=20, time_limit=args.free_time_limit)
        free_cpu = time.process_time() - cpu
        if not oracle.check_free(Variant(), free, 20):
            raise AssertionError("the free-draft plan does not replay")
        report["free_9-2-20"] = {
            "time_limit": args.free_time_limit,
            "best_found": free.score,
            "bound": free.bound,
            "best_known_by_hand": 229,
            "source": free.stats.get("source"),
            "beam": free.stats.get("beam"),
            "layout": free.stats.get("layout"),
            "order": free.stats["deal"],
            "plan": [list(step) for step in free.plan],
            "levels": level_drawing(replay_free(free.plan, 20)),
            "seconds": round(free.seconds, 1),
            "cpu_seconds": round(free_cpu, 1),
        }
    report["peak_rss_mb"] = peak_rss_mb()
    print(_bench_table(report))
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "nmbr9.json", json.dumps(report, indent=1))
    print(f"written to {args.out / 'nmbr9.json'}")
    return 0


# Unknown-draft variants for bench, smallest first: (variant, grid, levels).
UNKNOWN_BENCH = (("4-1-4", 5, 3), ("5-1-5", 5, 3), ("6-2-4", 6, 3), ("6-2-5", 6, 3))


def _unknown_names() -> list[str]:
    return [f"U-{v} {g}x{g} {lv} levels" for v, g, lv in UNKNOWN_BENCH]


def _bench_unknown(variants, no_progress: bool) -> list[dict]:
    """How far up the variants the exact unknown-draft search reaches: positions, CPU and wall
    time, the process's peak memory after each, and the values (with the mean hindsight optimum)."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    rows = []
    for name, grid, levels in tqdm(variants, desc="unknown draft", unit="variant", disable=no_progress):
        cpu, wall = time.process_time(), time.perf_counter()
        result = solve_unknown(name, grid, levels)
        row = {
            "variant": name,
            "grid": grid,
            "levels": levels,
            "expected": float(result.expected),
            "guaranteed": result.guaranteed,
            "positions": result.positions,
            "visited": result.visited,
            "cpu_s": round(time.process_time() - cpu, 2),
            "wall_s": round(time.perf_counter() - wall, 2),
            "peak_rss_mb": peak_rss_mb(),
        }
        cpu = time.process_time()
        mean, orders = hindsight_mean(name, grid, levels)
        row.update(hindsight_mean=float(mean), orders=orders)
        row["hindsight_cpu_s"] = round(time.process_time() - cpu, 2)
        rows.append(row)
    return rows


def _bench_table(report: dict) -> str:
    lines = [f"env steps/s (median of 3, random legal actions)  {report['env_steps_per_second']['median']}"]
    proof = report.get("F-6-2-5_grid6_levels3")
    if proof:
        what = "proven optimum" if proof["optimal"] else f"bound {proof['bound']}"
        lines.append(f"F-6-2-5, 6x6 grid, 3 levels  score {proof['score']} ({what})  {proof['seconds']} s")
    exact = report.get("exact_search_8x8_levels3")
    if exact:
        lines.append("exact search, known draft on 8x8 with 3 levels, 20 seeded deals each")
        for n, row in exact["known"].items():
            lines.append(
                f"  {n} cards  proven {100 * row['proven']:.0f}%  median CPU {row['median_cpu_s']:.4f} s  "
                f"max CPU {row['max_cpu_s']:.3f} s  median wall {row['median_wall_s']:.4f} s"
            )
    unknown = report.get("unknown_draft")
    if unknown:
        lines.append("unknown draft, exact values of the best policy (expectimax and max-min)")
        lines.append("  variant  grid  levels  expected  guaranteed  hindsight  positions  CPU s  peak MB")
        for r in unknown:
            lines.append(
                f"  {r['variant']:7s}  {r['grid']:4d}  {r['levels']:6d}  {r['expected']:8.3f}  "
                f"{r['guaranteed']:10d}  {r['hindsight_mean']:9.3f}  {r['positions']:9,d}  "
                f"{r['cpu_s']:5.1f}  {r['peak_rss_mb']:7}"
            )
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
            f"free draft 9-2-20, {free['time_limit']:g} s of work  best found {free['best_found']} "
            f"({free['source']}; top-down layouts {free['layout']}, beams {free['beam']})  bound "
            f"{free['bound']}  (best known by hand 229)  {free['seconds']} s, CPU {free['cpu_seconds']} s"
        )
        lines.append(free["levels"])
    lines.append(f"peak memory (max RSS)  {report['peak_rss_mb']} MB")
    return "\n".join(lines)


def _probe_rules(rules: Nmbr9Rules) -> ProbeRules[Nmbr9State]:
    """The probe search's view of Nmbr9 (engine positions, the greedy bot's placements, best first).
    It plays from the deal, draw order included: a hindsight player, like the oracle."""
    return ProbeRules(
        start=lambda deal: replay(rules, deal, ()),
        legal=lambda state: state.action_mask().copy(),  # the engine caches its mask; the walk edits this
        best=lambda state, mask: greedy_choice(state.height, int(state.card), mask),
        play=lambda state, action: state.apply(action),
        done=lambda state: state.done,
        score=lambda state: state.score,
    )


# Certified suites of the game (`tabletop-gym suite build NAME-vN`); their settings are command-line
# settings of this game. Their shipped files pin every word here (ids, notes, checksums).
SUITES = (
    SuiteDefinition(
        "nmbr9",
        "nmbr9",
        {"time_limit": 3.0},
        "(default: 9-2-20 on a 20x20 grid)",
        50,
        5,
        "plans and proven bounds with 3 s of work per deal, not optima "
        "(the standard game leaves a large gap even at 300 s)",
    ),
    SuiteDefinition(
        "nmbr9-small",
        "nmbr9",
        {"variant": "9-2-5", "grid": 7, "levels": 2, "time_limit": 8.0},
        "--variant 9-2-5 --grid 7 --levels 2",
        50,
        50,
        "5 cards on a 7x7 grid with 2 levels (the demo's settings), where the oracle proves optima",
    ),
)
# `tabletop-gym baselines`: the demo's 9-2-5 on a 7x7 grid, where the oracle proves optima.
# The large budget: the 10^7 steps of Cribbage's (the same for every native vector environment).
BASELINE = Baseline(suite="nmbr9-small-v0", steps=50_000, column=4, large_steps=10_000_000)
# `evaluate --moves`: a decision that gives away more than this many points is a blunder (chosen below).
BLUNDER = 4

SPEC = GameSpec(
    name="nmbr9",
    env_id=ENV_ID,
    agents={
        "random": lambda settings: RandomAgent(),
        "greedy": lambda settings: Nmbr9GreedyAgent(),
        "optimal-policy": _optimal_policy,
        "probe": lambda settings: ProbeAgent(
            _probe_rules(settings.rules), settings.probe_weight, settings.probes
        ),
    },
    oracle=_oracle,
    env_kwargs=_env_kwargs,
    add_arguments=_add_arguments,
    commands={"solve": _solve_command, "play": _play, "bench": _bench},
    # Measured on the demo's settings (50,000 steps, 40 deals, training seeds 0 and 1): score/optimum
    # 0.57 with these against 0.42-0.47 with train's defaults (random 0.43, greedy 0.49).
    ppo={"learning_rate": 1e-3, "n_epochs": 10},
    demo=DEMO,
    references=_references,
    oracle_ignores=frozenset({"max_positions", "no_hindsight"}),
    suites=SUITES,
    baseline=BASELINE,
    settings=_settings,
    moves=MoveReview(oracle=_move_oracle, blunder=BLUNDER),
    # train --teacher policy: the expectimax of what the seat sees (never the hindsight plan).
    best_policy=_optimal_policy,
)

"""Dominion on the command line: solve, play, evaluate, train, tournament and bench.

The environment that ``evaluate`` and ``train`` use is the solitaire benchmark
(``tabletop/DominionSolitaire-v0``, treasure-and-victory supply by default, ``--kingdom`` adds
kingdom cards), whose every deal the oracle solves; its score is minus the turns taken. The oracle
serves every kingdom of the First Game cards (a bound, not an optimum, where its work limit stops it
first). The game against bots
(``tabletop/Dominion-v0``, the first-game kingdom unless ``--kingdom`` says otherwise) is reached
through ``--opponents`` and ``tournament``; ``figures`` reports its win rate from the episodes'
final infos (``result``) when given them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.dominion import BOTS, BigMoney, make_bot, solitaire_turns, tournament, wilson
from tabletop_gym.core import (
    InvalidDealError,
    NoMoveOracleError,
    OracleCache,
    OracleResult,
    atomic_write_text,
    check_float,
    quote_input,
)
from tabletop_gym.envs.dominion import ENV_ID as VERSUS_ENV_ID
from tabletop_gym.envs.dominion import SOLITAIRE_ENV_ID as ENV_ID
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.env import deal_of_seed
from tabletop_gym.envs.dominion.rules import DominionRules
from tabletop_gym.oracles import dominion as oracle
from tabletop_gym.oracles.dominion import DominionLimits
from tabletop_gym.settings import given, options_of
from tabletop_gym.suites.definitions import SuiteDefinition
from tabletop_gym.training import ratings
from tabletop_gym.training.arguments import add_options, float_arg, int_arg, nonempty, path_arg, seed_arg
from tabletop_gym.training.bench import add_vector_arguments, env_steps_per_second, vector_bench_command
from tabletop_gym.training.games import Baseline, GameSpec, MoveReview, SelfPlay
from tabletop_gym.training.pictures import draw_if_asked
from tabletop_gym.training.players import (
    PRETRAINED,
    SeatedAgent,
    check_entry,
    load_players,
    model_path,
    split_entries,
)
from tabletop_gym.training.ratings import Outcome
from tabletop_gym.training.terminal import QUIT_WORDS, ask_move

SEED_PAIRINGS = (
    ("just-buy-money", "just-buy-money"),
    ("just-buy-money", "buy-money-and-duchy"),
    ("just-buy-money", "buy-money-and-duchy-and-estate"),
)
# The oracle's limits (``DominionLimits``) are work, its search nodes, not seconds, so every machine
# gets the same answer: about a minute a deal by default (solve, evaluate, demo, bench); at the end of
# ``play`` the comparison must come quickly.
PLAY_ORACLE_WORK = DominionLimits.oracle_work_limit // 4
MAX_REWARD_WEIGHT = 1000.0  # a shaping weight past this swamps the -1 a turn it shapes: a typo
# The native vector environment's bench: 1,024 games a batch keep the per-call cost of Python small
# beside the kernel's work while the games' state stays in the processor's cache; 10^7 steps show
# memory flat.
VECTOR_ENVS = 1024
# The training aids' weights where train and demo are not told otherwise (every other command plays
# the plain environment, without them): a random start rarely reaches the target, so -1 a turn alone
# is flat.
TRAIN_PROVINCE_REWARD = 1.0
TRAIN_MONEY_REWARD = 3.0
# The demo: 2 Provinces in the treasure game, which the oracle proves in well under a second a deal
# (median about 0.05 s, at most 0.3 s over deals 0-7 on a busy 2-core machine). 100,000 steps train
# in about a minute there, enough for the agent to reach big money's turns (it does by 60,000).
DEMO = {"steps": 100_000, "episodes": 100, "target": 2}
MAX_POOL = 64  # players of one rated tournament: C(64, 4) x 4 seatings is past any budget already


@dataclasses.dataclass(frozen=True)
class DominionSettings:
    """What Dominion's commands need, built once from the command line (``SPEC.read``).

    ``rules``: the game played, the solitaire benchmark (one player, ``target`` Provinces) or, with
    ``opponents`` (bot names), the game against them (one player more than bots, no target).
    ``limits``: the oracle's. ``province_reward`` and ``money_reward``: the solitaire environment's
    training aids (none outside ``train`` and ``demo``). ``cache``: the oracle cache folder (None:
    the default one)."""

    rules: DominionRules = DominionRules()
    limits: DominionLimits = DominionLimits()
    opponents: tuple[str, ...] = ()
    province_reward: float = 0.0
    money_reward: float = 0.0
    cache: Path | None = None

    def __post_init__(self) -> None:
        for name in ("province_reward", "money_reward"):
            object.__setattr__(self, name, check_float(name, getattr(self, name), 0, MAX_REWARD_WEIGHT))
        if self.rules.players != len(self.opponents) + 1:
            raise ValueError(f"{len(self.opponents)} bots make a game of {len(self.opponents) + 1} players, "
                             f"not {self.rules.players}")


def _bot_list(text: Any) -> tuple[str, ...]:
    """The bots of the versus game, from ``--opponents`` text or a sequence; none means solitaire."""
    if text is None:
        return ()
    return tuple(o.strip() for o in text.split(",") if o.strip()) if isinstance(text, str) else tuple(text)


def _settings(values: Mapping[str, Any]) -> DominionSettings:
    """The settings from values by field name (a command's parsed arguments, a suite's settings).
    Without a kingdom, the solitaire game has none (the oracle's treasure game) and the game against
    bots the first-game set. The Province target belongs to the solitaire game: against bots it would
    be ignored, so a target other than the default is refused there."""
    opponents = _bot_list(values.get("opponents"))
    target = values.get("target", DominionRules.target)
    if opponents and target != DominionRules.target:
        raise ValueError(
            "--target sets the solitaire game's Provinces; against bots (--opponents) the game ends as "
            "Dominion's does (the Provinces or three piles gone): give one of them"
        )
    kingdom = values.get("kingdom")
    if kingdom is None:
        kingdom = "first-game" if opponents else DominionRules.kingdom
    rules = DominionRules(1 + len(opponents), kingdom, None if opponents else target)
    cache = values.get("cache")
    aids = {k: values[k] for k in ("province_reward", "money_reward") if k in values}
    return DominionSettings(rules, DominionLimits(**given(DominionLimits, values)), opponents,
                            cache=None if cache is None else Path(cache), **aids)


def _solve(deal: str, settings: DominionSettings) -> OracleResult:
    rules, limits = settings.rules, settings.limits
    cache = OracleCache(settings.cache) if settings.cache is not None else None
    return oracle.solve_cached(deal, rules.target, cache, time_limit=limits.oracle_time_limit,
                               kingdom=rules.kingdom, work_limit=limits.oracle_work_limit)


def _env_id(settings: DominionSettings) -> str:
    return VERSUS_ENV_ID if settings.opponents else ENV_ID


def _oracle(deal: str, settings: DominionSettings) -> OracleResult | None:
    """The solitaire oracle; None (no optimum column) in the versus game, which evaluate scores by
    win rate instead."""
    if settings.opponents:
        return None
    return _solve(deal, settings)


def _move_oracle(settings: DominionSettings) -> Any:
    """The solitaire game's move oracle for a deal string, in the settings where the oracle proves the
    fewest turns (the treasure game and Smithy); ``NoMoveOracleError`` elsewhere."""
    from tabletop_gym.envs.dominion.env import SOLITAIRE_TURN_LIMIT
    from tabletop_gym.oracles.dominion.moves import MOVE_KINGDOMS, DominionMoves

    rules = settings.rules
    if settings.opponents:
        raise NoMoveOracleError("Dominion's move values are for the solitaire game: against bots "
                                "(--opponents) no oracle proves the best play")
    if rules.cards not in MOVE_KINGDOMS:
        raise NoMoveOracleError(
            f"Dominion has move values for the treasure game (no --kingdom) and --kingdom smithy, not "
            f"{rules.kingdom}: with these cards the oracle's search only bounds the fewest turns"
        )
    work = settings.limits.oracle_work_limit
    return lambda deal: DominionMoves(deal, rules.target, rules.cards, SOLITAIRE_TURN_LIMIT, work)


def _env_kwargs(settings: DominionSettings) -> dict[str, Any]:
    rules = settings.rules
    if settings.opponents:
        kwargs = {"opponents": list(settings.opponents), "kingdom": rules.kingdom}
        if any(name not in BOTS for name in settings.opponents):
            # Trained models sit as Agents under their entries (config.json records the entries);
            # bots stay names, which the environment seats as today.
            agents = load_players(SPEC, settings.opponents, settings, VERSUS_ENV_ID, kwargs,
                                  lambda: _versus_env(rules.players, rules.kingdom), _table, _seat_bots())
            kwargs["opponents"] = [name if name in BOTS else SeatedAgent(name, agent)
                                   for name, agent in zip(settings.opponents, agents, strict=True)]
        return kwargs
    # The Province reward only shapes training (scores are minus the turns either way).
    return {"target": rules.target, "kingdom": rules.kingdom, "province_reward": settings.province_reward,
            "money_reward": settings.money_reward}


def _bot_names(low: int, high: int, models: bool = True):
    """An argparse type: ``low``..``high`` players separated by commas, each a known bot or (with
    ``models``) a trained model's folder or model.zip (``training.players``)."""

    def parse(text: str) -> str:
        try:
            names = split_entries(nonempty(text))
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        for name in names:
            if name in BOTS or (models and name == PRETRAINED):
                continue
            models_too = f", {PRETRAINED}, or a trained model's folder or model.zip" if models else ""
            if not models or model_path(name) is None:
                raise argparse.ArgumentTypeError(
                    f"unknown Dominion bot {name!r}; bots: {', '.join(BOTS)}{models_too}")
            try:
                check_entry(SPEC, name, BOTS, exists=False)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        if not low <= len(names) <= high:
            raise argparse.ArgumentTypeError(f"{low} to {high} players, got {len(names)}")
        return ",".join(names)

    parse.__name__ = "players"
    return parse


def _seat_bots() -> dict[str, Any]:
    """The bots a list of players names, made fresh per seat: those an environment seats by name."""
    return {name: (lambda name=name: make_bot(name)) for name in BOTS}


def _table(env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """What decides a versus game (for a model's seat): the kingdom and the number of players."""
    opponents = env_kwargs.get("opponents", [])
    return {"kingdom": env_kwargs.get("kingdom"),
            "players": 1 + (1 if isinstance(opponents, str) else len(opponents))}


def _versus_env(players: int, kingdom: Any) -> Any:
    """An environment of the versus table (for its seats' spaces): big money in the other seats."""
    return gym.make(VERSUS_ENV_ID, opponents=["big-money"] * (players - 1), kingdom=kingdom)


def _kingdom_arg(text: str) -> str:
    """An argparse type: kingdom cards the engine knows (checked now, so the error names the option)."""
    try:
        R.parse_kingdom(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _oracle_kingdom_arg(text: str) -> str:
    """An argparse type: a kingdom for the oracle timing ("" or none: the treasure game)."""
    try:
        oracle.oracle_kingdom(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    if command in ("solve", "play", "evaluate", "train", "demo", "bench"):
        add_options(parser, DominionRules, only=["target"])
    if command in ("solve", "evaluate", "train", "demo", "play"):
        parser.add_argument("--kingdom", type=_kingdom_arg, default=None,
                            help="kingdom cards, comma-separated (default: none in solitaire, the "
                                 "treasure and victory cards only; the first-game set against bots)")
    if command in ("evaluate", "train", "demo", "play"):
        parser.add_argument("--opponents", type=_bot_names(1, R.MAX_PLAYERS - 1), default=None,
                            help=f"1-{R.MAX_PLAYERS - 1} comma-separated players, one per seat after "
                                 f"yours: bots ({', '.join(BOTS)}), pretrained (the agent shipped for "
                                 "Dominion-v0) or trained models (a train output folder or model.zip): "
                                 "play the versus game against them (default: none, the solitaire game)")
    if command in ("train", "demo"):
        parser.add_argument("--province-reward", type=float_arg(0, MAX_REWARD_WEIGHT),
                            default=TRAIN_PROVINCE_REWARD,
                            help=f"training reward per Province bought, besides -1 a turn (default "
                                 f"{TRAIN_PROVINCE_REWARD:g}; a random start rarely reaches the target, so "
                                 "-1 a turn alone is flat)")
        parser.add_argument("--money-reward", type=float_arg(0, MAX_REWARD_WEIGHT),
                            default=TRAIN_MONEY_REWARD,
                            help=f"training: weight of the money-density shaping (default "
                                 f"{TRAIN_MONEY_REWARD:g}; 0 = none)")
    if command in ("solve", "evaluate", "demo", "play", "bench"):
        # play's own default (the answer must come quickly at the end of a game), said in its help.
        work = PLAY_ORACLE_WORK if command == "play" else DominionLimits.oracle_work_limit
        work_help = next(o.help for f, o, _ in options_of(DominionLimits) if f.name == "oracle_work_limit")
        add_options(parser, DominionLimits, help={"oracle_work_limit": f"{work_help} (default {work})"})
        parser.set_defaults(oracle_work_limit=work)
    if command in ("solve", "evaluate", "demo", "play"):
        parser.add_argument("--cache", type=path_arg, default=None,
                            help="oracle cache folder (default ~/.cache/tabletop-gym)")
    if command == "play":
        parser.add_argument("--review", choices=REVIEWS, default=None,
                            help="solitaire, treasure game or Smithy: the oracle's word on your moves, after "
                                 "each move that lost turns or all of them at the end (what each lost, and "
                                 "the best move instead)")
    if command in ("solve", "play"):
        parser.add_argument("--deal", type=nonempty,
                            help="the deal, a decimal integer 0..2**64-1 (the one solve and play print, "
                                 "info['deal'] of the environments)")
        parser.add_argument("--seed", type=seed_arg, default=None,
                            help="without --deal: the deal that reset(seed=SEED) plays, as in evaluate and "
                                 "solve --deals (default a random deal)")
    if command == "tournament":
        parser.add_argument("--players", type=_bot_names(1, MAX_POOL), required=True,
                            help=f"comma-separated players: bots ({', '.join(BOTS)}), pretrained or trained "
                                 "models (a train output folder or model.zip). Bots alone without --seats: "
                                 f"one game of 1-{R.MAX_PLAYERS} seats, its win table; with --seats or a "
                                 "model: a round robin of every group of --seats players, rated")
        parser.add_argument("--seats", type=int_arg(2, R.MAX_PLAYERS), default=None,
                            help=f"players per game of the rated round robin, 2-{R.MAX_PLAYERS} "
                                 "(default: as many as listed, at most 4)")
        parser.add_argument("--games", type=int_arg(1, 10**9), default=1000, help="games (default 1000)")
        parser.add_argument("--seed", type=seed_arg, default=0, help="series seed (default 0)")
        parser.add_argument("--kingdom", type=_kingdom_arg, default="first-game",
                            help='kingdom cards, comma-separated; "" or none for treasures only')
        parser.add_argument("--out", type=path_arg, default=Path("runs/tournament"),
                            help="folder for the JSON")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    if command == "bench":
        # Upper limits keep the lists of per-deal results within memory.
        parser.add_argument("--seeds", type=int_arg(1, 10**6), default=1000,
                            help="solitaire deals per bot: those of seeds 0..N-1 (default 1000)")
        parser.add_argument("--games", type=int_arg(2, 10**8), default=3000,
                            help="games per speed run (default 3000; the Smithy run plays half)")
        parser.add_argument("--seed-games", type=int_arg(1, 10**8), default=2000,
                            help="games per seed-strategy pairing (default 2000; the seed used 10000)")
        parser.add_argument("--deals", type=int_arg(1, 10**5), default=30,
                            help="deals for the oracle timing: those of seeds 0..N-1 (default 30)")
        parser.add_argument("--deal-numbers", action="store_true",
                            help="take --seeds and --deals as the deals numbered 0..N-1 themselves "
                                 "(solve --deal D), not the deals of seeds 0..N-1 that reset(seed=s) "
                                 "plays: the numbering of the README's figures")
        parser.add_argument("--oracle-kingdom", type=_oracle_kingdom_arg, action="append", default=None,
                            help='a kingdom for the oracle timing, repeatable (default: "", smithy and '
                                 'first-game; "" or none is the treasure game)')
        parser.add_argument("--jobs", type=int_arg(1, 64), default=2,
                            help="deals solved at once in the oracle timing (default 2)")
        parser.add_argument("--env-steps", type=int_arg(1, 10**8), default=20_000,
                            help="steps per environment timing (default 20000)")
        add_vector_arguments(parser, "dominion", VECTOR_ENVS, 10_000_000)
        parser.add_argument("--out", type=path_arg, default=Path("runs/bench"),
                            help="folder for dominion.json")


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
    """The deal of solve and play: ``--deal``, else the deal ``reset(seed=SEED)`` plays (as in
    evaluate and solve --deals), else a random one."""
    if args.deal is not None:
        try:
            return str(R.parse_seed(args.deal))
        except InvalidDealError as error:
            raise InvalidDealError(f"--deal: {error}") from None
    if args.seed is not None:
        return deal_of_seed(args.seed)
    return str(int(np.random.default_rng().integers(0, 2**63)))


def _deal_text(deal: str, args: argparse.Namespace) -> str:
    """The deal as solve and play print it (``--deal`` replays it): with the seed that chose it, if
    one did."""
    return deal if args.deal is not None or args.seed is None else f"{deal} (seed {args.seed})"


_INNER_VERBS = {R.CELLAR_DISCARD: "discard", R.MINE_TRASH: "trash", R.MINE_GAIN: "gain to hand",
                R.REMODEL_TRASH: "trash", R.REMODEL_GAIN: "gain", R.WORKSHOP_GAIN: "gain"}


def _plan_by_turn(deal: str, plan: Sequence[int], rules: DominionRules) -> list[str]:
    """The plan's decisions grouped by turn, as text (replayed through the engine)."""
    state = R.DominionState.start(rules, deal)
    turns: list[list[str]] = [[]]
    for action in plan:
        decision = state.decision
        if decision == R.ACTION:
            turns[-1].append("end actions;" if action == R.PASS else f"play {R.CARD_NAMES[action]},")
        elif decision != R.BUY:  # a choice inside a card: Cellar's discards, a trash, a gain
            if action != R.PASS:
                turns[-1].append(f"{_INNER_VERBS[decision]} {R.CARD_NAMES[action]},")
        elif action != R.PASS:
            turns[-1].append(f"buy {R.CARD_NAMES[action]}")
        elif not any(t.startswith("buy") for t in turns[-1]):
            turns[-1].append("buy nothing")
        state.apply(action)
        if state.turns[0] == len(turns) and not state.done:
            turns.append([])
    return [" ".join(t) for t in turns if t]


def _bots_for(kingdom: str) -> list[str]:
    return ["big-money"] + (["smithy-big-money"] if R.SMITHY in R.parse_kingdom(kingdom) else [])


def _solve_command(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)
    rules = settings.rules
    deal = _deal(args)
    result = _solve(deal, settings)
    status = "proven optimal" if result.optimal else f"best found; proven at least {-result.bound} turns"
    cards = ", ".join(R.CARD_NAMES[c] for c in rules.cards) or "none"
    print(f"deal     {_deal_text(deal, args)}; kingdom: {cards}")
    print(f"turns    {-result.score} to own {rules.target} Provinces ({status}) in {result.seconds:.2f} s")
    for i, text in enumerate(_plan_by_turn(deal, result.plan, rules), 1):
        print(f"turn {i:2d}  {text}")
    for bot in _bots_for(rules.kingdom):
        print(f"{bot} on this deal: {solitaire_turns(bot, int(deal), rules.target, rules.kingdom)} turns")
    draw_if_asked(args, lambda: _plan_picture(deal, result, rules))
    return 0


def _plan_picture(deal: str, result: OracleResult, rules: DominionRules) -> Any:
    from tabletop_gym.envs.dominion.draw import draw_plan

    return draw_plan(deal, result, rules)


# --- play ------------------------------------------------------------------------------------------
_PROMPTS = {R.ACTION: "play", R.BUY: "buy", R.CELLAR_DISCARD: "discard", R.MILITIA_DISCARD: "discard",
            R.MOAT_REVEAL: "reveal", R.MINE_TRASH: "trash", R.MINE_GAIN: "gain", R.REMODEL_TRASH: "trash",
            R.REMODEL_GAIN: "gain", R.WORKSHOP_GAIN: "gain"}
_PASS_WORDS = ("pass", "done", "no", "none")  # not "p": that begins Province


def _cards(counts: Sequence[int]) -> str:
    return ", ".join(f"{n}x {R.CARD_NAMES[c]}" if n > 1 else R.CARD_NAMES[c]
                     for c, n in enumerate(counts) if n) or "nothing"


def _choice_text(action: int) -> str:
    return "pass" if action == R.PASS else f"{R.CARD_NAMES[action]} (${R.COST[action]})"


def _screen(state: R.DominionState, seat: int, names: dict[int, str]) -> str:
    """What the person in ``seat`` sees: the supply, their own hand, and of the others only what is
    public (cards owned and in play, VP, and how many cards they hold, never which)."""
    whose = "your" if state.player == seat else f"{names[state.player]}'s"
    lines = [f"--- {whose} turn {state.turns[state.player] + 1} ---",
             "supply: " + ", ".join(f"{R.CARD_NAMES[c]} {state.supply[c]}" for c in state.piles)]
    for p in sorted(names, key=lambda p: p != seat):
        if p == seat:
            held = f"hand: {_cards(state.hand[p])}"
        else:
            held = f"{state.hand_size(p)} cards in hand"
        played = f"; in play: {_cards(state.in_play[p])}" if any(state.in_play[p]) else ""
        lines.append(f"{names[p]}: {state.vp(p)} VP, {sum(state.owned[p])} cards; {held}{played}; "
                     f"draw pile {len(state.draw[p])}, discard pile {sum(state.discard[p])}")
    choices = state.legal_actions()
    lines.append(state.question())
    lines.append("choices: " + ", ".join(f"{i} {_choice_text(a)}" for i, a in enumerate(choices, 1)))
    return "\n".join(lines)


def _read_answer(text: str, state: R.DominionState) -> tuple[int | None, str]:
    """The action an answer names (a card name or its first letters, a choice's number, or pass),
    or None and why not, in the game's words."""
    choices = state.legal_actions()
    key = text.strip().lower()
    typed = quote_input(text.strip(), 40)
    if not key:
        return None, "type a card name, a choice's number or pass"
    if key in _PASS_WORDS:
        action = R.PASS
    elif key.isascii() and key.isdigit():  # '²'.isdigit() is True too, and int() refuses it
        number = int(key) if len(key) <= 6 else 0
        if not 1 <= number <= len(choices):
            return None, f"there is no choice {key[:8]}; the choices are numbered 1 to {len(choices)}"
        return choices[number - 1], ""
    else:
        matches = [c for c, name in enumerate(R.CARD_NAMES) if name.lower().startswith(key)]
        exact = [c for c in matches if R.CARD_NAMES[c].lower() == key]
        legal = [c for c in matches if c in choices]
        if exact:
            matches = exact
        elif len(matches) > 1 and len(legal) == 1:
            matches = legal  # 's' at a buy without Smithy in the supply can only mean Silver
        if not matches:
            return None, f"{typed} is not a card name, a choice's number or pass"
        if len(matches) > 1:
            return None, f"{typed} could be {', '.join(R.CARD_NAMES[c] for c in matches)}; type more letters"
        action = matches[0]
    if action not in choices:
        return None, state.why_illegal(action)
    return action, ""


class _Narrator:
    """Tells the bots' moves in words. It keeps its own copy of the game, replayed through the
    engine from the start with every answer recorded in ``state.history``, so it knows which
    decision each recorded answer was for."""

    def __init__(self, state: R.DominionState, seat: int, names: dict[int, str]) -> None:
        self.shadow = R.DominionState.start(state.rules, state.seed)
        self.seat = seat
        self.names = names
        self.told = 0

    def news(self, state: R.DominionState) -> list[str]:
        """A line per bot turn (or answer to an attack) since the last call."""
        lines: list[str] = []
        group: dict[str, Any] | None = None
        for player, action in state.history[self.told:]:
            shadow = self.shadow
            key = (player, shadow.player, shadow.turns[shadow.player])
            if group is None or group["key"] != key:
                if group is not None:
                    lines.append(self._line(group))
                group = {"key": key, "player": player, "turn": shadow.turns[shadow.player] + 1,
                         "own_turn": player == shadow.player, "phrases": [], "coins": None, "bought": []}
            decision = shadow.decision
            if decision == R.BUY and group["coins"] is None:
                group["coins"] = shadow.coins
            if decision == R.BUY and action != R.PASS:
                group["bought"].append(R.CARD_NAMES[action])
            else:
                phrase = _phrase(decision, action)
                if phrase:
                    group["phrases"].append(phrase)
            shadow.apply(action)
        if group is not None:
            lines.append(self._line(group))
        self.told = len(state.history)
        return [line for line in lines if line]

    def _line(self, group: dict[str, Any]) -> str:
        if group["player"] == self.seat:
            return ""  # the person knows what they typed
        parts = list(group["phrases"])
        if group["coins"] is not None:
            parts.append(f"with ${group['coins']} buys {', '.join(group['bought']) or 'nothing'}")
        if not parts:
            return ""
        who = self.names[group["player"]]
        label = f"{who}, turn {group['turn']}" if group["own_turn"] else who
        return f"{label}: {'; '.join(parts)}"


def _phrase(decision: int, action: int) -> str:
    """One answer of a bot in words; "" for what tells nothing (passes: a Moat kept hidden must not
    give away that its owner holds one)."""
    if action == R.PASS:
        return ""
    card = R.CARD_NAMES[action]
    return {R.ACTION: f"plays {card}", R.CELLAR_DISCARD: f"discards {card} to Cellar",
            R.MILITIA_DISCARD: f"discards {card} to Militia", R.MOAT_REVEAL: "reveals Moat",
            R.MINE_TRASH: f"trashes {card} with Mine", R.MINE_GAIN: f"gains {card} to hand",
            R.REMODEL_TRASH: f"trashes {card} with Remodel", R.REMODEL_GAIN: f"gains {card}",
            R.WORKSHOP_GAIN: f"gains {card}"}[decision]


REVIEWS = ("each", "end")


def _play(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)
    opponents = settings.opponents
    kingdom = settings.rules.kingdom
    target = settings.rules.target
    deal = _deal(args)
    review = getattr(args, "review", None)
    # Made before the game starts, so a setting without move values is refused at once.
    moves = _move_oracle(settings)(deal) if review is not None else None
    lost: list[str] = []
    if opponents:
        env = gym.make(VERSUS_ENV_ID, **_env_kwargs(settings)).unwrapped
    else:
        env = gym.make(ENV_ID, kingdom=kingdom, target=target).unwrapped
    env.reset(options={"deal": deal})
    state = env.state
    seat = env.seat
    names = {seat: "you"}
    for i, (p, bot) in enumerate(getattr(env, "bots", {}).items(), 1):
        names[p] = f"bot {i} ({bot.name})"
    narrator = _Narrator(state, seat, names)
    game = (f"against {', '.join(names[p] for p in names if p != seat)}" if opponents
            else f"solitaire: own {target} Province{'s' if target > 1 else ''} in as few turns as you can")
    print(f"Dominion, deal {_deal_text(deal, args)}, {game}.\nAnswer with a card name (or its first "
          f"letters), a choice's number, or pass; {' or '.join(QUIT_WORDS)} stops the game.\n")
    while not state.done:
        for line in narrator.news(state):
            print(line)
        print(_screen(state, seat, names))
        action = ask_move(f"{_PROMPTS[state.decision]}> ", lambda answer: _read_answer(answer, state))
        if action is None:
            break
        values = None
        if moves is not None:
            try:
                values = moves.at_state(state)
            except NoMoveOracleError as error:  # a position the search cannot settle within its work
                print(f"the review stops here: {error} (--oracle-work-limit gives it more)\n")
                moves = None
        turn, decision = state.turns[0] + 1, state.decision
        env.step(action)
        print()
        if values is not None and values.loss(action) > 0:
            lost.append(_loss_line(turn, decision, action, values))
            if review == "each":
                print(lost[-1] + "\n")
    for line in narrator.news(state):
        print(line)
    if opponents:
        _versus_summary(state, seat, names)
    else:
        _solitaire_summary(state, deal, settings)
    if review == "end":
        until = "" if moves is not None else " (until the review stopped)"
        print("\n".join([f"moves that lost turns{until}:"] + lost) if lost
              else f"every move you played was optimal{until}")
    return 0


def _loss_line(turn: int, decision: int, action: int, values: Any) -> str:
    """What a move gave away, and the best move instead, in the game's words."""
    loss = int(values.loss(action))

    def words(a: int) -> str:
        return "pass" if a == R.PASS else f"{_PROMPTS[decision]} {R.CARD_NAMES[a]}"

    return (f"turn {turn}: {words(action)} lost {loss} turn{'s' if loss > 1 else ''}: with "
            f"{words(values.best)} the game could end in {-int(values.optimum)} more turns")


def _versus_summary(state: R.DominionState, seat: int, names: dict[int, str]) -> None:
    scores = ", ".join(f"{names[p]} {state.vp(p)}" for p in sorted(names, key=lambda p: p != seat))
    turns = ", ".join(f"{names[p]} {state.turns[p]}" for p in sorted(names, key=lambda p: p != seat))
    if state.done:
        outcome = "the game was cut off at the turn limit" if state.truncated else "you " + {
            1: "won", 0: "shared the win", -1: "lost"}[state.results()[seat]]
        print(f"game over: {outcome}. VP: {scores}; turns: {turns}")
    else:
        print(f"stopped in turn {state.turns[state.player] + 1}. VP so far: {scores}; turns: {turns}")


def _solitaire_summary(state: R.DominionState, deal: str, settings: DominionSettings) -> None:
    target = settings.rules.target
    kingdom = settings.rules.kingdom
    provinces = state.owned[0][R.PROVINCE]
    if state.done and not state.truncated:
        print(f"game over after {state.turns[0]} turns: {provinces} Provinces, {state.vp(0)} VP")
    else:
        why = "cut off at the turn limit" if state.done else "stopped"
        print(f"{why} after {state.turns[0]} turns: {provinces} of {target} Provinces, {state.vp(0)} VP")
    result = _solve(deal, settings)
    proven = "" if result.optimal else " (a lower bound: the oracle stopped at its work limit)"
    bots = "; ".join(f"{bot}: {solitaire_turns(bot, int(deal), target, kingdom)}"
                     for bot in _bots_for(kingdom))
    print(f"the fewest turns any play of this deal needs: {-result.bound}{proven}; {bots}")


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
    if args.seats is not None or any(n not in BOTS for n in names):
        return _rated_tournament(args, names)
    if len(names) > R.MAX_PLAYERS:
        raise ValueError(f"one game seats 1 to {R.MAX_PLAYERS} players, got {len(names)}: give --seats N "
                         "for a round robin of every group of N of them")
    for n in names:
        make_bot(n)  # a clear error for an unknown bot before any game
    report = tournament(names, args.games, args.seed, args.kingdom, progress=not args.no_progress)
    _print_tournament(report)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"dominion-{'-vs-'.join(names)}.json"
    atomic_write_text(path, json.dumps(report, indent=1))
    print(f"written to {path}")
    return 0


def _rated_tournament(args: argparse.Namespace, names: list[str]) -> int:
    """The round robin of ``training.ratings`` over the listed players, rated."""
    from tabletop_gym.envs.dominion.env import DominionEnv

    seats = args.seats if args.seats is not None else min(len(names), R.MAX_PLAYERS)
    if seats > len(names):
        raise ValueError(f"--seats {seats} needs at least {seats} players, --players lists {len(names)}")
    kingdom = args.kingdom
    settings = _settings({"opponents": ["big-money"] * (seats - 1), "kingdom": kingdom})
    env_kwargs = {"opponents": ["big-money"] * (seats - 1), "kingdom": kingdom}

    def make_agents() -> list[Any]:
        return load_players(SPEC, names, settings, VERSUS_ENV_ID, env_kwargs,
                            lambda: _versus_env(seats, kingdom), _table, _seat_bots())

    def play(agents: Sequence[Any], seed: int) -> Outcome:
        env = DominionEnv(opponents=list(agents[1:]), kingdom=kingdom)
        observation, info = env.reset(seed=seed)
        done = False
        while not done:
            observation, _, terminated, truncated, info = env.step(agents[0].act(observation, info))
            done = terminated or truncated
        state = env.state
        # A shared win is a shared first place; every other player lost (Dominion ranks no further).
        places = [1 if r >= 0 else 2 for r in state.results()]
        return Outcome(places, [float(state.vp(p)) for p in range(seats)], info["deal"])

    return ratings.run("dominion", names, make_agents, play, seats, args.games, args.seed, args.out,
                       not args.no_progress, {"kingdom": kingdom})


def _games_per_second(names: Sequence[str], games: int, seed: int, kingdom: Any) -> tuple[float, float]:
    out = tournament(names, games, seed, kingdom)
    return out["games_per_second"], out["games_per_cpu_second"]


# The kingdoms the bench times the oracle on: the treasure game, Smithy, the First Game.
DEFAULT_ORACLE_KINGDOMS = ("", "smithy", "first-game")


def _bench_deals(args: argparse.Namespace, count: int) -> list[int]:
    """The deals the bench plays: those of seeds 0..count-1 (what ``reset(seed=s)``, ``evaluate
    --seed 0`` and ``solve --deals 0:count`` play), or with ``--deal-numbers`` the deals numbered
    0..count-1 themselves (``solve --deal D``), on which the README's figures were measured."""
    if args.deal_numbers:
        return list(range(count))
    return [int(deal_of_seed(s)) for s in range(count)]


def _timed_solve(job: tuple[int, int, str, int, float | None]) -> tuple[OracleResult, float]:
    """One oracle call and its CPU seconds (in a worker process of the bench)."""
    deal, target, kingdom, work_limit, time_limit = job
    start = time.process_time()
    result = oracle.solve(deal, target, time_limit, kingdom, work_limit)
    return result, time.process_time() - start


def _oracle_timing(args: argparse.Namespace, settings: DominionSettings, kingdom: str) -> dict[str, Any]:
    """The oracle on the bench's deals of a kingdom (``_bench_deals``): proven share, times (wall and
    CPU, medians), work, the fewest turns found and proven, and their distribution (the clairvoyant
    turn distribution where every deal is proven), beside the best bot's turns."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    target = settings.rules.target
    limits = settings.limits
    cards = oracle.oracle_kingdom(kingdom)
    label = "oracle_" + ("_".join(R.CARD_NAMES[c].lower() for c in cards) if cards else "treasure")
    if cards == R.FIRST_GAME:
        label = "oracle_first_game"
    deals = _bench_deals(args, args.deals)
    jobs = [(deal, target, kingdom, limits.oracle_work_limit, limits.oracle_time_limit) for deal in deals]
    # Deals in parallel processes: every answer depends on the work limit only, not on the timing.
    with ProcessPoolExecutor(args.jobs) as pool:
        solved = list(tqdm(pool.map(_timed_solve, jobs), total=len(jobs), desc=label, unit="deal"))
    results = [r for r, _ in solved]
    turns = [int(-r.score) for r in results]
    lower = [int(-r.bound) for r in results]
    bots = [min(solitaire_turns(b, deal, target, kingdom) for b in _bots_for(kingdom)) for deal in deals]
    proven = sum(r.optimal for r in results)
    return {
        f"{label}_seeds": args.deals,
        f"{label}_work_limit": limits.oracle_work_limit,
        f"{label}_proven_optimal": proven,
        f"{label}_proven_share": proven / args.deals,
        f"{label}_median_seconds": statistics.median(r.seconds for r in results),
        f"{label}_median_cpu_seconds": statistics.median(cpu for _, cpu in solved),
        f"{label}_max_seconds": max(r.seconds for r in results),
        f"{label}_median_work": statistics.median(r.stats["work"] for r in results),
        f"{label}_mean_turns_found": statistics.mean(turns),
        f"{label}_mean_lower_bound_turns": statistics.mean(lower),
        f"{label}_mean_best_bot_turns": statistics.mean(bots),
        f"{label}_turns_found_distribution": dict(sorted(Counter(turns).items())),
        f"{label}_lower_bound_distribution": dict(sorted(Counter(lower).items())),
        f"{label}_best_bot_distribution": dict(sorted(Counter(bots).items())),
        f"{label}_plan_sources": _plan_sources(results),
    }


def _plan_sources(results: Sequence[OracleResult]) -> dict[str, int]:
    """For each source of seed plans (bots, beams, sub-kingdoms), the deals on which its plan was as
    short as the oracle's answer; "exact search" counts the deals where the search beat them all."""
    sources: Counter[str] = Counter()
    for result in results:
        seeds = result.stats.get("seed_plan_turns", {})
        turns = -result.score
        if not seeds or turns < min(seeds.values()):
            sources["exact search"] += 1
        sources.update(name for name, t in seeds.items() if t == turns)
    return dict(sorted(sources.items(), key=lambda item: (-item[1], item[0])))


def _bench(args: argparse.Namespace) -> int:
    """Bots' solitaire turns, games per second, the seed's pairings, oracle times, env steps/s."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    settings = SPEC.read(args)
    if args.vector:
        # The solitaire game's native vector environment (the treasure game, --target Provinces).
        target = {"target": settings.rules.target}
        return vector_bench_command("dominion", ENV_ID, args, target, target)
    target = settings.rules.target
    # Which deals the per-deal figures are over: see _bench_deals.
    numbering = "deal numbers 0..N-1" if args.deal_numbers else "deals of seeds 0..N-1 (reset(seed=s))"
    report: dict[str, Any] = {"target": target, "deals": numbering}
    solitaire_deals = _bench_deals(args, args.seeds)
    for bot, kingdom in (("big-money", ""), ("big-money-ultimate", ""), ("smithy-big-money", "first-game")):
        deals = tqdm(solitaire_deals, desc=bot, unit="deal")
        turns = [solitaire_turns(bot, d, target, kingdom) for d in deals]
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
    for kingdom in args.oracle_kingdom if args.oracle_kingdom is not None else DEFAULT_ORACLE_KINGDOMS:
        report.update(_oracle_timing(args, settings, kingdom))
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
    return lambda settings: make_bot(name)


# Certified suites of the game (`tabletop-gym suite build NAME-vN`); their settings are command-line
# settings of this game. Their shipped files pin every word here (ids, notes, checksums).
SUITES = (
    SuiteDefinition(
        "dominion",
        "dominion",
        {"oracle_work_limit": 3_000_000},
        "(default: solitaire, treasure supply, 4 Provinces)",
        200,
        100,
        "the oracle's default work limit, 3,000,000 search nodes per deal (a bound, not an optimum, "
        "where it stops first)",
        "(about 1.7 s of CPU a deal)",
    ),
)
# `tabletop-gym baselines` trains with training aids (rewards that shape learning but change neither
# the deals nor the scores, which evaluation reads from info["score"]): with the solitaire's plain -1 a
# turn, MaskablePPO stays at random play's level after 100,000 steps (0.25 of the optimum); with a
# reward per Province and the money-density shaping it learns big money's level (0.88) in the same budget.
BASELINE = Baseline(
    suite="dominion-v0",
    steps=100_000,
    training_aids={"province_reward": 1.0, "money_reward": 1.0},
    column=3,
    large_suite="dominion-v1",
)

def _self_play_players(settings: DominionSettings) -> int:
    if not settings.opponents:
        raise ValueError(
            "dominion --self-play plays the versus game: give --opponents, one bot per other seat "
            "(--opponents big-money for 2 players); the pool of the learner's policies takes their seats"
        )
    return settings.rules.players


def _win_share(env: Any, info: dict[str, Any]) -> float:
    """The seat's share of the win from the engine's results (+1 alone, 0 shared, -1 lost)."""
    results = env.state.results()
    mine = results[env.seat]
    return 1.0 if mine == 1 else (1.0 / results.count(0) if mine == 0 else 0.0)


# Big money ultimate and Smithy big money are level head to head in the First Game kingdom (400
# games, 2 players, seats alternated: 48.0% and 47.0% wins, 5% shared); big money wins 10% against
# Smithy big money. The simulators' own strongest of the money bots measures the curve.
SELF_PLAY = SelfPlay(
    players=_self_play_players,
    seat_kwargs=lambda settings, seat, others: {**_env_kwargs(settings), "opponents": others, "seat": seat},
    win_share=_win_share,
    strongest_bot="big-money-ultimate",
)

SPEC = GameSpec(
    name="dominion",
    env_id=ENV_ID,
    agents={"random": lambda settings: RandomAgent(), "greedy": lambda settings: BigMoney(),
            **{name: _bot_agent(name) for name in BOTS if name != "random"}},
    oracle=_oracle,
    env_kwargs=_env_kwargs,
    env_id_for=_env_id,
    add_arguments=_add_arguments,
    figures=_figures,
    commands={"solve": _solve_command, "play": _play, "bench": _bench, "tournament": _tournament},
    ratio_name=lambda settings: "fewest turns ({best}) / turns taken",  # the score is minus the turns
    # Episodes are long (20-60 decisions, one reward per turn): rollouts of 256 steps in each of the
    # 8 environments hold several whole episodes; gamma 1 because the return is the turn count itself.
    ppo={"n_steps": 256, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4, "gamma": 1.0,
         "gae_lambda": 0.95, "ent_coef": 0.01, "net_arch": [128, 128]},
    demo=DEMO,
    suites=SUITES,
    baseline=BASELINE,
    settings=_settings,
    self_play=SELF_PLAY,
    # A blunder costs more than one turn.
    moves=MoveReview(oracle=_move_oracle, blunder=1),
)

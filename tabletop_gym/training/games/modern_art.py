"""Modern Art on the command line: solve, play, evaluate, train, tournament and bench."""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import (
    NoMoveOracleError,
    OracleCache,
    OracleResult,
    atomic_write_text,
    check_int,
    quote_input,
)
from tabletop_gym.envs.modern_art import ENV_ID
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.env import MAX_PLAYERS, ModernArtEnv
from tabletop_gym.envs.modern_art.rules import (
    ARTIST_CHARS,
    ARTISTS,
    AWARD,
    AWARD_ARTIST,
    CHOOSE_ARTIST,
    DEFAULT_DEALS,
    DOUBLE,
    DOUBLE_CARD,
    DRAW,
    END_PLAY,
    HIDDEN,
    HIDDEN_CARD,
    NUM_KINDS,
    PASS,
    PLAY,
    SIMULTANEOUS_CARD,
    SYMBOL_CHARS,
    ModernArtRules,
    State,
    card_code,
    card_name,
    first_rounds,
    random_deal,
    symbol_of,
)
from tabletop_gym.oracles import modern_art as oracle
from tabletop_gym.oracles.modern_art.limits import ModernArtLimits
from tabletop_gym.settings import option
from tabletop_gym.suites.definitions import SuiteDefinition
from tabletop_gym.training import ratings
from tabletop_gym.training.arguments import (
    WORK_LIMIT_NOTE,
    add_options,
    float_arg,
    int_arg,
    nonempty,
    path_arg,
    seed_arg,
)
from tabletop_gym.training.bench import env_steps_per_second
from tabletop_gym.training.games import Baseline, GameSpec, MoveReview, SelfPlay
from tabletop_gym.training.pictures import draw_if_asked, refuse_draw
from tabletop_gym.training.players import check_entry, load_players, seated, split_entries
from tabletop_gym.training.ratings import Outcome, places_from_scores
from tabletop_gym.training.terminal import QUIT_WORDS, ask_move

SEED_FIGURES = {2: 301, 4: 295}  # the seed's relaxed MiniZinc maxima (no double/hidden/simultaneous/extra)
# Command-line ceilings: beyond them a command would run for days.
MAX_GAMES = 100_000
MAX_BENCH_DEALS = 10_000
MAX_ENV_STEPS = 10_000_000


ROUNDS = len(DEFAULT_DEALS[2])  # rounds of a full game (every player count has as many)


def _deals(players: int, rounds: int | None) -> tuple[int, ...] | None:
    """The rules' ``deals`` for the first ``rounds`` rounds (None: the whole game): the environment's
    ``rounds=N``, through the same mapping (``rules.first_rounds``)."""
    return None if rounds is None else first_rounds(players, rounds)


@dataclass(frozen=True)
class ModernArtSettings:
    """What Modern Art's commands and callbacks need, built once from the command line (or a suite's
    stored settings) by :func:`settings_of`.

    ``rules``: the game (``--players``; ``--rounds N`` plays the first N rounds of the deal table, a
    shorter game where the per-deal oracle proves optima sooner); ``limits``: the oracle's beam width
    and work limit; ``rounds``: the rounds asked for (None: all), which the rules' ``deals`` already
    hold; ``cache``: the oracle's cache folder (None: the default cache).
    """

    rules: ModernArtRules = field(default_factory=ModernArtRules)
    limits: ModernArtLimits = field(default_factory=ModernArtLimits)
    rounds: int | None = option(
        None, f"play only the first N rounds, 1-{ROUNDS} (default: all {ROUNDS})", low=1, high=ROUNDS
    )
    cache: Path | None = None
    # The other seats' players in seat order (``--opponents``: bots or trained models, see
    # ``training.players``); none: the environment's greedy bots.
    opponents: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.opponents and len(self.opponents) != self.rules.players - 1:
            raise ValueError(f"--opponents lists {len(self.opponents)} players, but a game of "
                             f"{self.rules.players} players (--players) has {self.rules.players - 1} other "
                             "seats")
        if self.rounds is not None and self.rules.deals != _deals(self.rules.players, self.rounds):
            raise ValueError(
                f"rules dealing {self.rules.deals} are not the first {self.rounds} rounds of the deal table"
            )

    def with_players(self, players: int) -> ModernArtSettings:
        """The same settings for another player count (``bench`` measures several)."""
        rules = ModernArtRules(players=players, deals=_deals(players, self.rounds))
        return ModernArtSettings(rules, self.limits, self.rounds, self.cache)

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``ModernArtEnv`` for these rules (and the opponents, each an Agent
        under the entry that names it)."""
        kwargs: dict[str, Any] = {"players": self.rules.players}
        if self.rounds is not None:
            kwargs["deals"] = self.rules.deals
        if self.opponents:
            table = dict(kwargs)
            agents = load_players(SPEC, self.opponents, self, ENV_ID, table, lambda: ModernArtEnv(**table),
                                  _table)
            kwargs["opponents"] = seated(self.opponents, agents)
        return kwargs


def _table(env_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """What decides the game at a table (for a model's seat): everything but who sits where."""
    return {k: v for k, v in env_kwargs.items() if k not in ("opponents", "seat")}


def settings_of(values: Mapping[str, Any]) -> ModernArtSettings:
    """The settings from values by name (a command's parsed arguments, a suite's stored settings):
    ``players``, ``rounds``, ``width``, ``time_limit`` and ``cache``; other names are another
    command's and are ignored (batch solving's ``deals`` is a seed range, not the rules')."""
    players = values.get("players", ModernArtRules.players)
    rounds = values.get("rounds")
    rules = ModernArtRules(players=players, deals=_deals(players, rounds))
    limits = ModernArtLimits(**{name: values[name] for name in ("width", "time_limit") if name in values})
    opponents = values.get("opponents")
    opponents = tuple(split_entries(opponents)) if opponents else ()
    return ModernArtSettings(rules, limits, rounds, values.get("cache"), opponents)


def _solve(deal: str, settings: ModernArtSettings) -> OracleResult:
    cache = settings.cache
    return oracle.solve_cached(
        deal,
        settings.rules,
        0,
        OracleCache(cache) if cache is not None else None,
        width=settings.limits.width,
        time_limit=settings.limits.time_limit,
    )


def _move_oracle(settings: ModernArtSettings) -> Any:
    """The move oracle of a deal string, for seat 0 against the environment's greedy bots, in the
    settings where its search proves every value: one-round games (``--rounds 1``);
    ``NoMoveOracleError`` elsewhere, or against other opponents. Each question may search as many
    new positions as ``--time-limit`` buys at the oracle's ``POSITIONS_PER_SECOND``."""
    from tabletop_gym.oracles.modern_art.moves import ModernArtMoves, refuse_unproven

    rules = settings.rules
    others = [entry for entry in settings.opponents if entry != "greedy"]
    if others:
        raise NoMoveOracleError(
            f"Modern Art's move values are against the greedy bots (the environment's default "
            f"opponents), whose answers the search plays: not against {', '.join(others)}; leave "
            "--opponents out"
        )
    refuse_unproven(rules)
    positions = max(1, int(settings.limits.time_limit * oracle.POSITIONS_PER_SECOND))
    return lambda deal: ModernArtMoves(deal, rules, 0, positions)


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


def _player_counts(text: str) -> list[int]:
    """An argparse type for ``--bench-players``: comma-separated player counts, each 2 to 5."""
    counts = []
    for part in nonempty(text).split(","):
        try:
            count = int(part.strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected counts such as 2,3,4,5, got {quote_input(text)}"
            ) from None
        if not 2 <= count <= MAX_PLAYERS:
            raise argparse.ArgumentTypeError(f"player counts must be from 2 to {MAX_PLAYERS}, got {count}")
        counts.append(count)
    return counts


def _entries(text: str) -> str:
    """An argparse type: comma-separated players, each a bot or a trained model's path."""
    try:
        entries = split_entries(nonempty(text))
        for entry in entries:
            check_entry(SPEC, entry, exists=False)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return ",".join(entries)


def _count_or_players(text: str) -> int | str:
    """An argparse type for tournament's ``--players``: a player count (the table of bots) or a list
    of players (the rated round robin)."""
    if text.strip().isdigit() and len(text.strip()) < 3:
        count = int(text.strip())
        if not 2 <= count <= MAX_PLAYERS:
            raise argparse.ArgumentTypeError(f"a player count must be from 2 to {MAX_PLAYERS}, got {count}")
        return count
    entries = _entries(text)
    if len(entries.split(",")) < 2:
        raise argparse.ArgumentTypeError(f"a round robin needs at least 2 players, got {quote_input(text)}")
    return entries


def _add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    known = {a.dest for a in parser._actions}
    # bench runs each of --bench-players with --bound-seconds of oracle time a deal: no --players or
    # --time-limit there, so that no option it would ignore is accepted.
    if command == "tournament":
        parser.add_argument(
            "--players", type=_count_or_players, default=ModernArtRules.players,
            help="a player count, 2-5: the table of each bot at seat 0 against greedy and random bots "
            "(default 2); or comma-separated players, bots (random, greedy), pretrained or trained models "
            "(a train output folder or model.zip): a rated round robin of every group of --seats of them",
        )  # fmt: skip
        parser.add_argument(
            "--seats", type=int_arg(2, MAX_PLAYERS), default=None,
            help=f"with a list of --players: players per game, 2-{MAX_PLAYERS} (default: as many as "
            "listed, at most 5)",
        )  # fmt: skip
        parser.add_argument("--seed", type=seed_arg, default=0, help="seed of the first deal (default 0)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    if command in ("evaluate", "train", "play") and "opponents" not in known:
        parser.add_argument(
            "--opponents", type=_entries, default=None,
            help="the other seats' players in seat order, comma-separated: bots (random, greedy), pretrained "
            "(the agent shipped for ModernArt-v0) or trained models (a train output folder or model.zip) "
            "(default: greedy bots)",
        )  # fmt: skip
    if "players" not in known and command not in ("bench", "tournament"):
        add_options(parser, ModernArtRules, only=["players"])
    if "rounds" not in known:
        add_options(parser, ModernArtSettings, only=["rounds"])
    if command in ("solve", "play", "evaluate", "demo", "bench") and "width" not in known:
        add_options(parser, ModernArtLimits, only=["width"])
    if command in ("solve", "play", "evaluate", "demo") and "time_limit" not in known:
        limit_help = f"the work limit of the oracle's CP-SAT models and plan search, {WORK_LIMIT_NOTE}"
        add_options(parser, ModernArtLimits, only=["time_limit"], help={"time_limit": limit_help})
    if command in ("evaluate", "demo") and "cache" not in known:
        parser.add_argument("--cache", type=path_arg, default=None, help="oracle cache folder")
    if command == "solve" and "free" not in known:
        parser.add_argument(
            "--free", action="store_true", help="over every deal: the best plan found and a proven bound"
        )
    if command == "play" and "review" not in known:
        parser.add_argument(
            "--review", choices=REVIEWS, default=None,
            help="one-round games (--rounds 1): the oracle's word on your decisions against the greedy "
            "bots, after each one that lost points or all of them at the end (what each lost, and the "
            "best decision instead, knowing every hand and the cards to come)",
        )  # fmt: skip
    if command in ("solve", "play") and "deal" not in known:
        parser.add_argument(
            "--deal", type=nonempty, help="deal string: the whole deck, two characters per card"
        )
        parser.add_argument(
            "--seed", type=seed_arg, default=None, help="without --deal: seed of a random deal"
        )
    if command == "tournament":
        parser.add_argument(
            "--games", type=int_arg(1, MAX_GAMES), default=200,
            help=f"games per pairing, 1-{MAX_GAMES} (default 200)",
        )  # fmt: skip
        parser.add_argument(
            "--out", type=path_arg, default=Path("runs/tournament"), help="folder for the JSON"
        )
    if command == "bench":
        parser.add_argument(
            "--deals", type=int_arg(1, MAX_BENCH_DEALS), default=5,
            help="deals per player count for the oracle (default 5)",
        )  # fmt: skip
        parser.add_argument(
            "--env-steps", type=int_arg(1, MAX_ENV_STEPS), default=20_000,
            help="steps per environment timing (default 20000)",
        )  # fmt: skip
        parser.add_argument(
            "--bound-seconds", type=float_arg(0, oracle.MAX_TIME_LIMIT, low_open=True), default=20.0,
            help="the oracle's time per deal (CP-SAT models and plan search), in seconds of a 2-core "
            "machine counted in deterministic work (default 20)",
        )  # fmt: skip
        parser.add_argument(
            "--free-deals", type=int_arg(0, oracle.MAX_FREE_DEALS), default=8,
            help="stacked deals for the free-deal maximum; 0 leaves it out (default 8)",
        )  # fmt: skip
        parser.add_argument(
            "--bench-players", type=_player_counts, default=[2, 3, 4, 5],
            help="player counts, comma-separated (default 2,3,4,5)",
        )  # fmt: skip
        parser.add_argument(
            "--out", type=path_arg, default=Path("runs/bench"), help="folder for the report JSON"
        )


def _bounds_line(stats: dict) -> str:
    """Each relaxation's proven bound, as the oracle's stats hold them."""
    names = {"game_model_bound": "game model (CP-SAT)", "seat_model_bound": "seat-only model (CP-SAT)",
             "path_bound": "artist paths (LP)"}  # fmt: skip
    return ", ".join(f"{name} {stats[key]}" for key, name in names.items() if key in stats)


def _solve_command(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)
    rules, limits = settings.rules, settings.limits
    if args.free:
        refuse_draw(args, "--free finds a deal over every deal, draw its plan with --deal DEAL --draw")
        free = oracle.free_deal(rules, deals=2, width=limits.width, time_limit=limits.time_limit)
        print(f"deal   {free['deal']}")
        print(f"rules  {rules.variant()}")
        source = free["plan_source"]
        print(f"plan   {free['score']} points for seat 0 ({source}, replayed through the engine)")
        print(f"bound  {free['bound']} (proven upper bound over every deal: the smallest relaxation bound)")
        print(f"       {_bounds_line(free['stats'])}")
        print("plan actions: " + " ".join(map(str, free["plan"])))
        return 0
    deal = args.deal if args.deal is not None else random_deal(rules, args.seed)
    result = oracle.solve(deal, rules, 0, width=limits.width, time_limit=limits.time_limit)
    print(f"deal   {deal}")
    print(f"rules  {rules.variant()}")
    source = result.stats.get("plan_source", "exhaustive search")
    print(f"plan   {result.score} points for seat 0 ({source}, replayed through the engine)")
    print(f"bound  {result.bound} (proven upper bound: the smaller relaxation bound; optimal only if equal)")
    if "path_bound" in result.stats:
        print(f"       {_bounds_line(result.stats)}")
    print(f"gap    {result.gap}   time {result.seconds:.1f} s   {'optimal' if result.optimal else ''}")
    print("plan actions: " + " ".join(map(str, result.plan)))
    draw_if_asked(args, lambda: _plan_picture(deal, result, rules))
    return 0


def _plan_picture(deal: str, result: OracleResult, rules: ModernArtRules) -> Any:
    from tabletop_gym.envs.modern_art.draw import draw_plan

    return draw_plan(deal, result, rules)


# ---- play in the terminal ------------------------------------------------------------------------

YOU = 0  # the seat a person plays in ``play``


def _name(p: int) -> str:
    return "you" if p == YOU else f"bot {p}"


def _says(p: int, verb: str) -> str:
    """``you display`` / ``bot 1 displays``."""
    if p == YOU:
        return f"you {verb}"
    return f"bot {p} {verb}{'es' if verb.endswith(('s', 'sh', 'ch', 'x')) else 's'}"


def _scores(scores: Sequence[int]) -> str:
    return ", ".join(f"{_name(p)} {score}" for p, score in enumerate(scores))


def _move(p: int, phase: int, action: int, artist: int) -> str:
    """One decision in the game's words; a bot's face-down card stays hidden."""
    if phase == AWARD_ARTIST:
        return _says(p, "put") + f" an award token on {ARTISTS[action - CHOOSE_ARTIST]}"
    if phase == PLAY:
        return _says(p, "display") + f" {card_name(action)}"
    if phase == DOUBLE_CARD:
        if action == PASS:
            return _says(p, "add") + f" no second {ARTISTS[artist]} card to the double"
        return _says(p, "add") + f" {card_name(action)} as the double's second card"
    if phase == HIDDEN_CARD:
        if action == PASS:
            return _says(p, "put") + " no card face down"
        return _says(p, "put") + (f" {card_name(action)}" if p == YOU else " a card") + " face down"
    if phase == SIMULTANEOUS_CARD:
        if action == PASS:
            return _says(p, "pass") + " on the simultaneous play"
        return _says(p, "display") + f" {card_name(action)} in the simultaneous play"
    if action == PASS:  # END_PLAY
        return _says(p, "pass") + " at the round's end"
    return _says(p, "display") + f" {card_name(action)} at the round's end"


def narrate(before: State, actions: Sequence[int]) -> list[str]:
    """What ``actions`` did from the position ``before``, one line per decision, in the game's words
    (``you`` is seat 0, the others ``bot 1``...): the engine replays them on a copy, so the lines say
    what the rules made of each (a card drawn, a round scored, the next round dealt)."""
    state = before.copy()
    lines = []
    for action in actions:
        p, phase, artist, round_ = state.to_move, state.phase, state.double_artist, state.round
        drawn, values = state.drawn[p], state.values[:]
        points = state.apply(action)
        line = _move(p, phase, action, artist)
        if state.drawn[p] > drawn:
            line += " and draw a card" if p == YOU else " and draws a card"
        lines.append(line)
        if state.drawn[p] == drawn and phase == PLAY and state.round == round_:
            lines += _symbol_skipped(state, p, action)
        if state.round != round_:
            lines += _round_end(state, round_, values, points)
    return lines


def _symbol_skipped(state: State, p: int, action: int) -> list[str]:
    """What a turn card's symbol did when it asked nothing of its player (the engine skips a decision
    with no card to play). A bot's skipped double or hidden card reads as its pass would, since
    whether it could not or would not play a second card is its secret."""
    symbol, asked = symbol_of(action), state.to_move == p and state.phase != PLAY
    if symbol == DRAW:
        return ["the deck is empty: no card to draw"]
    if asked:
        return []
    artist = action // len(SYMBOL_CHARS)
    if symbol == DOUBLE:
        return [_move(p, DOUBLE_CARD, PASS, artist) + (" (none in hand)" if p == YOU else "")]
    if symbol == HIDDEN:
        return [_move(p, HIDDEN_CARD, PASS, artist) + (" (no card in hand)" if p == YOU else "")]
    if symbol == AWARD:
        return ["no award token is left to place"]
    return []


def _round_end(state: State, round_: int, values: Sequence[int], points: Sequence[int]) -> list[str]:
    won = [(state.values[a] - values[a], a) for a in range(len(ARTISTS))]
    ranked = ", ".join(f"{ARTISTS[a]} +{gain}" for gain, a in sorted(won, key=lambda w: -w[0]) if gain)
    lines = [
        f"round {round_ + 1} ends. Values won: {ranked or 'none'}. Points: "
        + ", ".join(f"{_name(p)} +{gain}" for p, gain in enumerate(points))
        + f". Scores: {_scores(state.money)}"
    ]
    if not state.done:
        dealt = state.rules.deals[state.round]
        lines.append(
            f"round {state.round + 1} begins"
            + (f": each player is dealt {dealt} more card{'s' if dealt != 1 else ''}" if dealt else "")
            + _extra_text(state)
        )
    return lines


def _extra_text(state: State) -> str:
    shown = [ARTISTS[a] for a, count in enumerate(state.extra) if count]
    return f"; extra card: {', '.join(shown)}" if shown else ""


def _option_label(action: int) -> str:
    if action == PASS:
        return "pass"
    if action >= CHOOSE_ARTIST:
        a = action - CHOOSE_ARTIST
        return f"{ARTISTS[a]} [{ARTIST_CHARS[a]}]"
    return f"{card_name(action)} [{card_code(action)}]"


_DECISIONS = {
    PLAY: "your turn: display a card from your hand",
    DOUBLE_CARD: "double: add a second {artist} card, or pass",
    HIDDEN_CARD: "hidden: put a card face down, or pass",
    SIMULTANEOUS_CARD: "simultaneous play: display one more card, or pass",
    AWARD_ARTIST: "award: choose the artist that gets the award token",
    END_PLAY: "round's end: display one more card of an artist you displayed this round, or pass",
}


def _decision_text(state: State) -> str:
    artist = ARTISTS[state.double_artist] if state.double_artist >= 0 else ""
    return _DECISIONS[state.phase].format(artist=artist)


def _read_answer(answer: str, state: State) -> tuple[int | None, str]:
    """(the action a typed answer names, or None and what is wrong with it, in the game's words).

    An answer is an option's number, a card code (``Yd``: artist letter, then the symbol), a card's
    or (for an award) an artist's name or letter, or ``pass``."""
    legal = state.legal_actions()
    text = " ".join(answer.split()).lower()
    hint = f"type an option's number (1-{len(legal)}), a card code such as {_example(legal)} or quit"
    if not text:
        return None, hint
    if text.isascii() and text.isdigit():
        # No int() of thousands of digits (Python refuses past 4300, which ended the game): a
        # number longer than the options' count is no option.
        number = int(text) if len(text) <= len(str(len(legal))) else None
        if number is not None and 1 <= number <= len(legal):
            return legal[number - 1], ""
        return None, f"there is no option {text if len(text) <= 20 else quote_input(text, 20)}: {hint}"
    action = _named_action(text, state.phase)
    if action is None:
        return None, f"{quote_input(answer, 40)} is not a card or an option: {hint}"
    if action in legal:
        return action, ""
    return None, f"{_why_not(action, state)}; {hint}"


def _example(legal: Sequence[int]) -> str:
    return next((card_code(a) for a in legal if a < NUM_KINDS), "Y.")


def _named_action(text: str, phase: int) -> int | None:
    """The action ``text`` names (lower case), legal or not; None if it names nothing."""
    if text == "pass":
        return PASS
    for a, artist in enumerate(ARTISTS):  # an artist: an award's choice
        if text in (artist.lower(), ARTIST_CHARS[a].lower()) and phase == AWARD_ARTIST:
            return CHOOSE_ARTIST + a
    if len(text) == 2 and text[0].upper() in ARTIST_CHARS and text[1] in SYMBOL_CHARS:
        return ARTIST_CHARS.index(text[0].upper()) * len(SYMBOL_CHARS) + SYMBOL_CHARS.index(text[1])
    for kind in range(NUM_KINDS):
        if text == card_name(kind).lower():
            return kind
    for a, artist in enumerate(ARTISTS):
        if text in (artist.lower(), ARTIST_CHARS[a].lower()):
            return CHOOSE_ARTIST + a
    return None


def _why_not(action: int, state: State) -> str:
    phase = state.phase
    if action == PASS:
        if phase == AWARD_ARTIST:
            return "an award token must be placed while tokens remain: choose an artist"
        return "you cannot pass on your turn: display a card"
    if action >= CHOOSE_ARTIST:
        return f"an artist is chosen only for an award token; now: {_decision_text(state)}"
    if phase == AWARD_ARTIST:
        return "choose an artist for the award token (its name or letter)"
    if not state.hands[state.to_move][action]:
        return f"you hold no {card_name(action)}"
    if phase == DOUBLE_CARD or phase == SIMULTANEOUS_CARD:
        return f"{card_name(action)} is not a {ARTISTS[state.double_artist]} card"
    if phase == END_PLAY:
        return f"{card_name(action)} is not of an artist you displayed this round (once each)"
    return f"{card_name(action)} cannot be played now: {_decision_text(state)}"


def _show(state: State) -> None:
    print(state.render(YOU))
    options = state.legal_actions()
    print(_decision_text(state))
    lines = [""]
    for i, action in enumerate(options, 1):  # whole options per line, about 100 characters a line
        item = f"{i}) {_option_label(action)}"
        if lines[-1] and len(lines[-1]) + len(item) > 100:
            lines.append("")
        lines[-1] += f"  {item} "
    print("\n".join(line.rstrip() for line in lines))


REVIEWS = ("each", "end")


def _play(args: argparse.Namespace) -> int:
    settings = SPEC.read(args)
    players = settings.rules.players
    review = getattr(args, "review", None)
    # Made before the game starts, so settings without move values are refused at once.
    make_moves = _move_oracle(settings) if review is not None else None
    # The deal holds every hand: it is kept for the summary (replay, oracle), never shown in play.
    env = ModernArtEnv(reveal_deal=True, **settings.env_kwargs())
    options = {"deal": args.deal} if args.deal is not None else None
    _, info = env.reset(seed=args.seed, options=options)
    deal = info["deal"]
    state = env.state
    moves = make_moves(deal) if make_moves is not None else None
    lost: list[str] = []
    kinds = settings.opponents or ("greedy",) * (players - 1)
    bots = ", ".join(f"bot {p} (P{p}, {kind})" for p, kind in enumerate(kinds, 1))
    print(
        f"Modern Art, {state.rules.rounds} round{'s' if state.rules.rounds > 1 else ''}: you are P0 "
        f"against {bots}.\nAnswer with an option's number, a card code (artist {ARTIST_CHARS}, then "
        f"symbol: . plain, d draw, x double, h hidden, s simultaneous, a award), an artist for an award, "
        f"or pass; {' or '.join(QUIT_WORDS)} stops the game.\n"
    )
    print(f"round 1 begins{_extra_text(state)}")
    decision = 0
    while not state.done:
        _show(state)
        action = ask_move("> ", lambda answer: _read_answer(answer, state))
        if action is None:
            break
        decision += 1
        values = None
        if moves is not None:
            try:
                values = moves.at_state(state)
            except NoMoveOracleError as error:  # a position beyond the search's work limit
                print(f"the review stops here: {error}\n")
                moves = None
        before = state.copy()
        env.step(action)
        print()
        for line in narrate(before, state.history[len(before.history) :]):
            print(line)
        if values is not None and values.loss(action) > 0:
            lost.append(_loss_line(decision, action, values))
            if review == "each":
                print(lost[-1])
        print()
    _summary(state, deal, env.rules, settings.limits)
    if review == "end":
        until = " (until the review stopped)" if moves is None else ""
        print("\n".join([f"decisions that lost points{until}:", *lost]) if lost
              else f"every decision was optimal{until}")
    print(f"deal {deal}  (replay it with --deal)")
    return 0


def _loss_line(decision: int, action: int, values: Any) -> str:
    """What a decision gave away, and the best one instead, in the game's words. The values know
    every hand and the cards to come, and the bots' answers."""
    return (
        f"decision {decision}: {_option_label(action)} lost {values.loss(action):g} points: with it at "
        f"most {values.values[action]:g} more points were to be had, with {_option_label(values.best)} "
        f"{values.optimum:g} (knowing every hand, the cards to come and the bots' answers)"
    )


def _summary(state: State, deal: str, rules: ModernArtRules, limits: ModernArtLimits) -> None:
    if not state.done:
        print(f"stopped in round {state.round + 1} of {rules.rounds}. Scores so far: {_scores(state.money)}")
        return
    winners = state.winners()
    outcome = (
        "you win" if winners == [YOU] else "you share the win" if YOU in winners
        else " and ".join(_name(p) for p in winners) + (" win" if len(winners) > 1 else " wins")
    )  # fmt: skip
    print(f"game over: {outcome}. Scores: {_scores(state.money)}")
    result = oracle.solve(deal, rules, YOU, width=limits.width, time_limit=limits.time_limit)
    print(
        f"with every player helping you this deal gives you {result.score} points (found), "
        f"at most {result.bound} (proven bound)"
    )


def _play_game(agents: list, seed: int, env_kwargs: dict[str, Any]) -> list[int]:
    """One game: ``agents[p]`` plays seat p; returns the scores."""
    env = ModernArtEnv(seat=0, opponents=agents[1:], **env_kwargs)
    obs, info = env.reset(seed=seed)
    agents[0].reset(seed)
    done = False
    while not done:
        obs, _, done, _, info = env.step(agents[0].act(obs, info))
    return [int(s) for s in info["scores"]]


def _rated_tournament(args: argparse.Namespace) -> int:
    """The round robin of ``training.ratings`` over the listed players, rated."""
    names = args.players.split(",")
    seats = args.seats if args.seats is not None else min(len(names), MAX_PLAYERS)
    if seats > len(names):
        raise ValueError(f"--seats {seats} needs at least {seats} players, --players lists {len(names)}")
    settings = settings_of({**vars(args), "players": seats, "opponents": None})
    table = settings.env_kwargs()

    def make_agents() -> list[Any]:
        return load_players(SPEC, names, settings, ENV_ID, table, lambda: ModernArtEnv(**table), _table)

    def play(agents: Sequence[Any], seed: int) -> Outcome:
        env = ModernArtEnv(seat=0, opponents=list(agents[1:]), **table)
        observation, info = env.reset(seed=seed)
        done = False
        while not done:
            observation, _, done, _, info = env.step(agents[0].act(observation, info))
        scores = [float(s) for s in info["scores"]]
        return Outcome(places_from_scores(scores), scores, info["deal"])

    return ratings.run("modern_art", names, make_agents, play, seats, args.games, args.seed, args.out,
                       not args.no_progress, {"players": seats, "rounds": settings.rounds})


def _tournament(args: argparse.Namespace) -> int:
    """Each agent at seat 0 against greedy bots and against random bots: mean score and win rate
    (``--players N``); or, with a list of players, the rated round robin."""
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    if isinstance(args.players, str):
        return _rated_tournament(args)
    if args.seats is not None:
        raise ValueError("--seats is for a list of --players (the rated round robin), not a player count")
    settings = SPEC.read(args)
    rules = settings.rules
    players = rules.players
    games = check_int("--games", args.games, 1, MAX_GAMES)
    factories = {"random": lambda s: RandomAgent(s), "greedy": lambda s: GreedyAgent(rules)}
    report = {}
    for hero in factories:
        for field_name in factories:
            scores, wins = [], 0.0
            for game in tqdm(range(games), desc=f"{hero} vs {field_name}", leave=False):
                agents = [factories[hero](game)] + [
                    factories[field_name](game * 7 + i) for i in range(players - 1)
                ]
                result = _play_game(agents, game, settings.env_kwargs())
                scores.append(result[0])
                wins += win_share(result)
            report[f"{hero}_vs_{field_name}"] = {
                "mean_score": float(np.mean(scores)),
                "win_rate": wins / games,
                "games": games,
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
    from tqdm import tqdm  # where a bar is shown: the command line starts without it

    settings = SPEC.read(args)
    rounds, width = settings.rounds, settings.limits.width
    report: dict = {
        "deck": "default (per artist: 1 award, 2 draw, 1 double, 1 hidden, 1 simultaneous)",
        "timing_note": "wall-clock on a shared machine; medians of 3 runs",
        "rounds": "all" if rounds is None else rounds,
    }
    counts = list(args.bench_players)
    env_steps = check_int("--env-steps", args.env_steps, 1, MAX_ENV_STEPS)
    for players in counts:
        env = ModernArtEnv(**settings.with_players(players).env_kwargs())
        rates = [env_steps_per_second(env, env_steps, seed) for seed in range(3)]
        report[f"env_steps_per_second_median_{players}p"] = statistics.median(rates)
    for players in counts:
        rules = settings.with_players(players).rules
        rows = []
        for seed in tqdm(range(args.deals), desc=f"oracle {players}p", unit="deal"):
            rows.append(
                oracle.solve(
                    random_deal(rules, seed), rules, 0, width=width, time_limit=args.bound_seconds
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
                # the plan budget realizing and planning again left to the game model's LNS
                "lns_seconds": [r.stats.get("lns_seconds") for r in rows],
                # how far each plan is from its proven bound (1 where the plan is proven optimal)
                "plan_bound_ratios": [round(r.score / r.bound, 3) if r.bound else 1.0 for r in rows],
                "mean_plan_bound_ratio": round(
                    statistics.mean(r.score / r.bound if r.bound else 1.0 for r in rows), 3
                ),
                "median_plan_score": statistics.median(r.score for r in rows),
                "median_bound": statistics.median(r.bound for r in rows),
                "median_gap": statistics.median(r.gap for r in rows),
                "median_seconds": statistics.median(r.seconds for r in rows),
                "proven_optimal": sum(r.optimal for r in rows),
                "deals": len(rows),
            }
        if args.free_deals > 0:
            free = oracle.free_deal(rules, args.free_deals, width=width, time_limit=args.bound_seconds)
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
    name = "modern_art.json" if rounds is None else f"modern_art_{rounds}_rounds.json"
    atomic_write_text(args.out / name, json.dumps(report, indent=1))
    print(f"written to {args.out / name}")
    return 0


# Certified suites of the game (`tabletop-gym suite build NAME-vN`); their settings are command-line
# settings of this game. Their shipped files pin every word here (ids, notes, checksums).
SUITES = (
    SuiteDefinition(
        "modern_art-2p",
        "modern_art",
        {"players": 2, "width": 8, "time_limit": 2.0},
        "--players 2",
        50,
        4,
        "beam width 8 and 2 s of work per deal: plans and proven bounds, "
        "not optima (a full game leaves a gap even at 30 s)",
    ),
    SuiteDefinition(
        "modern_art-3p",
        "modern_art",
        {"players": 3, "width": 8, "time_limit": 2.0},
        "--players 3",
        50,
        4,
        "beam width 8 and 2 s of work per deal: plans and proven bounds, "
        "not optima (a full game leaves a gap even at 30 s)",
    ),
)
# `tabletop-gym baselines`: the 2-player game, scored against proven bounds.
# No native vector environment: at about 1,500 steps per CPU second the large budget is 10x, not 100x
# (10^7 steps would take some 2 CPU hours per seed on the 2-core machine).
BASELINE = Baseline(
    suite="modern_art-2p-v0", steps=100_000, column=5, large_steps=1_000_000, large_suite="modern_art-2p-v1"
)

SELF_PLAY = SelfPlay(
    players=lambda settings: settings.rules.players,
    seat_kwargs=lambda settings, seat, others: {**settings.env_kwargs(), "seat": seat, "opponents": others},
    win_share=lambda env, info: win_share(info["scores"], info["seat"]),
    strongest_bot="greedy",  # the game's only rule bot, well ahead of random (see tournament)
)

SPEC = GameSpec(
    name="modern_art",
    env_id=ENV_ID,
    agents={"random": lambda settings: RandomAgent(), "greedy": lambda settings: GreedyAgent(settings.rules)},
    oracle=_solve,
    figures=_figures,
    env_kwargs=ModernArtSettings.env_kwargs,
    add_arguments=_add_arguments,
    commands={"solve": _solve_command, "play": _play, "tournament": _tournament, "bench": _bench},
    ppo={"n_steps": 512, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4},
    # One-round 2-player games: the oracle proves the optimum of every deal, about 1 s a deal (the
    # demo's 30 deals: all proven, median 1.1 s, at most 3.7 s, 41 s in all; CP-SAT meets the plan well
    # within its limit), where full games leave a gap after the whole time limit. Training runs at
    # about 2,900 steps a second there: the whole demo takes about a minute and a half on 2 cores.
    demo={"players": 2, "rounds": 1, "width": 32, "time_limit": 10.0, "steps": 100_000, "episodes": 30},
    oracle_agent=False,
    suites=SUITES,
    baseline=BASELINE,
    settings=settings_of,
    self_play=SELF_PLAY,
    # A blunder loses more than 3 points: more than one more card of the round's best artist pays in
    # a one-round game (its token, 3, where no award lies on it).
    # Its optimum is against the bots, under the suites' (every player helping the seat).
    moves=MoveReview(oracle=_move_oracle, blunder=3, suite_optimum=False),
)

__all__ = ["SPEC", "ModernArtSettings", "settings_of", "gym"]

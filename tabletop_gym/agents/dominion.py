"""Dominion bots, and games and tournaments between them. The bots themselves live in
``tabletop_gym.envs.dominion.bots``, beside the environment that seats them by default.

Every bot answers the engine's one decision interface through a :class:`PlayerView`: the decision,
the legal answers and what its player may know (own hand, own cards, coins, actions, buys, the
supply, every player's gains and VP) -- never the order of any draw pile. The same bot object works
as an opponent inside the environments and, through ``act(observation, info)`` (which decodes the
environment's observation into the same view), as the evaluated agent.

Buy rules (coins after playing every Treasure):

- ``big-money``: Province $8+, Gold $6-7, Silver $3-5.
- ``big-money-ultimate`` (BMU, as in the Dominion simulators): Province $8+; Duchy $5-7 when at most
  4 Provinces are left; Estate $2-4 when at most 2 are left; Gold $6-7; Duchy $5 when at most 6 are
  left; Silver $3-5.
- ``smithy-big-money``: big money, plus a Smithy with $4-5 while it owns none, and a second once it
  owns 16 or more cards; plays Smithy whenever it can.
- The seed's strategies under the real card values: ``just-buy-money`` (= big money),
  ``buy-money-and-duchy`` (Silver $3-4, Duchy $5, Gold $6-7, Province $8+) and
  ``buy-money-and-duchy-and-estate`` (the previous, plus Estate with exactly $2).
- ``random``: uniform among the legal answers.
A buy that the supply cannot serve becomes a pass (like the seed's ``table.silver > 0`` tests).
Choices inside cards, common to all bots: discard (Militia, Cellar) Curses and Victory cards first,
then Coppers; always reveal Moat; Mine a Silver into Gold (else Copper into Silver); Remodel Gold into
Province, else Estate/Curse into a $4 card or Silver; Workshop gains Silver.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from tabletop_gym.core import check_int
from tabletop_gym.envs.dominion import rules
from tabletop_gym.envs.dominion.bots import (
    BOTS,
    BigMoney,
    BigMoneyUltimate,
    BuyMoneyAndDuchy,
    BuyMoneyAndDuchyAndEstate,
    DominionBot,
    JustBuyMoney,
    PlayerView,
    RandomBot,
    SmithyBigMoney,
    game_seed,
    make_bot,
)
from tabletop_gym.envs.dominion.rules import DominionState

__all__ = [
    "BOTS",
    "BigMoney",
    "BigMoneyUltimate",
    "BuyMoneyAndDuchy",
    "BuyMoneyAndDuchyAndEstate",
    "DominionBot",
    "JustBuyMoney",
    "PlayerView",
    "RandomBot",
    "SmithyBigMoney",
    "game_seed",
    "make_bot",
    "play_game",
    "solitaire_turns",
    "tournament",
    "wilson",
]


# --- games and tournaments -------------------------------------------------------------------------
def play_game(
    bots: Sequence[DominionBot],
    seed: int = 0,
    kingdom: str | Sequence[int | str] | None = None,
    target: int | None = None,
    turn_limit: int | None = 200,
) -> DominionState:
    """Play one game to its end, bot ``i`` in seat ``i``; returns the final state."""
    state = DominionState(len(bots), kingdom, seed, target, turn_limit)
    views = [PlayerView(state, p) for p in range(len(bots))]
    step = state.apply
    while state.decision != rules.GAME_OVER:
        p = state.decider
        step(bots[p].choose(views[p]))
    return state


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def tournament(
    names: Sequence[str],
    games: int,
    seed: int = 0,
    kingdom: str | Sequence[int | str] | None = None,
    progress: bool = False,
    turn_limit: int | None = 200,
) -> dict[str, Any]:
    """``games`` games between the named bots, seats rotated every game (A,B then B,A ...).

    Returns, for each bot and for each (bot, seat): wins, shared wins, losses with 95% intervals;
    mean VP and turns; how many games ended level on VP before the turn tie-break; games per second.
    """
    if not 1 <= len(names) <= rules.MAX_PLAYERS:
        raise ValueError(f"a tournament needs 1..{rules.MAX_PLAYERS} players, got {len(names)}")
    games = check_int("games", games, 1)
    seed = check_int("seed", seed, 0)
    turn_limit = check_int("turn_limit", turn_limit, 1, optional=True)
    bots = [make_bot(n) for n in names]
    n = len(bots)
    labels = [
        f"{b.name}#{i}" if [x.name for x in bots].count(b.name) > 1 else b.name for i, b in enumerate(bots)
    ]
    tally = {lab: {"win": 0, "tie": 0, "loss": 0, "vp": 0, "turns": 0, "games": 0} for lab in labels}
    seats = {(lab, s): {"win": 0, "tie": 0, "loss": 0, "games": 0} for lab in labels for s in range(n)}
    level = 0
    truncated = 0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, desc="dominion tournament", unit="game")
    start = time.perf_counter()
    cpu_start = time.process_time()
    for g in range(games):
        order = [(g + i) % n for i in range(n)]  # seat s is played by bot order[s]
        seated = [bots[i] for i in order]
        gseed = game_seed(seed, g)
        for i, b in enumerate(seated):
            b.reset(rules._mix64(gseed ^ (i + 1)))
        state = play_game(seated, gseed, kingdom, turn_limit=turn_limit)
        level += state.vp_level()
        truncated += state.truncated
        _tally_game(state, [labels[i] for i in order], tally, seats)
        if bar is not None:
            bar.update(1)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    if bar is not None:
        bar.close()
    return {
        "players": _player_report(labels, n, tally, seats),
        "games": games,
        "seed": seed,
        "kingdom": [rules.CARD_NAMES[c] for c in rules.parse_kingdom(kingdom)],
        "level_on_vp": level,
        "truncated": truncated,
        "seconds": seconds,
        "games_per_second": games / seconds if seconds > 0 else float("inf"),
        "cpu_seconds": cpu_seconds,
        # CPU time of this process: the one-core rate, unaffected by other work on a busy machine.
        "games_per_cpu_second": games / cpu_seconds if cpu_seconds > 0 else float("inf"),
    }


def _tally_game(
    state: DominionState, seated: list[str], tally: dict[str, dict], seats: dict[tuple[str, int], dict]
) -> None:
    """Count one finished game for the player in each seat (``seated``: labels by seat): its result
    overall and in that seat, its VP and turns."""
    results = state.results()
    for s, label in enumerate(seated):
        key = {1: "win", 0: "tie", -1: "loss"}[results[s]]
        t = tally[label]
        t[key] += 1
        t["vp"] += state.vp(s)
        t["turns"] += state.turns[s]
        t["games"] += 1
        seats[(label, s)][key] += 1
        seats[(label, s)]["games"] += 1


def _rates(t: dict[str, int]) -> dict[str, Any]:
    """Wins, shared wins and losses of a tally, each with its rate and 95% interval."""
    out: dict[str, Any] = {}
    for key in ("win", "tie", "loss"):
        out[key] = t[key]
        out[f"{key}_rate"] = t[key] / t["games"] if t["games"] else 0.0
        out[f"{key}_ci95"] = wilson(t[key], t["games"])
    out["games"] = t["games"]
    return out


def _player_report(
    labels: list[str], n: int, tally: dict[str, dict], seats: dict[tuple[str, int], dict]
) -> dict[str, Any]:
    """Per player: its rates, mean VP and turns, and its rates in each seat."""
    players = {}
    for lab in labels:
        t = tally[lab]
        entry = _rates(t)
        entry["mean_vp"] = t["vp"] / t["games"]
        entry["mean_turns"] = t["turns"] / t["games"]
        entry["by_seat"] = {str(s): _rates(seats[(lab, s)]) for s in range(n)}
        players[lab] = entry
    return players


def solitaire_turns(
    bot: str | DominionBot,
    seed: int,
    target: int = rules.DEFAULT_TARGET,
    kingdom: str | Sequence[int | str] | None = (),
    turn_limit: int = 100,
) -> int:
    """Turns the bot needs to own ``target`` Provinces alone on seed ``seed`` (``turn_limit`` if never)."""
    b = make_bot(bot)
    b.reset(seed)
    state = play_game([b], seed, kingdom, target=target, turn_limit=turn_limit)
    return state.turns[0]

"""``tabletop-gym tournament GAME --players A,B,C...``: a round robin over seats and deals, then ratings.

Every group of ``seats`` players from the list meets at every rotation of its seats (so each plays
every seat), and every seating plays the same deals, those of seeds ``seed``..``seed + games - 1``:
the luck of the deal and of the seat is the same for every pairing and cancels out of the ratings.
The ratings are openskill's Plackett-Luce model (a Bayesian rating of players from the finishing
order of each game, ties allowed), updated game by game in the order played (deal by deal, so that
no pairing's games all come last); a rating is ``mu`` with a 95% interval of ``mu +- 1.96 sigma``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_gym.agents.base import Agent
from tabletop_gym.core import atomic_write_text, check_int, hold_output
from tabletop_gym.training.figures import save_figure
from tabletop_gym.training.players import labels

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
MAX_SEATINGS = 1_000_000  # games of one tournament, all seatings together: their records are held in memory


@dataclass(frozen=True)
class Outcome:
    """One game's end: each seat's finishing place (1 = first; equal places share it), its score in
    the game's own terms, and the deal string."""

    places: list[int]
    scores: list[float]
    deal: str


# How a game is played with an Agent in every seat: (agents by seat, seed) -> Outcome, or None where
# the seed's deal cannot be played at this seating (War: a deal that leaves player 0 no decision).
PlayGame = Callable[[Sequence[Agent], int], "Outcome | None"]


def places_from_scores(scores: Sequence[float]) -> list[int]:
    """Finishing places from scores (higher is better): 1 + the seats that scored more."""
    return [1 + sum(other > own for other in scores) for own in scores]


def seatings(players: int, seats: int) -> list[tuple[int, ...]]:
    """Every group of ``seats`` of the ``players`` (by index), at each rotation of its seats."""
    groups = itertools.combinations(range(players), seats)
    return [group[r:] + group[:r] for group in groups for r in range(seats)]


def round_robin(
    entries: Sequence[str],
    make_agents: Callable[[], list[Agent]],
    play: PlayGame,
    seats: int,
    games: int,
    seed: int,
    progress: bool = True,
) -> dict[str, Any]:
    """Play the round robin and rate it (see the module's docstring). ``make_agents()`` gives one
    Agent per entry; each game seats those of its group (reset with the game's seed)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - depends on the install
        raise ImportError("ratings need openskill, in the multiagent extra: "
                          "pip install 'tabletop-gym[multiagent]'") from None

    names = labels(list(entries))
    if not 2 <= seats <= len(names):
        raise ValueError(f"--seats {seats} needs at least {seats} players, the list has {len(names)}")
    tables = seatings(len(names), seats)
    games = check_int("--games", games, 1)
    total = len(tables) * games
    if total > MAX_SEATINGS:
        raise ValueError(f"{len(tables)} seatings x {games} games = {total} games, more than {MAX_SEATINGS}: "
                         "give fewer --games, players or --seats")
    agents = make_agents()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="tournament", unit="game")
    records: list[dict[str, Any]] = []
    try:
        for index in range(games):
            game_seed = seed + index
            for table in tables:
                seated = [agents[p] for p in table]
                for agent in seated:
                    agent.reset(game_seed)
                outcome = play(seated, game_seed)
                records.append({"game": index, "seed": game_seed, "seating": [names[p] for p in table]})
                if outcome is not None:
                    records[-1].update(places=outcome.places, scores=outcome.scores, deal=outcome.deal)
                if bar is not None:
                    bar.update()
    finally:
        if bar is not None:
            bar.close()
    # A deal that some seating could not play is left out at every seating, so that all meet the same.
    dropped = sorted({r["seed"] for r in records if "deal" not in r})
    records = [r for r in records if r["seed"] not in dropped]
    if not records:
        raise ValueError(f"none of the {games} deals could be played at every seating: give more --games")
    deals = {r["seed"]: r["deal"] for r in records}
    # The design's promise, checked rather than assumed: every seating met the same deals.
    for r in records:
        if r["deal"] != deals[r["seed"]]:
            raise RuntimeError(f"seating {r['seating']} played another deal for seed {r['seed']}")

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    shares = {name: {"games": 0, "wins": 0.0, "by_seat": [[0, 0.0] for _ in range(seats)]} for name in names}
    for r in records:
        teams = model.rate([[ratings[n]] for n in r["seating"]], ranks=r["places"])
        winners = r["places"].count(1)
        for seat, (name, team) in enumerate(zip(r["seating"], teams, strict=True)):
            ratings[name] = team[0]
            won = 1.0 / winners if r["places"][seat] == 1 else 0.0
            shares[name]["games"] += 1
            shares[name]["wins"] += won
            shares[name]["by_seat"][seat][0] += 1
            shares[name]["by_seat"][seat][1] += won
    table = {}
    for name in sorted(names, key=lambda n: -ratings[n].mu):
        rating, share = ratings[name], shares[name]
        table[name] = {
            "mu": rating.mu, "sigma": rating.sigma,
            "low": rating.mu - Z95 * rating.sigma, "high": rating.mu + Z95 * rating.sigma,
            "games": share["games"], "win_share": share["wins"] / share["games"],
            "win_share_by_seat": {str(s): w / g for s, (g, w) in enumerate(share["by_seat"])},
        }
    return {
        "entries": list(entries), "labels": names, "seats": seats, "games_per_seating": games, "seed": seed,
        "seatings": [[names[p] for p in t] for t in tables], "games": len(records),
        "dropped_seeds": dropped,
        "rating_model": "openskill PlackettLuce (mu, 95% interval mu +- 1.96 sigma), games rated in "
                        "play order",
        "ratings": table, "deals": {str(s): d for s, d in deals.items()}, "results": records,
    }


def print_table(report: dict[str, Any]) -> None:
    header = f"{'rank':>4}  {'player':32} {'rating':>7} {'95% interval':>17} {'win share':>9} {'games':>7}"
    print(header)
    print("-" * len(header))
    for rank, (name, row) in enumerate(report["ratings"].items(), 1):
        print(f"{rank:>4}  {name:32} {row['mu']:7.2f} [{row['low']:6.2f},{row['high']:7.2f}] "
              f"{row['win_share']:9.3f} {row['games']:7}")
    first, deals = report["seed"], report["games_per_seating"]
    dropped = report["dropped_seeds"]
    left_out = f"; {len(dropped)} deals left out, unplayable at some seating" if dropped else ""
    print(f"{report['games']} games: {len(report['seatings'])} seatings of {report['seats']} seats x "
          f"{deals - len(dropped)} deals (seeds {first}..{first + deals - 1}{left_out}), the same deals at "
          "every seating")


def _plot(report: dict[str, Any], path: Path, title: str) -> bool:
    """The ratings with their intervals as a PNG; False where matplotlib (the train extra) is absent."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(report["ratings"].items())[::-1]  # the best on top
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * len(rows)))
    mus = [r["mu"] for _, r in rows]
    ax.errorbar(mus, range(len(rows)), xerr=[[r["mu"] - r["low"] for _, r in rows],
                                             [r["high"] - r["mu"] for _, r in rows]],
                fmt="o", capsize=4)
    ax.set_yticks(range(len(rows)), [name for name, _ in rows])
    ax.set_xlabel("openskill Plackett-Luce rating (mu, 95% interval)")
    ax.set_title(title)
    fig.tight_layout()
    save_figure(fig, path)
    return True


def run(
    game: str,
    entries: Sequence[str],
    make_agents: Callable[[], list[Agent]],
    play: PlayGame,
    seats: int,
    games: int,
    seed: int,
    out: Path,
    progress: bool,
    settings: dict[str, Any],
) -> int:
    """The command: play, print the table, write ``<game>-ratings.json`` and ``.png`` into ``out``.
    Nothing is written before every game is played: a Ctrl-C leaves ``out`` as it was."""
    with hold_output(out, folder=True):
        report = round_robin(entries, make_agents, play, seats, games, seed, progress)
        report = {"game": game, "settings": settings, **report}
        print_table(report)
        stem = out / f"{game}-ratings"
        title = f"{game}, {seats} seats, {report['games']} games"
        drawn = _plot(report, stem.with_suffix(".png"), title)
        report["plot"] = str(stem.with_suffix(".png")) if drawn else None
        atomic_write_text(stem.with_suffix(".json"), json.dumps(report, indent=1))
    print(f"written to {stem.with_suffix('.json')}"
          + (f" and {stem.with_suffix('.png')}" if drawn else
             " (no PNG: matplotlib, in the train extra, is not installed)"))
    return 0

"""``evaluate GAME --moves``: how many points each of an agent's decisions gave away.

Every decision of every game is valued by the game's move oracle (``tabletop_gym.core.MoveOracle``):
its loss is the optimum at that position minus the value of the move played. A game's losses add up
to exactly the deal's optimum minus the agent's score, which is checked on every deal: a report whose
totals did not agree would be wrong, so it is never written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from tqdm import tqdm

from tabletop_gym.agents.base import Agent
from tabletop_gym.core import MoveOracle, NoMoveOracleError, atomic_write_text, hold_output
from tabletop_gym.training.evaluate import (
    _check_agent_names,
    _check_policy_fits,
    _games_to_play,
    make_agent,
)
from tabletop_gym.training.figures import save_figure
from tabletop_gym.training.games import GameSpec

if TYPE_CHECKING:
    from tabletop_gym.suites import Suite

PROGRESS_BINS = 10  # where in the game: tenths of each game's moves
MOVES_JSON = "moves.json"
MOVES_PNG = "moves.png"


def move_oracle_factory(spec: GameSpec, args: argparse.Namespace | dict[str, Any]) -> Any:
    """The game's ``deal -> MoveOracle`` for the settings ``args`` gives; a clear error where the game,
    or these settings of it, have no oracle that proves each move's value."""
    if spec.moves is None:
        from tabletop_gym.training.games import game_names, get_game

        valued = [name for name in game_names() if get_game(name).moves is not None]
        raise NoMoveOracleError(
            f"{spec.name} has no move values: --moves needs an oracle that proves the optimum from every "
            f"position, which this package has for {', '.join(valued)}"
        )
    return spec.moves.oracle(spec.read(args))


def play_recorded(env: gym.Env, agent: Agent, seed: int, deal: str | None) -> tuple[float, str, list[int]]:
    """One episode as ``evaluate`` plays it, keeping the agent's actions: (score, deal, actions)."""
    agent.reset(seed=seed)
    observation, info = env.reset(seed=seed, options=None if deal is None else {"deal": deal})
    actions: list[int] = []
    done = False
    while not done:
        action = agent.act(observation, info)
        actions.append(int(action))
        observation, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return float(info["score"]), info["deal"], actions


def review_game(oracle: MoveOracle, actions: Sequence[int], score: float) -> dict[str, Any]:
    """Every decision of one game valued: the deal's optimum, each move's loss and the best move at
    each position; raises if the losses do not add up to the optimum minus ``score``."""
    losses: list[float] = []
    best: list[int] = []
    choices: list[int] = []
    optimum = None
    for t, action in enumerate(actions):
        values = oracle.at(actions[:t])
        if optimum is None:
            optimum = values.optimum
        losses.append(values.loss(action))
        best.append(values.best)
        choices.append(len(values.values))
    if optimum is None:
        raise ValueError("a game without a decision has nothing to review")
    if sum(losses) != optimum - score:
        raise AssertionError(
            f"the move losses on {oracle.deal} add up to {sum(losses)}, not the optimum {optimum} minus "
            f"the score {score}"
        )
    return {"deal": oracle.deal, "score": score, "optimum": optimum, "losses": losses, "best": best,
            "choices": choices}


def evaluate_moves(
    spec: GameSpec,
    agent_names: Sequence[str],
    episodes: int | None,
    seed: int | None,
    args: argparse.Namespace,
    blunder: float | None = None,
    out: Path | None = None,
    progress: bool = True,
    suite: Suite | None = None,
) -> dict[str, Any]:
    """Play the deals as ``evaluate`` does (the suite's, or ``episodes`` seeded ones) and value every
    decision. ``blunder``: the loss above which a decision is a blunder (the game's default when None).
    Writes ``moves.json`` and ``moves.png`` into ``out`` where given."""
    make_oracle = move_oracle_factory(spec, args)
    threshold = spec.moves.blunder if blunder is None else float(blunder)
    if not threshold > 0:
        raise ValueError(f"a blunder loses more than a positive number of points, got {threshold}")
    if out is None:
        return _evaluate_moves(spec, agent_names, episodes, seed, args, make_oracle, threshold, None,
                               progress, suite)
    out = Path(out)
    with hold_output(out, folder=True):
        return _evaluate_moves(spec, agent_names, episodes, seed, args, make_oracle, threshold, out,
                               progress, suite)


def _evaluate_moves(
    spec: GameSpec,
    agent_names: Sequence[str],
    episodes: int | None,
    seed: int | None,
    args: argparse.Namespace,
    make_oracle: Callable[[str], MoveOracle],
    threshold: float,
    out: Path | None,
    progress: bool,
    suite: Suite | None,
) -> dict[str, Any]:
    games, episodes, seed = _games_to_play(suite, episodes, seed)
    _check_agent_names(agent_names)
    env_id, env_kwargs = spec.environment(spec.read(args))
    env = gym.make(env_id, **env_kwargs)
    agents = [(name, make_agent(spec, name, args, suite)) for name in agent_names]
    for name, agent in agents:
        _check_policy_fits(agent, name, env.unwrapped, env_id, env_kwargs)
    deal_env = (
        gym.make(env_id, **{**env_kwargs, "reveal_deal": True})
        if any(getattr(agent, "reads_deal", False) for _, agent in agents)
        else None
    )
    games_of: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in agents}
    try:
        for game_seed, deal in tqdm(games, desc="playing and valuing", disable=not progress, unit="deal"):
            played = {}
            for name, agent in agents:
                agent_env = deal_env if deal_env is not None and getattr(agent, "reads_deal", False) else env
                played[name] = play_recorded(agent_env, agent, game_seed, deal)
            # One move oracle a deal, for every agent's game of it (its table is the costly part).
            oracle = make_oracle(next(iter(played.values()))[1])
            for name, (score, played_deal, actions) in played.items():
                if played_deal != oracle.deal:
                    raise ValueError(f"the environment played {played_deal} for {name}, not {oracle.deal}")
                review = review_game(oracle, actions, score)
                stored = suite.result(deal) if suite is not None else None
                # A proven entry must be met exactly; an entry the suite only bounds (a search cut by its
                # work limit), or one of another optimum than the move oracle's, must not be beaten.
                exact = stored is not None and stored.optimal and spec.moves.suite_optimum
                if stored is not None and (
                    review["optimum"] != stored.bound if exact else review["optimum"] > stored.bound
                ):
                    raise AssertionError(
                        f"the move oracle's optimum {review['optimum']} of {deal} disagrees with suite "
                        f"{suite.id}'s {'optimum' if exact else 'bound'} {stored.bound}"
                    )
                games_of[name].append(review)
    finally:
        env.close()
        if deal_env is not None:
            deal_env.close()
    report: dict[str, Any] = {
        "game": spec.name,
        "episodes": episodes,
        "seed": seed,
        "blunder_above": threshold,
        "progress_bins": PROGRESS_BINS,
        "agents": {name: summarize(reviews, threshold) for name, reviews in games_of.items()},
    }
    if suite is not None:
        report["suite"] = {"id": suite.id, "checksum": suite.checksum}
    if out is not None:
        try:
            atomic_write_text(out / MOVES_JSON, json.dumps(report, indent=1))
            report["plot"] = _plot(spec, report, out / MOVES_PNG)
        except OSError as error:
            report["write_error"] = f"could not write the report to {out}: {error}"
    return report


def summarize(reviews: Sequence[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """One agent's figures over its reviewed games (see ``docs/training.md``)."""
    losses = np.concatenate([np.asarray(r["losses"], dtype=float) for r in reviews])
    # A move with one legal choice is no decision: the share of optimal decisions leaves it out.
    chosen = np.concatenate([np.asarray(r["choices"]) for r in reviews]) > 1
    per_game = np.array([sum(r["losses"]) for r in reviews], dtype=float)
    lost_by_tenth = np.zeros(PROGRESS_BINS)
    for r in reviews:
        n = len(r["losses"])
        tenth = np.minimum((np.arange(n) * PROGRESS_BINS) // n, PROGRESS_BINS - 1)
        np.add.at(lost_by_tenth, tenth, np.asarray(r["losses"], dtype=float))
    values, counts = np.unique(losses[chosen], return_counts=True)
    blunders = int((losses > threshold).sum())
    return {
        "mean_score": float(np.mean([r["score"] for r in reviews])),
        "mean_optimum": float(np.mean([r["optimum"] for r in reviews])),
        "moves": int(losses.size),
        "decisions": int(chosen.sum()),
        "share_optimal_decisions": float((losses[chosen] == 0).mean()) if chosen.any() else 1.0,
        "mean_points_lost_per_game": float(per_game.mean()),
        "total_points_lost": float(per_game.sum()),
        "blunders": blunders,
        "blunders_per_game": blunders / len(reviews),
        "largest_loss": float(losses.max()),
        # How many decisions (moves with a choice) lost each amount: {"0": optimal ones, "2": ...}.
        "loss_counts": {_number(v): int(c) for v, c in zip(values, counts, strict=True)},
        # Points lost per game in each tenth of its decisions: where in the game they go.
        "points_lost_per_game_by_tenth": (lost_by_tenth / len(reviews)).tolist(),
        "games": list(reviews),
    }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def format_moves_table(report: dict[str, Any]) -> str:
    """The move review as an aligned text table, one row per agent."""
    header = ["agent", "mean score", "mean optimum", "optimal decisions", "lost/game", "lost in all",
              f"blunders/game (>{_number(report['blunder_above'])})", "largest loss"]
    rows = [header]
    for name, e in report["agents"].items():
        rows.append([
            name,
            f"{e['mean_score']:.2f}",
            f"{e['mean_optimum']:.2f}",
            f"{100 * e['share_optimal_decisions']:.1f}%",
            f"{e['mean_points_lost_per_game']:.2f}",
            _number(e["total_points_lost"]),
            f"{e['blunders_per_game']:.2f}",
            _number(e["largest_loss"]),
        ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _plot(spec: GameSpec, report: dict[str, Any], path: Path) -> str | None:
    """Points lost per game in each tenth of the game, one line per agent."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    centres = (np.arange(PROGRESS_BINS) + 0.5) / PROGRESS_BINS
    for name, entry in report["agents"].items():
        lost = entry["points_lost_per_game_by_tenth"]
        ax.plot(centres, lost, marker="o", label=f"{name} ({entry['mean_points_lost_per_game']:.1f} a game)")
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("progress through the game (share of its moves made)")
    ax.set_ylabel("points lost per game, per tenth")
    source = f"suite {report['suite']['id']}" if "suite" in report else f"seeds from {report['seed']}"
    title = f"{spec.name}: where the points are lost ({report['episodes']} deals, {source})"
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)

"""Score agents against the oracle on the same seeded deals."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from tqdm import tqdm

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import Agent
from tabletop_gym.agents.policy import PlanAgent, load_policy
from tabletop_gym.core import OracleResult, atomic_output, atomic_write_text, check_int, quote_input
from tabletop_gym.training.games import GameSpec


def make_agent(spec: GameSpec, name: str, args: argparse.Namespace) -> Agent:
    """An agent by name (``random``, ``greedy``, ``oracle``...) or a trained model's path."""
    if name in spec.agents:
        return spec.agents[name](args)
    if name == "oracle" and spec.oracle is not None:
        return PlanAgent(lambda deal: spec.oracle(deal, args))
    if name and Path(name).exists():
        return load_policy(name)
    known = sorted(spec.agents) + (["oracle"] if spec.oracle is not None else [])
    raise ValueError(
        f"unknown agent {quote_input(name)} for {spec.name}: use one of {', '.join(known)} "
        "or the path of a model saved by 'tabletop-gym train'"
    )


def _check_policy_fits(agent: Agent, name: str, env: gym.Env) -> None:
    """A model trained on other settings (another deck size, player count...) cannot act here."""
    model = getattr(agent, "model", None)
    if model is None:
        return
    if model.observation_space != env.observation_space or model.action_space.n != env.action_space.n:
        raise ValueError(
            f"agent {name}: the model was trained for observations {model.observation_space} and "
            f"{model.action_space.n} actions, but this environment has {env.observation_space} and "
            f"{env.action_space.n}: evaluate with the settings it was trained on (see its config.json)"
        )


class Episode(NamedTuple):
    score: float
    deal: str
    info: dict[str, Any]  # the last step's info (seat scores, turns, trick counts...)


def play_episode(env: gym.Env, agent: Agent, seed: int) -> Episode:
    """One episode on the deal that ``seed`` gives."""
    agent.reset(seed=seed)
    observation, info = env.reset(seed=seed)
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        done = terminated or truncated
    return Episode(float(info["score"]), info["deal"], info)


def score_ratio(score: float, bound: float) -> float:
    """How close a score comes to the bound, 1 at best: ``score / bound``; for games scored as a
    negative count (minus turns) ``bound / score``, i.e. fewest possible turns / turns taken."""
    if bound > 0:
        return score / bound
    if bound < 0:
        return bound / score
    return float(score == bound)


def mean_ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95% confidence interval."""
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if data.size < 2:
        return mean, mean, mean
    half = 1.96 * float(data.std(ddof=1)) / math.sqrt(data.size)
    return mean, mean - half, mean + half


def evaluate(
    spec: GameSpec,
    agent_names: Sequence[str],
    episodes: int,
    seed: int,
    args: argparse.Namespace,
    out: Path | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Play ``episodes`` seeded deals with each agent and compare every score with the oracle."""
    episodes = check_int("episodes", episodes, 1)
    seed = check_int("seed", seed, 0)
    if not agent_names:
        raise ValueError("no agent to evaluate: name at least one")
    repeated = sorted({n for n in agent_names if list(agent_names).count(n) > 1})
    if repeated:
        raise ValueError(f"agent {', '.join(repeated)} named twice: each agent is one row of the report")
    env_id, env_kwargs = spec.environment(args)
    env = gym.make(env_id, **env_kwargs)
    agents = [(name, make_agent(spec, name, args)) for name in agent_names]
    for name, agent in agents:
        _check_policy_fits(agent, name, env.unwrapped)
    # An agent that plays from the deal (the oracle's plan) gets an environment of its own that shows
    # it from reset on; the others never see it before an episode ends. Same id, same settings, same
    # seeds: the same deals.
    deal_env = (
        gym.make(env_id, **{**env_kwargs, "reveal_deal": True})
        if any(getattr(agent, "reads_deal", False) for _, agent in agents)
        else None
    )
    report: dict[str, Any] = {"game": spec.name, "episodes": episodes, "seed": seed, "agents": {}}
    oracle_results: dict[str, OracleResult] = {}
    final_infos: dict[str, list[dict[str, Any]]] = {}
    for name, agent in agents:
        agent_env = deal_env if deal_env is not None and getattr(agent, "reads_deal", False) else env
        episodes_played = [
            play_episode(agent_env, agent, seed + i)
            for i in tqdm(range(episodes), desc=f"{name} playing", disable=not progress, unit="deal")
        ]
        deals = [e.deal for e in episodes_played]
        report["agents"][name] = {"scores": [e.score for e in episodes_played], "deals": deals}
        final_infos[name] = [e.info for e in episodes_played]
        if spec.oracle is not None:
            for deal in tqdm(deals, desc="oracle solving", disable=not progress, unit="deal"):
                if deal not in oracle_results:
                    result = spec.oracle(deal, args)  # None: no oracle for these settings
                    if result is not None:
                        oracle_results[deal] = result
    env.close()
    if deal_env is not None:
        deal_env.close()
    for name, entry in report["agents"].items():
        results = [oracle_results.get(d) for d in entry["deals"]]
        entry.update(_summary(spec, entry["scores"], results, final_infos[name]))
    if out is not None:
        # The work is done: a report that cannot be written is said so, never lost with a traceback.
        try:
            atomic_write_text(out / "evaluation.json", json.dumps(report, indent=1))
            report["plot"] = _plot(spec, report, out / "evaluation.png")
        except OSError as error:
            report["write_error"] = f"could not write the report to {out}: {error}"
    return report


def _summary(
    spec: GameSpec, scores: list[float], results: list[OracleResult | None], infos: list[dict[str, Any]]
) -> dict[str, Any]:
    mean, _, _ = mean_ci95(scores)
    summary: dict[str, Any] = {"mean_score": mean}
    if results and all(r is not None for r in results):
        bounds = [r.bound for r in results]
        ratios = [score_ratio(s, b) for s, b in zip(scores, bounds, strict=True)]
        ratio, low, high = mean_ci95(ratios)
        summary.update(
            mean_bound=float(np.mean(bounds)),
            all_bounds_optimal=all(r.optimal for r in results),
            ratios=ratios,
            mean_ratio=ratio,
            ratio_ci95=[low, high],
            share_optimal=float(np.mean([s >= b for s, b in zip(scores, bounds, strict=True)])),
        )
    summary.update(spec.figures(scores, results, infos))
    return summary


def format_table(report: dict[str, Any]) -> str:
    """The evaluation as an aligned text table, one row per agent."""
    rows = []
    extra_keys: list[str] = []
    for entry in report["agents"].values():
        for key in entry:
            if key.startswith("share_") and key != "share_optimal" and key not in extra_keys:
                extra_keys.append(key)
    header = ["agent", "mean score", "mean optimum", "score/optimum (95% CI)", "optimal"] + [
        k.replace("share_", "") for k in extra_keys
    ]
    for name, entry in report["agents"].items():
        if "mean_ratio" in entry:
            low, high = entry["ratio_ci95"]
            ratio = f"{entry['mean_ratio']:.3f} [{low:.3f}, {high:.3f}]"
            bound = f"{entry['mean_bound']:.2f}" + ("" if entry["all_bounds_optimal"] else " (bound)")
            optimal = f"{100 * entry['share_optimal']:.1f}%"
        else:
            ratio = bound = optimal = "-"
        extras = [f"{100 * entry[k]:.1f}%" if k in entry else "-" for k in extra_keys]
        rows.append([name, f"{entry['mean_score']:.2f}", bound, ratio, optimal] + extras)
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


def _plot(spec: GameSpec, report: dict[str, Any], path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = [n for n, e in report["agents"].items() if "ratios" in e]
    if not names:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    bins = np.linspace(0, 1, 41)
    for name in names:
        entry = report["agents"][name]
        ax.hist(entry["ratios"], bins=bins, alpha=0.55, label=f"{name} (mean {entry['mean_ratio']:.3f})")
    ax.set_xlabel(f"{spec.score_name} / oracle optimum")
    ax.set_ylabel("deals")
    ax.set_title(f"{spec.name}: {report['episodes']} deals, seed {report['seed']}")
    ax.legend(loc="upper left")
    fig.tight_layout()
    try:
        with atomic_output(path) as tmp:
            fig.savefig(tmp, dpi=110)
    finally:
        plt.close(fig)
    return str(path)

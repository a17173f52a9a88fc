"""Score agents against the oracle on the same seeded deals."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import gymnasium as gym
import numpy as np
from tqdm import tqdm

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.base import Agent
from tabletop_gym.agents.policy import PlanAgent, load_policy
from tabletop_gym.core import (
    OracleResult,
    atomic_write_text,
    check_int,
    hold_output,
    quote_input,
)
from tabletop_gym.training.figures import save_figure
from tabletop_gym.training.games import GameSpec
from tabletop_gym.training.players import PRETRAINED

if TYPE_CHECKING:
    from tabletop_gym.suites import Suite


def make_agent(
    spec: GameSpec,
    name: str,
    args: argparse.Namespace,
    suite: Suite | None = None,
    solved: Mapping[str, OracleResult] | None = None,
) -> Agent:
    """An agent by name (``random``, ``greedy``, ``oracle``...) or a trained model's path. On a
    ``suite`` the oracle plays the suite's stored plans (nothing is solved); results already
    ``solved`` (by deal) are played as they are."""
    if name in spec.agents:
        return spec.agents[name](spec.read(args))
    if name == "oracle" and spec.oracle is not None and not spec.oracle_agent:
        raise ValueError(
            f"{spec.name}'s oracle plans every player's moves (the most your seat can get when everyone "
            "plays for it), which the environment's bots do not follow, so it cannot play as an agent; "
            "its bound is what every agent's score is divided by"
        )
    if name == "oracle" and suite is not None:
        return PlanAgent(suite.result)
    if name == "oracle" and spec.oracle is not None:
        known = solved if solved is not None else {}
        return PlanAgent(lambda deal: known[deal] if deal in known else spec.oracle(deal, spec.read(args)))
    if name == PRETRAINED:
        from tabletop_gym.agents.shipped import pretrained

        env_id, env_kwargs = spec.environment(spec.read(args))
        return pretrained(env_id, **env_kwargs)
    if name and Path(name).exists():
        return load_policy(name)
    raise ValueError(
        f"unknown agent {quote_input(name)} for {spec.name}: use one of {', '.join(spec.agent_names())}, "
        f"{PRETRAINED} or the path of a model saved by 'tabletop-gym train'"
    )


def _check_policy_fits(
    agent: Agent,
    name: str,
    env: gym.Env,
    env_id: str | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
) -> None:
    """A model trained on other settings (another deck size, player count...) cannot act here.

    Shapes that differ make the model unable to act at all. Where they agree, the settings in the
    run's config.json are compared with ``env_id`` / ``env_kwargs``: a model trained for a 1-round
    game, or against another pickup convention, would act but be scored on a task it never saw.
    Settings that change only what training is rewarded with or how the game is shown may differ
    (``suites.rules_kwargs`` leaves them out, as suites do).
    """
    model = getattr(agent, "model", None)
    if model is None:
        return
    if model.observation_space != env.observation_space or model.action_space.n != env.action_space.n:
        raise ValueError(
            f"agent {name}: the model was trained for observations {model.observation_space} and "
            f"{model.action_space.n} actions, but this environment has {env.observation_space} and "
            f"{env.action_space.n}: evaluate with the settings it was trained on (see its config.json)"
        )
    config = getattr(agent, "config", None)
    if not config or env_id is None or env_kwargs is None or "env_kwargs" not in config:
        return
    from tabletop_gym.suites import rules_kwargs

    # The run may have been made on another environment (refused below by its id) or another version
    # of this one: what any of the package's environments declares shown or rewarded only is left out.
    trained, here = rules_kwargs(None, config["env_kwargs"]), rules_kwargs(None, env_kwargs)
    keys = sorted(k for k in trained.keys() | here.keys() if trained.get(k) != here.get(k))
    differ = [f"{k}={trained.get(k)!r} there, {here.get(k)!r} here" for k in keys]
    if config.get("env_id", env_id) != env_id:
        differ.insert(0, f"{config['env_id']} there, {env_id} here")
    if differ:
        raise ValueError(
            f"agent {name}: the model was trained on other settings ({'; '.join(differ)}): evaluate "
            + ("with the settings it was trained for (tabletop-gym pretrained list)"
               if config.get("pretrained") else "with the settings in its config.json")
        )


class SeededGames(Sequence[tuple[int, None]]):
    """The games of an evaluation without a suite: ``(seed + i, None)`` for i below ``episodes``,
    made as they are asked for, so a count is never a list in memory before the first deal."""

    def __init__(self, episodes: int | None, seed: int | None) -> None:
        from tabletop_gym.training.arguments import MAX_EPISODES, SEED_MAX

        self.episodes = check_int("episodes", 200 if episodes is None else episodes, 1, MAX_EPISODES)
        self.seed = check_int("seed", 0 if seed is None else seed, 0, SEED_MAX)
        if self.seed + self.episodes - 1 > SEED_MAX:
            raise ValueError(
                f"seeds {self.seed} onwards for {self.episodes} deals pass the largest seed, {SEED_MAX}: "
                "give a smaller --seed or fewer --episodes"
            )

    def __len__(self) -> int:
        return self.episodes

    def __getitem__(self, index):  # type: ignore[no-untyped-def]  (an int or a slice, as a Sequence)
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.episodes))]
        if not -self.episodes <= index < self.episodes:
            raise IndexError(index)
        return (self.seed + index % self.episodes, None)


class Episode(NamedTuple):
    score: float
    deal: str
    info: dict[str, Any]  # the last step's info (seat scores, turns, trick counts...)


def play_episode(env: gym.Env, agent: Agent, seed: int, deal: str | None = None) -> Episode:
    """One episode on the deal that ``seed`` gives, or on ``deal`` (``seed`` then seeds the rest:
    the agent, the opponents' bots)."""
    agent.reset(seed=seed)
    observation, info = env.reset(seed=seed, options=None if deal is None else {"deal": deal})
    done = False
    while not done:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        done = terminated or truncated
    return Episode(float(info["score"]), info["deal"], info)


def score_ratio(score: float, bound: float, worst: float | None = None) -> float:
    """How close a score comes to the bound, 1 at best: ``score / bound``; for games scored as a
    negative count (minus turns) ``bound / score``, i.e. fewest possible turns / turns taken. Where
    scores go below 0 (War's whole game: -1 a loss, 0 a draw, 1 a win) the game's ``worst`` score
    is the zero of the scale: ``(score - worst) / (bound - worst)``."""
    if worst is not None:
        if bound <= worst:
            return float(score >= bound)
        return (score - worst) / (bound - worst)
    if bound > 0:
        return score / bound
    if bound < 0:
        return bound / score
    return float(score == bound)


BOOTSTRAP_REPS = 2000


def mean_ci95(values: Sequence[float], seed: int = 0) -> tuple[float, float, float]:
    """Mean and its 95% percentile-bootstrap interval over the values (2,000 resamples, seeded, so
    a report is reproducible). A resample's mean lies within the values' range, so the interval does
    too: a score/optimum ratio's stays in [0, 1], where the normal approximation gave [-0.066, 1.066]
    on a few deals. Plain numpy: scipy.stats.bootstrap would cost every evaluation seconds of import."""
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if data.size < 2:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // data.size)  # resamples drawn at once: a bounded index array at any size
    means = np.concatenate([
        data[rng.integers(0, data.size, (min(chunk, BOOTSTRAP_REPS - done), data.size))].mean(axis=1)
        for done in range(0, BOOTSTRAP_REPS, chunk)
    ])
    low, high = np.clip(np.percentile(means, [2.5, 97.5]), data.min(), data.max())
    return mean, float(low), float(high)


def evaluate(
    spec: GameSpec,
    agent_names: Sequence[str],
    episodes: int | None,
    seed: int | None,
    args: argparse.Namespace,
    out: Path | None = None,
    progress: bool = True,
    suite: Suite | None = None,
    solve_first: Callable[[Sequence[int]], Mapping[str, OracleResult]] | None = None,
    video: int = 0,
) -> dict[str, Any]:
    """Play ``episodes`` seeded deals (default 200 from seed 0) with each agent and compare every
    score with the oracle. With a loaded ``suite`` (``tabletop_gym.training.suites.load``) the agents play
    its deals (the first ``episodes`` of them, default all) and are compared with its stored,
    replay-checked oracle results: nothing is solved. ``solve_first(seeds)``, where given, returns
    the oracle results of the seeds' deals before any agent plays (``evaluate --ray`` solves them
    as Ray tasks); a deal it leaves out is solved here as usual. ``video`` N records each agent's
    first N episodes into ``out/videos`` (``AGENT-episode-I.mp4``, the ``[video]`` extra). One run
    writes ``out`` at a time: another is refused (``OutputInUseError``) before any agent plays."""
    from tabletop_gym.training.arguments import MAX_VIDEOS

    video = check_int("video", video, 0, MAX_VIDEOS)
    if video:
        if out is None:
            raise ValueError("videos are written into the report folder: give out (--out) with --video")
        check_video_extra()
    if out is None:
        return _evaluate(spec, agent_names, episodes, seed, args, None, progress, suite, solve_first)
    out = Path(out)
    with hold_output(out, folder=True):
        return _evaluate(spec, agent_names, episodes, seed, args, out, progress, suite, solve_first, video)


def _evaluate(
    spec: GameSpec,
    agent_names: Sequence[str],
    episodes: int | None,
    seed: int | None,
    args: argparse.Namespace,
    out: Path | None,
    progress: bool,
    suite: Suite | None,
    solve_first: Callable[[Sequence[int]], Mapping[str, OracleResult]] | None,
    video: int = 0,
) -> dict[str, Any]:
    games, episodes, seed = _games_to_play(suite, episodes, seed)
    _check_agent_names(agent_names)
    env_id, env_kwargs = spec.environment(spec.read(args))
    env = gym.make(env_id, **env_kwargs)
    solved: dict[str, OracleResult] = {}  # filled by solve_first once every agent is known to fit
    agents = [(name, make_agent(spec, name, args, suite, solved)) for name in agent_names]
    for name, agent in agents:
        _check_policy_fits(agent, name, env.unwrapped, env_id, env_kwargs)
    if solve_first is not None and suite is None:
        solved.update(solve_first([s for s, _ in games]))
    # An agent that plays from the deal (the oracle's plan) gets an environment of its own that shows
    # it from reset on; the others never see it before an episode ends. Same id, same settings, same
    # seeds: the same deals.
    deal_env = (
        gym.make(env_id, **{**env_kwargs, "reveal_deal": True})
        if any(getattr(agent, "reads_deal", False) for _, agent in agents)
        else None
    )
    report: dict[str, Any] = {"game": spec.name, "episodes": episodes, "seed": seed, "agents": {}}
    oracle_results: dict[str, OracleResult] = dict(solved)
    if suite is not None:
        report["suite"] = {"id": suite.id, "checksum": suite.checksum, "options": suite.meta.get("options")}
        oracle_results = {deal: suite.result(deal) for _, deal in games}
    final_infos: dict[str, list[dict[str, Any]]] = {}
    video_names = _video_names(agent_names) if video else {}
    for name, agent in agents:
        reads_deal = getattr(agent, "reads_deal", False)
        agent_env = deal_env if deal_env is not None and reads_deal else env
        if video:
            assert out is not None
            kwargs = {**env_kwargs, "reveal_deal": True} if reads_deal else env_kwargs
            report["agents"][name], final_infos[name] = _play_recorded(
                env_id, kwargs, agent, name, games, suite, progress, out, video_names[name], video
            )
        else:
            report["agents"][name], final_infos[name] = _play_games(
                agent_env, agent, name, games, suite, progress
            )
        if spec.oracle is not None and suite is None:
            _solve_new_deals(spec, args, report["agents"][name]["deals"], oracle_results, progress)
    env.close()
    if deal_env is not None:
        deal_env.close()
    _compare_with_oracle(spec, args, report, oracle_results, final_infos)
    if out is not None:
        # The work is done: a report that cannot be written is said so, never lost with a traceback.
        try:
            atomic_write_text(out / "evaluation.json", json.dumps(report, indent=1))
            report["plot"] = _plot(spec, report, out / "evaluation.png")
        except OSError as error:
            report["write_error"] = f"could not write the report to {out}: {error}"
    return report


def _games_to_play(
    suite: Suite | None, episodes: int | None, seed: int | None
) -> tuple[Sequence[tuple[int, Any]], int, int | None]:
    """(seed, deal) of each game to play, with the episodes and seed the report states: a suite's
    first ``episodes`` deals (a seed does not apply), else seeded deals."""
    if suite is not None:
        if seed is not None:
            raise ValueError(f"suite {suite.id} fixes its deals: a seed does not apply")
        episodes = check_int("episodes", len(suite) if episodes is None else episodes, 1, len(suite))
        return [(e.seed, e.deal) for e in suite.entries[:episodes]], episodes, seed
    games = SeededGames(episodes, seed)
    return games, games.episodes, games.seed


def _check_agent_names(agent_names: Sequence[str]) -> None:
    """At least one agent, none named twice: each agent is one row of the report."""
    if not agent_names:
        raise ValueError("no agent to evaluate: name at least one")
    repeated = sorted({n for n in agent_names if list(agent_names).count(n) > 1})
    if repeated:
        raise ValueError(f"agent {', '.join(repeated)} named twice: each agent is one row of the report")


def _play_games(
    env: gym.Env, agent: Any, name: str, games: Sequence[tuple[int, Any]], suite: Suite | None, progress: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One agent's games: its report row (scores and deals) and each episode's final info."""
    episodes_played = [
        play_episode(env, agent, game_seed, deal)
        for game_seed, deal in tqdm(games, desc=f"{name} playing", disable=not progress, unit="deal")
    ]
    deals = [e.deal for e in episodes_played]
    if suite is not None and deals != [deal for _, deal in games]:
        # Scores compared with another deal's optimum would be silently wrong.
        raise ValueError(f"the environment played other deals than suite {suite.id}'s")
    return {"scores": [e.score for e in episodes_played], "deals": deals}, [e.info for e in episodes_played]


VIDEO_FOLDER = "videos"
# Frames of one video: RecordVideo holds a video's frames in memory until it encodes them (a War game
# can last thousands of tricks, a Dominion frame is 1.2 MB), so a longer episode's video stops here.
VIDEO_FRAMES = 500


def check_video_extra() -> None:
    """Videos are encoded by moviepy from Pillow's frames (the ``[video]`` extra): refused with the
    command that installs it, before any agent plays."""
    try:
        import moviepy  # noqa: F401
        import PIL  # noqa: F401
    except ImportError as missing:
        raise ImportError(
            f"--video needs the video extra ({missing.name or 'moviepy'} is not installed): "
            "pip install 'tabletop-gym[video]'"
        ) from None


def _video_names(agent_names: Sequence[str]) -> dict[str, str]:
    """A file name for each agent: its name with what a file name cannot hold (a model's path's
    slashes) as dashes, numbered where two agents would share one."""
    names: dict[str, str] = {}
    for agent in agent_names:
        base = re.sub(r"[^A-Za-z0-9_.-]+", "-", agent).strip("-.") or "agent"
        name, n = base, 1
        while name in names.values():
            n += 1
            name = f"{base}-{n}"
        names[agent] = name
    return names


def _play_recorded(
    env_id: str,
    env_kwargs: Mapping[str, Any],
    agent: Any,
    name: str,
    games: Sequence[tuple[int, Any]],
    suite: Suite | None,
    progress: bool,
    out: Path,
    file_name: str,
    video: int,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``_play_games`` on an environment that draws frames, recording the first ``video`` episodes
    (each up to its ``VIDEO_FRAMES``-th position).

    RecordVideo writes each file under its final name as it encodes: it records into a hidden
    folder beside, and each finished file is moved into ``out/videos`` whole (an interrupted run
    leaves no half-written video there)."""
    from gymnasium.wrappers import RecordVideo

    class CappedRecorder(RecordVideo):
        def _capture_frame(self) -> None:
            if len(self.recorded_frames) < VIDEO_FRAMES:
                super()._capture_frame()

    folder = out / VIDEO_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".videos-", dir=out))
    try:
        recorder = CappedRecorder(
            gym.make(env_id, **env_kwargs, render_mode="rgb_array"),
            str(scratch / "recording"),  # a new folder: RecordVideo warns of one that exists
            episode_trigger=lambda episode: episode < video,
            name_prefix=file_name,
            disable_logger=True,
        )
        try:
            row, infos = _play_games(recorder, agent, name, games, suite, progress)
        finally:
            recorder.close()  # encodes the episode still being recorded
        made = sorted((scratch / "recording").glob("*.mp4"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
        for path in made:
            os.replace(path, folder / path.name)
        row["videos"] = [f"{VIDEO_FOLDER}/{path.name}" for path in made]
        return row, infos
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _solve_new_deals(
    spec: GameSpec,
    args: argparse.Namespace,
    deals: list[str],
    oracle_results: dict[str, OracleResult],
    progress: bool,
) -> None:
    """Solve the deals no earlier agent's games (nor solve_first) answered into ``oracle_results``:
    no bar when nothing is left."""
    unsolved = [d for d in dict.fromkeys(deals) if d not in oracle_results]
    quiet = not progress or not unsolved
    for deal in tqdm(unsolved, desc="oracle solving", disable=quiet, unit="deal"):
        result = spec.oracle(deal, spec.read(args))  # None: no oracle for these settings
        if result is not None:
            oracle_results[deal] = result


def _compare_with_oracle(
    spec: GameSpec,
    args: argparse.Namespace,
    report: dict[str, Any],
    oracle_results: dict[str, OracleResult],
    final_infos: dict[str, list[dict[str, Any]]],
) -> None:
    """Each agent's summary against the oracle results, what the ratio is, and the game's reference
    values, into ``report``."""
    worst = spec.worst_score(spec.read(args)) if spec.worst_score is not None else None
    for name, entry in report["agents"].items():
        results = [oracle_results.get(d) for d in entry["deals"]]
        entry.update(_summary(spec, entry["scores"], results, final_infos[name], worst))
    compared = [e for e in report["agents"].values() if "ratios" in e]
    if compared:
        best = "oracle optimum" if all(e["all_bounds_optimal"] for e in compared) else "oracle bound"
        report["ratio"] = spec.ratio_name(spec.read(args)).format(best=best)  # what each deal's ratio is
    references = spec.references(spec.read(args)) if spec.references is not None else {}
    if references:
        # Values of the settings themselves (not of a deal), e.g. what the best policy that does not
        # see the future averages: each agent's mean score over each.
        report["references"] = references
        for entry in report["agents"].values():
            for what, value in references.items():
                entry[f"over_{what}"] = entry["mean_score"] / value if value > 0 else None


def _summary(
    spec: GameSpec,
    scores: list[float],
    results: list[OracleResult | None],
    infos: list[dict[str, Any]],
    worst: float | None = None,
) -> dict[str, Any]:
    summary: dict[str, Any] = {"mean_score": float(np.mean(scores))}
    if results and all(r is not None for r in results):
        bounds = [r.bound for r in results]
        ratios = [score_ratio(s, b, worst) for s, b in zip(scores, bounds, strict=True)]
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
    over_keys = sorted({k for entry in report["agents"].values() for k in entry if k.startswith("over_")})
    header = ["agent", "mean score", "mean optimum", "score/optimum (95% CI)", "optimal"] + [
        k.replace("share_", "") for k in extra_keys
    ]
    header += [f"score/{k.removeprefix('over_').replace('_', ' ')}" for k in over_keys]
    for name, entry in report["agents"].items():
        if "mean_ratio" in entry:
            low, high = entry["ratio_ci95"]
            ratio = f"{entry['mean_ratio']:.3f} [{low:.3f}, {high:.3f}]"
            bound = f"{entry['mean_bound']:.2f}" + ("" if entry["all_bounds_optimal"] else " (bound)")
            optimal = f"{100 * entry['share_optimal']:.1f}%"
        else:
            ratio = bound = optimal = "-"
        extras = [f"{100 * entry[k]:.1f}%" if k in entry else "-" for k in extra_keys]
        extras += ["-" if entry.get(k) is None else f"{entry[k]:.3f}" for k in over_keys]
        rows.append([name, f"{entry['mean_score']:.2f}", bound, ratio, optimal] + extras)
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


def _figure(spec: GameSpec, report: dict[str, Any]) -> Any:
    """The figure of an evaluation: one panel per agent (overlaid histograms hid one agent behind
    another), each the histogram of its per-deal ratios with its mean and the mean's 95% interval
    in the panel's title and as a line and band; whole deals on the y axis. None without ratios."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    names = [n for n, e in report["agents"].items() if "ratios" in e]
    if not names:
        return None
    fig, axes = plt.subplots(
        len(names), 1, figsize=(7, 1.2 + 1.5 * len(names)), sharex=True, sharey=True, squeeze=False
    )
    bins = np.linspace(0, 1, 41)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (ax, name) in enumerate(zip(axes[:, 0], names, strict=True)):
        entry = report["agents"][name]
        mean, (low, high) = entry["mean_ratio"], entry["ratio_ci95"]
        ax.hist(entry["ratios"], bins=bins, color=colours[i % len(colours)])
        ax.axvspan(low, high, color="black", alpha=0.12, linewidth=0, zorder=0)  # behind the bars
        ax.axvline(mean, color="black", linewidth=1)
        ax.set_title(f"{name}: mean {mean:.3f} [95% CI {low:.3f}, {high:.3f}]", fontsize=9, loc="left")
        ax.set_ylabel("deals")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of deals: no "0.5 deals"
    axes[-1, 0].set_xlim(0, 1)
    axes[-1, 0].set_xlabel(report.get("ratio", "score / oracle optimum"))
    source = f"suite {report['suite']['id']}" if "suite" in report else f"seeds from {report['seed']}"
    fig.suptitle(f"{spec.name}: {report['episodes']} deals, {source}")
    fig.tight_layout()
    return fig


def _plot(spec: GameSpec, report: dict[str, Any], path: Path) -> str | None:
    try:
        import matplotlib  # noqa: F401  (the training extra)
    except ImportError:
        return None
    fig = _figure(spec, report)
    if fig is None:
        return None
    return save_figure(fig, path)

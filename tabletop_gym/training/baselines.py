"""The baselines table: every game's certified suite played by random, the game's heuristic bots,
MaskablePPO trained for a fixed budget on several seeds, and the oracle's plans.

Scores are normalized per deal by the suite's stored oracle result (``score_ratio``: score/optimum,
fewest turns/turns for Dominion, and for War's whole game (score+1)/(optimum+1), a loss 0 and a win
1), so 1 is the best play of that very deal. Per game the report
gives each agent's mean and interquartile mean (IQM) over runs (training seeds; one for the bots)
x deals, each with a 95% percentile bootstrap interval that resamples the deals and, within each
deal, the runs (rliable's stratified bootstrap with ``task_bootstrap``; Agarwal et al., 2021): it
says how the figure would move on other deals and other seeds, and stays within [0, 1]. Across games
it gives the IQM over runs x games of each run's mean, runs resampled within each game (the five
games are the benchmark, not a sample): deterministic agents (the bots, random seeded by the deal)
are one run each, so their across-game interval has zero width.

Training is resumable: a run whose ``model.zip`` already exists with the same game, settings, seed
and budget is reused, so an interrupted ``tabletop-gym baselines`` continues where it stopped. So is
each suite's finished part of the report (``suite-part.json`` in the suite's folder), but only while
everything it was computed from is unchanged: the suite's deals and results, the budget, seeds, steps
and deals played, every model and snapshot file, and the package's own files (a changed bot or rule
recomputes it). A large budget's suites can thus be played as their runs finish, and the table drawn
at the end without playing them again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from tabletop_gym.core import atomic_write_text, check_int, hold_output
from tabletop_gym.training.arguments import MAX_STEPS
from tabletop_gym.training.evaluate import score_ratio
from tabletop_gym.training.figures import save_figure

# Each game's suite, training budget, training aids and deals to play are its own (``GameSpec.baseline``,
# beside the game in training/games/<game>.py); a game without one trains for this many steps.
DEFAULT_STEPS = 50_000
# Learning curves: snapshots from this many steps on, each played on the suite's first CURVE_DEALS deals.
CURVE_FIRST = 10_000
CURVE_DEALS = 200
# Agents that search rather than act on what they observe (the probe reads the deal, the Nmbr9
# policy runs an expectimax): references of another kind, left out of a table of policies.
SEARCHERS = frozenset({"probe", "optimal-policy"})
PPO = "MaskablePPO"
ORACLE = "oracle plan"
BOOTSTRAP_REPS = 2000
SUITE_PART = "suite-part.json"


def _rliable() -> Any:
    try:
        from rliable import library, metrics
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("the baselines need the training extra: pip install 'tabletop-gym[train]'") from exc
    return library, metrics


def intervals(
    scores: np.ndarray, resample_tasks: bool = True, seed: int = 0, reps: int = BOOTSTRAP_REPS
) -> dict[str, tuple[float, float, float]]:
    """IQM and mean of a (runs x tasks) score matrix, each with its 95% percentile interval from
    rliable's stratified bootstrap: runs resampled within each task and, with ``resample_tasks``
    (the deals of a suite), the tasks too. Resampling only the runs within each deal would give an
    agent of one run, or runs that play alike, an interval of no width whatever its spread over
    deals. Percentiles of resampled IQMs and means stay within the scores' range."""
    library, metrics = _rliable()
    scores = np.asarray(scores, dtype=float)
    state = np.random.get_state()
    np.random.seed(seed)  # rliable draws from numpy's global generator: fixed for a reproducible table
    try:
        points, estimates = library.get_interval_estimates(
            {"agent": scores},
            lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]),
            task_bootstrap=resample_tasks,
            reps=reps,
        )
    finally:
        np.random.set_state(state)  # the caller's draws are not this table's business
    point, (low, high) = points["agent"], estimates["agent"]
    return {
        key: (float(point[i]), float(low[i]), float(high[i])) for i, key in enumerate(("iqm", "mean"))
    }


def iqm_interval(
    scores: np.ndarray, seed: int = 0, resample_tasks: bool = True
) -> tuple[float, float, float]:
    """IQM of a (runs x tasks) score matrix and its 95% interval (``intervals``)."""
    return intervals(scores, resample_tasks, seed)["iqm"]


def curve_steps(steps: int, first: int = CURVE_FIRST) -> list[int]:
    """Where a run of ``steps`` keeps snapshots for its learning curve: 1, 2 and 5 times each power of
    ten from ``first`` up to, not including, ``steps`` (the finished model is the curve's last point)."""
    points, scale = [], first
    while scale < steps:
        points += [m * scale for m in (1, 2, 5) if m * scale < steps]
        scale *= 10
    return points


def budget_trainer(budget: str, env_id: str) -> str:
    """The trainer of a budget: ``small`` keeps MaskablePPO on single environments, the trainer of the
    published table whose figures it reproduces; ``large`` uses the vector trainer wherever the game has
    a native vector environment (the budget is 100 times larger, and so must the speed be)."""
    from tabletop_gym.training.vector_ppo import has_vector_env

    return "vector" if budget == "large" and has_vector_env(env_id) else "sb3"


def trained_run(
    spec: Any,
    args: argparse.Namespace,
    steps: int,
    seed: int,
    folder: Path,
    progress: bool,
    trainer: str = "sb3",
) -> tuple[Path, float]:
    """The model of one training run, trained now or reused from an earlier run with the same settings
    (game, environment, seed, steps and trainer); returns it with its training seconds. The run keeps
    snapshots for its learning curve (``curve_steps``)."""
    from tabletop_gym.training.train import train

    config_path = folder / "config.json"
    env_id, env_kwargs = spec.environment(spec.read(args))
    try:
        config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    except (OSError, ValueError):
        config = {}  # unreadable: train again
    keys = ("game", "env_id", "env_kwargs", "seed", "steps", "trainer")
    wanted = json.loads(json.dumps([spec.name, env_id, env_kwargs, seed, steps, trainer]))
    same = isinstance(config, dict) and [config.get(k) for k in keys] == wanted
    if same and (folder / "model.zip").is_file() and not config.get("interrupted"):
        return folder / "model.zip", float(config.get("train_seconds", 0.0))
    # An interrupted run of the same budget goes on from its checkpoint; any other run starts afresh.
    resume = same and (folder / "checkpoint.zip").is_file()
    every = max(10_000, steps // 20)
    path = train(spec, steps, seed, folder, args, progress=progress, checkpoint_every=every, resume=resume,
                 trainer=trainer, snapshots=curve_steps(steps))
    return path, float(json.loads(config_path.read_text())["train_seconds"])


def suite_setup(
    suite_id: str, budget: str = "small", load: bool = True
) -> tuple[Any, Any, argparse.Namespace, int, dict[str, Any]]:
    """(suite, game spec, settings, steps, training aids) of a suite's baseline runs in ``budget``; the
    suite is None without ``load`` (training needs only its definition)."""
    from tabletop_gym.training import suites
    from tabletop_gym.training.games import get_game

    definition = suites.definition(suite_id)
    suite = suites.load(suite_id) if load else None  # checked: every stored plan replays to its score
    spec = get_game(definition.game)
    args = suites.definition_args(definition)
    baseline = spec.baseline
    steps = baseline.budget(budget)[1] if baseline is not None else DEFAULT_STEPS
    aids = dict(baseline.training_aids) if baseline is not None else {}
    return suite, spec, args, steps, aids


def train_seed(
    suite_id: str,
    seed: int,
    out: Path,
    budget: str = "small",
    steps: int | None = None,
    progress: bool = True,
) -> Path:
    """One seed's training run of a suite's baselines (what ``run_baselines`` trains), in the folder where
    ``run_baselines`` with the same ``out`` and budget reuses it: for training seeds side by side, before
    the suite is even built."""
    _, spec, args, budget_steps, aids = suite_setup(suite_id, budget, load=False)
    train_args = argparse.Namespace(**{**vars(args), **aids})
    env_id, _ = spec.environment(spec.read(train_args))
    path, _ = trained_run(spec, train_args, steps or budget_steps, seed, out / suite_id / f"ppo-seed{seed}",
                          progress, budget_trainer(budget, env_id))
    return path


def run_suite(
    suite_id: str,
    seeds: int,
    steps: int | None,
    out: Path,
    episodes: int | None = None,
    progress: bool = True,
    budget: str = "small",
) -> dict[str, Any]:
    """Train and evaluate every agent on one suite; returns the suite's part of the report."""
    suite, spec, args, budget_steps, aids = suite_setup(suite_id, budget)
    baseline = spec.baseline
    steps = budget_steps if steps is None else steps
    train_args = argparse.Namespace(**{**vars(args), **aids})
    trainer = budget_trainer(budget, spec.environment(spec.read(train_args))[0])
    runs: list[tuple[str, Path]] = []
    train_seconds: list[float] = []
    for seed in range(seeds):
        name = f"{PPO} seed {seed}"
        if progress:
            print(f"{suite.id}: training {name} for {steps} steps ({trainer} trainer)", flush=True)
        folder = out / suite.id / f"ppo-seed{seed}"
        path, seconds = trained_run(spec, train_args, steps, seed, folder, progress, trainer)
        runs.append((name, path.parent))
        train_seconds.append(seconds)
    bots = [name for name in spec.agents if name not in SEARCHERS]
    names = bots + [str(path) for _, path in runs]
    if episodes is None and baseline is not None and baseline.budget(budget)[0] == suite.id:
        episodes = baseline.budget(budget)[2]
    part_path = out / suite.id / SUITE_PART
    key = _part_key(suite, budget, seeds, steps, episodes, trainer, [path for _, path in runs])
    stored = _stored_part(part_path, key)
    if stored is not None:
        if progress:
            print(f"{suite.id}: reusing {part_path} (its deals, models and the package are unchanged)",
                  flush=True)
        return stored
    part = _play_suite(spec, args, suite, budget, seeds, steps, episodes, aids, trainer, bots, names, runs,
                       train_seconds, progress)
    atomic_write_text(part_path, json.dumps({"key": key, "part": part}, indent=1))
    return part


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def package_fingerprint() -> str:
    """A digest of every source and data file of the installed package: any change to a rule, bot,
    agent or the evaluation itself changes it."""
    import tabletop_gym

    root = Path(tabletop_gym.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".json", ".pt"):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(_sha256(path).encode())
    return digest.hexdigest()


def _part_key(
    suite: Any,
    budget: str,
    seeds: int,
    steps: int,
    episodes: int | None,
    trainer: str,
    folders: Sequence[Path],
) -> dict[str, Any]:
    """What a suite's part of the report is computed from (``run_suite`` reuses a stored part only when
    every item is equal)."""
    from tabletop_gym.training.train import snapshot_steps

    results = [[e.seed, e.deal, e.score, e.bound, e.optimal] for e in suite.entries]
    suite_digest = hashlib.sha256(json.dumps([suite.meta, results], default=str).encode()).hexdigest()
    models = [
        [_sha256(folder / "model.zip"), [[step, _sha256(path)] for step, path in snapshot_steps(folder)]]
        for folder in folders
    ]
    return json.loads(json.dumps({
        "suite": suite.id, "suite_digest": suite_digest, "budget": budget, "seeds": seeds, "steps": steps,
        "episodes": episodes, "trainer": trainer, "models": models, "package": package_fingerprint(),
    }))


def _stored_part(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        return None  # none yet, or unreadable: played again
    if not isinstance(stored, dict) or stored.get("key") != key or not isinstance(stored.get("part"), dict):
        return None
    return stored["part"]


def _play_suite(
    spec: Any,
    args: argparse.Namespace,
    suite: Any,
    budget: str,
    seeds: int,
    steps: int,
    episodes: int | None,
    aids: dict[str, Any],
    trainer: str,
    bots: list[str],
    names: list[str],
    runs: list[tuple[str, Path]],
    train_seconds: list[float],
    progress: bool,
) -> dict[str, Any]:
    """Plays every agent of one suite and returns the suite's part of the report."""
    from tabletop_gym.training.evaluate import evaluate

    report = evaluate(spec, names, episodes, None, args, progress=progress, suite=suite)
    played = report["agents"]
    entries = suite.entries[: report["episodes"]]
    worst = spec.worst_score(spec.read(args)) if spec.worst_score is not None else None
    agents: dict[str, Any] = {}
    for name in bots:
        agents[name] = _agent_entry([played[name]["ratios"]], [played[name]["mean_score"]])
    agents[PPO] = _agent_entry(
        [played[str(path)]["ratios"] for _, path in runs],
        [played[str(path)]["mean_score"] for _, path in runs],
    )
    agents[PPO]["train_seconds"] = train_seconds
    agents[PPO]["models"] = [str(path) for _, path in runs]
    agents[PPO]["trainer"] = trainer
    finals = [(path, played[str(path)]["ratios"]) for _, path in runs]
    curve = learning_curve(spec, args, suite, finals, report["episodes"], progress)
    # The oracle's row is its stored plans, each replayed through the engine when the suite was
    # loaded (Modern Art's plans choose every seat's moves, so they are not played against bots).
    agents[ORACLE] = _agent_entry(
        [[score_ratio(e.score, e.bound, worst) for e in entries]],
        [float(np.mean([e.score for e in entries]))],
    )
    optimal = sum(e.optimal for e in entries)
    best = "oracle optimum" if optimal == report["episodes"] else "oracle bound"
    return {
        "suite": suite.id,
        "game": suite.game,
        "env_id": suite.env_id,
        "options": suite.meta.get("options", ""),
        "deals": report["episodes"],
        "proven_optimal": optimal,
        "denominator": "optimum" if optimal == report["episodes"] else "bound",
        "ratio": spec.ratio_name(spec.read(args)).format(best=best),  # what each deal's ratio divides
        "mean_bound": float(np.mean([e.bound for e in entries])),
        "steps": steps,
        "budget": budget,
        "training_aids": aids,
        "seeds": seeds,
        "bots": bots,
        "agents": agents,
        "curve": curve,
    }


def learning_curve(
    spec: Any,
    args: argparse.Namespace,
    suite: Any,
    finals: Sequence[tuple[Path, Sequence[float]]],
    episodes: int | None,
    progress: bool,
) -> dict[str, Any]:
    """Each run's score/optimum at each of its snapshots and at its end (``finals``: each run's folder
    and its finished model's per-deal ratios, already played), on the suite's first ``CURVE_DEALS``
    deals (the same deals for every point, at most ``episodes``)."""
    from tabletop_gym.training.evaluate import evaluate
    from tabletop_gym.training.train import snapshot_steps

    deals = min(len(suite), CURVE_DEALS, episodes or len(suite))
    snapshots = [snapshot_steps(folder) for folder, _ in finals]
    names = [str(path) for run in snapshots for _, path in run]
    played = {}
    if names:
        played = evaluate(spec, names, deals, None, args, progress=progress, suite=suite)["agents"]
    runs = []
    for (folder, ratios), run in zip(finals, snapshots, strict=True):
        means = [float(np.mean(played[str(path)]["ratios"])) for _, path in run]
        runs.append({
            "steps": [step for step, _ in run] + [_steps_done(folder)],
            "mean": means + [float(np.mean(list(ratios)[:deals]))],
        })
    return {"deals": deals, "runs": runs}


def _steps_done(folder: Path) -> int:
    config = json.loads((folder / "config.json").read_text())
    return int(config.get("steps_done") or config["steps"])


def _agent_entry(ratios: Sequence[Sequence[float]], mean_scores: Sequence[float]) -> dict[str, Any]:
    """One agent on one suite: per-run per-deal ratios, the mean and the IQM over runs x deals, each
    with its 95% interval over deals and runs (``intervals``)."""
    matrix = np.asarray(ratios, dtype=float)  # runs x deals
    figures = intervals(matrix, resample_tasks=True)
    (mean, low, high), (iqm, iqm_low, iqm_high) = figures["mean"], figures["iqm"]
    return {
        "runs": len(ratios),
        "ratios": matrix.tolist(),
        "run_means": matrix.mean(axis=1).tolist(),
        "mean_scores": list(mean_scores),
        "mean": mean,
        "ci95": [low, high],
        "iqm": iqm,
        "iqm_ci95": [iqm_low, iqm_high],
    }


def aggregate(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Across games: IQM over runs x games of each run's mean ratio on a game, for the agents every
    game has (random, greedy, MaskablePPO, the oracle's plans)."""
    common = [a for a in ("random", "greedy", PPO, ORACLE) if all(a in g["agents"] for g in games)]
    result: dict[str, Any] = {}
    for agent in common:
        runs = {g["agents"][agent]["runs"] for g in games}
        if len(runs) != 1:
            continue
        matrix = np.array([g["agents"][agent]["run_means"] for g in games], dtype=float).T  # runs x games
        iqm, low, high = iqm_interval(matrix, resample_tasks=False)  # the games are fixed: runs resampled
        result[agent] = {
            "runs": runs.pop(),
            "iqm": iqm,
            "iqm_ci95": [low, high],
            "mean": float(matrix.mean()),
        }
    return result


def default_suites(budget: str = "small") -> list[str]:
    """The suite of each game that has a ``baseline``, in ``budget``, in the order of its column."""
    from tabletop_gym.training.games import game_names, get_game

    baselines = [b for b in (get_game(name).baseline for name in game_names()) if b is not None]
    return [b.budget(budget)[0] for b in sorted(baselines, key=lambda b: b.column)]


def default_episodes(budget: str = "small") -> dict[str, int]:
    """Deals played of each game's baseline suite in ``budget`` where not the whole suite (by suite id)."""
    from tabletop_gym.training.games import game_names, get_game

    chosen = [get_game(name).baseline for name in game_names()]
    plays = [b.budget(budget) for b in chosen if b is not None]
    return {suite: episodes for suite, _, episodes in plays if episodes is not None}


def run_baselines(
    suite_ids: Sequence[str] | None = None,
    seeds: int = 3,
    steps: int | None = None,
    out: Path = Path("runs/baselines"),
    episodes: int | None = None,
    progress: bool = True,
    budget: str = "large",
) -> dict[str, Any]:
    """Train and evaluate every suite (default: each game's baseline suite in ``budget``,
    ``default_suites``) with ``budget``'s steps and trainer (``small`` or ``large``); writes
    ``baselines.json``, ``baselines.md``, ``baselines.png`` and each game's ``learning-GAME.png`` to
    ``out`` and returns the report."""
    from tabletop_gym.training.games import BUDGETS

    if budget not in BUDGETS:
        raise ValueError(f"budget {budget!r}: expected one of {', '.join(BUDGETS)}")
    suite_ids = default_suites(budget) if suite_ids is None else suite_ids
    seeds = check_int("seeds", seeds, 1, 100)
    if steps is not None:
        steps = check_int("steps", steps, 1, MAX_STEPS)
    if not suite_ids:
        raise ValueError("no suite to run: name at least one (see 'tabletop-gym suite list')")
    from tabletop_gym.training import suites

    if episodes is not None:
        episodes = check_int("episodes", episodes, 1)
    for suite_id in suite_ids:
        suites.definition(suite_id)  # an unknown id fails before any training
        # So does a count of deals the suite does not hold (read without replaying its plans).
        size = len(suites.load(suite_id, replay=False)) if episodes is not None else 0
        if episodes is not None and episodes > size:
            raise ValueError(
                f"--episodes {episodes}: suite {suite_id} holds {size} deals; give at most {size}"
            )
    _rliable()  # the intervals come after hours of training: a missing training extra fails now
    # One run writes the folder at a time: refused here, before any training, not at a later write.
    with hold_output(out, folder=True):
        start = time.perf_counter()
        cpu_start = _cpu_seconds()
        games = [
            run_suite(suite_id, seeds, steps, out, episodes, progress, budget)
            for suite_id in tqdm(suite_ids, desc="suites", unit="suite", disable=not progress)
        ]
        report = {
            "budget": budget,
            "seeds": seeds,
            "games": games,
            "aggregate": aggregate(games),
            "wall_seconds": round(time.perf_counter() - start, 1),
            "cpu_seconds": round(_cpu_seconds() - cpu_start, 1),
            "bootstrap_reps": BOOTSTRAP_REPS,
        }
        atomic_write_text(out / "baselines.json", json.dumps(report, indent=1))
        atomic_write_text(out / "baselines.md", markdown(report))
        report["plot"] = plot(report, out / "baselines.png")
        report["curves"] = [c for g in games if (c := plot_curve(g, out / f"learning-{g['game']}.png"))]
    return report


def _cpu_seconds() -> float:
    """CPU time of this process's threads (torch, numba) and of the children it waited for."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cell(entry: dict[str, Any] | None, key: str = "mean") -> str:
    if entry is None:
        return "-"
    low, high = entry[f"{key}_ci95" if key != "mean" else "ci95"]
    return f"{entry[key]:.3f} [{low:.3f}, {high:.3f}]"


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown: one column per game, one row per agent, then the aggregate."""
    games = report["games"]
    header = ["agent"] + [
        f"{g['game']} ({g['suite']}, {g['deals']} deals{', bound' if g['denominator'] == 'bound' else ''})"
        for g in games
    ]
    rows = [["random"], ["greedy"], ["best other bot"], [f"{PPO}, mean"], [f"{PPO}, IQM"], [ORACLE]]
    for g in games:
        agents = g["agents"]
        others = [b for b in g["bots"] if b not in ("random", "greedy")]
        best = max(others, key=lambda b: agents[b]["mean"]) if others else None
        rows[0].append(_cell(agents.get("random")))
        rows[1].append(_cell(agents.get("greedy")))
        rows[2].append(f"{best}: {_cell(agents[best])}" if best else "-")
        rows[3].append(_cell(agents[PPO]))
        rows[4].append(_cell(agents[PPO], "iqm"))
        rows[5].append(_cell(agents[ORACLE]))
    lines = [
        "Score / oracle optimum per deal (Dominion: fewest turns / turns taken; War: (result + 1) / "
        "(best result + 1), a loss 0); mean and IQM over runs x deals "
        f"({PPO}: {report['seeds']} training seeds) [95% bootstrap CI, deals and runs within each deal "
        "resampled, as rliable computes it]. A column marked 'bound' divides by proven bounds, not optima.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    budget = ", ".join(
        f"{g['game']} {g['steps']:,}"
        + (f" (training aids {', '.join(f'{k}={v:g}' for k, v in aids.items())})" if aids else "")
        for g in games
        for aids in [g.get("training_aids", {})]
    )
    lines += ["", f"Training budget (environment steps per seed): {budget}.", ""]
    if report["aggregate"]:
        lines += ["Across games, IQM over runs x games of each run's mean ratio [95% CI]:", ""]
        lines += ["| agent | runs | IQM | mean |", "|---|---|---|---|"]
        for agent, entry in report["aggregate"].items():
            low, high = entry["iqm_ci95"]
            lines.append(
                f"| {agent} | {entry['runs']} | {entry['iqm']:.3f} [{low:.3f}, {high:.3f}] | "
                f"{entry['mean']:.3f} |"
            )
    trained = sum(sum(g["agents"][PPO]["train_seconds"]) for g in games)
    lines += [
        "",
        f"Training: {trained:,.0f} s of wall clock over all runs (each run's own time, kept when a later "
        f"command reuses its model). This command: {report['wall_seconds']:,} s wall, "
        f"{report['cpu_seconds']:,} s CPU.",
    ]
    return "\n".join(lines) + "\n"


COLOURS = {PPO: "tab:blue", ORACLE: "tab:green", "random": "tab:grey", "greedy": "tab:orange"}


def _panel(ax: Any, agents: dict[str, Any], key: str, marker: str, title: str, xlabel: str) -> None:
    """One agent a row: its ``key`` figure (mean or IQM) with the figure's 95% interval."""
    names = list(agents)
    for y, name in enumerate(names):
        value = agents[name][key]
        low, high = agents[name]["ci95" if key == "mean" else f"{key}_ci95"]
        colour = COLOURS.get(name, "tab:purple")
        ax.errorbar(value, y, xerr=[[value - low], [high - value]], fmt=marker, color=colour, capsize=3)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xlim(0, 1.05)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel, fontsize=8)


def plot(report: dict[str, Any], path: Path) -> str | None:
    """One panel per game (each agent's mean with its 95% interval) and one for the aggregate IQM."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the install
        return None
    games = report["games"]
    panels = len(games) + (1 if report["aggregate"] else 0)
    columns = min(3, panels)
    rows = -(-panels // columns)
    fig, grid = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.0 * rows), squeeze=False)
    axes = [list(grid.ravel())]
    for unused in axes[0][panels:]:
        unused.set_visible(False)
    for ax, g in zip(axes[0], games, strict=False):
        label = g.get("ratio", f"score / {g['denominator']}")  # reports written before it was stored
        _panel(ax, g["agents"], "mean", "o", f"{g['game']} ({g['deals']} deals)", label)
    if report["aggregate"]:
        _panel(
            axes[0][panels - 1],
            report["aggregate"],
            "iqm",
            "s",
            "all games (IQM)",
            "score / optimum or bound",
        )
    fig.tight_layout()
    return save_figure(fig, path)


def plot_curve(game: dict[str, Any], path: Path) -> str | None:
    """A game's learning curve: each run's score/optimum (or bound) on the curve's deals against the
    steps it had trained on, their mean, and the bots and the oracle's plans for reference."""
    curve = game.get("curve")
    if not curve or not curve["runs"]:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the install
        return None
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for i, run in enumerate(curve["runs"]):
        ax.plot(run["steps"], run["mean"], "-", color=COLOURS[PPO], alpha=0.35, lw=1,
                label=f"{PPO}, each seed" if i == 0 else None)
    # Every run keeps its snapshots at the same schedule, each at the first update past a point: the
    # mean of the runs' i-th points, at their mean step.
    if len({len(r["steps"]) for r in curve["runs"]}) == 1:
        steps = np.mean([r["steps"] for r in curve["runs"]], axis=0)
        mean = np.mean([r["mean"] for r in curve["runs"]], axis=0)
        ax.plot(steps, mean, "o-", color=COLOURS[PPO], lw=2, ms=3, label=f"{PPO}, mean of seeds")
    agents = game["agents"]
    for name in ("random", "greedy", ORACLE):
        if name in agents:
            label = f"{name} (the table's deals)"
            ax.axhline(agents[name]["mean"], ls="--", lw=1, color=COLOURS[name], label=label)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("environment steps trained")
    ax.set_ylabel(game.get("ratio", f"score / {game['denominator']}"), fontsize=8)
    ax.set_title(f"{game['game']}: {game['suite']}, first {curve['deals']} deals", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, path)

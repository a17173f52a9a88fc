"""Imitation training with the oracle as teacher: behaviour cloning, then DAgger.

``tabletop-gym train GAME --teacher oracle`` trains the same MaskablePPO policy that ``train`` does,
by supervised learning instead of reinforcement: the game's move oracle
(:class:`tabletop_gym.core.MoveOracle`) tells, at every position, which legal moves are optimal.

- Iteration 0 (behaviour cloning): the teacher plays ``deals`` fresh deals itself (``clone_deals``
  where given); every position of its games is labelled with the set of optimal moves there.
- Iterations 1, 2, ... (DAgger, Ross et al. 2011): the learner plays ``deals`` fresh deals with its
  own most likely moves and the teacher labels every position the learner reaches, so the learner
  also learns to recover from its own mistakes. The labelled positions of all iterations so far are
  kept, and each iteration trains ``epochs`` passes over them all.

The loss accepts every optimal move: it is minus the log of the probability that the policy's masked
distribution puts on the set of optimal moves (an optimum reached by several moves does not
penalise the policy for choosing any of them).

Each iteration's learner games are on deals the policy has never been trained on, so the learner's
score over the teacher's optimum on them is an honest measure of the policy so far: the learning
curve (``imitation_curve.json``, ``imitation_curve.png``).

A teacher must be one the learner can follow: the move oracle's best move uses the whole deal, so
it is a teacher only where the observation shows the whole deal (the environment's
``deal_is_public``: Cribbage, War's full observation). Elsewhere ``--teacher oracle`` is refused.
Where the seat does not see the deal, ``--teacher policy`` follows the best policy of what it sees,
where the package computes one (``GameSpec.best_policy``: Nmbr9's expectimax on small variants):
the labels are the moves of the highest expected value, a function of the observation alone, and
the curve divides by the expected value instead of each deal's optimum. It is a separate name
because it is not the oracle: it never learns from the deal's future, and its ``expected value`` is
what the learner can reach on average, where the hindsight optimum is not.

Why not the ``imitation`` library (HumanCompatibleAI): its 1.0.1 release (the newest) requires
``stable-baselines3~=2.2.1`` and ``gymnasium~=0.29``, which cannot be installed beside this package's
pins (stable-baselines3 2.9, gymnasium 1.x); its BC loss calls ``policy.evaluate_actions(obs, acts)``
without action masks and takes one expert action per state, and its DAgger rolls the learner out with
``policy.predict`` without masks, so the learner would play illegal moves. The loop here is short and
works on sb3-contrib's ``MaskableActorCriticPolicy`` itself, so the result is an ordinary model.zip.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_gym.core import (
    atomic_output,
    atomic_write_text,
    check_int,
    hold_output,
    read_regular,
    sigint_deferred,
)
from tabletop_gym.training.figures import save_figure
from tabletop_gym.training.games import GameSpec

TEACHERS = ("oracle", "policy")
# What the learning curve divides the learner's score by, and the teacher's name, per teacher.
REFERENCE = {"oracle": "optimum", "policy": "expected value"}
TEACHER_NAMES = {"oracle": "oracle", "policy": "best policy"}
CHECKPOINT = "checkpoint.zip"
DATA = "imitation_data.npz"
STATE = "imitation.json"
CURVE_PNG = "imitation_curve.png"
CURVE_JSON = "imitation_curve.json"
# Deals of the training games come from this seed family, never from a suite's or evaluate's seeds.
DEAL_SEED_SALT = 0x7EAC


@dataclass(frozen=True)
class ImitationOptions:
    """What ``train --teacher`` runs (see the module's docstring)."""

    teacher: str = "oracle"
    iterations: int = 10
    deals: int = 50
    # Deals of iteration 0, the teacher's own games (default ``deals``): where the teacher's games are
    # far cheaper to label than the learner's (War: a learner's game that cycles to the trick limit
    # asks thousands of decisions, the teacher's a few), behaviour cloning takes many more of them.
    clone_deals: int | None = None
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    # Train on the labelled positions relabelled by the game's symmetry (GameSpec.symmetry), if any.
    symmetry: bool = True

    def __post_init__(self) -> None:
        if self.teacher not in TEACHERS:
            raise ValueError(f"unknown teacher {self.teacher!r}: choose among {', '.join(TEACHERS)}")
        check_int("iterations", self.iterations, 1)
        check_int("deals", self.deals, 1)
        if self.clone_deals is not None:
            check_int("clone_deals", self.clone_deals, 1)
        check_int("epochs", self.epochs, 1)
        check_int("batch_size", self.batch_size, 1)
        if not (isinstance(self.learning_rate, float) and 0 < self.learning_rate < 1):
            raise ValueError(f"learning_rate must be a number in (0, 1), got {self.learning_rate!r}")
        if not isinstance(self.symmetry, bool):
            raise ValueError(f"symmetry must be True or False, got {self.symmetry!r}")

    def deals_of(self, iteration: int) -> int:
        """The fresh deals played in ``iteration`` (0: behaviour cloning on the teacher's games)."""
        return self.clone_deals if iteration == 0 and self.clone_deals is not None else self.deals


class Teacher:
    """The oracle's optimal moves at the positions of one game's settings.

    ``labels(deal, history)`` is the boolean mask of the optimal moves after ``history`` (the
    actions from the deal's start), and ``best(deal, history)`` the one its plan plays; a deal's
    move oracle is kept while that deal is played."""

    def __init__(self, spec: GameSpec, settings: Any, env: Any) -> None:
        from tabletop_gym.core import NoMoveOracleError

        instead = ("; --teacher policy follows its best policy of what the player sees"
                   if spec.best_policy is not None else "")
        if spec.moves is None:
            raise NoMoveOracleError(
                f"--teacher oracle: {spec.name} has no move oracle (no oracle of the game proves each "
                f"move's value), so there is no teacher to imitate{instead}"
            )
        if not getattr(env.unwrapped, "deal_is_public", False):
            raise ValueError(
                f"--teacher oracle: the {spec.name} player does not see the whole deal with these settings, "
                "and the oracle's moves depend on what the player cannot see: the learner cannot follow "
                "them (choose settings whose observation shows the deal, e.g. War's --observation full"
                f"{instead})"
            )
        self._make = spec.moves.oracle(settings)  # raises NoMoveOracleError for settings without one
        self._actions = int(env.action_space.n)
        self._deal: str | None = None
        self._oracle: Any = None
        self._game_deal = ""

    # What ``play`` asks of any teacher: a new game, the labels of a position, the move played there.
    reference: float | None = None  # the learning curve divides by each deal's optimum

    def start(self, info: dict[str, Any]) -> None:
        self._game_deal = info["deal"]

    def label(self, obs: Any, info: dict[str, Any], history: list[int]) -> tuple[np.ndarray, int, float]:
        return self.labels(self._game_deal, history)

    def played(self, obs: Any, info: dict[str, Any], action: int) -> None:
        pass

    def values(self, deal: str, history: list[int]) -> Any:
        if deal != self._deal:
            self._oracle = self._make(deal)
            self._deal = deal
        return self._oracle.at(history)

    def labels(self, deal: str, history: list[int]) -> tuple[np.ndarray, int, float]:
        """(mask of the optimal moves, the plan's best move, the optimum from here)."""
        values = self.values(deal, history)
        optimal = np.zeros(self._actions, dtype=bool)
        for action, value in values.values.items():
            optimal[action] = values.optimum - value <= 1e-9
        return optimal, values.best, values.optimum


class PolicyTeacher:
    """The best policy of what the seat sees (``GameSpec.best_policy``: Nmbr9's expectimax), as
    ``--teacher policy``: at each position, the moves of the highest expected value, from the
    observation alone (the board, the card to place, the cards not yet seen), never the deal's
    future. The learning curve divides by the settings' expected value, the mean score of this
    policy, which no policy of the observation beats on average."""

    def __init__(self, spec: GameSpec, settings: Any, env: Any) -> None:
        from tabletop_gym.core import TabletopError

        if spec.best_policy is None:
            instead = (" (its player sees the whole deal: --teacher oracle is its best policy)"
                       if getattr(env.unwrapped, "deal_is_public", False) and spec.moves is not None else "")
            raise ValueError(f"--teacher policy: the package computes no best policy of what the {spec.name} "
                             f"player sees{instead}")
        try:
            self._policy = spec.best_policy(settings)
        except TabletopError as error:
            raise ValueError(f"--teacher policy: these {spec.name} settings are beyond the best policy's "
                             f"exact search: {error}") from None
        self.reference = float(self._policy.expected)
        self._actions = int(env.action_space.n)

    def start(self, info: dict[str, Any]) -> None:
        self._policy.reset()

    def label(self, obs: Any, info: dict[str, Any], history: list[int]) -> tuple[np.ndarray, int, float]:
        """(mask of the moves of the best expected value, the one the policy plays, that value)."""
        values = self._policy.move_values(obs, info)
        top = max(values.values())
        optimal = np.zeros(self._actions, dtype=bool)
        best = -1
        for action, value in values.items():  # exact values: a tie is a tie
            if value == top:
                optimal[action] = True
                best = action if best < 0 else best
        return optimal, best, float(top)

    def played(self, obs: Any, info: dict[str, Any], action: int) -> None:
        self._policy.follow(obs, info, action)


def make_teacher(name: str, spec: GameSpec, settings: Any, env: Any) -> Teacher | PolicyTeacher:
    """The teacher ``--teacher name`` asks for, or a clear error where the settings have none."""
    if name == "policy":
        return PolicyTeacher(spec, settings, env)
    return Teacher(spec, settings, env)


class Data:
    """The labelled positions of every iteration so far: observations, legal and optimal masks."""

    def __init__(self) -> None:
        self.obs: list[Any] = []
        self.legal: list[np.ndarray] = []
        self.optimal: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self.obs)

    def add(self, obs: Any, legal: np.ndarray, optimal: np.ndarray) -> None:
        self.obs.append(obs)
        self.legal.append(np.asarray(legal, dtype=bool))
        self.optimal.append(optimal)

    def arrays(self) -> dict[str, np.ndarray]:
        if isinstance(self.obs[0], dict):
            out = {f"obs.{key}": np.stack([o[key] for o in self.obs]) for key in self.obs[0]}
        else:
            out = {"obs": np.stack(self.obs)}
        return {**out, "legal": np.stack(self.legal), "optimal": np.stack(self.optimal)}

    def save(self, path: Path) -> None:
        with atomic_output(path) as tmp, open(tmp, "wb") as handle:
            np.savez_compressed(handle, **self.arrays())

    @classmethod
    def load(cls, path: Path) -> Data:
        data = cls()
        with np.load(path) as stored:
            keys = [k for k in stored.files if k.startswith("obs.")]
            legal, optimal = stored["legal"], stored["optimal"]
            if keys:
                columns = {k[4:]: stored[k] for k in keys}
                data.obs = [{k: v[i] for k, v in columns.items()} for i in range(len(legal))]
            else:
                data.obs = list(stored["obs"])
        data.legal, data.optimal = list(legal), list(optimal)
        return data


def deal_seeds(seed: int, iteration: int, deals: int) -> list[int]:
    """The reset seeds of one iteration's deals: fresh deals every iteration, the same for a seed."""
    state = np.random.SeedSequence([DEAL_SEED_SALT, seed, iteration]).generate_state(deals)
    return [int(s) for s in state]


def play(env: Any, teacher: Teacher | PolicyTeacher, seed: int,
         act: Callable[[Any, dict[str, Any]], int] | None, data: Data) -> tuple[float, float]:
    """One game from ``env.reset(seed=seed)``, played by ``act`` (the teacher's best move where None),
    every position labelled into ``data``; returns (score, what the teacher reaches: the optimum of
    the deal, or the best policy's expected value)."""
    obs, info = env.reset(seed=seed)
    teacher.start(info)
    history: list[int] = []
    optimum = teacher.reference
    score = 0.0
    done = False
    # The labels of each observation already met in this game. Where a game comes back to a position
    # (War's games cycle until the trick limit, a draw: thousands of decisions over a few positions),
    # the learner sees the same observation, so the same input: it is labelled once, which saves the
    # teacher's search at every turn of the cycle and keeps one cycle from outweighing whole games.
    # (What differs at a repeat, the tricks still to play, is not in the observation.)
    labelled: dict[bytes, tuple[np.ndarray, int, float]] = {}
    while not done:
        key = _observation_key(obs)
        if key in labelled:
            optimal, best, to_go = labelled[key]
        else:
            optimal, best, to_go = labelled[key] = teacher.label(obs, info, history)
            data.add(obs, np.asarray(info["action_mask"], dtype=bool), optimal)
        if optimum is None:
            optimum = to_go
        action = best if act is None else int(act(obs, info))
        teacher.played(obs, info, action)
        obs, reward, terminated, truncated, info = env.step(action)
        history.append(action)
        score += float(reward)
        done = terminated or truncated
    return score, float(optimum)


def _observation_key(obs: Any) -> bytes:
    """The observation as bytes: equal for equal observations (a dict's entries in key order)."""
    if isinstance(obs, dict):
        return b"".join(np.asarray(obs[k]).tobytes() for k in sorted(obs))
    return np.asarray(obs).tobytes()


def curve_ratio(scores: list[float], optima: list[float], worst: float | None = None) -> float:
    """The learner's total score over the teacher's, on the game's own scale: where scores go below 0
    (War's whole game: -1 a loss, 0 a draw, 1 a win) the game's ``worst`` score is its zero, as in
    ``evaluate``'s score/optimum, so that a loss counts for nothing and a drawn optimum is not a
    division by zero."""
    if worst is None:
        return float(np.sum(scores) / np.sum(optima))
    reachable = float(np.sum(np.asarray(optima) - worst))
    if reachable <= 0:  # every deal lost whatever the play: any play is the optimum
        return 1.0
    return float(np.sum(np.asarray(scores) - worst) / reachable)


def fit(policy: Any, data: Data, epochs: int, batch_size: int, rng: np.random.Generator,
        symmetry: Callable[..., tuple[Any, list[Any]]] | None = None) -> float:
    """``epochs`` passes of minibatch updates over ``data`` with the policy's own optimizer; returns
    the last pass's mean loss (minus the log-probability of the optimal set).

    With the game's ``symmetry`` every minibatch is relabelled afresh (Cribbage: each position's
    piles in a random order), so each pass sees other, equally well labelled, versions of the same
    positions: the labels cost the teacher's work, the versions cost nothing, and a policy that
    learns one card's place in one pile has to learn it in all four."""
    import torch

    arrays = data.arrays()
    n = len(data)
    legal = torch.as_tensor(arrays["legal"])
    optimal = torch.as_tensor(arrays["optimal"])
    obs_keys = [k for k in arrays if k.startswith("obs")]
    policy.set_training_mode(True)
    mean = 0.0
    for _ in range(epochs):
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch_size):
            index = order[start : start + batch_size]
            batch_legal, batch_optimal = legal[index], optimal[index]
            if obs_keys == ["obs"]:
                batch_obs = arrays["obs"][index]
                if symmetry is not None:
                    batch_obs, (shuffled_legal, shuffled_optimal) = symmetry(
                        batch_obs, [batch_legal.numpy(), batch_optimal.numpy()], rng)
                    batch_legal = torch.as_tensor(shuffled_legal)
                    batch_optimal = torch.as_tensor(shuffled_optimal)
                obs, _ = policy.obs_to_tensor(batch_obs)
            else:
                obs, _ = policy.obs_to_tensor({k[4:]: arrays[k][index] for k in obs_keys})
            dist = policy.get_distribution(obs, action_masks=batch_legal.numpy())
            log_probs = dist.distribution.logits  # normalised, illegal moves at a vanishing probability
            on_optimal = log_probs.masked_fill(~batch_optimal, float("-inf"))
            loss = -torch.logsumexp(on_optimal, dim=1).mean()
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
            total += float(loss.detach()) * len(index)
        mean = total / n
    policy.set_training_mode(False)
    return mean


def learner(model: Any) -> Callable[[Any, dict[str, Any]], int]:
    """The model's most likely legal move (as ``evaluate`` plays a model)."""

    def act(obs: Any, info: dict[str, Any]) -> int:
        action, _ = model.predict(obs, action_masks=np.asarray(info["action_mask"], dtype=bool),
                                  deterministic=True)
        return int(action)

    return act


def train_imitation(
    spec: GameSpec,
    options: ImitationOptions,
    seed: int,
    out: Path,
    args: argparse.Namespace,
    progress: bool = True,
    resume: bool = False,
) -> Path:
    """Imitation-train a MaskablePPO policy of ``spec``'s game (see the module's docstring); writes
    ``model.zip`` and ``config.json`` to ``out`` as ``train`` does, a checkpoint (``checkpoint.zip``
    with the labelled data and the curve) after every iteration, and continues from it with
    ``resume=True`` up to ``options.iterations`` in all. Returns the model's path."""
    from tabletop_gym.training import train as ppo

    out = Path(out)
    with hold_output(out, folder=True):
        if not resume:
            ppo._check_fresh_start(out, spec, args)
        return _train(spec, options, seed, out, args, progress, resume)


def _train(spec: GameSpec, options: ImitationOptions, seed: int, out: Path, args: argparse.Namespace,
           progress: bool, resume: bool) -> Path:
    from tabletop_gym.training import train as ppo

    ppo._require_training_extra()
    import gymnasium as gym
    import torch
    from stable_baselines3.common.env_util import make_vec_env
    from tqdm import tqdm

    import tabletop_gym  # noqa: F401  (registers the environments)

    seed = check_int("seed", seed, 0)
    settings = spec.read(args)
    env_id, env_kwargs = spec.environment(settings)
    env = gym.make(env_id, **env_kwargs)
    # Refuses a game or settings without such a teacher, before any work.
    teacher = make_teacher(options.teacher, spec, settings, env)
    symmetry = spec.symmetry if options.symmetry else None
    worst = spec.worst_score(settings) if spec.worst_score is not None else None
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    vec_env = make_vec_env(lambda: gym.make(env_id, **env_kwargs), n_envs=1, seed=seed)
    ppo_settings = {**ppo.DEFAULT_PPO, **spec.ppo}
    net_arch = ppo_settings.pop("net_arch")
    policy_name = ppo.choose_policy(spec, vec_env.observation_space)
    if resume:
        start_from = ppo._resume_point(out, spec.name, env_id, env_kwargs)
        state = _load_state(out, options)
        model = _load_model(start_from, vec_env)
        data = Data.load(out / DATA) if (out / DATA).is_file() else Data()
    else:
        ppo_settings["learning_rate"] = options.learning_rate
        model = ppo._fresh_model(policy_name, vec_env, seed, None, net_arch, ppo_settings)
        state = {"iterations_done": 0, "curve": [], "positions": 0, "seconds": 0.0}
        data = Data()
    for group in model.policy.optimizer.param_groups:
        group["lr"] = options.learning_rate
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))
    config = {
        "game": spec.name,
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "algorithm": "MaskablePPO",
        "policy": policy_name,
        "net_arch": net_arch,
        "seed": seed,
        "teacher": asdict(options),
        "resumed_from": str(start_from) if resume else None,
        "resumed_at_iteration": state["iterations_done"] if resume else None,
        "versions": ppo._library_versions(),
    }
    rng = np.random.default_rng([seed, state["iterations_done"]])
    start = time.perf_counter()
    first = state["iterations_done"]
    bar = tqdm(range(first, options.iterations + 1), initial=first, total=options.iterations + 1,
               desc="imitation", unit="iteration", disable=not progress)
    try:
        for iteration in bar:
            scores, optima = [], []
            act = None if iteration == 0 else learner(model)
            for deal_seed in deal_seeds(seed, iteration, options.deals_of(iteration)):
                score, optimum = play(env, teacher, deal_seed, act, data)
                scores.append(score)
                optima.append(optimum)
            loss = fit(model.policy, data, options.epochs, options.batch_size, rng, symmetry)
            deals_so_far = sum(options.deals_of(i) for i in range(iteration + 1))
            point = {"iteration": iteration, "positions": len(data), "deals": deals_so_far,
                     "loss": round(loss, 5)}
            if iteration > 0:  # the learner's own games, on deals it had not been trained on
                point["score_ratio"] = curve_ratio(scores, optima, worst)
                point["mean_score"] = float(np.mean(scores))
                point["mean_optimum"] = float(np.mean(optima))
            state["curve"].append(point)
            state["iterations_done"] = iteration + 1
            state["positions"] = len(data)
            state["seconds"] = round(state.get("seconds", 0.0) + time.perf_counter() - start, 2)
            start = time.perf_counter()
            model.num_timesteps = len(data)
            with sigint_deferred():  # the checkpoint, its data and its state are one: all or none
                ppo._save(model, out / CHECKPOINT)
                data.save(out / DATA)
                atomic_write_text(out / STATE, json.dumps(state, indent=1))
            bar.set_postfix(ratio=point.get("score_ratio", float("nan")), positions=len(data))
    except KeyboardInterrupt:
        bar.close()
        env.close()
        vec_env.close()
        if not (out / "model.zip").exists():
            config.update(iterations_done=state["iterations_done"], interrupted=True)
            atomic_write_text(out / "config.json", json.dumps(config, indent=1))
        raise KeyboardInterrupt(
            f"after {state['iterations_done']} imitation iterations; checkpoint saved to {out / CHECKPOINT} "
            "(train --teacher oracle --resume continues from it)"
        ) from None
    bar.close()
    env.close()
    vec_env.close()
    config.update(iterations_done=state["iterations_done"], positions=len(data), interrupted=False,
                  train_seconds=state["seconds"], steps_done=len(data), curve=state["curve"])
    path = out / "model.zip"
    with sigint_deferred():
        ppo._save(model, path)
        atomic_write_text(out / "config.json", json.dumps(config, indent=1))
    atomic_write_text(out / CURVE_JSON, json.dumps(state["curve"], indent=1))
    plot_curve(state["curve"], out / CURVE_PNG, spec.name, options.teacher)
    return path


def _load_state(out: Path, options: ImitationOptions) -> dict[str, Any]:
    path = out / STATE
    if not path.is_file():
        raise ValueError(f"--resume: no {STATE} in {out}: that run was not trained with --teacher")
    try:
        state = json.loads(read_regular(path))
        done = int(state["iterations_done"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"--resume: {path} is unreadable ({error}): train afresh without --resume") from None
    if done > options.iterations:
        raise ValueError(f"--resume: the run in {out} has done {done - 1} DAgger iterations already; ask "
                         "for more with --iterations")
    return state


def _load_model(path: Path, vec_env: Any) -> Any:
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(str(path), env=vec_env, device="cpu")
    except Exception as error:  # a truncated zip fails in zipfile, torch or SB3's own asserts
        vec_env.close()
        raise ValueError(f"--resume: {path} is not a whole model ({type(error).__name__}): train afresh "
                         "without --resume") from None


def plot_curve(curve: list[dict[str, Any]], path: Path, game: str, teacher: str = "oracle") -> None:
    """The learner's score / optimum (the expected value with ``--teacher policy``) on fresh deals
    after each DAgger iteration, as a PNG."""
    points = [p for p in curve if "score_ratio" in p]
    if not points:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([p["positions"] for p in points], [p["score_ratio"] for p in points], marker="o")
    ax.set_xlabel("labelled positions (teacher's games, then the learner's)")
    ax.set_ylabel(f"score / {REFERENCE[teacher]}, fresh deals")
    # A sample of deals can beat the expected value (a mean), so the scale stretches to show it.
    ax.set_ylim(0, max(1.0, 1.05 * max(p["score_ratio"] for p in points)))
    ax.set_title(f"{game}: DAgger with the {TEACHER_NAMES[teacher]} as teacher")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)

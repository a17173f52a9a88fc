"""Train a MaskablePPO agent (sb3-contrib) on a game's environment.

Two trainers make the same model (a MaskablePPO ``model.zip``): ``vector``, the masked PPO loop of
:mod:`tabletop_gym.training.vector_ppo` on the game's native vector environment, where its id has one
(the default there: many times faster); and ``sb3``, ``MaskablePPO.learn`` on SB3's vector of single
environments (every game; the default where there is no native vector environment, and for self-play).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabletop_gym.core import (
    atomic_output,
    atomic_write_text,
    check_int,
    hold_output,
    read_regular,
    sigint_deferred,
)
from tabletop_gym.training import selfplay
from tabletop_gym.training.arguments import MAX_STEPS, one_line
from tabletop_gym.training.games import DEFAULT_VECTOR_PPO, GameSpec

DEFAULT_PPO: dict[str, Any] = {
    "n_steps": 512,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "net_arch": [256, 256],
}


def choose_policy(spec: GameSpec, observation_space: Any) -> str:
    """The game's own choice, else ``MultiInputPolicy`` for a ``Dict`` observation (Nmbr9) and
    ``MlpPolicy`` for a flat one."""
    from gymnasium import spaces

    if spec.policy is not None:
        return spec.policy
    return "MultiInputPolicy" if isinstance(observation_space, spaces.Dict) else "MlpPolicy"


CHECKPOINT = "checkpoint.zip"
SNAPSHOTS = "snapshots"
TRAINERS = ("vector", "sb3")
SB3_N_ENVS = 8  # the sb3 trainer's environments side by side, unless told


def choose_trainer(trainer: str | None, env_id: str, self_play: bool, vector_default: bool = False) -> str:
    """The trainer a run uses: the one asked for, else ``vector`` where the game makes it its default
    (``GameSpec.vector_trainer``: its learning was checked against MaskablePPO's) and ``env_id`` has a
    native vector environment (and the run is not self-play, whose other seats are played by single
    environments), else ``sb3``. A trainer that cannot run this game is refused."""
    from tabletop_gym.training.vector_ppo import has_vector_env

    if trainer is not None and trainer not in TRAINERS:
        raise ValueError(f"unknown trainer {trainer!r}: choose {' or '.join(TRAINERS)}")
    native = has_vector_env(env_id)
    if trainer == "vector":
        if not native:
            raise ValueError(f"--trainer vector needs a native vector environment, which {env_id} has not: "
                             "use --trainer sb3")
        if self_play:
            raise ValueError("--self-play trains with --trainer sb3 (its other seats are single "
                             "environments)")
    return trainer or ("vector" if vector_default and native and not self_play else "sb3")


def train(
    spec: GameSpec,
    steps: int,
    seed: int,
    out: Path,
    args: argparse.Namespace,
    n_envs: int | None = None,
    progress: bool = True,
    overrides: dict[str, Any] | None = None,
    checkpoint_every: int = 50_000,
    resume: bool = False,
    self_play: selfplay.SelfPlayOptions | None = None,
    trainer: str | None = None,
    snapshots: Sequence[int] = (),
    command: str | None = None,
) -> Path:
    """Train for ``steps`` environment steps; writes ``model.zip`` and ``config.json`` to ``out``.

    Environments run side by side in one process (the games step much faster than the network
    updates, so worker processes would only add copying). Every ``checkpoint_every`` steps (0: never)
    and on Ctrl-C the model so far goes to ``out/checkpoint.zip``; ``resume=True`` continues from
    there (or from ``model.zip``) up to ``steps`` in all, with the same game settings. TensorBoard
    logs go to ``out/tb`` when tensorboard is installed. Returns the model's path.

    One run writes ``out`` at a time (another is refused with ``OutputInUseError``), and a fresh run
    does not replace a model of another game or other settings, nor one whose config.json is unreadable.

    ``self_play`` (a :class:`tabletop_gym.training.selfplay.SelfPlayOptions`) seats a pool of the
    learner's earlier policies in the other seats (see that module); its snapshots and learning curve
    go to ``out`` too, and ``resume`` restores the pool.

    ``snapshots``: steps at which the model so far is also kept, as ``out/snapshots/step-N.zip`` (N the
    steps it has trained on, the first update at or past each), for a learning curve.

    ``trainer`` (``vector`` or ``sb3``; None chooses, see :func:`choose_trainer`) collects the rollouts;
    both save the same model. ``n_envs`` (None: the trainer's default, 8 for ``sb3`` and the game's
    ``vector_ppo`` setting for ``vector``) games are played side by side. ``command``: the command line
    that started the run, recorded in config.json (``tabletop-gym pretrained export`` reads it).
    """
    out = Path(out)
    # Two runs in one folder would leave one run's config.json beside the other's model.
    with hold_output(out, folder=True):
        if not resume:
            _check_fresh_start(out, spec, args)
        return _train(spec, steps, seed, out, args, n_envs, progress, overrides, checkpoint_every, resume,
                      self_play, trainer, snapshots, command)


def _train(
    spec: GameSpec,
    steps: int,
    seed: int,
    out: Path,
    args: argparse.Namespace,
    n_envs: int | None,
    progress: bool,
    overrides: dict[str, Any] | None,
    checkpoint_every: int,
    resume: bool,
    self_play: selfplay.SelfPlayOptions | None = None,
    trainer: str | None = None,
    snapshots: Sequence[int] = (),
    command: str | None = None,
) -> Path:
    _require_training_extra()
    import gymnasium as gym
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    import tabletop_gym  # noqa: F401  (registers the environments)
    from tabletop_gym.training import vector_ppo

    steps = check_int("steps", steps, 1, MAX_STEPS)
    seed = check_int("seed", seed, 0)
    checkpoint_every = check_int("checkpoint_every", checkpoint_every, 0)
    game_settings = spec.read(args)
    env_id, env_kwargs = spec.environment(game_settings)
    trainer = choose_trainer(trainer, env_id, self_play is not None, spec.vector_trainer)
    if trainer == "vector":
        settings = {**DEFAULT_VECTOR_PPO, **spec.vector_ppo, **(overrides or {})}
        default_envs = settings.pop("n_envs")
    else:
        settings = {**DEFAULT_PPO, **spec.ppo, **(overrides or {})}
        default_envs = SB3_N_ENVS
    n_envs = check_int("n_envs", default_envs if n_envs is None else n_envs, 1, vector_ppo.MAX_ENVS)
    net_arch = settings.pop("net_arch")
    players = selfplay.check_options(spec, game_settings, self_play) if self_play is not None else 1
    out.mkdir(parents=True, exist_ok=True)
    start_from = _resume_point(out, spec.name, env_id, env_kwargs) if resume else None
    if resume:
        _check_same_kind(out, self_play is not None)
    torch.set_num_threads(1)  # small networks: one thread is fastest and leaves a core to the envs
    native_env = None
    if self_play is not None:
        pool = selfplay.Pool(self_play, spec, game_settings)
        vec_env = selfplay.make_vec_env(spec, game_settings, pool, n_envs, seed, players)
    elif trainer == "vector":
        native_env = vector_ppo.make_vector_env(env_id, env_kwargs, n_envs)
        vec_env = vector_ppo.spaces_env(native_env)
    else:
        vec_env = make_vec_env(lambda: gym.make(env_id, **env_kwargs), n_envs=n_envs, seed=seed)
    policy = choose_policy(spec, vec_env.observation_space)
    # The vector trainer logs nothing to TensorBoard (its progress is the bar and config.json).
    tensorboard = str(out / "tb") if trainer == "sb3" and importlib.util.find_spec("tensorboard") else None
    if start_from is not None:
        model = _resumed_model(start_from, vec_env, tensorboard, steps)
    else:
        model = _fresh_model(policy, vec_env, seed, tensorboard, net_arch, settings)
    if tensorboard is None:
        from stable_baselines3.common.logger import Logger

        # SB3's default logger, without a log folder, makes an empty SB3-<time> folder in the system's
        # temporary folder at every run; nothing is logged here, so give it none.
        model.set_logger(Logger(folder=None, output_formats=[]))
    done_before = int(model.num_timesteps)
    callbacks = [_Checkpoint(out / CHECKPOINT, checkpoint_every)] if checkpoint_every else []
    if snapshots:
        callbacks.append(_Snapshots(out / SNAPSHOTS, snapshots))
    curve = None
    if self_play is not None:
        try:
            curve = _start_self_play(pool, model, spec, game_settings, out, start_from is not None, players)
        except BaseException:  # a pool that cannot be restored, or Ctrl-C during the first point
            vec_env.close()
            raise
        callbacks.append(selfplay.callback(pool, curve, out, spec, game_settings))
    config = {
        "game": spec.name,
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "algorithm": "MaskablePPO",
        "trainer": trainer,
        "policy": policy,
        "net_arch": net_arch,
        "steps": steps,
        "seed": seed,
        "n_envs": n_envs,
        "ppo": settings,
        "resumed_from": str(start_from) if start_from else None,
        "resumed_at_step": done_before if start_from else None,
        "tensorboard_log": tensorboard,
        "versions": _library_versions(),
        "self_play": _self_play_config(spec, self_play, players),
        # The command line that started the run, where one did (tabletop-gym pretrained export reads it).
        "command": command,
    }
    if not (out / "model.zip").exists():
        # Written before the first step: a run killed outright (no Ctrl-C, which writes it too) leaves
        # its settings beside its checkpoint, so --resume can continue it. A finished model's own
        # config.json is kept until this run finishes, as on Ctrl-C.
        unfinished = {**config, "steps_done": done_before, "interrupted": True, "train_seconds": 0.0}
        atomic_write_text(out / "config.json", json.dumps(unfinished, indent=1))
    start = time.perf_counter()
    if native_env is None:
        def run() -> None:
            model.learn(
                total_timesteps=steps - done_before,
                callback=callbacks,
                reset_num_timesteps=start_from is None,
                progress_bar=progress and importlib.util.find_spec("rich") is not None,
            )
    else:
        def run() -> None:
            _learn_vector(model, native_env, steps, seed, callbacks, progress)
    _learn(model, run, out, config, vec_env, start)
    seconds = time.perf_counter() - start
    path = out / "model.zip"
    config.update(steps_done=int(model.num_timesteps), interrupted=False, train_seconds=round(seconds, 2))
    with sigint_deferred():  # a Ctrl-C now waits for both: never a new model.zip beside an old config.json
        _save(model, path)
        atomic_write_text(out / "config.json", json.dumps(config, indent=1))
    vec_env.close()
    if curve is not None and not any(p["step"] == model.num_timesteps for p in curve.points):
        curve.evaluate(spec, game_settings, pool.new_policy(), int(model.num_timesteps))
        curve.save(out)
    return path


def _self_play_config(
    spec: GameSpec, options: selfplay.SelfPlayOptions | None, players: int
) -> dict[str, Any] | None:
    """What config.json records of a self-play run (None for a run against fixed opponents)."""
    if options is None:
        return None
    from dataclasses import asdict

    against = options.eval_against or spec.self_play.strongest_bot
    return {**asdict(options), "eval_against": against, "seats": players}


def _start_self_play(
    pool: selfplay.Pool, model: Any, spec: GameSpec, settings: Any, out: Path, resumed: bool, players: int
) -> selfplay.Curve | None:
    """The pool (restored on resume; else the learner's first weights as its first snapshot) saved in
    ``out``, and the learning curve with its first point; returns the curve (None without one)."""
    options = pool.options
    pool.bind(model)
    if resumed:
        pool.load(out)
    if not pool.snapshots:
        pool.add(int(model.num_timesteps))
    pool.save(out)  # a fresh run also clears the snapshots an earlier run left in the folder
    if not options.eval_games:
        return None
    against = options.eval_against or spec.self_play.strongest_bot
    if resumed:
        curve = selfplay.Curve.load(out, against, players, options.eval_games)
    else:
        curve = selfplay.Curve(against, players, options.eval_games)
    first = pool.snapshots[-1]
    if not any(p["step"] == first.step for p in curve.points):
        curve.evaluate(spec, settings, first.policy, first.step)
    curve.save(out)
    return curve


def _check_same_kind(out: Path, self_play: bool) -> None:
    """A run resumes as it started: by self-play or against fixed opponents, never switching."""
    path = out / "config.json"
    if not path.is_file():
        return
    try:
        earlier = json.loads(read_regular(path))
    except (OSError, ValueError):
        return  # _resume_point has refused an unreadable one already
    if isinstance(earlier, dict) and (earlier.get("self_play") is not None) != self_play:
        how = "by self-play" if earlier.get("self_play") is not None else "against fixed opponents"
        raise ValueError(f"--resume: the run in {out} trained {how}: resume it "
                         f"{'with' if not self_play else 'without'} --self-play, or choose another --out")


def _require_training_extra() -> None:
    """Training needs libraries outside the core install: say which extra brings them."""
    try:
        import gymnasium  # noqa: F401
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
        from sb3_contrib import MaskablePPO  # noqa: F401
        from stable_baselines3.common.env_util import make_vec_env  # noqa: F401
        from stable_baselines3.common.logger import Logger  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError("training needs the training extra: pip install 'tabletop-gym[train]'") from exc


def _resumed_model(start_from: Path, vec_env: Any, tensorboard: str | None, steps: int) -> Any:
    """The model saved at ``start_from``, refused (closing the environments) when it is not a whole
    saved model or already has the steps asked for."""
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(str(start_from), env=vec_env, device="cpu", tensorboard_log=tensorboard)
    except Exception as error:  # a truncated zip fails in zipfile, torch or SB3's own asserts
        vec_env.close()
        raise ValueError(
            f"--resume: {start_from} is not a whole model saved by 'tabletop-gym train' "
            f"({type(error).__name__}: {one_line(error, 200)}): remove it to resume from the other "
            "of checkpoint.zip and model.zip, or train afresh without --resume"
        ) from None
    if model.num_timesteps >= steps:
        vec_env.close()
        raise ValueError(
            f"--resume: {start_from} already has {model.num_timesteps} steps; ask for more with --steps"
        )
    return model


def _fresh_model(
    policy: str, vec_env: Any, seed: int, tensorboard: str | None, net_arch: Any, settings: dict[str, Any]
) -> Any:
    """A new MaskablePPO model on the CPU (the networks are small) with the run's PPO settings."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        policy,
        vec_env,
        seed=seed,
        device="cpu",
        verbose=0,
        tensorboard_log=tensorboard,
        policy_kwargs={"net_arch": net_arch},
        **settings,
    )


def _library_versions() -> dict[str, str]:
    """The versions of the libraries a run depends on, for config.json (a model may not load elsewhere)."""
    import gymnasium as gym
    import sb3_contrib
    import stable_baselines3
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "gymnasium": gym.__version__,
    }


def _learn_vector(
    model: Any, native_env: Any, steps: int, seed: int, callbacks: list, progress: bool
) -> None:
    """The vector trainer up to ``steps`` moves in all, calling the (SB3) callbacks after each update, as
    ``MaskablePPO.learn`` calls them after each step: the checkpoint saves the weights as updated."""
    from tqdm import tqdm

    from tabletop_gym.training.vector_ppo import learn

    for callback in callbacks:
        callback.init_callback(model)
        callback.on_training_start(locals(), globals())
    with tqdm(total=steps, initial=int(model.num_timesteps), unit="step", disable=not progress,
              desc="train") as bar:
        def after_update(moves: int) -> None:
            bar.update(min(moves, steps - bar.n))  # the last rollout may pass the steps asked for
            for callback in callbacks:
                callback.on_step()

        learn(model, native_env, steps, seed, after_update)


def _learn(model: Any, run: Any, out: Path, config: dict[str, Any], vec_env: Any, start: float) -> None:
    """Train by ``run()``. On Ctrl-C the model so far goes to the checkpoint (and, without a finished
    model, config.json says the run was cut short); the KeyboardInterrupt goes on with the command
    line's one line."""
    try:
        run()
    except KeyboardInterrupt:
        _save(model, out / CHECKPOINT)
        if not (out / "model.zip").exists():
            # config.json describes model.zip where there is one (a finished run): an interrupted
            # run's settings never replace it. Without one, it says the run was cut short.
            config.update(steps_done=int(model.num_timesteps), interrupted=True)
            config["train_seconds"] = round(time.perf_counter() - start, 2)
            atomic_write_text(out / "config.json", json.dumps(config, indent=1))
        vec_env.close()
        # The command line's one line: "tabletop-gym: interrupted after ...".
        steps_done = model.num_timesteps
        raise KeyboardInterrupt(
            f"after {steps_done} training steps; checkpoint saved to {out / CHECKPOINT} "
            "(train --resume continues from it)"
        ) from None


def _save(model: Any, path: Path) -> None:
    with atomic_output(path) as tmp:
        model.save(str(tmp))


def _resume_point(out: Path, game: str, env_id: str, env_kwargs: dict[str, Any]) -> Path:
    """The newest of ``checkpoint.zip`` and ``model.zip`` in ``out``, after checking that the run
    there trained the same game with the same settings."""
    candidates = [p for p in (out / CHECKPOINT, out / "model.zip") if p.is_file()]
    if not candidates:
        raise ValueError(f"--resume: no checkpoint.zip or model.zip in {out} to continue from")
    earlier = _earlier_run(out, "--resume")
    # JSON turns tuples into lists: compare through JSON.
    if earlier is not None and list(earlier) != json.loads(json.dumps((game, env_id, env_kwargs))):
        raise ValueError(
            f"--resume: the run in {out} trained {earlier[0]} {earlier[1]} with {earlier[2]}, "
            f"not {game} {env_id} with {env_kwargs}"
        )
    return max(candidates, key=lambda p: p.stat().st_mtime)


def _earlier_run(out: Path, what: str) -> tuple[Any, Any, Any] | None:
    """(game, env_id, env_kwargs) of the run whose config.json is in ``out``, None without one. A
    config.json that cannot be read as one is refused: skipping it would skip the settings check."""
    path = out / "config.json"
    if not path.exists():
        return None
    try:
        config = json.loads(read_regular(path))
    except (OSError, ValueError) as error:
        config = error
    if not isinstance(config, dict) or not all(k in config for k in ("game", "env_id", "env_kwargs")):
        why = one_line(config) if isinstance(config, Exception) else "no game, env_id and env_kwargs in it"
        raise ValueError(
            f"{what}: {path} is not a config.json written by 'tabletop-gym train' ({why}), so the "
            f"settings of the model in {out} are unknown: restore it, remove the model files there, or "
            "choose another --out"
        )
    return config["game"], config["env_id"], config["env_kwargs"]


def _check_fresh_start(out: Path, spec: GameSpec, args: argparse.Namespace) -> None:
    """A fresh run may replace a model of the same game and settings (training it again), never
    another game's or settings' model, nor one whose settings its config.json no longer tells."""
    if not any((out / name).exists() for name in (CHECKPOINT, "model.zip")):
        return
    env_id, env_kwargs = spec.environment(spec.read(args))
    earlier = _earlier_run(out, f"--out {out}")
    if earlier is None:
        raise ValueError(
            f"--out {out} holds a model without its config.json, so its settings are unknown: choose "
            "another --out, or remove model.zip and checkpoint.zip there to train afresh"
        )
    if list(earlier) != json.loads(json.dumps((spec.name, env_id, env_kwargs))):
        raise ValueError(
            f"--out {out} holds a model of {earlier[0]} {earlier[1]} with {earlier[2]}, not {spec.name} "
            f"{env_id} with {env_kwargs}: choose another --out (or --resume a run of the same settings)"
        )


def _checkpoint_callback() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    class Checkpoint(BaseCallback):
        """Saves the model to one file, replaced atomically, every ``every`` environment steps."""

        def __init__(self, path: Path, every: int) -> None:
            super().__init__()
            self.path = path
            self.every = every
            self._last = 0

        def _on_training_start(self) -> None:
            self._last = self.num_timesteps

        def _on_step(self) -> bool:
            if self.num_timesteps - self._last >= self.every:
                _save(self.model, self.path)
                self._last = self.num_timesteps
            return True

    return Checkpoint


def _Checkpoint(path: Path, every: int) -> Any:  # noqa: N802  (builds the callback lazily: SB3 is optional)
    return _checkpoint_callback()(path, every)


def _snapshots_callback() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    class Snapshots(BaseCallback):
        """Keeps the model at the first step at or past each of ``steps`` (those already passed when
        training starts, on a resume, were kept by the run before)."""

        def __init__(self, folder: Path, steps: Sequence[int]) -> None:
            super().__init__()
            self.folder = folder
            self.steps = sorted(set(steps))

        def _on_step(self) -> bool:
            if self.steps and self.num_timesteps >= self.steps[0]:
                self.folder.mkdir(parents=True, exist_ok=True)
                _save(self.model, self.folder / f"step-{self.num_timesteps}.zip")
                self.steps = [s for s in self.steps if s > self.num_timesteps]
            return True

        def _on_training_start(self) -> None:
            self.steps = [s for s in self.steps if s > self.num_timesteps]

    return Snapshots


def _Snapshots(folder: Path, steps: Sequence[int]) -> Any:  # noqa: N802  (SB3 is optional)
    return _snapshots_callback()(folder, steps)


def snapshot_steps(folder: Path) -> list[tuple[int, Path]]:
    """The snapshots a run kept (``train(snapshots=...)``), as (steps trained, path), in order."""
    found = []
    for path in (Path(folder) / SNAPSHOTS).glob("step-*.zip"):
        number = path.stem.removeprefix("step-")
        if number.isdigit():
            found.append((int(number), path))
    return sorted(found)

"""Self-play for ``tabletop-gym train GAME --self-play``: the learner (MaskablePPO, as ``train``) plays
one seat of the game's single-agent environment; every other seat is played by an opponent drawn, per
episode, from a pool of the learner's own earlier policies (and, optionally, rule bots).

Neither stable-baselines3 nor sb3-contrib has self-play, and PettingZoo's SB3 tutorial trains one
shared policy that plays every seat at once (no pool of earlier policies); RLlib's self-play example
and ML-Agents' self-play bring their own learners. What the single-agent environments already offer
(any Agent in any seat, see design principle 10) makes a compact loop enough: an SB3 callback takes
snapshots of the policy's weights into the pool, and each opponent seat is an Agent that draws a
snapshot (or a bot) from the pool at every ``reset``. Snapshots live in memory, and on disk in the run
folder (``pool/``) so that ``--resume`` restores the pool.

At every snapshot the learner's policy plays ``eval_games`` games against the game's strongest bot in
every other seat (the same seeded deals each time, seats rotated where the environment allows):
``self_play_curve.json`` and ``self_play_curve.png`` in the run folder hold that learning curve.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_gym.core import atomic_output, atomic_write_text, check_float, check_int, read_regular
from tabletop_gym.training.arguments import one_line
from tabletop_gym.training.figures import save_figure

SAMPLINGS = ("latest", "uniform", "mix")
POOL_FOLDER = "pool"
POOL_FILE = "pool.json"
CURVE_JSON = "self_play_curve.json"
CURVE_PNG = "self_play_curve.png"
EVAL_SEED = 1_000_000  # the evaluation's deals are seeds from here: never the training's own
MAX_POOL = 1_000


@dataclass(frozen=True)
class SelfPlayOptions:
    """How the pool is kept and drawn from.

    - ``pool_size``: the most snapshots of the learner kept (the oldest leaves first), 1-1000.
    - ``refresh_every``: environment steps between snapshots into the pool.
    - ``sampling``: each opponent seat, at every episode, plays ``latest`` (the newest snapshot),
      ``uniform`` (any entry of the pool, bots included, alike) or ``mix`` (the newest with
      probability ``latest_share``, else uniform).
    - ``pool_bots``: bot names (the game's agents) that stay in the pool beside the snapshots, drawn
      by ``uniform`` and ``mix``.
    - ``random_seat``: the learner's seat drawn at every episode (else always the first seat).
    - ``eval_games``: games against the strongest bot per snapshot for the learning curve (0: none).
    - ``eval_against``: that bot's name (None: the game's strongest).
    """

    pool_size: int = 8
    refresh_every: int = 20_000
    sampling: str = "mix"
    latest_share: float = 0.5
    pool_bots: tuple[str, ...] = ()
    random_seat: bool = False
    eval_games: int = 100
    eval_against: str | None = None

    def __post_init__(self) -> None:
        check_int("pool_size", self.pool_size, 1, MAX_POOL)
        check_int("refresh_every", self.refresh_every, 1)
        check_int("eval_games", self.eval_games, 0)
        check_float("latest_share", self.latest_share, 0, 1)
        if self.sampling not in SAMPLINGS:
            raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}, got {self.sampling!r}")
        if self.pool_bots and self.sampling == "latest":
            raise ValueError("bots in the pool (--pool-bots) are drawn by --sampling uniform or mix, "
                             "never by latest")
        object.__setattr__(self, "pool_bots", tuple(self.pool_bots))


def check_options(spec: Any, settings: Any, options: SelfPlayOptions) -> int:
    """The game's player count, after checking that the game and the options go together (one-line
    ValueErrors naming what does not)."""
    if spec.self_play is None:
        raise ValueError(f"{spec.name} is a game of one player: --self-play is for games of several")
    players = spec.self_play.players(settings)
    named = (*options.pool_bots, options.eval_against)
    unknown = [name for name in named if name and name not in spec.agents]
    if unknown:
        raise ValueError(f"unknown {spec.name} bot {unknown[0]!r}: choose among {', '.join(spec.agents)}")
    if options.random_seat and not spec.self_play.any_seat:
        raise ValueError(f"{spec.name}'s environment seats the learner first only: "
                         "--random-seat does not apply")
    return players


# --- the pool ----------------------------------------------------------------------------------
class SnapshotAgent:
    """A frozen copy of the learner's policy as an Agent: acts on its seat's observation within the
    mask, sampling its action (``deterministic=False``) so that opponents vary as a pool should.

    It computes the policy network's action logits in numpy and draws from the masked softmax: the
    distribution MaskablePPO's ``predict`` samples from, at a fraction of the cost of torch's per-call
    overhead for one small observation (``predict``: 0.7 ms a decision on Dominion, which made the
    opponents' moves cost three times the learner's training)."""

    def __init__(self, policy: Any, step: int, deterministic: bool = False) -> None:
        self.policy = policy
        self.step = step
        self.deterministic = deterministic
        self.name = f"snapshot-{step}"
        self._rng = np.random.default_rng(step)
        self._logits = _numpy_actor(policy)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        mask = np.asarray(info["action_mask"], dtype=bool)
        if self._logits is None:  # a network this module does not read: the policy's own path
            action, _ = self.policy.predict(observation, action_masks=mask, deterministic=self.deterministic)
            return int(action)
        logits = np.where(mask, self._logits(observation), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        cumulative = np.cumsum(np.exp(logits - logits.max()))
        return int(np.searchsorted(cumulative, self._rng.random() * cumulative[-1], side="right"))


def _numpy_actor(policy: Any) -> Any:
    """The policy's action logits as a numpy function of one observation, for the networks ``train``
    builds (a flattened Box, MultiDiscrete or Discrete observation, linear layers with Tanh or ReLU);
    None for any other (the agent then asks the policy's own ``predict``)."""
    from gymnasium import spaces
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    if not isinstance(getattr(policy, "pi_features_extractor", None), FlattenExtractor):
        return None
    steps: list[Any] = []
    for module in [*policy.mlp_extractor.policy_net, policy.action_net]:
        if isinstance(module, nn.Linear):
            weight, bias = module.weight.detach().double().numpy(), module.bias.detach().double().numpy()
            steps.append((weight.T.copy(), bias))
        elif isinstance(module, nn.Tanh):
            steps.append(np.tanh)
        elif isinstance(module, nn.ReLU):
            steps.append(lambda x: np.maximum(x, 0.0))
        else:
            return None
    space = policy.observation_space
    one_hot = isinstance(space, spaces.Discrete) or (
        isinstance(space, spaces.MultiDiscrete) and space.nvec.ndim == 1
    )
    if isinstance(space, spaces.Box) and len(space.shape) == 1:
        first = None
    elif one_hot:
        # One-hot per component (SB3's preprocessing): the first layer sums the rows of the ones.
        sizes = np.atleast_1d(space.n if isinstance(space, spaces.Discrete) else space.nvec).astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        weight, bias = steps.pop(0)
        first = (weight, bias, starts)
    else:
        return None

    def logits(observation: Any) -> np.ndarray:
        if first is None:
            x = np.asarray(observation, dtype=np.float64).ravel()
        else:
            weight, bias, starts = first
            x = weight[starts + np.asarray(observation, dtype=np.int64).ravel()].sum(axis=0) + bias
        for step in steps:
            x = x @ step[0] + step[1] if isinstance(step, tuple) else step(x)
        return x

    return logits


class Pool:
    """The learner's earlier policies (at most ``options.pool_size``, newest last) and the bots kept
    beside them. ``bind(model)`` gives it the learner, whose policy class the snapshots share."""

    def __init__(self, options: SelfPlayOptions, spec: Any, settings: Any) -> None:
        self.options = options
        self.spec = spec
        self.settings = settings
        self.snapshots: list[SnapshotAgent] = []
        self.draws: dict[str, int] = {}  # how often each entry was drawn for a seat: for reports and tests
        self._model: Any = None

    def bind(self, model: Any) -> None:
        self._model = model

    def new_policy(self, state_dict: dict[str, Any] | None = None) -> Any:
        """A policy of the learner's class and shape, in evaluation mode, with ``state_dict`` (else
        the learner's weights now)."""
        learner = self._model.policy
        policy = type(learner)(**learner._get_constructor_parameters())
        policy.load_state_dict(learner.state_dict() if state_dict is None else state_dict)
        policy.set_training_mode(False)
        return policy

    def add(self, step: int, policy: Any | None = None) -> SnapshotAgent:
        """The learner's weights now (or ``policy``) into the pool as the snapshot of ``step``; the
        oldest leaves beyond ``pool_size``."""
        snapshot = SnapshotAgent(self.new_policy() if policy is None else policy, step)
        self.snapshots.append(snapshot)
        del self.snapshots[: -self.options.pool_size]
        return snapshot

    def entries(self) -> list[str]:
        return [s.name for s in self.snapshots] + list(self.options.pool_bots)

    def draw(self, rng: np.random.Generator) -> str:
        """The name of the entry an opponent seat plays next episode, by the options' sampling."""
        if not self.snapshots:
            raise RuntimeError("the self-play pool is empty: a snapshot goes in before the first episode")
        sampling = self.options.sampling
        if sampling == "latest" or (sampling == "mix" and rng.random() < self.options.latest_share):
            name = self.snapshots[-1].name
        else:
            entries = self.entries()
            name = entries[int(rng.integers(len(entries)))]
        self.draws[name] = self.draws.get(name, 0) + 1
        return name

    def snapshot(self, name: str) -> SnapshotAgent | None:
        return next((s for s in self.snapshots if s.name == name), None)

    # -- on disk: pool/<snapshot>.pt and pool/pool.json, written after each snapshot -----------------
    def save(self, out: Path) -> None:
        import torch

        folder = out / POOL_FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        for s in self.snapshots:
            path = folder / f"{s.name}.pt"
            if not path.exists():
                with atomic_output(path) as tmp:
                    torch.save(s.policy.state_dict(), tmp)
        listing = {"snapshots": [{"step": s.step, "file": f"{s.name}.pt"} for s in self.snapshots],
                   "options": asdict(self.options)}
        # The listing last: a snapshot it names is always whole on disk.
        atomic_write_text(folder / POOL_FILE, json.dumps(listing, indent=1))
        kept = {f"{s.name}.pt" for s in self.snapshots}
        for path in folder.glob("snapshot-*.pt"):
            if path.name not in kept:
                path.unlink(missing_ok=True)

    def load(self, out: Path) -> None:
        """The snapshots a run in ``out`` saved (the newest ``pool_size`` of them)."""
        import torch

        folder = out / POOL_FOLDER
        path = folder / POOL_FILE
        if not path.is_file():
            raise ValueError(f"--resume: {path} is missing, so the self-play pool cannot be restored: "
                             "train afresh without --resume, or choose the run's own --out")
        try:
            listing = json.loads(read_regular(path))
            entries = [(int(e["step"]), folder / Path(e["file"]).name) for e in listing["snapshots"]]
            for step, file in entries[-self.options.pool_size:]:
                state = torch.load(file, map_location="cpu", weights_only=True)
                self.add(step, self.new_policy(state))
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as error:
            raise ValueError(f"--resume: the self-play pool in {folder} cannot be read "
                             f"({type(error).__name__}: {one_line(error, 200)})") from None


class PoolOpponent:
    """One opponent seat: at every ``reset`` it draws its player for the episode from the pool."""

    name = "self-play pool"

    def __init__(self, pool: Pool, rng: np.random.Generator) -> None:
        self.pool = pool
        self.rng = rng
        self.bots: dict[str, Any] = {}  # this seat's own bot objects: a bot may keep state in a game
        self.player: Any = None

    def reset(self, seed: int | None = None) -> None:
        name = self.pool.draw(self.rng)
        player = self.pool.snapshot(name)
        if player is None:
            if name not in self.bots:
                self.bots[name] = self.pool.spec.agents[name](self.pool.settings)
            player = self.bots[name]
        player.reset(seed)
        self.player = player

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return self.player.act(observation, info)


# --- the environments the learner trains in ----------------------------------------------------
def _seated_env_class() -> type:
    import gymnasium as gym

    class SeatedGame(gym.Env):
        """The game with the learner in a seat drawn at every episode: one environment per seat (each
        with its own opponents from the pool), the episode played in the drawn one."""

        metadata = {"render_modes": ["ansi"]}

        def __init__(self, envs: list[Any]) -> None:
            self.envs = envs
            self.observation_space = envs[0].observation_space
            self.action_space = envs[0].action_space
            self.current = envs[0]
            self._seeded: set[int] = set()
            self._rng = np.random.default_rng()

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
            if seed is not None:
                self._rng = np.random.default_rng(seed)
                self._seeded.clear()
            k = int(self._rng.integers(len(self.envs)))
            self.current = self.envs[k]
            # Each seat's environment is seeded once, from this one's stream: deals reproducible.
            first = None if k in self._seeded else int(self._rng.integers(2**31))
            self._seeded.add(k)
            return self.current.reset(seed=first, options=options)

        def step(self, action: Any) -> Any:
            return self.current.step(action)

        def action_masks(self) -> np.ndarray:
            return self.current.unwrapped.action_masks()

        def render(self) -> Any:
            return self.current.render()

        def close(self) -> None:
            for env in self.envs:
                env.close()

    return SeatedGame


def make_vec_env(spec: Any, settings: Any, pool: Pool, n_envs: int, seed: int, players: int) -> Any:
    """``n_envs`` environments side by side, as ``train`` has them, each opponent seat a
    :class:`PoolOpponent` with its own seeded stream of draws."""
    import gymnasium as gym
    from stable_baselines3.common.env_util import make_vec_env as sb3_make_vec_env

    env_id, _ = spec.environment(settings)
    seats = list(range(players)) if pool.options.random_seat else [0]
    made = iter(range(n_envs))

    def one_seat(seat: int, index: int) -> Any:
        rng = np.random.default_rng([seed, index, seat])
        others = [PoolOpponent(pool, np.random.default_rng(rng.integers(2**63))) for _ in range(players - 1)]
        return gym.make(env_id, **spec.self_play.seat_kwargs(settings, seat, others))

    def make() -> Any:
        index = next(made)
        if len(seats) == 1:
            return one_seat(seats[0], index)
        return _seated_env_class()([one_seat(seat, index) for seat in seats])

    return sb3_make_vec_env(make, n_envs=n_envs, seed=seed)


# --- the learning curve --------------------------------------------------------------------------
def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95% interval of a win share (shared wins counted as fractions)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Curve:
    """The learner's win share against the strongest bot, one point per snapshot."""

    bot: str
    players: int
    games: int
    points: list[dict[str, Any]] = field(default_factory=list)

    def evaluate(self, spec: Any, settings: Any, policy: Any, step: int) -> dict[str, Any]:
        """``games`` games of ``policy`` (deterministic, as ``evaluate`` plays a model) against the
        bot in every other seat: seeds EVAL_SEED.., the learner's seat rotated where it can move."""
        import gymnasium as gym

        started = time.perf_counter()
        learner = SnapshotAgent(policy, step, deterministic=True)
        env_id, _ = spec.environment(settings)
        seats = list(range(self.players)) if spec.self_play.any_seat else [0]
        envs = {}
        wins = 0.0
        for game in range(self.games):
            seat = seats[game % len(seats)]
            if seat not in envs:
                bots = [spec.agents[self.bot](settings) for _ in range(self.players - 1)]
                envs[seat] = gym.make(env_id, **spec.self_play.seat_kwargs(settings, seat, bots))
            env = envs[seat]
            observation, info = env.reset(seed=EVAL_SEED + game)
            done = False
            while not done:
                action = learner.act(observation, info)
                observation, _, terminated, truncated, info = env.step(action)
                done = terminated or truncated
            wins += spec.self_play.win_share(env.unwrapped, info)
        for env in envs.values():
            env.close()
        low, high = wilson(wins, self.games)
        point = {"step": step, "games": self.games, "wins": wins, "win_share": wins / self.games,
                 "low": low, "high": high, "seconds": round(time.perf_counter() - started, 2)}
        self.points = [p for p in self.points if p["step"] != step] + [point]
        return point

    def save(self, out: Path) -> None:
        data = {"against": self.bot, "seats": self.players, "games_per_point": self.games,
                "fair_share": 1 / self.players, "seeds": f"{EVAL_SEED}..{EVAL_SEED + self.games - 1}",
                "points": self.points}
        atomic_write_text(out / CURVE_JSON, json.dumps(data, indent=1))
        self._plot(out / CURVE_PNG)

    def _plot(self, path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        steps = [p["step"] for p in self.points]
        fig, ax = plt.subplots(figsize=(6, 3.6))
        ax.fill_between(steps, [p["low"] for p in self.points], [p["high"] for p in self.points],
                        alpha=0.25, label="95% interval (Wilson)")
        ax.plot(steps, [p["win_share"] for p in self.points], marker="o", label="win share")
        ax.axhline(1 / self.players, color="grey", linestyle=":", label=f"even ({1 / self.players:.0%})")
        if self.players > 2:
            ax.axhline(0.5, color="grey", linestyle="--", label="50%")
        ax.set_ylim(0, 1)
        ax.set_xlabel("training steps")
        ax.set_ylabel(f"win share vs {self.bot}")
        ax.set_title(f"self-play, {self.players} players, {self.games} games per point")
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        save_figure(fig, path)

    @classmethod
    def load(cls, out: Path, bot: str, players: int, games: int) -> Curve:
        """The curve a resumed run had so far (its points kept where they were measured alike)."""
        curve = cls(bot, players, games)
        path = out / CURVE_JSON
        if path.is_file():
            try:
                data = json.loads(read_regular(path))
                if (data["against"], data["seats"], data["games_per_point"]) == (bot, players, games):
                    curve.points = [dict(p) for p in data["points"]]
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a curve that cannot be read is measured again from here: it is a report, not state
        return curve


# --- the callback ---------------------------------------------------------------------------------
def callback(pool: Pool, curve: Curve | None, out: Path, spec: Any, settings: Any) -> Any:
    """The SB3 callback: every ``refresh_every`` steps a snapshot into the pool, the pool saved, and
    the snapshot's point on the learning curve."""
    from stable_baselines3.common.callbacks import BaseCallback

    from tabletop_gym.core import sigint_deferred

    class SelfPlayCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self._last = pool.snapshots[-1].step if pool.snapshots else 0

        def _on_step(self) -> bool:
            if self.num_timesteps - self._last >= pool.options.refresh_every:
                snapshot = pool.add(self.num_timesteps)
                self._last = self.num_timesteps
                # An interrupt waits for the files: never a listing beside a missing snapshot.
                with sigint_deferred():
                    pool.save(out)
                if curve is not None:
                    curve.evaluate(spec, settings, snapshot.policy, snapshot.step)
                    with sigint_deferred():
                        curve.save(out)
            return True

    return SelfPlayCallback()

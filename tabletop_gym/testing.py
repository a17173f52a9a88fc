"""The contract test kit: the checks every environment of tabletop-gym passes, for whoever adds a game.

A game author runs the kit on the new environment's id, at small settings, in a test of their own::

    from tabletop_gym.testing import check_environment

    def test_my_game_keeps_the_contract() -> None:
        check_environment("tabletop/MyGame-v0", {"cards": 6}, seeds=range(3))

``check_environment`` runs every check below in turn; each is public too, to run alone or to debug
one failure. A failure is a ``ContractError`` (an ``AssertionError``) whose message names the
environment id and its settings, the check, and where it happened: the seed of the episode and the
step (step 0 is the position ``reset`` returns, step k the one after the k-th action). The kit
needs no pytest; any test runner reports what it raises. ``tests/test_contract.py`` runs it over
every registered ``tabletop/*`` id.

The checks (the environment principles of the project's design):

- ``check_gymnasium_api``: Gymnasium's own checker (``gymnasium.utils.env_checker.check_env``), its
  warnings counted as failures, on the unwrapped environment and on what ``gym.make`` returns, the
  ``"ansi"`` rendering included.
- ``check_seed_determinism``: the same seed gives the same deal and, for a fixed policy, the same
  episode (also on an environment that played another episode first, and when the deal is passed
  back with ``reset(seed=..., options={"deal": ...})``); different seeds give different deals on
  most seeds; unseeded resets after a seeded one follow that seed.
- ``check_pickle_and_deepcopy``: copies taken during an episode, by ``pickle`` and by
  ``copy.deepcopy``, play on exactly as the original did, and their ``action_space.sample()`` draws
  legal actions of the copy's own position.
- ``check_masks``: at every step, ``info["action_mask"]`` (``np.int8``) equals ``action_masks()``
  (bool); a position where the episode goes on has a legal action and a finished one has none;
  every masked-in action steps without error; every masked-out action (and one out of range)
  raises ``IllegalActionError`` and leaves the game as it was; stepping a finished episode raises
  ``GameOverError``.
- ``check_info_schema``: every info has the same keys, types, shapes and dtypes; ``info["deal"]``
  is ``""`` until the last step unless the deal is public, and ``reveal_deal=True`` shows it from
  ``reset`` on and changes nothing else.
- ``check_plans_replay``: oracle plans stored in the shipped suites, played as actions through the
  environment on their deals, reach the score the oracle states.
- ``check_hidden_information``: games that differ only in what the player may not see give the
  same info while the player sees the same thing (from the position where they part on).
- ``check_engine`` (on the engine of ``envs/<game>/rules.py``, not an environment id): the engine
  contract, ``legal_actions()``, ``apply``, ``done``, ``copy()``, ``scores()`` and the module's
  ``replay(rules, deal, plan)``, agree with one another over a game played at random.

Beside the environment's checks, ``check_engine(rules, deal)`` checks the engine under it (its
``envs/<game>/rules.py``): the contract's names and what they mean, on one game played at random.

A game with a native vector environment (``tabletop_gym.core.NativeVectorEnv``, behind its id's
``vector_entry_point``) checks it with ``vector_steps_against_sync`` (step by step against
``SyncVectorEnv`` of the single environment, ``assert_same_vector_step`` at each step),
``check_vector_action_masks``, ``check_vector_pickle`` and ``check_vector_bench``; its tests
(``tests/test_<game>_vector.py``) call them with the game's own settings.

What the kit asks of an environment beyond Gymnasium's API (``tabletop_gym.core.TabletopEnv`` gives
most of it):

- ``info["action_mask"]``, ``info["score"]`` and ``info["deal"]`` in every info; ``action_masks()``;
  ``reset(options={"deal": ...})``; a ``reveal_deal`` argument; ``render_mode="ansi"``;
  ``IllegalActionError`` and ``GameOverError`` from ``tabletop_gym.core``; an ``action_space``
  whose ``sample()`` draws legal actions (``tabletop_gym.core.LegalActionSpace``).
- ``deal_is_public``: True where the observation shows the whole deal, so that the deal tells
  nothing about the game to come that the observation does not (the kit checks that two deals
  showing the same observation at reset play on alike). Otherwise the environment says what its
  player may not see, with a method ``hidden_twins(rng)`` returning a list of ``(twin,
  observation, info)``: copies of the environment at its current position changed only in what
  the player may not see (cards not yet drawn, opponents' hands, the seed of the shuffles to come),
  drawn with the ``numpy.random.Generator`` ``rng``, each with the observation and info it gives at
  this position (the environment's own ``_observation()`` and ``_info()``, say); an empty list
  where nothing can change here. It must leave the environment itself as it was. The War, Nmbr9,
  Modern Art and Dominion environments have one each, a dozen lines long: a model for a new game.
  ``public_info`` (a tuple of info keys, default none) names what the player sees happen without
  the observation showing it (War's count of tricks played): a twin whose value differs there is
  told apart, like one whose observation differs.
- for ``check_plans_replay``: a suite shipped in ``tabletop_gym/suites/data`` for the environment
  id, each entry's plan being the agent's actions (or, with ``every_seat=True``, every player's
  actions in the order they are played, where the environment takes ``opponents``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import json
import pickle
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.core import GameOverError, IllegalActionError, quote_input

__all__ = [
    "ContractError",
    "check_environment",
    "check_engine",
    "check_gymnasium_api",
    "check_seed_determinism",
    "check_pickle_and_deepcopy",
    "check_masks",
    "check_info_schema",
    "check_plans_replay",
    "check_hidden_information",
    "check_engine",
    "shipped_suites",
    "random_legal_batch",
    "assert_same_vector_step",
    "vector_steps_against_sync",
    "check_vector_action_masks",
    "check_vector_pickle",
    "check_vector_bench",
]

Settings = Mapping[str, Any] | None
DEFAULT_SEEDS = (0, 1, 2)
# Episodes longer than this many steps are cut there: checks that need an episode's end say so.
DEFAULT_MAX_STEPS = 2_000


# -- reporting ---------------------------------------------------------------------------------------


class ContractError(AssertionError):
    """A check of the kit failed: the message names the environment, the check and where."""


class _Check:
    """One check of one environment: where a failure happened and what it says."""

    def __init__(self, name: str, env_id: str, env_kwargs: Settings) -> None:
        self.name = name
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs or {})

    def fail(self, message: str, seed: int | None = None, step: int | None = None) -> NoReturn:
        settings = f" {self.env_kwargs}" if self.env_kwargs else ""
        where = [f"seed {seed}"] if seed is not None else []
        where += [f"step {step}"] if step is not None else []
        at = f" at {', '.join(where)}" if where else ""
        raise ContractError(f"{self.env_id}{settings}: {self.name} failed{at}: {message}")

    @contextlib.contextmanager
    def running(self, what: str, seed: int | None = None, step: int | None = None) -> Iterator[None]:
        """An exception raised in the block (an assertion of Gymnasium's checker included) becomes
        this check's failure."""
        try:
            yield
        except ContractError:
            raise
        except Exception as error:
            self.fail(f"{what} raised {type(error).__name__}: {error}", seed, step)

    def make(self, **extra: Any) -> gym.Env:
        with self.running("gym.make"):
            return gym.make(self.env_id, **{**self.env_kwargs, **extra})


def _same(a: Any, b: Any) -> bool:
    """Equal values: arrays by shape, dtype and content, containers item by item."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_same(a[k], b[k]) for k in a)
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (
            isinstance(a, (list, tuple))
            and isinstance(b, (list, tuple))
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    return type(a) is type(b) and bool(a == b)


def _brief(value: Any, limit: int = 100) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _values(x: Any, y: Any) -> str:
    """Two values that differ, briefly: arrays of one shape by where they differ."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.shape == y.shape and x.dtype == y.dtype:
        where = np.argwhere(x != y)
        at = tuple(int(i) for i in where[0])
        return (
            f"{len(where)} of {x.size} entries differ, the first at {at}: {_brief(x[at])} vs {_brief(y[at])}"
        )
    return f"{_brief(x)} vs {_brief(y)}"


def _difference(a: Any, b: Any) -> str:
    """What differs between two steps' results (observation, reward, ..., info), briefly."""
    names = ("observation", "reward", "terminated", "truncated", "info")
    for name, x, y in zip(names, a, b, strict=True):
        if name == "info" and isinstance(x, dict) and isinstance(y, dict):
            keys = sorted(set(x) ^ set(y)) or [k for k in x if not _same(x[k], y[k])]
            if keys:
                key = keys[0]
                return f"info[{key!r}]: {_values(x.get(key, '(missing)'), y.get(key, '(missing)'))}"
        elif isinstance(x, dict) and isinstance(y, dict) and not _same(x, y):
            key = next(k for k in x if k not in y or not _same(x[k], y[k]))
            return f"{name}[{key!r}]: {_values(x[key], y.get(key, '(missing)'))}"
        elif not _same(x, y):
            return f"{name}: {_values(x, y)}"
    return "nothing"


def _legal_choice(mask: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(np.asarray(mask))))


# (observation, reward, terminated, truncated, info); reset's has reward None.
Step = tuple[Any, Any, bool, bool, dict[str, Any]]


def _episode(
    check: _Check,
    env: gym.Env,
    seed: int,
    policy_seed: int,
    max_steps: int,
    options: dict[str, Any] | None = None,
    reset_seed: bool = True,
) -> tuple[list[Step], list[int]]:
    """One episode of a random player seeded with ``policy_seed``: every step's result, reset's
    first, and the actions played. Cut after ``max_steps`` actions."""
    with check.running("reset", seed, 0):
        obs, info = env.reset(seed=seed if reset_seed else None, options=options)
    steps: list[Step] = [(obs, None, False, False, info)]
    actions: list[int] = []
    rng = np.random.default_rng(policy_seed)
    while not (steps[-1][2] or steps[-1][3]) and len(actions) < max_steps:
        mask = steps[-1][4].get("action_mask")
        if mask is None or not np.any(mask):
            check.fail(
                "no legal action in info['action_mask'] at a position where the episode goes on",
                seed,
                len(actions),
            )
        action = _legal_choice(mask, rng)
        with check.running(f"step({action})", seed, len(actions) + 1):
            steps.append(env.step(action))
        actions.append(action)
    return steps, actions


def _ended(steps: list[Step]) -> bool:
    return bool(steps[-1][2] or steps[-1][3])


def _compare(check: _Check, what: str, first: list[Step], second: list[Step], seed: int) -> None:
    if len(first) != len(second):
        check.fail(f"{what}: {len(first) - 1} steps against {len(second) - 1}", seed)
    for step, (a, b) in enumerate(zip(first, second, strict=True)):
        if not all(_same(x, y) for x, y in zip(a, b, strict=True)):
            check.fail(f"{what}: {_difference(a, b)}", seed, step)


# -- the checks --------------------------------------------------------------------------------------


def check_gymnasium_api(env_id: str, env_kwargs: Settings = None) -> None:
    """Gymnasium's ``check_env`` on the unwrapped environment and on ``gym.make``'s, made with
    ``render_mode="ansi"`` (its rendering is checked too) unless ``env_kwargs`` names one. A warning
    of the checker fails as an error does, but for the one saying that ``gym.make``'s environment is
    wrapped."""
    check = _Check("check_gymnasium_api", env_id, env_kwargs)
    extra = {} if "render_mode" in check.env_kwargs else {"render_mode": "ansi"}
    for wrapped in (False, True):
        env = check.make(**extra)
        target = env if wrapped else env.unwrapped
        form = "gym.make's environment" if wrapped else "the unwrapped environment"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with check.running(f"check_env on {form}"):
                check_env(target)
        said = [str(w.message) for w in caught if "WARN:" in str(w.message)]
        said = [m for m in said if not (wrapped and "different from the unwrapped" in m)]
        if said:
            check.fail(f"check_env on {form} warned: {said[0]}")
        env.close()


def check_seed_determinism(
    env_id: str,
    env_kwargs: Settings = None,
    *,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    max_steps: int = DEFAULT_MAX_STEPS,
    replays_by_deal: bool = True,
) -> None:
    """The same seed, the same deal and the same episode for a fixed policy (a random legal
    player seeded alike): on two new environments, on one that played another seed first, and
    with ``reset(seed=..., options={"deal": ...})`` given the seed's own deal; another seed's deal
    given is the deal played; ``reset()`` after ``reset(seed=...)`` deals alike every time; and
    different seeds, different deals on most seeds (more than half of them distinct).

    ``replays_by_deal=False`` is for settings whose documented episodes draw more than the deal
    from the seed's stream after it (War's ``random`` pickup convention): the seed's own deal given
    back then need not replay the seed's episode, but the same seed and deal still must play the
    same episode."""
    check = _Check("check_seed_determinism", env_id, env_kwargs)
    seeds = list(seeds)
    deals = []
    for seed in seeds:
        first, _ = _episode(check, check.make(), seed, seed, max_steps)
        second, _ = _episode(check, check.make(), seed, seed, max_steps)
        _compare(
            check, "two new environments reset with the same seed played differently", first, second, seed
        )
        used = check.make()
        _episode(check, used, seed + 1, seed, max_steps)
        again, _ = _episode(check, used, seed, seed, max_steps)
        _compare(
            check,
            "an environment that had played another seed first played this seed differently",
            first,
            again,
            seed,
        )
        if not _ended(first):
            continue
        deal = first[-1][4].get("deal")
        if not isinstance(deal, str) or not deal:
            check.fail(f"the last step's info['deal'] is {quote_input(deal)}, not a deal string", seed)
        deals.append(deal)
        replayed, _ = _episode(check, check.make(), seed, seed, max_steps, options={"deal": deal})
        if replays_by_deal:
            _compare(
                check,
                f"reset(seed={seed}, options={{'deal': ...}}) with the seed's own deal played "
                "differently from reset(seed)",
                first,
                replayed,
                seed,
            )
        else:
            again, _ = _episode(check, check.make(), seed, seed, max_steps, options={"deal": deal})
            _compare(check, "the same seed and deal played differently", replayed, again, seed)
        if len(deals) >= 2 and deals[-2] != deal:
            # Another seed's deal passed in: the episode plays that deal, not the seed's own.
            other, _ = _episode(check, check.make(), seed, seed, max_steps, options={"deal": deals[-2]})
            if _ended(other) and other[-1][4].get("deal") != deals[-2]:
                check.fail(
                    f"reset(seed={seed}, options={{'deal': {quote_input(deals[-2])}}}) played the deal "
                    f"{quote_input(other[-1][4].get('deal'))}",
                    seed,
                )
        # Gymnasium's convention: reset() without a seed draws from the generator the last seed set.
        follow = []
        for _ in range(2):
            env = check.make(reveal_deal=True)
            with check.running("reset", seed):
                env.reset(seed=seed)
            with check.running("reset()", seed):
                follow.append(env.reset()[1].get("deal"))
        if follow[0] != follow[1]:
            check.fail(
                f"reset() after reset(seed={seed}) dealt {quote_input(follow[0])} once and "
                f"{quote_input(follow[1])} another time",
                seed,
            )
    if not deals:
        check.fail(f"no episode ended within {max_steps} steps: raise max_steps or use smaller settings")
    if len(deals) >= 2 and len(set(deals)) <= len(deals) // 2:
        check.fail(
            f"{len(deals)} seeds ({', '.join(map(str, seeds))}) gave only {len(set(deals))} different "
            f"deal(s): {sorted(set(deals))[:3]}"
        )


def check_pickle_and_deepcopy(
    env_id: str,
    env_kwargs: Settings = None,
    *,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> None:
    """Copies of the unwrapped environment taken at steps 0, 1, 2, 4, 8... of an episode, by
    ``pickle`` and by ``copy.deepcopy``, play the rest of it as the original did (the same masks
    and the same results step by step, then the same next unseeded ``reset``), and their action
    space samples only legal actions of the copy's own position (after the original has moved on)."""
    check = _Check("check_pickle_and_deepcopy", env_id, env_kwargs)
    for seed in seeds:
        env = check.make().unwrapped
        copies: list[tuple[int, str, Any]] = []
        with check.running("reset", seed, 0):
            obs, info = env.reset(seed=seed)
        steps: list[Step] = [(obs, None, False, False, info)]
        actions: list[int] = []
        rng = np.random.default_rng(seed)
        while True:
            step = len(actions)
            if step & (step - 1) == 0:  # 0 and the powers of two
                with check.running("pickle", seed, step):
                    copies.append((step, "pickle", pickle.loads(pickle.dumps(env))))
                with check.running("copy.deepcopy", seed, step):
                    copies.append((step, "deepcopy", copy.deepcopy(env)))
            if _ended(steps) or step >= max_steps:
                break
            action = _legal_choice(steps[-1][4]["action_mask"], rng)
            with check.running(f"step({action})", seed, step + 1):
                steps.append(env.step(action))
            actions.append(action)
        with check.running("reset()", seed):
            after = env.reset() if _ended(steps) else None
        for start, how, twin in copies:
            for step in range(start, len(actions)):
                what = f"the copy made by {how} at step {start}"
                with check.running("action_masks", seed, step):
                    masks = twin.action_masks()
                if not np.array_equal(
                    np.asarray(masks, dtype=bool), np.asarray(steps[step][4]["action_mask"], dtype=bool)
                ):
                    check.fail(f"{what} has other legal actions than the original", seed, step)
                for _ in range(3):
                    with check.running("action_space.sample", seed, step):
                        sample = int(twin.action_space.sample())
                    if not masks[sample]:
                        check.fail(
                            f"{what} sampled the illegal action {sample} from its action space (legal: "
                            f"{np.flatnonzero(masks).tolist()})",
                            seed,
                            step,
                        )
                with check.running(f"{what}: step({actions[step]})", seed, step + 1):
                    result = twin.step(actions[step])
                if not all(_same(x, y) for x, y in zip(result, steps[step + 1], strict=True)):
                    check.fail(
                        f"{what} played on differently: {_difference(result, steps[step + 1])}",
                        seed,
                        step + 1,
                    )
            if after is not None:
                with check.running("reset()", seed):
                    again = twin.reset()
                if not all(_same(x, y) for x, y in zip(again, after, strict=True)):
                    check.fail(
                        f"the copy made by {how} at step {start} reset() to another position than the "
                        "original (its random generator was not copied)",
                        seed,
                    )


def _masks(check: _Check, env: Any, info: dict[str, Any], seed: int, step: int) -> np.ndarray:
    """``action_masks()``, checked against ``info["action_mask"]``: types, shapes and values."""
    n = int(env.action_space.n)
    mask = info.get("action_mask")
    if not isinstance(mask, np.ndarray) or mask.dtype != np.int8 or mask.shape != (n,):
        check.fail(
            f"info['action_mask'] must be an np.int8 array of shape ({n},), got "
            f"{type(mask).__name__} {getattr(mask, 'dtype', '')} {getattr(mask, 'shape', '')}",
            seed,
            step,
        )
    if not np.isin(mask, (0, 1)).all():
        check.fail("info['action_mask'] holds values other than 0 and 1", seed, step)
    with check.running("action_masks", seed, step):
        masks = env.action_masks()
    if not isinstance(masks, np.ndarray) or masks.dtype != np.bool_ or masks.shape != (n,):
        check.fail(
            f"action_masks() must be a bool array of shape ({n},), got {type(masks).__name__} "
            f"{getattr(masks, 'dtype', '')} {getattr(masks, 'shape', '')}",
            seed,
            step,
        )
    if not np.array_equal(masks, mask.astype(bool)):
        differ = np.flatnonzero(masks != mask.astype(bool)).tolist()
        check.fail(f"action_masks() and info['action_mask'] disagree on actions {differ}", seed, step)
    return masks


def _try_every_action(
    check: _Check, env: Any, masks: np.ndarray, legal: Sequence[int], seed: int, step: int
) -> Any:
    """Each of ``legal`` on a copy of ``env``, then every other action on ``env`` itself, which
    must refuse them. Returns a copy of ``env`` as it was before."""
    with check.running("copy.deepcopy", seed, step):
        untouched = copy.deepcopy(env)
    for action in legal:
        probe = copy.deepcopy(untouched)
        with check.running(f"the masked-in action {int(action)}", seed, step):
            result = probe.step(int(action))
        if not probe.observation_space.contains(result[0]):
            check.fail(
                f"the masked-in action {int(action)} gave an observation outside the observation space",
                seed,
                step + 1,
            )
    for action in [*np.flatnonzero(~masks).tolist(), -1, int(env.action_space.n)]:
        _expect_error(check, env, action, IllegalActionError, f"the masked-out action {action}", seed, step)
    with check.running("action_masks", seed, step):
        after = env.action_masks()
    if not np.array_equal(after, masks):
        check.fail("refused actions changed the legal actions", seed, step)
    return untouched


def check_masks(
    env_id: str,
    env_kwargs: Settings = None,
    *,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    max_steps: int = DEFAULT_MAX_STEPS,
    actions_per_step: int | None = None,
) -> None:
    """At every step of random legal episodes: ``info["action_mask"]`` is an ``np.int8`` array of 0
    and 1 equal to ``action_masks()`` (a bool array), one entry per action; a legal action exists
    while the episode goes on, none once it has ended; every masked-in action (or
    ``actions_per_step`` of them, drawn at random) steps without error to an observation in the
    observation space; every masked-out action, -1 and ``n`` raise ``IllegalActionError`` and leave
    the game as it was (the step played next gives what it gives on an untouched copy); a step
    after the end raises ``GameOverError``."""
    check = _Check("check_masks", env_id, env_kwargs)
    for seed in seeds:
        env = check.make().unwrapped
        rng = np.random.default_rng(seed)
        with check.running("reset", seed, 0):
            _, info = env.reset(seed=seed)
        step, ended = 0, False
        while True:
            masks = _masks(check, env, info, seed, step)
            if ended:
                if masks.any():
                    legal = np.flatnonzero(masks).tolist()
                    check.fail(f"the episode has ended but actions {legal} are legal", seed, step)
                _expect_error(check, env, 0, GameOverError, "a step after the end", seed, step)
                break
            legal = np.flatnonzero(masks)
            if legal.size == 0:
                check.fail("no legal action at a position where the episode goes on", seed, step)
            if actions_per_step is not None and legal.size > actions_per_step:
                legal = rng.choice(legal, actions_per_step, replace=False)
            untouched = _try_every_action(check, env, masks, legal, seed, step)
            if step >= max_steps:
                break
            action = _legal_choice(masks, rng)
            step += 1
            # numpy's integer, as a policy gives it, where the untouched copy gets Python's.
            with check.running(f"step({action})", seed, step):
                result = env.step(np.int64(action))
            with check.running(f"step({action})", seed, step):
                expected = untouched.step(action)
            if not all(_same(x, y) for x, y in zip(result, expected, strict=True)):
                check.fail(
                    "after refusing illegal actions the game plays on differently from an untouched "
                    f"copy (or np.int64({action}) is not the action {action}): "
                    f"{_difference(result, expected)}",
                    seed,
                    step,
                )
            info, ended = result[4], bool(result[2] or result[3])


def _expect_error(
    check: _Check, env: Any, action: int, error: type[Exception], what: str, seed: int, step: int
) -> None:
    try:
        env.step(action)
    except error:
        return
    except Exception as other:
        check.fail(f"{what} raised {type(other).__name__} ({other}), not {error.__name__}", seed, step)
    check.fail(f"{what} was accepted; it must raise {error.__name__}", seed, step)


def _schema(info: dict[str, Any]) -> tuple[Any, ...]:
    """What a stacking buffer needs to agree between steps: each key's type, and an array's shape
    and dtype."""

    def of(value: Any) -> Any:
        return (
            ("array", value.shape, str(value.dtype))
            if isinstance(value, np.ndarray)
            else type(value).__name__
        )

    return tuple(sorted((str(key), of(value)) for key, value in info.items()))


PUBLIC_DEAL_RESETS = 32


def _check_public_deal(check: _Check, max_steps: int) -> None:
    """Where an environment says its deal is public, the deal may tell nothing the observation does
    not: of the deals of seeds 0-31, two that show the same observation at reset (each reset with
    seed 0 and the deal given, so that only the deal differs) must play on alike: the same
    observations, rewards and ends for the same actions."""
    revealed = check.make(reveal_deal=True)
    seen: dict[bytes, str] = {}
    for seed in range(PUBLIC_DEAL_RESETS):
        with check.running("reset", seed, 0):
            deal = revealed.reset(seed=seed)[1].get("deal")
        with check.running("reset", 0, 0):
            obs, _ = revealed.reset(seed=0, options={"deal": deal})
        other = seen.setdefault(pickle.dumps(obs), deal)
        if other == deal:
            continue
        mine, _ = _episode(check, check.make(), 0, 0, max_steps, options={"deal": deal})
        theirs, _ = _episode(check, check.make(), 0, 0, max_steps, options={"deal": other})
        for step, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if not _same(a[:4], b[:4]):
                differ = _difference((*a[:4], {}), (*b[:4], {}))
                check.fail(
                    f"deal_is_public, but the deals {quote_input(other)} and {quote_input(deal)} (of seed "
                    f"{seed}) show the same observation at reset and then differ in what the player sees "
                    f"({differ}): the deal decides more than the observation shows",
                    0,
                    step,
                )


def _check_deal_shown(check: _Check, steps: list[Step], public: bool, seed: int) -> str:
    """The deal string on an ended episode's last step, and before it ``""`` (or, where the deal is
    public, that deal). Returns the deal."""
    deal = steps[-1][4]["deal"]
    if not isinstance(deal, str) or not deal:
        check.fail(
            f"the last step's info['deal'] is {quote_input(deal)}, not the deal string", seed, len(steps) - 1
        )
    for step, (*_, info) in enumerate(steps[:-1]):
        shown = info["deal"]
        if public and shown != deal:
            check.fail(
                f"deal_is_public, but info['deal'] is {quote_input(shown)} during play and "
                f"{quote_input(deal)} at the end",
                seed,
                step,
            )
        if not public and shown != "":
            check.fail(
                f"info['deal'] is {quote_input(shown)} during play: the deal is hidden information "
                "(set deal_is_public where the observation shows it all)",
                seed,
                step,
            )
    return deal


def _check_revealed(check: _Check, steps: list[Step], revealed: list[Step], deal: str, seed: int) -> None:
    """``revealed``, the same episode made with ``reveal_deal=True``, shows ``deal`` in every info
    and differs in nothing else."""
    if len(revealed) != len(steps):
        check.fail("reveal_deal=True changed the length of the episode", seed)
    for step, (plain, shown) in enumerate(zip(steps, revealed, strict=True)):
        if shown[4].get("deal") != deal:
            check.fail(
                f"with reveal_deal=True info['deal'] is {quote_input(shown[4].get('deal'))}, "
                f"not the deal {quote_input(deal)}",
                seed,
                step,
            )
        plain, shown = ((*r[:4], {k: v for k, v in r[4].items() if k != "deal"}) for r in (plain, shown))
        if not all(_same(x, y) for x, y in zip(plain, shown, strict=True)):
            check.fail(
                f"reveal_deal=True changed more than info['deal']: {_difference(plain, shown)}", seed, step
            )


def check_info_schema(
    env_id: str,
    env_kwargs: Settings = None,
    *,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> None:
    """Every info of every step (reset's included) has the same keys, types, shapes and dtypes and
    holds ``action_mask``, ``score`` and ``deal``. ``deal`` is ``""`` until the last step unless
    the environment's ``deal_is_public``, then the deal string on the last step (and the same deal
    throughout where it is public; then deals of seeds 0-31 that show the same observation at
    reset must play on alike). Made with ``reveal_deal=True``, the environment shows that deal
    in every info, reset's included, and nothing else changes."""
    check = _Check("check_info_schema", env_id, env_kwargs)
    env = check.make()
    public = bool(getattr(env.unwrapped, "deal_is_public", False))
    if public:
        _check_public_deal(check, max_steps)
    first: tuple[Any, ...] | None = None
    ended = 0
    for seed in seeds:
        steps, _ = _episode(check, env, seed, seed, max_steps)
        for step, (*_, info) in enumerate(steps):
            missing = [key for key in ("action_mask", "score", "deal") if key not in info]
            if missing:
                check.fail(f"info lacks {missing}", seed, step)
            schema = _schema(info)
            if first is None:
                first = schema
            elif schema != first:
                differ = sorted(set(schema) ^ set(first))
                check.fail(
                    f"info's keys, types or shapes changed from reset's of the first seed: {differ}",
                    seed,
                    step,
                )
        if not _ended(steps):
            continue
        ended += 1
        deal = _check_deal_shown(check, steps, public, seed)
        revealed, _ = _episode(check, check.make(reveal_deal=True), seed, seed, max_steps)
        _check_revealed(check, steps, revealed, deal, seed)
    if not ended:
        check.fail(f"no episode ended within {max_steps} steps: raise max_steps or use smaller settings")


class _PlanFollower:
    """An opponent that plays the next move of a plan holding every player's moves."""

    def __init__(self, moves: _Moves) -> None:
        self.moves = moves

    def reset(self, seed: int | None = None) -> None:
        return None

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return self.moves.take(info.get("action_mask"))


class _Moves:
    """A plan's moves, taken one at a time by whoever is to play."""

    def __init__(self, check: _Check, plan: Sequence[Any], where: str, seed: int) -> None:
        self.check, self.plan, self.where, self.seed = check, list(plan), where, seed
        self.played = 0

    def take(self, mask: Any) -> int:
        if self.played >= len(self.plan):
            self.check.fail(
                f"{self.where}: the plan's {len(self.plan)} moves are played but the episode goes on",
                self.seed,
                self.played,
            )
        move = self.plan[self.played]
        if not isinstance(move, (int, np.integer)) or isinstance(move, bool):
            self.check.fail(
                f"{self.where}: move {self.played} of the plan is {quote_input(move)}, not an action",
                self.seed,
                self.played,
            )
        if mask is not None and not (0 <= int(move) < len(mask) and mask[int(move)]):
            self.check.fail(
                f"{self.where}: move {self.played} of the plan, {int(move)}, is not legal here "
                f"(legal: {np.flatnonzero(mask).tolist()})",
                self.seed,
                self.played,
            )
        self.played += 1
        return int(move)


def _as_tuples(value: Any) -> Any:
    """Settings as a suite file gives them back (lists), as the environments take them (tuples)."""
    if isinstance(value, list):
        return tuple(_as_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_tuples(v) for k, v in value.items()}
    return value


def shipped_suites(env_id: str) -> list[Any]:
    """The suites the package ships for ``env_id`` (loaded, their checksums checked, their plans
    not replayed), in id order."""
    from tabletop_gym.training import suites  # load checks a suite against its GameSpec

    found = []
    for suite_id in suites.available():
        meta = json.loads(suites.suite_path(suite_id).read_text())["meta"]
        if meta.get("env_id") == env_id:
            found.append(suites.load(suite_id, replay=False))  # the checksum and settings are checked
    return found


def check_plans_replay(
    env_id: str, suites: Sequence[Any] | None = None, *, deals: int = 2, every_seat: bool = False
) -> int:
    """The first ``deals`` entries of each suite (``tabletop_gym.suites.Suite``; by default every
    suite the package ships for ``env_id``): the environment made with the suite's settings and
    reset with the entry's seed and deal, each move of the plan played as an action (legal in the
    mask), ends with ``info["score"]`` equal to the score the oracle states. With ``every_seat``
    the plan holds every player's moves in the order they are played (Modern Art's oracle plans
    for all seats) and the opponents of the environment (its ``opponents`` argument) play theirs.
    Returns the number of plans replayed."""
    check = _Check("check_plans_replay", env_id, None)
    suites = shipped_suites(env_id) if suites is None else list(suites)
    if not suites:
        check.fail("no suite ships for this environment, so no oracle plan can be replayed")
    replayed = 0
    for suite in suites:
        if suite.env_id != env_id:
            check.fail(f"suite {suite.id} is for {suite.env_id}")
        kwargs = _as_tuples(dict(suite.env_kwargs))
        for index, entry in enumerate(suite.entries[:deals]):
            where = f"suite {suite.id}, entry {index}"
            moves = _Moves(check, entry.plan, where, entry.seed)
            settings = dict(kwargs)
            if every_seat:
                others = len(check.make(**kwargs).unwrapped.opponents)
                settings["opponents"] = [_PlanFollower(moves) for _ in range(others)]
            env = check.make(**settings)
            with check.running(f"{where}: reset with its deal", entry.seed, 0):
                _, info = env.reset(seed=entry.seed, options={"deal": entry.deal})
            ended = False
            while not ended:
                action = moves.take(info.get("action_mask"))
                with check.running(f"{where}: step({action})", entry.seed, moves.played):
                    _, _, terminated, truncated, info = env.step(action)
                ended = bool(terminated or truncated)
            if moves.played != len(moves.plan):
                check.fail(
                    f"{where}: the episode ended after {moves.played} of the plan's {len(moves.plan)} moves",
                    entry.seed,
                )
            if float(info.get("score")) != float(entry.score):
                check.fail(
                    f"{where}: the plan scores {info.get('score')} in the environment, the oracle states "
                    f"{entry.score}",
                    entry.seed,
                )
            replayed += 1
    return replayed


def _twin_positions(
    check: _Check,
    original: Any,
    here: tuple[Any, dict[str, Any]],
    twin: Any,
    there: tuple[Any, dict[str, Any]],
    rng: np.random.Generator,
    public: Sequence[str],
    seed: int,
    step: int,
) -> int:
    """Play ``original`` and ``twin`` (a hidden twin of it) with the same actions, from this
    position (where they show ``here`` and ``there``: observation and info) on, while what the
    player sees agrees; their infos must agree there. Returns the positions compared."""
    first: Step = (here[0], None, False, False, here[1])
    second: Step = (there[0], None, False, False, there[1])
    compared = 0
    while True:
        seen = [(r[0], r[1], r[2], r[3], *(r[4].get(k) for k in public)) for r in (first, second)]
        if not _same(*seen):
            if compared == 0:
                check.fail(
                    "hidden_twins made a twin the player tells apart at once "
                    f"({_difference(first, second)}): it must change only what the player may not see",
                    seed,
                    step,
                )
            return compared  # the games now differ in what the player sees
        ended = bool(first[2] or first[3])
        rest = [{k: v for k, v in r[4].items() if k != "deal"} for r in (first, second)]
        if not _same(*rest):
            key = next(k for k in rest[0] if not _same(rest[0][k], rest[1].get(k)))
            check.fail(
                f"info[{key!r}] differs between two games the player cannot tell apart "
                f"({_values(rest[0][key], rest[1].get(key))}): info tells the agent something its "
                "observation does not",
                seed,
                step,
            )
        if not ended and (first[4].get("deal") or second[4].get("deal")):
            check.fail("info['deal'] is shown during play", seed, step)
        compared += 1
        if ended:
            return compared
        action = _legal_choice(first[4]["action_mask"], rng)
        step += 1
        with check.running(f"step({action})", seed, step):
            first = original.step(action)
        with check.running(f"the hidden twin's step({action})", seed, step):
            second = twin.step(action)


def check_hidden_information(
    env_id: str,
    env_kwargs: Settings = None,
    *,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    every: int = 1,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> int:
    """At every ``every``-th position of random legal episodes, each of the environment's
    ``hidden_twins(rng)`` is played beside a copy of the environment with the same actions, from
    that position on: while the observation, reward, episode end and ``public_info`` agree, so
    must the info (``deal`` aside, which is ``""`` on both until the end); a twin the player tells
    apart at once is a fault of ``hidden_twins``. Returns the positions compared; where the
    environment's ``deal_is_public`` nothing is hidden and it returns 0 (``check_info_schema``
    checks that the deal is then shown from reset on). Fails if no twin was compared at all."""
    check = _Check("check_hidden_information", env_id, env_kwargs)
    env = check.make().unwrapped
    if getattr(env, "deal_is_public", False):
        return 0
    if not callable(getattr(env, "hidden_twins", None)):
        check.fail(
            "the deal is hidden (deal_is_public is not True) but the environment has no hidden_twins(rng) "
            "method saying what the player may not see, so nothing can be checked"
        )
    public = tuple(getattr(env, "public_info", ()))
    compared = twins = 0
    for seed in seeds:
        policy = np.random.default_rng(seed)
        draws = np.random.default_rng([seed, 1])
        with check.running("reset", seed, 0):
            obs, info = env.reset(seed=seed)
        step, ended = 0, False
        while not ended and step < max_steps:
            if step % every == 0:
                pristine = copy.deepcopy(env)
                with check.running("hidden_twins", seed, step):
                    made = list(env.hidden_twins(draws))
                for twin, twin_obs, twin_info in made:
                    twins += 1
                    compared += _twin_positions(
                        check,
                        copy.deepcopy(pristine),
                        (obs, info),
                        twin,
                        (twin_obs, twin_info),
                        np.random.default_rng([seed, step]),
                        public,
                        seed,
                        step,
                    )
            action = _legal_choice(info["action_mask"], policy)
            with check.running(f"step({action})", seed, step + 1):
                obs, _, terminated, truncated, info = env.step(action)
            step += 1
            ended = bool(terminated or truncated)
    if compared == 0:
        check.fail(
            "hidden_twins gave no twin at any position: nothing was checked (more seeds, longer "
            "episodes, or a hidden_twins that changes something)"
        )
    return compared


# -- the engine ---------------------------------------------------------------------------------------


def _plain(value: Any) -> bool:
    """Whether ``value`` compares by content (numbers, text, arrays, containers of them, frozen
    rules): the parts of an engine's state that a copy or a replay must reproduce."""
    if value is None or isinstance(value, (bool, int, float, str, np.ndarray, np.generic)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _engine_state(state: Any) -> dict[str, Any]:
    """What two states of an engine must agree on: the contract's answers, and every attribute that
    compares by content."""
    # The contract's answers first: an engine may fill a cache when asked (Nmbr9's legal placements),
    # and both states compared must have been asked.
    answers = {"legal_actions": list(state.legal_actions()), "scores": list(state.scores()),
               "done": bool(state.done)}
    names = list(getattr(state, "__dict__", {}))
    names += [n for cls in type(state).__mro__ for n in getattr(cls, "__slots__", ()) if n not in names]
    values = {n: getattr(state, n) for n in names if n != "__dict__" and hasattr(state, n)}
    attributes = {k: copy.deepcopy(v) for k, v in values.items() if _plain(v)}
    return {**answers, **attributes}


def _refuses_illegal(
    check: _Check, replay: Any, rules: Any, deal: Any, plan: list[int], legal: list[int], seed: int
) -> None:
    illegal = next(a for a in range(max(legal) + 2) if a not in legal)
    try:
        replay(rules, deal, [*plan, illegal])
    except (ValueError, RuntimeError):
        return
    check.fail(f"replay of a plan ending with the illegal action {illegal} did not raise", seed, len(plan))


def check_engine(
    rules: Any,
    deal: Any,
    *,
    replay: Any = None,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> int:
    """The engine contract of ``envs/<game>/rules.py`` on one game of ``rules`` dealt by ``deal``,
    played with random legal actions (drawn from ``seed``) to its end or ``max_steps`` actions:

    - ``replay(rules, deal, [])`` is the start; ``legal_actions()`` is a nonempty list of ints until
      ``done`` (a bool) and empty after; ``scores()`` a list of numbers, one a seat, at every step;
    - ``copy()`` gives an independent state: each legal action ``apply``-ed to a copy works and leaves
      the original as it was;
    - ``replay(rules, deal, plan)`` of the actions played reaches the same state (the contract's
      answers and every attribute that compares by content), and an illegal action in a plan raises.

    ``replay`` defaults to the ``replay`` of the module that defines ``type(rules)`` (the engine's own).
    Returns the number of actions played; a failure is a ``ContractError`` naming the step."""
    if replay is None:
        replay = getattr(importlib.import_module(type(rules).__module__), "replay", None)
        if replay is None:
            raise TypeError(f"{type(rules).__module__} has no replay(rules, deal, plan)")
    check = _Check("engine", type(rules).__name__, {"rules": rules, "deal": deal})
    rng = np.random.default_rng(seed)
    with check.running("replay(rules, deal, [])"):
        state = replay(rules, deal, [])
    plan: list[int] = []
    while True:
        step = len(plan)
        with check.running("the contract's answers", seed, step):
            legal, scores, done = state.legal_actions(), state.scores(), state.done
        if not isinstance(done, bool):
            check.fail(f"done is {_brief(done)}, not a bool", seed, step)
        if not isinstance(scores, list) or not scores or not all(
            isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores
        ):
            check.fail(f"scores() is {_brief(scores)}, not a list of numbers", seed, step)
        if not isinstance(legal, list) or not all(isinstance(a, int) for a in legal):
            check.fail(f"legal_actions() is {_brief(legal)}, not a list of ints", seed, step)
        if done != (not legal):
            check.fail(f"done is {done} with legal actions {_brief(legal)}", seed, step)
        if done or step >= max_steps:
            break
        before = _engine_state(state)
        for action in legal:
            with check.running(f"apply({action}) on a copy", seed, step):
                state.copy().apply(action)
            if not _same(_engine_state(state), before):
                check.fail(f"apply({action}) on a copy changed the original", seed, step)
        if step % 64 == 0:  # a replay costs the whole plan: now and then is enough
            _refuses_illegal(check, replay, rules, deal, plan, legal, seed)
        action = int(rng.choice(legal))
        with check.running(f"apply({action})", seed, step):
            state.apply(action)
        plan.append(action)
    with check.running("replay(rules, deal, plan)", seed, len(plan)):
        again = replay(rules, deal, plan)
    if not _same(_engine_state(again), _engine_state(state)):
        mine, theirs = _engine_state(state), _engine_state(again)
        key = next(k for k in mine.keys() | theirs.keys() if not _same(mine.get(k), theirs.get(k)))
        check.fail(f"replay of the {len(plan)} actions played differs in {key}: "
                   f"{_values(theirs.get(key), mine.get(key))}", seed, len(plan))
    return len(plan)


def check_environment(
    env_id: str,
    env_kwargs: Settings = None,
    *,
    seeds: Iterable[int] = DEFAULT_SEEDS,
    max_steps: int = DEFAULT_MAX_STEPS,
    plans: bool = True,
    every_seat: bool = False,
    plan_deals: int = 2,
    suites: Sequence[Any] | None = None,
    actions_per_step: int | None = None,
    replays_by_deal: bool = True,
) -> None:
    """Every check of the kit on ``gym.make(env_id, **env_kwargs)``: episodes of each of ``seeds``,
    cut after ``max_steps`` actions. ``plans`` replays the oracle plans of the suites shipped for
    ``env_id``, or of ``suites`` (``plan_deals`` a suite, with their own settings; ``every_seat``
    as in ``check_plans_replay``); False for an environment without an oracle. ``actions_per_step``
    bounds the legal actions ``check_masks`` tries at each step (None: all); ``replays_by_deal`` is
    ``check_seed_determinism``'s."""
    seeds = list(seeds)
    check_gymnasium_api(env_id, env_kwargs)
    check_seed_determinism(
        env_id, env_kwargs, seeds=seeds, max_steps=max_steps, replays_by_deal=replays_by_deal
    )
    check_pickle_and_deepcopy(env_id, env_kwargs, seeds=seeds, max_steps=max_steps)
    check_masks(env_id, env_kwargs, seeds=seeds, max_steps=max_steps, actions_per_step=actions_per_step)
    check_info_schema(env_id, env_kwargs, seeds=seeds, max_steps=max_steps)
    check_hidden_information(env_id, env_kwargs, seeds=seeds, max_steps=max_steps)
    if plans:
        check_plans_replay(env_id, suites, deals=plan_deals, every_seat=every_seat)


# -- native vector environments -----------------------------------------------------------------------
#
# A native vector environment (``gym.make_vec`` through an id's ``vector_entry_point``) steps the rules
# with a second implementation, its kernel; these checks hold it to ``SyncVectorEnv`` over the single
# environment, which steps the engine. A game's vector tests call them with its own settings.

VECTOR_RESULT = ("obs", "reward", "terminated", "truncated")


def _require_same_array(got: Any, expected: Any, message: str) -> None:
    if not (got.dtype == expected.dtype and np.array_equal(got, expected)):
        raise AssertionError(message)


def random_legal_batch(
    masks: np.ndarray, rng: np.random.Generator, prefer: np.ndarray | None = None
) -> np.ndarray:
    """One legal action per row of the bool ``masks``, drawn uniformly with ``rng``; ``prefer`` (one
    weight per action, added to the uniform draws) steers play towards rare positions."""
    weights = rng.random(masks.shape)
    if prefer is not None:
        weights += prefer
    return (weights * masks).argmax(axis=1)


def assert_same_vector_step(native: tuple, sync: tuple, where: str) -> None:
    """What a vector environment's ``reset`` or ``step`` returned equals, dtypes included, what
    ``SyncVectorEnv`` returned: observations (one array per key of a ``Dict`` space), rewards,
    terminations, truncations and every info with its ``_key`` array."""
    *arrays, infos = native
    *expected_arrays, expected_infos = sync
    for name, got, expected in zip(VECTOR_RESULT[: len(arrays)], arrays, expected_arrays, strict=True):
        if isinstance(expected, Mapping):
            if got.keys() != expected.keys():
                raise AssertionError(f"{name} keys differ {where}")
            for key, part in expected.items():
                _require_same_array(got[key], part, f"{name} {key} differs {where}")
        else:
            _require_same_array(got, expected, f"{name} differs {where}")
    if infos.keys() != expected_infos.keys():
        raise AssertionError(f"info keys differ {where}")
    for key, expected in expected_infos.items():
        _require_same_array(infos[key], expected, f"info {key} differs {where}")


def vector_steps_against_sync(
    env_id: str,
    num_envs: int,
    steps: int,
    seed: int,
    prefer: np.ndarray | None = None,
    **settings: Any,
) -> Iterator[tuple[Any, Any, tuple, str]]:
    """Step the native vector environment of ``env_id`` and ``SyncVectorEnv`` of its single
    environment side by side with the same random legal actions, for ``steps`` sub-environment steps
    (``steps // num_envs`` batches), checking each ``reset`` and ``step`` with
    ``assert_same_vector_step``; yields ``(native, sync, result, where)`` after each step, so a game's
    test counts what it needs (games finished, rare rules met) and checks more of its own."""
    native = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **settings)
    sync = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync", **settings)
    rng = np.random.default_rng(seed)
    assert_same_vector_step(native.reset(seed=seed), sync.reset(seed=seed), f"at reset ({settings})")
    for t in range(steps // num_envs):
        actions = random_legal_batch(native.action_masks(), rng, prefer)
        result = native.step(actions)
        where = f"at step {t} ({settings}, seed {seed})"
        assert_same_vector_step(result, sync.step(actions), where)
        yield native, sync, result, where


def check_vector_action_masks(
    native: Any, env_id: str, steps: int, seed: int = 4, **settings: Any
) -> None:
    """``VectorActionMasks`` (what MaskablePPO asks) wraps the native vector environment ``native``
    (made with ``settings``) as it wraps ``SyncVectorEnv``: the same masks, a legal action in every
    row, for ``steps`` batches; ``call`` of anything but ``action_masks`` raises ``AttributeError``."""
    from tabletop_gym.wrappers import VectorActionMasks

    native = VectorActionMasks(native)
    sync = VectorActionMasks(
        gym.make_vec(env_id, num_envs=native.num_envs, vectorization_mode="sync", **settings)
    )
    native.reset(seed=seed)
    sync.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for t in range(steps):
        masks = native.action_masks()
        if not (np.array_equal(masks, sync.action_masks()) and masks.any(axis=1).all()):
            raise AssertionError(f"VectorActionMasks' masks differ from SyncVectorEnv's at step {t}")
        actions = random_legal_batch(masks, rng)
        native.step(actions)
        sync.step(actions)
    try:
        native.env.call("render")
    except AttributeError as error:
        if "only 'action_masks" not in str(error):
            raise
    else:
        raise AssertionError("call('render') did not raise AttributeError")


def check_vector_pickle(envs: Any, before: int, after: int, seed: int = 1) -> None:
    """A native vector environment pickled after ``before`` batches of random legal actions goes on
    for ``after`` batches exactly as the original."""
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(before):
        envs.step(random_legal_batch(envs.action_masks(), rng))
    twin = pickle.loads(pickle.dumps(envs))
    for t in range(after):
        actions = random_legal_batch(envs.action_masks(), rng)
        assert_same_vector_step(twin.step(actions), envs.step(actions), f"at step {t} after unpickling")


def check_vector_bench(
    game: str, out: Any, num_envs: int, vector_steps: int, env_steps: int, *options: str
) -> dict[str, Any]:
    """``tabletop-gym bench GAME --vector`` (with ``options``) writes the vector rate beside the
    single environment's and CartPole's: three runs of whole batches, every rate positive. Returns
    the report, for the game's own figures."""
    from tabletop_gym.training.cli import main

    args = ["bench", game, "--vector", "--num-envs", str(num_envs), "--vector-steps", str(vector_steps),
            "--env-steps", str(env_steps), *options, "--out", str(out)]  # fmt: skip
    if main(args) != 0:
        raise AssertionError(f"{' '.join(args)} failed")
    report = json.loads((Path(out) / f"{game}-vector.json").read_text())
    expected = {"vector_num_envs": num_envs, "vector_steps_per_run": vector_steps // num_envs * num_envs,
                "vector_runs": 3}  # fmt: skip
    for key, value in expected.items():
        if report[key] != value:
            raise AssertionError(f"bench report's {key} is {report[key]}, expected {value}")
    for key in (
        "vector_steps_per_second_median",
        "vector_steps_per_cpu_second_median",
        "single_env_steps_per_second_median",
        "cartpole_plain_loop_steps_per_second_median",
    ):
        if not report[key] > 0:
            raise AssertionError(f"bench report's {key} is {report[key]}")
    return report

"""One way to name a player, everywhere: ``--opponents`` of train, evaluate and play, and the
``--players`` of ``tournament``.

A list of players is comma-separated; each entry is one seat's player: a bot of the game (its
``GameSpec.agents``, ``random`` among them), ``pretrained`` (the agent shipped with the package for the
table's environment id) or a trained model (a ``tabletop-gym train`` output folder or a ``model.zip``).
Every entry gives a fresh Agent, so two seats never share a bot's state.

A model is seated only where it can play: its run's config.json must name the same game and the same
table (the rules, the player count); without a config.json its observation and action spaces must
be the table's. A model of another table is refused with one line naming what differs. What a seat
plays against (the opponents, player 1's pickup convention in War, the seat itself) is not part of
the table: a model trained in seat 0 against bots may sit in any seat against anyone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from tabletop_gym.agents.base import Agent
from tabletop_gym.core import quote_input

if TYPE_CHECKING:  # the games' modules import this one
    from tabletop_gym.agents.policy import PolicyAgent
    from tabletop_gym.training.games import GameSpec

# The entry that seats the agent shipped with the package for the table's environment id (trained at
# its default settings): ``--agent pretrained``, ``--opponents pretrained``, a tournament's ``--players``.
PRETRAINED = "pretrained"

# What decides the game at a table, from an environment's arguments (each game's own: the rules
# and the number of players, not who sits where nor what is shown).
TableOf = Callable[[Mapping[str, Any]], dict[str, Any]]


class SeatedAgent(str):
    """A player as its entry names it: the entry itself as text (so that a run's config.json records
    ``runs/a``, not an object) and the Agent it names (``reset`` and ``act`` go to it)."""

    agent: Agent

    def __new__(cls, entry: str, agent: Agent) -> SeatedAgent:
        seated = super().__new__(cls, entry)
        seated.agent = agent
        return seated

    def __reduce__(self) -> tuple[Any, ...]:  # pickled and copied whole, for subprocess environments
        return (SeatedAgent, (str(self), self.agent))

    @property
    def name(self) -> str:
        return str(self)

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        return self.agent.act(observation, info)


def split_entries(text: str | Sequence[str]) -> list[str]:
    """The entries of a comma-separated list (or a sequence of them), refusing an empty one."""
    parts = text.split(",") if isinstance(text, str) else [str(e) for e in text]
    entries = [e.strip() for e in parts]
    if not entries or not all(entries):
        raise ValueError(f"an empty player in {quote_input(text)}: give entries separated by commas")
    return entries


def model_path(entry: str) -> Path | None:
    """The model.zip an entry names, None where it is no path at all (a bot's name mistyped)."""
    path = Path(entry)
    if path.is_dir():
        return path / "model.zip"
    if path.exists() or entry.endswith(".zip") or "/" in entry or os.sep in entry:
        return path
    return None


def check_entry(spec: GameSpec, entry: str, bots: Sequence[str] | None = None, exists: bool = True) -> str:
    """``entry`` where it names a bot of the game (``bots``, default the game's agents) or the path of
    a trained model; a one-line ValueError naming the entry and what is expected otherwise. With
    ``exists=False`` (as a command line is read) a path is not looked for yet: loading does."""
    bots = list(spec.agents) if bots is None else list(bots)
    if entry in bots or entry == PRETRAINED:
        return entry
    path = model_path(entry)
    if path is None:
        raise ValueError(
            f"unknown {spec.name} player {quote_input(entry)}: expected a bot ({', '.join(bots)}) or a "
            f"trained model's folder or model.zip, or {PRETRAINED} (the agent shipped for the table's id)"
        )
    if exists and not path.is_file():
        raise ValueError(f"player {quote_input(entry)}: no trained model at {path} (expected a "
                         "'tabletop-gym train' output folder or a model.zip)")
    return entry


def table_settings(env_id: str | None, env_kwargs: Mapping[str, Any], table_of: TableOf) -> dict[str, Any]:
    """The game's ``table_of`` its environment's arguments, as JSON gives it back, without what only
    changes what is shown (``suites.rules_kwargs``)."""
    from tabletop_gym.suites import rules_kwargs

    return rules_kwargs(env_id, table_of(env_kwargs))


def check_fits(
    spec: GameSpec,
    entry: str,
    agent: Any,
    env_id: str,
    env_kwargs: Mapping[str, Any],
    env: gym.Env,
    table_of: TableOf,
) -> None:
    """Refuse, in one line naming the difference, a model trained for another game or table."""
    model = getattr(agent, "model", None)
    if model is None:
        return
    config = getattr(agent, "config", None)
    if config:
        game = config.get("game", spec.name)
        if game != spec.name:
            raise ValueError(f"player {entry}: a {game} model, not a {spec.name} one")
        trained_id = config.get("env_id", env_id)
        trained = table_settings(trained_id, config["env_kwargs"], table_of)
        here = table_settings(env_id, env_kwargs, table_of)
        differ = [f"{k}={trained.get(k)!r} there, {here.get(k)!r} here"
                  for k in sorted(trained.keys() | here.keys()) if trained.get(k) != here.get(k)]
        if trained_id != env_id:
            differ.insert(0, f"{trained_id} there, {env_id} here")
        if differ:
            raise ValueError(f"player {entry}: trained for another table ({'; '.join(differ)})")
    if model.observation_space != env.observation_space or model.action_space != env.action_space:
        raise ValueError(
            f"player {entry}: the model was trained for observations {model.observation_space} and "
            f"{model.action_space}, but this table's seats have {env.observation_space} and "
            f"{env.action_space}"
        )


def load_players(
    spec: GameSpec,
    entries: Sequence[str],
    settings: Any,
    env_id: str,
    env_kwargs: Mapping[str, Any],
    env: gym.Env | Callable[[], gym.Env],
    table_of: TableOf,
    bots: Mapping[str, Callable[[], Agent]] | None = None,
) -> list[Agent]:
    """A fresh Agent for each entry, one per seat, checked against the table that ``env_id`` and
    ``env_kwargs`` set up (``env``: an environment of that table, or what makes one, for the seats'
    spaces; ``table_of``: the game's table from an environment's arguments, compared with a model's
    config.json). ``bots``: the game's bots by name (default the GameSpec's agents, made with
    ``settings``). Models that several entries name are read once."""
    from tabletop_gym.agents.policy import PolicyAgent, load_policy

    makers = bots if bots is not None else {n: (lambda n=n: spec.agents[n](settings)) for n in spec.agents}
    loaded: dict[str, PolicyAgent] = {}
    table_env = None
    agents: list[Agent] = []
    for entry in entries:
        check_entry(spec, entry, list(makers))
        if entry in makers:
            agents.append(makers[entry]())
            continue
        if entry not in loaded:
            try:
                policy = _shipped(env_id) if entry == PRETRAINED else load_policy(entry)
            except (FileNotFoundError, ValueError) as error:
                raise ValueError(f"player {entry}: {error}") from None
            if table_env is None:
                table_env = env if isinstance(env, gym.Env) else env()
            check_fits(spec, entry, policy, env_id, env_kwargs, table_env.unwrapped, table_of)
            loaded[entry] = policy
        first = loaded[entry]
        agents.append(PolicyAgent(first.model, name=entry, deterministic=first.deterministic,
                                  config=first.config))
    return agents


def _shipped(env_id: str) -> PolicyAgent:
    """The agent shipped for ``env_id``, its settings left to ``check_fits``: it compares the table, as
    the game sees it, not who sits at it."""
    from tabletop_gym.agents.shipped import index_entry, load_entry

    return load_entry(env_id, index_entry(env_id))


def seated(entries: Sequence[str], agents: Sequence[Agent]) -> list[SeatedAgent]:
    """Each agent under the entry that names it (what an environment's ``opponents=`` takes and a
    run's config.json records as text)."""
    return [SeatedAgent(entry, agent) for entry, agent in zip(entries, agents, strict=True)]


def labels(entries: Sequence[str]) -> list[str]:
    """A distinct name per entry: an entry given twice becomes ``greedy#1``, ``greedy#2``."""
    return [f"{e}#{entries[:i].count(e) + 1}" if entries.count(e) > 1 else e for i, e in enumerate(entries)]

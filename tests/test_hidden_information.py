"""Hidden information stays hidden: during play ``info`` tells an agent nothing its observation does
not (design principle 4). The deal (deck order, or the seed of every shuffle) appears on the last step,
or from reset on with ``reveal_deal=True``.

The perturbation tests change what the player may not know (cards not yet turned or drawn, the order
of a draw pile, opponents' hands, the seed of the shuffles to come) and play both games with the same
actions: as long as what the player sees (observation, reward, episode end) agrees, so must ``info``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.policy import PlanAgent
from tabletop_gym.core import OracleResult
from tabletop_gym.envs.dominion.env import DominionSolitaireEnv
from tabletop_gym.envs.modern_art.env import ModernArtEnv
from tabletop_gym.envs.nmbr9.env import Nmbr9Env
from tabletop_gym.envs.war.env import WarEnv
from tabletop_gym.envs.war.rules import Deal as WarDeal
from tabletop_gym.training.cli import main
from tabletop_gym.wrappers import ActionMaskObservation, FlatObservation, UnmaskedPlay

NMBR9_SMALL = {"max_value": 5, "copies": 2, "cards": 8, "grid": 8}
WAR_SMALL = {"ranks": 6, "suits": 2, "face_down": 1}

# (environment id, small settings, whether the observation shows the whole deal)
SETTINGS: list[tuple[str, dict[str, Any], bool]] = [
    ("tabletop/Cribbage-v0", {"pile_size": 4}, True),
    ("tabletop/War-v0", {**WAR_SMALL, "observation": "full"}, True),
    ("tabletop/War-v0", {**WAR_SMALL, "observation": "hidden"}, False),
    ("tabletop/War-v0", {**WAR_SMALL, "observation": "hidden", "horizon": 4}, False),
    ("tabletop/Dominion-v0", {"turn_limit": 6}, False),
    ("tabletop/DominionSolitaire-v0", {"target": 1}, False),
    ("tabletop/ModernArt-v0", {"deals": (3, 2), "round_limit": 2}, False),
    ("tabletop/Nmbr9-v0", NMBR9_SMALL, False),
]
IDS = [f"{env_id.split('/')[1]}-{kwargs.get('observation', '')}{kwargs.get('horizon', '')}"
       for env_id, kwargs, _ in SETTINGS]


def _random_episode(env: gym.Env, seed: int) -> list[dict[str, Any]]:
    """The infos of one episode played by a seeded random player, reset's first."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    infos = [info]
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        infos.append(info)
        done = terminated or truncated
    return infos


@pytest.mark.parametrize("env_id, kwargs, public", SETTINGS, ids=IDS)
def test_reveal_deal_takes_only_a_bool(env_id: str, kwargs: dict[str, Any], public: bool) -> None:
    for value in ("no", 1, 0.5, None):
        with pytest.raises(ValueError, match="reveal_deal must be True or False"):
            gym.make(env_id, reveal_deal=value, **kwargs)
    assert gym.make(env_id, reveal_deal=np.bool_(True), **kwargs).unwrapped.reveal_deal is True


def _schema(value: Any) -> Any:
    """What a stacking buffer needs to agree between steps: the type, and an array's shape and dtype."""
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype)
    return type(value)


@pytest.mark.parametrize("form", ["default", "unmasked"])
@pytest.mark.parametrize("env_id, kwargs, public", SETTINGS, ids=IDS)
def test_every_info_has_the_same_keys_shapes_and_dtypes(
    env_id: str, kwargs: dict[str, Any], public: bool, form: str
) -> None:
    # Replay buffers and dataset writers (tianshou, Minari) stack infos step by step: a key that
    # appears only at the end, or a ragged list, breaks them. What is only known at the end has an
    # empty value until then, and that value gives nothing away (the deal is "").
    env = FORMS[form](gym.make(env_id, **kwargs))
    schemas = set()
    for seed in range(3):
        infos = _random_episode(env, seed)
        schemas |= {tuple(sorted((key, _schema(value)) for key, value in info.items())) for info in infos}
        assert all((info["deal"] == "") != public for info in infos[:-1]) and infos[-1]["deal"]
    assert len(schemas) == 1, schemas


# -- comparing two games the player cannot tell apart -------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def _without_deal(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k != "deal"}


def _play_alike(
    env_a: gym.Env,
    env_b: gym.Env,
    first_a: tuple[Any, dict[str, Any]],
    first_b: tuple[Any, dict[str, Any]],
    rng: np.random.Generator,
    seen: Callable[[Any, dict[str, Any]], Any] = lambda obs, info: obs,
) -> int:
    """Play both games with the same actions from positions the player cannot tell apart, while what
    the player sees (``seen``: the observation, and what else is public) keeps agreeing; at each such
    position the infos agree too, and hold no deal before the last step. Returns the positions compared."""
    (obs_a, info_a), (obs_b, info_b) = first_a, first_b
    assert _same(seen(obs_a, info_a), seen(obs_b, info_b)), "the perturbation is visible at once"
    compared, over = 0, False
    while True:
        assert _same(_without_deal(info_a), _without_deal(info_b)), (info_a, info_b)
        compared += 1
        if over:
            assert info_a["deal"] and info_b["deal"]
            return compared
        assert info_a["deal"] == info_b["deal"] == ""
        action = int(rng.choice(np.flatnonzero(info_a["action_mask"])))
        obs_a, reward_a, term_a, trunc_a, info_a = env_a.step(action)
        obs_b, reward_b, term_b, trunc_b, info_b = env_b.step(action)
        if not _same((seen(obs_a, info_a), reward_a, term_a, trunc_a), (seen(obs_b, info_b), reward_b, term_b,
                                                                         trunc_b)):
            return compared  # the games now differ in what the player sees
        over = term_a or trunc_a


# -- War under the hidden observation --------------------------------------------------------------


def _war_positions(env: WarEnv, deal: str, seed: int) -> list[tuple[int, int]]:
    """``turned`` (cards each player has put on the table) at every position of the episode that a
    random player seeded with ``seed`` plays on ``deal``."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed, options={"deal": deal})
    positions = [tuple(env.game.state.turned)]
    while not info["game_over"]:
        _, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        positions.append(tuple(env.game.state.turned))
    return positions


def _war_unseen_shuffled(deal: WarDeal, turned: tuple[int, int], rng: np.random.Generator) -> WarDeal | None:
    """``deal`` with the dealt cards nobody has turned yet shuffled among both piles: a deal that
    agrees with everything seen so far. None when that changes nothing."""
    piles = [list(p) for p in deal.piles]
    slots = [(p, i) for p in (0, 1) for i in range(turned[p], len(piles[p]))]
    cards = [piles[p][i] for p, i in slots]
    shuffled = list(rng.permutation(cards))
    if shuffled == cards:
        return None
    for (p, i), card in zip(slots, shuffled, strict=True):
        piles[p][i] = int(card)
    return WarDeal((tuple(piles[0]), tuple(piles[1])), deal.ranks)


@pytest.mark.parametrize("kwargs", [
    {**WAR_SMALL, "observation": "hidden"},
    {"ranks": 13, "suits": 4, "observation": "hidden", "horizon": 40},
])
def test_war_hidden_info_does_not_depend_on_cards_not_yet_turned(kwargs: dict[str, Any]) -> None:
    from tabletop_gym.envs.war.rules import parse_deal

    env, twin = WarEnv(**kwargs), WarEnv(**kwargs)
    compared = 0
    for seed in range(10):
        deal = _random_episode(WarEnv(**kwargs, reveal_deal=True), seed)[0]["deal"]
        rng = np.random.default_rng(100 + seed)
        for turned in _war_positions(env, deal, seed)[:8]:
            other = _war_unseen_shuffled(parse_deal(deal, env.rules), turned, rng)
            if other is None:
                continue
            # The same random player plays both: the actions agree as long as the masks do. Tricks
            # are played in front of the player (their count is public, not in the observation).
            first = env.reset(seed=seed, options={"deal": deal})
            first_twin = twin.reset(seed=seed, options={"deal": str(other)})
            compared += _play_alike(
                env, twin, first, first_twin, np.random.default_rng(seed),
                seen=lambda obs, info: (obs, info["tricks"]),
            )
    assert compared > 40


def test_war_info_under_the_hidden_observation_follows_the_observation() -> None:
    # What info says beyond the deal is derived from what the hidden observation shows: cards held
    # (own pile + the pot to place) and the pot's ranks.
    env = WarEnv(**WAR_SMALL, observation="hidden")
    n = env.num_cards
    for seed in range(5):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        while True:
            pot = obs[n + 1 :]
            if not info["game_over"]:
                assert info["cards"] == int((obs[:n] > 0).sum()) + int(pot.sum())
                # The trick's cards: those still to place and those just placed under the pile.
                pile = [int(v) for v in obs[:n] if v]
                to_place = [r for r in range(env.rules.ranks) for _ in range(int(pot[r]))]
                pots = [[int(c) for c in row if c >= 0] for row in info["pots"]]  # padded with -1
                placed = len(pots[0]) + len(pots[1]) - len(to_place)
                assert all(v >= 2 for v in pile[len(pile) - placed :])
                just_placed = [v - 2 for v in pile[len(pile) - placed :]] if placed else []
                assert sorted(pots[0] + pots[1]) == sorted(to_place + just_placed)
                assert np.array_equal(info["action_mask"].astype(bool), pot > 0)
            if info["game_over"]:
                break
            obs, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


# -- Nmbr9: the order of the cards to come ---------------------------------------------------------


# The observation forms of tabletop_gym.wrappers: what they show must be as blind as the default.
FORMS: dict[str, Callable[[gym.Env], gym.Env]] = {
    "default": lambda env: env,
    "flat": FlatObservation,
    "mask": ActionMaskObservation,
    "flat-mask": lambda env: ActionMaskObservation(FlatObservation(env)),
    "unmasked": UnmaskedPlay,
}


@pytest.mark.parametrize("form", FORMS)
def test_nmbr9_info_does_not_depend_on_the_order_of_cards_to_come(form: str) -> None:
    env, twin = FORMS[form](Nmbr9Env(**NMBR9_SMALL)), FORMS[form](Nmbr9Env(**NMBR9_SMALL))
    k = NMBR9_SMALL["cards"]
    compared = 0
    for seed in range(4):
        deal = _random_episode(Nmbr9Env(**NMBR9_SMALL, reveal_deal=True), seed)[0]["deal"]
        rng = np.random.default_rng(seed)
        for turn in range(k - 2):  # at turn t the player has seen cards 0..t
            future = list(deal[turn + 1 :])
            rng.shuffle(future)
            other = deal[: turn + 1] + "".join(future)
            if other == deal:
                continue
            compared += _play_alike(
                env, twin, env.reset(options={"deal": deal}), twin.reset(options={"deal": other}),
                np.random.default_rng(seed),
            )
    assert compared > 20


# -- Modern Art: opponents' hands and the deck -----------------------------------------------------

MODERN_ART = [(2, {}), (3, {}), (4, {"round_limit": 2})]


def _modern_art_positions(env: ModernArtEnv, seed: int, every: int) -> list[ModernArtEnv]:
    """Copies of ``env`` at every ``every``-th position of a random player's episode."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    copies, step = [], 0
    while not env.state.done:
        if step % every == 0:
            copies.append(copy.deepcopy(env))
        _, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        step += 1
    return copies


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("players, rule_params", MODERN_ART)
def test_modern_art_info_does_not_depend_on_the_cards_to_come(
    players: int, rule_params: dict[str, Any], form: str
) -> None:
    # Deals that agree on every card dealt so far and differ in the rest of the deck.
    plain = ModernArtEnv(players=players, **rule_params)
    env = FORMS[form](ModernArtEnv(players=players, **rule_params))
    twin = FORMS[form](ModernArtEnv(players=players, **rule_params))
    compared = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        revealed = ModernArtEnv(players=players, reveal_deal=True, **rule_params)
        deal = _random_episode(revealed, seed)[0]["deal"]
        cards = [deal[i : i + 2] for i in range(0, len(deal), 2)]
        for position in _modern_art_positions(plain, seed, every=2):
            top = position.state.top
            rest = cards[top:]
            rng.shuffle(rest)
            other = "".join(cards[:top] + rest)
            if other == deal:
                continue
            compared += _play_alike(
                env, twin,
                env.reset(seed=seed, options={"deal": deal}), twin.reset(seed=seed, options={"deal": other}),
                np.random.default_rng(seed),
            )
    assert compared > 20


# -- Dominion: the seed of the shuffles, the order of the draw pile, the others' hands ----------------


# -- agents that play from the deal ----------------------------------------------------------------


def test_plan_agent_names_the_opt_in_when_the_deal_is_hidden() -> None:
    agent = PlanAgent(lambda deal: OracleResult(0, 0, ()))
    _, info = DominionSolitaireEnv().reset(seed=0)
    with pytest.raises(ValueError, match="reveal_deal=True"):
        agent.act(None, info)


@pytest.mark.parametrize("command", [
    ["cribbage", "--episodes", "2"],
    ["war", "--ranks", "6", "--suits", "2", "--observation", "hidden", "--episodes", "3"],
    ["war", "--ranks", "6", "--suits", "2", "--episodes", "3"],
    ["dominion", "--target", "1", "--episodes", "2"],
], ids=["cribbage", "war-hidden", "war-full", "dominion-solitaire"])
def test_evaluate_the_oracle_still_plays_the_optimum(command: list[str], tmp_path: Path) -> None:
    # The oracle's plan gets an environment that shows the deal from reset on; the other agents
    # play the same seeded deals without it, and their final info still names the deal.
    name = command[0]
    out = tmp_path / name
    args = ["evaluate", *command, "--agent", "random,oracle", "--no-progress", "--seed", "3",
            "--cache", str(tmp_path / "cache"), "--out", str(out)]
    assert main(args) == 0
    agents = json.loads((out / "evaluation.json").read_text())["agents"]
    assert agents["oracle"]["deals"] == agents["random"]["deals"]
    assert agents["oracle"]["share_optimal"] == 1.0 and agents["oracle"]["mean_ratio"] == 1.0

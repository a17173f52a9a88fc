"""modern_art_v0, the PettingZoo AEC environment of Modern Art: PettingZoo's test kit, the same deal
per seed as ModernArt-v0, what each seat may not see, the same episode as ModernArt-v0 with the same
agents in the other seats, and bad input."""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.env import ModernArtEnv
from tabletop_gym.envs.modern_art.rules import HIDDEN_CARD, ModernArtRules, random_deal
from tabletop_gym.envs.modern_art.table import ModernArtTable
from tabletop_gym.multiagent import modern_art_v0

SHORT = {"deals": (4, 3), "round_limit": 3}  # two short rounds: cheap, yet scored twice


def _play(aec: Any, seed: int, agents: dict[str, Any] | None = None, policy_seed: int = 0) -> list[tuple]:
    """One game of ``aec`` from ``reset(seed=seed)``: ``agents`` (name -> Agent) play their seats, a
    seeded random legal choice the others. Returns every ``last()`` in order, with the agent's name."""
    agents = agents or {}
    rng = np.random.default_rng(policy_seed)
    aec.reset(seed=seed)
    seen = []
    for name in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        seen.append((name, obs, reward, terminated, truncated, info))
        if terminated or truncated:
            action = None
        elif name in agents:
            action = agents[name].act(obs["observation"], info)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        aec.step(action)
    return seen


# -- PettingZoo's test kit ------------------------------------------------------------------------

KIT_SETTINGS = [{"players": 2, "rounds": 1}, {"players": 3, **SHORT}, {"players": 5, "rounds": 1}]
KIT_IDS = ["2-players", "3-players-short", "5-players"]


# PettingZoo's api_test warns of every {"observation", "action_mask"} observation (its classic games too).
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("settings", KIT_SETTINGS, ids=KIT_IDS)
def test_pettingzoo_api_test_passes_raw_and_wrapped(settings: dict[str, Any]) -> None:
    for made in (modern_art_v0.env(**settings), modern_art_v0.raw_env(**settings)):
        with pytest.warns(UserWarning, match=r"reset options \['options'\] are not used"):
            api_test(made, num_cycles=60)


@pytest.mark.parametrize("settings", KIT_SETTINGS, ids=KIT_IDS)
def test_pettingzoo_seed_test_passes_raw_and_wrapped(settings: dict[str, Any]) -> None:
    seed_test(lambda: modern_art_v0.env(**settings), num_cycles=40)
    seed_test(lambda: modern_art_v0.raw_env(**settings), num_cycles=40)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_names_spaces_and_every_seat_decides(players: int) -> None:
    aec = modern_art_v0.env(players=players, rounds=1)
    assert aec.metadata["name"] == "modern_art_v0"
    assert aec.possible_agents == [f"player_{seat}" for seat in range(players)]
    single = ModernArtEnv(players=players, rounds=1)
    movers = set()
    for seed in range(3):
        for name, obs, _, terminated, truncated, info in _play(aec, seed, policy_seed=seed):
            assert aec.observation_space(name)["observation"] == single.observation_space
            assert aec.action_space(name).n == single.action_space.n == 36
            assert aec.observation_space(name)["observation"].contains(obs["observation"])
            assert obs["action_mask"].dtype == np.int8
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            assert info["seat"] == int(name.removeprefix("player_"))
            if terminated or truncated:
                assert not truncated and not obs["action_mask"].any() and info["deal"]
                continue
            assert obs["action_mask"].any() and info["deal"] == ""
            movers.add(name)
    assert movers == set(aec.possible_agents)


def test_rewards_are_the_points_each_seat_scores_and_sum_to_its_score() -> None:
    aec = modern_art_v0.raw_env(players=3, **SHORT)
    for seed in range(4):
        steps = _play(aec, seed, policy_seed=seed)
        gained = dict.fromkeys(aec.possible_agents, 0.0)
        for name, _, reward, *_ in steps:
            gained[name] += reward
        final = {name: info["scores"] for name, *_, info in steps[-3:]}
        scores = final["player_0"].tolist()
        assert all(s.tolist() == scores for s in final.values())
        assert [gained[f"player_{seat}"] for seat in range(3)] == [float(s) for s in scores]
        assert max(scores) > 0  # two rounds scored: somebody has points


def test_render_shows_the_table_to_an_onlooker_and_each_seat_its_own_hand() -> None:
    aec = modern_art_v0.raw_env(players=3, rounds=1, render_mode="ansi")
    aec.reset(seed=1)
    text = aec.render()
    assert "(13): (hidden)" not in text and text.count(" hand (13): ") == 3
    for seat in range(3):
        mine = aec.table.render(seat)
        assert mine.count("(13): (hidden)") == 2 and f"P{seat} hand (13): (hidden)" not in mine
    assert modern_art_v0.raw_env().render() is None  # no render_mode


def test_a_seat_the_game_ends_before_is_only_told_its_result() -> None:
    # Five players holding one card each, two cards of an artist ending the round: the game can end
    # before seat 4 decides (ModernArt-v0 in seat 4 then resets to a finished episode). Here that
    # agent is stepped once, at the end, with its points as its reward and the deal in its info.
    settings = {"players": 5, "deals": (1,), "round_limit": 2}
    steps = _play(modern_art_v0.env(**settings), 0)
    assert ModernArtEnv(**settings, seat=4).reset(seed=0)[1]["decision"] == "game over"
    last = [step for step in steps if step[0] == "player_4"]
    assert len(last) == 1
    _, obs, reward, terminated, _, info = last[0]
    assert terminated and not obs["action_mask"].any() and info["deal"]
    assert reward == float(info["score"])


# -- the deal of a seed ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [{}, {"players": 3}, {"players": 4, "rounds": 2}, {"players": 5, "extra_card_each_round": True}],
    ids=["2-players", "3-players", "4-players-2-rounds", "5-players-extra-card"],
)
def test_reset_seed_deals_what_modern_art_v0_deals_for_that_seed(settings: dict[str, Any]) -> None:
    aec = modern_art_v0.raw_env(**settings)
    single = ModernArtEnv(**settings, reveal_deal=True)
    rules = single.rules
    for seed in range(6):
        aec.reset(seed=seed)
        expected = random_deal(rules, np.random.default_rng(seed))  # Gymnasium's seeding of an int
        assert aec.table.deal == single.reset(seed=seed)[1]["deal"] == expected, seed
        assert all(info["deal"] == "" for info in aec.infos.values())  # hidden until the end
    # Later resets without a seed go on with the same stream in both (the table draws the
    # opponents' seeds for both), so they deal the same games too.
    aec.reset(seed=7)
    single.reset(seed=7)
    for _ in range(3):
        aec.reset()
        assert aec.table.deal == single.reset()[1]["deal"]


def test_the_deal_of_a_seed_is_pinned() -> None:
    aec = modern_art_v0.env(players=3, rounds=1)
    aec.reset(seed=0)
    deal = aec.unwrapped.table.deal
    assert deal == ModernArtEnv(players=3, rounds=1, reveal_deal=True).reset(seed=0)[1]["deal"]
    assert deal[:26] == "C.K.L.LxCsY.KsYaCxY.LaKaLd"  # the first two cards of each hand, dealt in turn
    steps = _play(aec, 0)
    assert all(info["deal"] == "" for *_, ended, cut, info in steps if not (ended or cut))
    assert [(name, info["deal"]) for name, *_, info in steps[-3:]] == [
        (f"player_{seat}", deal) for seat in range(3)
    ]
    assert aec.infos == {}  # every agent stepped out; each got the deal at its last turn


def test_reveal_deal_shows_it_from_reset_on() -> None:
    aec = modern_art_v0.raw_env(players=3, rounds=1, reveal_deal=True)
    aec.reset(seed=0)
    assert all(info["deal"] == aec.table.deal != "" for info in aec.infos.values())


# -- what each seat may not see -------------------------------------------------------------------


def _seen(table: ModernArtTable, seat: int) -> tuple[Any, ...]:
    """What ``seat`` sees of ``table``: its observation, its return and the end."""
    return (table.observe(seat).tolist(), table.returns()[seat], table.done)


def _plain_info(table: ModernArtTable, seat: int) -> dict[str, Any]:
    info = table.info(seat)
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items() if k != "deal"}


def _play_twins(table: ModernArtTable, twin: ModernArtTable, seat: int, rng: np.random.Generator) -> int:
    """Play ``table`` and its hidden ``twin`` with the same actions while ``seat`` sees the same in
    both; its info must agree there. Returns the positions compared."""
    compared = 0
    while _seen(table, seat) == _seen(twin, seat):
        assert _plain_info(table, seat) == _plain_info(twin, seat), (seat, compared)
        if not table.done:
            assert table.info(seat)["deal"] == twin.info(seat)["deal"] == ""  # not during play
        compared += 1
        if table.done or compared >= 12:
            break
        mover = table.to_move
        action = int(rng.choice(np.flatnonzero(table.action_mask(mover))))
        if twin.to_move != mover or not twin.action_mask(mover)[action]:
            break  # another seat's hand differs: the games part in what this seat has not seen
        table.apply(action)
        twin.apply(action)
    assert compared > 0, "a twin this seat tells apart at once"
    return compared


@pytest.mark.parametrize("players", [3, 4])
def test_no_seat_sees_other_hands_face_down_cards_or_the_deck(players: int) -> None:
    # The table's hidden twins for each seat in turn (ModernArt-v0's hidden_twins, which the contract
    # kit plays, are its own seat's): the deck not yet dealt reordered, a card of another hand swapped,
    # another seat's face-down card turned into another artist's. That seat's view and info must not
    # change, then or later while what it sees agrees.
    aec = modern_art_v0.raw_env(players=players, rounds=2)
    draws = np.random.default_rng(0)
    compared = dict.fromkeys(range(players), 0)
    face_down = 0
    for seed in range(3):
        aec.reset(seed=seed)
        table, policy = aec.table, np.random.default_rng(seed)
        step = 0
        while not table.done:
            step += 1
            if step % 4 == 0 or table.state.phase == HIDDEN_CARD:
                for seat in range(players):
                    for twin in table.hidden_twins(seat, draws):
                        face_down += twin.state.down != table.state.down
                        compared[seat] += _play_twins(copy.deepcopy(table), twin, seat,
                                                      np.random.default_rng([seed, seat, step]))
            table.apply(int(policy.choice(np.flatnonzero(table.action_mask(table.to_move)))))
        assert table.hidden_twins(0, draws) == []  # nothing hidden once the game is over
    assert min(compared.values()) > 100, compared
    assert face_down > 0  # face-down cards were changed somewhere, not only hands and the deck


def test_a_twin_a_seat_tells_apart_is_caught() -> None:
    # The check can fail: a "twin" with a card of seat 0's own hand swapped is told apart by seat 0
    # at once, but not by seat 1, whose view of it is a hidden twin.
    aec = modern_art_v0.raw_env(players=3, rounds=1)
    aec.reset(seed=0)
    table = aec.table
    twin = copy.deepcopy(table)
    hand = twin.state.hands[0]
    held, other = next(k for k in range(30) if hand[k]), next(k for k in range(30) if not hand[k])
    hand[held] -= 1
    hand[other] += 1
    with pytest.raises(AssertionError, match="tells apart at once"):
        _play_twins(table, twin, 0, np.random.default_rng(0))
    assert _play_twins(copy.deepcopy(table), twin, 1, np.random.default_rng(0)) > 0


def test_face_down_cards_stay_face_down_in_each_seats_view_until_scored() -> None:
    # The engine keeps face-down cards by artist; a seat's observation shows its own by artist and
    # the others' as a count only.
    aec = modern_art_v0.raw_env(players=3, rounds=1)
    table = aec.table
    for seed in range(20):
        aec.reset(seed=seed)
        policy = np.random.default_rng(seed)
        while not table.done:
            down = table.state.down
            for owner in range(3):
                if any(down[owner]):
                    for seat in range(3):
                        twin = copy.deepcopy(table)
                        twin.state.down[owner] = down[owner][1:] + down[owner][:1]  # other artists
                        assert (twin.observe(seat).tolist() == table.observe(seat).tolist()) == (
                            seat != owner or twin.state.down[owner] == down[owner]
                        )
                    return
            table.apply(int(policy.choice(np.flatnonzero(table.action_mask(table.to_move)))))
    raise AssertionError("no face-down card in 20 games")


# -- one path: ModernArt-v0's episode and the same game in modern_art_v0 -----------------------------


def _others(players: int, seat: int, kinds: str) -> list[Any]:
    """An agent per seat but ``seat``: greedy (``g``) or random (``r``) in turn."""
    rules = ModernArtRules(players=players)
    made = {"g": lambda: GreedyAgent(rules), "r": RandomAgent}
    return [made[kinds[i % len(kinds)]]() for i in range(players - 1)]


def _single_episode(env: ModernArtEnv, seed: int) -> list[tuple]:
    """ModernArt-v0's episode from ``reset(seed=seed)``, its seat on a random legal card seeded by
    ``seed``."""
    policy = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    steps = [(obs, 0.0, False, False, info)]
    while not (steps[-1][2] or steps[-1][3]):
        steps.append(env.step(int(policy.choice(np.flatnonzero(steps[-1][4]["action_mask"])))))
    return steps


def _seat_episode(aec: Any, seat: int, others: list[Any], seed: int) -> list[tuple]:
    """The same game in modern_art_v0: ``others`` (Agents, in seat order) in the other seats, reset
    with the seeds the table drew for them, ``seat`` on the same random policy. Returns what ``seat``
    gets from ``last()`` at each of its turns, its last (the end) included."""
    policy = np.random.default_rng(seed)
    me = f"player_{seat}"
    aec.reset(seed=seed)
    agents = dict(zip([name for name in aec.possible_agents if name != me], others, strict=True))
    for agent, agent_seed in zip(others, aec.unwrapped.table.agent_seeds, strict=True):
        agent.reset(agent_seed)
    steps = []
    for name in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        if name == me:
            steps.append((obs["observation"], reward, terminated, truncated, info))
        if terminated or truncated:
            action = None
        elif name == me:
            action = int(policy.choice(np.flatnonzero(obs["action_mask"])))
        else:
            action = agents[name].act(obs["observation"], info)
        aec.step(action)
    return steps


def _plain(step: tuple) -> tuple:
    obs, reward, terminated, truncated, info = step
    info = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}
    return (obs.tolist(), reward, terminated, truncated, info)


@pytest.mark.parametrize("players, seat, kinds", [
    (3, 0, "g"), (3, 2, "gr"), (4, 0, "rg"), (4, 1, "g"), (4, 3, "gr"), (2, 1, "g"),
])
def test_modern_art_v0_episode_is_the_same_game_with_the_same_agents_in_the_other_seats(
    players: int, seat: int, kinds: str
) -> None:
    # Observations, masks, rewards at the learner's seat, the end and the final deal, step for step.
    settings = {"players": players, "rounds": 2}
    for seed in range(4):
        single = _single_episode(ModernArtEnv(**settings, seat=seat, opponents=_others(players, seat, kinds)),
                                 seed)
        turns = _seat_episode(modern_art_v0.env(**settings), seat, _others(players, seat, kinds), seed)
        assert [_plain(step) for step in single] == [_plain(step) for step in turns], seed
        assert turns[-1][2] and turns[-1][4]["deal"] == single[-1][4]["deal"] != ""
        assert sum(step[1] for step in turns) == turns[-1][4]["score"]


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, error, message",
    [
        ({"players": 6}, ValueError, "players must be at most 5"),
        ({"players": 1}, ValueError, "players must be at least 2"),
        ({"players": 2.0}, ValueError, "players must be an integer"),
        ({"rounds": 5}, ValueError, "rounds"),
        ({"rounds": 2, "deals": (4, 3)}, ValueError, "rounds and deals both set the rounds"),
        ({"round_limit": 0}, ValueError, "round_limit"),
        ({"seat": 1}, TypeError, "unexpected keyword argument 'seat'.*takes players, rounds"),
        ({"opponents": []}, TypeError, "unexpected keyword argument 'opponents'"),
        ({"reveal_deal": "no"}, ValueError, "reveal_deal must be True or False"),
        ({"render_mode": "svg"}, ValueError,
         "render_mode must be None, 'ansi', 'rgb_array' or 'human', got 'svg'"),
    ],
)
def test_bad_settings_are_refused_naming_them(settings: dict[str, Any], error: type, message: str) -> None:
    for make in (modern_art_v0.raw_env, modern_art_v0.env):
        with pytest.raises(error, match=message):
            make(**settings)


def test_bad_actions_and_resets_raise_clear_errors() -> None:
    aec = modern_art_v0.raw_env(players=2, rounds=1)
    with pytest.raises(GameOverError, match="call reset"):
        aec.step(0)
    aec.reset(seed=0)
    legal = np.flatnonzero(aec.observe("player_0")["action_mask"]).tolist()
    illegal = next(a for a in range(36) if a not in legal)
    listed = re.escape(str(legal))
    with pytest.raises(IllegalActionError, match=rf"illegal action {illegal} .*legal actions: {listed}"):
        aec.step(illegal)
    with pytest.raises(IllegalActionError, match="integer"):
        aec.step(float(legal[0]))
    aec.step(np.array(legal[0]))  # a 0-d array, as model.predict returns it
    while aec.agents:
        obs, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(GameOverError, match="the game is over"):
        aec.step(0)
    with pytest.raises(ValueError, match="options must be None or"):
        aec.reset(options="L.L.")
    aec.reset(seed=3)
    deal = aec.table.deal
    with pytest.raises(InvalidDealError):
        aec.reset(options={"deal": "L." * 95})
    assert aec.table.deal == deal and not aec.table.done  # the refused deal left the game as it was
    with pytest.raises(ValueError, match="seed"):
        aec.reset(seed=-1)
    with pytest.warns(UserWarning, match=r"reset options \['rounds'\] are not used"):
        aec.reset(seed=0, options={"rounds": 1})
    aec.reset(options={"deal": deal})
    assert aec.table.deal == deal
    # A dead agent may only be stepped with None (PettingZoo's rule, kept).
    while not aec.terminations[aec.agent_selection]:
        aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"])[0]))
    with pytest.raises(ValueError, match="only valid action is None"):
        aec.step(0)

"""war_v0, the PettingZoo AEC environment of War: PettingZoo's test kit, the same deal per seed as
War-v0, what each seat may not see, the same episode as War-v0 with player 1's agent in its seat,
and bad input."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop_gym.agents.war import ConventionAgent
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.war.env import WarEnv
from tabletop_gym.envs.war.rules import WarGame, WarRules, random_deal
from tabletop_gym.multiagent import war_v0

SMALL = {"ranks": 6, "suits": 2, "face_down": 1, "max_tricks": 300}
SETTINGS = [
    {**SMALL},
    {**SMALL, "observation": "hidden"},
    {**SMALL, "observation": "hidden", "horizon": 6},
    {**SMALL, "pickup": "random"},
]
IDS = ["full", "hidden", "hidden-horizon", "random-pickup"]


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


# PettingZoo's api_test warns of every {"observation", "action_mask"} observation (its classic games too).
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("settings", SETTINGS, ids=IDS)
def test_pettingzoo_api_test_passes_raw_and_wrapped(settings: dict[str, Any]) -> None:
    # api_test resets with options={"options": 1} to see that reset takes options: not used, and said so.
    for made in (war_v0.env(**settings), war_v0.raw_env(**settings)):
        with pytest.warns(UserWarning, match=r"reset options \['options'\] are not used"):
            api_test(made, num_cycles=40)


@pytest.mark.parametrize("settings", SETTINGS, ids=IDS)
def test_pettingzoo_seed_test_passes_raw_and_wrapped(settings: dict[str, Any]) -> None:
    seed_test(lambda: war_v0.env(**settings), num_cycles=40)
    seed_test(lambda: war_v0.raw_env(**settings), num_cycles=40)


def test_names_spaces_and_every_step_a_real_decision() -> None:
    aec = war_v0.env(**SMALL)
    assert aec.metadata["name"] == "war_v0"
    assert aec.possible_agents == ["player_0", "player_1"]
    single = WarEnv(**SMALL)
    for agent in aec.possible_agents:
        assert aec.observation_space(agent)["observation"] == single.observation_space
        assert aec.action_space(agent).n == 6
    movers = set()
    for seed in range(6):
        for name, obs, _, terminated, truncated, info in _play(aec, seed, policy_seed=seed):
            if terminated or truncated:
                assert not obs["action_mask"].any() and info["deal"]  # the deal for everyone at the end
                continue
            movers.add(name)
            # War-v0's rule for player 0, for both seats: asked only for a pot of two ranks or more
            # while the other player still holds cards, so that the order can matter.
            assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() >= 2
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            pot = info["pots"][info["pots"] >= 0]
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) <= set(pot.tolist())
            assert aec.observation_space(name)["observation"].contains(obs["observation"])
    assert movers == {"player_0", "player_1"}


def test_render_shows_the_position_to_an_onlooker_and_to_each_seat() -> None:
    aec = war_v0.raw_env(ranks=3, suits=1, render_mode="ansi")
    aec.reset(options={"deal": "24/3"})  # player 1 takes the 2 and the 3; player 0 still holds the 4
    assert aec.render() == (
        "trick 1   wars so far 0\nplayer 0 pile ( 1): 4\nplayer 1 pile ( 0): (empty)\n"
        "table: player 0 played 2, player 1 played 3\npot still to place under player 1's pile: 23"
    )
    assert aec.table.render(1).splitlines()[1:] == [
        "your pile     ( 0): (empty)", "player 0 pile ( 1): 4", "table: player 0 played 2, you played 3",
        "pot still to place under your pile: 23",
    ]
    assert war_v0.raw_env().render() is None  # no render_mode


# -- the deal of a seed ---------------------------------------------------------------------------


def _deal_by_the_engine(seed: int, rules: WarRules, horizon: int | None = None) -> tuple[str, int]:
    """The deal War-v0 plays for ``seed`` (player 1 on its convention), computed with the engine
    alone: deals drawn from the seed's generator, each with the seed of the random convention, until
    player 0 has a decision; and how many deals were drawn past."""
    engine_rules = rules if horizon is None else rules.replace(max_tricks=min(rules.max_tricks, horizon))
    rng = np.random.default_rng(seed)  # what Gymnasium's and PettingZoo's seeding make of an int
    for skipped in range(1000):
        deal = random_deal(rng, rules)
        pickup_seed = int(rng.integers(2**63))
        if WarGame(deal, engine_rules, controlled=0, seed=pickup_seed).awaiting:
            return str(deal), skipped
    raise AssertionError("no deal gives player 0 a decision")


@pytest.mark.parametrize(
    "settings",
    [SMALL, {**SMALL, "pickup": "random"}, {**SMALL, "horizon": 1}, {"ranks": 3, "suits": 1}, {}],
    ids=["small", "random-pickup", "horizon-1", "three-cards", "default"],
)
def test_reset_seed_plays_the_deal_war_v0_plays_for_that_seed(settings: dict[str, Any]) -> None:
    rules = WarRules(**{k: v for k, v in settings.items() if k != "horizon"})
    single = WarEnv(**settings, reveal_deal=True)
    aec = war_v0.raw_env(**settings, reveal_deal=True)
    redrawn = 0
    for seed in range(25):
        expected, skipped = _deal_by_the_engine(seed, rules, settings.get("horizon"))
        redrawn += skipped > 0
        aec.reset(seed=seed)
        assert aec.infos["player_0"]["deal"] == aec.infos["player_1"]["deal"] == expected, seed
        assert single.reset(seed=seed)[1]["deal"] == expected, seed
    if settings.get("horizon") == 1 or settings.get("ranks") == 3:
        assert redrawn > 0  # the first deal of some seeds gives player 0 no decision: drawn past
    # Without a seed, reset goes on with the same stream, as War-v0's does.
    aec.reset(seed=5)
    single.reset(seed=5)
    for _ in range(3):
        aec.reset()
        assert aec.infos["player_0"]["deal"] == single.reset()[1]["deal"]


def test_the_deal_of_a_seed_is_pinned() -> None:
    aec = war_v0.env()
    aec.reset(seed=0)
    # The full observation shows both piles in order: the deal is in every info.
    assert aec.infos["player_1"]["deal"] == "J673TT772Q766894ATKQ53A5Q5/449J8822A3QK6J2KA84K5J39T9"
    hidden = {**SMALL, "horizon": 1, "observation": "hidden"}
    aec = war_v0.env(**hidden)
    aec.reset(seed=2)
    single = WarEnv(**hidden, reveal_deal=True)
    assert aec.unwrapped.table.deal == "367436/275542" == single.reset(seed=2)[1]["deal"]
    assert aec.infos["player_0"]["deal"] == aec.infos["player_1"]["deal"] == ""  # hidden: not before the end
    steps = _play(aec, 2)
    assert all(info["deal"] == "" for *_, ended, cut, info in steps if not (ended or cut))
    assert aec.infos == {}  # every agent stepped out; each got the deal at its last turn:
    assert [(name, info["deal"]) for name, *_, info in steps[-2:]] == [
        ("player_0", "367436/275542"), ("player_1", "367436/275542")
    ]


def test_a_given_deal_is_played_when_any_seat_has_a_decision() -> None:
    aec = war_v0.raw_env(ranks=3, suits=1)
    # Player 1 takes the 2 and the 3 while player 0 holds the 4: player 1 chooses. Under winner_first
    # it meets the 3 with its 4 and takes the game, so War-v0 gives player 0 no decision there.
    aec.reset(options={"deal": "23/4"})
    assert aec.agent_selection == "player_1"
    with pytest.raises(InvalidDealError, match="gives player 0 no pickup decision"):
        WarEnv(ranks=3, suits=1).reset(options={"deal": "23/4"})
    # Player 1 takes player 0's only card: nobody ever chooses.
    with pytest.raises(InvalidDealError, match="deal '2/34' gives no seat a pickup decision"):
        aec.reset(options={"deal": "2/34"})
    # The refused deal leaves the game in progress as it was.
    assert aec.table.deal == "23/4" and aec.agent_selection == "player_1"
    aec.step(int(np.flatnonzero(aec.observe("player_1")["action_mask"])[0]))


# -- what each seat may not see -------------------------------------------------------------------


def _seen(table: Any, seat: int) -> tuple[Any, ...]:
    """What ``seat`` sees of ``table``: its observation, its return, the end, and the count of tricks
    (it watches every trick)."""
    return (table.observe(seat).tolist(), table.returns()[seat], table.done, table.truncated,
            table.info(seat)["tricks"])


def _plain_info(table: Any, seat: int) -> dict[str, Any]:
    info = table.info(seat)
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items() if k != "deal"}


def _play_twins(table: Any, twin: Any, seat: int, rng: np.random.Generator) -> int:
    """Play ``table`` and its hidden ``twin`` with the same actions while ``seat`` sees the same in
    both; its info must agree there. Returns the positions compared."""
    compared = 0
    while _seen(table, seat) == _seen(twin, seat):
        assert _plain_info(table, seat) == _plain_info(twin, seat), (seat, compared)
        if not table.done:
            assert table.info(seat)["deal"] == twin.info(seat)["deal"] == ""  # not during play
        compared += 1
        if table.done:
            break
        mover = table.to_move
        action = int(rng.choice(np.flatnonzero(table.action_mask(mover))))
        if twin.to_move != mover or not twin.action_mask(mover)[action]:
            break  # the other seat's pot differs: the games part in what this seat has not seen yet
        table.apply(action)
        twin.apply(action)
    assert compared > 0, "a twin this seat tells apart at once"
    return compared


@pytest.mark.parametrize("horizon", [None, 5])
def test_neither_seat_sees_the_cards_nobody_has_turned(horizon: int | None) -> None:
    # War-v0's hidden twins (the table's, which War-v0's hidden_twins hands to the contract kit): the
    # dealt cards not yet turned, shuffled among both piles. Neither seat's view nor info may change,
    # then or later while what that seat sees agrees.
    aec = war_v0.raw_env(**SMALL, observation="hidden", horizon=horizon)
    draws = np.random.default_rng(0)
    compared = {0: 0, 1: 0}
    for seed in range(8):
        aec.reset(seed=seed)
        table, policy = aec.table, np.random.default_rng(seed)
        while not table.done:
            for twin in table.hidden_twins(draws):
                assert twin.deal != table.deal
                for seat in (0, 1):
                    compared[seat] += _play_twins(copy.deepcopy(table), copy.deepcopy(twin), seat,
                                                  np.random.default_rng([seed, seat]))
            table.apply(int(policy.choice(np.flatnonzero(table.action_mask(table.to_move)))))
    assert min(compared.values()) > 50, compared


def test_a_twin_a_seat_tells_apart_is_caught() -> None:
    # The check can fail: a "twin" whose seat-0 pile is turned round, which shows once seat 0 has
    # placed cards of its own there.
    aec = war_v0.raw_env(**SMALL, observation="hidden")
    aec.reset(seed=0)
    table, policy = aec.table, np.random.default_rng(0)
    while not table.done:
        twin = copy.deepcopy(table)
        twin.game.state.piles[0].rotate(1)
        if _seen(twin, 0) != _seen(table, 0):
            with pytest.raises(AssertionError, match="tells apart at once"):
                _play_twins(table, twin, 0, np.random.default_rng(0))
            return
        table.apply(int(policy.choice(np.flatnonzero(table.action_mask(table.to_move)))))
    raise AssertionError("no position where the turned pile shows")


def test_the_full_observation_hides_nothing() -> None:
    aec = war_v0.raw_env(**SMALL)
    aec.reset(seed=3)
    assert aec.table.hidden_twins(np.random.default_rng(0)) == []
    assert aec.infos["player_0"]["deal"] == aec.infos["player_1"]["deal"] != ""


# -- one path: War-v0's episode and the same game in war_v0 -----------------------------------------


def _single_episode(env: WarEnv, seed: int, options: dict[str, Any] | None = None) -> list[tuple]:
    """War-v0's episode from ``reset(seed=seed)``, player 0 on a random legal rank seeded by ``seed``."""
    policy = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed, options=options)
    steps = [(obs, None, False, False, info)]
    while not (steps[-1][2] or steps[-1][3]):
        steps.append(env.step(int(policy.choice(np.flatnonzero(steps[-1][4]["action_mask"])))))
    return steps


def _seat_episode(aec: Any, seat: int, other: Any, seed: int, options: dict[str, Any] | None = None) -> list:
    """The same game in war_v0: ``other`` (an Agent) in the other seat, ``seat`` on the same random
    policy. Returns ``seat``'s cards at reset, then what it gets from ``last()`` at each of its turns."""
    policy = np.random.default_rng(seed)
    me = f"player_{seat}"
    aec.reset(seed=seed, options=options)
    steps: list[Any] = [aec.infos[me]["cards"]]
    for name in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        if name == me:
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            steps.append((obs["observation"], reward, terminated, truncated, info))
        if terminated or truncated:
            action = None
        elif name == me:
            action = int(policy.choice(np.flatnonzero(obs["action_mask"])))
        else:
            action = other.act(obs["observation"], info)
        aec.step(action)
    return steps


def _plain(step: tuple, deal: bool) -> tuple:
    obs, reward, terminated, truncated, info = step
    info = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items() if deal or k != "deal"}
    return (obs.tolist(), reward, terminated, truncated, info)


def _same_game(single: list[tuple], seat_steps: list, settings: dict[str, Any], deal: bool = True) -> None:
    """War-v0's episode and the seat's turns in war_v0 are the same game, step for step.

    Two differences come from where the episodes start and end. war_v0 starts at the first decision
    of either seat, War-v0 at player 0's: with a horizon the seat's first reward is the change of its
    cards since reset, which War-v0 has no step for. And a pot that takes the loser's last card holds
    no decision: war_v0's engine puts it under the winner's pile lowest rank first where War-v0's
    player 1 follows its convention, which shows only in the full observation's last step (the
    winner's pile, in order)."""
    cards_at_reset, *turns = seat_steps
    assert len(turns) == len(single)
    first = turns[0]
    assert first[1] == (first[4]["cards"] - cards_at_reset if settings.get("horizon") else 0.0)
    ours = [_plain(step, deal) for step in single]
    theirs = [_plain((obs, None if i == 0 else reward, *rest), deal) for i, (obs, reward, *rest) in
              enumerate(turns)]
    n = WarRules(**{k: v for k, v in settings.items() if k in ("ranks", "suits")}).num_cards
    if settings.get("observation", "full") == "full" and single[-1][4]["result"] == -1:
        mine, other = ours[-1][0], theirs[-1][0]
        assert mine[:n] == other[:n] and mine[2 * n:] == other[2 * n:]
        assert sorted(mine[n: 2 * n]) == sorted(other[n: 2 * n])
        ours[-1], theirs[-1] = ours[-1][1:], theirs[-1][1:]
    assert ours == theirs


TRAJECTORY_SETTINGS = [
    {**SMALL},
    {**SMALL, "observation": "hidden"},
    {**SMALL, "horizon": 6},
    {**SMALL, "observation": "hidden", "horizon": 6},
]


@pytest.mark.parametrize("settings", TRAJECTORY_SETTINGS, ids=["full", "hidden", "full-6", "hidden-6"])
@pytest.mark.parametrize("pickup", ["winner_first", "loser_first", "high_first"])
def test_war_v0_episode_is_the_same_game_with_player_1s_agent_in_its_seat(
    settings: dict[str, Any], pickup: str
) -> None:
    # War-v0's pickup is another convention under the opponent agent: only the agent orders seat 1.
    other = "loser_first" if pickup == "winner_first" else "winner_first"
    for seed in range(8):
        aec = war_v0.raw_env(**settings, pickup=pickup)
        seat_steps = _seat_episode(aec, 0, ConventionAgent(pickup), seed)
        _same_game(_single_episode(WarEnv(**settings, pickup=other, opponent=ConventionAgent(pickup)), seed),
                   seat_steps, settings)
        _same_game(_single_episode(WarEnv(**settings, pickup=pickup), seed), seat_steps, settings)


@pytest.mark.parametrize("settings", TRAJECTORY_SETTINGS[:2], ids=["full", "hidden"])
def test_seat_1_plays_war_v0s_game_from_its_side(settings: dict[str, Any]) -> None:
    # The engine treats both players alike: the deal with its piles swapped, the agent in seat 0 and
    # the learner in seat 1, is War-v0's game seen from seat 1, step for step.
    for seed in range(8):
        single = _single_episode(WarEnv(**settings, opponent=ConventionAgent("high_first")), seed)
        deal = single[-1][4]["deal"]
        swapped = "/".join(reversed(deal.split("/")))
        aec = war_v0.raw_env(**settings)
        seat_steps = _seat_episode(aec, 1, ConventionAgent("high_first"), seed, {"deal": swapped})
        _same_game(single, seat_steps, settings, deal=False)
        assert seat_steps[-1][4]["deal"] == swapped


def test_the_learner_that_wins_is_scored_so_in_both_seats() -> None:
    # Rewards per seat at the end: +1 to the winner, -1 to the loser, summing to zero.
    aec = war_v0.raw_env(**SMALL)
    results = set()
    for seed in range(10):
        steps = _play(aec, seed, policy_seed=seed)
        final = {name: (reward, info["result"]) for name, _, reward, terminated, truncated, info in steps
                 if terminated or truncated}
        assert final["player_0"][0] == final["player_0"][1] == -final["player_1"][1] == -final["player_1"][0]
        results.add(final["player_0"][1])
    assert results == {-1, 1}


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, error, message",
    [
        ({"ranks": 1}, ValueError, "never has a pickup decision"),
        ({"ranks": 14}, InvalidDealError, "ranks"),
        ({"pickup": "lowest"}, InvalidDealError, "pickup must be one of"),
        ({"observation": "partial"}, ValueError, "observation must be one of"),
        ({"horizon": 0}, ValueError, "horizon"),
        ({"reveal_deal": "no"}, ValueError, "reveal_deal must be True or False"),
        ({"render_mode": "svg"}, ValueError,
         "render_mode must be None, 'ansi', 'rgb_array' or 'human', got 'svg'"),
    ],
)
def test_bad_settings_are_refused_naming_them(settings: dict[str, Any], error: type, message: str) -> None:
    for make in (war_v0.raw_env, war_v0.env):
        with pytest.raises(error, match=message):
            make(**settings)


def test_bad_actions_and_resets_raise_clear_errors() -> None:
    aec = war_v0.raw_env(ranks=3, suits=1, max_tricks=50)  # lowest first cycles: cut it short
    with pytest.raises(GameOverError, match="call reset"):
        aec.step(0)
    aec.reset(options={"deal": "24/3"})  # player 1 picks up the 2 and the 3
    with pytest.raises(IllegalActionError, match=r"illegal action 2 .*legal actions: \[0, 1\]"):
        aec.step(2)
    with pytest.raises(IllegalActionError, match="integer"):
        aec.step(1.0)
    aec.step(np.array(1))  # a 0-d array, as model.predict returns it
    while aec.agents:
        obs, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(GameOverError, match="the game is over"):
        aec.step(0)
    with pytest.raises(ValueError, match="options must be None or"):
        aec.reset(options="24/3")
    with pytest.raises(InvalidDealError, match="holds rank"):
        aec.reset(options={"deal": "22/3"})
    with pytest.raises(ValueError, match="seed"):
        aec.reset(seed=-1)
    with pytest.warns(UserWarning, match=r"reset options \['deck'\] are not used"):
        aec.reset(seed=0, options={"deck": 1})
    # A dead agent may only be stepped with None (PettingZoo's rule, kept).
    aec.reset(options={"deal": "24/3"})
    while not (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
        aec.step(int(np.flatnonzero(aec.last()[0]["action_mask"])[0]))
    with pytest.raises(ValueError, match="only valid action is None"):
        aec.step(0)

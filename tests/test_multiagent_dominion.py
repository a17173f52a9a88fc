"""dominion_v0, the PettingZoo AEC environment of Dominion's versus game: PettingZoo's test kit, the
same deal per seed as Dominion-v0, what each seat may not know, the same episode as Dominion-v0 with
the bots in the other seats, playing against the rule bots, and bad input."""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.agents.dominion import play_game
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError, legal_actions
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.envs.dominion.bots import DominionBot, game_seed, make_bot
from tabletop_gym.envs.dominion.env import PLAYER_SIZE, PLAYERS, DominionEnv, deal_of_seed
from tabletop_gym.envs.dominion.observation import DECISION, HAND
from tabletop_gym.envs.dominion.table import _swap
from tabletop_gym.multiagent import dominion_v0
from tabletop_gym.testing import check_hidden_information

SMALL = {"turn_limit": 6}


def _legal(mask: Any, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    return type(a) is type(b) and a == b


# -- PettingZoo's test kit ------------------------------------------------------------------------


# PettingZoo's api_test warns of every {"observation", "action_mask"} observation (its classic games too).
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_passes_raw_and_wrapped(players: int) -> None:
    # api_test resets with options={"options": 1} to see that reset takes options: not used, and said so.
    for make in (dominion_v0.env, dominion_v0.raw_env):
        made = make(num_players=players, **SMALL)
        with pytest.warns(UserWarning, match=r"reset options \['options'\] are not used"):
            api_test(made, num_cycles=60)


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_seed_test_passes_raw_and_wrapped(players: int) -> None:
    seed_test(lambda: dominion_v0.env(num_players=players, **SMALL), num_cycles=60)
    seed_test(lambda: dominion_v0.raw_env(num_players=players, **SMALL), num_cycles=60)


def test_names_spaces_and_decisions_on_other_players_turns() -> None:
    aec = dominion_v0.raw_env(num_players=3, turn_limit=15)
    assert aec.metadata["name"] == "dominion_v0" and not aec.metadata["is_parallelizable"]
    assert aec.possible_agents == ["player_0", "player_1", "player_2"]
    single = DominionEnv(opponents=["big-money"] * 2)
    for agent in aec.possible_agents:
        assert aec.observation_space(agent)["observation"] == single.observation_space
        assert aec.action_space(agent).n == single.action_space.n == R.NUM_ACTIONS
    off_turn = set()
    for seed in range(4):
        rng = np.random.default_rng(seed)
        aec.reset(seed=seed)
        for agent in aec.agent_iter():
            obs, _, terminated, truncated, info = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            state = aec.table.state
            # The agent to move is the engine's decider; only it has legal actions.
            assert agent == f"player_{state.decider}"
            assert obs["action_mask"].any() and np.array_equal(obs["action_mask"], info["action_mask"])
            others = [a for a in aec.agents if a != agent]
            assert not any(aec.observe(a)["action_mask"].any() for a in others)
            if state.decider != state.player:
                off_turn.add(info["decision"])  # answering another player's Militia
            aec.step(_legal(obs["action_mask"], rng))
    assert off_turn and off_turn <= {"militia_discard", "moat_reveal"}


def test_render_shows_the_position_to_an_onlooker() -> None:
    aec = dominion_v0.raw_env(num_players=2, render_mode="ansi")
    aec.reset(seed=3)
    state = aec.table.state
    text = aec.render()
    for p in range(2):
        line = next(line for line in text.splitlines() if line.startswith(f"player {p}:"))
        assert f"hand [{R._names(state.hand[p])}]" in line
    assert dominion_v0.raw_env().render() is None  # no render_mode


# -- the deal of a seed ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reset_seed_plays_the_deal_dominion_v0_plays_for_that_seed(players: int) -> None:
    aec = dominion_v0.raw_env(num_players=players, turn_limit=2)
    for seed in range(3):
        single = DominionEnv(opponents=["big-money"] * (players - 1), turn_limit=2, reveal_deal=True)
        obs, info = single.reset(seed=seed)
        aec.reset(seed=seed)
        assert aec.table.deal == info["deal"] == deal_of_seed(seed)
        # player_0 moves first in both, from the same position.
        assert aec.agent_selection == "player_0"
        assert np.array_equal(aec.observe("player_0")["observation"], obs)
    # Pinned: a change of how a seed draws its deal must show here, not only agree with Dominion-v0.
    aec.reset(seed=0)
    assert aec.table.deal == "5874934615388537135"
    aec.reset(options={"deal": "12"})
    assert aec.table.deal == "12" and aec.table.state.seed == 12


def test_the_deal_is_in_every_info_at_the_end_and_only_then() -> None:
    for reveal, turn_limit in ((False, 100), (False, 3), (True, 3)):
        aec = dominion_v0.env(num_players=3, turn_limit=turn_limit, reveal_deal=reveal)
        rng = np.random.default_rng(1)
        aec.reset(seed=5)
        ends = []
        for agent in aec.agent_iter():
            obs, _, terminated, truncated, info = aec.last()
            over = terminated or truncated
            assert info["deal"] == (deal_of_seed(5) if over or reveal else "")
            if over:
                ends.append((agent, terminated, truncated))
            aec.step(None if over else _legal(obs["action_mask"], rng))
        cut = turn_limit == 3
        assert ends == [(f"player_{p}", not cut, cut) for p in range(3)]


# -- hidden information, for every seat -----------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_every_seat_of_the_single_agent_game_keeps_its_hidden_information(players: int) -> None:
    # The contract kit's check, from each seat of the table in turn: the single-agent environment is
    # that seat of the same table, so its hidden twins are the table's from that seat.
    opponents = ["random", "big-money"][: players - 1]
    for seat in range(players):
        settings = {"opponents": opponents, "seat": seat, "turn_limit": 4}
        assert check_hidden_information("tabletop/Dominion-v0", settings, seeds=range(2), every=3) > 0


def _seen_alike(aec: Any, twin: Any, seat: int, rng: np.random.Generator) -> int:
    """Play ``aec`` and ``twin`` on while ``seat`` observes the same in both: its info and rewards
    must agree there (the deal aside, hidden in both until the end). ``seat`` takes the same
    actions in both (it cannot tell them apart); the other seats choose from their own masks, which
    may differ. Returns the positions compared."""
    agent = f"player_{seat}"
    others = [copy.deepcopy(rng), copy.deepcopy(rng)]  # one stream per game, alike while the masks are
    compared = 0
    while True:
        seen = [env.observe(agent) for env in (aec, twin)]
        if not all(_same(seen[0][k], seen[1][k]) for k in seen[0]):
            return compared
        mine = [{k: v for k, v in env.infos[agent].items() if k != "deal"} for env in (aec, twin)]
        assert _same(*mine), f"{agent}'s info tells apart what it may not know: {mine}"
        assert aec.rewards[agent] == twin.rewards[agent]
        assert aec.terminations == twin.terminations and aec.truncations == twin.truncations
        assert aec.infos[agent]["deal"] == "" or aec.table.done
        compared += 1
        if aec.table.done:
            return compared
        if aec.agent_selection == agent:
            action = _legal(aec.observe(agent)["action_mask"], rng)
            aec.step(action)
            twin.step(action)
        else:
            for env, stream in zip((aec, twin), others, strict=True):
                env.step(_legal(env.observe(env.agent_selection)["action_mask"], stream))


def _twins_of(aec: Any, seat: int, rng: np.random.Generator) -> list[Any]:
    twins = []
    for table in aec.table.hidden_twins(seat, rng):
        twin = copy.deepcopy(aec)
        twin.table = table
        twin._update()  # the infos read from the twin's table
        twins.append(twin)
    return twins


@pytest.mark.parametrize("players", [2, 3])
def test_no_seat_sees_what_it_may_not_know(players: int) -> None:
    # Another seed for every shuffle to come, the seat's own draw order, each other player's hand
    # and draw pile: at every few positions of random games, for every seat, the twin looks the
    # same to that seat and plays on alike for it until what it sees parts.
    aec = dominion_v0.raw_env(num_players=players, turn_limit=5)
    compared = dict.fromkeys(range(players), 0)
    kinds = dict.fromkeys(range(players), 0)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        aec.reset(seed=seed)
        step = 0
        while not aec.table.done:
            if step % 4 == 0:
                for seat in range(players):
                    twins = _twins_of(aec, seat, np.random.default_rng([seed, step, seat]))
                    kinds[seat] = max(kinds[seat], len(twins))
                    for twin in twins:
                        seen = _seen_alike(copy.deepcopy(aec), twin, seat, np.random.default_rng(step))
                        assert seen > 0, f"a hidden twin of seat {seat} is told apart at once"
                        compared[seat] += seen
            aec.step(_legal(aec.observe(aec.agent_selection)["action_mask"], rng))
            step += 1
    # Every kind of change was made for every seat (seed, own draw order, each other's hand and draw).
    assert all(kinds[seat] == 2 * players for seat in range(players)), kinds
    assert all(n > 50 for n in compared.values()), compared


def test_a_twin_the_seat_can_tell_apart_is_caught() -> None:
    # The check above can fail: a twin that changes the seat's own hand is seen at once, and one
    # that changes another's hand is seen by that other player.
    aec = dominion_v0.raw_env(num_players=2, turn_limit=5)
    aec.reset(seed=2)
    twin = copy.deepcopy(aec)
    hand, draw = twin.table.state.hand[0], twin.table.state.draw[0]
    card = next(c for c in range(R.NUM_CARDS) if hand[c] and any(d != c for d in draw))
    other = next(d for d in draw if d != card)
    hand[card] -= 1
    hand[other] += 1
    draw[draw.index(other)] = card
    assert _seen_alike(copy.deepcopy(aec), twin, 0, np.random.default_rng(0)) == 0
    hidden_from_1 = _seen_alike(copy.deepcopy(aec), copy.deepcopy(twin), 1, np.random.default_rng(0))
    assert hidden_from_1 > 0


# -- one path: Dominion-v0 is this game with bots in the other seats -----------------------------------


def _single_episode(settings: dict[str, Any], opponents: list[Any], seat: int, seed: int) -> list[tuple]:
    """Dominion-v0's episode of a seeded random learner: the reset and every step as
    (observation, mask, reward, terminated, truncated, info)."""
    env = DominionEnv(opponents=opponents, seat=seat, **settings)
    rng = np.random.default_rng([seed, 99])
    obs, info = env.reset(seed=seed)
    seen = [(obs, info["action_mask"], 0.0, False, False, info)]
    while not (seen[-1][3] or seen[-1][4]):
        obs, reward, terminated, truncated, info = env.step(_legal(info["action_mask"], rng))
        seen.append((obs, info["action_mask"], reward, terminated, truncated, info))
    return seen


def _aec_episode(settings: dict[str, Any], opponents: list[Any], seat: int, seed: int,
                 ask_hidden_choices: bool = True) -> list[tuple]:
    """The same through dominion_v0: the test seats ``opponents`` in the other seats (seeded as
    Dominion-v0 seeds them) and plays them through ``raw_env.act``; the learner's every ``last()``.
    Its forced passes (the questions the engine skipped, which Dominion-v0 does not ask) are left
    out, each one's reward paid with the learner's next ``last()``, as Dominion-v0 pays it."""
    aec = dominion_v0.env(num_players=len(opponents) + 1, ask_hidden_choices=ask_hidden_choices, **settings)
    deal = int(deal_of_seed(seed))
    others = [p for p in range(len(opponents) + 1) if p != seat]
    players = {f"player_{p}": player for p, player in zip(others, opponents, strict=True)}
    for i, player in enumerate(opponents):
        player.reset(game_seed(deal, i + 1))
    rng = np.random.default_rng([seed, 99])
    aec.reset(seed=seed)
    learner = f"player_{seat}"
    seen = []
    unpaid = 0.0
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        forced = aec.unwrapped.table.forced_question is not None
        if terminated or truncated:
            action = None
        elif agent in players:
            action = aec.unwrapped.act(agent, players[agent])
        elif forced:
            action = R.PASS  # the learner's only answer: its random choice is not drawn, as in Dominion-v0
        else:
            action = _legal(obs["action_mask"], rng)
        if agent == learner:
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            if forced:
                assert ask_hidden_choices and info["decision"] in ("moat_reveal", "mine_trash", "action")
                assert legal_actions(obs["action_mask"]) == [R.PASS]
                unpaid += reward
            else:
                seen.append((obs["observation"], obs["action_mask"], unpaid + reward, terminated, truncated,
                             info))
                unpaid = 0.0
        aec.step(action)
    return seen


def _assert_same_trajectory(single: list[tuple], multi: list[tuple]) -> None:
    assert len(single) == len(multi)
    for step, (a, b) in enumerate(zip(single, multi, strict=True)):
        for part, x, y in zip(("observation", "mask", "reward", "terminated", "truncated", "info"), a, b,
                              strict=True):
            same = _same(x, y) if part != "reward" else float(x) == float(y)
            assert same, f"step {step}: {part} differs: {x!r} != {y!r}"


CASES = [
    (["random"], 0), (["random"], 1),
    (["random", "smithy-big-money"], 0), (["big-money-ultimate", "random"], 1), (["random", "big-money"], 2),
]


@pytest.mark.parametrize(("opponents", "seat"), CASES, ids=[f"{len(o) + 1}p-seat{s}" for o, s in CASES])
def test_dominion_v0_episode_is_the_single_agent_episode_with_the_bots_in_the_other_seats(
    opponents: list[str], seat: int
) -> None:
    # The random bot plays Militia and Moat, so the learner also answers on the others' turns.
    settings = {"turn_limit": 12}
    for seed in range(4):
        single = _single_episode(settings, [make_bot(n) for n in opponents], seat, seed)
        multi = _aec_episode(settings, [make_bot(n) for n in opponents], seat, seed)
        _assert_same_trajectory(single, multi)
        assert single[-1][5]["deal"] == deal_of_seed(seed)
        # Without the forced passes, dominion_v0's learner steps are Dominion-v0's one for one.
        exact = _aec_episode(settings, [make_bot(n) for n in opponents], seat, seed, ask_hidden_choices=False)
        _assert_same_trajectory(single, exact)


def test_any_agent_in_the_other_seats_plays_alike_in_both() -> None:
    # A non-bot Agent acts on its seat's observation and info in both environments; and the
    # shaping reward, for a learner that moves first, is the same step by step.
    settings = {"turn_limit": 10, "vp_shaping": 0.5}
    for seed in range(3):
        single = _single_episode(settings, [RandomAgent(), make_bot("big-money")], 0, seed)
        multi = _aec_episode(settings, [RandomAgent(), make_bot("big-money")], 0, seed)
        _assert_same_trajectory(single, multi)


def test_vp_shaping_sums_to_the_result_and_the_final_margin() -> None:
    aec = dominion_v0.raw_env(num_players=3, vp_shaping=0.25, turn_limit=40)
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    rng = np.random.default_rng(4)
    aec.reset(seed=4)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        totals[agent] += reward
        aec.step(None if terminated or truncated else _legal(obs["action_mask"], rng))
    state = aec.table.state
    assert state.done and not state.truncated
    for p, result in enumerate(state.results()):
        margin = state.vp(p) - max(state.vp(q) for q in range(3) if q != p)
        assert math.isclose(totals[f"player_{p}"], result + 0.25 * margin)


# -- playing against the rule bots ----------------------------------------------------------------


@pytest.mark.parametrize("bots", [["big-money", "smithy-big-money"],
                                  ["big-money-ultimate", "buy-money-and-duchy", "smithy-big-money"]])
def test_bots_in_every_seat_play_the_bots_own_game(bots: list[str]) -> None:
    # A PettingZoo loop that lets the bots choose through raw_env.act plays exactly the game the
    # bots play among themselves (agents.dominion.play_game, straight on the engine).
    aec = dominion_v0.env(num_players=len(bots), turn_limit=100)
    for seed in range(3):
        aec.reset(seed=seed)
        seated = [make_bot(n) for n in bots]
        for agent in aec.agent_iter():
            _, _, terminated, truncated, _ = aec.last()
            aec.step(None if terminated or truncated else aec.unwrapped.act(agent, seated[int(agent[7:])]))
        own = play_game([make_bot(n) for n in bots], seed=int(deal_of_seed(seed)), turn_limit=100)
        state = aec.unwrapped.table.state
        assert state.history == own.history and state.results() == own.results()


def test_a_bot_reading_the_observation_chooses_as_from_the_engine() -> None:
    # DominionBot.act decodes the seat's observation: the same choices as from the engine's view,
    # so a bot may also play straight from what the AEC environment shows.
    aec = dominion_v0.raw_env(num_players=3, turn_limit=30)
    bot = make_bot("smithy-big-money")
    for seed in range(2):
        rng = np.random.default_rng(seed)
        aec.reset(seed=seed)
        for agent in aec.agent_iter():
            obs, _, terminated, truncated, info = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            action = aec.act(agent, bot)
            assert action == bot.act(obs["observation"], info)
            aec.step(action if agent == "player_0" else _legal(obs["action_mask"], rng))


def test_act_names_who_is_to_move() -> None:
    aec = dominion_v0.raw_env(num_players=2)
    bot = make_bot("big-money")
    with pytest.raises(GameOverError, match="reset"):
        aec.act("player_0", bot)
    aec.reset(seed=0)
    with pytest.raises(ValueError, match="player_1 is not to move; player_0 is"):
        aec.act("player_1", bot)
    with pytest.raises(ValueError, match="unknown agent 'player_2'"):
        aec.act("player_2", bot)
    assert isinstance(bot, DominionBot) and aec.act("player_0", bot) in np.flatnonzero(
        aec.observe("player_0")["action_mask"])
    while not aec.table.done:
        aec.step(aec.act(aec.agent_selection, bot))
    with pytest.raises(GameOverError, match="over"):
        aec.act("player_0", bot)


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("settings", "message"), [
    ({"num_players": 1}, "num_players must be at least 2"),
    ({"num_players": 5}, "num_players must be at most 4"),
    ({"num_players": "2"}, "num_players must be an integer"),
    ({"kingdom": "gold"}, "Gold is not a kingdom card"),
    ({"kingdom": "dragon"}, "unknown card 'dragon'"),
    ({"turn_limit": 0}, "turn_limit must be at least 1"),
    ({"turn_limit": None}, "turn_limit must be an integer"),
    ({"vp_shaping": -1}, "vp_shaping must be at least 0"),
    ({"vp_shaping": float("nan")}, "vp_shaping must be a finite number"),
    ({"reveal_deal": "yes"}, "reveal_deal must be True or False"),
    ({"render_mode": "svg"}, "render_mode must be None, 'ansi', 'rgb_array' or 'human', got 'svg'"),
])
def test_bad_settings_are_refused_naming_them(settings: dict[str, Any], message: str) -> None:
    for make in (dominion_v0.raw_env, dominion_v0.env):
        with pytest.raises(ValueError, match=message):
            make(**settings)


def test_bad_actions_and_resets_raise_clear_errors() -> None:
    aec = dominion_v0.raw_env(num_players=2, turn_limit=2)
    with pytest.raises(GameOverError, match="reset"):
        aec.step(0)
    aec.reset(seed=1)
    before = aec.table.state.copy()
    with pytest.raises(IllegalActionError, match=r"legal actions: \[") as error:
        aec.step(R.PROVINCE)  # $5 at most on the first turn
    assert R.PASS in error.value.legal
    for bad in (1.5, "pass", None, np.bool_(True)):
        with pytest.raises(IllegalActionError, match="an action is an integer"):
            aec.step(bad)
    with pytest.raises(IllegalActionError, match="actions are card ids"):
        aec.step(18)
    assert aec.table.state.history == before.history  # nothing was played
    aec.step(np.array(R.PASS))  # a 0-d array, as model.predict gives, is an action
    with pytest.raises(InvalidDealError, match="decimal integer"):
        aec.reset(options={"deal": "not a seed"})
    assert aec.table.state.history == [(0, R.PASS)]  # a refused reset leaves the game as it was
    with pytest.raises(ValueError, match="options must be None"):
        aec.reset(options="deal")
    with pytest.warns(UserWarning, match=r"reset options \['seat'\] are not used"):
        aec.reset(options={"seat": 1})
    with pytest.raises(ValueError, match="seed must be at least 0"):
        aec.reset(seed=-1)
    # The game's end: a finished agent is stepped with None only, then nothing is left to step.
    while not aec.table.done:
        aec.step(R.PASS)
    assert aec.truncations["player_0"]
    with pytest.raises(ValueError, match="None"):
        aec.step(R.PASS)
    for _ in range(2):
        aec.step(None)
    with pytest.raises(GameOverError, match="every agent has left"):
        aec.step(None)
    # The wrapped environment checks bounds and order as PettingZoo's wrappers do.
    wrapped = dominion_v0.env(num_players=2)
    wrapped.reset(seed=0)
    with pytest.raises(AssertionError):
        wrapped.step(R.NUM_ACTIONS)


def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "games" / "dominion.md"
    marker = "<!-- dominion-v0-example -->"
    code = re.search(re.escape(marker) + r"\s*```python\n(.*?)```", page.read_text(), flags=re.S)
    assert code is not None
    exec(compile(code.group(1), str(page), "exec"), {})
    result, deal = capsys.readouterr().out.split()
    assert result in {"-1", "0", "1"} and deal == deal_of_seed(0)


def test_shaping_before_a_later_seats_first_decision_is_paid_only_by_dominion_v0() -> None:
    # Seat 1 behind a bot that buys an Estate with $2: that VP changes the margin before seat 1's
    # first decision. dominion_v0 pays it with seat 1's first last(); Dominion-v0 has no step for
    # it. Every later step is the same in both (the module docstrings say so).
    settings = {"turn_limit": 3, "vp_shaping": 0.5}
    bot = "buy-money-and-duchy-and-estate"
    paid_early = 0
    for seed in range(40):  # the bot's first hand is $2 one time in twelve
        single = _single_episode(settings, [make_bot(bot)], 1, seed)
        multi = _aec_episode(settings, [make_bot(bot)], 1, seed)
        start = single[0][0]
        vp = [start[PLAYERS.start + i * PLAYER_SIZE + R.NUM_CARDS] for i in range(2)]  # own, the bot's
        assert multi[0][2] == 0.5 * (vp[0] - vp[1])
        paid_early += multi[0][2] != 0
        _assert_same_trajectory(single, [(*multi[0][:2], 0.0, *multi[0][3:]), *multi[1:]])
    assert paid_early > 0


# -- hidden choices: whether a seat is asked says nothing of its hand -------------------------------


def _position(players: int, hands: dict[int, dict[int, int]], in_draw: dict[int, int],
              ask_hidden_choices: bool = True) -> Any:
    """dominion_v0 at player 0's action phase, each seat of ``hands`` holding those cards and Coppers
    for the rest (its owned cards changed to match) and ``in_draw``
    (seat -> card) owned and at the bottom of that seat's draw pile."""
    aec = dominion_v0.raw_env(num_players=players, turn_limit=5, ask_hidden_choices=ask_hidden_choices)
    aec.reset(seed=0)
    state = aec.table.state
    for c in range(R.NUM_CARDS):  # back from play: the turn starts again below
        state.hand[0][c] += state.in_play[0][c]
        state.in_play[0][c] = 0
    for seat, cards in hands.items():
        hand = state.hand[seat]
        hand[R.COPPER] += hand[R.ESTATE]
        state.owned[seat][R.COPPER] += hand[R.ESTATE]
        state.owned[seat][R.ESTATE] -= hand[R.ESTATE]
        hand[R.ESTATE] = 0
        for card, n in cards.items():
            hand[R.COPPER] -= n
            state.owned[seat][R.COPPER] -= n
            hand[card] += n
            state.owned[seat][card] += n
            if card not in (R.COPPER, R.ESTATE):
                state.supply[card] -= n
    for seat, card in in_draw.items():
        state.draw[seat].insert(0, card)
        state.owned[seat][card] += 1
        state.supply[card] -= 1
    state._start_turn()
    aec._update()
    return aec


def _swapped(aec: Any, seat: int, hand_card: int, draw_card: int) -> Any:
    """A hidden twin (``table._swap``): ``hand_card`` of ``seat``'s hand exchanged with a
    ``draw_card`` of its draw pile; what the other seats see is the same."""
    twin = copy.deepcopy(aec)
    _swap(seat, hand_card, twin.table.state.draw[seat].index(draw_card))(twin.table.state)
    twin._update()
    return twin


def _choose(aec: Any) -> int:
    """Player 0 plays Militia or Mine and then passes; the others pass or discard their lowest card."""
    legal = legal_actions(aec.observe(aec.agent_selection)["action_mask"])
    for card in (R.MILITIA, R.MINE, R.PASS):
        if card in legal:
            return card
    return legal[0]


def _views(aec: Any, observers: list[int], stop: Any) -> list[tuple]:
    """What each of ``observers`` sees at every step of player 0's turn until ``stop(aec)``: the agent
    to move, and its own observation, mask and info."""
    seen = []
    while aec.table.state.player == 0 and not stop(aec):
        seen.append((aec.agent_selection, aec.infos[aec.agent_selection]["decision"]))
        for seat in observers:
            agent = f"player_{seat}"
            seen.append((aec.observe(agent), aec.infos[agent]))
        aec.step(_choose(aec))
    return seen


def _same_views(a: list[tuple], b: list[tuple]) -> bool:
    return len(a) == len(b) and all(_same(x, y) for pa, pb in zip(a, b, strict=True)
                                    for x, y in zip(pa, pb, strict=True))


def _turn_over(aec: Any) -> bool:
    return False  # _views stops at the end of player 0's turn


@pytest.mark.parametrize("victim", [1, 2])
def test_whether_an_attacked_player_holds_a_moat_shows_to_no_other_seat(victim: int) -> None:
    # Player 0 plays Militia on players 1 and 2; the victim's Moat is in its hand in one game and at
    # the bottom of its draw pile in the other (the hidden twin that swaps it for a Copper). Every
    # other seat sees the same agents move and the same observation and info all turn long.
    without = _position(3, {0: {R.MILITIA: 1}}, {victim: R.MOAT})
    holding = _swapped(without, victim, R.COPPER, R.MOAT)
    assert holding.table.state.hand[victim][R.MOAT] and not without.table.state.hand[victim][R.MOAT]
    others = [s for s in range(3) if s != victim]
    seen = [_views(env, others, _turn_over) for env in (copy.deepcopy(holding), copy.deepcopy(without))]
    assert _same_views(*seen)
    # The turn order of the real game: each player, in turn, is asked about Moat, then discards.
    order = [step for step in seen[0] if isinstance(step[0], str)]
    assert [(a, d) for a, d in order if a != "player_0"] == [
        ("player_1", "moat_reveal"), ("player_1", "militia_discard"), ("player_1", "militia_discard"),
        ("player_2", "moat_reveal"), ("player_2", "militia_discard"), ("player_2", "militia_discard")]
    # The victim itself tells them apart (its hand), and the engine asked only the Moat's holder.
    agent = f"player_{victim}"
    assert not _same(holding.observe(agent)["observation"], without.observe(agent)["observation"])
    # Asked only where the engine asks, the Moat's holder has one more step: the leak this closes.
    bare = [_position(3, {0: {R.MILITIA: 1}}, {victim: R.MOAT}, ask_hidden_choices=False)]
    bare.append(_swapped(bare[0], victim, R.COPPER, R.MOAT))
    movers = [[step[0] for step in _views(env, others, _turn_over) if isinstance(step[0], str)]
              for env in bare]
    assert len(movers[1]) == len(movers[0]) + 1


def test_whether_a_mine_finds_a_treasure_shows_to_no_other_seat() -> None:
    # Player 0 plays Mine with four Estates, or with three and a Copper (swapped from its draw pile):
    # both are asked what to trash, and until the answer (the Copper played in the buy phase is
    # public) the other seats see the same.
    bare = _position(3, {0: {R.MINE: 1, R.ESTATE: 4}}, {0: R.COPPER})
    copper = _swapped(bare, 0, R.ESTATE, R.COPPER)
    assert copper.table.state.hand[0][R.COPPER] == 1
    assert not any(bare.table.state.hand[0][c] for c in R.TREASURES)

    def asked(aec: Any) -> list[tuple]:
        # Up to and with the question to trash; its answer then is pass in both.
        seen = _views(aec, [1, 2], lambda env: env.infos["player_0"]["decision"] == "mine_trash")
        now = [(aec.observe(agent), aec.infos[agent]) for agent in ("player_1", "player_2")]
        return [*seen, (aec.agent_selection, aec.infos["player_0"]["decision"]), *now]

    seen = [asked(copy.deepcopy(env)) for env in (copper, bare)]
    assert _same_views(*seen) and seen[0][-3] == ("player_0", "mine_trash")
    # The forced pass: nothing changes in the engine, which already stands at the buy.
    bare.step(R.MINE)
    before = copy.deepcopy(vars(bare.table.state))
    assert bare.table.forced_question == R.MINE_TRASH and before["decision"] == R.BUY
    bare.step(R.PASS)
    assert _same(vars(bare.table.state), before) and bare.infos["player_0"]["decision"] == "buy"
    # Asked only where the engine asks, the hand without a Treasure goes straight to its buy.
    engine_only = _position(3, {0: {R.MINE: 1, R.ESTATE: 4}}, {0: R.COPPER}, ask_hidden_choices=False)
    engine_only.step(R.MINE)
    assert engine_only.infos["player_0"]["decision"] == "buy"


def test_a_forced_pass_changes_nothing_in_the_game() -> None:
    # Random 3-player games: at every question the engine skipped, only pass is legal, anything else
    # is refused, and the pass leaves the engine's position as it was; the bots' PlayerView path
    # passes there too.
    aec = dominion_v0.raw_env(num_players=3, turn_limit=15)
    forced = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        aec.reset(seed=seed)
        while not aec.table.done:
            agent = aec.agent_selection
            table = aec.table
            if table.forced_question is not None:
                forced += 1
                assert legal_actions(aec.observe(agent)["action_mask"]) == [R.PASS]
                assert aec.infos[agent]["decision"] == R.DECISION_NAMES[table.forced_question]
                assert table.render(None).endswith("legal: pass")
                assert aec.act(agent, make_bot("big-money")) == R.PASS
                with pytest.raises(IllegalActionError, match="the only answer is pass"):
                    aec.step(R.MOAT)
                before = copy.deepcopy(vars(table.state))
                aec.step(R.PASS)
                assert _same(vars(aec.table.state), before)
                assert aec.table.forced_question is None
            else:
                aec.step(_legal(aec.observe(agent)["action_mask"], rng))
    assert forced > 0



def _play_on(aec: Any) -> int:
    """Village and Mine are played, any other Action card is not; otherwise as ``_choose``."""
    legal = legal_actions(aec.observe(aec.agent_selection)["action_mask"])
    for card in (R.VILLAGE, R.MINE, R.PASS):
        if card in legal:
            return card
    return legal[0]


def _seen_until(aec: Any, observers: list[int], stop: Any) -> list[tuple]:
    """The agent to move and its decision, and what each of ``observers`` sees, at every step until
    ``stop(aec)``; every seat answers as ``_play_on`` does."""
    seen = []
    while not aec.table.done and not stop(aec):
        seen.append((aec.agent_selection, aec.infos[aec.agent_selection]["decision"]))
        for seat in observers:
            agent = f"player_{seat}"
            seen.append((aec.observe(agent), aec.infos[agent]))
        aec.step(_play_on(aec))
    return seen


def _movers(aec: Any, stop: Any) -> list[tuple[str, str]]:
    return [step for step in _seen_until(aec, [], stop) if isinstance(step[0], str)]


ACTION_CASES = {
    # where: (seat, its hand, the Action card at the bottom of its draw pile, the hand card the twin
    # swaps for it, the questions of the seat's turn before its buy)
    "turn start": (1, {}, R.VILLAGE, R.COPPER, ["action"]),
    "after village": (0, {R.VILLAGE: 1}, R.SMITHY, R.COPPER, ["action", "action"]),
    "mine after village": (0, {R.VILLAGE: 1, R.MINE: 1, R.ESTATE: 3}, R.MARKET, R.ESTATE,
                           ["action", "action", "mine_trash", "action"]),
}


def _action_position(where: str, ask_hidden_choices: bool = True) -> Any:
    """Player 0 to move, the seat of ``ACTION_CASES[where]`` holding no Action card, and owning one at
    the bottom of its draw pile (so the action question is hidden). A Village draws an Estate, so
    that nothing but the swap differs."""
    seat, hand, in_draw, _, _ = ACTION_CASES[where]
    aec = _position(3, {seat: hand}, {seat: in_draw}, ask_hidden_choices)
    state = aec.table.state
    top = state.draw[seat][-1]
    state.owned[seat][top] -= 1
    state.owned[seat][R.ESTATE] += 1
    state.draw[seat][-1] = R.ESTATE
    return aec


@pytest.mark.parametrize("where", list(ACTION_CASES))
def test_whether_a_player_holds_an_action_card_shows_to_no_other_seat(where: str) -> None:
    # The seat's hand holds an Action card in one game (the engine asks which to play; the player
    # passes) and not in its hidden twin (the engine goes straight to the buy; the table asks anyway).
    # Until its buy, where the Treasures played are public, the other seats see the same; and the
    # agents to move are the same to the end of its turn. "turn start" is player 1's turn, once
    # player 0 (the starting deck, nothing to play) has passed its buy.
    seat, _, in_draw, hand_card, questions = ACTION_CASES[where]
    without = _action_position(where)
    holding = _swapped(without, seat, hand_card, in_draw)
    assert holding.table.state.hand[seat][in_draw]
    assert not any(without.table.state.hand[seat][c] for c in (R.SMITHY, R.MARKET))
    agent = f"player_{seat}"
    others = [s for s in range(3) if s != seat]
    turns = without.table.state.turns[seat]

    def at_buy(aec: Any) -> bool:
        return aec.table.state.player == seat and aec.infos[agent]["decision"] == "buy"

    def turn_over(aec: Any) -> bool:
        return aec.table.state.turns[seat] > turns

    seen = [_seen_until(copy.deepcopy(env), others, at_buy) for env in (holding, without)]
    assert _same_views(*seen)
    movers = [_movers(copy.deepcopy(env), turn_over) for env in (holding, without)]
    assert movers[0] == movers[1]
    assert [d for a, d in movers[0] if a == agent] == [*questions, "buy"]
    # The forced action question: only pass legal, and the player's own view is the engine's at an
    # action question (its Treasures still in hand).
    forced = copy.deepcopy(without)
    _seen_until(forced, [], lambda aec: aec.table.forced_question == R.ACTION)
    assert legal_actions(forced.observe(agent)["action_mask"]) == [R.PASS]
    text = forced.table.render(seat)
    assert text.endswith("legal: pass") and "decision: action" in text
    hand = forced.observe(agent)["observation"][HAND]
    assert hand[R.COPPER] + hand[R.ESTATE] == sum(hand) > 0
    # Asked only where the engine asks, the hand without an Action card has fewer steps.
    bare = _action_position(where, ask_hidden_choices=False)
    bare_movers = [_movers(copy.deepcopy(env), turn_over)
                   for env in (_swapped(bare, seat, hand_card, in_draw), bare)]
    assert len(bare_movers[1]) < len(bare_movers[0])


def test_the_forced_action_question_is_the_engines_own_before_the_treasures() -> None:
    # Random 3-player games with the first-game kingdom: at every action question the engine skipped,
    # the position shown is one at which the engine itself would ask it (pass alone legal, no
    # Treasure played yet), and passing there gives the engine's own position, Treasures played. It
    # is asked at the start of turns and after Actions resolve, never with no Action left or none
    # owned outside play.
    aec = dominion_v0.raw_env(num_players=3, turn_limit=15)
    starts = after_actions = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        aec.reset(seed=seed)
        while not aec.table.done:
            table, agent = aec.table, aec.agent_selection
            state = table.state
            if table.forced_question == R.ACTION:
                shown = table._shown()
                assert shown.legal_actions() == [R.PASS] and shown.actions > 0
                assert not any(shown.in_play[shown.player][t] for t in R.TREASURES)
                owned, in_play = state.owned[state.player], state.in_play[state.player]
                assert any(owned[c] > in_play[c] for c in R.ACTION_CARDS)
                assert aec.observe(agent)["observation"][DECISION.start + R.ACTION] == 1
                shown.apply(R.PASS)
                engine = {k: v for k, v in vars(state).items() if k != "history"}
                assert _same({k: v for k, v in vars(shown).items() if k != "history"}, engine)
                played = any(state.in_play[state.player][c] for c in R.ACTION_CARDS)
                after_actions += played
                starts += not played
            if table.forced_question is not None:
                aec.step(R.PASS)
            else:
                aec.step(_legal(aec.observe(agent)["action_mask"], rng))
    assert starts > 0 and after_actions > 0, (starts, after_actions)

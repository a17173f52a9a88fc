"""Modern Art environment and bots: Gymnasium contract, seeding, hidden information, errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import tabletop_gym  # noqa: F401
from tabletop_gym.agents.base import RandomAgent
from tabletop_gym.core import GameOverError, IllegalActionError, InvalidDealError
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.envs.modern_art.bots import GreedyAgent
from tabletop_gym.envs.modern_art.env import HAND, HAND_SIZES, OBS_SIZE, TURN, ModernArtEnv, score_plan


def play_out(env: ModernArtEnv, seed: int, agent=None) -> tuple[list[int], float, dict]:
    agent = agent or RandomAgent(seed)
    obs, info = env.reset(seed=seed)
    actions, total, done = [], 0.0, False
    while not done:
        assert env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = agent.act(obs, info)
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        actions.append(action)
        total += reward
    return actions, total, info


def test_make_without_import_and_render() -> None:
    env = gym.make("tabletop_gym:tabletop/ModernArt-v0", players=3, render_mode="ansi", reveal_deal=True)
    _, info = env.reset(seed=0)
    assert len(info["deal"]) == 2 * 95
    text = env.render()
    assert "P1 hand (13): (hidden)" in text and "P0 hand (13): " in text and "your options" in text


@pytest.mark.parametrize("players, seat", [(2, 0), (2, 1), (3, 2), (5, 3)])
def test_return_is_the_seats_score_and_replays(players: int, seat: int) -> None:
    env = ModernArtEnv(players=players, seat=seat)
    _, total, info = play_out(env, 11)
    assert total == info["score"] == info["scores"][seat]
    again = R.replay(env.rules, info["deal"], env.state.history)
    assert again.done and again.money == info["scores"].tolist()


def test_given_deal_is_played_and_bad_deals_rejected() -> None:
    rules = R.ModernArtRules(players=2)
    deal = R.random_deal(rules, 3)
    env = ModernArtEnv(reveal_deal=True)  # the deal is hidden during play unless asked for
    obs, info = env.reset(options={"deal": deal})
    assert info["deal"] == deal
    hand = R.State(rules, deal).hands[0]
    assert obs[HAND].tolist() == hand
    with pytest.raises(InvalidDealError):
        env.reset(options={"deal": deal[:-2]})


def test_observation_hides_other_hands() -> None:
    rules = R.ModernArtRules(players=2)
    cards = list(R.parse_deal(R.random_deal(rules, 9), rules))
    # seat 1's first card sits at position 1; swap it with a card deep in the deck
    other = next(i for i in range(60, 95) if cards[i] != cards[1])
    swapped = cards.copy()
    swapped[1], swapped[other] = swapped[other], swapped[1]
    env = ModernArtEnv()
    obs_a, _ = env.reset(options={"deal": R.deal_string(cards)})
    obs_b, _ = env.reset(options={"deal": R.deal_string(swapped)})
    assert np.array_equal(obs_a, obs_b)
    assert obs_a.shape == (OBS_SIZE,) and obs_a[HAND_SIZES][:2].tolist() == [13, 13]


def test_seat_argument_waits_for_opponents() -> None:
    env = ModernArtEnv(players=3, seat=2)
    obs, info = env.reset(seed=1)
    assert env.state.to_move == 2 and obs[TURN] == 0
    assert sum(env.state.hand_sizes) < 39  # two opponents have played first


def test_errors() -> None:
    env = ModernArtEnv()
    with pytest.raises(GameOverError):
        env.step(0)
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(illegal)
    with pytest.raises(IllegalActionError):
        env.step("a card")  # type: ignore[arg-type]
    play_out(env, 2)
    with pytest.raises(GameOverError):
        env.step(0)
    with pytest.raises(ValueError, match="seat"):
        ModernArtEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="opponents"):
        ModernArtEnv(players=3, opponents=[RandomAgent()])
    with pytest.raises(ValueError, match="round_limit"):
        ModernArtEnv(round_limit=0)


def test_rule_parameters_reach_the_engine() -> None:
    env = ModernArtEnv(players=3, round_limit=4, end_of_round_plays=True)
    assert env.rules.round_limit == 4 and env.rules.end_of_round_plays
    play_out(env, 4)


@pytest.mark.parametrize("players", [2, 3])
def test_symbol_rule_parameters_reach_the_engine(players: int) -> None:
    env = ModernArtEnv(players=players, second_card_symbols=True, resolve_ending_card=True)
    assert env.rules.second_card_symbols and env.rules.resolve_ending_card
    assert not ModernArtEnv().rules.second_card_symbols and not ModernArtEnv().rules.resolve_ending_card
    for seed in range(3):
        _, total, info = play_out(env, seed)
        assert total == info["score"]
        again = R.replay(env.rules, info["deal"], env.state.history)
        assert again.money == info["scores"].tolist()


def test_greedy_beats_random_and_self_play_works() -> None:
    wins = 0
    for seed in range(12):
        env = ModernArtEnv(players=2, opponents=[RandomAgent(seed)])
        _, _, info = play_out(env, seed, GreedyAgent())
        wins += info["scores"][0] > info["scores"][1]
    assert wins >= 9
    env = ModernArtEnv(players=4, opponents=[GreedyAgent(), RandomAgent(1), GreedyAgent()])
    play_out(env, 1, GreedyAgent())


# The greedy player and the observation as first written, kept as plain references: the fast versions
# must choose and show exactly the same. The reference scores with the engine's own round scoring, so
# the greedy player must follow the rules' value tokens and award value.
def _reference_points(counts, own, values, awards, rules: R.ModernArtRules) -> int:
    return R.round_points(counts, [own], values, awards, rules)[0][0]


def _reference_greedy(obs: list[int], legal: list[int], rules: R.ModernArtRules | None = None) -> int:
    from tabletop_gym.envs.modern_art.env import AWARDS, DECISION, EXTRA, OWN_HIDDEN, PLAYERS, SHOWN, VALUES

    if len(legal) == 1:
        return legal[0]
    counts = [obs[EXTRA.start + a] + obs[OWN_HIDDEN.start + a] for a in range(5)]
    for seat in range(obs[PLAYERS]):
        for a in range(5):
            counts[a] += obs[SHOWN.start + seat * 5 + a]
    own = [obs[SHOWN.start + a] + obs[OWN_HIDDEN.start + a] for a in range(5)]
    values, awards, hand = obs[VALUES], obs[AWARDS], obs[HAND]
    held = [sum(hand[a * 6 : a * 6 + 6]) for a in range(5)]

    def points(add=(), award=None) -> int:
        c, o, w = list(counts), list(own), list(awards)
        for a in add:
            c[a] += 1
            o[a] += 1
        if award is not None:
            w[award] += 1
        return _reference_points(c, o, values, w, R.ModernArtRules() if rules is None else rules)

    base = points()
    if obs[DECISION] == R.AWARD_ARTIST:
        best, best_key = legal[0], None
        for action in legal:
            if R.CHOOSE_ARTIST <= action < R.PASS:
                a = action - R.CHOOSE_ARTIST
                key = (points(award=a) - base, held[a], counts[a])
                if best_key is None or key > best_key:
                    best, best_key = action, key
        return best
    best, best_key = (R.PASS, (0.0, 0, 0)) if R.PASS in legal else (legal[0], None)
    for action in legal:
        if action >= R.NUM_KINDS:
            continue
        artist, symbol = divmod(action, 6)
        now = points((artist,))
        value = float(now - base)
        if obs[DECISION] == R.PLAY and symbol == R.DRAW:
            value += 0.5
        elif obs[DECISION] == R.PLAY and symbol == R.AWARD:
            value += float(max(points((artist,), award=a) - now for a in range(5)))
        elif obs[DECISION] == R.PLAY and symbol == R.DOUBLE and held[artist] > 1:
            value += float(max(0, points((artist, artist)) - now))
        elif obs[DECISION] == R.PLAY and symbol == R.HIDDEN:
            second = [points((artist, a)) - now for a in range(5) if held[a] - (a == artist) > 0]
            value += float(max([0, *second]))
        key = (value, 1 if symbol == 0 else 0, -action)
        if best_key is None or key > best_key:
            best, best_key = action, key
    return best


def _reference_observe(state: R.State, seat: int) -> list[int]:
    n, pad = state.rules.players, 5 - state.rules.players
    seats = [(seat + rel) % n for rel in range(n)]
    double = state.phase in (R.DOUBLE_CARD, R.SIMULTANEOUS_CARD)
    return [
        *state.hands[seat],
        *[x for p in seats for x in state.up[p]],
        *[0] * (pad * 5),
        *state.down[seat],
        *[sum(state.down[p]) for p in seats],
        *[0] * pad,
        *state.extra,
        *state.values,
        *state.awards,
        *[state.money[p] for p in seats],
        *[0] * pad,
        *[state.hand_sizes[p] for p in seats],
        *[0] * pad,
        state.deck_left,
        min(state.round, state.rules.rounds - 1),
        state.phase,
        (state.turn_player - seat) % n,
        n,
        state.awards_left,
        state.double_artist + 1 if double else 0,
    ]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"players": 3, "end_of_round_plays": True},
        {"players": 4, "second_card_symbols": True, "simultaneous_same_artist": True},
        {"players": 5, "extra_card_each_round": True, "resolve_ending_card": True, "at_once": False},
        {"players": 2, "value_tokens": (1, 4), "award_value": 6},
        {"players": 3, "value_tokens": (5, 0, 2, 1), "award_value": 0},
    ],
)
def test_greedy_and_observation_match_the_references(params) -> None:
    from tabletop_gym.envs.modern_art.env import observe

    rules = R.ModernArtRules(**params)
    greedy, rng = GreedyAgent(rules), np.random.default_rng(3)
    for seed in range(4):
        state = R.State(rules, R.random_deal(rules, seed))
        while not state.done:
            for seat in range(rules.players):
                obs = observe(state, seat)
                assert obs.dtype == np.int64 and obs.tolist() == _reference_observe(state, seat)
            obs = observe(state, state.to_move)
            mask = state.action_mask().view(np.int8)
            legal = state.legal_actions()
            choice = greedy.act(obs, {"action_mask": mask})
            assert choice == _reference_greedy(obs.tolist(), legal, rules)
            state.apply(choice if rng.random() < 0.5 else legal[rng.integers(len(legal))])


def test_greedy_matches_the_reference_on_arbitrary_observations() -> None:
    from tabletop_gym.envs.modern_art.env import DECISION, PLAYERS

    greedy, rng = GreedyAgent(), np.random.default_rng(5)
    for _ in range(3000):
        obs = rng.integers(0, 4, OBS_SIZE) * (rng.random(OBS_SIZE) < 0.5)
        obs[DECISION], obs[PLAYERS] = rng.integers(0, 6), rng.integers(2, 6)
        mask = (rng.random(R.NUM_ACTIONS) < rng.random()).astype(np.int8)
        mask[rng.integers(R.NUM_ACTIONS)] = 1
        assert greedy.act(obs, {"action_mask": mask}) == _reference_greedy(
            obs.tolist(), np.flatnonzero(mask).tolist()
        )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"players": 9}, "players must be at most 5, got 9"),
        ({"players": 1}, "players must be at least 2, got 1"),
        ({"players": 2.0}, "players must be an integer"),
        ({"players": True}, "players must be an integer"),
        ({"seat": -1}, "seat must be at least 0"),
        ({"seat": np.int64(2)}, "seat must be at most 1"),
        ({"seat": 0.5}, "seat must be an integer"),
        ({"round_limit": float("nan")}, "round_limit must be an integer"),
        ({"deals": (13, 10**12)}, r"deals\[1\] must be at most 95"),
    ],
)
def test_bad_numbers_are_named(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ModernArtEnv(**kwargs)


def test_numpy_numbers_configure_the_environment() -> None:
    env = ModernArtEnv(players=np.int64(3), seat=np.int32(1), round_limit=np.int64(4), deals=np.array([13]))
    assert env.seat == 1 and env.rules.players == 3 and env.rules.rounds == 1
    _, _, info = play_out(env, 3)
    assert info["seat"] == 1


def test_large_rule_numbers_stay_in_the_observation_space() -> None:
    """Values and scores past the default ceiling (value tokens of 100, awards worth 100): the space's
    high grows with the rules, so every observation of a game stays in it (play_out checks)."""
    env = ModernArtEnv(value_tokens=(100, 50, 25), award_value=100, deals=(13, 6))
    _, total, info = play_out(env, 1)
    assert info["score"] == total and env.observation_space.contains(env.reset(seed=1)[0])
    assert ModernArtEnv(deals=(13,)).observation_space.high.min() > 0  # no constant slot


def test_reset_seeds() -> None:
    env = ModernArtEnv(reveal_deal=True)
    assert env.reset(seed=np.int64(3))[1]["deal"] == env.reset(seed=3)[1]["deal"]
    with pytest.raises(ValueError, match="seed must be at least 0, got -1"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="seed must be an integer"):
        env.reset(seed=1.5)


def test_score_plan_is_the_seats_money_once_the_engine_played_the_plan() -> None:
    """``score_plan`` (what the suites replay every stored plan with) takes the environment's
    keywords, JSON's lists included, and scores the environment's seat; a plan that stops early,
    holds an illegal move or comes with a keyword the environment does not take is refused."""
    rules = R.ModernArtRules(players=3, deals=(13,))
    deal = R.random_deal(rules, 5)
    state, rng, plan = R.State(rules, deal), np.random.default_rng(5), []
    while not state.done:
        legal = state.legal_actions()
        plan.append(legal[rng.integers(len(legal))])
        state.apply(plan[-1])
    assert len(set(state.money)) > 1  # the seats' scores differ: the seat chosen shows
    assert score_plan(deal, plan, players=3, rounds=1) == state.money[0]
    assert score_plan(deal, plan, players=3, deals=[13], seat=2, reveal_deal=True) == state.money[2]
    with pytest.raises(ValueError, match="stops before the game ends"):
        score_plan(deal, plan[:-1], players=3, rounds=1)
    with pytest.raises(IllegalActionError):
        score_plan(deal, [*plan[:-1], 99], players=3, rounds=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'round'"):
        score_plan(deal, plan, players=3, round=1)

"""Modern Art oracles: plans replay, the CP-SAT bound is never below the exhaustive optimum."""

from __future__ import annotations

import numpy as np
import pytest
from ortools.sat.python import cp_model

from tabletop_gym.core import OracleCache
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.oracles import modern_art as O

# A tiny deck: two cards per artist, one of them with a symbol; two players, two rounds.
TINY_DECK = (
    (1, 1, 0, 0, 0, 0),
    (1, 0, 1, 0, 0, 0),
    (1, 0, 0, 1, 0, 0),
    (1, 0, 0, 0, 1, 0),
    (1, 0, 0, 0, 0, 1),
)
TINY = R.Rules(players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2)


def _random_play(rules: R.Rules, deal: str, seed: int) -> R.State:
    rng = np.random.default_rng(seed)
    state = R.State(rules, deal)
    while not state.done:
        acts = state.legal_actions()
        state.apply(int(acts[rng.integers(len(acts))]))
    return state


@pytest.mark.parametrize("seed", range(4))
def test_bound_and_plan_against_brute_force_on_tiny_decks(seed: int) -> None:
    deal = R.random_deal(TINY, seed)
    for seat in (0, 1):
        best, plan = O.brute_force(TINY, deal, seat)
        assert R.replay(TINY, deal, plan).scores[seat] == best
        # no random line of play beats the exhaustive optimum
        for s in range(5):
            assert _random_play(TINY, deal, s).scores[seat] <= best
        result = O.solve(deal, TINY, seat, width=8, time_limit=0.5)
        assert result.score <= best <= result.bound
        assert R.replay(TINY, deal, result.plan).scores[seat] == result.score
        assert best <= O.artist_path_bound(TINY, R.parse_deal(deal, TINY), seat)[0]
        assert best <= O.artist_path_bound(TINY, None, seat)[0]
        assert best <= O.seat_round_bound(TINY, R.parse_deal(deal, TINY), seat, time_limit=0.5, workers=1)[0]
        exact = O.solve(deal, TINY, seat, exact_positions=100_000)
        assert exact.optimal and exact.score == best and exact.stats["method"] == "exhaustive"


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2, "deals": (3, 1), "end_of_round_plays": True, "at_once": False},
        {"players": 2, "deals": (2, 1, 1), "extra_card_each_round": True},
        {"players": 2, "deals": (3, 1), "resolve_ending_card": True},
        {"players": 3, "deals": (2, 1), "resolve_ending_card": True, "at_once": False},
        {"players": 3, "deals": (2, 1), "simultaneous_same_artist": True, "value_tokens": (2, 1)},
    ],
)
def test_relaxation_bounds_valid_with_parameters(params) -> None:
    rules = R.Rules(deck=TINY_DECK, round_limit=2, **params)
    deal = R.random_deal(rules, 3)
    cards = R.parse_deal(deal, rules)
    for seat in (rules.players - 1,):  # the last seat: its deal offsets differ from seat 0's
        best, plan = O.brute_force(rules, deal, seat)
        # the optimal plan hints the search (a feasible start; time limits stay short)
        bound, found, _ = O.relaxation_bound(rules, cards, seat, time_limit=1, workers=1, plan=plan)
        free, _, _ = O.relaxation_bound(
            rules, None, seat, time_limit=2, workers=1, plan=plan, plan_deal=cards
        )
        assert found >= best  # the hinted real game is a solution of the model
        seat_only, _, _ = O.seat_round_bound(rules, None, seat, time_limit=0.5, workers=1)
        paths, _ = O.artist_path_bound(rules, cards, seat)
        free_paths, _ = O.artist_path_bound(rules, None, seat)
        assert best <= min(bound, free, seat_only, paths, free_paths)  # all proven bounds


def _beam_game(rules: R.Rules, cards, seat: int) -> R.State:
    """A strong line of play for ``seat`` (long rounds, symbols used, hands emptied)."""
    _, plan = O.beam_search(rules, cards, seat, width=4, hand_weight=0.3, per_round=2.0)
    return R.replay(rules, cards, plan)


def _fixed_in_model(rules: R.Rules, cards, history, seat: int, free: bool = False):
    """Solve ``build_model`` (of the deal ``cards``, or over every deal) with the plays of the real
    game ``history`` fixed; it must be feasible. Returns (solver, handles)."""
    model, handles = O.build_model(rules, None if free else cards, seat)
    O._hint(model, handles, rules, cards, history)
    hint = model.Proto().solution_hint
    for index, value in zip(hint.vars, hint.values, strict=True):
        model.Add(model.GetIntVarFromProtoIndex(index) == value)
    model.ClearHints()
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = 20
    solver.parameters.num_workers = 1
    assert solver.Solve(model) == cp_model.OPTIMAL
    return solver, handles


@pytest.mark.parametrize(
    "players, seat, params, play",
    [
        (2, 0, {}, "random"),
        (2, 1, {}, "beam"),
        (3, 2, {}, "random"),
        (3, 0, {}, "beam"),
        (4, 3, {}, "beam"),
        (5, 1, {}, "random"),
        (2, 0, {"resolve_ending_card": True, "at_once": False}, "beam"),
        (3, 1, {"end_of_round_plays": True, "extra_card_each_round": True}, "random"),
        (2, 1, {"simultaneous_same_artist": True, "extra_card_each_round": True}, "beam"),
    ],
)
def test_real_games_satisfy_the_game_model(players: int, seat: int, params: dict, play: str) -> None:
    """The plays of a real full game, fixed in the model, are feasible and score exactly as the
    engine scores them: the model leaves no real game out (the bound's validity, on full deals).
    Random games end rounds early and empty no hands; beam games play long rounds and symbols."""
    rules = R.Rules(players=players, **params)
    cards = R.parse_deal(R.random_deal(rules, players + seat), rules)
    if play == "beam":
        final = _beam_game(rules, cards, seat)
    else:
        final = _random_play(rules, R.deal_string(cards), players)
    solver, _ = _fixed_in_model(rules, cards, final.history, seat)
    assert solver.ObjectiveValue() == final.scores[seat]


def _artist_paths(rules: R.Rules, cards, history, seat: int, monkeypatch) -> list[tuple]:
    """The arcs of ``artist_path_bound``'s network that the real game ``history`` takes, read from
    what the engine scores each round (its own ``round_points``, recorded)."""
    scored = []
    engine_points = R.round_points

    def recording(counts, own, values, awards, rules_):  # noqa: ANN001, ANN202
        points, won = engine_points(counts, own, values, awards, rules_)
        scored.append((list(counts), [list(o) for o in own], list(values), list(awards), won))
        return points, won

    monkeypatch.setattr(R, "round_points", recording)
    R.replay(rules, cards, history)
    monkeypatch.undo()
    assert len(scored) == rules.rounds
    keys = []
    for a in range(R.NUM_ARTISTS):
        value, held, awards_before = 0, 0, 0
        for r, (counts, own, values, awards, won) in enumerate(scored):
            k = awards[a] - awards_before
            awards_before = awards[a]
            keys.append((a, r, "award", value, held, k))
            value += rules.award_value * k
            top = R.rank_artists(counts, len(rules.value_tokens))
            place = top.index(a) if a in top else -1
            keys.append((a, r, "place", value, held, place))
            if place >= 0:
                value += rules.value_tokens[place]
                # the path's value is the engine's at scoring
                assert value == values[a] + won[a] + rules.award_value * awards[a]
                keys.append((a, r, "cards", value, held, own[seat][a]))
                held += own[seat][a]
    return keys


@pytest.mark.parametrize(
    "players, seat, params, play, free",
    [
        (2, 0, {}, "random", True),  # over every deal too (a larger network: once is enough here)
        (2, 1, {}, "beam", False),
        (3, 2, {}, "beam", False),
        (4, 3, {}, "random", False),
        (5, 1, {}, "beam", False),
        (2, 0, {"resolve_ending_card": True, "value_tokens": (3, 2)}, "beam", False),
        (3, 1, {"end_of_round_plays": True, "extra_card_each_round": True}, "beam", False),
    ],
)
def test_real_games_take_a_path_of_the_artist_path_relaxation(
    players: int, seat: int, params: dict, play: str, free: bool, monkeypatch
) -> None:
    """Each artist's path in a real game is in the network, the paths together meet every
    coupling row, and with them fixed the LP pays exactly the seat's score: the path bound leaves
    no real game out."""
    rules = R.Rules(players=players, **params)
    cards = R.parse_deal(R.random_deal(rules, 30 + players + seat), rules)
    if play == "beam":
        final = _beam_game(rules, cards, seat)
    else:
        final = _random_play(rules, R.deal_string(cards), seat)
    for deal in (cards, None) if free else (cards,):
        lp, arcs = O._path_lp(rules, deal, seat)
        for key in _artist_paths(rules, cards, final.history, seat, monkeypatch):
            assert key in arcs, f"the real game's step {key} is not in the network"
            lp.row(1.0, 1.0, [(1.0, arcs[key])])
        optimum, safe = lp.bound()
        assert round(optimum) == final.scores[seat] and safe >= final.scores[seat] - 1e-6


def test_free_deal_search_plan_replays() -> None:
    rules = R.Rules(players=2)
    score, deal, plan = O.free_deal_search(rules, deals=1, width=2)
    assert R.replay(rules, deal, plan).scores[0] == score > 0
    stacked = O.stacked_deal(rules, 5)
    assert R.parse_deal(stacked, rules)  # a complete deck
    first_hand = R.State(rules, stacked).hands[0]
    awards = sum(first_hand[a * R.NUM_SYMBOLS + R.AWARD] for a in range(R.NUM_ARTISTS))
    assert awards == 5  # the stacked hand holds every award card


def test_full_deal_plan_replays_and_is_cached(tmp_path, monkeypatch) -> None:
    rules = R.Rules(players=3)
    deal = R.random_deal(rules, 0)
    cache = OracleCache(tmp_path)
    result = O.solve_cached(deal, rules, 1, cache, width=4, time_limit=1)
    final = R.replay(rules, deal, result.plan)
    assert final.done and final.scores[1] == result.score <= result.bound
    again = O.solve_cached(deal, rules, 1, cache, width=4, time_limit=1)
    assert cache.hits == 1 and again.score == result.score
    # a result cached by another oracle revision is not served
    monkeypatch.setattr(O, "ORACLE_REVISION", O.ORACLE_REVISION + 1)
    O.solve_cached(deal, rules, 1, cache, width=4, time_limit=1)
    assert cache.hits == 1
    monkeypatch.undo()
    forged = type(result)(score=result.score + 1, bound=result.bound + 1, plan=result.plan)
    assert not O.check(deal, forged, rules, 1)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="seat"):
        O.solve(R.random_deal(TINY, 0), TINY, seat=2)
    with pytest.raises(R.InvalidDealError):
        O.solve("L.", TINY)


def test_second_card_symbols_are_refused() -> None:
    rules = R.Rules(players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2, second_card_symbols=True)
    deal = R.random_deal(rules, 0)
    for call in (
        lambda: O.solve(deal, rules),
        lambda: O.build_model(rules, R.parse_deal(deal, rules)),
        lambda: O.seat_round_bound(rules, None),
        lambda: O.free_deal_bound(rules, time_limit=0.1),
        lambda: O.brute_force(rules, deal, 0),
        lambda: O.solve(deal, rules, exact_positions=100_000),
    ):
        with pytest.raises(ValueError, match="second_card_symbols"):
            call()


@pytest.mark.parametrize("players, seat", [(2, 0), (3, 1)])
def test_realize_finds_an_order_for_the_plays_of_a_real_game(players: int, seat: int) -> None:
    """Given only what each player plays per round (no order), the realizer finds an order the
    engine accepts, and the game scores what the real one did."""
    rules = R.Rules(players=players)
    cards = R.parse_deal(R.random_deal(rules, 10 + players), rules)
    real = _beam_game(rules, cards, seat)
    plays = O.plan_plays(rules, cards, real.history)["plays"]
    reached = O.realize(rules, cards, plays)
    assert reached.done
    assert reached.scores == real.scores
    replayed = R.replay(rules, cards, reached.history)
    assert replayed.scores == real.scores


def test_solve_realizes_relaxation_solutions_into_replayed_plans() -> None:
    rules = R.Rules(players=2)
    deal = R.random_deal(rules, 1)
    result = O.solve(deal, rules, 0, width=8, time_limit=4)
    assert result.stats["plan_source"]
    final = R.replay(rules, deal, result.plan)
    assert final.done and final.scores[0] == result.score <= result.bound


@pytest.mark.parametrize("players", [2, 3])
def test_realize_free_deals_and_plays_a_free_model_solution(players: int) -> None:
    """A real game, fixed in the free-deal model, gives a solution; ``realize_free`` turns it into a
    deal and a game of it that the engine replays to the model's objective."""
    rules = R.Rules(players=players)
    cards = R.parse_deal(R.random_deal(rules, 20 + players), rules)
    real = _beam_game(rules, cards, 0)
    solver, handles = _fixed_in_model(rules, cards, real.history, 0, free=True)
    assert solver.ObjectiveValue() == real.scores[0]
    plays = O.solution_plays(solver, handles, rules)
    reached, deck = O.realize_free(rules, plays)
    assert reached.done
    assert sorted(deck) == sorted(rules.cards())
    final = R.replay(rules, R.deal_string(deck), reached.history)
    assert final.scores[0] == real.scores[0]


def test_free_deal_plan_replays_below_its_bound() -> None:
    rules = R.Rules(players=2)
    free = O.free_deal(rules, deals=1, width=2, time_limit=3, realized=1, node_limit=2_000)
    final = R.replay(rules, free["deal"], free["plan"])
    assert final.done and final.scores[0] == free["score"] <= free["bound"]
    assert free["plan_source"]


def _round_endings(rules: R.Rules, cards, history) -> list[tuple[int, int]]:
    """Per round ended at the limit: (the last turn card's kind, artists at the limit or past it)."""
    state = R.State(rules, cards)
    column = list(state.column)
    last, endings = -1, []
    for action in history:
        r, phase = state.round, state.phase
        state.apply(action)
        if phase == R.PLAY:
            last = action
        if phase in (R.PLAY, R.DOUBLE_CARD, R.SIMULTANEOUS_CARD) and action != R.PASS:
            column[R.artist_of(action)] += 1
        if state.round != r:
            at_limit = sum(c >= rules.round_limit for c in column)
            if at_limit:
                endings.append((last, at_limit))
            column = list(state.column)
    return endings


@pytest.mark.parametrize("ending", ["award card", "two artists past the limit"])
def test_rare_round_endings_satisfy_the_game_model(ending: str) -> None:
    """The model's last-display constraints hold in real games that end a round on an award card
    (whose token is then not placed) or take two artists to the limit at once."""
    rules = R.Rules(players=3)
    for seed in range(400):
        cards = R.parse_deal(R.random_deal(rules, seed), rules)
        final = _random_play(rules, R.deal_string(cards), seed)
        endings = _round_endings(rules, cards, final.history)
        if ending == "award card":
            found = any(R.symbol_of(kind) == R.AWARD for kind, _ in endings)
        else:
            found = any(count >= 2 for _, count in endings)
        if found:
            solver, _ = _fixed_in_model(rules, cards, final.history, 0)
            assert solver.ObjectiveValue() == final.scores[0]
            return
    pytest.fail(f"no random game with a round ending on {ending} in 400 seeds")


def test_a_failed_path_lp_leaves_the_other_bounds_standing(monkeypatch) -> None:
    deal = R.random_deal(TINY, 1)
    best, _ = O.brute_force(TINY, deal, 0)

    def gives_up(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("path LP not solved: status 4")

    monkeypatch.setattr(O, "artist_path_bound", gives_up)
    result = O.solve(deal, TINY, 0, width=8, time_limit=0.5)
    assert result.stats["path_lp"] == "path LP not solved: status 4" and "path_bound" not in result.stats
    assert result.score <= best <= result.bound
    assert result.bound == result.stats.get("game_model_bound", result.stats.get("seat_model_bound"))

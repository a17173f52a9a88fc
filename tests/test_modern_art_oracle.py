"""Modern Art oracles: plans replay, the CP-SAT bound is never below the exhaustive optimum."""

from __future__ import annotations

import time

import numpy as np
import pytest
from ortools.sat.python import cp_model

from tabletop_gym.core import OracleCache
from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.oracles import modern_art as O

# The package's modules whose names a test replaces (monkeypatch): where the code looks them up.
from tabletop_gym.oracles.modern_art import bounds, common, paths, realization
from tabletop_gym.oracles.modern_art import oracle as solving

# A tiny deck: two cards per artist, one of them with a symbol; two players, two rounds.
TINY_DECK = (
    (1, 1, 0, 0, 0, 0),
    (1, 0, 1, 0, 0, 0),
    (1, 0, 0, 1, 0, 0),
    (1, 0, 0, 0, 1, 0),
    (1, 0, 0, 0, 0, 1),
)
TINY = R.ModernArtRules(players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2)


def _random_play(rules: R.ModernArtRules, deal: str, seed: int) -> R.State:
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
        assert R.replay(TINY, deal, plan).money[seat] == best
        # no random line of play beats the exhaustive optimum
        for s in range(5):
            assert _random_play(TINY, deal, s).money[seat] <= best
        result = O.solve(deal, TINY, seat, width=8, time_limit=0.5)
        assert result.score <= best <= result.bound
        assert R.replay(TINY, deal, result.plan).money[seat] == result.score
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
    rules = R.ModernArtRules(deck=TINY_DECK, round_limit=2, **params)
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


def _beam_game(rules: R.ModernArtRules, cards, seat: int) -> R.State:
    """A strong line of play for ``seat`` (long rounds, symbols used, hands emptied)."""
    _, plan = O.beam_search(rules, cards, seat, width=4, hand_weight=0.3, per_round=2.0)
    return R.replay(rules, cards, plan)


def _fixed_in_model(rules: R.ModernArtRules, cards, history, seat: int, free: bool = False):
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
    rules = R.ModernArtRules(players=players, **params)
    cards = R.parse_deal(R.random_deal(rules, players + seat), rules)
    if play == "beam":
        final = _beam_game(rules, cards, seat)
    else:
        final = _random_play(rules, R.deal_string(cards), players)
    solver, _ = _fixed_in_model(rules, cards, final.history, seat)
    assert solver.ObjectiveValue() == final.money[seat]


def _last_draw_played(rules: R.ModernArtRules, cards, history) -> list[tuple[int, int, int]]:
    """The rounds whose last card drawn is a draw card its drawer then plays as a turn card (every
    copy of its kind it had in the round was played so): (round, player, kind)."""
    state = R.State(rules, cards)
    found, r = [], 0
    start, drawn = [h[:] for h in state.hands], []
    turns = [[0] * R.NUM_KINDS for _ in range(rules.players)]
    for action in history:
        p, phase, top = state.to_move, state.phase, state.top
        state.apply(action)
        if phase == R.PLAY:
            turns[p][action] += 1
            if state.top > top and R.symbol_of(action) == R.DRAW:
                drawn.append((p, state.deck[top]))
        if state.round != r or state.done:
            if drawn and R.symbol_of(drawn[-1][1]) == R.DRAW:
                p, k = drawn[-1]
                if turns[p][k] >= start[p][k] + drawn.count((p, k)):
                    found.append((r, p, k))
            r, start, drawn = state.round, [h[:] for h in state.hands], []
            turns = [[0] * R.NUM_KINDS for _ in range(rules.players)]
    return found


@pytest.mark.parametrize("players", [2, 3])
def test_the_last_card_drawn_can_end_the_round_in_the_game_model(players: int) -> None:
    """A game (found by search) in which the round's last card drawn is a draw card that its drawer
    plays as the card ending the round (its symbol unresolved): the model's rule on the last card
    drawn must leave it in."""
    seed = {2: 348, 3: 135}[players]
    rules = R.ModernArtRules(players=players)
    cards = R.parse_deal(R.random_deal(rules, seed), rules)
    final = _random_play(rules, R.deal_string(cards), seed)
    assert _last_draw_played(rules, cards, final.history)
    solver, _ = _fixed_in_model(rules, cards, final.history, 0)
    assert solver.ObjectiveValue() == final.money[0]


def _scored_rounds(rules: R.ModernArtRules, cards, history, monkeypatch) -> list[tuple]:
    """What the engine scores each round (its own ``round_points``, recorded): counts, own cards,
    values, awards and the tokens won."""
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
    return scored


def _artist_paths(rules: R.ModernArtRules, scored, seat: int) -> tuple[list[tuple], list[list[int]]]:
    """Each artist's path in the real game (per round: award tokens, place or -1, the seat's
    scoring cards) and its cards displayed per round."""
    paths, shown = [], []
    for a in range(R.NUM_ARTISTS):
        path, awards_before = [], 0
        for counts, own, _, awards, _ in scored:
            top = R.rank_artists(counts, len(rules.value_tokens))
            place = top.index(a) if a in top else -1
            path.append((awards[a] - awards_before, place, own[seat][a] if place >= 0 else 0))
            awards_before = awards[a]
        paths.append(tuple(path))
        shown.append([counts[a] for counts, *_ in scored])
    return paths, shown


def _seat_cards(plays: list[dict], seat: int, a: int) -> int:
    """The seat's cards of artist ``a`` displayed over a game (face up or down), from ``plan_plays``."""
    kinds = range(a * R.NUM_SYMBOLS, (a + 1) * R.NUM_SYMBOLS)
    return sum(entry[what][seat][k] for entry in plays for what in ("turn", "sec", "down") for k in kinds)


def _reduced(net, path, y) -> float:
    pay, coef = net.column(path)
    return pay - sum(y[i] * c for i, c in coef.items())


@pytest.mark.parametrize(
    "players, seat, params, play, free",
    [
        (2, 0, {}, "random", True),  # over every deal too
        # no artist can reach the limit: every round ends with the hands empty
        (2, 1, {"deck": TINY_DECK, "deals": (3, 2), "round_limit": 4}, "random", True),
        (2, 1, {}, "beam", False),
        (3, 2, {}, "beam", False),
        (4, 3, {}, "random", False),
        (5, 1, {}, "beam", True),
        (2, 0, {"resolve_ending_card": True, "value_tokens": (3, 2)}, "beam", False),
        (3, 1, {"end_of_round_plays": True, "extra_card_each_round": True}, "beam", False),
    ],
)
def test_real_games_take_a_path_of_the_artist_path_relaxation(
    players: int, seat: int, params: dict, play: str, free: bool, monkeypatch
) -> None:
    """Each artist's path in a real game meets the relaxation's limits on its own and, with the
    others, every coupling row; the DP that prices paths never misses it; the paths pay exactly the
    seat's score; so the path bound leaves no real game out."""
    rules = R.ModernArtRules(players=players, **params)
    cards = R.parse_deal(R.random_deal(rules, 30 + players + seat), rules)
    if play == "beam":
        final = _beam_game(rules, cards, seat)
    else:
        final = _random_play(rules, R.deal_string(cards), seat)
    scored = _scored_rounds(rules, cards, final.history, monkeypatch)
    paths, shown = _artist_paths(rules, scored, seat)
    plays = O.plan_plays(rules, cards, final.history)["plays"]
    downs = [sum(entry["down"][seat]) for entry in plays]
    rng = np.random.default_rng(players + seat)
    supply = O._seat_supply(rules, cards, seat, seconds=0.3, workers=1)
    assert all(most >= _seat_cards(plays, seat, a) for a, most in enumerate(supply))
    for deal in (cards, None) if free else (cards,):
        net = O._ArtistPaths(rules, deal, seat, supply if deal is not None else None)
        total = [0.0] * len(net.rhs)
        for r, down in enumerate(downs):
            for i, c in net.down_column(r).items():
                total[i] += c * down
        pay = 0
        for a, path in enumerate(paths):
            held = displayed = awards = 0
            for r, (k, j, s) in enumerate(path):
                awards, held, displayed = awards + k, held + s, displayed + shown[a][r]
                assert awards <= net.reach["awards"][r] and s <= net.cap[a][r]
                assert held <= net.reach["artist"][a][r] and displayed <= net.avail[a][r]
                assert shown[a][r] >= s + net.extra[a][r]
                assert j < 0 or shown[a][r] >= net.need[r][j]
            gets, coef = net.column(path)
            pay += gets
            for i, c in coef.items():
                total[i] += c
            for trial in range(3):  # the DP's best path pays at least the real one, whatever the duals
                y = [0.0] * len(net.rhs) if trial == 0 else list(rng.uniform(0, 5, len(net.rhs)))
                assert net.price(a, y)[0] >= _reduced(net, path, y) - 1e-9
        assert pay == final.money[seat]
        assert all(t <= b + 1e-9 for t, b in zip(total, net.rhs, strict=True))
        assert O.artist_path_bound(rules, deal, seat)[0] >= final.money[seat]
        if deal is not None:
            assert O.artist_path_bound(rules, deal, seat, supply_seconds=0.3)[0] >= final.money[seat]
        # the Lagrangian bound holds before the generation converges too (the first duals)
        early = O._path_master(net, max_rounds=2)
        assert not early["converged"] and early["bound"] >= final.money[seat]


def _all_paths(net, a: int) -> list[tuple]:
    """Every path of artist ``a`` the relaxation allows, listed one by one (tiny decks only)."""
    found = []

    def extend(r: int, path: tuple, awards: int, held: int, displayed: int) -> None:
        if r == net.R:
            found.append(path)
            return
        x = net.extra[a][r]
        for k in range(net.reach["awards"][r] - awards + 1):
            if displayed + x <= net.avail[a][r]:
                extend(r + 1, (*path, (k, -1, 0)), awards + k, held, displayed + x)
            for j in range(net.P):
                for s in range(net.cap[a][r] + 1):
                    more = max(s + x, net.need[r][j])
                    if held + s <= net.reach["artist"][a][r] and displayed + more <= net.avail[a][r]:
                        extend(r + 1, (*path, (k, j, s)), awards + k, held + s, displayed + more)

    extend(0, (), 0, 0, 0)
    return found


def _most_displayed(rules: R.ModernArtRules, deal: str, seat: int) -> list[int]:
    """Per artist, the most of its cards ``seat`` displays (face up or down) over every line of play
    on a tiny deck: an exhaustive search with memory of positions."""
    memo: dict[tuple, tuple[int, ...]] = {}

    def most(state: R.State) -> tuple[int, ...]:
        if state.done:
            return (0,) * R.NUM_ARTISTS
        key = O._key(state)
        if key not in memo:
            best = [0] * R.NUM_ARTISTS
            for action in state.legal_actions():
                child = state.copy()
                child.apply(action)
                shown = state.to_move == seat and action < R.NUM_KINDS
                for a, x in enumerate(most(child)):
                    best[a] = max(best[a], x + int(shown and R.artist_of(action) == a))
            memo[key] = tuple(best)
        return memo[key]

    return list(most(R.State(rules, deal)))


@pytest.mark.parametrize("seed", range(3))
def test_seat_supply_holds_in_every_line_of_play_on_tiny_decks(seed: int, monkeypatch) -> None:
    """The game model's cap on the seat's cards of each artist over the game is never below what a
    line of play displays (every line searched), never above the seat's reach, and keeps the path
    bound above the exhaustive optimum."""
    rules = R.ModernArtRules(
        players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2, extra_card_each_round=True
    )
    deal = R.random_deal(rules, seed)
    cards = R.parse_deal(deal, rules)
    solve_for = O._solve_for

    def no_maximizing(model, seconds, workers, **options):  # noqa: ANN001, ANN202
        if model.HasObjective():  # CP-SAT gave up at once: nothing proven, no time spent
            solver = cp_model.CpSolver()
            solver.Solve(cp_model.CpModel())
            return cp_model.UNKNOWN, solver
        return solve_for(model, seconds, workers, **options)

    # the search's count agrees with the engine's own record of a game's plays
    game = _random_play(rules, deal, seed)
    plays = O.plan_plays(rules, cards, game.history)["plays"]
    for seat in (0, 1):
        counted = [0] * R.NUM_ARTISTS
        state = R.State(rules, deal)
        for action in game.history:
            if state.to_move == seat and action < R.NUM_KINDS:
                counted[R.artist_of(action)] += 1
            state.apply(action)
        assert counted == [_seat_cards(plays, seat, a) for a in range(R.NUM_ARTISTS)]
        most = _most_displayed(rules, deal, seat)
        supply = O._seat_supply(rules, cards, seat, seconds=2, workers=1)
        reach = O._seat_reach(rules, cards, seat)["artist"]
        assert all(m <= s <= reach[a][-1] for a, (m, s) in enumerate(zip(most, supply, strict=True)))
        # the same from the questions alone ("can the seat display this many?"), starting at the reach
        monkeypatch.setattr(bounds, "_solve_for", no_maximizing)
        assert O._seat_supply(rules, cards, seat, seconds=2, workers=1) == supply
        monkeypatch.undo()
        best, _ = O.brute_force(rules, deal, seat)
        assert best <= O.artist_path_bound(rules, cards, seat, supply_seconds=1)[0]


@pytest.mark.parametrize("deal_seed", [0, 1, None])
def test_path_pricing_matches_every_path_listed(deal_seed) -> None:
    """On a tiny deck the DP's best reduced pay, under random duals, is exactly the best over every
    allowed path listed one by one, and the path it returns pays that much."""
    rules = R.ModernArtRules(players=2, deck=TINY_DECK, deals=(3, 2, 1), round_limit=2)
    cards = None if deal_seed is None else R.parse_deal(R.random_deal(rules, deal_seed), rules)
    net = O._ArtistPaths(rules, cards, 0)
    rng = np.random.default_rng(7)
    for a in range(R.NUM_ARTISTS):
        listed = _all_paths(net, a)
        assert len(listed) > 20
        for trial in range(4):
            y = [0.0] * len(net.rhs) if trial == 0 else list(rng.uniform(0, 3, len(net.rhs)))
            value, path = net.price(a, y)
            assert value == pytest.approx(max(_reduced(net, p, y) for p in listed), abs=1e-9)
            assert path in listed and _reduced(net, path, y) == pytest.approx(value, abs=1e-9)


def test_free_deal_search_plan_replays() -> None:
    rules = R.ModernArtRules(players=2)
    score, deal, plan = O.free_deal_search(rules, deals=1, width=2)
    assert R.replay(rules, deal, plan).money[0] == score > 0
    stacked = O.stacked_deal(rules, 5)
    assert R.parse_deal(stacked, rules)  # a complete deck
    first_hand = R.State(rules, stacked).hands[0]
    awards = sum(first_hand[a * R.NUM_SYMBOLS + R.AWARD] for a in range(R.NUM_ARTISTS))
    assert awards == 5  # the stacked hand holds every award card


def test_full_deal_plan_replays_and_is_cached(tmp_path, monkeypatch) -> None:
    # two rounds of the full deck: three solves (one served by the cache) at a quarter of the game's work
    rules = R.ModernArtRules(players=3, deals=(13, 6))
    deal = R.random_deal(rules, 0)
    cache = OracleCache(tmp_path)
    result = O.solve_cached(deal, rules, 1, cache, width=4, time_limit=0.5)
    final = R.replay(rules, deal, result.plan)
    assert final.done and final.money[1] == result.score <= result.bound
    again = O.solve_cached(deal, rules, 1, cache, width=4, time_limit=0.5)
    assert cache.hits == 1 and again.score == result.score
    # a result cached by another oracle revision is not served
    monkeypatch.setattr(common, "ORACLE_REVISION", O.ORACLE_REVISION + 1)
    O.solve_cached(deal, rules, 1, cache, width=4, time_limit=0.5)
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
    rules = R.ModernArtRules(players=2, deck=TINY_DECK, deals=(3, 1), round_limit=2, second_card_symbols=True)
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


@pytest.mark.parametrize("players, seat, fixed_share", [(2, 0, 0.5), (3, 1, 0.5), (3, 1, 0.0)])
def test_realize_finds_an_order_for_the_plays_of_a_real_game(
    players: int, seat: int, fixed_share: float, monkeypatch
) -> None:
    """Given only what each player plays per round (no order), the realizer finds an order the
    engine accepts, and the game scores what the real one did. With no share for the fixed order
    only the shuffled restarts search, and they are seeded: the same order comes out twice."""
    monkeypatch.setattr(realization, "FIXED_ORDER_SHARE", fixed_share)
    if not fixed_share:  # restarts short enough that many run out midway
        monkeypatch.setattr(realization, "RESTART_NODES", 60)
    rules = R.ModernArtRules(players=players)
    cards = R.parse_deal(R.random_deal(rules, 10 + players), rules)
    real = _beam_game(rules, cards, seat)
    plays = O.plan_plays(rules, cards, real.history)["plays"]
    reached = O.realize(rules, cards, plays)
    assert reached.done
    assert reached.money == real.money
    replayed = R.replay(rules, cards, reached.history)
    assert replayed.money == real.money
    assert O.realize(rules, cards, plays).history == reached.history


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_real_games_keep_sources_for_the_cards_left_to_play(players: int) -> None:
    """At the start of every turn of a real game, the cards its round still plays have what brings
    them among the turn cards still to play (``_sources_left``, a cut of ``realize``'s search)."""
    rules = R.ModernArtRules(players=players)
    for seed in range(2):
        final = _random_play(rules, R.random_deal(rules, seed), seed)
        full = O.plan_plays(rules, final.deck, final.history)["plays"]
        state = R.State(rules, final.deck)
        for i, action in enumerate(final.history):
            if state.phase == R.PLAY:
                r = state.round
                done = O.plan_plays(rules, final.deck, final.history[:i])["plays"][r]
                left = {
                    what: [[a - b for a, b in zip(full[r][what][p], done[what][p], strict=True)]
                           for p in range(players)]
                    for what in ("turn", "sec", "down")
                }  # fmt: skip
                assert O._sources_left(state, left["turn"], left["sec"], left["down"]), (seed, i)
            state.apply(action)


def test_a_second_card_needs_a_double_or_another_players_simultaneous_card_left() -> None:
    rules = R.ModernArtRules(players=2)
    state = R.State(rules, R.random_deal(rules, 0))
    yoko = R.kind_of(1, R.PLAIN)
    state.hands[0][yoko] += 1  # the cut looks at the hand only for cards to draw
    empty = [[0] * R.NUM_KINDS for _ in range(2)]
    sec = [row[:] for row in empty]
    sec[0][yoko] = 1
    turn = [row[:] for row in empty]
    assert not O._sources_left(state, turn, sec, empty)
    turn[0][R.kind_of(1, R.DOUBLE)] = 1
    state.hands[0][R.kind_of(1, R.DOUBLE)] += 1
    assert O._sources_left(state, turn, sec, empty)
    turn[0][R.kind_of(1, R.DOUBLE)], turn[0][R.kind_of(2, R.DOUBLE)] = 0, 1  # another artist's double
    assert not O._sources_left(state, turn, sec, empty)
    turn[1][R.kind_of(2, R.SIMULTANEOUS)] = 1  # the other player's simultaneous card
    state.hands[1][R.kind_of(2, R.SIMULTANEOUS)] += 1
    assert O._sources_left(state, turn, sec, empty)


@pytest.mark.parametrize("seed", [1, 4])
def test_one_round_two_player_deals_are_solved_exactly(seed: int) -> None:
    """With one round (13 cards each) the game model meets a played-out plan: the oracle proves it
    optimal, and the plan replays to that score."""
    rules = R.ModernArtRules(players=2, deals=(13,))
    deal = R.random_deal(rules, seed)
    result = O.solve(deal, rules, width=8, time_limit=20.0)
    assert result.optimal and result.score == result.bound
    assert O.check(deal, result, rules)


def test_solve_realizes_relaxation_solutions_into_replayed_plans() -> None:
    rules = R.ModernArtRules(players=2)
    deal = R.random_deal(rules, 1)
    result = O.solve(deal, rules, 0, width=8, time_limit=1)
    assert result.stats["plan_source"]
    final = R.replay(rules, deal, result.plan)
    assert final.done and final.money[0] == result.score <= result.bound


def test_solve_depends_on_its_arguments_not_on_the_clock(monkeypatch) -> None:
    """Where no proof finishes (two rounds, little time) the bound and plan depend on how much search
    was done: they come out the same when the clock runs a hundred times faster, as on a slower or
    busier machine, because every limit counts work (CP-SAT's deterministic time, positions)."""
    rules = R.ModernArtRules(players=2, deals=(13, 6))
    deal = R.random_deal(rules, 0)
    first = O.solve(deal, rules, 0, width=4, time_limit=1)
    assert not first.optimal and first.stats["plan_source"].startswith("relaxation")
    real, start = time.perf_counter, time.perf_counter()
    monkeypatch.setattr(time, "perf_counter", lambda: start + 100 * (real() - start))
    again = O.solve(deal, rules, 0, width=4, time_limit=1)
    monkeypatch.undo()
    assert (again.score, again.bound, again.plan) == (first.score, first.bound, first.plan)

    def untimed(stats: dict) -> dict:
        return {key: value for key, value in stats.items() if not key.endswith("seconds")}

    assert untimed(again.stats) == untimed(first.stats)
    assert again.seconds > 10 * first.seconds  # the fast clock was read


@pytest.mark.parametrize("players", [2, 3])
def test_replanning_goes_on_from_the_round_a_realization_stopped_at(players: int) -> None:
    """From the start of round 3 of a real game, the game model with rounds 1 and 2 fixed to what was
    played still has solutions (a real game satisfies it), and one is realized to the end: a game that
    goes on from that position, which the engine replays to its score."""
    rules = R.ModernArtRules(players=players)
    cards = R.parse_deal(R.random_deal(rules, 20 + players), rules)
    real = _beam_game(rules, cards, 0)
    position = R.State(rules, cards)
    for action in real.history:
        if position.round == 2:
            break
        position.apply(action)
    reached = O.replanned(rules, cards, 0, position, seconds=1)
    assert reached.done
    assert reached.history[: len(position.history)] == position.history
    assert R.replay(rules, cards, reached.history).money == reached.money


def test_solve_plans_again_where_a_solution_cannot_be_realized(monkeypatch) -> None:
    """When the best solution stops before the end (here: realized for round 1 only), ``solve``
    plans again from there once, and its plan still replays to its score."""
    realize, calls = O.realize, []

    def round_1_only(rules, cards, plays, **options):
        return realize(rules, cards, plays[:1], **options)

    def spy(rules, cards, seat, reached, seconds, **options):
        calls.append(reached.round)
        return replanned(rules, cards, seat, reached, seconds, **options)

    replanned = O.replanned
    monkeypatch.setattr(solving, "realize", round_1_only)
    monkeypatch.setattr(solving, "replanned", spy)
    # two rounds, so that round 1 alone stops short; a solution above the beam's is found at this budget
    rules = R.ModernArtRules(players=2, deals=(13, 6))
    deal = R.random_deal(rules, 1)
    result = O.solve(deal, rules, 0, width=8, time_limit=1)
    assert calls == [1]
    final = R.replay(rules, deal, result.plan)
    assert final.done and final.money[0] == result.score <= result.bound


@pytest.mark.parametrize("players, fixed_share", [(2, 0.5), (3, 0.5), (3, 0.0)])
def test_realize_free_deals_and_plays_a_free_model_solution(
    players: int, fixed_share: float, monkeypatch
) -> None:
    """A real game, fixed in the free-deal model, gives a solution; ``realize_free`` turns it into a
    deal and a game of it that the engine replays to the model's objective (also by shuffled
    restarts alone, which must leave the deck as it was before each one)."""
    monkeypatch.setattr(realization, "FIXED_ORDER_SHARE", fixed_share)
    if not fixed_share:  # restarts short enough that many run out midway
        monkeypatch.setattr(realization, "RESTART_NODES", 60)
    rules = R.ModernArtRules(players=players)
    cards = R.parse_deal(R.random_deal(rules, 20 + players), rules)
    real = _beam_game(rules, cards, 0)
    solver, handles = _fixed_in_model(rules, cards, real.history, 0, free=True)
    assert solver.ObjectiveValue() == real.money[0]
    plays = O.solution_plays(solver, handles, rules)
    reached, deck = O.realize_free(rules, plays)
    assert reached.done
    assert sorted(deck) == sorted(rules.cards())
    final = R.replay(rules, R.deal_string(deck), reached.history)
    assert final.money[0] == real.money[0]


def test_free_deal_plan_replays_below_its_bound() -> None:
    rules = R.ModernArtRules(players=2)
    free = O.free_deal(rules, deals=1, width=2, time_limit=0.5, realized=1, node_limit=2_000)
    final = R.replay(rules, free["deal"], free["plan"])
    assert final.done and final.money[0] == free["score"] <= free["bound"]
    assert free["plan_source"]


def _built_deal(rules: R.ModernArtRules, hands, extra: int, top=()) -> tuple[int, ...]:
    """The deal with these first hands and extra card, then the cards ``top`` on top of the deck and
    the rest of the deck after them."""
    rest = list(rules.cards())
    for kind in [*(k for hand in hands for k in hand), extra, *top]:
        rest.remove(kind)
    return R.parse_deal(R.arrange_deal(hands, extra, [*top, *rest]), rules)


def _face_up_in_round_1(h: dict, a: int):
    """The game model's face-up cards of artist ``a`` in round 1, all players (extra card apart)."""
    kinds = range(a * R.NUM_SYMBOLS, (a + 1) * R.NUM_SYMBOLS)
    return sum(h["turn"][0][p][k] + h["sec"][0][p][k] for p in range(len(h["turn"][0])) for k in kinds)


def _at_the_limit_in_round_1(
    rules: R.ModernArtRules, cards, artists, more=None, without_second_cards=None
) -> bool:
    """Whether the game model has a round 1 that ends with each of ``artists`` at exactly the limit
    of face-up cards (the extra card of another artist), under the constraints ``more(model,
    handles)`` adds, and (given a player) with no second card of that player."""
    model, h = O.build_model(rules, cards, 0, scoring=False)
    for a in artists:
        model.Add(_face_up_in_round_1(h, a) == rules.round_limit)
    if more is not None:
        more(model, h)
    if without_second_cards is not None:
        model.Add(sum(h["sec"][0][without_second_cards]) == 0)
    return _decided_feasible(model)


def _decided_feasible(model: cp_model.CpModel) -> bool:
    """Whether a model has a solution; CP-SAT must decide it within 20 s."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = 20
    solver.parameters.num_workers = 1
    status = solver.Solve(model)
    assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE)
    return status != cp_model.INFEASIBLE


def _draws_a_draw_card_and_plays_it(rules: R.ModernArtRules, cards, history) -> bool:
    """Whether some player plays, as a turn card, a draw card of a kind it did not hold at the
    round's start: one it drew in that round."""
    state = R.State(rules, cards)
    r, start = 0, [h[:] for h in state.hands]
    for action in history:
        if state.phase == R.PLAY and R.symbol_of(action) == R.DRAW and not start[state.to_move][action]:
            return True
        state.apply(action)
        if state.round != r:  # the next round's cards are dealt: its starting hands
            r, start = state.round, [h[:] for h in state.hands]
    return False


@pytest.mark.parametrize("players", [2, 3])
def test_draw_cards_drawn_and_played_in_one_round_satisfy_the_game_model(players: int) -> None:
    """A real game in which a player draws a draw card and plays it in the same round (after a draw
    card it held): the model's rule that the first draw card played was held leaves it in."""
    rules = R.ModernArtRules(players=players)
    for seed in range(300):
        cards = R.parse_deal(R.random_deal(rules, seed), rules)
        final = _random_play(rules, R.deal_string(cards), seed)
        if _draws_a_draw_card_and_plays_it(rules, cards, final.history):
            solver, _ = _fixed_in_model(rules, cards, final.history, 0)
            assert solver.ObjectiveValue() == final.money[0]
            return
    pytest.fail("no random game draws a draw card and plays it in the same round in 300 seeds")


def test_the_first_draw_card_played_in_a_round_was_held_at_its_start() -> None:
    """Player 0 holds one draw card (Yoko's) and the deck's next card is Christin P.'s draw card;
    player 1 holds a draw card too, so it can draw the card after (then the last card drawn is no
    draw card). In the model player 0 can play the drawn card after its own (a chain), but not
    start drawing with it."""
    rules = R.ModernArtRules(players=2)
    yoko, christin, krypto = R.kind_of(1, R.DRAW), R.kind_of(2, R.DRAW), R.kind_of(4, R.DRAW)
    plain = [R.kind_of(a, R.PLAIN) for a in range(R.NUM_ARTISTS)]
    first = [yoko] + [plain[i % 5] for i in range(12)]
    second = [krypto] + [plain[(i + 1) % 5] for i in range(12)]
    cards = _built_deal(rules, [first, second], plain[0], [christin])
    draw_kinds = [R.kind_of(a, R.DRAW) for a in range(R.NUM_ARTISTS)]

    def feasible(*extra) -> bool:
        model, h = O.build_model(rules, cards, 0, scoring=False)
        for constraint in extra:
            model.Add(constraint(h["turn"][0][0]))
        model.Add(sum(h["turn"][0][0][k] for k in draw_kinds) >= 1)
        return _decided_feasible(model)

    assert feasible(lambda turn: turn[yoko] >= 1, lambda turn: turn[christin] >= 1)
    assert not feasible(lambda turn: turn[yoko] == 0)


@pytest.mark.parametrize("symbol", [R.DRAW, R.HIDDEN])
def test_a_card_that_ends_the_round_leaves_its_symbol_unresolved_in_the_game_model(symbol: int) -> None:
    """Round 1, two players: player 1 ends it (equal turns from player 0's start) and Yoko is the
    only artist at the limit. Player 1's only Yoko card is its draw (hidden) card and it plays no
    simultaneous card, so that card is the round's last and its symbol is not resolved: the model
    lets player 1 play it, but not draw (put a card face down) once for every such card it plays."""
    rules = R.ModernArtRules(players=2)
    yoko = [R.kind_of(1, s) for s in range(R.NUM_SYMBOLS)]
    plain = [R.kind_of(a, R.PLAIN) for a in range(R.NUM_ARTISTS)]
    kinds = [R.kind_of(a, symbol) for a in range(R.NUM_ARTISTS)]
    first = [plain[1]] * 4 + [plain[a] for a in (0, 2, 3, 4) for _ in range(2)] + [plain[2]]
    second = [yoko[symbol], kinds[4]] + [plain[a] for a in (0, 2, 3, 4) for _ in range(2)] + [plain[3]] * 3
    cards = _built_deal(rules, [first, second], plain[0])

    def feasible(every_symbol_resolves: bool) -> bool:
        model, h = O.build_model(rules, cards, 0, scoring=False)
        turn = h["turn"][0]
        model.Add(sum(turn[0]) == sum(turn[1]))
        for a in range(R.NUM_ARTISTS):  # the extra card is Lite Metal's
            shown = _face_up_in_round_1(h, a) + (a == 0)
            model.Add(shown == 5 if a == 1 else shown <= 4)
        for k in yoko:
            model.Add(turn[1][k] == int(k == yoko[symbol]))
        for a in range(R.NUM_ARTISTS):
            model.Add(turn[1][R.kind_of(a, R.SIMULTANEOUS)] == 0)
        if every_symbol_resolves:
            resolved = h["dr"][0][1] if symbol == R.DRAW else sum(h["down"][0][1])
            model.Add(resolved == sum(turn[1][k] for k in kinds))
        return _decided_feasible(model)

    assert feasible(every_symbol_resolves=False)
    assert not feasible(every_symbol_resolves=True)


def test_only_other_players_answer_the_last_simultaneous_card_in_the_game_model() -> None:
    """Round 1, two players: player 0 ends it (one turn more from its start) with Lite Metal and
    Yoko both at the limit, so its last card is simultaneous and player 1 answers it with the
    second artist. Player 0's own second cards (its Yoko double's) cannot be that answer: with no
    second card of player 1 the model has no such round."""
    rules = R.ModernArtRules(players=2)
    lite, yoko, krypto = ([R.kind_of(a, symbol) for symbol in range(R.NUM_SYMBOLS)] for a in (0, 1, 4))
    first = [lite[R.SIMULTANEOUS], yoko[R.DOUBLE]] + [lite[R.PLAIN]] * 5 + [yoko[R.PLAIN]] * 6
    second = (
        [yoko[R.PLAIN]] * 2
        + [R.kind_of(a, R.PLAIN) for a in (2, 3, 4) for _ in range(3)]
        + [lite[R.PLAIN]] * 2
    )
    cards = _built_deal(rules, [first, second], krypto[R.PLAIN])

    def player_0_ends(model, h) -> None:
        model.Add(sum(h["turn"][0][0]) == sum(h["turn"][0][1]) + 1)

    assert _at_the_limit_in_round_1(rules, cards, (0, 1), player_0_ends)
    assert not _at_the_limit_in_round_1(rules, cards, (0, 1), player_0_ends, without_second_cards=1)


def test_each_player_answers_the_last_simultaneous_card_once_in_the_game_model() -> None:
    """Round 1, three players: Lite Metal, Yoko and Christin P. all end at the limit, which only a
    last simultaneous card answered by both other players with different artists can do (player 0's
    Lite Metal card, player 1's Yoko and player 2's Christin P. cards). Without a second card of
    player 2 the model has no such round: player 1 cannot answer twice, although player 2's own
    simultaneous card lets player 1 play two second cards in the round."""
    rules = R.ModernArtRules(players=3)
    lite, yoko, christin, karl, krypto = ([R.kind_of(a, s) for s in range(R.NUM_SYMBOLS)] for a in range(5))
    first = [lite[R.SIMULTANEOUS]] + [lite[R.PLAIN]] * 2 + [yoko[R.PLAIN]] * 3 + [christin[R.PLAIN]] * 2
    second = [yoko[R.PLAIN]] * 3 + [christin[R.PLAIN]] * 3 + [lite[R.PLAIN]] * 2 + [karl[R.PLAIN]] * 2
    third = [krypto[R.SIMULTANEOUS]] + [christin[R.PLAIN]] * 2 + [karl[R.PLAIN]] * 4 + [lite[R.PLAIN]] * 2
    first += [karl[R.PLAIN]] * 2 + [krypto[R.PLAIN]] * 3
    second += [krypto[R.PLAIN]] * 3
    third += [krypto[R.PLAIN]] * 4
    cards = _built_deal(rules, [first, second, third], krypto[R.PLAIN])
    assert _at_the_limit_in_round_1(rules, cards, (0, 1, 2))
    assert not _at_the_limit_in_round_1(rules, cards, (0, 1, 2), without_second_cards=2)


def test_an_answer_to_the_last_simultaneous_card_is_no_double_second_card_in_the_game_model() -> None:
    """Round 1, two players: player 0 ends it with Lite Metal's simultaneous card (the only one in
    play: no one holds a draw card), and player 1's answer takes Yoko to the limit beside Lite Metal.
    Player 1 also plays a second Karl Gitter card: only an answer to a simultaneous card can bring
    it (player 1's double is Yoko's), so with the last card's answer spent on Yoko there is no such
    round, though player 1's Yoko double could have brought a second Yoko card."""
    rules = R.ModernArtRules(players=2)
    lite, yoko, christin, karl, krypto = ([R.kind_of(a, s) for s in range(R.NUM_SYMBOLS)] for a in range(5))
    first = [lite[R.SIMULTANEOUS]] + [lite[R.PLAIN]] * 4 + [christin[R.PLAIN]] * 4 + [krypto[R.PLAIN]] * 4
    second = [yoko[R.DOUBLE]] + [yoko[R.PLAIN]] * 5 + [karl[R.PLAIN]] * 3 + [christin[R.PLAIN]] * 4
    cards = _built_deal(rules, [first, second], krypto[R.PLAIN])

    def player_0_ends(model, h) -> None:
        model.Add(sum(h["turn"][0][0]) == sum(h["turn"][0][1]) + 1)

    def and_a_second_karl_card(model, h) -> None:
        player_0_ends(model, h)
        model.Add(sum(h["sec"][0][1][k] for k in karl) >= 1)

    assert _at_the_limit_in_round_1(rules, cards, (0, 1), player_0_ends)
    assert not _at_the_limit_in_round_1(rules, cards, (0, 1), and_a_second_karl_card)


def test_a_player_draws_only_with_draw_cards_in_hand_in_the_game_model() -> None:
    """Player 0 holds one draw card (Yoko's), player 1 another (Krypto's). Player 0 draws both of the
    deck's next two cards only when the first is a draw card (Christin P.'s), which then draws the
    second: with a plain card first, its second draw would need the draw card it has not drawn yet
    (the card counts alone allow it: two draws, two draw cards played, player 1 drawing the third)."""
    rules = R.ModernArtRules(players=2, deals=(4, 1))
    plain = [R.kind_of(a, R.PLAIN) for a in range(R.NUM_ARTISTS)]
    christin_draw = R.kind_of(2, R.DRAW)

    def both_drawn_by_player_0(top) -> bool:
        hands = [
            [R.kind_of(1, R.DRAW), plain[0], plain[0], plain[3]],
            [R.kind_of(4, R.DRAW), plain[4], plain[3], plain[2]],
        ]
        cards = _built_deal(rules, hands, plain[1], [*top, plain[3]])
        model, h = O.build_model(rules, cards, 0, scoring=False)
        for kind in top:
            model.Add(h["took"][0][0][kind] == 1)
        return _decided_feasible(model)

    assert both_drawn_by_player_0([christin_draw, plain[2]])
    assert not both_drawn_by_player_0([plain[2], christin_draw])


def test_draws_in_a_round_come_in_turn_order_in_the_game_model() -> None:
    """Round 1 of two players with 3 cards each; player 0 starts holding only draw cards, so its
    first turn draws the deck's next card: the model cannot give that card to player 1, who draws
    later (unless the order of draws is left out). Real games of every size satisfy the model's order
    of draws (the real-game tests)."""
    rules = R.ModernArtRules(players=2, deals=(3, 1))
    draw = [R.kind_of(a, R.DRAW) for a in range(R.NUM_ARTISTS)]
    plain = [R.kind_of(a, R.PLAIN) for a in range(R.NUM_ARTISTS)]
    top = [plain[2], R.kind_of(2, R.DOUBLE)]
    cards = _built_deal(rules, [[draw[1], draw[1], draw[4]], [draw[0], plain[3], plain[3]]], plain[0], top)

    def feasible(player_1_takes_the_next_card: bool, draw_order: bool = True) -> bool:
        model, h = O.build_model(rules, cards, 0, scoring=False, draw_order=draw_order)
        if player_1_takes_the_next_card:
            model.Add(h["took"][0][1][top[0]] == 1)
        return _decided_feasible(model)

    assert feasible(player_1_takes_the_next_card=False)
    assert not feasible(player_1_takes_the_next_card=True)
    assert feasible(player_1_takes_the_next_card=True, draw_order=False)  # the weaker model


def test_a_card_drawn_and_played_in_a_round_was_drawn_at_an_earlier_turn_in_the_game_model() -> None:
    """One card each; player 1's draw card draws Karl Gitter's draw card, which draws Christin P.'s
    plain card, and player 1 plays all three in three turns. So the plain card was drawn at its
    second turn (lap 1), not its third: it is played as a turn card after it was drawn."""
    rules = R.ModernArtRules(players=2, deals=(1, 1))
    plain = [R.kind_of(a, R.PLAIN) for a in range(R.NUM_ARTISTS)]
    top = [R.kind_of(3, R.DRAW), plain[2]]
    cards = _built_deal(rules, [[plain[0]], [R.kind_of(4, R.DRAW)]], plain[1], top)

    def feasible(lap: int) -> bool:
        model, h = O.build_model(rules, cards, 0, scoring=False)
        model.Add(h["turn"][0][1][plain[2]] == 1)
        model.Add(h["draw_lap"][0][1] == lap)
        return _decided_feasible(model)

    assert feasible(lap=1)
    assert not feasible(lap=2)


def test_no_one_plays_after_the_ender_in_the_game_model() -> None:
    """First hands of 4 cards and no draw card: round 1 ends with every hand empty. Player 1 can
    end it (the last of 4 turns each), but not after player 0 took a turn more: player 1, emptied
    by its double, plays no more, so the last turn was player 0's."""
    rules = R.ModernArtRules(players=2, deals=(4, 2))
    plain = [R.kind_of(a, R.PLAIN) for a in range(R.NUM_ARTISTS)]
    first = plain[:4]
    second = [R.kind_of(4, R.DOUBLE), plain[4], plain[4], plain[3]]
    cards = _built_deal(rules, [first, second], plain[2])

    def feasible(player_0_takes_more_turns: bool) -> bool:
        model, h = O.build_model(rules, cards, 0, scoring=False)
        model.Add(h["st"][1][0] == 1)  # player 0 starts round 2: player 1 ended round 1
        if player_0_takes_more_turns:
            model.Add(sum(h["turn"][0][0]) >= sum(h["turn"][0][1]) + 1)
        return _decided_feasible(model)

    assert feasible(player_0_takes_more_turns=False)
    assert not feasible(player_0_takes_more_turns=True)


def _round_endings(rules: R.ModernArtRules, cards, history) -> list[tuple[int, int, int]]:
    """Per round ended at the limit: (the last turn card's kind, artists at the limit or past it,
    the most face-up cards of one artist)."""
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
                endings.append((last, at_limit, max(column)))
            column = list(state.column)
    return endings


@pytest.mark.parametrize(
    "ending",
    ["award card", "hidden card", "draw card", "two artists past the limit", "three artists past the limit",
     "one artist 3 past"],
)  # fmt: skip
def test_rare_round_endings_satisfy_the_game_model(ending: str) -> None:
    """The model's last-display constraints hold in real games that end a round on an award, hidden
    or draw card (whose symbol is then not resolved), take two or three artists to the limit at once
    (the last simultaneous card answered with other artists, once by each other player), or take
    one artist three cards past ``limit - 1`` (a simultaneous card of it, and both other players
    display one of it)."""
    rules = R.ModernArtRules(players=3)
    for seed in range(400):
        cards = R.parse_deal(R.random_deal(rules, seed), rules)
        final = _random_play(rules, R.deal_string(cards), seed)
        endings = _round_endings(rules, cards, final.history)
        if ending in ("award card", "hidden card", "draw card"):
            symbol = {"award card": R.AWARD, "hidden card": R.HIDDEN, "draw card": R.DRAW}[ending]
            found = any(R.symbol_of(kind) == symbol for kind, _, _ in endings)
        elif ending.endswith("artists past the limit"):
            at_least = 2 if ending.startswith("two") else 3
            found = any(count >= at_least for _, count, _ in endings)
        else:
            found = any(most >= rules.round_limit + 2 for _, _, most in endings)
        if found:
            solver, _ = _fixed_in_model(rules, cards, final.history, 0)
            assert solver.ObjectiveValue() == final.money[0]
            return
    pytest.fail(f"no random game with a round ending on {ending} in 400 seeds")


def test_a_failed_path_lp_leaves_the_other_bounds_standing(monkeypatch) -> None:
    deal = R.random_deal(TINY, 1)
    best, _ = O.brute_force(TINY, deal, 0)

    def gives_up(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("path LP not solved: status 4")

    monkeypatch.setattr(paths, "artist_path_bound", gives_up)
    result = O.solve(deal, TINY, 0, width=8, time_limit=0.5)
    assert result.stats["path_lp"] == "path LP not solved: status 4" and "path_bound" not in result.stats
    assert result.score <= best <= result.bound
    assert result.bound == result.stats.get("game_model_bound", result.stats.get("seat_model_bound"))


ONE_ROUND = R.ModernArtRules(players=2, deals=(13,))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda d: O.solve(d, ONE_ROUND, width=-1), "width must be at least 1, got -1"),
        (lambda d: O.solve(d, ONE_ROUND, width=0), "width must be at least 1"),
        (lambda d: O.solve(d, ONE_ROUND, width=10**9), "width must be at most 4096"),
        (lambda d: O.solve(d, ONE_ROUND, width=2.5), "width must be an integer"),
        (lambda d: O.solve(d, ONE_ROUND, time_limit=float("nan")), "time_limit must be a finite number"),
        (lambda d: O.solve(d, ONE_ROUND, time_limit=float("inf")), "time_limit must be a finite number"),
        (lambda d: O.solve(d, ONE_ROUND, time_limit=-1), "time_limit must be above 0"),
        (lambda d: O.solve(d, ONE_ROUND, time_limit=0), "time_limit must be above 0"),
        (lambda d: O.solve(d, ONE_ROUND, time_limit=10**7), "time_limit must be at most 86400"),
        (lambda d: O.solve(d, ONE_ROUND, seat=2), "seat must be at most 1"),
        (lambda d: O.solve(d, ONE_ROUND, exact_positions=-1), "exact_positions must be at least 0"),
        (lambda d: O.solve_cached(d, ONE_ROUND, width=-1), "width must be at least 1"),
        (lambda d: O.beam_search(ONE_ROUND, d, width=-1), "width must be at least 1"),
        (lambda d: O.beam_search(ONE_ROUND, d, hand_weight=float("nan")), "hand_weight must be a finite"),
        (lambda d: O.portfolio_search(ONE_ROUND, d, width=0), "width must be at least 1"),
        (lambda d: O.brute_force(ONE_ROUND, d, limit=0), "limit must be at least 1"),
        (lambda d: O.relaxation_bound(ONE_ROUND, None, time_limit=float("nan")), "time_limit must be a"),
        (lambda d: O.seat_round_bound(ONE_ROUND, None, time_limit=-2), "time_limit must be above 0"),
        (lambda d: O.seat_round_bound(ONE_ROUND, None, workers=0), "workers must be at least 1"),
        (lambda d: O.artist_path_bound(ONE_ROUND, None, max_rounds=0), "max_rounds must be at least 1"),
        (lambda d: O.artist_path_bound(ONE_ROUND, None, supply_seconds=float("inf")), "supply_seconds"),
        (lambda d: O.free_deal_bound(ONE_ROUND, time_limit=float("nan")), "time_limit must be a finite"),
        (lambda d: O.free_deal(ONE_ROUND, deals=0), "deals must be at least 1"),
        (lambda d: O.free_deal(ONE_ROUND, width=-1), "width must be at least 1"),
        (lambda d: O.free_deal(ONE_ROUND, time_limit=float("nan")), "time_limit must be a finite"),
        (lambda d: O.free_deal_search(ONE_ROUND, seed=-1), "seed must be at least 0"),
        (lambda d: O.stacked_deal(ONE_ROUND, -1), "seed must be at least 0"),
        (lambda d: O.realize(ONE_ROUND, R.parse_deal(d, ONE_ROUND), [], node_limit=0), "node_limit"),
    ],
)
def test_bad_search_settings_are_refused_before_any_search(call, match: str) -> None:
    """A beam without end (a negative width) and limits that never bind (NaN, infinity) are refused
    at once, naming the parameter."""
    start = time.perf_counter()
    with pytest.raises(ValueError, match=match):
        call(R.random_deal(ONE_ROUND, 1))
    assert time.perf_counter() - start < 5  # refused up front, not after a search


def test_numpy_search_settings_are_accepted() -> None:
    deal = R.random_deal(ONE_ROUND, 1)
    assert O.beam_search(ONE_ROUND, deal, np.int64(0), np.int64(2)) == O.beam_search(ONE_ROUND, deal, 0, 2)
    result = O.solve(deal, ONE_ROUND, np.int64(0), width=np.int64(2), time_limit=np.float64(0.5))
    assert result.score <= result.bound


def test_a_zero_value_token_pays_the_same_in_engine_game_model_and_path_lp() -> None:
    """With value tokens (3, 2, 0) an artist placed third still pays its cumulative value: the engine
    scores the built game 9 for seat 1 (the 0-token artist Y pays 2), the game model with that game
    fixed scores it the same, and the exhaustive optimum stays within both proven bounds."""
    hands = [R.parse_cards("L. L."), R.parse_cards("Y. C.")]
    extra, rest = R.parse_cards("G.")[0], R.parse_cards("C. L. C. Y.")
    table = R.deck_table([c for h in hands for c in h] + [extra] + rest)
    rules = R.ModernArtRules(players=2, deck=table, deals=(2, 2), value_tokens=(3, 2, 0))
    deal = R.arrange_deal(hands, extra, rest)
    cards = R.parse_deal(deal, rules)
    game = [R.parse_cards(c)[0] for c in ("L.", "Y.", "L.", "C.", "C.", "L.", "C.", "Y.")]
    final = R.replay(rules, deal, game)
    assert final.money == [12, 9]
    solver, _ = _fixed_in_model(rules, cards, final.history, 1)
    assert solver.ObjectiveValue() == 9
    best, plan = O.brute_force(rules, deal, 1)
    assert R.replay(rules, deal, plan).money[1] == best >= 9
    assert best <= O.artist_path_bound(rules, cards, 1)[0]
    assert best <= O.relaxation_bound(rules, cards, 1, time_limit=1, workers=1, plan=plan)[0]


def test_the_search_key_tells_positions_apart_by_their_extra_card() -> None:
    """Two round-2 positions alike in hands, displays, values and deck position but with different
    extra cards (``extra_card_each_round``) play on differently: the extra card counts towards the
    round end and the ranking. The exhaustive search and the beams merge positions by ``_key``, so
    the key must tell them apart. (The second position is made by changing the extra card of a real
    one: whether draws and deals can reach such a pair depends on the deck.)"""
    rules = R.ModernArtRules(
        players=2, deck=TINY_DECK, deals=(2, 1, 1), round_limit=2, extra_card_each_round=True
    )
    state = R.State(rules, R.random_deal(rules, 3))
    while state.round == 0:
        state.apply(int(state.legal_actions()[0]))
    shown = state.extra.index(1)
    other = state.copy()
    moved = (shown + 1) % R.NUM_ARTISTS
    other.extra[shown] -= 1
    other.column[shown] -= 1
    other.extra[moved] += 1
    other.column[moved] += 1
    assert O._key(state) != O._key(other)


def test_later_rounds_planned_again_keep_the_first_round_and_replay() -> None:
    """Where no solution needed planning again, ``solve`` spends that budget on planning the plan's
    later rounds again with the earlier rounds fixed: the result replays to its score, is never
    below the plan it started from, keeps that plan's first round, and here (a width-1 beam plan of
    a two-round deal) improves it."""
    rules = R.ModernArtRules(players=2, deals=(13, 6))
    deal = R.random_deal(rules, 1)
    cards = R.parse_deal(deal, rules)
    score, plan = O.beam_search(rules, cards, 0, width=1)
    got, line, how = solving._replan_later_rounds(rules, cards, 0, score, plan, 2.0)
    final = R.replay(rules, deal, line)
    assert final.done and final.money[0] == got > score and how == "replanned from round 2"
    first = R.State(rules, deal)
    played = 0
    while first.round == 0:
        first.apply(plan[played])
        played += 1
    assert line[:played] == plan[:played]

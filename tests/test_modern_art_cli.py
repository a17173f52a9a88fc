"""Modern Art on the command line: solve, evaluate (with the win rate), tournament and play."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_gym.envs.modern_art import rules as R
from tabletop_gym.training.cli import build_parser, main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.games.modern_art import narrate, win_share

FAST = ["--width", "2", "--time-limit", "0.5"]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def test_solve_command_prints_plan_and_bound(capsys):
    assert main(["solve", "modern_art", "--seed", "3", *FAST]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    plan = next(line for line in out.splitlines() if line.startswith("plan actions:"))
    actions = [int(a) for a in plan.split(":")[1].split()]
    found = int(next(line.split()[1] for line in out.splitlines() if line.startswith("plan ")))
    assert R.replay(R.ModernArtRules(), deal, actions).money[0] == found
    bound = int(next(line.split()[1] for line in out.splitlines() if line.startswith("bound")))
    # the reported bound is the smallest of the relaxations' bounds, each printed (the game model's,
    # or the seat-only model's where CP-SAT proves nothing in the time limit, and the path LP's)
    each = next(line for line in out.splitlines() if "artist paths (LP)" in line)
    bounds = [int(part.split()[-1]) for part in each.split(",")]
    assert len(bounds) == 2 and found <= bound == min(bounds)


def test_solve_command_over_every_deal(capsys):
    assert main(["solve", "modern_art", "--free", "--width", "2", "--time-limit", "0.5"]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    plan = next(line for line in out.splitlines() if line.startswith("plan actions:"))
    actions = [int(a) for a in plan.split(":")[1].split()]
    found = int(next(line.split()[1] for line in out.splitlines() if line.startswith("plan ")))
    bound = int(next(line.split()[1] for line in out.splitlines() if line.startswith("bound")))
    assert R.replay(R.ModernArtRules(), deal, actions).money[0] == found <= bound


def test_solve_command_plays_the_first_rounds_only(capsys):
    """``--rounds 1``: a one-round game (13 cards each, then the game ends), its plan replayed under
    those rules; too many rounds is refused with the range."""
    assert main(["solve", "modern_art", "--rounds", "1", "--seed", "1", *FAST]) == 0
    out = capsys.readouterr().out
    deal = next(line.split()[1] for line in out.splitlines() if line.startswith("deal"))
    plan = next(line for line in out.splitlines() if line.startswith("plan actions:"))
    found = int(next(line.split()[1] for line in out.splitlines() if line.startswith("plan ")))
    final = R.replay(R.ModernArtRules(deals=(13,)), deal, [int(a) for a in plan.split(":")[1].split()])
    assert final.done and final.round == 1 and final.money[0] == found  # over after one round


def test_solve_command_rejects_a_bad_deal(capsys):
    assert main(["solve", "modern_art", "--deal", "L.Y.", *FAST]) == 2
    assert "deal holds" in capsys.readouterr().err


def test_evaluate_reports_win_rate(tmp_path, capsys):
    out = tmp_path / "eval"
    # one-round games: the oracle's bound for each ratio comes at a fraction of a whole game's work
    code = main(["evaluate", "modern_art", "--agent", "greedy,random", "--episodes", "2", "--seed", "1",
                 "--out", str(out), "--no-progress", "--rounds", "1", *FAST])  # fmt: skip
    assert code == 0
    table = capsys.readouterr().out
    assert "wins" in table.splitlines()[0]
    report = json.loads((out / "evaluation.json").read_text())
    for entry in report["agents"].values():
        assert 0.0 <= entry["share_wins"] <= 1.0
        assert entry["mean_ratio"] <= 1.0


def test_figures_share_of_wins():
    spec = get_game("modern_art")
    infos = [{"scores": [30, 20], "seat": 0}, {"scores": [10, 10], "seat": 0}, {"scores": [5, 9], "seat": 0}]
    assert spec.figures([30, 10, 5], [None] * 3, infos)["share_wins"] == pytest.approx(0.5)
    assert win_share([4, 9, 9], 2) == 0.5 and win_share([4, 9, 9], 0) == 0.0


def test_tournament_command_writes_json(tmp_path, capsys):
    code = main(["tournament", "modern_art", "--games", "2", "--out", str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "modern_art_2p.json").read_text())
    assert set(report) == {"random_vs_random", "random_vs_greedy", "greedy_vs_random", "greedy_vs_greedy"}
    assert all(row["games"] == 2 and 0 <= row["win_rate"] <= 1 for row in report.values())
    assert "greedy_vs_random" in capsys.readouterr().out


ONE_ROUND = ["--rounds", "1", *FAST]


def _typed(monkeypatch, answers) -> list[str]:
    """Feed ``answers`` to the prompts (a callable gets the screen shown so far); EOF afterwards."""
    prompts: list[str] = []
    answers = iter(answers)

    def typed(prompt: str = "") -> str:
        prompts.append(prompt)
        answer = next(answers, None)
        if answer is None:
            raise EOFError
        return answer

    monkeypatch.setattr("builtins.input", typed)
    return prompts


def test_play_reprompts_on_typos_narrates_the_bot_and_sums_up_at_eof(monkeypatch, capsys):
    """A typo that passes ``str.isdigit`` (``²``), a word, a number out of range, a card not held and
    a pass on one's own turn each re-prompt in the game's words; a card code and an option number play;
    the bot's moves are told; end of input stops with the scores so far."""
    rules = R.ModernArtRules(deals=(13,))
    deal = R.random_deal(rules, 8)
    state = R.State(rules, deal)
    held = next(k for k in range(R.NUM_KINDS) if state.hands[0][k])
    missing = next(k for k in range(R.NUM_KINDS) if not state.hands[0][k] and rules.deck[k // 6][k % 6])
    _typed(monkeypatch, ["²", "hello", "99", R.card_code(missing), "pass", R.card_code(held).lower(), "1"])
    assert main(["play", "modern_art", "--deal", deal, *ONE_ROUND]) == 0
    out = capsys.readouterr().out
    assert f"deal {deal}" in out and "Traceback" not in out
    assert "'²' is not a card or an option" in out and "'hello' is not a card or an option" in out
    assert "there is no option 99" in out
    assert f"you hold no {R.card_name(missing)}" in out
    assert "you cannot pass on your turn" in out
    assert f"you display {R.card_name(held)}" in out
    assert "bot 1 displays " in out  # the bot's answer, in the game's words
    assert "illegal action" not in out and "legal actions" not in out  # no internal indices
    summary = out.index("stopped in round 1 of 1. Scores so far: you 0, bot 1 0")
    # The deal (every hand) is told only once play is over, for replay.
    assert out.index(f"deal {deal}") > summary and out.count(f"deal {deal}") == 1


def test_play_a_whole_one_round_game(monkeypatch, capsys):
    """Always the first option, to the end: the round's end and the final scores are told, then what
    the oracle proves about the deal."""
    monkeypatch.setattr("builtins.input", lambda prompt="": "1")
    assert main(["play", "modern_art", "--seed", "5", *ONE_ROUND]) == 0
    out = capsys.readouterr().out
    assert "round 1 ends. Values won: " in out and "Points: you +" in out
    assert "game over: " in out and "Scores: you " in out
    assert "at most" in out and "(proven bound)" in out


@pytest.mark.parametrize("word", ["quit", "EXIT", " quit "])
def test_play_quits_with_a_whole_word(monkeypatch, capsys, word):
    _typed(monkeypatch, ["q", word, "1"])  # "q" is not a word that quits: it re-prompts
    assert main(["play", "modern_art", "--seed", "2", *ONE_ROUND]) == 0
    out = capsys.readouterr().out
    assert "'q' is not a card or an option" in out
    assert "stopped in round 1 of 1. Scores so far: you 0, bot 1 0" in out


def test_narration_follows_the_engine_and_hides_face_down_cards():
    """Every decision of random games with every symbol gets one line in the game's words; a bot's
    face-down card is never named, the person's is."""
    rng = np.random.default_rng(0)
    seen_hidden_bot = seen_award = seen_double = False
    for seed in range(6):
        rules = R.ModernArtRules(players=3, deals=(13, 2), end_of_round_plays=bool(seed % 2))
        start = R.State(rules, R.random_deal(rules, seed))
        state = start.copy()
        while not state.done:
            state.apply(int(rng.choice(state.legal_actions())))
        lines = narrate(start, state.history)
        moves = [line for line in lines if line.startswith(("you ", "bot 1 ", "bot 2 "))]
        # one line per decision, and one more where a symbol asked nothing (a double without a
        # second card of its artist reads as a pass)
        assert len(state.history) <= len(moves) and len(lines) <= 2 * len(state.history) + 2 * rules.rounds
        assert sum(line.startswith("round ") and " ends." in line for line in lines) == rules.rounds
        others = [line for line in lines if line not in moves and not line.startswith("round ")]
        assert all(line in ("the deck is empty: no card to draw", "no award token is left to place")
                   for line in others)  # fmt: skip
        for line in moves:
            if line.startswith("bot") and "face down" in line:
                assert line.endswith(("puts a card face down", "puts no card face down"))
                seen_hidden_bot = True
            seen_award |= "an award token on" in line
            seen_double |= "as the double's second card" in line
        assert f"Scores: you {state.money[0]}, bot 1 {state.money[1]}, bot 2 {state.money[2]}" in lines[-1]
    assert seen_hidden_bot and seen_award and seen_double


def _one_line_error(capsys, argv, option):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and option in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "argv, option, says",
    [
        (["solve", "modern_art", "--rounds", "1", "--seed", "1", "--width", "-1"], "--width", "1 to 4096"),
        (["solve", "modern_art", "--width", "0"], "--width", "got 0"),
        (["solve", "modern_art", "--width", "100000"], "--width", "from 1 to 4096"),
        (["solve", "modern_art", "--time-limit", "nan"], "--time-limit", "finite"),
        (["solve", "modern_art", "--time-limit", "inf"], "--time-limit", "finite"),
        (["solve", "modern_art", "--time-limit", "-1"], "--time-limit", "above 0"),
        (["solve", "modern_art", "--time-limit", "0"], "--time-limit", "above 0"),
        (["solve", "modern_art", "--players", "9", "--rounds", "1"], "--players", "from 2 to 5"),
        (["solve", "modern_art", "--players", "0"], "--players", "from 2 to 5"),
        (["solve", "modern_art", "--rounds", "5"], "--rounds", "from 1 to 4"),
        (["solve", "modern_art", "--rounds", "0"], "--rounds", "from 1 to 4"),
        (["solve", "modern_art", "--seed", "-1"], "--seed", "got -1"),
        (["play", "modern_art", "--seed", "-1"], "--seed", "got -1"),
        (["solve", "modern_art", "--deal", ""], "--deal", "empty"),
        (["tournament", "modern_art", "--games", "0"], "--games", "from 1 to"),
        (["tournament", "modern_art", "--games", "-1"], "--games", "from 1 to"),
        (["tournament", "modern_art", "--out", ""], "--out", "empty"),
        (["bench", "modern_art", "--bench-players", "2,9"], "--bench-players", "from 2 to 5"),
        (["bench", "modern_art", "--bench-players", "two"], "--bench-players", "2,3,4,5"),
        (["bench", "modern_art", "--env-steps", "-1"], "--env-steps", "got -1"),
        (["bench", "modern_art", "--deals", "0"], "--deals", "got 0"),
        (["bench", "modern_art", "--free-deals", "-1"], "--free-deals", "got -1"),
        (["bench", "modern_art", "--bound-seconds", "nan"], "--bound-seconds", "finite"),
        (["evaluate", "modern_art", "--agent", "greedy", "--width", "-1"], "--width", "from 1"),
        (["demo", "modern_art", "--time-limit", "-5"], "--time-limit", "above 0"),
    ],
)
def test_bad_numbers_are_one_line_errors_naming_the_option(capsys, argv, option, says):
    """Before any work: a beam without end (``--width -1``), a limit that never binds (NaN), a player
    count without a deal table, no games at all (a NaN win rate): each refused, with the range."""
    assert says in _one_line_error(capsys, argv, option)


def test_no_tournament_file_is_written_for_refused_games(tmp_path, capsys):
    _one_line_error(capsys, ["tournament", "modern_art", "--games", "-1", "--out", str(tmp_path)], "--games")
    assert not list(tmp_path.iterdir())


def test_a_valid_zero_is_not_replaced(tmp_path, capsys):
    """``--free-deals 0`` leaves the free-deal maximum out (not the default 8 deals)."""
    code = main(["bench", "modern_art", "--bench-players", "2", "--rounds", "1", "--deals", "1",
                 "--env-steps", "50", "--bound-seconds", "0.5", "--free-deals", "0", "--width", "1",
                 "--out", str(tmp_path)])  # fmt: skip
    assert code == 0
    report = json.loads((tmp_path / "modern_art_1_rounds.json").read_text())
    assert "max_2p" not in report and report["oracle_2p"]["deals"] == 1 and report["rounds"] == 1
    capsys.readouterr()


def test_demo_settings_are_ones_the_oracle_serves():
    """The demo plays one-round 2-player games, whose deals the oracle proves in seconds; every
    setting is a valid value of its option."""
    spec = get_game("modern_art")
    assert spec.demo["rounds"] == 1 and spec.demo["players"] == 2
    args = build_parser().parse_args(["demo", "modern_art"])
    assert (args.rounds, args.players, args.width, args.time_limit) == (1, 2, 32, 10.0)
    assert args.steps == spec.demo["steps"] and args.episodes == spec.demo["episodes"]
    assert spec.env_kwargs(spec.read(args)) == {"players": 2, "deals": (13,)}


def test_bench_command_small(tmp_path, capsys):
    small = [
        "--deals",
        "1",
        "--env-steps",
        "50",
        "--bound-seconds",
        "0.5",
        "--free-deals",
        "1",
        "--width",
        "1",
    ]
    code = main(["bench", "modern_art", "--bench-players", "2", *small, "--out", str(tmp_path)])
    assert code == 0
    report = json.loads((tmp_path / "modern_art.json").read_text())
    row, best = report["oracle_2p"], report["max_2p"]
    assert row["median_plan_score"] <= row["median_bound"]
    ratios = [score / bound for score, bound in zip(row["plan_scores"], row["bounds"], strict=True)]
    assert row["plan_bound_ratios"] == [round(x, 3) for x in ratios] and all(0 < x <= 1 for x in ratios)
    assert row["mean_plan_bound_ratio"] == round(sum(ratios) / len(ratios), 3)
    each = zip(row["bounds"], row["cp_sat_bounds"], row["artist_path_bounds"], strict=True)
    assert all(bound == min(cp_sat, paths) for bound, cp_sat, paths in each)
    assert best["proven_bound"] == min(best["bounds_by_relaxation"].values())
    assert best["best_found"] <= best["proven_bound"] and best["seed_relaxed_figure"] == 301
    assert "max_2p" in capsys.readouterr().out


def test_answers_in_every_decision_are_read_in_the_game_s_words():
    """An award takes an artist's name or letter (not pass); a double takes a card of its artist."""
    from tabletop_gym.training.games.modern_art import _read_answer

    rules = R.ModernArtRules(deals=(4,), round_limit=9)  # hands of exactly the cards below
    state = R.State(rules, _deal(rules, ["La Lx L. Y.", "K. K. K. K."], "C."))
    assert _read_answer("la", state) == (R.parse_cards("La")[0], "")
    state.apply(R.parse_cards("La")[0])
    assert state.phase == R.AWARD_ARTIST
    assert _read_answer("Yoko", state) == (R.CHOOSE_ARTIST + 1, "")
    assert _read_answer(" g ", state) == (R.CHOOSE_ARTIST + 3, "")
    action, problem = _read_answer("pass", state)
    assert action is None and "award token must be placed" in problem
    state.apply(R.CHOOSE_ARTIST)
    state.apply(R.parse_cards("K.")[0])  # the bot's turn
    state.apply(R.parse_cards("Lx")[0])
    assert state.phase == R.DOUBLE_CARD
    action, problem = _read_answer("Y.", state)
    assert action is None and "Yoko (plain) is not a Lite Metal card" in problem
    assert _read_answer("pass", state) == (R.PASS, "")
    assert _read_answer("2", state) == (R.PASS, "")  # options: 1) Lite Metal (plain), 2) pass


def _deal(rules: R.ModernArtRules, hands: list[str], extra: str) -> str:
    """A deal of the default deck that gives these first hands and extra card, the rest in deck order."""
    rest = rules.cards()
    for card in R.parse_cards(" ".join(hands) + extra):
        rest.remove(card)
    return R.arrange_deal([R.parse_cards(h) for h in hands], R.parse_cards(extra)[0], rest)


def test_a_double_without_a_second_card_is_told_as_a_pass():
    """The engine skips a double whose player holds no other card of its artist: told as a pass (a
    bot's reason stays its secret), with the reason for the person."""
    rules = R.ModernArtRules(deals=(3,), round_limit=9)
    start = R.State(rules, _deal(rules, ["Lx Y. K.", "Gx C. C."], "Y."))
    state = start.copy()
    state.apply(R.parse_cards("Lx")[0])
    state.apply(R.parse_cards("Gx")[0])
    assert narrate(start, state.history) == [
        "you display Lite Metal (double)",
        "you add no second Lite Metal card to the double (none in hand)",
        "bot 1 displays Karl Gitter (double)",
        "bot 1 adds no second Karl Gitter card to the double",
    ]


@pytest.mark.parametrize("suite", [[], ["--suite", "v0"]])
def test_the_oracle_is_refused_as_an_agent(tmp_path, capsys, suite):
    """Its plans choose every player's moves, which the environment's bots do not make: the first
    opponent move off the plan used to stop the evaluation with an illegal-move error."""
    argv = ["evaluate", "modern_art", "--players", "2", "--agent", "greedy,oracle", "--episodes", "1"]
    assert main([*argv, *suite, "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "oracle plans every player's moves" in err and "cannot play as an agent" in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "evaluation.json").exists()

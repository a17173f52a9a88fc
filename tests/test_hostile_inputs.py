"""Hostile input: every command and option of ``tabletop-gym`` given bad values, in process.

The sweep walks the command line's own parsers (every sub-command, game and option), makes bad
values for each option from its type (numbers out of range, huge, not numbers, floats for integers;
empty text; unknown choices; values for flags; special paths), and runs each case through
``cli.main``. Each must stop before any work:

- exit status 2;
- exactly one line on stderr, in one of the two forms the command line uses: its own errors,
  ``tabletop-gym: error: WHAT (...)``, and argparse's, which ``arguments.Parser`` turns into one line,
  ``tabletop-gym COMMAND [GAME]: error: argument --OPTION: WHAT (see: tabletop-gym COMMAND [GAME]
  --help)`` (unknown options take the same form from ``cli._main``). "One clear line" means that line
  and nothing else: no usage block, no traceback;
- nothing on stdout and nothing written (each case runs in an empty working folder, where the
  default output folders would be made).

The parsers are built once (their construction is most of a case's cost); argparse does not change a
parser when it parses. A run builds its parser from the command its argv names (``cli.parser_for``):
one parser is kept per command named, so each case still goes through the parser a run would build.
Then the targeted tests: each cause the sweep or the issue found, with a test
that failed before its fix.
"""

from __future__ import annotations

import argparse
import functools
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from tabletop_gym.training import cli

ONE_LINE = re.compile(r"^tabletop-gym(?: [\w-]+)*: error: \S")


@functools.cache
def _parser() -> argparse.ArgumentParser:
    return cli.build_parser()


@functools.cache
def _parser_naming(command: str | None) -> argparse.ArgumentParser:
    return _build_run_parser([] if command is None else [command])


_build_run_parser = cli.parser_for


def _run_parser(argv) -> argparse.ArgumentParser:
    # parser_for reads argv only for the first word that is not an option: the command it fills in.
    return _parser_naming(next((a for a in argv if not a.startswith("-")), None))


@pytest.fixture(autouse=True)
def _one_parser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(cli, "build_parser", _parser)
    monkeypatch.setattr(cli, "parser_for", _run_parser)
    monkeypatch.delenv("TABLETOP_GYM_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)


def _leaves(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, sub in subs[0].choices.items():
        yield from _leaves(sub, (*path, name))


# Arguments a command needs before any option can be at fault.
BASE = {
    ("suite", "check"): ["cribbage-v0"], ("suite", "build"): ["cribbage-v0"], ("draw",): ["tabletop/War-v0"],
    ("pretrained", "export"): ["runs/train/war"],
}
REQUIRED = {"--agent": "random", "--players": "big-money", "--suite": "cribbage-v0", "--out": "picture.svg",
            "--id": "tabletop/War-v0"}


def _base(path: tuple[str, ...], parser: argparse.ArgumentParser, skip: str | None) -> list[str]:
    argv = list(path) + BASE.get(path, [])
    for action in parser._actions:
        if action.required and action.option_strings and action.option_strings[-1] != skip:
            argv += [action.option_strings[-1], REQUIRED[action.option_strings[-1]]]
    return argv


def _kind(action: argparse.Action) -> str:
    kind = getattr(action.type, "__qualname__", "") or ""
    return kind.split(".")[0]


def _number_values(action: argparse.Action) -> list[str]:
    low, high = action.type.bounds  # type: ignore[union-attr]
    values = ["x", " ", "nan", "inf", "-inf", "1e999", "0x10", "1" + "0" * 40, "9" * 5000, "-" + "9" * 50]
    if _kind(action) == "int_arg":
        values += ["1.5", "1e3", "٣"]  # a float, an exponent, a non-ASCII digit
        values += [str(low - 1)] if low is not None else []
        values += [str(high + 1)] if high is not None else []
    else:
        values += [f"{low - 1:g}"] if low is not None else []
        values += [f"{high * 10 + 1:g}"] if high is not None else []
    return values


CUSTOM_BAD = {
    "_agent_list": ["", ",", "random,,greedy"],
    "_bot_names": ["", "nobody", ","],
    "_count_or_players": ["", "1", "6", "greedy", "greedy,,random", "nobody,greedy"],
    "_entries": ["", ",", "nobody", "greedy,,random"],
    "_env_option": ["", "=", "=hidden", "observation"],
    "_opponent_arg": ["", ",", "nobody", "greedy,random"],
    "_players_arg": ["", ",", "greedy", "nobody,greedy"],
    "_draft_and_variant": ["", "x", "9-2-99", "Z-9-2-5", "9-2-5-1", "9" * 30 + "-2-5"],
    "variant_arg": ["", "x", "9-2-99", "F-9-2-5", "U-4-1-4"],
    "_kingdom_arg": ["nope", "smithy,nope"],
    "_oracle_kingdom_arg": ["nope"],
    "_pattern_arg": ["", "q", ",".join(["w"] * 300)],
    "_player_counts": ["", "1", "6", "x", "9" * 5000],
    "_pool_bots": ["", "nobody", ",", "random,,greedy"],
    "_suite_list": ["", ",", "cribbage-v0,cribbage-v0"],
    "deals_arg": ["", "5:2", "x:y", "0:" + "9" * 5000, "0:9223372036854775807", "no-such-file", "/dev/zero"]
    + ["x" * 5000],
    "nonempty": ["", "   "],
    "path_arg": ["", "  ", "x" * 5000],
    "picture_path": ["", "  ", "plan", "plan.jpg", "plan.svg.txt", "x" * 5000 + ".svg"],
    "ray_address_arg": ["256.1.1.1:99999", "256.1.1.1:80", "host:0", "a b", ""],
}


def _cases() -> list[tuple[str, list[str]]]:
    cases: list[tuple[str, list[str]]] = []
    for path, parser in _leaves(_parser()):
        where = " ".join(path)
        base = _base(path, parser, None)
        cases += [
            (f"{where} unknown option", [*base, "--no-such-option"]),
            (f"{where} unknown option=value", [*base, "--no-such-option=1"]),
            (f"{where} stray word", [*base, "stray"]),
        ]
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or not action.option_strings:
                continue
            option = action.option_strings[-1]
            base = _base(path, parser, option)
            if action.nargs == 0:  # a flag given a value
                cases.append((f"{where} {option}=1", [*base, f"{option}=1"]))
                continue
            if action.nargs is None:
                cases.append((f"{where} {option} without its value", [*base, option]))
            if action.choices:
                values = ["nope", ""]
            elif hasattr(action.type, "bounds"):
                values = _number_values(action)
            else:
                values = CUSTOM_BAD[_kind(action)]
            cases += [(f"{where} {option}={value[:20]!r}", [*base, f"{option}={value}"]) for value in values]
    return cases


CASES = _cases()


def test_the_sweep_covers_every_command_with_hundreds_of_cases() -> None:
    commands = {tuple(argv[:2]) for _, argv in CASES}
    assert len(commands) >= 35 and len(CASES) > 1500


class WorkStarted(BaseException):
    """Raised by the guards in place of the commands' work: a case that gets there was not refused."""


def _guard_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command's work raises WorkStarted instead of running, so a case that slips through
    fails at once rather than training, solving or benchmarking for minutes."""

    def started(*args, **kwargs):
        raise WorkStarted

    from tabletop_gym.training import baselines, batch, dataset, evaluate, suites, train
    from tabletop_gym.training.games import game_names, get_game

    for module, name in ((evaluate, "evaluate"), (train, "train"), (batch, "run_batch"),
                         (baselines, "run_suite"), (suites, "build"), (dataset, "write")):  # fmt: skip
        monkeypatch.setattr(module, name, started)
    for game in game_names():
        for command in get_game(game).commands:
            monkeypatch.setitem(get_game(game).commands, command, started)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = cli.main(argv)
    except SystemExit as stop:  # argparse's errors leave through parser.exit
        status = stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def _assert_refused(argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    """Run ``argv``; assert it was refused in one line before any work; return that line."""
    before = sorted(p.name for p in tmp_path.iterdir())
    try:
        status, out, err = _run(argv, capsys)
    except WorkStarted:
        capsys.readouterr()
        raise AssertionError(f"{argv}: not refused, its work started") from None
    lines = err.splitlines()
    assert status == 2, (argv, status, err[-300:])
    assert len(lines) == 1 and ONE_LINE.match(lines[0]), (argv, err[-600:])
    assert "Traceback" not in err and len(lines[0]) < 1000, argv
    assert out == "", (argv, out[:300])
    assert sorted(p.name for p in tmp_path.iterdir()) == before, argv
    return lines[0]


def test_every_bad_option_of_every_command_is_one_line_before_any_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One test, not one per case: a case costs about a millisecond, pytest's own bookkeeping more.
    _guard_the_work(monkeypatch)
    failures = []
    for name, argv in CASES:
        try:
            _assert_refused(argv, capsys, tmp_path)
        except AssertionError as error:
            failures.append(f"{name}: {str(error)[:300]}")
    assert not failures, f"{len(failures)} of {len(CASES)} cases:\n" + "\n".join(failures[:40])


def _path_cases(tmp_path: Path) -> list[list[str]]:
    """Paths that cannot be what an option names: a file or a device where a folder is expected,
    a folder under a file, a folder where a file is expected."""
    (tmp_path / "a-file").write_text("")
    (tmp_path / "a-folder").mkdir()
    war = ["--ranks", "6", "--suits", "2"]
    cases = []
    for folder in (str(tmp_path / "a-file"), str(tmp_path / "a-file" / "under"), "/dev/zero", "/dev/null"):
        cases += [
            ["evaluate", "war", *war, "--agent", "random", "--out", folder],
            ["train", "war", *war, "--out", folder],
            ["demo", "war", *war, "--out", folder],
            ["bench", "war", *war, "--out", folder],
            ["stats", "war", *war, "--out", folder],
            ["tournament", "dominion", "--players", "big-money", "--out", folder],
            ["baselines", "--out", folder],
            ["solve", "war", *war, "--seed", "0", "--cache", folder],
            ["evaluate", "war", *war, "--agent", "random", "--cache", folder],
            ["suite", "build", "cribbage-v0", "--cache", folder],
            ["solve", "war", *war, "--deals", "0:2", "--out", str(tmp_path / "r.jsonl"), "--cache", folder],
        ]
    (tmp_path / "a-folder.svg").mkdir()
    for picture in (str(tmp_path / "a-folder.svg"), str(tmp_path / "a-file" / "under.png")):
        cases += [
            ["draw", "tabletop/War-v0", "--out", picture],
            ["solve", "war", *war, "--seed", "0", "--draw", picture],
        ]
    cases += [
        ["solve", "war", *war, "--deals", "0:2", "--out", str(tmp_path / "a-folder")],
        ["solve", "war", *war, "--deals", "0:2", "--out", str(tmp_path / "a-file" / "r.jsonl")],
        ["solve", "war", *war, "--deals", str(tmp_path / "a-folder"), "--out", str(tmp_path / "r.jsonl")],
        ["suite", "build", "cribbage-v0", "--out", str(tmp_path / "a-file" / "s.json")],
        ["suite", "build", "cribbage-v0", "--out", str(tmp_path / "a-folder")],
    ]
    return cases


def test_special_paths_are_refused_in_one_line(capsys, tmp_path, monkeypatch) -> None:
    _guard_the_work(monkeypatch)
    failures = []
    for argv in _path_cases(tmp_path):
        try:
            _assert_refused(argv, capsys, tmp_path)
        except AssertionError as error:
            failures.append(str(error)[:300])
    assert not failures, "\n".join(failures)


def test_an_agent_that_is_no_model_is_refused_before_any_deal(capsys, tmp_path) -> None:
    # Not guarded: evaluate itself loads the agents before it plays.
    (tmp_path / "a-folder").mkdir()
    for agent in (str(tmp_path / "a-folder"), "/dev/zero", "/dev/null", "x" * 5000):
        _assert_refused(["evaluate", "war", "--ranks", "6", "--agent", agent], capsys, tmp_path)


def test_a_device_as_the_results_file_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # It used to read /dev/zero's "existing output" without end.
    argv = ["solve", "war", "--ranks", "6", "--suits", "2", "--deals", "0:2", "--out", "/dev/zero"]
    _assert_refused(argv, capsys, tmp_path)


BAD_DEALS = ["x", "/", "//", "9" * 5000, "é", "-1", "2/2/2"]


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "war", "--ranks", "6", "--suits", "2"],
        ["play", "war", "--ranks", "6", "--suits", "2"],
        ["solve", "cribbage"],
        ["play", "cribbage"],
        ["solve", "nmbr9", "--variant", "4-1-4", "--grid", "6"],
        ["play", "nmbr9", "--variant", "4-1-4", "--grid", "6"],
        ["solve", "dominion", "--target", "2"],
        ["play", "dominion", "--target", "2"],
        ["solve", "modern_art", "--rounds", "1"],
        ["play", "modern_art", "--rounds", "1"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_bad_deal_strings_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    for deal in BAD_DEALS:
        _assert_refused([*argv, "--deal", deal], capsys, tmp_path)


# -- the causes found: each test failed before its fix ------------------------------------------------


def test_evaluate_refuses_a_count_it_cannot_play_at_once(capsys, tmp_path, monkeypatch) -> None:
    """10**12 episodes built a list of every seed before the first deal (3.8 GB in 30 s)."""
    _guard_the_work(monkeypatch)
    tracemalloc.start()
    try:
        for argv in (
            ["evaluate", "war", "--ranks", "6", "--agent", "random", "--episodes", str(10**12)],
            ["demo", "war", "--episodes", str(10**40)],
            ["train", "war", "--steps", str(10**40)],
            ["bench", "cribbage", "--env-steps", str(10**40)],
            ["baselines", "--steps", str(10**40)],
            ["baselines", "--episodes", str(10**40)],
            ["solve", "war", "--deals", f"0:{2**63 - 1}", "--out", "r.jsonl"],
        ):
            _assert_refused(argv, capsys, tmp_path)
        assert tracemalloc.get_traced_memory()[1] < 50_000_000
    finally:
        tracemalloc.stop()


def test_seeded_games_are_made_as_they_are_played() -> None:
    from tabletop_gym.training.evaluate import SeededGames

    games = SeededGames(1_000_000, 5)
    assert len(games) == 1_000_000 and games[0] == (5, None) and games[-1] == (1_000_004, None)
    assert list(games[2:4]) == [(7, None), (8, None)]
    with pytest.raises(ValueError, match="episodes"):
        SeededGames(10**12, 0)
    with pytest.raises(ValueError, match="largest seed"):
        SeededGames(2, 2**63 - 1)


def test_baselines_checks_its_episodes_against_the_suites_before_training(monkeypatch, capsys, tmp_path):
    from tabletop_gym.training import baselines

    def no_training(*args, **kwargs):
        raise AssertionError("trained before checking --episodes")

    monkeypatch.setattr(baselines, "trained_run", no_training)
    line = _assert_refused(["baselines", "--suites", "modern_art-2p-v0", "--episodes", "5"], capsys, tmp_path)
    assert "holds 4 deals" in line


def test_demo_checks_its_evaluation_seeds_before_training(monkeypatch, capsys, tmp_path) -> None:
    import tabletop_gym.training.train as train

    monkeypatch.setattr(train, "train", lambda *a, **k: pytest.fail("trained before checking the seeds"))
    argv = ["demo", "war", "--seed", str(2**63 - 1), "--episodes", "2"]
    _assert_refused(argv, capsys, tmp_path)


def test_a_ray_address_where_nothing_answers_fails_in_one_line_at_once(capsys, tmp_path) -> None:
    """Ray retried 'Failed to connect to GCS' for minutes; a closed local port is refused at once
    (connection refused), before Ray is even imported."""
    import sys

    argv = ["solve", "war", "--ranks", "6", "--suits", "2", "--deals", "0:2", "--out", "r.jsonl"]
    had_ray = "ray" in sys.modules
    _assert_refused([*argv, "--ray", "127.0.0.1:1"], capsys, tmp_path)
    assert had_ray or "ray" not in sys.modules
    _assert_refused([*argv, "--ray", "256.1.1.1:99999"], capsys, tmp_path)


def test_a_ray_address_where_something_else_listens_fails_in_one_line_at_once(capsys, tmp_path) -> None:
    """A port that accepts connections but is not a Ray cluster (a web server) passed the port check,
    and ray.init then retried 'Failed to connect to GCS' for minutes."""
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from tabletop_gym.training import batch

    class QuietHandler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # the server's own log lines would mix with the command's

    pytest.importorskip("ray")
    server = ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(ValueError, match="not a Ray cluster's GCS"):
            batch.check_ray_reachable(address)
        argv = ["solve", "war", "--ranks", "6", "--suits", "2", "--deals", "0:2", "--out", "r.jsonl"]
        assert "not a Ray cluster's GCS" in _assert_refused([*argv, "--ray", address], capsys, tmp_path)
    finally:
        server.shutdown()
        server.server_close()


def test_a_silent_ray_port_is_given_up_after_its_timeout(monkeypatch) -> None:
    import socket

    from tabletop_gym.training import batch

    waited = []

    def silent(address, timeout):
        waited.append(timeout)
        raise TimeoutError("timed out")

    monkeypatch.setattr(socket, "create_connection", silent)
    with pytest.raises(ValueError, match="no answer within 5 s"):
        batch.check_ray_reachable("10.255.255.1:6379")
    assert waited == [batch.RAY_CONNECT_SECONDS]


def test_modern_art_play_reads_a_huge_number_as_no_option(monkeypatch, capsys) -> None:
    """A 5,000-digit answer raised 'Exceeds the limit (4300 digits)' and ended the game."""
    answers = iter(["9" * 5000, "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    status = cli.main(["play", "modern_art", "--rounds", "1", "--seed", "1"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "there is no option '99999" in out and "stopped" in out


def test_nmbr9_oracle_says_what_a_deal_is() -> None:
    from tabletop_gym.core import InvalidDealError
    from tabletop_gym.oracles import nmbr9

    for bad in (None, 5, b"12"):
        with pytest.raises(InvalidDealError, match="a deal must be a string"):
            nmbr9.solve(bad)  # type: ignore[arg-type]


def test_a_war_deal_names_the_ranks_that_are_off() -> None:
    from tabletop_gym.core import InvalidDealError
    from tabletop_gym.envs.war.rules import WarRules, parse_deal

    rules = WarRules(ranks=6, suits=2)
    with pytest.raises(InvalidDealError, match=r"holds rank 6 6 times, 5 0 times"):
        parse_deal("666666/347372", rules)
    # Piles of unequal size are a deal (shared/rules/war.md asks only each rank `suits` times).
    assert parse_deal("65425/6347372", rules).piles[0] == (4, 3, 2, 0, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "nmbr9", "--variant", "F-4-1-4", "--unknown"], "free draft, --unknown"),
        (["solve", "nmbr9", "--variant", "K-4-1-4", "--free"], "known draft, --free"),
        (["solve", "nmbr9", "--variant", "F-4-1-4", "--seed", "3"], "--free chooses the deal"),
        (["play", "nmbr9", "--variant", "F-4-1-4"], "the draft letter (F, free draft)"),
        (["evaluate", "nmbr9", "--variant", "U-4-1-4", "--agent", "random"], "the draft letter (U"),
    ],
)
def test_nmbr9_draft_letters_are_honoured_or_refused(argv, message, capsys, tmp_path) -> None:
    assert message in _assert_refused(argv, capsys, tmp_path)


def test_nmbr9_solve_takes_the_free_draft_letter_as_free(monkeypatch, capsys) -> None:
    from tabletop_gym.training.games import nmbr9

    asked = []

    def free(*args, **kwargs):
        asked.append("free")
        raise ValueError("stop here")

    monkeypatch.setattr(nmbr9.oracle, "solve_free", free)
    assert cli.main(["solve", "nmbr9", "--variant", "F-4-1-4"]) == 2
    assert asked == ["free"]


@pytest.mark.parametrize("game", ["cribbage", "modern_art"])
def test_one_deal_solve_refuses_a_cache_it_would_ignore(game, capsys, tmp_path) -> None:
    _assert_refused(["solve", game, "--seed", "1", "--cache", str(tmp_path / "c")], capsys, tmp_path)


def test_a_cache_under_a_file_is_refused_from_the_environment_as_from_the_option(
    monkeypatch, capsys, tmp_path
) -> None:
    from tabletop_gym.core import CacheError, OracleCache, OracleResult

    (tmp_path / "f").write_text("")
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "f" / "cache"))
    _assert_refused(["solve", "war", "--ranks", "6", "--suits", "2", "--seed", "0"], capsys, tmp_path)
    with pytest.raises(CacheError, match="not a folder"):
        OracleCache().solve("g", "v", "d", lambda: OracleResult(score=1, bound=1, plan=()))


def test_an_unwritable_cache_warns_once_however_many_caches_open_it(monkeypatch, capsys, tmp_path) -> None:
    from tabletop_gym.core import OracleCache, OracleResult

    def read_only(path, text):
        raise OSError(30, "Read-only file system", str(path))

    monkeypatch.setattr("tabletop_gym.core.atomic_write_text", read_only)
    result = OracleResult(score=2, bound=2, plan=(0,))
    for deal in ("d", "e", "f"):  # the command line opens one cache a deal
        assert OracleCache(tmp_path / "ro").solve("g", "v", deal, lambda: result) == result
    assert capsys.readouterr().err.count("oracle cache not written (") == 1


def test_unsigned_numpy_integers_are_actions() -> None:
    import gymnasium as gym

    import tabletop_gym  # noqa: F401

    env = gym.make("tabletop/War-v0", ranks=6, suits=2)
    _, info = env.reset(seed=0)
    legal = np.flatnonzero(info["action_mask"])
    for form in (np.uint64, np.uint8, lambda a: np.array(a, dtype=np.uint64)):
        env.reset(seed=0)
        env.step(form(legal[-1]))
    from tabletop_gym.core import IllegalActionError

    env.reset(seed=0)
    for bad in (np.bool_(True), np.uint64(2**64 - 1), np.array([legal[0]], dtype=np.uint64)):
        with pytest.raises(IllegalActionError):
            env.step(bad)


def test_time_limit_help_says_it_is_work_not_a_clock() -> None:
    for path, parser in _leaves(_parser()):
        for action in parser._actions:
            if "--time-limit" in action.option_strings:
                text = " ".join(action.help.split())
                assert "not by a clock" in text and "loaded" in text, (path, text)


def test_every_number_option_has_a_ceiling() -> None:
    """A count without one (--episodes 10**40, --steps 10**40) ran until memory or patience ran out."""
    open_ended = [
        f"{' '.join(path)} {a.option_strings[-1]}"
        for path, parser in _leaves(_parser())
        for a in parser._actions
        if hasattr(a.type, "bounds") and a.type.bounds[1] is None
    ]
    assert not open_ended, open_ended


def test_nmbr9_one_deal_solve_answers_through_its_cache(capsys, tmp_path) -> None:
    """Nmbr9's solve offered --cache and solved without it; now the answer lands in it."""
    argv = ["solve", "nmbr9", "--variant", "4-1-3", "--grid", "6", "--seed", "1", "--cache", "c"]
    assert cli.main(argv) == 0
    assert list((tmp_path / "c").rglob("*.json"))
    capsys.readouterr()
    free = ["solve", "nmbr9", "--variant", "4-1-3", "--grid", "6", "--free", "--cache", "c"]
    assert "keep none" in _assert_refused(free, capsys, tmp_path)

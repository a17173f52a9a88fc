"""Certified evaluation suites: building (resumable), loading (checksum, environment, replay of
every plan), refusing what no longer holds, and evaluating on a suite without solving anything."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from tabletop_gym.oracles.war import search
from tabletop_gym.suites import SuiteError, storage
from tabletop_gym.suites.definitions import split_id
from tabletop_gym.training import suites
from tabletop_gym.training.cli import main

SUITE = "war-r6s2-v9"  # the 12-card whole game: exact results in milliseconds a deal


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TABLETOP_GYM_SUITES", str(tmp_path / "user-suites"))


@pytest.fixture
def built(tmp_path) -> Path:
    path = tmp_path / f"{SUITE}.json"
    suites.build(SUITE, size=6, out=path, progress=False)
    return path


def _rewrite(path: Path, change) -> None:
    """Edit a suite file and sign it again, as a careful forger would: only the replay can tell."""
    data = json.loads(path.read_text())
    change(data)
    data["meta"]["checksum"] = storage._checksum(data["meta"], data["entries"])
    path.write_text(json.dumps(data))


def test_build_writes_a_suite_that_loads_and_replays(built):
    suite = suites.load(built)
    assert suite.id == SUITE and len(suite) == 6 and suite.game == "war"
    assert suite.meta["complete"] and suite.meta["env_kwargs"]["ranks"] == 6
    assert [e.seed for e in suite.entries] == list(range(6))
    for entry in suite.entries:
        assert entry.optimal and entry.score == entry.bound
        assert entry.oracle_revision.startswith("tabletop-gym ")
        assert suite.result(entry.deal).plan == entry.plan
    with pytest.raises(KeyError, match="not in suite"):
        suite.result("no such deal")


def test_deals_are_those_the_environment_plays_for_each_seed(built):
    import gymnasium as gym

    env = gym.make("tabletop/War-v0", ranks=6, suits=2, reveal_deal=True)
    suite = suites.load(built)
    assert [env.reset(seed=e.seed)[1]["deal"] for e in suite.entries] == suite.deals


def test_an_altered_file_fails_its_checksum(built):
    data = json.loads(built.read_text())
    data["entries"][2]["score"] = data["entries"][2]["score"] - 1
    built.write_text(json.dumps(data))
    with pytest.raises(SuiteError, match="fails its checksum"):
        suites.load(built)


def test_a_signed_score_the_plan_does_not_reach_is_refused(built):
    def lower(data):
        entry = data["entries"][3]
        entry["score"] = entry["bound"] = entry["score"] - 1  # still "optimal", still within its bound

    _rewrite(built, lower)
    with pytest.raises(SuiteError, match=r"entry 3 .*replays to .*not the stated"):
        suites.load(built)


def test_a_plan_that_no_longer_replays_is_refused(built):
    def scramble(data):
        data["entries"][1]["plan"] = [99] + data["entries"][1]["plan"]  # no rank 99 in a 6-rank deck

    _rewrite(built, scramble)
    with pytest.raises(SuiteError, match=r"entry 1 .*no longer replays"):
        suites.load(built)


def test_a_deal_the_environment_refuses_is_refused(built):
    def swap(data):
        data["entries"][0]["deal"] = "XYZ/123"

    _rewrite(built, swap)
    with pytest.raises(SuiteError, match="entry 0 .*refuses its deal"):
        suites.load(built)


def test_a_false_optimal_flag_and_a_score_above_its_bound_are_refused(built):
    _rewrite(built, lambda data: data["entries"][0].update(optimal=False))
    with pytest.raises(SuiteError, match="says optimal=False"):
        suites.load(built)
    first = json.loads(built.read_text())["entries"][0]
    _rewrite(built, lambda data: data["entries"][0].update(optimal=True, bound=first["score"] - 1))
    with pytest.raises(SuiteError, match="above its bound"):
        suites.load(built)


def test_a_suite_made_for_other_rules_is_refused(built):
    _rewrite(built, lambda data: data["meta"]["env_kwargs"].update(face_down=1))
    with pytest.raises(SuiteError, match="was made for .*build a new version"):
        suites.load(built)


def test_a_suite_file_under_any_name_is_the_suite_it_holds(built, tmp_path):
    for name in ("war-r6s2-v8.json", "my copy.json"):
        other = tmp_path / name
        other.write_text(built.read_text())
        suite = suites.load(other)
        assert suite.id == "war-r6s2-v9" and suite.entries == suites.load(built).entries
    with pytest.raises(SuiteError, match="no suite file at"):
        suites.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(SuiteError, match="not a suite file"):
        suites.load(tmp_path / "bad.json")


def test_a_shipped_suite_id_must_be_the_suite_its_file_holds(built, monkeypatch):
    monkeypatch.setattr(suites, "suite_path", lambda suite_id: built)
    with pytest.raises(SuiteError, match="holds suite 'war-r6s2-v9', not war-r6s2-v8"):
        suites.load("war-r6s2-v8")


def test_build_resumes_keeping_what_was_written(tmp_path, monkeypatch):
    path = tmp_path / f"{SUITE}.json"
    real = search.solve_cached
    calls = []

    def failing_on_the_fourth(deal, rules, cache=None, **budget):
        calls.append(str(deal))
        if len(calls) == 4:
            raise KeyboardInterrupt  # an interrupted build: what was solved must be kept
        return real(deal, rules, cache, **budget)

    monkeypatch.setattr(search, "solve_cached", failing_on_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        suites.build(SUITE, size=6, out=path, progress=False, save_every=0)
    written = json.loads(path.read_text())
    assert len(written["entries"]) == 3 and not written["meta"]["complete"]
    with pytest.raises(SuiteError, match="incomplete .*3 of 6"):
        suites.load(path)
    calls.clear()
    monkeypatch.setattr(
        search, "solve_cached", lambda d, r, c=None, **b: (calls.append(str(d)), real(d, r, c, **b))[1]
    )
    suite = suites.build(SUITE, out=path, progress=False)  # the size the file asks for
    assert len(suite) == 6 and len(calls) == 3  # only the three missing deals were solved
    assert [e for e in json.loads(path.read_text())["entries"][:3]] == written["entries"]


def test_a_complete_suite_keeps_its_size(built):
    with pytest.raises(SuiteError, match="complete with 6 deals.*new version .*war-r6s2-v10"):
        suites.build(SUITE, size=8, out=built, progress=False)
    before = built.read_bytes()
    assert len(suites.build(SUITE, size=6, out=built, progress=False)) == 6  # the same size: nothing to do
    assert built.read_bytes() == before  # not even rewritten


def test_build_refuses_to_extend_a_suite_made_for_other_rules(tmp_path):
    path = tmp_path / f"{SUITE}.json"
    suites.build(SUITE, size=2, out=path, progress=False)
    _rewrite(path, lambda data: data["meta"].update(complete=False, size=4))  # an unfinished build
    _rewrite(path, lambda data: data["meta"]["env_kwargs"].update(pickup="loser_first"))
    with pytest.raises(SuiteError, match="was made for .*build a new version"):
        suites.build(SUITE, out=path, progress=False)


def test_unknown_and_missing_suites_say_what_exists():
    with pytest.raises(SuiteError, match="no suite named 'chess'"):
        suites.load("chess-v0")
    with pytest.raises(SuiteError, match="not NAME-vN"):
        suites.load("cribbage")
    with pytest.raises(SuiteError, match="no suite file for cribbage-v77 .*suite build cribbage-v77"):
        suites.load("cribbage-v77")


def test_shipped_suites_are_package_data_and_load_checked():
    data = resources.files("tabletop_gym.suites").joinpath("data")
    shipped = suites.available()
    assert {"war-r6s2-v0", "nmbr9-small-v0"} <= set(shipped)
    assert all(data.joinpath(f"{name}.json").is_file() for name in shipped)
    suite = suites.load("nmbr9-small-v0")  # small and fast: every plan replayed
    assert len(suite) == suite.meta["size"] == 50 and all(e.optimal for e in suite.entries)
    for name in shipped:  # metadata and checksum of every shipped suite; its note says how it was made
        meta = suites.load(name, replay=False).meta
        assert meta["note"] and meta["target_size"] >= meta["size"] == meta["deals"]


def test_evaluate_on_a_suite_solves_nothing(built, monkeypatch, tmp_path, capsys):
    def no_solving(*args, **kwargs):
        raise AssertionError("evaluation on a suite must not solve")

    monkeypatch.setattr(search, "solve_cached", no_solving)
    out = tmp_path / "report"
    status = main(["evaluate", "war", "--ranks", "6", "--suits", "2", "--suite", str(built),
                   "--agent", "random,oracle", "--out", str(out), "--no-progress"])
    assert status == 0, capsys.readouterr().err
    report = json.loads((out / "evaluation.json").read_text())
    assert report["suite"]["id"] == SUITE and report["episodes"] == 6 and report["seed"] is None
    oracle = report["agents"]["oracle"]
    assert oracle["mean_ratio"] == 1.0 and oracle["share_optimal"] == 1.0
    assert report["agents"]["random"]["deals"] == suites.load(built).deals
    api = suites.evaluate(suites.load(built), ["oracle"])
    assert api["agents"]["oracle"]["scores"] == oracle["scores"]


def test_each_shipped_suite_is_its_version_under_the_options_it_lists():
    # `evaluate GAME OPTIONS --suite vN` is how the docs name every shipped suite (v1 beside v0): the
    # options a suite lists, parsed as the command line parses them, must select that very suite.
    from tabletop_gym.training.cli import parser_for

    for suite_id in suites.available():
        spec = suites.definition(suite_id)
        version = split_id(suite_id)[1]
        options = spec.options.split() if spec.options.startswith("--") else []  # else words: defaults
        argv = ["evaluate", spec.game, *options, "--suite", version, "--agent", "random"]
        args, unknown = parser_for(argv).parse_known_args(argv)
        assert not unknown, (suite_id, unknown)
        assert suites.resolve(spec.game, version, args).id == suite_id, argv


def test_evaluate_suite_errors_are_one_line(built, capsys):
    assert main(["evaluate", "war", "--suite", "v0", "--agent", "random", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "no v0 suite of war for these settings" in err and "war-h26-v0 (--horizon 26)" in err
    assert main(["evaluate", "war", "--suite", str(built), "--agent", "random"]) == 2
    assert "was made for tabletop/War-v0 with --ranks 6 --suits 2" in capsys.readouterr().err
    assert main(["evaluate", "war", "--ranks", "6", "--suits", "2", "--suite", str(built),
                 "--seed", "4", "--agent", "random"]) == 2
    assert "a seed does not apply" in capsys.readouterr().err
    assert main(["evaluate", "nmbr9", "--suite", str(built), "--agent", "random"]) == 2
    assert "is a war suite, not nmbr9" in capsys.readouterr().err


def test_cli_builds_and_checks_a_suite(tmp_path, capsys):
    path = tmp_path / "sub" / "war-r6s2-v3.json"
    assert main(["suite", "build", "war-r6s2-v3", "--size", "3", "--out", str(path), "--no-progress"]) == 0
    assert "war-r6s2-v3: 3 deals, 3 proven optimal" in capsys.readouterr().out
    assert main(["suite", "check", str(path)]) == 0
    assert "checked:" in capsys.readouterr().out
    path.write_text(path.read_text().replace('"seed":1', '"seed":2'))
    assert main(["suite", "check", str(path)]) == 2
    assert "fails its checksum" in capsys.readouterr().err


def test_cli_lists_every_shipped_suite_checked(capsys):
    assert main(["suite", "list"]) == 0  # each suite loaded: checksum, environment, every plan replayed
    out = capsys.readouterr().out
    assert all(name in out for name in suites.available()) and "refused" not in out


def test_build_writes_to_the_user_folder_never_into_the_package(tmp_path, capsys):
    package = suites.data_dir().resolve()
    assert main(["suite", "build", "war-r6s2-v7", "--size", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    path = tmp_path / "user-suites" / "war-r6s2-v7.json"
    assert path.is_file() and str(path) in out and "2 solved now" in out
    assert not (package / "war-r6s2-v7.json").exists()
    assert not suites.suite_path("war-r6s2-v7").resolve().is_relative_to(tmp_path)
    # Listed as the user's, apart from the shipped ones; found by id and by path.
    assert "war-r6s2-v7" not in suites.available() and suites.user_built() == ["war-r6s2-v7"]
    assert main(["suite", "list"]) == 0
    rows = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()[1:-1]}
    assert rows["war-r6s2-v7"] == "user" and rows["cribbage-v0"] == "shipped"
    assert suites.load("war-r6s2-v7").path == path
    for suite in ("war-r6s2-v7", str(path)):
        argv = ["evaluate", "war", "--ranks", "6", "--suits", "2", "--suite", suite, "--agent", "oracle"]
        assert main([*argv, "--out", str(tmp_path / "report"), "--no-progress"]) == 0
        assert "suite war-r6s2-v7: 2 deals" in capsys.readouterr().out


def test_building_a_complete_suite_again_solves_nothing_and_says_so(built, capsys):
    argv = ["suite", "build", SUITE, "--out", str(built), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "nothing to solve" in out and "built in" not in out
    assert suites.build(SUITE, out=built, progress=False).solved_now == 0


def test_a_shipped_suite_is_checked_in_place_and_never_rebuilt_there(capsys):
    before = suites.suite_path("nmbr9-small-v0").read_bytes()
    assert main(["suite", "build", "nmbr9-small-v0", "--no-progress"]) == 0
    assert "nothing to solve" in capsys.readouterr().out
    assert main(["suite", "build", "nmbr9-small-v0", "--size", "60", "--no-progress"]) == 2
    assert "new version" in capsys.readouterr().err
    assert suites.suite_path("nmbr9-small-v0").read_bytes() == before


def test_each_shipped_note_states_the_size_its_suite_has():
    for name in suites.available():
        meta = suites.load(name, replay=False).meta
        claim = re.match(r"shrunk from ([0-9,]+) to ([0-9,]+) deals", meta["note"])
        if meta["size"] < meta["target_size"]:
            assert claim and claim.groups() == (f"{meta['target_size']:,}", f"{meta['size']:,}"), name
        else:
            assert claim is None, f"{name} holds its {meta['size']} deals but its note says {meta['note']}"


def test_a_suite_built_to_another_size_says_its_own_size(built):
    spec = suites.definition(SUITE)
    assert suites.load(built).meta["note"] == f"shrunk from 1,000 to 6 deals; {spec.note}"
    war = suites.definition("war-h26-v9")
    assert war.describe(war.size).startswith("shrunk from 1,000 to 50 deals for the machine's time")
    assert war.describe(3) == f"shrunk from 1,000 to 3 deals; {war.note}"  # not v0's reasons
    assert war.describe(1000) == war.note


def test_an_unwritable_suite_folder_is_refused_before_any_solving(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("TABLETOP_GYM_SUITES", str(blocker / "suites"))
    monkeypatch.setattr(search, "solve_cached", lambda *a, **k: pytest.fail("solved before the check"))
    assert main(["suite", "build", "war-r6s2-v7", "--size", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "the suite folder ($TABLETOP_GYM_SUITES)" in err and "is a file" in err
    assert len(err.splitlines()) == 1


def test_every_suite_is_defined_by_its_games_spec():
    from tabletop_gym.training.games import game_names, get_game

    owned = {d.name: game for game in game_names() for d in get_game(game).suites}
    assert set(suites.DEFINITIONS) == set(owned)
    assert all(d.game == owned[n] for n, d in suites.DEFINITIONS.items())
    for suite_id in suites.available():  # each shipped file's game defines it
        meta = json.loads(suites.suite_path(suite_id).read_text())["meta"]
        assert suites.definition(suite_id) in get_game(meta["game"]).suites
    with pytest.raises(SuiteError, match="no suite named 'war-r7'; suites: cribbage, dominion, modern_art"):
        suites.definition("war-r7-v0")


def test_a_games_suites_are_named_after_the_game():
    # definition() finds a suite through the game its id names, importing no other game.
    import dataclasses

    from tabletop_gym.training.games import get_game

    spec = get_game("war")
    stray = dataclasses.replace(spec.suites[0], name="cribbage-h26")
    with pytest.raises(ValueError, match="suite 'cribbage-h26' \\(war\\) is not named after game 'war'"):
        dataclasses.replace(spec, suites=(stray,))
    with pytest.raises(ValueError, match="defines a suite name twice"):
        dataclasses.replace(spec, suites=spec.suites + spec.suites[:1])


def test_each_environment_declares_what_changes_only_what_is_shown():
    # Suites and trained models ignore these options: a typo, or an option the environment does
    # not take, would make the comparison ignore nothing, or the wrong thing.
    import inspect

    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    ids = [i for i, s in gym.registry.items() if str(s.entry_point).startswith("tabletop_gym.envs.")]
    assert len(ids) >= 6
    for env_id in ids:
        taken = inspect.signature(load_env_creator(gym.spec(env_id).entry_point).__init__).parameters
        assert "render_mode" in suites.presentation_options(env_id) <= set(taken), env_id
    assert suites.presentation_options("tabletop/War-v0") == {"render_mode", "observation"}
    dominion = suites.presentation_options("tabletop/DominionSolitaire-v0")
    assert dominion == {"render_mode", "province_reward", "money_reward"}
    assert suites.presentation_options() == {"render_mode", "observation", "province_reward", "money_reward"}
    # The hidden observation is served by the full one's suite; the deck size tells suites apart.
    war = {"ranks": 6, "suits": 2, "observation": "hidden", "render_mode": "ansi"}
    assert suites.rules_kwargs("tabletop/War-v0", war) == {"ranks": 6, "suits": 2}
    aids = {"target": 4, "province_reward": 1.0, "money_reward": 0.5}
    assert suites.rules_kwargs("tabletop/DominionSolitaire-v0", aids) == {"target": 4}


def test_finding_a_suite_imports_only_its_games_spec():
    # The id names the game: `suite check war-r6s2-v0` does not wait for Dominion's or Nmbr9's oracle.
    import subprocess
    import sys

    code = (
        "import sys; from tabletop_gym.training import suites; suites.definition('war-r6s2-v0'); "
        "print(sorted(m for m in sys.modules if m.startswith('tabletop_gym.training.games.')))"
    )
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert done.stdout.strip() == "['tabletop_gym.training.games.war']"

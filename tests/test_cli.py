"""The command line end to end on Cribbage: solve, evaluate, train, play, errors."""

import builtins
import json
from pathlib import Path

import gymnasium as gym
import pytest

from tabletop_gym.envs.cribbage.rules import CribbageRules, parse_deal, replay
from tabletop_gym.training.cli import main

KNOWN = "46QK25J4K7TAK/T24A74J562A7T/6639KJA82889Q/J837359T935QQ"


def test_solve_prints_the_optimum_and_a_plan_that_replays(capsys) -> None:
    assert main(["solve", "cribbage", "--deal", KNOWN]) == 0
    out = capsys.readouterr().out
    assert "optimum  112" in out
    plan = [int(c) for c in out.split("plan")[1].split()[0]]
    assert replay(CribbageRules(), parse_deal(KNOWN), plan).score == 112


def test_bad_deal_is_a_clear_error(capsys) -> None:
    assert main(["solve", "cribbage", "--deal", "AAA/222"]) == 2
    assert "2 pile(s); expected 4" in capsys.readouterr().err


def test_unknown_agent_is_a_clear_error(tmp_path, capsys) -> None:
    code = main(["evaluate", "cribbage", "--agent", "nobody", "--episodes", "1", "--out", str(tmp_path)])
    assert code == 2 and "unknown agent 'nobody'" in capsys.readouterr().err


def test_evaluate_compares_agents_against_the_oracle(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "eval"
    args = ["evaluate", "cribbage", "--agent", "random,greedy", "--agent", "oracle"]
    assert main(args + ["--episodes", "3", "--seed", "5", "--out", str(out), "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "score/optimum" in table and "reaching_61" in table
    report = json.loads((out / "evaluation.json").read_text())
    assert (out / "evaluation.png").stat().st_size > 0
    oracle, greedy, rand = (report["agents"][a] for a in ("oracle", "greedy", "random"))
    assert oracle["deals"] == greedy["deals"] == rand["deals"]
    assert oracle["mean_ratio"] == 1.0 and oracle["share_optimal"] == 1.0
    assert all(r <= 1.0 for r in greedy["ratios"] + rand["ratios"])
    assert greedy["mean_bound"] == oracle["mean_score"]
    # The deals were solved once and cached: a second run reads the cache.
    assert len(list((tmp_path / "cache" / "cribbage").rglob("*.json"))) == 3


def test_train_then_evaluate_the_saved_policy(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    model_dir = tmp_path / "model"
    args = ["train", "cribbage", "--steps", "256", "--seed", "1", "--n-envs", "2", "--no-progress"]
    assert main(args + ["--out", str(model_dir)]) == 0
    config = json.loads((model_dir / "config.json").read_text())
    assert config["seed"] == 1 and config["steps_done"] >= 256 and config["algorithm"] == "MaskablePPO"
    out = tmp_path / "eval"
    code = main(
        [
            "evaluate",
            "cribbage",
            "--agent",
            str(model_dir),
            "--episodes",
            "2",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    entry = json.loads((out / "evaluation.json").read_text())["agents"][str(model_dir)]
    assert len(entry["scores"]) == 2 and 0 < entry["mean_ratio"] <= 1


def test_play_in_the_terminal(monkeypatch, capsys) -> None:
    answers = iter(["x", "q", "²", "0", "quit"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(answers))
    assert main(["play", "cribbage", "--deal", KNOWN]) == 0
    out = capsys.readouterr().out
    assert "is not a pile" in out
    assert "stopped: you scored 0; the best possible score on this deal is 112" in out


def test_play_handles_end_of_input(monkeypatch, capsys) -> None:
    def no_input(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", no_input)
    assert main(["play", "cribbage", "--seed", "3"]) == 0
    assert "best possible score" in capsys.readouterr().out


def test_unknown_game_is_rejected() -> None:
    with pytest.raises(SystemExit):
        main(["solve", "chess"])


def test_bench_writes_its_report(tmp_path, capsys) -> None:
    args = ["bench", "cribbage", "--deals", "1", "--env-steps", "300", "--probe-deals", "0"]
    assert main(args + ["--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "cribbage.json").read_text())
    assert report["known_answer_112"] == 112
    assert report["oracle_median_seconds"] > 0 and report["env_steps_per_second_median"] > 0
    assert "oracle_median_seconds" in capsys.readouterr().out


def test_evaluate_picks_the_environment_the_arguments_ask_for(tmp_path, capsys) -> None:
    # Dominion's --opponents selects the versus game: no oracle there, a win rate instead.
    args = ["evaluate", "dominion", "--agent", "big-money", "--opponents", "big-money", "--episodes", "2"]
    assert main(args + ["--out", str(tmp_path), "--no-progress"]) == 0
    entry = json.loads((tmp_path / "evaluation.json").read_text())["agents"]["big-money"]
    assert "mean_ratio" not in entry
    assert entry["share_win"] + entry["share_shared"] + entry["share_loss"] == 1.0
    assert "win" in capsys.readouterr().out


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("where", ["file", "under-file", "unwritable"])
def test_a_bad_out_folder_stops_the_command_before_any_work(where, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))
    (tmp_path / "f").write_text("")
    out = {
        "file": tmp_path / "f",
        "under-file": tmp_path / "f" / "report",
        "unwritable": Path("/proc/tabletop-gym-test"),
    }[where]
    code = main(["evaluate", "cribbage", "--agent", "oracle", "--episodes", "1", "--out", str(out)])
    assert code == 2
    assert f"--out {out}" in _one_line_error(capsys)
    assert not (tmp_path / "cache").exists()  # nothing was solved before the refusal


def test_a_report_that_cannot_be_written_is_still_shown(tmp_path, monkeypatch, capsys) -> None:
    def disk_full(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("tabletop_gym.training.evaluate.atomic_write_text", disk_full)
    code = main(["evaluate", "cribbage", "--agent", "random", "--episodes", "1", "--out", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 1
    assert "random" in captured.out and "mean score" in captured.out  # the work is not lost
    assert "could not write the report" in captured.err and "No space left" in captured.err


@pytest.mark.parametrize(
    ("agents", "message"),
    [
        ("random,random", "named twice"),
        ("", "argument --agent: must not be empty"),
        ("random,,greedy", "empty agent name"),
    ],
)
def test_agent_lists_are_checked(agents, message, tmp_path, capsys) -> None:
    try:
        code = main(["evaluate", "cribbage", "--agent", agents, "--episodes", "1", "--out", str(tmp_path)])
    except SystemExit as stop:
        code = stop.code
    assert code == 2 and message in _one_line_error(capsys)


def test_a_file_that_is_not_a_model_is_a_clear_error(tmp_path, capsys) -> None:
    fake = tmp_path / "model.zip"
    fake.write_bytes(b"PK\x03\x04 not really a zip")
    code = main(["evaluate", "cribbage", "--agent", str(fake), "--episodes", "1", "--out", str(tmp_path)])
    assert code == 2 and "is not a model saved by 'tabletop-gym train'" in _one_line_error(capsys)


def test_ctrl_c_stops_with_one_line(monkeypatch, capsys) -> None:
    def interrupt(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(builtins, "input", interrupt)
    assert main(["play", "cribbage", "--seed", "1"]) == 130
    assert _one_line_error(capsys) == "tabletop-gym: interrupted"


def test_a_closed_output_pipe_ends_quietly(monkeypatch, capsys) -> None:
    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self) -> int:
            raise OSError("no file descriptor")

    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["solve", "cribbage", "--deal", KNOWN]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_train_saves_a_checkpoint_on_ctrl_c_and_resumes(tmp_path, monkeypatch, capsys) -> None:
    import tabletop_gym.training.train as training

    real = training._checkpoint_callback

    def interrupting_callback() -> type:
        base = real()

        class InterruptAfterAWhile(base):
            def _on_step(self) -> bool:
                super()._on_step()
                if self.num_timesteps >= 600:
                    raise KeyboardInterrupt
                return True

        return InterruptAfterAWhile

    out = tmp_path / "run"
    args = ["train", "cribbage", "--steps", "1500", "--n-envs", "2", "--no-progress", "--out", str(out)]
    monkeypatch.setattr(training, "_checkpoint_callback", interrupting_callback)
    assert main(args + ["--checkpoint-every", "300"]) == 130
    err = capsys.readouterr().err
    assert "checkpoint saved to" in err and "--resume" in err
    config = json.loads((out / "config.json").read_text())
    assert config["interrupted"] is True and 600 <= config["steps_done"] < 1500
    assert (out / "checkpoint.zip").is_file() and not (out / "model.zip").exists()
    monkeypatch.setattr(training, "_checkpoint_callback", real)
    assert main(args + ["--resume"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["interrupted"] is False and config["steps_done"] >= 1500
    assert config["resumed_at_step"] >= 600 and config["resumed_from"].endswith("checkpoint.zip")
    # Resuming with other game settings is refused rather than mixed.
    code = main(["train", "war", "--steps", "3000", "--resume", "--out", str(out), "--no-progress"])
    assert code == 2 and "--resume" in _one_line_error(capsys)


def test_a_model_for_other_settings_is_refused(tmp_path, capsys) -> None:
    from tabletop_gym.training.evaluate import _check_policy_fits

    class Model:
        observation_space = gym.spaces.Box(0, 1, (3,))
        action_space = gym.spaces.Discrete(4)

    class Agent:
        model = Model()

    env = gym.make("tabletop/Cribbage-v0").unwrapped
    with pytest.raises(ValueError, match="trained for observations"):
        _check_policy_fits(Agent(), "run", env)


def test_a_model_trained_on_other_settings_of_the_same_shapes_is_refused() -> None:
    from types import SimpleNamespace

    from tabletop_gym.training.evaluate import _check_policy_fits

    env = gym.make("tabletop/War-v0", ranks=6, suits=2).unwrapped
    trained = {"ranks": 6, "suits": 2, "pickup": "winner_first", "observation": "full"}
    agent = SimpleNamespace(
        model=SimpleNamespace(observation_space=env.observation_space, action_space=env.action_space),
        config={"env_id": "tabletop/War-v0", "env_kwargs": trained},
    )
    other = {**trained, "pickup": "loser_first"}
    with pytest.raises(ValueError, match="pickup='winner_first' there, 'loser_first' here"):
        _check_policy_fits(agent, "run", env, "tabletop/War-v0", other)
    with pytest.raises(ValueError, match="tabletop/War-v0 there, tabletop/Other-v0 here"):
        _check_policy_fits(agent, "run", env, "tabletop/Other-v0", trained)
    # The same settings, and settings that change only rewards or what is shown, are accepted.
    _check_policy_fits(agent, "run", env, "tabletop/War-v0", dict(trained))
    _check_policy_fits(agent, "run", env, "tabletop/War-v0", {**trained, "province_reward": 1.0})


def test_evaluate_refuses_a_trained_run_for_other_settings(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert main(["train", "war", "--ranks", "6", "--suits", "2", "--steps", "64", "--out", str(run)]) == 0
    config = json.loads((run / "config.json").read_text())
    assert config["steps"] == 64 and config["steps_done"] >= 64
    capsys.readouterr()
    common = ["evaluate", "war", "--ranks", "6", "--suits", "2", "--agent", str(run), "--episodes", "2"]
    code = main(common + ["--pickup", "loser_first", "--out", str(tmp_path / "a"), "--no-progress"])
    assert code == 2 and "trained on other settings (pickup=" in capsys.readouterr().err
    assert main(common + ["--out", str(tmp_path / "b"), "--no-progress"]) == 0


def test_deal_and_seed_together_are_refused(capsys) -> None:
    assert main(["solve", "cribbage", "--deal", KNOWN, "--seed", "3"]) == 2
    assert "--deal and --seed both choose the deal" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "nmbr9", "--no-hindsight", "--variant", "3-1-4", "--grid", "5"], "to --unknown only"),
        (["solve", "war", "--method", "cpsat", "--ranks", "6", "--suits", "2"], "with --horizon only"),
        (["play", "dominion", "--opponents", "big-money", "--target", "3"], "--target sets the"),
        (
            ["evaluate", "dominion", "--opponents", "big-money", "--target", "3", "--agent", "random"],
            "--target sets the",
        ),
    ],
)
def test_options_that_would_be_ignored_are_refused(argv, message, tmp_path, capsys) -> None:
    assert main(argv + (["--out", str(tmp_path)] if argv[0] == "evaluate" else [])) == 2
    assert message in capsys.readouterr().err


def test_an_unknown_option_points_to_its_command_help(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bench", "modern_art", "--players", "3"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "unrecognized arguments: --players 3 (see: tabletop-gym bench modern_art --help)" in err


def test_version(capsys) -> None:
    import tabletop_gym

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"tabletop-gym {tabletop_gym.__version__}"


def _evaluate_agent_help(game: str) -> str:
    """The help text of ``evaluate GAME --agent``, as ``--help`` prints it."""
    import argparse

    from tabletop_gym.training.cli import build_parser

    def sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))

    game_parser = sub(sub(build_parser()).choices["evaluate"]).choices[game]
    return next(a for a in game_parser._actions if "--agent" in a.option_strings).help


@pytest.mark.parametrize("game", ["cribbage", "dominion", "modern_art", "nmbr9", "war"])
def test_agent_help_lists_exactly_the_agents_evaluate_accepts(game, tmp_path, monkeypatch) -> None:
    from tabletop_gym.training.cli import build_parser
    from tabletop_gym.training.evaluate import make_agent
    from tabletop_gym.training.games import get_game

    monkeypatch.chdir(tmp_path)  # no file in the way of a name being read as a model's path
    spec = get_game(game)
    listed = _evaluate_agent_help(game).split(", or a trained model's path")[0].split(", ")
    # Nmbr9's optimal-policy agent solves its variant when made: a small one keeps this cheap.
    small = ["--variant", "4-1-4", "--grid", "5", "--levels", "3"] if game == "nmbr9" else []
    args = build_parser().parse_args(["evaluate", game, "--agent", "random", *small])
    for name in listed:  # every name the help lists is an agent
        assert make_agent(spec, name, args) is not None, name
    # Every name evaluate accepts is listed: the game's agents and, where its plan can play, the oracle.
    accepted = []
    for name in [*spec.agents, "oracle", "probe", "optimal-policy", "greedy", "nobody"]:
        try:
            make_agent(spec, name, args)
        except ValueError:
            continue
        accepted.append(name)
    assert sorted(set(accepted)) == sorted(listed)

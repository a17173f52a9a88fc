"""Self-play training (``train --self-play``): snapshots enter the pool at the refresh interval, the
pool keeps its size, opponent seats draw from it, resume restores it, the learning curve is written,
and bad options stop with one line."""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.training import selfplay
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game
from tabletop_gym.training.selfplay import Pool, PoolOpponent, SelfPlayOptions

pytest.importorskip("sb3_contrib")

TINY_PPO = {"n_steps": 64, "batch_size": 64, "n_epochs": 1}
DOMINION_2P = argparse.Namespace(opponents="big-money")


def _train(out, steps, options, resume=False):
    from tabletop_gym.training.train import train

    return train(get_game("dominion"), steps, 0, out, DOMINION_2P, n_envs=1, progress=False,
                 overrides=TINY_PPO, checkpoint_every=0, resume=resume, self_play=options)


def _pool_steps(out) -> list[int]:
    listing = json.loads((out / "pool" / "pool.json").read_text())
    return [entry["step"] for entry in listing["snapshots"]]


def test_snapshots_enter_at_the_interval_the_pool_keeps_its_size_and_the_curve_is_written(tmp_path):
    out = tmp_path / "run"
    _train(out, 384, SelfPlayOptions(pool_size=2, refresh_every=128, eval_games=2))
    # Snapshots at 0 (the first weights), 128, 256, 384; the two newest stay, on disk and in the listing.
    assert _pool_steps(out) == [256, 384]
    assert sorted(p.name for p in (out / "pool").glob("*.pt")) == ["snapshot-256.pt", "snapshot-384.pt"]
    curve = json.loads((out / selfplay.CURVE_JSON).read_text())
    assert [p["step"] for p in curve["points"]] == [0, 128, 256, 384]
    assert curve["against"] == "big-money-ultimate" and curve["seats"] == 2
    for point in curve["points"]:
        assert point["games"] == 2 and 0 <= point["low"] <= point["win_share"] <= point["high"] <= 1
    assert (out / selfplay.CURVE_PNG).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    config = json.loads((out / "config.json").read_text())
    assert config["self_play"]["pool_size"] == 2
    assert config["self_play"]["eval_against"] == "big-money-ultimate"
    # The model is the 2-player versus game's, as a run against bots would record it.
    assert config["env_kwargs"]["opponents"] == ["big-money"]


def test_resume_restores_the_pool_and_keeps_the_curve(tmp_path):
    import torch

    out = tmp_path / "run"
    _train(out, 256, SelfPlayOptions(pool_size=2, refresh_every=128, eval_games=1))
    weights = {step: torch.load(out / "pool" / f"snapshot-{step}.pt") for step in (128, 256)}
    # A larger pool on resume: the restored snapshots stay beside the new one (a pool started afresh
    # would hold only the weights at 256 and the new snapshot).
    _train(out, 384, SelfPlayOptions(pool_size=3, refresh_every=128, eval_games=1), resume=True)
    assert _pool_steps(out) == [128, 256, 384]
    curve = json.loads((out / selfplay.CURVE_JSON).read_text())
    assert [p["step"] for p in curve["points"]] == [0, 128, 256, 384]
    # The restored snapshots are the saved weights.
    from sb3_contrib import MaskablePPO

    spec = get_game("dominion")
    pool = Pool(SelfPlayOptions(pool_size=3), spec, spec.read(DOMINION_2P))
    pool.bind(MaskablePPO.load(str(out / "model.zip"), device="cpu"))
    pool.load(out)
    assert [s.step for s in pool.snapshots] == [128, 256, 384]
    for snapshot in pool.snapshots[:2]:
        restored = snapshot.policy.state_dict()
        assert all(restored[k].equal(v) for k, v in weights[snapshot.step].items())


class _FirstLegal:
    """A stand-in policy: the first legal action, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, observation, action_masks, deterministic):
        self.calls += 1
        return np.flatnonzero(action_masks)[0], None


def _pool(**options) -> Pool:
    spec = get_game("dominion")
    pool = Pool(SelfPlayOptions(**options), spec, spec.read(DOMINION_2P))
    for step in (0, 100, 200):
        pool.add(step, _FirstLegal())
    return pool


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"sampling": "latest"}, {"snapshot-200"}),
        ({"sampling": "uniform", "pool_bots": ("big-money",)},
         {"snapshot-0", "snapshot-100", "snapshot-200", "big-money"}),
        ({"sampling": "mix", "latest_share": 1.0, "pool_bots": ("random",)}, {"snapshot-200"}),
        ({"sampling": "mix", "latest_share": 0.5, "pool_bots": ("random",)},
         {"snapshot-0", "snapshot-100", "snapshot-200", "random"}),
    ],
)
def test_opponents_draw_from_the_pool_by_its_sampling(options, expected):
    pool = _pool(pool_size=3, **options)
    rng = np.random.default_rng(0)
    draws = Counter(pool.draw(rng) for _ in range(400))
    assert set(draws) == expected
    if options.get("latest_share") == 0.5:  # the newest about 0.5 + 0.5/4 of the time
        assert 0.55 < draws["snapshot-200"] / 400 < 0.70


def test_the_opponent_seats_play_what_they_drew(tmp_path):
    import gymnasium as gym

    spec = get_game("dominion")
    settings = spec.read(DOMINION_2P)
    pool = _pool(pool_size=2, sampling="uniform", pool_bots=("big-money",))
    assert [s.step for s in pool.snapshots] == [100, 200]  # the size limit drops the oldest
    seat = PoolOpponent(pool, np.random.default_rng(1))
    env = gym.make("tabletop/Dominion-v0", **spec.self_play.seat_kwargs(settings, 1, [seat]))
    played = Counter()
    for episode in range(12):
        before = {s.name: s.policy.calls for s in pool.snapshots}
        _, info = env.reset(seed=episode)  # seat 0 opens: the drawn player acts already
        name = seat.player.name
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = terminated or truncated
        played[name] += 1
        for s in pool.snapshots:  # only the drawn snapshot acted for the seat
            assert (s.policy.calls > before[s.name]) == (s.name == name)
    assert sum(pool.draws.values()) == 12 and set(played) <= {"snapshot-100", "snapshot-200", "big-money"}
    assert len(played) == 3


def test_random_seat_puts_the_learner_in_every_seat():
    from sb3_contrib import MaskablePPO

    spec = get_game("modern_art")
    settings = spec.read({"players": 3})
    pool = Pool(SelfPlayOptions(random_seat=True), spec, settings)
    vec_env = selfplay.make_vec_env(spec, settings, pool, 1, 0, 3)
    pool.bind(MaskablePPO("MlpPolicy", vec_env, n_steps=64, batch_size=64, device="cpu"))
    pool.add(0)
    seated = vec_env.envs[0].unwrapped
    seats = set()
    for _ in range(30):
        vec_env.reset()
        seats.add(seated.current.unwrapped.seat)
    assert seats == {0, 1, 2}
    vec_env.close()


def test_war_trains_against_its_pool(tmp_path):
    """War's opponent seat (player 1's pickups, from its own observation) plays the pool's snapshots."""
    from tabletop_gym.training.train import train

    out = tmp_path / "war"
    args = argparse.Namespace(ranks=6, suits=2)
    train(get_game("war"), 256, 0, out, args, n_envs=1, progress=False, overrides=TINY_PPO,
          checkpoint_every=0, self_play=SelfPlayOptions(refresh_every=128, eval_games=2))
    assert _pool_steps(out) == [0, 128, 256]
    assert json.loads((out / "config.json").read_text())["self_play"]["eval_against"] == "greedy"


def _exit_status(argv: list[str]) -> int:
    """The command's exit status, whether it returns it or argparse exits with it."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["dominion", "--opponents", "big-money", "--self-play", "--pool-size", "0"], "--pool-size"),
        (["dominion", "--opponents", "big-money", "--self-play", "--sampling", "best"], "--sampling"),
        (["dominion", "--opponents", "big-money", "--self-play", "--latest-share", "2"], "--latest-share"),
        (["dominion", "--opponents", "big-money", "--self-play", "--pool-bots", "nobody"], "nobody"),
        (["dominion", "--opponents", "big-money", "--self-play", "--refresh-every", "0"], "--refresh-every"),
        (["dominion", "--opponents", "big-money", "--pool-size", "3"], "--self-play"),
        (["dominion", "--self-play"], "--opponents"),
        (["war", "--self-play", "--random-seat"], "--random-seat"),
        (["dominion", "--opponents", "big-money", "--self-play", "--sampling", "latest", "--pool-bots",
          "random"], "--pool-bots"),
        (["cribbage", "--self-play"], "--self-play"),
    ],
)
def test_bad_self_play_options_stop_with_one_line(argv, says, tmp_path, capsys):
    out = tmp_path / "run"
    assert _exit_status(["train", *argv, "--steps", "64", "--no-progress", "--out", str(out)]) == 2
    assert says in _one_line_error(capsys)
    assert not (out / "model.zip").exists() and not (out / "pool").exists()


def test_a_run_resumes_as_it_started(tmp_path, capsys):
    out = tmp_path / "run"
    base = ["train", "dominion", "--opponents", "big-money", "--n-envs", "1", "--no-progress",
            "--out", str(out)]
    assert main([*base, "--steps", "64"]) == 0
    capsys.readouterr()
    assert main([*base, "--steps", "128", "--resume", "--self-play"]) == 2
    assert "without --self-play" in _one_line_error(capsys)


def test_a_resume_without_the_pool_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    base = ["train", "dominion", "--opponents", "big-money", "--self-play", "--n-envs", "1", "--no-progress",
            "--eval-games", "0", "--refresh-every", "64", "--out", str(out)]
    assert main([*base, "--steps", "64"]) == 0
    (out / "pool" / "pool.json").unlink()
    capsys.readouterr()
    assert main([*base, "--steps", "1000", "--resume"]) == 2  # a rollout is 256 steps: ask past it
    assert "pool.json is missing" in _one_line_error(capsys)

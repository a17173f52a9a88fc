"""``tabletop-gym dataset GAME --suite ID``: a suite's proven plans as a Minari dataset, read back with
Minari's own API (issue 38, item 2). Every dataset is written under the test's own folder, never
``~/.minari``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import minari  # the [dataset] extra, which `make install` installs
import numpy as np
import pytest

import tabletop_gym  # noqa: F401  (registers the environments the datasets name)
from tabletop_gym.training import dataset as datasets
from tabletop_gym.training import suites
from tabletop_gym.training.cli import main


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Minari's folder for the test: where ``load_dataset`` looks, and where a write without --out goes."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    return tmp_path / "minari"


def _at(observations: Any, t: int) -> Any:
    if isinstance(observations, dict):
        return {k: _at(v, t) for k, v in observations.items()}
    return observations[t]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


# One slice of a suite per game that has proven plans; war-h26-v0's first 8 deals hold 2 bounds.
# (suite, game, deals, whether the seat plays without seeing the whole deal)
SLICES = [
    ("cribbage-v0", "cribbage", 2, False),
    ("dominion-v0", "dominion", 3, True),
    ("nmbr9-small-v0", "nmbr9", 4, True),
    ("war-h26-v0", "war", 8, False),
]


@pytest.mark.parametrize(("suite_id", "game", "deals", "hindsight"), SLICES)
def test_dataset_loads_back_and_replays_to_the_suites_scores(
    root: Path, suite_id: str, game: str, deals: int, hindsight: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dataset", game, "--suite", suite_id, "--limit", str(deals), "--no-progress"]) == 0
    name = f"tabletop/{suite_id}/oracle-v0"
    assert name in capsys.readouterr().out
    suite = suites.load(suite_id, replay=False)
    proven = [e for e in suite.entries[:deals] if e.optimal]
    data = minari.load_dataset(name)
    assert data.total_episodes == len(proven)

    meta = data.storage.metadata
    assert meta["suite_id"] == suite_id and meta["suite_checksum"] == suite.checksum
    assert meta["oracle_revision"] == proven[0].oracle_revision
    assert meta["hindsight_plan"] is hindsight
    assert meta["deals"] == deals and meta["skipped_bounds"] == deals - len(proven)
    assert meta["env_id"] == suite.env_id == data.spec.env_spec.id
    assert data.spec.env_spec.kwargs == suite.env_kwargs  # the environment, rebuilt by Minari
    assert ("hindsight plans" in meta["description"]) is hindsight
    episode_meta = list(data.storage.get_episode_metadata(range(len(proven))))

    for episode, entry, stored in zip(data.iterate_episodes(), proven, episode_meta, strict=True):
        assert stored["deal"] == entry.deal and stored["score"] == entry.score == stored["bound"]
        assert list(episode.actions) == list(entry.plan)
        # The episode ends on the plan's last action, as the environment ends it (War's horizon
        # truncates a game still going).
        ends = episode.terminations | episode.truncations
        assert ends[-1] and not ends[:-1].any()
        infos = episode.infos
        assert infos["score"][-1] == entry.score
        # The rewards add up to the score, but for War's horizon, whose rewards count from the cards
        # held at reset (its docstring's Rewards).
        start = infos["cards"][0] if game == "war" else 0
        assert episode.rewards.sum() + start == entry.score
        mask = infos["action_mask"]
        assert mask.dtype == np.int8 and mask.shape[0] == len(entry.plan) + 1
        assert all(mask[t, a] == 1 for t, a in enumerate(episode.actions))
        # Only what the seat sees: where the deal is hidden, info holds it on the last step only.
        assert (not any(infos["deal"][:-1])) is hindsight
        # The same observations from a fresh environment playing the recorded actions.
        env = gym.make(suite.env_id, **suite.env_kwargs)
        obs, _ = env.reset(seed=entry.seed, options={"deal": entry.deal})
        assert _same(obs, _at(episode.observations, 0))
        for t, action in enumerate(episode.actions, 1):
            obs, *_ = env.step(action)
            assert _same(obs, _at(episode.observations, t))
        env.close()


def test_hidden_observation_is_recorded_and_the_plans_are_hindsight(root: Path) -> None:
    report = datasets.write("war", "war-h26-v0", limit=2, env_options={"observation": "hidden"},
                            progress=False)
    data = minari.load_dataset(report.dataset_id)
    assert report.hindsight_plan and data.storage.metadata["hindsight_plan"] is True
    assert data.storage.metadata["env_kwargs"]["observation"] == "hidden"
    hidden = gym.make("tabletop/War-v0", **{**suites.load("war-h26-v0", replay=False).env_kwargs,
                                            "observation": "hidden"})
    assert data.observation_space == hidden.observation_space
    episode = next(data.iterate_episodes())
    assert not any(episode.infos["deal"][:-1]) and episode.infos["deal"][-1]


def test_refuses_to_overwrite_unless_forced(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["dataset", "nmbr9", "--suite", "nmbr9-small-v0", "--no-progress"]
    assert main([*args, "--limit", "2"]) == 0
    assert main([*args, "--limit", "3"]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err
    assert minari.load_dataset("tabletop/nmbr9-small-v0/oracle-v0").total_episodes == 2
    assert main([*args, "--limit", "3", "--force"]) == 0
    assert minari.load_dataset("tabletop/nmbr9-small-v0/oracle-v0").total_episodes == 3
    assert not [p for p in root.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_out_sets_the_folder(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "elsewhere"
    assert main(["dataset", "nmbr9", "--suite", "nmbr9-small-v0", "--limit", "1", "--out", str(out),
                 "--no-progress"]) == 0
    assert not root.exists() or not any(root.iterdir())
    assert os.environ["MINARI_DATASETS_PATH"] == str(root)  # restored after the write
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(out))
    assert minari.load_dataset("tabletop/nmbr9-small-v0/oracle-v0").total_episodes == 1


def test_an_interruption_leaves_no_half_dataset(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    datasets.write("nmbr9", "nmbr9-small-v0", limit=2, progress=False)
    played = []
    play = datasets._play

    def interrupted(*args: Any) -> int:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(1)
        return play(*args)

    monkeypatch.setattr(datasets, "_play", interrupted)
    with pytest.raises(KeyboardInterrupt):
        datasets.write("nmbr9", "nmbr9-small-v0", limit=5, force=True, progress=False)
    with pytest.raises(KeyboardInterrupt):
        datasets.write("dominion", "dominion-v0", limit=5, progress=False)
    # The earlier dataset is whole and untouched, the interrupted new one is nowhere.
    assert minari.load_dataset("tabletop/nmbr9-small-v0/oracle-v0").total_episodes == 2
    assert list(minari.list_local_datasets()) == ["tabletop/nmbr9-small-v0/oracle-v0"]
    assert not [p for p in root.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["war", "--suite", "cribbage-v0"], "suite cribbage-v0 is a cribbage suite, not war"),
        (["war", "--suite", "war-nope-v0"], "no suite named 'war-nope'"),
        (["war", "--suite", "war-h26"], "is not NAME-vN"),
        # Every result of these suites is a bound: no expert play to write.
        (["modern_art", "--suite", "modern_art-2p-v0"], "holds no proven plan"),
        (["nmbr9", "--suite", "nmbr9-v0"], "holds no proven plan"),
        (["war", "--suite", "war-h26-v0", "--env-option", "ranks=6"], "would change the rules"),
        (["war", "--suite", "war-h26-v0", "--env-option", "ranks"], "expected KEY=VALUE"),
        (["war", "--suite", "war-h26-v0", "--limit", "0"], "--limit"),
        (["war", "--suite", "missing.json"], "no suite file at missing.json"),
    ],
)
def test_bad_inputs_are_refused_with_one_line(
    root: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(["dataset", *args, "--no-progress"])
    except SystemExit as exit:  # argparse's own refusals
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not root.exists() or not list(minari.list_local_datasets())


def test_missing_minari_names_the_install_command(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "minari", None)  # as if the extra were not installed
    assert main(["dataset", "nmbr9", "--suite", "nmbr9-small-v0"]) == 2
    err = capsys.readouterr().err
    assert 'pip install "tabletop-gym[dataset]"' in err and "minari" in err


def test_dataset_id_keeps_the_suite_version_apart_from_the_datasets() -> None:
    assert datasets.dataset_id("cribbage-v1") == "tabletop/cribbage-v1/oracle-v0"
    from minari.dataset.minari_dataset import parse_dataset_id

    namespace, name, version = parse_dataset_id(datasets.dataset_id("war-h26-v0"))
    assert (namespace, name, version) == ("tabletop/war-h26-v0", "oracle", 0)


def test_the_pages_python_example_runs(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/datasets.md's example, on a one-deal cribbage-v1 dataset (the page's id)."""
    import re

    load = suites.load
    # The suite's 1,000 replays are test_suites' business; this test reads the page's example.
    monkeypatch.setattr(datasets.suite_api, "load", lambda suite, replay=True: load(suite, replay=False))
    datasets.write("cribbage", "cribbage-v1", limit=1, progress=False)
    page = (Path(__file__).resolve().parents[1] / "docs" / "datasets.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    names: dict[str, Any] = {}
    exec(compile(example, "docs/datasets.md example", "exec"), names)
    assert names["dataset"].total_episodes == 1 and names["env"].spec.id == "tabletop/Cribbage-v0"


def test_a_dataset_another_run_writes_is_refused(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tabletop_gym.core import hold_output

    place = root / "tabletop" / "nmbr9-small-v0" / "oracle-v0"
    with hold_output(place, "dataset"):  # the other run, as a run writing it holds it
        assert main(["dataset", "nmbr9", "--suite", "nmbr9-small-v0", "--limit", "1", "--no-progress"]) == 2
    assert f"dataset {place} is in use" in capsys.readouterr().err
    assert not place.exists()

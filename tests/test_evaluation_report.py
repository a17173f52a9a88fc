"""What ``evaluate`` shows besides its table: the ratio each deal is scored by, the plot (one panel
per agent, whole deals, the right axis label) and the oracle's progress bar only where it solves."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from tabletop_gym.training import evaluate as evaluation
from tabletop_gym.training.cli import main
from tabletop_gym.training.games import get_game


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_GYM_CACHE", str(tmp_path / "cache"))


def _report(tmp_path, game: str, *options: str) -> dict:
    argv = ["evaluate", game, *options, "--agent", "random,greedy", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    return json.loads((tmp_path / "evaluation.json").read_text())


def test_dominion_ratio_is_fewest_turns_over_turns_taken(tmp_path):
    report = _report(tmp_path, "dominion", "--target", "2", "--episodes", "2")
    assert report["ratio"] == "fewest turns (oracle optimum) / turns taken"
    for entry in report["agents"].values():  # what the label says is what was computed
        taken = [-s for s in entry["scores"]]
        fewest = [r * t for r, t in zip(entry["ratios"], taken, strict=True)]
        assert all(0 < f <= t and f == pytest.approx(round(f)) for f, t in zip(fewest, taken, strict=True))
        assert np.mean(fewest) == pytest.approx(-entry["mean_bound"])


def test_war_ratio_names_the_horizon_or_the_whole_game():
    war = get_game("war")
    horizon, whole = war.read(argparse.Namespace(horizon=26)), war.read(argparse.Namespace(horizon=None))
    assert war.ratio_name(horizon).startswith("cards held after 26 tricks / {best}")
    assert war.ratio_name(whole).startswith("(result + 1) / ({best} + 1)")


def test_the_figure_has_a_panel_per_agent_with_whole_deals(tmp_path):
    report = _report(tmp_path, "war", "--ranks", "6", "--suits", "2", "--episodes", "3")
    figure = evaluation._figure(get_game("war"), report)
    try:
        axes = figure.axes
        assert len(axes) == len(report["agents"]) == 2  # no agent drawn over another
        for ax, (name, entry) in zip(axes, report["agents"].items(), strict=True):
            assert ax.get_title(loc="left").startswith(f"{name}: mean {entry['mean_ratio']:.3f}")
            assert sum(bar.get_height() for bars in ax.containers for bar in bars) == 3  # each deal once
            ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
            assert ticks and all(float(t).is_integer() for t in ticks), ticks  # deals are whole
            assert ax.get_legend() is None  # the panel's title names the agent: nothing over the bars
        assert axes[-1].get_xlabel() == report["ratio"] and report["ratio"].startswith("(result + 1)")
    finally:
        import matplotlib.pyplot as plt

        plt.close(figure)


def test_oracle_bar_only_for_deals_left_to_solve(tmp_path, monkeypatch):
    bars: list[tuple[str, int, bool]] = []
    real = evaluation.tqdm

    def recording(iterable=None, **kwargs):
        items = list(iterable)
        bars.append((kwargs.get("desc"), len(items), bool(kwargs.get("disable"))))
        return real(items, **kwargs)

    monkeypatch.setattr(evaluation, "tqdm", recording)
    argv = ["evaluate", "war", "--ranks", "6", "--suits", "2", "--episodes", "3", "--agent", "random,greedy"]
    assert main([*argv, "--out", str(tmp_path)]) == 0  # with progress bars
    shown = [(desc, n) for desc, n, disabled in bars if not disabled]
    # The first agent's deals are solved; the second plays the same deals: nothing left to solve.
    assert shown == [("random playing", 3), ("oracle solving", 3), ("greedy playing", 3)]

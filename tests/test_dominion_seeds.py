"""One meaning of a Dominion seed: ``--seed S`` on solve, play, evaluate, ``solve --deals A:B`` and
bench is the deal that ``reset(seed=S)`` plays (its ``info["deal"]``), printed so it can be replayed."""

from __future__ import annotations

import io
import json
import re

import gymnasium as gym
import pytest

import tabletop_gym  # noqa: F401  (registers the environments)
from tabletop_gym.agents.dominion import solitaire_turns
from tabletop_gym.envs.dominion.env import deal_of_seed
from tabletop_gym.oracles import dominion as oracle
from tabletop_gym.training.cli import build_parser, main
from tabletop_gym.training.games import dominion as cli_dominion

SOLITAIRE = "tabletop/DominionSolitaire-v0"
VERSUS = "tabletop/Dominion-v0"


def reset_deal(seed: int, env_id: str = SOLITAIRE, **kwargs) -> str:
    env = gym.make(env_id, reveal_deal=True, **kwargs)
    return env.reset(seed=seed)[1]["deal"]


@pytest.mark.parametrize("seed", [0, 1, 3, 5, 12345, 2**63 - 1])
def test_deal_of_seed_is_the_deal_reset_plays(seed):
    deal = deal_of_seed(seed)
    assert deal == reset_deal(seed) == reset_deal(seed, VERSUS, opponents=["big-money"])
    assert deal == reset_deal(seed, SOLITAIRE, target=1, kingdom="smithy")  # settings do not change it


def test_seed_zero_is_not_deal_zero():
    # What made the two conventions differ: the tests below would pass under either if they matched.
    assert deal_of_seed(0) != "0"
    assert oracle.solve(0, 1).score != oracle.solve(int(deal_of_seed(0)), 1).score


@pytest.mark.parametrize("seed", [0, 4])
def test_solve_seed_solves_and_prints_the_deal_reset_plays(seed, capsys):
    assert main(["solve", "dominion", "--seed", str(seed), "--target", "1"]) == 0
    out = capsys.readouterr().out
    deal = reset_deal(seed)
    assert out.splitlines()[0] == f"deal     {deal} (seed {seed}); kingdom: none"
    result = oracle.solve(int(deal), 1)
    assert f"turns    {-result.score} to own 1 Provinces (proven optimal)" in out
    assert f"big-money on this deal: {solitaire_turns('big-money', int(deal), 1)} turns" in out
    # The printed deal replays: --deal gives the same answer.
    assert main(["solve", "dominion", "--deal", deal, "--target", "1"]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[0] == f"deal     {deal}; kingdom: none"
    assert _without_times(again)[1:] == _without_times(out)[1:]


def _without_times(out: str) -> list[str]:
    return [re.sub(r" in \d+\.\d+ s$", "", line) for line in out.splitlines()]


def test_play_seed_plays_the_deal_reset_plays(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # end of input at the first prompt
    assert main(["play", "dominion", "--seed", "0", "--target", "1", "--cache", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    deal = reset_deal(0)
    assert out.startswith(f"Dominion, deal {deal} (seed 0), solitaire: ")
    env = gym.make(SOLITAIRE, target=1).unwrapped
    env.reset(seed=0)
    hand = ", ".join(f"{n}x {name}" if n > 1 else name
                     for name, n in zip(cli_dominion.R.CARD_NAMES, env.state.hand[0], strict=True) if n)
    assert f"hand: {hand}" in out  # the first screen is reset(seed=0)'s
    result = oracle.solve(int(deal), 1)
    assert f"the fewest turns any play of this deal needs: {-result.bound};" in out
    assert f"big-money: {solitaire_turns('big-money', int(deal), 1)}" in out


def test_play_seed_against_bots_plays_the_deal_reset_plays(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "dominion", "--opponents", "big-money", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    deal = reset_deal(7, VERSUS, opponents=["big-money"])
    assert out.startswith(f"Dominion, deal {deal} (seed 7), against bot 1 (big-money).")


def test_play_deal_prints_the_deal_alone(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "dominion", "--deal", "0", "--target", "1", "--cache", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("Dominion, deal 0, solitaire: ")


def test_solve_deals_lines_are_the_deals_solve_seed_solves(tmp_path, capsys):
    out = tmp_path / "d.jsonl"
    assert main(["solve", "dominion", "--target", "1", "--deals", "0:3", "--out", str(out),
                 "--no-progress"]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(line["seed"], line["deal"]) for line in lines] == [(s, reset_deal(s)) for s in range(3)]
    capsys.readouterr()
    for line in lines:
        assert main(["solve", "dominion", "--seed", str(line["seed"]), "--target", "1"]) == 0
        printed = capsys.readouterr().out.splitlines()
        assert printed[0].startswith(f"deal     {line['deal']} (seed {line['seed']})")
        assert printed[1].startswith(f"turns    {-line['score']} to own 1 Provinces")


def test_evaluate_seed_plays_the_deals_reset_plays(tmp_path):
    assert main(["evaluate", "dominion", "--agent", "greedy", "--episodes", "2", "--seed", "3",
                 "--target", "1", "--out", str(tmp_path), "--no-progress",
                 "--cache", str(tmp_path / "cache")]) == 0
    report = json.loads((tmp_path / "evaluation.json").read_text())
    assert report["agents"]["greedy"]["deals"] == [reset_deal(3), reset_deal(4)]


def test_bench_deals_are_the_deals_of_seeds_unless_deal_numbers():
    parser = build_parser()
    args = parser.parse_args(["bench", "dominion"])
    assert args.deal_numbers is False
    assert cli_dominion._bench_deals(args, 3) == [int(reset_deal(s)) for s in range(3)]
    args = parser.parse_args(["bench", "dominion", "--deal-numbers"])
    assert cli_dominion._bench_deals(args, 3) == [0, 1, 2]


TINY_BENCH = ["bench", "dominion", "--seeds", "2", "--games", "2", "--seed-games", "1", "--deals", "1",
              "--env-steps", "10", "--oracle-kingdom", "", "--target", "1", "--jobs", "1"]


@pytest.mark.parametrize("numbers", [False, True])
def test_bench_measures_the_deals_it_names(numbers, tmp_path, capsys):
    assert main([*TINY_BENCH, "--out", str(tmp_path), *(["--deal-numbers"] if numbers else [])]) == 0
    report = json.loads((tmp_path / "dominion.json").read_text())
    deal = 0 if numbers else int(deal_of_seed(0))
    assert report["deals"] == ("deal numbers 0..N-1" if numbers else "deals of seeds 0..N-1 (reset(seed=s))")
    assert report["oracle_treasure_mean_turns_found"] == -oracle.solve(deal, 1).score
    turns = [solitaire_turns("big-money", d, 1) for d in ([0, 1] if numbers else
                                                           [int(deal_of_seed(s)) for s in range(2)])]
    assert report["solitaire_turns_big-money_mean"] == sum(turns) / 2
    assert "deals" in capsys.readouterr().out

"""``tabletop-gym play dominion`` with a scripted player at the terminal (``input`` monkeypatched)."""

from __future__ import annotations

import builtins

import pytest

from tabletop_gym.agents.dominion import solitaire_turns
from tabletop_gym.training.cli import main


class BigMoneyAtTheTerminal:
    """Reads the position the command printed and types big money's answer (Province, Gold, Silver,
    else pass); ``script`` answers come first, verbatim."""

    def __init__(self, capsys: pytest.CaptureFixture[str], script: tuple[str, ...] = ()) -> None:
        self.capsys = capsys
        self.script = list(script)
        self.transcript: list[str] = []
        self.prompts: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        out = self.capsys.readouterr().out
        self.transcript.append(out)
        self.prompts.append(prompt)
        if self.script:
            return self.script.pop(0)
        legal = [line for line in out.splitlines() if line.startswith("legal: ")][-1]
        options = legal.removeprefix("legal: ").split(", ")
        return next((card.lower() for card in ("Province", "Gold", "Silver") if card in options), "pass")

    def output(self) -> str:
        return "".join(self.transcript) + self.capsys.readouterr().out


def test_play_solitaire_to_the_end_then_compare_with_the_oracle(monkeypatch, capsys, tmp_path):
    # Two refused answers first: not a card, then a Duchy the first hand of seed 5 cannot afford.
    player = BigMoneyAtTheTerminal(capsys, script=("nonsense", "duchy"))
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--seed", "5", "--target", "1", "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "'nonsense' is not a card or pass" in out
    assert "Duchy costs $5 and only $" in out
    assert all(p == "buy> " for p in player.prompts)
    turns = solitaire_turns("big-money", 5, target=1)
    assert f"game over after {turns} turns" in out
    assert "the fewest turns any play of this seed needs: " in out and "big-money: " in out


def test_play_with_a_kingdom_uses_the_kingdom_oracle(monkeypatch, capsys, tmp_path):
    player = BigMoneyAtTheTerminal(capsys)
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--seed", "2", "--target", "1", "--kingdom", "smithy",
                 "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "Smithy" in out  # the supply line shows the kingdom pile
    assert "smithy-big-money: " in out and "the fewest turns any play of this seed needs" in out


def test_play_quits_and_survives_end_of_input(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(builtins, "input", lambda prompt="": "q")
    assert main(["play", "dominion", "--seed", "5", "--target", "1", "--cache", str(tmp_path)]) == 0
    assert "stopped after 0 turns" in capsys.readouterr().out

    def end_of_input(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(builtins, "input", end_of_input)
    assert main(["play", "dominion", "--opponents", "big-money", "--seed", "3"]) == 0


def test_play_against_a_bot_reports_the_outcome(monkeypatch, capsys):
    player = BigMoneyAtTheTerminal(capsys)
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--opponents", "big-money", "--kingdom", "", "--seed", "3"]) == 0
    out = player.output()
    assert "game over: you " in out and "VP [" in out

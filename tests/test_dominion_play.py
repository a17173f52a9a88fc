"""``tabletop-gym play dominion`` with a scripted player at the terminal (``input`` monkeypatched)."""

from __future__ import annotations

import builtins
import re

import pytest

from tabletop_gym.agents.dominion import BigMoney, PlayerView, solitaire_turns
from tabletop_gym.envs.dominion import rules as R
from tabletop_gym.training.cli import main
from tabletop_gym.training.games.dominion import _Narrator


class BigMoneyAtTheTerminal:
    """Reads the screen the command printed and types big money's answer (Province, Gold, Silver,
    else pass) by name; ``script`` answers come first, verbatim; None stands for end of input."""

    def __init__(self, capsys: pytest.CaptureFixture[str], script: tuple[str | None, ...] = ()) -> None:
        self.capsys = capsys
        self.script = list(script)
        self.transcript: list[str] = []
        self.prompts: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        out = self.capsys.readouterr().out
        self.transcript.append(out)
        self.prompts.append(prompt)
        if self.script:
            answer = self.script.pop(0)
            if answer is None:
                raise EOFError
            return answer
        screen = "".join(self.transcript)  # a re-prompt prints no new screen: the last one holds
        choices = [line for line in screen.splitlines() if line.startswith("choices: ")][-1]
        options = [re.sub(r"^\d+ | \(\$\d+\)$", "", c) for c in choices.removeprefix("choices: ").split(", ")]
        return next((card.lower() for card in ("Province", "Gold", "Silver") if card in options), "pass")

    def output(self) -> str:
        return "".join(self.transcript) + self.capsys.readouterr().out


def test_play_solitaire_to_the_end_then_compare_with_the_oracle(monkeypatch, capsys, tmp_path):
    # Refused answers first: not a card, a Duchy the first hand of deal 5 cannot afford, a choice
    # number out of range, and a typo that str.isdigit() takes for a digit.
    player = BigMoneyAtTheTerminal(capsys, script=("nonsense", "duchy", "99", "²", "³3"))
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--deal", "5", "--target", "1", "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "'nonsense' is not a card name, a choice's number or pass" in out
    assert "Duchy costs $5 and only $" in out
    assert "there is no choice 99; the choices are numbered 1 to " in out
    assert "'²' is not a card name" in out and "'³3' is not a card name" in out
    assert all(p == "buy> " for p in player.prompts)
    turns = solitaire_turns("big-money", 5, target=1)
    assert f"game over after {turns} turns: 1 Provinces" in out
    assert "the fewest turns any play of this deal needs: " in out and "big-money: " in out
    # The screen speaks in card names and prices, never in the engine's action indices.
    assert "legal actions" not in out and "choices: 1 Copper ($0), 2 Silver ($3)" in out


def test_a_choice_number_plays_the_choice_shown(monkeypatch, capsys, tmp_path):
    # Deal 5's first hand has $3: choice 2 is Silver; then end of input.
    player = BigMoneyAtTheTerminal(capsys, script=("2", None))
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--deal", "5", "--target", "1", "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "you: 3 VP, 11 cards" in out  # the Silver was bought
    assert "stopped after 1 turns: 0 of 1 Provinces, 3 VP" in out


def test_play_with_a_kingdom_uses_the_kingdom_oracle(monkeypatch, capsys, tmp_path):
    player = BigMoneyAtTheTerminal(capsys)
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--deal", "2", "--target", "1", "--kingdom", "smithy",
                 "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "Smithy" in out  # the supply line shows the kingdom pile
    assert "smithy-big-money: " in out and "the fewest turns any play of this deal needs" in out


def test_only_a_whole_word_quits(monkeypatch, capsys, tmp_path):
    player = BigMoneyAtTheTerminal(capsys, script=("q", "quit"))
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--deal", "5", "--target", "1", "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "'q' is not a card name" in out and len(player.prompts) == 2
    assert "stopped after 0 turns: 0 of 1 Provinces, 3 VP" in out


def test_end_of_input_in_solitaire_ends_with_a_summary_and_the_oracle(monkeypatch, capsys, tmp_path):
    player = BigMoneyAtTheTerminal(capsys, script=("²", None))
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--deal", "5", "--target", "1", "--cache", str(tmp_path)]) == 0
    out = player.output()
    assert "'²' is not a card name" in out
    assert "stopped after 0 turns: 0 of 1 Provinces, 3 VP" in out
    turns = solitaire_turns("big-money", 5, target=1)
    assert "the fewest turns any play of this deal needs: " in out and f"big-money: {turns}" in out


def test_versus_screen_shows_the_opponents_hand_size_not_its_cards(monkeypatch, capsys):
    player = BigMoneyAtTheTerminal(capsys, script=("pass", "²", None))
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--opponents", "big-money", "--deal", "3"]) == 0
    out = player.output()
    screens = out.split("--- ")[1:]
    assert len(screens) == 2
    for screen in screens:
        # One hand is listed, the person's own; the bot's appears as its size.
        assert [line.split(":")[0] for line in screen.splitlines() if "hand:" in line] == ["you"]
        bot = next(line for line in screen.splitlines() if line.startswith("bot 1 (big-money): "))
        assert re.search(r"; 5 cards in hand; draw pile \d+, discard pile \d+$", bot)
    # The bot's turn is told in words; the engine's record says what it bought.
    line = next(line for line in out.splitlines() if line.startswith("bot 1 (big-money), turn 1: "))
    assert re.fullmatch(r"bot 1 \(big-money\), turn 1: with \$\d buys (Silver|nothing)", line)
    assert "'²' is not a card name" in out
    assert ("stopped in turn 2. VP so far: you 3, bot 1 (big-money) 3; "
            "turns: you 1, bot 1 (big-money) 1") in out


def test_play_against_a_bot_reports_the_outcome(monkeypatch, capsys):
    player = BigMoneyAtTheTerminal(capsys)
    monkeypatch.setattr(builtins, "input", player)
    assert main(["play", "dominion", "--opponents", "big-money", "--kingdom", "", "--deal", "3"]) == 0
    out = player.output()
    assert re.search(r"game over: (you won|you lost|you shared the win|the game was cut off)", out)
    assert "VP: you " in out and "bot 1 (big-money) " in out


class _MilitiaBot(BigMoney):
    name = "militia"
    action_priority = (R.MILITIA,)

    def buy(self, view):
        return R.MILITIA if 4 <= view.coins <= 5 and view.supply[R.MILITIA] else super().buy(view)


def test_narration_tells_actions_buys_and_discards_from_the_engine_record():
    # Two bots in the engine; the narrator, told player 0 is "you", tells player 1's moves only.
    state = R.DominionState(2, "first-game", 11)
    bots = [_MilitiaBot(), _MilitiaBot()]
    narrator = _Narrator(state, 0, {0: "you", 1: "bot 1 (militia)"})
    views = [PlayerView(state, p) for p in range(2)]
    lines: list[str] = []
    while not state.done and sum(state.turns) < 30:
        state.apply(bots[state.decider].choose(views[state.decider]))
        lines += narrator.news(state)
    assert lines and all(line.startswith("bot 1 (militia)") for line in lines)
    assert any("plays Militia" in line for line in lines)
    assert any(re.fullmatch(r"bot 1 \(militia\): (discards \w+ to Militia; )*discards \w+ to Militia", line)
               for line in lines)
    bought = [b for line in lines for b in re.findall(r"buys ([\w, ]+)$", line)]
    assert sum(b.count("Militia") for b in bought) == state.gains[1][R.MILITIA] >= 1


@pytest.mark.parametrize("review", ["each", "end"])
def test_play_review_names_the_moves_that_lost_turns_and_the_best(review, monkeypatch, capsys, tmp_path):
    # Deal 5, one Province: passing on the first two turns (Silver was affordable) costs turns, big
    # money's play after that none or some; every loss line names the best move instead.
    player = BigMoneyAtTheTerminal(capsys, script=("pass", "pass"))
    monkeypatch.setattr(builtins, "input", player)
    args = ["play", "dominion", "--deal", "5", "--target", "1", "--cache", str(tmp_path), "--review", review]
    assert main(args) == 0
    out = player.output()
    lines = [line for line in out.splitlines() if line.startswith("turn ") and " lost " in line]
    assert lines and lines[0].startswith("turn 1: pass lost ") and "could end in" in lines[0]
    if review == "end":
        assert out.index("moves that lost turns:") > out.index("the fewest turns any play")
    else:
        assert out.index(lines[0]) < out.index("the fewest turns any play")


def test_play_review_refuses_a_kingdom_without_move_values(capsys, tmp_path):
    args = ["play", "dominion", "--deal", "5", "--kingdom", "first-game", "--review", "end"]
    assert main(args) == 2
    assert "treasure game" in capsys.readouterr().err


def test_play_review_stops_where_the_search_runs_out_of_work(monkeypatch, capsys, tmp_path):
    # A work limit of 1 settles no position: the review says so once and the game goes on.
    player = BigMoneyAtTheTerminal(capsys)
    monkeypatch.setattr(builtins, "input", player)
    args = ["play", "dominion", "--deal", "5", "--target", "1", "--cache", str(tmp_path), "--review", "each",
            "--oracle-work-limit", "1"]
    assert main(args) == 0
    out = player.output()
    assert out.count("the review stops here:") == 1 and "work limit" in out
    assert f"game over after {solitaire_turns('big-money', 5, target=1)} turns" in out

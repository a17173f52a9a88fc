"""What every game's ``play`` command shares: reading a line at a prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def ask(prompt: str) -> str | None:
    """The stripped line typed at ``prompt``, or None at end of input (Ctrl-D, a closed pipe).

    Ctrl-C is left to the command line, which stops every command with one line.
    """
    try:
        return input(prompt).strip()
    except EOFError:
        print()
        return None


QUIT_WORDS = ("quit", "exit")
"""Words that end a game at any prompt: whole words, so no move (a Queen's ``Q``) is ever taken
for one."""


def ask_move(prompt: str, read: Callable[[str], tuple[T | None, str]]) -> T | None:
    """Ask until ``read(answer)`` gives a move (or says what is wrong, and the question comes
    again); None when the player types a quit word or input ends."""
    while True:
        answer = ask(prompt)
        if answer is None or answer.lower() in QUIT_WORDS:
            return None
        move, problem = read(answer)
        if move is not None:
            return move
        print(problem)

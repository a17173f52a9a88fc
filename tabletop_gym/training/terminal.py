"""What every game's ``play`` command shares: reading a line at a prompt."""

from __future__ import annotations


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

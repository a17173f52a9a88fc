"""The ``tabletop-gym`` command's entry point, outside the package on purpose.

Importing ``tabletop_gym`` and what a command needs takes a few tenths of a second (Gymnasium), up
to seconds where a command solves (OR-Tools, numba): an entry point inside the package is imported
before any of its code can catch a Ctrl-C, and an interrupt in those first moments printed a
``KeyboardInterrupt`` traceback. This module imports nothing heavy before its guard. While the
package loads, a Ctrl-C is held and answered once it has loaded: a KeyboardInterrupt raised inside a
library's import is not always one by the time it arrives (numpy reports it as "Importing the numpy
C-extensions failed"). Only Python's own start-up, before this module runs, is beyond its reach.
"""

from __future__ import annotations

import signal
import sys

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


def main(argv: list[str] | None = None) -> int:
    """Run ``tabletop_gym.training.cli.main`` on ``argv`` (``sys.argv`` by default); 130 with one line
    if interrupted."""
    try:
        with _SigintHeld() as held:
            from tabletop_gym.training.cli import main as run
        if held:
            raise KeyboardInterrupt
        status = run(argv)
    except (KeyboardInterrupt, ImportError) as error:
        # Interrupted while importing (cli.main itself turns every later KeyboardInterrupt into 130).
        if not _is_interrupt(error):
            raise
        print("\ntabletop-gym: interrupted", file=sys.stderr)
        status = INTERRUPTED
    # The command is over and all it keeps is written: a Ctrl-C from here on (flushing output,
    # library threads joined at exit) could only add a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return status


class _SigintHeld:
    """SIGINT recorded, not raised, inside the block; the handler there before comes back after it.
    True (as the block's value) once one came. SIGINT left ignored (a shell's background job) stays
    ignored, and off the main thread, where no handler can be set, nothing changes."""

    def __init__(self) -> None:
        self.signals: list[int] = []
        self.previous: object = None

    def __enter__(self) -> list[int]:
        try:
            if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
                self.previous = signal.signal(
                    signal.SIGINT, lambda signum, frame: self.signals.append(signum)
                )
        except ValueError:
            pass
        return self.signals

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


def _is_interrupt(error: BaseException) -> bool:
    """A KeyboardInterrupt, or an error raised while handling one (a library whose import was
    interrupted may report it as its own ImportError)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


if __name__ == "__main__":
    sys.exit(main())

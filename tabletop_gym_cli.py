"""The ``tabletop-gym`` command's entry point, outside the package on purpose.

Importing ``tabletop_gym`` and what a command needs takes a few tenths of a second (Gymnasium), up
to seconds where a command solves (OR-Tools, numba): an entry point inside the package is imported
before any of its code can catch a Ctrl-C, and an interrupt in those first moments printed a
``KeyboardInterrupt`` traceback. This module imports nothing heavy
before its guard, so an interrupt at any moment ends with one line and exit status 130.
"""

from __future__ import annotations

import signal
import sys

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


def main() -> int:
    """Run ``tabletop_gym.training.cli.main`` on ``sys.argv``; 130 with one line if interrupted."""
    try:
        from tabletop_gym.training.cli import main as run

        status = run()
    except KeyboardInterrupt:
        # Interrupted while importing (cli.main itself turns every later interrupt into 130).
        print("\ntabletop-gym: interrupted", file=sys.stderr)
        status = INTERRUPTED
    # The command is over and all it keeps is written: a Ctrl-C from here on (flushing output,
    # library threads joined at exit) could only add a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return status


if __name__ == "__main__":
    sys.exit(main())

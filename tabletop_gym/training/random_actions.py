"""Random legal actions for a whole batch of masks, compiled: what ``bench GAME --vector`` plays.

Imported where a vector bench runs (numba's import costs the command line's start otherwise).
"""

from __future__ import annotations

import numba
import numpy as np

BLOCK = 64  # actions counted at a time on the way to the n-th legal one (sums the compiler vectorises)


@numba.njit(cache=True, nogil=True)
def _pick(masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    actions = np.zeros(masks.shape[0], dtype=np.int64)
    width = masks.shape[1]
    for i in range(masks.shape[0]):
        row = masks[i]
        legal = 0
        for a in range(width):
            legal += row[a]
        nth = min(int(uniforms[i] * legal), legal - 1)
        start = 0
        while start < width:
            stop = min(start + BLOCK, width)
            here = 0
            for a in range(start, stop):
                here += row[a]
            if nth < here:
                break
            nth -= here
            start = stop
        for a in range(start, min(start + BLOCK, width)):
            if row[a]:
                if nth == 0:
                    actions[i] = a
                    break
                nth -= 1
    return actions


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of the bool ``masks``, uniform among that row's legal ones (0 for a row with
    none): the n-th legal action for one uniform draw a row, where ``(rng.random(masks.shape) *
    masks).argmax(axis=1)`` draws a number for every action (with Nmbr9's 1,600 actions, more time
    than the environment's step)."""
    return _pick(np.ascontiguousarray(masks, dtype=np.bool_), rng.random(masks.shape[0]))

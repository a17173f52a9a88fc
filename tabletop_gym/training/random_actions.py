"""Random legal actions for a whole batch of masks, compiled: what ``bench GAME --vector`` plays.

Imported where a vector bench runs (numba's import costs the command line's start otherwise).
"""

from __future__ import annotations

import numba
import numpy as np

BLOCK = 64  # actions counted at a time on the way to the n-th legal one (sums the compiler vectorises)
# Where a row's actions fill whole 64-bit words, eight actions are counted at once: a word of eight
# bools (bytes 0 or 1) times ONES holds their sum in its top byte (the words of a block are added
# first: no byte of their sum passes 8, nor its total 64).
ONES = np.uint64(0x0101010101010101)


@numba.njit(cache=True, nogil=True)
def _pick(masks: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    # Unsigned offsets into the flattened masks: numba then leaves out its negative-index wrap-around,
    # whose branch per entry kept the sums from being vectorised (half the time with War's 13 actions).
    actions = np.zeros(masks.shape[0], dtype=np.int64)
    width = np.uint64(masks.shape[1])
    block = np.uint64(BLOCK)
    flat = masks.reshape(-1)
    for i in range(masks.shape[0]):
        row = np.uint64(i) * width
        legal = 0
        for a in range(width):
            legal += flat[row + a]
        nth = min(int(uniforms[i] * legal), legal - 1)
        start = np.uint64(0)
        if width > block:  # within one block at most, the blocks' sums are the row's
            while start < width:
                stop = min(start + block, width)
                here = 0
                for a in range(start, stop):
                    here += flat[row + a]
                if nth < here:
                    break
                nth -= here
                start = stop
        # The nth legal action of the block without a branch per action: the actions before it are
        # those with at most nth legal actions up to and including them (none for a row with none).
        seen = 0
        before = 0
        for a in range(start, min(start + block, width)):
            seen += flat[row + a]
            before += seen <= nth
        actions[i] = np.int64(start) + before
    return actions


@numba.njit(cache=True, nogil=True)
def _pick_by_words(masks: np.ndarray, words: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """``_pick`` where ``words`` is ``masks`` (bytes) seen as 64-bit words, eight actions a word: one
    pass counts each block of ``BLOCK`` actions, the draw then finds its block, word and action."""
    actions = np.zeros(masks.shape[0], dtype=np.int64)
    count = words.shape[1]
    per_block = BLOCK // 8
    sums = np.zeros((count + per_block - 1) // per_block, dtype=np.int64)
    top = np.uint64(56)
    for i in range(masks.shape[0]):
        row = words[i]
        legal = 0
        for b in range(sums.shape[0]):
            total = np.uint64(0)
            for w in range(b * per_block, min(b * per_block + per_block, count)):
                total += row[w]
            sums[b] = (total * ONES) >> top
            legal += sums[b]
        nth = min(int(uniforms[i] * legal), legal - 1)
        b = 0
        while b < sums.shape[0] - 1 and nth >= sums[b]:
            nth -= sums[b]
            b += 1
        w = b * per_block
        last = min(w + per_block, count) - 1
        while w < last:
            here = int((row[w] * ONES) >> top)
            if nth < here:
                break
            nth -= here
            w += 1
        for a in range(w * 8, w * 8 + 8):
            if masks[i, a]:
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
    masks = np.ascontiguousarray(masks, dtype=np.bool_)
    uniforms = rng.random(masks.shape[0])
    if masks.ndim == 2 and masks.shape[1] % 8 == 0 and masks.shape[1] > 0:
        return _pick_by_words(masks, masks.view(np.uint8).view(np.uint64), uniforms)
    return _pick(masks, uniforms)

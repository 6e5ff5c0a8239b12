"""Keys of several 64-bit words for numba dicts: a vector of small non-negative ints packed into a
tuple of :data:`KEY_WORDS` words.

OnlineMBBM keys its potentials by ``(n, sorted deficits)`` and its cost matrices by vote vectors.
With ISOLET's k = 26 labels and N = 100 learners those take 208 and 182 bits: one int64 holds
them only up to k = 8, so larger k used to run in Python. Each word holds as many base-``base``
digits as fit below 2^62, so distinct vectors of one length get distinct keys.
"""

from __future__ import annotations

from numba import types

from boostbench.system.kernel_cache import njit

KEY_WORDS = 6  # k <= 48 labels at N = 100 learners, k <= 30 at N = 1000
KEY_TYPE = types.UniTuple(types.int64, KEY_WORDS)


def digits_per_word(base: int) -> int:
    """The most base-``base`` digits whose value stays below 2^62.

    Raises:
        ValueError: ``base`` below 2 (no digit would carry information).
    """
    if base < 2:
        raise ValueError(f"a key's digits need a base of at least 2, not {base}")
    per_word = 0
    while base ** (per_word + 1) < 2**62:
        per_word += 1
    return per_word


def fits(n_digits: int, base: int) -> bool:
    """Whether ``n_digits`` digits below ``base`` fit in a key."""
    return n_digits <= KEY_WORDS * digits_per_word(base)


@njit(cache=True, inline="always")
def pack(digits, base, per_word, words):  # pragma: no cover - compiled
    """The key of ``digits`` (int64, each in ``[0, base)``; at most ``KEY_WORDS * per_word``),
    ``per_word`` from :func:`digits_per_word`; ``words`` is int64 scratch ``(KEY_WORDS,)``.
    """
    words[:] = 0
    word, filled = 0, 0  # digit i goes to word i // per_word (counted: a division costs more)
    for i in range(digits.shape[0]):
        if filled == per_word:
            word, filled = word + 1, 0
        words[word] = words[word] * base + digits[i]
        filled += 1
    return (words[0], words[1], words[2], words[3], words[4], words[5])


@njit(cache=True, inline="always")
def row_key(rows, i):  # pragma: no cover - compiled
    """Row ``i`` of ``(m, KEY_WORDS)`` int64 ``rows`` (keys as the disk cache keeps them) as a key."""
    return (rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3], rows[i, 4], rows[i, 5])

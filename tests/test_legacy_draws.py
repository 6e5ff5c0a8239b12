"""The inlined draws of :mod:`boostbench.core.legacy_draws` against NumPy's ``RandomState``."""

import numpy as np
import pytest
from numba import njit

from boostbench.core.legacy_draws import POISSON_PTRS_FROM, next_double, poisson, stream_state


@njit
def _draws(seed, lams, counts, uniforms):
    np.random.seed(seed)
    stream = stream_state()
    for i in range(lams.shape[0]):
        counts[i] = poisson(stream, lams[i])
        uniforms[i] = next_double(stream)


def _reference(seed, lams):
    stream = np.random.RandomState(seed)
    counts, uniforms = [], []
    for lam in lams:
        counts.append(stream.poisson(lam))
        uniforms.append(stream.random_sample())
    return np.array(counts), np.array(uniforms)


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_poisson_and_uniforms_are_random_states_draw_for_draw(seed):
    # both of Poisson's algorithms, lam = 0 (no draw), and enough draws to refill the
    # Mersenne Twister's 624 words many times over
    rng = np.random.default_rng(seed)
    edges = [0.0, 1.0, POISSON_PTRS_FROM, 9.999999]
    lams = np.concatenate([edges, rng.exponential(2.0, 3000), rng.uniform(10, 60, 200)])
    rng.shuffle(lams)
    counts, uniforms = np.empty(len(lams), dtype=np.int64), np.empty(len(lams))
    _draws(seed, lams, counts, uniforms)
    expected_counts, expected_uniforms = _reference(seed, lams)
    np.testing.assert_array_equal(counts, expected_counts)
    np.testing.assert_array_equal(uniforms, expected_uniforms)  # bit for bit
    assert (lams >= POISSON_PTRS_FROM).sum() >= 201  # both of Poisson's algorithms are compared


def test_the_stream_is_np_random_of_the_kernel():
    # what the intrinsics draw, np.random sees consumed: they share the thread's state
    @njit
    def mixed(seed):
        np.random.seed(seed)
        stream = stream_state()
        first = next_double(stream)
        return first, np.random.random(), next_double(stream)

    reference = np.random.RandomState(3)
    assert mixed(3) == tuple(reference.random_sample() for _ in range(3))

"""Cost matrices: Jung et al. 2017 eq. (9) is the gradient of eq. (8); eq. (5)'s row properties."""

import numpy as np
import pytest

from boostbench.core.cost_matrix import (
    cost_matrix_logistic,
    cost_row_logistic,
    logistic_loss,
    normalized_cost_matrix,
)

RNG = np.random.default_rng(7)
VOTES = [RNG.normal(scale=3.0, size=k) for k in (2, 3, 5, 8, 26)] + [np.zeros(4), np.array([50.0, -50.0, 0.0])]


@pytest.mark.parametrize("s", VOTES)
def test_logistic_rows_sum_to_zero_with_minimum_on_diagonal(s):
    C = cost_matrix_logistic(s)
    k = len(s)
    np.testing.assert_allclose(C.sum(axis=1), 0.0, atol=1e-12)
    off = C[~np.eye(k, dtype=bool)].reshape(k, k - 1)
    assert np.all(off >= 0) and np.all(off <= 1)
    assert np.all(np.diag(C) <= off.min(axis=1))
    assert np.all(np.diag(C) >= -(k - 1))


@pytest.mark.parametrize("s", VOTES)
def test_logistic_row_is_gradient_of_logistic_loss(s):
    C = cost_matrix_logistic(s)
    h = 1e-6
    for r in range(len(s)):
        numeric = np.array(
            [(logistic_loss(s + h * e, r) - logistic_loss(s - h * e, r)) / (2 * h) for e in np.eye(len(s))]
        )
        np.testing.assert_allclose(C[r], numeric, atol=1e-6)
        np.testing.assert_allclose(cost_row_logistic(s, r), C[r], atol=1e-15)


def test_logistic_cost_at_zero_votes_is_half():
    C = cost_matrix_logistic(np.zeros(4))
    np.testing.assert_allclose(C, np.where(np.eye(4, dtype=bool), -1.5, 0.5))


def test_logistic_loss_known_value():
    # L_0([0, 0, 0]) = 2 log 2; L_1([1, 3, 1]) = 2 log(1 + e^-2)
    assert logistic_loss(np.zeros(3), 0) == pytest.approx(2 * np.log(2))
    assert logistic_loss(np.array([1.0, 3.0, 1.0]), 1) == pytest.approx(2 * np.log1p(np.exp(-2)))


def test_normalized_cost_matrix_rows():
    raw = RNG.uniform(size=(5, 5))
    np.fill_diagonal(raw, raw.min(axis=1) - 0.1)  # a proper potential puts the minimum on the diagonal
    raw[2] = 0.3  # a constant row normalises to zero
    D, w = normalized_cost_matrix(raw)
    np.testing.assert_allclose(np.diag(D), 0.0)
    assert np.all(D >= 0)
    norms = np.abs(D).sum(axis=1)
    np.testing.assert_allclose(norms[[0, 1, 3, 4]], 1.0)
    assert norms[2] == 0.0 and w[2] == 0.0
    np.testing.assert_allclose(w, (raw - np.diag(raw)[:, None]).sum(axis=1))

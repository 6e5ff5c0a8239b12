"""Hedge(beta) and projected OGD (Jung et al. 2017, Algorithm 2; Freund & Schapire 1997)."""

import math

import numpy as np
import pytest

from boostbench.core.cost_matrix import cost_row_logistic
from boostbench.core.hedge import Hedge, hedge_probabilities, hedge_update
from boostbench.core.ogd import ogd_step, olm_step_size, project


@pytest.mark.parametrize("eta", [0.1, 0.5, 1.0])
def test_hedge_loss_bound_on_adversarial_losses(eta):
    """Freund & Schapire: sum_t p_t . l_t <= (eta L_i + ln N) / (1 - e^-eta) for every expert i."""
    n, rounds = 10, 500
    rng = np.random.default_rng(3)
    hedge = Hedge(n, eta)
    total = 0.0
    cumulative = np.zeros(n)
    for t in range(rounds):
        p = hedge.probabilities()
        losses = (p > 1.0 / n).astype(float)  # the adversary punishes the experts Hedge favours
        losses[t % n] = rng.uniform()
        total += p @ losses
        cumulative += losses
        hedge.update(losses)
    bound = (eta * cumulative.min() + math.log(n)) / (1 - math.exp(-eta))
    assert total <= bound
    assert total > 0.3 * rounds  # the adversary did hurt


def test_hedge_update_is_multiplicative():
    log_v = np.log(np.array([0.5, 0.25, 0.25]))
    p = hedge_probabilities(hedge_update(log_v, np.array([1.0, 0.0, 1.0]), eta=1.0))
    expected = np.array([0.5 / math.e, 0.25, 0.25 / math.e])
    np.testing.assert_allclose(p, expected / expected.sum())


def test_hedge_survives_long_streams():
    hedge = Hedge(3, 1.0)
    for _ in range(100_000):
        hedge.update(np.array([1.0, 1.0, 0.0]))
    hedge.update(np.array([0.0, 0.0, 1.0]))
    p = hedge.probabilities()
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0) and p[2] > 0.99


def test_hedge_draw_follows_weights():
    hedge = Hedge(3, 1.0)
    hedge.log_v = np.log(np.array([0.7, 0.2, 0.1]))
    rng = np.random.default_rng(0)
    counts = np.bincount([hedge.draw(rng) for _ in range(20_000)], minlength=3) / 20_000
    np.testing.assert_allclose(counts, [0.7, 0.2, 0.1], atol=0.015)


def test_projection_and_step():
    assert project(3.1) == 2.0 and project(-7.0) == -2.0 and project(0.4) == 0.4
    assert ogd_step(1.9, -1.0, 0.5) == 2.0
    assert ogd_step(0.0, 0.5, 0.2) == pytest.approx(-0.1)
    assert olm_step_size(1, 3) == pytest.approx(math.sqrt(2))
    assert olm_step_size(4, 5) == pytest.approx(2 * math.sqrt(2) / 8)


def eq10(alpha, s, label, y):
    """Jung et al. 2017 eq. (10), written out."""
    if label != y:
        return 1 / (1 + math.exp(s[y] - s[label] - alpha))
    return -sum(1 / (1 + math.exp(s[y] + alpha - s[j])) for j in range(len(s)) if j != y)


@pytest.mark.parametrize("label,y", [(0, 0), (1, 0), (2, 1), (2, 2)])
def test_alpha_gradient_is_eq_10(label, y):
    s = np.array([0.3, -1.2, 0.8])
    for alpha in (-2.0, -0.5, 0.0, 1.3, 2.0):
        moved = s.copy()
        moved[label] += alpha
        assert cost_row_logistic(moved, y)[label] == pytest.approx(eq10(alpha, s, label, y), abs=1e-12)


def test_hedge_draw_is_numpys_choice_draw_for_draw():
    from boostbench.core.hedge import Hedge

    hedge = Hedge(6, eta=0.7)
    source, reference = np.random.default_rng(11), np.random.default_rng(11)
    losses = np.random.default_rng(1)
    for _ in range(500):
        p = hedge.probabilities()
        assert hedge.draw(source, p) == int(reference.choice(6, p=p))
        hedge.update(losses.random(6))


def test_random_ties_draw_only_on_a_tie_and_uniformly():
    from boostbench.core.ties import argmax_random_tie, argmin_random_tie

    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert argmax_random_tie(np.array([0.1, 0.7, 0.2]), rng) == 1
    assert argmin_random_tie(np.array([0.1, 0.7, 0.2]), rng) == 0
    assert rng.bit_generator.state == state  # no tie: the generator is untouched
    picks = [argmax_random_tie(np.array([0.5, 0.2, 0.5, 0.5]), rng) for _ in range(3000)]
    counts = np.bincount(picks, minlength=4)
    assert counts[1] == 0 and all(900 < c < 1100 for c in counts[[0, 2, 3]])


def test_row_argmax_is_numpys_and_draws_only_on_a_tie():
    from boostbench.core.ties import argmax_rows_random_tie

    rng = np.random.default_rng(4)
    values = rng.random((50, 5))
    state = np.random.default_rng(9)
    before = state.bit_generator.state
    np.testing.assert_array_equal(argmax_rows_random_tie(values, state), values.argmax(axis=1))
    assert state.bit_generator.state == before  # no tie, no draw
    values[7] = [0.2, 0.9, 0.1, 0.9, 0.9]
    picks = {int(argmax_rows_random_tie(values, state)[7]) for _ in range(200)}
    assert picks == {1, 3, 4}


def test_row_argmax_with_ties_is_the_numpy_formula():
    """The compiled tie-break gives numpy's ``(u * is_max).argmax(axis=1)`` from the same draws."""
    from boostbench.core.ties import argmax_rows_random_tie

    rng = np.random.default_rng(6)
    values = rng.integers(0, 3, size=(400, 4)).astype(float) / 2  # many tied rows
    values[:5] = 0.25  # all tied
    for seed in range(5):
        u = np.random.default_rng(seed).random(values.shape)
        expected = (u * (values == values.max(axis=1, keepdims=True))).argmax(axis=1)
        assert np.array_equal(argmax_rows_random_tie(values, np.random.default_rng(seed)), expected)


def test_oza_vote_weights_are_libms_log_odds():
    from boostbench.boosters.online_boosting_kernels import vote_weights_into

    rng = np.random.default_rng(5)
    lambda_sc, lambda_sw = rng.exponential(size=300), rng.exponential(size=300)
    lambda_sc[:20] = 0.0
    lambda_sw[:10] = 0.0  # unseen members
    lambda_sw[20:30] = 0.0  # no error yet: eps clipped to the floor
    seen = lambda_sc + lambda_sw
    eps = np.divide(lambda_sw, seen, out=np.ones_like(seen), where=seen > 0)
    clipped = np.clip(eps, 1e-6, 0.5)
    expected = [math.log((1.0 - c) / c) if e < 0.5 else 0.0 for e, c in zip(eps, clipped)]  # libm's log
    weights = np.full(300, np.nan)
    vote_weights_into(lambda_sc, lambda_sw, 1e-6, weights)
    assert weights.tolist() == expected


def test_the_compiled_tolerant_pick_is_the_numpy_one():
    """pick_tie_u (the kernels', and Oza's update in Python) picks what argmax_tie_u and
    argmin_tie_u pick: the same tolerance, the same tie for the same uniform."""
    from boostbench.core.ties import TIE_TOLERANCE, argmax_tie_u, argmin_tie_u, pick_tie_u

    data = np.random.default_rng(5)
    for _ in range(2000):
        values = data.integers(0, 4, size=int(data.integers(1, 9))) / 3.0
        values += data.choice([0.0, 0.5, 2.0], size=values.shape) * TIE_TOLERANCE  # inside and outside it
        u = float(data.random())
        assert pick_tie_u(values, u, False) == argmax_tie_u(values, u)
        assert pick_tie_u(values, u, True) == argmin_tie_u(values, u)


def test_compiled_ties_draw_what_the_python_ones_draw():
    """The compiled pass's ties take the same numbers from the same NumPy Generator."""
    from boostbench.core.ties import argmax_draw, argmax_random_tie, argmax_rows_draw, argmax_rows_random_tie

    data = np.random.default_rng(2)
    for seed in range(200):
        values = data.integers(0, 3, size=(int(data.integers(1, 12)), int(data.integers(2, 27)))) / 2.0
        ours, python = np.random.default_rng(seed), np.random.default_rng(seed)
        assert argmax_draw(values[0], ours) == argmax_random_tie(values[0], python)
        assert np.array_equal(argmax_rows_draw(values, ours), argmax_rows_random_tie(values, python))
        assert ours.bit_generator.state == python.bit_generator.state


@pytest.mark.parametrize("scale", [1.0, 1e-8])
def test_numpy_sum_is_numpys_pairwise_sum_to_the_bit(scale):
    from boostbench.core.summation import numpy_sum

    rng = np.random.default_rng(3)
    for n in range(300):
        values = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n) * scale
        assert numpy_sum(values) == values.sum()


def test_compiled_hedge_steps_are_the_numpy_ones():
    """The kernels' Hedge: the same log-weights to the bit, the same draws, probabilities to rounding."""
    from boostbench.core.hedge import (
        hedge_pick,
        hedge_probabilities,
        hedge_probabilities_into,
        hedge_update,
        hedge_update_01,
    )

    rng = np.random.default_rng(7)
    log_v = np.zeros(40)
    for _ in range(50):
        predictions, y = rng.integers(0, 3, size=40), int(rng.integers(3))
        expected = hedge_update(log_v, (predictions != y).astype(np.float64), 0.7)
        hedge_update_01(log_v, predictions, y, 0.7)
        assert np.array_equal(log_v, expected)
        p = np.empty(40)
        hedge_probabilities_into(log_v, p)
        np.testing.assert_allclose(p, hedge_probabilities(log_v), rtol=1e-14)
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        for u in rng.random(20):
            assert hedge_pick(p, u) == int(np.searchsorted(cdf, u, side="right"))

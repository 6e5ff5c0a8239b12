"""0-1 potentials of OnlineMBBM (Jung et al. 2017, eq. 3): exact vs Monte Carlo, recursion, properness."""

import itertools
import math

import numpy as np
import pytest

from boostbench.core.potentials import (
    TRUE_PMF,
    Potential01,
    potential_01_exact,
    potential_01_monte_carlo,
    potential_tables,
)


def exact(n, s, r, gamma):
    s = np.asarray(s)
    deficits = np.sort(s[r] - np.delete(s, r)).astype(np.int64)
    return potential_01_exact(n, deficits, potential_tables(len(s), gamma, n))


def zero_one_loss(s, r):
    return float(np.delete(s, r).max() >= s[r])


@pytest.mark.parametrize(
    "n,s,r,gamma",
    [
        (5, [0, 0, 0], 0, 0.1),
        (10, [2, 1, 0, 0], 0, 0.05),
        (40, [3, 5, 1], 1, 0.2),
        (30, [0, 4], 1, 0.01),
        (25, [1, 0, 2, 0, 1, 0, 0, 3], 7, 0.1),
    ],
)
def test_exact_matches_monte_carlo(n, s, r, gamma):
    draws = 100_000
    estimate = potential_01_monte_carlo(n, np.array(s), r, gamma, draws, np.random.default_rng(1))
    value = exact(n, s, r, gamma)
    assert abs(value - estimate) < 5 * np.sqrt(max(value * (1 - value), 1e-4) / draws)


def by_enumeration(n, s, r, gamma):
    """phi^r_n(s) summed over every outcome of the n votes (multinomial probabilities)."""
    k = len(s)
    u = np.full(k, (1 - gamma) / k)
    u[r] += gamma
    total = 0.0
    for bars in itertools.combinations(range(n + k - 1), k - 1):  # stars and bars
        counts = np.diff([-1, *bars, n + k - 1]) - 1
        final = np.asarray(s) + counts
        if np.delete(final, r).max() >= final[r]:
            coef = math.factorial(n) / np.prod([math.factorial(c) for c in counts])
            total += coef * np.prod(u**counts)
    return total


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_exact_equals_the_sum_over_every_outcome(k):
    rng = np.random.default_rng(10 + k)
    for _ in range(12):
        n = int(rng.integers(0, 9 if k < 6 else 6))
        s = rng.integers(0, 5, size=k)
        r = int(rng.integers(k))
        gamma = float(rng.choice([0.01, 0.1, 0.3]))
        assert exact(n, s, r, gamma) == pytest.approx(by_enumeration(n, s, r, gamma), abs=1e-13)


@pytest.mark.parametrize("k,gamma", [(4, 0.1), (7, 0.01)])
def test_tables_match_scipy_and_enumeration(k, gamma):
    from scipy.stats import binom

    tables = potential_tables(k, gamma, 300)
    for r in (0, 1, 2, 7, 50, 299, 300):
        x = np.arange(r + 1)
        np.testing.assert_allclose(
            tables.fits[TRUE_PMF, r, : r + 1], binom.pmf(x, r, (1 - gamma) / k + gamma), rtol=1e-11, atol=1e-300
        )
    # a group's fit: y votes uniform over c labels, none above b (filled on first use)
    exact(12, [0] * k, 0, gamma)
    small = potential_tables(k, gamma, 12)
    potential_01_exact(12, np.zeros(k - 1, dtype=np.int64), small)
    for c in range(1, k):
        for b in range(0, 12):
            if small.fits[k, c, b] == 0.0:
                continue
            for y in range(0, 7):
                outcomes = list(itertools.product(range(c), repeat=y))
                fits = sum(max(np.bincount(o, minlength=c), default=0) <= b for o in outcomes) / len(outcomes)
                assert small.fits[c, b, y] == pytest.approx(fits, abs=1e-13)


def test_exact_matches_monte_carlo_at_isolets_26_classes():
    """k = 26, N = 100: states shaped as an ISOLET run's (votes on a few labels)."""
    rng = np.random.default_rng(26)
    draws = 40_000
    for n, votes in ((99, {}), (60, {3: 20, 7: 12, 11: 7}), (30, {0: 30, 1: 25, 2: 10, 3: 4})):
        s = np.zeros(26, dtype=np.int64)
        for label, v in votes.items():
            s[label] = v
        for r in (0, 5):
            value = exact(n, s, r, 0.1)
            estimate = potential_01_monte_carlo(n, s, r, 0.1, draws, rng)
            assert abs(value - estimate) < 5 * np.sqrt(max(value * (1 - value), 1e-4) / draws)


def test_n_beyond_max_n_is_refused():
    with pytest.raises(ValueError, match="max_n"):
        Potential01(3, 0.1, max_n=5).phi(6, np.zeros(3, dtype=np.int64), 0)


@pytest.mark.parametrize("s", [[0, 0, 0], [2, 1, 0], [1, 1, 0], [0, 3, 3], [5, 0, 0]])
@pytest.mark.parametrize("r", [0, 1, 2])
def test_no_votes_left_is_the_zero_one_loss(s, r):
    assert exact(0, s, r, 0.1) == zero_one_loss(np.array(s), r)


@pytest.mark.parametrize("k,gamma", [(2, 0.1), (3, 0.05), (4, 0.2), (6, 0.01)])
def test_recursion_of_eq_3(k, gamma):
    potential = Potential01(k, gamma)
    rng = np.random.default_rng(k)
    for _ in range(20):
        s = rng.integers(0, 6, size=k)
        r = int(rng.integers(k))
        n = int(rng.integers(0, 15))
        u = np.full(k, (1 - gamma) / k)
        u[r] += gamma
        expected = sum(u[l] * potential.phi(n, s + np.eye(k, dtype=np.int64)[l], r) for l in range(k))
        assert potential.phi(n + 1, s, r) == pytest.approx(expected, abs=1e-12)


def test_potential_is_proper():
    """Decreasing in the true label's votes, increasing in every other label's."""
    k, gamma, n = 4, 0.1, 12
    potential = Potential01(k, gamma)
    for s in itertools.product(range(4), repeat=k):
        s = np.array(s)
        for r in range(k):
            base = potential.phi(n, s, r)
            for l in range(k):
                moved = potential.phi(n, s + np.eye(k, dtype=np.int64)[l], r)
                if l == r:
                    assert moved <= base + 1e-12
                else:
                    assert moved >= base - 1e-12


def test_more_edge_means_lower_potential():
    s = np.array([1, 1, 0])
    values = [exact(20, s, 0, g) for g in (0.01, 0.05, 0.1, 0.3)]
    assert values == sorted(values, reverse=True)


def test_cost_matrix_from_potentials():
    k, n = 3, 9
    potential = Potential01(k, 0.1)
    s = np.array([2, 0, 1])
    D, w = potential.cost_matrix(n, s)
    raw = np.array([[potential.phi(n, s + np.eye(k, dtype=np.int64)[l], r) for l in range(k)] for r in range(k)])
    np.testing.assert_allclose(w, (raw - np.diag(raw)[:, None]).sum(axis=1))
    np.testing.assert_allclose(np.diag(D), 0.0)
    assert np.all(D >= 0)
    np.testing.assert_allclose(D.sum(axis=1)[w > 0], 1.0)
    assert np.array_equal(s, [2, 0, 1])  # the caller's votes are not modified


def test_far_deficits_share_a_cache_entry():
    """Deficits beyond [-n, n+1] cannot change the outcome: the clipped key is exact."""
    assert exact(5, [20, 0, 0], 0, 0.1) == pytest.approx(exact(5, [6, 0, 0], 0, 0.1))
    assert exact(5, [0, 9, 0], 0, 0.1) == 1.0


@pytest.mark.parametrize("k", [2, 3, 4, 6, 26])
def test_compiled_cost_matrix_equals_the_numpy_reference(k):
    N = 100 if k == 26 else 20
    potential = Potential01(k, 0.05, max_n=N)
    assert potential.memo is not None
    rng = np.random.default_rng(k)
    for _ in range(30 if k < 26 else 4):
        n = int(rng.integers(0, N))
        s = rng.multinomial(N - n - 1, np.ones(k) / k).astype(np.int64)
        D, w = potential.cost_matrix(n, s)
        D_ref, w_ref = potential.cost_matrix_reference(n, s)
        np.testing.assert_allclose(D, D_ref, rtol=0, atol=1e-13)
        np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-13)


def test_potentials_are_kept_on_disk(tmp_path, monkeypatch):
    """A later process starts from the potentials an earlier one saved; a bad file is ignored."""
    import boostbench.core.potentials as P

    monkeypatch.setenv("BOOSTBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(P, "_SHARED", {})
    monkeypatch.setattr(P, "_SAVED", {})
    first = Potential01(3, 0.1, max_n=12)
    D, _ = first.cost_matrix(7, np.array([2, 1, 1]))
    P.save_memos()
    saved = dict(first.memo)
    assert saved and list(tmp_path.rglob("*.npz"))
    monkeypatch.setattr(P, "_SHARED", {})  # a new process
    monkeypatch.setattr(P, "_SAVED", {})
    assert len(Potential01(3, 0.1, max_n=12).memo) == 0  # the booster's side reads no file
    P.load_memo(3, 0.1, 12)  # the runner's side does
    second = Potential01(3, 0.1, max_n=12)
    assert dict(second.memo) == saved
    np.testing.assert_array_equal(second.cost_matrix(7, np.array([2, 1, 1]))[0], D)
    for path in tmp_path.rglob("*.npz"):
        path.write_bytes(b"not an npz file")
    monkeypatch.setattr(P, "_SHARED", {})
    monkeypatch.setattr(P, "_SAVED", {})
    P.load_memo(3, 0.1, 12)
    assert len(Potential01(3, 0.1, max_n=12).memo) == 0


def test_wide_keys_hold_isolets_labels_and_tell_where_they_stop():
    from boostbench.core.wide_keys import digits_per_word, fits

    assert digits_per_word(202) == 8 and 202**8 < 2**62 <= 202**9
    assert fits(26, 2 * 100 + 2) and fits(48, 202) and not fits(49, 202)
    assert Potential01(49, 0.1, max_n=100).memo is None  # past the keys: the Python builder


@pytest.mark.parametrize("k", [3, 8, 26])
def test_the_cost_matrix_of_sorted_votes_permuted_is_the_cost_matrix(k):
    """OnlineMBBM's table keeps sorted vote vectors: D(pi s) = pi D(s) pi^T (eq. 3 is symmetric
    in the labels other than r), with the forward kernel's positions for tied votes."""
    from boostbench.boosters.online_mbbm_kernels import _sort_votes_of
    from boostbench.core.potentials import cost_matrix_compiled

    potential = Potential01(k, 0.1, max_n=100)
    rng = np.random.default_rng(k)
    for _ in range(8 if k < 26 else 2):
        n = int(rng.integers(0, 100))
        s = rng.multinomial(99 - n, rng.dirichlet(np.ones(k))).astype(np.int64)
        s[:2] = s[2]  # ties
        votes, position = _sort_votes_of(s)
        np.testing.assert_array_equal(votes, np.sort(s))
        D, w = cost_matrix_compiled(
            n, votes, potential.memo, potential.memo_base, potential.memo_per_word, potential.tables
        )
        D_ref, w_ref = potential.cost_matrix_reference(n, s)
        np.testing.assert_allclose(D[np.ix_(position, position)], D_ref, rtol=0, atol=1e-13)
        np.testing.assert_allclose(w[position], w_ref, rtol=0, atol=1e-13)


def test_key_digits_need_a_base_of_two():
    from boostbench.core.wide_keys import digits_per_word

    assert digits_per_word(2) == 61
    with pytest.raises(ValueError, match="base of at least 2"):
        digits_per_word(1)

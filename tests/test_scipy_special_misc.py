"""tracegrad.scipy.special: factorial, comb, poch, bernoulli, dawsn, spence."""
from fractions import Fraction

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.scipy.special as tsp
from tracegrad.test_util import check_grads

sp = pytest.importorskip("scipy.special")


def test_factorial_comb_poch_against_scipy():
    n = np.array([-3.0, -1.0, 0.0, 1.0, 3.0, 3.5, 20.0, 170.0, 171.0, 172.0, np.inf])
    np.testing.assert_allclose(tsp.factorial(n), sp.factorial(n), rtol=1e-13)
    big, k = np.meshgrid(np.linspace(-1.0, 30.0, 32), np.linspace(-2.0, 32.0, 35))
    np.testing.assert_allclose(tsp.comb(big, k), sp.comb(big, k), rtol=1e-12, atol=1e-300)
    # (repetition: N >= 1, k >= 0 only; elsewhere SciPy gives NaN for some (N, k), 0 for others)
    np.testing.assert_allclose(tsp.comb(big[2:, 2:], k[2:, 2:], repetition=True),
                               sp.comb(big[2:, 2:], k[2:, 2:], repetition=True), rtol=1e-12,
                               atol=1e-300)
    assert tsp.comb(5.0, 6.0) == 0.0 and tsp.comb(5.0, -1.0) == 0.0 and tsp.comb(-1.0, 1.0) == 0.0
    z, m = np.meshgrid(np.linspace(-4.75, 10.0, 30), np.linspace(-2.0, 5.0, 29))
    np.testing.assert_allclose(tsp.poch(z, m), sp.poch(z, m), rtol=1e-12, atol=1e-300)
    assert tsp.poch(2.0, 3.0) == 24.0 and tsp.poch(0.5, 0.0) == 1.0
    with pytest.raises(NotImplementedError, match="math.factorial"):
        tsp.factorial(3, exact=True)
    with pytest.raises(NotImplementedError, match="math.comb"):
        tsp.comb(5, 2, exact=True)


def test_bernoulli_numbers_are_exact():
    exact = [Fraction(1), Fraction(-1, 2), Fraction(1, 6), 0, Fraction(-1, 30), 0,
             Fraction(1, 42), 0, Fraction(-1, 30), 0, Fraction(5, 66), 0, Fraction(-691, 2730)]
    np.testing.assert_array_equal(tsp.bernoulli(12), [float(b) for b in exact])
    # (SciPy's are not all correctly rounded: its B_4 is 1.7e-12 relative off)
    np.testing.assert_allclose(tsp.bernoulli(40), sp.bernoulli(40), rtol=1e-11)
    assert tsp.bernoulli(0).tolist() == [1.0]
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="non-negative integer"):
            tsp.bernoulli(bad)


def test_dawsn_and_spence_against_scipy_and_edges():
    x = np.concatenate([np.linspace(-50.0, 50.0, 401), [0.0, -0.0, np.inf, -np.inf, 1e300]])
    np.testing.assert_array_equal(tsp.dawsn(x), sp.dawsn(x))
    z = np.concatenate([np.geomspace(1e-300, 1e300, 301), [0.0, 1.0, -1.0, np.inf, np.nan]])
    np.testing.assert_array_equal(tsp.spence(z), sp.spence(z))
    assert tsp.spence(1.0) == 0.0 and np.isnan(tsp.spence(-1.0))


def test_derivatives():
    check_grads(tsp.factorial, (np.array([0.3, 1.7, 4.0]),), order=2, modes=("fwd", "rev"))
    check_grads(tsp.comb, (np.array([6.3, 7.7]), np.array([2.2, 3.1])), order=2,
                modes=("fwd", "rev"))
    check_grads(tsp.poch, (np.array([1.3, -2.7]), np.array([0.2, 1.1])), order=2,
                modes=("fwd", "rev"))
    check_grads(tsp.dawsn, (np.array([-1.3, 0.2, 2.0]),), order=2, modes=("fwd", "rev"))
    check_grads(tsp.spence, (np.array([0.3, 1.7, 4.0]),), order=2, modes=("fwd", "rev"))
    # the formulas: F' = 1 - 2 x F (A&S 7.1.17); spence' = log z / (1 - z), -1 at 1
    x = np.array([-2.0, 0.0, 0.7, 3.0])
    np.testing.assert_allclose(tg.vmap(tg.grad(tsp.dawsn))(x), 1 - 2 * x * sp.dawsn(x),
                               rtol=1e-14)
    assert tg.grad(tsp.spence)(1.0) == -1.0
    np.testing.assert_allclose(tg.grad(tsp.spence)(2.0), -np.log(2.0), rtol=1e-15)
    # d/dN comb(N, k) = comb(N, k) (digamma(N + 1) - digamma(N - k + 1))
    np.testing.assert_allclose(tg.grad(tsp.comb)(7.5, 2.0),
                               sp.comb(7.5, 2.0) * (sp.digamma(8.5) - sp.digamma(6.5)),
                               rtol=1e-13)


def test_jit_and_vmap():
    np.testing.assert_allclose(tg.jit(tsp.comb)(6.0, 2.0), 15.0, rtol=1e-14)
    x = np.array([0.5, 1.0, 2.5])
    np.testing.assert_array_equal(tg.jit(tsp.spence)(x), sp.spence(x))
    np.testing.assert_array_equal(tg.vmap(tsp.dawsn)(x), sp.dawsn(x))


def test_poch_at_the_poles_of_gamma():
    # z + m a pole, z not: inf; both poles: the finite limit; z a pole only: 0 (SciPy's values)
    z = np.array([-4.75, -3.0, -3.0, -2.0, -3.0, -2.5])
    m = np.array([-1.25, 2.0, 1.0, -1.0, 0.5, 0.5])
    np.testing.assert_array_equal(tsp.poch(z, m), sp.poch(z, m))
    np.testing.assert_array_equal(tsp.poch(z, m)[:4], [np.inf, 6.0, -3.0, -1.0 / 3.0])

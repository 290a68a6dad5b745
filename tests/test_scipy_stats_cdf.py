"""The CDF family of ``tracegrad.scipy.stats`` built on the incomplete gamma
and beta functions: gamma, chi2 and beta ``cdf/sf/logcdf/logsf``,
``poisson.cdf`` and ``t.cdf/sf``.  Values against SciPy over many points
(tails included), NaN for invalid parameters, derivatives to second order in
``x``/``loc``/``scale`` (and ``mu``), the clear error of a shape-parameter
derivative, jit and vmap."""
import numpy as np
import pytest

import tracegrad as tg
from tracegrad.scipy import stats as ts
from tracegrad.test_util import check_grads

ss = pytest.importorskip("scipy.stats")

NAN = float("nan")
METHODS = ("cdf", "sf", "logcdf", "logsf")


def _close(got, want, rtol):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


@pytest.mark.parametrize("method", METHODS)
def test_gamma_and_chi2_against_scipy(method):
    x = np.concatenate([[-1.0, 0.0], np.geomspace(1e-6, 1e3, 40)])[:, None]
    a = np.array([0.3, 1.0, 2.5, 20.0, 150.0])
    # rtol: 1e-13 relative (z = (x - loc) / scale rounds once before SciPy's own 1e-15ish)
    _close(getattr(ts.gamma, method)(x, a, 0.25, 1.5), getattr(ss.gamma, method)(x, a, loc=0.25, scale=1.5), 1e-13)
    _close(getattr(ts.chi2, method)(x, 2 * a, 0.0, 0.5), getattr(ss.chi2, method)(x, 2 * a, scale=0.5), 1e-13)


@pytest.mark.parametrize("method", METHODS)
def test_beta_against_scipy(method):
    x = np.concatenate([[-0.5, 0.0, 1.0, 1.5], np.geomspace(1e-8, 0.5, 15), 1 - np.geomspace(1e-8, 0.5, 15)])[:, None]
    a = np.array([0.2, 1.0, 3.0, 40.0])[:, None, None]
    b = np.array([0.5, 1.0, 7.0, 200.0])
    _close(getattr(ts.beta, method)(x, a, b), getattr(ss.beta, method)(x, a, b), 1e-13)


def test_beta_loc_scale():
    x = np.linspace(-1.5, 3.0, 25)
    _close(ts.beta.cdf(x, 2.0, 3.0, -1.0, 3.0), ss.beta.cdf(x, 2.0, 3.0, loc=-1.0, scale=3.0), 1e-13)


def test_poisson_cdf_against_scipy():
    k = np.array([-3.0, -0.5, 0.0, 0.5, 1.0, 2.7, 5.0, 20.0, 100.0, 400.0])[:, None]
    mu = np.array([0.0, 1e-3, 0.5, 4.0, 30.0, 250.0])
    _close(ts.poisson.cdf(k, mu), ss.poisson.cdf(k, mu), 1e-13)
    _close(ts.poisson.cdf(k, mu, 2.0), ss.poisson.cdf(k, mu, loc=2.0), 1e-13)


@pytest.mark.parametrize("method", ["cdf", "sf"])
def test_t_against_scipy(method):
    x = np.concatenate([-np.geomspace(1e-8, 1e6, 30), [0.0], np.geomspace(1e-8, 1e6, 30)])[:, None]
    df = np.array([0.3, 1.0, 2.5, 10.0, 80.0])
    got, want = getattr(ts.t, method)(x, df), getattr(ss.t, method)(x, df)
    # SciPy's stdtr loses up to 1e-9 relative at df = 1 for |x| < 1e-3 (its Cauchy
    # branch); there mpmath (the hypergeometric form of the CDF) is the reference
    off = np.argwhere(np.abs(got - want) > 1e-13 * np.abs(want))
    assert all(df[j] == 1.0 and abs(x[i, 0]) < 1e-3 for i, j in off), off
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    for i, j in off:
        t, n = mp.mpf(float(x[i, 0])), mp.mpf(float(df[j]))
        lower = 0.5 + t * mp.gamma((n + 1) / 2) / (mp.sqrt(n * mp.pi) * mp.gamma(n / 2)) * mp.hyp2f1(
            0.5, (n + 1) / 2, 1.5, -t * t / n)
        ref = float(lower if method == "cdf" else 1 - lower)
        np.testing.assert_allclose(got[i, j], ref, rtol=1e-15)
    x = np.linspace(-30.0, 30.0, 41)[:, None]
    _close(getattr(ts.t, method)(x, df, 0.5, 2.0), getattr(ss.t, method)(x, df, loc=0.5, scale=2.0), 1e-13)


INVALID = [
    ("gamma", METHODS, lambda f: [f(1.0, -1.0), f(1.0, 0.0), f(1.0, 2.0, 0.0, -1.0)]),
    ("chi2", METHODS, lambda f: [f(1.0, -2.0), f(1.0, 2.0, 0.0, 0.0)]),
    ("beta", METHODS, lambda f: [f(0.5, -1.0, 2.0), f(0.5, 2.0, 0.0), f(0.5, 2.0, 2.0, 0.0, -1.0)]),
    ("poisson", ("cdf",), lambda f: [f(2.0, -1.0)]),
    ("t", ("cdf", "sf"), lambda f: [f(1.0, 0.0), f(1.0, -3.0), f(1.0, 3.0, 0.0, 0.0)]),
]


@pytest.mark.parametrize("dist, methods, calls", INVALID, ids=[i[0] for i in INVALID])
def test_invalid_parameters_give_nan(dist, methods, calls):
    for m in methods:
        assert np.isnan(np.asarray(calls(getattr(getattr(ts, dist), m)), np.float64)).all(), m
        assert np.isnan(np.asarray(calls(getattr(getattr(ss, dist), m)), np.float64)).all(), m  # as SciPy


GRADS = [
    ("gamma.cdf", lambda x, loc, s: ts.gamma.cdf(x, 2.5, loc, s), [np.array([0.7, 2.0, 6.0]), np.array(0.1), np.array(1.3)]),
    ("gamma.sf", lambda x: ts.gamma.sf(x, 0.6, 0.0, 2.0), [np.array([0.2, 1.5, 9.0])]),
    ("gamma.logcdf", lambda x: ts.gamma.logcdf(x, 3.0), [np.array([0.2, 1.5, 9.0])]),
    ("gamma.logsf", lambda x: ts.gamma.logsf(x, 3.0), [np.array([0.2, 1.5, 9.0])]),
    ("chi2.cdf", lambda x, s: ts.chi2.cdf(x, 3.0, 0.0, s), [np.array([0.5, 3.0]), np.array(1.5)]),
    ("chi2.logsf", lambda x: ts.chi2.logsf(x, 4.0), [np.array([0.5, 3.0, 20.0])]),
    ("beta.cdf", lambda x, loc, s: ts.beta.cdf(x, 2.0, 3.5, loc, s),
     [np.array([0.2, 0.5, 1.1]), np.array(0.05), np.array(1.2)]),
    ("beta.sf", lambda x: ts.beta.sf(x, 0.7, 1.5), [np.array([0.1, 0.5, 0.9])]),
    ("beta.logcdf", lambda x: ts.beta.logcdf(x, 2.0, 2.0), [np.array([0.1, 0.5, 0.9])]),
    ("beta.logsf", lambda x: ts.beta.logsf(x, 2.0, 2.0), [np.array([0.1, 0.5, 0.9])]),
    ("poisson.cdf", lambda mu: ts.poisson.cdf(np.array([0.0, 2.0, 7.0]), mu), [np.array([0.5, 3.0, 6.5])]),
    ("t.cdf", lambda x, loc, s: ts.t.cdf(x, 3.0, loc, s), [np.array([-4.0, -0.5, 0.3, 2.0, 30.0]), np.array(0.1),
                                                             np.array(1.3)]),
    ("t.sf", lambda x: ts.t.sf(x, 0.8), [np.array([-4.0, -0.5, 0.3, 2.0, 30.0])]),
]


@pytest.mark.parametrize("name, f, args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads_second_order(name, f, args):
    check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_derivatives_are_the_densities():
    x = np.array([-2.0, -0.3, 0.0, 0.4, 3.0])
    for df in (0.7, 3.0, 50.0):
        g = tg.vmap(tg.grad(ts.t.cdf), in_axes=(0, None))(x, df)
        np.testing.assert_allclose(g, ss.t.pdf(x, df), rtol=1e-13)  # z = 0 included
        gg = tg.vmap(tg.grad(tg.grad(ts.t.cdf)), in_axes=(0, None))(x, df)
        np.testing.assert_allclose(gg[2], 0.0, atol=1e-15)  # pdf'(0) = 0
    y = np.array([0.3, 1.0, 4.0])
    np.testing.assert_allclose(tg.vmap(tg.grad(ts.gamma.sf), in_axes=(0, None))(y, 2.0), -ss.gamma.pdf(y, 2.0),
                               rtol=1e-13)
    np.testing.assert_allclose(tg.vmap(tg.grad(ts.beta.cdf), in_axes=(0, None, None))(y / 5, 2.0, 3.0),
                               ss.beta.pdf(y / 5, 2.0, 3.0), rtol=1e-13)
    # d/dmu P(K <= k) = -pmf(k, mu)
    np.testing.assert_allclose(tg.grad(ts.poisson.cdf, argnums=1)(3.0, 2.5), -ss.poisson.pmf(3, 2.5), rtol=1e-13)
    assert float(tg.grad(ts.poisson.cdf)(3.0, 2.5)) == 0.0  # a step function in k


@pytest.mark.parametrize("fn, args, argnums", [
    (ts.gamma.cdf, (1.0, 2.0), 1), (ts.chi2.sf, (1.0, 2.0), 1), (ts.beta.cdf, (0.3, 2.0, 3.0), 2),
    (ts.t.cdf, (0.5, 3.0), 1)])
def test_shape_parameter_derivative_raises(fn, args, argnums):
    with pytest.raises(NotImplementedError, match="differentiable in x only"):
        tg.grad(fn, argnums=argnums)(*args)


def test_jit_vmap_float32():
    x = np.float32([0.5, 1.0, 3.0])
    got = tg.jit(ts.gamma.cdf)(x, np.float32(2.0))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ss.gamma.cdf(x, 2.0), rtol=1e-6)
    df = np.array([1.0, 4.0, 9.0])
    np.testing.assert_allclose(tg.jit(tg.vmap(ts.t.sf))(np.array([0.5, -1.0, 2.0]), df),
                               ss.t.sf([0.5, -1.0, 2.0], df), rtol=1e-13)
    np.testing.assert_allclose(tg.vmap(lambda m: ts.poisson.cdf(3.0, m))(df), ss.poisson.cdf(3, df), rtol=1e-13)


def test_t_logcdf_and_logsf():
    x = np.concatenate([np.linspace(-30.0, 30.0, 121), [0.0, 1e-8, -1e-8]])
    for df in (1.0, 2.5, 7.0, 40.0):
        np.testing.assert_allclose(ts.t.logcdf(x, df, 0.3, 1.7), ss.t.logcdf(x, df, 0.3, 1.7),
                                   rtol=1e-12)
        np.testing.assert_allclose(ts.t.logsf(x, df, 0.3, 1.7), ss.t.logsf(x, df, 0.3, 1.7),
                                   rtol=1e-12)
    assert np.isnan(ts.t.logcdf(1.0, -1.0)) and np.isnan(ts.t.logsf(1.0, 2.0, 0.0, 0.0))
    check_grads(lambda v, loc, s: ts.t.logcdf(v, 3.0, loc, s),
                (np.array([-2.0, 0.4, 3.0]), 0.2, 1.3), order=2, modes=("fwd", "rev"))
    check_grads(lambda v: ts.t.logsf(v, 5.0), (np.array([-2.0, 0.4, 3.0]),), order=2,
                modes=("fwd", "rev"))

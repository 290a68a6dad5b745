"""``tracegrad.scipy.stats``: every function against ``scipy.stats`` (tails
included), derivatives in the data and in the parameters to second order,
float32, and grad under jit and vmap."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.scipy import stats as tst
from tracegrad.test_util import check_grads

ss = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(0)
X = np.concatenate([RNG.uniform(-5, 5, 40), [-40.0, -12.0, 12.0, 40.0, 0.0]])
Q = np.concatenate([RNG.uniform(0, 1, 40), [1e-300, 1e-20, 1 - 1e-12, 0.5]])

# (name, method, tracegrad args, SciPy's args, rtol): rtol 1e-13 where the
# function is a few rounded operations (about 4 ulp of each); 1e-12 where
# SciPy's own value is the less accurate one (its normal tails lose x**2/2
# ulp; t and gamma sum lgamma terms)
CASES = [
    ("norm", "logpdf", (X, 0.5, 2.0), 1e-13),
    ("norm", "pdf", (X, 0.5, 2.0), 1e-13),
    ("norm", "cdf", (X, 0.5, 2.0), 1e-12),
    ("norm", "logcdf", (X, 0.5, 2.0), 1e-13),
    ("norm", "sf", (X, 0.5, 2.0), 1e-12),
    ("norm", "logsf", (X, 0.5, 2.0), 1e-13),
    ("norm", "ppf", (Q, 0.5, 2.0), 1e-13),
    ("norm", "isf", (Q, 0.5, 2.0), 1e-13),
    ("expon", "logpdf", (X, -1.0, 2.0), 1e-13),
    ("expon", "pdf", (X, -1.0, 2.0), 1e-13),
    ("expon", "cdf", (X, -1.0, 2.0), 1e-13),
    ("expon", "logcdf", (X[X > -1.0], -1.0, 2.0), 1e-13),
    ("expon", "sf", (X, -1.0, 2.0), 1e-13),
    ("expon", "logsf", (X, -1.0, 2.0), 1e-13),
    ("expon", "ppf", (Q, -1.0, 2.0), 1e-13),
    ("logistic", "logpdf", (X, 0.5, 0.7), 1e-13),
    ("logistic", "pdf", (X, 0.5, 0.7), 1e-13),
    ("logistic", "cdf", (X, 0.5, 0.7), 1e-13),
    ("logistic", "sf", (X, 0.5, 0.7), 1e-13),
    ("logistic", "ppf", (Q[Q > 1e-20], 0.5, 0.7), 1e-13),
    ("logistic", "isf", (Q[Q > 1e-20], 0.5, 0.7), 1e-13),
    ("laplace", "logpdf", (X, 0.5, 1.5), 1e-13),
    ("laplace", "pdf", (X, 0.5, 1.5), 1e-13),
    ("laplace", "cdf", (X, 0.5, 1.5), 1e-13),
    ("laplace", "sf", (X, 0.5, 1.5), 1e-13),
    ("cauchy", "logpdf", (X, 0.5, 1.5), 1e-13),
    ("cauchy", "pdf", (X, 0.5, 1.5), 1e-13),
    ("cauchy", "cdf", (X, 0.5, 1.5), 1e-13),
    ("cauchy", "sf", (X, 0.5, 1.5), 1e-13),
    ("cauchy", "ppf", (Q[(Q > 1e-20) & (Q < 0.999)], 0.5, 1.5), 1e-13),
    ("t", "logpdf", (X, 3.5, 0.5, 1.5), 1e-13),
    ("t", "pdf", (X, 3.5, 0.5, 1.5), 1e-13),
    ("gamma", "logpdf", (np.abs(X) * 3, 2.5, 0.0, 1.5), 1e-13),
    ("gamma", "logpdf", (X, 0.7, -1.0, 1.5), 1e-13),
    ("gamma", "pdf", (np.abs(X), 2.5, 0.0, 1.5), 1e-13),
    ("beta", "logpdf", (Q[Q > 1e-20], 2.5, 0.7), 1e-13),
    ("beta", "logpdf", (X / 10, 2.5, 1.5, -0.2, 0.9), 1e-13),
    ("beta", "pdf", (Q[Q > 1e-20], 2.5, 1.7), 1e-13),
    ("poisson", "logpmf", (np.arange(-2.0, 60.0), 7.5), 1e-13),
    ("poisson", "pmf", (np.array([-1.0, 0.0, 1.5, 3.0, 40.0]), 7.5, 1.0), 1e-13),
    ("bernoulli", "logpmf", (np.array([-1.0, 0.0, 0.5, 1.0, 2.0]), 0.3), 1e-13),
    ("bernoulli", "pmf", (np.array([0.0, 1.0, 2.0, 3.0]), 0.3, 1.0), 1e-13),
    ("uniform", "logpdf", (X, -1.0, 3.0), 1e-13),
    ("uniform", "pdf", (X, -1.0, 3.0), 1e-13),
    ("uniform", "cdf", (X, -1.0, 3.0), 1e-13),
    ("chi2", "logpdf", (np.abs(X) * 3, 3.5, 0.0, 1.5), 1e-13),
    ("chi2", "pdf", (np.abs(X), 2.0), 1e-13),
]


@pytest.mark.parametrize("dist, method, args, rtol", CASES,
                         ids=[f"{c[0]}.{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_values_against_scipy(dist, method, args, rtol):
    got = getattr(getattr(tst, dist), method)(*args)
    with np.errstate(all="ignore"):
        want = getattr(getattr(ss, dist), method)(*args)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300, err_msg=f"{dist}.{method}")


def test_normal_tails():
    """logcdf and logsf far in the tails (no underflow) and ppf at the extremes."""
    np.testing.assert_allclose(tst.norm.logcdf(np.array([-1e4, -40.0])),
                               ss.norm.logcdf(np.array([-1e4, -40.0])), rtol=1e-14)
    np.testing.assert_allclose(tst.norm.logsf(40.0), ss.norm.logsf(40.0), rtol=1e-14)
    assert tst.norm.ppf(0.0) == -np.inf and tst.norm.ppf(1.0) == np.inf
    assert np.isnan(tst.norm.ppf(1.5)) and np.isnan(tst.norm.cdf(np.nan))
    assert tst.norm.cdf(np.inf) == 1.0 and tst.norm.logcdf(-np.inf) == -np.inf


def test_multivariate_normal_allow_singular_against_scipy():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 2))
    cov, mean = a @ a.T, rng.standard_normal(4)  # rank 2
    on = mean + rng.standard_normal((6, 2)) @ a.T  # on the support
    off = on + rng.standard_normal((6, 4))        # off it
    want = ss.multivariate_normal.logpdf(on, mean, cov, allow_singular=True)
    np.testing.assert_allclose(tst.multivariate_normal.logpdf(on, mean, cov, allow_singular=True),
                               want, rtol=1e-12)
    np.testing.assert_allclose(tst.multivariate_normal.pdf(on, mean, cov, allow_singular=True),
                               np.exp(want), rtol=1e-12)
    got_off = tst.multivariate_normal.logpdf(off, mean, cov, allow_singular=True)
    assert np.all(got_off == -np.inf)
    assert np.all(ss.multivariate_normal.logpdf(off, mean, cov, allow_singular=True) == -np.inf)
    # a nonsingular cov gives the Cholesky path's values
    full = a @ a.T + np.eye(4)
    np.testing.assert_allclose(tst.multivariate_normal.logpdf(off, mean, full, allow_singular=True),
                               tst.multivariate_normal.logpdf(off, mean, full), rtol=1e-13)
    # derivatives in x and mean along the support (cov's kept eigenvalues repeat here)
    cov2, m = np.diag([1.0, 1.0, 0.0, 0.0]), np.array([0.3, -0.2, 0.0, 0.0])

    def f(x, mu):
        return tst.multivariate_normal.logpdf(tnp.concatenate([x[:2], mu[2:]]), mu, cov2,
                                              allow_singular=True)

    check_grads(f, (np.array([0.5, 0.1, 0.0, 0.0]), m), order=2, modes=("fwd", "rev"))


def test_multivariate_normal_and_dirichlet_against_scipy():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3))
    cov, mean = a @ a.T + 0.5 * np.eye(3), rng.standard_normal(3)
    x = rng.standard_normal((5, 3)) * 2
    # (a Cholesky solve and a log-determinant: a few ulp of each term)
    for pts in (x, x[0], x.reshape(5, 1, 3)):
        got = tst.multivariate_normal.logpdf(pts, mean, cov)
        assert np.shape(got) == pts.shape[:-1]  # (SciPy squeezes length-1 axes; JAX does not)
        np.testing.assert_allclose(np.squeeze(got),
                                   ss.multivariate_normal.logpdf(pts, mean, cov), rtol=1e-13)
    np.testing.assert_allclose(tst.multivariate_normal.pdf(x, mean, cov),
                               ss.multivariate_normal.pdf(x, mean, cov), rtol=1e-13)
    alpha = np.array([0.7, 2.0, 3.5])
    pts = rng.dirichlet(alpha, 6).T  # (K, N), SciPy's layout
    np.testing.assert_allclose(tst.dirichlet.logpdf(pts, alpha), ss.dirichlet.logpdf(pts, alpha),
                               rtol=1e-13)
    np.testing.assert_allclose(tst.dirichlet.pdf(pts[:, 0], alpha),
                               ss.dirichlet.pdf(pts[:, 0], alpha), rtol=1e-13)
    assert tst.dirichlet.logpdf(np.array([1.2, -0.1, -0.1]), alpha) == -np.inf
    # K - 1 components (the last implied), as SciPy and JAX accept
    np.testing.assert_allclose(tst.dirichlet.logpdf(pts[:-1], alpha),
                               ss.dirichlet.logpdf(pts[:-1], alpha), rtol=1e-13)
    # off the simplex by more than JAX's 1e-6 (SciPy raises): -inf; within it, a value
    off = pts[:, 0] + np.array([2e-6, 0.0, 0.0])
    assert tst.dirichlet.logpdf(off, alpha) == -np.inf
    near = pts[:, 0] + np.array([5e-7, 0.0, 0.0])
    assert np.isfinite(tst.dirichlet.logpdf(near, alpha))
    with pytest.raises(ValueError, match="dirichlet"):
        tst.dirichlet.logpdf(pts.T, alpha)
    with pytest.raises(ValueError, match="multivariate_normal"):
        tst.multivariate_normal.logpdf(x, mean, cov[:2, :2])


def test_multivariate_normal_and_dirichlet_grads():
    rng = np.random.default_rng(4)

    def mvn(x, mean, a):  # cov = a a^T + I: every perturbation of a keeps it SPD
        return tst.multivariate_normal.logpdf(x, mean, a @ a.T + np.eye(2))

    check_grads(mvn, (rng.standard_normal((3, 2)), rng.standard_normal(2),
                      rng.standard_normal((2, 2))), order=2, modes=("fwd", "rev"))
    pts = rng.dirichlet([1.5, 2.0, 3.0], 2).T
    # (in x through the K - 1 free components: a perturbation of all K leaves the simplex)
    check_grads(tst.dirichlet.logpdf, (pts[:-1], np.array([1.5, 2.0, 3.0])), order=2,
                modes=("fwd", "rev"))


def _pos(shape, lo=0.5, hi=2.0, seed=1):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


# (function of float arguments, their values): derivatives in x and every parameter
GRADS = [
    ("norm.logpdf", tst.norm.logpdf, (_pos(3, -2, 2), _pos(3, -1, 1), _pos(3))),
    ("norm.cdf", tst.norm.cdf, (_pos(3, -2, 2), 0.3, _pos(3))),
    ("norm.logcdf", tst.norm.logcdf, (np.array([-30.0, -2.0, 0.5, 6.0]), 0.3, 1.3)),
    ("norm.sf", tst.norm.sf, (_pos(3, -2, 2), 0.3, 1.3)),
    ("norm.logsf", tst.norm.logsf, (_pos(3, -2, 2), 0.3, 1.3)),
    ("norm.ppf", tst.norm.ppf, (_pos(3, 0.1, 0.9), 0.3, _pos(3))),
    ("norm.isf", tst.norm.isf, (_pos(3, 0.1, 0.9), 0.3, 1.3)),
    ("expon.logpdf", tst.expon.logpdf, (_pos(3, 0.5, 3), 0.2, _pos(3))),
    ("expon.cdf", tst.expon.cdf, (_pos(3, 0.5, 3), 0.2, 1.3)),
    ("expon.logsf", tst.expon.logsf, (_pos(3, 0.5, 3), 0.2, 1.3)),
    ("expon.ppf", tst.expon.ppf, (_pos(3, 0.1, 0.9), 0.2, 1.3)),
    ("logistic.logpdf", tst.logistic.logpdf, (_pos(3, -2, 2), 0.3, _pos(3))),
    ("logistic.cdf", tst.logistic.cdf, (_pos(3, -2, 2), 0.3, 1.3)),
    ("logistic.ppf", tst.logistic.ppf, (_pos(3, 0.1, 0.9), 0.3, 1.3)),
    ("laplace.logpdf", tst.laplace.logpdf, (np.array([-1.0, 0.8, 2.0]), 0.3, _pos(3))),
    ("laplace.cdf", tst.laplace.cdf, (np.array([-1.0, 0.8, 2.0]), 0.3, 1.3)),
    ("cauchy.logpdf", tst.cauchy.logpdf, (_pos(3, -2, 2), 0.3, _pos(3))),
    ("cauchy.cdf", tst.cauchy.cdf, (_pos(3, -2, 2), 0.3, 1.3)),
    ("cauchy.ppf", tst.cauchy.ppf, (_pos(3, 0.25, 0.75), 0.3, 1.3)),
    ("t.logpdf", tst.t.logpdf, (_pos(3, -2, 2), _pos(3, 1, 5), 0.3, _pos(3))),
    ("gamma.logpdf", tst.gamma.logpdf, (_pos(3, 0.5, 3), _pos(3, 1, 3), 0.1, 1.3)),
    ("beta.logpdf", tst.beta.logpdf, (_pos(3, 0.2, 0.8), _pos(3, 1, 3), _pos(3, 1, 3))),
    ("poisson.logpmf", lambda mu: tst.poisson.logpmf(np.array([0.0, 2.0, 5.0]), mu), (_pos(3),)),
    ("bernoulli.logpmf", lambda p: tst.bernoulli.logpmf(np.array([0.0, 1.0, 1.0]), p),
     (_pos(3, 0.2, 0.8),)),
    ("uniform.logpdf", tst.uniform.logpdf, (_pos(3, 0.2, 0.8), -0.5, _pos(3, 1.5, 2))),
    ("chi2.logpdf", tst.chi2.logpdf, (_pos(3, 0.5, 3), _pos(3, 1, 4), 0.1, 1.3)),
]


@pytest.mark.parametrize("name, f, args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads_second_order(name, f, args):
    args = tuple(np.asarray(a, np.float64) for a in args)
    check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_gaussian_likelihood_grad_jit_vmap():
    data = np.random.default_rng(2).normal(1.5, 0.7, 50)

    def nll(params):
        return -tnp.sum(tst.norm.logpdf(data, params[0], tnp.exp(params[1])))

    p = np.array([0.3, 0.1])
    g = tg.grad(nll)(p)
    # d/dmu = -sum(x - mu) / s**2; d/dlog s = n - sum((x - mu)**2) / s**2
    s2 = np.exp(2 * p[1])
    np.testing.assert_allclose(g, [-np.sum(data - p[0]) / s2,
                                   data.size - np.sum((data - p[0]) ** 2) / s2], rtol=1e-12)
    np.testing.assert_allclose(tg.jit(tg.grad(nll))(p), g, rtol=1e-12)
    ps = np.stack([p, p + 0.2])
    np.testing.assert_allclose(tg.vmap(tg.grad(nll))(ps)[1], tg.grad(nll)(p + 0.2), rtol=1e-12)
    np.testing.assert_allclose(tg.jit(tg.vmap(tg.grad(nll)))(ps), tg.vmap(tg.grad(nll))(ps),
                               rtol=1e-12)


def test_float32_stays_float32():
    x = np.array([0.2, 0.5, 0.9], np.float32)
    for fn in (tst.norm.logpdf, tst.norm.cdf, tst.norm.logcdf, tst.norm.ppf, tst.expon.logpdf,
               tst.logistic.logpdf, tst.laplace.logpdf, tst.cauchy.logpdf, tst.expon.cdf):
        assert fn(x).dtype == np.float32, fn
        assert tg.grad(lambda v: tnp.sum(fn(v)))(x).dtype == np.float32, fn
    assert tst.t.logpdf(x, np.float32(3.0)).dtype == np.float32
    assert tst.gamma.logpdf(x, np.float32(2.0)).dtype == np.float32
    assert tst.beta.logpdf(x, np.float32(2.0), np.float32(3.0)).dtype == np.float32
    assert tst.poisson.logpmf(np.array([1.0], np.float32), np.float32(2.0)).dtype == np.float32


def test_multivariate_normal_of_a_batch_under_jit():
    ss = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(21)
    x, m = rng.standard_normal((5, 3)), rng.standard_normal(3)
    c = rng.standard_normal((3, 3))
    s = c @ c.T + 3.0 * np.eye(3)
    want = ss.multivariate_normal.logpdf(x, m, s)
    np.testing.assert_allclose(tg.jit(tst.multivariate_normal.logpdf)(x, m, s), want, rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tst.multivariate_normal.logpdf)(x.reshape(5, 1, 3), m, s),
                               want[:, None], rtol=1e-13)


@pytest.mark.parametrize("name, call", [
    ("expon.cdf", lambda m: m.expon.cdf(-3.0, 0.0, -1.0)),
    ("laplace.sf", lambda m: m.laplace.sf(0.3, 0.0, -1.0)),
    ("uniform.cdf", lambda m: m.uniform.cdf(-3.0, 0.0, -1.0)),
    ("norm.logpdf", lambda m: m.norm.logpdf(0.3, 0.0, 0.0)),
    ("norm.ppf", lambda m: m.norm.ppf(0.3, 0.0, -2.0)),
    ("gamma.logpdf", lambda m: m.gamma.logpdf(1.0, 2.2, 0.0, -1.0)),
    ("beta.logpdf", lambda m: m.beta.logpdf(0.5, -1.0, 2.0)),
    ("t.logpdf", lambda m: m.t.logpdf(0.5, 0.0)),
    ("chi2.pdf", lambda m: m.chi2.pdf(0.5, -3.0)),
    ("bernoulli.logpmf", lambda m: m.bernoulli.logpmf(1.0, 1.2)),
    ("poisson.logpmf", lambda m: m.poisson.logpmf(2.0, -1.0)),
])
def test_invalid_parameters_give_nan_as_scipy(name, call):
    ss = pytest.importorskip("scipy.stats")
    assert np.isnan(call(ss))
    assert np.isnan(call(tst))


def test_invalid_parameters_mask_only_their_elements():
    scale = np.array([1.0, -1.0, 2.0])
    out = tg.jit(tst.norm.logpdf)(0.3, 0.0, scale)
    assert np.isnan(out[1]) and np.all(np.isfinite(out[[0, 2]]))
    np.testing.assert_allclose(out[[0, 2]], tst.norm.logpdf(0.3, 0.0, scale[[0, 2]]), rtol=1e-15)
    g = tg.grad(lambda s: tnp.sum(tnp.where(s > 0, tst.norm.logpdf(0.3, 0.0, s), 0.0)))(scale)
    assert np.all(np.isfinite(g)) and g[1] == 0.0


def test_complex_operands_are_named_by_their_module():
    with pytest.raises(TypeError, match=r"tracegrad\.scipy\.stats\.norm\.logpdf takes real arrays"):
        tst.norm.logpdf(np.ones(2) + 1j)


def test_multivariate_normal_entropy():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + np.eye(3)
    np.testing.assert_allclose(tst.multivariate_normal.entropy(np.zeros(3), cov),
                               ss.multivariate_normal.entropy(np.zeros(3), cov), rtol=1e-14)
    for mean in (None, np.zeros(4)):  # scalar covariance: cov * I of mean's dimension
        np.testing.assert_allclose(tst.multivariate_normal.entropy(mean, 2.5),
                                   ss.multivariate_normal.entropy(mean, 2.5), rtol=1e-14)
    check_grads(lambda b: tst.multivariate_normal.entropy(None, b @ b.T + np.eye(3)), (a,),
                order=2, modes=("fwd", "rev"))
    # d/dcov (log det cov) / 2 = cov^-1 / 2
    np.testing.assert_allclose(tg.grad(lambda c: tst.multivariate_normal.entropy(None, c))(cov),
                               0.5 * np.linalg.inv(cov), rtol=1e-12)
    with pytest.raises(ValueError, match="entropy"):
        tst.multivariate_normal.entropy(np.zeros(2), cov)


def test_t_at_large_and_infinite_df_is_the_normal():
    # (the difference of two lgamma lost every digit by df = 1e17; df = inf gave NaN)
    x = np.array([-2.0, 0.0, 1.5, 40.0])
    for df in (np.inf, 1e300, 1e17, 1e6):
        np.testing.assert_allclose(tst.t.logpdf(x, df, 0.2, 1.3), ss.t.logpdf(x, df, 0.2, 1.3),
                                   rtol=1e-13)
        np.testing.assert_allclose(tst.t.cdf(x, df), ss.t.cdf(x, df), rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(tst.t.sf(x, df), ss.t.sf(x, df), rtol=1e-13, atol=1e-300)
    np.testing.assert_array_equal(tst.t.logpdf(x, np.inf), ss.norm.logpdf(x))
    check_grads(lambda v, loc, s: tst.t.logpdf(v, np.inf, loc, s), (x, 0.3, 1.2), order=2,
                modes=("fwd", "rev"))
    assert tg.grad(lambda v: tst.t.cdf(v, np.inf))(1.5) == pytest.approx(ss.norm.pdf(1.5),
                                                                         rel=1e-14)

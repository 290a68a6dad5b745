"""The distributions and statistics of issue 11 added after the first set:
values against ``scipy.stats`` (tails and invalid parameters included), against
mpmath where SciPy is the less accurate one, derivatives to second order
(forward and reverse) in the data and in every parameter, derivatives against
``jax.scipy.stats`` where JAX has the function, and jit / vmap."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.scipy import stats as tst
from tracegrad.test_util import check_grads

ss = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(11)
X = np.concatenate([RNG.uniform(-8, 8, 60), np.linspace(-40, 40, 17), [-1e3, 1e3, 0.5]])
Q = np.concatenate([RNG.uniform(0, 1, 40), [0.0, 1e-300, 1e-20, 1e-5, 0.5, 1 - 1e-12, 1.0,
                                           1.5, -0.5]])
K = np.concatenate([np.arange(-2.0, 70.0), [2.5, -0.5, np.nan]])
POS = np.concatenate([RNG.uniform(0, 10, 40), [0.0, 1.0, 1.5, 1e3, 1e8]])  # (near 1: mpmath below)
CIRC = np.concatenate([RNG.uniform(-1, 7.5, 40), [0.0, np.pi, 2 * np.pi]])

# (dist, method, args, rtol): 1e-13 where the value is a handful of rounded
# operations, looser only where stated: exp() of a log density around -500
# carries its ~1e-16 absolute error as ~5e-14 relative (both libraries).
CASES = []
for _m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES += [
        ("pareto", _m, (X, 2.5, -1.0, 1.5), 1e-13),
        ("pareto", _m, (POS, 0.7), 1e-13),
        ("gumbel_r", _m, (X, 0.5, 2.0), 1e-13),
        ("gumbel_l", _m, (X, 0.5, 2.0), 1e-13),
    ]
    for _a, _b in [(-1.0, 2.0), (3.0, 5.0), (-8.0, -6.0), (30.0, 31.0), (-np.inf, 1.0),
                   (0.5, np.inf), (-40.0, -38.0)]:
        CASES.append(("truncnorm", _m, (X, _a, _b, 0.5, 1.5), 1e-13))
for _m in ("ppf",):
    CASES += [
        ("pareto", _m, (Q, 2.5, -1.0, 1.5), 1e-13),
        ("gumbel_r", _m, (Q, 0.5, 2.0), 1e-13),
        ("gumbel_l", _m, (Q, 0.5, 2.0), 1e-13),
        ("uniform", _m, (Q, -1.0, 3.0), 1e-15),
        ("cauchy", "isf", (Q[(Q > 1e-20) & (Q < 0.999)], 0.5, 1.5), 1e-13),
        ("cauchy", "ppf", (Q[(Q > 1e-3) & (Q < 0.999)], 0.5, 1.5), 1e-13),
    ]
    for _a, _b in [(-1.0, 2.0), (3.0, 5.0), (-8.0, -6.0), (30.0, 31.0), (-np.inf, 1.0),
                   (0.5, np.inf)]:
        # (atol: the quantile crosses 0, where 1e-13 relative is below 1 ulp of loc)
        CASES.append(("truncnorm", _m, (Q, _a, _b, 0.5, 1.5), 1e-13, 1e-15))
for _beta in (0.5, 1.0, 2.0, 3.7):
    CASES += [("gennorm", "logpdf", (X, _beta, 0.5, 1.5), 1e-13),
              ("gennorm", "pdf", (X, _beta, 0.5, 1.5), 1e-13)]
for _c in (0.3, 0.9, 1e-8):
    CASES += [("wrapcauchy", "logpdf", (CIRC, _c, 0.2, 0.9), 1e-13, 1e-14),  # crosses 0
              ("wrapcauchy", "pdf", (CIRC, _c), 1e-13)]
for _kappa in (0.0, 0.5, 3.0, 19.5, 20.5, 300.0):
    # (the log density crosses 0: compared with an absolute tolerance below)
    # and exp() of a log density near -500 (the tails at kappa = 300) carries its
    # rounding as 5e-14 relative in either library
    CASES += [("vonmises", "pdf", (X / 4, _kappa, 0.3, 1.2), 2e-13)]
for _n, _p in [(10.0, 0.3), (60.0, 0.01), (60.0, 0.99), (5.0, 0.0), (5.0, 1.0), (0.0, 0.3)]:
    CASES += [("binom", "logpmf", (K, _n, _p), 1e-13), ("binom", "pmf", (K, _n, _p), 2e-13)]
for _n, _p in [(3.5, 0.3), (60.0, 0.9), (0.5, 0.01), (5.0, 1.0)]:
    CASES += [("nbinom", "logpmf", (K, _n, _p), 1e-13), ("nbinom", "pmf", (K, _n, _p), 2e-13)]
for _p in (0.3, 1e-5, 1.0):
    for _m in ("logpmf", "pmf", "cdf", "sf", "logsf"):
        CASES.append(("geom", _m, (K, _p, 1.0 if _p == 0.3 else 0.0), 1e-13))
for _p in (0.3, 1e-5, 0.9):
    CASES.append(("geom", "ppf", (Q[Q < 1 - 1e-13], _p), 0.0))
for _n, _a, _b in [(10.0, 1.5, 2.5), (60.0, 0.3, 0.7), (0.0, 1.0, 1.0)]:
    CASES += [("betabinom", "logpmf", (K, _n, _a, _b), 1e-13),
              ("betabinom", "pmf", (K, _n, _a, _b), 1e-13)]
CASES += [
    ("bernoulli", "cdf", (np.array([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan]), 0.3), 1e-15),
    ("bernoulli", "cdf", (np.array([0.0, 0.5, 1.0, 1.5, 2.0]), 0.3, 0.8), 1e-15),
    ("bernoulli", "ppf", (np.array([0.0, 0.3, 0.7, 0.7000001, 1.0, 1.5, -0.1]), 0.3), 0.0),
    ("bernoulli", "ppf", (np.array([0.0, 0.3, 0.9]), 0.3, 2.0), 0.0),
    ("cauchy", "logcdf", (X, 0.5, 1.5), 1e-13),
    ("cauchy", "logsf", (X, 0.5, 1.5), 1e-13),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}.{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_values_against_scipy(case):
    dist, method, args, rtol = case[:4]
    atol = case[4] if len(case) > 4 else 1e-300
    with np.errstate(all="ignore"):
        got = np.asarray(getattr(getattr(tst, dist), method)(*args))
        want = getattr(getattr(ss, dist), method)(*args)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{dist}.{method}")


def test_vonmises_log_density_against_scipy():
    x = np.linspace(-10, 10, 81)
    for kappa in (0.0, 1e-8, 0.5, 3.0, 19.0, 20.0, 21.0, 60.0, 300.0, 1e5):
        want = ss.vonmises.logpdf(x, kappa, 0.3, 1.2)
        np.testing.assert_allclose(tst.vonmises.logpdf(x, kappa, 0.3, 1.2), want,
                                   rtol=1e-14, atol=1e-14 * max(kappa, 1.0))


def test_log_i0e_series_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    from tracegrad.scipy.stats.vonmises import _log_i0e
    k = np.concatenate([np.linspace(0.0, 60.0, 241), [1e-8, 19.999, 20.001, 1e3, 1e6]])
    got = np.asarray(_log_i0e(k))
    with mpmath.workdps(40):
        want = np.array([float(mpmath.log(mpmath.besseli(0, v)) - v) for v in k])
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=4e-16)  # 4.5 ulp


def test_tails_against_mpmath_where_scipy_is_less_accurate():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40

    def rel(got, want):
        return abs(float(got) - float(want)) / abs(float(want))

    phi = mp.ncdf
    # truncnorm: the log survival function near 0 on a lower-tail interval
    for x in (-9.0, -10.0, -11.0):
        z = (mp.mpf(x) - 0.5) / 1.5
        want = mp.log((phi(-6) - phi(z)) / (phi(-6) - phi(-8)))
        assert rel(tst.truncnorm.logsf(x, -8.0, -6.0, 0.5, 1.5), want) < 1e-14
    # ... and the CDF of an interval at 30 standard units (Phi rounds to 1 there)
    for x in (45.6, 46.0, 46.9):
        z = (mp.mpf(x) - 0.5) / 1.5
        want = (phi(-30) - phi(-z)) / (phi(-30) - phi(-31))
        assert rel(tst.truncnorm.cdf(x, 30.0, 31.0, 0.5, 1.5), want) < 1e-13
    # wrapcauchy with c near 1 (SciPy's 1 + c**2 - 2c cos z cancels)
    c = 0.999999
    for x in (0.0, 1e-4, 0.3, 3.0):
        cm = mp.mpf(c)
        want = (1 - cm ** 2) / (2 * mp.pi * (1 + cm ** 2 - 2 * cm * mp.cos(x)))
        assert rel(tst.wrapcauchy.pdf(x, c), want) < 1e-14
    # geom: log CDF near 0 (SciPy's log(-expm1(.)) loses it)
    for k in (40.0, 69.0, 100.0):
        want = mp.log(1 - (1 - mp.mpf(0.3)) ** int(k))
        assert rel(tst.geom.logcdf(k, 0.3), want) < 1e-14
    # pareto: the CDF just above its lower end (SciPy's 1 - z**-b cancels)
    for x in (1.0 + 1e-12, 1.0 + 1e-6):
        want = 1 - mp.mpf(x) ** -mp.mpf(0.7)
        assert rel(tst.pareto.cdf(x, 0.7), want) < 1e-15
        assert rel(tst.pareto.logcdf(x, 0.7), mp.log(want)) < 1e-15
    # cauchy: quantiles in both tails (tan near pi/2 in SciPy's form)
    for q in (1e-20, 1e-5, 1e-3, 0.3, 0.999, 1 - 1e-9):
        want = mp.tan(mp.pi * (mp.mpf(q) - mp.mpf(1) / 2))
        assert rel(tst.cauchy.ppf(q), want) < 1e-15
        assert rel(tst.cauchy.isf(q), -want) < 1e-15
    # cauchy: log CDF and log SF in both tails
    with mp.workdps(350):  # 1/2 + arctan(-1e300)/pi needs 300 digits to see its 3e-301
        for x in (-1e300, -1e10, -3.0, 3.0, 1e10, 1e300):
            cdf = mp.mpf(1) / 2 + mp.atan(mp.mpf(x)) / mp.pi
            assert rel(tst.cauchy.logcdf(x), mp.log(cdf)) < 1e-15
            assert rel(tst.cauchy.logsf(x), mp.log(1 - cdf)) < 1e-15
    # binom: log C(n, k) through betaln (SciPy's gammaln sum loses 1e-14 at n = 60)
    for k in (0, 1, 4, 30, 59):
        want = mp.log(mp.binomial(60, k) * mp.mpf(0.01) ** k * (1 - mp.mpf(0.01)) ** (60 - k))
        assert rel(tst.binom.logpmf(float(k), 60.0, 0.01), want) < 4e-16 * 8


def test_edge_values():
    inf, nan = np.inf, np.nan
    assert tst.pareto.logpdf(0.5, 2.0) == -inf and tst.pareto.cdf(0.5, 2.0) == 0.0
    assert tst.pareto.sf(1.0, 2.0) == 1.0 and tst.pareto.logcdf(1.0, 2.0) == -inf
    assert tst.pareto.ppf(0.0, 2.0) == 1.0 and tst.pareto.ppf(1.0, 2.0) == inf
    assert tst.gumbel_r.cdf(-inf) == 0.0 and tst.gumbel_r.sf(inf) == 0.0
    assert tst.gumbel_l.ppf(0.0) == -inf and tst.gumbel_l.ppf(1.0) == inf
    assert tst.gumbel_r.ppf(0.0) == -inf and tst.gumbel_r.ppf(1.0) == inf
    assert tst.truncnorm.logpdf(-1.5, -1.0, 2.0) == -inf
    assert tst.truncnorm.cdf(-1.5, -1.0, 2.0) == 0.0 and tst.truncnorm.cdf(2.5, -1.0, 2.0) == 1.0
    assert tst.truncnorm.ppf(0.0, -1.0, 2.0) == -1.0 and tst.truncnorm.ppf(1.0, -1.0, 2.0) == 2.0
    assert tst.wrapcauchy.logpdf(-0.1, 0.5) == -inf and tst.wrapcauchy.pdf(6.3, 0.5) == 0.0
    np.testing.assert_allclose(tst.vonmises.pdf(1.3, 0.0), 1 / (2 * np.pi), rtol=1e-15)
    assert tst.binom.pmf(0.0, 5.0, 0.0) == 1.0 and tst.binom.pmf(5.0, 5.0, 1.0) == 1.0
    assert tst.binom.pmf(6.0, 5.0, 0.3) == 0.0 and tst.binom.pmf(2.5, 5.0, 0.3) == 0.0
    assert np.isnan(tst.binom.pmf(nan, 5.0, 0.3)) and np.isnan(tst.geom.logpmf(nan, 0.3))
    assert tst.nbinom.pmf(0.0, 5.0, 1.0) == 1.0 and tst.nbinom.pmf(-1.0, 5.0, 0.3) == 0.0
    assert tst.geom.pmf(0.0, 0.3) == 0.0 and tst.geom.pmf(1.0, 1.0) == 1.0
    assert tst.geom.cdf(0.9, 0.3) == 0.0 and tst.geom.ppf(0.0, 0.3) == 0.0
    assert tst.geom.ppf(1.0, 0.3) == inf and tst.geom.ppf(1e-300, 1.0) == 1.0  # (SciPy: 0)
    assert tst.betabinom.pmf(0.0, 0.0, 1.0, 1.0) == 1.0
    assert tst.bernoulli.ppf(0.0, 0.3) == -1.0  # SciPy's convention (JAX gives 0)
    assert tst.uniform.ppf(1.0, 1.0, 2.0) == 3.0 and np.isnan(tst.uniform.ppf(1.5))
    assert tst.cauchy.logcdf(-inf) == -inf and tst.cauchy.logsf(inf) == -inf
    assert tst.cauchy.logcdf(inf) == 0.0 and tst.cauchy.isf(0.5, 1.0, 2.0) == 1.0


@pytest.mark.parametrize("name, call", [
    ("pareto.logpdf", lambda m: m.pareto.logpdf(2.0, -1.0)),
    ("pareto.ppf", lambda m: m.pareto.ppf(0.3, 0.0)),
    ("gumbel_r.cdf", lambda m: m.gumbel_r.cdf(0.3, 0.0, -1.0)),
    ("gumbel_l.logsf", lambda m: m.gumbel_l.logsf(0.3, 0.0, 0.0)),
    ("truncnorm.logpdf", lambda m: m.truncnorm.logpdf(0.3, 1.0, 1.0)),
    ("truncnorm.cdf", lambda m: m.truncnorm.cdf(0.3, 2.0, 1.0)),
    ("truncnorm.ppf", lambda m: m.truncnorm.ppf(0.3, 0.0, 1.0, 0.0, -1.0)),
    ("gennorm.logpdf", lambda m: m.gennorm.logpdf(0.3, 0.0)),
    ("vonmises.logpdf", lambda m: m.vonmises.logpdf(0.3, -1.0)),
    ("wrapcauchy.logpdf", lambda m: m.wrapcauchy.logpdf(0.3, 1.0)),
    ("wrapcauchy.pdf", lambda m: m.wrapcauchy.pdf(0.3, 0.0)),
    ("binom.logpmf", lambda m: m.binom.logpmf(2.0, 5.5, 0.3)),
    ("binom.pmf", lambda m: m.binom.pmf(2.0, 5.0, 1.2)),
    ("binom.pmf-n", lambda m: m.binom.pmf(2.0, -1.0, 0.3)),
    ("nbinom.logpmf", lambda m: m.nbinom.logpmf(2.0, 0.0, 0.3)),
    ("nbinom.pmf", lambda m: m.nbinom.pmf(2.0, 5.0, 0.0)),
    ("geom.logpmf", lambda m: m.geom.logpmf(2.0, 0.0)),
    ("geom.cdf", lambda m: m.geom.cdf(2.0, 1.3)),
    ("geom.ppf", lambda m: m.geom.ppf(0.5, -0.1)),
    ("betabinom.logpmf", lambda m: m.betabinom.logpmf(2.0, 5.0, -1.0, 2.0)),
    ("betabinom.pmf", lambda m: m.betabinom.pmf(2.0, 5.5, 1.0, 2.0)),
    ("bernoulli.cdf", lambda m: m.bernoulli.cdf(0.5, 1.3)),
    ("bernoulli.ppf", lambda m: m.bernoulli.ppf(0.5, -0.3)),
    ("uniform.ppf", lambda m: m.uniform.ppf(0.5, 0.0, -1.0)),
    ("cauchy.logcdf", lambda m: m.cauchy.logcdf(0.5, 0.0, -1.0)),
    ("cauchy.isf", lambda m: m.cauchy.isf(0.5, 0.0, 0.0)),
])
def test_invalid_parameters_give_nan_as_scipy(name, call):
    with np.errstate(all="ignore"):
        assert np.isnan(call(ss)), name
        assert np.isnan(call(tst)), name


def test_multinomial_against_scipy():
    p = np.array([0.2, 0.3, 0.5])
    x = np.array([[1.0, 2.0, 1.0], [0.0, 0.0, 4.0], [4.0, 0.0, 0.0], [2.0, 2.0, 0.0]])
    np.testing.assert_allclose(tst.multinomial.logpmf(x, 4.0, p), ss.multinomial.logpmf(x, 4, p),
                               rtol=1e-14)
    np.testing.assert_allclose(tst.multinomial.pmf(x[0], 4.0, p), ss.multinomial.pmf(x[0], 4, p),
                               rtol=1e-14)
    big = np.array([10.0, 25.0, 15.0])
    np.testing.assert_allclose(tst.multinomial.logpmf(big, 50.0, p),
                               ss.multinomial.logpmf(big, 50, p), rtol=1e-13)
    assert tst.multinomial.pmf(np.array([1.0, 2.0, 1.0]), 5.0, p) == 0.0  # sum != n
    assert tst.multinomial.pmf(np.array([1.0, 2.5, 0.5]), 4.0, p) == 0.0  # not integers
    assert tst.multinomial.pmf(np.array([0.0, 0.0, 2.0]), 2.0, np.array([0.5, 0.5, 0.0])) == 0.0
    assert tst.multinomial.pmf(np.array([1.0, 1.0, 0.0]), 2.0, np.array([0.5, 0.5, 0.0])) == 0.5
    assert np.isnan(tst.multinomial.logpmf(x[0], 4.5, p))
    assert np.isnan(tst.multinomial.logpmf(x[0], 4.0, np.array([1.2, -0.2, 0.0])))
    with pytest.raises(ValueError, match="multinomial"):
        tst.multinomial.logpmf(x, 4.0, p[:2])


def _pos(shape, lo=0.5, hi=2.0, seed=1):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


_K = np.array([0.0, 2.0, 5.0])
GRADS = [
    ("pareto.logpdf", tst.pareto.logpdf, (_pos(3, 2.5, 4), _pos(3, 1, 3), 0.1, _pos(3, 0.8, 1.2))),
    ("pareto.cdf", tst.pareto.cdf, (_pos(3, 2.5, 4), _pos(3, 1, 3), 0.1, 1.2)),
    ("pareto.logcdf", tst.pareto.logcdf, (np.array([1.5, 2.5, 40.0]), 1.7, 0.1, 1.2)),
    ("pareto.logsf", tst.pareto.logsf, (_pos(3, 2.5, 4), _pos(3, 1, 3), 0.1, 1.2)),
    ("pareto.ppf", tst.pareto.ppf, (_pos(3, 0.1, 0.9), _pos(3, 1, 3), 0.1, 1.2)),
    ("gumbel_r.logpdf", tst.gumbel_r.logpdf, (_pos(3, -2, 3), 0.3, _pos(3))),
    ("gumbel_r.logcdf", tst.gumbel_r.logcdf, (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_r.logsf", tst.gumbel_r.logsf, (np.array([-2.0, 0.1, 0.6, 9.0]), 0.3, 1.3)),
    ("gumbel_r.sf", tst.gumbel_r.sf, (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_r.ppf", tst.gumbel_r.ppf, (_pos(3, 0.1, 0.9), 0.3, 1.3)),
    ("gumbel_l.logpdf", tst.gumbel_l.logpdf, (_pos(3, -2, 3), 0.3, _pos(3))),
    ("gumbel_l.logcdf", tst.gumbel_l.logcdf, (np.array([-9.0, -0.5, 0.1, 2.0]), 0.3, 1.3)),
    ("gumbel_l.cdf", tst.gumbel_l.cdf, (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_l.ppf", tst.gumbel_l.ppf, (_pos(3, 0.1, 0.9), 0.3, 1.3)),
    ("truncnorm.logpdf", tst.truncnorm.logpdf,
     (_pos(3, -0.5, 1.5), np.array([-1.0, -2.0, -0.8]), np.array([2.0, 1.5, 3.0]), 0.2, _pos(3))),
    ("truncnorm.logpdf-upper", tst.truncnorm.logpdf,
     (np.array([5.5, 6.4]), 4.0, 5.5, 0.2, 1.2)),
    ("truncnorm.logpdf-lower", tst.truncnorm.logpdf,
     (np.array([-5.5, -6.8]), -6.0, -4.5, 0.2, 1.2)),
    ("truncnorm.logcdf", tst.truncnorm.logcdf,
     (np.array([-0.5, 0.3, 1.8]), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.logsf", tst.truncnorm.logsf,
     (np.array([-0.5, 0.3, 1.8]), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.cdf-tail", tst.truncnorm.cdf, (np.array([5.0, 5.6]), 4.0, 5.5, 0.2, 1.0)),
    ("truncnorm.sf", tst.truncnorm.sf, (np.array([-0.5, 0.3, 1.8]), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.ppf", tst.truncnorm.ppf, (_pos(3, 0.1, 0.9), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.ppf-upper", tst.truncnorm.ppf, (_pos(3, 0.1, 0.9), 3.0, 5.0, 0.2, 1.1)),
    ("gennorm.logpdf", tst.gennorm.logpdf, (np.array([-1.3, 0.4, 2.0]), _pos(3, 1.2, 3), 0.1, 1.2)),
    ("vonmises.logpdf", tst.vonmises.logpdf,
     (_pos(4, -3, 3), np.array([0.3, 5.0, 19.0, 25.0]), 0.2, 1.3)),
    ("wrapcauchy.logpdf", tst.wrapcauchy.logpdf, (_pos(3, 0.5, 5.5), _pos(3, 0.1, 0.9), 0.1, 1.0)),
    # (n only on the integers: no finite difference in it)
    ("binom.logpmf", lambda p: tst.binom.logpmf(_K, np.array([5.0, 8.0, 9.0]), p),
     (_pos(3, 0.2, 0.8),)),
    ("nbinom.logpmf", lambda n, p: tst.nbinom.logpmf(_K, n, p), (_pos(3, 1, 5), _pos(3, 0.2, 0.8))),
    ("geom.logpmf", lambda p: tst.geom.logpmf(_K + 1, p), (_pos(3, 0.2, 0.8),)),
    ("geom.logcdf", lambda p: tst.geom.logcdf(_K + 1, p), (_pos(3, 0.2, 0.8),)),
    ("geom.sf", lambda p: tst.geom.sf(_K + 1, p), (_pos(3, 0.2, 0.8),)),
    ("betabinom.logpmf", lambda a, b: tst.betabinom.logpmf(_K, 6.0, a, b),
     (_pos(3, 0.5, 3), _pos(3, 0.5, 3))),
    ("multinomial.logpmf", lambda p: tst.multinomial.logpmf(np.array([1.0, 2.0, 1.0]), 4.0, p),
     (np.array([0.2, 0.3, 0.5]),)),
    ("bernoulli.cdf", lambda p: tst.bernoulli.cdf(np.array([0.0, 0.5, 1.0]), p), (_pos(3, .2, .8),)),
    ("uniform.ppf", tst.uniform.ppf, (_pos(3, 0.1, 0.9), -0.5, _pos(3, 1.5, 2))),
    ("cauchy.logcdf", tst.cauchy.logcdf, (np.array([-30.0, -1.0, 0.5, 4.0]), 0.3, 1.3)),
    ("cauchy.logsf", tst.cauchy.logsf, (np.array([-4.0, -1.0, 0.5, 30.0]), 0.3, 1.3)),
    ("cauchy.isf", tst.cauchy.isf, (_pos(3, 0.25, 0.75), 0.3, 1.3)),
]


@pytest.mark.parametrize("name, f, args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads_second_order(name, f, args):
    args = tuple(np.asarray(a, np.float64) for a in args)
    check_grads(f, args, order=2, modes=("fwd", "rev"))


# (name, tracegrad function, jax function name, args): the first derivative of the
# sum in every float argument, and a second derivative in the first one.
JAX_GRADS = [
    ("pareto.logpdf", (_pos(3, 2.5, 4), _pos(3, 1, 3), 0.1, 1.2)),
    ("pareto.logcdf", (_pos(3, 2.5, 4), _pos(3, 1, 3), 0.1, 1.2)),
    ("pareto.logsf", (_pos(3, 2.5, 4), _pos(3, 1, 3), 0.1, 1.2)),
    ("pareto.ppf", (_pos(3, 0.1, 0.9), _pos(3, 1, 3), 0.1, 1.2)),
    ("gumbel_r.logpdf", (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_r.logsf", (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_r.ppf", (_pos(3, 0.1, 0.9), 0.3, 1.3)),
    ("gumbel_l.logpdf", (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_l.logcdf", (_pos(3, -2, 3), 0.3, 1.3)),
    ("gumbel_l.ppf", (_pos(3, 0.1, 0.9), 0.3, 1.3)),
    ("truncnorm.logpdf", (_pos(3, -0.5, 1.5), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.logcdf", (_pos(3, -0.5, 1.5), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.logsf", (_pos(3, -0.5, 1.5), -1.0, 2.0, 0.2, 1.1)),
    ("truncnorm.cdf", (_pos(3, 4.0, 5.0), 3.0, 5.5, 0.2, 1.0)),
    ("gennorm.logpdf", (np.array([-1.3, 0.4, 2.0]), _pos(3, 1.2, 3))),
    ("vonmises.logpdf", (_pos(3, -3, 3), np.array([0.3, 5.0, 25.0]))),
    ("wrapcauchy.logpdf", (_pos(3, 0.5, 5.5), _pos(3, 0.1, 0.9))),
    ("binom.logpmf", (_K, np.array([5.0, 8.0, 9.0]), _pos(3, 0.2, 0.8))),
    ("nbinom.logpmf", (_K, _pos(3, 1, 5), _pos(3, 0.2, 0.8))),
    ("geom.logpmf", (_K + 1, _pos(3, 0.2, 0.8))),
    ("betabinom.logpmf", (_K, 6.0, _pos(3, 0.5, 3), _pos(3, 0.5, 3))),
    ("multinomial.logpmf", (np.array([1.0, 2.0, 1.0]), 4.0, np.array([0.2, 0.3, 0.5]))),
    ("uniform.ppf", (_pos(3, 0.1, 0.9), -0.5, 1.7)),
    ("cauchy.logcdf", (np.array([-30.0, -1.0, 0.5, 4.0]), 0.3, 1.3)),
    ("cauchy.logsf", (np.array([-4.0, -1.0, 0.5, 30.0]), 0.3, 1.3)),
    ("cauchy.isf", (_pos(3, 0.25, 0.75), 0.3, 1.3)),
]


@pytest.mark.parametrize("name, args", JAX_GRADS, ids=[g[0] for g in JAX_GRADS])
def test_derivatives_match_jax(name, args):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp  # lazy: jax is an optional oracle
    import jax.scipy.stats as jst  # lazy: jax is an optional oracle

    dist, method = name.split(".")
    ours, theirs = getattr(getattr(tst, dist), method), getattr(getattr(jst, dist), method)
    args = tuple(np.asarray(a, np.float64) for a in args)
    if dist == "multinomial":  # JAX takes integer counts and trials only
        theirs = (lambda f: lambda x, n, p: f(np.asarray(x, np.int64), np.int64(n), p))(theirs)
    np.testing.assert_allclose(ours(*args), theirs(*args), rtol=1e-12, err_msg=name)
    for i in range(len(args)):
        if name.startswith(("binom", "betabinom", "multinomial")) and i < 2:
            continue  # counts and trials: JAX does not differentiate them the same way
        g = tg.grad(lambda *a: tnp.sum(ours(*a)), argnums=i)(*args)
        try:
            gj = jax.grad(lambda *a: jnp.sum(theirs(*a)), argnums=i)(*args)
        except TypeError as err:  # JAX 0.x: gumbel_r/l lack some rules (a float0 leaks)
            assert "float0" in str(err) and dist.startswith("gumbel"), err
            continue
        np.testing.assert_allclose(g, gj, rtol=1e-10, atol=1e-12, err_msg=f"{name} d/darg{i}")
    if name.startswith(("binom", "nbinom", "geom", "betabinom", "multinomial")):
        return  # the first argument is a count
    h = tg.grad(lambda a: tnp.sum(tg.grad(lambda b: tnp.sum(ours(b, *args[1:])))(a)))(args[0])
    try:
        hj = jax.grad(lambda a: jnp.sum(jax.grad(lambda b: jnp.sum(theirs(b, *args[1:])))(a)))(
            args[0])
    except TypeError as err:  # (the same missing gumbel rules)
        assert "float0" in str(err) and dist.startswith("gumbel"), err
        return
    np.testing.assert_allclose(h, hj, rtol=1e-10, atol=1e-12, err_msg=f"{name} d2")


def test_jit_and_vmap_of_the_new_distributions():
    x = np.array([0.3, 1.2, 2.5])
    params = np.array([[0.5, 1.2], [0.1, 2.0]])

    def fit(pr):
        return tnp.sum(tst.truncnorm.logpdf(x, -1.0, 3.0, pr[0], pr[1])
                       + tst.gumbel_r.logcdf(x, pr[0], pr[1])
                       + tst.pareto.logsf(x + 2.0, 2.0, pr[0], pr[1])
                       + tst.vonmises.logpdf(x, pr[1], pr[0])
                       + tst.binom.logpmf(np.array([1.0, 2.0, 3.0]), 5.0, pr[1] / 3.0))

    g = tg.vmap(tg.grad(fit))(params)
    np.testing.assert_allclose(g[1], tg.grad(fit)(params[1]), rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tg.vmap(tg.grad(fit)))(params), g, rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tst.truncnorm.ppf)(np.array([0.2, 0.7]), 3.0, 5.0),
                               ss.truncnorm.ppf(np.array([0.2, 0.7]), 3.0, 5.0), rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tst.geom.ppf)(np.array([0.2, 0.7]), 0.3),
                               ss.geom.ppf(np.array([0.2, 0.7]), 0.3))


def test_float32_stays_float32():
    x = np.array([1.2, 1.5, 1.9], np.float32)
    f32 = np.float32
    for out in (tst.pareto.logpdf(x, f32(2.0)), tst.gumbel_r.logsf(x), tst.gumbel_l.ppf(x / 2),
                tst.truncnorm.logcdf(x, f32(-1.0), f32(2.0)), tst.gennorm.logpdf(x, f32(1.5)),
                tst.vonmises.logpdf(x, f32(2.0)), tst.wrapcauchy.logpdf(x, f32(0.3)),
                tst.binom.logpmf(np.array([1.0], np.float32), f32(3.0), f32(0.3)),
                tst.geom.cdf(x, f32(0.3)), tst.cauchy.logcdf(x), tst.uniform.ppf(x / 2)):
        assert out.dtype == np.float32


# --- gaussian_kde ------------------------------------------------------------------------

DATA1 = np.random.default_rng(5).normal(size=30)
DATA2 = np.random.default_rng(6).normal(size=(2, 40)) * np.array([[1.0], [0.5]])


@pytest.mark.parametrize("bw", [None, "scott", "silverman", 0.3, lambda k: 0.5 * k.scotts_factor()])
def test_gaussian_kde_against_scipy(bw):
    pts = np.linspace(-4, 4, 17)
    ours, theirs = tst.gaussian_kde(DATA1, bw), ss.gaussian_kde(DATA1, bw)
    np.testing.assert_allclose(ours.logpdf(pts), theirs.logpdf(pts), rtol=1e-13)
    np.testing.assert_allclose(ours(pts), theirs(pts), rtol=1e-13)
    np.testing.assert_allclose(ours.factor, theirs.factor, rtol=1e-14)
    np.testing.assert_allclose(ours.covariance, theirs.covariance, rtol=1e-13)
    np.testing.assert_allclose(ours.integrate_box_1d(-1.0, 0.5), theirs.integrate_box_1d(-1.0, 0.5),
                               rtol=1e-13)
    np.testing.assert_allclose(ours.logpdf(60.0), theirs.logpdf(60.0), rtol=1e-13)  # far tail


def test_gaussian_kde_weighted_and_multivariate_against_scipy():
    w = np.random.default_rng(7).uniform(size=40)
    p2 = np.random.default_rng(8).normal(size=(2, 6))
    for bw in (None, "silverman", 0.4):
        ours, theirs = tst.gaussian_kde(DATA2, bw, w), ss.gaussian_kde(DATA2, bw, w)
        np.testing.assert_allclose(ours.evaluate(p2), theirs.evaluate(p2), rtol=1e-13)
        np.testing.assert_allclose(ours.pdf(p2[:, 0]), theirs.pdf(p2[:, 0]), rtol=1e-13)
        np.testing.assert_allclose(ours.neff, theirs.neff, rtol=1e-14)
    assert tst.gaussian_kde(DATA2).d == 2 and tst.gaussian_kde(DATA2).n == 40
    with pytest.raises(ValueError, match="weights"):
        tst.gaussian_kde(DATA1, weights=np.ones(3))
    with pytest.raises(ValueError, match="bw_method"):
        tst.gaussian_kde(DATA1, "wide")
    with pytest.raises(ValueError, match="dimension"):
        tst.gaussian_kde(DATA2).logpdf(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="one-dimensional"):
        tst.gaussian_kde(DATA2).integrate_box_1d(0.0, 1.0)


def test_gaussian_kde_derivatives_jit_vmap():
    pts = np.array([-0.7, 0.2, 1.4])

    def f(data, points, w):
        return tst.gaussian_kde(data, weights=w).logpdf(points)

    w = np.random.default_rng(9).uniform(0.5, 1.5, 30)
    check_grads(f, (DATA1[:30], pts, w), order=2, modes=("fwd", "rev"))
    check_grads(lambda d, bw: tst.gaussian_kde(d, bw).integrate_box_1d(-0.5, 1.0),
                (DATA1[:12], np.float64(0.4)), order=2, modes=("fwd", "rev"))
    check_grads(lambda d, p: tst.gaussian_kde(d).logpdf(p), (DATA2[:, :10], DATA2[:, :3] + 0.1),
                order=2, modes=("fwd", "rev"))
    g = tg.grad(lambda d: tnp.sum(f(d, pts, w)))(DATA1)
    np.testing.assert_allclose(tg.jit(tg.grad(lambda d: tnp.sum(f(d, pts, w))))(DATA1), g,
                               rtol=1e-12)
    batch = np.stack([DATA1, DATA1 * 1.3])
    out = tg.vmap(lambda d: f(d, pts, w))(batch)
    np.testing.assert_allclose(out[1], f(batch[1], pts, w), rtol=1e-13)


def test_gaussian_kde_matches_jax_derivatives():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp  # lazy: jax is an optional oracle
    import jax.scipy.stats as jst  # lazy: jax is an optional oracle

    pts = np.array([-0.7, 0.2, 1.4])
    g = tg.grad(lambda d: tnp.sum(tst.gaussian_kde(d).logpdf(pts)))(DATA1)
    gj = jax.grad(lambda d: jnp.sum(jst.gaussian_kde(d).logpdf(pts)))(DATA1)
    np.testing.assert_allclose(g, gj, rtol=1e-10, atol=1e-13)


# --- sem, rankdata, mode -------------------------------------------------------------------

A = np.array([[3.0, 1.0, 2.0, 2.0], [5.0, 5.0, 5.0, 1.0], [0.5, 2.0, 2.0, 0.5]])


def test_sem_against_scipy_and_derivatives():
    for axis in (0, 1, None):
        for ddof in (0, 1, 2):
            np.testing.assert_allclose(tst.sem(A, axis=axis, ddof=ddof),
                                       ss.sem(A, axis=axis, ddof=ddof), rtol=1e-14)
    np.testing.assert_allclose(tst.sem(A, axis=1, keepdims=True),
                               ss.sem(A, axis=1, keepdims=True), rtol=1e-14)
    assert np.isnan(tst.sem(np.array([1.0]))) and np.isnan(tst.sem(np.array([1.0, np.nan])))
    check_grads(lambda a: tst.sem(a, axis=1), (A,), order=2, modes=("fwd", "rev"))
    with pytest.raises(NotImplementedError, match="nan_policy"):
        tst.sem(A, nan_policy="omit")


@pytest.mark.parametrize("method", ["average", "min", "max", "dense", "ordinal"])
def test_rankdata_against_scipy(method):
    rng = np.random.default_rng(10)
    ties = rng.integers(0, 5, size=(4, 7)).astype(np.float64)
    for a, axis in ((ties, None), (ties, 0), (ties, 1), (ties.astype(np.int64), -1),
                    (rng.normal(size=9), None)):
        got, want = tst.rankdata(a, method, axis=axis), ss.rankdata(a, method, axis=axis)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(tg.jit(lambda v: tst.rankdata(v, method, axis=axis))(a),
                                      want)
    with_nan = np.array([[1.0, np.nan, 2.0], [3.0, 1.0, 1.0]])
    got, want = tst.rankdata(with_nan, method, axis=1), ss.rankdata(with_nan, method, axis=1)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.all(tg.grad(lambda v: tnp.sum(tst.rankdata(v, "average") * v))(ties[0])
                  == tst.rankdata(ties[0], "average"))  # ranks are constants


def test_rankdata_errors():
    with pytest.raises(ValueError, match="method"):
        tst.rankdata([1.0, 2.0], "first")
    with pytest.raises(NotImplementedError, match="nan_policy"):
        tst.rankdata([1.0, 2.0], nan_policy="omit")


def test_mode_against_scipy():
    for a, axis in ((A, 0), (A, 1), (A, None), (A.astype(np.int64), 0),
                    (np.array([1.0, 2.0, np.nan, np.nan, np.nan]), 0),
                    (np.array([2.0, 2.0, 1.0, 1.0]), 0), (np.array(4.0), 0)):
        got, want = tst.mode(a, axis=axis), ss.mode(a, axis=axis)
        np.testing.assert_array_equal(got.mode, want.mode)
        np.testing.assert_array_equal(got.count, want.count)
        assert np.shape(got.mode) == np.shape(want.mode)
        assert got.mode.dtype == np.asarray(want.mode).dtype
    kept = tst.mode(A, axis=1, keepdims=True)
    np.testing.assert_array_equal(kept.mode, ss.mode(A, axis=1, keepdims=True).mode)
    jitted = tg.jit(lambda v: tst.mode(v, axis=1))(A)
    np.testing.assert_array_equal(jitted.mode, ss.mode(A, axis=1).mode)
    g = tg.grad(lambda v: tnp.sum(tst.mode(v, axis=0).mode))(A)
    np.testing.assert_array_equal(g.sum(axis=0), np.ones(4))  # one chosen element per column
    with pytest.raises(ValueError, match="empty"):
        tst.mode(np.zeros((0, 3)))


def test_mode_and_sem_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.stats as jst  # lazy: jax is an optional oracle

    for axis in (0, 1):
        got, want = tst.mode(A, axis=axis), jst.mode(A, axis=axis)
        np.testing.assert_array_equal(got.mode, want.mode)
        np.testing.assert_array_equal(got.count, want.count)
    g = tg.grad(lambda a: tnp.sum(tst.sem(a, axis=1)))(A)
    gj = jax.grad(lambda a: jax.numpy.sum(jst.sem(a, axis=1)))(A)
    np.testing.assert_allclose(g, gj, rtol=1e-12)


def test_gennorm_cdf_sf_against_scipy_and_edges():
    ss = pytest.importorskip("scipy.stats")
    x = np.array([-np.inf, -30.0, -3.0, -0.5, 0.2, 0.4, 2.0, 30.0, np.inf])
    for b in (0.5, 1.0, 2.0, 3.5):
        np.testing.assert_allclose(tst.gennorm.cdf(x, b, loc=0.2, scale=1.5),
                                   ss.gennorm.cdf(x, b, loc=0.2, scale=1.5), rtol=1e-13)
        np.testing.assert_allclose(tst.gennorm.sf(x, b, loc=0.2, scale=1.5),
                                   ss.gennorm.sf(x, b, loc=0.2, scale=1.5), rtol=1e-13)
    assert tst.gennorm.cdf(0.2, 1.5, loc=0.2) == 0.5
    assert tst.gennorm.cdf(-np.inf, 1.5) == 0.0 and tst.gennorm.cdf(np.inf, 1.5) == 1.0
    check_grads(lambda x, loc, scale: tst.gennorm.cdf(x, 1.7, loc, scale),
                (np.array([-1.3, 0.4, 2.0]), 0.1, 1.3), order=2, modes=("fwd", "rev"))
    with pytest.raises(NotImplementedError, match="shape parameter"):
        tg.grad(lambda b: tst.gennorm.cdf(0.7, b))(1.5)


def test_poisson_entropy_against_mpmath_values_and_scipy():
    ss = pytest.importorskip("scipy.stats")
    mu = np.array([0.0, 1e-3, 0.5, 3.0, 40.0])
    np.testing.assert_allclose(tst.poisson.entropy(mu), ss.poisson.entropy(mu), rtol=1e-14)
    # (SciPy's own sum stops converging near mu = 1e3; mpmath at 30 digits instead:
    # the sum over k, and at 3e5 the asymptotic series, whose remainder is ~1e-23)
    np.testing.assert_allclose(tst.poisson.entropy(np.array([999.0, 1e4, 3e5])),
                               [4.872232463975691, 6.024100385442711, 7.724707132245601],
                               rtol=1e-12)
    assert np.isnan(tst.poisson.entropy(-1.0))
    check_grads(lambda m: tst.poisson.entropy(m), (np.array([0.5, 3.0, 40.0, 2e3]),), order=2,
                modes=("fwd", "rev"))
    with pytest.raises(TypeError, match="outside jit"):
        tg.jit(tst.poisson.entropy)(3.0)

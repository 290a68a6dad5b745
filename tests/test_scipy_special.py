"""``tracegrad.scipy.special``: values against SciPy (and mpmath where SciPy
is itself inaccurate), edge values, derivatives to second order, jit, vmap
and float32.

Accuracy is measured in ulp (``|got - want| / spacing(|want|)``) over many
points per range, tails included.  The bound is 4 ulp where both SciPy and
tracegrad are that accurate; a range with a looser bound says why next to
it (an ill-conditioned function near its zeros, where neither can be
accurate relative to a tiny value, or a range where SciPy's own error is
larger than ours, which mpmath then checks instead).
"""
import math
import os
import sys

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.scipy.special as tsp
from tracegrad.test_util import check_grads

sp = pytest.importorskip("scipy.special")


def _ulps(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    both_inf = (got == want)
    err = np.abs(got - want) / np.spacing(np.abs(want))
    return np.where(both_inf, 0.0, err)


def _assert_ulps(got, want, max_ulp, what, atol=0.0):
    err = _ulps(got, want)
    ok = (err <= max_ulp) | (np.abs(np.asarray(got) - want) <= atol)
    if not ok.all():
        i = int(np.argmax(np.where(ok, 0, err)))
        raise AssertionError(f"{what}: {np.count_nonzero(~ok)} points beyond {max_ulp} ulp; "
                             f"worst {err.flat[i]:.0f} ulp: got {np.asarray(got).flat[i]!r}, "
                             f"want {np.asarray(want).flat[i]!r}")


def _points(lo, hi, n=300, log=False, seed=0):
    """``n`` points in ``[lo, hi]``, uniform, or log-uniform in ``|x|`` (one sign)."""
    rng = np.random.default_rng(seed)
    if log:
        e1, e2 = sorted((np.log10(abs(lo)), np.log10(abs(hi))))
        return np.sign(lo) * 10.0 ** rng.uniform(e1, e2, n)
    return rng.uniform(lo, hi, n)


# --------------------------------------------------------------------------
# values against SciPy: (function, SciPy's, range, max ulp)

# ranges where SciPy itself is within a few ulp of the exact value (checked
# against mpmath when this table was made); the max ulp is ours against
# SciPy's, so it can be a little above either one's own error (each bound
# holds on 15,000 points of five other seeds too, not just these 300)
UNARY = [
    ("erf", (-6, 6), 2),
    ("erfc", (-6, 1), 10),      # SciPy's erfc is 7 ulp off near 1 (ours: 1, mpmath below)
    ("erfcx", (25, 1e10), 4),
    ("erfcx", (0, 25), 8),      # SciPy's erfcx is ~6 ulp off near 0 (ours: 3)
    ("erfinv", (-0.999, 0.999), 1),
    ("erfcinv", (1e-300, 2.0), 4),
    ("loggamma", (2.5, 1e300), 2),  # (below, SciPy's loggamma is 4 ulp off near 1 and 2; ours is gammaln)
    ("gammasgn", (-30, 30), 0),
    ("ndtr", (-1, 8), 4),       # (below -1 SciPy's erfc branch is up to 9 ulp off: mpmath below)
    ("log_ndtr", (-1e5, -1), 4),
    ("log_ndtr", (-1, 0), 4),
    ("log_ndtr", (0, 1), 6),    # SciPy's is 4 ulp off here, 34 by x = 5 (ours: 2; mpmath below)
    ("ndtri", (1e-300, 0.01), 4),
    ("ndtri", (0.01, 0.99), 6),     # each within 2-3 ulp of mpmath, at times on opposite sides
    ("ndtri", (0.99, 1 - 1e-16), 4),
    ("gammaln", (1e-300, 0.5), 2),
    ("gammaln", (2.5, 1e300), 2),
    ("gamma", (1e-8, 171.6), 8),    # each within 4-5 ulp of mpmath, at times on opposite sides
    ("gamma", (-30, -1e-3), 8),    # ~4-5 ulp each (the reflection), measured against mpmath
    ("digamma", (1e-8, 1), 4),
    ("digamma", (1, 10), 4),
    ("digamma", (10, 1e300), 2),
    ("expit", (-700, 700), 3),      # 1/(1+exp(-x)) against exp(-|x|)/(1+exp(-|x|)): each <= 2
    ("log_expit", (-700, 700), 2),
    ("logit", (1e-300, 1), 2),
    ("entr", (1e-300, 1e300), 2),
]


@pytest.mark.parametrize("name, rng, max_ulp", UNARY,
                         ids=[f"{n}-{r[0]}..{r[1]}" for n, r, _ in UNARY])
def test_unary_values_against_scipy(name, rng, max_ulp):
    lo, hi = rng
    log = lo * hi > 0 and max(abs(lo), abs(hi)) / min(abs(lo), abs(hi)) > 1e4
    x = _points(lo, hi, log=log)
    _assert_ulps(getattr(tsp, name)(x), getattr(sp, name)(x), max_ulp, name)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_values_against_scipy(n):
    for lo, hi in [(1e-6, 1), (1, 10), (10, 1e6)]:
        x = _points(lo, hi, log=hi / lo > 1e4)
        _assert_ulps(tsp.polygamma(n, x), sp.polygamma(n, x), 6, f"polygamma({n}) {lo}..{hi}")
    # negative x: ill-conditioned between the poles (the sum's terms alternate
    # in sign for even n), so a relative tolerance there
    x = _points(-10, -0.01, seed=n)
    np.testing.assert_allclose(tsp.polygamma(n, x), sp.polygamma(n, x), rtol=1e-13)


def test_ill_conditioned_ranges_against_scipy():
    """Near the zeros of gammaln (x = 1, 2), of digamma on the negative axis,
    and of betaln, the value is a small difference of order-one terms: both
    SciPy and the C library lose relative accuracy there (SciPy's gammaln
    is thousands of ulp off next to 2), so the check is absolute, at the
    size of the rounding of those terms."""
    x = _points(0.5, 2.5, n=500)
    np.testing.assert_allclose(tsp.gammaln(x), sp.gammaln(x), rtol=0, atol=4e-16)
    x = _points(-30, -1e-3)
    np.testing.assert_allclose(tsp.gammaln(x), sp.gammaln(x), rtol=1e-13, atol=4e-16)
    x = -_points(0.01, 30)
    # psi(1 - x) - pi / tan(pi x): terms up to ~|x| cancel near psi's negative roots
    err = np.abs(tsp.digamma(x) - sp.digamma(x))
    assert np.all(err <= 1e-13 * np.abs(sp.digamma(x)) + 8e-16 * np.abs(x)), err.max()
    a, b = _points(0.01, 10), _points(0.01, 10, seed=1)
    np.testing.assert_allclose(tsp.betaln(a, b), sp.betaln(a, b), rtol=0, atol=2e-14)


def test_betaln_large_arguments_against_mpmath():
    """For ``max(a, b) >= 10`` SciPy's betaln loses up to 7 digits (the
    lgamma terms cancel); mpmath at 40 digits is the reference there."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    a = _points(10, 1e12, n=150, log=True)
    b = np.concatenate([_points(0.01, 10, n=75, seed=2), _points(10, 1e6, n=75, log=True, seed=3)])
    want = np.array([float(mp.log(mp.beta(mp.mpf(x), mp.mpf(y)))) for x, y in zip(a, b)])
    _assert_ulps(tsp.betaln(a, b), want, 4, "betaln")
    _assert_ulps(tsp.betaln(b, a), want, 4, "betaln (swapped)")


def test_tails_against_mpmath():
    """Ranges where SciPy's own error exceeds ours: the erfc tail (SciPy
    squares a rounded x: 24 ulp at 5.7, worse near underflow), erfcx below
    0, log_ndtr for x > 3 (through that erfc), and digamma/gammaln next to
    their roots, where SciPy is 2 and ~4000 ulp off."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    cases = [
        (tsp.erfc, mp.erfc, _points(1, 26.5, n=150), 2),
        (tsp.erfcx, lambda v: mp.exp(v * v) * mp.erfc(v), _points(-26, 0, n=150), 3),
        (tsp.log_ndtr, lambda v: mp.log1p(-mp.ncdf(-v)), _points(0, 37, n=150), 3),
        (tsp.ndtr, mp.ncdf, _points(-38, -1, n=150), 3),
        (tsp.digamma, mp.digamma, _points(1, 2, n=150), 2),
        (tsp.gammaln, lambda v: mp.loggamma(v).real, _points(0.5, 2.5, n=150), 2),
    ]
    for fn, ref, x, max_ulp in cases:
        want = np.array([float(ref(mp.mpf(v))) for v in x])
        _assert_ulps(fn(x), want, max_ulp, fn.__name__)


def test_binary_values_against_scipy():
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(0, 10, 200), np.zeros(5), rng.uniform(-3, 0, 20)])
    y = np.concatenate([rng.uniform(1e-3, 10, 200), [0.0, 2.0, np.inf, -1.0, 3.0],
                        rng.uniform(-0.5, 4, 20)])
    for name in ("xlogy", "xlog1py", "rel_entr", "kl_div"):
        got, want = getattr(tsp, name)(x, y), getattr(sp, name)(x, y)
        # the value is a product or a sum of rounded products: a few ulp, or an
        # absolute error at the size of the summands (kl_div's x log(x/y) - x + y)
        np.testing.assert_allclose(got, want, rtol=4e-16 * 4, atol=4e-15, err_msg=name)
    a, b = rng.uniform(0.05, 20, 300), rng.uniform(0.05, 20, 300)
    # beta = exp(betaln): relative error about |betaln| eps (as SciPy's own
    # exp(lbeta) branch), with |betaln| below 60 here: ~1e-14 each
    np.testing.assert_allclose(tsp.beta(a, b), sp.beta(a, b), rtol=1e-13)
    np.testing.assert_allclose(tsp.beta(-0.5, np.array([1.0, 2.0, 0.3])),
                               sp.beta(-0.5, np.array([1.0, 2.0, 0.3])), rtol=1e-14)
    for d in (1, 2, 5):
        v = rng.uniform((d - 1) / 2 + 0.1, 50, 50)
        np.testing.assert_allclose(tsp.multigammaln(v, d), sp.multigammaln(v, d), rtol=1e-14)


def test_logsumexp_softmax_against_scipy():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4)) * 30
    b = rng.uniform(-1, 1, (3, 4))
    for kw in [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"b": np.abs(b)},
               {"axis": 1, "b": np.abs(b)}]:
        np.testing.assert_allclose(tsp.logsumexp(a, **kw), sp.logsumexp(a, **kw), rtol=1e-14)
    out, sign = tsp.logsumexp(a, axis=1, b=b, return_sign=True)
    want, want_sign = sp.logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(out, want, rtol=1e-13)
    np.testing.assert_array_equal(sign, want_sign)
    for axis in (None, 0, 1):
        np.testing.assert_allclose(tsp.softmax(a, axis=axis), sp.softmax(a, axis=axis), rtol=1e-13)
        # (atol: the largest entry's log-softmax is -3e-7, the rounding of a sum near 1)
        np.testing.assert_allclose(tsp.log_softmax(a, axis=axis), sp.log_softmax(a, axis=axis),
                                   rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(tsp.sinc(a), np.sinc(a), rtol=1e-14, atol=1e-16)


# --------------------------------------------------------------------------
# edge values (exact)

INF, NAN = np.inf, np.nan
EDGES = [
    ("gammaln", [0.0, -1.0, -2.0, INF, 1.0, 2.0, NAN], [INF, INF, INF, INF, 0.0, 0.0, NAN]),
    ("gamma", [0.0, -0.0, -1.0, INF, -INF, NAN], [INF, -INF, NAN, INF, NAN, NAN]),
    ("digamma", [0.0, -0.0, -1.0, -3.0, INF, -INF, NAN], [-INF, INF, NAN, NAN, INF, NAN, NAN]),
    ("erf", [INF, -INF, 0.0, NAN], [1.0, -1.0, 0.0, NAN]),
    ("erfc", [INF, -INF, 0.0, NAN], [0.0, 2.0, 1.0, NAN]),
    ("erfcx", [INF, -INF, -30.0, 0.0, NAN], [0.0, INF, INF, 1.0, NAN]),
    ("erfinv", [1.0, -1.0, 0.0, 1.5, NAN], [INF, -INF, 0.0, NAN, NAN]),
    ("erfcinv", [0.0, 1.0, 2.0, -0.1, 2.1, NAN], [INF, 0.0, -INF, NAN, NAN, NAN]),
    ("loggamma", [-1.5, 0.0, -0.0, INF, -INF, NAN, -2.0], [NAN, INF, INF, INF, NAN, NAN, NAN]),
    ("gammasgn", [-1.5, 0.0, -0.0, INF, -INF, NAN, -2.0, -0.5],
     [1.0, 1.0, -1.0, 1.0, NAN, NAN, NAN, -1.0]),
    ("ndtr", [INF, -INF, 0.0, NAN], [1.0, 0.0, 0.5, NAN]),
    ("log_ndtr", [INF, -INF, 0.0, NAN], [0.0, -INF, math.log(0.5), NAN]),
    ("ndtri", [0.0, 1.0, 0.5, -0.1, 1.1, NAN], [-INF, INF, 0.0, NAN, NAN, NAN]),
    ("logit", [0.0, 1.0, 0.5, -0.5, 2.0, NAN], [-INF, INF, 0.0, NAN, NAN, NAN]),
    ("expit", [INF, -INF, 0.0, NAN], [1.0, 0.0, 0.5, NAN]),
    ("log_expit", [INF, -INF, 0.0, NAN], [0.0, -INF, -math.log(2.0), NAN]),
    ("entr", [0.0, -1.0, 1.0, INF, NAN], [0.0, -INF, 0.0, -INF, NAN]),
]


@pytest.mark.parametrize("name, x, want", EDGES, ids=[e[0] for e in EDGES])
def test_edge_values(name, x, want):
    np.testing.assert_array_equal(getattr(tsp, name)(np.array(x)), np.array(want), err_msg=name)


def test_binary_edge_values():
    x = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0, NAN, -1.0])
    y = np.array([0.0, 2.0, -1.0, INF, NAN, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(tsp.xlogy(x, y), [0, 0, 0, 0, NAN, -INF, NAN, 0])
    np.testing.assert_array_equal(tsp.xlog1py(x, y - 1.0), [0, 0, 0, 0, NAN, -INF, NAN, 0])
    np.testing.assert_array_equal(tsp.rel_entr(x, y), [0, 0, INF, 0, NAN, INF, NAN, INF])
    np.testing.assert_array_equal(tsp.kl_div(x, y), [0, 2, INF, INF, NAN, INF, NAN, INF])
    # the poles of zeta(n + 1, x) times (-1)**(n+1) n!, as SciPy
    assert tsp.polygamma(1, 0.0) == INF and tsp.polygamma(2, -2.0) == -INF
    assert tsp.betaln(0.0, 1.0) == INF
    out, sign = tsp.logsumexp(np.array([1.0, 1.0]), b=np.array([1.0, -1.0]), return_sign=True)
    assert out == -INF and sign == 0


def test_argument_errors():
    with pytest.raises(TypeError, match="polygamma"):
        tsp.polygamma(1.5, 1.0)
    with pytest.raises(ValueError, match=">= 0"):
        tsp.polygamma(-1, 1.0)
    with pytest.raises(ValueError, match="multigammaln"):
        tsp.multigammaln(0.4, 2)
    with pytest.raises(TypeError, match="gammaln takes real arrays"):
        tsp.gammaln(np.array([1 + 1j]))


# --------------------------------------------------------------------------
# derivatives: check_grads, second order, both modes


def _pos(shape, lo=0.5, hi=3.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


GRADS = [
    ("erf", lambda x: tsp.erf(x), [_pos(3, -2, 2)]),
    ("erfc", lambda x: tsp.erfc(x), [_pos(3, -2, 2)]),
    ("erfcx", lambda x: tsp.erfcx(x), [np.array([-1.5, 0.3, 2.0, 30.0])]),
    ("erfinv", lambda x: tsp.erfinv(x), [_pos(3, -0.8, 0.8)]),
    ("erfcinv", lambda x: tsp.erfcinv(x), [_pos(3, 0.1, 1.9)]),
    ("loggamma", lambda x: tsp.loggamma(x), [np.array([0.3, 1.5, 4.0])]),
    ("ndtr", lambda x: tsp.ndtr(x), [np.array([-3.0, -0.4, 0.2, 2.5])]),
    ("log_ndtr", lambda x: tsp.log_ndtr(x), [np.array([-40.0, -3.0, -0.5, 0.5, 4.0])]),
    ("ndtri", lambda x: tsp.ndtri(x), [np.array([0.05, 0.2, 0.5, 0.8, 0.95])]),
    ("gammaln", lambda x: tsp.gammaln(x), [np.array([0.3, 1.5, 4.0, -1.5])]),
    ("gamma", lambda x: tsp.gamma(x), [np.array([0.3, 1.5, 4.0, -1.5])]),
    ("digamma", lambda x: tsp.digamma(x), [np.array([0.3, 1.5, 12.0, -1.5])]),
    ("polygamma", lambda x: tsp.polygamma(2, x), [np.array([0.7, 1.5, 12.0])]),
    ("betaln", lambda a, b: tsp.betaln(a, b), [_pos((2, 3)), _pos(3, 1, 20, seed=1)]),
    ("beta", lambda a, b: tsp.beta(a, b), [_pos((2, 3)), _pos(3, seed=1)]),
    ("multigammaln", lambda a: tsp.multigammaln(a, 3), [_pos(3, 1.5, 4)]),
    ("xlogy", lambda x, y: tsp.xlogy(x, y), [_pos(3, -1, 2), _pos(3)]),
    ("xlog1py", lambda x, y: tsp.xlog1py(x, y), [_pos(3, -1, 2), _pos(3, -0.5, 2)]),
    ("entr", lambda x: tsp.entr(x), [_pos(3)]),
    ("rel_entr", lambda x, y: tsp.rel_entr(x, y), [_pos(3), _pos(3, seed=1)]),
    ("kl_div", lambda x, y: tsp.kl_div(x, y), [_pos(3), _pos(3, seed=1)]),
    ("logit", lambda x: tsp.logit(x), [np.array([0.1, 0.4, 0.6, 0.9])]),
    ("expit", lambda x: tsp.expit(x), [_pos(3, -3, 3)]),
    ("log_expit", lambda x: tsp.log_expit(x), [_pos(3, -3, 3)]),
    ("logsumexp", lambda x, b: tsp.logsumexp(x, axis=1, b=b), [_pos((2, 3)), _pos((2, 3), seed=1)]),
    ("softmax", lambda x: tsp.softmax(x, axis=0), [_pos((2, 3))]),
    ("log_softmax", lambda x: tsp.log_softmax(x), [_pos((2, 3))]),
    ("sinc", lambda x: tsp.sinc(x), [_pos(3)]),
]


@pytest.mark.parametrize("name, f, args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads_second_order(name, f, args):
    check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_derivative_formulas():
    x = np.array([0.3, 1.5, 7.0])
    np.testing.assert_allclose(tg.vmap(tg.grad(tsp.gammaln))(x), sp.digamma(x), rtol=1e-14)
    np.testing.assert_allclose(tg.vmap(tg.grad(tsp.digamma))(x), sp.polygamma(1, x), rtol=1e-14)
    np.testing.assert_allclose(tg.vmap(tg.grad(tg.grad(tsp.digamma)))(x), sp.polygamma(2, x),
                               rtol=1e-14)
    # log_ndtr' = phi / Phi stays finite where Phi underflows
    g = tg.vmap(tg.grad(tsp.log_ndtr))(np.array([-50.0, -1e4, 10.0]))
    np.testing.assert_allclose(g, [50.0199, 1e4, 7.69459e-23], rtol=1e-4)


def test_grad_under_jit_and_vmap():
    def loss(x):
        return tg.numpy.sum(tsp.gammaln(x) + tsp.log_ndtr(x - 2.0) + tsp.xlogy(x, x)
                            + tsp.ndtri(x / 10.0))

    x = np.array([0.7, 1.5, 4.0])
    want = tg.grad(loss)(x)
    np.testing.assert_allclose(tg.jit(tg.grad(loss))(x), want, rtol=1e-12)
    np.testing.assert_allclose(tg.grad(tg.jit(loss))(x), want, rtol=1e-12)
    rows = np.stack([x, x + 1.0])
    got = tg.vmap(tg.grad(loss))(rows)
    np.testing.assert_allclose(got[1], tg.grad(loss)(x + 1.0), rtol=1e-12)
    np.testing.assert_allclose(got[0], want, rtol=1e-12)


def test_scipy_ufuncs_dispatch_on_tracers():
    """``scipy.special``'s own ufuncs called on tracers run tracegrad's version
    (``__array_ufunc__``), differentiably; without one the error names it.
    (SciPy's ``polygamma`` and ``logsumexp`` are Python functions converting
    their inputs with ``np.asarray``, so only the ufuncs can dispatch.)"""
    x = np.array([0.3, 1.5, 4.0])
    np.testing.assert_allclose(tg.grad(lambda v: tg.numpy.sum(sp.gammaln(v)))(x), sp.digamma(x),
                               rtol=1e-14)
    np.testing.assert_allclose(tg.grad(lambda v: tg.numpy.sum(sp.xlogy(v, v)))(x),
                               np.log(x) + 1.0, rtol=1e-14)
    np.testing.assert_allclose(tg.jit(tg.grad(lambda v: tg.numpy.sum(sp.erf(v))))(x),
                               2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-14)
    # (a Kelvin function: no tracegrad version; i0e, the example here before, now has one)
    with pytest.raises(TypeError, match="scipy.special.kei is not supported"):
        tg.grad(lambda v: tg.numpy.sum(sp.kei(v)))(x)


# --------------------------------------------------------------------------
# dtypes

F32_CASES = ["erf", "erfc", "erfcx", "erfinv", "erfcinv", "loggamma", "ndtr", "log_ndtr", "ndtri", "gammaln", "gamma",
             "digamma", "logit", "expit", "log_expit", "entr", "sinc"]


@pytest.mark.parametrize("name", F32_CASES)
def test_float32_stays_float32(name):
    x = np.array([0.1, 0.4, 0.7], np.float32)
    out = getattr(tsp, name)(x)
    assert out.dtype == np.float32, (name, out.dtype)
    want = getattr(sp, name)(x.astype(np.float64)) if name != "sinc" else np.sinc(x)
    np.testing.assert_allclose(out, want, rtol=3e-7)
    g = tg.grad(lambda v: tg.numpy.sum(getattr(tsp, name)(v)))(x)
    assert g.dtype == np.float32, (name, g.dtype)


def test_float32_binary_and_integers():
    x, y = np.array([0.5, 2.0], np.float32), np.array([1.5, 3.0], np.float32)
    for name in ("xlogy", "xlog1py", "rel_entr", "kl_div", "betaln", "beta"):
        assert getattr(tsp, name)(x, y).dtype == np.float32, name
    assert tsp.polygamma(1, x).dtype == np.float32
    assert tsp.gammaln(np.arange(1, 4)).dtype == np.float64
    np.testing.assert_allclose(tsp.gammaln(np.arange(1, 5)), np.log([1, 1, 2, 6]), atol=1e-15)


def test_python_float_inputs_stage_under_jit():
    # a weakly typed Python scalar reaches the abstract evaluation rules as a float
    for f in (tsp.erf, tsp.erfinv, tsp.expit, tsp.softmax, tsp.log_softmax, tsp.logsumexp,
              tg.nn.sigmoid, tg.nn.softplus):
        np.testing.assert_allclose(tg.jit(f)(0.3), f(np.float64(0.3)), rtol=1e-15)
        np.testing.assert_allclose(tg.jit(tg.grad(f))(0.3), tg.grad(f)(np.float64(0.3)), rtol=1e-15)


def test_logsumexp_weights_and_sign_under_jit_and_vmap():
    sp = pytest.importorskip("scipy.special")
    a = np.array([[0.5, 1.0, 2.0], [-1.0, 3.0, 0.0]])
    b = np.array([1.0, -1.0, -1.0])
    f = tg.jit(lambda a, b: tsp.logsumexp(a, axis=1, b=b, return_sign=True))
    out, sign = f(a, b)
    want, want_sign = sp.logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(out, want, rtol=1e-14)
    np.testing.assert_array_equal(sign, want_sign)
    v = tg.vmap(lambda r: tsp.logsumexp(r, b=b))(a)
    np.testing.assert_array_equal(np.isnan(v), np.isnan(sp.logsumexp(a, axis=1, b=b)))
    out, sign = tg.jit(lambda a: tsp.logsumexp(a, axis=1, keepdims=True, return_sign=True))(a)
    assert out.shape == sign.shape == (2, 1) and np.all(sign == 1.0)
    assert tsp.logsumexp(np.array([-np.inf, -np.inf]), return_sign=True)[1] == 0.0


def test_erfinv_of_scalars_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    for x in (0.3, np.array(0.3), np.float32(0.3)):
        np.testing.assert_allclose(tsp.erfinv(x), 0.27246271472675443, rtol=2e-7)
    np.testing.assert_allclose(tg.grad(tsp.erfinv)(0.3), 0.5 * np.sqrt(np.pi) * np.exp(0.27246271472675443 ** 2),
                               rtol=1e-14)


def test_rgamma_values_edges_and_derivatives():
    x = np.linspace(-4.7, 171.0, 401)
    np.testing.assert_allclose(tsp.rgamma(x), sp.rgamma(x), rtol=1e-13, atol=1e-300)
    edges = np.array([-3.0, -1.0, 0.0, np.inf, -np.inf, 172.0, np.nan])
    np.testing.assert_array_equal(tsp.rgamma(edges), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, np.nan])
    pts = np.array([-2.5, -0.3, 0.7, 3.2])
    check_grads(tsp.rgamma, (pts,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(tg.vmap(tg.grad(tsp.rgamma))(pts),
                               -sp.digamma(pts) * sp.rgamma(pts), rtol=1e-13)


# --------------------------------------------------------------------------
# large calls are split over threads: the same bits as one thread


@pytest.mark.parametrize("name, args", [
    ("digamma", lambda x: (np.abs(x) + 0.01,)),        # a Numba kernel
    ("i1e", lambda x: (x,)),                           # a Numba kernel with leading parameters
    ("xlogy", lambda x: (x, np.abs(x[::-1]))),         # two operands
    ("betaln", lambda x: (np.abs(x), 2.5)),            # a broadcast scalar
    ("j0", lambda x: (x,)),                            # SciPy's ufunc
    ("gammainc", lambda x: (np.abs(x[:, None]) + 0.1, np.abs(x[None, :7]))),  # SciPy, broadcast 2-d
])
def test_threaded_calls_match_one_thread(name, args, monkeypatch):
    from tracegrad.primitives import special as special_prims

    n = special_prims.PARALLEL_MIN_SIZE * 3 + 17
    x = np.random.default_rng(3).uniform(-30, 30, n)
    operands = args(x)
    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "1")
    one = getattr(tsp, name)(*operands)
    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "3")
    split = getattr(tsp, name)(*operands)
    np.testing.assert_array_equal(split, one)
    np.testing.assert_allclose(split, getattr(sp, name)(*operands), rtol=1e-12, atol=1e-300)


def test_thread_count_from_the_environment(monkeypatch):
    from tracegrad.primitives.kernels import num_threads

    monkeypatch.delenv("TRACEGRAD_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # as Dask's LocalCluster leaves it: ignored
    assert num_threads() == len(os.sched_getaffinity(0))
    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "2")
    assert num_threads() == 2
    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="TRACEGRAD_NUM_THREADS='two': expected a positive integer"):
        num_threads()


def test_an_exception_in_a_thread_is_raised_in_the_caller(monkeypatch):
    from tracegrad.primitives.kernels import launch

    monkeypatch.setenv("TRACEGRAD_NUM_THREADS", "2")
    def kernel(x, out):
        if x[0] > 0:
            raise FloatingPointError("slice starting above zero")
        out[:] = x

    x = np.linspace(-1, 1, 4096)
    with pytest.raises(FloatingPointError, match="slice starting above zero"):
        launch(kernel, (x,), np.empty_like(x), 1024)

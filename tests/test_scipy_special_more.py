"""``tracegrad.scipy.special``'s modified Bessel functions (``i0``, ``i0e``,
``i1``, ``i1e``), exponential integrals (``exp1``, ``expi``, ``expn``) and
``zeta``: values against SciPy (and mpmath where SciPy overflows early),
exact edge values, derivatives to second order in both modes, derivatives
against JAX's, jit and vmap."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.scipy.special as tsp
from tracegrad.test_util import check_grads

sp = pytest.importorskip("scipy.special")

INF, NAN = np.inf, np.nan


def _ulps(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.where(got == want, 0.0, np.abs(got - want) / np.spacing(np.abs(want)))


def _assert_ulps(got, want, max_ulp, what):
    err = _ulps(got, want)
    if not np.all(err <= max_ulp):
        i = int(np.nanargmax(np.where(np.isnan(err), np.inf, err)))
        raise AssertionError(f"{what}: worst {err.flat[i]} ulp at point {i}: got "
                             f"{np.asarray(got).flat[i]!r}, want {np.asarray(want).flat[i]!r}")


def _points(lo, hi, n=400, seed=0):
    rng = np.random.default_rng(seed)
    if lo > 0 and hi / lo > 1e3:
        return 10.0 ** rng.uniform(np.log10(lo), np.log10(hi), n)
    return rng.uniform(lo, hi, n)


# (function, range, max ulp against SciPy).  Ours is within 8 ulp of mpmath
# on these ranges (test_bessel_against_mpmath), SciPy's i1/i1e up to 7 on
# (1, 10), so the bound against SciPy is 12 there, 8 elsewhere.
BESSEL = [(name, rng, 12 if rng == (1.0, 20.0) else 8) for name in ("i0", "i0e", "i1", "i1e")
          for rng in ((1e-300, 1e-3), (1e-3, 1.0), (1.0, 20.0), (20.0, 60.0), (60.0, 700.0))]
BESSEL += [("i0e", (700.0, 1e300), 8), ("i1e", (700.0, 1e200), 8)]  # (i1e: see its docstring)


@pytest.mark.parametrize("name, rng, max_ulp", BESSEL, ids=[f"{n}-{r[0]}..{r[1]}" for n, r, _ in BESSEL])
def test_bessel_values_against_scipy(name, rng, max_ulp):
    x = _points(*rng)
    for sign in (1.0, -1.0):  # i0 even, i1 odd
        _assert_ulps(getattr(tsp, name)(sign * x), getattr(sp, name)(sign * x), max_ulp, name)


@pytest.mark.parametrize("rng", [(1e-3, 1.0), (1.0, 20.0), (20.0, 100.0)])
def test_bessel_against_mpmath(rng):
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    x = _points(*rng, n=120, seed=7)
    for name, n in (("i0e", 0), ("i1e", 1)):
        want = np.array([float(mp.besseli(n, mp.mpf(v)) * mp.exp(-mp.mpf(v))) for v in x])
        _assert_ulps(getattr(tsp, name)(x), want, 8, name)


def test_bessel_past_scipys_overflow_against_mpmath():
    """SciPy's i0/i1 overflow where ``exp(x)`` does (709.78); I_0 itself
    only past 713.98."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    x = _points(709.8, 713.9, n=40)
    for name, n in (("i0", 0), ("i1", 1)):
        want = np.array([float(mp.besseli(n, mp.mpf(v))) for v in x])
        _assert_ulps(getattr(tsp, name)(x), want, 8, name)
    assert tsp.i0(714.0) == INF and tsp.i1(-714.0) == -INF


EXPINT = [
    ("exp1", (1e-300, 1e-3), 2), ("exp1", (1e-3, 1.0), 2), ("exp1", (1.0, 700.0), 2),
    ("expi", (-700.0, -1e-3), 2), ("expi", (1e-300, 0.3), 2), ("expi", (0.45, 709.0), 2),
]


@pytest.mark.parametrize("name, rng, max_ulp", EXPINT, ids=[f"{n}-{r[0]}..{r[1]}" for n, r, _ in EXPINT])
def test_exponential_integrals_against_scipy(name, rng, max_ulp):
    # (the values are SciPy's: this checks the plumbing, dtypes and rounding)
    x = _points(*rng)
    _assert_ulps(getattr(tsp, name)(x), getattr(sp, name)(x), max_ulp, name)


def test_expn_against_scipy_and_broadcasting():
    x = _points(1e-6, 50.0)
    n = np.arange(6)[:, None]
    _assert_ulps(tsp.expn(n, x), sp.expn(n, x), 0, "expn")
    assert tsp.expn(n, x).shape == (6, 400)
    assert tsp.expn(2, np.float32(1.0)).dtype == np.float32


def test_zeta_against_scipy():
    x = np.concatenate([_points(1.001, 2.0, n=300), _points(2.0, 60.0, n=300, seed=1)])
    q = np.concatenate([_points(1e-3, 1.0, n=200, seed=2), _points(1.0, 1e6, n=400, seed=3)])
    # Euler-Maclaurin against Cephes' (the same method): a few ulp each
    got, want = tsp.zeta(x, q), sp.zeta(x, q)
    normal = want > 1e-300  # (below, SciPy flushes subnormal results to 0)
    _assert_ulps(got[normal], want[normal], 8, "zeta(x, q)")
    assert np.all(np.abs(got[~normal]) < 1e-300)
    # negative q with integer x (each term (q + k)**-x is real)
    xi, qn = np.array([2.0, 3.0, 4.0, 5.0]), np.array([-0.5, -1.5, -2.25, -7.3])
    np.testing.assert_allclose(tsp.zeta(xi, qn), sp.zeta(xi, qn), rtol=1e-13)
    xr = np.concatenate([_points(-60.0, 0.99, n=200), _points(1.01, 80.0, n=200, seed=1)])
    _assert_ulps(tsp.zeta(xr), sp.zeta(xr), 0, "zeta(x)")


EDGES = [
    ("i0", [0.0, -0.0, INF, -INF, NAN], [1.0, 1.0, INF, INF, NAN]),
    ("i0e", [0.0, INF, -INF, NAN], [1.0, 0.0, 0.0, NAN]),
    ("i1", [0.0, INF, -INF, NAN], [0.0, INF, -INF, NAN]),
    ("i1e", [0.0, INF, -INF, NAN], [0.0, 0.0, -0.0, NAN]),
    ("exp1", [0.0, INF, -1.0, -INF, NAN], [INF, 0.0, NAN, NAN, NAN]),
    ("expi", [0.0, INF, -INF, NAN], [-INF, INF, -0.0, NAN]),
]


@pytest.mark.parametrize("name, x, want", EDGES, ids=[e[0] for e in EDGES])
def test_edge_values(name, x, want):
    got = getattr(tsp, name)(np.array(x))
    np.testing.assert_array_equal(got, want, err_msg=name)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=name)


def test_expn_and_zeta_edges():
    np.testing.assert_array_equal(tsp.expn(np.array([0, 1, 2, 3]), 0.0), [INF, INF, 1.0, 0.5])
    np.testing.assert_array_equal(tsp.expn(np.array([-1.0, 2.5, NAN, 1.0]), np.array([1.0, 1.0, 1.0, -1.0])),
                                  [NAN, NAN, NAN, NAN])
    assert tsp.expn(3, INF) == 0.0
    np.testing.assert_array_equal(
        tsp.zeta(np.array([1.0, 0.5, 2.0, 2.0, 2.5, INF, INF, INF, NAN]),
                 np.array([1.0, 1.0, 0.0, -3.0, -1.5, 1.0, 0.5, 2.0, 1.0])),
        [INF, NAN, INF, INF, NAN, 1.0, INF, 0.0, NAN])
    np.testing.assert_array_equal(tsp.zeta(np.array([0.0, -2.0, -4.0, 1.0, INF])),
                                  [-0.5, 0.0, 0.0, INF, 1.0])


def _arr(*v):
    return np.array(v)


GRADS = [
    ("i0", tsp.i0, [_arr(-3.0, 0.0, 0.4, 2.5, 21.0)]),
    ("i0e", tsp.i0e, [_arr(-3.0, 0.4, 2.5, 21.0)]),
    ("i1", tsp.i1, [_arr(-3.0, 0.0, 0.4, 2.5, 21.0)]),
    ("i1e", tsp.i1e, [_arr(-3.0, 0.4, 2.5, 21.0)]),
    ("exp1", tsp.exp1, [_arr(0.2, 1.5, 8.0)]),
    ("expi", tsp.expi, [_arr(-4.0, -0.3, 0.2, 1.5, 8.0)]),
    ("expn-0", lambda x: tsp.expn(0, x), [_arr(0.2, 1.5, 8.0)]),
    ("expn-array", lambda x: tsp.expn(_arr(1, 2, 5), x), [_arr(0.2, 1.5, 8.0)]),
    ("boxcox", tsp.boxcox, [_arr(0.3, 1.5, 8.0), _arr(-1.5, 0.4, 2.0)]),
    ("boxcox1p", tsp.boxcox1p, [_arr(-0.3, 1.5, 8.0), _arr(-1.5, 0.4, 2.0)]),
    ("zeta-q", lambda q: tsp.zeta(_arr(2.0, 3.5, 6.0), q), [_arr(0.3, 1.0, 12.0)]),
]


@pytest.mark.parametrize("name, f, args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads_second_order(name, f, args):
    check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_bessel_derivatives_at_zero_every_order():
    # I_1 = x/2 + x**3/16 + x**5/384 + ...: I_1'(0) = 1/2, I_1'''(0) = 3/8, I_1^(5)(0) = 5/16
    d = tsp.i1
    values = []
    for _ in range(5):
        d = tg.grad(d)
        values.append(float(d(0.0)))
    np.testing.assert_allclose(values, [0.5, 0.0, 0.375, 0.0, 0.3125], atol=1e-15)
    # I_0'' (0) = 1/2; i1e'(0) = 1/2; i0e'(0) = 0 (JAX's sign(0) = 0 at the corner)
    assert float(tg.grad(tg.grad(tsp.i0))(0.0)) == 0.5
    assert float(tg.grad(tsp.i1e)(0.0)) == 0.5 and float(tg.grad(tsp.i0e)(0.0)) == 0.0


def test_derivative_formulas():
    x = _arr(-2.0, 0.3, 1.5, 7.0, 30.0)
    g = lambda f: tg.vmap(tg.grad(f))(x)  # noqa: E731
    np.testing.assert_allclose(g(tsp.i0), sp.i1(x), rtol=1e-14)
    np.testing.assert_allclose(g(tsp.i1), sp.i0(x) - sp.i1(x) / x, rtol=1e-14)
    np.testing.assert_allclose(g(tsp.i0e), sp.i1e(x) - np.sign(x) * sp.i0e(x), rtol=1e-13)
    np.testing.assert_allclose(g(tsp.i1e), sp.i0e(x) - sp.i1e(x) * (np.sign(x) + 1 / x), rtol=1e-13)
    np.testing.assert_allclose(g(tsp.expi), np.exp(x) / x, rtol=1e-14)
    xp = np.abs(x)
    np.testing.assert_allclose(tg.vmap(tg.grad(tsp.exp1))(xp), -np.exp(-xp) / xp, rtol=1e-14)
    np.testing.assert_allclose(tg.vmap(tg.grad(lambda v: tsp.expn(3, v)))(xp), -sp.expn(2, xp), rtol=1e-14)
    q = _arr(0.5, 2.0, 9.0)
    np.testing.assert_allclose(tg.vmap(tg.grad(lambda v: tsp.zeta(3.0, v)))(q), -3.0 * sp.zeta(4.0, q),
                               rtol=1e-14)
    with pytest.raises(NotImplementedError, match="no derivative in its first argument"):
        tg.grad(lambda s: tsp.zeta(s, 2.0))(3.0)
    with pytest.raises(NotImplementedError, match="no derivative in its first argument"):
        tg.grad(tsp.zeta)(3.0)


def test_derivatives_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jsp = pytest.importorskip("jax.scipy.special")
    x = _arr(-2.0, 0.3, 1.5, 7.0, 30.0)
    xp = np.abs(x)
    cases = [("i0", x), ("i0e", x), ("i1", x), ("i1e", x), ("exp1", xp), ("expi", x)]
    for name, pts in cases:
        for order in (1, 2) if name != "exp1" else (1,):  # (JAX's exp1 has no second derivative)
            f, jf = getattr(tsp, name), getattr(jsp, name)
            for _ in range(order):
                f, jf = tg.grad(f), jax.grad(jf)
            got = tg.vmap(f)(pts)
            want = np.array(jax.vmap(jf)(pts))
            np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=f"{name} order {order}")
    got = tg.vmap(tg.grad(lambda q: tsp.zeta(3.0, q)))(xp)
    want = np.array(jax.vmap(jax.grad(lambda q: jsp.zeta(3.0, q)))(xp))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_jit_vmap_and_float32():
    def loss(x):
        return tg.numpy.sum(tsp.i0(x) + tsp.i1e(x) + tsp.exp1(x) + tsp.expi(x) + tsp.zeta(3.0, x)
                            + tsp.expn(2, x))

    x = _arr(0.7, 1.5, 4.0)
    want = tg.grad(loss)(x)
    np.testing.assert_allclose(tg.jit(tg.grad(loss))(x), want, rtol=1e-13)
    np.testing.assert_allclose(tg.grad(tg.jit(loss))(x), want, rtol=1e-13)
    rows = np.stack([x, x + 1.0])
    np.testing.assert_allclose(tg.vmap(tg.grad(loss))(rows)[1], tg.grad(loss)(x + 1.0), rtol=1e-13)
    x32 = x.astype(np.float32)
    for name in ("i0", "i0e", "i1", "i1e", "exp1", "expi"):
        out = getattr(tsp, name)(x32)
        assert out.dtype == np.float32, name
        np.testing.assert_allclose(out, getattr(sp, name)(x), rtol=3e-7, err_msg=name)
        assert tg.grad(lambda v: tg.numpy.sum(getattr(tsp, name)(v)))(x32).dtype == np.float32
    assert tsp.zeta(np.float32(2.0), x32).dtype == np.float32


def test_scipy_ufuncs_dispatch():
    x = _arr(0.3, 1.5, 4.0)
    np.testing.assert_allclose(tg.grad(lambda v: tg.numpy.sum(sp.i0(v)))(x), sp.i1(x), rtol=1e-14)


def test_complex_rejected():
    with pytest.raises(TypeError, match="i0 takes real arrays"):
        tsp.i0(np.array([1j]))


def test_boxcox_against_scipy():
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.uniform(1e-3, 50.0, 300), [0.0, 0.0, -1.0, 1.0, INF, NAN]])
    lm = np.concatenate([rng.uniform(-3.0, 3.0, 300), [0.0, 2.0, 0.5, 0.0, 0.5, 1.0]])
    np.testing.assert_allclose(tsp.boxcox(x, lm), sp.boxcox(x, lm), rtol=1e-14)
    np.testing.assert_allclose(tsp.boxcox1p(x - 1.0, lm), sp.boxcox1p(x - 1.0, lm), rtol=1e-14)
    small = 10.0 ** rng.uniform(-300, -3, 100)
    np.testing.assert_allclose(tsp.boxcox1p(small, 0.7), sp.boxcox1p(small, 0.7), rtol=1e-15)
    np.testing.assert_array_equal(tsp.boxcox(np.array([0.0, 0.0, -1.0, 1.0]), np.array([0.0, 2.0, 0.5, 0.0])),
                                  [-INF, -0.5, NAN, 0.0])
    assert tsp.boxcox(np.float32(2.0), np.float32(0.5)).dtype == np.float32

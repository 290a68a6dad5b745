"""``tracegrad.scipy.special``'s Bessel functions (primitives/bessel.py).

Values against SciPy (whose ufuncs the impls call) and, independently, a
few points against mpmath; edge values (0, infinities, NaN, negative x);
derivatives in x: exact first and second derivatives against SciPy's
``jvp``/``yvp``/``ivp`` (which evaluate the same recurrences from SciPy's
own values), ``check_grads`` to order 2 forward and reverse, and JAX's
gradients where ``jax.scipy.special`` has the function (``bessel_jn``,
``i0``, ``i1``, ``i0e``, ``i1e``); the order v is not differentiable
(TypeError); vmap, jit, float32, ``scipy.special.j0(tracer)`` dispatch.
"""
import sys

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
import tracegrad.scipy.special as tsp
from tracegrad.test_util import check_grads

sp = pytest.importorskip("scipy.special")

X_ALL = np.concatenate([np.linspace(-30.0, 30.0, 241), [1e-300, 1e-8, 0.5, 80.0, 500.0, 1e4]])
X_POS = np.concatenate([np.geomspace(1e-6, 1e3, 200), [0.25, 2.0, 7.5]])
ORDERS = [0, 1, 2, 0.5, 2.5, 3.7, -0.5, -1.3, 5]


def _close(got, want, rtol=1e-13, atol=0.0):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, equal_nan=True)


# --------------------------------------------------------------------------
# values


@pytest.mark.parametrize("name", ["j0", "j1", "y0", "y1"])
def test_orders_0_1_match_scipy(name):
    with np.errstate(all="ignore"):
        want = getattr(sp, name)(X_ALL)
    got = getattr(tsp, name)(X_ALL)
    assert got.dtype == np.float64 and got.shape == X_ALL.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["jv", "yv", "iv", "ive", "jn"])
@pytest.mark.parametrize("v", ORDERS)
def test_real_order_matches_scipy(name, v):
    x = X_POS if name == "yv" else X_ALL
    with np.errstate(all="ignore"):
        if name in ("iv", "ive") and v in (0, 1):  # orders 0, 1: SciPy's Cephes i0, i1, i0e, i1e
            want = getattr(sp, f"i{v}{'e' if name == 'ive' else ''}")(x)
        else:
            want = getattr(sp, name)(v, x)
    np.testing.assert_array_equal(getattr(tsp, name)(v, x), want)


def test_yn_integer_order_and_truncation():
    # yn is yv of an integer order (AMOS); SciPy's yn is Cephes' recurrence:
    # they agree to 1e-13 relative away from the zeros of Y_n, 2e-15 absolute near them
    for n in (0, 1, 2, 4):
        _close(tsp.yn(n, X_POS), sp.yn(n, X_POS), rtol=1e-13, atol=2e-15)
    # SciPy's yn truncates a float order toward zero
    _close(tsp.yn(2.7, X_POS), sp.yv(2.0, X_POS))


def test_array_orders_broadcast():
    v = np.array([[0.5], [1.5], [2.0], [np.nan]])
    x = np.array([0.3, 1.0, 4.0])
    for name in ("jv", "yv", "iv", "ive"):
        got = getattr(tsp, name)(v, x)
        assert got.shape == (4, 3)
        np.testing.assert_array_equal(got, getattr(sp, name)(v, x))
    assert np.isnan(tsp.jv(v, x)[3]).all()


def test_values_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    for x in (0.1, 1.0, 3.3, 17.0):
        assert tsp.j0(x) == pytest.approx(float(mpmath.besselj(0, x)), rel=1e-13, abs=1e-16)
        assert tsp.y1(x) == pytest.approx(float(mpmath.bessely(1, x)), rel=1e-13)
        for v in (0.5, 2.5, 3.7):
            assert tsp.jv(v, x) == pytest.approx(float(mpmath.besselj(v, x)), rel=1e-12)
            assert tsp.iv(v, x) == pytest.approx(float(mpmath.besseli(v, x)), rel=1e-12)
            assert tsp.ive(v, x) == pytest.approx(float(mpmath.besseli(v, x) * mpmath.exp(-x)),
                                                  rel=1e-12)


def test_edge_values():
    assert tsp.j0(0.0) == 1.0 and tsp.j1(0.0) == 0.0
    assert tsp.y0(0.0) == -np.inf and tsp.y1(0.0) == -np.inf
    assert np.isnan(tsp.y0(-1.0)) and np.isnan(tsp.yv(1.0, -1.0))
    # infinities: whatever SciPy gives (NaN in SciPy 1.17's j0/jv at +-inf)
    for f, g in ((tsp.j0, sp.j0), (tsp.j1, sp.j1), (tsp.y0, sp.y0),
                 (lambda t: tsp.jv(1.5, t), lambda t: sp.jv(1.5, t)),
                 (lambda t: tsp.ive(0, t), sp.i0e), (lambda t: tsp.iv(2.0, t), lambda t: sp.iv(2.0, t))):
        np.testing.assert_array_equal(f(np.array([np.inf, -np.inf])), g(np.array([np.inf, -np.inf])))
    assert np.isnan(tsp.j0(np.nan)) and np.isnan(tsp.jv(1.5, np.nan))
    assert np.isnan(tsp.jv(0.5, -1.0))  # complex there: NaN, as SciPy
    assert tsp.jv(2.0, -1.0) == sp.jv(2.0, -1.0)  # integer orders are real for x < 0
    assert tsp.iv(0.0, 0.0) == 1.0 and tsp.ive(1.0, 0.0) == 0.0
    assert tsp.iv(0.0, 800.0) == np.inf and np.isfinite(tsp.ive(0.0, 800.0))


def test_dtypes():
    assert tsp.j0(np.float32(1.0)).dtype == np.float32
    assert tsp.jv(1.5, np.ones(3, np.float32)).dtype == np.float32
    assert tsp.iv(1, np.arange(3)).dtype == np.float64
    np.testing.assert_allclose(tsp.j1(np.float32(2.0)), sp.j1(2.0), rtol=1e-6)
    with pytest.raises(TypeError, match="real"):
        tsp.j0(np.ones(2, complex))


@pytest.mark.parametrize("name,v,scaled", [("i0", 0, False), ("i1", 1, False),
                                           ("i0e", 0, True), ("i1e", 1, True)])
def test_i0_i1_agree_with_iv_and_ive_of_orders_0_and_1(name, v, scaled):
    # (i0 ... i1e are their own kernel, tested in tests/test_scipy_special_more.py;
    # iv/ive of orders 0 and 1 are SciPy's i0 ... i1e)
    x = np.linspace(-600.0, 600.0, 2001) if scaled else np.linspace(-700.0, 700.0, 2001)
    np.testing.assert_allclose(getattr(tsp, name)(x), getattr(tsp, "ive" if scaled else "iv")(v, x),
                               rtol=4e-15, atol=0)


def test_bessel_jn_stacks_orders():
    z = np.linspace(0.1, 9.0, 7)
    got = tsp.bessel_jn(z, v=4)
    assert got.shape == (5, 7)
    _close(got, np.stack([sp.jv(k, z) for k in range(5)]))
    with pytest.raises(ValueError):
        tsp.bessel_jn(z, v=-1)
    with pytest.raises(TypeError):
        tsp.bessel_jn(z, v=1.5)


# --------------------------------------------------------------------------
# derivatives


@pytest.mark.parametrize("name,ref", [("j0", lambda x, k: sp.jvp(0, x, k)),
                                      ("j1", lambda x, k: sp.jvp(1, x, k)),
                                      ("y0", lambda x, k: sp.yvp(0, x, k)),
                                      ("y1", lambda x, k: sp.yvp(1, x, k))])
def test_orders_0_1_derivatives_exact(name, ref):
    f = getattr(tsp, name)
    x = np.linspace(0.2, 20.0, 37)
    d1 = tg.vmap(tg.grad(f))(x)
    d2 = tg.vmap(tg.grad(tg.grad(f)))(x)
    _close(d1, ref(x, 1), rtol=1e-12, atol=1e-15)
    _close(d2, ref(x, 2), rtol=1e-11, atol=1e-14)


def test_j1_derivative_at_zero():
    assert tg.grad(tsp.j1)(0.0) == 0.5  # the limit of j0 - j1 / x
    assert tg.grad(tg.grad(tsp.j1))(0.0) == 0.0
    assert tg.grad(tg.grad(tg.grad(tsp.j1)))(0.0) == pytest.approx(-3.0 / 8.0, rel=1e-15)
    assert tg.grad(tsp.j0)(0.0) == 0.0


@pytest.mark.parametrize("v", [0, 1, 2, 0.5, 2.5, 3.7, -1.3])
def test_real_order_derivatives_exact(v):
    x = np.linspace(0.3, 15.0, 23)
    for name, ref in (("jv", sp.jvp), ("yv", sp.yvp), ("iv", sp.ivp)):
        f = lambda t, _n=name: getattr(tsp, _n)(v, t)
        _close(tg.vmap(tg.grad(f))(x), ref(v, x, 1), rtol=1e-11, atol=1e-14)
        _close(tg.vmap(tg.grad(tg.grad(f)))(x), ref(v, x, 2), rtol=1e-10, atol=1e-13)
    # ive = iv exp(-|x|), both signs of x where ive is real
    xs = np.concatenate([x, -x]) if float(v).is_integer() else x
    want = (sp.ivp(v, xs, 1) - np.sign(xs) * sp.iv(v, xs)) * np.exp(-np.abs(xs))
    _close(tg.vmap(tg.grad(lambda t: tsp.ive(v, t)))(xs), want, rtol=1e-11, atol=1e-14)


_CASES = [("j0", None, np.array([0.0, 0.4, 2.0, -3.1, 9.0])),
          ("j1", None, np.array([0.0, 0.4, 2.0, -3.1, 9.0])),
          ("y0", None, np.array([0.4, 2.0, 3.1, 9.0])),
          ("y1", None, np.array([0.4, 2.0, 3.1, 9.0]))]
for _name in ("jv", "iv", "ive"):
    for _v in (0, 1, 2.5, 0.5, -1.3):
        _x = np.array([0.4, 2.0, 3.1, 7.0]) if not float(_v).is_integer() \
            else np.array([-1.7, 0.4, 2.0, 3.1, 7.0])
        _CASES.append((_name, _v, _x))
for _v in (0, 1, 2.5, 3.7):
    _CASES.append(("yv", _v, np.array([0.4, 2.0, 3.1, 7.0])))
_CASES += [("jn", 3, np.array([0.5, 2.0, -4.0])), ("yn", 2, np.array([0.5, 2.0, 4.0]))]


@pytest.mark.parametrize("name,v,x", _CASES, ids=[f"{n}-{v}" for n, v, _ in _CASES])
def test_check_grads_order_2(name, v, x):
    f = getattr(tsp, name) if v is None else (lambda t: getattr(tsp, name)(v, t))
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))


def test_bessel_jn_check_grads():
    check_grads(lambda z: tsp.bessel_jn(z, v=3), (np.array([0.3, 1.7, 4.0]),), order=2,
                modes=("fwd", "rev"))


@pytest.mark.parametrize("name", ["jv", "jn", "yv", "yn", "iv", "ive"])
def test_order_is_not_differentiable(name):
    with pytest.raises(TypeError, match="not differentiable in .* order"):
        tg.grad(lambda v: getattr(tsp, name)(v, 1.5))(1.0)
    with pytest.raises(TypeError, match="not differentiable in .* order"):
        tg.jvp(lambda v: getattr(tsp, name)(v, 1.5), (1.0,), (1.0,))


# --------------------------------------------------------------------------
# against JAX


@pytest.fixture(scope="module")
def jsp():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.scipy.special  # lazy: jax is an optional oracle

    return jax, jax.scipy.special


@pytest.mark.parametrize("ours,theirs", [(lambda x: tsp.iv(0, x), "i0"),
                                         (lambda x: tsp.iv(1, x), "i1"),
                                         (lambda x: tsp.ive(0, x), "i0e"),
                                         (lambda x: tsp.ive(1, x), "i1e"),
                                         (tsp.i0, "i0"), (tsp.i1, "i1"),
                                         (tsp.i0e, "i0e"), (tsp.i1e, "i1e")])
def test_modified_bessel_against_jax(jsp, ours, theirs):
    jax, jss = jsp
    fj = getattr(jss, theirs)
    x = np.array([-6.0, -1.2, 0.3, 1.0, 4.5, 30.0])
    _close(ours(x), np.asarray(fj(x)), rtol=1e-12)
    _close(tg.vmap(tg.grad(ours))(x), np.asarray(jax.vmap(jax.grad(fj))(x)), rtol=1e-10)
    _close(tg.vmap(tg.grad(tg.grad(ours)))(x),
           np.asarray(jax.vmap(jax.grad(jax.grad(fj)))(x)), rtol=1e-9)


def test_bessel_jn_against_jax(jsp):
    jax, jss = jsp
    z = np.array([0.5, 1.7, 3.0, 8.0])
    _close(tsp.bessel_jn(z, v=3), np.asarray(jss.bessel_jn(z, v=3)), rtol=1e-9, atol=1e-12)
    w = np.arange(1.0, 17.0).reshape(4, 4)
    ours = tg.grad(lambda t: tnp.sum(tsp.bessel_jn(t, v=3) * w))(z)
    theirs = jax.grad(lambda t: (jss.bessel_jn(t, v=3) * w).sum())(z)
    _close(ours, np.asarray(theirs), rtol=1e-8, atol=1e-11)


# --------------------------------------------------------------------------
# transforms and dispatch


def test_vmap_and_jit():
    x = np.linspace(0.5, 6.0, 12).reshape(3, 4)
    for f in (tsp.j0, tsp.y1, lambda t: tsp.jv(2.5, t), lambda t: tsp.ive(1.0, t)):
        want = f(x)
        _close(tg.vmap(f)(x), want, rtol=0)
        _close(tg.jit(f)(x), want, rtol=1e-15)
        g = tg.grad(lambda t: tnp.sum(f(t)))
        _close(tg.jit(g)(x), g(x), rtol=1e-15)
    v = np.array([0.0, 1.5, 3.0])
    _close(tg.vmap(lambda t: tsp.jv(v, t))(x[:, :1]), sp.jv(v, x[:, :1]), rtol=0)


def test_scipy_ufuncs_dispatch_on_tracers():
    x = 1.3
    assert tg.grad(lambda t: sp.j0(t))(x) == pytest.approx(-sp.j1(x), rel=1e-15)
    assert tg.grad(lambda t: sp.jv(2.5, t))(x) == pytest.approx(sp.jvp(2.5, x), rel=1e-13)
    assert tg.grad(lambda t: sp.ive(1, t))(x) == pytest.approx(
        tg.grad(lambda t: tsp.ive(1, t))(x), rel=1e-15)


def test_without_scipy_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)  # import scipy.special now fails
    with pytest.raises(ImportError, match=r'pip install -e "\.\[scipy\]"'):
        tsp.j0(1.0)
    with pytest.raises(ImportError, match="scipy"):
        tg.grad(lambda t: tsp.jv(1.5, t))(1.0)

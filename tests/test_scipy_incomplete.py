"""``tracegrad.scipy.special``'s incomplete gamma and beta functions
(``gammainc``, ``gammaincc``, ``betainc``, ``betaincc``): values and edge
values against SciPy, derivatives in ``x`` to second order (check_grads, and
against JAX where installed), the clear error of a shape-parameter
derivative, jit, vmap and float32."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.scipy.special as tsp
from tracegrad.test_util import check_grads

sp = pytest.importorskip("scipy.special")

NAN, INF = float("nan"), float("inf")


def _grid_gamma():
    a = np.concatenate([np.geomspace(1e-3, 1e3, 25), [0.5, 1.0, 2.0, 10.5]])
    x = np.concatenate([[0.0], np.geomspace(1e-8, 2e3, 40), [INF]])
    return np.meshgrid(a, x, indexing="ij")


def _grid_beta():
    ab = np.concatenate([np.geomspace(1e-2, 1e3, 12), [0.5, 1.0, 2.0]])
    x = np.concatenate([[0.0], np.geomspace(1e-10, 0.5, 15), 1 - np.geomspace(1e-10, 0.5, 15)[::-1], [1.0]])
    return np.meshgrid(ab, ab, x, indexing="ij")


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_gamma_values_against_scipy(name):
    a, x = _grid_gamma()
    got, want = getattr(tsp, name)(a, x), getattr(sp, name)(a, x)
    assert got.dtype == np.float64 and got.shape == a.shape
    np.testing.assert_array_max_ulp(got, want, 0)  # tails included: Q down to ~1e-300


@pytest.mark.parametrize("name", ["betainc", "betaincc"])
def test_beta_values_against_scipy(name):
    a, b, x = _grid_beta()
    np.testing.assert_array_max_ulp(getattr(tsp, name)(a, b, x), getattr(sp, name)(a, b, x), 0)


EDGES = [
    ("gammainc", [(1.0, 0.0), (0.0, 2.0), (2.0, INF), (0.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (NAN, 1.0), (INF, 1.0)],
     [0.0, 1.0, 1.0, NAN, NAN, NAN, NAN, 0.0]),
    ("gammaincc", [(1.0, 0.0), (0.0, 2.0), (2.0, INF), (0.0, 0.0), (-1.0, 1.0), (1.0, -1.0), (NAN, 1.0), (INF, 1.0)],
     [1.0, 0.0, 0.0, NAN, NAN, NAN, NAN, 1.0]),
    ("betainc", [(2.0, 3.0, 0.0), (2.0, 3.0, 1.0), (2.0, 3.0, 1.5), (2.0, 3.0, -0.1), (-1.0, 3.0, 0.5),
                 (0.0, 3.0, 0.5), (3.0, 0.0, 0.5), (1.0, 1.0, 0.25), (2.0, NAN, 0.5)],
     [0.0, 1.0, NAN, NAN, NAN, 1.0, 0.0, 0.25, NAN]),
    ("betaincc", [(2.0, 3.0, 0.0), (2.0, 3.0, 1.0), (2.0, 3.0, 1.5), (1.0, 1.0, 0.25)],
     [1.0, 0.0, NAN, 0.75]),
]


@pytest.mark.parametrize("name, args, want", EDGES, ids=[e[0] for e in EDGES])
def test_edge_values(name, args, want):
    got = [float(getattr(tsp, name)(*a)) for a in args]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [float(getattr(sp, name)(*a)) for a in args])  # as SciPy


def _u(n, lo, hi, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, n)


GRADS = [
    ("gammainc", lambda x: tsp.gammainc(np.array([0.4, 1.0, 2.5, 30.0]), x), [np.array([0.3, 1.2, 2.0, 28.0])]),
    ("gammaincc", lambda x: tsp.gammaincc(np.array([0.4, 1.0, 2.5, 30.0]), x), [np.array([0.3, 1.2, 2.0, 35.0])]),
    ("betainc", lambda x: tsp.betainc(np.array([0.6, 1.0, 2.5]), np.array([3.0, 1.0, 0.7]), x),
     [np.array([0.2, 0.5, 0.85])]),
    ("betaincc", lambda x: tsp.betaincc(np.array([0.6, 1.0, 2.5]), np.array([3.0, 1.0, 0.7]), x),
     [np.array([0.2, 0.5, 0.85])]),
]


@pytest.mark.parametrize("name, f, args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads_second_order_in_x(name, f, args):
    check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_x_derivative_formulas():
    a, x = _u(6, 0.2, 20.0), _u(6, 0.1, 25.0, seed=1)
    d = tg.vmap(tg.grad(tsp.gammainc, argnums=1))(a, x)
    np.testing.assert_allclose(d, np.exp((a - 1) * np.log(x) - x - sp.gammaln(a)), rtol=1e-13)
    np.testing.assert_allclose(tg.vmap(tg.grad(tsp.gammaincc, argnums=1))(a, x), -d, rtol=1e-13)
    b, y = _u(6, 0.2, 20.0, seed=2), _u(6, 0.01, 0.99, seed=3)
    d = tg.vmap(tg.grad(tsp.betainc, argnums=2))(a, b, y)
    np.testing.assert_allclose(d, np.exp((a - 1) * np.log(y) + (b - 1) * np.log1p(-y) - sp.betaln(a, b)),
                               rtol=1e-12)
    # at x = 0 with a = 1 the density is exp(0) = 1 (no 0 * log 0 = NaN)
    assert float(tg.grad(tsp.gammainc, argnums=1)(1.0, 0.0)) == 1.0
    assert float(tg.grad(tsp.betainc, argnums=2)(1.0, 1.0, 0.0)) == 1.0


def test_derivatives_against_jax():
    jsp = pytest.importorskip("jax.scipy.special")
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    a, x = 2.7, 1.9
    for name in ("gammainc", "gammaincc"):
        got = tg.grad(tg.grad(getattr(tsp, name), argnums=1), argnums=1)(a, x)
        want = jax.grad(jax.grad(getattr(jsp, name), argnums=1), argnums=1)(a, x)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    got = tg.grad(tsp.betainc, argnums=2)(2.5, 0.7, 0.4)
    np.testing.assert_allclose(got, jax.grad(jsp.betainc, argnums=2)(2.5, 0.7, 0.4), rtol=1e-12)


@pytest.mark.parametrize("name, argnums, args", [
    ("gammainc", 0, (2.0, 1.0)), ("gammaincc", 0, (2.0, 1.0)),
    ("betainc", 0, (2.0, 3.0, 0.5)), ("betainc", 1, (2.0, 3.0, 0.5)), ("betaincc", 1, (2.0, 3.0, 0.5))])
def test_shape_parameter_derivative_raises(name, argnums, args):
    fn = getattr(tsp, name)
    with pytest.raises(NotImplementedError, match=f"{name} is differentiable in x only"):
        tg.grad(fn, argnums=argnums)(*args)
    with pytest.raises(NotImplementedError, match="shape parameter"):
        tg.jvp(lambda p: fn(*args[:argnums], p, *args[argnums + 1:]), (args[argnums],), (1.0,))
    # held constant, x alone differentiates
    held = list(args)
    held[argnums] = tg.lax.stop_gradient(args[argnums])
    assert np.isfinite(float(tg.grad(lambda x: fn(*held[:-1], x))(args[-1])))


def test_jit_vmap_float32():
    a, x = np.float32([0.5, 2.0, 9.0]), np.float32([0.1, 3.0, 7.5])
    got = tg.jit(tsp.gammainc)(a, x)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, sp.gammainc(a.astype(np.float64), x.astype(np.float64)).astype(np.float32))
    assert tsp.betainc(np.float32(2.0), 3.0, np.float32(0.5)).dtype == np.float32
    assert tsp.gammaincc(2, 1).dtype == np.float64  # integers give float64
    aa, xx = _u(5, 0.5, 4.0), _u(5, 0.1, 0.9, seed=1)
    np.testing.assert_array_equal(tg.vmap(lambda s: tsp.betaincc(s, 2.0, xx))(aa),
                                  sp.betaincc(aa[:, None], 2.0, xx))
    g = tg.jit(tg.vmap(tg.grad(tsp.gammaincc, argnums=1)))(aa, xx)
    np.testing.assert_allclose(g, -np.exp((aa - 1) * np.log(xx) - xx - sp.gammaln(aa)), rtol=1e-13)


def test_complex_rejected():
    with pytest.raises(TypeError, match="gammainc takes real"):
        tsp.gammainc(1j, 1.0)

"""tracegrad.numpy.putmask, roots and frompyfunc (issue 9): NumPy's values on
plain arrays, their behaviour on tracers, exact derivatives, the edges, and
JAX (x64) as the oracle where it has the function."""
import math

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, jax.numpy


# --------------------------------------------------------------------------
# putmask


def _np_putmask(a, m, v):
    a = np.array(a)
    np.putmask(a, m, v)
    return a


@pytest.mark.parametrize("a, m, v", [
    (np.arange(6.0).reshape(2, 3), np.arange(6).reshape(2, 3) % 2 == 0, [10.0, 20.0, 30.0, 40.0]),
    (np.arange(6.0).reshape(2, 3), np.ones(6, bool), 1.5),  # a flat mask of the same size
    (np.arange(6).reshape(3, 2), np.arange(6).reshape(3, 2) > 2, 1.5),  # unsafe cast to int
    (np.arange(5.0), np.array([1, 0, 2, 0, 0]), [7.0, 8.0]),  # a non-bool mask
    (np.arange(4.0), np.array([True, False, True, True]), np.array([[1.0, 2.0], [3.0, 4.0]])),
    (np.arange(4.0), np.zeros(4, bool), [1.0]),
    (np.arange(4.0), np.ones(4, bool), []),  # empty values: unchanged, as NumPy
    (np.zeros((0, 2)), np.zeros((0, 2), bool), [1.0]),
    (np.array(2.0), np.array(True), 5.0),
], ids=["cyclic", "flat-mask", "int-cast", "int-mask", "2d-values", "no-selection", "empty-values",
        "empty", "0d"])
def test_putmask_matches_numpy(a, m, v):
    before = a.copy()
    got = tnp.putmask(a, m, v, inplace=False)
    want = _np_putmask(a, m, v)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(a, before)  # the input is not written


def test_putmask_positions_cycle_over_the_flat_index_not_the_selection():
    # NumPy's rule (unlike place): position n takes values[n % len(values)]
    got = tnp.putmask(np.zeros(5), np.array([False, True, False, True, True]), [1.0, 2.0], inplace=False)
    np.testing.assert_array_equal(got, [0.0, 2.0, 0.0, 2.0, 1.0])


def test_putmask_inplace_and_size_errors():
    with pytest.raises(ValueError, match="inplace=False"):
        tnp.putmask(np.zeros(3), np.ones(3, bool), 1.0)
    with pytest.raises(ValueError, match="same size"):
        tnp.putmask(np.zeros(3), np.ones(4, bool), 1.0, inplace=False)


def test_putmask_derivatives_are_exact():
    m = np.array([True, False, True, True])
    ja, jv = tg.jacfwd(lambda a, v: tnp.putmask(a, m, v, inplace=False), argnums=(0, 1))(
        np.arange(4.0), np.array([5.0, 6.0, 7.0]))
    np.testing.assert_array_equal(ja, np.diag([0.0, 1.0, 0.0, 0.0]))
    # positions 0, 2, 3 take values[0], values[2], values[0]
    np.testing.assert_array_equal(jv, [[1, 0, 0], [0, 0, 0], [0, 0, 1], [1, 0, 0]])
    g = tg.grad(lambda v: tnp.sum(tnp.putmask(np.zeros(4), m, v * v, inplace=False)))(3.0)
    assert g == 18.0


def test_putmask_with_a_traced_mask_under_vmap():
    masks = np.array([[True, False, True], [False, True, False]])
    got = tg.vmap(lambda mm, v: tnp.putmask(np.arange(3.0), mm, v, inplace=False))(masks, np.array([-1.0, -2.0]))
    np.testing.assert_array_equal(got, [[-1.0, 1.0, -1.0], [0.0, -2.0, 2.0]])


def test_numpy_putmask_on_a_tracer_names_the_functional_form():
    with pytest.raises(TypeError, match=r"tracegrad\.numpy\.putmask"):
        tg.grad(lambda x: np.putmask(x, np.array([True, False]), 1.0) or tnp.sum(x))(np.ones(2))


# --------------------------------------------------------------------------
# roots


ROOT_CASES = [
    [1.0, -3.0, 2.0],
    [1.0, 0.0, 1.0],  # a complex pair
    [2.0, -1.0, 3.0, 5.0, -4.0],
    [0.0, 0.0, 1.0, 2.0, 0.0, 0.0],  # leading and trailing zeros
    [1, -6, 11, -6],  # integers: float64, as NumPy
    [1.0 + 1.0j, 2.0, 3.0j],
    [5.0],
    [0.0, 0.0],
    [0.0, 3.0],
    [1.0, 0.0, 0.0],
    np.float32([1.0, -3.0, 2.0]),
]


@pytest.mark.parametrize("p", ROOT_CASES, ids=range(len(ROOT_CASES)))
def test_roots_match_numpy_on_plain_arrays(p):
    got, want = tnp.roots(p), np.roots(p)
    # NumPy's values and order to the last bit; always complex (as JAX)
    np.testing.assert_array_equal(got, want.astype(got.dtype))
    single = np.asarray(p).dtype in (np.float32, np.complex64)
    assert got.dtype == (np.complex64 if single else np.complex128)
    assert got.ndim == 1


def test_roots_edges():
    assert tnp.roots(np.zeros(4)).shape == (0,)
    assert tnp.roots(3.0).shape == (0,)  # a scalar is a constant polynomial
    with pytest.raises(ValueError, match="rank-1"):
        tnp.roots(np.ones((2, 2)))


def _simple_root_jacobian(p, r):
    """dr_i/dp_k = -r_i**(n-k) / p'(r_i) for the roots r_i of p (degree n)."""
    n = len(p) - 1
    dp = np.polyval(np.polyder(p), r)
    return -(r[:, None] ** (n - np.arange(n + 1))[None, :]) / dp[:, None]


@pytest.mark.parametrize("p", [
    np.array([1.0, -6.0, 11.0, -6.0]),  # roots 1, 2, 3
    np.array([2.0, 0.0, 2.0, 1.0]),  # a complex pair
    np.array([1.0 + 0.5j, -2.0, 1.0j]),  # complex coefficients
])
def test_roots_derivatives_at_simple_roots(p):
    r = tnp.roots(p)
    want = _simple_root_jacobian(p, np.asarray(r))
    for jac in (tg.jacfwd, tg.jacrev):
        # a real perturbation q of the coefficients: the columns of the complex Jacobian
        re = jac(lambda q: tnp.real(tnp.roots(p + q)))(np.zeros(len(p)))
        im = jac(lambda q: tnp.imag(tnp.roots(p + q)))(np.zeros(len(p)))
        np.testing.assert_allclose(re + 1j * im, want, rtol=1e-9, atol=1e-9)


def test_roots_through_numpy_dispatch():
    p = np.array([1.0, -6.0, 11.0, -6.0])
    g = tg.jacfwd(lambda q: tnp.real(np.roots(q)))(p)
    np.testing.assert_allclose(g, np.real(_simple_root_jacobian(p, np.asarray(tnp.roots(p)))), atol=1e-9)


def test_roots_trailing_zero_keeps_its_derivative():
    # x**2 - x + c at c = 0: the root at 0 moves like c, the root at 1 like -c
    p = np.array([1.0, -1.0, 0.0])
    f = lambda q: tnp.real(tnp.roots(q))  # noqa: E731
    r = np.asarray(tg.jvp(f, (p,), (np.zeros(3),))[0])  # the order on tracers
    jac = tg.jacfwd(f)(p)
    order = np.argsort(r)
    np.testing.assert_allclose(r[order], [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(jac[order], [[0.0, 0.0, 1.0], [-1.0, -1.0, -1.0]], atol=1e-12)


def test_roots_leading_zero_is_stripped_under_grad():
    p = np.array([0.0, 1.0, -3.0, 2.0])
    jac = tg.jacrev(lambda q: tnp.real(tnp.roots(q)))(p)
    assert jac.shape == (2, 4)
    np.testing.assert_array_equal(jac[:, 0], 0.0)
    np.testing.assert_allclose(jac[:, 1:], np.real(_simple_root_jacobian(p[1:], np.array([2.0, 1.0]))),
                               atol=1e-12)


@pytest.mark.parametrize("p", [[1.0, -2.0, 1.0], [1.0, -4.0, 4.0]])
def test_roots_repeated_root_has_no_usable_derivative(p):
    # the derivative is infinite there: eig's rule gives a huge or non-finite
    # value, or raises for the (numerically) singular eigenvector matrix
    try:
        jac = tg.jacfwd(lambda q: tnp.real(tnp.roots(q)))(np.array(p))
    except np.linalg.LinAlgError:
        return
    assert not np.all(np.abs(jac) < 1e8)


def test_roots_under_vmap_names_the_problem():
    with pytest.raises(TypeError, match="leading zeros"):
        tg.vmap(tnp.roots)(np.array([[1.0, -3.0, 2.0], [1.0, 0.0, -1.0]]))


def test_roots_against_jax():
    jax, jnp = _jax()
    for p in [np.array([1.0, -6.0, 11.0, -6.0]), np.array([0.0, 2.0, 0.0, 2.0, 1.0]),
              np.array([1.0, 2.0, 3.0, 4.0, 5.0])]:
        np.testing.assert_allclose(np.sort_complex(np.asarray(tnp.roots(p))),
                                   np.sort_complex(np.asarray(jnp.roots(p))), rtol=1e-12, atol=1e-12)

    def feature(ns):
        # a smooth real function of the roots that does not depend on their order
        return lambda p: ns.sum(ns.real(ns.roots(p)) ** 3 + ns.imag(ns.roots(p)) ** 4)

    p = np.array([1.0, 0.3, -2.0, 4.0])
    # (JAX refuses second derivatives of eig: the table's check_grads rows cover them)
    np.testing.assert_allclose(tg.grad(feature(tnp))(p), jax.grad(feature(jnp))(p), rtol=1e-9)
    np.testing.assert_allclose(tg.jacfwd(lambda q: tnp.real(tnp.roots(q)))(p)[np.argsort(np.real(tnp.roots(p)))],
                               jax.jacfwd(lambda q: jnp.real(jnp.roots(q)))(p)[np.argsort(np.real(jnp.roots(p)))],
                               rtol=1e-9)

    def of_complex(ns):
        return lambda x, y: ns.sum(ns.abs(ns.roots(x + 1j * y)) ** 2)

    x, y = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -0.7])
    for argnums in (0, 1):
        np.testing.assert_allclose(tg.grad(of_complex(tnp), argnums)(x, y),
                                   jax.grad(of_complex(jnp), argnums)(x, y), rtol=1e-9)


# --------------------------------------------------------------------------
# frompyfunc


def _as_float(out):
    return np.asarray(out, dtype=np.float64)


def test_frompyfunc_values_match_numpy():
    x, y = np.arange(6.0).reshape(2, 3), np.array([1.0, -2.0, 0.5])
    for f, nin, args in [(lambda a, b: a * b + a, 2, (x, y)), (math.erf, 1, (x,)),
                         (lambda a: a if a > 1 else -a, 1, (x,))]:
        got = tnp.frompyfunc(f, nin, 1)(*args)
        want = np.frompyfunc(f, nin, 1)(*args)
        np.testing.assert_array_equal(got, _as_float(want))
        assert got.dtype == np.float64  # NumPy: object
    q, r = tnp.frompyfunc(divmod, 2, 2)(np.arange(5.0), 2.0)
    wq, wr = np.frompyfunc(divmod, 2, 2)(np.arange(5.0), 2.0)
    np.testing.assert_array_equal(q, _as_float(wq))
    np.testing.assert_array_equal(r, _as_float(wr))
    ints = tnp.frompyfunc(lambda a, b: a * 10 + b, 2, 1)(np.arange(3), 4)
    np.testing.assert_array_equal(ints, [4, 14, 24])
    assert ints.dtype.kind == "i"
    assert tnp.frompyfunc(lambda a: a > 0, 1, 1)(np.array([-1.0, 2.0])).dtype == np.bool_
    assert tnp.frompyfunc(lambda a: a, 1, 1)(np.float32([1.0])).dtype == np.float32
    assert tnp.frompyfunc(lambda a: a, 1, 1)(np.zeros((0, 2))).shape == (0, 2)
    assert tnp.frompyfunc(lambda a, b: a + b, 2, 1)(1.0, 2.0) == 3.0


def test_frompyfunc_methods_match_numpy():
    f = lambda a, b: a * 10 + b  # noqa: E731 - not associative: the fold order shows
    x = np.array([[1, 2, 3], [4, 5, 6]])
    u, w = tnp.frompyfunc(f, 2, 1), np.frompyfunc(f, 2, 1)
    np.testing.assert_array_equal(u.reduce(x), w.reduce(x).astype(int))
    np.testing.assert_array_equal(u.reduce(x, axis=1), w.reduce(x, axis=1).astype(int))
    np.testing.assert_array_equal(u.accumulate(x, axis=1), w.accumulate(x, axis=1).astype(int))
    np.testing.assert_array_equal(u.outer(x[0], x[1]), w.outer(x[0], x[1]).astype(int))
    ui = tnp.frompyfunc(f, 2, 1, identity=7)
    np.testing.assert_array_equal(ui.reduce(np.zeros((0, 2), int)), [7, 7])
    assert ui.reduce(np.array([1, 2, 3])) == 123  # identity only for an empty axis, as NumPy
    with pytest.raises(ValueError, match="no identity"):
        u.reduce(np.zeros((0, 2)))
    assert (u.nin, u.nout, u.nargs, ui.identity) == (2, 1, 3, 7)


def test_frompyfunc_errors():
    with pytest.raises(TypeError, match="callable"):
        tnp.frompyfunc(3, 1, 1)
    with pytest.raises(ValueError, match="at least 1"):
        tnp.frompyfunc(abs, 0, 1)
    with pytest.raises(ValueError, match="expected 2"):
        tnp.frompyfunc(max, 2, 1)(np.ones(2))
    with pytest.raises(ValueError, match="nin=2, nout=1"):
        tnp.frompyfunc(abs, 1, 1).reduce(np.ones(2))
    with pytest.raises(ValueError, match="tuple of 2"):
        tg.grad(lambda x: tnp.sum(tnp.frompyfunc(lambda a: a, 1, 2)(x)[0]))(np.ones(2))


def test_frompyfunc_on_tracers_is_differentiable():
    y = np.array([1.0, -2.0, 0.5])
    u = tnp.frompyfunc(lambda a, b: a * b + tnp.sin(a), 2, 1)
    x = np.arange(6.0).reshape(2, 3)
    g = tg.grad(lambda x: tnp.sum(u(x, y)))(x)
    np.testing.assert_allclose(g, y + np.cos(x), rtol=1e-15)
    h = tg.hessian(lambda x: tnp.sum(u(x, y)))(x[0])
    np.testing.assert_allclose(h, np.diag(-np.sin(x[0])), atol=1e-15)
    # on tracers the result has func's dtype
    y32 = y.astype(np.float32)
    assert tg.jvp(lambda x: u(x, y32), (np.float32([1.0, 2.0, 3.0]),),
                  (np.float32([1.0, 1.0, 1.0]),))[0].dtype == np.float32
    # methods on tracers
    prod = tnp.frompyfunc(lambda a, b: a * b, 2, 1)
    np.testing.assert_allclose(tg.grad(lambda x: prod.reduce(x))(np.array([2.0, 3.0, 5.0])), [15.0, 10.0, 6.0])
    np.testing.assert_allclose(tg.jacfwd(lambda x: prod.accumulate(x))(np.array([2.0, 3.0])),
                               [[1.0, 0.0], [3.0, 2.0]])
    np.testing.assert_allclose(tg.grad(lambda x: tnp.sum(prod.outer(x, y)))(np.ones(2)), [y.sum()] * 2)
    # vmap over a frompyfunc'd function
    got = tg.vmap(lambda r: u(r, y))(x)
    np.testing.assert_allclose(got, x * y + np.sin(x), rtol=1e-15)
    two = tnp.frompyfunc(lambda a, b: (a * b, a - b), 2, 2)
    np.testing.assert_array_equal(tg.jacrev(lambda x: two(x, 2.0)[0])(np.ones(2)), 2.0 * np.eye(2))


def test_frompyfunc_against_jax():
    jax, jnp = _jax()

    def f(ns):
        return lambda a, b: a * b + ns.exp(-a * a)

    x, y = np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.array([0.5, -1.5, 2.0])
    ours, theirs = tnp.frompyfunc(f(tnp), 2, 1), jnp.frompyfunc(f(jnp), 2, 1)
    np.testing.assert_allclose(ours(x, y), theirs(x, y), rtol=1e-15)
    np.testing.assert_allclose(ours.outer(y, y), theirs.outer(y, y), rtol=1e-15)
    for argnums in (0, 1):
        np.testing.assert_allclose(tg.grad(lambda a, b: tnp.sum(ours(a, b)), argnums)(x, y),
                                   jax.grad(lambda a, b: jnp.sum(theirs(a, b)), argnums)(x, y), rtol=1e-13)
    np.testing.assert_allclose(tg.hessian(lambda a: tnp.sum(ours(a, y)))(y),
                               jax.hessian(lambda a: jnp.sum(theirs(a, y)))(y), rtol=1e-13, atol=1e-15)
    # reduce without an identity: the same left fold
    prod_ours = tnp.frompyfunc(lambda a, b: a * b + a, 2, 1)
    prod_theirs = jnp.frompyfunc(lambda a, b: a * b + a, 2, 1)
    np.testing.assert_allclose(prod_ours.reduce(x, axis=1), prod_theirs.reduce(x, axis=1), rtol=1e-15)
    np.testing.assert_allclose(tg.grad(lambda a: prod_ours.reduce(a))(y),
                               jax.grad(lambda a: prod_theirs.reduce(a))(y), rtol=1e-13)

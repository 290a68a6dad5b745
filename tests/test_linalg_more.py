"""pinv, lstsq, eig/eigvals, cond, matrix_rank, tensorsolve, tensorinv and
the array-API linalg forms: values against NumPy, derivatives against JAX
(x64), vmap, and the documented edge cases with exact values."""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.test_util import check_grads

L = tnp.linalg
RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.standard_normal(shape)


def distinct_real_eig(n):
    p = np.eye(n) + 0.3 * RNG.standard_normal((n, n))
    return p @ np.diag(1.0 + 1.5 * np.arange(n)) @ np.linalg.inv(p)


RANK1 = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])

# --------------------------------------------------------------------------
# values against NumPy


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (2, 3, 4), (2, 2, 3, 3)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pinv_values(shape, dtype):
    a = normal(*shape).astype(dtype)
    got = L.pinv(a)
    assert got.dtype == dtype and got.shape == shape[:-2] + shape[:-3:-1]
    np.testing.assert_allclose(got, np.linalg.pinv(a), rtol=1e-4 if dtype == np.float32 else 1e-10,
                               atol=1e-5 if dtype == np.float32 else 1e-12)


def test_pinv_rank_deficient_and_rcond():
    np.testing.assert_allclose(L.pinv(RANK1), np.linalg.pinv(RANK1), atol=1e-14)
    a = np.diag([1.0, 1e-3, 1e-9])
    np.testing.assert_allclose(L.pinv(a, rcond=1e-6), np.linalg.pinv(a, rcond=1e-6))
    np.testing.assert_allclose(L.pinv(a, rtol=1e-2), np.linalg.pinv(a, rtol=1e-2))
    with pytest.raises(ValueError, match="not both"):
        L.pinv(a, rcond=1e-3, rtol=1e-3)


def test_pinv_of_zero_matrix_is_zero():
    for shape in [(2, 3), (3, 3), (2, 4, 1)]:
        got = L.pinv(np.zeros(shape))
        np.testing.assert_array_equal(got, np.zeros(shape[:-2] + shape[:-3:-1]))
    # its derivative there is finite
    g = tg.grad(lambda a: tnp.sum(L.pinv(a)))(np.zeros((2, 3)))
    assert np.all(np.isfinite(g))


@pytest.mark.parametrize("a_shape, b_shape", [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 3), (3,)),
                                              ((2, 4), (2,)), ((2, 4), (2, 3))])
def test_lstsq_values(a_shape, b_shape):
    a, b = normal(*a_shape), normal(*b_shape)
    x, res, rank, s = L.lstsq(a, b)
    xn, resn, rankn, sn = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x, xn, atol=1e-12)
    assert res.shape == resn.shape
    np.testing.assert_allclose(res, resn, rtol=1e-10)
    assert rank == rankn
    np.testing.assert_allclose(s, sn)


def test_lstsq_float32():
    a, b = normal(5, 3).astype(np.float32), normal(5).astype(np.float32)
    x, res, rank, s = L.lstsq(a, b)
    assert x.dtype == np.float32 and s.dtype == np.float32
    np.testing.assert_allclose(x, np.linalg.lstsq(a, b)[0], rtol=1e-4, atol=1e-5)


def test_lstsq_rank_deficient_exact():
    # rank 1: minimum-norm solution, no residuals (as NumPy), rank 1
    b = np.array([1.0, 2.0, 3.0])
    x, res, rank, s = L.lstsq(RANK1, b)
    np.testing.assert_allclose(x, [0.2, 0.4], rtol=1e-14)
    assert res.shape == (0,) and rank == 1
    np.testing.assert_allclose(s, np.linalg.lstsq(RANK1, b)[3])
    with pytest.raises(np.linalg.LinAlgError, match="2-dimensional"):
        L.lstsq(np.ones((2, 2, 2)), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="does not match"):
        L.lstsq(np.ones((3, 2)), np.ones(2))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_eig_values(shape, dtype):
    a = normal(*shape).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * normal(*shape)
    w, v = L.eig(a)
    assert w.dtype == (np.complex64 if dtype == np.float32 else np.complex128)
    wn, vn = np.linalg.eig(a)
    np.testing.assert_allclose(w, wn, rtol=1e-4 if dtype == np.float32 else 1e-12)
    np.testing.assert_allclose(v, vn, rtol=1e-4 if dtype == np.float32 else 1e-12,
                               atol=1e-5 if dtype == np.float32 else 1e-12)
    np.testing.assert_allclose(L.eigvals(a), np.linalg.eigvals(a), rtol=1e-4)
    # through NumPy's dispatch on a tracer
    out = tg.jvp(lambda m: np.linalg.eigvals(m), (a,), (np.ones_like(a),))[0]
    np.testing.assert_allclose(out, wn, rtol=1e-4)


def test_eig_of_real_matrix_with_real_eigenvalues_is_complex():
    w = L.eigvals(np.diag([1.0, 2.0]))
    assert w.dtype == np.complex128
    np.testing.assert_array_equal(w, [1.0, 2.0])
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        L.eig(np.ones((2, 3)))


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond_values(p):
    a = normal(2, 3, 3)
    np.testing.assert_allclose(L.cond(a, p), np.linalg.cond(a, p), rtol=1e-10)
    out = tg.jvp(lambda m: L.cond(m, p), (a,), (np.ones_like(a),))[0]
    np.testing.assert_allclose(out, np.linalg.cond(a, p), rtol=1e-10)
    if p in (None, 2, -2):
        w = normal(3, 5)
        np.testing.assert_allclose(L.cond(w, p), np.linalg.cond(w, p), rtol=1e-10)


def test_cond_of_singular_matrix_is_inf():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    z = np.zeros((2, 2))
    for p in [None, 1, np.inf, "fro"]:
        assert L.cond(z, p) == np.inf
    assert L.cond(np.array([[1.0, 0.0], [0.0, 0.0]])) == np.inf
    assert L.cond(s, 1) == np.inf
    # on tracers too, from the singular values
    out = tg.jvp(lambda m: L.cond(m), (z,), (np.ones_like(z),))[0]
    assert out == np.inf


def test_matrix_rank():
    assert L.matrix_rank(RANK1) == 1
    assert L.matrix_rank(np.zeros((3, 2))) == 0
    assert L.matrix_rank(np.ones(3)) == 1 and L.matrix_rank(np.zeros(3)) == 0
    a = normal(2, 4, 3)
    np.testing.assert_array_equal(L.matrix_rank(a), np.linalg.matrix_rank(a))
    np.testing.assert_array_equal(L.matrix_rank(np.diag([1.0, 1e-3]), tol=1e-2), 1)
    # concrete under jvp/grad
    seen = []
    tg.grad(lambda m: (seen.append(L.matrix_rank(m)), tnp.sum(m))[1])(RANK1)
    assert seen == [1]


def test_tensorsolve_and_tensorinv_values():
    a = normal(2, 3, 6) + np.eye(6).reshape(2, 3, 6) * 3
    b = normal(2, 3)
    np.testing.assert_allclose(L.tensorsolve(a, b), np.linalg.tensorsolve(a, b))
    a2 = normal(6, 2, 3)
    bb = normal(2, 3)
    np.testing.assert_allclose(L.tensorsolve(a2, bb, axes=(0,)), np.linalg.tensorsolve(a2, bb, axes=(0,)))
    t = normal(4, 2, 2)
    np.testing.assert_allclose(L.tensorinv(t, ind=1), np.linalg.tensorinv(t, ind=1))
    t2 = normal(2, 3, 6)
    np.testing.assert_allclose(L.tensorinv(t2, ind=2), np.linalg.tensorinv(t2, ind=2))
    with pytest.raises(ValueError, match="positive"):
        L.tensorinv(t, ind=0)
    with pytest.raises(np.linalg.LinAlgError):
        L.tensorinv(normal(2, 3), ind=1)


def test_array_api_forms():
    x, y = normal(2, 3), normal(3)
    np.testing.assert_allclose(L.cross(x, y), np.linalg.cross(x, y))
    with pytest.raises(ValueError, match="3-dimensional"):
        L.cross(normal(2), normal(2))
    m = normal(2, 3, 4)
    np.testing.assert_allclose(L.trace(m, offset=1), np.linalg.trace(m, offset=1))
    np.testing.assert_allclose(L.diagonal(m, offset=-1), np.linalg.diagonal(m, offset=-1))
    np.testing.assert_allclose(L.outer(y, x[0]), np.linalg.outer(y, x[0]))
    with pytest.raises(ValueError, match="1-D"):
        L.outer(x, y)
    np.testing.assert_allclose(L.matrix_norm(m, ord="nuc", keepdims=True),
                               np.linalg.matrix_norm(m, ord="nuc", keepdims=True))
    np.testing.assert_allclose(L.vector_norm(m, axis=(0, 2), ord=3),
                               np.linalg.vector_norm(m, axis=(0, 2), ord=3))


# --------------------------------------------------------------------------
# derivatives against JAX (x64)


@pytest.fixture(scope="module")
def jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def _against_jax(jax, f, fj, args, second=True, rtol=1e-7):
    """jvp, vjp (grad of a random projection) and, if asked, the Hessian."""
    rng = np.random.default_rng(1)
    ts = tuple(rng.standard_normal(np.shape(a)) for a in args)
    out, t = tg.jvp(f, args, ts)
    outj, tj = jax.jvp(fj, args, ts)
    np.testing.assert_allclose(out, outj, rtol=rtol, atol=1e-10)
    np.testing.assert_allclose(t, tj, rtol=rtol, atol=1e-10)
    u = rng.standard_normal(np.shape(out))
    g = tg.grad(lambda *a: tnp.sum(tnp.real(f(*a)) * u), argnums=tuple(range(len(args))))(*args)
    gj = jax.grad(lambda *a: jax.numpy.sum(jax.numpy.real(fj(*a)) * u),
                  argnums=tuple(range(len(args))))(*args)
    for x, y in zip(g, gj):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-10)
    if second:
        h = tg.hessian(lambda a: tnp.sum(tnp.real(f(a, *args[1:])) * u))(args[0])
        hj = jax.hessian(lambda a: jax.numpy.sum(jax.numpy.real(fj(a, *args[1:])) * u))(args[0])
        np.testing.assert_allclose(h, hj, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("a", [normal(3, 2), normal(2, 3), normal(3, 3), RANK1],
                         ids=["tall", "wide", "square", "rank1"])
def test_pinv_derivatives_match_jax(jax, a):
    # second order (JAX's Hessians are slow to compile) on the tall and rank-1 cases
    _against_jax(jax, L.pinv, jax.numpy.linalg.pinv, (a,), second=a.shape == (3, 2))


def test_lstsq_derivatives_match_jax(jax):
    a, b = normal(4, 2), normal(4)
    _against_jax(jax, lambda a, b: L.lstsq(a, b)[0], lambda a, b: jax.numpy.linalg.lstsq(a, b)[0],
                 (a, b))
    _against_jax(jax, lambda a, b: L.lstsq(a, b)[1], lambda a, b: jax.numpy.linalg.lstsq(a, b)[1],
                 (a, normal(4, 2)), second=False, rtol=1e-6)


@pytest.mark.parametrize("a", [normal(3, 3), distinct_real_eig(3)], ids=["complex", "real"])
def test_eigvals_derivatives_match_jax(jax, a):
    # JAX has no second derivative of eigvals (its eig JVP needs eigenvector
    # derivatives); the check_grads rows cover our second order
    _against_jax(jax, L.eigvals, jax.numpy.linalg.eigvals, (a,), second=False, rtol=1e-6)


def test_eig_complex_input_derivatives_match_jax(jax):
    a = normal(3, 3) + 1j * normal(3, 3)
    t = normal(3, 3) + 1j * normal(3, 3)
    _, dw = tg.jvp(L.eigvals, (a,), (t,))
    _, dwj = jax.jvp(jax.numpy.linalg.eigvals, (a,), (t,))
    np.testing.assert_allclose(dw, dwj, rtol=1e-6)
    f = lambda m, np_: np_.real(np_.sum(L.eigvals(m) ** 2 if np_ is tnp else
                                        jax.numpy.linalg.eigvals(m) ** 2))
    np.testing.assert_allclose(tg.grad(lambda m: f(m, tnp))(a),
                               jax.grad(lambda m: f(m, jax.numpy))(a), rtol=1e-6)


def test_eig_vectors_derivative():
    # A V = V diag(w) and unit columns hold to first order along the tangent
    a, t = normal(3, 3), normal(3, 3)
    (w, v), (dw, dv) = tg.jvp(lambda m: tuple(L.eig(m)), (a,), (t,))
    np.testing.assert_allclose(t @ v + a @ dv, dv * w + v * dw, atol=1e-10)
    np.testing.assert_allclose(np.real(np.sum(np.conj(v) * dv, axis=0)), 0, atol=1e-12)
    # phase-invariant functions against finite differences, to second order
    check_grads(lambda m: tnp.abs(L.eig(m)[1]) ** 2, (distinct_real_eig(3),), order=2, rtol=1e-4,
                atol=1e-4)


@pytest.mark.parametrize("p", [None, -2, "fro", 1])
def test_cond_derivatives_match_jax(jax, p):
    a = 3 * np.eye(3) + normal(3, 3)
    _against_jax(jax, lambda m: L.cond(m, p), lambda m: jax.numpy.linalg.cond(m, p), (a,),
                 rtol=1e-6)


def test_tensor_solve_inv_derivatives_match_jax(jax):
    a = (3 * np.eye(6) + 0.3 * normal(6, 6)).reshape(2, 3, 6)
    b = normal(2, 3)
    _against_jax(jax, L.tensorsolve, jax.numpy.linalg.tensorsolve, (a, b))
    t = (3 * np.eye(4) + 0.3 * normal(4, 4)).reshape(4, 2, 2)
    _against_jax(jax, lambda m: L.tensorinv(m, ind=1),
                 lambda m: jax.numpy.linalg.tensorinv(m, ind=1), (t,), second=False)


# --------------------------------------------------------------------------
# vmap


@pytest.mark.parametrize("name, f, arg", [
    ("pinv", L.pinv, normal(3, 4, 2)),
    ("eigvals", L.eigvals, normal(3, 3, 3)),
    ("cond", L.cond, normal(3, 3, 3)),
    ("tensorinv", lambda m: L.tensorinv(m, ind=1), normal(2, 4, 2, 2)),
    ("lstsq", lambda m: L.lstsq(m, np.arange(4.0))[0], normal(3, 4, 2)),
], ids=lambda x: x if isinstance(x, str) else "")
def test_vmap_matches_loop(name, f, arg):
    got = tg.vmap(f)(arg)
    want = np.stack([f(x) for x in arg])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    g = tg.vmap(tg.grad(lambda m: tnp.sum(tnp.real(f(m)))))(arg)
    gw = np.stack([tg.grad(lambda m: tnp.sum(tnp.real(f(m))))(x) for x in arg])
    np.testing.assert_allclose(g, gw, rtol=1e-8, atol=1e-10)

"""tracegrad.scipy.linalg against SciPy (values) and finite differences (derivatives)."""
import sys

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
import tracegrad.scipy.linalg as tsl
from tracegrad.test_util import check_grads

sl = pytest.importorskip("scipy.linalg")


def _rng(seed):
    return np.random.default_rng(seed)


def _wellcond(rng, *shape, dtype=np.float64):
    a = 3.0 * np.eye(shape[-2], shape[-1]) + 0.4 * rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 0.4j * rng.standard_normal(shape)
    return a.astype(dtype)


def _spd(rng, n):
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def _sym(x):
    return 0.5 * (x + tnp.swapaxes(x, -1, -2))


TRI = [(lower, trans, unit) for lower in (True, False) for trans in (0, 1, 2, "N", "T", "C")
       for unit in (False, True)]


@pytest.mark.parametrize("lower, trans, unit", TRI)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_solve_triangular_matches_scipy(lower, trans, unit, dtype):
    rng = _rng(0)
    a = _wellcond(rng, 4, 4, dtype=dtype)
    b = _wellcond(rng, 4, 3, dtype=dtype)
    for rhs in (b, b[:, 0]):
        got = tsl.solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit)
        want = sl.solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit)
        assert got.dtype == want.dtype and got.shape == want.shape
        tol = 1e-5 if dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_solve_triangular_reads_only_its_triangle():
    rng = _rng(1)
    a, b = _wellcond(rng, 4, 4), rng.standard_normal((4, 2))
    junk = a + np.triu(np.full((4, 4), 1e3), 1)  # the other triangle changed
    np.testing.assert_array_equal(tsl.solve_triangular(junk, b, lower=True),
                                  tsl.solve_triangular(a, b, lower=True))
    g = tg.grad(lambda m: tnp.sum(tsl.solve_triangular(m, b, lower=True) ** 2))(a)
    assert np.all(np.triu(g, 1) == 0.0) and np.all(np.diag(g) != 0.0)
    g = tg.grad(lambda m: tnp.sum(tsl.solve_triangular(m, b, unit_diagonal=True) ** 2))(a)
    assert np.all(np.tril(g) == 0.0)  # upper, unit diagonal: the diagonal is not read


def test_solve_triangular_stacks_broadcast():
    rng = _rng(2)
    a, b = _wellcond(rng, 2, 1, 3, 3), rng.standard_normal((4, 3, 2))
    got = tsl.solve_triangular(a, b, lower=True, trans=1)
    assert got.shape == (2, 4, 3, 2)
    for i in range(2):
        for j in range(4):
            np.testing.assert_allclose(got[i, j], sl.solve_triangular(a[i, 0], b[j], lower=True,
                                                                      trans=1), rtol=1e-13)
    check_grads(lambda a, b: tsl.solve_triangular(a, b, lower=True, trans=1), (a, b), order=2,
                modes=("fwd", "rev"))


@pytest.mark.parametrize("lower, trans, unit", [t for t in TRI if not isinstance(t[1], str)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_solve_triangular_derivatives(lower, trans, unit, dtype):
    rng = _rng(3)
    a, b = _wellcond(rng, 3, 3, dtype=dtype), _wellcond(rng, 3, 2, dtype=dtype)
    check_grads(lambda a, b: tsl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
                (a, b), order=2, modes=("fwd", "rev"))


def test_solve_triangular_without_scipy_uses_numpy(monkeypatch):
    rng = _rng(4)
    a, b = _wellcond(rng, 2, 4, 4), rng.standard_normal((4, 3))
    want = tsl.solve_triangular(a, b, lower=True, trans=2, unit_diagonal=True)
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)  # import scipy.linalg now fails
    got = tsl.solve_triangular(a, b, lower=True, trans=2, unit_diagonal=True)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    with pytest.raises(np.linalg.LinAlgError):
        tsl.solve_triangular(np.zeros((2, 2)), np.ones(2))


def test_solve_triangular_errors():
    a, b = np.eye(3), np.ones(3)
    with pytest.raises(ValueError, match="trans must be"):
        tsl.solve_triangular(a, b, trans="X")
    with pytest.raises(ValueError, match="does not match"):
        tsl.solve_triangular(a, np.ones(4))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        tsl.solve_triangular(np.ones((2, 3)), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError):
        tsl.solve_triangular(np.diag([1.0, 0.0, 2.0]), b)  # singular triangle


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_solve_match_scipy(lower):
    rng = _rng(5)
    a, b = _spd(rng, 5), rng.standard_normal((5, 2))
    np.testing.assert_allclose(tsl.cholesky(a, lower=lower), sl.cholesky(a, lower=lower), rtol=1e-13)
    c, low = tsl.cho_factor(a, lower=lower)
    assert low is lower
    other = np.triu(c, 1) if lower else np.tril(c, -1)
    np.testing.assert_array_equal(other, 0.0)  # zeros in the unused triangle (as JAX)
    for rhs in (b, b[:, 0]):
        np.testing.assert_allclose(tsl.cho_solve((c, lower), rhs),
                                   sl.cho_solve(sl.cho_factor(a, lower=lower), rhs), rtol=1e-12)
    check_grads(lambda c, b: tsl.cho_solve((c, lower), b), (np.asarray(c), b), order=2,
                modes=("fwd", "rev"))
    check_grads(lambda a, b: tsl.cho_solve(tsl.cho_factor(_sym(a), lower=lower), b), (a, b),
                order=2, modes=("fwd", "rev"))


def test_cho_solve_errors():
    with pytest.raises(TypeError, match="pair"):
        tsl.cho_solve(np.eye(2), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError):
        tsl.cho_factor(-np.eye(2))


@pytest.mark.parametrize("assume_a", [None, "gen", "sym", "her", "pos", "positive definite",
                                      "lower triangular", "upper triangular", "diagonal"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_matches_scipy(assume_a, lower):
    rng = _rng(6)
    a = np.diag(rng.uniform(1.0, 2.0, 4)) if assume_a == "diagonal" else _spd(rng, 4)
    a = a + 0.1 * np.triu(rng.standard_normal((4, 4)), 1)  # the unread triangle differs
    if assume_a == "diagonal":
        a = np.diag(np.diag(a))
    b = rng.standard_normal((4, 3))
    for rhs in (b, b[:, 1]):
        np.testing.assert_allclose(tsl.solve(a, rhs, lower=lower, assume_a=assume_a),
                                   sl.solve(a, rhs, lower=lower, assume_a=assume_a), rtol=1e-12)
    check_grads(lambda a, b: tsl.solve(a, b, lower=lower, assume_a=assume_a), (a, b), order=2,
                modes=("fwd", "rev"))


def test_solve_transposed_and_errors():
    rng = _rng(7)
    a, b = _wellcond(rng, 3, 3), rng.standard_normal(3)
    np.testing.assert_allclose(tsl.solve(a, b, transposed=True), sl.solve(a, b, transposed=True),
                               rtol=1e-13)
    with pytest.raises(ValueError, match="assume_a"):
        tsl.solve(a, b, assume_a="banded")
    with pytest.raises(ValueError, match="real matrices"):
        tsl.solve(a + 1j, b, transposed=True)


def test_inv_det_svd_qr_match_scipy():
    rng = _rng(8)
    a, tall = _wellcond(rng, 4, 4), rng.standard_normal((5, 3))
    np.testing.assert_allclose(tsl.inv(a), sl.inv(a), rtol=1e-13)
    np.testing.assert_allclose(tsl.det(a), sl.det(a), rtol=1e-13)
    for full in (True, False):
        u, s, vh = tsl.svd(tall, full_matrices=full)
        U, S, VH = sl.svd(tall, full_matrices=full)
        assert (u.shape, vh.shape) == (U.shape, VH.shape)
        np.testing.assert_allclose(s, S, rtol=1e-13)
    np.testing.assert_allclose(tsl.svd(tall, compute_uv=False), sl.svd(tall, compute_uv=False),
                               rtol=1e-13)
    for mode in ("full", "economic"):
        q, r = tsl.qr(tall, mode=mode)
        Q, R = sl.qr(tall, mode=mode)
        assert (q.shape, r.shape) == (Q.shape, R.shape)
        np.testing.assert_allclose(q @ r, tall, atol=1e-13)
        np.testing.assert_allclose(np.abs(r), np.abs(R), atol=1e-13)
    (r,) = tsl.qr(tall, mode="r")
    np.testing.assert_allclose(np.abs(r), np.abs(sl.qr(tall, mode="r")[0]), atol=1e-13)
    check_grads(lambda m: tsl.qr(m, mode="economic")[1], (tall,), order=2, modes=("fwd", "rev"))
    np.testing.assert_array_equal(tsl.qr(tall, pivoting=True)[2], sl.qr(tall, pivoting=True)[2])
    with pytest.raises(ValueError, match="mode"):
        tsl.qr(tall, mode="raw")


@pytest.mark.parametrize("lower", [True, False])
def test_eigh_standard_and_generalized_match_scipy(lower):
    rng = _rng(9)
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    a = q @ np.diag([1.0, 2.5, 4.0, 5.5]) @ q.T
    b = _spd(rng, 4)
    junk = 10.0 * (np.triu(np.ones((4, 4)), 1) if lower else np.tril(np.ones((4, 4)), -1))
    for args in ((a + junk,), (a + junk, b + junk)):
        w, v = tsl.eigh(*args, lower=lower)
        W, V = sl.eigh(*args, lower=lower)
        np.testing.assert_allclose(w, W, rtol=1e-12)
        np.testing.assert_allclose(np.abs(v), np.abs(V), atol=1e-12)  # up to each column's sign
        np.testing.assert_allclose(tsl.eigh(*args, lower=lower, eigvals_only=True), W, rtol=1e-12)
    w, v = tsl.eigh(a, b)
    np.testing.assert_allclose(v.T @ b @ v, np.eye(4), atol=1e-12)  # B-orthonormal
    check_grads(lambda a, b: tsl.eigh(_sym(a), _sym(b), eigvals_only=True), (a, b), order=2,
                modes=("fwd", "rev"))
    # v v^T = B^-1 does not depend on the columns' signs
    check_grads(lambda a, b: (lambda v: v @ v.T + v * v)(tsl.eigh(_sym(a), _sym(b))[1]), (a, b),
                order=1, modes=("fwd", "rev"))
    with pytest.raises(NotImplementedError, match="type=1"):
        tsl.eigh(a, b, type=2)


def test_block_diag_and_toeplitz_match_scipy():
    rng = _rng(10)
    blocks = (rng.standard_normal((2, 3)), rng.standard_normal(2), 1.5, np.ones((1, 1), np.int64))
    got = tsl.block_diag(*blocks)
    want = sl.block_diag(*blocks)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert tsl.block_diag().shape == sl.block_diag().shape == (1, 0)
    with pytest.raises(ValueError, match="more than 2 dimensions"):
        tsl.block_diag(np.ones((2, 2, 2)))
    c, r = rng.standard_normal(4), rng.standard_normal(3)
    np.testing.assert_array_equal(tsl.toeplitz(c, r), sl.toeplitz(c, r))
    cc = c + 1j * rng.standard_normal(4)
    np.testing.assert_array_equal(tsl.toeplitz(cc), sl.toeplitz(cc))
    check_grads(lambda c, r: tsl.toeplitz(c, r), (c, r), order=2, modes=("fwd", "rev"))
    check_grads(lambda x, y: tsl.block_diag(x, y), blocks[:2], order=2, modes=("fwd", "rev"))


def _gp_nll(log_params, x, y):
    """Negative log marginal likelihood of a GP with an RBF kernel."""
    amp, length, noise = tnp.exp(log_params)
    d2 = (x[:, None] - x[None, :]) ** 2
    k = amp * tnp.exp(-0.5 * d2 / length ** 2) + noise * tnp.eye(x.shape[0])
    c, lower = tsl.cho_factor(k, lower=True)
    alpha = tsl.cho_solve((c, lower), y)
    return 0.5 * y @ alpha + tnp.sum(tnp.log(tnp.diagonal(c))) + 0.5 * x.shape[0] * np.log(2 * np.pi)


def test_gp_likelihood_gradient_under_jit_and_vmap():
    rng = _rng(11)
    x = np.sort(rng.uniform(-3.0, 3.0, 12))
    y = np.sin(x) + 0.1 * rng.standard_normal(12)
    p = np.log(np.array([1.0, 0.8, 0.05]))
    # the value against SciPy's Cholesky
    amp, length, noise = np.exp(p)
    k = amp * np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / length ** 2) + noise * np.eye(12)
    cf = sl.cho_factor(k, lower=True)
    want = 0.5 * y @ sl.cho_solve(cf, y) + np.sum(np.log(np.diag(cf[0]))) + 6 * np.log(2 * np.pi)
    np.testing.assert_allclose(_gp_nll(p, x, y), want, rtol=1e-12)
    check_grads(lambda p: _gp_nll(p, x, y), (p,), order=2, modes=("fwd", "rev"))
    g = tg.grad(_gp_nll)(p, x, y)
    np.testing.assert_allclose(tg.jit(tg.grad(_gp_nll))(p, x, y), g, rtol=1e-10)
    ps = p + 0.1 * rng.standard_normal((3, 3))
    np.testing.assert_allclose(tg.vmap(tg.grad(_gp_nll), in_axes=(0, None, None))(ps, x, y),
                               np.stack([tg.grad(_gp_nll)(q, x, y) for q in ps]), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_lu_factor_lu_solve_and_lu_match_scipy(dtype):
    rng = _rng(12)
    a = (rng.standard_normal((5, 5)) + (1j * rng.standard_normal((5, 5)) if dtype == np.complex128
                                         else 0)).astype(dtype)
    b = rng.standard_normal((5, 2)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    lu, piv = tsl.lu_factor(a)
    LU, PIV = sl.lu_factor(a)
    assert lu.dtype == LU.dtype and piv.dtype == np.int32
    np.testing.assert_array_equal(piv, PIV)
    np.testing.assert_allclose(lu, LU, rtol=tol, atol=tol)
    np.testing.assert_array_equal(tsl.lu_solve((lu, piv), b, trans="T"),
                                  tsl.lu_solve((lu, piv), b, trans=1))
    for trans in (0, 1, 2):
        for rhs in (b, b[:, 0]):
            np.testing.assert_allclose(tsl.lu_solve((lu, piv), rhs, trans=trans),
                                       sl.lu_solve((LU, PIV), rhs, trans=trans), rtol=tol, atol=tol)
    for got, want in zip(tsl.lu(a), sl.lu(a)):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    for got, want in zip(tsl.lu(a, permute_l=True), sl.lu(a, permute_l=True)):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    p, low, up = tsl.lu(a, p_indices=True)
    np.testing.assert_array_equal(p, sl.lu(a, p_indices=True)[0])
    np.testing.assert_allclose(low[p] @ up, a, rtol=tol, atol=tol)


def test_lu_without_scipy_and_singular(monkeypatch):
    rng = _rng(13)
    a = rng.standard_normal((3, 4, 4))
    want = tsl.lu_factor(a)
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "scipy.linalg", None)  # import scipy.linalg now fails
        got = tsl.lu_factor(a)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(got[1], want[1])
    lu, piv = tsl.lu_factor(np.ones((3, 3)))  # singular: factors, U has zeros on its diagonal
    assert np.diag(lu)[1:].tolist() == [0.0, 0.0]
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        tsl.lu_factor(np.ones((2, 3)))
    with pytest.raises(TypeError, match="pair"):
        tsl.lu_solve(np.eye(2), np.ones(2))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_lu_derivatives(dtype):
    rng = _rng(14)
    a = _wellcond(rng, 4, 4, dtype=dtype) - 3.0 * np.eye(4)  # pivoting happens
    b = _wellcond(rng, 4, 2, dtype=dtype)
    check_grads(lambda a: tsl.lu_factor(a)[0], (a,), order=2, modes=("fwd", "rev"))
    check_grads(lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b), (a, b), order=2, modes=("fwd", "rev"))
    check_grads(lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b, trans=2), (a, b), order=1,
                modes=("fwd", "rev"))
    check_grads(lambda a: tsl.lu(a)[1:], (a,), order=2, modes=("fwd", "rev"))
    # under jit and vmap
    f = lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b)  # noqa: E731
    np.testing.assert_allclose(tg.jit(f)(a, b), np.linalg.solve(a, b), rtol=1e-12)
    stack = np.stack([a, a.T])
    np.testing.assert_allclose(tg.vmap(f, in_axes=(0, None))(stack, b),
                               np.linalg.solve(stack, b), rtol=1e-12)
    g = tg.grad(lambda a: tnp.sum(tnp.abs(f(a, b)) ** 2))
    np.testing.assert_allclose(tg.jit(g)(a), g(a), rtol=1e-10)


@pytest.mark.parametrize("scale", [0.0, 1e-3, 1.0, 8.0])
def test_expm_and_frechet_match_scipy(scale):
    rng = _rng(15)
    a, e = scale * rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    np.testing.assert_allclose(tsl.expm(a), sl.expm(a), rtol=1e-13, atol=1e-15)
    ex, frechet = tsl.expm_frechet(a, e)
    EX, FR = sl.expm_frechet(a, e)
    np.testing.assert_allclose(ex, EX, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(frechet, FR, rtol=1e-10, atol=1e-12 * np.abs(FR).max())
    np.testing.assert_allclose(tsl.expm_frechet(a, e, compute_expm=False), frechet)
    if scale:
        # the JVP is the Frechet derivative; the VJP its transpose
        np.testing.assert_allclose(tg.jvp(tsl.expm, (a,), (e,))[1], FR, rtol=1e-10,
                                   atol=1e-12 * np.abs(FR).max())
        np.testing.assert_allclose(tg.vjp(tsl.expm, a)[1](e)[0], sl.expm_frechet(a.T, e)[1],
                                   rtol=1e-10, atol=1e-12 * np.abs(FR).max())


def test_expm_values_without_scipy_and_derivatives(monkeypatch):
    rng = _rng(16)
    a = rng.standard_normal((2, 4, 4))
    want = sl.expm(a)
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "scipy.linalg", None)
        got = tsl.expm(a)  # scaling and squaring with the [13/13] Pade approximant
    np.testing.assert_allclose(got, want, rtol=1e-13)
    np.testing.assert_array_equal(tsl.expm(np.zeros((3, 3))), np.eye(3))
    np.testing.assert_allclose(tsl.expm(np.diag([1.0, -2.0])), np.diag(np.exp([1.0, -2.0])), rtol=1e-15)
    check_grads(tsl.expm, (a[0],), order=2, modes=("fwd", "rev"))
    check_grads(tsl.expm, (a[0] + 0.5j * a[1],), order=2, modes=("fwd", "rev"))
    f = lambda m: tnp.sum(tsl.expm(m) ** 2)  # noqa: E731
    np.testing.assert_allclose(tg.jit(tg.grad(f))(a), tg.grad(f)(a), rtol=1e-10)
    np.testing.assert_allclose(tg.vmap(tsl.expm)(a), want, rtol=1e-13)
    with pytest.raises(ValueError, match="same shape"):
        tsl.expm_frechet(a[0], a[0][:3, :3])
    with pytest.raises(ValueError, match="method"):
        tsl.expm_frechet(a[0], a[1], method="Pade")


def test_solve_banded_matches_scipy_and_differentiates():
    import scipy.linalg as sl

    rng = np.random.default_rng(7)
    for (lo, up), rhs in [((1, 1), (5,)), ((1, 2), (6, 2)), ((0, 2), (4,)), ((2, 0), (4, 3))]:
        m = rhs[0]
        ab = rng.standard_normal((lo + up + 1, m))
        ab[up] += 5.0  # a dominant diagonal: well conditioned
        b = rng.standard_normal(rhs)
        np.testing.assert_allclose(tsl.solve_banded((lo, up), ab, b),
                                   sl.solve_banded((lo, up), ab, b), rtol=1e-12, atol=1e-14)
    ab = rng.standard_normal((3, 5)) + np.array([[0.0], [4.0], [0.0]])
    b = rng.standard_normal(5)
    check_grads(lambda a, v: tsl.solve_banded((1, 1), a, v), (ab, b), order=2,
                modes=("fwd", "rev"))
    # the corners of ab outside the matrix are not read: zero gradient there
    g = tg.grad(lambda a: tnp.sum(tsl.solve_banded((1, 1), a, b)))(ab)
    assert g[0, 0] == 0.0 and g[2, -1] == 0.0 and np.all(g[1] != 0.0)
    with pytest.raises(ValueError, match=r"l \+ u \+ 1"):
        tsl.solve_banded((1, 2), ab, b)
    with pytest.raises(ValueError, match="5 rows"):
        tsl.solve_banded((1, 1), ab, b[:4])

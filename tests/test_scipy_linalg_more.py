"""tracegrad.scipy.linalg, issue 11: matrix functions, Schur and Hessenberg forms,
polar, eigh_tridiagonal and the special matrices, against SciPy (values),
finite differences (derivatives, to second order) and JAX (derivatives where
jax.scipy.linalg has them)."""
import warnings
from fractions import Fraction

import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
import tracegrad.scipy.linalg as tsl
from tracegrad.test_util import check_grads

sl = pytest.importorskip("scipy.linalg")

FWD_REV = dict(order=2, modes=("fwd", "rev"))


def _rng(seed):
    return np.random.default_rng(seed)


def _wellcond(rng, *shape, scale=0.4):
    return 3.0 * np.eye(shape[-1]) + scale * rng.standard_normal(shape)


def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


# --------------------------------------------------------------------------
# solve_sylvester


@pytest.mark.parametrize("m, n", [(1, 1), (3, 2), (2, 4), (5, 5)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
def test_solve_sylvester_matches_scipy(m, n, dtype):
    rng = _rng(m * 10 + n)
    a, b, q = rng.standard_normal((m, m)), rng.standard_normal((n, n)), rng.standard_normal((m, n))
    if np.dtype(dtype).kind == "c":
        a, q = a + 1j * rng.standard_normal((m, m)), q - 2j * rng.standard_normal((m, n))
    a, b, q = (x.astype(dtype) for x in (a, b, q))
    x = tsl.solve_sylvester(a, b, q)
    want = sl.solve_sylvester(a, b, q)
    assert x.dtype == np.result_type(a, b, q) and x.shape == (m, n)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(x, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(a @ x + x @ b, q, rtol=tol, atol=tol)


def test_solve_sylvester_batches_and_derivatives():
    rng = _rng(1)
    a, b, q = _wellcond(rng, 2, 3, 3), _wellcond(rng, 2, 2), rng.standard_normal((4, 1, 3, 2))
    got = tsl.solve_sylvester(a, b, q)
    assert got.shape == (4, 2, 3, 2)
    for i in range(4):
        for j in range(2):
            np.testing.assert_allclose(got[i, j], sl.solve_sylvester(a[j], b, q[i, 0]), rtol=1e-12)
    check_grads(tsl.solve_sylvester, (a[0], b, q[0, 0]), **FWD_REV)
    check_grads(tsl.solve_sylvester, (a, b, q[:2]), order=1, modes=("rev",))
    np.testing.assert_allclose(tg.vmap(tsl.solve_sylvester, in_axes=(0, None, None))(a, b, q[0, 0]),
                               got[0], rtol=1e-13)
    np.testing.assert_allclose(tg.jit(tsl.solve_sylvester)(a, b, q), got, rtol=1e-13)


def test_solve_sylvester_errors():
    with pytest.raises(np.linalg.LinAlgError):
        tsl.solve_sylvester(np.ones((2, 3)), np.eye(2), np.ones((2, 2)))
    with pytest.raises(np.linalg.LinAlgError):
        tsl.solve_sylvester(np.eye(2), np.ones(3), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"\(\.\.\., M, N\)"):
        tsl.solve_sylvester(np.eye(2), np.eye(3), np.ones((3, 2)))


def test_solve_sylvester_values_match_jax():
    # jax.scipy.linalg.solve_sylvester goes through schur, so JAX has no
    # derivative to compare with; the derivatives are checked above
    _jax()
    jsl = pytest.importorskip("jax.scipy.linalg")
    rng = _rng(2)
    a, b, q = _wellcond(rng, 3, 3), _wellcond(rng, 2, 2), rng.standard_normal((3, 2))
    np.testing.assert_allclose(tsl.solve_sylvester(a, b, q), jsl.solve_sylvester(a, b, q), rtol=1e-10)


# --------------------------------------------------------------------------
# sqrtm and logm


def _matrices(rng):
    n = 4
    spd = (lambda m: m @ m.T + np.eye(n))(rng.standard_normal((n, n)))
    return {
        "spd": spd,
        "general": _wellcond(rng, n, n, scale=0.8),
        "complex": _wellcond(rng, n, n) + 0.5j * rng.standard_normal((n, n)),
        "negative-eigenvalues": -spd,  # the principal root/log is complex
        "large": 1e6 * _wellcond(rng, n, n),
        "small": 1e-6 * _wellcond(rng, n, n),
    }


@pytest.mark.parametrize("kind", ["spd", "general", "complex", "negative-eigenvalues", "large", "small"])
def test_sqrtm_and_logm_match_scipy(kind):
    a = _matrices(_rng(3))[kind]
    x = tsl.sqrtm(a)
    assert x.dtype == np.complex128
    np.testing.assert_allclose(x, sl.sqrtm(a), rtol=1e-12, atol=1e-12 * np.abs(x).max())
    np.testing.assert_allclose(x @ x, a, rtol=1e-10, atol=1e-10 * np.abs(a).max())
    lg = tsl.logm(a)
    assert lg.dtype == np.complex128
    np.testing.assert_allclose(lg, sl.logm(a), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sl.expm(lg), a, rtol=1e-9, atol=1e-9 * np.abs(a).max())


def test_sqrtm_logm_edge_values_and_dtypes():
    np.testing.assert_array_equal(tsl.sqrtm(np.eye(3)), np.eye(3))
    np.testing.assert_array_equal(tsl.sqrtm(np.zeros((2, 2))), np.zeros((2, 2)))
    np.testing.assert_array_equal(tsl.logm(np.eye(3)), np.zeros((3, 3)))
    np.testing.assert_allclose(tsl.sqrtm(np.diag([4.0, 9.0])), np.diag([2.0, 3.0]), rtol=1e-15)
    np.testing.assert_allclose(tsl.logm(np.diag([1.0, np.e])), np.diag([0.0, 1.0]), atol=1e-15)
    # the principal values on the negative axis: sqrt(-1) = i, log(-1) = i pi
    np.testing.assert_allclose(tsl.sqrtm(-np.eye(2)), 1j * np.eye(2), atol=1e-15)
    np.testing.assert_allclose(tsl.logm(-np.eye(2)), 1j * np.pi * np.eye(2), atol=1e-15)
    a32 = _wellcond(_rng(4), 3, 3).astype(np.float32)
    assert tsl.sqrtm(a32).dtype == np.complex64 and tsl.logm(a32).dtype == np.complex64
    np.testing.assert_allclose(tsl.sqrtm(a32), sl.sqrtm(a32.astype(np.float64)), rtol=1e-5, atol=1e-6)
    x, err = tsl.sqrtm(a32.astype(np.float64), disp=False)
    assert 0.0 <= float(err) < 1e-25
    lg, err = tsl.logm(a32.astype(np.float64), disp=False)
    assert 0.0 <= float(err) < 1e-14
    for fn in (tsl.sqrtm, tsl.logm):
        with pytest.raises(np.linalg.LinAlgError):
            fn(np.ones((2, 3)))


def test_sqrtm_logm_derivatives():
    rng = _rng(5)
    a = _wellcond(rng, 3, 3)
    c = a + 0.3j * rng.standard_normal((3, 3))
    for fn in (tsl.sqrtm, tsl.logm):
        check_grads(fn, (a,), **FWD_REV)
        check_grads(fn, (c,), **FWD_REV)
        f = lambda m, fn=fn: tnp.sum(tnp.abs(fn(m)) ** 2)  # noqa: E731
        check_grads(f, (a,), order=2, modes=("rev",))
    # the derivative of sqrtm solves X dX + dX X = dA; of logm, expm(L) = A
    e = rng.standard_normal((3, 3))
    x, dx = tg.jvp(tsl.sqrtm, (a,), (e,))
    np.testing.assert_allclose(x @ dx + dx @ x, e, atol=1e-12)
    lg, dl = tg.jvp(tsl.logm, (a,), (e,))
    np.testing.assert_allclose(sl.expm_frechet(lg.real, dl.real, compute_expm=False), e, atol=1e-10)


def test_sqrtm_logm_vmap_jit():
    a = _wellcond(_rng(6), 3, 4, 4)
    for fn in (tsl.sqrtm, tsl.logm):
        want = np.stack([fn(m) for m in a])
        np.testing.assert_allclose(fn(a), want, rtol=1e-13)
        np.testing.assert_allclose(tg.vmap(fn)(a), want, rtol=1e-13)
        np.testing.assert_allclose(tg.jit(fn)(a), want, rtol=1e-13)
        g = tg.grad(lambda m, fn=fn: tnp.real(tnp.sum(fn(m))))
        np.testing.assert_allclose(tg.vmap(g)(a), np.stack([g(m) for m in a]), rtol=1e-10)


def test_sqrtm_values_match_jax():
    _jax()
    jsl = pytest.importorskip("jax.scipy.linalg")
    a = _matrices(_rng(7))["general"]
    np.testing.assert_allclose(tsl.sqrtm(a), jsl.sqrtm(a), rtol=1e-9)


# --------------------------------------------------------------------------
# schur, rsf2csf, hessenberg


def test_schur_matches_scipy():
    rng = _rng(8)
    a = rng.standard_normal((5, 5))
    for output in ("real", "complex"):
        t, z = tsl.schur(a, output=output)
        want_t, want_z = sl.schur(a, output=output)
        assert t.dtype == want_t.dtype and z.dtype == want_z.dtype
        np.testing.assert_allclose(t, want_t, atol=1e-13)
        np.testing.assert_allclose(z, want_z, atol=1e-13)
        np.testing.assert_allclose(z @ t @ z.conj().T, a, atol=1e-12)
    c = a + 1j * rng.standard_normal((5, 5))
    t, z = tsl.schur(c)  # complex input: the complex form, as SciPy
    assert t.dtype == np.complex128
    np.testing.assert_allclose(t, sl.schur(c)[0], atol=1e-13)
    stack = rng.standard_normal((3, 4, 4))
    t, z = tg.vmap(tsl.schur)(stack)
    for i in range(3):
        np.testing.assert_allclose(t[i], sl.schur(stack[i])[0], atol=1e-13)
    np.testing.assert_allclose(tg.jit(tsl.schur)(stack)[0], t, atol=1e-15)


def test_schur_hessenberg_errors_and_no_derivative():
    a = _wellcond(_rng(9), 3, 3)
    with pytest.raises(ValueError, match="output"):
        tsl.schur(a, output="quasi")
    with pytest.raises(NotImplementedError, match="sort"):
        tsl.schur(a, sort="lhp")
    with pytest.raises(np.linalg.LinAlgError):
        tsl.schur(np.ones((2, 3)))
    with pytest.raises(NotImplementedError, match="not differentiable"):
        tg.grad(lambda m: tnp.sum(tsl.schur(m)[0]))(a)
    with pytest.raises(NotImplementedError, match="not differentiable"):
        tg.jvp(lambda m: tsl.hessenberg(m), (a,), (a,))


def test_rsf2csf_matches_scipy_and_differentiates():
    rng = _rng(10)
    for n in (1, 2, 5, 6):
        a = rng.standard_normal((n, n))
        t, z = sl.schur(a)
        got_t, got_z = tsl.rsf2csf(t, z)
        want_t, want_z = sl.rsf2csf(t, z)
        np.testing.assert_allclose(got_t, want_t, atol=1e-13)
        np.testing.assert_allclose(got_z, want_z, atol=1e-13)
        assert np.all(np.tril(np.asarray(got_t), -1) == 0)
        np.testing.assert_allclose(got_z @ got_t @ got_z.conj().T, a, atol=1e-12)
    t, z = sl.schur(rng.standard_normal((4, 4)))
    got = tg.jit(tsl.rsf2csf)(t, z)
    np.testing.assert_allclose(got[0], sl.rsf2csf(t, z)[0], atol=1e-13)
    with pytest.raises(ValueError, match="one shape"):
        tsl.rsf2csf(t, z[:3, :3])


def test_rsf2csf_derivatives_match_jax():
    jax = _jax()
    jsl = pytest.importorskip("jax.scipy.linalg")
    rng = _rng(11)
    t = np.triu(rng.standard_normal((3, 3)))
    t[0, 1], t[1, 0], t[1, 1] = 1.5, -2.0, t[0, 0]
    z = rng.standard_normal((3, 3))
    mask = np.triu(np.ones((3, 3)))
    mask[1, 0] = 1.0

    def f(ns, lib):
        return lambda tt, zz: ns.abs(lib.rsf2csf(tt * mask, zz)[0]).sum() + ns.real(
            lib.rsf2csf(tt * mask, zz)[1] * (1 + 2j)).sum()

    import jax.numpy as jnp  # lazy: jax is an optional oracle
    got = tg.grad(f(tnp, tsl), argnums=(0, 1))(t, z)
    want = jax.grad(f(jnp, jsl), argnums=(0, 1))(t, z)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


def test_hessenberg_matches_scipy():
    rng = _rng(12)
    for a in (rng.standard_normal((5, 5)), rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))):
        h = tsl.hessenberg(a)
        np.testing.assert_allclose(h, sl.hessenberg(a), atol=1e-13)
        h, q = tsl.hessenberg(a, calc_q=True)
        want_h, want_q = sl.hessenberg(a, calc_q=True)
        np.testing.assert_allclose(q, want_q, atol=1e-13)
        assert np.all(np.tril(np.asarray(h), -2) == 0)
        np.testing.assert_allclose(q @ h @ q.conj().T, a, atol=1e-12)
    stack = rng.standard_normal((2, 3, 3))
    np.testing.assert_allclose(tg.vmap(tsl.hessenberg)(stack), [sl.hessenberg(m) for m in stack],
                               atol=1e-13)
    with pytest.raises(np.linalg.LinAlgError):
        tsl.hessenberg(np.ones((2, 3)))


# --------------------------------------------------------------------------
# polar


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5)])
@pytest.mark.parametrize("side", ["right", "left"])
def test_polar_matches_scipy(shape, side):
    rng = _rng(13)
    for a in (rng.standard_normal(shape), rng.standard_normal(shape) + 1j * rng.standard_normal(shape)):
        u, p = tsl.polar(a, side=side)
        want_u, want_p = sl.polar(a, side=side)
        assert u.shape == want_u.shape and p.shape == want_p.shape and u.dtype == want_u.dtype
        np.testing.assert_allclose(u, want_u, atol=1e-12)
        np.testing.assert_allclose(p, want_p, atol=1e-12)
        np.testing.assert_allclose(u @ p if side == "right" else p @ u, a, atol=1e-12)


def test_polar_derivatives_vmap_and_errors():
    rng = _rng(14)
    a = _wellcond(rng, 3, 3)
    check_grads(lambda m: tsl.polar(m), (a,), **FWD_REV)
    check_grads(lambda m: tsl.polar(m, "left"), (rng.standard_normal((4, 3)),), **FWD_REV)
    stack = rng.standard_normal((2, 3, 3))
    u, p = tg.vmap(tsl.polar)(stack)
    np.testing.assert_allclose(u[1], sl.polar(stack[1])[0], atol=1e-12)
    with pytest.raises(ValueError, match="side"):
        tsl.polar(a, side="up")


def test_polar_derivatives_match_jax_svd_method():
    jax = _jax()
    jsl = pytest.importorskip("jax.scipy.linalg")
    rng = _rng(15)
    a, e = _wellcond(rng, 3, 3), rng.standard_normal((3, 3))
    _, (ju, jp) = jax.jvp(lambda m: jsl.polar(m, method="svd"), (a,), (e,))
    _, (tu, tp) = tg.jvp(tsl.polar, (a,), (e,))
    np.testing.assert_allclose(tu, ju, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(tp, jp, rtol=1e-8, atol=1e-10)


# --------------------------------------------------------------------------
# eigh_tridiagonal


@pytest.mark.parametrize("n", [1, 2, 6])
def test_eigh_tridiagonal_matches_scipy(n):
    rng = _rng(16 + n)
    d, e = rng.standard_normal(n), rng.standard_normal(n - 1)
    w = tsl.eigh_tridiagonal(d, e, eigvals_only=True)
    np.testing.assert_allclose(w, sl.eigh_tridiagonal(d, e, eigvals_only=True), rtol=1e-13, atol=1e-14)
    w, v = tsl.eigh_tridiagonal(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(t @ v, v * w, atol=1e-13)
    want_v = sl.eigh_tridiagonal(d, e)[1]
    np.testing.assert_allclose(np.abs(v), np.abs(want_v), atol=1e-12)
    lo, hi = 0, n - 1
    got = tsl.eigh_tridiagonal(d, e, select="i", select_range=(lo, hi))
    want = sl.eigh_tridiagonal(d, e, select="i", select_range=(lo, hi))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13, atol=1e-14)
    assert got[1].shape == want[1].shape


def test_eigh_tridiagonal_derivatives_and_errors():
    rng = _rng(17)
    d, e = rng.standard_normal(5), rng.standard_normal(4)
    check_grads(lambda x, y: tsl.eigh_tridiagonal(x, y, eigvals_only=True), (d, e), **FWD_REV)
    # dw_k = v_k^T dT v_k
    w, v = tsl.eigh_tridiagonal(d, e)
    g = tg.grad(lambda x: tsl.eigh_tridiagonal(x, e, eigvals_only=True)[2])(d)
    np.testing.assert_allclose(g, np.asarray(v)[:, 2] ** 2, atol=1e-12)
    np.testing.assert_allclose(tg.jit(lambda x, y: tsl.eigh_tridiagonal(x, y, eigvals_only=True))(d, e),
                               w, rtol=1e-13)
    with pytest.raises(NotImplementedError, match="select='v'"):
        tsl.eigh_tridiagonal(d, e, select="v", select_range=(0.0, 1.0))
    with pytest.raises(ValueError, match="len"):
        tsl.eigh_tridiagonal(d, e[:2])
    with pytest.raises(ValueError, match="select_range"):
        tsl.eigh_tridiagonal(d, e, select="i", select_range=(3, 9))


def test_eigh_tridiagonal_derivatives_match_jax():
    jax = _jax()
    jsl = pytest.importorskip("jax.scipy.linalg")
    rng = _rng(18)
    d, e = rng.standard_normal(5), rng.standard_normal(4)
    f_t = lambda x, y: tnp.sum(tsl.eigh_tridiagonal(x, y, eigvals_only=True) ** 3)  # noqa: E731
    f_j = lambda x, y: (jsl.eigh_tridiagonal(x, y, eigvals_only=True) ** 3).sum()  # noqa: E731
    np.testing.assert_allclose(f_t(d, e), f_j(d, e), rtol=1e-10)
    # jax.scipy.linalg.eigh_tridiagonal is a bisection loop: no reverse mode,
    # and its forward derivative is not the eigenvalues' (it disagrees with
    # finite differences), so the derivative oracle is JAX's eigvalsh of the
    # tridiagonal matrix
    import jax.numpy as jnp  # lazy: jax is an optional oracle

    def f_dense(x, y):
        return (jnp.linalg.eigvalsh(jnp.diag(x) + jnp.diag(y, 1) + jnp.diag(y, -1)) ** 3).sum()

    for got, want in zip(tg.grad(f_t, argnums=(0, 1))(d, e), jax.grad(f_dense, argnums=(0, 1))(d, e)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    hess = tg.hessian(f_t)(d, e)
    np.testing.assert_allclose(hess, jax.hessian(f_dense)(d, e), rtol=1e-8, atol=1e-10)


# --------------------------------------------------------------------------
# special matrices


def _same(got, want, rtol=1e-14):
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype,
                                                                  want.dtype)
    if want.dtype == object:
        assert (got == want).all()
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


def test_array_constructors_match_scipy():
    rng = _rng(19)
    v, x = rng.standard_normal(5), rng.standard_normal((2, 5))
    for c in (v, x, np.arange(4), np.array([2.5]), v + 1j):
        _same(tsl.circulant(c), sl.circulant(c))
        _same(tsl.fiedler(c), sl.fiedler(c))
    for c in (v, x, np.arange(1, 4), np.array([2.0, 3.0])):
        _same(tsl.companion(c), sl.companion(c))
    for k in range(0, 8):
        a = rng.standard_normal(k)
        _same(tsl.fiedler_companion(a), sl.fiedler_companion(a))
    _same(tsl.fiedler_companion(x), sl.fiedler_companion(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # SciPy's note on n-d input
        for c, r in ((v, None), (v, x[0, :3]), (np.arange(4), None), (np.arange(3), np.arange(5.0)),
                     (x, None)):
            _same(tsl.hankel(c, r), sl.hankel(c, r))
    _same(tsl.leslie(v, v[:4]), sl.leslie(v, v[:4]))
    _same(tsl.leslie(x, v[:4]), sl.leslie(x, v[:4]))
    _same(tsl.leslie([1, 2], [3]), sl.leslie([1, 2], [3]))
    for m in (1, 3, 6):
        for n in (1, 2, 4, 7):
            a = rng.standard_normal(m)
            for mode in ("full", "same", "valid"):
                got = tsl.convolution_matrix(a, n, mode)
                _same(got, sl.convolution_matrix(a, n, mode))
                u = rng.standard_normal(n)
                np.testing.assert_allclose(np.asarray(got) @ u, np.convolve(a, u, mode), atol=1e-13)
    _same(tsl.convolution_matrix(x, 3), sl.convolution_matrix(x, 3))


def test_constant_constructors_match_scipy():
    for n in (0, 1, 2, 5, 8):
        for scale in (None, "sqrtn", "n"):
            _same(tsl.dft(n, scale), sl.dft(n, scale), rtol=1e-13)
    for n in (1, 2, 4, 16):
        _same(tsl.hadamard(n), sl.hadamard(n))
        _same(tsl.hadamard(n, dtype=float), sl.hadamard(n, dtype=float))
    for n in (1, 2, 5):
        _same(tsl.helmert(n), sl.helmert(n))
        _same(tsl.helmert(n, full=True), sl.helmert(n, full=True))
    for n in (0, 1, 5):
        _same(tsl.hilbert(n), sl.hilbert(n))
    for n in (0, 1, 4, 14, 15, 20):
        _same(tsl.invhilbert(n), sl.invhilbert(n))
        _same(tsl.invhilbert(n, exact=True), sl.invhilbert(n, exact=True))
    for n in (0, 1, 4, 34, 35):
        for kind in ("symmetric", "lower", "upper"):
            for exact in (True, False):
                _same(tsl.pascal(n, kind, exact), sl.pascal(n, kind, exact))
                _same(tsl.invpascal(n, kind, exact), sl.invpascal(n, kind, exact))
    # exact inverses
    exact = np.array([[Fraction(1, i + j + 1) for j in range(6)] for i in range(6)], dtype=object)
    assert (tsl.invhilbert(6, exact=True).astype(object) @ exact == np.eye(6, dtype=int)).all()
    np.testing.assert_array_equal(tsl.invpascal(7) @ tsl.pascal(7).astype(np.int64), np.eye(7))
    np.testing.assert_allclose(tsl.invhilbert(5) @ tsl.hilbert(5), np.eye(5), atol=1e-9)
    np.testing.assert_allclose(tsl.helmert(5) @ tsl.helmert(5).T, np.eye(4), atol=1e-15)
    h = tsl.hadamard(8)
    np.testing.assert_array_equal(h @ h.T, 8 * np.eye(8))
    w = tsl.dft(6, "sqrtn")
    np.testing.assert_allclose(w @ w.conj().T, np.eye(6), atol=1e-14)


def test_constructor_errors():
    with pytest.raises(ValueError, match="power of 2"):
        tsl.hadamard(6)
    with pytest.raises(ValueError, match="scale"):
        tsl.dft(4, "ortho")
    for fn in (tsl.pascal, tsl.invpascal):
        with pytest.raises(ValueError, match="kind"):
            fn(3, "diagonal")
    with pytest.raises(ValueError, match="positive"):
        tsl.convolution_matrix([1.0, 2.0], 0)
    with pytest.raises(ValueError, match="mode"):
        tsl.convolution_matrix([1.0, 2.0], 3, "circular")
    with pytest.raises(ValueError, match="leading coefficient"):
        tsl.companion([0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="at least 2"):
        tsl.companion([1.0])
    with pytest.raises(ValueError, match="one shorter"):
        tsl.leslie([1.0, 2.0, 3.0], [1.0])
    with pytest.raises(ValueError, match="at least 1"):
        tsl.leslie([1.0], [])


def test_constructors_differentiate_vmap_and_jit():
    rng = _rng(20)
    v, w = rng.standard_normal(4), rng.standard_normal(3)
    for fn, args in [(tsl.circulant, (v,)), (tsl.hankel, (v, w)), (tsl.companion, (v + 3.0,)),
                     (tsl.fiedler, (v,)), (tsl.fiedler_companion, (v + 3.0,)), (tsl.leslie, (v, w)),
                     (lambda a: tsl.convolution_matrix(a, 3, "same"), (v,))]:
        check_grads(fn, args, **FWD_REV)
        stacked = tuple(np.stack([a, 2.0 * a + 1.0]) for a in args)
        want = np.stack([fn(*(a[i] for a in stacked)) for i in range(2)])
        np.testing.assert_allclose(tg.vmap(fn)(*stacked), want, rtol=1e-14)
        np.testing.assert_allclose(tg.jit(fn)(*args), fn(*args), rtol=1e-14)
    # the circulant's gradient: each entry of c appears n times
    np.testing.assert_allclose(tg.grad(lambda c: tnp.sum(tsl.circulant(c)))(v), np.full(4, 4.0))


def test_constructors_match_jax():
    _jax()
    jsl = pytest.importorskip("jax.scipy.linalg")
    rng = _rng(21)
    v, w = rng.standard_normal(5), rng.standard_normal(4)
    for name, args in [("circulant", (v,)), ("hankel", (v, w)), ("companion", (v,)),
                       ("fiedler", (v,)), ("fiedler_companion", (v,)), ("leslie", (v, w)),
                       ("convolution_matrix", (v, 3, "valid")), ("dft", (4,)), ("hadamard", (4,)),
                       ("helmert", (4,)), ("hilbert", (4,))]:
        if not hasattr(jsl, name):
            continue
        np.testing.assert_allclose(np.asarray(getattr(tsl, name)(*args), dtype=complex),
                                   np.asarray(getattr(jsl, name)(*args), dtype=complex),
                                   rtol=1e-12, atol=1e-12, err_msg=name)


# --------------------------------------------------------------------------
# qr with pivoting, qr_multiply


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (4, 4)])
def test_qr_pivoting_and_qr_multiply_match_scipy(shape):
    rng = _rng(22)
    a = rng.standard_normal(shape)
    for mode in ("full", "economic", "r"):
        got, want = tsl.qr(a, mode=mode, pivoting=True), sl.qr(a, mode=mode, pivoting=True)
        assert len(got) == len(want) and got[-1].dtype == np.int32
        for g, w in zip(got, want):
            assert np.shape(g) == w.shape
            np.testing.assert_allclose(g, w, atol=1e-13)
    q, r, p = tsl.qr(a, mode="economic", pivoting=True)
    np.testing.assert_allclose(np.asarray(q) @ r, a[:, p], atol=1e-13)
    assert np.all(np.diff(np.abs(np.diag(np.asarray(r)))) <= 1e-12)
    m, k = shape[0], min(shape)
    for mode, c in [("right", rng.standard_normal((2, m))), ("right", rng.standard_normal(m)),
                    ("left", rng.standard_normal((k, 3))), ("left", rng.standard_normal(k))]:
        for pivoting in (False, True):
            for conjugate in (False, True):
                got = tsl.qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate)
                want = sl.qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate)
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    assert np.shape(g) == w.shape
                    np.testing.assert_allclose(g, w, atol=1e-13)


def test_qr_pivoting_derivatives_vmap_jit_and_errors():
    rng = _rng(23)
    a = rng.standard_normal((4, 3))
    check_grads(lambda m: tsl.qr(m, mode="economic", pivoting=True)[:2], (a,), order=2,
                modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)
    c = rng.standard_normal((2, 4))
    check_grads(lambda m, x: tsl.qr_multiply(m, x)[0], (a, c), order=2, modes=("fwd", "rev"),
                atol=1e-4, rtol=1e-4)
    stack = rng.standard_normal((3, 4, 3))
    p = tg.vmap(lambda m: tsl.qr(m, pivoting=True)[2])(stack)
    np.testing.assert_array_equal(p, [sl.qr(m, pivoting=True)[2] for m in stack])
    np.testing.assert_allclose(tg.jit(lambda m: tsl.qr(m, pivoting=True)[1])(a),
                               sl.qr(a, pivoting=True)[1], atol=1e-13)
    with pytest.raises(ValueError, match="mode"):
        tsl.qr_multiply(a, c, mode="both")
    with pytest.raises(ValueError, match="does not match"):
        tsl.qr_multiply(a, c.T)
    with pytest.raises(ValueError, match="mode"):
        tsl.qr(a, mode="raw")

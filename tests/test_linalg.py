"""Linear algebra: matmul, dot, vdot, inner, tensordot, einsum and ``tnp.linalg``.

Values are compared with NumPy (stacked inputs, 1-D operands, broadcasting);
derivatives are checked with ``check_grads`` to second order in forward and
reverse mode on well-conditioned inputs (SPD matrices ``A A^T + n I`` for
cholesky, symmetric matrices with separated eigenvalues for eigh, which is
differentiated through a symmetrizing wrapper); every documented edge case
is pinned with its exact value; JAX is an optional oracle.
"""
import numpy as np
import pytest

import tracegrad as tg
import tracegrad.numpy as tnp
from tracegrad.primitives import ShapedArray, registry
from tracegrad.test_util import check_grads

LA = tnp.linalg


def _rng(seed=0):
    return np.random.default_rng(seed)


def normal(shape, seed=0):
    return _rng(seed).standard_normal(shape)


def wellcond(shape, seed=0):
    """``3 I + 0.3 N(0, 1)``: comfortably invertible."""
    return 3.0 * np.eye(shape[-1]) + 0.3 * normal(shape, seed)


def spd(shape, seed=0):
    """``M M^T + n I``: symmetric positive definite."""
    m = normal(shape, seed)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym_distinct(shape, seed=0):
    """Symmetric with eigenvalues 1, 2.5, 4, ... (well separated)."""
    n = shape[-1]
    rng = _rng(seed)
    out = np.empty(shape)
    for idx in np.ndindex(*shape[:-2]):
        q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        out[idx] = q @ np.diag(1.0 + 1.5 * np.arange(n)) @ q.T
    return out


def sym(a):
    """The symmetric part: functions of symmetric matrices are checked through it."""
    return 0.5 * (a + LA.matrix_transpose(a))


def fix_sign(v):
    """Eigen/singular vectors with the sign of each column's largest entry positive."""
    c = _concrete(v)
    idx = np.argmax(np.abs(c), axis=-2)
    return v * np.sign(np.take_along_axis(c, idx[..., None, :], axis=-2))


def _concrete(x):
    from tracegrad.core import concrete_value

    return np.asarray(concrete_value(x))


# --------------------------------------------------------------------------
# products: values against NumPy


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4, 5)),  # batch against a single matrix
    ((3, 4), (2, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),  # broadcast batch axes
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4,), (4, 5)),  # 1-D operands
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
]


def test_matmul_broadcast_batch_cotangents_are_summed():
    a, b = normal((2, 3, 4), 1), normal((4, 5), 2)
    ga, gb = tg.grad(lambda a, b: tnp.sum(tnp.matmul(a, b)), argnums=(0, 1))(a, b)
    assert ga.shape == a.shape and gb.shape == b.shape
    np.testing.assert_allclose(gb, np.einsum("bik->k", a)[:, None] * np.ones((4, 5)), rtol=1e-12)
    np.testing.assert_allclose(ga, np.broadcast_to(b.sum(1), (2, 3, 4)), rtol=1e-12)


def test_matmul_operator_method_and_numpy_dispatch():
    a, b = normal((3, 4), 1), normal((4, 2), 2)
    ref = tg.grad(lambda a: tnp.sum(tnp.sin(tnp.matmul(a, b))))(a)
    for f in (
        lambda a: tnp.sum(tnp.sin(a @ b)),
        lambda a: tnp.sum(tnp.sin(np.matmul(a, b))),
        lambda a: tnp.sum(tnp.sin(a.dot(b))),
        lambda a: tnp.sum(tnp.sin(np.dot(a, b))),
        lambda a: tnp.sum(tnp.sin(np.einsum("ij,jk->ik", a, b))),
    ):
        np.testing.assert_allclose(tg.grad(f)(a), ref, rtol=1e-12)
    # reflected: ndarray @ tracer
    g = tg.grad(lambda b: tnp.sum(tnp.sin(a @ b)))(b)
    np.testing.assert_allclose(g, a.T @ np.cos(a @ b), rtol=1e-12)


def test_numpy_linalg_dispatch_on_tracers():
    a, b = wellcond((3, 3)), normal((3,), 1)
    pairs = [
        (lambda a: np.linalg.inv(a), LA.inv),
        (lambda a: np.linalg.solve(a, b), lambda a: LA.solve(a, b)),
        (lambda a: np.linalg.det(a), LA.det),
        (lambda a: np.linalg.slogdet(a).logabsdet, lambda a: LA.slogdet(a).logabsdet),
        (lambda a: np.linalg.cholesky(np.matmul(a, LA.matrix_transpose(a))),
         lambda a: LA.cholesky(tnp.matmul(a, LA.matrix_transpose(a)))),
        (lambda a: np.linalg.eigh(a + LA.matrix_transpose(a)).eigenvalues,
         lambda a: LA.eigh(a + LA.matrix_transpose(a))[0]),
        (lambda a: np.linalg.eigvalsh(a + LA.matrix_transpose(a)),
         lambda a: LA.eigvalsh(a + LA.matrix_transpose(a))),
        (lambda a: np.linalg.norm(a), LA.norm),
        (lambda a: np.linalg.norm(a, "nuc"), lambda a: LA.norm(a, "nuc")),
        (lambda a: np.linalg.svd(a, compute_uv=False), lambda a: LA.svdvals(a)),
        (lambda a: np.linalg.qr(a).R, lambda a: LA.qr(a).R),
        (lambda a: np.linalg.matrix_power(a, 3), lambda a: LA.matrix_power(a, 3)),
        (lambda a: np.linalg.multi_dot([a, a, b]), lambda a: LA.multi_dot([a, a, b])),
        (lambda a: np.tensordot(a, a), lambda a: tnp.tensordot(a, a)),
        (lambda a: np.inner(a, b), lambda a: tnp.inner(a, b)),
        (lambda a: np.vdot(a, a), lambda a: tnp.vdot(a, a)),
        (lambda a: np.vecdot(a, b), lambda a: tnp.vecdot(a, b)),
        (lambda a: np.linalg.vector_norm(a, ord=3), lambda a: LA.vector_norm(a, ord=3)),
        (lambda a: np.linalg.matrix_norm(a, ord=1), lambda a: LA.matrix_norm(a, ord=1)),
    ]
    for via_numpy, direct in pairs:
        got = tg.grad(lambda a: tnp.sum(tnp.sin(via_numpy(a))))(a)
        ref = tg.grad(lambda a: tnp.sum(tnp.sin(direct(a))))(a)
        np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_matmul_dtypes():
    a32, b32 = normal((3, 4)).astype(np.float32), normal((4, 2)).astype(np.float32)
    assert tnp.matmul(a32, b32).dtype == np.float32
    assert tnp.matmul(a32, b32.astype(np.float64)).dtype == np.float64
    g = tg.grad(lambda a: tnp.sum(tnp.matmul(a, b32.astype(np.float64))))(a32)
    assert g.dtype == np.float32
    ai = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(tnp.matmul(ai, ai.T), ai @ ai.T)


def test_matmul_errors():
    with pytest.raises(ValueError, match="multiply"):
        tnp.matmul(2.0, normal((2, 2)))
    with pytest.raises(ValueError, match="mismatch"):
        tnp.matmul(normal((2, 3)), normal((2, 3)))


DOT_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3, 4)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((2, 3, 4), (4,)),  # N-D dot: last axis of a with the only axis of b
    ((2, 3, 4), (5, 4, 2)),  # every pair multiplied, no batch broadcasting
    ((4,), (2, 4, 3)),
]


@pytest.mark.parametrize(
    "name,sa,sb",
    [("matmul", sa, sb) for sa, sb in MATMUL_SHAPES] + [("dot", sa, sb) for sa, sb in DOT_SHAPES],
)
def test_matmul_and_dot_values_and_grads(name, sa, sb):
    a, b = normal(sa, 1), normal(sb, 2)
    f = getattr(tnp, name)
    np.testing.assert_allclose(f(a, b), getattr(np, name)(a, b), rtol=1e-12)
    check_grads(f, (a, b), order=2, modes=("fwd", "rev"))


def test_vdot_and_inner():
    a, b = normal((2, 3), 1), normal((3, 2), 2)
    np.testing.assert_allclose(tnp.vdot(a, b), np.vdot(a, b), rtol=1e-12)
    check_grads(tnp.vdot, (a, b), order=2)
    c = normal((4, 3), 3)
    np.testing.assert_allclose(tnp.inner(a, c), np.inner(a, c), rtol=1e-12)
    np.testing.assert_allclose(tnp.inner(2.0, c), np.inner(2.0, c), rtol=1e-12)
    check_grads(tnp.inner, (a, c), order=2)
    check_grads(tnp.inner, (normal((3,)), normal((3,), 1)), order=2)
    z = np.array([1 + 2j, 3 - 1j])
    np.testing.assert_allclose(tnp.vdot(z, z), np.vdot(z, z))
    with pytest.raises(ValueError, match="elements"):
        tnp.vdot(normal(3), normal(4))


@pytest.mark.parametrize(
    "sa,sb,axes",
    [
        ((2, 3, 4), (3, 4, 5), 2),
        ((2, 3), (3, 4), 1),
        ((2,), (3,), 0),
        ((2, 3), (2, 3), ([0, 1], [0, 1])),
        ((2, 3, 4), (4, 5, 2), ([0, 2], [2, 0])),
        ((2, 3, 4), (4, 3), ([-1, 1], [0, 1])),
        ((2, 3), (3, 5), (1, 0)),
    ],
)
def test_tensordot(sa, sb, axes):
    a, b = normal(sa, 1), normal(sb, 2)
    np.testing.assert_allclose(tnp.tensordot(a, b, axes), np.tensordot(a, b, axes), rtol=1e-12)
    check_grads(lambda a, b: tnp.tensordot(a, b, axes), (a, b), order=2)


def test_tensordot_errors():
    with pytest.raises(ValueError, match="shape-mismatch"):
        tnp.tensordot(normal((2, 3)), normal((2, 3)), axes=1)
    with pytest.raises(ValueError, match="different lengths"):
        tnp.tensordot(normal((2, 3)), normal((2, 3)), axes=([0, 1], [0]))


def test_vecdot_matvec_vecmat():
    a, b = normal((2, 3, 4), 1), normal((3, 4), 2)
    np.testing.assert_allclose(tnp.vecdot(a, b), np.vecdot(a, b), rtol=1e-12)
    np.testing.assert_allclose(tnp.vecdot(a, a, axis=0), np.vecdot(a, a, axis=0), rtol=1e-12)
    check_grads(tnp.vecdot, (a, b), order=2)
    m, v = normal((2, 3, 4), 3), normal((4,), 4)
    if hasattr(np, "matvec"):
        np.testing.assert_allclose(tnp.matvec(m, v), np.matvec(m, v), rtol=1e-12)
        np.testing.assert_allclose(tnp.vecmat(normal(3), m), np.vecmat(normal(3), m), rtol=1e-12)
    check_grads(tnp.matvec, (m, v), order=2)
    check_grads(tnp.vecmat, (normal((3,)), m), order=2)


# --------------------------------------------------------------------------
# einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(3, 4), (2, 4, 5)]),  # ellipsis broadcasting
    ("i,i->", [(4,), (4,)]),
    ("ij->", [(3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),  # three operands
    ("ij,jk,k->i", [(2, 3), (3, 4), (4,)]),
    ("ij", [(3, 4)]),  # implicit output: identity
    ("ji", [(3, 4)]),  # implicit output: transpose
    ("ij,jk", [(3, 4), (4, 2)]),  # implicit output of a product
    ("ij->ji", [(3, 4)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->", [(2, 3), (2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("iij->j", [(3, 3, 2)]),  # diagonal then sum
    ("iji->j", [(3, 2, 3)]),
    ("iii->i", [(3, 3, 3)]),
    ("ij,jj->i", [(2, 3), (3, 3)]),  # diagonal inside a product
    ("ijk,jl->il", [(2, 3, 4), (3, 5)]),  # k summed in one operand only
    ("i,i->i", [(1,), (3,)]),  # size-1 broadcasting of a plain index
    ("ij,jk->ik", [(2, 1), (3, 4)]),
    ("...,...->...", [(), (3,)]),
    ("i...->...", [(3, 2)]),
    ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES, ids=[c[0] + str(c[1]) for c in EINSUM_CASES])
def test_einsum_values_and_grads(spec, shapes):
    xs = [normal(s, i) for i, s in enumerate(shapes)]
    np.testing.assert_allclose(tnp.einsum(spec, *xs), np.einsum(spec, *xs), rtol=1e-12, atol=1e-12)
    check_grads(lambda *xs: tnp.einsum(spec, *xs), xs, order=2, modes=("fwd", "rev"))


def test_einsum_exact_trace_and_diagonal_gradients():
    a = normal((3, 3))
    np.testing.assert_array_equal(tg.grad(lambda a: tnp.einsum("ii->", a))(a), np.eye(3))
    np.testing.assert_array_equal(
        tg.grad(lambda a: tnp.sum(tnp.einsum("ii->i", a) * np.array([1.0, 2.0, 3.0])))(a),
        np.diag([1.0, 2.0, 3.0]),
    )


def test_einsum_interleaved_form_optimize_and_dtype():
    a, b = normal((2, 3), 1), normal((3, 4), 2)
    np.testing.assert_allclose(
        tnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2], [0, 2]), rtol=1e-12
    )
    np.testing.assert_allclose(
        tnp.einsum(a, [Ellipsis, 1], b, [1, 2]), np.einsum(a, [Ellipsis, 1], b, [1, 2]), rtol=1e-12
    )
    for opt in (True, "greedy", "optimal", ["einsum_path", (0, 1)]):
        np.testing.assert_allclose(tnp.einsum("ij,jk->ik", a, b, optimize=opt), a @ b, rtol=1e-12)
    check_grads(lambda a, b: tnp.einsum("ij,jk->ik", a, b, optimize=True), (a, b), order=2)
    assert tnp.einsum("ij,jk", a.astype(np.float32), b.astype(np.float32)).dtype == np.float32
    assert tnp.einsum("ij->", a, dtype=np.float32).dtype == np.float32


@pytest.mark.parametrize(
    "spec,shapes,match",
    [
        ("ij,jk->ik", [(2, 3), (4, 5)], "cannot be broadcast"),
        ("ij->ik", [(2, 3)], "does not appear"),
        ("ij->ii", [(2, 2)], "more than once"),
        ("ij,jk", [(2, 3)], "operand"),
        ("ijk", [(2, 3)], "axes"),
        ("...i->i", [(2, 3)], "ellipsis"),
        ("i1", [(2, 3)], "invalid subscript"),
    ],
)
def test_einsum_errors(spec, shapes, match):
    with pytest.raises(ValueError, match=match):
        tnp.einsum(spec, *[normal(s) for s in shapes])


# --------------------------------------------------------------------------
# linalg: values against NumPy (stacked inputs), then derivatives


def test_inv_solve_det_slogdet_values():
    a = wellcond((2, 3, 3))
    np.testing.assert_allclose(LA.inv(a), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(LA.det(a), np.linalg.det(a), rtol=1e-12)
    np.testing.assert_allclose(LA.det(a[0]), np.linalg.det(a[0]), rtol=1e-12)
    res = LA.slogdet(a)
    ref = np.linalg.slogdet(a)
    assert type(res).__name__ == "SlogdetResult" and res._fields == ("sign", "logabsdet")
    np.testing.assert_allclose(res.sign, ref.sign)
    np.testing.assert_allclose(res.logabsdet, ref.logabsdet, rtol=1e-12)
    neg = np.diag([-1.0, 2.0, 3.0])
    assert float(LA.slogdet(neg).sign) == -1.0
    np.testing.assert_allclose(LA.slogdet(neg).logabsdet, np.log(6.0), rtol=1e-12)
    # integer input becomes float64, as in NumPy
    ai = np.array([[2, 1], [1, 3]])
    assert LA.inv(ai).dtype == np.float64 and LA.det(ai).dtype == np.float64


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((3, 3), (3,)),  # vector right-hand side
        ((2, 3, 3), (3,)),  # stack of systems, one vector: result (2, 3)
        ((3, 3), (3, 2)),
        ((2, 3, 3), (2, 3, 2)),
        ((2, 3, 3), (3, 2)),  # broadcast batch axes of b
        ((3, 3), (2, 3, 1)),
    ],
)
def test_solve_values_and_grads(sa, sb):
    a, b = wellcond(sa, 1), normal(sb, 2)
    np.testing.assert_allclose(LA.solve(a, b), np.linalg.solve(a, b), rtol=1e-12)
    check_grads(LA.solve, (a, b), order=2, modes=("fwd", "rev"))


def test_solve_numpy2_semantics_and_errors():
    # b of shape (2, 3) against a (3, 3): a stack of matrices, not of vectors,
    # so it does not match (NumPy 2 raises too)
    with pytest.raises(ValueError):
        LA.solve(wellcond((3, 3)), normal((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        LA.solve(normal((3, 2)), normal((3,)))
    with pytest.raises(np.linalg.LinAlgError):
        LA.solve(np.zeros((2, 2)), np.ones(2))


@pytest.mark.parametrize(
    "name,f,make",
    [
        ("inv", LA.inv, lambda: wellcond((3, 3))),
        ("inv-stack", LA.inv, lambda: wellcond((2, 3, 3))),
        ("det", LA.det, lambda: normal((3, 3))),
        ("det-stack", LA.det, lambda: wellcond((2, 3, 3))),
        ("slogdet", lambda a: LA.slogdet(a).logabsdet, lambda: wellcond((2, 3, 3))),
        ("slogdet-neg", lambda a: LA.slogdet(a)[1], lambda: -wellcond((3, 3))),
        ("slogdet-both", lambda a: LA.slogdet(a).sign * LA.slogdet(a)[1], lambda: -wellcond((3, 3))),
        ("cholesky", lambda a: LA.cholesky(sym(a)), lambda: spd((3, 3))),
        ("cholesky-stack", lambda a: LA.cholesky(sym(a)), lambda: spd((2, 3, 3))),
        ("cholesky-upper", lambda a: LA.cholesky(sym(a), upper=True), lambda: spd((3, 3))),
        ("eigh-values", lambda a: LA.eigh(sym(a)).eigenvalues, lambda: sym_distinct((2, 3, 3))),
        ("eigh-vectors", lambda a: fix_sign(LA.eigh(sym(a)).eigenvectors), lambda: sym_distinct((2, 3, 3))),
        ("eigh-upper", lambda a: fix_sign(LA.eigh(sym(a), UPLO="U")[1]), lambda: sym_distinct((3, 3))),
        ("eigh-both", lambda a: (lambda w, v: v * w[..., None, :])(*LA.eigh(sym(a))),
         lambda: sym_distinct((4, 4))),
        ("eigvalsh", lambda a: LA.eigvalsh(sym(a)), lambda: sym_distinct((2, 3, 3))),
        ("matrix_power-3", lambda a: LA.matrix_power(a, 3), lambda: normal((3, 3))),
        ("matrix_power-5", lambda a: LA.matrix_power(a, 5), lambda: 0.5 * normal((2, 3, 3))),
        ("matrix_power-neg", lambda a: LA.matrix_power(a, -2), lambda: wellcond((3, 3))),
        ("matrix_power-1", lambda a: LA.matrix_power(a, 1), lambda: normal((3, 3))),
        ("svdvals", lambda a: LA.svd(a, compute_uv=False), lambda: normal((2, 4, 3))),
        ("svdvals-wide", LA.svdvals, lambda: normal((3, 5))),
        ("svd-tall", lambda a: [fix_sign(x) if x.ndim == 2 else x
                                for x in _svd_uv(a)], lambda: normal((4, 3))),
        ("svd-wide", lambda a: [fix_sign(x) if x.ndim == 2 else x
                                for x in _svd_uv(a)], lambda: normal((3, 5))),
        ("svd-square-full", lambda a: LA.svd(a)[0] @ LA.svd(a)[2], lambda: normal((3, 3))),
        ("qr-tall", lambda a: list(LA.qr(a)), lambda: normal((2, 4, 3))),
        ("qr-square", lambda a: list(LA.qr(a)), lambda: normal((3, 3))),
        ("qr-wide", lambda a: list(LA.qr(a)), lambda: normal((3, 5))),
        ("qr-r", lambda a: LA.qr(a, mode="r"), lambda: normal((2, 3, 5))),
        ("qr-complete-wide", lambda a: LA.qr(a, mode="complete").Q, lambda: normal((3, 4))),
        ("multi_dot", lambda a: LA.multi_dot([a[0], a, LA.matrix_transpose(a), a[:, 0]]),
         lambda: normal((3, 3))),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_linalg_grads(name, f, make):
    check_grads(f, (make(),), order=2, modes=("fwd", "rev"))


def _svd_uv(a):
    u, s, vh = LA.svd(a, full_matrices=False)
    return [u, s, LA.matrix_transpose(vh)]


def test_decomposition_values():
    a = spd((2, 4, 4))
    np.testing.assert_allclose(LA.cholesky(a), np.linalg.cholesky(a), rtol=1e-12)
    np.testing.assert_allclose(LA.cholesky(a, upper=True), np.linalg.cholesky(a, upper=True), rtol=1e-12)
    w, v = LA.eigh(a)
    rw, rv = np.linalg.eigh(a)
    np.testing.assert_allclose(w, rw, rtol=1e-12)
    np.testing.assert_allclose(v, rv, rtol=1e-10, atol=1e-12)
    res = LA.eigh(a, UPLO="U")
    assert type(res).__name__ == "EighResult" and res._fields == ("eigenvalues", "eigenvectors")
    np.testing.assert_allclose(res.eigenvalues, np.linalg.eigh(a, UPLO="U").eigenvalues, rtol=1e-12)
    np.testing.assert_allclose(LA.eigvalsh(a), np.linalg.eigvalsh(a), rtol=1e-12)
    # only one triangle is read, as in NumPy
    b = np.triu(normal((3, 3))) + 5 * np.eye(3)
    np.testing.assert_allclose(LA.eigh(b, "U")[0], np.linalg.eigh(b, "U")[0], rtol=1e-12)
    np.testing.assert_allclose(LA.cholesky(b, upper=True), np.linalg.cholesky(b, upper=True), rtol=1e-12)
    m = normal((2, 4, 3))
    for full in (True, False):
        u, s, vh = LA.svd(m, full_matrices=full)
        ru, rs, rvh = np.linalg.svd(m, full_matrices=full)
        assert u.shape == ru.shape and vh.shape == rvh.shape
        np.testing.assert_allclose(s, rs, rtol=1e-12)
        np.testing.assert_allclose(np.abs(u), np.abs(ru), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(LA.svdvals(m), np.linalg.svd(m, compute_uv=False), rtol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 5)])
def test_qr_values(shape):
    a = normal(shape)
    for mode in ("reduced", "complete"):
        res = LA.qr(a, mode=mode)
        ref = np.linalg.qr(a, mode=mode)
        assert type(res).__name__ == "QRResult" and res._fields == ("Q", "R")
        np.testing.assert_allclose(res.Q, ref.Q, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(res.R, ref.R, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(LA.qr(a, mode="r"), np.linalg.qr(a, mode="r"), rtol=1e-10, atol=1e-12)
    if len(shape) == 2:
        for x, y in zip(LA.qr(a, mode="raw"), np.linalg.qr(a, mode="raw")):
            np.testing.assert_array_equal(x, y)


def test_qr_errors():
    a = normal((4, 3))
    with pytest.raises(NotImplementedError, match="mode='reduced'"):
        tg.grad(lambda a: tnp.sum(LA.qr(a, mode="complete")[0]))(a)
    with pytest.raises(TypeError, match="raw"):
        tg.grad(lambda a: tnp.sum(LA.qr(a, mode="raw")[1]))(a)
    with pytest.raises(ValueError, match="Unrecognized mode"):
        LA.qr(a, mode="full")


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, 4, 5, 8])
def test_matrix_power_values(n):
    a = wellcond((2, 3, 3))
    np.testing.assert_allclose(LA.matrix_power(a, n), np.linalg.matrix_power(a, n), rtol=1e-10)
    assert LA.matrix_power(a, n).dtype == np.float64


def test_matrix_power_zero_has_zero_derivative_and_errors():
    a = normal((3, 3))
    g = tg.grad(lambda a: tnp.sum(LA.matrix_power(a, 0)))(a)
    np.testing.assert_array_equal(g, np.zeros((3, 3)))
    with pytest.raises(TypeError, match="integer"):
        LA.matrix_power(a, 1.5)
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        LA.matrix_power(normal((2, 3)), 2)


def test_multi_dot_values():
    a, b, c = normal((3,), 1), normal((3, 4), 2), normal((4,), 3)
    np.testing.assert_allclose(LA.multi_dot([a, b, c]), np.linalg.multi_dot([a, b, c]), rtol=1e-12)
    with pytest.raises(ValueError, match="at least two"):
        LA.multi_dot([a])


# --------------------------------------------------------------------------
# symmetric convention, undefined points


def test_cholesky_and_eigh_gradients_are_symmetric():
    a = spd((3, 3))
    for f in (
        lambda a: tnp.sum(tnp.sin(LA.cholesky(a))),
        lambda a: tnp.sum(tnp.sin(LA.eigh(a)[0])),
        lambda a: tnp.sum(LA.eigh(a)[1] ** 4),
    ):
        g = tg.grad(f)(a)
        np.testing.assert_allclose(g, g.T, rtol=1e-12, atol=1e-14)
        # and equals the gradient through the symmetrized input
        np.testing.assert_allclose(tg.grad(lambda a: f(sym(a)))(a), g, rtol=1e-10, atol=1e-12)


def test_cholesky_jvp_uses_symmetric_part_of_tangent():
    a = spd((3, 3))
    t = normal((3, 3), 5)
    _, t1 = tg.jvp(LA.cholesky, (a,), (t,))
    _, t2 = tg.jvp(LA.cholesky, (a,), (0.5 * (t + t.T),))
    np.testing.assert_allclose(t1, t2, rtol=1e-12)


def test_eigvalsh_gradient_finite_at_repeated_eigenvalues():
    # d(sum of eigenvalues) = d trace = identity, also at the identity matrix
    g = tg.grad(lambda a: tnp.sum(LA.eigvalsh(a)))(np.eye(3))
    np.testing.assert_allclose(g, np.eye(3), atol=1e-12)
    g = tg.grad(lambda a: LA.eigvalsh(a)[2])(np.diag([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(g, np.diag([0.0, 0.0, 1.0]), atol=1e-12)


def test_eigenvector_derivative_undefined_at_repeated_eigenvalues():
    g = tg.grad(lambda a: tnp.sum(LA.eigh(a)[1] ** 3))(np.eye(3))
    assert not np.all(np.isfinite(g))


def test_det_derivative_at_singular_matrix_raises():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_allclose(LA.det(s), 0.0, atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        tg.grad(LA.det)(np.zeros((2, 2)))


def test_det_gradient_exact():
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    # d det / dA = adj(A)^T = [[d, -c], [-b, a]]
    np.testing.assert_allclose(tg.grad(LA.det)(a), [[3.0, -0.5], [-1.0, 2.0]], rtol=1e-12)
    np.testing.assert_allclose(
        tg.grad(lambda a: LA.slogdet(a).logabsdet)(a), np.linalg.inv(a).T, rtol=1e-12
    )


def test_svd_full_matrices_derivative_needs_reduced_for_nonsquare():
    a = normal((4, 3))
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        tg.grad(lambda a: tnp.sum(LA.svd(a)[0]))(a)
    # the singular values alone are fine with the default
    g = tg.grad(lambda a: tnp.sum(LA.svd(a, compute_uv=False)))(a)
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(g, u @ vh, rtol=1e-10)


def test_linalg_errors():
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        LA.inv(normal(3))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        LA.det(normal((2, 3)))
    with pytest.raises(ValueError, match="UPLO"):
        LA.eigh(spd((3, 3)), UPLO="X")
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        LA.cholesky(-np.eye(2))
    with pytest.raises(np.linalg.LinAlgError, match="two-dimensional"):
        LA.svd(normal(3))


# --------------------------------------------------------------------------
# norms

VECTOR_ORDS = [None, 2, 1, np.inf, -np.inf, 0, 3, 0.5, -1]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (-1, True)])
def test_vector_norm_values(ord, axis, keepdims):
    x = normal((5,)) if axis is None else normal((3, 4))
    got = LA.norm(x, ord, axis, keepdims)
    ref = np.linalg.norm(x, ord, axis, keepdims)
    assert np.shape(got) == ref.shape and got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("axis,keepdims", [(None, False), ((0, 1), True), ((2, 0), False), ((-1, -2), False)])
def test_matrix_norm_values(ord, axis, keepdims):
    x = normal((3, 4)) if axis is None or axis == (0, 1) else normal((3, 2, 4))
    got = LA.norm(x, ord, axis, keepdims)
    ref = np.linalg.norm(x, ord, axis, keepdims)
    assert np.shape(got) == np.shape(ref)
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_norm_default_flattens_any_rank_and_converts_ints():
    x = normal((2, 3, 4))
    np.testing.assert_allclose(LA.norm(x), np.linalg.norm(x), rtol=1e-12)
    np.testing.assert_allclose(LA.norm(x, keepdims=True), np.linalg.norm(x, keepdims=True), rtol=1e-12)
    assert LA.norm(np.arange(3)).dtype == np.float64
    assert LA.norm(np.ones(3, np.float32)).dtype == np.float32
    assert LA.norm(np.ones(3, np.float32), 0).dtype == np.float32


@pytest.mark.parametrize(
    "ord,x",
    [
        (None, normal((4,))),
        (1, normal((4,))),
        (3, normal((4,))),
        (np.inf, np.array([0.3, -2.0, 1.0, 0.5])),
        (-np.inf, np.array([0.3, -2.0, 1.0, 0.5])),
        (-1, normal((4,))),
    ],
)
def test_vector_norm_grads(ord, x):
    check_grads(lambda x: LA.norm(x, ord), (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf])
def test_matrix_norm_grads(ord):
    x = normal((3, 4), 3)
    check_grads(lambda x: LA.norm(x, ord), (x,), order=2, modes=("fwd", "rev"))


def test_norm_axis_and_batched_grads():
    x = normal((2, 3, 4))
    check_grads(lambda x: LA.norm(x, axis=1), (x,), order=2)
    check_grads(lambda x: LA.norm(x, "nuc", axis=(0, 2), keepdims=True), (x,), order=2)
    check_grads(lambda x: LA.vector_norm(x, axis=(0, 2), ord=3), (x,), order=2)
    check_grads(lambda x: LA.matrix_norm(x, ord=2), (x,), order=2)
    np.testing.assert_allclose(LA.vector_norm(x, axis=(0, 2)), np.linalg.vector_norm(x, axis=(0, 2)),
                               rtol=1e-12)
    np.testing.assert_allclose(LA.matrix_norm(x, ord="nuc"), np.linalg.matrix_norm(x, ord="nuc"),
                               rtol=1e-12)


def test_norm_gradient_at_zero_is_zero():
    z = np.zeros(4)
    for f in (
        LA.norm,
        lambda v: LA.norm(v) ** 2,
        lambda v: LA.norm(v, 2),
        lambda v: LA.norm(v, 1),
        lambda v: LA.norm(v, 3),
        lambda v: LA.vector_norm(v),
    ):
        g = tg.grad(f)(z)
        np.testing.assert_array_equal(g, np.zeros(4))
    zm = np.zeros((2, 3))
    for f in (LA.norm, lambda m: LA.norm(m, "fro"), lambda m: LA.norm(m, "fro") ** 2,
              lambda m: tnp.sum(LA.norm(m, axis=1))):
        np.testing.assert_array_equal(tg.grad(f)(zm), np.zeros((2, 3)))
    # forward mode too, and the value is exactly 0
    out, t = tg.jvp(LA.norm, (z,), (np.ones(4),))
    assert float(out) == 0.0 and float(t) == 0.0
    # the Hessian of norm(v)**2 is 2 I away from 0, and (documented) 0 at 0
    np.testing.assert_allclose(tg.hessian(lambda v: LA.norm(v) ** 2)(normal(3)), 2 * np.eye(3), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(tg.hessian(lambda v: LA.norm(v) ** 2)(np.zeros(3)), np.zeros((3, 3)))
    # max/min and SVD based orders at 0: finite subgradients
    np.testing.assert_array_equal(tg.grad(lambda v: LA.norm(v, np.inf))(z), np.zeros(4))
    np.testing.assert_array_equal(tg.grad(lambda m: LA.norm(m, 2))(np.zeros((2, 2))), 0.5 * np.eye(2))


def test_norm_errors():
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        LA.norm(normal(3), "fro")
    with pytest.raises(ValueError, match="Invalid norm order for matrices"):
        LA.norm(normal((2, 2)), 3)
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        LA.norm(normal((2, 2, 2)), 1)
    with pytest.raises(ValueError, match="Duplicate axes"):
        LA.norm(normal((2, 2)), axis=(1, 1))


# --------------------------------------------------------------------------
# float32

F32_CASES = [
    ("matmul", lambda a, b: tnp.matmul(a, b), lambda: (normal((2, 3, 4)), normal((4, 2)))),
    ("dot", lambda a, b: tnp.dot(a, b), lambda: (normal((2, 3, 4)), normal((3, 4, 2)))),
    ("einsum", lambda a, b: tnp.einsum("ij,jk->ik", a, b), lambda: (normal((3, 4)), normal((4, 2)))),
    ("einsum-diag", lambda a: tnp.einsum("ii->i", a), lambda: (normal((3, 3)),)),
    ("inv", LA.inv, lambda: (wellcond((3, 3)),)),
    ("solve", LA.solve, lambda: (wellcond((3, 3)), normal((3,)))),
    ("det", LA.det, lambda: (wellcond((3, 3)),)),
    ("slogdet", lambda a: LA.slogdet(a)[1], lambda: (wellcond((3, 3)),)),
    ("cholesky", lambda a: LA.cholesky(sym(a)), lambda: (spd((3, 3)),)),
    ("eigh", lambda a: LA.eigh(sym(a))[0], lambda: (sym_distinct((3, 3)),)),
    ("norm", LA.norm, lambda: (normal((4,)),)),
    ("norm-nuc", lambda a: LA.norm(a, "nuc"), lambda: (normal((3, 4)),)),
]


@pytest.mark.parametrize("name,f,make", F32_CASES, ids=[c[0] for c in F32_CASES])
def test_float32(name, f, make):
    args = tuple(x.astype(np.float32) for x in make())
    out = f(*args)
    assert out.dtype == np.float32
    g = tg.vjp(f, *args)[1](np.ones(out.shape, np.float32))
    assert all(gi.dtype == np.float32 for gi in g)
    check_grads(f, args, order=1, modes=("fwd", "rev"), atol=5e-2, rtol=5e-2, eps=1e-2)


# --------------------------------------------------------------------------
# abstract evaluation agrees with the impls

_ABSTRACT_CASES = [
    ("matmul", (normal((2, 3, 4)), normal((4, 5))), {}),
    ("einsum", (normal((2, 3)), normal((3, 4))), {"spec": "ij,jk->ik", "optimize": False}),
    ("inv", (wellcond((2, 3, 3)),), {}),
    ("solve", (wellcond((2, 3, 3)), normal((3, 2))), {}),
    ("det", (wellcond((2, 3, 3)),), {}),
    ("slogdet", (wellcond((2, 3, 3)),), {}),
    ("cholesky", (spd((2, 3, 3)),), {"upper": False}),
    ("eigh", (spd((3, 3)),), {"UPLO": "L"}),
    ("svd", (normal((2, 4, 3)),), {"full_matrices": False}),
    ("svd", (normal((4, 3)),), {"full_matrices": True}),
    ("qr", (normal((2, 4, 3)),), {"mode": "reduced"}),
    ("qr", (normal((4, 3)),), {"mode": "complete"}),
    ("qr", (normal((3, 5)),), {"mode": "reduced"}),
]


@pytest.mark.parametrize("name,args,params", _ABSTRACT_CASES, ids=[c[0] for c in _ABSTRACT_CASES])
def test_abstract_eval_matches_impl(name, args, params):
    prim = registry[name]
    out = prim.impl(*args, **params)
    aval = prim.abstract_eval(*[ShapedArray(a.shape, a.dtype) for a in args], **params)
    outs = out if prim.multiple_results else [out]
    avals = aval if prim.multiple_results else [aval]
    for o, av in zip(outs, avals):
        assert (np.shape(o), np.asarray(o).dtype) == (av.shape, av.dtype)


# --------------------------------------------------------------------------
# JAX as an oracle


def _jax():
    jax = pytest.importorskip("jax")
    return jax, pytest.importorskip("jax.numpy")


JAX_CASES = [
    ("einsum3", lambda ns, a, b, c: ns.sum(ns.sin(ns.einsum("ij,jk,kl->il", a, b, c))),
     lambda: (normal((2, 3)), normal((3, 4), 1), normal((4, 2), 2))),
    ("einsum-diag", lambda ns, a: ns.sum(ns.sin(ns.einsum("ii->i", a))), lambda: (normal((3, 3)),)),
    ("dot-nd", lambda ns, a, b: ns.sum(ns.sin(ns.dot(a, b))),
     lambda: (normal((2, 3, 4)), normal((5, 4, 2), 1))),
    ("matmul-bcast", lambda ns, a, b: ns.sum(ns.sin(ns.matmul(a, b))),
     lambda: (normal((2, 1, 3, 4)), normal((5, 4, 2), 1))),
    ("solve", lambda ns, a, b: ns.sum(ns.sin(ns.linalg.solve(a, b))),
     lambda: (wellcond((2, 3, 3)), normal((2, 3, 2), 1))),
    ("inv", lambda ns, a: ns.sum(ns.sin(ns.linalg.inv(a))), lambda: (wellcond((3, 3)),)),
    ("det", lambda ns, a: ns.sum(ns.linalg.det(a)), lambda: (wellcond((2, 3, 3)),)),
    ("slogdet", lambda ns, a: ns.sum(ns.linalg.slogdet(a)[1]), lambda: (wellcond((2, 3, 3)),)),
    ("cholesky", lambda ns, a: ns.sum(ns.sin(ns.linalg.cholesky(a))), lambda: (spd((3, 3)),)),
    ("eigh", lambda ns, a: ns.sum(ns.sin(ns.linalg.eigh(a)[0])) + ns.sum(ns.linalg.eigh(a)[1] ** 4),
     lambda: (sym_distinct((3, 3)),)),
    ("svdvals", lambda ns, a: ns.sum(ns.sin(ns.linalg.svd(a, compute_uv=False))),
     lambda: (normal((4, 3)),)),
    ("svd-uv", lambda ns, a: (lambda u, s, vh: ns.sum(u ** 4) + ns.sum(vh ** 4) + ns.sum(s))(
        *ns.linalg.svd(a, full_matrices=False)), lambda: (normal((3, 5)),)),
    ("qr", lambda ns, a: (lambda q, r: ns.sum(ns.sin(q)) + ns.sum(ns.sin(r)))(*ns.linalg.qr(a)),
     lambda: (normal((4, 3)),)),
    ("qr-wide", lambda ns, a: (lambda q, r: ns.sum(ns.sin(q)) + ns.sum(ns.sin(r)))(*ns.linalg.qr(a)),
     lambda: (normal((3, 5)),)),
    ("norm-nuc", lambda ns, a: ns.linalg.norm(a, "nuc"), lambda: (normal((3, 4)),)),
    ("norm-2", lambda ns, a: ns.linalg.norm(a, 2), lambda: (normal((3, 4)),)),
    ("norm-p", lambda ns, a: ns.linalg.norm(a, 3), lambda: (normal((5,)),)),
    ("matrix_power", lambda ns, a: ns.sum(ns.linalg.matrix_power(a, -3)), lambda: (wellcond((3, 3)),)),
]


_JAX_HESSIANS = {"cholesky", "eigh", "slogdet", "svdvals", "qr"}


@pytest.mark.parametrize("name,f,make", JAX_CASES, ids=[c[0] for c in JAX_CASES])
def test_gradients_match_jax(name, f, make):
    jax, jnp = _jax()
    args = make()
    with jax.enable_x64(True):
        argnums = tuple(range(len(args)))
        ref = jax.jit(jax.grad(lambda *xs: f(jnp, *xs), argnums=argnums))(*args)
        # JAX's op-by-op Hessians are slow: compare second derivatives for the
        # decompositions only (check_grads covers the rest to second order)
        ref_h = None
        if name in _JAX_HESSIANS:
            ref_h = jax.jit(jax.hessian(lambda x: f(jnp, x, *args[1:])))(args[0])
    got = tg.grad(lambda *xs: f(tnp, *xs), argnums=argnums)(*args)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, np.asarray(r), rtol=1e-8, atol=1e-10)
    if ref_h is not None:
        got_h = tg.hessian(lambda x: f(tnp, x, *args[1:]))(args[0])
        np.testing.assert_allclose(got_h, np.asarray(ref_h), rtol=1e-7, atol=1e-9)

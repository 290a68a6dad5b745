"""tracegrad.torch.linalg against PyTorch 2.13's torch.linalg.

Differential tests (skipped without PyTorch): each function gets the same
well-conditioned random matrices (single and batched) in both libraries;
values, the ``grad_fn`` name and the gradients of ``sum(seed * f(A))`` are
compared.  Eigenvectors and singular vectors are defined up to sign, so
they are compared through sign-invariant functions (squares, projectors,
reconstructions), whose gradients are compared too.  Errors are compared by
type and message; named-tuple results by type name, fields and printing.
"""
import re
import zlib

import numpy as np
import pytest

import tracegrad.torch as tt


def import_torch():
    real_torch = pytest.importorskip("torch")
    real_torch.set_num_threads(1)
    return real_torch


@pytest.fixture(scope="module")
def real():
    return import_torch()


TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


def _general(g, *shape):
    n = shape[-1]
    return g.normal(size=shape) + n * np.eye(n)


def _spd(g, *shape):
    m = g.normal(size=shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def _sym_distinct(g, *shape):
    """Symmetric with well-separated eigenvalues."""
    n = shape[-1]
    q, _ = np.linalg.qr(g.normal(size=shape))
    w = np.arange(1.0, n + 1) * 1.5 - 2.0
    return (q * w) @ np.swapaxes(q, -1, -2)


def _tall(g, *shape):
    return g.normal(size=shape)


def _sq(v):
    """Sign-invariant: elementwise squares of vectors' entries."""
    return v * v


CASES = {
    # name: (f(L, *tensors), [arrays from rng], requires-grad mask)
    "inv": (lambda L, a: L.inv(a), lambda g: [_general(g, 3, 3)], (True,)),
    "inv_batched": (lambda L, a: L.inv(a), lambda g: [_general(g, 2, 4, 4)], (True,)),
    "inv_ex": (lambda L, a: L.inv_ex(a).inverse, lambda g: [_general(g, 3, 3)], (True,)),
    "det": (lambda L, a: L.det(a), lambda g: [_general(g, 2, 3, 3)], (True,)),
    "slogdet": (lambda L, a: L.slogdet(a).logabsdet,
                lambda g: [_general(g, 2, 3, 3) - 4 * np.eye(3)], (True,)),
    "slogdet_sign": (lambda L, a: L.slogdet(a).sign * 1.0,
                     lambda g: [_general(g, 2, 3, 3) - 4 * np.eye(3)], (False,)),
    "solve": (lambda L, a, b: L.solve(a, b), lambda g: [_general(g, 3, 3), g.normal(size=(3, 2))],
              (True, True)),
    "solve_vector": (lambda L, a, b: L.solve(a, b), lambda g: [_general(g, 3, 3), g.normal(size=3)],
                     (True, True)),
    "solve_batched_vector": (lambda L, a, b: L.solve(a, b),
                             lambda g: [_general(g, 2, 3, 3), g.normal(size=(2, 3))], (True, True)),
    "solve_broadcast": (lambda L, a, b: L.solve(a, b),
                        lambda g: [_general(g, 3, 3), g.normal(size=(2, 3, 4))], (True, True)),
    "solve_right": (lambda L, a, b: L.solve(a, b, left=False),
                    lambda g: [_general(g, 3, 3), g.normal(size=(2, 3))], (True, True)),
    "cholesky": (lambda L, a: L.cholesky(a), lambda g: [_spd(g, 2, 3, 3)], (True,)),
    "cholesky_upper": (lambda L, a: L.cholesky(a, upper=True), lambda g: [_spd(g, 3, 3)], (True,)),
    "eigvalsh": (lambda L, a: L.eigvalsh(a), lambda g: [_spd(g, 2, 4, 4)], (True,)),
    "eigh_values": (lambda L, a: L.eigh(a).eigenvalues, lambda g: [_sym_distinct(g, 4, 4)],
                    (True,)),
    "eigh_vectors": (lambda L, a: _sq(L.eigh(a).eigenvectors),
                     lambda g: [_sym_distinct(g, 2, 4, 4)], (True,)),
    "eigh_upper": (lambda L, a: _sq(L.eigh(a, UPLO="U").eigenvectors),
                   lambda g: [_sym_distinct(g, 3, 3) + np.triu(np.ones((3, 3)), 1)], (True,)),
    "svdvals": (lambda L, a: L.svdvals(a), lambda g: [_tall(g, 2, 5, 3)], (True,)),
    "svd_s": (lambda L, a: L.svd(a, full_matrices=False).S, lambda g: [_tall(g, 4, 3)], (True,)),
    "svd_u": (lambda L, a: _sq(L.svd(a, full_matrices=False).U), lambda g: [_tall(g, 2, 5, 3)],
              (True,)),
    "svd_vh": (lambda L, a: _sq(L.svd(a, full_matrices=False).Vh), lambda g: [_tall(g, 3, 4)],
               (True,)),
    "svd_reconstruct": (lambda L, a: (lambda r: (r.U * r.S[..., None, :]) @ r.Vh)(
        L.svd(a, full_matrices=False)), lambda g: [_tall(g, 4, 3)], (True,)),
    "svd_full_square": (lambda L, a: _sq(L.svd(a).U), lambda g: [_tall(g, 3, 3)], (True,)),
    "qr": (lambda L, a: (lambda r: r.Q @ r.R)(L.qr(a)), lambda g: [_tall(g, 5, 3)], (True,)),
    "qr_r": (lambda L, a: L.qr(a).R, lambda g: [_tall(g, 2, 4, 3)], (True,)),
    "qr_q": (lambda L, a: L.qr(a).Q, lambda g: [_tall(g, 4, 4)], (True,)),
    "lstsq": (lambda L, a, b: L.lstsq(a, b).solution, lambda g: [_tall(g, 5, 3), _tall(g, 5, 2)],
              (True, True)),
    "lstsq_batched": (lambda L, a, b: L.lstsq(a, b).solution,
                      lambda g: [_tall(g, 2, 5, 3), _tall(g, 2, 5, 2)], (True, True)),
    "lstsq_gelsd_residuals": (lambda L, a, b: L.lstsq(a, b, driver="gelsd").residuals,
                              lambda g: [_tall(g, 5, 3), _tall(g, 5, 2)], (True, True)),
    "pinv": (lambda L, a: L.pinv(a), lambda g: [_tall(g, 2, 4, 3)], (True,)),
    "pinv_atol": (lambda L, a: L.pinv(a, atol=1e-3), lambda g: [_tall(g, 4, 3)], (True,)),
    "matrix_power3": (lambda L, a: L.matrix_power(a, 3), lambda g: [_general(g, 3, 3) / 3],
                      (True,)),
    "matrix_power_neg": (lambda L, a: L.matrix_power(a, -2), lambda g: [_general(g, 3, 3)],
                         (True,)),
    "cross": (lambda L, a, b: L.cross(a, b), lambda g: [_tall(g, 4, 3), _tall(g, 4, 3)],
              (True, True)),
    "cross_dim0_broadcast": (lambda L, a, b: L.cross(a, b, dim=0),
                             lambda g: [_tall(g, 3, 4), _tall(g, 3, 1)], (True, True)),
    "multi_dot": (lambda L, a, b, c: L.multi_dot([a, b, c]),
                  lambda g: [_tall(g, 4), _tall(g, 4, 3), _tall(g, 3, 5)], (True, True, True)),
    "solve_triangular_upper": (lambda L, a, b: L.solve_triangular(a, b, upper=True),
                               lambda g: [_general(g, 3, 3), _tall(g, 3, 2)], (True, True)),
    "solve_triangular_lower_right_unit": (
        lambda L, a, b: L.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        lambda g: [_general(g, 2, 3, 3), _tall(g, 2, 4, 3)], (True, True)),
    "cond": (lambda L, a: L.cond(a), lambda g: [_general(g, 2, 3, 3)], (True,)),
    "cond_fro": (lambda L, a: L.cond(a, "fro"), lambda g: [_general(g, 3, 3)], (False,)),
    "vecdot": (lambda L, a, b: L.vecdot(a, b), lambda g: [_tall(g, 3, 4), _tall(g, 4)],
               (True, True)),
    "matrix_exp": (lambda L, a: L.matrix_exp(a), lambda g: [_tall(g, 2, 3, 3)], (True,)),
    "diagonal": (lambda L, a: L.diagonal(a, offset=1), lambda g: [_tall(g, 2, 3, 4)], (True,)),
    "vector_norm": (lambda L, a: L.vector_norm(a), lambda g: [_tall(g, 3, 4)], (True,)),
    "vector_norm_p3_dim": (lambda L, a: L.vector_norm(a, 3, dim=1, keepdim=True),
                           lambda g: [_tall(g, 3, 4)], (True,)),
    "vector_norm_inf": (lambda L, a: L.vector_norm(a, float("inf"), dim=(0, 1)),
                        lambda g: [_tall(g, 3, 4, 2)], (True,)),
    "vector_norm_1": (lambda L, a: L.vector_norm(a, 1, dim=-1), lambda g: [_tall(g, 3, 4)],
                      (True,)),
    "matrix_norm_fro": (lambda L, a: L.matrix_norm(a), lambda g: [_tall(g, 2, 3, 4)], (True,)),
    "matrix_norm_nuc": (lambda L, a: L.matrix_norm(a, "nuc"), lambda g: [_tall(g, 3, 4)], (True,)),
    "matrix_norm_2": (lambda L, a: L.matrix_norm(a, 2), lambda g: [_tall(g, 2, 3, 4)], (True,)),
    "matrix_norm_inf_dims": (lambda L, a: L.matrix_norm(a, float("inf"), dim=(0, 2)),
                             lambda g: [_tall(g, 3, 2, 4)], (True,)),
    "matrix_norm_1": (lambda L, a: L.matrix_norm(a, 1), lambda g: [_tall(g, 3, 4)], (True,)),
    "norm_default": (lambda L, a: L.norm(a), lambda g: [_tall(g, 2, 3, 4)], (True,)),
    "norm_ord_matrix": (lambda L, a: L.norm(a, -2), lambda g: [_tall(g, 3, 4)], (True,)),
    "norm_dim": (lambda L, a: L.norm(a, dim=1), lambda g: [_tall(g, 3, 4)], (True,)),
    "norm_dims": (lambda L, a: L.norm(a, "nuc", dim=(1, 2)), lambda g: [_tall(g, 2, 3, 4)],
                  (True,)),
    "tensor_norm": (lambda L, a: a.norm(), lambda g: [_tall(g, 3, 4)], (True,)),
}

FLOAT32 = ["inv", "det", "solve", "cholesky", "eigvalsh", "svdvals", "lstsq", "vector_norm",
           "matrix_norm_fro", "cross", "matrix_exp"]

NO_NAME = {"slogdet_sign", "eigh_vectors", "eigh_upper", "svd_u", "svd_vh", "svd_reconstruct",
           "svd_full_square", "qr", "cond_fro", "pinv_atol", "matrix_power_neg",
           "lstsq_gelsd_residuals", "multi_dot", "cond"}


def _run(T, case, dtype):
    f, arrays, grads = CASES[case]
    vals = arrays(np.random.default_rng(zlib.crc32(case.encode())))
    ts = [T.tensor(np.asarray(v, dtype=dtype), requires_grad=g) for v, g in zip(vals, grads)]
    out = f(T.linalg, *ts)
    if any(grads):
        seed = np.random.default_rng(7).normal(size=tuple(out.shape)).astype(dtype)
        (out * T.tensor(seed)).sum().backward()
    return out, [t.grad for t, g in zip(ts, grads) if g]


@pytest.mark.parametrize("dtype,case", [("float64", c) for c in sorted(CASES)]
                         + [("float32", c) for c in FLOAT32])
def test_linalg_matches_torch(real, case, dtype):
    ours, our_grads = _run(tt, case, dtype)
    theirs, their_grads = _run(real, case, dtype)
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **TOL[dtype])
    if case not in NO_NAME:
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    for g, h in zip(our_grads, their_grads):
        assert g is not None and tuple(g.shape) == tuple(h.shape)
        np.testing.assert_allclose(g.numpy(), h.numpy(), **TOL[dtype])


def test_return_types_and_non_differentiable_fields(real):
    g = np.random.default_rng(3)
    a, b = _tall(g, 5, 3), _tall(g, 5, 2)
    sq = _general(g, 3, 3)
    for T in (tt, real):
        L = T.linalg
        A, B, S = T.tensor(a), T.tensor(b), T.tensor(sq)
        results = {
            "linalg_slogdet": (L.slogdet(S), ["sign", "logabsdet"]),
            "linalg_eigh": (L.eigh(S + S.mT), ["eigenvalues", "eigenvectors"]),
            "linalg_svd": (L.svd(A), ["U", "S", "Vh"]),
            "linalg_qr": (L.qr(A, mode="complete"), ["Q", "R"]),
            "linalg_lstsq": (L.lstsq(A, B), ["solution", "residuals", "rank",
                                             "singular_values"]),
            "linalg_lu_factor": (L.lu_factor(S), ["LU", "pivots"]),
            "linalg_lu": (L.lu(S), ["P", "L", "U"]),
            "linalg_inv_ex": (L.inv_ex(S), ["inverse", "info"]),
            "linalg_eig": (L.eig(S), ["eigenvalues", "eigenvectors"]),
        }
        for name, (r, fields) in results.items():
            assert type(r).__name__ == name and len(r) == len(fields)
            assert all(r[i] is getattr(r, f) for i, f in enumerate(fields))
            assert type(r).__module__ == "torch.return_types"
            assert repr(r).startswith(f"torch.return_types.{name}(\n{fields[0]}=")
    # the fields with data-dependent content, against PyTorch
    ours = {k: v for k, v in _fields(tt, a, b, sq).items()}
    theirs = _fields(real, a, b, sq)
    for k in theirs:
        np.testing.assert_allclose(ours[k][0], theirs[k][0], rtol=1e-9, atol=1e-12, err_msg=k)
        assert ours[k][1] == theirs[k][1], k


def _fields(T, a, b, sq):
    L = T.linalg
    A, B, S = T.tensor(a), T.tensor(b), T.tensor(sq)
    out = {}
    for drv in (None, "gelsy", "gelsd", "gelss", "gels"):
        r = L.lstsq(A, B, driver=drv)
        for f in ("residuals", "rank", "singular_values"):
            v = getattr(r, f)
            out[f"{drv}.{f}"] = v.numpy(), (str(v.dtype), tuple(v.shape))
    lu = L.lu_factor(S)
    out["pivots"] = lu.pivots.numpy(), str(lu.pivots.dtype)
    out["LU"] = lu.LU.numpy(), str(lu.LU.dtype)
    p = L.lu(S)
    out["P"] = p.P.numpy(), str(p.P.dtype)
    info = L.inv_ex(S).info
    out["info"] = info.numpy(), (str(info.dtype), tuple(info.shape))
    sgn = L.slogdet(S - 10 * T.eye(3, dtype=T.float64)).sign
    out["sign"] = sgn.numpy(), str(sgn.dtype)
    out["rank"] = L.matrix_rank(T.tensor(np.outer(a[:, 0], b[:, 0]))).numpy(), None
    out["rank_batched_atol"] = L.matrix_rank(T.tensor(np.stack([sq, np.diag([1.0, 1e-3, 0])])),
                                             atol=1e-2).numpy(), None
    ev = L.eigvals(S)
    out["eigvals"] = np.sort_complex(ev.numpy()), str(ev.dtype)
    out["qr_r_mode_q"] = L.qr(A, mode="r").Q.numpy(), tuple(L.qr(A, mode="r").Q.shape)
    out["svd_full_shapes"] = np.zeros(0), [tuple(x.shape) for x in L.svd(A)]
    return out


def test_singular_inv_ex_info(real):
    m = np.array([[1.0, 2.0], [2.0, 4.0]])
    for T in (tt, real):
        r = T.linalg.inv_ex(T.tensor(np.stack([np.eye(2), m])))
        assert r.info.tolist() == [0, 2]


def _error(T, fn):
    try:
        fn(T)
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return isinstance(e, T.linalg.LinAlgError), isinstance(e, RuntimeError), str(e)
    return None


ERRORS = {
    "inv_non_square": lambda T: T.linalg.inv(T.ones(2, 3)),
    "inv_1d": lambda T: T.linalg.inv(T.ones(3)),
    "inv_int": lambda T: T.linalg.inv(T.eye(3, dtype=T.int64)),
    "inv_singular": lambda T: T.linalg.inv(T.tensor([[1.0, 2.0], [2.0, 4.0]])),
    "inv_ex_check": lambda T: T.linalg.inv_ex(T.zeros(3, 3), check_errors=True),
    "det_non_square": lambda T: T.linalg.det(T.ones(2, 3)),
    "det_1d": lambda T: T.linalg.det(T.ones(3)),
    "slogdet_non_square": lambda T: T.linalg.slogdet(T.ones(3, 2)),
    "cholesky_not_pd": lambda T: T.linalg.cholesky(T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "cholesky_non_square": lambda T: T.linalg.cholesky(T.ones(2, 3)),
    "eigh_non_square": lambda T: T.linalg.eigh(T.ones(2, 3)),
    "eigh_uplo": lambda T: T.linalg.eigh(T.eye(3), UPLO="X"),
    "eigvalsh_non_square": lambda T: T.linalg.eigvalsh(T.ones(2, 3)),
    "eig_non_square": lambda T: T.linalg.eig(T.ones(2, 3)),
    "matrix_exp_non_square": lambda T: T.linalg.matrix_exp(T.ones(2, 3)),
    "matrix_power_non_square": lambda T: T.linalg.matrix_power(T.ones(2, 3), 2),
    "solve_singular": lambda T: T.linalg.solve(T.zeros(3, 3), T.ones(3)),
    "solve_shapes": lambda T: T.linalg.solve(T.eye(3), T.ones(4)),
    "solve_shapes_matrix": lambda T: T.linalg.solve(T.eye(3), T.ones(4, 2)),
    "solve_triangular_1d_b": lambda T: T.linalg.solve_triangular(T.eye(3), T.ones(3),
                                                                 upper=True),
    "cross_length": lambda T: T.linalg.cross(T.ones(2), T.ones(2)),
    "qr_mode": lambda T: T.linalg.qr(T.eye(3), mode="x"),
    "multi_dot_one": lambda T: T.linalg.multi_dot([T.ones(3)]),
    "multi_dot_3d": lambda T: T.linalg.multi_dot([T.ones(2, 2), T.ones(2, 2, 2), T.ones(2)]),
    "norm_3d_ord": lambda T: T.linalg.norm(T.ones(2, 2, 2), 2),
    "matrix_norm_1d": lambda T: T.linalg.matrix_norm(T.ones(3)),
    "vector_norm_int": lambda T: T.linalg.vector_norm(T.ones(3, dtype=T.int64)),
    "lstsq_dims": lambda T: T.linalg.lstsq(T.ones(3, 2), T.ones(1, 1, 3, 2)),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(real, case):
    theirs = _error(real, ERRORS[case])
    assert theirs is not None
    assert _error(tt, ERRORS[case]) == theirs


def test_linalg_is_a_submodule():
    import tracegrad.torch.linalg as tl

    assert tt.linalg is tl
    assert issubclass(tl.LinAlgError, RuntimeError)


def test_eig_requiring_grad_raises():
    """A documented difference: complex results cannot require grad in tracegrad."""
    a = tt.eye(3, requires_grad=True)
    with pytest.raises(NotImplementedError, match="complex"):
        tt.linalg.eig(a)
    w = tt.linalg.eigvals(a.detach() * 2)
    np.testing.assert_allclose(w.numpy(), [2, 2, 2])


def test_cholesky_gradient_is_symmetric(real):
    g = np.random.default_rng(5)
    a = _spd(g, 3, 3)
    seed = g.normal(size=(3, 3))
    grads = []
    for T in (tt, real):
        x = T.tensor(a, requires_grad=True)
        (T.linalg.cholesky(x) * T.tensor(seed)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[0].T, rtol=1e-12)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fn", ["eigh", "svd"])
def test_invariant_gradient_of_projector(real, fn):
    """The gradient of a sign-invariant function of the vectors (a projector) agrees."""
    g = np.random.default_rng(11)
    a = _sym_distinct(g, 4, 4) if fn == "eigh" else _tall(g, 5, 4)
    grads = []
    for T in (tt, real):
        x = T.tensor(a, requires_grad=True)
        v = T.linalg.eigh(x).eigenvectors if fn == "eigh" else \
            T.linalg.svd(x, full_matrices=False).U
        p = v[:, :2] @ v[:, :2].mT
        (p * T.tensor(np.arange(16.0 if fn == "eigh" else 25.0).reshape(p.shape))).sum() \
            .backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-10)


def test_error_messages_are_exact():
    with pytest.raises(RuntimeError, match="^" + re.escape(
            "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices")
            + r"\Z"):
        tt.linalg.inv(tt.ones(2, 3))


def test_inside_torch_func_transforms(real):
    """Checks that need concrete values are skipped for a transform's tracers."""
    g = np.random.default_rng(2)
    a = _general(g, 2, 3, 3)
    ours = tt.func.vmap(tt.func.grad(lambda x: tt.linalg.slogdet(x).logabsdet))(tt.tensor(a))
    theirs = real.func.vmap(real.func.grad(lambda x: real.linalg.slogdet(x).logabsdet))(
        real.tensor(a))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    inv = tt.func.vmap(tt.linalg.inv)(tt.tensor(a))
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(a), rtol=1e-10)

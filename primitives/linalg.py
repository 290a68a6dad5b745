"""Linear-algebra primitives: matmul, einsum, inv, solve, triangular_solve,
det, slogdet, cholesky, eigh, svd, qr and eig.

Each block declares one primitive and, right below it, its impl, abstract
eval, JVP and VJP.  Every rule is written with primitives (``matmul``,
``solve``, ``inv``, ``transpose``, elementwise ops), so derivatives of any
order work.  All matrix primitives act on stacks of matrices: the last two
axes are the matrix, leading axes are batch axes (broadcast together for
the binary ones, ``matmul`` and ``solve``; ``unbroadcast`` sums the
cotangents of broadcast batch axes).

Impls are NumPy's (BLAS/LAPACK).  A Numba loop cannot compete with a tuned
BLAS ``gemm`` (see the kernel table in the README), and LAPACK factorizations
are not worth rewriting, so no Numba kernels live here.

References for the derivative formulas (described in the docstrings below):

* M. B. Giles (2008), "An extended collection of matrix derivative results
  for forward and reverse mode automatic differentiation": inverse, solve,
  determinant, log-determinant, symmetric eigendecomposition.
* I. Murray (2016), "Differentiation of the Cholesky decomposition".
* J. Townsend (2016), "Differentiating the singular value decomposition".
* S. F. Walter and L. Lehmann (2018), "Algorithmic differentiation of linear
  algebra functions with application in optimum experimental design
  (extended version)": the QR decomposition.
"""
import math
import warnings

import numpy as np

from .batching import elementwise_batch_rule, move_bdim
from .core import (Primitive, ShapedArray, def_nondifferentiable, defjvp, defvjp, defvjp_variadic,
                   dtype_of, shape_of)
from .lowering import ArrayOp
from .elementwise import add, conj, div, eq, imag, mul, neg, real, select, sub
from .structural import (
    concatenate,
    convert_element_type,
    defvjp_broadcasting,
    match_aval,
    reduce_sum,
    reshape,
    slice,
    transpose,
)

__all__ = [
    "matmul",
    "einsum",
    "inv",
    "solve",
    "triangular_solve",
    "lu",
    "lu_pivots_to_permutation",
    "expm",
    "expm_frechet_block",
    "det",
    "slogdet",
    "cholesky",
    "eigh",
    "svd",
    "qr",
    "eig",
    "matrix_transpose",
    # issue 11 (tracegrad.scipy.linalg): values from SciPy
    "solve_sylvester",
    "sqrtm",
    "logm",
    "logm_frechet_block",
    "schur",
    "hessenberg",
    "qr_pivots",
]


# --------------------------------------------------------------------------
# helpers (all built from primitives, so rules using them stay differentiable)


def matrix_transpose(x):
    """Swap the last two axes of ``x`` (``x.mT``); ``x.ndim >= 2``."""
    n = len(shape_of(x))
    return transpose(x, tuple(range(n - 2)) + (n - 1, n - 2))


def _sym(x):
    """Symmetric part ``(x + x^T) / 2`` of a stack of square matrices."""
    return mul(add(x, matrix_transpose(x)), 0.5)


def _is_complex(x):
    return np.dtype(dtype_of(x)).kind == "c"


def _adjoint(x):
    """Conjugate transpose ``x^H`` (``x^T`` for real ``x``)."""
    return conj(matrix_transpose(x))


def _herm(x):
    """Hermitian part ``(x + x^H) / 2`` (the symmetric part for real ``x``)."""
    return mul(add(x, _adjoint(x)), 0.5)


def _eye(x):
    """Constant identity matrix sized and typed like the last axis of ``x``."""
    return np.eye(shape_of(x)[-1], dtype=dtype_of(x))


def _diag_part(x):
    """Diagonals ``(..., n)`` of a stack of square matrices ``(..., n, n)``."""
    return reduce_sum(mul(x, _eye(x)), (len(shape_of(x)) - 1,))


def _diag_embed(v):
    """Stack of diagonal matrices ``(..., n, n)`` with diagonals ``v`` ``(..., n)``."""
    s = shape_of(v)
    return mul(reshape(v, s[:-1] + (1, s[-1])), _eye(v))


def _expand_matrix(x):
    """Append two unit axes, so a per-matrix scalar broadcasts over the matrix."""
    return reshape(x, shape_of(x) + (1, 1))


def _inv_gaps(w, square=False):
    """``F[..., i, j] = 1 / (w_j - w_i)`` off the diagonal and 0 on it.

    With ``square=True`` the gaps are ``w_j**2 - w_i**2``.  Equal values off
    the diagonal give ``inf`` (the derivative is undefined there).  The
    diagonal is guarded with a double ``select`` so it stays exactly 0.
    """
    if square:
        w = mul(w, w)
    s = shape_of(w)
    gaps = sub(reshape(w, s[:-1] + (1, s[-1])), reshape(w, s + (1,)))
    on_diag = np.eye(s[-1], dtype=bool)
    return select(on_diag, 0.0, div(1.0, select(on_diag, 1.0, gaps)))


def _trace_of_product(x, y):
    """``trace(x @ y^T)`` per matrix: ``sum(x * y)`` over the last two axes."""
    n = len(shape_of(x))
    return reduce_sum(mul(x, y), (n - 2, n - 1))


def _linalg_dtype(dt):
    """NumPy's result dtype of a LAPACK routine: inexact input kept, else float64."""
    dt = np.dtype(dt)
    return dt if dt.kind in "fc" else np.dtype(np.float64)


def check_matrix(a, name):
    """Raise ``LinAlgError`` unless ``a`` (array, tracer or aval) has rank >= 2."""
    if len(a.shape) < 2:
        raise np.linalg.LinAlgError(
            f"{name}: {len(a.shape)}-dimensional array given. Array must be at "
            "least two-dimensional (a matrix or a stack of matrices (..., M, N))."
        )


def check_square(a, name):
    """Raise ``LinAlgError`` unless ``a`` is a stack of square matrices."""
    check_matrix(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError(
            f"{name}: Last 2 dimensions of the array must be square, got shape "
            f"{tuple(a.shape)}."
        )


def _stack_batch_rule(prim):
    """Batching rule of a one-operand primitive on stacks of matrices (inv,
    det, cholesky, eigh, svd, ...): every result keeps the operand's leading
    stack axes, so a batch dim among them stays where it is (no transpose);
    a batch dim among the two matrix axes is moved to the front."""

    def rule(args, bdims, **params):
        (a,), (d,) = args, bdims
        if d >= len(shape_of(a)) - 2:
            a, d = move_bdim(a, d, 0), 0
        out = prim.bind(a, **params)
        return out, ([d] * len(out) if prim.multiple_results else d)

    return rule


def _fold_batch_into_columns(prim, a, b, db, **params):
    """``prim(a, b)`` for every example of ``b`` at once, where ``a`` is an
    unbatched matrix ``(m, k)`` and each example of ``b`` a matrix ``(k, n)``
    (``prim`` acts on the columns of ``b``: ``matmul``, ``solve``).

    The batch is folded into the columns: one ``(m, k) @ (k, B*n)`` product
    (or one factorization of ``a`` for ``solve``) instead of ``B`` small
    ones.  Returns ``(out, out_bdim)``; the batch stays where it is unless it
    was in front, where it moves behind ``k``.
    """
    if db == 0:
        b, db = move_bdim(b, 0, 1), 1
    sb = shape_of(b)
    cols = math.prod(sb[1:])
    out = prim.bind(a, reshape(b, (sb[0], cols)), **params)
    return reshape(out, (shape_of(a)[0],) + sb[1:]), db


# --------------------------------------------------------------------------
# matmul: stacks of matrices (both operands at least 2-D; the tracegrad.numpy
# wrapper handles NumPy's 1-D promotion rules)
matmul_p = Primitive("matmul")
matmul_p.reads = ((0, 1), False)
matmul_p.torch_name = "MmBackward0"


_COMPILED_MATMUL_MAX = 1 << 18  # multiply-adds (a 64x64 @ 64x64 product)


def _lower_matmul(ctx, eqn, operands, outputs):
    """``a @ b`` through Numba's BLAS binding (needs SciPy: ``ctx.blas``), for
    float32/float64 matrices and matrix-vector products of one dtype."""
    a, b = eqn.invars
    if not ctx.blas or not (hasattr(a, "count") and hasattr(b, "count")):
        return None
    if a.aval.dtype != b.aval.dtype or np.dtype(a.aval.dtype).kind != "f":
        return None
    ra, rb = len(a.aval.shape), len(b.aval.shape)
    if (ra, rb) not in ((2, 2), (2, 1), (1, 2)) or 0 in a.aval.shape + b.aval.shape:
        return None
    # large products are BLAS-bound: NumPy's matmul from the driver costs the
    # same and spares the compile of Numba's np.dot (about 1 s per signature)
    if math.prod(a.aval.shape) * b.aval.shape[-1] > _COMPILED_MATMUL_MAX:
        return None
    return [f"{outputs[0]} = np.dot({operands[0]}, {operands[1]})"]


matmul_p.lowering = ArrayOp(_lower_matmul)


@matmul_p.def_impl
def _matmul_impl(a, b):
    """NumPy's ``matmul`` (BLAS ``gemm`` for float32/float64).

    No Numba kernel: a Numba loop (i-p-j order, float64) measured 3.4x slower
    than single-threaded OpenBLAS at 128x784 @ 784x256 (14.2 ms vs 4.2 ms)
    and 2.1-2.5x slower at 32**3 and 64**3; it only ties or wins on tiny
    matrices (2x2, 16x16), where both take a few microseconds.

    A contraction of length 1 (a stack of outer products, e.g. per-example
    weight gradients under vmap) is a broadcasting multiply: the same
    numbers (one product each), 3.2x faster than ``np.matmul`` at
    (128, 784, 1) @ (128, 1, 256) (63 ms vs 204 ms).
    """
    if np.shape(a)[-1] == 1 and np.ndim(a) >= 2 and np.ndim(b) >= 2:
        return np.multiply(a, b)
    return np.matmul(a, b)


@matmul_p.def_abstract_eval
def _matmul_aval(a, b):
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul primitive needs operands of rank >= 2, got {a.shape} and {b.shape}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"matmul: mismatch in the contracted dimension: {a.shape} @ {b.shape}"
        )
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return ShapedArray(batch + (a.shape[-2], b.shape[-1]), np.result_type(a.dtype, b.dtype))


def _matmul_vjp_b(ct, ans, a, b):
    sa, sb = shape_of(a), shape_of(b)
    if len(sb) == 2 and len(sa) > 2:
        # A 2-D right operand shared by a batch (a dense layer applied to a
        # batch of sequences): one gemm over the flattened batch instead of a
        # batched product followed by a sum.  ct has shape sa[:-1] + (n,).
        rows = int(np.prod(sa[:-1]))
        a2 = reshape(a, (rows, sa[-1]))
        return matmul(matrix_transpose(a2), reshape(ct, (rows, sb[-1])))
    return matmul(matrix_transpose(a), ct)


defjvp(matmul_p, lambda g, ans, a, b: matmul(g, b), lambda g, ans, a, b: matmul(a, g))
defvjp_broadcasting(
    matmul_p,
    lambda ct, ans, a, b: matmul(ct, matrix_transpose(b)),
    _matmul_vjp_b,
)

_matmul_batch_general = elementwise_batch_rule(matmul_p)


def _matmul_batch(args, bdims):
    # Two one-gemm fast paths for a batch against a shared 2-D matrix (a
    # dense layer under vmap, jacfwd of W @ x); otherwise NumPy's batch-axis
    # broadcasting (batch dims in front, singleton axes padding the ranks).
    (a, b), (da, db) = args, bdims
    sa, sb = shape_of(a), shape_of(b)
    if db is None and len(sb) == 2:
        # rows of every example of a times b: fold the batch into the rows
        if da == len(sa) - 1:  # the batch is the last axis: k must come last
            a, da = move_bdim(a, da, 0), 0
            sa = shape_of(a)
        out = matmul(reshape(a, (math.prod(sa[:-1]), sa[-1])), b)
        return reshape(out, sa[:-1] + (sb[-1],)), da
    if da is None and len(sa) == 2 and len(sb) == 3:
        return _fold_batch_into_columns(matmul_p, a, b, db)
    return _matmul_batch_general(args, bdims)


matmul_p.batch = _matmul_batch


def matmul(a, b):
    """Matrix product of stacks of matrices ``(..., m, k) @ (..., k, n)``.

    Both operands must have rank >= 2; batch axes broadcast.  The derivative
    is bilinear: ``d(a @ b) = da @ b + a @ db``; the cotangents are
    ``ct @ b^T`` and ``a^T @ ct``, summed over broadcast batch axes.
    """
    return matmul_p.bind(a, b)


# --------------------------------------------------------------------------
# einsum over "clean" operands: within each operand the subscript letters are
# distinct, and every letter appears in at least two places among the
# operands and the output (no diagonals, no one-operand sums, no size-1
# broadcasting).  tracegrad.numpy.einsum reduces every einsum to this form.
einsum_p = Primitive("einsum")


def _parse_spec(spec):
    ins, out = spec.split("->")
    return ins.split(","), out


@einsum_p.def_impl
def _einsum_impl(*operands, spec, optimize):
    """NumPy's ``einsum`` (``optimize`` as given; ``True`` dispatches to BLAS)."""
    return np.einsum(spec, *operands, optimize=optimize)


@einsum_p.def_abstract_eval
def _einsum_aval(*operands, spec, optimize):
    ins, out = _parse_spec(spec)
    sizes = {}
    for s, op in zip(ins, operands):
        for c, n in zip(s, op.shape):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"einsum {spec!r}: letter {c!r} has sizes {sizes[c]} and {n}")
    return ShapedArray(tuple(sizes[c] for c in out), np.result_type(*[o.dtype for o in operands]))


def _einsum_jvp(primals, tangents, *, spec, optimize):
    # Multilinear: the tangent is the sum over operands of the einsum with that
    # operand replaced by its tangent.
    ans = einsum_p.bind(*primals, spec=spec, optimize=optimize)
    out = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        args = list(primals)
        args[i] = t
        c = einsum_p.bind(*args, spec=spec, optimize=optimize)
        out = c if out is None else add(out, c)
    return ans, None if out is None else match_aval(out, ans)


def _einsum_vjp(i, ct, ans, *operands, spec, optimize):
    # The cotangent of operand i contracts the output cotangent with the other
    # operands; the resulting einsum is again clean.
    ins, out = _parse_spec(spec)
    others = [s for j, s in enumerate(ins) if j != i]
    vjp_spec = ",".join([out] + others) + "->" + ins[i]
    rest = [o for j, o in enumerate(operands) if j != i]
    res = einsum(vjp_spec, ct, *rest, optimize=optimize)
    return convert_element_type(res, dtype_of(operands[i]))


einsum_p.jvp = _einsum_jvp
defvjp_variadic(einsum_p, _einsum_vjp)

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_batch(args, bdims, *, spec, optimize):
    # A fresh letter for the batch: written at the batch dim of every batched
    # operand's subscripts and in front of the output's (still a clean spec:
    # the letter occurs in an operand and in the output).
    ins, out = _parse_spec(spec)
    free = [c for c in _LETTERS if c not in spec]
    if not free:
        raise ValueError(
            f"vmap of einsum {spec!r}: all 52 subscript letters are in use, none "
            "is left for the batch axis. Split the einsum into smaller ones."
        )
    c = free[0]
    ins = [s if d is None else s[:d] + c + s[d:] for s, d in zip(ins, bdims)]
    return einsum_p.bind(*args, spec=",".join(ins) + "->" + c + out, optimize=optimize), 0


einsum_p.batch = _einsum_batch


def einsum(spec, *operands, optimize=False):
    """Einstein summation over clean operands.

    Parameters
    ----------
    spec : str
        Explicit subscripts ``"ab,bc->ac"`` (letters only, no ellipsis),
        distinct letters within each operand and every letter present in at
        least two places among the operands and the output.
    *operands : arrays or tracers
    optimize : bool or str
        Passed to ``numpy.einsum``.
    """
    return einsum_p.bind(*operands, spec=spec, optimize=optimize)


# --------------------------------------------------------------------------
# inv
inv_p = Primitive("inv")


@inv_p.def_impl
def _inv_impl(a):
    """LAPACK ``gesv`` against the identity (``numpy.linalg.inv``)."""
    return np.linalg.inv(a)


@inv_p.def_abstract_eval
def _inv_aval(a):
    check_square(a, "inv")
    return ShapedArray(a.shape, _linalg_dtype(a.dtype))


# Giles (2008), section 2.2.1: d(A^-1) = -A^-1 dA A^-1, so the cotangent is
# -A^-T ct A^-T.
defjvp(inv_p, lambda g, ans, a: neg(matmul(ans, matmul(g, ans))))
defvjp(
    inv_p,
    lambda ct, ans, a: neg(
        matmul(matrix_transpose(ans), matmul(ct, matrix_transpose(ans)))
    ),
)
inv_p.batch = _stack_batch_rule(inv_p)


def inv(a):
    """Inverse of a stack of square matrices ``(..., n, n)``."""
    return inv_p.bind(a)


# --------------------------------------------------------------------------
# solve: a (..., m, m), b (..., m, k) with broadcast batch axes
solve_p = Primitive("solve")


@solve_p.def_impl
def _solve_impl(a, b):
    """LAPACK ``gesv`` (``numpy.linalg.solve``), batch axes broadcast."""
    return np.linalg.solve(a, b)


@solve_p.def_abstract_eval
def _solve_aval(a, b):
    check_square(a, "solve")
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dt = _linalg_dtype(np.result_type(a.dtype, b.dtype))
    return ShapedArray(batch + b.shape[-2:], dt)


# Giles (2008), section 2.3.1: x = A^-1 b gives dx = A^-1 (db - dA x); the
# cotangents are b_bar = A^-T ct and A_bar = -b_bar x^T.
defjvp(
    solve_p,
    lambda g, ans, a, b: solve(a, neg(matmul(g, ans))),
    lambda g, ans, a, b: solve(a, g),
)
defvjp_broadcasting(
    solve_p,
    lambda ct, ans, a, b: neg(
        matmul(solve(matrix_transpose(a), ct), matrix_transpose(ans))
    ),
    lambda ct, ans, a, b: solve(matrix_transpose(a), ct),
)

_solve_batch_general = elementwise_batch_rule(solve_p)


def _solve_batch(args, bdims):
    # A shared matrix a against a batch of right-hand sides b: one
    # factorization with the batch folded into b's columns.  Otherwise the
    # batch axes broadcast as in NumPy; every b here is a matrix (..., m, k)
    # (the tracegrad.numpy wrapper turns a 1-D b into a column), so NumPy 2's
    # vector case of solve never applies.
    (a, b), (da, db) = args, bdims
    if da is None and len(shape_of(a)) == 2 and len(shape_of(b)) == 3:
        return _fold_batch_into_columns(solve_p, a, b, db)
    return _solve_batch_general(args, bdims)


solve_p.batch = _solve_batch


def solve(a, b):
    """Solve ``a @ x = b`` for stacks: ``a (..., m, m)``, ``b (..., m, k)``."""
    return solve_p.bind(a, b)


# --------------------------------------------------------------------------
# triangular_solve: op(T) x = b, T the lower or upper triangle of a (..., m, m)
# (its diagonal taken as ones with unit_diagonal), op = identity, transpose
# (trans=1) or conjugate transpose (trans=2); b (..., m, k); batch axes
# broadcast.  The other triangle of a is never read (its derivative is 0).
triangular_solve_p = Primitive("triangular_solve")


def _triangle(a, lower, unit_diagonal):
    """NumPy: the triangle of ``a`` that ``triangular_solve`` reads."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        t[..., np.arange(n), np.arange(n)] = 1
    return t


@triangular_solve_p.def_impl
def _triangular_solve_impl(a, b, *, lower, trans, unit_diagonal):
    """LAPACK ``trtrs`` per matrix via ``scipy.linalg.solve_triangular``;
    without SciPy, ``numpy.linalg.solve`` (LU) on the triangle, batched."""
    a, b = np.asarray(a), np.asarray(b)
    dt = _linalg_dtype(np.result_type(a.dtype, b.dtype))
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:]).astype(dt, copy=False)
    b = np.broadcast_to(b, batch + b.shape[-2:]).astype(dt, copy=False)
    try:
        from scipy.linalg import solve_triangular  # lazy: SciPy is optional (LAPACK trtrs)
    except ImportError:
        t = _triangle(a, lower, unit_diagonal)
        if trans:
            t = np.swapaxes(t, -1, -2)
            t = t.conj() if trans == 2 else t
        return np.linalg.solve(t, b).astype(dt, copy=False)
    out = np.empty(b.shape, dt)
    for idx in np.ndindex(batch):
        out[idx] = solve_triangular(a[idx], b[idx], trans=trans, lower=lower,
                                    unit_diagonal=unit_diagonal, check_finite=False)
    return out


@triangular_solve_p.def_abstract_eval
def _triangular_solve_aval(a, b, *, lower, trans, unit_diagonal):
    check_square(a, "triangular_solve")
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(
            f"triangular_solve: b of shape {b.shape} does not match a of shape {a.shape}")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return ShapedArray(batch + b.shape[-2:], _linalg_dtype(np.result_type(a.dtype, b.dtype)))


def _triangle_mask(x, lower, unit_diagonal):
    """Constant mask of the entries of ``a`` that ``triangular_solve`` reads."""
    n = shape_of(x)[-1]
    k = 1 if unit_diagonal else 0
    mask = np.tril(np.ones((n, n)), -k) if lower else np.triu(np.ones((n, n)), k)
    return mask.astype(dtype_of(x))


def _apply_op(x, trans):
    """``op(x)``: ``x``, ``x^T`` or ``x^H`` for ``trans`` 0, 1, 2."""
    if trans == 0:
        return x
    return _adjoint(x) if trans == 2 and _is_complex(x) else matrix_transpose(x)


# With M = op(T): x = M^-1 b gives dx = M^-1 (db - dM x), dM = op(mask * dA)
# (Giles 2008, the solve, restricted to the triangle read).  The cotangents:
# b_bar = M^-T ct (op's transpose: trans 0 <-> 1; for trans=2, M^T = conj(T),
# solved as conj(T^-1 conj(ct))) and A_bar = mask * op^T(-b_bar x^T), op^T
# the transpose of dA -> op(dA) (identity, transpose, conjugate transpose).
def _triangular_solve_jvp_a(g, ans, a, b, *, lower, trans, unit_diagonal):
    dm = _apply_op(mul(g, _triangle_mask(g, lower, unit_diagonal)), trans)
    return triangular_solve(a, neg(matmul(dm, ans)), lower=lower, trans=trans,
                            unit_diagonal=unit_diagonal)


def _triangular_solve_jvp_b(g, ans, a, b, *, lower, trans, unit_diagonal):
    return triangular_solve(a, g, lower=lower, trans=trans, unit_diagonal=unit_diagonal)


def _triangular_solve_ct_b(ct, a, lower, trans, unit_diagonal):
    """``M^-T ct`` for ``M = op(T)``."""
    if trans == 2 and (_is_complex(a) or _is_complex(ct)):
        return conj(triangular_solve(a, conj(ct), lower=lower, trans=0,
                                     unit_diagonal=unit_diagonal))
    return triangular_solve(a, ct, lower=lower, trans=0 if trans else 1,
                            unit_diagonal=unit_diagonal)


def _triangular_solve_vjp_a(ct, ans, a, b, *, lower, trans, unit_diagonal):
    m_bar = neg(matmul(_triangular_solve_ct_b(ct, a, lower, trans, unit_diagonal),
                       matrix_transpose(ans)))
    return mul(_apply_op(m_bar, trans), _triangle_mask(m_bar, lower, unit_diagonal))


def _triangular_solve_vjp_b(ct, ans, a, b, *, lower, trans, unit_diagonal):
    return _triangular_solve_ct_b(ct, a, lower, trans, unit_diagonal)


defjvp(triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)
defvjp_broadcasting(triangular_solve_p, _triangular_solve_vjp_a, _triangular_solve_vjp_b)

_triangular_solve_batch_general = elementwise_batch_rule(triangular_solve_p)


def _triangular_solve_batch(args, bdims, **params):
    # a shared triangle against a batch of right-hand sides: one solve with
    # the batch folded into b's columns (as for solve)
    (a, b), (da, db) = args, bdims
    if da is None and len(shape_of(a)) == 2 and len(shape_of(b)) == 3:
        return _fold_batch_into_columns(triangular_solve_p, a, b, db, **params)
    return _triangular_solve_batch_general(args, bdims, **params)


triangular_solve_p.batch = _triangular_solve_batch


def triangular_solve(a, b, *, lower, trans=0, unit_diagonal=False):
    """Solve ``op(T) @ x = b`` for the triangle ``T`` of ``a`` (stacks:
    ``a (..., m, m)``, ``b (..., m, k)``); ``trans`` 0, 1, 2 for ``T``,
    ``T^T``, ``T^H``; ``unit_diagonal`` takes T's diagonal as ones."""
    if trans not in (0, 1, 2):
        raise ValueError(f"triangular_solve: trans must be 0, 1 or 2, got {trans!r}")
    return triangular_solve_p.bind(a, b, lower=bool(lower), trans=int(trans),
                                   unit_diagonal=bool(unit_diagonal))


# --------------------------------------------------------------------------
# lu: a (..., n, n) = P L U with partial pivoting (LAPACK getrf); results
# (lu, pivots, permutation): L's strict lower triangle and U packed in one
# matrix, LAPACK's 0-based row interchanges (int32), and the permutation
# perm with a[..., perm, :] = L U (int32)
lu_p = Primitive("lu", multiple_results=True)


def _lu_numpy(a):
    """``(lu, piv)`` of one square matrix, Doolittle with partial pivoting
    (Golub and Van Loan, algorithm 3.4.1), one rank-1 update per column."""
    lu = np.array(a, copy=True)
    n = lu.shape[0]
    piv = np.zeros(n, np.int32)
    for k in range(n):
        p = k + int(np.argmax(np.abs(lu[k:, k])))
        piv[k] = p
        if p != k:
            lu[[k, p]] = lu[[p, k]]
        if lu[k, k] != 0:
            lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, piv


def _permutation(piv, size):
    """The permutation (int32, ``size``) that LAPACK's row interchanges ``piv`` apply."""
    perm = np.arange(size, dtype=np.int32)
    for i, p in enumerate(piv):
        if not 0 <= p < size:
            raise ValueError(f"lu_pivots_to_permutation: pivot {p} out of range [0, {size})")
        perm[i], perm[p] = perm[p], perm[i]
    return perm


@lu_p.def_impl
def _lu_impl(a):
    """LAPACK ``getrf`` per matrix via ``scipy.linalg.lu_factor``; without
    SciPy, the same algorithm in NumPy (one rank-1 update per column).
    Singular matrices factor (a zero on U's diagonal), as in LAPACK."""
    a = np.asarray(a)
    a = a.astype(_linalg_dtype(a.dtype), copy=False)
    try:
        from scipy.linalg import lu_factor  # lazy: SciPy is optional (LAPACK getrf)
    except ImportError:
        lu_factor = None
    batch, n = a.shape[:-2], a.shape[-1]
    lu = np.empty(a.shape, a.dtype)
    piv = np.empty(batch + (n,), np.int32)
    perm = np.empty(batch + (n,), np.int32)
    for idx in np.ndindex(batch):
        if lu_factor is None:
            lu[idx], piv[idx] = _lu_numpy(a[idx])
        else:
            with warnings.catch_warnings():  # a singular U is a result, not an error
                warnings.simplefilter("ignore", category=RuntimeWarning)
                lu[idx], piv[idx] = lu_factor(a[idx], check_finite=False)
        perm[idx] = _permutation(piv[idx], n)
    return [lu, piv, perm]


@lu_p.def_abstract_eval
def _lu_aval(a):
    check_square(a, "lu")
    ints = ShapedArray(a.shape[:-1], np.dtype(np.int32))
    return [ShapedArray(a.shape, _linalg_dtype(a.dtype)), ints, ints]


def _lu_masks(lu):
    """Constant masks of the packed factor: L's strict lower triangle, U's upper."""
    return (_triangle_mask(lu, lower=True, unit_diagonal=True),
            _triangle_mask(lu, lower=False, unit_diagonal=False))


def _lu_parts(lu):
    """``(L, U)`` from the packed factor: unit lower and upper triangles."""
    strict, upper = _lu_masks(lu)
    return add(mul(lu, strict), _eye(lu)), mul(lu, upper)


def _permutation_matrix_t(perm, dtype):
    """``P^T`` (``(P^T x)[i] = x[perm[i]]``) as a matrix, from primitives."""
    n = shape_of(perm)[-1]
    s = shape_of(perm)
    return convert_element_type(eq(reshape(perm, s + (1,)), np.arange(n, dtype=np.int32)), dtype)


# With P^T A = L U and phi = L^-1 P^T dA U^-1: dL = L tril(phi, -1) and
# dU = triu(phi) U (the standard LU perturbation result, e.g. S. P. Smith,
# "Differentiation of the Cholesky algorithm", 1995, and JAX's lu rule), so
# the packed tangent is L tril(phi, -1) + triu(phi) U.  Transposed: with C
# the packed cotangent, phi_bar = tril(L^T C, -1) + triu(C U^T) and
# A_bar = P L^-T phi_bar U^-T.
def _lu_jvp(primals, tangents):
    (a,), (g,) = primals, tangents
    lu, piv, perm = lu_p.bind(a)
    low, up = _lu_parts(lu)
    x = matmul(_permutation_matrix_t(perm, dtype_of(lu)), convert_element_type(g, dtype_of(lu)))
    y = triangular_solve(low, x, lower=True, unit_diagonal=True)  # L^-1 P^T dA
    phi = matrix_transpose(triangular_solve(up, matrix_transpose(y), lower=False, trans=1))
    strict, upper = _lu_masks(lu)
    d_lu = add(matmul(low, mul(phi, strict)), matmul(mul(phi, upper), up))
    return [lu, piv, perm], [d_lu, None, None]


def _lu_vjp(ct, ans, a):
    c = ct[0]
    if c is None:
        return None
    lu, _, perm = ans
    low, up = _lu_parts(lu)
    strict, upper = _lu_masks(lu)
    phi_bar = add(mul(matmul(matrix_transpose(low), mul(c, strict)), strict),
                  mul(matmul(mul(c, upper), matrix_transpose(up)), upper))
    z = triangular_solve(up, matrix_transpose(phi_bar), lower=False)  # U^-1 phi_bar^T
    w = triangular_solve(low, matrix_transpose(z), lower=True, trans=1, unit_diagonal=True)
    return matmul(matrix_transpose(_permutation_matrix_t(perm, dtype_of(lu))), w)  # P L^-T ...


lu_p.jvp = _lu_jvp
defvjp(lu_p, _lu_vjp)
lu_p.batch = _stack_batch_rule(lu_p)


# lu_pivots_to_permutation: LAPACK's 0-based row interchanges (..., k) -> the
# permutation (..., n) they apply (integers: no derivative)
lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


@lu_pivots_to_permutation_p.def_impl
def _lu_pivots_to_permutation_impl(pivots, *, size):
    pivots = np.asarray(pivots)
    perm = np.empty(pivots.shape[:-1] + (size,), np.int32)
    for idx in np.ndindex(pivots.shape[:-1]):
        perm[idx] = _permutation(pivots[idx], size)
    return perm


@lu_pivots_to_permutation_p.def_abstract_eval
def _lu_pivots_to_permutation_aval(pivots, *, size):
    if np.dtype(pivots.dtype).kind not in "iu" or len(pivots.shape) < 1 or pivots.shape[-1] > size:
        raise ValueError(f"lu_pivots_to_permutation: pivots must be integers (..., k) with "
                         f"k <= {size}, got {pivots.dtype} {tuple(pivots.shape)}")
    return ShapedArray(tuple(pivots.shape[:-1]) + (size,), np.dtype(np.int32))


def_nondifferentiable(lu_pivots_to_permutation_p)
lu_pivots_to_permutation_p.batch = _stack_batch_rule(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, size):
    """The permutation ``(..., size)`` that the row interchanges ``pivots`` apply."""
    return lu_pivots_to_permutation_p.bind(pivots, size=int(size))


def lu(a):
    """``[lu, pivots, permutation]`` of a stack of square matrices: ``P^T a =
    L U`` with ``a[..., perm, :] = L @ U`` (see ``lu_p``)."""
    return lu_p.bind(a)


# --------------------------------------------------------------------------
# expm: the matrix exponential of a stack of square matrices
expm_p = Primitive("expm")

# Pade [13/13] coefficients of exp (Higham 2005, "The scaling and squaring
# method for the matrix exponential revisited", table 10.4 of Higham's
# "Functions of Matrices", 2008) and the 1-norm bound theta_13 below which
# the unscaled approximant is accurate to unit roundoff in double precision.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0,
           1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm_pade13(a):
    """``exp(a)`` of one matrix: scaling by 2**-s until ``|a|_1 <= theta_13``,
    the [13/13] Pade approximant, then s squarings (Higham 2005)."""
    norm = np.linalg.norm(a, 1) if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if np.isfinite(norm) and norm > 0 else 0
    a = a / 2.0 ** s
    b = _PADE13
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


@expm_p.def_impl
def _expm_impl(a):
    """``scipy.linalg.expm`` (Al-Mohy and Higham 2009, scaling and squaring
    with Pade approximants chosen by the norm); without SciPy, the [13/13]
    Pade approximant with scaling and squaring (Higham 2005) in NumPy."""
    a = np.asarray(a)
    a = a.astype(_linalg_dtype(a.dtype), copy=False)
    try:
        from scipy.linalg import expm  # lazy: SciPy is optional
    except ImportError:
        out = np.empty(a.shape, a.dtype)
        for idx in np.ndindex(a.shape[:-2]):
            out[idx] = _expm_pade13(a[idx])
        return out
    return np.asarray(expm(a), dtype=a.dtype)


@expm_p.def_abstract_eval
def _expm_aval(a):
    check_square(a, "expm")
    return ShapedArray(a.shape, _linalg_dtype(a.dtype))


def expm_frechet_block(a, e):
    """``(exp(a), L(a, e))`` for ``a`` and ``e`` of one shape ``(..., n, n)``:
    ``L(a, e)`` is the Frechet derivative of exp at ``a`` in the direction
    ``e``, the upper-right block of the exponential of ``[[a, e], [0, a]]``
    (Higham, "Functions of Matrices", 2008, theorem 3.6).  Written with
    primitives, so it differentiates again."""
    shape = shape_of(a)
    n, nd = shape[-1], len(shape)
    if dtype_of(e) != dtype_of(a):
        e = convert_element_type(e, dtype_of(a))
    top = concatenate([a, e], nd - 1)
    bottom = concatenate([mul(a, 0.0), a], nd - 1)
    big = expm(concatenate([top, bottom], nd - 2))
    starts = (0,) * (nd - 2)
    ex = slice(big, starts + (0, 0), shape)
    frechet = slice(big, starts + (0, n), shape[:-1] + (2 * n,))
    return ex, frechet


# d exp(A) = L(A, dA).  With L(A, E) = int_0^1 e^{sA} E e^{(1-s)A} ds, the
# transpose of E -> L(A, E) is C -> L(A^T, C) (for complex A too: the
# bilinear sum(C * L(A, E)), no conjugation).
defjvp(expm_p, lambda g, ans, a: expm_frechet_block(a, g)[1])
defvjp(expm_p, lambda ct, ans, a: expm_frechet_block(matrix_transpose(a), ct)[1])
expm_p.batch = _stack_batch_rule(expm_p)


def expm(a):
    """Matrix exponential of a stack of square matrices ``(..., n, n)``."""
    return expm_p.bind(a)


# --------------------------------------------------------------------------
# det
det_p = Primitive("det")


@det_p.def_impl
def _det_impl(a):
    """LU factorization (LAPACK ``getrf``) via ``numpy.linalg.det``."""
    return np.linalg.det(a)


@det_p.def_abstract_eval
def _det_aval(a):
    check_square(a, "det")
    return ShapedArray(a.shape[:-2], _linalg_dtype(a.dtype))


def _inv_t(a):
    """``A^-T``: the gradient of ``log|det A|``."""
    return matrix_transpose(inv(a))


# Giles (2008), section 2.2.2 (Jacobi's formula): d det A = det A tr(A^-1 dA),
# so the cotangent is ct det(A) A^-T.  Needs A invertible (see tnp.linalg.det).
defjvp(det_p, lambda g, ans, a: mul(ans, _trace_of_product(_inv_t(a), g)))
defvjp(det_p, lambda ct, ans, a: mul(_expand_matrix(mul(ct, ans)), _inv_t(a)))
det_p.batch = _stack_batch_rule(det_p)


def det(a):
    """Determinant of a stack of square matrices ``(..., n, n)``."""
    return det_p.bind(a)


# --------------------------------------------------------------------------
# slogdet: (sign, log|det|); sign is piecewise constant (zero derivative)
slogdet_p = Primitive("slogdet", multiple_results=True)


@slogdet_p.def_impl
def _slogdet_impl(a):
    """LU factorization (LAPACK ``getrf``) via ``numpy.linalg.slogdet``."""
    sign, logabsdet = np.linalg.slogdet(a)
    return sign, logabsdet


@slogdet_p.def_abstract_eval
def _slogdet_aval(a):
    check_square(a, "slogdet")
    aval = ShapedArray(a.shape[:-2], _linalg_dtype(a.dtype))
    return [aval, aval]


def _slogdet_jvp(primals, tangents):
    (a,), (g,) = primals, tangents
    sign, logabsdet = slogdet_p.bind(a)
    # Giles (2008), 2.2.2: d log det A = tr(A^-1 dA) =: ld.  Real A: the sign
    # is piecewise constant.  Complex A (JAX's rule): d log|det A| = Re(ld)
    # and the unit-modulus sign turns: d sign = sign * i Im(ld).
    ld = _trace_of_product(_inv_t(a), g)
    if _is_complex(a):
        return [sign, logabsdet], [mul(sign, mul(imag(ld), 1j)), real(ld)]
    return [sign, logabsdet], [None, ld]


def _slogdet_vjp(ct, ans, a):
    # the transpose of the JVP above for Re(sum(a * b)): c_l A^-T, and for a
    # complex sign's cotangent c_s, i Im(c_s sign) A^-T
    ct_sign, ct_logabsdet = ct
    if not _is_complex(a):
        ct_sign = None
    scale = None if ct_logabsdet is None else convert_element_type(ct_logabsdet, dtype_of(a))
    if ct_sign is not None:
        turn = mul(imag(mul(ct_sign, ans[0])), 1j)
        scale = turn if scale is None else add(scale, turn)
    if scale is None:
        return None
    return mul(_expand_matrix(scale), _inv_t(a))


slogdet_p.jvp = _slogdet_jvp
defvjp(slogdet_p, _slogdet_vjp)
slogdet_p.batch = _stack_batch_rule(slogdet_p)


def slogdet(a):
    """``(sign, log|det a|)`` of a stack of square matrices, as a list."""
    return slogdet_p.bind(a)


# --------------------------------------------------------------------------
# cholesky (symmetric convention: derivatives treat the input as symmetric)
cholesky_p = Primitive("cholesky")


@cholesky_p.def_impl
def _cholesky_impl(a, *, upper):
    """LAPACK ``potrf`` via ``numpy.linalg.cholesky`` (reads one triangle)."""
    return np.linalg.cholesky(a, upper=upper)


@cholesky_p.def_abstract_eval
def _cholesky_aval(a, *, upper):
    check_square(a, "cholesky")
    return ShapedArray(a.shape, _linalg_dtype(a.dtype))


def _phi_mask(x):
    """Murray's Phi as a mask: 1 below the diagonal, 1/2 on it, 0 above."""
    n = shape_of(x)[-1]
    return (np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)).astype(dtype_of(x))


def _cholesky_jvp(g, ans, a, *, upper):
    # Murray (2016), eq. (7): for symmetric dA, dL = L Phi(L^-1 dA L^-T); for
    # a complex Hermitian A = L L^H the same with conjugate transposes (dA
    # taken Hermitian, as JAX's symmetrized input does).
    low = _adjoint(ans) if upper else ans
    x = triangular_solve(low, _herm(g), lower=True)  # L^-1 dA
    inner = _adjoint(triangular_solve(low, _adjoint(x), lower=True))  # L^-1 dA L^-H
    d_low = matmul(low, mul(inner, _phi_mask(low)))
    return _adjoint(d_low) if upper else d_low


def _cholesky_vjp(ct, ans, a, *, upper):
    # Murray (2016), eq. (10): A_bar = L^-T Phi(L^T L_bar) L^-1, then
    # symmetrized (the input is treated as symmetric).  Complex A: the
    # transpose of the JVP above for Re(sum(a * b)) (JAX's convention),
    # L^-T Phi(L^T L_bar) conj(L^-1), then the Hermitian part.
    low = _adjoint(ans) if upper else ans
    ct_low = _adjoint(ct) if upper else ct
    p = mul(matmul(matrix_transpose(low), ct_low), _phi_mask(low))
    q = triangular_solve(low, p, lower=True, trans=1)  # L^-T P
    a_bar = matrix_transpose(triangular_solve(low, matrix_transpose(q), lower=True, trans=2))
    # (L^-T P conj(L^-1))
    return _herm(a_bar)


defjvp(cholesky_p, _cholesky_jvp)
defvjp(cholesky_p, _cholesky_vjp)
cholesky_p.batch = _stack_batch_rule(cholesky_p)


def cholesky(a, upper=False):
    """Cholesky factor of a stack of symmetric positive-definite matrices."""
    return cholesky_p.bind(a, upper=bool(upper))


# --------------------------------------------------------------------------
# eigh (symmetric convention: derivatives treat the input as symmetric)
eigh_p = Primitive("eigh", multiple_results=True)


@eigh_p.def_impl
def _eigh_impl(a, *, UPLO):
    """LAPACK ``syevd`` via ``numpy.linalg.eigh`` (reads one triangle)."""
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return w, v


@eigh_p.def_abstract_eval
def _eigh_aval(a, *, UPLO):
    check_square(a, "eigh")
    dt = _linalg_dtype(a.dtype)
    return [ShapedArray(a.shape[:-1], dt), ShapedArray(a.shape, dt)]


def _eigh_jvp(primals, tangents, *, UPLO):
    (a,), (g,) = primals, tangents
    w, v = eigh_p.bind(a, UPLO=UPLO)
    # Giles (2008), section 3.1: with S = U^H dA U (dA symmetrized, Hermitian
    # part for complex A), dw = Re(diag(S)) and dU = U (F * S),
    # F_ij = 1 / (w_j - w_i) off the diagonal.
    s = matmul(_adjoint(v), matmul(_herm(g), v))
    dw = real(_diag_part(s))
    dv = matmul(v, mul(_inv_gaps(w), s))
    return [w, v], [dw, dv]


def _eigh_vjp(ct, ans, a, *, UPLO):
    # Giles (2008), section 3.1: A_bar = U (diag(w_bar) + F * (U^T U_bar)) U^T,
    # symmetrized; for complex A the transpose for Re(sum(a * b)) (JAX's
    # convention) is conj(U) (diag(w_bar) + F * (U^T U_bar)) U^T, Hermitian part.
    ct_w, ct_v = ct
    w, v = ans
    inner = None
    if ct_w is not None:
        inner = convert_element_type(_diag_embed(ct_w), dtype_of(v))
    if ct_v is not None:
        term = mul(_inv_gaps(w), matmul(matrix_transpose(v), ct_v))
        inner = term if inner is None else add(inner, term)
    if inner is None:
        return None
    return _herm(matmul(conj(v), matmul(inner, matrix_transpose(v))))


eigh_p.jvp = _eigh_jvp
defvjp(eigh_p, _eigh_vjp)
eigh_p.batch = _stack_batch_rule(eigh_p)


def eigh(a, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of stacks of symmetric matrices."""
    return eigh_p.bind(a, UPLO=UPLO)


# --------------------------------------------------------------------------
# svd: (U, s, Vh) with U (..., m, k), s (..., k), Vh (..., k, n), k = min(m, n)
# when full_matrices is False (derivatives need full_matrices=False or m == n)
svd_p = Primitive("svd", multiple_results=True)


@svd_p.def_impl
def _svd_impl(a, *, full_matrices):
    """LAPACK ``gesdd`` via ``numpy.linalg.svd``."""
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return u, s, vh


@svd_p.def_abstract_eval
def _svd_aval(a, *, full_matrices):
    check_matrix(a, "svd")
    m, n = a.shape[-2:]
    k = min(m, n)
    ku, kv = (m, n) if full_matrices else (k, k)
    dt = _linalg_dtype(a.dtype)
    batch = a.shape[:-2]
    return [
        ShapedArray(batch + (m, ku), dt),
        ShapedArray(batch + (k,), dt),
        ShapedArray(batch + (kv, n), dt),
    ]


def _svd_check(a, full_matrices):
    m, n = shape_of(a)[-2:]
    if full_matrices and m != n:
        raise NotImplementedError(
            "The derivative of svd(a, full_matrices=True) is not defined for a "
            f"non-square matrix (shape {shape_of(a)}): the extra singular vectors "
            "are arbitrary. Use full_matrices=False."
        )
    return m, n


def _svd_jvp_complex(a, g, u, s, vh):
    """The SVD's JVP for complex ``a`` (the formulas of JAX's ``svd`` JVP,
    Townsend (2016) with conjugate transposes): ``ds = Re(diag(U^H dA V))``;
    ``dU`` gets ``i Im(diag(dP)) / s`` on its diagonal, which fixes the phase
    gauge of the singular vectors (U^H dU has real part 0 on the diagonal)."""
    m, n = shape_of(a)[-2:]
    v = _adjoint(vh)
    uh = _adjoint(u)
    dp = matmul(uh, matmul(g, v))
    ds = real(_diag_part(dp))
    f = _inv_gaps(s, square=True)
    s_row = reshape(s, shape_of(s)[:-1] + (1, shape_of(s)[-1]))
    s_col = reshape(s, shape_of(s) + (1,))
    dss = mul(dp, s_row)  # dP S
    sds = mul(s_col, dp)  # S dP
    zero = eq(s, 0)
    s_inv = select(zero, 0.0, div(1.0, select(zero, 1.0, s)))
    diag_fix = mul(mul(sub(dp, _adjoint(dp)), 0.5), _diag_embed(s_inv))
    du = matmul(u, add(mul(f, add(dss, _adjoint(dss))), diag_fix))
    dv = matmul(v, mul(f, add(sds, _adjoint(sds))))
    if m > n:
        gv = div(matmul(g, v), s_row)
        du = add(du, sub(gv, matmul(u, matmul(uh, gv))))
    if n > m:
        gu = div(matmul(_adjoint(g), u), s_row)
        dv = add(dv, sub(gu, matmul(v, matmul(vh, gu))))
    return [u, s, vh], [du, ds, _adjoint(dv)]


def _svd_vjp_complex(ct_u, ct_s, ct_vh, u, s, vh, m, n):
    """The transpose of :func:`_svd_jvp_complex` for the pairing
    ``Re(sum(a * b))`` (JAX's convention), step by step: each linear map
    ``X -> A X B`` transposes to ``C -> A^T C B^T``, ``X -> X^H`` to
    ``C -> C^H``, a real mask to itself, ``Re`` to the embedding."""
    f = _inv_gaps(s, square=True)
    s_row = reshape(s, shape_of(s)[:-1] + (1, shape_of(s)[-1]))
    s_col = reshape(s, shape_of(s) + (1,))
    ct_dp = None

    def acc(x, y):
        return y if x is None else add(x, y)

    if ct_s is not None:
        ct_dp = convert_element_type(_diag_embed(ct_s), dtype_of(u))
    if ct_u is not None:
        cu = matmul(matrix_transpose(u), ct_u)
        fc = mul(f, cu)
        ct_dp = acc(ct_dp, mul(add(fc, _adjoint(fc)), s_row))
        zero = eq(s, 0)
        s_inv = select(zero, 0.0, div(1.0, select(zero, 1.0, s)))
        ce = mul(cu, _diag_embed(s_inv))
        ct_dp = acc(ct_dp, mul(sub(ce, _adjoint(ce)), 0.5))
    if ct_vh is not None:
        cv = matmul(conj(vh), _adjoint(ct_vh))  # V^T (ct_vh)^H, V = vh^H
        fc = mul(f, cv)
        ct_dp = acc(ct_dp, mul(s_col, add(fc, _adjoint(fc))))
    out = None if ct_dp is None else matmul(conj(u), matmul(ct_dp, conj(vh)))
    if ct_u is not None and m > n:
        x = div(ct_u, s_row)
        x = sub(x, matmul(conj(u), matmul(matrix_transpose(u), x)))  # (I - conj(U) U^T) x
        out = acc(out, matmul(x, conj(vh)))
    if ct_vh is not None and n > m:
        y = matmul(div(conj(u), s_row), ct_vh)
        y = sub(y, matmul(matmul(y, matrix_transpose(vh)), conj(vh)))  # y conj(I - V V^H)
        out = acc(out, y)
    return out


def _svd_jvp(primals, tangents, *, full_matrices):
    (a,), (g,) = primals, tangents
    m, n = _svd_check(a, full_matrices)
    u, s, vh = svd_p.bind(a, full_matrices=full_matrices)
    if _is_complex(a):
        return _svd_jvp_complex(a, g, u, s, vh)
    v = matrix_transpose(vh)
    # Townsend (2016): with dP = U^T dA V and F_ij = 1/(s_j^2 - s_i^2),
    # ds = diag(dP), U^T dU = F * (dP S + S dP^T), V^T dV = F * (S dP + dP^T S),
    # plus the components outside the spans of U and V when m != n.
    dp = matmul(matrix_transpose(u), matmul(g, v))
    ds = _diag_part(dp)
    f = _inv_gaps(s, square=True)
    s_row = reshape(s, shape_of(s)[:-1] + (1, shape_of(s)[-1]))  # X * s_row = X S
    s_col = reshape(s, shape_of(s) + (1,))  # X * s_col = S X
    dpt = matrix_transpose(dp)
    du = matmul(u, mul(f, add(mul(dp, s_row), mul(s_col, dpt))))
    dv = matmul(v, mul(f, add(mul(s_col, dp), mul(dpt, s_row))))
    if m > n:
        gv = div(matmul(g, v), s_row)  # dA V S^-1
        du = add(du, sub(gv, matmul(u, matmul(matrix_transpose(u), gv))))
    if n > m:
        gu = div(matmul(matrix_transpose(g), u), s_row)  # dA^T U S^-1
        dv = add(dv, sub(gu, matmul(v, matmul(matrix_transpose(v), gu))))
    return [u, s, vh], [du, ds, matrix_transpose(dv)]


def _svd_vjp(ct, ans, a, *, full_matrices):
    # Townsend (2016), the adjoint of the JVP above:
    # A_bar = U [(J + J^T) S + diag(s_bar) + S (K + K^T)] V^T
    #         + (I - U U^T) U_bar S^-1 V^T + U S^-1 V_bar^T (I - V V^T),
    # with J = F * (U^T U_bar) and K = F * (V^T V_bar).
    m, n = _svd_check(a, full_matrices)
    ct_u, ct_s, ct_vh = ct
    u, s, vh = ans
    if _is_complex(a):
        return _svd_vjp_complex(ct_u, ct_s, ct_vh, u, s, vh, m, n)
    v = matrix_transpose(vh)
    ut, s_row = matrix_transpose(u), reshape(s, shape_of(s)[:-1] + (1, shape_of(s)[-1]))
    s_col = reshape(s, shape_of(s) + (1,))
    f = None if ct_u is None and ct_vh is None else _inv_gaps(s, square=True)
    mid = None

    def acc(x, y):
        return y if x is None else add(x, y)

    if ct_s is not None:
        mid = _diag_embed(ct_s)
    if ct_u is not None:
        j = mul(f, matmul(ut, ct_u))
        mid = acc(mid, mul(add(j, matrix_transpose(j)), s_row))
    if ct_vh is not None:
        ct_v = matrix_transpose(ct_vh)
        k = mul(f, matmul(vh, ct_v))
        mid = acc(mid, mul(s_col, add(k, matrix_transpose(k))))
    out = None if mid is None else matmul(u, matmul(mid, vh))
    if ct_u is not None and m > n:
        x = div(sub(ct_u, matmul(u, matmul(ut, ct_u))), s_row)  # (I - U U^T) U_bar S^-1
        out = acc(out, matmul(x, vh))
    if ct_vh is not None and n > m:
        y = div(sub(ct_v, matmul(v, matmul(vh, ct_v))), s_row)  # (I - V V^T) V_bar S^-1
        out = acc(out, matmul(u, matrix_transpose(y)))
    return out


svd_p.jvp = _svd_jvp
defvjp(svd_p, _svd_vjp)
svd_p.batch = _stack_batch_rule(svd_p)


def svd(a, full_matrices=False):
    """Singular value decomposition ``[U, s, Vh]`` of a stack of matrices."""
    return svd_p.bind(a, full_matrices=bool(full_matrices))


# --------------------------------------------------------------------------
# qr: (Q, R); mode "reduced" (Q (..., m, k), R (..., k, n), k = min(m, n)) or
# "complete" (Q (..., m, m), R (..., m, n))
qr_p = Primitive("qr", multiple_results=True)


@qr_p.def_impl
def _qr_impl(a, *, mode):
    """Householder QR (LAPACK ``geqrf``/``orgqr``) via ``numpy.linalg.qr``."""
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


@qr_p.def_abstract_eval
def _qr_aval(a, *, mode):
    check_matrix(a, "qr")
    m, n = a.shape[-2:]
    k = m if mode == "complete" else min(m, n)
    dt = _linalg_dtype(a.dtype)
    return [ShapedArray(a.shape[:-2] + (m, k), dt), ShapedArray(a.shape[:-2] + (k, n), dt)]


def _tri_masks(x):
    """Constant masks (upper triangle with diagonal, strict lower triangle)."""
    n = shape_of(x)[-1]
    upper = np.triu(np.ones((n, n), dtype=dtype_of(x)))
    return upper, (1 - upper).astype(dtype_of(x))


def _right_solve(x, r):
    """``x R^-1`` for a square ``R``: ``solve(R^T, x^T)^T``."""
    return matrix_transpose(solve(matrix_transpose(r), matrix_transpose(x)))


def _imag_diag(x):
    """``i Im(diag(x))`` as a diagonal matrix (complex ``x``)."""
    return mul(_diag_embed(imag(_diag_part(x))), 1j)


def _qr_jvp_tall(q, r, g):
    # Walter and Lehmann (2018), QR for m >= n: with B = dA R^-1 and
    # C = Q^H B, the skew-Hermitian Omega = Q^H dQ is L - L^H (+ i Im(diag C)
    # for complex A, whose R has a real diagonal: JAX's correction), L the
    # strict lower triangle of C; D = C - Omega gives dR = D R, dQ = B - Q D.
    b = _right_solve(g, r)
    c = matmul(_adjoint(q), b)
    _, lower = _tri_masks(c)
    low = mul(c, lower)
    d = add(sub(c, low), _adjoint(low))
    if _is_complex(c):
        d = sub(d, _imag_diag(c))
    return sub(b, matmul(q, d)), matmul(d, r)


def _qr_vjp_tall(q, r, ct_q, ct_r):
    # The transpose of _qr_jvp_tall (for Re(sum(a * b)) when complex): with
    # M = R_bar R^T - Q^T Q_bar and N its upper triangle with the lower one
    # mirrored from M^H (and the diagonal's imaginary part dropped when
    # complex), A_bar = (Q_bar + conj(Q) N) R^-T.
    m = None if ct_r is None else matmul(ct_r, matrix_transpose(r))
    if ct_q is not None:
        qtq = matmul(matrix_transpose(q), ct_q)
        m = neg(qtq) if m is None else sub(m, qtq)
    upper, lower = _tri_masks(m)
    n = add(mul(m, upper), mul(_adjoint(m), lower))
    if _is_complex(m):
        n = sub(n, _imag_diag(m))
    x = matmul(conj(q), n)
    if ct_q is not None:
        x = add(ct_q, x)
    return matrix_transpose(solve(r, matrix_transpose(x)))


def _qr_check(a, mode):
    m, n = shape_of(a)[-2:]
    if mode == "complete" and m > n:
        raise NotImplementedError(
            "The derivative of qr(a, mode='complete') is not defined for a tall "
            f"matrix (shape {shape_of(a)}): the extra columns of Q are arbitrary. "
            "Use mode='reduced'."
        )
    return m, n


def _last_axis_split(x, k):
    """``(x[..., :k], x[..., k:])`` with static slices."""
    s = shape_of(x)
    lo = (0,) * len(s)
    return (
        slice(x, lo, s[:-1] + (k,)),
        slice(x, lo[:-1] + (k,), s),
    )


def _qr_jvp(primals, tangents, *, mode):
    (a,), (g,) = primals, tangents
    m, n = _qr_check(a, mode)
    q, r = qr_p.bind(a, mode=mode)
    if m >= n:
        dq, dr = _qr_jvp_tall(q, r, g)
    else:
        # wide: A = [X | Y] with X = Q U square and Y = Q V, so V = Q^H Y
        gx, gy = _last_axis_split(g, m)
        u, _ = _last_axis_split(r, m)
        _, y = _last_axis_split(a, m)
        dq, du = _qr_jvp_tall(q, u, gx)
        dv = add(matmul(_adjoint(dq), y), matmul(_adjoint(q), gy))
        dr = concatenate([du, dv], len(shape_of(a)) - 1)
    return [q, r], [dq, dr]


def _qr_vjp(ct, ans, a, *, mode):
    m, n = _qr_check(a, mode)
    ct_q, ct_r = ct
    q, r = ans
    if ct_q is None and ct_r is None:
        return None
    if m >= n:
        return _qr_vjp_tall(q, r, ct_q, ct_r)
    u, _ = _last_axis_split(r, m)
    _, y = _last_axis_split(a, m)
    ct_u, ct_v = (None, None) if ct_r is None else _last_axis_split(ct_r, m)
    if ct_v is None:
        ct_v = np.zeros(shape_of(r)[:-1] + (n - m,), dtype_of(r))
    ct_q_sq = matmul(conj(y), _adjoint(ct_v))  # conj(Y) V_bar^H (Y V_bar^T when real)
    if ct_q is not None:
        ct_q_sq = add(ct_q, ct_q_sq)
    ct_x = _qr_vjp_tall(q, u, ct_q_sq, ct_u)
    ct_y = matmul(conj(q), ct_v)
    return concatenate([ct_x, ct_y], len(shape_of(a)) - 1)


qr_p.jvp = _qr_jvp
defvjp(qr_p, _qr_vjp)
qr_p.batch = _stack_batch_rule(qr_p)


def qr(a, mode="reduced"):
    """QR decomposition ``[Q, R]`` of a stack of matrices (mode reduced/complete)."""
    return qr_p.bind(a, mode=mode)


# --------------------------------------------------------------------------
# eig: eigenvalues w (..., n) and unit-norm right eigenvectors V (..., n, n)
# of a general square matrix, always complex (JAX's convention; NumPy returns
# a real dtype when every eigenvalue happens to be real).
eig_p = Primitive("eig", multiple_results=True)


def _eig_dtype(dt):
    """complex64 for float32/complex64 input, complex128 otherwise."""
    return np.dtype(np.complex64) if np.dtype(dt) in (np.float32, np.complex64) else np.dtype(np.complex128)


@eig_p.def_impl
def _eig_impl(a):
    """LAPACK ``geev`` via ``numpy.linalg.eig``, cast to the complex dtype."""
    w, v = np.linalg.eig(a)
    dt = _eig_dtype(a.dtype)
    return w.astype(dt, copy=False), v.astype(dt, copy=False)


@eig_p.def_abstract_eval
def _eig_aval(a):
    check_square(a, "eig")
    dt = _eig_dtype(a.dtype)
    return [ShapedArray(a.shape[:-1], dt), ShapedArray(a.shape, dt)]


def _column_scale(v, c):
    """``v * c[..., None, :]``: column ``j`` of each matrix scaled by ``c[..., j]``."""
    s = shape_of(c)
    return mul(v, reshape(c, s[:-1] + (1, s[-1])))


def _eig_jvp(primals, tangents):
    # With C = V^-1 dA V (Magnus 1985; Giles 2008, section 3.1 for the
    # symmetric case): dw = diag(C), dV = V (F * C) with
    # F_ij = 1 / (w_j - w_i) off the diagonal, then each column's component
    # Re(v_j^H dv_j) v_j removed so the columns keep unit norm (their phase
    # is LAPACK's choice: differentiate functions that do not depend on it).
    # Undefined (inf/nan) at repeated eigenvalues.
    (a,), (g,) = primals, tangents
    w, v = eig_p.bind(a)
    g = convert_element_type(g, dtype_of(v))
    c = solve(v, matmul(g, v))
    dw = _diag_part(c)
    dv = matmul(v, mul(_inv_gaps(w), c))
    nd = len(shape_of(v))
    n = real(reduce_sum(mul(conj(v), dv), (nd - 2,)))
    dv = sub(dv, _column_scale(v, convert_element_type(n, dtype_of(v))))
    return [w, v], [dw, dv]


def _eig_vjp(ct, ans, a):
    # The transpose of the JVP above for the pairing Re(sum(ct * t)) (JAX's
    # convention), step by step backwards: the normalization, V (F * C), and
    # C = V^-1 dA V, whose transpose is V^-T C_bar V^T; real input keeps the
    # real part.
    ct_w, ct_v = ct
    w, v = ans
    nd = len(shape_of(v))
    inner = None
    if ct_w is not None:
        inner = _diag_embed(convert_element_type(ct_w, dtype_of(v)))
    if ct_v is not None:
        ct_v = convert_element_type(ct_v, dtype_of(v))
        ct_n = neg(real(reduce_sum(mul(ct_v, v), (nd - 2,))))
        ct_dv = add(ct_v, _column_scale(conj(v), convert_element_type(ct_n, dtype_of(v))))
        term = mul(_inv_gaps(w), matmul(matrix_transpose(v), ct_dv))
        inner = term if inner is None else add(inner, term)
    if inner is None:
        return None
    ct_a = solve(matrix_transpose(v), matmul(inner, matrix_transpose(v)))
    return ct_a if _is_complex(a) else convert_element_type(real(ct_a), dtype_of(a))


eig_p.jvp = _eig_jvp
defvjp(eig_p, _eig_vjp)
eig_p.batch = _stack_batch_rule(eig_p)


def eig(a):
    """Eigenvalues and right eigenvectors (complex) of stacks of square matrices."""
    return eig_p.bind(a)


# --------------------------------------------------------------------------
# Matrix functions and decompositions computed by SciPy (issue 11): the
# impls loop SciPy's routine over the stack axes; the derivatives are
# written with primitives (solve_sylvester, sqrtm, logm), so every order works.


def _scipy_linalg(name):
    """``scipy.linalg`` for an impl, or an ImportError naming the extra."""
    try:
        import scipy.linalg  # lazy: SciPy is an optional extra
    except ImportError as err:  # pragma: no cover - SciPy is installed in the test env
        raise ImportError(f"tracegrad.scipy.linalg.{name} computes its values with SciPy: "
                          'pip install -e ".[scipy]"') from err
    return scipy.linalg


def _complex_dtype(dt):
    """complex64 for float32/complex64, complex128 otherwise."""
    return _eig_dtype(dt)


def _per_matrix(fn, out_dtypes, *arrays):
    """Apply ``fn`` to each matrix of the (broadcast) stacks ``arrays``;
    ``fn`` returns one array per entry of ``out_dtypes``."""
    batch = np.broadcast_shapes(*(np.shape(x)[:-2] for x in arrays))
    arrays = [np.broadcast_to(x, batch + np.shape(x)[-2:]) for x in arrays]
    outs = None
    for idx in np.ndindex(batch):
        res = fn(*(x[idx] for x in arrays))
        res = res if isinstance(res, tuple) else (res,)
        if outs is None:
            outs = [np.empty(batch + np.shape(r), dt) for r, dt in zip(res, out_dtypes)]
        for o, r in zip(outs, res):
            o[idx] = r
    if outs is None:  # an empty stack: run once on zeros for the shapes
        res = fn(*(np.eye(*x.shape[-2:], dtype=x.dtype) for x in arrays))
        res = res if isinstance(res, tuple) else (res,)
        outs = [np.empty(batch + np.shape(r), dt) for r, dt in zip(res, out_dtypes)]
    return outs


# --------------------------------------------------------------------------
# solve_sylvester: X with A X + X B = Q; a (..., m, m), b (..., n, n),
# q (..., m, n), batch axes broadcast
solve_sylvester_p = Primitive("solve_sylvester")


@solve_sylvester_p.def_impl
def _solve_sylvester_impl(a, b, q):
    """``scipy.linalg.solve_sylvester`` (Bartels-Stewart: Schur forms of
    ``a`` and ``b``, then LAPACK ``trsyl``) per matrix."""
    sl = _scipy_linalg("solve_sylvester")
    dt = _linalg_dtype(np.result_type(a.dtype, b.dtype, q.dtype))
    return _per_matrix(lambda x, y, z: sl.solve_sylvester(x, y, z), (dt,),
                       a.astype(dt, copy=False), b.astype(dt, copy=False), q.astype(dt, copy=False))[0]


@solve_sylvester_p.def_abstract_eval
def _solve_sylvester_aval(a, b, q):
    check_square(a, "solve_sylvester")
    check_square(b, "solve_sylvester")
    check_matrix(q, "solve_sylvester")
    if q.shape[-2:] != (a.shape[-1], b.shape[-1]):
        raise ValueError(f"solve_sylvester: q of shape {tuple(q.shape)} does not match a "
                         f"{tuple(a.shape)} and b {tuple(b.shape)}: q must be (..., M, N)")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], q.shape[:-2])
    dt = _linalg_dtype(np.result_type(a.dtype, b.dtype, q.dtype))
    return ShapedArray(batch + tuple(q.shape[-2:]), dt)


# A X + X B = Q gives A dX + dX B = dQ - dA X - X dB, one more Sylvester
# solve.  The operator S(X) = A X + X B has the transpose (for sum(C * S(X)))
# S^T(Y) = A^T Y + Y B^T, so with Y = S^-T(ct): q_bar = Y, a_bar = -Y X^T,
# b_bar = -X^T Y (bilinear pairing, no conjugation, as for the other rules).
defjvp(
    solve_sylvester_p,
    lambda g, ans, a, b, q: solve_sylvester(a, b, neg(matmul(g, ans))),
    lambda g, ans, a, b, q: solve_sylvester(a, b, neg(matmul(ans, g))),
    lambda g, ans, a, b, q: solve_sylvester(a, b, g),
)


def _sylvester_ct(ct, a, b):
    return solve_sylvester(matrix_transpose(a), matrix_transpose(b), ct)


defvjp_broadcasting(
    solve_sylvester_p,
    lambda ct, ans, a, b, q: neg(matmul(_sylvester_ct(ct, a, b), matrix_transpose(ans))),
    lambda ct, ans, a, b, q: neg(matmul(matrix_transpose(ans), _sylvester_ct(ct, a, b))),
    lambda ct, ans, a, b, q: _sylvester_ct(ct, a, b),
)
solve_sylvester_p.batch = elementwise_batch_rule(solve_sylvester_p)


def solve_sylvester(a, b, q):
    """``X`` with ``a @ X + X @ b = q`` for stacks (batch axes broadcast)."""
    return solve_sylvester_p.bind(a, b, q)


# --------------------------------------------------------------------------
# sqrtm: the principal square root of a stack of complex square matrices
# (the tracegrad.scipy.linalg wrapper casts real input to complex, as JAX)
sqrtm_p = Primitive("sqrtm")


@sqrtm_p.def_impl
def _sqrtm_impl(a):
    """``scipy.linalg.sqrtm`` (the Schur method of Bjorck and Hammarling
    1983, blocked as in Deadman, Higham and Ralha 2013) per matrix."""
    sl = _scipy_linalg("sqrtm")
    dt = _complex_dtype(a.dtype)
    return _per_matrix(lambda x: np.asarray(sl.sqrtm(x), dtype=dt), (dt,), a.astype(dt, copy=False))[0]


@sqrtm_p.def_abstract_eval
def _sqrtm_aval(a):
    check_square(a, "sqrtm")
    return ShapedArray(a.shape, _complex_dtype(a.dtype))


# X^2 = A gives X dX + dX X = dA: dX = S^-1(dA) for S(Y) = X Y + Y X, whose
# transpose is Y -> X^T Y + Y X^T (Higham, "Functions of Matrices", 2008,
# section 6.1; defined when no two eigenvalues of X sum to zero, i.e. A is
# nonsingular).
defjvp(sqrtm_p, lambda g, ans, a: solve_sylvester(ans, ans, g))
def _real_if_real(ct, a):
    """The cotangent of a real operand of a complex-valued primitive: its real part."""
    return ct if _is_complex(a) else convert_element_type(real(ct), dtype_of(a))


defvjp(sqrtm_p, lambda ct, ans, a: _real_if_real(
    solve_sylvester(matrix_transpose(ans), matrix_transpose(ans), ct), a))
sqrtm_p.batch = _stack_batch_rule(sqrtm_p)


def sqrtm(a):
    """Principal square root of a stack of square matrices (complex result)."""
    return sqrtm_p.bind(a)


# --------------------------------------------------------------------------
# logm: the principal logarithm of a stack of complex square matrices
logm_p = Primitive("logm")


@logm_p.def_impl
def _logm_impl(a):
    """``scipy.linalg.logm`` (inverse scaling and squaring, Al-Mohy and
    Higham 2012) per matrix."""
    sl = _scipy_linalg("logm")
    dt = _complex_dtype(a.dtype)
    return _per_matrix(lambda x: np.asarray(sl.logm(x), dtype=dt), (dt,), a.astype(dt, copy=False))[0]


@logm_p.def_abstract_eval
def _logm_aval(a):
    check_square(a, "logm")
    return ShapedArray(a.shape, _complex_dtype(a.dtype))


def logm_frechet_block(a, e):
    """``L(a, e)``: the Frechet derivative of the principal logarithm at
    ``a`` in the direction ``e``, the upper-right block of
    ``logm([[a, e], [0, a]])`` (Higham, "Functions of Matrices", 2008,
    theorem 3.6, as for :func:`expm_frechet_block`)."""
    shape = shape_of(a)
    n, nd = shape[-1], len(shape)
    dt = np.result_type(dtype_of(a), dtype_of(e))
    a, e = (x if dtype_of(x) == dt else convert_element_type(x, dt) for x in (a, e))
    top = concatenate([a, e], nd - 1)
    bottom = concatenate([mul(a, 0.0), a], nd - 1)
    big = logm(concatenate([top, bottom], nd - 2))
    return slice(big, (0,) * (nd - 2) + (0, n), shape[:-1] + (2 * n,))


# d log(A) = L(A, dA); as for exp, a primary matrix function has
# L(A, .)^T = L(A^T, .) for the pairing sum(C * L(A, E)).
defjvp(logm_p, lambda g, ans, a: logm_frechet_block(a, g))
defvjp(logm_p, lambda ct, ans, a: _real_if_real(
    logm_frechet_block(matrix_transpose(a), convert_element_type(ct, dtype_of(ans))), a))
logm_p.batch = _stack_batch_rule(logm_p)


def logm(a):
    """Principal logarithm of a stack of square matrices (complex result)."""
    return logm_p.bind(a)


# --------------------------------------------------------------------------
# schur and hessenberg: values only.  As in JAX, they have no derivative
# (the Schur vectors and the Hessenberg reduction are not unique, so no
# derivative is defined): their rules raise instead of returning zeros.


def _no_derivative(name, why):
    def rule(*args, **params):
        raise NotImplementedError(
            f"tracegrad.scipy.linalg.{name} is not differentiable ({why}; jax.scipy.linalg."
            f"{name} has no derivative either); differentiate a function of the matrix that "
            "does not depend on the factorization's choices instead (e.g. sqrtm, logm, eigvals)")
    return rule


schur_p = Primitive("schur", multiple_results=True)


@schur_p.def_impl
def _schur_impl(a, *, output):
    """``scipy.linalg.schur`` (LAPACK ``gees``) per matrix."""
    sl = _scipy_linalg("schur")
    dt = _complex_dtype(a.dtype) if output == "complex" else _linalg_dtype(a.dtype)
    t, z = _per_matrix(lambda x: tuple(np.asarray(r, dt) for r in sl.schur(x, output=output)),
                       (dt, dt), a.astype(dt, copy=False))
    return t, z


@schur_p.def_abstract_eval
def _schur_aval(a, *, output):
    check_square(a, "schur")
    dt = _complex_dtype(a.dtype) if output == "complex" else _linalg_dtype(a.dtype)
    return [ShapedArray(a.shape, dt), ShapedArray(a.shape, dt)]


schur_p.jvp = _no_derivative("schur", "the Schur vectors are not unique")
defvjp(schur_p, _no_derivative("schur", "the Schur vectors are not unique"))
schur_p.batch = _stack_batch_rule(schur_p)


def schur(a, output="real"):
    """``(T, Z)`` with ``a = Z T Z^H`` for a stack of square matrices."""
    return schur_p.bind(a, output=output)


hessenberg_p = Primitive("hessenberg", multiple_results=True)


@hessenberg_p.def_impl
def _hessenberg_impl(a):
    """``scipy.linalg.hessenberg`` (LAPACK ``gehrd``/``orghr``) per matrix."""
    sl = _scipy_linalg("hessenberg")
    dt = _linalg_dtype(a.dtype)
    h, q = _per_matrix(lambda x: tuple(np.asarray(r, dt) for r in sl.hessenberg(x, calc_q=True)),
                       (dt, dt), a.astype(dt, copy=False))
    return h, q


@hessenberg_p.def_abstract_eval
def _hessenberg_aval(a):
    check_square(a, "hessenberg")
    dt = _linalg_dtype(a.dtype)
    return [ShapedArray(a.shape, dt), ShapedArray(a.shape, dt)]


hessenberg_p.jvp = _no_derivative("hessenberg", "the reduction is not unique")
defvjp(hessenberg_p, _no_derivative("hessenberg", "the reduction is not unique"))
hessenberg_p.batch = _stack_batch_rule(hessenberg_p)


def hessenberg(a):
    """``(H, Q)`` with ``a = Q H Q^H``, ``H`` upper Hessenberg, for a stack."""
    return hessenberg_p.bind(a)


# --------------------------------------------------------------------------
# qr_pivots: the column permutation of QR with column pivoting (LAPACK
# geqp3), piecewise constant in the matrix, so it has no derivative; the
# factorization of the permuted matrix carries the derivatives
qr_pivots_p = def_nondifferentiable(Primitive("qr_pivots"))


@qr_pivots_p.def_impl
def _qr_pivots_impl(a):
    """``scipy.linalg.qr(a, mode='r', pivoting=True)``'s permutation, per matrix."""
    sl = _scipy_linalg("qr")
    return _per_matrix(lambda x: np.asarray(sl.qr(x, mode="r", pivoting=True)[1], np.int32)[None],
                       (np.int32,), np.asarray(a))[0][..., 0, :]


@qr_pivots_p.def_abstract_eval
def _qr_pivots_aval(a):
    check_matrix(a, "qr")
    return ShapedArray(a.shape[:-2] + a.shape[-1:], np.dtype(np.int32))


qr_pivots_p.batch = _stack_batch_rule(qr_pivots_p)


def qr_pivots(a):
    """Column permutation ``p`` (int32, ``(..., n)``) of pivoted QR: ``a[..., :, p] = Q R``."""
    return qr_pivots_p.bind(a)

"""``tracegrad.numpy.linalg``: NumPy 2's ``numpy.linalg``, differentiable.

Every function accepts stacks of matrices (``(..., M, N)``: the last two
axes are the matrix), follows NumPy 2's signatures and result types, and is
registered for NumPy dispatch, so ``np.linalg.inv(tracer)`` works.

Derivatives and where they are undefined
----------------------------------------
* ``inv``, ``solve``, ``det``, ``slogdet``: need an invertible matrix; at a
  singular one the derivative formulas raise ``LinAlgError`` (or return
  huge or non-finite values when it is only numerically singular).
* ``cholesky``, ``eigh``, ``eigvalsh`` read one triangle of their input, as
  NumPy does, but their derivatives treat the input as a *symmetric* matrix:
  a tangent ``dA`` is replaced by its symmetric part ``(dA + dA^T) / 2`` and
  every cotangent (gradient) returned is symmetric.  This is the convention
  of JAX, PyTorch and TensorFlow.  It is the derivative along symmetric
  perturbations, which is all a symmetric-matrix function has; checked by
  finite differences, the function must symmetrize its input first, e.g.
  ``f(A) = eigh((A + A.T) / 2)``.
* ``eigh``: eigenvector derivatives are undefined at repeated eigenvalues
  (the formula divides by eigenvalue gaps and gives ``inf``/``nan``);
  eigenvalue-only derivatives (``eigvalsh``) stay finite.
* ``svd``: derivatives need distinct, nonzero singular values (the
  singular-vector formula divides by ``s_j**2 - s_i**2`` and by ``s``), and
  ``full_matrices=False`` for non-square input.
* ``qr``: derivatives need full rank (an invertible leading block of ``R``)
  and ``mode='reduced'`` for tall input.
* ``svd(full_matrices=True)`` of a non-square matrix and
  ``qr(mode='complete')`` of a tall one have no derivative (the extra
  columns are an arbitrary basis of a complement; JAX raises as well).
* ``pinv``, ``lstsq``: derivatives hold where the rank is locally constant
  (rank-deficient input included; Golub and Pereyra 1973).
* ``eig``, ``eigvals``: always complex results (JAX's convention);
  derivatives need distinct eigenvalues; eigenvector phases are LAPACK's.
* ``matrix_rank`` and ``lstsq``'s rank are concrete integers.
* ``norm``: the default, 2- and Frobenius norms are computed with scaling
  (no overflow or underflow of the squares) by a ``custom_jvp`` function
  whose rule is the scaled ``<x, dx> / norm(x)``; they have gradient 0 at the
  zero vector/matrix (a subgradient), so ``norm(v)**2`` has gradient 0
  there, not NaN; its second derivatives at 0 are 0 as well (not ``2 I``).
"""
import collections
import functools
import operator

import numpy as np

from ..core import Tracer, concrete_value, is_concrete
from ..primitives import ops
from ..primitives.linalg import check_matrix, check_square
from ..transforms import custom_jvp
from ._array_type import array_result
from ._core import arg
from ._dispatch import implements
from ._products import matmul as _tnp_matmul
from ._products import tensordot as _tnp_tensordot
from ._products import vecdot as _tnp_vecdot
from ._diagonal import diagonal as _tnp_diagonal
from ._diagonal import trace as _tnp_trace
from ._products import outer as _tnp_outer
from ._reductions import max as _tnp_max
from ._signal import cross as _tnp_cross
from ._reductions import min as _tnp_min

__all__ = [
    "LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "solve", "det",
    "slogdet", "cholesky", "eigh", "eigvalsh", "matrix_power", "svd", "svdvals",
    "qr", "multi_dot", "matmul", "tensordot", "vecdot", "matrix_transpose",
    "SlogdetResult", "EighResult", "SVDResult", "QRResult",
    "pinv", "lstsq", "eig", "eigvals", "cond", "matrix_rank", "tensorsolve",
    "tensorinv", "cross", "trace", "outer", "diagonal", "EigResult",
]

LinAlgError = np.linalg.LinAlgError
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])
EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])

matmul = _tnp_matmul
tensordot = _tnp_tensordot
vecdot = _tnp_vecdot
for _name in ("matmul", "tensordot", "vecdot"):
    _np_fn = getattr(np.linalg, _name, None)
    if _np_fn is not None:
        implements(_np_fn)(globals()[_name])


def _operand(x):
    x = arg(x)
    return x if hasattr(x, "shape") else np.asarray(x)


def _float_operand(x):
    """``x`` as an array or tracer of an inexact dtype (ints become float64)."""
    x = _operand(x)
    if np.dtype(x.dtype).kind not in "fc":
        x = ops.convert_element_type(x, np.float64)
    return x


@array_result
def matrix_transpose(x, /):
    """Swap the last two axes (NumPy 2's ``linalg.matrix_transpose``).

    Parameters
    ----------
    x : array_like or tracer, shape ``(..., M, N)``

    Returns
    -------
    array or tracer, shape ``(..., N, M)``
    """
    x = _operand(x)
    if len(x.shape) < 2:
        raise ValueError(f"matrix_transpose: input must be at least 2-D, got shape {x.shape}")
    return ops.matrix_transpose(x)


if hasattr(np.linalg, "matrix_transpose"):
    implements(np.linalg.matrix_transpose)(matrix_transpose)


# --------------------------------------------------------------------------
# inverse, solve, determinants


@implements(np.linalg.inv)
def inv(a):
    """Inverse of a square matrix or a stack of them.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    array or tracer, shape ``(..., M, M)``
        Same inexact dtype as ``a`` (float64 for integer input).

    Raises
    ------
    LinAlgError
        If ``a`` is not a (stack of) square matrices or is singular.

    Notes
    -----
    Derivative (Giles 2008, the inverse): ``d(A^-1) = -A^-1 dA A^-1``; the
    cotangent is ``-A^-T ct A^-T``.  Undefined at singular ``A``.
    """
    a = _operand(a)
    check_square(a, "inv")
    return ops.inv(a)


@implements(np.linalg.solve)
def solve(a, b):
    """Solve the linear system ``a @ x = b``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    b : array_like or tracer, shape ``(M,)`` or ``(..., M, K)``
        NumPy 2 semantics: ``b`` is a (stack of) vector(s) only when
        ``b.ndim == 1``; otherwise it is a stack of ``(M, K)`` matrices whose
        batch axes broadcast against those of ``a``.

    Returns
    -------
    array or tracer
        Shape ``(..., M)`` for 1-D ``b``, else ``broadcast(batch) + (M, K)``.

    Raises
    ------
    LinAlgError
        If ``a`` is not square or is singular.
    ValueError
        If the shapes of ``a`` and ``b`` do not match.

    Notes
    -----
    Derivative (Giles 2008, the solve): ``dx = A^-1 (db - dA x)``; the
    cotangents are ``b_bar = A^-T ct`` and ``A_bar = -b_bar x^T``, summed over
    broadcast batch axes.
    """
    a, b = _operand(a), _operand(b)
    check_square(a, "solve")
    m = a.shape[-1]
    if len(b.shape) == 1:
        if b.shape[0] != m:
            raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}")
        x = ops.solve(a, ops.reshape(b, (m, 1)))
        return ops.reshape(x, x.shape[:-1])
    if len(b.shape) < 2 or b.shape[-2] != m:
        raise ValueError(
            f"solve: b of shape {b.shape} does not match a of shape {a.shape}: b must "
            f"be ({m},) or (..., {m}, K)"
        )
    np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return ops.solve(a, b)


@implements(np.linalg.det)
def det(a):
    """Determinant of a square matrix or a stack of them.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    array or tracer, shape ``(...)``

    Raises
    ------
    LinAlgError
        If ``a`` is not a (stack of) square matrices.

    Notes
    -----
    Derivative (Jacobi's formula, Giles 2008): ``d det A = det A tr(A^-1 dA)``;
    the cotangent is ``ct det(A) A^-T``.  It is computed through ``inv(A)``,
    so at an exactly singular ``A`` (where the true gradient is the adjugate)
    it raises ``LinAlgError``; near-singular matrices lose accuracy.
    """
    a = _operand(a)
    check_square(a, "det")
    return ops.det(a)


@implements(np.linalg.slogdet)
def slogdet(a):
    """Sign and natural log of the absolute determinant.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    SlogdetResult
        Named tuple ``(sign, logabsdet)``, each of shape ``(...)``, as NumPy 2.
        For a singular matrix ``sign = 0`` and ``logabsdet = -inf``.

    Raises
    ------
    LinAlgError
        If ``a`` is not a (stack of) square matrices.

    Notes
    -----
    ``sign`` is piecewise constant and carries no derivative.  Derivative of
    ``logabsdet`` (Giles 2008): ``tr(A^-1 dA)``; the cotangent is
    ``ct A^-T``.  Undefined (raises ``LinAlgError``) at singular ``A``.
    """
    a = _operand(a)
    check_square(a, "slogdet")
    sign, logabsdet = ops.slogdet(a)
    return SlogdetResult(sign, logabsdet)


# --------------------------------------------------------------------------
# decompositions


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    """Cholesky factor of a symmetric positive-definite matrix (or stack).

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
        Symmetric positive definite.  As in NumPy, only the lower triangle is
        read (the upper one with ``upper=True``).
    upper : bool, optional
        Return the upper factor ``U`` with ``a = U^T U`` instead of the lower
        factor ``L`` with ``a = L L^T``.

    Returns
    -------
    array or tracer, shape ``(..., M, M)``

    Raises
    ------
    LinAlgError
        If ``a`` is not square or not positive definite.

    Notes
    -----
    Derivatives treat ``a`` as symmetric (see the module docstring): the
    tangent is symmetrized and the gradient returned is symmetric.  Forward
    mode (Murray 2016): ``dL = L Phi(L^-1 dA L^-T)``, where ``Phi`` keeps the
    lower triangle and halves the diagonal; reverse mode:
    ``A_bar = sym(L^-T Phi(L^T L_bar) L^-1)``.  The triangular solves are
    ``triangular_solve`` primitives (LAPACK ``trtrs``), so higher
    derivatives work.
    """
    a = _operand(a)
    check_square(a, "cholesky")
    return ops.cholesky(a, upper=upper)


def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', got {UPLO!r}")


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    """Eigenvalues and eigenvectors of a symmetric matrix (or stack).

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
        Symmetric; only the triangle named by ``UPLO`` is read, as in NumPy.
    UPLO : {'L', 'U'}, optional

    Returns
    -------
    EighResult
        Named tuple ``(eigenvalues, eigenvectors)``: eigenvalues ``(..., M)``
        in ascending order, eigenvectors ``(..., M, M)`` as columns.

    Raises
    ------
    LinAlgError
        If ``a`` is not square or the iteration does not converge.
    ValueError
        If ``UPLO`` is not 'L' or 'U'.

    Notes
    -----
    Derivatives treat ``a`` as symmetric (see the module docstring).  With
    ``S = U^T dA U`` (Giles 2008, eigenvalues of a symmetric matrix):
    ``dw = diag(S)``, ``dU = U (F * S)`` with ``F_ij = 1 / (w_j - w_i)`` off
    the diagonal and 0 on it; reverse mode
    ``A_bar = sym(U (diag(w_bar) + F * (U^T U_bar)) U^T)``.  Eigenvector
    derivatives are undefined (``inf``/``nan``) at repeated eigenvalues;
    each eigenvector's sign is LAPACK's choice, so differentiate functions
    that do not depend on it.
    """
    a = _operand(a)
    check_square(a, "eigh")
    _check_uplo(UPLO)
    w, v = ops.eigh(a, UPLO=UPLO)
    return EighResult(w, v)


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    """Eigenvalues (ascending) of a symmetric matrix or a stack of them.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    UPLO : {'L', 'U'}, optional
        The triangle read, as in NumPy.

    Returns
    -------
    array or tracer, shape ``(..., M)``

    Notes
    -----
    Derivatives as for :func:`eigh` (symmetric convention):
    ``A_bar = sym(U diag(w_bar) U^T)``, finite even at repeated eigenvalues.
    """
    return eigh(a, UPLO)[0]


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition ``a = U @ diag(S) @ Vh`` (or stack).

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, N)``
    full_matrices : bool, optional
        NumPy's default True gives ``U (..., M, M)`` and ``Vh (..., N, N)``;
        False gives ``U (..., M, K)`` and ``Vh (..., K, N)``, ``K = min(M, N)``.
        Derivatives of non-square input need False.
    compute_uv : bool, optional
        If False, return only the singular values.
    hermitian : bool, optional
        Accepted for NumPy compatibility; the general SVD is always used
        (singular values agree with NumPy's; vectors may differ in sign).

    Returns
    -------
    SVDResult or array
        Named tuple ``(U, S, Vh)``, ``S`` of shape ``(..., K)`` descending; or
        ``S`` alone with ``compute_uv=False``.

    Raises
    ------
    LinAlgError
        If ``a`` has fewer than 2 dimensions or the SVD does not converge.
    NotImplementedError
        When differentiating ``full_matrices=True`` with ``M != N``.

    Notes
    -----
    Derivatives from Townsend (2016), "Differentiating the singular value
    decomposition": ``ds = diag(U^T dA V)``; the singular-vector terms divide
    by ``s_j**2 - s_i**2`` and by ``s``, so they are undefined for repeated
    or zero singular values.  Singular vectors have LAPACK's sign choice:
    differentiate functions that do not depend on it.  The derivative of the
    singular values alone (``compute_uv=False``) is ``U diag(s_bar) V^T``.
    """
    a = _float_operand(a)
    check_matrix(a, "svd")
    if not compute_uv:
        return ops.svd(a, full_matrices=False)[1]
    u, s, vh = ops.svd(a, full_matrices=full_matrices)
    return SVDResult(u, s, vh)


@array_result
def svdvals(x, /):
    """Singular values (descending) of a matrix or a stack (NumPy 2).

    Parameters
    ----------
    x : array_like or tracer, shape ``(..., M, N)``

    Returns
    -------
    array or tracer, shape ``(..., min(M, N))``

    Notes
    -----
    Same as ``svd(x, compute_uv=False)``; see :func:`svd` for derivatives.
    """
    return svd(x, compute_uv=False)


if hasattr(np.linalg, "svdvals"):
    implements(np.linalg.svdvals)(svdvals)


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    """QR decomposition ``a = Q @ R`` of a matrix or a stack of them.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, N)``
    mode : {'reduced', 'complete', 'r', 'raw'}, optional
        'reduced' (default): ``Q (..., M, K)``, ``R (..., K, N)``,
        ``K = min(M, N)``; 'complete': ``Q (..., M, M)``, ``R (..., M, N)``;
        'r': only ``R`` of 'reduced'; 'raw': LAPACK's Householder data
        (NumPy arrays only, no derivative).

    Returns
    -------
    QRResult or array
        Named tuple ``(Q, R)``, or ``R`` for mode 'r'.  As in NumPy (LAPACK),
        the diagonal of ``R`` may have either sign.

    Raises
    ------
    LinAlgError
        If ``a`` has fewer than two dimensions.
    ValueError
        For an unknown mode.
    TypeError
        For mode 'raw' on a tracer.
    NotImplementedError
        When differentiating mode 'complete' of a tall matrix (``M > N``).

    Notes
    -----
    Derivatives after Walter and Lehmann (2018), "Algorithmic
    differentiation of linear algebra functions with application in optimum
    experimental design (extended version)", for ``M >= N``: with
    ``C = Q^T dA R^-1`` and ``L`` its strict lower triangle,
    ``dQ = dA R^-1 - Q D`` and ``dR = D R`` for ``D = C - L + L^T``; reverse
    mode ``A_bar = (Q_bar + Q N) R^-T`` where ``N`` is
    ``R_bar R^T - Q^T Q_bar`` with its upper triangle mirrored below the
    diagonal.  A wide matrix ``[X | Y]`` is handled as the QR of the square
    ``X`` plus ``R``'s right block ``Q^T Y``.  ``R`` must be invertible (full
    rank).
    """
    a = _float_operand(a)
    check_matrix(a, "qr")
    if mode == "r":
        return ops.qr(a, mode="reduced")[1]
    if mode in ("reduced", "complete"):
        q, r = ops.qr(a, mode=mode)
        return QRResult(q, r)
    if mode == "raw":
        if isinstance(a, Tracer):
            raise TypeError("qr(mode='raw') returns LAPACK's internal data and has no derivative; "
                            "use mode='reduced'.")
        return np.linalg.qr(a, mode="raw")
    raise ValueError(f"Unrecognized mode '{mode}': use 'reduced', 'complete', 'r' or 'raw'")


# --------------------------------------------------------------------------
# matrix_power, multi_dot


@implements(np.linalg.matrix_power)
def matrix_power(a, n):
    """Raise a square matrix (or stack) to the integer power ``n``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    n : int
        Any integer: ``n = 0`` gives the identity (a constant), negative ``n``
        powers of ``inv(a)``.

    Returns
    -------
    array or tracer, shape ``(..., M, M)``

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    LinAlgError
        If ``a`` is not square, or singular with ``n < 0``.

    Notes
    -----
    Repeated squaring with ``matmul`` (and ``inv`` for ``n < 0``); derivatives
    follow from theirs.
    """
    a = _operand(a)
    check_square(a, "matrix_power")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: exponent must be an integer, got {n!r}") from None
    if n == 0:
        eye = np.eye(a.shape[-1], dtype=a.dtype)
        return np.array(np.broadcast_to(eye, a.shape))
    if n < 0:
        a = ops.inv(a)
        n = -n
    result = None
    z = a
    while True:
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else ops.matmul(result, z)
        if n == 0:
            return result
        z = ops.matmul(z, z)


@implements(np.linalg.multi_dot)
def multi_dot(arrays, *, out=None):
    """Product of two or more arrays in one call (NumPy's ``multi_dot``).

    Parameters
    ----------
    arrays : sequence of array_like or tracer
        2-D arrays; the first may be 1-D (a row vector) and the last 1-D (a
        column vector).

    Returns
    -------
    array or tracer

    Raises
    ------
    ValueError
        With fewer than two arrays or inner dimensions that do not match.

    Notes
    -----
    Multiplied left to right with ``matmul`` (NumPy picks the cheapest
    order; the value agrees up to rounding).
    """
    if out is not None:
        raise TypeError("tracegrad.numpy.linalg.multi_dot does not support out=")
    arrays = [_operand(x) for x in arrays]
    if len(arrays) < 2:
        raise ValueError("multi_dot: expecting at least two arrays")
    for i, x in enumerate(arrays):
        allowed = (1, 2) if i in (0, len(arrays) - 1) else (2,)
        if len(x.shape) not in allowed:
            raise ValueError(
                f"multi_dot: array {i} has {len(x.shape)} dimensions; only the first "
                "and last may be 1-D, all others must be 2-D"
            )
    res = arrays[0]
    for x in arrays[1:]:
        res = _tnp_matmul(res, x)
    return res


# --------------------------------------------------------------------------
# norms


def _scaled(x, axes):
    """Pieces of the scaled 2-norm of ``x`` over ``axes`` (nonnegative, sorted).

    Returns ``(scale, zero, u, n)``: ``scale = 2**k`` with
    ``k = floor(log2(max|x|))`` over ``axes`` (a power of two within a factor
    2 of the largest entry; 1 where that is 0 or inf; ``k`` at least the
    smallest normal exponent, so ``2**-k`` is finite), held constant
    (``stop_gradient``); ``zero`` marks the all-zero slices;
    ``u = x * 2**-k`` (entries below 2 in magnitude, computed exactly: a
    power of two only shifts the exponent) and ``n = sqrt(sum(u**2))`` (1 on
    the all-zero slices, so nothing divides by 0), so the norm is
    ``scale * n`` off those slices, again exactly scaled.
    """
    x0 = ops.stop_gradient(x)
    m = ops.maximum(ops.reduce_max(x0, axes), ops.neg(ops.reduce_min(x0, axes)))
    zero = ops.eq(m, 0)
    m = ops.select(ops.logical_or(zero, ops.isinf(m)), 1.0, m)
    # the exponent, kept normal so that 1 / scale is finite too
    k = ops.maximum(ops.floor(ops.log2(m)), float(np.finfo(x.dtype).minexp))
    scale = ops.exp2(k)
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    u = ops.mul(x, ops.reshape(ops.exp2(ops.neg(k)), kept))
    n = ops.sqrt(ops.select(zero, 1.0, ops.reduce_sum(ops.mul(u, u), axes)))
    return scale, zero, u, n


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _norm2(x, axes):
    """Euclidean norm of ``x`` over ``axes``, scaled so that no square
    overflows or underflows: ``s * sqrt(sum((x / s)**2))`` for a power of
    two ``s`` near ``max|x|``; 0 on all-zero slices."""
    scale, zero, _, n = _scaled(x, axes)
    return ops.select(zero, 0.0, ops.mul(scale, n))


@_norm2.defjvp
def _norm2_jvp(axes, primals, tangents):
    # d||x|| = <x, dx> / ||x|| = <u, dx> / n with the same scaling as the
    # value (no overflow); 0 on all-zero slices (a subgradient), through a
    # select, so every higher derivative there is 0 as well.  The primal is
    # built from the same pieces (not recomputed): with the scale constant,
    # its derivative is this rule's formula, so higher orders agree.
    (x,), (t,) = primals, tangents
    scale, zero, u, n = _scaled(x, axes)
    dot = ops.reduce_sum(ops.mul(u, t), axes)
    tangent = ops.mul(dot, ops.div(1.0, n))
    return ops.select(zero, 0.0, ops.mul(scale, n)), ops.select(zero, 0.0, tangent)


def _two_norm(x, axes):
    """2-norm (Frobenius for two axes) over ``axes``; see :func:`norm`."""
    axes = tuple(sorted(a % len(x.shape) for a in axes))
    if any(x.shape[a] == 0 for a in axes):  # empty: 0, as NumPy (no max to scale by)
        return ops.reduce_sum(ops.mul(x, x), axes)
    if type(x) is np.ndarray and x.dtype.kind == "f":
        return _norm2_numpy(x, axes)  # no transform: the same arithmetic, in NumPy
    return _norm2(x, axes)


def _norm2_numpy(x, axes):
    """:func:`_norm2`'s value on a plain float array, step for step in NumPy
    (about 10x faster than binding its primitives one by one)."""
    m = np.maximum(np.max(x, axis=axes), -np.min(x, axis=axes))
    zero = m == 0
    m = np.where(zero | np.isinf(m), 1.0, m)
    k = np.maximum(np.floor(np.log2(m)), float(np.finfo(x.dtype).minexp)).astype(x.dtype)
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    u = x * np.exp2(-k).reshape(kept)
    n = np.sqrt(np.where(zero, 1.0, np.sum(u * u, axis=axes))).astype(x.dtype)
    return np.where(zero, 0.0, np.exp2(k) * n).astype(x.dtype)[()]


def _sum(x, axes):
    nd = len(x.shape)
    return ops.reduce_sum(x, tuple(a % nd for a in axes))


def _keep(r, shape, axes, keepdims):
    if not keepdims:
        return r
    axes = [a % len(shape) for a in axes]
    return ops.reshape(r, tuple(1 if i in axes else n for i, n in enumerate(shape)))


def _normalize_axis(axis, nd):
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"norm: 'axis' must be None, an integer or a tuple of integers, got {axis!r}") from None
    if not -nd <= a < nd:
        raise np.exceptions.AxisError(a, nd)
    return a % nd


def _vector_norm(x, ord, axis):
    """Vector norm of ``x`` over the single (normalized) axis ``axis``."""
    ax = (axis,)
    if ord is None or (not isinstance(ord, str) and ord == 2):
        return _two_norm(x, ax)
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return _tnp_max(ops.abs(x), axis=axis)
    if ord == -np.inf:
        return _tnp_min(ops.abs(x), axis=axis)
    if ord == 0:
        nonzero = ops.convert_element_type(ops.ne(x, 0), x.dtype)
        return _sum(nonzero, ax)
    if ord == 1:
        return _sum(ops.abs(x), ax)
    p = float(ord)
    s = _sum(ops.pow(ops.abs(x), p), ax)
    if p > 0:
        # double where: gradient 0 (not nan) at the zero vector for p >= 1,
        # as for the 2-norm
        zero = ops.eq(s, 0)
        return ops.select(zero, 0.0, ops.pow(ops.select(zero, 1.0, s), 1.0 / p))
    return ops.pow(s, 1.0 / p)


def _matrix_norm(x, ord, row, col):
    """Matrix norm over the (normalized, distinct) axes ``row`` and ``col``."""
    if ord is None or ord in ("fro", "f"):
        return _two_norm(x, (row, col))
    if ord == "nuc" or (not isinstance(ord, str) and ord in (2, -2)):
        nd = len(x.shape)
        rest = [i for i in range(nd) if i not in (row, col)]
        s = svd(ops.transpose(x, rest + [row, col]), compute_uv=False)
        if ord == "nuc":
            return _sum(s, (-1,))
        return _tnp_max(s, axis=-1) if ord == 2 else _tnp_min(s, axis=-1)
    if isinstance(ord, str) or ord not in (1, -1, np.inf, -np.inf):
        raise ValueError("Invalid norm order for matrices.")
    reduce = _tnp_max if ord > 0 else _tnp_min
    if abs(ord) == 1:  # max/min column sum
        col_after = col - 1 if col > row else col
        return reduce(_sum(ops.abs(x), (row,)), axis=col_after)
    row_after = row - 1 if row > col else row  # max/min row sum
    return reduce(_sum(ops.abs(x), (col,)), axis=row_after)


@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm (NumPy's ``linalg.norm``), differentiable.

    Parameters
    ----------
    x : array_like or tracer
        Integer input is converted to float64.
    ord : {None, int, float, inf, -inf, 'fro', 'nuc'}, optional
        Vectors: None or 2 (Euclidean), 1, inf (max abs), -inf (min abs),
        0 (number of nonzeros, no derivative), any other p
        (``sum(abs(x)**p)**(1/p)``).  Matrices: None or 'fro' (Frobenius),
        'nuc' (sum of singular values), 1/-1 (max/min column abs sum), inf/-inf
        (max/min row abs sum), 2/-2 (largest/smallest singular value).
    axis : None, int or pair of ints, optional
        None: with ``ord=None`` the 2-norm of the flattened array; otherwise
        ``x`` must be 1-D (vector norm) or 2-D (matrix norm).  An int: vector
        norms along it; a pair: matrix norms over those axes.
    keepdims : bool, optional
        Keep the normed axes with size 1.

    Returns
    -------
    array or tracer
        Inexact dtype of ``x`` (float64 for integers).

    Raises
    ------
    ValueError
        For an invalid ``ord`` or an ``x``/``axis`` rank other than 1 or 2.

    Notes
    -----
    The None/2/'fro' norms are computed as ``s * sqrt(sum((x / s)**2))``
    with ``s`` a power of two near ``max|x|`` (scaling before squaring, as
    LAPACK's ``nrm2`` does), so they neither overflow nor underflow:
    ``norm([3e200, 4e200])`` is ``5e200`` (to 1 ulp) and
    ``norm([3e-200, 4e-200])`` is ``5e-200``, where ``sqrt(sum(x * x))``
    (and NumPy's ``norm``) gives ``inf`` and ``0``.  Differentiating that
    formula would go through the max and the scaling, so the norm is a
    ``tracegrad.custom_jvp`` function whose rule is
    ``d norm = <x / s, dx> / (norm / s)``: the same scaling (no overflow),
    ``<x, dx> / norm`` in exact arithmetic, and used at every order.  The
    price is speed: the max and the scaling are extra passes over the data.

    At the zero vector/matrix the None/2/'fro' norms have gradient 0 (and
    so do 1 and p >= 1 vector norms; the rule selects 0 there), so
    ``norm(v)**2`` has gradient 0 there, not NaN.  The norm is not
    differentiable at 0, so second derivatives there come out 0 too (the
    Hessian of ``norm(v)**2`` at 0 is 0, not ``2 I``): use ``v @ v`` when
    the curvature at 0 matters.  max/min based orders split the gradient
    evenly among ties (as ``max``/``min`` do); 2/-2/'nuc' use the SVD (see
    :func:`svd`).
    """
    x = _float_operand(x)
    nd = len(x.shape)
    if np.dtype(x.dtype).kind == "c" and not _svd_order(ord, nd, axis):
        x = ops.abs(x)  # every order but 2/-2/'nuc' of a matrix reads only |x|
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (
            not isinstance(ord, str) and ord == 2 and nd == 1
        ):
            r = _two_norm(x, tuple(range(nd)))
            return ops.reshape(r, (1,) * nd) if keepdims else r
        if nd not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (axis,)
    axes = tuple(_normalize_axis(a, nd) for a in axis)
    if len(axes) == 1:
        return _keep(_vector_norm(x, ord, axes[0]), x.shape, axes, keepdims)
    if len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("Duplicate axes given.")
        return _keep(_matrix_norm(x, ord, axes[0], axes[1]), x.shape, axes, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def _svd_order(ord, nd, axis):
    """True for the matrix orders computed from singular values."""
    matrix = (axis is None and nd == 2 and ord is not None) or (
        isinstance(axis, tuple) and len(axis) == 2)
    return matrix and (ord == "nuc" or (not isinstance(ord, str) and ord in (2, -2)))


@array_result
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector norm (NumPy 2's ``linalg.vector_norm``), differentiable.

    Parameters
    ----------
    x : array_like or tracer
    axis : None, int or tuple of ints, optional
        None: all axes (the flattened array); a tuple: those axes flattened
        together into one vector.
    keepdims : bool, optional
    ord : {int, float, inf, -inf}, optional
        As the vector orders of :func:`norm` (default 2).

    Returns
    -------
    array or tracer

    Notes
    -----
    ``ord=2`` is scaled against overflow/underflow and has gradient 0 at
    the zero vector (see :func:`norm`).
    """
    x = _float_operand(x)
    if np.dtype(x.dtype).kind == "c":
        x = ops.abs(x)
    shape = x.shape
    nd = len(shape)
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = tuple(_normalize_axis(a, nd) for a in axis)
    else:
        axes = (_normalize_axis(axis, nd),)
    rest = [i for i in range(nd) if i not in axes]
    flat = ops.reshape(
        ops.transpose(x, rest + list(axes)),
        tuple(shape[i] for i in rest) + (int(np.prod([shape[i] for i in axes], dtype=np.int64)),),
    )
    r = _vector_norm(flat, ord, len(rest))
    return _keep(r, shape, axes, keepdims) if axes else r


@array_result
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm over the last two axes (NumPy 2's ``linalg.matrix_norm``).

    Parameters
    ----------
    x : array_like or tracer, shape ``(..., M, N)``
    keepdims : bool, optional
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}, optional

    Returns
    -------
    array or tracer, shape ``(...)``

    Notes
    -----
    Same orders and derivatives as :func:`norm` with ``axis=(-2, -1)``.
    """
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


for _name in ("vector_norm", "matrix_norm"):
    _np_fn = getattr(np.linalg, _name, None)
    if _np_fn is not None:
        implements(_np_fn)(globals()[_name])


# --------------------------------------------------------------------------
# general eigenproblem


@implements(np.linalg.eig)
def eig(a):
    """Eigenvalues and right eigenvectors of a general square matrix (or stack).

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    EigResult
        Named tuple ``(eigenvalues, eigenvectors)``: eigenvalues ``(..., M)``
        in LAPACK's order, unit-norm eigenvectors ``(..., M, M)`` as columns.
        Always complex (complex64 for float32/complex64 input, else
        complex128), as in JAX; NumPy returns a real dtype when every
        eigenvalue is real (the values agree).

    Raises
    ------
    LinAlgError
        If ``a`` is not square or the iteration does not converge.

    Notes
    -----
    With ``C = V^-1 dA V``: ``dw = diag(C)`` (JAX's eigenvalue rule) and
    ``dV = V (F * C)``, ``F_ij = 1 / (w_j - w_i)`` off the diagonal, minus
    ``Re(v_j^H dv_j) v_j`` per column (unit norm kept).  Needs distinct
    eigenvalues (else ``inf``/``nan``); eigenvector phases are LAPACK's
    choice, so differentiate functions that do not depend on them.
    """
    a = _float_operand(a)
    check_square(a, "eig")
    w, v = ops.eig(a)
    return EigResult(w, v)


@implements(np.linalg.eigvals)
def eigvals(a):
    """Eigenvalues (complex) of a general square matrix or a stack of them.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    array or tracer, shape ``(..., M)``, complex (see :func:`eig`)

    Notes
    -----
    Derivative ``dw = diag(V^-1 dA V)`` (JAX's rule), defined where the
    eigenvalues are distinct.
    """
    return eig(a)[0]


# --------------------------------------------------------------------------
# pseudo-inverse, least squares, rank, condition number


def _default_rtol(a):
    m, n = a.shape[-2:]
    return max(m, n) * np.finfo(_float_operand(np.zeros((), a.dtype)).dtype).eps


def _smax(s):
    return ops.reshape(ops.reduce_max(s, (len(s.shape) - 1,)), s.shape[:-1] + (1,))


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def _pinv(a, rtol):
    """``V diag(1/s) U^H`` over the singular values ``s > rtol * max(s)``."""
    u, s, vh = ops.svd(a, full_matrices=False)
    keep = ops.gt(s, ops.mul(_smax(s), rtol))
    sinv = ops.select(keep, ops.div(1.0, ops.select(keep, s, 1.0)), 0.0)
    sinv = ops.convert_element_type(sinv, u.dtype)
    k = sinv.shape[-1]
    vs = ops.mul(ops.conj(ops.matrix_transpose(vh)), ops.reshape(sinv, sinv.shape[:-1] + (1, k)))
    return ops.matmul(vs, ops.conj(ops.matrix_transpose(u)))


def _h(x):
    return ops.conj(ops.matrix_transpose(x))


@_pinv.defjvp
def _pinv_jvp(rtol, primals, tangents):
    # Golub and Pereyra (1973), "The differentiation of pseudo-inverses and
    # nonlinear least squares problems whose variables separate", eq. 4.12:
    # dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P, valid while
    # the rank stays constant (also for rank-deficient A).
    (a,), (da,) = primals, tangents
    p = _pinv(a, rtol)
    m, n = a.shape[-2:]
    mm = ops.matmul
    dah = _h(da)
    ph = _h(p)
    eye_m = np.eye(m, dtype=p.dtype)
    eye_n = np.eye(n, dtype=p.dtype)
    t1 = ops.neg(mm(p, mm(da, p)))
    t2 = mm(mm(p, ph), mm(dah, ops.sub(eye_m, mm(a, p))))
    t3 = mm(ops.sub(eye_n, mm(p, a)), mm(dah, mm(ph, p)))
    return p, ops.add(t1, ops.add(t2, t3))


def _rtol_of(a, rcond, rtol, name):
    if rcond is not None and rtol is not None:
        raise ValueError(f"{name}: pass rcond= or rtol=, not both")
    r = rcond if rcond is not None else rtol
    if r is None:
        return float(_default_rtol(a))
    if np.ndim(concrete_value(r)) != 0:
        raise TypeError(f"{name}: rcond/rtol must be a scalar here, got shape {np.shape(r)}")
    return float(concrete_value(r))


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Moore-Penrose pseudo-inverse of a matrix or a stack of them.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, N)``
    rcond, rtol : float, optional
        Singular values at most ``rtol * max(s)`` count as zero (the two
        names are NumPy's old and new one; give at most one).  Default
        ``max(M, N) * eps`` (NumPy 2's ``rtol`` default).
    hermitian : bool, optional
        Accepted for NumPy compatibility; the general SVD is always used
        (the result is the same up to rounding).

    Returns
    -------
    array or tracer, shape ``(..., N, M)``

    Raises
    ------
    LinAlgError
        If ``a`` has fewer than two dimensions.
    ValueError
        If both ``rcond`` and ``rtol`` are given.

    Notes
    -----
    The pseudo-inverse of a zero matrix is the zero matrix.  Derivative
    (Golub and Pereyra 1973): ``dP = -P dA P + P P^H dA^H (I - A P) +
    (I - P A) dA^H P^H P``, defined where the rank is locally constant
    (rank-deficient matrices included); a ``custom_jvp`` rule, so every
    order uses it.
    """
    a = _float_operand(a)
    check_matrix(a, "pinv")
    r = _rtol_of(a, rcond, rtol, "pinv")
    return _pinv(a, r)


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Rank of a matrix (or stack): the number of singular values above ``tol``.

    Parameters
    ----------
    A : array_like or tracer, shape ``(..., M, N)``, or fewer dims
        A 0-D or 1-D input has rank 1 unless all zero (then 0), as NumPy.
    tol : float or array, optional
        Absolute threshold; default ``rtol * max(s)``.
    hermitian : bool, optional
        Accepted for NumPy compatibility.
    rtol : float or array, optional
        Relative threshold when ``tol`` is None; default ``max(M, N) * eps``.

    Returns
    -------
    numpy int or int array
        A concrete result (not differentiable), read from the concrete value
        of a tracer.

    Raises
    ------
    TypeError
        Under a transform with no concrete value.
    """
    A = _float_operand(A)
    try:
        A = np.asarray(concrete_value(A))
    except Exception as e:
        raise TypeError(f"matrix_rank needs the concrete value of its input, which this "
                        f"transform does not have: {e}") from None
    return np.linalg.matrix_rank(A, tol=tol, hermitian=hermitian, rtol=rtol)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b`` (NumPy's ``lstsq``).

    Parameters
    ----------
    a : array_like or tracer, shape ``(M, N)``
    b : array_like or tracer, shape ``(M,)`` or ``(M, K)``
    rcond : float, optional
        Singular values at most ``rcond * max(s)`` count as zero; default
        ``max(M, N) * eps`` (NumPy 2).

    Returns
    -------
    x : array or tracer, shape ``(N,)`` or ``(N, K)``
        The minimum-norm least-squares solution ``pinv(a) @ b``.
    residuals : array or tracer, shape ``(K,)`` (``(1,)`` for 1-D ``b``) or ``(0,)``
        Squared 2-norms of the columns of ``b - a @ x``, only when the rank
        is ``N`` and ``M > N`` (else empty), as NumPy.
    rank : int
        The rank of ``a`` (concrete; inside ``vmap``, where there is no
        concrete value, a traced integer, and ``residuals`` are then returned
        whenever ``M > N``).
    s : array or tracer, shape ``(min(M, N),)``
        Singular values of ``a``.

    Raises
    ------
    LinAlgError
        If ``a`` is not 2-D or ``b`` is not 1-D/2-D, or their rows differ.

    Notes
    -----
    ``x`` is differentiable in ``a`` and ``b`` through :func:`pinv` (its
    derivative holds while the rank is constant); so are ``residuals`` and
    ``s`` (see :func:`svd`).
    """
    a, b = _float_operand(a), _float_operand(b)
    if len(a.shape) != 2:
        raise np.linalg.LinAlgError(f"lstsq: a must be 2-dimensional, got shape {a.shape}")
    if len(b.shape) not in (1, 2) or b.shape[0] != a.shape[0]:
        raise np.linalg.LinAlgError(
            f"lstsq: b of shape {b.shape} does not match a of shape {a.shape}: b must be "
            f"({a.shape[0]},) or ({a.shape[0]}, K)")
    m, n = a.shape
    r = _rtol_of(a, rcond, None, "lstsq")
    x = _tnp_matmul(_pinv(a, r), b)
    s = svd(a, compute_uv=False)
    try:
        sv = np.asarray(concrete_value(s))
    except Exception:  # inside vmap: no single concrete value
        sv = None
    if sv is not None:
        rank = int(np.count_nonzero(sv > r * sv.max())) if sv.size else 0
        full = rank == n
    else:
        # a traced rank; the residuals' shape cannot depend on it, so they are
        # returned whenever m > n (they are meaningless if the rank is < n)
        keep = ops.gt(s, ops.mul(_smax(s), r))
        rank = ops.reduce_sum(ops.convert_element_type(keep, np.int64), (len(s.shape) - 1,))
        full = True
    if full and m > n:
        res = ops.sub(b, _tnp_matmul(a, x))
        res = ops.abs(res) if np.dtype(res.dtype).kind == "c" else res
        residuals = ops.reduce_sum(ops.mul(res, res), (0,))
        if len(b.shape) == 1:
            residuals = ops.reshape(residuals, (1,))
    else:
        residuals = np.zeros((0,), dtype=np.dtype(s.dtype))
    return x, residuals, rank, s


@implements(np.linalg.cond)
def cond(x, p=None):
    """Condition number of a matrix or a stack of them (NumPy's ``cond``).

    Parameters
    ----------
    x : array_like or tracer, shape ``(..., M, N)``
    p : {None, 2, -2, 1, -1, inf, -inf, 'fro', 'nuc'}, optional
        None/2: ``s_max / s_min``; -2: ``s_min / s_max`` (any ``M, N``);
        otherwise ``norm(x, p) * norm(inv(x), p)`` (square ``x``).

    Returns
    -------
    array or tracer, shape ``(...)``
        ``inf`` for a singular matrix (as NumPy).

    Raises
    ------
    LinAlgError
        If ``x`` is not a matrix, or is not square for the inverse-based ``p``.

    Notes
    -----
    Differentiable through :func:`svd` (distinct nonzero singular values)
    or :func:`inv` and :func:`norm`.
    """
    x = _float_operand(x)
    check_matrix(x, "cond")
    if not isinstance(x, Tracer):
        return np.linalg.cond(x, p)
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svd(x, compute_uv=False)
        k = s.shape[-1]
        first = ops.reshape(ops.slice(s, (0,) * (len(s.shape) - 1) + (0,), s.shape[:-1] + (1,)),
                            s.shape[:-1])
        last = ops.reshape(ops.slice(s, (0,) * (len(s.shape) - 1) + (k - 1,), s.shape[:-1] + (k,)),
                           s.shape[:-1])
        with np.errstate(divide="ignore", invalid="ignore"):
            r = ops.div(last, first) if p == -2 else ops.div(first, last)
        # NumPy: a nan from 0 / 0 (a zero matrix) is inf unless x holds a nan
        nd = len(x.shape)
        x_nan = ops.reduce_any(ops.isnan(x), (nd - 2, nd - 1))
        return ops.select(ops.logical_and(ops.isnan(r), ops.logical_not(x_nan)), np.inf, r)
    check_square(x, "cond")
    # (the singular-matrix error needs values: a staged or batched x is not checked)
    if is_concrete(x) and np.any(np.isinf(np.linalg.cond(np.asarray(concrete_value(x)), p))):
        raise np.linalg.LinAlgError(
            f"cond: singular matrix with p={p!r}: its condition number is inf and has no "
            "derivative; use p=None (singular values) for a value")
    return ops.mul(norm(x, p, axis=(-2, -1)), norm(ops.inv(x), p, axis=(-2, -1)))


# --------------------------------------------------------------------------
# tensor solve/inverse


@implements(np.linalg.tensorsolve)
def tensorsolve(a, b, axes=None):
    """Solve ``tensordot(a, x, x.ndim) = b`` for ``x`` (NumPy's ``tensorsolve``).

    Parameters
    ----------
    a : array_like or tracer, shape ``b.shape + Q``
        ``prod(Q) == prod(b.shape)``.
    b : array_like or tracer
    axes : tuple of ints, optional
        Axes of ``a`` moved to the end first.

    Returns
    -------
    array or tracer, shape ``Q``

    Raises
    ------
    LinAlgError
        If the reshaped ``a`` is not square or is singular.

    Notes
    -----
    A reshape and :func:`solve`; derivatives are those of ``solve``.
    """
    a, b = _float_operand(a), _operand(b)
    an = len(a.shape)
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = ops.transpose(a, tuple(allaxes))
    oldshape = a.shape[-(an - len(b.shape)):] if an > len(b.shape) else ()
    prod = int(np.prod(oldshape, dtype=np.int64))
    if int(np.prod(a.shape, dtype=np.int64)) != prod * prod:
        raise np.linalg.LinAlgError(
            f"tensorsolve: input arrays must satisfy prod(a.shape[b.ndim:]) == "
            f"prod(a.shape[:b.ndim]), got a {a.shape} and b {b.shape}")
    x = solve(ops.reshape(a, (prod, prod)), ops.reshape(b, (prod,)))
    return ops.reshape(x, tuple(oldshape))


@implements(np.linalg.tensorinv)
def tensorinv(a, ind=2):
    """Inverse of an N-d array for :func:`tensordot` (NumPy's ``tensorinv``).

    Parameters
    ----------
    a : array_like or tracer
        ``prod(a.shape[:ind]) == prod(a.shape[ind:])``.
    ind : int, optional
        Number of leading indices in the inverse sum (positive).

    Returns
    -------
    array or tracer, shape ``a.shape[ind:] + a.shape[:ind]``

    Raises
    ------
    ValueError
        If ``ind`` is not positive.
    LinAlgError
        If the reshaped ``a`` is not square or is singular.

    Notes
    -----
    A reshape and :func:`inv`; derivatives are those of ``inv``.
    """
    a = _float_operand(a)
    if ind <= 0:
        raise ValueError(f"tensorinv: invalid ind argument {ind}: it must be positive")
    old = a.shape
    prod = int(np.prod(old[:ind], dtype=np.int64))
    if int(np.prod(old[ind:], dtype=np.int64)) != prod:
        raise np.linalg.LinAlgError(
            f"tensorinv: prod(a.shape[:{ind}]) != prod(a.shape[{ind}:]) for shape {old}")
    ia = inv(ops.reshape(a, (prod, prod)))
    return ops.reshape(ia, tuple(old[ind:] + old[:ind]))


# --------------------------------------------------------------------------
# array-API forms


@array_result
def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along ``axis`` (NumPy 2's ``linalg.cross``).

    Parameters
    ----------
    x1, x2 : array_like or tracer
        Size 3 along ``axis``; other axes broadcast.
    axis : int, optional

    Returns
    -------
    array or tracer

    Raises
    ------
    ValueError
        If either input does not have size 3 along ``axis``.
    """
    x1, x2 = _operand(x1), _operand(x2)
    for x in (x1, x2):
        if not len(x.shape) or x.shape[axis] != 3:
            raise ValueError(
                f"linalg.cross: both inputs must be 3-dimensional vectors along axis {axis}, "
                f"got shapes {x1.shape} and {x2.shape} (use tracegrad.numpy.cross for 2-vectors)")
    return _tnp_cross(x1, x2, axis=axis)


@array_result
def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset`` diagonal of the last two axes (NumPy 2's ``linalg.trace``).

    Parameters
    ----------
    x : array_like or tracer, shape ``(..., M, N)``
    offset : int, optional
    dtype : dtype, optional

    Returns
    -------
    array or tracer, shape ``(...)``
    """
    x = _operand(x)
    check_matrix(x, "trace")
    return _tnp_trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


@array_result
def outer(x1, x2, /):
    """Outer product of two 1-D vectors (NumPy 2's ``linalg.outer``).

    Parameters
    ----------
    x1 : array_like or tracer, shape ``(M,)``
    x2 : array_like or tracer, shape ``(N,)``

    Returns
    -------
    array or tracer, shape ``(M, N)``

    Raises
    ------
    ValueError
        If an input is not 1-D.
    """
    x1, x2 = _operand(x1), _operand(x2)
    if len(x1.shape) != 1 or len(x2.shape) != 1:
        raise ValueError(f"linalg.outer: inputs must be 1-D, got shapes {x1.shape} and {x2.shape} "
                         "(use tracegrad.numpy.outer to flatten)")
    return _tnp_outer(x1, x2)


@array_result
def diagonal(x, /, *, offset=0):
    """The ``offset`` diagonal of the last two axes (NumPy 2's ``linalg.diagonal``).

    Parameters
    ----------
    x : array_like or tracer, shape ``(..., M, N)``
    offset : int, optional

    Returns
    -------
    array or tracer, shape ``(..., K)``
    """
    x = _operand(x)
    check_matrix(x, "diagonal")
    return _tnp_diagonal(x, offset=offset, axis1=-2, axis2=-1)


for _name in ("cross", "trace", "outer", "diagonal"):
    _np_fn = getattr(np.linalg, _name, None)
    if _np_fn is not None:
        implements(_np_fn)(globals()[_name])

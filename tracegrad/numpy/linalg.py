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

from ..core import Tracer
from ..primitives import ops
from ..primitives.linalg import check_matrix, check_square
from ..transforms import custom_jvp
from ._core import arg
from ._dispatch import implements
from ._products import matmul as _tnp_matmul
from ._products import tensordot as _tnp_tensordot
from ._products import vecdot as _tnp_vecdot
from ._reductions import max as _tnp_max
from ._reductions import min as _tnp_min

__all__ = [
    "LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "solve", "det",
    "slogdet", "cholesky", "eigh", "eigvalsh", "matrix_power", "svd", "svdvals",
    "qr", "multi_dot", "matmul", "tensordot", "vecdot", "matrix_transpose",
    "SlogdetResult", "EighResult", "SVDResult", "QRResult",
]

LinAlgError = np.linalg.LinAlgError
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])

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
    general ``solve`` primitives, so higher derivatives work.
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

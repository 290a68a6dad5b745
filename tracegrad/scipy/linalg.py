"""``tracegrad.scipy.linalg``: SciPy's ``scipy.linalg`` signatures, differentiable.

What is here (issue 11, in progress): ``solve_triangular``, ``cholesky``,
``cho_factor``, ``cho_solve``, ``lu``, ``lu_factor``, ``lu_solve``, ``expm``,
``expm_frechet``, ``solve`` (``assume_a`` general, symmetric,
Hermitian, positive definite, triangular, diagonal), ``inv``, ``det``,
``svd``, ``qr``, ``eigh`` (standard and generalized), ``block_diag`` and
``toeplitz``.  Not yet: ``sqrtm``, ``logm``, ``schur``, ``eigh_tridiagonal``,
and the LU of non-square matrices.

Every function works on arrays and tracers, so ``grad``, ``jvp``, ``vmap``
and ``jit`` apply to any order.  The factorizations and solves accept stacks
of matrices (``(..., M, M)``, batch axes broadcast) where SciPy takes one
matrix.  The derivative conventions are :mod:`tracegrad.numpy.linalg`'s:
``cholesky``/``cho_factor``/``eigh`` treat their input as symmetric
(Hermitian), so a tangent is replaced by its symmetric part and gradients
are symmetric.

Differences from SciPy, as in ``jax.scipy.linalg``: ``cho_factor`` returns
zeros in the triangle it does not use (SciPy leaves whatever was there);
``overwrite_*`` and ``check_finite`` are accepted and ignored (nothing is
overwritten; non-finite input gives non-finite output, or ``LinAlgError``
where LAPACK fails).  The triangular solves call LAPACK's ``trtrs`` through
SciPy when it is installed (``pip install -e ".[scipy]"``), else NumPy's LU
solver on the triangle.
"""
import numpy as np

from .. import numpy as tnp
from ..numpy import linalg as _tla
from ..primitives import ops
from ..primitives.linalg import check_square

__all__ = [
    "solve_triangular", "cholesky", "cho_factor", "cho_solve", "solve", "inv", "det",
    "svd", "qr", "eigh", "block_diag", "toeplitz", "lu", "lu_factor", "lu_solve",
    "expm", "expm_frechet",
]

_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def _float(x):
    """``x`` as an array or tracer of an inexact dtype (ints become float64)."""
    x = tnp.asarray(x)
    return x if np.dtype(x.dtype).kind in "fc" else x.astype(np.float64)


def _as_columns(a, b, name):
    """``(b as (..., M, K), was_vector)`` checked against ``a (..., M, M)``."""
    m = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != m:
            raise ValueError(f"{name}: b of shape {b.shape} does not match a of shape {a.shape}")
        return tnp.reshape(b, (m, 1)), True
    if b.ndim < 2 or b.shape[-2] != m:
        raise ValueError(
            f"{name}: b of shape {b.shape} does not match a of shape {a.shape}: b must be "
            f"({m},) or (..., {m}, K)")
    return b, False


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """Solve ``op(T) x = b`` for the triangle ``T`` of ``a``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
        Only its lower (``lower=True``) or upper triangle is read.
    b : array_like or tracer, shape ``(M,)`` or ``(..., M, K)``
        Batch axes broadcast against ``a``'s.
    trans : {0, 1, 2, 'N', 'T', 'C'}
        ``op(T)`` is ``T``, ``T^T`` or ``T^H``.
    lower : bool
        Use the lower triangle (default: the upper one, as in SciPy).
    unit_diagonal : bool
        Take the diagonal of ``T`` as ones (it is not read).
    overwrite_b, check_finite : bool
        Accepted for SciPy's signature; ignored.

    Returns
    -------
    array or tracer
        ``x``, shaped like the broadcast of ``b`` against ``a``; dtype the
        promoted inexact dtype of ``a`` and ``b`` (float32 stays float32).

    Raises
    ------
    LinAlgError
        If ``a`` is not square or ``T`` is singular.
    ValueError
        If ``trans`` is not one of the values above or the shapes do not match.

    Notes
    -----
    Derivatives (the solve's formulas of Giles 2008 restricted to the triangle
    read): ``dx = M^-1 (db - op(mask * dA) x)`` with ``M = op(T)``; the
    cotangents are ``b_bar = M^-T x_bar`` and ``A_bar = mask * op^T(-b_bar
    x^T)``, zero outside the triangle (and on the diagonal with
    ``unit_diagonal``).
    """
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    a, b = _float(a), _float(b)
    check_square(a, "solve_triangular")
    cols, vector = _as_columns(a, b, "solve_triangular")
    x = ops.triangular_solve(a, cols, lower=lower, trans=_TRANS[trans],
                             unit_diagonal=unit_diagonal)
    return tnp.reshape(x, x.shape[:-1]) if vector else x


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factor of a symmetric (Hermitian) positive-definite matrix.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
        Only the triangle of the factor returned is read.
    lower : bool
        Return ``L`` with ``a = L L^H``; default the upper ``U``, ``a = U^H U``
        (SciPy's default, unlike NumPy's).

    Returns
    -------
    array or tracer, shape ``(..., M, M)``, zeros in the other triangle.

    Raises
    ------
    LinAlgError
        If ``a`` is not square or not positive definite.

    Notes
    -----
    Derivatives: :func:`tracegrad.numpy.linalg.cholesky`'s (Murray 2016),
    the input treated as symmetric.
    """
    return _tla.cholesky(_float(a), upper=not lower)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(c, lower)``: the Cholesky factor of ``a`` for :func:`cho_solve`.

    ``c`` is :func:`cholesky`'s result, zeros in the other triangle (SciPy
    leaves arbitrary values there; ``jax.scipy.linalg`` returns zeros too).
    """
    return cholesky(a, lower=lower), bool(lower)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` given ``(c, lower) = cho_factor(a)``.

    Parameters
    ----------
    c_and_lower : tuple ``(c, lower)``
        ``c (..., M, M)``: the factor (only its triangle is read).
    b : array_like or tracer, shape ``(M,)`` or ``(..., M, K)``

    Returns
    -------
    array or tracer shaped like ``b`` (broadcast against ``c``).

    Notes
    -----
    Two triangular solves: ``L (L^H x) = b`` or ``U^H (U x) = b``, each
    differentiable in ``c`` and ``b`` (see :func:`solve_triangular`).
    """
    if not isinstance(c_and_lower, (tuple, list)) or len(c_and_lower) != 2:
        raise TypeError("cho_solve: pass the pair (c, lower) that cho_factor returns, "
                        f"not {type(c_and_lower).__name__}")
    c, lower = c_and_lower
    c, b = _float(c), _float(b)
    check_square(c, "cho_solve")
    cols, vector = _as_columns(c, b, "cho_solve")
    if lower:
        y = ops.triangular_solve(c, cols, lower=True, trans=0)
        x = ops.triangular_solve(c, y, lower=True, trans=2)
    else:
        y = ops.triangular_solve(c, cols, lower=False, trans=2)
        x = ops.triangular_solve(c, y, lower=False, trans=0)
    return tnp.reshape(x, x.shape[:-1]) if vector else x


_ASSUME = {
    None: "gen", "gen": "gen", "general": "gen", "sym": "sym", "symmetric": "sym",
    "her": "her", "hermitian": "her", "pos": "pos", "positive definite": "pos",
    "upper triangular": "upper", "lower triangular": "lower", "diagonal": "diagonal",
}


def _from_triangle(a, lower, conjugate):
    """The symmetric (Hermitian) matrix whose ``lower``/upper triangle is ``a``'s."""
    t = tnp.tril(a) if lower else tnp.triu(a)
    strict = tnp.tril(a, -1) if lower else tnp.triu(a, 1)
    other = tnp.swapaxes(strict, -1, -2)
    return t + (tnp.conj(other) if conjugate else other)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    """Solve ``a x = b`` (``a^T x = b`` with ``transposed=True``).

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    b : array_like or tracer, shape ``(M,)`` or ``(..., M, K)``
    lower : bool
        For ``assume_a`` 'sym', 'her', 'pos': read the lower triangle of
        ``a`` (default the upper one, as SciPy).
    assume_a : str, optional
        ``'gen'``/``'general'`` (LU, the default), ``'sym'``, ``'her'`` (the
        matrix built from one triangle, then LU), ``'pos'``/``'positive
        definite'`` (Cholesky), ``'upper triangular'``, ``'lower
        triangular'``, ``'diagonal'``.
    transposed : bool
        Solve with ``a^T`` (real ``a`` only, as in SciPy).

    Returns
    -------
    array or tracer shaped like ``b`` (broadcast against ``a``).

    Raises
    ------
    LinAlgError
        If ``a`` is singular (or not positive definite for ``'pos'``).
    ValueError
        For an unknown ``assume_a``, or ``transposed`` with complex ``a``.
    """
    if assume_a not in _ASSUME:
        raise ValueError(f"solve: unknown assume_a {assume_a!r}; use one of "
                         f"{sorted(k for k in _ASSUME if k)}")
    kind = _ASSUME[assume_a]
    a, b = _float(a), _float(b)
    check_square(a, "solve")
    if transposed:
        if np.dtype(a.dtype).kind == "c":
            raise ValueError("solve: transposed=True is for real matrices (as in SciPy); "
                             "pass a.T (or a.conj().T) instead")
        a = tnp.swapaxes(a, -1, -2)
        lower = not lower
    cols, vector = _as_columns(a, b, "solve")
    if kind == "gen":
        x = _tla.solve(a, cols)
    elif kind in ("sym", "her"):
        x = _tla.solve(_from_triangle(a, lower, kind == "her"), cols)
    elif kind == "pos":
        x = cho_solve(cho_factor(_from_triangle(a, lower, True), lower=lower), cols)
    elif kind == "diagonal":
        x = cols / tnp.diagonal(a, axis1=-2, axis2=-1)[..., :, None]
    else:
        x = ops.triangular_solve(a, cols, lower=kind == "lower", trans=0)
    return tnp.reshape(x, x.shape[:-1]) if vector else x


def inv(a, overwrite_a=False, check_finite=True):
    """Inverse of a square matrix (or stack); see :func:`tracegrad.numpy.linalg.inv`."""
    return _tla.inv(_float(a))


def det(a, overwrite_a=False, check_finite=True):
    """Determinant of a square matrix (or stack); see :func:`tracegrad.numpy.linalg.det`."""
    return _tla.det(a)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """Singular value decomposition ``a = U @ diag(s) @ Vh``.

    SciPy's signature over :func:`tracegrad.numpy.linalg.svd` (which has the
    derivative conditions: distinct nonzero singular values, and
    ``full_matrices=False`` for non-square ``a``).  Returns ``(U, s, Vh)``,
    or ``s`` with ``compute_uv=False``.  ``lapack_driver`` must be
    ``'gesdd'`` or ``'gesvd'`` (NumPy's LAPACK call is used either way).
    """
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f"svd: lapack_driver must be 'gesdd' or 'gesvd', got {lapack_driver!r}")
    out = _tla.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """QR decomposition ``a = Q @ R``, SciPy's modes.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, N)``
    mode : {'full', 'economic', 'r'}
        ``'full'``: ``Q (M, M)``, ``R (M, N)``; ``'economic'``: ``Q (M, K)``,
        ``R (K, N)`` with ``K = min(M, N)``; ``'r'``: the tuple ``(R,)``
        with ``R (M, N)`` (as SciPy returns it).

    Raises
    ------
    ValueError
        For another mode.
    NotImplementedError
        For ``pivoting=True`` (column pivoting is not available yet).

    Notes
    -----
    Derivatives: :func:`tracegrad.numpy.linalg.qr`'s (full rank; ``'full'``
    of a tall matrix has none, the extra columns of ``Q`` being arbitrary).
    """
    if pivoting:
        raise NotImplementedError("qr: pivoting=True is not available in tracegrad.scipy.linalg "
                                  "yet; use pivoting=False")
    if mode == "full":
        return tuple(_tla.qr(a, mode="complete"))
    if mode == "economic":
        return tuple(_tla.qr(a, mode="reduced"))
    if mode == "r":
        return (_tla.qr(a, mode="complete")[1],)
    raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric (Hermitian)
    matrix, or of the generalized problem ``a v = w b v``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
        Only the ``lower`` (default) or upper triangle is read.
    b : array_like or tracer, shape ``(..., M, M)``, optional
        Symmetric positive definite (its ``lower``/upper triangle read).
    eigvals_only : bool
        Return only ``w``.
    type : {1}
        The generalized problem ``a v = w b v`` (types 2 and 3 not yet).

    Returns
    -------
    w, or (w, v)
        ``w (..., M)`` ascending; ``v (..., M, M)`` with eigenvectors in
        columns, ``v^H b v = I`` for the generalized problem.

    Raises
    ------
    NotImplementedError
        For ``type != 1``, ``subset_by_index``/``subset_by_value`` or a
        ``driver``.

    Notes
    -----
    The generalized problem reduces to the standard one with the Cholesky
    factor of ``b`` (``b = L L^H``): ``C = L^-1 a L^-H``, ``C u = w u``,
    ``v = L^-H u`` (Golub and Van Loan, section 8.7.2), each step
    differentiable; derivatives need distinct eigenvalues (see
    :mod:`tracegrad.numpy.linalg`).
    """
    if type != 1 or subset_by_index is not None or subset_by_value is not None or driver:
        raise NotImplementedError("eigh: only type=1 without subset_by_index, subset_by_value "
                                  "or driver is available in tracegrad.scipy.linalg yet")
    uplo = "L" if lower else "U"
    a = _float(a)
    if b is None:
        if eigvals_only:
            return _tla.eigvalsh(a, UPLO=uplo)
        w, v = _tla.eigh(a, UPLO=uplo)
        return w, v
    b = _float(b)
    low = _tla.cholesky(_from_triangle(b, lower, True))
    full = _from_triangle(a, lower, True)
    y = ops.triangular_solve(low, full, lower=True, trans=0)  # L^-1 a
    c = tnp.conj(tnp.swapaxes(ops.triangular_solve(low, tnp.conj(tnp.swapaxes(y, -1, -2)),
                                                    lower=True, trans=0), -1, -2))  # L^-1 a L^-H
    if eigvals_only:
        return _tla.eigvalsh(c)
    w, u = _tla.eigh(c)
    return w, ops.triangular_solve(low, u, lower=True, trans=2)


def block_diag(*arrs):
    """Block-diagonal matrix of the arrays given (SciPy's ``block_diag``).

    0-d and 1-d arguments count as ``(1, 1)`` and ``(1, n)`` blocks; an
    argument of more than 2 dimensions raises ``ValueError``.  With no
    argument the result is an empty ``(1, 0)`` array, as in SciPy.  The
    dtype is the promoted dtype of the blocks.
    """
    if not arrs:
        return tnp.zeros((1, 0))
    blocks = [tnp.atleast_2d(tnp.asarray(a)) for a in arrs]
    bad = [i for i, b in enumerate(blocks) if b.ndim > 2]
    if bad:
        raise ValueError(f"block_diag: arguments {bad} have more than 2 dimensions")
    dtype = np.result_type(*[b.dtype for b in blocks])
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        rows.append(tnp.pad(b.astype(dtype), ((0, 0), (left, width - left - c))))
        left += c
    return tnp.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """Toeplitz matrix ``T[i, j] = c[i - j]`` for ``i >= j``, ``r[j - i]`` above.

    Parameters
    ----------
    c : array_like or tracer
        First column (flattened).
    r : array_like or tracer, optional
        First row (flattened; ``r[0]`` is ignored, ``c[0]`` is used).
        Default ``conj(c)`` (a Hermitian matrix for real ``c[0]``).

    Returns
    -------
    array or tracer, shape ``(len(c), len(r))``.
    """
    c = tnp.ravel(tnp.asarray(c))
    r = tnp.conj(c) if r is None else tnp.ravel(tnp.asarray(r))
    m, n = c.shape[0], r.shape[0]
    vals = tnp.concatenate([c[::-1], r[1:]])  # vals[m - 1 - i + j]
    index = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return vals[index]


def _square_lu(a, name):
    a = _float(a)
    check_square(a, name)
    return ops.lu(a)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """``(lu, piv)``: the LU factorization of a square matrix for :func:`lu_solve`.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    lu : array or tracer, shape ``(..., M, M)``
        ``U`` in the upper triangle, ``L``'s strict lower triangle below it
        (``L`` has a unit diagonal).
    piv : int32 array, shape ``(..., M)``
        LAPACK's 0-based row interchanges: row ``i`` was swapped with row
        ``piv[i]``.

    Raises
    ------
    LinAlgError
        If ``a`` is not square (non-square LU is not available yet).

    Notes
    -----
    LAPACK ``getrf`` (partial pivoting); a singular ``a`` factors with a
    zero on ``U``'s diagonal (SciPy warns; here nothing is raised), and
    :func:`lu_solve` then gives ``inf``/``nan``.  Derivative of ``lu`` (piv
    is piecewise constant): with ``P^T A = L U`` and ``phi = L^-1 P^T dA
    U^-1``, ``dL = L tril(phi, -1)`` and ``dU = triu(phi) U``.
    """
    lu, piv, _ = _square_lu(a, "lu_factor")
    return lu, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` (``a^T``, ``a^H`` with ``trans`` 1, 2) given
    ``(lu, piv) = lu_factor(a)``.

    Parameters
    ----------
    lu_and_piv : tuple ``(lu, piv)``
    b : array_like or tracer, shape ``(M,)`` or ``(..., M, K)``
    trans : {0, 1, 2, 'N', 'T', 'C'}

    Returns
    -------
    array or tracer shaped like ``b`` (broadcast against ``lu``).

    Notes
    -----
    ``x = U^-1 L^-1 P^T b`` by two triangular solves (``trans=0``); for
    ``trans`` 1/2, ``x = P L^-T U^-T b`` (conjugated for 2).  Differentiable
    in ``lu`` (through its triangles) and ``b``.
    """
    if not isinstance(lu_and_piv, (tuple, list)) or len(lu_and_piv) != 2:
        raise TypeError("lu_solve: pass the pair (lu, piv) that lu_factor returns, "
                        f"not {type(lu_and_piv).__name__}")
    if trans not in _TRANS:
        raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    lu, piv = lu_and_piv
    lu, b = _float(lu), _float(b)
    check_square(lu, "lu_solve")
    cols, vector = _as_columns(lu, b, "lu_solve")
    m = lu.shape[-1]
    p_t = _permutation_matrix_t(ops.lu_pivots_to_permutation(tnp.asarray(piv), m), lu.dtype)
    t = _TRANS[trans]
    if t == 0:
        y = ops.triangular_solve(lu, p_t @ cols, lower=True, unit_diagonal=True)
        x = ops.triangular_solve(lu, y, lower=False)
    else:
        y = ops.triangular_solve(lu, cols, lower=False, trans=t)
        x = tnp.swapaxes(p_t, -1, -2) @ ops.triangular_solve(lu, y, lower=True, trans=t,
                                                              unit_diagonal=True)
    return tnp.reshape(x, x.shape[:-1]) if vector else x


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """LU decomposition with partial pivoting, ``a = P @ L @ U``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    permute_l : bool
        Return ``(P @ L, U)``.
    p_indices : bool
        Return the permutation as row indices ``p`` (int32) with
        ``a == L[p] @ U`` instead of the matrix ``P``.

    Returns
    -------
    (P, L, U), (p, L, U) or (PL, U)
        ``L`` unit lower triangular, ``U`` upper triangular; ``P`` a
        permutation matrix of ``a``'s dtype.

    Raises
    ------
    LinAlgError
        If ``a`` is not square (non-square LU is not available yet).

    Notes
    -----
    See :func:`lu_factor` for the derivative.
    """
    packed, _, perm = _square_lu(a, "lu")
    m = packed.shape[-1]
    low = tnp.tril(packed, -1) + np.eye(m, dtype=packed.dtype)
    up = tnp.triu(packed)
    p = tnp.swapaxes(_permutation_matrix_t(perm, packed.dtype), -1, -2)
    if permute_l:
        return p @ low, up
    if p_indices:
        return _inverse_permutation(perm), low, up
    return p, low, up


def _permutation_matrix_t(perm, dtype):
    """``P^T`` with ``(P^T a)[i] = a[perm[i]]`` (``P^T a = L U``), as a matrix of ``dtype``."""
    m = perm.shape[-1]
    return (perm[..., :, None] == np.arange(m, dtype=np.int32)).astype(dtype)


def _inverse_permutation(perm):
    """``inv`` with ``inv[perm[i]] = i`` (int32): the column of each row's 1 in ``P``."""
    return tnp.argmax(_permutation_matrix_t(perm, np.int32), axis=-2).astype(np.int32)


def expm(A):
    """Matrix exponential ``exp(A)`` of a square matrix (or stack).

    Parameters
    ----------
    A : array_like or tracer, shape ``(..., M, M)``

    Returns
    -------
    array or tracer, shape ``(..., M, M)``, ``A``'s inexact dtype.

    Raises
    ------
    LinAlgError
        If ``A`` is not square.

    Notes
    -----
    Values: ``scipy.linalg.expm`` (Al-Mohy and Higham 2009) when SciPy is
    installed, else scaling and squaring with the [13/13] Pade approximant
    (Higham 2005).  Derivative: the Frechet derivative ``L(A, dA)`` (see
    :func:`expm_frechet`); the gradient is ``L(A^T, G)``.  Both are
    exponentials of a ``2M x 2M`` block matrix, so every order works.
    """
    A = _float(A)
    check_square(A, "expm")
    return ops.expm(A)


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """Frechet derivative of the matrix exponential at ``A`` in direction ``E``.

    Parameters
    ----------
    A, E : array_like or tracer, shape ``(..., M, M)``
    method : {None, 'blockEnlarge'}
        Only the block method is available: ``L(A, E)`` is the upper-right
        block of ``expm([[A, E], [0, A]])`` (Higham, "Functions of
        Matrices", 2008, theorem 3.6); SciPy's default ``'SPS'`` is accepted
        and computed the same way.
    compute_expm : bool
        Return ``(expm(A), L(A, E))`` (default) or only ``L(A, E)``.

    Raises
    ------
    ValueError
        If ``A`` and ``E`` differ in shape, or for another ``method``.
    """
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError(f"expm_frechet: method must be None, 'SPS' or 'blockEnlarge', got {method!r}")
    A, E = _float(A), _float(E)
    check_square(A, "expm_frechet")
    if A.shape != E.shape:
        raise ValueError(f"expm_frechet: A {A.shape} and E {E.shape} must have the same shape")
    dtype = np.result_type(A.dtype, E.dtype)
    ex, frechet = ops.expm_frechet_block(A.astype(dtype), E.astype(dtype))
    return (ex, frechet) if compute_expm else frechet

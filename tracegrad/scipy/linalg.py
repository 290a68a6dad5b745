"""``tracegrad.scipy.linalg``: SciPy's ``scipy.linalg`` signatures, differentiable.

What is here (issue 11, in progress): ``solve_triangular``, ``cholesky``,
``cho_factor``, ``cho_solve``, ``lu``, ``lu_factor``, ``lu_solve``, ``expm``,
``expm_frechet``, ``solve`` (``assume_a`` general, symmetric,
Hermitian, positive definite, triangular, diagonal), ``inv``, ``det``,
``svd``, ``qr``, ``eigh`` (standard and generalized), ``block_diag`` and
``toeplitz``; the matrix functions and forms ``solve_sylvester``, ``sqrtm``,
``logm``, ``schur``, ``rsf2csf``, ``hessenberg``, ``polar`` and
``eigh_tridiagonal``; the special matrices ``circulant``, ``companion``,
``convolution_matrix``, ``dft``, ``fiedler``, ``fiedler_companion``,
``hadamard``, ``hankel``, ``helmert``, ``hilbert``, ``invhilbert``,
``invpascal``, ``leslie`` and ``pascal``.  Not yet: the LU of non-square
matrices and ``funm``.  ``qr`` takes ``pivoting=True``; ``qr_multiply``
is there too.

``sqrtm`` and ``logm`` return complex arrays, as ``jax.scipy.linalg.sqrtm``
(a result dtype must not depend on the values; SciPy returns a real array
when the root or logarithm is real).  ``schur`` and ``hessenberg`` have no
derivative (as in JAX): differentiating them raises ``NotImplementedError``.

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
import math

import numpy as np

from .. import numpy as tnp
from ..numpy import linalg as _tla
from ..primitives import ops
from ..primitives.linalg import check_square

__all__ = [
    "solve_triangular", "cholesky", "cho_factor", "cho_solve", "solve", "inv", "det",
    "svd", "qr", "eigh", "block_diag", "toeplitz", "lu", "lu_factor", "lu_solve",
    "expm", "expm_frechet", "qr_multiply", "solve_banded",
    # matrix functions and decompositions (issue 11)
    "solve_sylvester", "sqrtm", "logm", "schur", "rsf2csf", "hessenberg", "polar",
    "eigh_tridiagonal",
    # special matrices
    "circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion",
    "hadamard", "hankel", "helmert", "hilbert", "invhilbert", "invpascal", "leslie", "pascal",
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


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` for a banded ``a`` given in LAPACK's band storage.

    Parameters
    ----------
    l_and_u : (int, int)
        The numbers of nonzero lower and upper diagonals, ``(l, u)``.
    ab : array_like or tracer, shape ``(l + u + 1, M)``
        The band: ``a[i, j] = ab[u + i - j, j]`` (SciPy's layout); the
        entries outside the matrix are not read.
    b : array_like or tracer, shape ``(M,)`` or ``(M, K)``

    Returns
    -------
    array or tracer shaped like ``b``, differentiable in ``ab`` and ``b``
    (entries of ``ab`` outside the matrix get zero gradient).

    Raises
    ------
    ValueError
        If ``ab`` has not ``l + u + 1`` rows or ``b`` not ``M`` rows.
    LinAlgError
        If ``a`` is singular.

    Notes
    -----
    The band is scattered into the dense ``(M, M)`` matrix, which is solved
    by LU (:func:`solve`): ``O(M**3)`` time and ``O(M**2)`` memory, not
    LAPACK ``gbsv``'s ``O(M (l + u)**2)``; fine up to a few thousand rows.
    """
    lower, upper = (int(v) for v in l_and_u)
    ab, b = _float(ab), _float(b)
    if tnp.ndim(ab) != 2 or tnp.shape(ab)[0] != lower + upper + 1:
        raise ValueError(f"solve_banded: ab must have shape (l + u + 1, M) = ({lower + upper + 1}"
                         f", M) for l_and_u={tuple(l_and_u)}, got {tnp.shape(ab)}")
    m = tnp.shape(ab)[1]
    if tnp.shape(b)[:1] != (m,):
        raise ValueError(f"solve_banded: b must have {m} rows (ab's columns), got shape "
                         f"{tnp.shape(b)}")
    k, j = np.meshgrid(np.arange(lower + upper + 1), np.arange(m), indexing="ij")
    i = k - upper + j  # the row of a that ab[k, j] holds
    inside = (i >= 0) & (i < m)
    dense = tnp.zeros((m, m), dtype=ab.dtype).at[i[inside], j[inside]].set(
        ab[k[inside], j[inside]])
    return solve(dense, b)


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
    """QR decomposition ``a = Q @ R`` (``a[..., :, P] = Q @ R`` with pivoting), SciPy's modes.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, N)``
    mode : {'full', 'economic', 'r'}
        ``'full'``: ``Q (M, M)``, ``R (M, N)``; ``'economic'``: ``Q (M, K)``,
        ``R (K, N)`` with ``K = min(M, N)``; ``'r'``: ``R (M, N)`` alone
        (the tuple ``(R,)``, as SciPy returns it).
    pivoting : bool
        Column pivoting (LAPACK ``geqp3``): also return ``P``, int32
        ``(..., N)``, with ``|diag(R)|`` non-increasing.

    Returns
    -------
    (Q, R), (R,), and with pivoting (Q, R, P) or (R, P).

    Raises
    ------
    ValueError
        For another mode.

    Notes
    -----
    Derivatives: :func:`tracegrad.numpy.linalg.qr`'s (full rank; ``'full'``
    of a tall matrix has none, the extra columns of ``Q`` being arbitrary).
    With pivoting the permutation (from SciPy, a ``qr_pivots`` primitive) is
    piecewise constant, and ``Q``, ``R`` are the QR factors of ``a[..., :,
    P]``, differentiable as above.
    """
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    a = _float(a)
    p = None
    if pivoting:
        if a.ndim < 2:
            raise ValueError(f"qr: a must be a matrix, got shape {a.shape}")
        p = ops.qr_pivots(a)
        a = tnp.take_along_axis(a, tnp.broadcast_to(p[..., None, :], a.shape), axis=-1)
    if mode == "full":
        out = tuple(_tla.qr(a, mode="complete"))
    elif mode == "economic":
        out = tuple(_tla.qr(a, mode="reduced"))
    else:
        out = (_tla.qr(a, mode="complete")[1],)
    return out + (p,) if pivoting else out


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """``Q`` of ``a``'s economic QR multiplied into ``c``, and ``R``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(M, N)``
    c : array_like or tracer
        ``mode='right'``: ``(..., M)`` or ``(P, M)``, giving ``c @ Q``;
        ``mode='left'``: ``(K,)`` or ``(K, P)``, giving ``Q @ c``
        (``K = min(M, N)``).
    pivoting : bool
        Pivoted QR (see :func:`qr`); ``P`` is returned too.
    conjugate : bool
        Use ``conj(Q)``.

    Returns
    -------
    (CQ, R) or (CQ, R, P)
        ``R (K, N)``; ``CQ`` shaped as above (1-D for 1-D ``c``).

    Raises
    ------
    ValueError
        For another mode or a ``c`` whose shape does not match.

    Notes
    -----
    ``Q`` and ``R`` from :func:`qr` (``mode='economic'``), so the
    derivatives are those of the QR decomposition and the product.
    """
    if mode not in ("right", "left"):
        raise ValueError(f"qr_multiply: mode must be 'right' or 'left', got {mode!r}")
    a, c = _float(a), _float(c)
    if a.ndim != 2:
        raise ValueError(f"qr_multiply: a must be a matrix, got shape {a.shape}")
    out = qr(a, mode="economic", pivoting=pivoting)
    q = tnp.conj(out[0]) if conjugate else out[0]
    m, k = q.shape
    if c.ndim not in (1, 2) or (mode == "right" and c.shape[-1] != m) or (
            mode == "left" and c.shape[0] != k):
        want = f"(..., {m})" if mode == "right" else f"({k},) or ({k}, P)"
        raise ValueError(f"qr_multiply: c of shape {c.shape} does not match a of shape {a.shape}: "
                         f"for mode={mode!r} c must be {want}")
    cq = c @ q if mode == "right" else q @ c
    return (cq,) + tuple(out[1:])


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


# --------------------------------------------------------------------------
# matrix functions and decompositions (values from SciPy, derivatives written
# with primitives)


def _complex(x):
    """``x`` cast to its complex dtype (complex64 for float32, else complex128)."""
    x = _float(x)
    dt = np.complex64 if np.dtype(x.dtype) in (np.float32, np.complex64) else np.complex128
    return x.astype(dt)


def solve_sylvester(a, b, q):
    """Solve the Sylvester equation ``a @ x + x @ b = q``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    b : array_like or tracer, shape ``(..., N, N)``
    q : array_like or tracer, shape ``(..., M, N)``
        Batch axes of the three broadcast together.

    Returns
    -------
    array or tracer, shape ``(..., M, N)``; the promoted inexact dtype.

    Raises
    ------
    LinAlgError
        If ``a`` or ``b`` is not square.
    ValueError
        If ``q`` does not have the shape ``(..., M, N)``.

    Notes
    -----
    Values: ``scipy.linalg.solve_sylvester`` (Bartels and Stewart 1972).
    The solution is unique when ``a`` and ``-b`` share no eigenvalue.
    Derivatives: ``a dx + dx b = dq - da x - x db`` is one more Sylvester
    equation; the cotangents are ``q_bar = y``, ``a_bar = -y x^T``,
    ``b_bar = -x^T y`` with ``a^T y + y b^T = x_bar``.
    """
    a, b, q = _float(a), _float(b), _float(q)
    check_square(a, "solve_sylvester")
    check_square(b, "solve_sylvester")
    if q.ndim < 2 or q.shape[-2:] != (a.shape[-1], b.shape[-1]):
        raise ValueError(f"solve_sylvester: q of shape {q.shape} does not match a {a.shape} and "
                         f"b {b.shape}: q must be (..., M, N)")
    dt = np.result_type(a.dtype, b.dtype, q.dtype)
    return ops.solve_sylvester(a.astype(dt), b.astype(dt), q.astype(dt))


def sqrtm(A, disp=True, blocksize=64):
    """Principal square root ``X`` of a square matrix (or stack), ``X @ X = A``.

    Parameters
    ----------
    A : array_like or tracer, shape ``(..., M, M)``
    disp : bool
        ``False`` also returns SciPy's error estimate
        ``||X X - A||_F^2 / ||A||_F``.
    blocksize : int
        Accepted for SciPy's signature; ignored.

    Returns
    -------
    X, or (X, errest)
        ``X (..., M, M)`` is always complex (complex64 for float32 input,
        else complex128), as in ``jax.scipy.linalg.sqrtm``; SciPy returns a
        real array when the root is real (take ``X.real`` for that).

    Raises
    ------
    LinAlgError
        If ``A`` is not square.

    Notes
    -----
    Values: ``scipy.linalg.sqrtm`` (the Schur method, Bjorck and Hammarling
    1983).  Derivative (Higham, "Functions of Matrices", 2008, section 6.1):
    ``X dX + dX X = dA``, a Sylvester equation (see :func:`solve_sylvester`)
    solvable when ``A`` is nonsingular; the gradient solves the transposed
    equation ``X^T G + G X^T = X_bar``.  Singular ``A`` (a zero eigenvalue)
    has no derivative (the results are inf/nan).  ``jax.scipy.linalg.sqrtm``
    is not differentiable (it goes through ``schur``).
    """
    A = _complex(A)
    check_square(A, "sqrtm")
    x = ops.sqrtm(A)
    if disp:
        return x
    return x, _tla.norm(x @ x - A, "fro", axis=(-2, -1)) ** 2 / _tla.norm(A, "fro", axis=(-2, -1))


def logm(A, disp=True):
    """Principal matrix logarithm ``X`` of a square matrix (or stack), ``expm(X) = A``.

    Parameters
    ----------
    A : array_like or tracer, shape ``(..., M, M)``
        No eigenvalue on the closed negative real axis (else the principal
        logarithm is not defined; SciPy's nearby value is returned).
    disp : bool
        ``False`` also returns SciPy's error estimate
        ``||expm(X) - A||_1 / ||A||_1``.

    Returns
    -------
    X, or (X, errest)
        ``X (..., M, M)`` always complex (complex64 for float32 input), as
        :func:`sqrtm`; SciPy returns a real array when the logarithm is real.

    Raises
    ------
    LinAlgError
        If ``A`` is not square.

    Notes
    -----
    Values: ``scipy.linalg.logm`` (inverse scaling and squaring, Al-Mohy and
    Higham 2012).  Derivative: the Frechet derivative ``L(A, dA)``, the
    upper-right block of ``logm([[A, dA], [0, A]])`` (Higham, "Functions of
    Matrices", 2008, theorem 3.6, as for :func:`expm_frechet`); the
    gradient is ``L(A^T, X_bar)``.  Every order works.  ``jax.scipy.linalg``
    has no ``logm``.
    """
    A = _complex(A)
    check_square(A, "logm")
    x = ops.logm(A)
    if disp:
        return x
    return x, (_tla.norm(ops.expm(x) - A, 1, axis=(-2, -1)) / _tla.norm(A, 1, axis=(-2, -1)))


def schur(a, output="real", lwork=None, overwrite_a=False, sort=None, check_finite=True):
    """Schur decomposition ``a = Z T Z^H`` of a square matrix (or stack).

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    output : {'real', 'complex'}
        ``'real'``: for real ``a``, ``T`` quasi-upper-triangular (2x2 blocks
        for complex-conjugate eigenvalue pairs) and ``Z`` real orthogonal;
        ``'complex'``: ``T`` upper triangular, ``Z`` unitary.  A complex
        ``a`` always gets the complex form.
    lwork, overwrite_a, check_finite
        Accepted for SciPy's signature; ignored.
    sort : None
        Ordering the eigenvalues is not available (``NotImplementedError``).

    Returns
    -------
    (T, Z), each ``(..., M, M)``.

    Raises
    ------
    ValueError
        For another ``output``.
    NotImplementedError
        For ``sort``, and when differentiated (as in JAX: the Schur vectors
        are not unique).

    Notes
    -----
    Values: ``scipy.linalg.schur`` (LAPACK ``gees``).
    """
    if output not in ("real", "complex", "r", "c"):
        raise ValueError(f"schur: output must be 'real' or 'complex', got {output!r}")
    if sort is not None:
        raise NotImplementedError("schur: sort is not available in tracegrad.scipy.linalg; "
                                  "use sort=None")
    a = _float(a)
    check_square(a, "schur")
    complex_out = output in ("complex", "c") or np.dtype(a.dtype).kind == "c"
    t, z = ops.schur(a, output="complex" if complex_out else "real")
    return t, z


def rsf2csf(T, Z, check_finite=True):
    """Complex Schur form ``(T, Z)`` from a real one (``scipy.linalg.rsf2csf``).

    Parameters
    ----------
    T, Z : array_like or tracer, shape ``(..., M, M)``
        A real Schur form and its Schur vectors (``schur(a)``).

    Returns
    -------
    (T, Z) complex, ``T`` upper triangular, with ``Z T Z^H`` unchanged.

    Notes
    -----
    From the last row up, each 2x2 diagonal block ``[[a, b], [c, d]]``
    with ``|c| > eps (|a| + |d|)`` (a complex-conjugate eigenvalue pair) is
    triangularized by the rotation ``G = [[conj(k), s], [-conj(s), k]]``,
    ``(k, s) = (mu, c) / hypot(|mu|, |c|)`` with ``mu = lambda - d`` for an
    eigenvalue ``lambda`` of the block (Golub and Van Loan, "Matrix
    Computations", section 7.4.2): ``T <- G T G^H``, ``Z <- Z G^H``.  Other
    blocks get ``G = I``.  Branch-free (``where``), so it works under
    :func:`tracegrad.jit` and differentiates in ``T`` and ``Z``
    (``jax.scipy.linalg.rsf2csf`` is differentiable too).  The eigenvalue
    taken is ``(a + d)/2 + sqrt(((a - d)/2)^2 + b c)`` (principal root); the
    complex Schur form is unique only up to such choices, so ``T`` and ``Z``
    can differ from SciPy's by a unitary diagonal factor.
    """
    t, z = _complex(T), _complex(Z)
    check_square(t, "rsf2csf")
    if t.shape != z.shape or t.ndim != 2:
        raise ValueError(f"rsf2csf: T {t.shape} and Z {z.shape} must be square matrices of "
                         "one shape")
    n = t.shape[-1]
    eps = np.finfo(t.dtype).eps
    for m in range(n - 1, 0, -1):
        a, b, c, d = t[m - 1, m - 1], t[m - 1, m], t[m, m - 1], t[m, m]
        rotate = tnp.abs(c) > eps * (tnp.abs(a) + tnp.abs(d))
        # where nothing rotates, the rotation of the block [[0, 1], [-1, 0]]
        # is computed and discarded: the unused branch's derivatives stay
        # finite (no |0| or sqrt(0)), the double-where idiom
        a, b, c, d = (tnp.where(rotate, x, y) for x, y in ((a, 0.0), (b, 1.0), (c, -1.0), (d, 0.0)))
        half = (a - d) / 2
        mu = half + tnp.sqrt(half * half + b * c)
        r = tnp.sqrt(tnp.abs(mu) ** 2 + tnp.abs(c) ** 2)
        k = tnp.where(rotate, mu / r, 1.0)
        s = tnp.where(rotate, c / r, 0.0)
        pick = np.zeros((4, n, n), dtype=np.finfo(t.dtype).dtype)
        pick[0, m - 1, m - 1] = pick[3, m, m] = 1.0
        pick[1, m - 1, m] = pick[2, m, m - 1] = 1.0
        rest = np.eye(n, dtype=pick.dtype) - pick[0] - pick[3]
        g = rest + tnp.conj(k) * pick[0] + s * pick[1] - tnp.conj(s) * pick[2] + k * pick[3]
        gh = tnp.conj(g).T
        t = g @ t @ gh
        z = z @ gh
    return tnp.triu(t), z


def hessenberg(a, calc_q=False, overwrite_a=False, check_finite=True):
    """Hessenberg form ``H`` of a square matrix (or stack), ``a = Q H Q^H``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, M)``
    calc_q : bool
        Also return the unitary ``Q``.

    Returns
    -------
    H, or (H, Q)
        ``H`` zero below the first subdiagonal.

    Raises
    ------
    NotImplementedError
        When differentiated (as in JAX; the reduction is not unique).

    Notes
    -----
    Values: ``scipy.linalg.hessenberg`` (LAPACK ``gehrd``/``orghr``).
    """
    a = _float(a)
    check_square(a, "hessenberg")
    h, q = ops.hessenberg(a)
    return (h, q) if calc_q else h


def polar(a, side="right"):
    """Polar decomposition: ``a = U P`` (``side='right'``) or ``a = P U`` ('left').

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., M, N)``
    side : {'right', 'left'}

    Returns
    -------
    (U, P)
        ``U (..., M, N)`` with orthonormal columns (``M >= N``) or rows;
        ``P`` Hermitian positive semi-definite, ``(..., N, N)`` for
        ``'right'`` and ``(..., M, M)`` for ``'left'``.

    Raises
    ------
    ValueError
        For another ``side``.

    Notes
    -----
    From the SVD ``a = W diag(s) V^H`` (``full_matrices=False``):
    ``U = W V^H``, ``P = V diag(s) V^H`` or ``W diag(s) W^H`` (Higham,
    "Functions of Matrices", 2008, theorem 8.1).  Differentiable where the
    SVD is (distinct nonzero singular values); ``U`` and ``P`` themselves
    do not depend on the SVD's sign choices.  ``jax.scipy.linalg.polar``
    defaults to the QDWH iteration, which has no reverse derivative.
    """
    if side not in ("right", "left"):
        raise ValueError(f"polar: side must be 'right' or 'left', got {side!r}")
    a = _float(a)
    if a.ndim < 2:
        raise ValueError(f"polar: a must be a matrix, got shape {a.shape}")
    w, s, vh = _tla.svd(a, full_matrices=False)
    u = w @ vh
    s = s.astype(a.dtype)
    if side == "right":
        p = tnp.conj(tnp.swapaxes(vh, -1, -2)) @ (s[..., :, None] * vh)
    else:
        p = (w * s[..., None, :]) @ tnp.conj(tnp.swapaxes(w, -1, -2))
    return u, p


def eigh_tridiagonal(d, e, eigvals_only=False, select="a", select_range=None, check_finite=True,
                     tol=0.0, lapack_driver="auto"):
    """Eigenvalues (ascending) and eigenvectors of a real symmetric tridiagonal matrix.

    Parameters
    ----------
    d : array_like or tracer, shape ``(N,)``
        The diagonal.
    e : array_like or tracer, shape ``(N - 1,)``
        The off-diagonal.
    eigvals_only : bool
        Return only the eigenvalues.
    select : {'a', 'i'}
        All eigenvalues, or those with indices ``select_range = (lo, hi)``
        (inclusive, as in SciPy).  ``'v'`` (a value range, a result whose
        size depends on the values) is not available.
    check_finite, tol, lapack_driver
        Accepted for SciPy's signature; ignored.

    Returns
    -------
    w, or (w, v)
        ``w (K,)``; ``v (N, K)`` with eigenvectors in columns.

    Raises
    ------
    ValueError
        If ``e`` is not one shorter than ``d``, or for a bad ``select_range``.
    NotImplementedError
        For ``select='v'``.

    Notes
    -----
    The tridiagonal matrix is built with array ops and passed to
    :func:`eigh`, so the eigenvalues (and, for distinct eigenvalues, the
    eigenvectors) are differentiable in ``d`` and ``e`` to any order
    (``jax.scipy.linalg.eigh_tridiagonal`` has ``eigvals_only=True`` only).
    """
    if select not in ("a", "i", "all", "index"):
        if select in ("v", "value"):
            raise NotImplementedError("eigh_tridiagonal: select='v' (a value range) is not "
                                      "available; use select='a' or 'i'")
        raise ValueError(f"eigh_tridiagonal: select must be 'a', 'v' or 'i', got {select!r}")
    d, e = _float(d), _float(e)
    if d.ndim != 1 or e.ndim != 1 or e.shape[0] != max(d.shape[0] - 1, 0):
        raise ValueError(f"eigh_tridiagonal: d {d.shape} and e {e.shape} must be 1-D with "
                         "len(e) == len(d) - 1")
    dt = np.result_type(d.dtype, e.dtype)
    t = tnp.diag(d.astype(dt))
    if e.shape[0]:
        t = t + tnp.diag(e.astype(dt), 1) + tnp.diag(tnp.conj(e.astype(dt)), -1)
    if select in ("a", "all"):
        lo, hi = 0, d.shape[0] - 1
    else:
        if select_range is None or len(select_range) != 2:
            raise ValueError("eigh_tridiagonal: select='i' needs select_range=(lo, hi)")
        lo, hi = (int(v) for v in select_range)
        if not 0 <= lo <= hi < d.shape[0]:
            raise ValueError(f"eigh_tridiagonal: select_range {select_range} must satisfy "
                             f"0 <= lo <= hi < {d.shape[0]}")
    if eigvals_only:
        return _tla.eigvalsh(t)[lo:hi + 1]
    w, v = _tla.eigh(t)
    return w[lo:hi + 1], v[:, lo:hi + 1]


# --------------------------------------------------------------------------
# special matrices.  Those built from array arguments gather the entries
# from one vector of values (the arguments and the constants 0 and 1) with a
# constant index matrix, so they stage, batch and differentiate like any
# indexing; the integer-only ones are NumPy constants.


def _vector_arg(x, name, minimum=1):
    x = tnp.asarray(x)
    if x.ndim == 0:
        x = tnp.reshape(x, (1,))
    if x.shape[-1] < minimum:
        raise ValueError(f"{name}: the input must have at least {minimum} entries along its "
                         f"last axis, got shape {x.shape}")
    return x


def _with_constants(x, *consts):
    """``x (..., N)`` followed by the constants along its last axis."""
    if not consts:
        return x
    tail = tnp.broadcast_to(np.asarray(consts, dtype=x.dtype), x.shape[:-1] + (len(consts),))
    return tnp.concatenate([x, tail], axis=-1)


def circulant(c):
    """Circulant matrix ``C[..., i, j] = c[..., (i - j) % N]``.

    Parameters
    ----------
    c : array_like or tracer, shape ``(..., N)``
        First column; leading axes are a batch (as in SciPy).

    Returns
    -------
    array or tracer, shape ``(..., N, N)``, ``c``'s dtype.
    """
    c = _vector_arg(c, "circulant")
    n = c.shape[-1]
    return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def hankel(c, r=None):
    """Hankel matrix ``H[i, j] = c[i + j]`` for ``i + j < M``, else ``r[i + j - M + 1]``.

    Parameters
    ----------
    c : array_like or tracer
        First column (flattened, as SciPy 1.17 does).
    r : array_like or tracer, optional
        Last row (flattened; ``r[0]`` is ignored).  Default zeros (of
        ``len(c)``).

    Returns
    -------
    array or tracer, shape ``(len(c), len(r))``, the promoted dtype.
    """
    c = tnp.ravel(tnp.asarray(c))
    r = tnp.zeros_like(c) if r is None else tnp.ravel(tnp.asarray(r))
    m, n = c.shape[0], r.shape[0]
    dt = np.result_type(c.dtype, r.dtype)
    vals = tnp.concatenate([c.astype(dt), r[1:].astype(dt)])
    return vals[np.arange(m)[:, None] + np.arange(n)[None, :]]


def companion(a):
    """Companion matrix of the polynomial ``a[0] x^(N-1) + ... + a[N-1]``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., N)``, ``N >= 2``, ``a[..., 0] != 0``.

    Returns
    -------
    array or tracer, shape ``(..., N-1, N-1)``: first row ``-a[1:] / a[0]``,
    ones on the subdiagonal; float64 for integer input.

    Raises
    ------
    ValueError
        If ``N < 2`` or (for concrete input) a leading coefficient is zero.
    """
    a = _float(_vector_arg(a, "companion", 2))
    _check_leading(a, "companion")
    n = a.shape[-1]
    vals = _with_constants(-a[..., 1:] / a[..., :1], 0.0, 1.0)  # zero at n-1, one at n
    idx = np.full((n - 1, n - 1), n - 1)
    idx[0] = np.arange(n - 1)
    idx[np.arange(1, n - 1), np.arange(n - 2)] = n
    return vals[..., idx]


def _check_leading(a, name):
    """SciPy's ``ValueError`` for a zero leading coefficient, on concrete input."""
    if isinstance(a, np.ndarray) and np.any(a[..., 0] == 0):
        raise ValueError(f"{name}: the leading coefficient a[..., 0] is zero")


def fiedler(a):
    """Symmetric Fiedler matrix ``F[..., i, j] = |a[..., i] - a[..., j]|``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., N)``

    Returns
    -------
    array or tracer, shape ``(..., N, N)``, zero diagonal.
    """
    a = _vector_arg(a, "fiedler", 0)
    return tnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix of ``a[0] x^n + ... + a[n]``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., n + 1)``, ``a[..., 0] != 0``.

    Returns
    -------
    array or tracer, shape ``(..., n, n)``.  With ``c_k = a_k / a_0``:
    ``F[0, 0] = -c_1``, ``F[1, 0] = 1``; for even ``k``, ``F[k, k+1] =
    -c_{k+2}`` and ``F[k, k+2] = 1``; for even ``k >= 2``, ``F[k, k-1] =
    -c_{k+1}``; for odd ``k >= 3``, ``F[k, k-2] = 1`` (M. Fiedler, "A note
    on companion matrices", Linear Algebra Appl. 372, 2003).  Its
    eigenvalues are the roots of the polynomial.  ``n = 1`` gives
    ``[[-c_1]]``; ``n = 0`` an empty array, as in SciPy.
    """
    a = _float(_vector_arg(a, "fiedler_companion", 0))
    m = a.shape[-1]
    if m < 2:
        return tnp.zeros(a.shape[:-1] + (0,), a.dtype)
    _check_leading(a, "fiedler_companion")
    n = m - 1
    coef = -a[..., 1:] / a[..., :1]  # coef[k-1] = -c_k
    vals = _with_constants(coef, 0.0, 1.0)  # zero at n, one at n + 1
    idx = np.full((n, n), n)
    idx[0, 0] = 0
    if n > 1:
        idx[1, 0] = n + 1
    for k in range(0, n, 2):
        if k + 1 < n:
            idx[k, k + 1] = k + 1  # -c_{k+2}
        if k + 2 < n:
            idx[k, k + 2] = n + 1
        if k >= 2:
            idx[k, k - 1] = k  # -c_{k+1}
    for k in range(3, n, 2):
        idx[k, k - 2] = n + 1
    return vals[..., idx]


def leslie(f, s):
    """Leslie matrix: fecundities ``f`` in the first row, survival ``s`` on the subdiagonal.

    Parameters
    ----------
    f : array_like or tracer, shape ``(..., N)``, ``N >= 2``
    s : array_like or tracer, shape ``(..., N-1)``
        Batch axes broadcast with ``f``'s.

    Returns
    -------
    array or tracer, shape ``(..., N, N)``, the promoted dtype.

    Raises
    ------
    ValueError
        If ``s`` is empty or not one shorter than ``f``.
    """
    f, s = _vector_arg(f, "leslie"), tnp.asarray(s)
    if s.ndim == 0:
        s = tnp.reshape(s, (1,))
    n = f.shape[-1]
    if s.shape[-1] < 1:
        raise ValueError("leslie: s must have at least 1 entry (f at least 2), as in SciPy")
    if s.shape[-1] != n - 1:
        raise ValueError(f"leslie: s must be one shorter than f along the last axis, got f "
                         f"{f.shape} and s {s.shape}")
    dt = np.result_type(f.dtype, s.dtype)
    batch = np.broadcast_shapes(f.shape[:-1], s.shape[:-1])
    f = tnp.broadcast_to(f.astype(dt), batch + (n,))
    s = tnp.broadcast_to(s.astype(dt), batch + (n - 1,))
    vals = _with_constants(tnp.concatenate([f, s], axis=-1), 0)  # zero at 2n - 1
    idx = np.full((n, n), 2 * n - 1)
    idx[0] = np.arange(n)
    idx[np.arange(1, n), np.arange(n - 1)] = n + np.arange(n - 1)
    return vals[..., idx]


def convolution_matrix(a, n, mode="full"):
    """Matrix ``A`` with ``A @ v == numpy.convolve(a, v, mode)`` for ``v`` of length ``n``.

    Parameters
    ----------
    a : array_like or tracer, shape ``(..., m)``, ``m >= 1``
    n : int, positive
    mode : {'full', 'valid', 'same'}
        ``'full'``: ``(m + n - 1, n)``; ``'valid'``: ``(max(m, n) - min(m, n)
        + 1, n)``; ``'same'``: ``(max(m, n), n)`` (the rows of ``'full'``
        centred, as ``numpy.convolve``).

    Returns
    -------
    array or tracer, ``A[..., i, j] = a[..., i + o - j]`` (zero outside
    ``a``), ``o`` the mode's row offset.

    Raises
    ------
    ValueError
        For ``n <= 0``, empty ``a`` or another ``mode``.
    """
    if n <= 0:
        raise ValueError(f"convolution_matrix: n must be a positive integer, got {n}")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"convolution_matrix: mode must be 'full', 'valid' or 'same', got {mode!r}")
    a = _vector_arg(a, "convolution_matrix")
    m = a.shape[-1]
    trim = min(n, m) - 1
    if mode == "full":
        first, rows = 0, m + n - 1
    elif mode == "same":
        first, rows = trim // 2, m + n - 1 - trim
    else:
        first, rows = trim, m + n - 1 - 2 * trim
    k = first + np.arange(rows)[:, None] - np.arange(n)[None, :]
    vals = _with_constants(a, 0)  # zero at m
    return vals[..., np.where((k >= 0) & (k < m), k, m)]


def dft(n, scale=None):
    """Discrete Fourier transform matrix ``W[j, k] = exp(-2 pi i j k / n)``.

    ``scale``: None, ``'sqrtn'`` (divide by ``sqrt(n)``, unitary) or
    ``'n'``.  A complex128 constant; ``ValueError`` for another scale.
    """
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"dft: scale must be None, 'sqrtn' or 'n', got {scale!r}")
    jk = np.outer(np.arange(n), np.arange(n)) % max(n, 1)  # exact angles: reduce j k mod n
    w = np.exp(-2j * np.pi * jk / max(n, 1))
    if scale == "sqrtn":
        w = w / np.sqrt(n)
    elif scale == "n":
        w = w / n
    return w


def hadamard(n, dtype=int):
    """Hadamard matrix of order ``n`` (a power of 2) by Sylvester's doubling.

    ``H_1 = [[1]]``, ``H_2k = [[H_k, H_k], [H_k, -H_k]]``; entries +-1 of
    ``dtype``.  ``ValueError`` unless ``n`` is a positive power of 2.
    """
    if n < 1 or (n & (n - 1)) != 0:
        raise ValueError(f"hadamard: n must be a positive power of 2, got {n}")
    h = np.ones((1, 1), dtype=dtype)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h


def helmert(n, full=False):
    """Helmert matrix of order ``n``: row 0 ``1/sqrt(n)``, row ``k >= 1``
    ``k`` entries ``1/sqrt(k (k+1))`` then ``-k/sqrt(k (k+1))``, then zeros.

    Orthogonal; ``full=False`` drops row 0 (shape ``(n-1, n)``).  float64.
    """
    k = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    h = (np.where(j < k, 1.0, 0.0) - np.where(j == k, k, 0.0)) / np.sqrt(np.maximum(k * (k + 1), 1))
    if n:
        h[0] = 1.0 / np.sqrt(n)
    return h if full else h[1:]


def hilbert(n):
    """Hilbert matrix ``H[i, j] = 1 / (i + j + 1)``, float64 ``(n, n)``."""
    return 1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1.0)


def _int_matrix(n, entry, exact, big):
    """``(n, n)`` from ``entry(i, j)`` (Python ints): int64/uint64 if
    ``exact`` and ``n`` is small enough (``big`` is the dtype), object
    beyond, float64 without ``exact``."""
    vals = [[entry(i, j) for j in range(n)] for i in range(n)]
    if not exact:
        return np.array(vals, dtype=np.float64).reshape(n, n)
    return np.array(vals, dtype=big).reshape(n, n)


def invhilbert(n, exact=False):
    """Inverse of the Hilbert matrix of order ``n``.

    ``(H^-1)[i, j] = (-1)^(i+j) (i+j+1) C(n+i, n-j-1) C(n+j, n-i-1)
    C(i+j, i)^2`` (M.-D. Choi, "Tricks or treats with the Hilbert matrix",
    Amer. Math. Monthly 90, 1983).  ``exact=True``: integers, int64 for
    ``n <= 14`` and Python ints (object) beyond; else float64.
    """
    def entry(i, j):
        s = i + j
        return ((-1) ** s * (s + 1) * math.comb(n + i, n - j - 1) * math.comb(n + j, n - i - 1)
                * math.comb(s, i) ** 2)
    return _int_matrix(n, entry, exact, np.int64 if n <= 14 else object)


_PASCAL_KINDS = ("symmetric", "lower", "upper")


def pascal(n, kind="symmetric", exact=True):
    """Pascal matrix: ``C(i+j, i)`` (symmetric), ``C(i, j)`` (lower), ``C(j, i)`` (upper).

    ``exact=True``: uint64 for ``n <= 34``, Python ints (object) beyond;
    ``exact=False``: float64.  ``ValueError`` for another ``kind``.
    """
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"pascal: kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    entry = {"symmetric": lambda i, j: math.comb(i + j, i), "lower": lambda i, j: math.comb(i, j),
             "upper": lambda i, j: math.comb(j, i)}[kind]
    return _int_matrix(n, entry, exact, np.uint64 if n <= 34 else object)


def invpascal(n, kind="symmetric", exact=True):
    """Inverse of :func:`pascal`.

    The lower factor has ``(L^-1)[i, j] = (-1)^(i-j) C(i, j)``, and the
    symmetric matrix is ``L L^T``, so its inverse is ``L^-T L^-1``:
    ``sum_k (-1)^(i+j) C(k, i) C(k, j)``.  ``exact=True``: int64 for
    ``n <= 34`` (object beyond, for the symmetric kind); else float64.
    """
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"invpascal: kind must be 'symmetric', 'lower' or 'upper', got {kind!r}")
    if kind == "symmetric":
        def entry(i, j):
            return (-1) ** (i + j) * sum(math.comb(k, i) * math.comb(k, j) for k in range(n))
        big = np.int64 if n <= 34 else object
    else:
        def entry(i, j):
            lo, hi = (i, j) if kind == "lower" else (j, i)
            return (-1) ** (lo - hi) * math.comb(lo, hi)
        big = np.int64 if n <= 34 else object
    return _int_matrix(n, entry, exact, big)

"""The multivariate normal distribution (``scipy.stats.multivariate_normal``).

``x`` has the dimension ``d`` last (shape ``(d,)`` or ``(..., d)``), ``mean``
shape ``(d,)`` and ``cov`` shape ``(d, d)``, symmetric positive definite.
Computed through the Cholesky factor ``L`` of ``cov``: ``z = L^-1 (x -
mean)``, ``log det cov = 2 sum log diag L``; every step has derivative
rules, so the log density is differentiable to any order in ``x``,
``mean`` and ``cov``.  With ``allow_singular=True`` a positive
semidefinite ``cov`` is taken through its eigendecomposition, as SciPy
does (the pseudo-inverse and pseudo-determinant over the eigenvalues above
SciPy's cutoff; ``-inf`` off the support).
"""
import math

import numpy as np

from ... import numpy as tnp
from ...numpy import linalg as tla
from ...primitives import ops
from ._common import exp_of, reals

__all__ = ["logpdf", "pdf", "entropy"]

_LOG_2PI = math.log(2.0 * math.pi)


def logpdf(x, mean, cov, allow_singular=False):
    """Log density ``-(z.z + log det cov + d log 2 pi) / 2``, ``z = L^-1 (x - mean)``.

    Parameters
    ----------
    x : array_like or tracer
        Points, shape ``(d,)`` or ``(..., d)``.
    mean : array_like or tracer
        Shape ``(d,)``.
    cov : array_like or tracer
        Shape ``(d, d)``, symmetric positive definite (semidefinite with
        ``allow_singular``).
    allow_singular : bool, optional
        As SciPy's: with True, ``cov = V diag(s) V^T`` keeps the eigenvalues
        ``s > c max|s|`` (``c = 1e6 eps`` for float64, ``1e3 eps`` for
        float32, SciPy's ``_PSD`` rule): ``z.z`` uses the pseudo-inverse,
        ``log det`` the pseudo-determinant, ``d`` the rank, and points
        whose deviation has a component above that cutoff along the null
        space get ``-inf``.  Differentiable in ``x`` and ``mean``; in
        ``cov`` only where its kept eigenvalues are distinct (the
        eigenvectors' derivative).

    Returns
    -------
    array or tracer
        Shape ``x.shape[:-1]`` (a scalar for one point; length-1 axes are
        kept, as ``jax.scipy.stats`` does, where SciPy squeezes them), the
        operands' float dtype; differentiable in all three.

    Raises
    ------
    TypeError
        If an operand is complex.
    ValueError
        If the shapes do not fit together.
    """
    x, mean, cov = reals("multivariate_normal.logpdf", x, mean, cov)
    d = tnp.shape(mean)[-1] if tnp.ndim(mean) else 1
    if tnp.ndim(mean) != 1 or tnp.shape(cov) != (d, d) or tnp.shape(x)[-1:] != (d,):
        raise ValueError(f"multivariate_normal.logpdf needs mean (d,), cov (d, d) and x "
                         f"(..., d), got {tnp.shape(mean)}, {tnp.shape(cov)}, {tnp.shape(x)}")
    diff = ops.sub(x, mean)
    n = math.prod(tnp.shape(diff)[:-1])
    rows = ops.reshape(diff, (n, d))
    if allow_singular:
        return ops.reshape(_logpdf_psd(rows, cov, d), tnp.shape(x)[:-1])
    chol = tla.cholesky(cov)
    z = ops.triangular_solve(chol, tnp.transpose(rows), lower=True)  # L^-1 (x - mean)^T, (d, n)
    maha = tnp.sum(ops.square(z), axis=0)
    log_det = ops.mul(2.0, tnp.sum(ops.log(tnp.diagonal(chol))))
    out = ops.mul(-0.5, ops.add(maha, ops.add(log_det, d * _LOG_2PI)))
    return ops.reshape(out, tnp.shape(x)[:-1])


def _logpdf_psd(rows, cov, d):
    """``logpdf`` of the deviations ``rows`` (n, d) for a semidefinite ``cov``."""
    s, v = tla.eigh(cov)
    dtype = np.dtype(tnp.result_type(s))
    cutoff = (1e3 if dtype == np.float32 else 1e6) * np.finfo(dtype).eps
    eps = ops.mul(cutoff, tnp.max(tnp.abs(s)))
    keep = ops.gt(s, eps)
    s_kept = ops.select(keep, s, ops.ones_like(s))
    inv_s = ops.select(keep, ops.div(1.0, s_kept), ops.zeros_like(s))
    log_pdet = tnp.sum(ops.select(keep, ops.log(s_kept), ops.zeros_like(s)))
    rank = tnp.sum(ops.convert_element_type(keep, tnp.result_type(s)))
    proj = tnp.matmul(rows, v)  # (n, d): the deviations in the eigenbasis
    maha = tnp.sum(ops.mul(ops.square(proj), inv_s), axis=-1)
    # squared length of the deviation along the null space (squared, so no sqrt at 0 is differentiated)
    off2 = tnp.sum(ops.select(keep, ops.zeros_like(proj), ops.square(proj)), axis=-1)
    out = ops.mul(-0.5, ops.add(maha, ops.add(log_pdet, ops.mul(rank, _LOG_2PI))))
    return tnp.where(ops.lt(off2, ops.square(eps)), out, -tnp.inf)


pdf = exp_of(logpdf, "pdf")


def entropy(mean=None, cov=1):
    """Differential entropy ``(d (1 + log 2 pi) + log det cov) / 2`` (nats).

    Parameters
    ----------
    mean : array_like or tracer, optional
        Shape ``(d,)``; the entropy does not depend on it (it fixes ``d``
        when ``cov`` is a scalar).
    cov : array_like or tracer
        Shape ``(d, d)``, symmetric positive definite, or a scalar (the
        covariance ``cov * I``, as SciPy).

    Returns
    -------
    array or tracer
        A scalar of ``cov``'s float dtype, differentiable in ``cov``
        (through its Cholesky factor: ``log det cov = 2 sum log diag L``).

    Raises
    ------
    TypeError
        If an operand is complex.
    ValueError
        If ``cov`` is not square or does not fit ``mean``.
    """
    d = 1 if mean is None else (tnp.shape(mean)[-1] if tnp.ndim(mean) else 1)
    (cov,) = reals("multivariate_normal.entropy", cov)
    if tnp.ndim(cov) == 0:
        log_det = ops.mul(float(d), ops.log(cov))
    else:
        if tnp.ndim(cov) != 2 or tnp.shape(cov)[0] != tnp.shape(cov)[1] or (
                mean is not None and tnp.shape(cov)[0] != d):
            raise ValueError(f"multivariate_normal.entropy needs cov (d, d) fitting mean (d,), "
                             f"got {tnp.shape(cov)} and {tnp.shape(mean)}")
        d = tnp.shape(cov)[0]
        log_det = ops.mul(2.0, tnp.sum(ops.log(tnp.diagonal(tla.cholesky(cov)))))
    return ops.mul(0.5, ops.add(log_det, d * (1.0 + _LOG_2PI)))

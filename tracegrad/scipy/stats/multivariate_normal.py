"""The multivariate normal distribution (``scipy.stats.multivariate_normal``).

``x`` has the dimension ``d`` last (shape ``(d,)`` or ``(..., d)``), ``mean``
shape ``(d,)`` and ``cov`` shape ``(d, d)``, symmetric positive definite
(no ``allow_singular``).  Computed through the Cholesky factor ``L`` of
``cov``: ``z = L^-1 (x - mean)``, ``log det cov = 2 sum log diag L``; every
step has derivative rules, so the log density is differentiable to any
order in ``x``, ``mean`` and ``cov``.
"""
import math

from ... import numpy as tnp
from ...numpy import linalg as tla
from ...primitives import ops
from ._common import exp_of, reals

__all__ = ["logpdf", "pdf", "entropy"]

_LOG_2PI = math.log(2.0 * math.pi)


def logpdf(x, mean, cov):
    """Log density ``-(z.z + log det cov + d log 2 pi) / 2``, ``z = L^-1 (x - mean)``.

    Parameters
    ----------
    x : array_like or tracer
        Points, shape ``(d,)`` or ``(..., d)``.
    mean : array_like or tracer
        Shape ``(d,)``.
    cov : array_like or tracer
        Shape ``(d, d)``, symmetric positive definite.

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
    chol = tla.cholesky(cov)
    diff = ops.sub(x, mean)
    n = math.prod(tnp.shape(diff)[:-1])
    rows = ops.reshape(diff, (n, d))
    z = ops.triangular_solve(chol, tnp.transpose(rows), lower=True)  # L^-1 (x - mean)^T, (d, n)
    maha = tnp.sum(ops.square(z), axis=0)
    log_det = ops.mul(2.0, tnp.sum(ops.log(tnp.diagonal(chol))))
    out = ops.mul(-0.5, ops.add(maha, ops.add(log_det, d * _LOG_2PI)))
    return ops.reshape(out, tnp.shape(x)[:-1])


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

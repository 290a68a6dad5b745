"""The Dirichlet distribution (``scipy.stats.dirichlet``) of concentration
``alpha`` (length ``K``) on the simplex.

As SciPy, ``x`` holds the ``K`` components along its *first* axis: shape
``(K,)`` for one point, ``(K, ...)`` for several (the result then has the
trailing shape), or ``K - 1`` of them (the last is then ``1 - sum``).  A
point off the simplex (a component outside ``[0, 1]``, or components
summing to 1 by more than 1e-6 off, ``jax.scipy.stats``' tolerance) has
log density ``-inf`` (SciPy raises ``ValueError``).
"""
from ... import numpy as tnp
from ...primitives import ops
from .. import special
from ._common import exp_of, outside, reals

__all__ = ["logpdf", "pdf"]


def logpdf(x, alpha):
    """Log density ``sum_i (alpha_i - 1) log x_i + gammaln(sum alpha) - sum gammaln(alpha)``.

    Parameters
    ----------
    x : array_like or tracer
        Points of the simplex, shape ``(K,)`` or ``(K, ...)``, or ``(K - 1,
        ...)`` (the last component implied).
    alpha : array_like or tracer
        Concentrations, positive, shape ``(K,)``.

    Returns
    -------
    array or tracer
        Shape ``x.shape[1:]``, the operands' float dtype; differentiable in
        ``x`` and ``alpha``; ``-inf`` off the simplex.

    Raises
    ------
    TypeError
        If an operand is complex.
    ValueError
        If ``alpha`` is not 1-D or ``x``'s first axis is not ``len(alpha)``
        or ``len(alpha) - 1``.
    """
    x, alpha = reals("dirichlet.logpdf", x, alpha)
    k = tnp.shape(alpha)[0] if tnp.ndim(alpha) == 1 else None
    if k is None or tnp.ndim(x) < 1 or tnp.shape(x)[0] not in (k, k - 1):
        raise ValueError(f"dirichlet.logpdf needs alpha of shape (K,) and x of shape (K, ...) "
                         f"or (K - 1, ...), got {tnp.shape(alpha)} and {tnp.shape(x)}")
    if tnp.shape(x)[0] == k - 1:
        x = tnp.concatenate([x, ops.sub(1.0, tnp.sum(x, axis=0, keepdims=True))], axis=0)
    a = ops.reshape(alpha, tnp.shape(alpha) + (1,) * (tnp.ndim(x) - 1))
    bad = ops.logical_or(ops.lt(x, 0.0), ops.gt(x, 1.0))
    off = ops.gt(ops.abs(ops.sub(tnp.sum(x, axis=0), 1.0)), 1e-6)
    xs = ops.select(bad, ops.mul(0.5, ops.ones_like(x)), x)
    terms = special.xlogy(ops.sub(a, 1.0), xs)
    norm = ops.sub(special.gammaln(tnp.sum(alpha)), tnp.sum(special.gammaln(alpha)))
    value = ops.add(tnp.sum(terms, axis=0), norm)
    return outside(ops.logical_or(tnp.any(bad, axis=0), off), value, -float("inf"))


pdf = exp_of(logpdf, "pdf")

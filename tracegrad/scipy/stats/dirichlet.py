"""The Dirichlet distribution (``scipy.stats.dirichlet``) of concentration
``alpha`` (length ``K``) on the simplex.

As SciPy, ``x`` holds the ``K`` components along its *first* axis: shape
``(K,)`` for one point, ``(K, ...)`` for several (the result then has the
trailing shape).  ``x`` is not checked to sum to 1 (``jax.scipy.stats``
does not check either); a component outside ``[0, 1]`` gives ``-inf``.
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
        Points of the simplex, shape ``(K,)`` or ``(K, ...)``.
    alpha : array_like or tracer
        Concentrations, positive, shape ``(K,)``.

    Returns
    -------
    array or tracer
        Shape ``x.shape[1:]``, the operands' float dtype; differentiable in
        ``x`` and ``alpha``.

    Raises
    ------
    TypeError
        If an operand is complex.
    ValueError
        If ``alpha`` is not 1-D or ``x``'s first axis is not ``len(alpha)``.
    """
    x, alpha = reals("dirichlet.logpdf", x, alpha)
    if tnp.ndim(alpha) != 1 or tnp.ndim(x) < 1 or tnp.shape(x)[0] != tnp.shape(alpha)[0]:
        raise ValueError(f"dirichlet.logpdf needs alpha of shape (K,) and x of shape (K, ...), "
                         f"got {tnp.shape(alpha)} and {tnp.shape(x)}")
    a = ops.reshape(alpha, tnp.shape(alpha) + (1,) * (tnp.ndim(x) - 1))
    bad = ops.logical_or(ops.lt(x, 0.0), ops.gt(x, 1.0))
    xs = ops.select(bad, ops.mul(0.5, ops.ones_like(x)), x)
    terms = special.xlogy(ops.sub(a, 1.0), xs)
    norm = ops.sub(special.gammaln(tnp.sum(alpha)), tnp.sum(special.gammaln(alpha)))
    value = ops.add(tnp.sum(terms, axis=0), norm)
    return outside(tnp.any(bad, axis=0), value, -float("inf"))


pdf = exp_of(logpdf, "pdf")

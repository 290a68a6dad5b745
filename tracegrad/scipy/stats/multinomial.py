"""The multinomial distribution (``scipy.stats.multinomial``): counts ``x``
(the categories along the last axis) of ``n`` draws with probabilities ``p``.

``p`` is used as given (as ``jax.scipy.stats.multinomial`` does; SciPy
replaces its last entry by ``1 - sum(p[:-1])``), so derivatives in ``p`` treat
every component as free.
"""
from ... import numpy as tnp
from .. import special
from ...primitives import ops
from ._common import exp_of, outside, reals


__all__ = ["logpmf", "pmf"]


def logpmf(x, n, p):
    """``gammaln(n + 1) + sum(xlogy(x, p) - gammaln(x + 1))``, ``-inf`` where ``x`` is not
    a vector of non-negative integers summing to ``n``.

    Parameters
    ----------
    x : array_like or tracer
        Counts, shape ``(..., K)``.
    n : array_like or tracer
        Number of draws, a non-negative integer (NaN otherwise, as SciPy); broadcasts
        against ``x.shape[:-1]``.
    p : array_like or tracer
        Probabilities, shape ``(..., K)``, in ``[0, 1]`` (NaN otherwise).

    Returns
    -------
    array or tracer
        Shape ``broadcast(x.shape[:-1], n.shape, p.shape[:-1])``, the operands' float
        dtype; differentiable in ``p`` (and in ``n`` and ``x`` as reals).

    Raises
    ------
    TypeError
        If an operand is complex.
    ValueError
        If ``x`` or ``p`` is 0-d or their last axes differ.
    """
    x, n, p = reals("multinomial.logpmf", x, n, p)
    if tnp.ndim(x) < 1 or tnp.ndim(p) < 1 or tnp.shape(x)[-1] != tnp.shape(p)[-1]:
        raise ValueError(f"multinomial.logpmf needs x and p of shape (..., K), got "
                         f"{tnp.shape(x)} and {tnp.shape(p)}")
    bad_x = ops.logical_or(ops.lt(x, 0.0), ops.ne(x, ops.floor(x)))
    xs = ops.select(bad_x, ops.zeros_like(x), x)
    total = tnp.sum(xs, axis=-1)
    off = ops.logical_or(tnp.any(bad_x, axis=-1), ops.ne(total, n))
    terms = ops.sub(special.xlogy(xs, p), special.gammaln(ops.add(xs, 1.0)))
    value = ops.add(special.gammaln(ops.add(n, 1.0)), tnp.sum(terms, axis=-1))
    value = outside(off, value, -float("inf"))
    bad_n = ops.logical_or(ops.lt(n, 0.0), ops.ne(n, ops.floor(n)))
    bad_p = tnp.any(ops.logical_or(ops.lt(p, 0.0), ops.gt(p, 1.0)), axis=-1)
    return tnp.where(ops.logical_or(bad_n, bad_p), float("nan"), value)


pmf = exp_of(logpmf, "pmf")

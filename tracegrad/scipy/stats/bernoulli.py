"""The Bernoulli distribution (``scipy.stats.bernoulli``): ``P(1) = p``, ``P(0) = 1 - p``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


@documented("k", "p", "loc")
def logpmf(k, p, loc=0.0):
    """``xlogy(k, p) + xlog1py(1 - k, -p)`` (``k`` shifted by ``loc``),
    ``-inf`` for ``k`` other than 0 and 1."""
    k, p, loc = reals("bernoulli.logpmf", k, p, loc)
    k = ops.sub(k, loc)
    off = ops.logical_and(ops.ne(k, 0.0), ops.ne(k, 1.0))
    ks = ops.select(off, ops.zeros_like(k), k)
    value = ops.add(special.xlogy(ks, p), special.xlog1py(ops.sub(1.0, ks), ops.neg(p)))
    return outside(off, value, -float("inf"))


pmf = exp_of(logpmf, "pmf")


@documented("k", "p", "loc")
def cdf(k, p, loc=0.0):
    """``P(K <= k)``: 0 below ``loc``, ``1 - p`` on ``[loc, loc + 1)``, 1 from ``loc + 1``
    (piecewise constant in ``k``; derivative ``-1`` in ``p`` on the middle step)."""
    k, p, loc = reals("bernoulli.cdf", k, p, loc)
    k = ops.sub(k, loc)
    value = ops.select(ops.ge(k, 1.0), ops.ones_like(ops.add(k, p)),
                       ops.add(ops.zeros_like(k), ops.sub(1.0, p)))
    value = outside(ops.lt(k, 0.0), value, 0.0)
    return outside(ops.isnan(k), value, float("nan"))


@documented("q", "p", "loc")
def ppf(q, p, loc=0.0):
    """The smallest ``k`` with ``cdf(k) >= q``: ``loc - 1`` at ``q = 0`` (as SciPy; JAX gives
    ``loc``), ``loc`` for ``0 < q <= 1 - p``, ``loc + 1`` above; NaN for ``q`` outside
    ``[0, 1]``.  Piecewise constant: zero derivative in ``q`` and ``p``, one in ``loc``."""
    q, p, loc = reals("bernoulli.ppf", q, p, loc)
    step = ops.select(ops.gt(q, ops.sub(1.0, p)), ops.ones_like(ops.add(q, p)),
                      ops.zeros_like(ops.add(q, p)))
    step = outside(ops.eq(q, 0.0), step, -1.0)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    return outside(bad, ops.add(loc, step), float("nan"))

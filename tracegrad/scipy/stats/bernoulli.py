"""The Bernoulli distribution (``scipy.stats.bernoulli``): ``P(1) = p``, ``P(0) = 1 - p``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpmf", "pmf"]


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

"""The Poisson distribution (``scipy.stats.poisson``) of mean ``mu``:
``P(k) = mu**k exp(-mu) / k!`` for integers ``k - loc >= 0``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpmf", "pmf"]


@documented("k", "mu", "loc")
def logpmf(k, mu, loc=0.0):
    """``xlogy(k, mu) - mu - gammaln(k + 1)`` (``k`` shifted by ``loc``),
    ``-inf`` off the non-negative integers."""
    k, mu, loc = reals("poisson.logpmf", k, mu, loc)
    k = ops.sub(k, loc)
    off = ops.logical_or(ops.lt(k, 0.0), ops.ne(k, ops.floor(k)))
    ks = ops.select(off, ops.zeros_like(k), k)
    value = ops.sub(ops.sub(special.xlogy(ks, mu), mu), special.gammaln(ops.add(ks, 1.0)))
    return outside(off, value, -float("inf"))


pmf = exp_of(logpmf, "pmf")

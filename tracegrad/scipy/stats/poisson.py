"""The Poisson distribution (``scipy.stats.poisson``) of mean ``mu``:
``P(k) = mu**k exp(-mu) / k!`` for integers ``k - loc >= 0``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpmf", "pmf", "cdf"]


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


@documented("k", "mu", "loc")
def cdf(k, mu, loc=0.0):
    """The CDF ``P(K <= k) = gammaincc(floor(k - loc) + 1, mu)``, 0 for ``k -
    loc < 0`` (SciPy's ``pdtr``).  Differentiable in ``mu`` (``-mu**j exp(-mu)
    / j!``, ``j = floor(k - loc)``); the derivative in ``k`` and ``loc`` is 0
    (a step function), as in JAX."""
    k, mu, loc = reals("poisson.cdf", k, mu, loc)
    j = ops.stop_gradient(ops.floor(ops.sub(k, loc)))
    below = ops.lt(j, 0.0)
    shape = ops.add(ops.select(below, ops.zeros_like(j), j), 1.0)
    return outside(below, special.gammaincc(shape, ops.add(mu, ops.zeros_like(shape))), 0.0)

"""The exponential distribution (``scipy.stats.expon``): density
``exp(-z) / scale`` for ``z = (x - loc) / scale >= 0``, else 0."""
import math

from ...primitives import ops
from ._common import documented, exp_of, outside, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """``-z - log(scale)`` for ``z = (x - loc) / scale >= 0``, ``-inf`` below."""
    z, scale = standardize(x, loc, scale, "expon.logpdf")
    return outside(ops.lt(z, 0.0), ops.neg(ops.add(z, ops.log(scale))), -float("inf"))


pdf = exp_of(logpdf, "pdf")


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """``1 - exp(-z)`` (as ``-expm1(-z)``), 0 below ``loc``."""
    z, _ = standardize(x, loc, scale, "expon.cdf")
    zs = ops.maximum(z, 0.0)
    return ops.neg(ops.expm1(ops.neg(zs)))


_LOG2 = math.log(2.0)


@documented("x", "loc", "scale")
def logcdf(x, loc=0.0, scale=1.0):
    """``log(1 - exp(-z))``: ``log(-expm1(-z))`` for ``z <= log 2``, ``log1p(-exp(-z))``
    above (Maechler's ``log1mexp``: each form where it keeps relative accuracy),
    ``-inf`` at and below ``loc``."""
    z, _ = standardize(x, loc, scale, "expon.logcdf")
    z = ops.maximum(z, 0.0)
    small = ops.le(z, _LOG2)
    zs = ops.select(small, z, _LOG2)
    zl = ops.select(small, _LOG2, z)
    return ops.select(small, ops.log(ops.neg(ops.expm1(ops.neg(zs)))),
                      ops.log1p(ops.neg(ops.exp(ops.neg(zl)))))


@documented("x", "loc", "scale")
def sf(x, loc=0.0, scale=1.0):
    """``exp(-z)``, 1 below ``loc``."""
    return ops.exp(logsf(x, loc, scale))


@documented("x", "loc", "scale")
def logsf(x, loc=0.0, scale=1.0):
    """``-z``, 0 below ``loc``."""
    z, _ = standardize(x, loc, scale, "expon.logsf")
    return ops.neg(ops.maximum(z, 0.0))


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """``loc - scale * log1p(-q)``."""
    q, loc, scale = reals("expon.ppf", q, loc, scale)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    return outside(bad, ops.sub(loc, ops.mul(scale, ops.log1p(ops.neg(q)))), float("nan"))


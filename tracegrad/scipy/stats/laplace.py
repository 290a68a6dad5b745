"""The Laplace distribution (``scipy.stats.laplace``): density
``exp(-|z|) / (2 scale)``, ``z = (x - loc) / scale``."""
import math

from ...primitives import ops
from ._common import documented, exp_of, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf"]

_LOG2 = math.log(2.0)


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """``-|z| - log(2 scale)``."""
    z, scale = standardize(x, loc, scale, "laplace.logpdf")
    return ops.neg(ops.add(ops.abs(z), ops.add(ops.log(scale), _LOG2)))


pdf = exp_of(logpdf, "pdf")


def _lower(z):
    """``exp(-|z|) / 2``: the smaller of the CDF and the survival function."""
    return ops.mul(0.5, ops.exp(ops.neg(ops.abs(z))))


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """``exp(z) / 2`` below ``loc``, ``1 - exp(-z) / 2`` above."""
    z, _ = standardize(x, loc, scale, "laplace.cdf")
    t = _lower(z)
    return ops.select(ops.lt(z, 0.0), t, ops.sub(1.0, t))


@documented("x", "loc", "scale")
def sf(x, loc=0.0, scale=1.0):
    """``cdf(-x)`` about ``loc``: ``exp(-z) / 2`` above ``loc``."""
    z, _ = standardize(x, loc, scale, "laplace.sf")
    t = _lower(z)
    return ops.select(ops.gt(z, 0.0), t, ops.sub(1.0, t))

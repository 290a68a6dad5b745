"""The Cauchy distribution (``scipy.stats.cauchy``): density
``1 / (pi scale (1 + z**2))``, ``z = (x - loc) / scale``."""
import math

from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

_LOG_PI = math.log(math.pi)
_INV_PI = 1.0 / math.pi


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """``-log(pi) - log(scale) - log1p(z**2)``."""
    z, scale = standardize(x, loc, scale, "cauchy.logpdf")
    return ops.neg(ops.add(ops.add(ops.log(scale), _LOG_PI), ops.log1p(ops.square(z))))


pdf = exp_of(logpdf, "pdf")


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """``1/2 + arctan(z) / pi``."""
    z, _ = standardize(x, loc, scale, "cauchy.cdf")
    return ops.add(0.5, ops.mul(_INV_PI, ops.arctan(z)))


@documented("x", "loc", "scale")
def sf(x, loc=0.0, scale=1.0):
    """``1/2 - arctan(z) / pi``."""
    z, _ = standardize(x, loc, scale, "cauchy.sf")
    return ops.sub(0.5, ops.mul(_INV_PI, ops.arctan(z)))


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """``loc + scale * tan(pi (q - 1/2))``."""
    q, loc, scale = reals("cauchy.ppf", q, loc, scale)
    return ops.add(loc, ops.mul(scale, ops.tan(ops.mul(math.pi, ops.sub(q, 0.5)))))


def _log_tails(z):
    """``(log P(Z <= z), log P(Z > z))`` of the standard Cauchy: the smaller tail
    ``arctan2(1, |z|) / pi`` (one angle, no cancellation where ``1/2 + arctan(z) / pi``
    cancels) through ``log``, the larger through ``log1p(-smaller)``."""
    small = ops.mul(_INV_PI, ops.arctan2(ops.ones_like(z), ops.abs(z)))
    log_small, log_big = ops.log(small), ops.log1p(ops.neg(small))
    below = ops.lt(z, 0.0)
    return ops.select(below, log_small, log_big), ops.select(below, log_big, log_small)


@documented("x", "loc", "scale")
def logcdf(x, loc=0.0, scale=1.0):
    """Log of the CDF, accurate in both tails (see ``_log_tails``)."""
    return _log_tails(standardize(x, loc, scale, "cauchy.logcdf")[0])[0]


@documented("x", "loc", "scale")
def logsf(x, loc=0.0, scale=1.0):
    """Log of the survival function, accurate in both tails."""
    return _log_tails(standardize(x, loc, scale, "cauchy.logsf")[0])[1]


@documented("q", "loc", "scale")
def isf(q, loc=0.0, scale=1.0):
    """``loc + scale * tan(pi (1/2 - q))``."""
    q, loc, scale = reals("cauchy.isf", q, loc, scale)
    return ops.add(loc, ops.mul(scale, ops.tan(ops.mul(math.pi, ops.sub(0.5, q)))))

"""The Cauchy distribution (``scipy.stats.cauchy``): density
``1 / (pi scale (1 + z**2))``, ``z = (x - loc) / scale``."""
import math

from ...primitives import ops
from ._common import documented, exp_of, outside, reals, standardize

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


def _quantile(q):
    """The standard quantile ``tan(pi (q - 1/2))`` as ``-cot(pi m)`` below 1/2 and
    ``cot(pi m)`` above, ``m = min(q, 1 - q)``; ``cot(pi m)`` is ``1 / tan(pi m)`` for
    ``m < 1/4`` and ``tan(pi (1/2 - m))`` from 1/4 (``1/2 - m`` exact there).  The
    argument of ``tan`` stays within ``pi/4`` of 0, where ``tan`` is exact to a few
    ulp; ``tan(pi (q - 1/2))`` near ``q = 0`` turns the rounding of its argument into
    a relative error of about ``1 / (pi q)`` ulp."""
    low = ops.lt(q, 0.5)
    m = ops.select(low, q, ops.sub(1.0, q))
    small = ops.lt(m, 0.25)
    ms = ops.select(small, m, ops.add(ops.zeros_like(m), 0.25))
    mb = ops.select(small, ops.add(ops.zeros_like(m), 0.25), m)
    cot = ops.select(small, ops.reciprocal(ops.tan(ops.mul(math.pi, ms))),
                     ops.tan(ops.mul(math.pi, ops.sub(0.5, mb))))
    return ops.select(low, ops.neg(cot), cot)


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """``loc + scale * tan(pi (q - 1/2))`` (see ``_quantile``)."""
    q, loc, scale = reals("cauchy.ppf", q, loc, scale)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    return outside(bad, ops.add(loc, ops.mul(scale, _quantile(q))), float("nan"))


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
    """``loc + scale * tan(pi (1/2 - q))``, ``ppf(1 - q)`` without rounding ``1 - q``."""
    q, loc, scale = reals("cauchy.isf", q, loc, scale)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    return outside(bad, ops.sub(loc, ops.mul(scale, _quantile(q))), float("nan"))

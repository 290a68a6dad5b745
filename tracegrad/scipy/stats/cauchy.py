"""The Cauchy distribution (``scipy.stats.cauchy``): density
``1 / (pi scale (1 + z**2))``, ``z = (x - loc) / scale``."""
import math

from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf"]

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

"""The normal distribution ``N(loc, scale**2)`` (``scipy.stats.norm``'s functions).

Every function broadcasts ``x`` (or ``q``), ``loc`` and ``scale`` together,
keeps float32 float32, and is differentiable to any order in all three.
The CDF family goes through :func:`tracegrad.scipy.special.ndtr`,
``log_ndtr`` and ``ndtri`` of the standardized value, so the log-CDF and
log-survival functions stay accurate far in the tails.  ``scale`` must be
positive (no check: a non-positive scale gives NaN or a meaningless value,
as in ``jax.scipy.stats``).

>>> import tracegrad as tg
>>> from tracegrad.scipy.stats import norm
>>> float(tg.grad(norm.logpdf, argnums=1)(2.0, 0.5, 1.5))  # (x - loc) / scale**2
0.6666666666666666
"""
import math

from .. import special
from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """Log of the normal density, ``-z**2/2 - log(scale) - log(2 pi)/2``, ``z = (x - loc) / scale``."""
    z, scale = standardize(x, loc, scale, "norm.logpdf")
    return ops.sub(ops.mul(-0.5, ops.square(z)), ops.add(ops.log(scale), _HALF_LOG_2PI))


pdf = exp_of(logpdf, "pdf")


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """The normal CDF ``ndtr((x - loc) / scale)``."""
    return special.ndtr(standardize(x, loc, scale, "norm.cdf")[0])


@documented("x", "loc", "scale")
def logcdf(x, loc=0.0, scale=1.0):
    """Log of the normal CDF, ``log_ndtr((x - loc) / scale)`` (accurate in both tails)."""
    return special.log_ndtr(standardize(x, loc, scale, "norm.logcdf")[0])


@documented("x", "loc", "scale")
def sf(x, loc=0.0, scale=1.0):
    """The survival function ``1 - cdf``, as ``ndtr(-(x - loc) / scale)`` (accurate in the upper tail)."""
    return special.ndtr(ops.neg(standardize(x, loc, scale, "norm.sf")[0]))


@documented("x", "loc", "scale")
def logsf(x, loc=0.0, scale=1.0):
    """Log of the survival function, ``log_ndtr(-(x - loc) / scale)``."""
    return special.log_ndtr(ops.neg(standardize(x, loc, scale, "norm.logsf")[0]))


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """The quantile function ``loc + scale * ndtri(q)`` (``-inf`` at 0, ``inf`` at 1)."""
    q, loc, scale = reals("norm.ppf", q, loc, scale)
    return ops.add(loc, ops.mul(scale, special.ndtri(q)))


@documented("q", "loc", "scale")
def isf(q, loc=0.0, scale=1.0):
    """The inverse survival function ``loc - scale * ndtri(q)``."""
    q, loc, scale = reals("norm.isf", q, loc, scale)
    return ops.sub(loc, ops.mul(scale, special.ndtri(q)))

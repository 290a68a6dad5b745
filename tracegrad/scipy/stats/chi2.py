"""The chi-squared distribution (``scipy.stats.chi2``) with ``df`` degrees of
freedom: the gamma distribution of shape ``df / 2`` and scale ``2 scale``."""
from ...primitives import ops
from . import gamma
from ._common import documented, exp_of, reals

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]


@documented("x", "df", "loc", "scale")
def logpdf(x, df, loc=0.0, scale=1.0):
    """``gamma.logpdf(x, df / 2, loc, 2 scale)``."""
    x, df, loc, scale = reals("chi2.logpdf", x, df, loc, scale)
    return gamma.logpdf(x, ops.mul(0.5, df), loc, ops.mul(2.0, scale))


pdf = exp_of(logpdf, "pdf")


@documented("x", "df", "loc", "scale")
def cdf(x, df, loc=0.0, scale=1.0):
    """``gamma.cdf(x, df / 2, loc, 2 scale)`` (not differentiable in ``df``)."""
    x, df, loc, scale = reals("chi2.cdf", x, df, loc, scale)
    return gamma.cdf(x, ops.mul(0.5, df), loc, ops.mul(2.0, scale))


@documented("x", "df", "loc", "scale")
def sf(x, df, loc=0.0, scale=1.0):
    """``gamma.sf(x, df / 2, loc, 2 scale)`` (not differentiable in ``df``)."""
    x, df, loc, scale = reals("chi2.sf", x, df, loc, scale)
    return gamma.sf(x, ops.mul(0.5, df), loc, ops.mul(2.0, scale))


@documented("x", "df", "loc", "scale")
def logcdf(x, df, loc=0.0, scale=1.0):
    """``gamma.logcdf(x, df / 2, loc, 2 scale)`` (not differentiable in ``df``)."""
    x, df, loc, scale = reals("chi2.logcdf", x, df, loc, scale)
    return gamma.logcdf(x, ops.mul(0.5, df), loc, ops.mul(2.0, scale))


@documented("x", "df", "loc", "scale")
def logsf(x, df, loc=0.0, scale=1.0):
    """``gamma.logsf(x, df / 2, loc, 2 scale)`` (not differentiable in ``df``)."""
    x, df, loc, scale = reals("chi2.logsf", x, df, loc, scale)
    return gamma.logsf(x, ops.mul(0.5, df), loc, ops.mul(2.0, scale))

"""The left-skewed Gumbel distribution (``scipy.stats.gumbel_l``): survival
function ``exp(-exp(z))``, ``z = (x - loc) / scale`` (the law of a minimum;
``gumbel_r`` mirrored about ``loc``)."""
from ...primitives import ops
from ._common import documented, exp_of, log1mexp, outside, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """``z - exp(z) - log scale``."""
    z, scale = standardize(x, loc, scale, "gumbel_l.logpdf")
    return ops.sub(ops.sub(z, ops.exp(z)), ops.log(scale))


pdf = exp_of(logpdf, "pdf")


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """``1 - exp(-exp(z))``, as ``-expm1(-exp(z))`` (accurate in the lower tail)."""
    z, _ = standardize(x, loc, scale, "gumbel_l.cdf")
    return ops.neg(ops.expm1(ops.neg(ops.exp(z))))


@documented("x", "loc", "scale")
def logcdf(x, loc=0.0, scale=1.0):
    """``log(1 - exp(-exp(z)))`` (Maechler's ``log1mexp`` of ``exp(z)``)."""
    z, _ = standardize(x, loc, scale, "gumbel_l.logcdf")
    return log1mexp(ops.exp(z))


@documented("x", "loc", "scale")
def sf(x, loc=0.0, scale=1.0):
    """``exp(-exp(z))``."""
    return ops.exp(logsf(x, loc, scale))


@documented("x", "loc", "scale")
def logsf(x, loc=0.0, scale=1.0):
    """``-exp(z)``."""
    z, _ = standardize(x, loc, scale, "gumbel_l.logsf")
    return ops.neg(ops.exp(z))


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """``loc + scale * log(-log1p(-q))``, NaN for ``q`` outside ``[0, 1]``."""
    q, loc, scale = reals("gumbel_l.ppf", q, loc, scale)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    value = ops.add(loc, ops.mul(scale, ops.log(ops.neg(ops.log1p(ops.neg(q))))))
    return outside(bad, value, float("nan"))

"""The logistic distribution (``scipy.stats.logistic``): CDF ``expit(z)``,
``z = (x - loc) / scale``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """``-|z| - 2 log1p(exp(-|z|)) - log(scale)`` (the density is even in ``z``)."""
    z, scale = standardize(x, loc, scale, "logistic.logpdf")
    a = ops.abs(z)
    return ops.sub(ops.neg(ops.add(a, ops.mul(2.0, ops.log1p(ops.exp(ops.neg(a)))))),
                   ops.log(scale))


pdf = exp_of(logpdf, "pdf")


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """``expit(z)``."""
    return special.expit(standardize(x, loc, scale, "logistic.cdf")[0])


@documented("x", "loc", "scale")
def sf(x, loc=0.0, scale=1.0):
    """``expit(-z)``."""
    return special.expit(ops.neg(standardize(x, loc, scale, "logistic.sf")[0]))


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """``loc + scale * logit(q)``."""
    q, loc, scale = reals("logistic.ppf", q, loc, scale)
    return ops.add(loc, ops.mul(scale, special.logit(q)))


@documented("q", "loc", "scale")
def isf(q, loc=0.0, scale=1.0):
    """``loc - scale * logit(q)``."""
    q, loc, scale = reals("logistic.isf", q, loc, scale)
    return ops.sub(loc, ops.mul(scale, special.logit(q)))

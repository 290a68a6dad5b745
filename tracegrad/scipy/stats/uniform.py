"""The uniform distribution on ``[loc, loc + scale]`` (``scipy.stats.uniform``)."""
from ...primitives import ops
from ._common import documented, exp_of, outside, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


@documented("x", "loc", "scale")
def logpdf(x, loc=0.0, scale=1.0):
    """``-log(scale)`` on ``[loc, loc + scale]``, ``-inf`` outside."""
    z, scale = standardize(x, loc, scale, "uniform.logpdf")
    out = ops.logical_or(ops.lt(z, 0.0), ops.gt(z, 1.0))
    return outside(out, ops.add(ops.mul(z, 0.0), ops.neg(ops.log(scale))), -float("inf"))


pdf = exp_of(logpdf, "pdf")


@documented("x", "loc", "scale")
def cdf(x, loc=0.0, scale=1.0):
    """``(x - loc) / scale`` clipped to ``[0, 1]``."""
    z, _ = standardize(x, loc, scale, "uniform.cdf")
    return ops.minimum(ops.maximum(z, 0.0), 1.0)


@documented("q", "loc", "scale")
def ppf(q, loc=0.0, scale=1.0):
    """``loc + q * scale``, NaN for ``q`` outside ``[0, 1]``."""
    q, loc, scale = reals("uniform.ppf", q, loc, scale)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    return outside(bad, ops.add(loc, ops.mul(q, scale)), float("nan"))

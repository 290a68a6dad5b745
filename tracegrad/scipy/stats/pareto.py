"""The Pareto distribution (``scipy.stats.pareto``) of shape ``b``: density
``b / z**(b + 1) / scale`` for ``z = (x - loc) / scale >= 1``, else 0.

Everything is written through ``t = b log z`` (the log survival function is
``-t``), so the CDF family keeps its relative accuracy in both tails.
"""
from ...primitives import ops
from ._common import documented, exp_of, log1mexp, outside, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_B = ("b", "Shape parameter, positive.", lambda v: ops.gt(v, 0.0))


def _log_tail(x, b, loc, scale, name):
    """``(b log z, z < 1)``, ``z`` clipped to ``[1, inf)`` (so the tail is 0 below)."""
    x, b, loc, scale = reals(name, x, b, loc, scale)
    z, _ = standardize(x, loc, scale, name)
    below = ops.lt(z, 1.0)
    zs = ops.select(below, ops.ones_like(z), z)
    return ops.mul(b, ops.log(zs)), below


@documented("x", _B, "loc", "scale")
def logpdf(x, b, loc=0.0, scale=1.0):
    """``log b - (b + 1) log z - log scale`` for ``z >= 1``, ``-inf`` below."""
    x, b, loc, scale = reals("pareto.logpdf", x, b, loc, scale)
    z, scale = standardize(x, loc, scale, "pareto.logpdf")
    below = ops.lt(z, 1.0)
    zs = ops.select(below, ops.ones_like(z), z)
    value = ops.sub(ops.sub(ops.log(b), ops.mul(ops.add(b, 1.0), ops.log(zs))), ops.log(scale))
    return outside(below, value, -float("inf"))


pdf = exp_of(logpdf, "pdf")


@documented("x", _B, "loc", "scale")
def cdf(x, b, loc=0.0, scale=1.0):
    """``1 - z**-b``, as ``-expm1(-b log z)``; 0 below ``z = 1``."""
    t, _ = _log_tail(x, b, loc, scale, "pareto.cdf")
    return ops.neg(ops.expm1(ops.neg(t)))


@documented("x", _B, "loc", "scale")
def logcdf(x, b, loc=0.0, scale=1.0):
    """``log(1 - exp(-b log z))`` (Maechler's ``log1mexp``), ``-inf`` at and below ``z = 1``."""
    t, _ = _log_tail(x, b, loc, scale, "pareto.logcdf")
    return log1mexp(t)


@documented("x", _B, "loc", "scale")
def sf(x, b, loc=0.0, scale=1.0):
    """``z**-b``, 1 below ``z = 1``."""
    t, _ = _log_tail(x, b, loc, scale, "pareto.sf")
    return ops.exp(ops.neg(t))


@documented("x", _B, "loc", "scale")
def logsf(x, b, loc=0.0, scale=1.0):
    """``-b log z``, 0 below ``z = 1``."""
    t, _ = _log_tail(x, b, loc, scale, "pareto.logsf")
    return ops.neg(t)


@documented("q", _B, "loc", "scale")
def ppf(q, b, loc=0.0, scale=1.0):
    """``loc + scale * exp(-log1p(-q) / b)``, NaN for ``q`` outside ``[0, 1]``."""
    q, b, loc, scale = reals("pareto.ppf", q, b, loc, scale)
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    value = ops.add(loc, ops.mul(scale, ops.exp(ops.div(ops.neg(ops.log1p(ops.neg(q))), b))))
    return outside(bad, value, float("nan"))

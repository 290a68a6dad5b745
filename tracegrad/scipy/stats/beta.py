"""The beta distribution (``scipy.stats.beta``): density ``z**(a-1)
(1-z)**(b-1) / (B(a, b) scale)`` on ``0 <= z = (x - loc) / scale <= 1``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, log_of, outside, reals

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]


@documented("x", "a", "b", "loc", "scale")
def logpdf(x, a, b, loc=0.0, scale=1.0):
    """``xlogy(a - 1, z) + xlog1py(b - 1, -z) - betaln(a, b) - log(scale)``,
    ``-inf`` outside ``[0, 1]``."""
    x, a, b, loc, scale = reals("beta.logpdf", x, a, b, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    out = ops.logical_or(ops.lt(z, 0.0), ops.gt(z, 1.0))
    zs = ops.select(out, ops.mul(0.5, ops.ones_like(z)), z)
    value = ops.add(special.xlogy(ops.sub(a, 1.0), zs),
                    special.xlog1py(ops.sub(b, 1.0), ops.neg(zs)))
    value = ops.sub(value, ops.add(special.betaln(a, b), ops.log(scale)))
    return outside(out, value, -float("inf"))


pdf = exp_of(logpdf, "pdf")


def _standard(name, x, a, b, loc, scale):
    """``(a, b, z, below, above)``: ``z = (x - loc) / scale``, 1/2 outside ``[0, 1]``."""
    x, a, b, loc, scale = reals(name, x, a, b, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    below, above = ops.lt(z, 0.0), ops.gt(z, 1.0)
    zs = ops.select(ops.logical_or(below, above), ops.mul(0.5, ops.ones_like(z)), z)
    return a, b, zs, below, above


@documented("x", "a", "b", "loc", "scale")
def cdf(x, a, b, loc=0.0, scale=1.0):
    """The CDF ``betainc(a, b, z)``: 0 below 0, 1 above 1 (not differentiable
    in ``a`` and ``b``: NotImplementedError, as :func:`tracegrad.scipy.special.betainc`)."""
    a, b, z, below, above = _standard("beta.cdf", x, a, b, loc, scale)
    return outside(below, outside(above, special.betainc(a, b, z), 1.0), 0.0)


@documented("x", "a", "b", "loc", "scale")
def sf(x, a, b, loc=0.0, scale=1.0):
    """The survival function ``betaincc(a, b, z)`` (accurate near ``z = 1``):
    1 below 0, 0 above 1; not differentiable in ``a`` and ``b``."""
    a, b, z, below, above = _standard("beta.sf", x, a, b, loc, scale)
    return outside(below, outside(above, special.betaincc(a, b, z), 0.0), 1.0)


@documented("x", "a", "b", "loc", "scale")
def logcdf(x, a, b, loc=0.0, scale=1.0):
    """``log(betainc(a, b, z))`` (``log1p(-betaincc(a, b, z))`` above 1/2):
    ``-inf`` below 0, 0 above 1."""
    a, b, z, below, above = _standard("beta.logcdf", x, a, b, loc, scale)
    value = log_of(special.betainc(a, b, z), special.betaincc(a, b, z))
    return outside(below, outside(above, value, 0.0), -float("inf"))


@documented("x", "a", "b", "loc", "scale")
def logsf(x, a, b, loc=0.0, scale=1.0):
    """``log(betaincc(a, b, z))`` (``log1p(-betainc(a, b, z))`` above 1/2):
    0 below 0, ``-inf`` above 1."""
    a, b, z, below, above = _standard("beta.logsf", x, a, b, loc, scale)
    value = log_of(special.betaincc(a, b, z), special.betainc(a, b, z))
    return outside(below, outside(above, value, -float("inf")), 0.0)

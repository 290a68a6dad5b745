"""The gamma distribution (``scipy.stats.gamma``) of shape ``a``: density
``z**(a-1) exp(-z) / (Gamma(a) scale)`` for ``z = (x - loc) / scale >= 0``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, log_of, outside, reals

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]


@documented("x", "a", "loc", "scale")
def logpdf(x, a, loc=0.0, scale=1.0):
    """``xlogy(a - 1, z) - z - gammaln(a) - log(scale)``, ``-inf`` for ``z < 0``."""
    x, a, loc, scale = reals("gamma.logpdf", x, a, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    below = ops.lt(z, 0.0)
    zs = ops.select(below, ops.ones_like(z), z)
    value = ops.sub(ops.sub(special.xlogy(ops.sub(a, 1.0), zs), zs),
                    ops.add(special.gammaln(a), ops.log(scale)))
    return outside(below, value, -float("inf"))


pdf = exp_of(logpdf, "pdf")


def _standard(name, x, a, loc, scale):
    """``(a, z, below)``: ``z = (x - loc) / scale``, 1 where ``z < 0`` (``below``)."""
    x, a, loc, scale = reals(name, x, a, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    below = ops.lt(z, 0.0)
    return a, ops.select(below, ops.ones_like(z), z), below


@documented("x", "a", "loc", "scale")
def cdf(x, a, loc=0.0, scale=1.0):
    """The CDF ``gammainc(a, z)``, 0 for ``z < 0`` (differentiable in ``x``,
    ``loc`` and ``scale``; in ``a`` it raises NotImplementedError, as
    :func:`tracegrad.scipy.special.gammainc` does)."""
    a, z, below = _standard("gamma.cdf", x, a, loc, scale)
    return outside(below, special.gammainc(a, z), 0.0)


@documented("x", "a", "loc", "scale")
def sf(x, a, loc=0.0, scale=1.0):
    """The survival function ``gammaincc(a, z)`` (accurate in the upper
    tail), 1 for ``z < 0``; not differentiable in ``a``."""
    a, z, below = _standard("gamma.sf", x, a, loc, scale)
    return outside(below, special.gammaincc(a, z), 1.0)


@documented("x", "a", "loc", "scale")
def logcdf(x, a, loc=0.0, scale=1.0):
    """``log(gammainc(a, z))`` (``log1p(-gammaincc(a, z))`` where the CDF
    exceeds 1/2), ``-inf`` for ``z < 0``; not differentiable in ``a``."""
    a, z, below = _standard("gamma.logcdf", x, a, loc, scale)
    return outside(below, log_of(special.gammainc(a, z), special.gammaincc(a, z)), -float("inf"))


@documented("x", "a", "loc", "scale")
def logsf(x, a, loc=0.0, scale=1.0):
    """``log(gammaincc(a, z))`` (``log1p(-gammainc(a, z))`` where the
    survival function exceeds 1/2), 0 for ``z < 0``; not differentiable in ``a``."""
    a, z, below = _standard("gamma.logsf", x, a, loc, scale)
    return outside(below, log_of(special.gammaincc(a, z), special.gammainc(a, z)), 0.0)

"""The generalized normal distribution (``scipy.stats.gennorm``) of shape
``beta``: density ``beta / (2 Gamma(1/beta)) exp(-|z|**beta) / scale``
(``beta = 2``: a normal of variance 1/2; ``beta = 1``: Laplace).  Its CDF
is ``1/2 + sign(z) P(1/beta, |z|**beta) / 2`` (``P`` the regularized lower
incomplete gamma function), computed from ``Q = 1 - P`` as SciPy does so
the lower tail keeps its relative accuracy."""
import math

from .. import special
from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "sf"]

_LOG2 = math.log(2.0)
_BETA = ("beta", "Shape parameter, positive.", lambda v: ops.gt(v, 0.0))


@documented("x", _BETA, "loc", "scale")
def logpdf(x, beta, loc=0.0, scale=1.0):
    """``log(beta) - log 2 - gammaln(1/beta) - |z|**beta - log scale``."""
    x, beta, loc, scale = reals("gennorm.logpdf", x, beta, loc, scale)
    z, scale = standardize(x, loc, scale, "gennorm.logpdf")
    norm = ops.sub(ops.sub(ops.log(beta), _LOG2), special.gammaln(ops.reciprocal(beta)))
    return ops.sub(ops.sub(norm, ops.pow(ops.abs(z), beta)), ops.log(scale))


pdf = exp_of(logpdf, "pdf")


@documented("x", _BETA, "loc", "scale")
def cdf(x, beta, loc=0.0, scale=1.0):
    """``(1/2 + c) - c gammaincc(1/beta, |z|**beta)``, ``c = sign(z) / 2``
    (SciPy's formula).  Differentiable in ``x``, ``loc`` and ``scale``; the
    derivative in ``beta`` raises ``NotImplementedError``, as
    :func:`tracegrad.scipy.special.gammaincc`'s in its shape parameter does."""
    x, beta, loc, scale = reals("gennorm.cdf", x, beta, loc, scale)
    z, scale = standardize(x, loc, scale, "gennorm.cdf")
    return _tail(z, beta)


@documented("x", _BETA, "loc", "scale")
def sf(x, beta, loc=0.0, scale=1.0):
    """``cdf(-z)`` (the distribution is symmetric), accurate in the upper tail."""
    x, beta, loc, scale = reals("gennorm.sf", x, beta, loc, scale)
    z, scale = standardize(x, loc, scale, "gennorm.sf")
    return _tail(ops.neg(z), beta)


def _tail(z, beta):
    c = ops.mul(0.5, ops.sign(z))
    q = special.gammaincc(ops.reciprocal(beta), ops.pow(ops.abs(z), beta))
    return ops.sub(ops.add(0.5, c), ops.mul(c, q))

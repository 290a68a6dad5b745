"""The generalized normal distribution (``scipy.stats.gennorm``) of shape
``beta``: density ``beta / (2 Gamma(1/beta)) exp(-|z|**beta) / scale``
(``beta = 2``: a normal of variance 1/2; ``beta = 1``: Laplace).  Its CDF
needs the regularized incomplete gamma function, which this module does not
have yet."""
import math

from .. import special
from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf"]

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

"""Student's t distribution (``scipy.stats.t``) with ``df`` degrees of freedom."""
import math

from .. import special
from ...primitives import ops
from ._common import documented, exp_of, reals

__all__ = ["logpdf", "pdf"]

_LOG_PI = math.log(math.pi)


@documented("x", "df", "loc", "scale")
def logpdf(x, df, loc=0.0, scale=1.0):
    """``lgamma((df+1)/2) - lgamma(df/2) - log(df pi)/2 - log(scale)
    - (df+1)/2 log1p(z**2 / df)``, ``z = (x - loc) / scale``."""
    x, df, loc, scale = reals("t.logpdf", x, df, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    half = ops.mul(0.5, ops.add(df, 1.0))
    norm = ops.sub(special.gammaln(half), special.gammaln(ops.mul(0.5, df)))
    norm = ops.sub(norm, ops.add(ops.mul(0.5, ops.add(ops.log(df), _LOG_PI)), ops.log(scale)))
    return ops.sub(norm, ops.mul(half, ops.log1p(ops.div(ops.square(z), df))))


pdf = exp_of(logpdf, "pdf")

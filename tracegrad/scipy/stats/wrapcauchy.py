"""The wrapped Cauchy distribution (``scipy.stats.wrapcauchy``) on
``[0, 2 pi]``: density ``(1 - c**2) / (2 pi (1 + c**2 - 2 c cos z)) / scale``,
``z = (x - loc) / scale``, ``0 < c < 1``."""
import math

from ...primitives import ops
from ._common import documented, exp_of, outside, reals, standardize

__all__ = ["logpdf", "pdf"]

_LOG_2PI = math.log(2.0 * math.pi)
_C = ("c", "Shape parameter, in ``(0, 1)``.",
      lambda v: ops.logical_and(ops.gt(v, 0.0), ops.lt(v, 1.0)))


@documented("x", _C, "loc", "scale")
def logpdf(x, c, loc=0.0, scale=1.0):
    """``log(1 - c**2) - log(2 pi) - log((1 - c)**2 + 2 c (1 - cos z)) - log scale`` on
    ``[0, 2 pi]``, ``-inf`` outside.  ``1 - c**2`` as ``(1 - c)(1 + c)``, the denominator
    as a sum of non-negative terms with ``1 - cos z = 2 sin(z/2)**2``: each keeps its
    relative accuracy as ``c`` nears 1 (where SciPy's ``1 + c**2 - 2 c cos z`` cancels)."""
    x, c, loc, scale = reals("wrapcauchy.logpdf", x, c, loc, scale)
    z, scale = standardize(x, loc, scale, "wrapcauchy.logpdf")
    out = ops.logical_or(ops.lt(z, 0.0), ops.gt(z, 2.0 * math.pi))
    zs = ops.select(out, ops.add(ops.zeros_like(z), math.pi), z)
    one_minus_cos = ops.mul(2.0, ops.square(ops.sin(ops.mul(0.5, zs))))
    denom = ops.add(ops.square(ops.sub(1.0, c)), ops.mul(ops.mul(2.0, c), one_minus_cos))
    value = ops.sub(ops.sub(ops.add(ops.log1p(ops.neg(c)), ops.log1p(c)), _LOG_2PI),
                    ops.add(ops.log(denom), ops.log(scale)))
    return outside(out, value, -float("inf"))


pdf = exp_of(logpdf, "pdf")

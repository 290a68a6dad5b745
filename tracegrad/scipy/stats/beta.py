"""The beta distribution (``scipy.stats.beta``): density ``z**(a-1)
(1-z)**(b-1) / (B(a, b) scale)`` on ``0 <= z = (x - loc) / scale <= 1``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpdf", "pdf"]


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

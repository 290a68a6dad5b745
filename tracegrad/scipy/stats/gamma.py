"""The gamma distribution (``scipy.stats.gamma``) of shape ``a``: density
``z**(a-1) exp(-z) / (Gamma(a) scale)`` for ``z = (x - loc) / scale >= 0``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpdf", "pdf"]


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

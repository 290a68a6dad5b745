"""The chi-squared distribution (``scipy.stats.chi2``) with ``df`` degrees of
freedom: the gamma distribution of shape ``df / 2`` and scale ``2 scale``."""
from ...primitives import ops
from . import gamma
from ._common import documented, exp_of, reals

__all__ = ["logpdf", "pdf"]


@documented("x", "df", "loc", "scale")
def logpdf(x, df, loc=0.0, scale=1.0):
    """``gamma.logpdf(x, df / 2, loc, 2 scale)``."""
    x, df, loc, scale = reals("chi2.logpdf", x, df, loc, scale)
    return gamma.logpdf(x, ops.mul(0.5, df), loc, ops.mul(2.0, scale))


pdf = exp_of(logpdf, "pdf")

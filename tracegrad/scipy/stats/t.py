"""Student's t distribution (``scipy.stats.t``) with ``df`` degrees of freedom."""
import math

from .. import special
from ...primitives import ops
from ._common import documented, exp_of, log_of, reals

__all__ = ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"]

_LOG_2PI = math.log(2.0 * math.pi)


@documented("x", "df", "loc", "scale")
def logpdf(x, df, loc=0.0, scale=1.0):
    """``-betaln(df/2, 1/2) - log(df)/2 - log(scale) - (df+1)/2 log1p(z**2 / df)``,
    ``z = (x - loc) / scale``; the normal's log density at ``df = inf``, as SciPy.

    (``lgamma((df+1)/2) - lgamma(df/2) - log(pi)/2 = -betaln(df/2, 1/2)``, since
    ``B(a, 1/2) = Gamma(a) Gamma(1/2) / Gamma(a + 1/2)``: the betaln form does not
    cancel for large ``df``, where the difference of two ``lgamma`` loses every
    digit by ``df = 1e17``.)"""
    x, df, loc, scale = reals("t.logpdf", x, df, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    inf = ops.isinf(df)
    dfs = ops.select(inf, ops.ones_like(df), df)
    norm = ops.sub(ops.neg(special.betaln(ops.mul(0.5, dfs), 0.5)),
                   ops.add(ops.mul(0.5, ops.log(dfs)), ops.log(scale)))
    half = ops.mul(0.5, ops.add(dfs, 1.0))
    finite = ops.sub(norm, ops.mul(half, ops.log1p(ops.div(ops.square(z), dfs))))
    normal = ops.sub(ops.mul(-0.5, ops.add(ops.square(z), _LOG_2PI)), ops.log(scale))
    return ops.select(inf, normal, finite)


pdf = exp_of(logpdf, "pdf")


def _cdf_sf(x, df, loc, scale, name):
    """``(cdf, sf)`` of the standardized ``z``, from the tail ``T = P(|t| > |z|) / 2``.

    As Boost's ``students_t`` does: ``T = betaincc(1/2, df/2, w) / 2``, ``w =
    z**2 / (df + z**2)``, where ``df > 2 z**2`` (as ``(1 - betainc(1/2, df/2,
    w)) / 2`` while ``betainc < 1/2``, where that is the more accurate), else ``T = betainc(df/2, 1/2, df / (df
    + z**2)) / 2`` (each argument away from where the function is
    ill-conditioned); ``cdf = T`` for ``z < 0``, ``1 - T`` above.  Each branch
    sees a harmless ``z = 1`` where it is not taken (so no ``0 * inf`` reaches
    a derivative), and ``z = 0`` gives ``1/2 + z t.pdf(0)`` (the value and
    first two derivatives in ``z``)."""
    x, df, loc, scale = reals(name, x, df, loc, scale)
    z = ops.div(ops.sub(x, loc), scale)
    inf = ops.isinf(df)  # the normal's, as SciPy
    df = ops.select(inf, ops.ones_like(df), df)
    zero = ops.eq(z, 0.0)
    z2 = ops.square(z)
    near = ops.gt(df, ops.mul(2.0, z2))
    one = ops.ones_like(z)
    zn = ops.square(ops.select(ops.logical_and(near, ops.logical_not(zero)), z, one))
    zf = ops.square(ops.select(near, one, z))
    half_df = ops.mul(0.5, ops.add(df, ops.zeros_like(z)))
    w = ops.div(zn, ops.add(df, zn))
    # near 0, P(|t| < |z|) = betainc(1/2, df/2, w) is small and the tail 1/2 - it/2
    # loses nothing; once it passes 1/2 its complement betaincc is the accurate one
    inner = special.betainc(ops.mul(0.5, one), half_df, w)
    small = ops.lt(inner, 0.5)
    tail_near = ops.select(small, ops.sub(1.0, inner), special.betaincc(ops.mul(0.5, one), half_df, w))
    tail_far = special.betainc(half_df, ops.mul(0.5, one), ops.div(df, ops.add(df, zf)))
    tail = ops.mul(0.5, ops.select(near, tail_near, tail_far))
    pdf0 = ops.exp(logpdf(0.0, df))
    mid = ops.add(0.5, ops.mul(ops.select(zero, z, ops.zeros_like(z)), pdf0))
    positive = ops.gt(z, 0.0)
    lower = ops.select(zero, mid, ops.select(positive, ops.sub(1.0, tail), tail))
    upper = ops.select(zero, ops.sub(1.0, mid), ops.select(positive, tail, ops.sub(1.0, tail)))
    return (ops.select(inf, special.ndtr(z), lower),
            ops.select(inf, special.ndtr(ops.neg(z)), upper))


@documented("x", "df", "loc", "scale")
def cdf(x, df, loc=0.0, scale=1.0):
    """The CDF of ``z = (x - loc) / scale`` (SciPy's ``stdtr``), through the
    incomplete beta function; differentiable in ``x``, ``loc`` and ``scale``
    (not in ``df``: NotImplementedError, as :func:`tracegrad.scipy.special.betainc`)."""
    return _cdf_sf(x, df, loc, scale, "t.cdf")[0]


@documented("x", "df", "loc", "scale")
def sf(x, df, loc=0.0, scale=1.0):
    """The survival function ``1 - cdf`` (the small tail computed directly,
    so accurate in the upper tail); not differentiable in ``df``."""
    return _cdf_sf(x, df, loc, scale, "t.sf")[1]


@documented("x", "df", "loc", "scale")
def logcdf(x, df, loc=0.0, scale=1.0):
    """``log(cdf)``: ``log1p(-sf)`` where the CDF is above 1/2 (so it keeps its
    relative accuracy near 1), ``log(cdf)`` elsewhere; ``-inf`` where the CDF
    underflows, as SciPy.  Not differentiable in ``df``."""
    lower, upper = _cdf_sf(x, df, loc, scale, "t.logcdf")
    return log_of(lower, upper)


@documented("x", "df", "loc", "scale")
def logsf(x, df, loc=0.0, scale=1.0):
    """``log(sf)``, as :func:`logcdf` with the tails swapped."""
    lower, upper = _cdf_sf(x, df, loc, scale, "t.logsf")
    return log_of(upper, lower)

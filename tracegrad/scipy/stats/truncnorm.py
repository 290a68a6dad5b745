"""The truncated normal distribution (``scipy.stats.truncnorm``): the normal
``N(loc, scale**2)`` restricted to ``[loc + a scale, loc + b scale]`` (``a``
and ``b`` in standard units, as SciPy; ``a < b``, either may be infinite).

Probabilities are handled as logs: the normalizing mass ``Phi(b) - Phi(a)``
is computed as ``log(exp(log_ndtr(b)) - exp(log_ndtr(a)))`` on the side of
zero where both ends lie (mirrored for the upper side), and as
``log1p(-Phi(a) - Phi(-b))`` when the interval straddles zero (the case
split SciPy's ``_log_gauss_mass`` makes), so densities and CDFs of an
interval far in a tail (``a = 30``) stay accurate where ``Phi`` rounds to 1.
"""
import math

from .. import special
from ...primitives import ops
from ._common import documented, exp_of, log1mexp, outside, reals, standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG2 = math.log(2.0)
_A = ("a", "Lower truncation point in standard units, ``(x - loc) / scale``; ``a < b``.", None)
_B = ("b", "Upper truncation point in standard units; ``a < b`` (NaN otherwise).", None)


def _fill(mask, value, fill):
    """``value`` where ``mask``, else the float ``fill`` (a harmless operand)."""
    return ops.select(mask, value, ops.add(ops.zeros_like(value), fill))


def _log_mass(a, b):
    """``log(Phi(b) - Phi(a))`` for ``a <= b`` (``-inf`` where ``a == b``).  Each branch
    gets operands it can take where it is not used, so no NaN leaks into derivatives."""
    a, b = ops.add(a, ops.zeros_like(b)), ops.add(b, ops.zeros_like(a))
    left = ops.le(b, 0.0)
    right = ops.gt(a, 0.0)
    mid = ops.logical_not(ops.logical_or(left, right))

    def lower_tail(lo, hi):  # both <= 0: log(exp(lb) - exp(la)), lb >= la
        la, lb = special.log_ndtr(lo), special.log_ndtr(hi)
        return ops.add(lb, log1mexp(ops.sub(lb, la)))

    on_left = lower_tail(_fill(left, a, -2.0), _fill(left, b, -1.0))
    on_right = lower_tail(ops.neg(_fill(right, b, 2.0)), ops.neg(_fill(right, a, 1.0)))
    am, bm = _fill(mid, a, -1.0), _fill(mid, b, 1.0)
    on_mid = ops.log1p(ops.neg(ops.add(special.ndtr(am), special.ndtr(ops.neg(bm)))))
    return ops.select(left, on_left, ops.select(right, on_right, on_mid))


def _prepare(x, a, b, loc, scale, name):
    x, a, b, loc, scale = reals(name, x, a, b, loc, scale)
    z, scale = standardize(x, loc, scale, name)
    return z, a, b, scale, ops.logical_not(ops.lt(a, b))


@documented("x", _A, _B, "loc", "scale")
def logpdf(x, a, b, loc=0.0, scale=1.0):
    """``-z**2/2 - log(2 pi)/2 - log scale - log(Phi(b) - Phi(a))`` on ``[a, b]``,
    ``-inf`` outside."""
    z, a, b, scale, bad = _prepare(x, a, b, loc, scale, "truncnorm.logpdf")
    out = ops.logical_or(ops.lt(z, a), ops.gt(z, b))
    zs = ops.select(out, ops.zeros_like(ops.add(z, a)), z)
    value = ops.sub(ops.mul(-0.5, ops.square(zs)),
                    ops.add(ops.add(ops.log(scale), _HALF_LOG_2PI), _log_mass(a, b)))
    return outside(bad, outside(out, value, -float("inf")), float("nan"))


pdf = exp_of(logpdf, "pdf")


def _log_cdf_sf(x, a, b, loc, scale, name):
    """``(log P(X <= x), log P(X > x), invalid)``, ``z`` clipped to ``[a, b]``."""
    z, a, b, scale, bad = _prepare(x, a, b, loc, scale, name)
    zc = ops.minimum(ops.maximum(z, a), b)
    mass = _log_mass(a, b)
    low, high = ops.sub(_log_mass(a, zc), mass), ops.sub(_log_mass(zc, b), mass)
    # The larger of the two probabilities as log1p(-smaller): a difference of two
    # logs of masses near each other would lose its relative accuracy near 0.
    low_big = ops.lt(high, -_LOG2)
    high_s = ops.select(low_big, high, ops.sub(ops.zeros_like(high), 1.0))
    low_s = ops.select(low_big, ops.sub(ops.zeros_like(low), 1.0), low)
    low = ops.select(low_big, ops.log1p(ops.neg(ops.exp(high_s))), low)
    high = ops.select(low_big, high, ops.log1p(ops.neg(ops.exp(low_s))))
    return low, high, bad


@documented("x", _A, _B, "loc", "scale")
def logcdf(x, a, b, loc=0.0, scale=1.0):
    """``log(Phi(z) - Phi(a)) - log(Phi(b) - Phi(a))``: ``-inf`` below ``a``, 0 above ``b``."""
    low, _, bad = _log_cdf_sf(x, a, b, loc, scale, "truncnorm.logcdf")
    return outside(bad, low, float("nan"))


@documented("x", _A, _B, "loc", "scale")
def cdf(x, a, b, loc=0.0, scale=1.0):
    """``exp(logcdf)``."""
    low, _, bad = _log_cdf_sf(x, a, b, loc, scale, "truncnorm.cdf")
    return outside(bad, ops.exp(low), float("nan"))


@documented("x", _A, _B, "loc", "scale")
def logsf(x, a, b, loc=0.0, scale=1.0):
    """``log(Phi(b) - Phi(z)) - log(Phi(b) - Phi(a))``: 0 below ``a``, ``-inf`` above ``b``."""
    _, high, bad = _log_cdf_sf(x, a, b, loc, scale, "truncnorm.logsf")
    return outside(bad, high, float("nan"))


@documented("x", _A, _B, "loc", "scale")
def sf(x, a, b, loc=0.0, scale=1.0):
    """``exp(logsf)``."""
    _, high, bad = _log_cdf_sf(x, a, b, loc, scale, "truncnorm.sf")
    return outside(bad, ops.exp(high), float("nan"))


@documented("q", _A, _B, "loc", "scale")
def ppf(q, a, b, loc=0.0, scale=1.0):
    """The quantile ``loc + scale * z``: for ``a < 0``,
    ``z = ndtri(Phi(a) + q (Phi(b) - Phi(a)))``; for ``a >= 0`` the mirror image,
    ``z = -ndtri(Phi(-b) + (1 - q) (Phi(b) - Phi(a)))``, so that an interval in the
    upper tail does not round ``Phi`` to 1 (SciPy makes the same split).  The sums
    are formed as ``exp(logaddexp(...))`` of logs; ``ndtri`` then needs the result
    above the smallest double, so an interval beyond about ``-37`` standard units
    loses accuracy (SciPy uses a log-argument ``ndtri`` there).  ``a`` at ``q = 0``,
    ``b`` at ``q = 1``, NaN for ``q`` outside ``[0, 1]``."""
    q, a, b, loc, scale = reals("truncnorm.ppf", q, a, b, loc, scale)
    mass = _log_mass(a, b)
    lower = ops.lt(a, 0.0)
    # (lower) log Phi(a) + log1p(q e^{...}) as logaddexp(log Phi(a), log q + mass)
    base = ops.select(lower, special.log_ndtr(a), special.log_ndtr(ops.neg(b)))
    part = ops.select(lower, ops.log(q), ops.log1p(ops.neg(q)))
    z = special.ndtri(ops.exp(ops.logaddexp(base, ops.add(part, mass))))
    z = ops.select(lower, z, ops.neg(z))
    z = ops.minimum(ops.maximum(z, a), b)
    z = ops.select(ops.eq(q, 0.0), ops.add(ops.zeros_like(z), a), z)  # the ends exactly
    z = ops.select(ops.eq(q, 1.0), ops.add(ops.zeros_like(z), b), z)
    bad = ops.logical_or(ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0)),
                         ops.logical_not(ops.lt(a, b)))
    return outside(bad, ops.add(loc, ops.mul(scale, z)), float("nan"))

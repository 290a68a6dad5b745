"""The geometric distribution (``scipy.stats.geom``): the number of trials up
to and including the first success, ``P(k) = (1 - p)**(k - 1) p`` for
integers ``k - loc >= 1``.  The CDF family uses ``log1p(-p)``, so it stays
accurate for small ``p`` and far in the upper tail."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, log1mexp, off_support, on_integers, outside, reals

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_P = ("p", "Success probability, in ``(0, 1]``.",
      lambda v: ops.logical_and(ops.gt(v, 0.0), ops.le(v, 1.0)))


@documented("k", _P, "loc")
def logpmf(k, p, loc=0.0):
    """``xlog1py(k - 1, -p) + log p`` (``k`` shifted by ``loc``), ``-inf`` off the
    integers ``>= 1``."""
    k, p, loc = reals("geom.logpmf", k, p, loc)
    off, ks = on_integers(ops.sub(k, loc), 1.0)
    value = ops.add(special.xlog1py(ops.sub(ks, 1.0), ops.neg(p)), ops.log(p))
    return off_support(k, off, value)


pmf = exp_of(logpmf, "pmf")


def _log_sf(k, p, loc, name):
    """``floor(k - loc) log1p(-p)`` (the log survival function), 0 below 1."""
    k, p, loc = reals(name, k, p, loc)
    m = ops.maximum(ops.floor(ops.sub(k, loc)), 0.0)
    return special.xlog1py(m, ops.neg(p))


@documented("k", _P, "loc")
def logsf(k, p, loc=0.0):
    """``floor(k) log1p(-p)``: ``P(K > k) = (1 - p)**floor(k)``, 0 below 1."""
    return _log_sf(k, p, loc, "geom.logsf")


@documented("k", _P, "loc")
def sf(k, p, loc=0.0):
    """``(1 - p)**floor(k)``, as ``exp(floor(k) log1p(-p))``."""
    return ops.exp(_log_sf(k, p, loc, "geom.sf"))


@documented("k", _P, "loc")
def cdf(k, p, loc=0.0):
    """``1 - (1 - p)**floor(k)``, as ``-expm1(floor(k) log1p(-p))``."""
    return ops.neg(ops.expm1(_log_sf(k, p, loc, "geom.cdf")))


@documented("k", _P, "loc")
def logcdf(k, p, loc=0.0):
    """``log(1 - (1 - p)**floor(k))`` (Maechler's ``log1mexp``), ``-inf`` below 1."""
    return log1mexp(ops.neg(_log_sf(k, p, loc, "geom.logcdf")))


@documented("q", _P, "loc")
def ppf(q, p, loc=0.0):
    """The smallest integer ``k`` with ``cdf(k) >= q``: ``ceil(log1p(-q) / log1p(-p))``
    (at least 1; ``loc`` at ``q = 0`` and ``inf`` at ``q = 1``, as SciPy, also for ``p = 1``), NaN for ``q``
    outside ``[0, 1]``.  Piecewise constant: zero derivative in ``q`` and ``p``."""
    q, p, loc = reals("geom.ppf", q, p, loc)
    log_fail = ops.log1p(ops.neg(p))
    k = ops.neg(ops.floor(ops.neg(ops.div(ops.log1p(ops.neg(q)), log_fail))))
    # the ratio may round up past an integer: step back where cdf(k - 1) >= q already
    back = ops.ge(ops.neg(ops.expm1(ops.mul(ops.sub(k, 1.0), log_fail))), q)
    k = ops.select(ops.logical_and(back, ops.gt(k, 1.0)), ops.sub(k, 1.0), k)
    k = ops.maximum(ops.stop_gradient(k), 1.0)
    k = outside(ops.eq(q, 1.0), outside(ops.eq(q, 0.0), k, 0.0), float("inf"))
    bad = ops.logical_or(ops.lt(q, 0.0), ops.gt(q, 1.0))
    return outside(bad, ops.add(loc, k), float("nan"))

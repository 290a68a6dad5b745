"""The beta-binomial distribution (``scipy.stats.betabinom``): a binomial of
``n`` trials whose success probability is ``Beta(a, b)``,
``P(k) = C(n, k) B(k + a, n - k + b) / B(a, b)`` for integers ``0 <= k - loc <= n``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, off_support, on_integers, reals

__all__ = ["logpmf", "pmf"]

_N = ("n", "Number of trials, a non-negative integer (NaN otherwise, as SciPy).",
      lambda v: ops.logical_and(ops.ge(v, 0.0), ops.eq(v, ops.floor(v))))


@documented("k", _N, "a", "b", "loc")
def logpmf(k, n, a, b, loc=0.0):
    """``-log(n + 1) - betaln(n - k + 1, k + 1) + betaln(k + a, n - k + b) - betaln(a, b)``
    (``log C(n, k)`` as ``-log(n + 1) - betaln(n - k + 1, k + 1)``; ``k`` shifted by
    ``loc``), ``-inf`` off the integers of ``[0, n]``."""
    k, n, a, b, loc = reals("betabinom.logpmf", k, n, a, b, loc)
    off, ks = on_integers(ops.sub(k, loc), 0.0, n)
    nk = ops.sub(n, ks)
    log_comb = ops.neg(ops.add(ops.log1p(n), special.betaln(ops.add(nk, 1.0), ops.add(ks, 1.0))))
    value = ops.add(log_comb, ops.sub(special.betaln(ops.add(ks, a), ops.add(nk, b)),
                                      special.betaln(a, b)))
    return off_support(k, off, value)


pmf = exp_of(logpmf, "pmf")

"""The binomial distribution (``scipy.stats.binom``): ``n`` trials of success
probability ``p``, ``P(k) = C(n, k) p**k (1 - p)**(n - k)`` for integers
``0 <= k - loc <= n``."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, off_support, on_integers, reals

__all__ = ["logpmf", "pmf"]

_N = ("n", "Number of trials, a non-negative integer (NaN otherwise, as SciPy).",
      lambda v: ops.logical_and(ops.ge(v, 0.0), ops.eq(v, ops.floor(v))))


@documented("k", _N, "p", "loc")
def logpmf(k, n, p, loc=0.0):
    """``log C(n, k) + xlogy(k, p) + xlog1py(n - k, -p)`` (``k`` shifted by ``loc``;
    ``0 log 0 = 0``, so ``p`` of 0 or 1 gives the point mass), ``-inf`` off the integers
    of ``[0, n]``.  ``log C(n, k)`` is ``-log1p(n) - betaln(n - k + 1, k + 1)``: one
    ``betaln`` keeps it to a few ulp where three ``gammaln`` terms cancel (SciPy's
    ``binom.logpmf`` loses ``1e-14`` relative at ``n = 60``).
    Differentiable in ``p`` (and, through ``gammaln``, in ``n`` as a real)."""
    k, n, p, loc = reals("binom.logpmf", k, n, p, loc)
    off, ks = on_integers(ops.sub(k, loc), 0.0, n)
    nk = ops.sub(n, ks)
    value = ops.neg(ops.add(ops.log1p(n), special.betaln(ops.add(nk, 1.0), ops.add(ks, 1.0))))
    value = ops.add(value, ops.add(special.xlogy(ks, p), special.xlog1py(nk, ops.neg(p))))
    return off_support(k, off, value)


pmf = exp_of(logpmf, "pmf")

"""The negative binomial distribution (``scipy.stats.nbinom``): the number of
failures before the ``n``-th success, ``P(k) = C(k + n - 1, k) p**n (1 - p)**k``
for integers ``k - loc >= 0`` (``n`` may be any positive real)."""
from .. import special
from ...primitives import ops
from ._common import documented, exp_of, off_support, on_integers, reals

__all__ = ["logpmf", "pmf"]

_N = ("n", "Number of successes, positive (a real: the Polya distribution).",
      lambda v: ops.gt(v, 0.0))
_P = ("p", "Success probability, in ``(0, 1]``.",
      lambda v: ops.logical_and(ops.gt(v, 0.0), ops.le(v, 1.0)))


@documented("k", _N, _P, "loc")
def logpmf(k, n, p, loc=0.0):
    """``log C(k + n - 1, k) + n log p + xlog1py(k, -p)`` (``k`` shifted by ``loc``),
    ``-inf`` off the non-negative integers; ``log C(k + n - 1, k)`` as
    ``-log(k + n) - betaln(n, k + 1)`` (one ``betaln`` rather than three cancelling
    ``gammaln`` terms)."""
    k, n, p, loc = reals("nbinom.logpmf", k, n, p, loc)
    off, ks = on_integers(ops.sub(k, loc), 0.0)
    value = ops.neg(ops.add(ops.log(ops.add(ks, n)), special.betaln(n, ops.add(ks, 1.0))))
    value = ops.add(value, ops.add(ops.mul(n, ops.log(p)), special.xlog1py(ks, ops.neg(p))))
    return off_support(k, off, value)


pmf = exp_of(logpmf, "pmf")

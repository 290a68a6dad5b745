"""The Poisson distribution (``scipy.stats.poisson``) of mean ``mu``:
``P(k) = mu**k exp(-mu) / k!`` for integers ``k - loc >= 0``."""
import math

import numpy as np

from .. import special
from ... import numpy as tnp
from ...core import concrete_value, is_concrete
from ...primitives import ops
from ._common import documented, exp_of, outside, reals

__all__ = ["logpmf", "pmf", "cdf", "entropy"]


@documented("k", "mu", "loc")
def logpmf(k, mu, loc=0.0):
    """``xlogy(k, mu) - mu - gammaln(k + 1)`` (``k`` shifted by ``loc``),
    ``-inf`` off the non-negative integers."""
    k, mu, loc = reals("poisson.logpmf", k, mu, loc)
    k = ops.sub(k, loc)
    off = ops.logical_or(ops.lt(k, 0.0), ops.ne(k, ops.floor(k)))
    ks = ops.select(off, ops.zeros_like(k), k)
    value = ops.sub(ops.sub(special.xlogy(ks, mu), mu), special.gammaln(ops.add(ks, 1.0)))
    return outside(off, value, -float("inf"))


pmf = exp_of(logpmf, "pmf")


@documented("k", "mu", "loc")
def cdf(k, mu, loc=0.0):
    """The CDF ``P(K <= k) = gammaincc(floor(k - loc) + 1, mu)``, 0 for ``k -
    loc < 0`` (SciPy's ``pdtr``).  Differentiable in ``mu`` (``-mu**j exp(-mu)
    / j!``, ``j = floor(k - loc)``); the derivative in ``k`` and ``loc`` is 0
    (a step function), as in JAX."""
    k, mu, loc = reals("poisson.cdf", k, mu, loc)
    j = ops.stop_gradient(ops.floor(ops.sub(k, loc)))
    below = ops.lt(j, 0.0)
    shape = ops.add(ops.select(below, ops.zeros_like(j), j), 1.0)
    return outside(below, special.gammaincc(shape, ops.add(mu, ops.zeros_like(shape))), 0.0)


# From here the expansion's next term (~0.1 mu**-4) is below 1e-13 of the value, where the
# sum's rounding (its terms' logs are ~mu log mu, with cancellation) reaches ~3e-13
_ASYMPTOTIC_FROM = 1e3


@documented("mu", "loc")
def entropy(mu, loc=0.0):
    """The entropy ``-sum_k P(k) log P(k)`` (nats; ``loc`` does not change it).
    Below ``mu = 1000`` the sum over ``k`` within ``40 sqrt(mu) + 40`` of
    ``mu`` (the rest is below 1e-300); above, the asymptotic expansion
    ``log(2 pi e mu) / 2 - 1/(12 mu) - 1/(24 mu**2) - 19/(360 mu**3)``
    (Evans and Boersma, 1988).  Differentiable in ``mu``; the summation
    window is chosen from ``mu``'s concrete value, so not under ``jit`` or
    ``vmap`` (a ``TypeError`` says so)."""
    (mu,) = reals("poisson.entropy", mu)
    if not is_concrete(mu):
        raise TypeError("tracegrad.scipy.stats.poisson.entropy chooses its summation range from "
                        "mu's value, and got a staged or batched mu (under jit or vmap): call it "
                        "outside jit, or loop over the batch")
    mc = np.asarray(concrete_value(mu), np.float64)
    small = (mc < _ASYMPTOTIC_FROM) | ~np.isfinite(mc)
    sm = mc[small & np.isfinite(mc) & (mc >= 0)]
    lo = int(max(0.0, np.floor(np.min(sm - 40 * np.sqrt(sm) - 40)))) if sm.size else 0
    hi = int(np.ceil(np.max(sm + 40 * np.sqrt(sm) + 40))) if sm.size else 0
    k = np.arange(lo, hi + 1, dtype=np.float64)
    mu_small = ops.select(small, mu, ops.ones_like(mu))
    logp = logpmf(k, tnp.expand_dims(mu_small, -1))
    finite = ops.isfinite(logp)
    safe = ops.select(finite, logp, ops.zeros_like(logp))
    summed = tnp.sum(ops.neg(ops.mul(ops.exp(safe), safe)), axis=-1)
    mu_large = ops.select(small, ops.add(ops.zeros_like(mu), _ASYMPTOTIC_FROM), mu)
    r = ops.reciprocal(mu_large)
    series = ops.mul(r, ops.add(1.0 / 12, ops.mul(r, ops.add(1.0 / 24, ops.mul(r, 19.0 / 360)))))
    large = ops.sub(ops.mul(0.5, ops.log(ops.mul(2.0 * math.pi * math.e, mu_large))), series)
    return ops.select(small, summed, large)

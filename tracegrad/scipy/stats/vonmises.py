"""The von Mises distribution (``scipy.stats.vonmises``) of concentration
``kappa``: density ``exp(kappa cos z) / (2 pi I0(kappa)) / scale``,
``z = (x - loc) / scale``, on the whole real line (it is periodic, as in
SciPy and ``jax.scipy.stats``, not restricted to one period).

``log I0`` is computed here (``_log_i0e``) from two expansions written with
primitives, so it is differentiable to any order in ``kappa``:

* ``kappa <= 20``: the power series ``I0(k) = sum_j (k**2/4)**j / (j!)**2``
  (Abramowitz & Stegun 9.6.12), 37 terms, all positive (no cancellation); the
  first neglected term is below ``2e-19`` of the sum at ``k = 20``;
* ``kappa > 20``: the asymptotic expansion
  ``I0(k) exp(-k) sqrt(2 pi k) = sum_j c_j / k**j``,
  ``c_j = prod_{i<=j} (2i - 1)**2 / (8 i)`` (A&S 9.7.1), 30 terms; its terms
  shrink until ``j = 38`` at ``k = 20``, the 30th is below ``1e-18``.
"""
import math

from ...primitives import ops
from ._common import documented, exp_of, reals, standardize

__all__ = ["logpdf", "pdf"]

_LOG_2PI = math.log(2.0 * math.pi)
_SWITCH = 20.0
_SERIES = [1.0 / math.factorial(j) ** 2 for j in range(37)]
_ASYMPTOTIC = [1.0]
for _j in range(1, 30):
    _ASYMPTOTIC.append(_ASYMPTOTIC[-1] * (2 * _j - 1) ** 2 / (8 * _j))
_KAPPA = ("kappa", "Concentration, non-negative (0: uniform on a period).",
          lambda v: ops.ge(v, 0.0))


def _horner(coefficients, t):
    """``sum_j coefficients[j] t**j``."""
    out = ops.add(ops.zeros_like(t), coefficients[-1])
    for c in reversed(coefficients[:-1]):
        out = ops.add(ops.mul(out, t), c)
    return out


def _log_i0e(k):
    """``log(I0(k) exp(-k))`` for ``k >= 0`` (see the module docstring)."""
    small = ops.le(k, _SWITCH)
    ks = ops.select(small, k, ops.add(ops.zeros_like(k), _SWITCH))
    kl = ops.select(small, ops.add(ops.zeros_like(k), 2.0 * _SWITCH), k)
    series = ops.sub(ops.log(_horner(_SERIES, ops.mul(0.25, ops.square(ks)))), ks)
    asym = ops.sub(ops.log(_horner(_ASYMPTOTIC, ops.reciprocal(kl))),
                   ops.mul(0.5, ops.add(ops.log(kl), _LOG_2PI)))
    return ops.select(small, series, asym)


@documented("x", _KAPPA, "loc", "scale")
def logpdf(x, kappa, loc=0.0, scale=1.0):
    """``-2 kappa sin(z/2)**2 - log(2 pi) - log(I0(kappa) exp(-kappa)) - log scale``
    (``kappa (cos z - 1)`` written without cancellation near ``z = 0``)."""
    x, kappa, loc, scale = reals("vonmises.logpdf", x, kappa, loc, scale)
    z, scale = standardize(x, loc, scale, "vonmises.logpdf")
    k = ops.maximum(kappa, 0.0)
    bend = ops.mul(-2.0, ops.mul(k, ops.square(ops.sin(ops.mul(0.5, z)))))
    return ops.sub(bend, ops.add(ops.add(_LOG_2PI, _log_i0e(k)), ops.log(scale)))


pdf = exp_of(logpdf, "pdf")

"""Primitives of special functions (for ``tracegrad.scipy.special``).

``erfc``, ``lgamma``, ``gamma``, ``polygamma`` (digamma at ``n = 0``),
``erfcx``, ``ndtr``, ``log_ndtr``, ``ndtri`` and ``betaln``: one block each, with its
impl (a Numba loop of :mod:`._special_kernels`, which holds the methods
and their sources), abstract eval, JVP and VJP written with primitives (so
every order works: ``polygamma(n)' = polygamma(n + 1)``), batching rule and,
where the scalar function is one C-library call, its ``lowering`` for jit.

Each impl computes in float64 and rounds the result once to the operands'
float type (NumPy's promotion: float32 stays float32, integers give
float64).
"""
import math

import numpy as np

from . import ops
from .batching import defbatch_elementwise
from .core import Primitive, defjvp, defvjp
from .elementwise import _elementwise_aval
from .kernels import ensure_numba
from .lowering import Elementwise, same_float
from .structural import defvjp_broadcasting

__all__ = ["erfc", "lgamma", "gamma", "digamma", "polygamma", "erfcx", "ndtr", "log_ndtr",
           "ndtri",
           "betaln"]

_sk = None  # the module primitives._special_kernels, once imported


def _kernels():
    """The kernel module :mod:`._special_kernels` (imports Numba on first use)."""
    global _sk
    if _sk is None:
        ensure_numba()
        from . import _special_kernels  # lazy: imports Numba (and compiles) on first use

        _sk = _special_kernels
    return _sk


def _sample(x):
    """A 0-d stand-in of ``x`` for NumPy's promotion (Python scalars stay weak)."""
    return x if isinstance(x, (int, float)) else np.zeros((), np.asarray(x).dtype)


def _run(name, *xs, leading=()):
    """``kernel(*leading, *flat float64 operands, flat out)`` over the broadcast
    operands, rounded to their NumPy float result type (``np.sin``'s for
    one operand, ``np.arctan2``'s for two)."""
    dtype = (np.sin if len(xs) == 1 else np.arctan2)(*map(_sample, xs)).dtype
    arrays = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])
    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    out = np.empty(flat[0].size, np.float64)
    getattr(_sk or _kernels(), name)(*leading, *flat, out)
    return out.reshape(arrays[0].shape).astype(dtype, copy=False)[()]


def _unary(name, kernel, lowering=None):
    prim = Primitive(name)
    prim.def_impl(lambda x: _run(kernel, x))
    prim.def_abstract_eval(_elementwise_aval(np.sin))
    if lowering is not None:
        prim.lowering = Elementwise(lowering, accepts=same_float)
    defbatch_elementwise(prim)
    return prim


def _def_rule(prim, deriv):
    """JVP and VJP ``g * deriv(ans, x)`` of a unary elementwise ``prim``."""
    defjvp(prim, lambda g, ans, x, **p: ops.mul(g, deriv(ans, x, **p)))
    defvjp(prim, lambda g, ans, x, **p: ops.mul(g, deriv(ans, x, **p)))


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_INV_SQRT_2PI = 1.0 / _SQRT_2PI


# ==========================================================================
# erfc = 1 - erf, accurate in the upper tail

erfc_p = _unary("erfc", "erfc_kernel", "math.erfc({0})")
# erfc'(x) = -2 / sqrt(pi) exp(-x**2)
_def_rule(erfc_p, lambda ans, x: ops.mul(-_TWO_OVER_SQRT_PI, ops.exp(ops.neg(ops.square(x)))))


def erfc(x):
    """Complementary error function ``1 - erf(x)`` (the C library's ``erfc``)."""
    return erfc_p.bind(x)


# ==========================================================================
# polygamma(x, n): the n-th derivative of digamma (n = 0: digamma itself)

polygamma_p = Primitive("polygamma")
polygamma_p.def_impl(lambda x, n: _run("polygamma_kernel", x, leading=(n,)))
polygamma_p.def_abstract_eval(_elementwise_aval(lambda x, n: np.sin(x)))
defbatch_elementwise(polygamma_p)
_def_rule(polygamma_p, lambda ans, x, n: polygamma(n + 1, x))


def polygamma(n, x):
    """``psi^(n)(x)``, the ``n``-th derivative of digamma, elementwise.

    ``n`` is a static non-negative Python int (0 gives digamma); the
    derivative in ``x`` is ``polygamma(n + 1, x)``.
    """
    return polygamma_p.bind(x, n=int(n))


def digamma(x):
    """``psi(x) = Gamma'(x) / Gamma(x)``, elementwise (``polygamma(0, x)``)."""
    return polygamma_p.bind(x, n=0)


# ==========================================================================
# lgamma = log|Gamma|, gamma

lgamma_p = _unary("lgamma", "lgamma_kernel", "math.lgamma({0})")
_def_rule(lgamma_p, lambda ans, x: digamma(x))


def lgamma(x):
    """``log|Gamma(x)|`` (the C library's ``lgamma``; ``inf`` at 0, -1, -2, ...)."""
    return lgamma_p.bind(x)


gamma_p = _unary("gamma", "gamma_kernel", "sgamma({0})")
_def_rule(gamma_p, lambda ans, x: ops.mul(ans, digamma(x)))


def gamma(x):
    """``Gamma(x)`` (``+-inf`` at ``+-0``, NaN at the negative integers and
    ``-inf``, as SciPy; a Numba kernel, :func:`._special_kernels.gamma`)."""
    return gamma_p.bind(x)


# ==========================================================================
# erfcx(x) = exp(x**2) erfc(x)

erfcx_p = _unary("erfcx", "erfcx_kernel")
# erfcx'(x) = 2 x erfcx(x) - 2 / sqrt(pi)
_def_rule(erfcx_p, lambda ans, x: ops.sub(ops.mul(ops.mul(2.0, x), ans), _TWO_OVER_SQRT_PI))


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) erfc(x)``."""
    return erfcx_p.bind(x)


# ==========================================================================
# ndtr = Phi, the standard normal CDF

ndtr_p = _unary("ndtr", "ndtr_kernel")
# Phi'(x) = phi(x) = exp(-x**2 / 2) / sqrt(2 pi)
_def_rule(ndtr_p, lambda ans, x: ops.mul(_INV_SQRT_2PI, ops.exp(ops.mul(-0.5, ops.square(x)))))


def ndtr(x):
    """The standard normal CDF ``Phi(x)``, accurate in the lower tail."""
    return ndtr_p.bind(x)


# ==========================================================================
# log_ndtr = log Phi

log_ndtr_p = _unary("log_ndtr", "log_ndtr_kernel")
# (log Phi)'(x) = phi(x) / Phi(x) = exp(-x**2 / 2 - log Phi(x)) / sqrt(2 pi): no underflow
_def_rule(log_ndtr_p, lambda ans, x: ops.mul(
    _INV_SQRT_2PI, ops.exp(ops.sub(ops.mul(-0.5, ops.square(x)), ans))))


def log_ndtr(x):
    """``log(Phi(x))``, Phi the standard normal CDF, accurate in both tails."""
    return log_ndtr_p.bind(x)


# ==========================================================================
# ndtri = Phi**-1

ndtri_p = _unary("ndtri", "ndtri_kernel")
# (Phi**-1)'(p) = 1 / phi(Phi**-1(p)) = sqrt(2 pi) exp(ans**2 / 2)
_def_rule(ndtri_p, lambda ans, x: ops.mul(_SQRT_2PI, ops.exp(ops.mul(0.5, ops.square(ans)))))


def ndtri(p):
    """The standard normal quantile ``Phi**-1(p)`` (``-inf`` at 0, ``inf`` at 1)."""
    return ndtri_p.bind(p)


# ==========================================================================
# betaln(a, b) = log|B(a, b)|

betaln_p = Primitive("betaln")
betaln_p.def_impl(lambda a, b: _run("betaln_kernel", a, b))
betaln_p.def_abstract_eval(_elementwise_aval(np.arctan2))
defbatch_elementwise(betaln_p)


# d/da log B(a, b) = psi(a) - psi(a + b), and symmetrically in b
def _betaln_da(g, ans, a, b):
    return ops.mul(g, ops.sub(digamma(a), digamma(ops.add(a, b))))


def _betaln_db(g, ans, a, b):
    return ops.mul(g, ops.sub(digamma(b), digamma(ops.add(a, b))))


defjvp(betaln_p, _betaln_da, _betaln_db)
defvjp_broadcasting(betaln_p, _betaln_da, _betaln_db)


def betaln(a, b):
    """``log|B(a, b)|``, ``B = Gamma(a) Gamma(b) / Gamma(a + b)``, broadcast."""
    return betaln_p.bind(a, b)

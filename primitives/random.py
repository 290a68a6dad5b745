"""Primitives of keyed random numbers: the Threefry-2x32 block cipher, and
the two integer/float helpers the samplers of :mod:`tracegrad.random` need.

``threefry2x32(k1, k2, x1, x2)`` encrypts the counter pairs ``(x1, x2)``
under the key ``(k1, k2)`` (all ``uint32``, broadcast together) with 20
rounds of Threefry-2x32 (Salmon et al., "Parallel random numbers: as easy
as 1, 2, 3", SC 2011), the hash behind JAX's default PRNG.  None of the
first two has a derivative (their inputs are bit patterns); ``erf_inv`` has
one, for the samplers' real parameters (``truncated_normal``'s bounds).
"""
import math

import numpy as np

from . import ops
from .batching import defbatch_elementwise
from .core import Primitive, ShapedArray, def_nondifferentiable, defjvp, defvjp

__all__ = ["threefry2x32", "uint_xor", "erf_inv"]

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = np.uint32(0x1BD11BDA)


def _check_u32(name, avals):
    bad = [str(a.dtype) for a in avals if np.dtype(a.dtype) != np.uint32]
    if bad:
        raise TypeError(f"{name} needs uint32 operands, got {bad}: convert with "
                        "convert_element_type(x, np.uint32) first")


threefry2x32_p = Primitive("threefry2x32", multiple_results=True)


@threefry2x32_p.def_impl
def _threefry2x32_impl(k1, k2, x1, x2):
    k1, k2, x1, x2 = np.broadcast_arrays(*(np.asarray(a, np.uint32) for a in (k1, k2, x1, x2)))
    shape = x1.shape
    k1, k2, x1, x2 = (np.array(a, np.uint32).reshape(-1) for a in (k1, k2, x1, x2))
    ks = (k1, k2, k1 ^ k2 ^ _PARITY)
    x1 = x1 + ks[0]
    x2 = x2 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x1 += x2
            x2 = (x2 << np.uint32(r)) | (x2 >> np.uint32(32 - r))
            x2 ^= x1
        x1 += ks[(i + 1) % 3]
        x2 += ks[(i + 2) % 3] + np.uint32(i + 1)
    return [x1.reshape(shape), x2.reshape(shape)]


@threefry2x32_p.def_abstract_eval
def _threefry2x32_aval(k1, k2, x1, x2):
    _check_u32("threefry2x32", (k1, k2, x1, x2))
    shape = np.broadcast_shapes(*(tuple(a.shape) for a in (k1, k2, x1, x2)))
    return [ShapedArray(shape, np.uint32), ShapedArray(shape, np.uint32)]


def_nondifferentiable(threefry2x32_p)


def threefry2x32(k1, k2, x1, x2):
    """Threefry-2x32 (20 rounds) of the counters ``(x1, x2)`` under the key
    ``(k1, k2)``.

    Parameters
    ----------
    k1, k2, x1, x2 : uint32 arrays
        Broadcast together (NumPy's rules).

    Returns
    -------
    list of two uint32 arrays
        The two output words, of the broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not ``uint32``.
    """
    return threefry2x32_p.bind(k1, k2, x1, x2)


uint_xor_p = Primitive("uint_xor")


@uint_xor_p.def_impl
def _xor_impl(x, y):
    return np.bitwise_xor(x, y)


@uint_xor_p.def_abstract_eval
def _xor_aval(x, y):
    if np.dtype(x.dtype) != np.dtype(y.dtype) or np.dtype(x.dtype).kind not in "iub":
        raise TypeError(f"uint_xor needs two operands of one integer dtype, got "
                        f"{x.dtype} and {y.dtype}")
    return ShapedArray(np.broadcast_shapes(tuple(x.shape), tuple(y.shape)), x.dtype)


def_nondifferentiable(uint_xor_p)


def uint_xor(x, y):
    """Elementwise exclusive or of two integer arrays of one dtype (broadcast)."""
    return uint_xor_p.bind(x, y)


erf_inv_p = Primitive("erf_inv")


@erf_inv_p.def_impl
def _erf_inv_impl(x):
    try:
        import scipy.special  # lazy: scipy is heavy, optional, and only the samplers need it
    except ImportError:  # SciPy is not a run-time dependency: NumPy's own version
        return erf_inv_numpy(x)
    return np.asarray(scipy.special.erfinv(x), dtype=np.asarray(x).dtype)


_ERFC = np.frompyfunc(math.erfc, 1, 1)
_ERF = np.frompyfunc(math.erf, 1, 1)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# Newton steps from the float32-accurate start (quadratic: two would do; two
# more cover the extreme tail, where the start is made for float32's range)
_NEWTON_STEPS = 4


def erf_inv_numpy(x):
    """The inverse error function in NumPy (used when SciPy is absent).

    M. Giles' single-precision approximation ("Approximating the erfinv
    function", GPU Computing Gems, 2010: two polynomials in
    ``w = -log(1 - x**2)``) refined by Newton steps on ``erf(y) = |x|``
    in float64, on ``log(erfc(y)) = log(1 - |x|)`` for ``|x| >= 0.5``
    (``1 - |x|`` is exact there, and the logarithm makes the tail nearly
    linear, so the tails keep full relative accuracy).  Within a few ulp of SciPy's ``erfinv``; ``+-1 -> +-inf``,
    ``|x| > 1`` and NaN give NaN.

    Parameters
    ----------
    x : ndarray of float32 or float64

    Returns
    -------
    ndarray
        ``x``'s shape and dtype.
    """
    x = np.asarray(x)
    a = np.abs(x.astype(np.float64))
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - a) * (1.0 + a))
        c = w < 5.0
        u = np.where(c, w - 2.5, np.sqrt(w) - 3.0)
        central = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                   0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
        tail = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
                0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
        p = np.where(c, central[0], tail[0])
        for k1, k2 in zip(central[1:], tail[1:]):
            p = np.where(c, k1, k2) + p * u
        y = p * a
        big = a >= 0.5
        finite = np.isfinite(y) & (a < 1.0)
        log_q = np.log(1.0 - a)  # (exact: 1 - |x| for |x| >= 0.5)
        for _ in range(_NEWTON_STEPS):
            yf = np.where(finite, y, 0.0)
            density = _TWO_OVER_SQRT_PI * np.exp(-yf * yf)
            erfc = _ERFC(yf).astype(np.float64)
            # |x| >= 0.5: Newton on log(erfc(y)) = log(1 - |x|), nearly linear in the tail
            step_tail = (np.log(erfc) - log_q) * erfc / density
            step_central = (_ERF(yf).astype(np.float64) - a) / density
            y = np.where(finite, yf + np.where(big, step_tail, -step_central), y)
        y = np.where(a == 1.0, np.inf, np.where(a > 1.0, np.nan, y))
    return np.asarray(np.copysign(y, x), dtype=x.dtype)


@erf_inv_p.def_abstract_eval
def _erf_inv_aval(x):
    if np.dtype(x.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"erf_inv needs float32 or float64, got {x.dtype}")
    return ShapedArray(x.shape, x.dtype)


_HALF_SQRT_PI = float(0.5 * np.sqrt(np.pi))  # a Python float keeps float32 float32


def _erf_inv_rule(g, ans, x):
    # d erfinv(x) / dx = 1 / erf'(erfinv(x)) = sqrt(pi) / 2 * exp(erfinv(x)**2)
    return ops.mul(g, ops.mul(ops.exp(ops.square(ans)), _HALF_SQRT_PI))


defjvp(erf_inv_p, _erf_inv_rule)
defvjp(erf_inv_p, _erf_inv_rule)


def erf_inv(x):
    """Inverse error function (SciPy's ``erfinv``) of a float array in (-1, 1),
    float32 or float64; derivative ``sqrt(pi) / 2 * exp(erf_inv(x)**2)``.
    """
    return erf_inv_p.bind(x)


defbatch_elementwise(threefry2x32_p, uint_xor_p, erf_inv_p)

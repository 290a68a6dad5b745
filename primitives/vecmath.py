"""Vectorizable float math in Numba: exp, sin, cos, tanh.

On these machines (AVX2, no AVX-512) NumPy's float64 ``exp``, ``sin``,
``cos`` and ``tanh`` run the scalar C library one element at a time, and so
does a Numba loop calling ``math.exp``.  The kernels here are instead written
as branch-free polynomial code that LLVM turns into AVX2 (4 doubles per
instruction, fused multiply-add): 3-5x faster than NumPy on large arrays (see
the kernel table in the README, produced by ``benchmarks/kernels.py``).

Method (the textbook one; see J.-M. Muller, "Elementary Functions:
Algorithms and Implementation", chapters on range reduction and polynomial
approximation):

* ``exp``: ``x = k ln2 + r`` with ``|r| <= ln2/2`` (Cody-Waite: ``ln 2`` in
  two parts so ``k * LN2_HI`` is exact), ``exp(r)`` by its Taylor polynomial
  to degree 13 (truncation below 1e-17 relative), then scaling by ``2**k``
  built directly from its IEEE-754 bit pattern.
* ``sin``/``cos``: ``x = q pi/2 + r`` with ``|r| <= pi/4`` (``pi/2`` in three
  parts of 33, 33 and 53 bits, exact products for ``|q| < 2**19``), Taylor
  polynomials of ``sin`` (to degree 17) and ``cos`` (to degree 16) on the
  reduced argument, quadrant chosen by selects, not branches.
* ``tanh``: ``tanh(a) = e / (e + 2)`` with ``e = expm1(2a)``, ``a = |x|``
  clamped to 20 (where tanh rounds to 1), ``expm1`` by the same reduction as
  ``exp`` (``expm1(y) = 2**k expm1(r) + (2**k - 1)``, exact for small ``y``).

Measured accuracy against NumPy (the C library) is within 1 ulp for exp
(over its whole range, subnormal results included: ``2**k`` is applied as two
normal factors, so over- and underflow round as the C library's do), 2 ulp
for sin and cos and 3 ulp for tanh (tests in ``tests/test_vecmath.py``).
Inputs outside the reduced ranges of sin/cos (|x| > 1e5), inf, NaN and
signed zeros are recomputed with the C library in a second, scalar pass, so
special values match NumPy exactly.
float32 inputs are computed in float64 and rounded once.

Each public function takes and returns arrays; small arrays (where a Numba
call's fixed cost exceeds NumPy's) and non-float dtypes go to NumPy.
"""
import numpy as np

from .kernels import FLOAT_DTYPES, ensure_numba

__all__ = ["exp", "sin", "cos", "tanh", "MIN_KERNEL_SIZE"]

#: Arrays smaller than this use NumPy: a Numba call costs ~1 us more.
MIN_KERNEL_SIZE = 128

_kernels = None


def _load_kernels():
    """Import the Numba kernels (and Numba itself) on first use."""
    global _kernels
    ensure_numba()
    from . import _vecmath_kernels as k

    _kernels = {"exp": k.exp_kernel, "sin": k.sin_kernel, "cos": k.cos_kernel,
                "tanh": k.tanh_kernel}
    return _kernels


def _apply(name, np_fn, x):
    if (
        type(x) is np.ndarray
        and x.dtype in FLOAT_DTYPES
        and x.size >= MIN_KERNEL_SIZE
    ):
        out = np.empty(x.shape, x.dtype)
        kernels = _kernels or _load_kernels()
        kernels[name](np.ascontiguousarray(x).reshape(-1), out.reshape(-1))
        return out
    return np_fn(x)


def exp(x):
    """``e**x``: vectorized Numba kernel for float arrays of 128+ elements."""
    return _apply("exp", np.exp, x)


def sin(x):
    """``sin(x)``: vectorized Numba kernel for float arrays of 128+ elements."""
    return _apply("sin", np.sin, x)


def cos(x):
    """``cos(x)``: vectorized Numba kernel for float arrays of 128+ elements."""
    return _apply("cos", np.cos, x)


def tanh(x):
    """``tanh(x)``: vectorized Numba kernel for float arrays of 128+ elements."""
    return _apply("tanh", np.tanh, x)


"""Vectorizable float math in Numba: exp, sin, cos, tanh.

On these machines (AMD EPYC, AVX2 and AVX-512) NumPy's float64 ``exp``, ``sin``,
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

``sin_grad(g, x) = g * cos(x)`` and ``cos_grad(g, x) = -g * sin(x)`` fuse the
derivative of sin and cos with the multiplication by the incoming
cotangent (one pass instead of two).

Each public function takes and returns arrays; small arrays (where a Numba
call's fixed cost exceeds NumPy's) and non-float dtypes go to NumPy.  Arrays
of ``PARALLEL_MIN_SIZE`` elements or more are split over
:func:`num_threads` threads (the kernels release the GIL; on two CPUs this
made them 1.2-1.4x faster).

Scalar functions for fused loops (the code generator's interface)
-----------------------------------------------------------------
:mod:`._vecmath_kernels` also exports scalar functions, each
``@numba.njit(inline="always")``, branch-free (selects only, no libm call),
for use inside generated loops ``out[i] = f(x[i])``.  ``<name>_f64(x)``
takes any float and returns float64; ``<name>_f32(x)`` returns float32,
computed in float64 and rounded once (measured as fast as the float64
version: the loop is compute-bound, not memory-bound).

===========  ===============================  ======  ======  ==============
name         domain of the fast function      f64     f32     loop / NumPy
                                              max ulp max ulp f64 / f32
===========  ===============================  ======  ======  ==============
exp          all floats                       0.96    0.50    0.97 / 1.61
log          all floats                       0.77    0.50    1.47 / 3.21
log1p        all floats                       1.39    0.50    1.41 / 2.54
expm1        all floats                       1.70    0.50    1.25 / 3.29
tanh         all floats                       2.31    0.50    0.53 / 2.25
sigmoid      all floats (1 / (1 + exp(-x)))   2.13    0.50    0.54 / 1.22
sin, cos     |x| <= 1e5, inf, NaN             2.00    1.00    0.06 / 2.08
pow          all float pairs (C99 specials)   1.54    0.50    2.00 / 20.3
erf          all floats (vs math.erf)         1.00    0.50    0.17 / 0.18
===========  ===============================  ======  ======  ==============

(ulp: against NumPy's 80-bit long double over log-uniform points covering
the whole range, tests/test_vecmath.py; time: 1e6 elements, medians,
``python benchmarks/vecmath.py``.  Against a Numba loop calling ``math.*``
every function is 2-16x faster: they vectorize.  NumPy 2.4 has SIMD float64
exp/log/log1p/expm1 and all float32 loops here, which these do not beat
standalone; inside a fused loop they save the memory passes instead.)

Special values (inf, -inf, NaN, +-0.0, subnormal inputs and results,
overflow and underflow) come out of the fast functions themselves, equal to
NumPy's.  The one exception is ``sin``/``cos`` at finite ``|x| > 1e5``
(the three-part Cody-Waite reduction is exact only below): a fused loop ORs
``needs_fixup_trig(x)`` into a flag and, if set, recomputes the flagged
elements with ``math.sin``/``math.cos`` in a second scalar pass.

Sources: exp/expm1/tanh as above; ``sigmoid`` is ``e / (1 + e)`` with
``e = exp(-|x|)`` for x < 0 (exact lower tail into the subnormals) and
``1 / (1 + e)`` for x >= 0; ``log`` reduces ``x = 2**k m`` with
``sqrt(2)/2 <= m < sqrt(2)`` (subnormals scaled by 2**54 first), then
``log(m) = log((1 + s) / (1 - s))``, ``s = (m - 1) / (m + 1)``, by the
atanh series to ``s**23`` (Muller, chapter on range reduction and
polynomial approximation; the ``f - (f**2/2 - s (f**2/2 + R))`` arrangement
keeps the rounding below 1 ulp); ``log1p(x) = log(u) + (x - (u - 1)) / u``
with ``u = 1 + x`` (D. Goldberg, "What every computer scientist should know
about floating-point arithmetic", 1991).

``pow(x, y)`` (``pow_f64``): ``exp(y log|x|)`` with ``log|x|`` as a
double-double (the reduction above, then ``s = f / (2 + f)``, ``s**2``,
``s**3`` and the ``2 s + 2 s**3 / 3`` terms carried in double-double with
exact FMA products, Dekker/Knuth two-sum; T. J. Dekker, "A floating-point
technique for extending the available precision", 1971), so ``y log|x|`` is
known to about 2**-53 absolute up to over/underflow, and ``exp`` of the
double-double by fexp's reduction with the low part added to ``r``.  Signs
and special values follow C99 Annex F (as NumPy): ``x**0 = 1``, ``1**y = 1``
(NaN included), ``0**-y = inf`` (signed for odd integer ``y``), negative
bases with non-integer ``y`` NaN.  ``pow_f32`` needs no double-double:
``|y log x| <= 104`` in float32's range.  ``erf``: ``x + x R(x**2)`` by the
Maclaurin series (Abramowitz and Stegun 7.1.5, 18 terms) for ``|x| < 1``;
``1 - exp(-x**2) P(t) / Q(t)``, ``t = |x| - 1``, a degree-6/6 weighted
least-squares rational fit of ``erfc(x) exp(x**2)`` on [1, 6] made for this
module against mpmath (absolute erfc error below 2e-19); 1 beyond 6.
(pow: ulp against 80-bit ``powl``, loop/math 0.52-0.68 (f64) and
0.70-0.86 (f32): NumPy 2.4's SIMD float32 ``power`` is far faster, and so,
in a loop, is ``powf``, which jit's float32 ``pow`` keeps; erf: against
``math.erf``, loop/math 0.19 / 0.21, the NumPy column is
``scipy.special.erf``.)

Vectorization: the machine code of each loop ``out[i] = f(x[i])``
(``inspect_asm``) does packed float64 arithmetic: on this AVX-512 machine
LLVM picks 8-wide ``zmm`` vectors for the longer bodies (4-wide ``ymm`` for
short ones), the scalar ``sd`` copy being the remainder loop
(``tests/test_vecmath.py::test_scalar_functions_vectorize``, the ``vec``
column of ``benchmarks/vecmath.py``).
"""
import numpy as np

from .kernels import FLOAT_DTYPES, ensure_numba, launch, num_threads

__all__ = [
    "exp", "sin", "cos", "tanh", "sin_grad", "cos_grad", "MIN_KERNEL_SIZE",
    "PARALLEL_MIN_SIZE", "num_threads",
]

#: Arrays smaller than this use NumPy: a Numba call costs ~1 us more.
MIN_KERNEL_SIZE = 128
#: Arrays at least this large are split across threads (the kernels release
#: the GIL); below it, starting a thread costs more than it saves.
PARALLEL_MIN_SIZE = 1 << 18


_kernels = None


def _load_kernels():
    """Import the Numba kernels (and Numba itself) on first use."""
    global _kernels
    ensure_numba()
    from . import _vecmath_kernels as k  # lazy: imports Numba (and compiles) on first use

    _kernels = {
        "exp": k.exp_kernel, "sin": k.sin_kernel, "cos": k.cos_kernel,
        "tanh": k.tanh_kernel, "sin_grad": k.sin_grad_kernel,
        "cos_grad": k.cos_grad_kernel,
    }
    return _kernels


def _launch(kernel, inputs, out):
    """``kernel(*inputs, out)`` on flat arrays, split over threads from
    :data:`PARALLEL_MIN_SIZE` elements (:func:`.kernels.launch`)."""
    launch(kernel, inputs, out, PARALLEL_MIN_SIZE)


def _eligible(x, dtype=None):
    return (
        type(x) is np.ndarray
        and x.dtype in FLOAT_DTYPES
        and (dtype is None or x.dtype == dtype)
        and x.size >= MIN_KERNEL_SIZE
    )


def _apply(name, np_fn, x):
    if _eligible(x):
        out = np.empty(x.shape, x.dtype)
        kernels = _kernels or _load_kernels()
        _launch(kernels[name], (np.ascontiguousarray(x).reshape(-1),), out.reshape(-1))
        return out
    return np_fn(x)


def _apply_grad(name, np_fn, g, x):
    if _eligible(x) and _eligible(g, x.dtype) and g.shape == x.shape:
        out = np.empty(x.shape, x.dtype)
        kernels = _kernels or _load_kernels()
        flat = tuple(np.ascontiguousarray(a).reshape(-1) for a in (g, x))
        _launch(kernels[name], flat, out.reshape(-1))
        return out
    return np_fn(g, x)


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


def sin_grad(g, x):
    """``g * cos(x)`` in one pass (same-shape float arrays of 128+ elements)."""
    return _apply_grad("sin_grad", lambda g, x: g * np.cos(x), g, x)


def cos_grad(g, x):
    """``-(g * sin(x))`` in one pass (same-shape float arrays of 128+ elements)."""
    return _apply_grad("cos_grad", lambda g, x: -(g * np.sin(x)), g, x)

"""More elementwise functions of ``tracegrad.numpy``: array-API aliases, angle
conversions, ``sinc``, the sign-manipulating functions and the float
decompositions.

Each is a composite of existing primitives, so every derivative rule comes
from those and differentiates again to any order.  Values on plain arrays
are NumPy's (the composites are chosen to be exact: scaling by powers of two,
negation and selection do not round).  Each function is registered for the
NumPy function of the same name, so ``np.sinc(tracer)`` works.
"""
import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..core import Tracer, concrete_value
from ..primitives import ops
from ._core import arg, result_type
from ._dispatch import implements
from ._elementwise import (
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    real,
)
from ._join import concatenate
from ._reductions import cumsum
from ._shape import transpose
from ._statistics import diff
from . import linalg as _linalg

__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "concat", "permute_dims",
    "matrix_transpose", "deg2rad", "rad2deg", "degrees", "radians", "sinc", "fabs", "fmod",
    "copysign", "float_power", "logaddexp2", "heaviside", "nan_to_num", "real_if_close",
    "signbit", "ldexp", "frexp",
]

# array-API names (NumPy 2 defines them as the same objects)
acos = arccos
acosh = arccosh
asin = arcsin
asinh = arcsinh
atan = arctan
atan2 = arctan2
atanh = arctanh
concat = concatenate
permute_dims = transpose


@implements(np.matrix_transpose)
def matrix_transpose(x, /):
    """Swap the last two axes (``numpy.matrix_transpose``).

    Parameters
    ----------
    x : array_like or tracer, shape (..., M, N)

    Returns
    -------
    array or tracer, shape (..., N, M)
        Same dtype; differentiable (the derivative is the transpose).

    Raises
    ------
    ValueError
        If ``x`` has fewer than two dimensions.
    """
    return _linalg.matrix_transpose(x)


def _x(a):
    return a if isinstance(a, Tracer) else arg(a)


def _dtype(a):
    return a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype


def _floating(a):
    """``a`` cast to NumPy's float result dtype of a unary ufunc (ints -> float64)."""
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return float(a)
    dt = _dtype(a)
    if dt.kind in "fc":
        return a
    return ops.convert_element_type(a, np.float64 if dt.itemsize > 2 or dt.kind == "b"
                                    else np.float16 if dt.itemsize == 1 else np.float32)


def _check(name, out, kwargs):
    if out is not None:
        raise TypeError(f"tracegrad.numpy.{name} does not support out=: arrays are immutable "
                        "under transforms; use the return value.")
    for k in ("casting", "order", "subok", "dtype"):
        kwargs.pop(k, None)
    if kwargs.pop("where", True) is not True:
        raise TypeError(f"tracegrad.numpy.{name} does not support where=; use "
                        "tracegrad.numpy.where(mask, f(x), other) instead.")
    if kwargs:
        raise TypeError(f"tracegrad.numpy.{name} got unsupported keywords {sorted(kwargs)}")


_DEG = math.pi / 180.0
_RAD = 180.0 / math.pi


@implements(np.deg2rad, np.radians)
def deg2rad(x, /, out=None, **kwargs):
    """Degrees to radians, ``x * pi / 180`` (``radians`` is the same function).

    Parameters
    ----------
    x : array_like or tracer
        Any shape; integers give float64, as in NumPy.

    Returns
    -------
    array or tracer
        Same shape; float dtype of ``x``.  Derivative ``pi / 180``.

    Raises
    ------
    TypeError
        If ``out`` or ``where`` is given.
    """
    _check("deg2rad", out, kwargs)
    return ops.mul(_floating(_x(x)), _DEG)


@implements(np.rad2deg, np.degrees)
def rad2deg(x, /, out=None, **kwargs):
    """Radians to degrees, ``x * 180 / pi`` (``degrees`` is the same function).

    Parameters
    ----------
    x : array_like or tracer
        Any shape; integers give float64, as in NumPy.

    Returns
    -------
    array or tracer
        Same shape; float dtype of ``x``.  Derivative ``180 / pi``.

    Raises
    ------
    TypeError
        If ``out`` or ``where`` is given.
    """
    _check("rad2deg", out, kwargs)
    return ops.mul(_floating(_x(x)), _RAD)


radians = deg2rad
degrees = rad2deg

@implements(np.sinc)
def sinc(x):
    """The normalized sinc function ``sin(pi x) / (pi x)``, 1 at ``x = 0``.

    Parameters
    ----------
    x : array_like or tracer
        Any shape; integers give float64.

    Returns
    -------
    array or tracer
        Same shape and float dtype.

    Notes
    -----
    Near 0 (``|pi x| < 1e-3``) the value is the Taylor series
    ``1 - u**2/6 + u**4/120 - u**6/5040`` with ``u = pi x``, so every
    derivative at 0 is the limit of the derivatives of ``sin(u)/u`` (first
    derivative 0, second ``-pi**2/3``), not only the value.  Elsewhere the
    quotient is used.  One primitive (``primitives.elementwise_fused``):
    a fused Numba pass for the value and one for the derivative.
    """
    x = x if isinstance(x, Tracer) else np.asarray(x)
    return ops.sinc(_floating(x))


@implements(np.fabs)
def fabs(x, /, out=None, **kwargs):
    """Absolute value as a float (``numpy.fabs``): integers give float64.

    Parameters
    ----------
    x : array_like or tracer (real)

    Returns
    -------
    array or tracer
        Same shape, float dtype.  Derivative ``sign(x)``, 0 at ``x = 0``
        (as for ``abs``).

    Raises
    ------
    TypeError
        If ``x`` is complex (NumPy's ``fabs`` is not defined there), or
        ``out``/``where`` is given.
    """
    _check("fabs", out, kwargs)
    x = _x(x)
    if _dtype(x).kind == "c":
        raise TypeError("fabs is not defined for complex input (as in NumPy); use abs")
    return ops.abs(_floating(x))


def _signbit(x):
    """Bool: the sign bit of ``x`` (true for -0.0 and negative values)."""
    if not isinstance(x, Tracer):
        return np.signbit(x)
    # arctan2(+-0.0, -1) is +-pi, so this sees the sign of zero; NaN gives False
    return ops.lt(ops.arctan2(x, ops.full_like(x, -1.0)), 0.0)


@implements(np.signbit)
def signbit(x, /, out=None, **kwargs):
    """True where the sign bit of ``x`` is set (negative values and ``-0.0``).

    Parameters
    ----------
    x : array_like or tracer (real)

    Returns
    -------
    array of bool or bool tracer
        Same shape; no derivative.

    Notes
    -----
    On a tracer the sign of a NaN is not read (the result is False), since
    no primitive exposes the sign bit of a NaN; plain arrays get NumPy's
    answer.
    """
    _check("signbit", out, kwargs)
    x = _x(x)
    if isinstance(x, Tracer) and _dtype(x).kind in "iub":
        return ops.lt(x, 0)
    return _signbit(_floating(x) if isinstance(x, Tracer) else np.asarray(x))


def _cast(x, dt):
    if isinstance(x, float):
        return np.asarray(x, dt)
    return x if _dtype(x) == dt else ops.convert_element_type(x, dt)


def _binary(x1, x2):
    return _x(x1), _x(x2)


@implements(np.fmod)
def fmod(x1, x2, /, out=None, **kwargs):
    """The C remainder ``x1 - trunc(x1 / x2) * x2``: it has the sign of ``x1``.

    Parameters
    ----------
    x1, x2 : array_like or tracer
        Broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape; NumPy's dtype.  ``fmod(x, 0)`` is NaN for
        floats.

    Notes
    -----
    A primitive computing NumPy's ``fmod`` (bit for bit).  Partial
    derivatives ``(1, -trunc(x1 / x2))``, the quotient exact (that of
    ``floor_divide(|x1|, |x2|)``), also at ``x1 = 0`` (where the function is
    ``x1`` itself for any ``x2 != 0``); NaN in ``x2`` where the value is NaN.
    """
    _check("fmod", out, kwargs)
    x1, x2 = _binary(x1, x2)
    if not isinstance(x1, Tracer) and not isinstance(x2, Tracer):
        return np.fmod(x1, x2)
    return ops.fmod(x1, x2)


@implements(np.copysign)
def copysign(x1, x2, /, out=None, **kwargs):
    """``x1`` with the sign of ``x2`` (the sign bit, so ``-0.0`` counts as negative).

    Parameters
    ----------
    x1, x2 : array_like or tracer
        Broadcast together; integers give float64.

    Returns
    -------
    array or tracer
        The broadcast shape; float dtype.

    Notes
    -----
    Computed on tracers as ``(x1 + 0.0) * m`` with the constant
    ``m = -1`` where ``(x1 < 0) != signbit(x2)``, else ``+1`` (``+ 0.0``
    makes ``-0.0`` positive, so a zero gets exactly ``x2``'s sign): the
    derivative in ``x1`` is ``m``, at ``x1 = +-0.0`` the sign of ``x2``
    (JAX's value, the derivative of ``|x1|`` or ``-|x1|`` from the right),
    and the derivative pass is one multiplication.  None in ``x2``.
    """
    _check("copysign", out, kwargs)
    x1, x2 = _binary(x1, x2)
    if not isinstance(x1, Tracer) and not isinstance(x2, Tracer):
        return np.copysign(x1, x2)
    x1 = _floating(x1)
    x2 = _floating(x2)
    x1 = _cast(x1, result_type(x1, x2))
    flip = ops.ne(ops.lt(x1, 0.0), _signbit(x2))  # bool: no derivative
    m = ops.select(flip, ops.full_like(x1, -1.0), ops.full_like(x1, 1.0))
    return ops.mul(ops.add(x1, 0.0), m)


@implements(np.float_power)
def float_power(x1, x2, /, out=None, **kwargs):
    """``x1 ** x2`` computed in float64 (``numpy.float_power``).

    Parameters
    ----------
    x1, x2 : array_like or tracer
        Broadcast together; cast to float64 first (complex stays complex).

    Returns
    -------
    array or tracer
        The broadcast shape, float64 (also for float32 input).  Partial
        derivatives and edge conventions as for ``power``.
    """
    _check("float_power", out, kwargs)
    x1, x2 = _binary(x1, x2)

    def f64(v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        return v if _dtype(v) in (np.float64, np.complex128) else ops.convert_element_type(
            v, np.complex128 if _dtype(v).kind == "c" else np.float64)

    return ops.pow(f64(x1), f64(x2))



@implements(np.logaddexp2)
def logaddexp2(x1, x2, /, out=None, **kwargs):
    """``log2(2**x1 + 2**x2)`` without overflow.

    Parameters
    ----------
    x1, x2 : array_like or tracer
        Broadcast together.

    Returns
    -------
    array or tracer
        The broadcast shape; float dtype.

    Notes
    -----
    NumPy's ``logaddexp2`` (a primitive); partial derivatives
    ``(sigmoid((x1 - x2) ln 2), sigmoid((x2 - x1) ln 2))``, 0.5 each at a tie,
    each one fused pass.
    """
    _check("logaddexp2", out, kwargs)
    x1, x2 = _binary(x1, x2)
    return ops.logaddexp2(_floating(x1), _floating(x2))


@implements(np.heaviside)
def heaviside(x1, x2, /, out=None, **kwargs):
    """The Heaviside step: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``.

    Parameters
    ----------
    x1 : array_like or tracer
        Where to step (no derivative).
    x2 : array_like or tracer
        The value at ``x1 == 0``; broadcast against ``x1``.

    Returns
    -------
    array or tracer
        The broadcast shape; the promoted float dtype.  NaN where ``x1`` is
        NaN.  The derivative flows into ``x2`` where ``x1 == 0``; none into
        ``x1``.
    """
    _check("heaviside", out, kwargs)
    x1, x2 = _binary(x1, x2)
    if not isinstance(x1, Tracer) and not isinstance(x2, Tracer):
        return np.heaviside(x1, x2)
    x1 = _floating(x1)
    x2 = _floating(x2)
    dt = result_type(x1, x2)
    # x1's shape, NaN where x1 is NaN (no derivative: the step is constant)
    x1 = ops.stop_gradient(x1)
    zero = _cast(ops.select(ops.isnan(x1), x1, ops.zeros_like(x1)), dt)
    step = ops.select(ops.gt(x1, 0.0), ops.add(zero, 1.0), zero)
    return ops.select(ops.eq(x1, 0.0), _cast(x2, dt), step)


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf``.

    Parameters
    ----------
    x : array_like or tracer
    copy : bool
        Ignored (a new array is always returned).
    nan, posinf, neginf : float, optional
        Replacements; ``posinf``/``neginf`` default to the largest/smallest
        finite value of the dtype.

    Returns
    -------
    array or tracer
        Same shape and dtype; integers and bools pass through unchanged.
        The derivative is 1 at finite entries and 0 at replaced ones.

    Raises
    ------
    TypeError
        If ``x`` is complex and traced (complex tracers are not supported
        here); plain complex arrays get NumPy's result.
    """
    x = _x(x)
    dt = _dtype(x)
    if not isinstance(x, Tracer):
        return np.nan_to_num(np.asarray(x), copy=True, nan=nan, posinf=posinf, neginf=neginf)
    if dt.kind in "iub":
        return x
    if dt.kind == "c":
        raise TypeError("nan_to_num of a complex tracer is not supported; apply it to "
                        "real(x) and imag(x) separately")
    info = np.finfo(dt)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    # the replacements are constants, so the derivative pass is one select
    xs = ops.stop_gradient(x)
    fill = ops.select(ops.isnan(xs), ops.full_like(xs, nan),
                      ops.select(ops.gt(xs, 0.0), ops.full_like(xs, hi), ops.full_like(xs, lo)))
    return ops.select(ops.isfinite(xs), x, fill)


@implements(np.real_if_close)
def real_if_close(a, tol=100):
    """The real part if every imaginary part is within ``tol`` machine epsilons of 0.

    Parameters
    ----------
    a : array_like or tracer
        Any shape and dtype.
    tol : float
        In machine epsilons of ``a``'s dtype (above 1) or absolute, as in
        ``numpy.real_if_close``.

    Returns
    -------
    array or tracer
        NumPy's choice, made on the concrete value: a real ``a`` unchanged
        (derivative 1); a complex ``a`` whose imaginary parts are all within
        ``tol`` becomes :func:`real` of it (float64 for complex128, float32
        for complex64; derivative ``Re(da)``, a real cotangent ``c`` goes back
        as ``c + 0j``); otherwise ``a`` unchanged (derivative 1).

    Raises
    ------
    TypeError
        For a complex ``a`` that varies over a ``vmap``'d axis: the result's
        dtype depends on the values of every example, so it is not defined
        per example. Use :func:`real` (or keep the complex value) there.

    Notes
    -----
    The choice reads the concrete value, as NumPy does; the derivative is
    that of the branch taken (autograd's rule: the identity, projected onto
    the real part when the result is real). JAX has no ``real_if_close``.
    """
    a = _x(a)
    if not isinstance(a, Tracer):
        return np.real_if_close(np.asarray(a), tol=tol)
    if _dtype(a).kind != "c":
        return a
    try:
        value = np.asarray(concrete_value(a))
    except TypeError as e:  # a vmap-batched value has no single concrete value
        raise TypeError(
            "tracegrad.numpy.real_if_close of a complex value needs its concrete value (the "
            "result's dtype depends on it), which this transform does not have; use "
            f"tracegrad.numpy.real (or keep the complex value) inside vmap: {e}"
        ) from None
    if np.real_if_close(value, tol=tol).dtype.kind == "c":
        return a
    return real(a)


@implements(np.ldexp)
def ldexp(x1, x2, /, out=None, **kwargs):
    """``x1 * 2**x2`` (``numpy.ldexp``), ``x2`` integer.

    Parameters
    ----------
    x1 : array_like or tracer
        Float mantissas; integers give float64.
    x2 : array_like of int
        Exponents (no derivative), broadcast against ``x1``.

    Returns
    -------
    array or tracer
        The broadcast shape; float dtype of ``x1``.  Derivative ``2**x2`` in
        ``x1``.

    Raises
    ------
    TypeError
        If ``x2`` is not integer.

    Notes
    -----
    A primitive computing NumPy's ``ldexp`` (exact, also where ``2**x2``
    alone would overflow or underflow); linear in ``x1``, so its derivative
    is ``ldexp`` again.
    """
    _check("ldexp", out, kwargs)
    x1, x2 = _binary(x1, x2)
    if _dtype(x2).kind not in "iub":
        raise TypeError(f"ldexp needs integer exponents x2, got dtype {_dtype(x2)}")
    return ops.ldexp(_floating(x1), x2)


@implements(np.frexp)
def frexp(x, /, out=None, **kwargs):
    """Split ``x`` into mantissa and exponent: ``x = m * 2**e``, ``0.5 <= |m| < 1``.

    Parameters
    ----------
    x : array_like or tracer (real)

    Returns
    -------
    m : array or tracer
        Same shape and float dtype as ``x``; 0 at 0, ``x`` itself at inf and
        NaN.  Derivative ``2**-e`` (``e`` is piecewise constant).
    e : ndarray of int32 or tracer
        The exponents (no derivative); 0 at 0, inf and NaN.

    Notes
    -----
    On tracers ``e`` starts from ``floor(log2(|x|)) + 1`` and is corrected by
    one where ``|x| * 2**-e`` falls outside ``[0.5, 1)``; the scalings are
    ``ldexp`` (exact, subnormal ``x`` too), so ``m`` is exact and its
    derivative pass is one ``ldexp``.
    """
    _check("frexp", out, kwargs)
    x = _x(x)
    if not isinstance(x, Tracer):
        return np.frexp(x)
    x = _floating(x)
    a = ops.abs(ops.stop_gradient(x))
    regular = ops.logical_and(ops.isfinite(a), ops.gt(a, 0.0))
    safe = ops.select(regular, a, ops.ones_like(a))
    e = ops.convert_element_type(ops.add(ops.floor(ops.log2(safe)), 1.0), np.int32)
    m = ops.ldexp(safe, ops.neg(e))
    e = ops.add(e, ops.sub(ops.convert_element_type(ops.ge(m, 1.0), np.int32),
                           ops.convert_element_type(ops.lt(m, 0.5), np.int32)))
    e = ops.select(regular, e, ops.zeros_like(e))
    return ops.ldexp(x, ops.neg(e)), e



# --------------------------------------------------------------------------
# comparisons with tolerance (bool results, no derivative)


@implements(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (``numpy.isclose``).

    Parameters
    ----------
    a, b : array_like or tracer
        Broadcast together.
    rtol, atol : float
    equal_nan : bool
        Whether two NaNs compare equal.

    Returns
    -------
    bool array or tracer (no derivative)
        Infinities are close only to the same infinity, as in NumPy.
    """
    a, b = _binary(a, b)
    if not isinstance(a, Tracer) and not isinstance(b, Tracer):
        return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    a, b = _floating(a), _floating(b)
    finite = ops.logical_and(ops.isfinite(a), ops.isfinite(b))
    close = ops.le(ops.abs(ops.sub(a, b)), ops.add(atol, ops.mul(rtol, ops.abs(b))))
    out = ops.select(finite, close, ops.eq(a, b))
    if equal_nan:
        out = ops.logical_or(out, ops.logical_and(ops.isnan(a), ops.isnan(b)))
    return out


@implements(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element of :func:`isclose` is (``numpy.allclose``).

    Parameters
    ----------
    a, b : array_like or tracer
    rtol, atol : float
    equal_nan : bool

    Returns
    -------
    bool, or a 0-d bool tracer for traced input (no derivative)
    """
    c = isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if isinstance(c, Tracer):
        return ops.reduce_all(c, tuple(range(len(c.shape))))
    return bool(np.all(c))


def _shape_of(a):
    return tuple(a.shape) if isinstance(a, Tracer) else np.shape(a)


@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """True if the arrays have the same shape and elements (``numpy.array_equal``).

    Parameters
    ----------
    a1, a2 : array_like or tracer
    equal_nan : bool

    Returns
    -------
    bool, or a 0-d bool tracer for traced input (no derivative)
        False for different shapes.
    """
    a1, a2 = _binary(a1, a2)
    if _shape_of(a1) != _shape_of(a2):
        return False
    if not isinstance(a1, Tracer) and not isinstance(a2, Tracer):
        return bool(np.array_equal(a1, a2, equal_nan=equal_nan))
    eq = ops.eq(a1, a2)
    if equal_nan:
        eq = ops.logical_or(eq, ops.logical_and(ops.isnan(a1), ops.isnan(a2)))
    return ops.reduce_all(eq, tuple(range(len(_shape_of(a1)))))


@implements(np.array_equiv)
def array_equiv(a1, a2):
    """True if the arrays broadcast together and are equal everywhere (``numpy.array_equiv``).

    Parameters
    ----------
    a1, a2 : array_like or tracer

    Returns
    -------
    bool, or a 0-d bool tracer for traced input (no derivative)
        False if the shapes do not broadcast.
    """
    a1, a2 = _binary(a1, a2)
    try:
        shape = np.broadcast_shapes(_shape_of(a1), _shape_of(a2))
    except ValueError:
        return False
    if not isinstance(a1, Tracer) and not isinstance(a2, Tracer):
        return bool(np.array_equiv(a1, a2))
    return ops.reduce_all(ops.eq(a1, a2), tuple(range(len(shape))))


__all__ += ["isclose", "allclose", "array_equal", "array_equiv"]


# --------------------------------------------------------------------------
# more elementwise predicates and decompositions (real input)


@implements(np.divmod)
def divmod(x1, x2, /, out=None, **kwargs):  # noqa: A001
    """``(floor_divide(x1, x2), mod(x1, x2))`` (``numpy.divmod``).

    Parameters
    ----------
    x1, x2 : array_like or tracer

    Returns
    -------
    tuple of two arrays or tracers
        The quotient (no derivative) and the remainder (partials ``(1,
        -floor(x1 / x2))``).

    Raises
    ------
    TypeError
        If ``out`` or ``where`` is given.
    """
    _check("divmod", out, kwargs)
    x1, x2 = _binary(x1, x2)
    if not isinstance(x1, Tracer) and not isinstance(x2, Tracer):
        return np.divmod(x1, x2)
    return ops.floor_divide(x1, x2), ops.mod(x1, x2)


@implements(np.modf)
def modf(x, /, out=None, **kwargs):
    """Fractional and integral parts, both with the sign of ``x`` (``numpy.modf``).

    Parameters
    ----------
    x : array_like or tracer

    Returns
    -------
    tuple of two arrays or tracers
        ``x - trunc(x)`` (derivative 1; 0 at +-inf, as the value) and
        ``trunc(x)`` (no derivative).  Float dtype.

    Raises
    ------
    TypeError
        If ``out`` or ``where`` is given.
    """
    _check("modf", out, kwargs)
    x = _x(x)
    if not isinstance(x, Tracer):
        return np.modf(x)
    x = _floating(x)
    t = ops.select(ops.lt(x, 0.0), ops.ceil(x), ops.floor(x))
    t = ops.stop_gradient(ops.select(ops.eq(x, 0.0), x, t))  # keep the sign of zero
    # fmod(x, 1) is x - trunc(x) exactly, -0.0 for negative integers as in
    # NumPy, derivative 1 (one pass); at +-inf it is NaN, where modf gives +-0
    xs = ops.stop_gradient(x)
    signed_zero = ops.select(_signbit(xs), ops.full_like(x, -0.0), ops.zeros_like(x))
    frac = ops.select(ops.isinf(xs), signed_zero, ops.fmod(x, 1.0))
    return frac, t


@implements(np.isposinf)
def isposinf(x, out=None):
    """True where ``x`` is +inf (``numpy.isposinf``).

    Parameters
    ----------
    x : array_like or tracer (real)

    Returns
    -------
    bool array or tracer (no derivative)
    """
    _check("isposinf", out, {})
    x = _x(x)
    if not isinstance(x, Tracer):
        return np.isposinf(x)
    return ops.logical_and(ops.isinf(x), ops.gt(x, 0))


@implements(np.isneginf)
def isneginf(x, out=None):
    """True where ``x`` is -inf (``numpy.isneginf``).

    Parameters
    ----------
    x : array_like or tracer (real)

    Returns
    -------
    bool array or tracer (no derivative)
    """
    _check("isneginf", out, {})
    x = _x(x)
    if not isinstance(x, Tracer):
        return np.isneginf(x)
    return ops.logical_and(ops.isinf(x), ops.lt(x, 0))


@implements(np.unwrap)
def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """Unwrap phase jumps larger than ``discont`` by adding multiples of ``period``.

    Parameters
    ----------
    p : array_like or tracer (real)
    discont : float, optional
        Default ``period / 2``.
    axis : int
    period : float

    Returns
    -------
    array or tracer
        ``p``'s shape, float.  The corrections are piecewise constant, so
        the derivative is 1 (as NumPy's formula gives wherever it is
        differentiable).

    Notes
    -----
    NumPy's algorithm: ``dd = diff(p)``, ``ddmod = mod(dd + period/2,
    period) - period/2`` (with ``period/2`` kept where ``ddmod ==
    -period/2`` and ``dd > 0``), and the cumulative sum of ``ddmod - dd``
    where ``|dd| >= discont`` is added to ``p[1:]``.
    """
    p = _floating(_x(p) if isinstance(p, Tracer) else np.asarray(p))
    nd = len(p.shape)
    axis = normalize_axis_index(axis, nd)
    half = period / 2
    discont = half if discont is None else max(discont, half)
    dd = diff(p, axis=axis)
    ddmod = ops.sub(ops.mod(ops.add(dd, half), period), half)
    ddmod = ops.select(ops.logical_and(ops.eq(ddmod, -half), ops.gt(dd, 0)),
                       ops.full_like(ddmod, half), ddmod)
    corr = ops.sub(ddmod, dd)
    corr = ops.select(ops.lt(ops.abs(dd), discont), ops.zeros_like(corr), corr)
    corr = ops.stop_gradient(corr)
    idx = [slice(None)] * nd
    idx[axis] = slice(1, None)
    head = [slice(None)] * nd
    head[axis] = slice(0, 1)
    return concatenate([p[tuple(head)], ops.add(p[tuple(idx)], cumsum(corr, axis=axis))], axis=axis)


# NumPy's dtype utilities (no arrays involved)
promote_types = np.promote_types
can_cast = np.can_cast
issubdtype = np.issubdtype
isdtype = np.isdtype
iterable = np.iterable

__all__ += ["divmod", "modf", "isposinf", "isneginf",
            "unwrap", "promote_types", "can_cast", "issubdtype", "isdtype", "iterable"]


# --------------------------------------------------------------------------
# integer and bit functions: NumPy on concrete values (integer results have
# no derivative); under vmap, where there is no concrete value, a TypeError


def _concrete_operand(name, x):
    if not isinstance(x, Tracer):
        return x
    try:
        return np.asarray(concrete_value(x))
    except Exception as e:  # a vmap-batched value has none
        raise TypeError(
            f"tracegrad.numpy.{name} computes integer results with NumPy on concrete values, "
            f"which this transform does not have: {e}"
        ) from None


def _integer_function(name, np_fn):
    def f(*args, **kwargs):
        if kwargs.get("out") is not None:
            raise TypeError(f"tracegrad.numpy.{name} does not support out=")
        kwargs.pop("out", None)
        return np_fn(*[_concrete_operand(name, a) for a in args], **kwargs)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"NumPy's ``{name}`` on concrete values (no derivative).\n\n"
        "Parameters\n----------\n*args : array_like or tracer\n"
        "    Tracers are read for their concrete values.\n"
        "**kwargs\n    Passed to NumPy.\n\n"
        f"Returns\n-------\nndarray\n    ``numpy.{name}``'s result (integers or bools).\n\n"
        "Raises\n------\nTypeError\n"
        "    Under a transform without concrete values (``vmap``), or for\n"
        "    non-integer input as NumPy.\n"
    )
    return implements(np_fn)(f)


gcd = _integer_function("gcd", np.gcd)
lcm = _integer_function("lcm", np.lcm)
bitwise_and = _integer_function("bitwise_and", np.bitwise_and)
bitwise_or = _integer_function("bitwise_or", np.bitwise_or)
bitwise_xor = _integer_function("bitwise_xor", np.bitwise_xor)
bitwise_not = _integer_function("bitwise_not", np.bitwise_not)
bitwise_count = _integer_function("bitwise_count", np.bitwise_count)
left_shift = _integer_function("left_shift", np.left_shift)
right_shift = _integer_function("right_shift", np.right_shift)
packbits = _integer_function("packbits", np.packbits)
unpackbits = _integer_function("unpackbits", np.unpackbits)
invert = bitwise_invert = bitwise_not
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift

__all__ += ["gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
            "bitwise_count", "left_shift", "right_shift", "packbits", "unpackbits", "invert",
            "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift"]

"""Elementwise primitives for NumPy functions whose composites took many passes.

``tracegrad.numpy``'s ``sinc``, ``fmod``, ``modf``, ``logaddexp2``, ``ldexp``
and ``frexp`` were composites of the basic primitives: right to any order,
but on 1e6 float64 elements 1.5-10x slower than NumPy in a value or
derivative pass (each step a pass over memory).  Each is now one primitive
whose impl is NumPy's own ufunc (``fmod``, ``logaddexp2``, ``ldexp``: the
values are NumPy's bit for bit) or a fused Numba kernel (``sinc``), and
whose derivative is one fused kernel (``sinc_grad``, ``fmod_grad``,
``logaddexp_grad``) or itself (``ldexp`` is linear in ``x1``); ``logaddexp``'s derivative
(:mod:`.elementwise`) is ``logaddexp_grad`` too.  The rules of
the derivative primitives are written with primitives, so every order
differentiates; ``benchmarks/elementwise.py`` times each against NumPy.

Kernels run on same-shape, same-dtype float32/float64 operands of
``vecmath.MIN_KERNEL_SIZE`` (128) elements or more; anything else (small,
broadcasting, complex, float16 operands) takes the NumPy formulation of the
same formula, in the impl below each primitive.  The kernels live in
:mod:`._elementwise_fused_kernels`, imported (with Numba) on the first
kernel call; each compiles on its first call (or loads from Numba's cache).
"""
import math

import numpy as np

from .core import Primitive, defjvp, defvjp
from . import ops, vecmath
from .batching import defbatch_elementwise
from .elementwise import _elementwise_aval
from .kernels import FLOAT_DTYPES, ensure_numba
from .structural import defvjp_broadcasting

__all__ = ["sinc", "sinc_grad", "fmod", "fmod_grad", "logaddexp2", "logaddexp_grad", "ldexp",
           "unary_grad", "hypot_grad", "cbrt_grad", "pow_grad_x", "pow_grad_y", "arctan2_grad"]

_LN2 = math.log(2.0)
_k = None  # the module primitives._elementwise_fused_kernels, once imported


def _kernels():
    global _k
    if _k is None:
        ensure_numba()
        from . import _elementwise_fused_kernels  # lazy: imports Numba (and compiles) on first use

        _k = _elementwise_fused_kernels
    return _k


def _run(name, numpy_fn, *xs, **params):
    """``name(*flat_xs, *params, flat_out)`` when every ``x`` is an ndarray of one
    float32/float64 dtype and shape with 128+ elements, else ``numpy_fn``."""
    x0 = xs[0]
    if (
        type(x0) is np.ndarray
        and x0.dtype in FLOAT_DTYPES
        and x0.size >= vecmath.MIN_KERNEL_SIZE
        and all(type(x) is np.ndarray and x.dtype == x0.dtype and x.shape == x0.shape
                for x in xs[1:])
    ):
        out = np.empty(x0.shape, x0.dtype)
        getattr(_k or _kernels(), name)(*(x.ravel() for x in xs), *params.values(),
                                        out.ravel())
        return out
    with np.errstate(all="ignore"):
        return np.asarray(numpy_fn(*xs, **params))[()]


# ==========================================================================
# sinc(x) = sin(pi x) / (pi x), 1 at 0

#: ``|pi x|`` below this uses the Taylor series ``1 - u**2/6 + u**4/120 -
#: u**6/5040`` of ``sin(u)/u`` (truncation error ``u**8/9! < 1e-29``, far
#: below float64 rounding); its derivatives are those of the series, so
#: every derivative at 0 is the limit of the derivatives of ``sin(u)/u``.
SINC_SERIES = 1e-3
_S2, _S4, _S6 = -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0
# the series' first and second derivatives in x: pi**2 (2 S2, 4 S4, 6 S6) and
# pi**2 (2 S2, 12 S4, 30 S6)
_D0, _D2, _D4 = -math.pi ** 2 / 3.0, math.pi ** 2 / 30.0, -math.pi ** 2 / 840.0
_E0, _E2, _E4 = -math.pi ** 2 / 3.0, math.pi ** 2 / 10.0, -math.pi ** 2 / 168.0


def _wide(x):
    """``x`` in double precision (float64 or complex128): the kernels compute
    float32 in float64 and round once, and so does the NumPy path."""
    return np.asarray(x, np.result_type(x, np.float64))


def _sinc_numpy(x):
    dt = np.result_type(x, 1.0)
    u = _wide(x) * math.pi
    small = np.abs(u) < SINC_SERIES
    safe = np.where(small, 1.0, u)
    u2 = u * u
    series = 1.0 + u2 * (_S2 + u2 * (_S4 + u2 * _S6))
    return np.where(small, series, np.sin(safe) / safe).astype(dt)


def _dsinc_numpy(g, x):
    dt = np.result_type(g, x, 1.0)
    u = _wide(x) * math.pi
    small = np.abs(u) < SINC_SERIES
    safe = np.where(small, 1.0, u)
    u2 = u * u
    series = _wide(x) * (_D0 + u2 * (_D2 + u2 * _D4))
    d = np.where(small, series, math.pi * ((np.cos(safe) - np.sin(safe) / safe) / safe))
    return (_wide(g) * d).astype(dt)


sinc_p = Primitive("sinc")
defbatch_elementwise(sinc_p)


@sinc_p.def_impl
def _sinc_impl(x):
    """One Numba pass (vectorized ``sin``) for float arrays of 128+ elements."""
    return _run("sinc_kernel", _sinc_numpy, x)


sinc_p.def_abstract_eval(_elementwise_aval(_sinc_numpy))
defjvp(sinc_p, lambda g, ans, x: sinc_grad(g, x))
defvjp(sinc_p, lambda ct, ans, x: sinc_grad(ct, x))


def sinc(x):
    """``sin(pi x) / (pi x)`` elementwise, 1 at 0 (float or complex ``x``)."""
    return sinc_p.bind(x)


def _sinc_second(x):
    """``sinc''(x)`` with primitives: ``-pi**2 sinc(x) - 2 sinc'(x) / x``, the
    second derivative of the Taylor series near 0 (so it differentiates again)."""
    u = ops.mul(x, math.pi)
    small = ops.lt(ops.abs(u), SINC_SERIES)
    safe = ops.select(small, ops.ones_like(x), x)
    general = ops.sub(ops.mul(-math.pi ** 2, sinc(safe)),
                      ops.div(ops.mul(2.0, sinc_grad(ops.ones_like(safe), safe)), safe))
    u2 = ops.square(u)
    series = ops.add(_E0, ops.mul(u2, ops.add(_E2, ops.mul(u2, _E4))))
    return ops.select(small, series, general)


sinc_grad_p = Primitive("sinc_grad")
defbatch_elementwise(sinc_grad_p)


@sinc_grad_p.def_impl
def _sinc_grad_impl(g, x):
    """``g * sinc'(x)`` in one Numba pass (sin and cos polynomials) when ``g``
    and ``x`` share a float dtype and shape of 128+ elements."""
    return _run("sinc_grad_kernel", _dsinc_numpy, g, x)


sinc_grad_p.def_abstract_eval(_elementwise_aval(_dsinc_numpy))
defjvp(
    sinc_grad_p,
    lambda tg, ans, g, x: sinc_grad(tg, x),
    lambda tx, ans, g, x: ops.mul(tx, ops.mul(g, _sinc_second(x))),
)
defvjp_broadcasting(
    sinc_grad_p,
    lambda ct, ans, g, x: sinc_grad(ct, x),
    lambda ct, ans, g, x: ops.mul(ct, ops.mul(g, _sinc_second(x))),
)


def sinc_grad(g, x):
    """``g * sinc'(x)``: the sinc derivative applied to ``g``, fused."""
    return sinc_grad_p.bind(g, x)


# ==========================================================================
# fmod(x1, x2): C's remainder, the sign of x1; partials (1, -trunc(x1 / x2))

fmod_p = Primitive("fmod")
fmod_p.def_impl(np.fmod)
fmod_p.def_abstract_eval(_elementwise_aval(np.fmod))
defbatch_elementwise(fmod_p)
defjvp(
    fmod_p,
    lambda g, ans, x1, x2: g,
    lambda g, ans, x1, x2: fmod_grad(g, x1, x2),
)
defvjp_broadcasting(
    fmod_p,
    lambda ct, ans, x1, x2: ct,
    lambda ct, ans, x1, x2: fmod_grad(ct, x1, x2),
)


def fmod(x1, x2):
    """``x1 - trunc(x1 / x2) * x2``, NumPy's ``fmod`` (exact)."""
    return fmod_p.bind(x1, x2)


def _fmod_grad_numpy(g, x1, x2):
    # -g * trunc(x1 / x2) with the quotient of NumPy's floor_divide (exact,
    # where the rounded x1 / x2 may round up onto the next integer)
    s = np.where(np.signbit(x1), -1.0, 1.0)
    q = np.floor_divide(np.abs(x1), np.abs(x2)) * (s * np.sign(x2))
    return -(g * q).astype(np.result_type(g, x1, x2))


fmod_grad_p = Primitive("fmod_grad")
defbatch_elementwise(fmod_grad_p)


@fmod_grad_p.def_impl
def _fmod_grad_impl(g, x1, x2):
    """``-g * trunc(x1 / x2)`` (exact quotient) in one Numba pass; NaN where
    ``x2 == 0`` or ``x1`` is infinite (where ``fmod`` is NaN), 0 where ``x2``
    is infinite."""
    return _run("fmod_grad_kernel", _fmod_grad_numpy, g, x1, x2)


fmod_grad_p.def_abstract_eval(_elementwise_aval(_fmod_grad_numpy))
# linear in g; the quotient is piecewise constant in x1 and x2
defjvp(fmod_grad_p, lambda tg, ans, g, x1, x2: fmod_grad(tg, x1, x2), None, None)
defvjp_broadcasting(fmod_grad_p, lambda ct, ans, g, x1, x2: fmod_grad(ct, x1, x2), None, None)


def fmod_grad(g, x1, x2):
    """``-g * trunc(x1 / x2)``: ``g`` times the partial of ``fmod`` in ``x2``."""
    return fmod_grad_p.bind(g, x1, x2)


# ==========================================================================
# logaddexp2(x1, x2) = log2(2**x1 + 2**x2)

logaddexp2_p = Primitive("logaddexp2")
logaddexp2_p.def_impl(np.logaddexp2)
logaddexp2_p.def_abstract_eval(_elementwise_aval(np.logaddexp2))
defbatch_elementwise(logaddexp2_p)
defjvp(
    logaddexp2_p,
    lambda g, ans, x1, x2: logaddexp_grad(g, x1, x2, _LN2),
    lambda g, ans, x1, x2: logaddexp_grad(g, x2, x1, _LN2),
)
defvjp_broadcasting(
    logaddexp2_p,
    lambda ct, ans, x1, x2: logaddexp_grad(ct, x1, x2, _LN2),
    lambda ct, ans, x1, x2: logaddexp_grad(ct, x2, x1, _LN2),
)


def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)`` (NumPy's ``logaddexp2``); partials 0.5 at a tie."""
    return logaddexp2_p.bind(x1, x2)


def _logaddexp_grad_numpy(g, x, y, scale):
    dt = np.result_type(g, x, y, 1.0)
    x, y = _wide(x), _wide(y)
    d = scale * (x - y)
    e = np.exp(-np.abs(d))
    s = np.where(d >= 0, 1.0, e) / (1.0 + e)
    return (_wide(g) * np.where((x == y) & np.isnan(d), 0.5, s)).astype(dt)


logaddexp_grad_p = Primitive("logaddexp_grad")
defbatch_elementwise(logaddexp_grad_p)


@logaddexp_grad_p.def_impl
def _logaddexp_grad_impl(g, x, y, *, scale):
    """``g * sigmoid(scale * (x - y))`` in one Numba pass (vectorized ``exp``);
    ``0.5 * g`` at the tie of two equal infinities."""
    return _run("logaddexp_grad_kernel", _logaddexp_grad_numpy, g, x, y, scale=float(scale))


logaddexp_grad_p.def_abstract_eval(_elementwise_aval(_logaddexp_grad_numpy))


def _share_slope(x, y, scale):
    """``d/dx sigmoid(scale (x - y))`` with primitives; 0 at the tie of two equal
    infinities (where the share is the constant 0.5), selected twice so no NaN leaks."""
    d = ops.mul(scale, ops.sub(x, y))
    both_inf = ops.logical_and(ops.eq(x, y), ops.ne(d, d))
    s = ops.sigmoid(ops.select(both_inf, 0.0, d))
    return ops.select(both_inf, 0.0, ops.mul(scale, ops.sigmoid_grad(ops.ones_like(s), s)))


defjvp(
    logaddexp_grad_p,
    lambda tg, ans, g, x, y, *, scale: logaddexp_grad(tg, x, y, scale),
    lambda tx, ans, g, x, y, *, scale: ops.mul(tx, ops.mul(g, _share_slope(x, y, scale))),
    lambda ty, ans, g, x, y, *, scale: ops.neg(ops.mul(ty, ops.mul(g, _share_slope(x, y, scale)))),
)
defvjp_broadcasting(
    logaddexp_grad_p,
    lambda ct, ans, g, x, y, *, scale: logaddexp_grad(ct, x, y, scale),
    lambda ct, ans, g, x, y, *, scale: ops.mul(ct, ops.mul(g, _share_slope(x, y, scale))),
    lambda ct, ans, g, x, y, *, scale: ops.neg(ops.mul(ct, ops.mul(g, _share_slope(x, y, scale)))),
)


def logaddexp_grad(g, x, y, scale=1.0):
    """``g * sigmoid(scale * (x - y))``: ``g`` times the partial of ``logaddexp``
    (``scale = 1``) or ``logaddexp2`` (``scale = ln 2``) in ``x``, fused."""
    return logaddexp_grad_p.bind(g, x, y, scale=float(scale))


# ==========================================================================
# ldexp(x1, k) = x1 * 2**k (k integer), linear in x1

ldexp_p = Primitive("ldexp")


@ldexp_p.def_impl
def _ldexp_impl(x1, k):
    """NumPy's ``ldexp``, with 64-bit integer exponents clipped to +-4096 and
    passed as int32: NumPy's int64 loop is 9x slower than its int32 one at 1e6
    elements, and every exponent beyond +-2200 over- or underflows alike."""
    if type(k) is np.ndarray and k.dtype.kind in "iu" and k.dtype.itemsize > 4:
        k = np.clip(k, -4096, 4096).astype(np.int32)
    return np.ldexp(x1, k)


ldexp_p.def_abstract_eval(_elementwise_aval(np.ldexp))
defbatch_elementwise(ldexp_p)
defjvp(ldexp_p, lambda g, ans, x1, k: ldexp(g, k), None)
defvjp_broadcasting(ldexp_p, lambda ct, ans, x1, k: ldexp(ct, k), None)


def ldexp(x1, k):
    """``x1 * 2**k`` for integer ``k`` (NumPy's ``ldexp``: exact, also where
    ``2**k`` alone would overflow or underflow)."""
    return ldexp_p.bind(x1, k)


# ==========================================================================
# Derivatives of elementwise functions, fused: ``g * f'(...)`` in one pass.
#
# Each was a composite of 3-10 NumPy passes (``hypot``'s two cotangents 2.9x
# NumPy's time at 1e6, ``cbrt``'s 1.8x, ``power``'s 2.5x).  The NumPy path of
# every primitive below is that composite's formula, operation for operation,
# and the float64 kernels compute the same operations (bit for bit, except
# ``pow_grad_x``: see there).  The rules differentiate the composite formula
# step by step with primitives, so every higher derivative, also at 0, +-1,
# +-inf and NaN, is the one the composite had.


def _plain(x):
    return type(x) is np.ndarray


#: the functions of ``unary_grad`` and their kernel codes
UNARY_GRAD_CODES = {"arcsin": 0, "arccos": 1, "arctan": 2, "arcsinh": 3, "arccosh": 4,
                    "arctanh": 5, "log1p": 6, "expm1": 7, "exp2": 8}


def _unary_grad_numpy(g, x, fn):
    # the composites' formulas: g * D(x) (for expm1 and exp2, x is their value)
    if fn == "expm1":
        return g * (x + 1.0)
    if fn == "exp2":
        return g * (x * _LN2)
    if fn == "log1p":
        return g * (1.0 / (x + 1.0))
    q = x * x
    if fn in ("arcsin", "arccos"):
        r = 1.0 / np.sqrt(1.0 - q)
        return g * (-r if fn == "arccos" else r)
    if fn == "arctan":
        return g * (1.0 / (1.0 + q))
    if fn == "arcsinh":
        return g * (1.0 / np.sqrt(q + 1.0))
    if fn == "arccosh":
        return g * (1.0 / np.sqrt(q - 1.0))
    return g * (1.0 / (1.0 - q))  # arctanh


def _unary_grad_tangent(fn, g, x, t):
    """``g * D'(x) * t`` with primitives, ``D`` the derivative formula of ``fn``,
    differentiated step by step as the composite ``g * D(x)`` was."""
    if fn == "expm1":
        return ops.mul(g, t)
    if fn == "exp2":
        return ops.mul(g, ops.mul(t, _LN2))
    if fn == "log1p":
        u, du = ops.add(x, 1.0), t
    else:
        q = ops.mul(x, x)
        dq = ops.add(ops.mul(t, x), ops.mul(x, t))
        if fn in ("arcsin", "arccos", "arctanh"):
            u, du = ops.sub(1.0, q), ops.neg(dq)
        elif fn == "arctan":
            u, du = ops.add(1.0, q), dq
        elif fn == "arcsinh":
            u, du = ops.add(q, 1.0), dq
        else:  # arccosh
            u, du = ops.sub(q, 1.0), dq
        if fn in ("arcsin", "arccos", "arcsinh", "arccosh"):
            s = ops.sqrt(u)
            u, du = s, ops.mul(du, ops.div(0.5, s))
    r = ops.reciprocal(u)
    dr = ops.neg(ops.mul(du, ops.div(r, u)))
    return ops.mul(g, ops.neg(dr) if fn == "arccos" else dr)


unary_grad_p = Primitive("unary_grad")
defbatch_elementwise(unary_grad_p)


@unary_grad_p.def_impl
def _unary_grad_impl(g, x, *, fn):
    """``g * f'(x)`` for ``f = fn`` (see :func:`unary_grad`) in one Numba pass."""
    with np.errstate(all="ignore"):
        return _run("unary_grad_kernel", _unary_grad_numpy_coded, g, x, code=UNARY_GRAD_CODES[fn])


def _unary_grad_numpy_coded(g, x, code):
    return _unary_grad_numpy(g, x, _UNARY_GRAD_NAMES[code])


_UNARY_GRAD_NAMES = {v: k for k, v in UNARY_GRAD_CODES.items()}
unary_grad_p.def_abstract_eval(_elementwise_aval(_unary_grad_numpy))
defjvp(
    unary_grad_p,
    lambda tg, ans, g, x, *, fn: unary_grad(tg, x, fn),
    lambda tx, ans, g, x, *, fn: _unary_grad_tangent(fn, g, x, tx),
)
defvjp_broadcasting(
    unary_grad_p,
    lambda ct, ans, g, x, *, fn: unary_grad(ct, x, fn),
    lambda ct, ans, g, x, *, fn: _unary_grad_tangent(fn, g, x, ct),
)


def unary_grad(g, x, fn):
    """``g * f'(x)``, fused, for ``fn`` one of ``arcsin`` (``1/sqrt(1 - x**2)``),
    ``arccos`` (its negative), ``arctan`` (``1/(1 + x**2)``), ``arcsinh``
    (``1/sqrt(x**2 + 1)``), ``arccosh`` (``1/sqrt(x**2 - 1)``, real ``x``),
    ``arctanh`` (``1/(1 - x**2)``), ``log1p`` (``1/(x + 1)``), or of the value
    ``x = f(t)``: ``expm1`` (``x + 1``), ``exp2`` (``x log 2``).

    Same values as the formula's NumPy passes, also at the ends of the domain
    (``+-inf`` at ``x = +-1``) and outside it (NaN).
    """
    if fn not in UNARY_GRAD_CODES:
        raise ValueError(f"unary_grad: fn must be one of {sorted(UNARY_GRAD_CODES)}, got {fn!r}")
    return unary_grad_p.bind(g, x, fn=fn)


# --------------------------------------------------------------------------
# hypot(x, y): partial x / h in x (h = hypot(x, y)), 0 at the origin

def _hypot_grad_numpy(g, x, h):
    z = h == 0
    return g * np.where(z, 0.0, x / np.where(z, 1.0, h))


hypot_grad_p = Primitive("hypot_grad")
defbatch_elementwise(hypot_grad_p)


@hypot_grad_p.def_impl
def _hypot_grad_impl(g, x, h):
    """``g * (x / h)``, ``g * 0`` where ``h == 0``, in one Numba pass."""
    with np.errstate(all="ignore"):
        return _run("hypot_grad_kernel", _hypot_grad_numpy, g, x, h)


hypot_grad_p.def_abstract_eval(_elementwise_aval(_hypot_grad_numpy))


def _hypot_grad_dx(g, x, h, t):
    z = ops.eq(h, 0)
    return ops.mul(g, ops.select(z, 0.0, ops.div(t, ops.select(z, 1.0, h))))


def _hypot_grad_dh(g, x, h, t):
    z = ops.eq(h, 0)
    safe = ops.select(z, 1.0, h)
    q = ops.div(x, safe)
    dq = ops.neg(ops.mul(ops.select(z, 0.0, t), ops.div(q, safe)))
    return ops.mul(g, ops.select(z, 0.0, dq))


defjvp(
    hypot_grad_p,
    lambda tg, ans, g, x, h: hypot_grad(tg, x, h),
    lambda tx, ans, g, x, h: _hypot_grad_dx(g, x, h, tx),
    lambda th, ans, g, x, h: _hypot_grad_dh(g, x, h, th),
)
defvjp_broadcasting(
    hypot_grad_p,
    lambda ct, ans, g, x, h: hypot_grad(ct, x, h),
    lambda ct, ans, g, x, h: _hypot_grad_dx(g, x, h, ct),
    lambda ct, ans, g, x, h: _hypot_grad_dh(g, x, h, ct),
)


def hypot_grad(g, x, h):
    """``g * x / h`` with ``h = hypot(x, y)``: ``g`` times the partial of
    ``hypot`` in ``x``, 0 at the origin (``h == 0``), fused."""
    return hypot_grad_p.bind(g, x, h)


# --------------------------------------------------------------------------
# cbrt: derivative (1/y)**2 / 3 at y = cbrt(x)

def _cbrt_grad_numpy(g, y):
    r = 1.0 / y
    return g * ((1.0 / 3.0) * (r * r))


cbrt_grad_p = Primitive("cbrt_grad")
defbatch_elementwise(cbrt_grad_p)


@cbrt_grad_p.def_impl
def _cbrt_grad_impl(g, y):
    """``g * (1/y)**2 / 3`` in one Numba pass (``inf`` at ``y = 0``, 0 at ``+-inf``)."""
    with np.errstate(all="ignore"):
        return _run("cbrt_grad_kernel", _cbrt_grad_numpy, g, y)


cbrt_grad_p.def_abstract_eval(_elementwise_aval(_cbrt_grad_numpy))


def _cbrt_grad_dy(g, y, t):
    # (1/3) (r r) with r = 1/y: dr = -(t r / y), d(r r) = dr r + r dr; the
    # signed infinity at y = +-0 (0 * inf never arises), 0 at +-inf
    r = ops.reciprocal(y)
    dr = ops.neg(ops.mul(t, ops.div(r, y)))
    return ops.mul(g, ops.mul(1.0 / 3.0, ops.add(ops.mul(dr, r), ops.mul(r, dr))))


defjvp(
    cbrt_grad_p,
    lambda tg, ans, g, y: cbrt_grad(tg, y),
    lambda ty, ans, g, y: _cbrt_grad_dy(g, y, ty),
)
defvjp_broadcasting(
    cbrt_grad_p,
    lambda ct, ans, g, y: cbrt_grad(ct, y),
    lambda ct, ans, g, y: _cbrt_grad_dy(g, y, ct),
)


def cbrt_grad(g, y):
    """``g / (3 y**2)`` at ``y = cbrt(x)`` (as ``(1/y)**2 / 3``): ``g`` times
    ``cbrt``'s derivative, fused."""
    return cbrt_grad_p.bind(g, y)


# --------------------------------------------------------------------------
# power(x, y): partials y x**(y-1) (0 where x == y == 0) and x**y log(x)
# (log(x) taken as 0 where x == 0)

def _pow_grad_x_numpy(g, x, y, a):
    guard = (y == 0) & (x == 0)
    out = g * np.where(guard, 0.0, y * np.power(x, np.where(guard, 1.0, y) - 1))
    shape = np.broadcast_shapes(np.shape(out), np.shape(a))  # a's shape, not its value
    return out if np.shape(out) == shape else np.array(np.broadcast_to(out, shape))


pow_grad_x_p = Primitive("pow_grad_x")
defbatch_elementwise(pow_grad_x_p)


@pow_grad_x_p.def_impl
def _pow_grad_x_impl(g, x, y, a):
    """``g * y * x**(y-1)`` in one Numba pass, ``x**(y-1)`` as ``a / x``
    (``a = x**y``, within 2 ulp of the C library's power); the C library's
    ``pow`` where that quotient is not safe (x or a zero, infinite, NaN,
    a subnormal, ``|y| >= 2**52``)."""
    with np.errstate(all="ignore"):
        return _run("pow_grad_x_kernel", _pow_grad_x_numpy, g, x, y, a)


pow_grad_x_p.def_abstract_eval(_elementwise_aval(_pow_grad_x_numpy))


def _pow_grad_x_parts(x, y):
    guard = ops.logical_and(ops.eq(y, 0), ops.eq(x, 0))
    e = ops.sub(ops.select(guard, 1.0, y), 1)
    return guard, e, ops.pow(x, e)


def _pow_grad_x_dx(g, x, y, t):
    # y * pow(x, e) differentiated in x through pow's own rule (pow_grad_x again)
    guard, e, p = _pow_grad_x_parts(x, y)
    return ops.mul(g, ops.select(guard, 0.0, ops.mul(y, pow_grad_x(t, x, e, p))))


def _pow_grad_x_dy(g, x, y, t):
    # d(y * pow(x, e)) = t pow(x, e) + y * d pow(x, e) / de * select(guard, 0, t)
    guard, e, p = _pow_grad_x_parts(x, y)
    d = ops.add(ops.mul(t, p), ops.mul(y, pow_grad_y(ops.select(guard, 0.0, t), p, x)))
    return ops.mul(g, ops.select(guard, 0.0, d))


# the last operand, a = x**y, only lets the kernel skip a power: the value is
# a function of (g, x, y), whose partials carry the whole derivative
defjvp(
    pow_grad_x_p,
    lambda tg, ans, g, x, y, a: pow_grad_x(tg, x, y, a),
    lambda tx, ans, g, x, y, a: _pow_grad_x_dx(g, x, y, tx),
    lambda ty, ans, g, x, y, a: _pow_grad_x_dy(g, x, y, ty),
    None,
)
defvjp_broadcasting(
    pow_grad_x_p,
    lambda ct, ans, g, x, y, a: pow_grad_x(ct, x, y, a),
    lambda ct, ans, g, x, y, a: _pow_grad_x_dx(g, x, y, ct),
    lambda ct, ans, g, x, y, a: _pow_grad_x_dy(g, x, y, ct),
    None,
)


def pow_grad_x(g, x, y, a):
    """``g * y * x**(y - 1)``, 0 where ``x == y == 0``: ``g`` times the partial
    of ``power`` in ``x``, fused.  ``a`` must be ``power(x, y)`` (it spares
    the kernel a power; it carries no derivative of its own)."""
    return pow_grad_x_p.bind(g, x, y, a)


def _pow_grad_y_numpy(g, a, x):
    return g * (a * np.log(np.where(x == 0, 1.0, x)))


pow_grad_y_p = Primitive("pow_grad_y")
defbatch_elementwise(pow_grad_y_p)


@pow_grad_y_p.def_impl
def _pow_grad_y_impl(g, a, x):
    """``g * a * log(x)`` (log taken as 0 at ``x == 0``): NumPy's ``log``
    (vectorized), then one Numba pass for the rest."""
    if (_plain(g) and _plain(a) and _plain(x) and x.dtype in FLOAT_DTYPES
            and g.dtype == a.dtype == x.dtype and g.shape == a.shape == x.shape
            and x.size >= vecmath.MIN_KERNEL_SIZE):
        with np.errstate(divide="ignore"):
            lx = np.log(x)
        return _run("pow_grad_y_kernel", None, g, a, x, lx)
    return _pow_grad_y_numpy(g, a, x)


pow_grad_y_p.def_abstract_eval(_elementwise_aval(_pow_grad_y_numpy))


def _pow_grad_y_dx(g, a, x, t):
    z = ops.eq(x, 0)
    sel = ops.select(z, 1.0, x)
    dl = ops.mul(ops.select(z, 0.0, t), ops.reciprocal(sel))
    return ops.mul(g, ops.mul(a, dl))


def _log_or_zero(x):
    return ops.log(ops.select(ops.eq(x, 0), 1.0, x))


defjvp(
    pow_grad_y_p,
    lambda tg, ans, g, a, x: pow_grad_y(tg, a, x),
    lambda ta, ans, g, a, x: ops.mul(g, ops.mul(ta, _log_or_zero(x))),
    lambda tx, ans, g, a, x: _pow_grad_y_dx(g, a, x, tx),
)
defvjp_broadcasting(
    pow_grad_y_p,
    lambda ct, ans, g, a, x: pow_grad_y(ct, a, x),
    lambda ct, ans, g, a, x: ops.mul(g, ops.mul(ct, _log_or_zero(x))),
    lambda ct, ans, g, a, x: _pow_grad_y_dx(g, a, x, ct),
)


def pow_grad_y(g, a, x):
    """``g * a * log(x)`` with ``a = power(x, y)``, ``log(x)`` taken as 0 where
    ``x == 0``: ``g`` times the partial of ``power`` in ``y``, fused."""
    return pow_grad_y_p.bind(g, a, x)


# --------------------------------------------------------------------------
# arctan2(y, x): partials x / (x**2 + y**2) in y and -y / (x**2 + y**2) in x

def _arctan2_grad_numpy(g, y, x, wrt_x):
    d = x * x + y * y
    return g * ((-y if wrt_x else x) / d)


arctan2_grad_p = Primitive("arctan2_grad")
defbatch_elementwise(arctan2_grad_p)


@arctan2_grad_p.def_impl
def _arctan2_grad_impl(g, y, x, *, wrt_x):
    """``g * x / (x**2 + y**2)`` (``wrt_x`` False) or ``g * -y / (x**2 + y**2)``
    in one Numba pass (NaN at the origin, as the formula)."""
    with np.errstate(all="ignore"):
        return _run("arctan2_grad_kernel", _arctan2_grad_numpy, g, y, x, wrt_x=bool(wrt_x))


arctan2_grad_p.def_abstract_eval(_elementwise_aval(_arctan2_grad_numpy))


def _arctan2_grad_tangent(g, y, x, wrt_x, ty, tx):
    """Tangent of ``g * (num / d)``, ``num = -y`` or ``x``, ``d = x*x + y*y``,
    step by step as the composite (``ty`` or ``tx`` may be None)."""
    num = ops.neg(y) if wrt_x else x
    d = ops.add(ops.mul(x, x), ops.mul(y, y))
    q = ops.div(num, d)
    parts = []
    tnum = (None if ty is None else ops.neg(ty)) if wrt_x else tx
    if tnum is not None:
        parts.append(ops.div(tnum, d))
    dd = [ops.add(ops.mul(t, v), ops.mul(v, t)) for t, v in ((tx, x), (ty, y)) if t is not None]
    td = dd[0] if len(dd) == 1 else ops.add(dd[0], dd[1])
    parts.append(ops.neg(ops.mul(td, ops.div(q, d))))
    tq = parts[0] if len(parts) == 1 else ops.add(parts[0], parts[1])
    return ops.mul(g, tq)


defjvp(
    arctan2_grad_p,
    lambda tg, ans, g, y, x, *, wrt_x: arctan2_grad(tg, y, x, wrt_x),
    lambda ty, ans, g, y, x, *, wrt_x: _arctan2_grad_tangent(g, y, x, wrt_x, ty, None),
    lambda tx, ans, g, y, x, *, wrt_x: _arctan2_grad_tangent(g, y, x, wrt_x, None, tx),
)
defvjp_broadcasting(
    arctan2_grad_p,
    lambda ct, ans, g, y, x, *, wrt_x: arctan2_grad(ct, y, x, wrt_x),
    lambda ct, ans, g, y, x, *, wrt_x: _arctan2_grad_tangent(g, y, x, wrt_x, ct, None),
    lambda ct, ans, g, y, x, *, wrt_x: _arctan2_grad_tangent(g, y, x, wrt_x, None, ct),
)


def arctan2_grad(g, y, x, wrt_x=False):
    """``g`` times the partial of ``arctan2(y, x)`` in ``y`` (``x / (x**2 +
    y**2)``) or, with ``wrt_x``, in ``x`` (``-y / (x**2 + y**2)``), fused."""
    return arctan2_grad_p.bind(g, y, x, wrt_x=bool(wrt_x))

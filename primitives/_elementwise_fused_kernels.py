"""Numba kernels behind :mod:`.elementwise_fused` (imported on first use: imports Numba).

Each kernel takes flat (1-D) C-contiguous float32/float64 arrays of one
length and writes ``out``; float32 inputs are computed in float64 and
rounded once on the store.  ``sin``/``cos`` are the vectorized polynomials
of :mod:`._vecmath_kernels` (``_trig``, within 2 ulp of the C library),
``exp`` is its ``fexp``; arguments outside their reduced range (large
``|x|``, inf, NaN) are recomputed with the C library in a second, scalar
pass, as in :mod:`._vecmath_kernels`.

Every function here is defined at module level so Numba's on-disk cache
(``cache=True``) applies.  Numba does not invalidate a cached kernel when an
inlined helper from another file changes (numba issue #1833): after editing
``_vecmath_kernels.py``, delete this module's cache files
(``primitives/__pycache__/_elementwise_fused_kernels.*.nbi`` and ``.nbc``)
or touch this file.
"""
import math

import numba
import numpy as np

from ._vecmath_kernels import _in_trig_range, _trig, fexp

# kernels calling the polynomials: let LLVM fuse their multiply-adds
_FUSED = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")
# exact arithmetic (the quotient correction needs every product rounded once)
_EXACT = dict(cache=True, nogil=True, error_model="numpy")

_PI = math.pi
# sinc: |pi x| below this uses the Taylor series (see elementwise_fused.SINC_SERIES)
_SERIES = 1e-3
_S2, _S4, _S6 = -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0
# the series' derivative in x: pi**2 (2 S2, 4 S4, 6 S6)
_D0, _D2, _D4 = -math.pi ** 2 / 3.0, math.pi ** 2 / 30.0, -math.pi ** 2 / 840.0
_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp's splitting constant)
_EXACT_INT = 9007199254740992.0  # 2**53: every float above is an integer
_THIRD = 1.0 / 3.0
_LN2 = math.log(2.0)
_TINY = 2.2250738585072014e-308  # the smallest normal float64
_EXACT_EXP = 4503599627370496.0  # 2**52: below it, y - 1 is y's exponent less one


# ==========================================================================
# sinc(x) = sin(pi x) / (pi x), and g * sinc'(x)

@numba.njit(inline="always")
def _sinc_of(u, s):
    """``sin(u)/u`` from ``s = sin(u)``; the Taylor series for ``|u| < _SERIES``."""
    u2 = u * u
    series = 1.0 + u2 * (_S2 + u2 * (_S4 + u2 * _S6))
    small = abs(u) < _SERIES
    return series if small else s / (1.0 if small else u)


@numba.njit(inline="always")
def _dsinc_of(x, u, s, c):
    """``sinc'(x)`` from ``u = pi x`` and ``s, c = sin(u), cos(u)``: ``pi (c - s/u) / u``,
    near 0 the derivative of the Taylor series, ``x (D0 + u**2 (D2 + u**2 D4))``."""
    u2 = u * u
    series = x * (_D0 + u2 * (_D2 + u2 * _D4))
    small = abs(u) < _SERIES
    safe = 1.0 if small else u
    return series if small else _PI * ((c - s / safe) / safe)


@numba.njit(**_FUSED)
def sinc_kernel(x, out):
    n = x.size
    bad = 0
    for i in range(n):
        u = np.float64(x[i]) * _PI
        out[i] = _sinc_of(u, _trig(u, 0))
        bad |= _in_trig_range(u)
    if bad:
        for i in range(n):
            u = np.float64(x[i]) * _PI
            if _in_trig_range(u):
                out[i] = _sinc_of(u, math.sin(u))


@numba.njit(**_FUSED)
def sinc_grad_kernel(g, x, out):
    # g * sinc'(x) = g * pi * (d/du sin(u)/u) at u = pi x, in one pass
    n = x.size
    bad = 0
    for i in range(n):
        u = np.float64(x[i]) * _PI
        out[i] = np.float64(g[i]) * _dsinc_of(np.float64(x[i]), u, _trig(u, 0), _trig(u, 1))
        bad |= _in_trig_range(u)
    if bad:
        for i in range(n):
            u = np.float64(x[i]) * _PI
            if _in_trig_range(u):
                out[i] = np.float64(g[i]) * _dsinc_of(np.float64(x[i]), u, math.sin(u), math.cos(u))


# ==========================================================================
# the cotangent of fmod(x1, x2) in x2: -g * trunc(x1 / x2), the quotient exact

@numba.njit(inline="always")
def _floor_quotient(a, b):
    """``floor(a / b)`` of the exact quotient, for finite ``a >= 0`` and ``b > 0``.

    The rounded ``a / b`` can round up onto the next integer (``1 / 0.1`` is
    10.0 although 0.1 is a little above 1/10); then ``q * b > a`` exactly,
    which Dekker's product ``q * b = p + e`` (Veltkamp splitting) decides.
    Quotients of 2**53 and more are integers already.
    """
    q = np.floor(a / b)
    p = q * b
    cq = _SPLIT * q
    qh = cq - (cq - q)
    ql = q - qh
    cb = _SPLIT * b
    bh = cb - (cb - b)
    bl = b - bh
    e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl
    over = (p > a or (p == a and e > 0.0)) and q < _EXACT_INT
    return q - 1.0 if over else q


@numba.njit(**_EXACT)
def fmod_grad_kernel(g, x1, x2, out):
    for i in range(out.size):
        a = np.float64(x1[i])
        b = np.float64(x2[i])
        aa = abs(a)
        bb = abs(b)
        q = _floor_quotient(aa, bb)
        q = 0.0 if bb == math.inf else q  # fmod(a, inf) = a: quotient 0
        q = math.nan if (bb == 0.0 or not aa < math.inf) else q  # fmod is NaN there
        s = -1.0 if math.copysign(1.0, a) < 0.0 else 1.0  # the sign bit of x1
        s = -s if b < 0.0 else s
        out[i] = -(np.float64(g[i]) * (s * q))


# ==========================================================================
# the cotangent of logaddexp (scale 1) or logaddexp2 (scale ln 2) in x

@numba.njit(**_FUSED)
def logaddexp_grad_kernel(g, x, y, scale, out):
    # g * sigmoid(scale * (x - y)); 0.5 g at the tie of two equal infinities
    for i in range(out.size):
        xi = np.float64(x[i])
        yi = np.float64(y[i])
        d = scale * (xi - yi)
        e = fexp(-abs(d))
        r = 1.0 / (1.0 + e)
        s = r if d >= 0.0 else e * r
        s = 0.5 if (xi == yi and d != d) else s
        out[i] = np.float64(g[i]) * s


# ==========================================================================
# derivatives of elementwise functions, each ``g * f'(...)`` in one pass.
# The arithmetic is the composite formula's, operation for operation (no
# contraction into multiply-adds), so float64 results are the composite's bit
# for bit; float32 operands are computed in float64 and rounded once.

@numba.njit(**_EXACT)
def unary_grad_kernel(g, x, code, out):
    # code: 0 arcsin, 1 arccos, 2 arctan, 3 arcsinh, 4 arccosh, 5 arctanh, 6 log1p,
    # 7 expm1 and 8 exp2 (x their value)
    # (elementwise_fused.UNARY_GRAD_CODES); one loop per code, so each vectorizes
    n = out.size
    if code == 0:
        for i in range(n):
            xi = np.float64(x[i])
            out[i] = np.float64(g[i]) * (1.0 / math.sqrt(1.0 - xi * xi))
    elif code == 1:
        for i in range(n):
            xi = np.float64(x[i])
            out[i] = np.float64(g[i]) * -(1.0 / math.sqrt(1.0 - xi * xi))
    elif code == 2:
        for i in range(n):
            xi = np.float64(x[i])
            out[i] = np.float64(g[i]) * (1.0 / (1.0 + xi * xi))
    elif code == 3:
        for i in range(n):
            xi = np.float64(x[i])
            out[i] = np.float64(g[i]) * (1.0 / math.sqrt(xi * xi + 1.0))
    elif code == 4:
        for i in range(n):
            xi = np.float64(x[i])
            out[i] = np.float64(g[i]) * (1.0 / math.sqrt(xi * xi - 1.0))
    elif code == 5:
        for i in range(n):
            xi = np.float64(x[i])
            out[i] = np.float64(g[i]) * (1.0 / (1.0 - xi * xi))
    elif code == 6:
        for i in range(n):
            out[i] = np.float64(g[i]) * (1.0 / (np.float64(x[i]) + 1.0))
    elif code == 7:  # expm1, x = expm1's value
        for i in range(n):
            out[i] = np.float64(g[i]) * (np.float64(x[i]) + 1.0)
    else:  # exp2, x = exp2's value
        for i in range(n):
            out[i] = np.float64(g[i]) * (np.float64(x[i]) * _LN2)


@numba.njit(**_EXACT)
def hypot_grad_kernel(g, x, h, out):
    # g * (x / h), g * 0 where h == 0 (the origin)
    for i in range(out.size):
        hi = np.float64(h[i])
        z = hi == 0.0
        q = np.float64(x[i]) / (1.0 if z else hi)
        out[i] = np.float64(g[i]) * (0.0 if z else q)


@numba.njit(**_EXACT)
def cbrt_grad_kernel(g, y, out):
    # g * (1/3 * (r * r)), r = 1 / cbrt(x): inf at 0, 0 at +-inf
    for i in range(out.size):
        r = 1.0 / np.float64(y[i])
        out[i] = np.float64(g[i]) * (_THIRD * (r * r))



@numba.njit(**_EXACT)
def pow_grad_x_kernel(g, x, y, a, out):
    # g * y * x**(y - 1) with a = x**y: x**(y - 1) = a / x wherever a is a
    # normal finite float, x finite and nonzero and y - 1 exact; elsewhere
    # (0, inf, NaN, over- and underflow) the C library's pow in a second pass.
    # 0 (g * 0) where x == y == 0.
    n = out.size
    bad = False
    for i in range(n):
        xi = np.float64(x[i])
        yi = np.float64(y[i])
        ai = np.float64(a[i])
        ok = (abs(ai) >= _TINY) & (abs(ai) < math.inf) & (abs(xi) < math.inf) \
            & (xi != 0.0) & (abs(yi) < _EXACT_EXP)
        out[i] = np.float64(g[i]) * (yi * (ai / (xi if ok else 1.0)))
        bad |= not ok
    if bad:
        for i in range(n):
            xi = np.float64(x[i])
            yi = np.float64(y[i])
            ai = np.float64(a[i])
            ok = (abs(ai) >= _TINY) & (abs(ai) < math.inf) & (abs(xi) < math.inf) \
                & (xi != 0.0) & (abs(yi) < _EXACT_EXP)
            if not ok:
                if xi == 0.0 and yi == 0.0:
                    out[i] = np.float64(g[i]) * 0.0
                else:
                    out[i] = np.float64(g[i]) * (yi * math.pow(xi, yi - 1.0))


@numba.njit(**_EXACT)
def pow_grad_y_kernel(g, a, x, lx, out):
    # g * (a * log(x)), log(x) taken as 0 where x == 0; lx = log(x) (NumPy's)
    for i in range(out.size):
        li = 0.0 if np.float64(x[i]) == 0.0 else np.float64(lx[i])
        out[i] = np.float64(g[i]) * (np.float64(a[i]) * li)


@numba.njit(**_EXACT)
def arctan2_grad_kernel(g, y, x, wrt_x, out):
    # g * (x / (x*x + y*y)) (the partial in y) or g * (-y / (x*x + y*y)) (in x)
    n = out.size
    if wrt_x:
        for i in range(n):
            xi = np.float64(x[i])
            yi = np.float64(y[i])
            out[i] = np.float64(g[i]) * (-yi / (xi * xi + yi * yi))
    else:
        for i in range(n):
            xi = np.float64(x[i])
            yi = np.float64(y[i])
            out[i] = np.float64(g[i]) * (xi / (xi * xi + yi * yi))

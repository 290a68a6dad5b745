"""Numba kernels behind :mod:`.vecmath` (imported on first use: imports Numba).

See :mod:`.vecmath` for the method and accuracy.  Every function here is
defined at module level so Numba's on-disk cache (``cache=True``) applies.
"""
import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # trailing zero bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_SHIFT = 6755399441055744.0  # 1.5 * 2**52: (t + S) - S rounds t to an integer
_TWO52 = 4503599627370496.0  # 2**52
_TWO_OVER_PI = 0.6366197723675814
# pi/2 = _PIO2_1 + _PIO2_2 + _PIO2_3 (33, 33 and 53 significant bits)
_PIO2_1 = 1.5707963267341256
_PIO2_2 = 6.077100506303966e-11
_PIO2_3 = 2.0222662487959506e-21
_TRIG_MAX = 1.0e5
_EXP_LO, _EXP_HI = -746.0, 710.0  # exp rounds to 0 below and overflows above
_SHIFT_BITS = 0x4338000000000000  # the bit pattern of _SHIFT

# Taylor coefficients 1/n!
_F = [1.0 / math.factorial(n) for n in range(20)]
_E2, _E3, _E4, _E5, _E6, _E7, _E8 = _F[2:9]
_E9, _E10, _E11, _E12, _E13 = _F[9:14]
_S3, _S5, _S7, _S9 = -_F[3], _F[5], -_F[7], _F[9]
_S11, _S13, _S15, _S17 = -_F[11], _F[13], -_F[15], _F[17]
_C4, _C6, _C8, _C10 = _F[4], -_F[6], _F[8], -_F[10]
_C12, _C14, _C16 = _F[12], -_F[14], _F[16]

_OPTS = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")


@intrinsic
def _bits_to_float(typingctx, x):
    """Reinterpret an int64 bit pattern as a float64 (an LLVM bitcast)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def _float_to_bits(typingctx, x):
    """Reinterpret a float64 as its int64 bit pattern (an LLVM bitcast)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@numba.njit(inline="always")
def _pow2_of_shifted(t):
    # t = k + _SHIFT for an integer -1022 <= k <= 1023: the low mantissa bits
    # of t hold k, so 2**k is built from bits alone (AVX2 has no packed
    # float64 -> int64 conversion; a bitcast vectorizes).
    return _bits_to_float((_float_to_bits(t) + 1023) << 52)


@numba.njit(inline="always")
def _expm1_reduced(r):
    # expm1(r) for |r| <= ln2/2: Taylor polynomial to degree 13 (Horner)
    p = _E13
    p = p * r + _E12
    p = p * r + _E11
    p = p * r + _E10
    p = p * r + _E9
    p = p * r + _E8
    p = p * r + _E7
    p = p * r + _E6
    p = p * r + _E5
    p = p * r + _E4
    p = p * r + _E3
    p = p * r + _E2
    return p * r * r + r


@numba.njit(inline="always")
def fexp(x):
    """``exp(x)`` for any float64 ``x``, branch-free (a building block for kernels).

    ``2**k`` is applied as two factors ``2**(k//2) * 2**(k - k//2)``, each a
    normal number, so results that overflow become ``inf`` and results in the
    subnormal range are rounded once, as by the C library; NaN gives NaN.
    """
    xf = np.float64(x)
    xi = min(max(xf, _EXP_LO), _EXP_HI)
    t = xi * _LOG2E + _SHIFT
    kf = t - _SHIFT
    r = (xi - kf * _LN2_HI) - kf * _LN2_LO
    bits = _float_to_bits(t) - _SHIFT_BITS  # k, as an integer
    k1 = bits >> 1
    s1 = _bits_to_float((k1 + 1023) << 52)
    s2 = _bits_to_float((bits - k1 + 1023) << 52)
    e = ((_expm1_reduced(r) + 1.0) * s1) * s2
    return xf if xf != xf else e


@numba.njit(**_OPTS)
def exp_kernel(x, out):
    for i in range(x.size):
        out[i] = fexp(x[i])


@numba.njit(inline="always")
def _sin_poly(r, r2):
    s = _S17
    s = s * r2 + _S15
    s = s * r2 + _S13
    s = s * r2 + _S11
    s = s * r2 + _S9
    s = s * r2 + _S7
    s = s * r2 + _S5
    s = s * r2 + _S3
    return r + r * r2 * s


@numba.njit(inline="always")
def _cos_poly(r2):
    c = _C16
    c = c * r2 + _C14
    c = c * r2 + _C12
    c = c * r2 + _C10
    c = c * r2 + _C8
    c = c * r2 + _C6
    c = c * r2 + _C4
    return 1.0 - 0.5 * r2 + r2 * r2 * c


@numba.njit(inline="always")
def _trig(x, phase):
    # phase 0: sin(x); phase 1: cos(x) = sin(x + pi/2), one quadrant on
    xi = min(max(np.float64(x), -_TRIG_MAX), _TRIG_MAX)
    qt = xi * _TWO_OVER_PI + _SHIFT  # low mantissa bits hold q
    qf = qt - _SHIFT
    r = ((xi - qf * _PIO2_1) - qf * _PIO2_2) - qf * _PIO2_3
    q = (_float_to_bits(qt) + phase) & 3
    r2 = r * r
    s = _sin_poly(r, r2)
    c = _cos_poly(r2)
    v = c if (q & 1) == 1 else s
    return -v if (q & 2) == 2 else v


@numba.njit(inline="always")
def _in_trig_range(x):
    # 0 inside the reduced range, 1 for large |x|, inf and NaN
    return 0 if -_TRIG_MAX <= x <= _TRIG_MAX else 1


@numba.njit(**_OPTS)
def sin_kernel(x, out):
    n = x.size
    bad = 0
    for i in range(n):
        xi = x[i]
        v = _trig(xi, 0)
        out[i] = xi if xi == 0.0 else v  # sin(+-0) = +-0
        bad |= _in_trig_range(xi)
    if bad:  # large |x|, inf, NaN: the C library, in a second pass
        for i in range(n):
            xi = x[i]
            if _in_trig_range(xi):
                out[i] = math.sin(xi)


@numba.njit(**_OPTS)
def cos_kernel(x, out):
    n = x.size
    bad = 0
    for i in range(n):
        xi = x[i]
        out[i] = _trig(xi, 1)
        bad |= _in_trig_range(xi)
    if bad:
        for i in range(n):
            xi = x[i]
            if _in_trig_range(xi):
                out[i] = math.cos(xi)


@numba.njit(**_OPTS)
def tanh_kernel(x, out):
    n = x.size
    nan = 0
    for i in range(n):
        xi = np.float64(x[i])
        a = min(abs(xi), 20.0)  # tanh(20) rounds to 1
        y = a + a
        t = y * _LOG2E + _SHIFT
        kf = t - _SHIFT
        r = (y - kf * _LN2_HI) - kf * _LN2_LO
        s = _pow2_of_shifted(t)
        e = s * _expm1_reduced(r) + (s - 1.0)  # expm1(2a)
        v = e / (e + 2.0)
        v = -v if xi < 0.0 else v
        out[i] = xi if xi == 0.0 else v  # tanh(+-0) = +-0
        nan |= 0 if xi == xi else 1
    if nan:  # NaN in, NaN out
        for i in range(n):
            xi = x[i]
            if xi != xi:
                out[i] = xi


@numba.njit(**_OPTS)
def sin_grad_kernel(g, x, out):
    # g * cos(x): the derivative of sin applied to g, in one pass
    n = x.size
    bad = 0
    for i in range(n):
        xi = x[i]
        out[i] = g[i] * _trig(xi, 1)
        bad |= _in_trig_range(xi)
    if bad:
        for i in range(n):
            xi = x[i]
            if _in_trig_range(xi):
                out[i] = g[i] * math.cos(xi)


@numba.njit(**_OPTS)
def cos_grad_kernel(g, x, out):
    # -(g * sin(x)): the derivative of cos applied to g, in one pass
    n = x.size
    bad = 0
    for i in range(n):
        xi = x[i]
        v = _trig(xi, 0)
        out[i] = -(g[i] * (xi if xi == 0.0 else v))
        bad |= _in_trig_range(xi)
    if bad:
        for i in range(n):
            xi = x[i]
            if _in_trig_range(xi):
                out[i] = -(g[i] * math.sin(xi))


# ==========================================================================
# Scalar functions for fused loops (the interface is documented in
# :mod:`.vecmath`).  Each is branch-free (selects only, no libm calls) and
# inlined, so a loop ``out[i] = f(x[i])`` vectorizes.  ``*_f64`` take and
# return float64; ``*_f32`` compute in float64 and round once to float32.

_INF = math.inf
_NAN = math.nan
_SQRT2 = 1.4142135623730951
_TWO54 = 18014398509481984.0  # 2**54: scales subnormals to normal numbers
_MANT_MASK = (1 << 52) - 1
_ONE_BITS = 1023 << 52
# atanh series: log((1 + s) / (1 - s)) = 2 s + s * R(s**2),
# R = sum_{n>=1} 2 s**(2n) / (2n + 1); |s| <= 3 - 2 sqrt(2) = 0.1716 after the
# reduction, so 11 terms leave a truncation below 1e-19 relative.
_L = [2.0 / (2 * n + 1) for n in range(1, 12)]
_L1, _L2, _L3, _L4, _L5, _L6, _L7, _L8, _L9, _L10, _L11 = _L


@numba.njit(inline="always")
def _int_to_float(i):
    # int64 -> float64 for |i| < 2**51 by bits (vectorizes on AVX2, which has
    # no packed int64 -> float64 conversion)
    return _bits_to_float(i + _SHIFT_BITS) - _SHIFT


@numba.njit(inline="always")
def _log_reduce(x):
    # x = 2**k * m with sqrt(2)/2 < m <= sqrt(2), for x > 0 finite
    # (subnormals scaled by 2**54 first): (m, float(k))
    tiny = x < 2.2250738585072014e-308
    xs = x * _TWO54 if tiny else x
    b = _float_to_bits(xs)
    e = (b >> 52) - (1023 + 54 if tiny else 1023)
    m = _bits_to_float((b & _MANT_MASK) | _ONE_BITS)  # 1 <= m < 2
    big = m > _SQRT2
    m = m * 0.5 if big else m
    e = e + 1 if big else e
    return m, _int_to_float(e)


@numba.njit(inline="always")
def _log_core(x):
    # log(x) for x > 0 finite (subnormals included); garbage elsewhere (the
    # callers select the special values)
    m, kf = _log_reduce(x)
    f = m - 1.0  # exact; sqrt(2)/2 - 1 <= f <= sqrt(2) - 1
    s = f / (2.0 + f)
    z = s * s
    r = _L11
    r = r * z + _L10
    r = r * z + _L9
    r = r * z + _L8
    r = r * z + _L7
    r = r * z + _L6
    r = r * z + _L5
    r = r * z + _L4
    r = r * z + _L3
    r = r * z + _L2
    r = r * z + _L1
    r = r * z
    # log(1 + f) = f - (f**2/2 - s (f**2/2 + R)), the f**2/2 terms cancel
    # exactly in real arithmetic and keep the rounding small in floats
    hfsq = 0.5 * f * f
    return kf * _LN2_HI + (f - (hfsq - (s * (hfsq + r) + kf * _LN2_LO)))


@numba.njit(inline="always")
def log_f64(x):
    """``log(x)``: -inf at +-0, NaN below 0 and at NaN, inf at inf."""
    x = np.float64(x)
    v = _log_core(x)
    v = v if x > 0.0 else (-_INF if x == 0.0 else _NAN)
    return _INF if x == _INF else v


@numba.njit(inline="always")
def log1p_f64(x):
    """``log(1 + x)``: exact for tiny ``x`` (and -0.0), -inf at -1, inf at inf."""
    x = np.float64(x)
    u = 1.0 + x
    # log(1 + x) = log(u) + (x - (u - 1)) / u to first order in the rounding
    # error of u (D. Goldberg, "What every computer scientist should know
    # about floating-point arithmetic", 1991, theorem 4's idea)
    c = (x - (u - 1.0)) / u
    v = _log_core(u) + c
    v = v if u > 0.0 else (-_INF if u == 0.0 else _NAN)
    v = _INF if x == _INF else v
    return x if x == 0.0 else v


@numba.njit(inline="always")
def _expm1_core(x):
    # expm1(x) for |x| <= 40: x = k ln2 + r, expm1(x) = 2**k expm1(r) + (2**k - 1)
    t = x * _LOG2E + _SHIFT
    kf = t - _SHIFT
    r = (x - kf * _LN2_HI) - kf * _LN2_LO
    s = _pow2_of_shifted(t)
    return s * _expm1_reduced(r) + (s - 1.0)


@numba.njit(inline="always")
def exp_f64(x):
    """``exp(x)``: see :func:`fexp`."""
    return fexp(x)


@numba.njit(inline="always")
def expm1_f64(x):
    """``exp(x) - 1``: exact for tiny ``x`` (and -0.0), -1 below -40, inf past 709.78."""
    x = np.float64(x)
    xc = min(max(x, -40.0), 40.0)
    v = _expm1_core(xc)
    v = fexp(x) - 1.0 if x > 40.0 else v
    v = -1.0 if x < -40.0 else v
    v = x if x == 0.0 else v
    return x if x != x else v


@numba.njit(inline="always")
def tanh_f64(x):
    """``tanh(x)`` = e / (e + 2), e = expm1(2|x|), |x| clamped to 20 (tanh = 1 there)."""
    x = np.float64(x)
    a = min(abs(x), 20.0)
    e = _expm1_core(a + a)
    v = e / (e + 2.0)
    v = -v if x < 0.0 else v
    v = x if x == 0.0 else v
    return x if x != x else v


@numba.njit(inline="always")
def sigmoid_f64(x):
    """``1 / (1 + exp(-x))``, as ``e / (1 + e)`` with ``e = exp(x)`` for x < 0
    (so the lower tail keeps its relative accuracy down to the subnormals)."""
    x = np.float64(x)
    e = fexp(-abs(x))
    d = 1.0 + e
    return 1.0 / d if x >= 0.0 else (e / d if x < 0.0 else x)


@numba.njit(inline="always")
def sin_f64(x):
    """``sin(x)`` for |x| <= 1e5 (NaN at inf and NaN, -0.0 kept); see ``needs_fixup_trig``."""
    x = np.float64(x)
    v = _trig(x, 0)
    v = x if x == 0.0 else v
    d = x - x  # 0 for finite x, NaN for inf and NaN
    return v if d == 0.0 else d


@numba.njit(inline="always")
def cos_f64(x):
    """``cos(x)`` for |x| <= 1e5 (NaN at inf and NaN); see ``needs_fixup_trig``."""
    x = np.float64(x)
    v = _trig(x, 1)
    d = x - x
    return v if d == 0.0 else d


@numba.njit(inline="always")
def needs_fixup_trig(x):
    """True where ``sin_f64``/``cos_f64`` (and the f32 versions) are not valid:
    finite |x| > 1e5.  Recompute those elements with ``math.sin``/``math.cos``."""
    a = abs(np.float64(x))
    return a > _TRIG_MAX and a != _INF


@numba.njit(inline="always")
def exp_f32(x):
    """float32 ``exp``: float64 computation rounded once."""
    return np.float32(fexp(np.float64(x)))


@numba.njit(inline="always")
def log_f32(x):
    """float32 ``log``: float64 computation rounded once."""
    return np.float32(log_f64(np.float64(x)))


@numba.njit(inline="always")
def log1p_f32(x):
    """float32 ``log1p``: float64 computation rounded once."""
    return np.float32(log1p_f64(np.float64(x)))


@numba.njit(inline="always")
def expm1_f32(x):
    """float32 ``expm1``: float64 computation rounded once."""
    return np.float32(expm1_f64(np.float64(x)))


@numba.njit(inline="always")
def tanh_f32(x):
    """float32 ``tanh``: float64 computation rounded once."""
    return np.float32(tanh_f64(np.float64(x)))


@numba.njit(inline="always")
def sigmoid_f32(x):
    """float32 ``sigmoid``: float64 computation rounded once."""
    return np.float32(sigmoid_f64(np.float64(x)))


@numba.njit(inline="always")
def sin_f32(x):
    """float32 ``sin``: float64 computation rounded once (same fix-up rule)."""
    return np.float32(sin_f64(np.float64(x)))


@numba.njit(inline="always")
def cos_f32(x):
    """float32 ``cos``: float64 computation rounded once (same fix-up rule)."""
    return np.float32(cos_f64(np.float64(x)))


# ==========================================================================
# pow: x**y = 2**k exp(r) with y log|x| carried in double-double.  See
# :mod:`.vecmath` for the method, accuracy and sources.

@intrinsic
def _fma(typingctx, a, b, c):
    """``a * b + c`` with one rounding (LLVM's ``llvm.fma.f64``: one
    instruction on FMA hardware, vectorizable)."""

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return types.float64(types.float64, types.float64, types.float64), codegen


# 2/(2n+1) split: the s**3 term's coefficient 2/3 as a double-double
_C3_HI = 2.0 / 3.0
_C3_LO = 3.700743415417188e-17  # 2/3 - _C3_HI
# the s**5 ... s**25 terms: 2/(2n+1), n = 2..12
_Q = [2.0 / (2 * n + 1) for n in range(2, 13)]
_Q5, _Q7, _Q9, _Q11, _Q13, _Q15, _Q17, _Q19, _Q21, _Q23, _Q25 = _Q
_LN2_LO_LO = 1.1612227229362532e-26  # ln 2 - _LN2_HI - _LN2_LO


@numba.njit(inline="always")
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@numba.njit(inline="always")
def _log_dd(x):
    # log(x) = hi + lo for x > 0 finite (subnormals included), relative error
    # about 2**-66; garbage elsewhere (the caller selects).  Same reduction as
    # _log_core (_log_reduce), then log(1 + f) = 2 atanh(s), s = f / (2 + f), with s, s**2,
    # s**3 and the first two terms of the series carried in double-double.
    m, kf = _log_reduce(x)
    f = m - 1.0  # exact (Sterbenz)
    dh = 2.0 + f
    dl = f - (dh - 2.0)  # 2 + f = dh + dl exactly (|f| < 2)
    sh = f / dh
    sl = (_fma(-sh, dh, f) - sh * dl) / dh  # s = sh + sl
    s2h = sh * sh
    s2l = _fma(sh, sh, -s2h) + 2.0 * sh * sl
    s3h = s2h * sh
    s3l = _fma(s2h, sh, -s3h) + (s2h * sl + s2l * sh)
    t3h = _C3_HI * s3h
    t3l = _fma(_C3_HI, s3h, -t3h) + (_C3_HI * s3l + _C3_LO * s3h)
    w = s2h
    q = _Q25
    q = q * w + _Q23
    q = q * w + _Q21
    q = q * w + _Q19
    q = q * w + _Q17
    q = q * w + _Q15
    q = q * w + _Q13
    q = q * w + _Q11
    q = q * w + _Q9
    q = q * w + _Q7
    q = q * w + _Q5
    t5 = q * (s3h * w)  # the s**5 ... s**25 tail, below 2**-12 of the result
    h, l1 = _two_sum(kf * _LN2_HI, 2.0 * sh)  # kf * _LN2_HI is exact
    h, l2 = _two_sum(h, t3h)
    lo = l1 + l2 + 2.0 * sl + t3l + t5 + kf * _LN2_LO + kf * _LN2_LO_LO
    hi = h + lo
    return hi, lo - (hi - h)


@numba.njit(inline="always")
def _is_int_odd(y):
    # (y is an integer, y is an odd integer) for any float y; inf counts as
    # an even integer (C99's pow does so), NaN as neither.  Adding 2**52 to a
    # non-negative float below 2**52 rounds it to an integer (the sum's ulp
    # is 1); from 2**52 on every float is an integer, and up to 2**53 it is
    # odd exactly when its half is not an integer.
    a = abs(y)
    r = (a + _TWO52) - _TWO52
    is_int = a >= _TWO52 or r == a
    h = a * 0.5  # exact
    hr = (h + _TWO52) - _TWO52
    odd = is_int and a < 2.0 * _TWO52 and hr != h
    return is_int, odd


@numba.njit(inline="always")
def _exp_dd(zh, zl):
    # exp(zh + zl), |zl| <= ulp(zh): fexp's reduction with zl added to the
    # reduced argument; 0 / inf outside [-746, 710], NaN at NaN
    zi = min(max(zh, _EXP_LO), _EXP_HI)
    t = zi * _LOG2E + _SHIFT
    kf = t - _SHIFT
    r = ((zi - kf * _LN2_HI) - kf * _LN2_LO) + zl
    bits = _float_to_bits(t) - _SHIFT_BITS
    k1 = bits >> 1
    s1 = _bits_to_float((k1 + 1023) << 52)
    s2 = _bits_to_float((bits - k1 + 1023) << 52)
    e = ((_expm1_reduced(r) + 1.0) * s1) * s2
    return zh if zh != zh else e


@numba.njit(inline="always")
def _pow_special(x, y, v):
    # the value of x**y given v = |x|**y computed for finite nonzero |x|:
    # zeros, infinities, NaN, negative bases and x**0 / 1**y, as C99 and NumPy
    ax = abs(x)
    is_int, odd = _is_int_odd(y)
    neg = x < 0.0
    # |x| = 0 or inf: 0 or inf by the sign of y (times the sign for odd y)
    zero_or_inf = (y > 0.0) == (ax != 0.0)
    vz = _INF if zero_or_inf else 0.0
    v = vz if (ax == 0.0 or ax == _INF) else v
    v = -v if (_float_to_bits(x) < 0 and odd) else v  # -0.0 included
    v = _NAN if (neg and not is_int and ax != _INF) else v
    v = 1.0 if (ax == 1.0 and (not neg or abs(y) == _INF)) else v
    v = x + y if (x != x or y != y) else v  # NaN
    v = 1.0 if x == 1.0 else v
    return 1.0 if y == 0.0 else v


@numba.njit(inline="always")
def pow_f64(x, y):
    """``x ** y`` for float64 ``x``, ``y`` with NumPy's (C99 Annex F's) special values.

    ``exp(y log|x|)``: ``log|x|`` in double-double (:func:`_log_dd`: the
    atanh series after reduction to ``[sqrt(2)/2, sqrt(2))``, the leading
    terms carried with error-free FMA products and two-sums, T. J. Dekker,
    "A floating-point technique for extending the available precision",
    Numer. Math. 18, 1971), ``y log|x|`` as a double-double product, then
    fexp's Cody-Waite reduction with the low part added to the reduced
    argument.  Within 1.6 ulp of ``powl`` over the whole range (measured);
    the sign and the special cases (zeros, infinities, NaN, negative bases)
    are selects (:func:`_pow_special`).
    """
    x = np.float64(x)
    y = np.float64(y)
    ax = abs(x)
    ok = ax > 0.0 and ax < _INF
    lh, ll = _log_dd(ax if ok else 1.0)
    zh = y * lh
    zl = _fma(y, lh, -zh) + y * ll
    zl = zl if abs(zh) < 1000.0 else 0.0  # (inf - inf: no low part needed)
    v = _exp_dd(zh, zl)
    return _pow_special(x, y, v)


@numba.njit(inline="always")
def pow_f32(x, y):
    """float32 ``x ** y``: ``exp(y log|x|)`` in float64 (|y log x| <= 104
    for results in float32's range, so float64's rounding is 2**-46 of it),
    rounded once, with the same special values."""
    x = np.float64(x)
    y = np.float64(y)
    ax = abs(x)
    ok = ax > 0.0 and ax < _INF
    v = fexp(y * _log_core(ax if ok else 1.0))
    return np.float32(_pow_special(x, y, v))


# ==========================================================================
# erf: the Maclaurin series for |x| < 1, 1 - exp(-x**2) P(t) / Q(t) for
# 1 <= |x| < 6 (t = |x| - 1), 1 beyond.  See :mod:`.vecmath`.

_SQRT_PI = math.sqrt(math.pi)
# erf(x) = x + x R(x**2), R(z) = (2/sqrt(pi) - 1) + sum_{n>=1} c_n z**n,
# c_n = 2/sqrt(pi) (-1)**n / (n! (2n + 1)) (Abramowitz and Stegun 7.1.5);
# 18 terms leave a truncation below 5e-18 at |x| = 1.
_ERF_C0 = 0.12837916709551257390  # 2/sqrt(pi) - 1, rounded once
_ERF_C = [2.0 / _SQRT_PI * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(1, 19)]
(_EC1, _EC2, _EC3, _EC4, _EC5, _EC6, _EC7, _EC8, _EC9, _EC10, _EC11, _EC12, _EC13, _EC14,
 _EC15, _EC16, _EC17, _EC18) = _ERF_C
# erfc(a) exp(a**2) = P(t) / Q(t), t = a - 1, on 1 <= a <= 6: a weighted
# least-squares rational fit of degree 6/6 made for this module
# (Sanathanan-Koerner iteration against mpmath's erfc at 400 Chebyshev points,
# weight exp(-a**2)): absolute error of the resulting erfc below 2e-19, i.e.
# 0.002 ulp of erf.  All coefficients are positive (t >= 0): no cancellation.
_EP = (0.427583576155807, 0.5214215957133084, 0.281940010177263, 0.08217902984867846,
       0.012836465118731127, 0.0008581363089407025, 1.5447086953375571e-09)
_EQ = (1.0, 1.8584287489275562, 1.485822999433166, 0.6559235715466825, 0.16918149782217431,
       0.02427196727595279, 0.001521086107844353)
_EP0, _EP1, _EP2, _EP3, _EP4, _EP5, _EP6 = _EP
_EQ0, _EQ1, _EQ2, _EQ3, _EQ4, _EQ5, _EQ6 = _EQ


@numba.njit(inline="always")
def erf_f64(x):
    """``erf(x)`` for float64 ``x``, within 1.3 ulp of the true value (measured
    against mpmath; 1 ulp from ``math.erf``).

    ``|x| < 1``: ``x + x R(x**2)``, the Maclaurin series (Abramowitz and
    Stegun 7.1.5); ``1 <= |x| < 6``: ``1 - exp(-x**2) P(t) / Q(t)``,
    ``t = |x| - 1``, this module's rational fit of ``erfc(x) exp(x**2)``;
    both are evaluated and one selected.  Odd, ``erf(+-0) = +-0``, ``+-1``
    from ``|x| >= 6`` (where it rounds to 1) and at ``+-inf``, NaN at NaN.
    """
    x = np.float64(x)
    z = x * x
    r = _EC18
    r = r * z + _EC17
    r = r * z + _EC16
    r = r * z + _EC15
    r = r * z + _EC14
    r = r * z + _EC13
    r = r * z + _EC12
    r = r * z + _EC11
    r = r * z + _EC10
    r = r * z + _EC9
    r = r * z + _EC8
    r = r * z + _EC7
    r = r * z + _EC6
    r = r * z + _EC5
    r = r * z + _EC4
    r = r * z + _EC3
    r = r * z + _EC2
    r = r * z + _EC1
    small = x + x * (r * z + _ERF_C0)
    a = abs(x)
    b = min(max(a, 1.0), 6.0)
    t = b - 1.0
    p = _EP6
    p = p * t + _EP5
    p = p * t + _EP4
    p = p * t + _EP3
    p = p * t + _EP2
    p = p * t + _EP1
    p = p * t + _EP0
    q = _EQ6
    q = q * t + _EQ5
    q = q * t + _EQ4
    q = q * t + _EQ3
    q = q * t + _EQ2
    q = q * t + _EQ1
    q = q * t + _EQ0
    large = 1.0 - fexp(-(b * b)) * (p / q)
    large = large if a < 6.0 else 1.0
    large = -large if x < 0.0 else large
    v = small if a < 1.0 else large
    return x if x != x else v


@numba.njit(inline="always")
def erf_f32(x):
    """float32 ``erf``: float64 computation rounded once."""
    return np.float32(erf_f64(np.float64(x)))

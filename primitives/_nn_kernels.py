"""Numba kernels behind :mod:`.nn` (imported on first use: imports Numba).

Elementwise kernels take flat (1-D) C-contiguous arrays and write ``out``;
row kernels take ``(rows, n)`` C-contiguous arrays and work on one row at a
time while it is in cache.  ``exp`` is :func:`._vecmath_kernels.fexp`, the
branch-free polynomial that LLVM vectorizes (see :mod:`.vecmath` for its
method and accuracy); kernels that call it are compiled with
``fastmath={"contract"}``, as ``fexp``'s own kernel is, so its polynomial
uses fused multiply-adds.  The pure-arithmetic kernels are compiled without
fastmath and round every operation as NumPy does.

Every function here is defined at module level so Numba's on-disk cache
(``cache=True``) applies.  Numba does not invalidate a cached kernel when
an inlined helper from *another file* changes (documented limitation, see
numba issue #1833): after editing ``fexp`` in ``_vecmath_kernels.py``,
delete this module's cache files (``primitives/__pycache__/_nn_kernels.*.nbi``
and ``.nbc``) or touch this file.
"""
import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._vecmath_kernels import fexp

# kernels calling fexp: let LLVM fuse its multiply-adds
_FUSED = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")
# pure arithmetic: IEEE rounding of every operation, as in NumPy
_EXACT = dict(cache=True, nogil=True, error_model="numpy")


# ==========================================================================
# helpers (inlined into the kernels that call them)

@numba.njit(inline="always")
def _sum4(a):
    """Sum of a 1-D array with four accumulators (vectorizes; a serial sum does not)."""
    n = a.size
    s0 = s1 = s2 = s3 = 0.0
    j = 0
    while j + 4 <= n:
        s0 += a[j]
        s1 += a[j + 1]
        s2 += a[j + 2]
        s3 += a[j + 3]
        j += 4
    while j < n:
        s0 += a[j]
        j += 1
    return (s0 + s1) + (s2 + s3)


@numba.njit(inline="always")
def _shift(a):
    """The max of a 1-D array if finite, else 0: the stabilizing shift of exp.

    NaNs are skipped here; they propagate through the ``exp`` that follows.
    """
    m = -math.inf
    for j in range(a.size):
        v = np.float64(a[j])
        m = v if v > m else m
    return m if abs(m) < math.inf else 0.0


@numba.njit(inline="always")
def _sigmoid(v):
    """``sigmoid(v)`` for a float64 ``v``: ``1/(1+e)`` or ``e/(1+e)``, ``e = exp(-|v|)``."""
    e = fexp(-abs(v))
    r = 1.0 / (1.0 + e)
    return r if v >= 0.0 else e * r


@numba.njit(inline="always")
def _softmax_row(x, out, c):
    """``out = c * softmax(x)`` for one row: max, exp, sum and scale in cache."""
    m = _shift(x)
    for j in range(x.size):
        out[j] = fexp(np.float64(x[j]) - m)
    scale = c / _sum4(out)
    for j in range(x.size):
        out[j] = out[j] * scale


# ==========================================================================
# elementwise kernels: (flat inputs..., flat out)

@numba.njit(**_FUSED)
def sigmoid_kernel(x, out):
    for i in range(x.size):
        out[i] = _sigmoid(np.float64(x[i]))


@numba.njit(**_EXACT)
def sigmoid_grad_kernel(g, s, out):
    for i in range(out.size):
        out[i] = g[i] * s[i] * (1.0 - s[i])


@numba.njit(**_FUSED)
def softplus_kernel(x, out):
    n = x.size
    for i in range(n):  # vectorized: exp(-|x|)
        out[i] = fexp(-abs(np.float64(x[i])))
    for i in range(n):  # scalar log1p calls
        v = np.float64(x[i])
        out[i] = (v if v > 0.0 else 0.0) + math.log1p(np.float64(out[i]))


@numba.njit(**_FUSED)
def softplus_grad_kernel(g, x, out):
    for i in range(out.size):
        out[i] = g[i] * _sigmoid(np.float64(x[i]))


@numba.njit(**_EXACT)
def erf_kernel(x, out):
    for i in range(x.size):
        out[i] = math.erf(x[i])


# erf for float32 results: branch-free float64 polynomials that LLVM
# vectorizes (a scalar math.erf per element costs ~6x more).  Fitted here by
# least squares against math.erf/math.erfc (highest power first):
#   |x| < 1:      erf(x) = x * P(2 x**2 - 1),      P/(erf(x)/x) - 1 < 2e-15
#   1 <= |x| < 4: erf(x) = 1 - exp(-x**2) * Q((2|x| - 5) / 3),
#                 Q/(erfc(x) exp(x**2)) - 1 < 3e-11
#   |x| >= 4:     1 (erfc(4) = 1.5e-8 is below half a float32 ulp of 1)
# so the float64 value is within ~1e-11 relative of erf and its float32
# rounding equals float32(math.erf(x)) or is one ulp away (when math.erf is
# that close to a rounding midpoint).  The float64 kernel keeps math.erf.
_ERF_SMALL = (
    9.198418114577363e-12,
    -2.0451880755211498e-10,
    4.11578634223058e-09,
    -7.51147540455852e-08,
    1.2233827339767357e-06,
    -1.7537169826859794e-05,
    0.00021751715604699298,
    -0.0022854855610801037,
    0.019852496688982636,
    -0.14053608902271925,
    0.9654687386698663,
)

_ERFC_LARGE = (
    2.1639384441936494e-07,
    -6.273722932048191e-07,
    9.468187786211121e-07,
    -2.7036666601950774e-06,
    8.882136425340538e-06,
    -2.4024273872069445e-05,
    6.247959792094779e-05,
    -0.0001617951434236786,
    0.0004091186891461911,
    -0.0010058948922882776,
    0.0024036412877662706,
    -0.005570696405628864,
    0.012489374481228565,
    -0.027005297335627208,
    0.05611049342332909,
    -0.11152102017135145,
    0.21080636406127107,
)


@numba.njit(inline="always")
def _erf_small(u):
    """``P(u)``: the polynomial of ``_ERF_SMALL`` (unrolled so LLVM vectorizes it)."""
    c = _ERF_SMALL
    r = c[0]
    r = r * u + c[1]
    r = r * u + c[2]
    r = r * u + c[3]
    r = r * u + c[4]
    r = r * u + c[5]
    r = r * u + c[6]
    r = r * u + c[7]
    r = r * u + c[8]
    r = r * u + c[9]
    r = r * u + c[10]
    return r


@numba.njit(inline="always")
def _erfc_large(u):
    """``Q(u)``: the polynomial of ``_ERFC_LARGE`` (unrolled)."""
    c = _ERFC_LARGE
    r = c[0]
    r = r * u + c[1]
    r = r * u + c[2]
    r = r * u + c[3]
    r = r * u + c[4]
    r = r * u + c[5]
    r = r * u + c[6]
    r = r * u + c[7]
    r = r * u + c[8]
    r = r * u + c[9]
    r = r * u + c[10]
    r = r * u + c[11]
    r = r * u + c[12]
    r = r * u + c[13]
    r = r * u + c[14]
    r = r * u + c[15]
    r = r * u + c[16]
    return r


@numba.njit(inline="always")
def _erf32(v):
    """erf of a float64 ``v`` by the polynomials above (for float32 results)."""
    a = abs(v)
    t = a * a if a < 1.0 else 1.0
    small = a * _erf_small(2.0 * t - 1.0)
    b = a if a > 1.0 else 1.0
    b = b if b < 4.0 else 4.0
    large = 1.0 - fexp(-(b * b)) * _erfc_large((2.0 * b - 5.0) / 3.0)
    r = small if a < 1.0 else (large if a < 4.0 else (1.0 if a >= 4.0 else a))
    return math.copysign(r, v)


@numba.njit(**_FUSED)
def erf32_kernel(x, out):
    for i in range(x.size):
        out[i] = _erf32(np.float64(x[i]))


# ==========================================================================
# gelu(x) = x Phi(x) and its derivative Phi(x) + x phi(x) (exact form), or
# the tanh form 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x**3),
# with derivative 0.5 (1 + t) + 0.5 x (1 - t**2) u'  (t = tanh(u)).
# Hendrycks and Gimpel (2016), "Gaussian Error Linear Units (GELUs)".
# One pass instead of NumPy's five (forward) or about ten (derivative);
# float32 inputs are computed in float64 and rounded once.  Phi(x) is
# erfc(-x / sqrt(2)) / 2 in float64 (no cancellation in the negative tail,
# where 1 + erf(x / sqrt(2)) loses every digit below x = -8); the float32
# kernels use 1 + erf as PyTorch's float32 kernel does (absolute error below
# float32's epsilon times |x| / 2 there).

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_C = math.sqrt(2.0 / math.pi)
_TANH_A = 0.044715


@numba.njit(**_EXACT)
def gelu_kernel(x, out):
    for i in range(x.size):
        v = x[i]
        out[i] = 0.5 * v * math.erfc(-v * _INV_SQRT2)


# Float32 exact GELU in float32 arithmetic (8 lanes where float64 has 4):
# with u = x / sqrt(2), a = |u|,
#   a < 1:  erf(a) = a * P(a**2)                       (P: relative error 1.2e-9)
#   a >= 1: erfc(a) = exp(-a**2) * R(1/a) / a          (R: relative error 3.9e-8 on [1, 10])
#   a > 10: erfc(a) = 0 (below float32's smallest subnormal once halved)
# and 1 + erf(u) is taken as 1 + erf(a), 2 - erfc(a), 1 - erf(a) or erfc(a) by
# the signs, so the negative tail keeps its relative accuracy (no 1 + erf
# cancellation).  P and R are least-squares fits (iterated toward minimax)
# made for this module against math.erf/math.erfc; exp is Cody-Waite range
# reduction with a degree-6 polynomial, its 2**k set in the exponent bits.
# Within 3 float32 ulps of the float64 formula (2.1 measured), 2.6x faster
# than evaluating the float64 polynomials of erf32_kernel (0.033 ms against
# 0.086 ms at 32,768 elements).

_P32 = tuple(np.float32(c) for c in (
    7.854645809857175e-05, -0.0008010431774891913, 0.005188354756683111,
    -0.02685382589697838, 0.1128358542919159, -0.3761262595653534, 1.1283791065216064))
_R32 = tuple(np.float32(c) for c in (
    -0.0530080571770668, 0.26195448637008667, -0.4669341742992401, 0.18627619743347168,
    0.6046532392501831, -1.125200867652893, 0.8069923520088196, -0.07815395295619965,
    -0.27256524562835693, -0.0006379504920914769, 0.5642074942588806))
_EXP32 = tuple(np.float32(c) for c in (
    0.0013837722362950444, 0.008374826982617378, 0.04166821017861366,
    0.16666419804096222, 0.49999991059303284, 1.0, 1.0))
_F32 = np.float32
_LOG2E32 = _F32(1.4426950408889634)
_SHIFT32 = _F32(12582912.0)  # 1.5 * 2**23: adding it rounds to an integer
_SHIFT32_BITS = int(np.array(_SHIFT32, np.float32).view(np.int32))
_LN2_HI32 = _F32(0.693145751953125)
_LN2_LO32 = _F32(1.428606765330187e-06)
_INV_SQRT2_32 = _F32(1.0 / math.sqrt(2.0))
_INV_SQRT_2PI_32 = _F32(1.0 / math.sqrt(2.0 * math.pi))


@intrinsic
def _f32_to_bits(typingctx, x):
    """Reinterpret a float32 as its int32 bit pattern (an LLVM bitcast)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.int32(types.float32), codegen


@intrinsic
def _bits_to_f32(typingctx, x):
    """Reinterpret an int32 bit pattern as a float32 (an LLVM bitcast)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@numba.njit(inline="always")
def _horner32(c, x):
    r = c[0]
    for k in numba.literal_unroll(c[1:]):
        r = r * x + k
    return r


@numba.njit(inline="always")
def _exp32_nonpositive(x):
    """``exp(x)`` for a float32 ``x <= 0`` (clamped at -87: no subnormals)."""
    x = max(x, _F32(-87.0))
    t = x * _LOG2E32 + _SHIFT32
    n = t - _SHIFT32
    r = (x - n * _LN2_HI32) - n * _LN2_LO32
    k = _f32_to_bits(t) - np.int32(_SHIFT32_BITS)
    return _horner32(_EXP32, r) * _bits_to_f32((k + np.int32(127)) << np.int32(23))


@numba.njit(inline="always")
def _gelu32_parts(v):
    """``(1 + erf(v / sqrt 2), exp(-v**2 / 2))`` of a float32 ``v`` (the
    second 0 where the first is saturated: |v| > 10 sqrt 2)."""
    u = v * _INV_SQRT2_32
    a = abs(u)
    t = a * a
    small = a * _horner32(_P32, t)
    e = _exp32_nonpositive(-t)
    w = _F32(1.0) / max(a, _F32(1.0))
    ec = e * _horner32(_R32, w) * w
    far = a > _F32(10.0)
    ec = _F32(0.0) if far else ec
    if u >= _F32(0.0):
        onep = _F32(1.0) + small if a < _F32(1.0) else _F32(2.0) - ec
    else:
        onep = _F32(1.0) - small if a < _F32(1.0) else ec
    return onep, (_F32(0.0) if far else e)


@numba.njit(**_EXACT)
def gelu32_kernel(x, out):
    for i in range(x.size):
        v = x[i]
        onep, e = _gelu32_parts(v)
        out[i] = _F32(0.5) * v * onep


@numba.njit(**_EXACT)
def gelu32_grad_kernel(g, x, out):
    for i in range(x.size):
        v = x[i]
        onep, e = _gelu32_parts(v)
        out[i] = g[i] * (_F32(0.5) * onep + v * (_INV_SQRT_2PI_32 * e))


@numba.njit(**_FUSED)
def gelu_tanh_kernel(x, out):
    # 0.5 x (1 + tanh(u)) = x sigmoid(2 u): no cancellation for u << 0, and
    # sigmoid's exp vectorizes where a scalar tanh does not (5x faster)
    for i in range(x.size):
        v = np.float64(x[i])
        out[i] = v * _sigmoid(2.0 * _TANH_C * (v + _TANH_A * v * v * v))


@numba.njit(**_EXACT)
def gelu_grad_kernel(g, x, out):
    for i in range(x.size):
        v = x[i]
        d = 0.5 * math.erfc(-v * _INV_SQRT2) + v * _INV_SQRT_2PI * math.exp(-0.5 * v * v)
        out[i] = g[i] * d


@numba.njit(**_FUSED)
def gelu_tanh_grad_kernel(g, x, out):
    # with s = sigmoid(2 u): 0.5 (1 + t) = s and 1 - t**2 = 4 s (1 - s)
    for i in range(x.size):
        v = np.float64(x[i])
        sg = _sigmoid(2.0 * _TANH_C * (v + _TANH_A * v * v * v))
        du = _TANH_C * (1.0 + 3.0 * _TANH_A * v * v)
        out[i] = np.float64(g[i]) * (sg + 2.0 * v * sg * (1.0 - sg) * du)


# ==========================================================================
# row kernels: (rows, n) inputs

@numba.njit(**_FUSED)
def softmax_kernel(x, out):
    for i in range(x.shape[0]):
        _softmax_row(x[i], out[i], 1.0)


@numba.njit(**_FUSED)
def scaled_softmax_kernel(c, x, out):
    """``out[i] = c[i] * softmax(x[i])`` (the logsumexp VJP)."""
    for i in range(x.shape[0]):
        _softmax_row(x[i], out[i], np.float64(c[i]))


@numba.njit(**_EXACT)
def softmax_grad_kernel(g, y, out):
    rows, n = y.shape
    for i in range(rows):
        for j in range(n):
            out[i, j] = g[i, j] * y[i, j]
        s = _sum4(out[i])
        for j in range(n):
            out[i, j] = y[i, j] * (g[i, j] - s)


@numba.njit(**_FUSED)
def log_softmax_kernel(x, out):
    rows, n = x.shape
    for i in range(rows):
        m = _shift(x[i])
        for j in range(n):
            out[i, j] = fexp(np.float64(x[i, j]) - m)
        lse = math.log(_sum4(out[i]))
        for j in range(n):
            out[i, j] = (np.float64(x[i, j]) - m) - lse


@numba.njit(**_FUSED)
def log_softmax_vjp_kernel(c, y, out):
    rows, n = y.shape
    for i in range(rows):
        s = _sum4(c[i])
        for j in range(n):
            out[i, j] = c[i, j] - fexp(np.float64(y[i, j])) * s


@numba.njit(**_FUSED)
def log_softmax_jvp_kernel(t, y, out):
    rows, n = y.shape
    for i in range(rows):
        for j in range(n):
            out[i, j] = fexp(np.float64(y[i, j])) * t[i, j]
        s = _sum4(out[i])
        for j in range(n):
            out[i, j] = t[i, j] - s


@numba.njit(**_FUSED)
def logsumexp_kernel(x, out):
    """``out[i] = logsumexp(x[i])`` (a float64 row of scratch space inside)."""
    rows, n = x.shape
    buf = np.empty(n, np.float64)
    for i in range(rows):
        m = _shift(x[i])
        for j in range(n):
            buf[j] = fexp(np.float64(x[i, j]) - m)
        out[i] = m + math.log(_sum4(buf))


# ==========================================================================
# LSTM cell: gates (rows, 4H) in the order i, f, o, g (pre-activation), cell (rows, H)

@numba.njit(inline="always")
def _tanh64(v):
    """``tanh(v)`` for a float64 ``v`` through the sigmoid, ``2 sigmoid(2v) - 1``:
    branch-free ``fexp`` that LLVM vectorizes, where ``math.tanh`` is a scalar
    libm call per element (measured 0.55 ms against 0.1 ms for a (32, 512)
    LSTM step's backward).  Absolute error about 1e-16 (it loses the relative
    accuracy of tiny ``v``, which the cell's products do not need)."""
    return 2.0 * _sigmoid(2.0 * v) - 1.0


@numba.njit(**_FUSED)
def lstm_cell_kernel(gates, c, h, c2):
    """``c2 = f c + i g`` and ``h = o tanh(c2)`` with ``i, f, o = sigmoid(.)``,
    ``g = tanh(.)`` of the four gate blocks of each row."""
    rows, n = c.shape
    for r in range(rows):
        a = gates[r]
        ai, af, ao, ag = a[:n], a[n:2 * n], a[2 * n:3 * n], a[3 * n:]
        cr, hr, c2r = c[r], h[r], c2[r]
        for j in range(n):
            i = _sigmoid(np.float64(ai[j]))
            f = _sigmoid(np.float64(af[j]))
            o = _sigmoid(np.float64(ao[j]))
            g = _tanh64(np.float64(ag[j]))
            cc = f * np.float64(cr[j]) + i * g
            c2r[j] = cc
            hr[j] = o * _tanh64(cc)


@numba.njit(**_FUSED)
def lstm_cell_grad_kernel(gates, c, ct_h, ct_c, d_gates, d_c):
    """The cotangents of :func:`lstm_cell_kernel`'s gates and cell from those of
    ``h`` and ``c2`` (activations recomputed from the gates).  Each gate block
    is read and written through its own row slice, so the inner loop
    vectorizes."""
    rows, n = c.shape
    for r in range(rows):
        a, d = gates[r], d_gates[r]
        ai, af, ao, ag = a[:n], a[n:2 * n], a[2 * n:3 * n], a[3 * n:]
        di, df, do, dg = d[:n], d[n:2 * n], d[2 * n:3 * n], d[3 * n:]
        cr, hr, kr, dcr = c[r], ct_h[r], ct_c[r], d_c[r]
        for j in range(n):
            i = _sigmoid(np.float64(ai[j]))
            f = _sigmoid(np.float64(af[j]))
            o = _sigmoid(np.float64(ao[j]))
            g = _tanh64(np.float64(ag[j]))
            cj = np.float64(cr[j])
            t = _tanh64(f * cj + i * g)
            gh = np.float64(hr[j])
            dcc = np.float64(kr[j]) + gh * o * (1.0 - t * t)
            di[j] = dcc * g * i * (1.0 - i)
            df[j] = dcc * cj * f * (1.0 - f)
            do[j] = gh * t * o * (1.0 - o)
            dg[j] = dcc * i * (1.0 - g * g)
            dcr[j] = dcc * f
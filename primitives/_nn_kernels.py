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
